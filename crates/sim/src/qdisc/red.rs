//! Random Early Detection (Floyd & Jacobson, "Random Early Detection Gateways for
//! Congestion Avoidance", IEEE/ACM ToN 1993): a FIFO that signals incipient congestion
//! before its buffer fills, by dropping (or, with ECN, marking) arrivals with a
//! probability that grows with an exponentially weighted average of the queue length:
//! the average reacts to persistent queues, not TCP's bursts (section 4).
//!
//! Per arrival, the paper's Figure 2:
//! - `avg <- (1 - w_q) avg + w_q q`; after an idle period `avg <- (1 - w_q)^m avg` with
//!   `m = idle / s` (section 11; `s` = [`RedConfig::mean_pkt_time`], `m` truncated as in
//!   ns-2, the remainder carried to the next arrival).
//! - `min_th <= avg < max_th`: notify with `p_a = p_b / (1 - count p_b)`,
//!   `p_b = max_p (avg - min_th) / (max_th - min_th)`, `count` including this arrival, so
//!   gaps between notifications are uniform rather than geometric (section 7).
//! - `avg >= max_th`: notify every arrival; with `gentle` (Floyd 2000, ns-2's default)
//!   `p_b` rises linearly from `max_p` to 1 up to `2 max_th` first.
//!
//! A notification drops (`DropReason::Aqm`) or, with `ecn`, marks CE on an ECN-capable
//! packet (RFC 3168 section 7, also above `max_th`); a full buffer drops the arrival
//! (`DropReason::QueueOverflow`).

use super::droptail::DropTail;
use super::registry::{
    Fallback, Key, KeyValue, Params, Problem, Range, RegisteredQdisc, Scheme, Setting,
};
use super::{Dequeued, Qdisc, QueueCounters, QueueDiscipline, Queued, Routes};
use crate::ids::NodeId;
use crate::net::DropReason;
use airqueue_kernel::{RngStream, Time};

/// `queue.kind = "red"`; defaults are ns-2's classic RED ([`RedConfig::ns2`]).
pub static SCHEME: Scheme = Scheme {
    name: "red",
    summary: "Random Early Detection (Floyd & Jacobson 1993), optionally marking ECN",
    // ns-2's interface queue.
    default_capacity_pkts: 50,
    keys: &KEYS,
    table_keys: &[],
    moves_packets_on_link_break: false,
    refuses_saturating_source: true,
    runs_at_access_point: false,
    check,
    build: |p, ctx| -> Qdisc { Box::new(Red::new(RedConfig::from_params(p), ctx.rng.clone())) },
};

const KEYS: [Key; 7] = [
    Key {
        name: "min_threshold",
        doc: "min_th, packets: no notification while the average queue is below it \
              (section 4); default 5",
        value: KeyValue::Real {
            default: Fallback::Value(RedConfig::MIN_TH_PKTS),
            range: Range::at_least(0.0),
            expected: "a number of packets >= 0",
        },
    },
    Key {
        name: "max_threshold",
        doc: "max_th, packets, above min_threshold and at most capacity: the notification \
              probability reaches max_p here; default 3 x min_threshold",
        value: KeyValue::Real {
            default: Fallback::Derived,
            range: Range::above(0.0),
            expected: "a number of packets > 0",
        },
    },
    Key {
        name: "max_p",
        doc: "the notification probability at max_threshold; default 0.1",
        value: KeyValue::Real {
            default: Fallback::Value(RedConfig::MAX_P),
            range: Range::above_to(0.0, 1.0),
            expected: "a probability in (0, 1]",
        },
    },
    Key {
        name: "weight",
        doc: "w_q, the newest sample's weight in the average queue; default 0.002",
        value: KeyValue::Real {
            default: Fallback::Value(RedConfig::WEIGHT),
            range: Range::above_to(0.0, 1.0),
            expected: "a weight in (0, 1]",
        },
    },
    Key {
        name: "gentle",
        doc: "the probability rises from max_p to 1 between max_threshold and twice it \
              (Floyd 2000) instead of jumping to 1; default true",
        value: KeyValue::Bool {
            default: RedConfig::GENTLE,
        },
    },
    Key {
        name: "ecn",
        doc: "mark CE on ECN-capable packets instead of dropping them early (RFC 3168); \
              default false",
        value: KeyValue::Bool { default: false },
    },
    Key {
        name: "mean_pkt_time",
        doc: "s, seconds: the typical transmission time idle periods are counted in \
              (section 11); default the time 500 bytes (ns-2's mean_pktsize_) take at the \
              medium's bit rate",
        value: KeyValue::Real {
            default: Fallback::Derived,
            range: Range::above_to(0.0, 3600.0),
            expected: "a number of seconds in (0, 3600]",
        },
    },
];

