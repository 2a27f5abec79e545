//! `queue.kind = "backpressure"`: its `[queue]` keys and their checks, as a registry
//! [`Scheme`]. Source flow control of non-TCP flows (`[backpressure]`, seed 002 eq. (5))
//! is not the queue's: it belongs to the sources (`transport/flow_control.rs`), read with
//! `[[flow]] cc = "backpressure"`.

use super::{
    Backpressure, BackpressureConfig, BackpressureVariant, ControlWhen, LinkEstimate, LossCount,
    UnknownNeighbour,
};
use crate::ids::NodeId;
use crate::qdisc::registry::{
    Fallback, Key, KeyValue, Params, Problem, RegisteredQdisc, Scheme, Setting,
};
use crate::qdisc::Qdisc;

/// Backpressure routing and scheduling (seed 002). Meant for the 802.11 medium, where it
/// picks the neighbour each packet goes to (the scenario reader refuses it elsewhere); on
/// a wired link it could only send over that link.
pub static SCHEME: Scheme = Scheme {
    name: "backpressure",
    summary: "classical or TCP-aware backpressure routing and scheduling over per-flow queues \
              (seed 002, 4.1)",
    // Seed 002's node buffer `B_i` over all per-flow queues.
    default_capacity_pkts: 100,
    keys: &KEYS,
    table_keys: &[],
    // It reads the static table for its neighbours; AODV's link breaks would find no
    // packets to re-route.
    moves_packets_on_link_break: false,
    refuses_saturating_source: false,
    runs_at_access_point: false,
    check,
    build: |p, ctx| -> Qdisc {
        let cfg = BackpressureConfig::from_params(p);
        let mut q = Backpressure::new(cfg, ctx.node, ctx.node_count, ctx.rng.clone());
        // The static link weight R_ij (1 - p_ij): the radio's configured data rate and
        // `[[link]]` loss (4.1.1).
        if let Some(radio) = ctx.radio {
            let rate = radio.data_rate.bps() as f64;
            for j in (0..ctx.node_count as u32).map(NodeId) {
                q.set_link(j, rate, ctx.loss_to(j));
            }
        }
        Box::new(q)
    },
};

/// In the order they are read (and their mistakes reported).
static KEYS: [Key; 9] = [
    Key {
        name: "variant",
        doc: "the backlog difference of seed 002's eq. (2): \"tcp_aware\" (default, \
              max(K, U_i) - U_j) or \"classical\" (U_i - U_j)",
        value: KeyValue::Choice {
            default: "tcp_aware",
            names: &["tcp_aware", "classical"],
        },
    },
    Key {
        name: "report_lifetime",
        doc: "seconds an overheard queue report counts as the neighbour's backlog; default \
              0.05 (this model's soft state, not seed 002's)",
        value: KeyValue::Seconds {
            default_s: 0.05,
            max_s: 3600.0,
        },
    },
    Key {
        name: "link_estimate",
        doc: "where the link weight R_ij (1 - p_ij) comes from (seed 002, 4.1.1): \
              \"measured\" (default, footnote 2: the node's own transmissions over the last \
              estimate_interval) or \"configured\" (the data rate and [[link]] loss, an \
              oracle)",
        value: KeyValue::Choice {
            default: "measured",
            names: &["measured", "configured"],
        },
    },
    Key {
        name: "loss_count",
        doc: "what footnote 2's \"transmitted packets\" are, measured estimates only: \
              \"packets\" (default: a packet fails when the MAC drops it at the retry limit) \
              or \"attempts\" (every frame on the air, retries included)",
        value: KeyValue::Choice {
            default: "packets",
            names: &["packets", "attempts"],
        },
    },
    Key {
        name: "estimate_interval",
        doc: "footnote 2's T, seconds; default 1 (about 100 frames of a busy 2 Mb/s link, \
              the fewest that tell a 1% loss from none)",
        value: KeyValue::Duration {
            default: Fallback::Value(1.0),
            max_s: 3600.0,
            zero_is_off: false,
            expected: "a number of seconds in (0, 3600] (seed 002's T, footnote 2)",
        },
    },
    Key {
        name: "control_interval",
        doc: "a node that has sent no data frame for this many seconds broadcasts its queue \
              sizes (seed 002, 4.1.2); 0 turns control packets off; default half of \
              report_lifetime, so an idle node refreshes its reports before they expire",
        value: KeyValue::Duration {
            default: Fallback::Derived,
            max_s: 3600.0,
            zero_is_off: true,
            expected: "a number of seconds in [0, 3600] (0 turns control packets off)",
        },
    },
    Key {
        name: "control_when",
        doc: "when an idle node sends its control packets (seed 002, 4.1.2): \"idle\" \
              (default, every control_interval while it sends no data) or \"changed\" (only \
              when a queue size differs from its last report)",
        value: KeyValue::Choice {
            default: "idle",
            names: &["idle", "changed"],
        },
    },
    Key {
        name: "avoid_overflow",
        doc: "seed 002's footnote 5: no packet goes to a neighbour whose live reports, over \
              every flow and with the packets handed to it since, reach capacity; default \
              true",
        value: KeyValue::Bool { default: true },
    },
    Key {
        name: "unknown_neighbour",
        doc: "what a neighbour's queue counts as in eq. (2) while no live report of it was \
              heard (seed 002, 4.1.2): \"zero\" (default, empty), \"exclude\" (no candidate \
              until it reports) or \"k\" (a queue of K); the routing next hop counts as \
              empty until it reports, whatever the value",
        value: KeyValue::Choice {
            default: "zero",
            names: &["zero", "exclude", "k"],
        },
    },
];

