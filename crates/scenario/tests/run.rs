//! End-to-end runs through the public entry point: bundled examples, determinism,
//! analytic goodput from a scenario file, and the summary's fixed keys.

use airqueue_scenario::api::{run_json, run_value};
use airqueue_scenario::parse::toml_to_json;
use serde_json::Value;
use std::path::Path;

fn example(name: &str) -> Value {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../examples")
        .join(name);
    toml_to_json(&std::fs::read_to_string(path).unwrap()).unwrap()
}

/// Drops the keys that measure the machine rather than the simulation.
fn strip_wall_clock(mut v: Value) -> Value {
    let s = v["summary"].as_object_mut().unwrap();
    s.remove("wall_seconds");
    s.remove("events_per_second");
    v
}

#[test]
fn every_bundled_example_runs_and_conserves_packets() {
    for entry in
        std::fs::read_dir(Path::new(env!("CARGO_MANIFEST_DIR")).join("../../examples")).unwrap()
    {
        let path = entry.unwrap().path();
        if path.extension().and_then(|e| e.to_str()) != Some("toml") {
            continue;
        }
        let v = toml_to_json(&std::fs::read_to_string(&path).unwrap()).unwrap();
        if v.get("base").is_some() {
            continue; // sweep files, not scenarios
        }
        let run = run_value(v, None, None).unwrap_or_else(|e| panic!("{}: {e:?}", path.display()));
        assert!(
            run.outcome.conservation.holds(),
            "{}: {:?}",
            path.display(),
            run.outcome.conservation
        );
        assert!(run.outcome.metrics.delivered > 0, "{}", path.display());
    }
}

#[test]
fn same_scenario_same_json_apart_from_wall_clock() {
    let text = example("random-mesh.toml").to_string();
    let a: Value = serde_json::from_str(&run_json(&text, None, Some(15.0))).unwrap();
    let b: Value = serde_json::from_str(&run_json(&text, None, Some(15.0))).unwrap();
    assert_eq!(a["ok"], true);
    assert_eq!(strip_wall_clock(a), strip_wall_clock(b));
}

#[test]
fn two_seeds_of_a_random_topology_place_nodes_differently() {
    let v = example("random-mesh.toml");
    let a = run_value(v.clone(), Some(1), Some(11.0)).unwrap();
    let b = run_value(v, Some(2), Some(11.0)).unwrap();
    assert_ne!(a.positions, b.positions);
    assert_eq!(a.scenario.seed, 1);
    assert_eq!(b.scenario.seed, 2);
}

#[test]
fn summary_has_the_fixed_keys_of_design_md() {
    let text = example("chain-udp.toml").to_string();
    let v: Value = serde_json::from_str(&run_json(&text, Some(3), Some(6.0))).unwrap();
    assert_eq!(v["ok"], true, "{v}");
    let s = &v["summary"];
    for key in [
        "name",
        "seed",
        "simulated_seconds",
        "wall_seconds",
        "events",
        "flows",
        "aggregate_goodput_bps",
        "jain_index",
        "log_utility",
        "starved_flows",
        "drops",
    ] {
        assert!(s.get(key).is_some(), "missing {key}");
    }
    assert_eq!(s["seed"], 3);
    assert_eq!(s["simulated_seconds"], 6.0);
    for key in [
        "id",
        "kind",
        "src",
        "dst",
        "goodput_bps",
        "packets_sent",
        "packets_delivered",
        "mean_delay_s",
    ] {
        assert!(s["flows"][0].get(key).is_some(), "missing flows[].{key}");
    }
    assert_eq!(s["conservation"]["holds"], true);
    for table in ["flows", "timeseries", "drops", "queues", "nodes"] {
        assert!(v["tables"][table].is_object(), "missing table {table}");
    }
}

#[test]
fn saturating_chain_from_a_file_gets_the_payload_share_of_the_link() {
    let text = r#"
        duration = 20.0
        [topology]
        kind = "chain"
        nodes = 4
        spacing = 200.0
        [medium]
        kind = "wired"
        bandwidth = 2e6
        delay = 0.0
        [[flow]]
        kind = "udp"
        src = 0
        dst = 3
        packet_size = 1472
        rate = "saturate"
    "#;
    let run = run_value(toml_to_json(text).unwrap(), None, None).unwrap();
    let analytic = 2e6 * 1472.0 / 1500.0;
    let got = run.outcome.metrics.flows[0].goodput_bps();
    // Three packets of pipeline fill over 20 s: 0.09% at most.
    assert!(
        (got - analytic).abs() / analytic < 1e-3,
        "{got} vs {analytic}"
    );
    assert_eq!(run.outcome.metrics.dropped, 0);
}

