//! Schemes supplied as code through `api::Extensions` (what the Python bindings use):
//! a discipline that copies the built-in one gives the same bits, a piggybacked report
//! reaches the neighbours' disciplines, a supplied controller paces a flow, and failures
//! stop the run with the supplier's message.

use airqueue_kernel::Time;
use airqueue_scenario::api::{run_json, run_json_extended, Extensions};
use airqueue_scenario::parse::toml_to_json;
use airqueue_sim::net::{DropReason, Packet, Report};
use airqueue_sim::qdisc::codel::CodelParams;
use airqueue_sim::qdisc::{
    Codel, CodelConfig, Dequeued, DropTail, Qdisc, QueueCounters, QueueDiscipline, Queued, Routes,
};
use airqueue_sim::transport::{RateController, RateUpdate};
use airqueue_sim::{FlowId, NodeId};
use serde_json::Value;
use std::path::Path;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;

fn scenario(name: &str) -> String {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../examples")
        .join(name);
    toml_to_json(&std::fs::read_to_string(path).unwrap())
        .unwrap()
        .to_string()
}

fn without_wall_clock(report: &str) -> Value {
    let mut v: Value = serde_json::from_str(report).unwrap();
    let s = v["summary"].as_object_mut().unwrap();
    s.remove("wall_seconds");
    s.remove("events_per_second");
    v
}

/// Built-in drop-tail, or a FIFO that writes its length as the report and counts the
/// reports it hears.
#[derive(Debug)]
struct Reporting {
    fifo: DropTail,
    heard: Arc<AtomicU64>,
}

impl QueueDiscipline for Reporting {
    fn enqueue(&mut self, q: Queued, _now: Time) -> Result<(), (Queued, DropReason)> {
        self.fifo.enqueue(q)
    }
    fn dequeue(&mut self, _routes: &dyn Routes, _now: Time) -> Option<Dequeued> {
        let mut d = self.fifo.dequeue()?;
        d.pkt.report = Report::new(self.fifo.len() as u32);
        Some(d)
    }
    fn len(&self) -> usize {
        self.fifo.len()
    }
    fn has_room(&self, _: NodeId, _: NodeId, _: NodeId, _: bool) -> bool {
        self.fifo.has_room()
    }
    fn counters(&self) -> QueueCounters {
        self.fifo.counters()
    }
    fn on_report(&mut self, _from: NodeId, pkt: &Packet, _now: Time) -> bool {
        if pkt.report.is_some() {
            self.heard.fetch_add(1, Ordering::Relaxed);
        }
        false
    }
}

#[derive(Debug)]
struct Constant(f64);

impl RateController for Constant {
    fn rate_bps(&self) -> f64 {
        self.0
    }
    fn update_clock(&self) -> RateUpdate {
        RateUpdate::Every(Time::from_millis(100))
    }
    fn on_update(&mut self, _queue: usize, _may_rise: bool) -> f64 {
        self.0
    }
}

#[derive(Default)]
struct Supplied {
    report: bool,
    /// CoDel with RFC 8289's defaults instead of drop-tail.
    codel: bool,
    rate_bps: Option<f64>,
    fail_after_steps: Option<u32>,
    steps: u32,
    heard: Arc<AtomicU64>,
    asked: Vec<(u32, u32)>,
}

impl Extensions for Supplied {
    fn queue(&mut self, node: NodeId, capacity_pkts: u32) -> Option<Result<Qdisc, String>> {
        self.asked.push((node.0, capacity_pkts));
        let fifo = DropTail::new(capacity_pkts as usize);
        if self.codel {
            let params = CodelParams {
                target: Time::from_millis(5),
                interval: Time::from_millis(100),
                mtu_bytes: 1500,
                ecn: false,
            };
            return Some(Ok(Box::new(Codel::new(CodelConfig {
                capacity_pkts,
                params,
            }))));
        }
        Some(Ok(if self.report {
            Box::new(Reporting {
                fifo,
                heard: Arc::clone(&self.heard),
            })
        } else {
            Box::new(fifo)
        }))
    }
    fn rate(
        &mut self,
        _flow: FlowId,
        _src: NodeId,
        _dst: NodeId,
    ) -> Option<Result<Box<dyn RateController>, String>> {
        self.rate_bps
            .map(|r| Ok(Box::new(Constant(r)) as Box<dyn RateController>))
    }
    fn failure(&mut self) -> Option<String> {
        self.steps += 1;
        match self.fail_after_steps {
            Some(n) if self.steps > n => Some("supplied code failed at node 3".into()),
            _ => None,
        }
    }
}

fn extended(json: &str, duration_s: f64, ext: &mut Supplied) -> String {
    run_json_extended(json, None, Some(duration_s), None, None, ext)
}