/// `control_interval` defaults to half of `report_lifetime`; `loss_count` needs measured
/// estimates and `control_when` control packets (a key written without effect is a
/// mistake).
fn check(p: &mut Params, _: &Setting) -> Vec<Problem> {
    if let Some(lifetime_s) = p.value("report_lifetime") {
        p.fill("control_interval", lifetime_s / 2.0);
    }
    let mut problems = Vec::new();
    if p.given("loss_count") && p.choice("link_estimate") == Some("configured") {
        problems.push(Problem::new(
            "loss_count",
            "applies only to measured estimates: drop it, or set link_estimate = \"measured\"",
        ));
    }
    if p.given("control_when") && p.value("control_interval") == Some(0.0) {
        problems.push(Problem::new(
            "control_when",
            "control packets are off (control_interval = 0): drop control_when, or set \
             control_interval > 0",
        ));
    }
    problems
}

impl BackpressureConfig {
    /// From its scheme's keys.
    pub fn from_params(p: &Params) -> Self {
        BackpressureConfig {
            capacity_pkts: p.capacity_pkts,
            variant: match p.choice("variant") {
                Some("classical") => BackpressureVariant::Classical,
                _ => BackpressureVariant::TcpAware,
            },
            report_lifetime: p.seconds("report_lifetime"),
            link_estimate: match p.choice("link_estimate") {
                Some("configured") => LinkEstimate::Configured,
                _ => LinkEstimate::Measured {
                    interval: p.seconds("estimate_interval"),
                    count: match p.choice("loss_count") {
                        Some("attempts") => LossCount::Attempts,
                        _ => LossCount::Packets,
                    },
                },
            },
            control_interval: p.duration("control_interval"),
            control_when: match p.choice("control_when") {
                Some("changed") => ControlWhen::Changed,
                _ => ControlWhen::Idle,
            },
            avoid_overflow: p.flag("avoid_overflow"),
            unknown_neighbour: match p.choice("unknown_neighbour") {
                Some("exclude") => UnknownNeighbour::Exclude,
                Some("k") => UnknownNeighbour::AtK,
                _ => UnknownNeighbour::Zero,
            },
        }
    }
}

