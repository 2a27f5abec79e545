//! AODV's `[routing]` keys (`kind = "aodv"`): RFC 3561 section 10's names and defaults
//! in seconds, ns-2's discovery buffer, the link-break detection of 6.9 and 6.11 and the
//! local repair of 6.12, declared for the scenario reader
//! ([`crate::net::registry`]); [`AodvConfig::from_params`] is the one reading of them.

use super::{AodvConfig, LinkDetection};
use crate::net::registry::RoutingScheme;
use crate::qdisc::registry::{Fallback, Key, KeyValue, Params, Problem};

/// `routing.kind = "aodv"`.
pub static SCHEME: RoutingScheme = RoutingScheme {
    name: "aodv",
    summary: "Ad hoc On-Demand Distance Vector routing (RFC 3561)",
    keys: &KEYS,
    only_with: &[],
    default_metric: None,
    reroutes_queued_packets: true,
    check,
    build: |p, cx| {
        Box::new(super::protocol::AodvNet::new(
            AodvConfig::from_params(p),
            cx.node_count,
            cx.seed,
        ))
    },
};

/// A duration in (0, `max_s`] seconds, defaulting to `default_s`.
const fn seconds(default_s: f64, max_s: f64, expected: &'static str) -> KeyValue {
    KeyValue::Duration {
        default: Fallback::Value(default_s),
        max_s,
        zero_is_off: false,
        expected,
    }
}

/// A hop count in 1..=255 (an IP TTL), defaulting to `default`.
const fn hops(default: u64) -> KeyValue {
    KeyValue::Count {
        default,
        min: 1,
        max: 255,
        expected: "an integer number of hops in 1..=255",
    }
}

const KEYS: [Key; 13] = [
    Key {
        name: "active_route_timeout",
        doc: "ACTIVE_ROUTE_TIMEOUT (RFC 3561 section 10), seconds in (0, 3600]; default 3",
        value: seconds(3.0, 3600.0, "seconds in (0, 3600]"),
    },
    Key {
        name: "net_diameter",
        doc: "NET_DIAMETER, the TTL of network-wide requests, hops in 1..=255; default 35",
        value: hops(35),
    },
    Key {
        name: "node_traversal_time",
        doc: "NODE_TRAVERSAL_TIME, seconds in (0, 10]; default 0.04",
        value: seconds(0.04, 10.0, "seconds in (0, 10]"),
    },
    Key {
        name: "rreq_retries",
        doc: "RREQ_RETRIES: network-wide requests after the first one, 0..=16; default 2",
        value: KeyValue::Integer {
            default: 2,
            min: 0,
            max: 16,
        },
    },
    Key {
        name: "ttl_start",
        doc: "TTL_START: first TTL of the expanding ring search (6.4), hops in 1..=255 and \
              at most ttl_threshold; default 1",
        value: hops(1),
    },
    Key {
        name: "ttl_increment",
        doc: "TTL_INCREMENT: TTL added per ring, hops in 1..=255; default 2",
        value: hops(2),
    },
    Key {
        name: "ttl_threshold",
        doc: "TTL_THRESHOLD: largest ring TTL before requests go network-wide, hops in \
              1..=255 and at most net_diameter; default 7",
        value: hops(7),
    },
    Key {
        name: "buffer_capacity",
        doc: "packets a node holds awaiting route discovery, over all destinations; \
              default 64 (ns-2)",
        value: KeyValue::Packets { default: Some(64) },
    },
    Key {
        name: "buffer_timeout",
        doc: "how long a packet may wait for a route, seconds in (0, 3600]; default 30 \
              (ns-2)",
        value: seconds(30.0, 3600.0, "seconds in (0, 3600]"),
    },
    Key {
        name: "link_detection",
        doc: "how link breaks are found (RFC 3561 6.11 case i): \"mac\", a unicast frame \
              reaching the MAC retry limit (ns-2), or \"hello\", hello messages (6.9); \
              default \"mac\"",
        value: KeyValue::Choice {
            default: "mac",
            names: &["mac", "hello"],
        },
    },
    Key {
        name: "hello_interval",
        doc: "HELLO_INTERVAL with link_detection = \"hello\" (6.9), seconds in (0, 3600]; \
              default 1",
        value: seconds(1.0, 3600.0, "seconds in (0, 3600]"),
    },
    Key {
        name: "allowed_hello_loss",
        doc: "ALLOWED_HELLO_LOSS with link_detection = \"hello\": a next hop silent for \
              this many hello intervals is gone, 1..=255; default 2",
        value: KeyValue::Integer {
            default: 2,
            min: 1,
            max: 255,
        },
    },
    Key {
        name: "local_repair",
        doc: "RFC 3561 6.12 local repair of a broken link by the relay upstream of the \
              break; default false",
        value: KeyValue::Bool { default: false },
    },
];

