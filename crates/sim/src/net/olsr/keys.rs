//! OLSR's `[routing]` keys (`kind = "olsr"`): RFC 3626 section 18's names and defaults
//! in seconds, olsrd's link-quality estimators, RFC 5148's jitter bound and TC_REDUNDANCY
//! (15.1), declared for the scenario reader ([`crate::net::registry`]);
//! [`OlsrConfig::from_params`] is the one reading of them.

use super::{LqAlgorithm, OlsrConfig, TcRedundancy};
use crate::net::registry::{no_routing_checks, RoutingScheme};
use crate::qdisc::registry::{Fallback, Key, KeyValue, OnlyWith, Params};

/// `routing.kind = "olsr"`.
pub static SCHEME: RoutingScheme = RoutingScheme {
    name: "olsr",
    summary: "Optimized Link State Routing (RFC 3626) with olsrd's ETX link quality",
    keys: &KEYS,
    only_with: &[OnlyWith {
        key: "lq_window",
        choice: "lq_algorithm",
        values: &["hello_window"],
    }],
    default_metric: Some("etx"),
    reroutes_queued_packets: false,
    check: no_routing_checks,
    build: |p, cx| {
        let setup = super::OlsrSetup {
            cfg: OlsrConfig::from_params(p, cx.etx),
            neighbours: cx.neighbours.to_vec(),
        };
        Box::new(super::OlsrNet::new(&setup, cx.node_count, cx.seed))
    },
};

/// An interval in (0, 3600] seconds, defaulting to `default_s`.
const fn interval(default_s: f64) -> KeyValue {
    KeyValue::Duration {
        default: Fallback::Value(default_s),
        max_s: 3600.0,
        zero_is_off: false,
        expected: "seconds in (0, 3600]",
    }
}

const KEYS: [Key; 9] = [
    Key {
        name: "hello_interval",
        doc: "HELLO_INTERVAL (RFC 3626 section 18), seconds in (0, 3600]; default 2",
        value: interval(2.0),
    },
    Key {
        name: "tc_interval",
        doc: "TC_INTERVAL, seconds in (0, 3600]; default 5",
        value: interval(5.0),
    },
    Key {
        name: "neighb_hold_time",
        doc: "NEIGHB_HOLD_TIME, seconds more than hello_interval, at most 3600; default \
              3 x hello_interval",
        value: KeyValue::MoreThan {
            than: "hello_interval",
            default_times: 3.0,
            max_s: 3600.0,
            expected: "more than hello_interval",
        },
    },
    Key {
        name: "top_hold_time",
        doc: "TOP_HOLD_TIME, seconds more than tc_interval, at most 3600; default 3 x \
              tc_interval",
        value: KeyValue::MoreThan {
            than: "tc_interval",
            default_times: 3.0,
            max_s: 3600.0,
            expected: "more than tc_interval",
        },
    },
    Key {
        name: "lq_algorithm",
        doc: "how link quality is measured: \"etx_ff\" (olsrd's default from 0.5.6 on: \
              packet sequence-number gaps over 32 s) or \"hello_window\" (the fraction of \
              the last lq_window HELLOs); default \"etx_ff\"",
        value: KeyValue::Choice {
            default: "etx_ff",
            names: &["etx_ff", "hello_window"],
        },
    },
    Key {
        name: "lq_window",
        doc: "HELLOs in the link-quality window of lq_algorithm = \"hello_window\", \
              1..=64; default 10",
        value: KeyValue::Count {
            default: 10,
            min: 1,
            max: 64,
            expected: "an integer number of HELLOs in 1..=64",
        },
    },
    Key {
        name: "jitter",
        doc: "MAXJITTER (RFC 5148): periodic messages come up to this much early, \
              forwarded TCs wait up to this much; seconds in [0, min(hello_interval, \
              tc_interval) / 4], default that bound",
        value: KeyValue::ShareOf {
            of: &["hello_interval", "tc_interval"],
            share: 0.25,
            expected: "at most a quarter of the shorter of hello_interval and tc_interval \
                       (RFC 5148)",
        },
    },
    Key {
        name: "warm_start",
        doc: "begin from the converged state and routes of the idle network; default true",
        value: KeyValue::Bool { default: true },
    },
    Key {
        name: "tc_redundancy",
        doc: "TC_REDUNDANCY (RFC 3626 section 15.1): 0 (the MPR selectors, the RFC's \
              default), 1 (and the MPRs) or 2 (every symmetric neighbour, olsrd's \
              default); default 0",
        value: KeyValue::Count {
            default: 0,
            min: 0,
            max: 2,
            expected: "TC_REDUNDANCY of RFC 3626 section 15.1: 0 (MPR selectors), 1 (and \
                       MPRs) or 2 (every symmetric neighbour, olsrd's default)",
        },
    },
];

