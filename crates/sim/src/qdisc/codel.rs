//! CoDel, Controlled Delay (RFC 8289): a FIFO that drops (or, with ECN, marks) at the
//! head when packets have waited longer than `target` for at least `interval`, at a rate
//! that grows with the square root of the drops in a row (section 5). Packets are
//! timestamped on arrival and judged on departure, so the drops happen on dequeue: they
//! reach the world through [`QueueDiscipline::take_dropped`].
//!
//! [`CodelState`] is the control law alone, over any [`TimedQueue`], so that FQ-CoDel
//! runs one per flow queue.

use super::registry::{self, BuildContext, Key, KeyValue, Params, Scheme};
use super::{Dequeued, Qdisc, QueueCounters, QueueDiscipline, QueueSample, Queued, Routes};
use crate::ids::NodeId;
use crate::net::DropReason;
use airqueue_kernel::Time;
use std::collections::VecDeque;

/// `queue.kind = "codel"`.
pub static SCHEME: Scheme = Scheme {
    name: "codel",
    summary: "CoDel, Controlled Delay AQM (RFC 8289)",
    // Linux's sch_codel limit; RFC 8289 sets none.
    default_capacity_pkts: 1000,
    keys: &CODEL_KEYS,
    table_keys: &[],
    moves_packets_on_link_break: true,
    refuses_saturating_source: false,
    runs_at_access_point: false,
    check: registry::no_checks,
    build: |p, _ctx: &mut BuildContext| -> Qdisc {
        Box::new(Codel::new(CodelConfig::from_params(p)))
    },
};

/// The keys CoDel and FQ-CoDel share (RFC 8289 section 4.2-4.4).
pub const CODEL_KEYS: [Key; 4] = [
    Key {
        name: "target",
        doc: "acceptable standing queue delay, seconds (RFC 8289 4.4: 5 ms)",
        value: KeyValue::Seconds {
            default_s: 0.005,
            max_s: 10.0,
        },
    },
    Key {
        name: "interval",
        doc: "how long the delay must stay above target before dropping, seconds, about a \
              worst-case RTT (RFC 8289 4.3: 100 ms)",
        value: KeyValue::Seconds {
            default_s: 0.1,
            max_s: 60.0,
        },
    },
    Key {
        name: "mtu",
        doc: "bytes: never drop while the queue holds at most one packet this large \
              (RFC 8289 5.4, MAXPACKET)",
        value: KeyValue::Integer {
            default: 1500,
            min: 64,
            max: 65_535,
        },
    },
    Key {
        name: "ecn",
        doc: "mark CE on ECN-capable packets instead of dropping them (RFC 8289 5, RFC 3168)",
        value: KeyValue::Bool { default: false },
    },
];

/// CoDel's parameters.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct CodelParams {
    pub target: Time,
    pub interval: Time,
    /// MAXPACKET, bytes.
    pub mtu_bytes: u64,
    pub ecn: bool,
}

impl CodelParams {
    /// From the keys of [`CODEL_KEYS`].
    pub fn from_params(p: &Params) -> Self {
        CodelParams {
            target: p.seconds("target"),
            interval: p.seconds("interval"),
            mtu_bytes: p.integer("mtu"),
            ecn: p.flag("ecn"),
        }
    }
}

/// A FIFO whose packets carry their arrival time, as CoDel reads it.
pub trait TimedQueue {
    /// The head packet and when it arrived.
    fn pop(&mut self) -> Option<(Queued, Time)>;
    /// Bytes still queued (after the pop): the backlog RFC 8289 5.4 compares with
    /// MAXPACKET.
    fn backlog_bytes(&self) -> u64;
}

/// The per-queue state of RFC 8289 section 5.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct CodelState {
    /// When the sojourn time went above target, plus interval (the RFC's 0 is `None`).
    first_above: Option<Time>,
    drop_next: Time,
    count: u32,
    last_count: u32,
    dropping: bool,
}

/// What one [`CodelState::dequeue`] did besides handing out a packet.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct CodelCounts {
    pub dropped: u64,
    pub marked: u64,
}

impl CodelState {
    pub fn is_dropping(&self) -> bool {
        self.dropping
    }

    /// `dodequeue` (RFC 8289 5.4): the head packet and whether its sojourn time has been
    /// above target for a whole interval.
    fn dodequeue(
        &mut self,
        q: &mut impl TimedQueue,
        p: &CodelParams,
        now: Time,
    ) -> Option<(Queued, Time, bool)> {
        let Some((pkt, arrived)) = q.pop() else {
            self.first_above = None;
            return None;
        };
        let sojourn = now.saturating_sub(arrived);
        let mut ok_to_drop = false;
        if sojourn < p.target || q.backlog_bytes() <= p.mtu_bytes {
            self.first_above = None;
        } else {
            match self.first_above {
                None => self.first_above = Some(now + p.interval),
                Some(t) if now >= t => ok_to_drop = true,
                Some(_) => {}
            }
        }
        Some((pkt, arrived, ok_to_drop))
    }

