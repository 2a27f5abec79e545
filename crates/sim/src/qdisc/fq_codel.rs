//! FQ-CoDel, Flow Queue CoDel (RFC 8290): packets are hashed by flow into `flows`
//! queues, each under its own CoDel (section 4.2), served by deficit round robin with
//! `quantum` bytes per round, queues that were empty going ahead of the old ones
//! (section 4.1-4.3). When the whole buffer is full, the head of the queue holding the
//! most bytes is dropped (section 4.1.1).

use super::codel::{
    CodelCounts, CodelParams, CodelState, SojournMean, TimedFifo, TimedQueue, CODEL_KEYS,
};
use super::registry::{BuildContext, Key, KeyValue, Params, Problem, Scheme, Setting};
use super::{Dequeued, Qdisc, QueueCounters, QueueDiscipline, QueueSample, Queued, Routes};
use crate::ids::NodeId;
use crate::net::{DropReason, Packet};
use airqueue_kernel::Time;
use std::collections::VecDeque;

/// `queue.kind = "fq_codel"`.
pub static SCHEME: Scheme = Scheme {
    name: "fq_codel",
    summary: "FQ-CoDel, flow queuing with CoDel per queue (RFC 8290)",
    // Linux's sch_fq_codel limit (RFC 8290 5.2.1).
    default_capacity_pkts: 10_240,
    keys: &FQ_CODEL_KEYS,
    table_keys: &[],
    moves_packets_on_link_break: true,
    refuses_saturating_source: false,
    runs_at_access_point: false,
    check,
    build,
};

const FQ_CODEL_KEYS: [Key; 6] = [
    CODEL_KEYS[0],
    CODEL_KEYS[1],
    CODEL_KEYS[2],
    Key {
        name: "ecn",
        doc: "mark CE on ECN-capable packets instead of dropping them (RFC 8290 5.2.7: \
              on by default in Linux)",
        value: KeyValue::Bool { default: true },
    },
    Key {
        name: "flows",
        doc: "number of flow queues packets are hashed into (RFC 8290 5.2.2: 1024)",
        value: KeyValue::Integer {
            default: 1024,
            min: 1,
            max: 65_536,
        },
    },
    Key {
        name: "quantum",
        doc: "bytes a queue may send per round of the scheduler (RFC 8290 5.2.3: the \
              MTU)",
        value: KeyValue::Integer {
            default: 1500,
            min: 64,
            max: 65_535,
        },
    },
];

fn check(p: &mut Params, setting: &Setting) -> Vec<Problem> {
    match (p.value("flows"), setting.capacity_pkts) {
        (Some(flows), Some(c)) if flows > f64::from(c) => vec![Problem::new(
            "flows",
            format!(
                "must be at most capacity ({c} packets), got {flows}: every flow queue needs \
                 room for a packet"
            ),
        )],
        _ => Vec::new(),
    }
}

fn build(p: &Params, ctx: &mut BuildContext) -> Qdisc {
    let cfg = FqCodelConfig {
        capacity_pkts: p.capacity_pkts,
        flows: p.integer("flows") as usize,
        quantum_bytes: p.integer("quantum") as i64,
        params: CodelParams::from_params(p),
    };
    // RFC 8290 4.1.1: the hash is perturbed at random per instance.
    Box::new(FqCodel::new(cfg, ctx.rng.next_u64()))
}

/// FQ-CoDel's settings.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct FqCodelConfig {
    pub capacity_pkts: u32,
    pub flows: usize,
    pub quantum_bytes: i64,
    pub params: CodelParams,
}

/// Which list a flow queue is on (RFC 8290 4.2).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum List {
    New,
    Old,
}

#[derive(Clone, Debug, Default)]
struct FlowQueue {
    fifo: TimedFifo,
    deficit: i64,
    codel: CodelState,
    list: Option<List>,
}

/// One flow queue seen by its CoDel, with the byte count of the whole discipline that
/// RFC 8290 (as Linux) compares with MAXPACKET.
struct FlowView<'a> {
    fifo: &'a mut TimedFifo,
    total_bytes: &'a mut u64,
}