#[test]
fn a_supplied_copy_of_drop_tail_gives_the_same_bits() {
    let json = scenario("star-wifi.toml");
    let mut ext = Supplied::default();
    let ours = without_wall_clock(&extended(&json, 1.0, &mut ext));
    let builtin = without_wall_clock(&run_json(&json, None, Some(1.0)));
    assert_eq!(ours["summary"], builtin["summary"]);
    assert_eq!(ours["tables"]["flows"], builtin["tables"]["flows"]);
    // Every radio node was asked, with the scenario's queue.capacity.
    assert_eq!(ext.asked, (0..21).map(|n| (n, 50)).collect::<Vec<_>>());
}

/// A supplied discipline that drops at the head (installed after the world is built)
/// has its head drops taken and counted as the registered one's are.
#[test]
fn a_supplied_codel_gives_the_bits_of_the_registered_one() {
    let json = scenario("star-wifi.toml");
    let mut ext = Supplied {
        codel: true,
        ..Supplied::default()
    };
    let ours = without_wall_clock(&extended(&json, 3.0, &mut ext));
    let mut registered: Value = serde_json::from_str(&json).unwrap();
    registered["queue"]["kind"] = "codel".into();
    // The capacity the supplied one is built with (CoDel's own default is larger).
    registered["queue"]["capacity"] = ext.asked[0].1.into();
    let builtin = without_wall_clock(&run_json(&registered.to_string(), None, Some(3.0)));
    assert_eq!(ours["summary"], builtin["summary"]);
    assert_eq!(ours["tables"]["flows"], builtin["tables"]["flows"]);
    assert_eq!(ours["tables"]["drops"], builtin["tables"]["drops"]);
    let aqm_drops = builtin["tables"]["drops"]
        .to_string()
        .matches("aqm")
        .count();
    assert!(
        aqm_drops > 0,
        "no head drops: {}",
        builtin["tables"]["drops"]
    );
}

#[test]
fn reports_reach_the_neighbours_and_cost_their_bytes() {
    let json = scenario("tcp-chain.toml");
    let mut ext = Supplied {
        report: true,
        ..Supplied::default()
    };
    let ours = without_wall_clock(&extended(&json, 2.0, &mut ext));
    let plain = without_wall_clock(&extended(&json, 2.0, &mut Supplied::default()));
    assert_eq!(ours["ok"], true);
    assert!(ext.heard.load(Ordering::Relaxed) > 100);
    // Four more bytes per frame: the same transfer moves fewer segments.
    let delivered = |v: &Value| {
        v["summary"]["flows"][0]["packets_delivered"]
            .as_u64()
            .unwrap()
    };
    assert!(
        delivered(&ours) < delivered(&plain),
        "{} vs {}",
        delivered(&ours),
        delivered(&plain)
    );
}

const EXTERNAL: &str = r#"{
    "duration": 3.0, "warmup": 1.0,
    "topology": {"kind": "chain", "nodes": 3, "spacing": 200},
    "flow": [{"kind": "udp", "src": 0, "dst": 2, "rate": "saturate",
              "packet_size": 1000, "cc": "external"}]
}"#;

#[test]
fn a_supplied_controller_paces_its_flow() {
    let mut ext = Supplied {
        rate_bps: Some(200e3),
        ..Supplied::default()
    };
    let v: Value = serde_json::from_str(&extended(EXTERNAL, 3.0, &mut ext)).unwrap();
    let sent = v["summary"]["flows"][0]["sent_bps"].as_f64().unwrap();
    assert!((sent - 200e3).abs() < 2e3, "sent {sent} b/s");
}

#[test]
fn an_external_flow_without_a_controller_is_a_config_error() {
    let v: Value = serde_json::from_str(&run_json(EXTERNAL, None, None)).unwrap();
    assert_eq!(v["ok"], false);
    let msg = v["errors"][0].as_str().unwrap();
    assert!(
        msg.starts_with("flow[0].cc: \"external\" takes its rate controller"),
        "{msg}"
    );
}

#[test]
fn a_failure_of_supplied_code_stops_the_run_with_its_message() {
    let mut ext = Supplied {
        fail_after_steps: Some(10),
        ..Supplied::default()
    };
    let v: Value =
        serde_json::from_str(&extended(&scenario("star-wifi.toml"), 5.0, &mut ext)).unwrap();
    assert_eq!(v["ok"], false);
    assert_eq!(v["extension"], true);
    assert_eq!(v["errors"][0], "supplied code failed at node 3");
    // Checked once before the run and once per step: it stopped at the first failure.
    assert_eq!(ext.steps, 11);
}