    /// `control_law` (RFC 8289 5.5): the next drop `interval / sqrt(count)` after `t`.
    fn control_law(&self, t: Time, p: &CodelParams) -> Time {
        let gap_ns = p.interval.as_nanos() as f64 / f64::from(self.count.max(1)).sqrt();
        t + Time::from_nanos(gap_ns as u64)
    }

    /// `dequeue` (RFC 8289 5.6-5.7): the packet to send, if any, with its arrival time.
    /// Each packet dropped on the way goes to `drop`; with ECN an ECN-capable packet is
    /// marked CE and sent instead of dropped (the next drop is then scheduled as if it
    /// had been).
    pub fn dequeue(
        &mut self,
        q: &mut impl TimedQueue,
        p: &CodelParams,
        now: Time,
        counts: &mut CodelCounts,
        mut drop: impl FnMut(Queued),
    ) -> Option<(Queued, Time)> {
        let mut r = self.dodequeue(q, p, now);
        let Some((_, _, ok_to_drop)) = &r else {
            self.dropping = false;
            return None;
        };
        if self.dropping {
            if !ok_to_drop {
                self.dropping = false;
            }
            while self.dropping && now >= self.drop_next {
                let (mut pkt, arrived, _) = r.take().expect("a packet while dropping");
                self.count += 1;
                if p.ecn && pkt.pkt.mark_ce() {
                    counts.marked += 1;
                    self.drop_next = self.control_law(self.drop_next, p);
                    return Some((pkt, arrived));
                }
                counts.dropped += 1;
                drop(pkt);
                r = self.dodequeue(q, p, now);
                match &r {
                    Some((_, _, true)) => self.drop_next = self.control_law(self.drop_next, p),
                    _ => self.dropping = false,
                }
            }
        } else if *ok_to_drop {
            let (mut pkt, arrived, _) = r.take().expect("a packet to drop");
            if p.ecn && pkt.pkt.mark_ce() {
                counts.marked += 1;
                r = Some((pkt, arrived, true));
            } else {
                counts.dropped += 1;
                drop(pkt);
                r = self.dodequeue(q, p, now);
            }
            self.dropping = true;
            // A new dropping state close to the last one starts from its drop rate
            // (the Linux variant the RFC's pseudocode keeps).
            let delta = self.count.wrapping_sub(self.last_count);
            let since_ns = now.as_nanos() as i128 - self.drop_next.as_nanos() as i128;
            self.count = if delta > 1 && since_ns < 16 * p.interval.as_nanos() as i128 {
                delta
            } else {
                1
            };
            self.drop_next = self.control_law(now, p);
            self.last_count = self.count;
        }
        r.map(|(pkt, arrived, _)| (pkt, arrived))
    }
}

/// A FIFO of timestamped packets with its byte count.
#[derive(Clone, Debug, Default)]
pub struct TimedFifo {
    packets: VecDeque<(Queued, Time)>,
    bytes: u64,
}

impl TimedFifo {
    pub fn push(&mut self, q: Queued, now: Time) {
        self.bytes += u64::from(q.pkt.size_bytes());
        self.packets.push_back((q, now));
    }

    pub fn len(&self) -> usize {
        self.packets.len()
    }

    pub fn is_empty(&self) -> bool {
        self.packets.is_empty()
    }

    pub fn bytes(&self) -> u64 {
        self.bytes
    }

    pub fn iter(&self) -> impl Iterator<Item = &Queued> {
        self.packets.iter().map(|(q, _)| q)
    }

    /// Moves the packets for neighbour `next` to `out`, keeping the others' order.
    pub fn remove_next_hop(&mut self, next: NodeId, out: &mut Vec<Queued>) -> usize {
        let before = self.packets.len();
        let mut kept = VecDeque::with_capacity(before);
        for (q, at) in self.packets.drain(..) {
            if q.next_hop == next {
                self.bytes -= u64::from(q.pkt.size_bytes());
                out.push(q);
            } else {
                kept.push_back((q, at));
            }
        }
        self.packets = kept;
        before - self.packets.len()
    }
}

impl TimedQueue for TimedFifo {
    fn pop(&mut self) -> Option<(Queued, Time)> {
        let (q, at) = self.packets.pop_front()?;
        self.bytes -= u64::from(q.pkt.size_bytes());
        Some((q, at))
    }