impl TimedQueue for FlowView<'_> {
    fn pop(&mut self) -> Option<(Queued, Time)> {
        let (q, at) = self.fifo.pop()?;
        *self.total_bytes -= u64::from(q.pkt.size_bytes());
        Some((q, at))
    }

    fn backlog_bytes(&self) -> u64 {
        *self.total_bytes
    }
}

/// The FQ-CoDel discipline of one interface.
#[derive(Debug)]
pub struct FqCodel {
    cfg: FqCodelConfig,
    perturbation: u64,
    queues: Vec<FlowQueue>,
    new_flows: VecDeque<usize>,
    old_flows: VecDeque<usize>,
    len: usize,
    total_bytes: u64,
    counters: QueueCounters,
    codel: CodelCounts,
    dropped: VecDeque<(Queued, DropReason)>,
    sojourn: SojournMean,
}

impl FqCodel {
    pub fn new(cfg: FqCodelConfig, perturbation: u64) -> Self {
        FqCodel {
            cfg,
            perturbation,
            queues: vec![FlowQueue::default(); cfg.flows],
            new_flows: VecDeque::new(),
            old_flows: VecDeque::new(),
            len: 0,
            total_bytes: 0,
            counters: QueueCounters::default(),
            codel: CodelCounts::default(),
            dropped: VecDeque::new(),
            sojourn: SojournMean::default(),
        }
    }

    /// The flow queue of `pkt` (RFC 8290 4.1.1): a hash of what identifies its
    /// transport flow and direction (here the flow id and the two ends, standing for the
    /// 5-tuple), perturbed per instance.
    pub fn queue_of(&self, pkt: &Packet) -> usize {
        let mut h = self.perturbation;
        for x in [
            u64::from(pkt.flow.0),
            u64::from(pkt.src.0),
            u64::from(pkt.dst.0),
        ] {
            h = splitmix64(h ^ x);
        }
        (h % self.cfg.flows as u64) as usize
    }

    /// Packets in flow queue `i`.
    pub fn queue_len(&self, i: usize) -> usize {
        self.queues[i].fifo.len()
    }

    /// Head drops and CE marks so far, over all queues.
    pub fn codel_counts(&self) -> CodelCounts {
        self.codel
    }

    /// Takes the head off the new list or the old one.
    fn pop_list(&mut self, from_new: bool) {
        if from_new {
            self.new_flows.pop_front();
        } else {
            self.old_flows.pop_front();
        }
    }

    /// RFC 8290 4.1.1: with the buffer full, the head of the fattest queue (in bytes)
    /// goes; ties to the lowest index.
    fn drop_from_fattest(&mut self) -> Queued {
        let fattest = (0..self.queues.len())
            .max_by_key(|&i| (self.queues[i].fifo.bytes(), std::cmp::Reverse(i)))
            .expect("at least one flow queue");
        let (q, _) = self.queues[fattest].fifo.pop().expect("a full buffer");
        self.total_bytes -= u64::from(q.pkt.size_bytes());
        self.len -= 1;
        q
    }
}

/// A 64-bit mixer (Steele et al., SplitMix64's finaliser).
fn splitmix64(mut z: u64) -> u64 {
    z = z.wrapping_add(0x9e37_79b9_7f4a_7c15);
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    z ^ (z >> 31)
}

impl QueueDiscipline for FqCodel {
    /// RFC 8290 4.1: timestamp, classify, queue; a queue that was on no list joins the
    /// new ones with a full quantum. A full buffer pushes out the fattest queue's head,
    /// which may be the arrival's own queue (the packet returned is then not the one
    /// offered).
    fn enqueue(&mut self, q: Queued, now: Time) -> Result<(), (Queued, DropReason)> {
        self.counters.received += 1;
        self.counters.enqueued += 1;
        let i = self.queue_of(&q.pkt);
        self.total_bytes += u64::from(q.pkt.size_bytes());
        self.len += 1;
        let fq = &mut self.queues[i];
        fq.fifo.push(q, now);
        if fq.list.is_none() {
            fq.list = Some(List::New);
            fq.deficit = self.cfg.quantum_bytes;
            self.new_flows.push_back(i);
        }
        if self.len > self.cfg.capacity_pkts as usize {
            let pushed_out = self.drop_from_fattest();
            // The packet was enqueued, so it leaves as a dequeue would.
            self.counters.dequeued += 1;
            return Err((pushed_out, DropReason::QueueOverflow));
        }
        Ok(())
    }