/// Fills max_threshold (3 x min_threshold) and mean_pkt_time (from the medium's rate),
/// then checks `min_threshold < max_threshold <= capacity`.
fn check(p: &mut Params, setting: &Setting) -> Vec<Problem> {
    let max_given = p.value("max_threshold").is_some();
    if let Some(min) = p.value("min_threshold") {
        p.fill("max_threshold", RedConfig::MAX_TH_PER_MIN_TH * min);
    }
    if let Some(rate_bps) = setting.rate_bps {
        let s = RedConfig::mean_pkt_time_at(rate_bps).as_secs_f64();
        p.fill("mean_pkt_time", s);
    }
    let default = if max_given {
        ""
    } else {
        " (the default, 3 x min_threshold)"
    };
    let (Some(lo), Some(hi)) = (p.value("min_threshold"), p.value("max_threshold")) else {
        return Vec::new();
    };
    let message = if hi <= lo {
        format!("must be greater than min_threshold ({lo} packets), got {hi}{default}")
    } else if let Some(c) = setting.capacity_pkts.filter(|&c| hi > f64::from(c)) {
        format!("must be at most capacity ({c} packets), got {hi}{default}")
    } else {
        return Vec::new();
    };
    vec![Problem::new("max_threshold", message)]
}

/// RED's settings, in packets (the packet mode of Floyd & Jacobson section 4).
#[derive(Clone, Debug, PartialEq)]
pub struct RedConfig {
    /// Hard limit of the buffer, packets.
    pub capacity_pkts: u32,
    /// `min_th`: no notification while the average is below it.
    pub min_th: f64,
    /// `max_th`: `p_b` reaches `max_p` here; `max_th > min_th`.
    pub max_th: f64,
    /// `max_p` in (0, 1].
    pub max_p: f64,
    /// `w_q` in (0, 1]: weight of the newest queue sample in the average.
    pub weight: f64,
    /// The gentle variant between `max_th` and `2 max_th`.
    pub gentle: bool,
    /// Mark CE on ECN-capable packets instead of dropping them.
    pub ecn: bool,
    /// `s`, the typical transmission time of a packet: the unit of idle time in the
    /// average's decay. Must be positive.
    pub mean_pkt_time: Time,
}

impl RedConfig {
    /// ns-2's classic RED defaults (`thresh_ 5`, `maxthresh_ 15`, `q_weight_ 0.002`,
    /// `linterm_ 10`, i.e. `max_p = 0.1`; ns-2's defaults until December 2001, when they
    /// became automatic, and what its test suites still pin), with `gentle_ true` (ns-2's
    /// default since April 2001). Floyd & Jacobson's own simulations also use
    /// `w_q = 0.002` and `max_th = 3 min_th`.
    pub const MIN_TH_PKTS: f64 = 5.0;
    pub const MAX_TH_PER_MIN_TH: f64 = 3.0;
    pub const MAX_P: f64 = 0.1;
    pub const WEIGHT: f64 = 0.002;
    pub const GENTLE: bool = true;
    /// ns-2's `mean_pktsize_` (bytes): with the link rate it gives `s`.
    pub const MEAN_PKT_BYTES: u64 = 500;

    /// The defaults above on a buffer of `capacity_pkts` packets and a link of
    /// `rate_bps` bit/s, without ECN.
    pub fn ns2(capacity_pkts: u32, rate_bps: f64) -> Self {
        RedConfig {
            capacity_pkts,
            min_th: Self::MIN_TH_PKTS,
            max_th: Self::MAX_TH_PER_MIN_TH * Self::MIN_TH_PKTS,
            max_p: Self::MAX_P,
            weight: Self::WEIGHT,
            gentle: Self::GENTLE,
            ecn: false,
            mean_pkt_time: Self::mean_pkt_time_at(rate_bps),
        }
    }

    /// From the keys of [`SCHEME`] (derived ones filled).
    pub fn from_params(p: &Params) -> Self {
        RedConfig {
            capacity_pkts: p.capacity_pkts,
            min_th: p.real("min_threshold"),
            max_th: p.real("max_threshold"),
            max_p: p.real("max_p"),
            weight: p.real("weight"),
            gentle: p.flag("gentle"),
            ecn: p.flag("ecn"),
            mean_pkt_time: p.seconds("mean_pkt_time"),
        }
    }

