//! Drop-tail FIFO: the default interface queue (ns-2's DropTail, 50 packets by default).
//!
//! With an ECN marking threshold (seed 000's TFRC-ECN baseline: 75% of the capacity), a
//! packet accepted while the queue already holds more than that fraction of its
//! capacity gets Congestion Experienced if it is ECN-capable (RFC 3168); other packets
//! are queued unchanged. Overflow still drops.
//!
//! It is also the FIFO behind the active queue managers (RED, PI), which judge each
//! arrival and hand it over with [`DropTail::enqueue_judged`].

use super::registry::{self, Fallback, Key, KeyValue, Params, Range, RegisteredQdisc, Scheme};
use super::{Dequeued, Qdisc, QueueCounters, QueueDiscipline, Queued, Routes};
use crate::ids::NodeId;
use crate::net::DropReason;
use airqueue_kernel::Time;
use std::collections::VecDeque;

/// `queue.kind = "droptail"`, the default kind.
pub static SCHEME: Scheme = Scheme {
    name: "droptail",
    summary: "drop-tail FIFO (ns-2's DropTail), optionally marking ECN above a fill level",
    // ns-2's interface queue.
    default_capacity_pkts: 50,
    keys: &[Key {
        name: "ecn_mark",
        doc: "mark CE on ECN-capable packets (RFC 3168) when, on enqueue, the queue holds \
              more than this fraction of its capacity; seed 000's TFRC-ECN uses 0.75. \
              Default off",
        value: KeyValue::Real {
            default: Fallback::Off,
            range: Range::above_to(0.0, 1.0),
            expected: "a fraction of the capacity in (0, 1]",
        },
    }],
    table_keys: &[],
    moves_packets_on_link_break: true,
    refuses_saturating_source: false,
    runs_at_access_point: false,
    check: registry::no_checks,
    build: |p, _| -> Qdisc {
        let capacity_pkts = p.capacity_pkts as usize;
        Box::new(match p.optional_real("ecn_mark") {
            Some(fraction) => DropTail::with_ecn_marking(capacity_pkts, fraction),
            None => DropTail::new(capacity_pkts),
        })
    },
};

/// A drop-tail configuration of `capacity_pkts` that marks CE above
/// `ecn_mark_fraction` of it (`None`: never).
pub fn config(capacity_pkts: u32, ecn_mark_fraction: Option<f64>) -> RegisteredQdisc {
    let mut params = Params::defaults(&SCHEME);
    params.capacity_pkts = capacity_pkts;
    if let Some(f) = ecn_mark_fraction {
        params.set("ecn_mark", f);
    }
    RegisteredQdisc {
        scheme: &SCHEME,
        params,
    }
}

#[derive(Clone, Debug)]
pub struct DropTail {
    queue: VecDeque<Queued>,
    capacity_pkts: usize,
    /// Mark CE when the queue holds more than this many packets on enqueue.
    mark_above: Option<f64>,
    counters: QueueCounters,
    marked: u64,
}

impl DropTail {
    pub fn new(capacity_pkts: usize) -> Self {
        DropTail {
            queue: VecDeque::with_capacity(capacity_pkts),
            capacity_pkts,
            mark_above: None,
            counters: QueueCounters::default(),
            marked: 0,
        }
    }

    /// A drop-tail queue that marks ECN-capable packets CE when, on enqueue, it holds
    /// more than `fraction` (in (0, 1]) of its capacity.
    pub fn with_ecn_marking(capacity_pkts: usize, fraction: f64) -> Self {
        DropTail {
            mark_above: Some(fraction * capacity_pkts as f64),
            ..DropTail::new(capacity_pkts)
        }
    }

    #[inline]
    pub fn enqueue(&mut self, q: Queued) -> Result<(), (Queued, DropReason)> {
        let mark = self
            .mark_above
            .is_some_and(|above| self.queue.len() as f64 > above);
        self.push(q, mark)
    }

