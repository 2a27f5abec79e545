//! `[queue]` of the registered kinds ("codel", "fq_codel"): keys read from each scheme's
//! declaration, with the same messages as the built-in kinds' keys.

use super::tests::{errors, ok, one_error, BASE};
use super::toml_to_json;
use crate::build::world_config;
use crate::topology::validate_and_place;
use airqueue_kernel::Time;
use airqueue_sim::qdisc::registry;

fn with_queue(queue: &str) -> String {
    format!("{BASE}[queue]\n{queue}\n")
}

#[test]
fn codel_defaults_come_from_its_module() {
    let s = ok(&with_queue("kind = \"codel\""));
    let codel = registry::scheme("codel").unwrap();
    assert_eq!(s.queue.kind, codel);
    assert_eq!(s.queue.capacity_pkts, codel.default_capacity_pkts);
    let p = s.queue.params;
    assert_eq!(p.seconds("target"), Time::from_millis(5));
    assert_eq!(p.seconds("interval"), Time::from_millis(100));
    assert!(!p.flag("ecn"));
}

#[test]
fn every_key_reaches_the_world() {
    let text = with_queue(
        "kind = \"fq_codel\"\ncapacity = 500\ntarget = 0.01\ninterval = 0.2\nmtu = 1000\n\
         ecn = false\nflows = 64\nquantum = 300",
    );
    let (s, pos) = validate_and_place(&toml_to_json(&text).unwrap()).unwrap();
    let r = world_config(&s, &pos).qdisc;
    assert_eq!(r.scheme.name, "fq_codel");
    let p = r.params;
    assert_eq!(p.capacity_pkts, 500);
    assert_eq!(
        (p.seconds("target"), p.seconds("interval")),
        (Time::from_millis(10), Time::from_millis(200))
    );
    assert_eq!(
        (p.integer("mtu"), p.integer("flows"), p.integer("quantum")),
        (1000, 64, 300)
    );
    assert!(!p.flag("ecn"));
}

#[test]
fn out_of_range_values_name_the_key_and_the_range() {
    assert_eq!(
        one_error(&with_queue("kind = \"codel\"\ntarget = 0")),
        "queue.target: expected a number of seconds in (0, 10], got 0"
    );
    assert_eq!(
        one_error(&with_queue("kind = \"fq_codel\"\nflows = 0")),
        "queue.flows: expected an integer in 1..=65536, got 0"
    );
    assert_eq!(
        one_error(&with_queue("kind = \"codel\"\necn = 1")),
        "queue.ecn: expected true or false, got 1"
    );
}

#[test]
fn keys_of_other_kinds_are_refused_with_the_kinds_that_take_them() {
    assert_eq!(
        one_error(&with_queue("kind = \"droptail\"\ntarget = 0.01")),
        "queue.target: not used by kind \"droptail\"; target applies only to kinds codel, \
         fq_codel"
    );
    assert_eq!(
        one_error(&with_queue("kind = \"codel\"\nquantum = 300")),
        "queue.quantum: not used by kind \"codel\"; quantum applies only to kind fq_codel"
    );
    // "ecn" is shared with RED and PI.
    assert!(ok(&with_queue("kind = \"codel\"\necn = true"))
        .queue
        .params
        .flag("ecn"));
}

#[test]
fn checks_between_keys_run_and_misspellings_are_caught() {
    assert_eq!(
        one_error(&with_queue(
            "kind = \"fq_codel\"\ncapacity = 10\nflows = 20"
        )),
        "queue.flows: must be at most capacity (10 packets), got 20: every flow queue needs \
         room for a packet"
    );
    let e = errors(&with_queue("kind = \"codel\"\ntargt = 0.01"));
    assert_eq!(e, ["queue.targt: unknown key; did you mean \"target\"?"]);
    let e = one_error(&with_queue("kind = \"codle\""));
    assert!(
        e.starts_with("queue.kind: unknown kind \"codle\"; did you mean \"codel\"?"),
        "{e}"
    );
}

#[test]
fn the_resolved_scenario_shows_the_scheme_s_keys_in_their_types() {
    let s = ok(&with_queue("kind = \"fq_codel\"\nflows = 16"));
    let v = serde_json::to_value(&s.queue).unwrap();
    assert_eq!(v["kind"], "fq_codel");
    assert_eq!(v["flows"], 16);
    assert_eq!(v["target"], 0.005);
    assert_eq!(v["ecn"], true);
}

#[test]
fn droptail_s_ecn_mark_is_null_when_off_and_reaches_the_world() {
    let v = serde_json::to_value(&ok(&with_queue("kind = \"droptail\"")).queue).unwrap();
    assert_eq!(
        (v["kind"].as_str(), v["ecn_mark"].is_null()),
        (Some("droptail"), true)
    );
    let text = with_queue("capacity = 20\necn_mark = 0.75");
    let (s, pos) = validate_and_place(&toml_to_json(&text).unwrap()).unwrap();
    assert_eq!(serde_json::to_value(&s.queue).unwrap()["ecn_mark"], 0.75);
    let r = world_config(&s, &pos).qdisc;
    assert_eq!(r, airqueue_sim::qdisc::droptail::config(20, Some(0.75)));
}