    /// These settings as `queue.kind = "red"` for a world.
    pub fn qdisc(&self) -> RegisteredQdisc {
        let mut params = Params::defaults(&SCHEME);
        params.capacity_pkts = self.capacity_pkts;
        for (key, value) in [
            ("min_threshold", self.min_th),
            ("max_threshold", self.max_th),
            ("max_p", self.max_p),
            ("weight", self.weight),
            ("gentle", f64::from(u8::from(self.gentle))),
            ("ecn", f64::from(u8::from(self.ecn))),
            ("mean_pkt_time", self.mean_pkt_time.as_secs_f64()),
        ] {
            params.set(key, value);
        }
        RegisteredQdisc {
            scheme: &SCHEME,
            params,
        }
    }

    /// `s` on a link of `rate_bps` bit/s: the serialisation time of ns-2's mean packet
    /// ([`Self::MEAN_PKT_BYTES`]).
    pub fn mean_pkt_time_at(rate_bps: f64) -> Time {
        Time::for_bits(Self::MEAN_PKT_BYTES * 8, rate_bps)
    }

    /// Where every arrival is notified: `max_th`, or `2 max_th` when gentle.
    fn forced_from(&self) -> f64 {
        if self.gentle {
            2.0 * self.max_th
        } else {
            self.max_th
        }
    }

    /// `p_b` for an average in `[min_th, forced_from)`: linear from 0 at `min_th` to
    /// `max_p` at `max_th` (section 4); gentle, then linear to 1 at `2 max_th`.
    pub fn p_b(&self, avg: f64) -> f64 {
        if avg < self.max_th {
            self.max_p * (avg - self.min_th) / (self.max_th - self.min_th)
        } else {
            self.max_p + (1.0 - self.max_p) * (avg - self.max_th) / self.max_th
        }
    }

    /// `p_a = p_b / (1 - count p_b)` (section 7), 1 once `count p_b` reaches 1.
    pub fn p_a(p_b: f64, count: u32) -> f64 {
        let rest = 1.0 - count as f64 * p_b;
        if rest <= p_b {
            1.0
        } else {
            p_b / rest
        }
    }
}

/// A RED queue: the drop-tail FIFO with Figure 2 in front of it.
#[derive(Clone, Debug)]
pub struct Red {
    cfg: RedConfig,
    fifo: DropTail,
    avg: f64,
    /// Arrivals since the last notification while the average was in the random
    /// region; `None` is Figure 2's -1 (the average was below `min_th`).
    count: Option<u32>,
    /// Floyd's `q_time`: since when the queue has been empty and the average not yet
    /// decayed for it; `None` while the queue holds packets.
    idle_since: Option<Time>,
    rng: RngStream,
}

impl Red {
    pub fn new(cfg: RedConfig, rng: RngStream) -> Self {
        Red {
            fifo: DropTail::new(cfg.capacity_pkts as usize),
            cfg,
            avg: 0.0,
            count: None,
            idle_since: Some(Time::ZERO),
            rng,
        }
    }

    pub fn config(&self) -> &RedConfig {
        &self.cfg
    }

    /// The average queue length, packets, as of the last arrival.
    pub fn avg(&self) -> f64 {
        self.avg
    }

    /// Offers a packet arriving at `now`.
    #[inline]
    pub fn enqueue(&mut self, q: Queued, now: Time) -> Result<(), (Queued, DropReason)> {
        self.update_avg(now);
        let notify = self.notify();
        let out = self.fifo.enqueue_judged(q, notify, self.cfg.ecn);
        if !self.fifo.is_empty() {
            self.idle_since = None;
        }
        out
    }

    /// Figure 2's average at an arrival.
    fn update_avg(&mut self, now: Time) {
        let w = self.cfg.weight;
        match self.idle_since {
            None => self.avg = (1.0 - w) * self.avg + w * self.fifo.len() as f64,
            Some(since) => {
                let s = self.cfg.mean_pkt_time.as_nanos().max(1);
                let m = now.saturating_sub(since).as_nanos() / s;
                // (1 - w)^m underflows to 0 long before m leaves i32.
                self.avg *= (1.0 - w).powi(m.min(i32::MAX as u64) as i32);
                self.idle_since = Some(since + Time::from_nanos(m * s));
            }
        }
    }