    /// RFC 8290 4.2: new queues first, then old ones; a queue out of deficit gets a
    /// quantum and goes to the end of the old list; an empty new queue moves to the old
    /// list (so it cannot return at once as new) while old ones wait, else leaves.
    fn dequeue(&mut self, _routes: &dyn Routes, now: Time) -> Option<Dequeued> {
        loop {
            let (i, from_new) = match (self.new_flows.front(), self.old_flows.front()) {
                (Some(&i), _) => (i, true),
                (None, Some(&i)) => (i, false),
                (None, None) => return None,
            };
            if self.queues[i].deficit <= 0 {
                self.pop_list(from_new);
                self.queues[i].deficit += self.cfg.quantum_bytes;
                self.queues[i].list = Some(List::Old);
                self.old_flows.push_back(i);
                continue;
            }
            let fq = &mut self.queues[i];
            let before = fq.fifo.len();
            let mut view = FlowView {
                fifo: &mut fq.fifo,
                total_bytes: &mut self.total_bytes,
            };
            let dropped = &mut self.dropped;
            let out = fq
                .codel
                .dequeue(&mut view, &self.cfg.params, now, &mut self.codel, |q| {
                    dropped.push_back((q, DropReason::Aqm))
                });
            let taken = before - fq.fifo.len();
            self.len -= taken;
            self.counters.dequeued += taken as u64;
            let Some((q, arrived)) = out else {
                self.pop_list(from_new);
                if from_new && !self.old_flows.is_empty() {
                    self.queues[i].list = Some(List::Old);
                    self.old_flows.push_back(i);
                } else {
                    self.queues[i].list = None;
                }
                continue;
            };
            self.queues[i].deficit -= i64::from(q.pkt.size_bytes());
            self.sojourn.record(now.saturating_sub(arrived));
            return Some(Dequeued::at_own_priority(q));
        }
    }

    fn len(&self) -> usize {
        self.len
    }

    /// A saturating source fills only up to the buffer, never pushing another flow out.
    fn has_room(&self, _src: NodeId, _dst: NodeId, _next_hop: NodeId, _with_report: bool) -> bool {
        self.len < self.cfg.capacity_pkts as usize
    }

    fn counters(&self) -> QueueCounters {
        self.counters
    }

    fn drops_at_head(&self) -> bool {
        true
    }

    fn take_dropped(&mut self) -> Option<(Queued, DropReason)> {
        self.dropped.pop_front()
    }

    fn sample(&mut self) -> Option<QueueSample> {
        Some(QueueSample {
            reference_pkts: None,
            mean_sojourn_s: self.sojourn.take(),
        })
    }

