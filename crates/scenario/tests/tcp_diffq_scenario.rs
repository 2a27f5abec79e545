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
    // Three hops of 11 Mb/s 802.11b: well under one hop's capacity, well above nothing.
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

/// A 3-hop chain with DiffQ's queues and EDCA levels; tests append their sections.
const DIFFQ_CHAIN: &str = r#"
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
"#;

#[test]
fn diffq_tcp_and_diffq_udp_run_from_a_file() {
    let text = DIFFQ_CHAIN.to_string()
        + r#"
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
    let run = run_value(toml_to_json(&text).unwrap(), None, None).unwrap();
    assert!(
        run.outcome.conservation.holds(),
        "{:?}",
        run.outcome.conservation
    );
    for (i, f) in run.outcome.metrics.flows.iter().enumerate() {
        assert!(f.goodput_bps() > 100e3, "flow {i}: {}", f.goodput_bps());
    }
    assert!(
        run.outcome.rate_control.iter().all(Option::is_some),
        "both flows are DiffQ-paced"
    );
}

/// The `rates` table: one row per paced flow per bin boundary from its start, in bit/s,
/// with the destination queue DiffQ's controller reads (seed 000, 4.1), bounded by the
/// controller's limits and by `D`.
#[test]
fn the_rates_table_traces_each_diffq_source_per_bin() {
    let text = DIFFQ_CHAIN.to_string()
        + r#"
        [diffq]
        min_rate = 20e3
        max_rate = 5e6
        [[flow]]
        src = 1
        dst = 3
        kind = "udp"
        rate = "saturate"
        cc = "diffq"
        packet_size = 1400
        [[flow]]
        src = 2
        dst = 0
        start = 4.0
        kind = "udp"
        rate = "saturate"
        cc = "diffq"
        packet_size = 1000
    "#;
    let json = toml_to_json(&text).unwrap().to_string();
    let a: Value = serde_json::from_str(&run_json(&json, None, None)).unwrap();
    assert_eq!(a["ok"], true, "{a}");
    let rates = &a["tables"]["rates"];
    let col = |name: &str| rates[name].as_array().unwrap().clone();
    let (flow, t, kind, rate, queue) = (
        col("flow"),
        col("t_s"),
        col("kind"),
        col("rate_bps"),
        col("source_queue_pkts"),
    );
    for f in [0u64, 1] {
        let times: Vec<f64> = (0..flow.len())
            .filter(|&i| flow[i].as_u64() == Some(f))
            .map(|i| t[i].as_f64().unwrap())
            .collect();
        // Bins of 1 s; flow 1 starts at 4 s.
        let first = if f == 0 { 1.0 } else { 4.0 };
        let expected: Vec<f64> = (0..)
            .map(|k| first + k as f64)
            .take_while(|x| *x <= 10.0)
            .collect();
        assert_eq!(times, expected, "flow {f}");
    }
    assert!(kind.iter().all(|k| k == "diffq"), "{kind:?}");
    let rates_bps: Vec<f64> = rate.iter().map(|r| r.as_f64().unwrap()).collect();
    assert!(
        rates_bps.iter().all(|r| (20e3..=5e6).contains(r)),
        "{rates_bps:?}"
    );
    assert!(queue.iter().all(|q| q.as_u64().unwrap() <= 40), "{queue:?}");
    // Units: a paced source sends at its rate, so the mean of the samples is not below
    // what the flow delivers by a factor anywhere near 8 (bytes against bits).
    let goodput = a["summary"]["flows"][0]["goodput_bps"].as_f64().unwrap();
    let own: Vec<f64> = (0..flow.len())
        .filter(|&i| flow[i].as_u64() == Some(0))
        .map(|i| rates_bps[i])
        .collect();
    let mean = own.iter().sum::<f64>() / own.len() as f64;
    assert!(
        mean > 0.5 * goodput,
        "mean rate {mean} against goodput {goodput}"
    );
}

