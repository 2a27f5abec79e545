//! DiffQ source rate control (seed 000, section 4.1, "Algorithm Source Rate Control"): a
//! source adjusts its sending rate from the length of its own queue for the flow's
//! destination, which DiffQ's backpressure fills when the path downstream is congested.
//!
//! The rate is application payload in bit/s; the next packet is due `payload * 8 / rate`
//! after the previous one. The paper gives no update period; two clocks ([`RateUpdate`]):
//! - **Every interval** `T` (default): the same additive step per unit time for every
//!   source, which is what makes AIMD converge to fairness (Chiu and Jain 1989; RFC 5681
//!   3.1 divides TCP's per-ACK step by cwnd for the same reason). A source that could not
//!   use its rate (a DiffQ-TCP sender blocked by its window) does not increase.
//! - **Per packet**: the increase per second grows with the rate, MIMD in time, which keeps
//!   rate ratios instead of equalising them; kept for comparison (docs/reproductions/diffq.md) and for
//!   the memoryless log rule.
//!
//! **AIMD**: `rate += alpha` while `qlen <= threshold`, else `rate *= beta`. The
//! pseudo-code's `rate = rate / beta` with `beta = 0.5` (6.1) would raise the rate on
//! congestion, so it is read as the usual decrease; its unitless `alpha = 0.01` is read
//! in Mb/s, the unit of the paper's testbed figures.
//!
//! **Log utility**: `rate = M / max(qlen, 1)`, which maximises `M log x - U x` (Neely,
//! Modiano, Li 2005, the paper's reference 21). It is also backpressure's flow control for
//! non-TCP flows (seed 002, section 3, eq. (5), `g = log` as in 4.3), reading the flow's
//! own backpressure queue with `max_bps` as `R_i^max` ([`DiffqRateConfig::flow_control`]).
//! Both rules clip the rate to `[min_bps, max_bps]`; `world/pacing.rs` paces the sources.
//! `cc = "diffq"` and its `[diffq]` keys are this module's [`SCHEME`].

use super::rate::{RateController, RateScheme, RateSetting, RegisteredRate, SourceQueue};
use crate::qdisc::registry::{Fallback, Key, KeyValue, Params, Problem, Range, Scheme};
use airqueue_kernel::Time;

/// DiffQ source rate control (seed 000, 4.1): DiffQ-UDP, DiffQ-TCP and DiffQ-MORE. Its
/// packets, TCP ACKs included, carry the DiffQ header: under the `diffq8` EDCA table
/// legacy traffic goes at level 0, behind every DiffQ frame, and a TCP whose ACKs starve
/// stalls on RTOs; as DiffQ packets the ACKs wait in their own destination's queue and
/// report the reverse path (the paper leaves this point open).
pub static SCHEME: RateScheme = RateScheme {
    name: "diffq",
    summary: "DiffQ source rate control, AIMD or log utility on the source's destination \
              queue (seed 000, 4.1)",
    keys: &KEYS,
    flow_kinds: &["udp", "tcp", "more"],
    refused_kinds: &[],
    reads: SourceQueue::Destination,
    needs_queue: Some((
        &crate::qdisc::diffq::SCHEME,
        "\"diffq\" rate control reads the source's DiffQ queue; set queue.kind = \"diffq\"",
    )),
    queue_report_header: true,
    rates_kind: "diffq",
    check,
    check_with_queue,
    build: Some(|p| Box::new(DiffqRate::new(DiffqRateConfig::from_params(p)))),
};

