//! The summary's `diffq_overflows` (seed 000, section 6.4's ablation diagnostic): every
//! overflow of a DiffQ relay's destination queue is counted once, split into the first
//! relay and deeper ones, with the two ends' levels and the sender's staleness; each
//! histogram sums to its drops. Without DiffQ queues the key is absent.

use airqueue_scenario::api::run_json;
use airqueue_scenario::parse::toml_to_json;
use serde_json::Value;

/// Saturating UDP flows on the random mesh of `diffq-single-path`, with `switches` in
/// `[diffq]` (the ablation's variants); DiffQ-UDP when the queue is DiffQ's.
fn mesh(switches: &str, queue: &str) -> String {
    let cc = if queue.contains("diffq") {
        "cc = \"diffq\""
    } else {
        ""
    };
    format!(
        r#"
        name = "diffq-overflows"
        duration = 20.0
        seed = 3
        [topology]
        kind = "random"
        nodes = 46
        area = [900.0, 900.0]
        connected = true
        [radio]
        data_rate = 11e6
        [mac]
        kind = "edca"
        levels = "diffq8"
        short_retry_limit = 11
        [routing]
        kind = "static"
        metric = "etx"
        [queue]
        {queue}
        [flows]
        random = 16
        kind = "udp"
        rate = "saturate"
        {cc}
        packet_size = 1400
        start = [0.0, 1.0]
        [diffq]
        queue_threshold = 10
        {switches}
        "#
    )
}

fn run(text: &str) -> Value {
    let v = toml_to_json(text).expect("scenario parses");
    let out: Value = serde_json::from_str(&run_json(&v.to_string(), None, None)).unwrap();
    assert_eq!(out["ok"], true, "{out}");
    out
}

/// Overflow drops of flows' packets at nodes that did not create them, from the
/// `flow_drops` table.
fn relay_overflows(out: &Value) -> u64 {
    let t = &out["tables"]["flow_drops"];
    let n = t["reason"].as_array().unwrap().len();
    (0..n)
        .filter(|&i| t["reason"][i] == "queue_overflow" && t["at_origin"][i] == 0)
        .map(|i| t["packets"][i].as_u64().unwrap())
        .sum()
}

fn total(v: &Value) -> u64 {
    match v {
        Value::Array(a) => a.iter().map(|x| x.as_u64().unwrap()).sum(),
        Value::Object(o) => o.values().map(|x| x.as_u64().unwrap()).sum(),
        _ => unreachable!(),
    }
}

#[test]
fn every_relay_overflow_is_counted_once_with_both_ends_levels() {
    let queue = "kind = \"diffq\"\ncapacity = 1840\nper_dest_capacity = 40";
    for switches in ["", "scheduling = false\nmac_priority = false"] {
        let out = run(&mesh(switches, queue));
        let o = &out["summary"]["diffq_overflows"];
        let (first, deeper) = (&o["first_relay"], &o["deeper"]);
        let drops = first["drops"].as_u64().unwrap() + deeper["drops"].as_u64().unwrap();
        eprintln!("[{switches}] {o}");
        assert!(drops > 0, "the mesh overflows relays: {o}");
        assert_eq!(drops, relay_overflows(&out));
        for side in [first, deeper] {
            let d = side["drops"].as_u64().unwrap();
            assert_eq!(total(&side["sender_level"]), d);
            assert_eq!(total(&side["receiver_level"]), d);
            assert_eq!(total(&side["stale_by"]), d);
        }
        if switches.contains("mac_priority = false") {
            // Without MAC priorities every frame goes at level 0.
            assert_eq!(first["sender_level"][0], first["drops"]);
        }
    }
}

#[test]
fn other_queues_report_no_diffq_overflows() {
    let out = run(&mesh("", "kind = \"droptail\"\ncapacity = 199"));
    assert!(relay_overflows(&out) > 0);
    assert!(out["summary"].get("diffq_overflows").is_none());
}

/// `[diffq] source_queue = "first_relay"` (a counterfactual oracle): sources whose rate
/// rule also reads their next hop's queue for the destination stop overfilling it, so
/// first relays overflow less; "own", the default, is the paper's rule and the same bits
/// as leaving the key out.
#[test]
fn sources_that_read_the_first_relay_overflow_it_less() {
    let queue = "kind = \"diffq\"\ncapacity = 1840\nper_dest_capacity = 40";
    let first_relay_drops = |out: &Value| {
        out["summary"]["diffq_overflows"]["first_relay"]["drops"]
            .as_u64()
            .unwrap()
    };
    let default = run(&mesh("", queue));
    let own = run(&mesh("source_queue = \"own\"", queue));
    assert_eq!(own["summary"]["events"], default["summary"]["events"]);
    assert_eq!(own["summary"]["flows"], default["summary"]["flows"]);
    assert_eq!(own["tables"]["flow_drops"], default["tables"]["flow_drops"]);
    let oracle = run(&mesh("source_queue = \"first_relay\"", queue));
    let (before, after) = (first_relay_drops(&default), first_relay_drops(&oracle));
    eprintln!("first-relay overflows: own {before}, first_relay {after}");
    assert!(
        before > 0 && after * 2 < before,
        "own {before}, first_relay {after}"
    );
}
