//! TCP and DiffQ from scenario files: the keys reach the core, runs are deterministic and
//! conserve packets, and the reports carry the TCP tables.

use airqueue_scenario::api::{run_json, run_value};
use airqueue_scenario::parse::toml_to_json;
use serde_json::Value;

const CHAIN: &str = r#"
    name = "tcp-chain"
    duration = 10.0
    [topology]
    kind = "chain"
    nodes = 4
    spacing = 200.0
    [tcp]
    max_window = 32
    [[flow]]
    kind = "tcp"
    src = 0
    dst = 3
    variant = "sack"
    packet_size = 1000
"#;

#[test]
fn a_tcp_flow_from_a_file_runs_deterministically_and_reports_its_window() {
    let text = toml_to_json(CHAIN).unwrap().to_string();
    let a: Value = serde_json::from_str(&run_json(&text, None, None)).unwrap();
    let b: Value = serde_json::from_str(&run_json(&text, None, None)).unwrap();
    assert_eq!(a["ok"], true, "{a}");
    assert_eq!(a["summary"]["flows"], b["summary"]["flows"]);
    assert_eq!(a["summary"]["events"], b["summary"]["events"]);
    assert_eq!(a["summary"]["conservation"]["holds"], true);
    let flow = &a["summary"]["flows"][0];
    assert_eq!(flow["kind"], "tcp");
    // Three hops of 11 Mb/s 802.11b: well under one hop's ~3.4 Mb/s, well above nothing.
    let g = flow["goodput_bps"].as_f64().unwrap();
    assert!(g > 0.5e6 && g < 3.0e6, "{g}");
    let tcp = &a["tables"]["tcp"];
    assert_eq!(tcp["flow"], serde_json::json!([0]));
    assert!(tcp["cwnd_pkts"][0].as_f64().unwrap() <= 32.0);
    let trace = &a["tables"]["cwnd"];
    assert!(!trace["t_s"].as_array().unwrap().is_empty());
    // RTT samples appear in the per-bin trace once the first ACK is back.
    let srtt: Vec<f64> = trace["srtt_s"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(Value::as_f64)
        .collect();
    assert!(
        !srtt.is_empty() && srtt.iter().all(|r| *r > 0.0 && *r < 2.0),
        "{srtt:?}"
    );
}

#[test]
fn diffq_tcp_and_diffq_udp_run_from_a_file() {
    let text = r#"
        duration = 10.0
        [topology]
        kind = "chain"
        nodes = 4
        spacing = 200.0
        [mac]
        kind = "edca"
        levels = "diffq8"
        [queue]
        kind = "diffq"
        capacity = 100
        per_dest_capacity = 40
        [[flow]]
        kind = "tcp"
        variant = "sack"
        cc = "diffq"
        src = 0
        dst = 3
        packet_size = 1400
        [[flow]]
        kind = "udp"
        cc = "diffq"
        rate = "saturate"
        src = 3
        dst = 1
        packet_size = 1400
    "#;
    let run = run_value(toml_to_json(text).unwrap(), None, None).unwrap();
    assert!(
        run.outcome.conservation.holds(),
        "{:?}",
        run.outcome.conservation
    );
    for (i, f) in run.outcome.metrics.flows.iter().enumerate() {
        assert!(f.goodput_bps() > 100e3, "flow {i}: {}", f.goodput_bps());
    }
    assert!(
        run.outcome.diffq_rate.iter().all(Option::is_some),
        "both flows are DiffQ-paced"
    );
}