/// Backpressure on a node buffer of `capacity_pkts`, every other key at its default
/// (control packets every half report lifetime).
pub fn config(capacity_pkts: u32) -> RegisteredQdisc {
    let setting = Setting {
        capacity_pkts: Some(capacity_pkts),
        rate_bps: None,
    };
    match Params::resolved(&SCHEME, &setting) {
        Ok(params) => RegisteredQdisc {
            scheme: &SCHEME,
            params,
        },
        Err(problems) => unreachable!("the defaults pass the checks: {problems:?}"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use airqueue_kernel::Time;

    fn setting() -> Setting {
        Setting {
            capacity_pkts: Some(100),
            rate_bps: None,
        }
    }

    #[test]
    fn the_defaults_are_seed_002s_algorithm_with_measured_links_and_control_packets() {
        let cfg = BackpressureConfig::from_params(&config(100).params);
        assert_eq!(
            cfg,
            BackpressureConfig {
                capacity_pkts: 100,
                variant: BackpressureVariant::TcpAware,
                report_lifetime: Time::from_millis(50),
                link_estimate: LinkEstimate::Measured {
                    interval: Time::from_secs(1),
                    count: LossCount::Packets,
                },
                control_interval: Some(Time::from_micros(25_000)),
                unknown_neighbour: UnknownNeighbour::Zero,
                control_when: ControlWhen::Idle,
                avoid_overflow: true,
            }
        );
    }

    #[test]
    fn every_choice_maps_to_its_setting() {
        let mut p = config(40).params;
        for (key, name) in [
            ("variant", "classical"),
            ("link_estimate", "configured"),
            ("control_when", "changed"),
            ("unknown_neighbour", "k"),
        ] {
            assert!(p.set_choice(key, name), "{key} = {name}");
        }
        p.set("avoid_overflow", 0.0);
        p.set("control_interval", 0.0);
        let cfg = BackpressureConfig::from_params(&p);
        assert_eq!(cfg.capacity_pkts, 40);
        assert_eq!(cfg.variant, BackpressureVariant::Classical);
        assert_eq!(cfg.link_estimate, LinkEstimate::Configured);
        assert_eq!(cfg.control_when, ControlWhen::Changed);
        assert_eq!(cfg.unknown_neighbour, UnknownNeighbour::AtK);
        assert_eq!((cfg.avoid_overflow, cfg.control_interval), (false, None));
        p.set_choice("unknown_neighbour", "exclude");
        p.set_choice("link_estimate", "measured");
        p.set_choice("loss_count", "attempts");
        p.set("estimate_interval", 0.5);
        let cfg = BackpressureConfig::from_params(&p);
        assert_eq!(cfg.unknown_neighbour, UnknownNeighbour::Exclude);
        assert_eq!(
            cfg.link_estimate,
            LinkEstimate::Measured {
                interval: Time::from_millis(500),
                count: LossCount::Attempts,
            }
        );
    }

    #[test]
    fn control_interval_follows_report_lifetime_unless_written() {
        let mut p = Params::defaults(&SCHEME);
        p.set("report_lifetime", 0.2);
        assert!(check(&mut p, &setting()).is_empty());
        assert_eq!(p.value("control_interval"), Some(0.1));
        let mut p = Params::defaults(&SCHEME);
        p.set("control_interval", 0.3);
        assert!(check(&mut p, &setting()).is_empty());
        assert_eq!(p.value("control_interval"), Some(0.3));
        // An invalid lifetime (reported by the reader) leaves it undecided.
        let mut p = Params::defaults(&SCHEME);
        p.set_invalid("report_lifetime");
        assert!(check(&mut p, &setting()).is_empty());
        assert!(!p.is_complete());
    }

    #[test]
    fn keys_without_effect_are_refused_only_when_written() {
        let mut p = Params::defaults(&SCHEME);
        p.set_choice("link_estimate", "configured");
        p.set("control_interval", 0.0);
        assert!(
            check(&mut p, &setting()).is_empty(),
            "defaults, not written"
        );
        p.set_given("loss_count");
        p.set_given("control_when");
        let problems = check(&mut p, &setting());
        let keys: Vec<_> = problems.iter().map(|x| x.key).collect();
        assert_eq!(keys, ["loss_count", "control_when"]);
        assert!(problems[1].message.starts_with("control packets are off"));
    }
}