    /// Figure 2's decision: whether this arrival is notified.
    fn notify(&mut self) -> bool {
        let c = &self.cfg;
        if self.avg < c.min_th {
            self.count = None;
            return false;
        }
        if self.avg >= c.forced_from() {
            self.count = Some(0);
            return true;
        }
        let count = self.count.map_or(0, |n| n + 1);
        let p_a = RedConfig::p_a(c.p_b(self.avg), count);
        let notify = self.rng.bernoulli(p_a);
        self.count = Some(if notify { 0 } else { count });
        notify
    }

    /// Takes the head packet at `now`; the idle period starts when the queue empties.
    #[inline]
    pub fn dequeue(&mut self, now: Time) -> Option<Dequeued> {
        let d = self.fifo.dequeue()?;
        if self.fifo.is_empty() {
            self.idle_since = Some(now);
        }
        Some(d)
    }

    /// The FIFO behind the controller: its length, counters, CE marks and packets.
    #[inline]
    pub fn fifo(&self) -> &DropTail {
        &self.fifo
    }

    /// Whether an arrival could be queued: the buffer has room and, as of the last
    /// arrival, the average is below where every arrival is notified. A saturating
    /// source offers packets while this holds; otherwise, at a standstill in time (an
    /// arrival to an empty queue leaves the average as it is), it might never stop.
    #[inline]
    pub fn has_room(&self) -> bool {
        self.fifo.has_room() && self.avg < self.cfg.forced_from()
    }
}