/// DiffQ's two rate clocks (seed 000, 4.1; `transport/diffq.rs`) on one idle hop, where
/// the source's queue stays under the threshold and the rate only rises. From 10 kb/s:
/// every 10 ms the rate gains 10 kb/s whether or not a packet left, so after 1 s it is
/// 1.01 Mb/s and the source has sent about `integral of r dt / 11 200 b` = 46 packets;
/// once per packet, each packet adds one step and the next waits `11 200 b / r`: packets
/// at 0, 0.56, 0.93, 1.21, ... s, 8 in 2 s, 40 kb/s at 1 s and 90 kb/s at 2 s. A rise
/// re-times the pending tick: the interval clock's source does not wait out the 1.12 s
/// its second packet was first due after.
#[test]
fn the_interval_clock_raises_the_rate_in_time_and_the_packet_clock_per_packet() {
    let run = |clock: &str| {
        let text = "duration = 2.0\n".to_string()
            + &DIFFQ_CHAIN.replacen("duration = 10.0", "", 1)
            + &format!(
                r#"
        [outputs]
        bin = 0.5
        [diffq]
        rate_update = "{clock}"
        initial_rate = 10e3
        [[flow]]
        src = 0
        dst = 1
        kind = "udp"
        rate = "saturate"
        cc = "diffq"
        packet_size = 1400
    "#
            );
        let json = toml_to_json(&text).unwrap().to_string();
        let a: Value = serde_json::from_str(&run_json(&json, None, None)).unwrap();
        assert_eq!(a["ok"], true, "{a}");
        let rates = &a["tables"]["rates"];
        let rate_at = |t: f64| {
            let ts = rates["t_s"].as_array().unwrap();
            let i = ts.iter().position(|x| x.as_f64() == Some(t)).unwrap();
            rates["rate_bps"][i].as_f64().unwrap()
        };
        let sent = a["summary"]["flows"][0]["packets_sent"].as_u64().unwrap();
        (rate_at(1.0), rate_at(2.0), sent)
    };
    let (r1, r2, sent) = run("interval");
    // 100 updates by 1 s (the one at 1 s may fall either side of the sample).
    assert!((1.0e6..=1.01e6).contains(&r1), "{r1}");
    assert!((2.0e6..=2.01e6).contains(&r2), "{r2}");
    // Integral of (10 kb/s + 1 Mb/s per s * t) over 2 s, in 1400-byte packets: 180.
    assert!((170..=185).contains(&sent), "{sent}");
    let (r1, r2, sent) = run("packet");
    assert_eq!((r1, r2, sent), (40e3, 90e3, 8));
}

/// `[tcp] initial_rto` (RFC 6298 (2.1)) times the first segment until an RTT sample
/// exists: over a link that loses all but one frame in a million the timeouts come at 1,
/// 3 and 7 s with the default 1 s, and at 3 and 9 s with RFC 2988's 3 s (each backed
/// off twice as long).
#[test]
fn the_initial_rto_spaces_the_timeouts_before_the_first_rtt_sample() {
    let timeouts = |tcp_section: &str| {
        let toml = format!(
            "duration = 10.0\n[topology]\nkind = \"chain\"\nnodes = 2\nspacing = 100.0\n\
             {tcp_section}[[link]]\na = 0\nb = 1\nloss = 0.999999\n[[flow]]\nkind = \"tcp\"\nsrc = 0\ndst = 1\nvariant = \"sack\"\n"
        );
        let text = toml_to_json(&toml).unwrap().to_string();
        let out: Value = serde_json::from_str(&run_json(&text, None, None)).unwrap();
        assert_eq!(out["ok"], true, "{out}");
        assert_eq!(out["summary"]["flows"][0]["goodput_bps"], 0.0);
        out["tables"]["tcp"]["timeouts"][0].as_u64().unwrap()
    };
    assert_eq!(timeouts(""), 3);
    assert_eq!(timeouts("[tcp]\ninitial_rto = 3.0\n"), 2);
    assert_eq!(timeouts("[tcp]\ninitial_rto = 20.0\n"), 0);
}