/// The expanding ring (RFC 3561 6.4) starts at ttl_start and widens up to
/// ttl_threshold, beyond which requests cover the network with TTL = net_diameter: so
/// `ttl_start <= ttl_threshold <= net_diameter` (the first break reported).
fn check(p: &mut Params) -> Vec<Problem> {
    let (Some(start), Some(threshold), Some(diameter)) = (
        p.value("ttl_start"),
        p.value("ttl_threshold"),
        p.value("net_diameter"),
    ) else {
        return Vec::new();
    };
    if start > threshold {
        let message = format!(
            "must be at most ttl_threshold ({threshold}), got {start}: the expanding ring \
             starts at ttl_start and widens up to ttl_threshold"
        );
        return vec![Problem::new("ttl_start", message)];
    }
    if threshold > diameter {
        let message = format!(
            "must be at most net_diameter ({diameter}), got {threshold}: past the threshold \
             requests cover the whole network with TTL = net_diameter"
        );
        return vec![Problem::new("ttl_threshold", message)];
    }
    Vec::new()
}

impl AodvConfig {
    /// From its scheme's keys; what they leave out (the control queue, the jitter)
    /// keeps [`AodvConfig::default`]'s value.
    pub fn from_params(p: &Params) -> Self {
        // The reader admits hop counts in 1..=255 only.
        let hops = |key: &str| p.integer(key).min(u64::from(u8::MAX)) as u8;
        AodvConfig {
            active_route_timeout: p.seconds("active_route_timeout"),
            net_diameter: hops("net_diameter"),
            node_traversal_time: p.seconds("node_traversal_time"),
            rreq_retries: p.integer("rreq_retries") as u32,
            ttl_start: hops("ttl_start"),
            ttl_increment: hops("ttl_increment"),
            ttl_threshold: hops("ttl_threshold"),
            buffer_capacity: p.integer("buffer_capacity") as usize,
            buffer_timeout: p.seconds("buffer_timeout"),
            link_detection: match p.choice("link_detection") {
                Some("hello") => LinkDetection::Hello,
                _ => LinkDetection::Mac,
            },
            hello_interval: p.seconds("hello_interval"),
            allowed_hello_loss: hops("allowed_hello_loss"),
            local_repair: p.flag("local_repair"),
            ..AodvConfig::default()
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use airqueue_kernel::Time;

    #[test]
    fn the_defaults_are_rfc_3561_section_10s() {
        let p = SCHEME.defaults().unwrap();
        assert_eq!(AodvConfig::from_params(&p), AodvConfig::default());
    }

    #[test]
    fn every_key_reaches_the_config_in_its_units() {
        let mut p = SCHEME.defaults().unwrap();
        for (key, x) in [
            ("active_route_timeout", 1.5),
            ("net_diameter", 20.0),
            ("node_traversal_time", 0.01),
            ("rreq_retries", 4.0),
            ("ttl_start", 2.0),
            ("ttl_increment", 3.0),
            ("ttl_threshold", 9.0),
            ("buffer_capacity", 10.0),
            ("buffer_timeout", 5.0),
            ("hello_interval", 0.5),
            ("allowed_hello_loss", 3.0),
            ("local_repair", 1.0),
        ] {
            assert!(p.set(key, x), "{key}");
        }
        assert!(p.set_choice("link_detection", "hello"));
        assert!(check(&mut p).is_empty());
        let expected = AodvConfig {
            active_route_timeout: Time::from_millis(1500),
            net_diameter: 20,
            node_traversal_time: Time::from_millis(10),
            rreq_retries: 4,
            ttl_start: 2,
            ttl_increment: 3,
            ttl_threshold: 9,
            buffer_capacity: 10,
            buffer_timeout: Time::from_secs(5),
            link_detection: LinkDetection::Hello,
            hello_interval: Time::from_millis(500),
            allowed_hello_loss: 3,
            local_repair: true,
            ..AodvConfig::default()
        };
        assert_eq!(AodvConfig::from_params(&p), expected);
    }

    #[test]
    fn the_ring_must_fit_inside_the_network_diameter() {
        let mut p = SCHEME.defaults().unwrap();
        p.set("ttl_start", 9.0);
        p.set("net_diameter", 5.0);
        let problems = check(&mut p);
        assert_eq!(problems.len(), 1, "the first break only");
        assert_eq!(problems[0].key, "ttl_start");
        p.set("ttl_start", 1.0);
        assert_eq!(check(&mut p)[0].key, "ttl_threshold");
        p.set_invalid("net_diameter");
        assert!(
            check(&mut p).is_empty(),
            "skipped: net_diameter was refused"
        );
    }
}