    /// Takes a packet an active queue manager in front of this FIFO has judged (RED, PI).
    /// `notify`: the AQM signals congestion with this packet, by setting CE when `ecn`
    /// is on and the packet is ECN-capable (RFC 3168 section 7: mark where the router
    /// would otherwise drop), else by dropping it (`DropReason::Aqm`). The hard limit
    /// applies to every packet not dropped by the AQM.
    #[inline]
    pub fn enqueue_judged(
        &mut self,
        q: Queued,
        notify: bool,
        ecn: bool,
    ) -> Result<(), (Queued, DropReason)> {
        if notify && !(ecn && q.pkt.ecn_capable()) {
            self.counters.received += 1;
            self.counters.dropped += 1;
            return Err((q, DropReason::Aqm));
        }
        self.push(q, notify)
    }

    /// Queues `q` unless the FIFO is full, first setting CE on it when `mark` and it is
    /// ECN-capable.
    #[inline]
    fn push(&mut self, mut q: Queued, mark: bool) -> Result<(), (Queued, DropReason)> {
        self.counters.received += 1;
        if self.queue.len() >= self.capacity_pkts {
            self.counters.dropped += 1;
            return Err((q, DropReason::QueueOverflow));
        }
        if mark && q.pkt.mark_ce() {
            self.marked += 1;
        }
        self.counters.enqueued += 1;
        self.queue.push_back(q);
        Ok(())
    }

    #[inline]
    pub fn dequeue(&mut self) -> Option<Dequeued> {
        let q = self.queue.pop_front()?;
        self.counters.dequeued += 1;
        Some(Dequeued::at_own_priority(q))
    }

    #[inline]
    pub fn len(&self) -> usize {
        self.queue.len()
    }

    pub fn is_empty(&self) -> bool {
        self.queue.is_empty()
    }

    #[inline]
    pub fn has_room(&self) -> bool {
        self.queue.len() < self.capacity_pkts
    }

    pub fn counters(&self) -> QueueCounters {
        self.counters
    }

    /// Packets marked CE so far.
    pub fn marked(&self) -> u64 {
        self.marked
    }

    pub fn iter(&self) -> impl Iterator<Item = &Queued> {
        self.queue.iter()
    }

    /// Moves every packet waiting for neighbour `next` to `out`, in queue order (a
    /// routing protocol found the link broken). They count as dequeued.
    pub fn remove_next_hop(&mut self, next: NodeId, out: &mut Vec<Queued>) {
        let before = out.len();
        let mut i = 0;
        while i < self.queue.len() {
            if self.queue[i].next_hop == next {
                out.extend(self.queue.remove(i));
            } else {
                i += 1;
            }
        }
        self.counters.dequeued += (out.len() - before) as u64;
    }
}

impl QueueDiscipline for DropTail {
    fn enqueue(&mut self, q: Queued, _now: Time) -> Result<(), (Queued, DropReason)> {
        DropTail::enqueue(self, q)
    }
    fn dequeue(&mut self, _routes: &dyn Routes, _now: Time) -> Option<Dequeued> {
        DropTail::dequeue(self)
    }
    fn len(&self) -> usize {
        DropTail::len(self)
    }
    fn has_room(&self, _src: NodeId, _dst: NodeId, _next_hop: NodeId, _with_report: bool) -> bool {
        DropTail::has_room(self)
    }
    fn counters(&self) -> QueueCounters {
        DropTail::counters(self)
    }
    fn remove_next_hop(&mut self, next: NodeId, out: &mut Vec<Queued>) {
        DropTail::remove_next_hop(self, next, out)
    }
}

#[cfg(test)]
pub(in crate::qdisc) mod tests {
    use super::*;
    use crate::ids::{FlowId, NodeId};
    use crate::net::{Packet, TransportHeader};
    use airqueue_kernel::Time;

