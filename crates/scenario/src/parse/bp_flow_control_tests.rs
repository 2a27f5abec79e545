//! `[backpressure]` and `[[flow]] cc = "backpressure"`: seed 002's flow control for
//! non-TCP flows (eq. (5)), its defaults, its exact messages, and what the world gets.

use super::tests::{base_with, errors, ok, one_error};
use super::toml_to_json;
use crate::build::world_config;
use crate::topology::validate_and_place;
use airqueue_sim::transport::flow_control::{DEFAULT_LOG_WEIGHT, SCHEME};
use airqueue_sim::transport::{DiffqRate, RateController};
use airqueue_sim::{DiffqRateConfig, DiffqUtility};

/// BASE (a five-node chain, one UDP flow 0 -> 4 at 1 Mb/s) with flow control on the
/// flow, `queue` as the `[queue]` body and `extra` appended.
fn controlled(queue: &str, extra: &str) -> String {
    let s = base_with("rate = 1e6", "rate = \"saturate\"\ncc = \"backpressure\"");
    format!("{s}[queue]\n{queue}\n{extra}")
}

#[test]
fn defaults_and_what_the_world_gets() {
    let s = ok(&controlled("kind = \"backpressure\"", ""));
    assert_eq!(s.flows[0].cc, Some(&SCHEME));
    let p = s.rate_control(&SCHEME).params;
    assert_eq!(
        ["log_weight", "r_max", "min_rate"].map(|k| p.value(k)),
        [Some(DEFAULT_LOG_WEIGHT), Some(11e6), Some(10e3)], // r_max: the radio's default data rate
    );
    let text = controlled(
        "kind = \"backpressure\"",
        "[radio]\ndata_rate = 2e6\n[backpressure]\nlog_weight = 3e6\nmin_rate = 5e3\n",
    );
    let (s, pos) = validate_and_place(&toml_to_json(&text).unwrap()).unwrap();
    let p = s.rate_control(&SCHEME).params;
    assert_eq!(
        (p.value("log_weight"), p.value("r_max")),
        (Some(3e6), Some(2e6)),
        "r_max defaults to radio.data_rate"
    );
    let Some(cc) = world_config(&s, &pos).flows[0].cc.clone() else {
        panic!("no flow control")
    };
    assert_eq!(cc.scheme, &SCHEME);
    // The controller the world builds: eq. (5) with M = 3e6, R_max = 2e6, floor 5e3.
    let mut rate = cc.build().unwrap();
    let mut expected = DiffqRate::new(DiffqRateConfig::flow_control(3e6, 2e6, 5e3));
    assert_eq!(
        DiffqRateConfig::flow_control(3e6, 2e6, 5e3).utility,
        DiffqUtility::Log
    );
    assert_eq!(rate.update_clock(), expected.update_clock());
    for qlen in [0, 1, 3, 40, 1000] {
        assert_eq!(
            rate.on_update(qlen, true),
            expected.on_update(qlen, true),
            "{qlen}"
        );
    }
}

#[test]
fn flow_control_needs_the_backpressure_queue_and_a_non_tcp_flow() {
    assert_eq!(
        one_error(&controlled("kind = \"droptail\"", "")),
        "flow[0].cc: \"backpressure\" flow control reads the source's backpressure queue for \
         the flow (seed 002, eq. (5)); set queue.kind = \"backpressure\""
    );
    let tcp = base_with("kind = \"udp\"", "kind = \"tcp\"").replace("rate = 1e6", "");
    assert_eq!(
        one_error(&format!(
            "{}[queue]\nkind = \"backpressure\"\n",
            tcp.replace("dst = 4", "dst = 4\ncc = \"backpressure\"")
        )),
        "flow[0].cc: \"backpressure\" flow control is for non-TCP flows (seed 002, eq. (5)); \
         a TCP flow keeps its own window control: use kind = \"udp\" or cc = \"none\""
    );
    // TFRC takes no cc at all.
    let tfrc = base_with("kind = \"udp\"", "kind = \"tfrc\"").replace("rate = 1e6", "");
    let e = one_error(&tfrc.replace("dst = 4", "dst = 4\ncc = \"backpressure\""));
    assert!(e.starts_with("flow[0].cc: not used by kind"), "{e}");
}

#[test]
fn backpressure_section_ranges_are_named() {
    assert_eq!(
        errors(&controlled(
            "kind = \"backpressure\"",
            "[backpressure]\nlog_weight = 0\nr_max = -1\nmin_rate = 0\n"
        )),
        vec![
            "backpressure.log_weight: expected bit/s x packets > 0, got 0",
            "backpressure.r_max: expected bit/s > 0, got -1",
            "backpressure.min_rate: expected bit/s > 0, got 0",
        ]
    );
    assert_eq!(
        one_error(&controlled(
            "kind = \"backpressure\"",
            "[backpressure]\nr_max = 1e6\nmin_rate = 2e6\n"
        )),
        "backpressure.min_rate: must be at most r_max (1000000 bit/s), got 2000000"
    );
    // The paper's symbol is not the key; the message says which keys exist.
    assert_eq!(
        one_error(&controlled(
            "kind = \"backpressure\"",
            "[backpressure]\nm = 1e6\n"
        )),
        "backpressure.m: unknown key; expected one of log_weight, r_max, min_rate"
    );
}