/// `[diffq]`'s rate keys, in the order they are read (after the queue's switches).
static KEYS: [Key; 11] = [
    Key {
        name: "utility",
        doc: "\"aimd\" (default) or \"log\" (rate = log_weight / max(qlen, 1))",
        value: KeyValue::Choice {
            default: "aimd",
            names: &["aimd", "log"],
        },
    },
    Key {
        name: "rate_update",
        doc: "when the rate is updated: \"interval\" (default, every update_interval) or \
              \"packet\" (once per packet the source sends)",
        value: KeyValue::Choice {
            default: "interval",
            names: &["interval", "packet"],
        },
    },
    Key {
        name: "update_interval",
        doc: "period of \"interval\" updates, seconds; default 0.01",
        value: KeyValue::Seconds {
            default_s: 0.01,
            max_s: 10.0,
        },
    },
    Key {
        name: "alpha",
        doc: "AIMD additive increase per update, bit/s; default 10e3 (the paper's 0.01 read \
              as Mb/s)",
        value: KeyValue::BitRate {
            default: Fallback::Value(10e3),
        },
    },
    Key {
        name: "beta",
        doc: "AIMD multiplicative decrease factor; default 0.5 (section 6.1)",
        value: KeyValue::Real {
            default: Fallback::Value(0.5),
            range: Range {
                max_inclusive: false,
                ..Range::above_to(0.0, 1.0)
            },
            expected: "a factor in (0, 1)",
        },
    },
    Key {
        name: "queue_threshold",
        doc: "packets in the source's own destination queue above which the AIMD rate \
              decreases; default 10",
        value: KeyValue::Count {
            default: 10,
            min: 0,
            max: u32::MAX as u64,
            expected: "an integer number of packets >= 0",
        },
    },
    Key {
        name: "source_queue",
        doc: "the queue the rate rule reads: \"own\" (default, the source's queue for the \
              destination, 4.1) or \"first_relay\" (the larger of that and its next hop's \
              queue for the destination, read from the next hop's memory: a counterfactual \
              the paper does not describe)",
        value: KeyValue::Choice {
            default: "own",
            names: &["own", "first_relay"],
        },
    },
    Key {
        name: "log_weight",
        doc: "M of the log utility's rate = M / max(qlen, 1), bit/s; default 4e6",
        value: KeyValue::Capped {
            default: 4e6,
            max: MAX_LOG_WEIGHT,
            expected: "bit/s > 0",
            unit: "bit/s",
            why: LOG_WEIGHT_CAP,
        },
    },
    Key {
        name: "initial_rate",
        doc: "rate at the flow's start, bit/s, in [min_rate, max_rate]; default 100e3",
        value: KeyValue::BitRate {
            default: Fallback::Value(100e3),
        },
    },
    Key {
        name: "min_rate",
        doc: "floor, bit/s, at most max_rate; default 10e3",
        value: KeyValue::BitRate {
            default: Fallback::Value(10e3),
        },
    },
    Key {
        name: "max_rate",
        doc: "ceiling, bit/s; default radio.data_rate",
        value: KeyValue::BitRate {
            default: Fallback::Derived,
        },
    },
];

/// Largest `log_weight` of a log utility (DiffQ's, backpressure flow control's), bit/s
/// (x packets): the rates it yields are capped by the source's maximum rate anyway, and
/// the bound keeps their arithmetic finite.
pub const MAX_LOG_WEIGHT: f64 = 1e15;

/// Why a log weight is capped at [`MAX_LOG_WEIGHT`] (the error message's words).
pub const LOG_WEIGHT_CAP: &str =
    "the rates it yields are capped by the source's maximum rate anyway";

/// A ceiling that follows the radio: its data rate, 802.11b's top rate (IEEE 802.11-2016
/// 16.1.1) when that was invalid.
pub fn radio_rate_bps(setting: &RateSetting) -> f64 {
    setting.data_rate_bps.unwrap_or(11e6)
}

/// `max_rate` defaults to the radio's data rate; `min_rate <= max_rate`, and
/// `initial_rate` within them (the controller would clamp it silently, and a start
/// outside the bounds is almost certainly a unit slip, kb/s for bit/s).
fn check(p: &mut Params, setting: &RateSetting) -> Vec<Problem> {
    p.fill("max_rate", radio_rate_bps(setting));
    let mut problems = Vec::new();
    if let (Some(lo), Some(hi)) = (p.value("min_rate"), p.value("max_rate")) {
        if lo > hi {
            problems.push(Problem::new(
                "min_rate",
                format!("must be at most max_rate ({hi} bit/s), got {lo}"),
            ));
        } else if let Some(x) = p.value("initial_rate").filter(|x| !(lo..=hi).contains(x)) {
            problems.push(Problem::new(
                "initial_rate",
                format!("must lie in [min_rate, max_rate] = [{lo}, {hi}] bit/s, got {x}"),
            ));
        }
    }
    problems
}

