//! `[queue] kind = "dqm"`: its keys, their defaults (seed 004, Table II) and exact
//! messages, and what the world gets from them.

use super::tests::{base_with, errors, ok, one_error};
use super::toml_to_json;
use crate::build::world_config;
use crate::topology::validate_and_place;
use airqueue_kernel::Time;
use airqueue_sim::qdisc::dqm::{Dequeue, DrawnEstimated, Link, OwnTPkt, SCHEME};
use airqueue_sim::DqmConfig;

/// BASE on a BSS of four stations, with `[queue]` keys `queue`.
fn bss_queue(queue: &str) -> String {
    let s = base_with(
        "kind = \"chain\"\nnodes = 5\nspacing = 200",
        "kind = \"bss\"\nstations = 4\nradius = 10",
    );
    format!("{s}[queue]\n{queue}")
}

#[test]
fn dqm_defaults_are_table_ii() {
    let s = ok(&bss_queue("kind = \"dqm\"\n"));
    assert_eq!(*s.queue.kind, SCHEME);
    assert_eq!(s.queue.capacity_pkts, 100);
    let link = Link::default();
    assert_eq!(
        DqmConfig::from_params(&s.queue.params, link),
        DqmConfig::table_ii(link)
    );
}

#[test]
fn dqm_every_key_reaches_the_world() {
    let text = bss_queue(
        "kind = \"dqm\"\ncapacity = 60\nd_ref = 0.02\na = 2e-5\nb = 1.9e-5\nsample_hz = 100\n\
         t_fair = 0.01\nflow_timeout = 2.5\nt_pkt = \"elapsed\"\ndequeue = \"arrival\"\n",
    );
    let (s, pos) = validate_and_place(&toml_to_json(&text).unwrap()).unwrap();
    let cfg = world_config(&s, &pos);
    let r = &cfg.qdisc;
    assert_eq!(r.scheme.name, "dqm");
    let cfg = DqmConfig::from_params(&r.params, Link::default());
    assert_eq!(cfg.capacity_pkts, 60);
    assert_eq!(
        (cfg.d_ref, cfg.t_fair),
        (Time::from_millis(20), Time::from_millis(10))
    );
    assert_eq!(
        (cfg.a, cfg.b, cfg.period),
        (2e-5, 1.9e-5, Time::from_millis(10))
    );
    assert_eq!(cfg.flow_timeout, Time::from_millis(2500));
    assert_eq!(cfg.own_t_pkt, OwnTPkt::Elapsed);
    assert_eq!(cfg.dequeue, Dequeue::Arrival);
    assert_eq!(cfg.drawn_estimated, DrawnEstimated::None);
    let text = bss_queue("kind = \"dqm\"\ndrawn_estimated = \"retries\"\n");
    let (s, pos) = validate_and_place(&toml_to_json(&text).unwrap()).unwrap();
    let cfg = DqmConfig::from_params(&world_config(&s, &pos).qdisc.params, Link::default());
    assert_eq!(
        (cfg.own_t_pkt, cfg.drawn_estimated),
        (OwnTPkt::Drawn, DrawnEstimated::Retries)
    );
    // The rates and framing come from the radio at build time (the world hands each
    // radio interface's to the scheme: qdisc/dqm.rs's tests).
}

#[test]
fn dqm_mistakes_are_named() {
    assert_eq!(
        errors(&bss_queue(
            "kind = \"dqm\"\nd_ref = 0\nt_fair = 2\nflow_timeout = -1\na = 1e-5\nb = 2e-5\n\
             sample_hz = 0\n"
        )),
        vec![
            "queue.d_ref: expected a number of seconds in (0, 10], got 0",
            "queue.t_fair: expected a number of seconds in (0, 1], got 2",
            "queue.flow_timeout: expected a number of seconds in (0, 3600], got -1",
            "queue.sample_hz: expected a sampling rate in (0, 1e6] Hz, got 0",
            "queue.b: must be at most a (0.00001), got 0.00002: a - b is the integral gain, which must not be negative",
        ]
    );
    assert_eq!(
        one_error(&bss_queue("kind = \"dqm\"\nt_pkt = \"measured\"\n")),
        "queue.t_pkt: unknown t_pkt \"measured\"; expected one of estimate, drawn, elapsed"
    );
    // The counterfactual parts of the drawn reading need that reading.
    assert_eq!(
        one_error(&bss_queue(
            "kind = \"dqm\"\nt_pkt = \"elapsed\"\ndrawn_estimated = \"retries\"\n"
        )),
        "queue.drawn_estimated: replaces a part of the \"drawn\" T_pkt, but t_pkt is \
         \"elapsed\"; set t_pkt = \"drawn\" or drawn_estimated = \"none\""
    );
    assert_eq!(
        one_error(&bss_queue("kind = \"dqm\"\ndequeue = \"fifo\"\n")),
        "queue.dequeue: unknown dequeue \"fifo\"; expected one of algorithm1, arrival"
    );
    // PI's own keys, and DQM's under another kind.
    assert_eq!(
        one_error(&bss_queue("kind = \"dqm\"\nq_ref = 30\n")),
        "queue.q_ref: not used by kind \"dqm\"; q_ref applies only to kind pi"
    );
    assert_eq!(
        one_error(&bss_queue("kind = \"pi\"\nt_fair = 0.005\n")),
        "queue.t_fair: not used by kind \"pi\"; t_fair applies only to kind dqm"
    );
    // DQM is an access point's buffer.
    assert_eq!(
        one_error(&format!(
            "{}[queue]\nkind = \"dqm\"\n",
            base_with("rate = 1e6", "rate = 1e6")
        )),
        "queue.kind: \"dqm\" runs at the access point of an infrastructure WLAN: it needs \
         topology.kind = \"bss\""
    );
}