    #[test]
    fn marks_ecn_capable_packets_above_the_threshold() {
        use airqueue_tcp::TfrcData;
        let tfrc = |seq: u64, ect: bool| {
            let mut q = queued(seq);
            q.pkt.transport = TransportHeader::TfrcData(TfrcData {
                seq: seq as u32,
                payload_bytes: 100,
                sent_at: Time::ZERO,
                rtt: Time::ZERO,
                ect,
                ce: false,
            });
            q
        };
        // Capacity 4, fraction 0.5: marks when the queue holds more than 2 packets.
        let mut q = DropTail::with_ecn_marking(4, 0.5);
        for s in 0..4 {
            q.enqueue(tfrc(s, true)).unwrap();
        }
        q.enqueue(queued(9)).unwrap_err(); // full: still drops
        let marks: Vec<bool> = (0..4).map(|_| ce(&q.dequeue().unwrap().pkt)).collect();
        assert_eq!(marks, [false, false, false, true]);
        assert_eq!(q.marked(), 1);
        // Not ECN-capable: queued unmarked.
        for s in 0..4 {
            q.enqueue(tfrc(s, false)).unwrap();
        }
        assert_eq!(q.marked(), 1);
        assert!(q.counters().consistent_with(q.len()));
    }

    /// A TCP data segment (ECN-capable when `ect`) as queued at node 0 towards node 1.
    pub(in crate::qdisc) fn tcp_queued(seq: u64, ect: bool) -> Queued {
        use airqueue_tcp::TcpData;
        let mut q = queued(seq);
        q.pkt.transport = TransportHeader::TcpData(TcpData {
            seq: seq as u32,
            payload_bytes: 100,
            retransmission: false,
            sent_at: Time::ZERO,
            timestamps: false,
            cwr: false,
            ect,
            ce: false,
        });
        q
    }

    /// Whether a queued or dequeued packet carries Congestion Experienced.
    pub(in crate::qdisc) fn ce(pkt: &Packet) -> bool {
        match pkt.transport {
            TransportHeader::TcpData(d) => d.ce,
            TransportHeader::TfrcData(d) => d.ce,
            _ => false,
        }
    }

    /// A UDP packet (not ECN-capable) queued at node 0 towards node 1.
    pub(in crate::qdisc) fn queued(seq: u64) -> Queued {
        Queued {
            pkt: Packet {
                uid: seq,
                flow: FlowId(0),
                src: NodeId(0),
                dst: NodeId(1),
                seq,
                payload_bytes: 100,
                transport: TransportHeader::Udp,
                ttl: 64,
                priority: 0,
                created: Time::ZERO,
                diffq: None,
                report: None,
            },
            next_hop: NodeId(1),
            prev_hop: NodeId(0),
        }
    }

    #[test]
    fn removes_the_packets_of_one_next_hop() {
        let mut q = DropTail::new(10);
        for s in 0..6 {
            let mut p = queued(s);
            p.next_hop = NodeId(1 + (s % 2) as u32);
            q.enqueue(p).unwrap();
        }
        let mut out = Vec::new();
        q.remove_next_hop(NodeId(2), &mut out);
        let seqs: Vec<u64> = out.iter().map(|p| p.pkt.seq).collect();
        assert_eq!(seqs, [1, 3, 5]);
        assert_eq!(q.len(), 3);
        assert!(q.counters().consistent_with(q.len()));
        assert_eq!(q.dequeue().unwrap().pkt.seq, 0);
        assert_eq!(q.dequeue().unwrap().pkt.seq, 2);
    }

    #[test]
    fn fifo_order_and_tail_drop() {
        let mut q = DropTail::new(3);
        for s in 0..5 {
            let r = q.enqueue(queued(s));
            assert_eq!(r.is_ok(), s < 3, "seq {s}");
            if let Err((back, reason)) = r {
                assert_eq!(back.pkt.seq, s);
                assert_eq!(reason, DropReason::QueueOverflow);
            }
        }
        assert!(!q.has_room());
        assert_eq!(q.dequeue().unwrap().pkt.seq, 0);
        assert!(q.has_room());
        assert_eq!(q.dequeue().unwrap().pkt.seq, 1);
        let c = q.counters();
        assert_eq!(
            (c.received, c.enqueued, c.dropped, c.dequeued),
            (5, 3, 2, 2)
        );
        assert!(c.consistent_with(q.len()));
    }
}