impl QueueDiscipline for Red {
    fn enqueue(&mut self, q: Queued, now: Time) -> Result<(), (Queued, DropReason)> {
        Red::enqueue(self, q, now)
    }
    fn dequeue(&mut self, _routes: &dyn Routes, now: Time) -> Option<Dequeued> {
        Red::dequeue(self, now)
    }
    fn len(&self) -> usize {
        self.fifo().len()
    }
    fn has_room(&self, _src: NodeId, _dst: NodeId, _next_hop: NodeId, _with_report: bool) -> bool {
        Red::has_room(self)
    }
    fn counters(&self) -> QueueCounters {
        self.fifo().counters()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::qdisc::droptail::tests::{ce, queued, tcp_queued};
    use airqueue_kernel::StreamKey;

    const S: Time = Time::from_micros(100);

    #[test]
    fn scheme_defaults_are_ns2_s_and_settings_round_trip_through_params() {
        use crate::qdisc::registry::{Params, Setting};
        let setting = Setting {
            capacity_pkts: Some(60),
            rate_bps: Some(4e6),
        };
        let p = Params::resolved(&SCHEME, &setting).unwrap();
        assert_eq!(RedConfig::from_params(&p), RedConfig::ns2(60, 4e6));
        let cfg = RedConfig {
            min_th: 7.0,
            max_th: 21.5,
            gentle: false,
            ecn: true,
            ..RedConfig::ns2(40, 11e6)
        };
        assert_eq!(RedConfig::from_params(&cfg.qdisc().params), cfg);
        // Without the medium's rate the idle-time unit is undecided.
        let no_rate = Setting {
            rate_bps: None,
            ..setting
        };
        assert_eq!(Params::resolved(&SCHEME, &no_rate), Err(Vec::new()));
    }

    fn red(cfg: RedConfig) -> Red {
        Red::new(cfg, RngStream::new(StreamKey::new(1, 0, "qdisc.red")))
    }

    /// Thresholds out of reach: a FIFO that only averages.
    fn averaging(weight: f64) -> RedConfig {
        RedConfig {
            min_th: 100.0,
            max_th: 200.0,
            weight,
            mean_pkt_time: S,
            ..RedConfig::ns2(1000, 11e6)
        }
    }

    #[test]
    fn defaults_are_ns2s() {
        let c = RedConfig::ns2(50, 10e6);
        assert_eq!(
            (c.min_th, c.max_th, c.max_p, c.weight),
            (5.0, 15.0, 0.1, 0.002)
        );
        assert!(c.gentle && !c.ecn);
        // 500 bytes at 10 Mb/s.
        assert_eq!(c.mean_pkt_time, Time::from_micros(400));
    }

    #[test]
    fn average_is_an_ewma_of_the_queue_seen_by_arrivals() {
        let mut r = red(averaging(0.5));
        let t = Time::from_millis(1);
        // An arrival to the empty queue only decays the average (0 stays 0); the next
        // ones see 1, 2, 3 packets.
        let mut expected = [0.0, 0.5, 1.25, 2.125].into_iter();
        for s in 0..4 {
            r.enqueue(queued(s), t).unwrap();
            assert_eq!(r.avg(), expected.next().unwrap(), "arrival {s}");
        }
        // Departures do not move the average; the next arrival sees 3 packets.
        r.dequeue(t);
        assert_eq!(r.avg(), 2.125);
        r.enqueue(queued(4), t).unwrap();
        assert_eq!(r.avg(), 0.5 * 2.125 + 0.5 * 3.0);
    }

    #[test]
    fn idle_time_decays_the_average_per_mean_packet_time() {
        let mut r = red(averaging(0.5));
        for s in 0..4 {
            r.enqueue(queued(s), Time::ZERO).unwrap();
        }
        let before = r.avg();
        let emptied = Time::from_millis(5);
        while r.dequeue(emptied).is_some() {}
        // 10.5 mean packet times later: m = 10, the half carries over.
        let t1 = emptied + S.times(10) + Time::from_micros(50);
        r.enqueue(queued(9), t1).unwrap();
        assert_eq!(r.avg(), before * 0.5f64.powi(10));
        let after_first = r.avg();
        r.dequeue(t1);
        // Empty again from t1; an arrival just before t1 + s decays nothing more, not even
        // the half period left over before t1 (which belongs to the earlier idle period
        // and ended when the packet arrived).
        r.enqueue(queued(10), t1 + S - Time::from_nanos(1)).unwrap();
        assert_eq!(r.avg(), after_first);
        // An arrival to the now non-empty queue averages normally.
        r.enqueue(queued(11), t1 + S).unwrap();
        assert_eq!(r.avg(), 0.5 * after_first + 0.5);
    }

    #[test]
    fn dropped_arrivals_to_an_empty_queue_do_not_decay_twice() {
        // w_q = 1 would forget everything; 0.5 with every arrival dropped (forced region,
        // no ECN) keeps the queue empty while idle periods pass.
        let cfg = RedConfig {
            min_th: 0.25,
            max_th: 0.4,
            gentle: false,
            ..averaging(0.5)
        };
        let mut r = red(cfg);
        r.avg = 8.0;
        r.enqueue(queued(0), S.times(2)).unwrap_err();
        assert_eq!(r.avg(), 2.0);
        // Two more mean packet times since the last arrival, four since the queue emptied:
        // decayed by two (counting from 0 again would give 0.125).
        r.enqueue(queued(1), S.times(4)).unwrap_err();
        assert_eq!(r.avg(), 0.5);
    }

    #[test]
    fn marking_probability_follows_figure_2_and_the_gentle_slope() {
        let c = RedConfig::ns2(50, 10e6);
        assert_eq!(c.p_b(5.0), 0.0);
        assert!((c.p_b(10.0) - 0.05).abs() < 1e-15);
        assert!((c.p_b(15.0) - 0.1).abs() < 1e-15);
        // Gentle: max_p + (1 - max_p)(avg - max_th)/max_th.
        assert!((c.p_b(20.0) - 0.4).abs() < 1e-15);
        assert_eq!(c.forced_from(), 30.0);
        let hard = RedConfig {
            gentle: false,
            ..c.clone()
        };
        assert_eq!(hard.forced_from(), 15.0);
        // p_a = p_b / (1 - count p_b), 1 once count p_b reaches 1.
        assert_eq!(RedConfig::p_a(0.05, 0), 0.05);
        assert!((RedConfig::p_a(0.05, 10) - 0.1).abs() < 1e-15);
        assert!((RedConfig::p_a(0.05, 18) - 0.5).abs() < 1e-12);
        assert_eq!(RedConfig::p_a(0.05, 19), 1.0);
        assert_eq!(RedConfig::p_a(0.05, 25), 1.0);
    }

    #[test]
    fn count_based_notification_spaces_drops_uniformly() {
        // w_q = 1: the average is the queue an arrival sees. Held at 10 packets between
        // thresholds 5 and 15, p_b = 0.05. Figure 2 increments count before computing
        // p_a, so the n-th arrival after a drop goes with p_b / (1 - n p_b): the gap
        // between drops is uniform in 1..=19 (P = p_b / (1 - p_b) each), never longer.
        let cfg = RedConfig {
            weight: 1.0,
            gentle: false,
            ..RedConfig::ns2(50, 10e6)
        };
        let mut r = red(cfg);
        let t = Time::from_millis(1);
        let mut seq = 0..;
        while r.fifo().len() < 10 {
            let _ = r.enqueue(queued(seq.next().unwrap()), t);
        }
        let (mut gaps, mut since) = (Vec::new(), 0u32);
        for s in seq.take(20_000) {
            since += 1;
            match r.enqueue(queued(s), t) {
                Ok(()) => {
                    r.dequeue(t).unwrap();
                }
                Err((_, reason)) => {
                    assert_eq!(reason, DropReason::Aqm);
                    gaps.push(since);
                    since = 0;
                }
            }
            assert_eq!(r.fifo().len(), 10);
        }
        // The first gap started during the fill.
        let gaps = &gaps[1..];
        assert!(gaps.iter().all(|&g| (1..=19).contains(&g)), "{gaps:?}");
        assert!(gaps.contains(&1) && gaps.contains(&19));
        let mean = gaps.iter().sum::<u32>() as f64 / gaps.len() as f64;
        // Uniform on 1..=19: mean 10, standard error about 0.12 over ~2000 gaps.
        assert!((mean - 10.0).abs() < 0.5, "mean gap {mean}");
        assert!(r.fifo().counters().consistent_with(r.fifo().len()));
    }

    #[test]
    fn below_min_th_nothing_is_notified() {
        let mut r = red(RedConfig::ns2(50, 10e6));
        for s in 0..50 {
            r.enqueue(queued(s), Time::ZERO).unwrap();
        }
        // 50 arrivals lift the average by less than 50 w_q q < 5.
        assert!(r.avg() < 5.0);
        assert_eq!(r.fifo().counters().dropped, 0);
    }

    /// A RED whose average is the instantaneous queue and whose every arrival at 2 or
    /// more packets is notified (non-gentle, max_th 2), buffer 3.
    fn forced(ecn: bool) -> Red {
        red(RedConfig {
            capacity_pkts: 3,
            min_th: 1.0,
            max_th: 2.0,
            weight: 1.0,
            gentle: false,
            ecn,
            ..RedConfig::ns2(3, 10e6)
        })
    }

    #[test]
    fn ecn_marks_capable_packets_and_drops_the_others() {
        let t = Time::ZERO;
        let mut r = forced(true);
        r.enqueue(tcp_queued(0, true), t).unwrap();
        r.enqueue(tcp_queued(1, true), t).unwrap();
        // Average 2: notified. ECN-capable: marked and queued; not: dropped.
        r.enqueue(tcp_queued(2, true), t).unwrap();
        assert!(!r.has_room(), "average 2: every arrival is notified");
        let (back, reason) = r.enqueue(tcp_queued(3, false), t).unwrap_err();
        assert_eq!((back.pkt.seq, reason), (3, DropReason::Aqm));
        let (_, reason) = r.enqueue(queued(4), t).unwrap_err();
        assert_eq!(reason, DropReason::Aqm);
        // Full: even a markable packet overflows.
        let (_, reason) = r.enqueue(tcp_queued(5, true), t).unwrap_err();
        assert_eq!(reason, DropReason::QueueOverflow);
        assert_eq!(r.fifo().marked(), 1);
        let marks: Vec<bool> = (0..3).map(|_| ce(&r.dequeue(t).unwrap().pkt)).collect();
        assert_eq!(marks, [false, false, true]);
        let c = r.fifo().counters();
        assert_eq!((c.received, c.enqueued, c.dropped), (6, 3, 3));
        assert!(c.consistent_with(r.fifo().len()));
        // Without ECN the same ECN-capable packet is dropped.
        let mut r = forced(false);
        for s in 0..2 {
            r.enqueue(tcp_queued(s, true), t).unwrap();
        }
        let (_, reason) = r.enqueue(tcp_queued(2, true), t).unwrap_err();
        assert_eq!((reason, r.fifo().marked()), (DropReason::Aqm, 0));
    }

    #[test]
    fn hard_limit_drops_as_overflow() {
        let mut r = red(RedConfig {
            capacity_pkts: 3,
            ..averaging(0.002)
        });
        for s in 0..5 {
            let res = r.enqueue(queued(s), Time::ZERO);
            assert_eq!(res.is_ok(), s < 3, "seq {s}");
            if let Err((_, reason)) = res {
                assert_eq!(reason, DropReason::QueueOverflow);
            }
        }
        assert!(!r.has_room());
        assert_eq!(r.dequeue(Time::ZERO).unwrap().pkt.seq, 0);
        let c = r.fifo().counters();
        assert_eq!(
            (c.received, c.enqueued, c.dropped, c.dequeued),
            (5, 3, 2, 1)
        );
        assert!(c.consistent_with(r.fifo().len()));
    }
}
