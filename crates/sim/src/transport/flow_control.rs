//! `cc = "backpressure"`: backpressure's flow control for non-TCP flows (seed 002,
//! section 3, eq. (5), with `g = log` as in 4.3) and its `[backpressure]` keys, as a
//! registry [`RateScheme`]. The controller is DiffQ's log rule ([`DiffqRate`] with
//! [`DiffqRateConfig::flow_control`]) reading the source's own backpressure queue for the
//! flow, `U_i^s`, instead of a destination queue.

use super::diffq::{radio_rate_bps, DiffqRate, DiffqRateConfig, LOG_WEIGHT_CAP, MAX_LOG_WEIGHT};
use super::rate::{no_queue_checks, RateScheme, RateSetting, SourceQueue};
use crate::qdisc::registry::{Fallback, Key, KeyValue, Params, Problem};

/// Paces a UDP source like DiffQ-UDP at `M / max(U, 1)` bit/s of payload, clipped to
/// `[min_rate, r_max]` and updated once per packet sent. Its packets carry no header of
/// their own: backpressure writes its report when it hands a packet to the MAC.
pub static SCHEME: RateScheme = RateScheme {
    name: "backpressure",
    summary: "backpressure flow control of a non-TCP flow on its source's per-flow queue \
              (seed 002, eq. (5))",
    keys: &KEYS,
    flow_kinds: &["udp"],
    refused_kinds: &[(
        "tcp",
        "\"backpressure\" flow control is for non-TCP flows (seed 002, eq. (5)); a TCP flow \
         keeps its own window control: use kind = \"udp\" or cc = \"none\"",
    )],
    reads: SourceQueue::Commodity,
    needs_queue: Some((
        &crate::qdisc::backpressure::SCHEME,
        "\"backpressure\" flow control reads the source's backpressure queue for the flow \
         (seed 002, eq. (5)); set queue.kind = \"backpressure\"",
    )),
    queue_report_header: false,
    rates_kind: "flow_control",
    check,
    check_with_queue: no_queue_checks,
    build: Some(|p| {
        let cfg = DiffqRateConfig::flow_control(
            p.real("log_weight"),
            p.real("r_max"),
            p.real("min_rate"),
        );
        Box::new(DiffqRate::new(cfg))
    }),
};

/// Default `M` (`log_weight`), bit/s x packets, from seed 002's eq. (6) (section 4.3):
/// `M = U x`, `x` the TCP-friendly rate `sqrt((1 - q) / (T^3 beta q))` of a TCP flow at
/// the same source. In the diamond of `airqueue reproduce bp-tcp-aware` (2 Mb/s,
/// 1000-byte packets) TCP-SACK under TCP-aware backpressure sees `T ~ 0.5 s` and
/// `q ~ 0.01`; with `beta = 0.5`, `x ~ 40` packets/s (320 kb/s); a backlog of `U = 12`
/// packets (a quarter of `K = 50`, what TCP-aware backpressure grants each of two flows)
/// gives `M ~ 3.8e6`, rounded to 4e6.
pub const DEFAULT_LOG_WEIGHT: f64 = 4e6;

/// In the order they are read.
static KEYS: [Key; 3] = [
    Key {
        name: "log_weight",
        doc: "eq. (5)'s M, bit/s x packets: the source settles where its queue holds \
              M / rate packets; default 4e6 (eq. (6))",
        value: KeyValue::Capped {
            default: DEFAULT_LOG_WEIGHT,
            max: MAX_LOG_WEIGHT,
            expected: "bit/s x packets > 0",
            unit: "bit/s",
            why: LOG_WEIGHT_CAP,
        },
    },
    Key {
        name: "r_max",
        doc: "eq. (5)'s R_max, the most a source admits for a flow, bit/s; default \
              radio.data_rate",
        value: KeyValue::BitRate {
            default: Fallback::Derived,
        },
    },
    Key {
        name: "min_rate",
        doc: "floor, bit/s, at most r_max, so that a throttled source keeps sending; \
              default 10e3",
        value: KeyValue::BitRate {
            default: Fallback::Value(10e3),
        },
    },
];

/// `r_max` defaults to the radio's data rate, and bounds `min_rate`.
fn check(p: &mut Params, setting: &RateSetting) -> Vec<Problem> {
    p.fill("r_max", radio_rate_bps(setting));
    match (p.value("min_rate"), p.value("r_max")) {
        (Some(lo), Some(hi)) if lo > hi => vec![Problem::new(
            "min_rate",
            format!("must be at most r_max ({hi} bit/s), got {lo}"),
        )],
        _ => Vec::new(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::transport::rate::RegisteredRate;
    use crate::transport::{DiffqUtility, RateUpdate};

    #[test]
    fn the_defaults_build_eq_5_with_the_radio_rate_as_r_max() {
        let setting = RateSetting {
            data_rate_bps: Some(2e6),
        };
        let r = RegisteredRate::resolved(&SCHEME, &setting).unwrap();
        assert_eq!(r.params.value("r_max"), Some(2e6));
        let mut c = r.build().unwrap();
        assert_eq!(c.rate_bps(), 10e3, "starts at the floor");
        assert_eq!(c.update_clock(), RateUpdate::PerPacket);
        // M / U = 4e6 / 4 = 1 Mb/s, under R_max.
        assert_eq!(c.on_update(4, true), 1e6);
        let cfg = DiffqRateConfig::flow_control(DEFAULT_LOG_WEIGHT, 2e6, 10e3);
        assert_eq!(cfg.utility, DiffqUtility::Log);
    }

    #[test]
    fn min_rate_above_r_max_is_refused() {
        let mut p = Params::of_keys(SCHEME.keys.iter().collect());
        p.set("r_max", 1e6);
        p.set("min_rate", 2e6);
        let setting = RateSetting {
            data_rate_bps: None,
        };
        let problems = check(&mut p, &setting);
        assert_eq!(problems[0].key, "min_rate");
        assert_eq!(
            problems[0].message,
            "must be at most r_max (1000000 bit/s), got 2000000"
        );
    }
}