    fn backlog_bytes(&self) -> u64 {
        self.bytes
    }
}

/// Mean sojourn of the packets sent since the last sample.
#[derive(Clone, Copy, Debug, Default)]
pub struct SojournMean {
    sum_ns: u128,
    packets: u64,
}

impl SojournMean {
    pub fn record(&mut self, sojourn: Time) {
        self.sum_ns += u128::from(sojourn.as_nanos());
        self.packets += 1;
    }

    /// Seconds, and starts a new interval.
    pub fn take(&mut self) -> Option<f64> {
        let mean = (self.packets > 0).then(|| self.sum_ns as f64 / self.packets as f64 / 1e9);
        *self = SojournMean::default();
        mean
    }
}

/// CoDel's settings.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct CodelConfig {
    pub capacity_pkts: u32,
    pub params: CodelParams,
}

impl CodelConfig {
    pub fn from_params(p: &Params) -> Self {
        CodelConfig {
            capacity_pkts: p.capacity_pkts,
            params: CodelParams::from_params(p),
        }
    }
}

/// A CoDel queue: tail drop when `capacity` packets wait, CoDel's head drops else.
#[derive(Debug)]
pub struct Codel {
    cfg: CodelConfig,
    fifo: TimedFifo,
    state: CodelState,
    counters: QueueCounters,
    codel: CodelCounts,
    dropped: VecDeque<Queued>,
    sojourn: SojournMean,
}

impl Codel {
    pub fn new(cfg: CodelConfig) -> Self {
        Codel {
            cfg,
            fifo: TimedFifo::default(),
            state: CodelState::default(),
            counters: QueueCounters::default(),
            codel: CodelCounts::default(),
            dropped: VecDeque::new(),
            sojourn: SojournMean::default(),
        }
    }

    /// Head drops and CE marks so far.
    pub fn codel_counts(&self) -> CodelCounts {
        self.codel
    }
}

impl QueueDiscipline for Codel {
    fn enqueue(&mut self, q: Queued, now: Time) -> Result<(), (Queued, DropReason)> {
        self.counters.received += 1;
        if self.fifo.len() >= self.cfg.capacity_pkts as usize {
            self.counters.dropped += 1;
            return Err((q, DropReason::QueueOverflow));
        }
        self.counters.enqueued += 1;
        self.fifo.push(q, now);
        Ok(())
    }

    /// Head drops leave through `take_dropped` and count as dequeued.
    fn dequeue(&mut self, _routes: &dyn Routes, now: Time) -> Option<Dequeued> {
        let before = self.fifo.len();
        let (fifo, dropped) = (&mut self.fifo, &mut self.dropped);
        let out = self
            .state
            .dequeue(fifo, &self.cfg.params, now, &mut self.codel, |q| {
                dropped.push_back(q)
            });
        self.counters.dequeued += (before - self.fifo.len()) as u64;
        let (q, arrived) = out?;
        self.sojourn.record(now.saturating_sub(arrived));
        Some(Dequeued::at_own_priority(q))
    }

    fn len(&self) -> usize {
        self.fifo.len()
    }

    fn has_room(&self, _src: NodeId, _dst: NodeId, _next_hop: NodeId, _with_report: bool) -> bool {
        self.fifo.len() < self.cfg.capacity_pkts as usize
    }

    fn counters(&self) -> QueueCounters {
        self.counters
    }

    fn drops_at_head(&self) -> bool {
        true
    }

    fn take_dropped(&mut self) -> Option<(Queued, DropReason)> {
        self.dropped.pop_front().map(|q| (q, DropReason::Aqm))
    }

    fn sample(&mut self) -> Option<QueueSample> {
        Some(QueueSample {
            reference_pkts: None,
            mean_sojourn_s: self.sojourn.take(),
        })
    }