/// AIMD decreases only above the threshold; a destination queue that can never exceed it
/// (`per_dest_capacity <= queue_threshold`) leaves the rate growing until the source
/// drops.
fn check_with_queue(p: &Params, queue: &Scheme, queue_params: &Params) -> Vec<Problem> {
    let per_dest = (*queue == crate::qdisc::diffq::SCHEME)
        .then(|| queue_params.packets("per_dest_capacity"))
        .flatten();
    let aimd = p.choice("utility") == Some("aimd");
    match (per_dest, p.value("queue_threshold")) {
        (Some(per_dest), Some(threshold)) if aimd && threshold >= f64::from(per_dest) => {
            vec![Problem::new(
                "queue_threshold",
                format!(
                    "must be below queue.per_dest_capacity ({per_dest} packets), got {}: the \
                     source's queue can never exceed it, so the rate would never decrease",
                    threshold as u32
                ),
            )]
        }
        _ => Vec::new(),
    }
}

/// When a DiffQ source's controller updates its rate (module documentation).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RateUpdate {
    /// Once per packet the source emits.
    PerPacket,
    /// Once per interval, whether or not the source sent.
    Every(Time),
}

/// Which rate rule a DiffQ source uses.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum DiffqUtility {
    /// Additive increase, multiplicative decrease against a queue threshold.
    Aimd,
    /// `rate = log_weight / max(qlen, 1)` (maximises the sum of log rates).
    Log,
}

/// Parameters of DiffQ source rate control. See the module documentation for units.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct DiffqRateConfig {
    pub utility: DiffqUtility,
    /// When the rate is updated. Default every 10 ms, one 1400-byte packet's time at
    /// 1.12 Mb/s, so with the default `alpha` the rate climbs 1 Mb/s per second.
    pub update: RateUpdate,
    /// AIMD additive increase per update, bit/s. Default 10 kb/s:
    /// the paper's `alpha = 0.01` read as Mb/s.
    pub alpha_bps: f64,
    /// AIMD multiplicative factor on decrease, in (0, 1). Default 0.5 (section 6.1).
    pub beta: f64,
    /// AIMD: the rate decreases while the source's queue for the destination holds more
    /// than this many packets. The paper does not give its value. Default 10: with
    /// `D = 40` and 8 levels, a source that keeps its queue at or below 10 packets sends
    /// at level 2 or below when its next hop is empty, so a relay whose queue builds up
    /// because it is starved outranks the sources around it, which is how DiffQ restores
    /// fairness in the paper's Fig. 2.
    pub queue_threshold_pkts: u32,
    /// Whether the rule reads the larger of the source's queue and its next hop's queue
    /// for the destination (`source_queue = "first_relay"`), an oracle for a
    /// counterfactual run; false (the paper's rule): the source's own.
    pub reads_first_relay: bool,
    /// Log utility: `M` of `rate = M / max(qlen, 1)`, bit/s. Default 4 Mb/s, near the
    /// capacity of one 11 Mb/s 802.11b hop for 1400-byte packets (the paper's one-hop TCP
    /// figure, Table 2), so an unqueued source offers one hop's worth.
    pub log_weight_bps: f64,
    /// Rate at the flow's start, bit/s. Default 100 kb/s.
    pub initial_bps: f64,
    /// Floor, bit/s; at least 1 so that the next packet is always due. Default 10 kb/s,
    /// about one 1400-byte packet per second, so a throttled source keeps probing.
    pub min_bps: f64,
    /// Ceiling, bit/s. Default 11 Mb/s, the 802.11b PHY rate: no source can usefully
    /// offer more.
    pub max_bps: f64,
}

impl DiffqRateConfig {
    /// The AIMD controller with the defaults above.
    pub fn aimd() -> Self {
        DiffqRateConfig {
            utility: DiffqUtility::Aimd,
            update: RateUpdate::Every(Time::from_millis(10)),
            alpha_bps: 10e3,
            beta: 0.5,
            queue_threshold_pkts: 10,
            reads_first_relay: false,
            log_weight_bps: 4e6,
            initial_bps: 100e3,
            min_bps: 10e3,
            max_bps: 11e6,
        }
    }

    /// The log-utility controller with the defaults above.
    pub fn log() -> Self {
        DiffqRateConfig {
            utility: DiffqUtility::Log,
            ..DiffqRateConfig::aimd()
        }
    }

    /// Backpressure flow control for a non-TCP source (seed 002, eq. (5) with
    /// `g = log`): `rate = m / max(U, 1)` clipped to `[min_bps, r_max_bps]`, where
    /// `m` is eq. (5)'s `M` (bit/s x packets) and `r_max_bps` its `R_i^max`, updated per
    /// packet sent. The first update happens as the first packet leaves, so the initial
    /// rate only needs to lie within the bounds.
    pub fn flow_control(m: f64, r_max_bps: f64, min_bps: f64) -> Self {
        DiffqRateConfig {
            utility: DiffqUtility::Log,
            update: RateUpdate::PerPacket,
            log_weight_bps: m,
            initial_bps: min_bps,
            min_bps,
            max_bps: r_max_bps,
            ..DiffqRateConfig::aimd()
        }
    }
}