impl OlsrConfig {
    /// From its scheme's keys, routing by the sum of ETX when `etx` (the scenario's
    /// `metric`); what they leave out (DUP_HOLD_TIME, the link-quality timer, the route
    /// delay, the control queue) keeps [`OlsrConfig::default`]'s value.
    pub fn from_params(p: &Params, etx: bool) -> Self {
        OlsrConfig {
            etx,
            hello_interval: p.seconds("hello_interval"),
            tc_interval: p.seconds("tc_interval"),
            neighb_hold_time: p.seconds("neighb_hold_time"),
            top_hold_time: p.seconds("top_hold_time"),
            lq_algorithm: match p.choice("lq_algorithm") {
                Some("hello_window") => LqAlgorithm::HelloWindow,
                _ => LqAlgorithm::EtxFf,
            },
            lq_window: p.integer("lq_window") as u32,
            max_jitter: p.seconds("jitter"),
            warm_start: p.flag("warm_start"),
            // The reader admits only 0..=2.
            tc_redundancy: TcRedundancy::from_rfc(p.integer("tc_redundancy") as u8)
                .unwrap_or(TcRedundancy::MprSelectors),
            ..OlsrConfig::default()
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use airqueue_kernel::Time;

    #[test]
    fn the_defaults_are_rfc_3626_section_18s() {
        let p = SCHEME.defaults().unwrap();
        assert_eq!(OlsrConfig::from_params(&p, true), OlsrConfig::default());
    }

    #[test]
    fn hold_times_and_jitter_follow_the_intervals_unless_given() {
        let mut p = Params::of_keys(KEYS.iter().collect());
        p.set("hello_interval", 1.0);
        // Defaults are worked out when the keys are read in order, as the reader does.
        let hold = p.relative(&KEYS[2]).unwrap();
        assert_eq!(hold, (1.0, 3.0));
        assert_eq!(p.relative(&KEYS[6]).unwrap(), (0.25, 0.25));
        p.set_invalid("hello_interval");
        assert_eq!(p.relative(&KEYS[2]).unwrap(), (2.0, 6.0), "at the default");
        assert_eq!(p.relative(&KEYS[6]).unwrap(), (0.5, 0.5));
    }

    #[test]
    fn every_key_reaches_the_config_in_its_units() {
        let mut p = SCHEME.defaults().unwrap();
        for (key, x) in [
            ("hello_interval", 1.5),
            ("tc_interval", 4.0),
            ("neighb_hold_time", 7.0),
            ("top_hold_time", 20.0),
            ("lq_window", 12.0),
            ("jitter", 0.3),
            ("warm_start", 0.0),
            ("tc_redundancy", 2.0),
        ] {
            assert!(p.set(key, x), "{key}");
        }
        assert!(p.set_choice("lq_algorithm", "hello_window"));
        let expected = OlsrConfig {
            etx: false,
            hello_interval: Time::from_millis(1500),
            tc_interval: Time::from_secs(4),
            neighb_hold_time: Time::from_secs(7),
            top_hold_time: Time::from_secs(20),
            lq_algorithm: LqAlgorithm::HelloWindow,
            lq_window: 12,
            max_jitter: Time::from_millis(300),
            warm_start: false,
            tc_redundancy: TcRedundancy::AllNeighbours,
            ..OlsrConfig::default()
        };
        assert_eq!(OlsrConfig::from_params(&p, false), expected);
    }
}