    fn remove_next_hop(&mut self, next: NodeId, out: &mut Vec<Queued>) {
        let before = out.len();
        for fq in &mut self.queues {
            fq.fifo.remove_next_hop(next, out);
        }
        let moved = out.len() - before;
        for q in &out[before..] {
            self.total_bytes -= u64::from(q.pkt.size_bytes());
        }
        self.len -= moved;
        self.counters.dequeued += moved as u64;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ids::FlowId;
    use crate::net::RoutingTable;
    use crate::qdisc::droptail::tests::queued;
    use crate::qdisc::registry::Params;

    fn fq_codel(capacity: u32) -> FqCodel {
        let mut p = Params::defaults(&SCHEME);
        p.capacity_pkts = capacity;
        let cfg = FqCodelConfig {
            capacity_pkts: capacity,
            flows: p.integer("flows") as usize,
            quantum_bytes: p.integer("quantum") as i64,
            params: CodelParams::from_params(&p),
        };
        FqCodel::new(cfg, 7)
    }

    fn of_flow(flow: u32, seq: u64, payload: u32) -> Queued {
        let mut q = queued(seq);
        q.pkt.flow = FlowId(flow);
        q.pkt.payload_bytes = payload;
        q
    }

    /// Flows 0..4 land in different queues under perturbation 7 (checked here).
    fn distinct_queues(q: &FqCodel) {
        let queues: Vec<usize> = (0..4)
            .map(|f| q.queue_of(&of_flow(f, 0, 100).pkt))
            .collect();
        for (i, a) in queues.iter().enumerate() {
            assert!(!queues[..i].contains(a), "{queues:?}");
        }
    }

    #[test]
    fn a_sparse_flow_goes_ahead_of_a_backlogged_one() {
        let mut q = fq_codel(1000);
        distinct_queues(&q);
        let routes = RoutingTable::empty(2);
        let t = Time::ZERO;
        for s in 0..50 {
            q.enqueue(of_flow(0, s, 1000), t).unwrap();
        }
        // Flow 0 spends its first quantum; the next round finds it out of deficit.
        assert_eq!(q.dequeue(&routes, t).unwrap().pkt.flow, FlowId(0));
        assert_eq!(q.dequeue(&routes, t).unwrap().pkt.flow, FlowId(0));
        q.enqueue(of_flow(1, 100, 100), t).unwrap();
        assert_eq!(q.dequeue(&routes, t).unwrap().pkt.flow, FlowId(1));
        assert!(q.counters().consistent_with(q.len()));
    }

    #[test]
    fn backlogged_flows_share_bytes_not_packets() {
        let mut q = fq_codel(1000);
        let routes = RoutingTable::empty(2);
        let t = Time::ZERO;
        // Flow 0 sends 1028-byte packets, flow 1 528-byte ones.
        for s in 0..200 {
            q.enqueue(of_flow(0, s, 1000), t).unwrap();
            q.enqueue(of_flow(1, s, 500), t).unwrap();
        }
        let mut bytes = [0u64; 2];
        for _ in 0..150 {
            let d = q.dequeue(&routes, t).unwrap();
            bytes[d.pkt.flow.index()] += u64::from(d.pkt.size_bytes());
        }
        let quantum = 1500;
        assert!(bytes[0].abs_diff(bytes[1]) <= 2 * quantum, "{bytes:?}");
    }

    #[test]
    fn a_full_buffer_drops_the_head_of_the_fattest_queue() {
        let mut q = fq_codel(10);
        let t = Time::ZERO;
        for s in 0..9 {
            q.enqueue(of_flow(0, s, 1000), t).unwrap();
        }
        q.enqueue(of_flow(1, 100, 100), t).unwrap();
        // The arrival of flow 1 fits only if flow 0's head goes.
        let (out, reason) = q.enqueue(of_flow(1, 101, 100), t).unwrap_err();
        assert_eq!(
            (out.pkt.flow, out.pkt.seq, reason),
            (FlowId(0), 0, DropReason::QueueOverflow)
        );
        assert_eq!(q.len(), 10);
        assert!(q.counters().consistent_with(q.len()));
    }

    #[test]
    fn queues_drain_and_leave_the_lists() {
        let mut q = fq_codel(100);
        let routes = RoutingTable::empty(2);
        let t = Time::ZERO;
        for f in 0..4 {
            for s in 0..3 {
                q.enqueue(of_flow(f, s, 300), t).unwrap();
            }
        }
        let mut n = 0;
        while q.dequeue(&routes, t).is_some() {
            n += 1;
        }
        assert_eq!(n, 12);
        assert!(q.new_flows.is_empty() && q.old_flows.is_empty());
        assert!(q.queues.iter().all(|fq| fq.list.is_none()));
        assert!(q.counters().consistent_with(0));
    }

    #[test]
    fn a_standing_flow_is_dropped_by_its_own_codel() {
        let mut q = fq_codel(1000);
        let routes = RoutingTable::empty(2);
        let ms = Time::from_millis(1);
        for s in 0..30 {
            q.enqueue(of_flow(0, s, 1000), Time::ZERO).unwrap();
        }
        let mut dropped = 0;
        for k in 1..=1000u64 {
            q.enqueue(of_flow(0, 30 + k, 1000), ms.times(k)).unwrap();
            q.dequeue(&routes, ms.times(k));
            while q.take_dropped().is_some() {
                dropped += 1;
            }
        }
        assert!(dropped > 5 && dropped as u64 == q.codel_counts().dropped);
        assert!(q.len() < 10, "{}", q.len());
        assert!(q.counters().consistent_with(q.len()));
    }
}