impl DiffqRateConfig {
    /// From [`SCHEME`]'s keys.
    pub fn from_params(p: &Params) -> Self {
        DiffqRateConfig {
            utility: match p.choice("utility") {
                Some("log") => DiffqUtility::Log,
                _ => DiffqUtility::Aimd,
            },
            update: match p.choice("rate_update") {
                Some("packet") => RateUpdate::PerPacket,
                _ => RateUpdate::Every(p.seconds("update_interval")),
            },
            alpha_bps: p.real("alpha"),
            beta: p.real("beta"),
            queue_threshold_pkts: p.integer("queue_threshold") as u32,
            reads_first_relay: p.choice("source_queue") == Some("first_relay"),
            log_weight_bps: p.real("log_weight"),
            initial_bps: p.real("initial_rate"),
            min_bps: p.real("min_rate"),
            max_bps: p.real("max_rate"),
        }
    }

    /// As [`SCHEME`]'s keys, for a world built in code (`FlowConfig::cc`).
    pub fn registered(&self) -> RegisteredRate {
        let mut params = Params::of_keys(SCHEME.keys.iter().collect());
        let utility = match self.utility {
            DiffqUtility::Aimd => "aimd",
            DiffqUtility::Log => "log",
        };
        params.set_choice("utility", utility);
        match self.update {
            RateUpdate::PerPacket => {
                params.set_choice("rate_update", "packet");
            }
            RateUpdate::Every(t) => {
                params.set("update_interval", t.as_secs_f64());
            }
        }
        params.set("alpha", self.alpha_bps);
        params.set("beta", self.beta);
        params.set("queue_threshold", f64::from(self.queue_threshold_pkts));
        if self.reads_first_relay {
            params.set_choice("source_queue", "first_relay");
        }
        params.set("log_weight", self.log_weight_bps);
        params.set("initial_rate", self.initial_bps);
        params.set("min_rate", self.min_bps);
        params.set("max_rate", self.max_bps);
        RegisteredRate {
            scheme: &SCHEME,
            params,
        }
    }
}

impl Default for DiffqRateConfig {
    fn default() -> Self {
        DiffqRateConfig::aimd()
    }
}

/// The rate controller of one DiffQ source.
#[derive(Clone, Debug, PartialEq)]
pub struct DiffqRate {
    cfg: DiffqRateConfig,
    rate_bps: f64,
    /// Updates made, and how many of them were decreases (AIMD) or below the previous
    /// rate (log).
    pub updates: u64,
    pub decreases: u64,
}

impl DiffqRate {
    pub fn new(cfg: DiffqRateConfig) -> Self {
        let min_bps = cfg.min_bps.max(1.0);
        let cfg = DiffqRateConfig {
            min_bps,
            max_bps: cfg.max_bps.max(min_bps),
            ..cfg
        };
        DiffqRate {
            rate_bps: cfg.initial_bps.clamp(cfg.min_bps, cfg.max_bps),
            cfg,
            updates: 0,
            decreases: 0,
        }
    }

    /// One update on the source's queue length for its destination (`qlen`); with
    /// `may_rise` false (the source had data its window kept back during the interval)
    /// the rate is held instead of raised.
    fn update(&mut self, qlen: usize, may_rise: bool) -> f64 {
        let c = &self.cfg;
        let mut new = match c.utility {
            DiffqUtility::Aimd if qlen > c.queue_threshold_pkts as usize => self.rate_bps * c.beta,
            DiffqUtility::Aimd => self.rate_bps + c.alpha_bps,
            DiffqUtility::Log => c.log_weight_bps / qlen.max(1) as f64,
        }
        .clamp(c.min_bps, c.max_bps);
        if !may_rise {
            new = new.min(self.rate_bps);
        }
        self.updates += 1;
        if new < self.rate_bps {
            self.decreases += 1;
        }
        self.rate_bps = new;
        new
    }
}

impl RateController for DiffqRate {
    fn rate_bps(&self) -> f64 {
        self.rate_bps
    }

    fn update_clock(&self) -> RateUpdate {
        self.cfg.update
    }

