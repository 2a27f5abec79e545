//! TFRC and TFRC-ECN from scenario files: `kind = "tfrc"`, `ecn` and `[queue] ecn_mark`
//! reach the core, runs are deterministic and conserve packets.

use airqueue_scenario::api::{run_json, run_value, Run};
use airqueue_scenario::parse::toml_to_json;
use airqueue_sim::{FlowId, TfrcFlowStats};
use serde_json::Value;

/// Flow 0's TFRC counters, from the run's transport report.
fn tfrc_stats(run: &Run) -> &TfrcFlowStats {
    (run.outcome.transports.stats(FlowId(0))).expect("a TFRC flow")
}

fn chain(ecn: bool, mark: &str) -> String {
    format!(
        r#"
    name = "tfrc-chain"
    duration = 15.0
    [topology]
    kind = "chain"
    nodes = 4
    spacing = 200.0
    [queue]
    capacity = 50
    {mark}
    [[flow]]
    kind = "tfrc"
    ecn = {ecn}
    src = 0
    dst = 3
    packet_size = 1000
"#
    )
}

/// The JSON report (`ok`, `summary`, `tables`) of a run of the TOML scenario `text`.
fn report(text: &str) -> Value {
    let json = toml_to_json(text).unwrap().to_string();
    serde_json::from_str(&run_json(&json, None, None)).unwrap()
}

#[test]
fn a_tfrc_ecn_flow_from_a_file_runs_deterministically_and_is_marked() {
    let a = report(&chain(true, "ecn_mark = 0.75"));
    let b = report(&chain(true, "ecn_mark = 0.75"));
    assert_eq!(a["ok"], true, "{a}");
    assert_eq!(a["summary"]["flows"], b["summary"]["flows"]);
    assert_eq!(a["summary"]["events"], b["summary"]["events"]);
    assert_eq!(a["summary"]["conservation"]["holds"], true);
    let flow = &a["summary"]["flows"][0];
    assert_eq!(flow["kind"], "tfrc");
    let g = flow["goodput_bps"].as_f64().unwrap();
    assert!(g > 0.5e6 && g < 3.0e6, "{g}");

    let run = run_value(
        toml_to_json(&chain(true, "ecn_mark = 0.75")).unwrap(),
        None,
        None,
    )
    .unwrap();
    let t = tfrc_stats(&run);
    assert!(t.ecn);
    assert!(t.receiver.ce_received > 0, "{t:?}");
    assert!(t.receiver.loss_events > 0 && t.p > 0.0, "{t:?}");
}

#[test]
fn without_marking_tfrc_ecn_sees_no_marks_and_plain_tfrc_sees_losses() {
    let run = run_value(toml_to_json(&chain(true, "")).unwrap(), None, None).unwrap();
    let t = tfrc_stats(&run);
    assert_eq!(t.receiver.ce_received, 0);
    assert_eq!(t.receiver.loss_events, 0);
    let run = run_value(toml_to_json(&chain(false, "")).unwrap(), None, None).unwrap();
    let t = tfrc_stats(&run);
    assert!(!t.ecn && t.receiver.loss_events > 0, "{t:?}");
    assert!(run.outcome.conservation.holds());
}

/// TFRC's allowed rate X appears in the `rates` table per bin, in bit/s, without a queue.
#[test]
fn tfrc_reports_its_allowed_rate_per_bin() {
    let a = report(&chain(true, "ecn_mark = 0.75"));
    let rates = &a["tables"]["rates"];
    let n = rates["t_s"].as_array().unwrap().len();
    assert_eq!(n, 15, "one sample per 1 s bin over 15 s");
    assert!(rates["kind"]
        .as_array()
        .unwrap()
        .iter()
        .all(|k| k == "tfrc"));
    assert!(rates["source_queue_pkts"]
        .as_array()
        .unwrap()
        .iter()
        .all(Value::is_null));
    // The last sample is the sender's final X, which the tfrc table reports too.
    let last = rates["rate_bps"][n - 1].as_f64().unwrap();
    let fin = a["tables"]["tfrc"]["rate_bps"][0].as_f64().unwrap();
    assert!((last - fin).abs() <= 1e-9 * fin.max(1.0), "{last} vs {fin}");
}