    fn remove_next_hop(&mut self, next: NodeId, out: &mut Vec<Queued>) {
        let moved = self.fifo.remove_next_hop(next, out);
        self.counters.dequeued += moved as u64;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::net::RoutingTable;
    use crate::qdisc::droptail::tests::{ce, queued, tcp_queued};
    use crate::qdisc::registry::Params;

    const MS: Time = Time::from_millis(1);

    fn codel(ecn: bool) -> Codel {
        let mut p = Params::defaults(&SCHEME);
        p.set("ecn", f64::from(u8::from(ecn)));
        Codel::new(CodelConfig::from_params(&p))
    }

    fn big(seq: u64, tcp_ect: bool) -> Queued {
        let mut q = if tcp_ect {
            tcp_queued(seq, true)
        } else {
            queued(seq)
        };
        q.pkt.payload_bytes = 1000;
        q
    }

    /// A link serving one packet per ms, fed one packet per ms, starting with `standing`
    /// packets queued: the queue stays put until CoDel drops. Returns the drop times (ms)
    /// and the packets marked.
    fn serve(q: &mut Codel, standing: u64, ms: u64, ect: bool) -> (Vec<u64>, usize) {
        let routes = RoutingTable::empty(2);
        for s in 0..standing {
            q.enqueue(big(s, ect), Time::ZERO).unwrap();
        }
        let (mut drops, mut marked) = (Vec::new(), 0);
        for k in 1..=ms {
            let now = MS.times(k);
            q.enqueue(big(standing + k, ect), now).unwrap();
            if let Some(d) = q.dequeue(&routes, now) {
                marked += usize::from(ce(&d.pkt));
            }
            while let Some((_, reason)) = q.take_dropped() {
                assert_eq!(reason, DropReason::Aqm);
                drops.push(k);
            }
            assert!(q.counters().consistent_with(q.len()));
        }
        (drops, marked)
    }

    #[test]
    fn a_queue_below_target_is_never_dropped() {
        let mut q = codel(false);
        // Four packets ahead: 4 ms of sojourn, under the 5 ms target.
        let (drops, _) = serve(&mut q, 4, 2000, false);
        assert!(drops.is_empty());
        assert_eq!(q.codel_counts(), CodelCounts::default());
    }

    #[test]
    fn a_standing_queue_is_dropped_at_the_control_law_s_times() {
        let mut q = codel(false);
        let (drops, _) = serve(&mut q, 30, 2000, false);
        // The packets queued at 0 leave at 1, 2, ... ms: at target from 5 ms on, so the
        // first drop comes one interval later, then every interval / sqrt(count) (RFC
        // 8289 5.5), to the ms the link polls at.
        assert_eq!(drops[0], 105);
        let mut expected = 105.0;
        for (n, &at) in drops.iter().enumerate().skip(1).take(5) {
            expected += 100.0 / (n as f64).sqrt();
            assert!(
                (at as f64 - expected).abs() <= 1.0,
                "drop {n} at {at} ms, law {expected}"
            );
        }
        // Each drop shortens the queue by one: dropping stops once the sojourn is
        // back under target (5 packets of 1 ms).
        assert!(!q.state.is_dropping());
        assert!(q.len() <= 6 && q.len() >= 4, "{}", q.len());
        assert_eq!(drops.len() as u64, q.codel_counts().dropped);
    }

    #[test]
    fn with_ecn_capable_packets_it_marks_instead_of_dropping() {
        let mut q = codel(true);
        let (drops, marked) = serve(&mut q, 30, 1000, true);
        assert!(drops.is_empty());
        assert!(marked > 3 && marked as u64 == q.codel_counts().marked);
        // Marks do not shorten the queue: CoDel keeps marking at a growing rate.
        assert!(q.state.is_dropping());
    }

    #[test]
    fn one_packet_is_never_dropped_however_long_it_waited() {
        let mut q = codel(false);
        let routes = RoutingTable::empty(2);
        for k in 0..50 {
            let t = Time::from_secs(k);
            q.enqueue(big(k, false), t).unwrap();
            // Served a second later, alone: the backlog is under MAXPACKET.
            assert!(q.dequeue(&routes, t + Time::from_secs(1)).is_some());
        }
        assert_eq!(q.codel_counts().dropped, 0);
    }

    #[test]
    fn a_full_queue_drops_the_arrival() {
        let mut p = Params::defaults(&SCHEME);
        p.capacity_pkts = 3;
        let mut q = Codel::new(CodelConfig::from_params(&p));
        for s in 0..3 {
            q.enqueue(big(s, false), Time::ZERO).unwrap();
        }
        assert!(!q.has_room(NodeId(0), NodeId(1), NodeId(1), false));
        let (back, reason) = q.enqueue(big(9, false), Time::ZERO).unwrap_err();
        assert_eq!((back.pkt.seq, reason), (9, DropReason::QueueOverflow));
        assert!(q.counters().consistent_with(3));
    }

    #[test]
    fn sample_is_the_mean_sojourn_of_the_packets_sent() {
        let mut q = codel(false);
        serve(&mut q, 3, 100, false);
        // The three queued at 0 waited 1, 2 and 3 ms; the 97 after them 3 ms each.
        let mean = q.sample().and_then(|s| s.mean_sojourn_s).unwrap();
        assert!((mean - 0.00297).abs() < 1e-12, "{mean}");
        assert_eq!(q.sample().and_then(|s| s.mean_sojourn_s), None);
    }
}