    fn on_update(&mut self, source_queue_pkts: usize, may_rise: bool) -> f64 {
        self.update(source_queue_pkts, may_rise)
    }

    fn reads_next_hop(&self) -> bool {
        self.cfg.reads_first_relay
    }

    fn counts(&self) -> (u64, u64) {
        (self.updates, self.decreases)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_keys_give_back_the_config_they_were_made_from() {
        let setting = RateSetting {
            data_rate_bps: Some(2e6),
        };
        let defaults = RegisteredRate::resolved(&SCHEME, &setting).unwrap();
        let expected = DiffqRateConfig {
            max_bps: 2e6,
            ..DiffqRateConfig::aimd()
        };
        assert_eq!(DiffqRateConfig::from_params(&defaults.params), expected);
        for cfg in [
            expected,
            DiffqRateConfig {
                update: RateUpdate::PerPacket,
                queue_threshold_pkts: 3,
                ..DiffqRateConfig::log()
            },
            DiffqRateConfig::flow_control(3e6, 1e6, 5e3),
        ] {
            let r = cfg.registered();
            assert_eq!(DiffqRateConfig::from_params(&r.params), cfg);
            assert!(r.params.is_complete());
        }
    }

    #[test]
    fn rate_bounds_are_checked_between_keys() {
        let setting = RateSetting {
            data_rate_bps: None,
        };
        let mut p = Params::of_keys(SCHEME.keys.iter().collect());
        p.set("min_rate", 2e6);
        p.set("max_rate", 1e6);
        let problems = check(&mut p, &setting);
        assert_eq!(problems.len(), 1);
        assert_eq!(
            problems[0].message,
            "must be at most max_rate (1000000 bit/s), got 2000000"
        );
        let mut p = Params::of_keys(SCHEME.keys.iter().collect());
        p.set("initial_rate", 100.0);
        let problems = check(&mut p, &setting);
        assert_eq!(p.value("max_rate"), Some(11e6), "802.11b's top rate");
        assert_eq!(problems[0].key, "initial_rate");
        // An AIMD threshold the destination queue cannot exceed; none for the log rule.
        let queue = crate::qdisc::diffq::config(100, 8);
        let problems = check_with_queue(&p, queue.scheme, &queue.params);
        assert_eq!(problems[0].key, "queue_threshold");
        p.set_choice("utility", "log");
        assert!(check_with_queue(&p, queue.scheme, &queue.params).is_empty());
    }

    fn aimd() -> DiffqRate {
        DiffqRate::new(DiffqRateConfig {
            initial_bps: 1e6,
            ..DiffqRateConfig::aimd()
        })
    }

    #[test]
    fn aimd_adds_alpha_at_or_below_the_threshold() {
        let mut r = aimd();
        assert_eq!(r.on_update(0, true), 1.01e6);
        assert_eq!(
            r.on_update(10, true),
            1.02e6,
            "the threshold itself is not congestion"
        );
        for _ in 0..98 {
            r.on_update(3, true);
        }
        assert!((r.rate_bps() - 2e6).abs() < 1e-3, "{}", r.rate_bps());
        assert_eq!((r.updates, r.decreases), (100, 0));
    }

    #[test]
    fn aimd_multiplies_by_beta_above_the_threshold() {
        let mut r = aimd();
        assert_eq!(r.on_update(11, true), 0.5e6);
        assert_eq!(r.on_update(40, true), 0.25e6);
        assert_eq!(r.decreases, 2);
        // Recovery is additive again.
        assert_eq!(r.on_update(0, true), 0.26e6);
    }

    #[test]
    fn rate_stays_within_bounds() {
        let mut r = aimd();
        for _ in 0..100 {
            r.on_update(50, true);
        }
        assert_eq!(r.rate_bps(), 10e3);
        for _ in 0..2000 {
            r.on_update(0, true);
        }
        assert_eq!(r.rate_bps(), 11e6);
        // The initial rate is clipped too, and a zero floor becomes 1 bit/s.
        let r = DiffqRate::new(DiffqRateConfig {
            initial_bps: 0.0,
            min_bps: 0.0,
            ..DiffqRateConfig::aimd()
        });
        assert_eq!(r.rate_bps(), 1.0);
        assert!(r.interval(1000, None) > Time::ZERO);
    }

    #[test]
    fn log_rule_divides_the_weight_by_the_backlog() {
        let mut r = DiffqRate::new(DiffqRateConfig::log());
        assert_eq!(r.on_update(0, true), 4e6);
        assert_eq!(r.on_update(1, true), 4e6);
        assert_eq!(r.on_update(4, true), 1e6);
        assert_eq!(r.on_update(8, true), 0.5e6);
        assert_eq!(r.decreases, 2);
        // Clipped below at the floor.
        assert_eq!(r.on_update(1000, true), 10e3);
    }

    #[test]
    fn flow_control_admits_m_over_the_backlog_within_r_max_and_the_floor() {
        // Seed 002, eq. (5) with g = log: x = M / U, capped at R_max, floored.
        let (m, r_max, floor) = (4e6, 2e6, 20e3);
        let mut r = DiffqRate::new(DiffqRateConfig::flow_control(m, r_max, floor));
        assert_eq!(
            r.rate_bps(),
            floor,
            "starts at the floor until a packet leaves"
        );
        // An empty or one-packet queue asks for M, more than R_max: capped.
        assert_eq!(r.on_update(0, true), r_max);
        assert_eq!(r.on_update(1, true), r_max);
        // At and beyond M / R_max = 2 packets the rule itself binds.
        assert_eq!(r.on_update(2, true), 2e6);
        assert_eq!(r.on_update(5, true), 0.8e6);
        assert_eq!(r.on_update(40, true), 100e3);
        // M / U under the floor is floored: 4e6 / 400 = 10 kb/s < 20 kb/s.
        assert_eq!(r.on_update(400, true), floor);
        // The queue drains: the rate follows U down and back, no memory.
        assert_eq!(r.on_update(10, true), 400e3);
        assert_eq!((r.updates, r.decreases), (7, 3));
        // 1000-byte packets at 400 kb/s leave every 20 ms.
        assert_eq!(r.interval(1000, None), Time::from_millis(20));
    }

    #[test]
    fn a_blocked_interval_holds_the_rate_but_still_decreases() {
        let mut r = aimd();
        // A DiffQ-TCP source whose window kept data back does not grow...
        assert_eq!(r.on_update(0, false), 1e6);
        // ...but a backlog still halves it, and a used interval grows it again.
        assert_eq!(r.on_update(11, false), 0.5e6);
        assert_eq!(r.on_update(0, true), 0.51e6);
        assert_eq!((r.updates, r.decreases), (3, 1));
        // The log rule is held the same way: no rise while blocked.
        let mut l = DiffqRate::new(DiffqRateConfig {
            initial_bps: 1e6,
            ..DiffqRateConfig::log()
        });
        assert_eq!(l.on_update(1, false), 1e6);
        assert_eq!(l.on_update(8, false), 0.5e6);
        assert_eq!(l.on_update(1, true), 4e6);
    }

    #[test]
    fn per_interval_increase_is_the_same_for_slow_and_fast_sources() {
        // Chiu and Jain's condition for AIMD to converge to fairness: over the same time
        // both sources gain the same absolute rate. Per packet, the fast one would gain
        // `alpha` per packet, ten times as many steps as the slow one.
        let mut slow = aimd(); // 1 Mb/s
        let mut fast = DiffqRate::new(DiffqRateConfig {
            initial_bps: 9e6,
            ..DiffqRateConfig::aimd()
        });
        let gap = fast.rate_bps() - slow.rate_bps();
        for _ in 0..50 {
            slow.on_update(0, true);
            fast.on_update(0, true);
        }
        assert_eq!(fast.rate_bps() - slow.rate_bps(), gap);
        // A common congestion signal halves both, and so the gap.
        slow.on_update(20, true);
        fast.on_update(20, true);
        assert_eq!(fast.rate_bps() - slow.rate_bps(), gap / 2.0);
        assert_eq!(
            DiffqRateConfig::aimd().update,
            RateUpdate::Every(Time::from_millis(10))
        );
        assert_eq!(
            DiffqRateConfig::flow_control(1.0, 1.0, 1.0).update,
            RateUpdate::PerPacket
        );
    }

    #[test]
    fn interval_is_payload_over_rate_capped_by_the_application() {
        let r = aimd(); // 1 Mb/s
        assert_eq!(r.interval(1250, None), Time::from_millis(10));
        assert_eq!(r.interval(1250, Some(500e3)), Time::from_millis(20));
        assert_eq!(r.interval(1250, Some(5e6)), Time::from_millis(10));
    }
}