/// Goodput counts what the sink received inside the window (ns-3's PacketSink rule), not
/// what was created in it: with a full 1000-packet queue the delay (0.75 s) is 15% of the
/// 5-s window, and the link still delivers its payload share throughout.
#[test]
fn goodput_counts_deliveries_inside_the_window_whatever_the_delay() {
    let text = r#"
        duration = 6.0
        warmup = 1.0
        [topology]
        kind = "chain"
        nodes = 2
        spacing = 200.0
        [medium]
        kind = "wired"
        bandwidth = 11e6
        delay = 0.0
        [queue]
        kind = "droptail"
        capacity = 1000
        [[flow]]
        kind = "udp"
        src = 0
        dst = 1
        packet_size = 1000
        rate = 22e6
    "#;
    let run = run_value(toml_to_json(text).unwrap(), None, None).unwrap();
    let f = &run.outcome.metrics.flows[0];
    let tx_s = 1028.0 * 8.0 / 11e6;
    let analytic = 1000.0 * 8.0 / tx_s;
    let got = f.goodput_bps();
    // One packet's boundary effect at each end of the window: 0.02%.
    assert!(
        (got - analytic).abs() / analytic < 5e-4,
        "{got} vs {analytic}"
    );
    // The sender offered twice the link, so the created-in-window view is twice as large.
    assert!((f.sent_bps() / 22e6 - 1.0).abs() < 1e-3, "{}", f.sent_bps());
    // Every packet delivered in the window waited behind a full queue.
    let delay = f.mean_delay_s().unwrap();
    assert!((delay - 1000.0 * tx_s).abs() < 0.02, "{delay}");
    assert!(run.outcome.metrics.dropped > 0);
}

#[test]
fn invalid_scenarios_come_back_as_error_lists_not_panics() {
    for bad in [
        "not json",
        "[]",
        "{}",
        r#"{"duration": -1, "topology": {"kind": "ring"}}"#,
    ] {
        let v: Value = serde_json::from_str(&run_json(bad, None, None)).unwrap();
        assert_eq!(v["ok"], false, "{bad}");
        assert!(!v["errors"].as_array().unwrap().is_empty(), "{bad}");
    }
    let v: Value = serde_json::from_str(&run_json(
        r#"{"duration": -1, "topology": {"kind": "ring"}}"#,
        None,
        None,
    ))
    .unwrap();
    assert!(
        v["errors"].as_array().unwrap().len() >= 2,
        "all problems at once: {v}"
    );
}

#[test]
fn duration_override_clips_flow_stops() {
    let v = example("chain-udp.toml"); // flow[1] stops at 50 s
    let run = run_value(v, None, Some(20.0)).unwrap();
    assert_eq!(run.scenario.duration_s, 20.0);
    assert_eq!(run.scenario.flows[1].stop_s, 20.0);
}

/// A monitored run is sliced into `SLICES` steps of simulated time; slicing must not
/// change a bit of the report, and the monitor must end at the run's duration.
#[test]
fn monitored_runs_are_the_same_runs() {
    use airqueue_scenario::api::{run_json_monitored, Monitor};
    for name in [
        "diffq-mesh.toml",
        "tcp-chain.toml",
        "bss-dqm.toml",
        "olsr-mesh.toml",
    ] {
        let text = example(name).to_string();
        let plain: Value = serde_json::from_str(&run_json(&text, Some(3), Some(20.0))).unwrap();
        let monitor = Monitor::default();
        let watched: Value = serde_json::from_str(&run_json_monitored(
            &text,
            Some(3),
            Some(20.0),
            Some(&monitor),
        ))
        .unwrap();
        assert_eq!(plain["ok"], true, "{name}: {plain}");
        assert_eq!(strip_wall_clock(plain), strip_wall_clock(watched), "{name}");
        assert_eq!(monitor.duration().as_secs_f64(), 20.0, "{name}");
        assert_eq!(monitor.simulated(), monitor.duration(), "{name}");
    }
}

/// A stop request ends the run at the next slice with an `interrupted` report.
#[test]
fn a_stopped_run_reports_interrupted() {
    use airqueue_scenario::api::{run_json_monitored, Monitor};
    let monitor = Monitor::default();
    monitor.stop();
    let text = example("tcp-chain.toml").to_string();
    let r: Value =
        serde_json::from_str(&run_json_monitored(&text, None, None, Some(&monitor))).unwrap();
    assert_eq!(r["ok"], false);
    assert_eq!(r["interrupted"], true);
    let msg = r["errors"][0].as_str().unwrap();
    assert!(msg.starts_with("interrupted at 0.000 s of "), "{msg}");
    assert_eq!(monitor.simulated().as_nanos(), 0);
}
