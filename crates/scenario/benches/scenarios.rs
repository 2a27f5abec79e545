//! Whole-scenario benchmarks: events per second and simulated seconds per wall second.
//!
//! Each scenario is run once to count its events, then timed by criterion with that count
//! as throughput, so criterion's "elem/s" is events per second; the probe run also prints
//! simulated seconds per wall second. Scenarios:
//! - `star20`, `star50`: 20 / 50 saturated 802.11b stations around an AP;
//! - `mesh46`: 46 nodes placed at random in 1 km^2 (paths up to 6-7 hops), 32 CBR flows
//!   between random pairs, static routing;
//! - `mesh46-diffq`: the same mesh and flows under DiffQ (seed 000): per-destination
//!   queues, the eight-level EDCA table, and every source paced by DiffQ's rate control;
//! - `mesh46-more`, `mesh46-more-user-space`: the same mesh and flows as MORE flows
//!   (seed 000, section 2): coded broadcasts from drop-tail queues, ETX routes for the
//!   batch ACKs; the second with each node's user-space process (6 ms per packet made,
//!   1 ms per packet received: the costs `diffq-more` fits to Table 2);
//! - `chain-wired`: the bundled wired example;
//! - `grid-backpressure`: seed 002's setting on a 4x3 grid (200 m spacing, so only
//!   row and column neighbours hear each other): four coded TCP-SACK flows from the
//!   corner node under TCP-aware backpressure with its defaults (measured link
//!   estimates, control packets), as `bp-grid` runs them.
//!
//! Scale scenarios (issue 20), files in `benches/scenarios/`, run here for a part of
//! their duration (`airqueue run FILE --json` runs them whole):
//! - `mesh1000`, `mesh1000-olsr`, `mesh1000-aodv`: 1,000 random nodes in 4.2 x 4.2 km
//!   (seed 000's density), 200 random CBR flows of 100 kb/s over 1-6 hops, with static
//!   routes, OLSR-ETX and AODV;
//! - `chain10000`: the largest topology, a 10,000-node chain with one flow: mostly setup
//!   (static routes towards the destinations in use, the channel's hearer lists).

use airqueue_kernel::{RngStream, StreamKey};
use airqueue_scenario::api::run_value;
use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use serde_json::{json, Value};
use std::path::Path;

/// A scale scenario of `benches/scenarios/`, cut to `duration_s` simulated seconds.
fn scale(name: &str, duration_s: f64) -> Value {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("benches/scenarios")
        .join(name);
    let text = std::fs::read_to_string(&path).expect("bench scenario");
    let mut v = airqueue_scenario::parse::toml_to_json(&text).expect("bench scenario parses");
    v["duration"] = json!(duration_s);
    v
}

fn example(name: &str) -> Value {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../examples")
        .join(name);
    let text = std::fs::read_to_string(&path).expect("bundled example");
    airqueue_scenario::parse::toml_to_json(&text).expect("example parses")
}

fn star(stations: u32, duration_s: f64) -> Value {
    let flows: Vec<Value> = (1..=stations)
        .map(|s| json!({"kind": "udp", "src": s, "dst": 0, "rate": "saturate"}))
        .collect();
    json!({
        "name": format!("star{stations}"),
        "duration": duration_s,
        "topology": {"kind": "star", "nodes": stations + 1, "radius": 5.0},
        "flow": flows,
    })
}

fn mesh46(duration_s: f64) -> Value {
    let mut rng = RngStream::new(StreamKey::new(1, StreamKey::GLOBAL, "bench.flows"));
    let mut flows = Vec::new();
    while flows.len() < 32 {
        let (s, d) = (rng.index(46), rng.index(46));
        if s != d {
            flows.push(
                json!({"kind": "udp", "src": s, "dst": d, "rate": 100e3, "packet_size": 1000}),
            );
        }
    }
    json!({
        "name": "mesh46",
        "duration": duration_s,
        "topology": {"kind": "random", "nodes": 46, "area": [1000.0, 1000.0]},
        "flow": flows,
    })
}

/// The same scenario under DiffQ: DiffQ queues (D = 40), EDCA with DiffQ's levels, and
/// saturating sources paced by DiffQ's rate control instead of CBR.
fn diffq(mut v: Value) -> Value {
    v["name"] = json!("mesh46-diffq");
    v["mac"] = json!({"kind": "edca", "levels": "diffq8"});
    v["queue"] = json!({"kind": "diffq", "per_dest_capacity": 40});
    for f in v["flow"].as_array_mut().expect("flow list") {
        f["rate"] = json!("saturate");
        f["cc"] = json!("diffq");
    }
    v
}

/// The same scenario's flows as MORE flows (static ETX routes for the batch ACKs), with
/// the user-space process's costs `costs_s` (send, receive) if any.
fn more(mut v: Value, costs_s: Option<(f64, f64)>) -> Value {
    v["name"] = json!("mesh46-more");
    v["routing"] = json!({"kind": "static", "metric": "etx"});
    for f in v["flow"].as_array_mut().expect("flow list") {
        let (src, dst) = (f["src"].clone(), f["dst"].clone());
        *f = json!({"kind": "more", "src": src, "dst": dst, "packet_size": 1400});
        if let Some((send, receive)) = costs_s {
            f["send_cost"] = json!(send);
            f["receive_cost"] = json!(receive);
        }
    }
    v
}

/// The same scenario with seed 002's network-coding layer on every TCP flow.
fn coded(mut v: Value) -> Value {
    v["tcp"]["network_coding"] = json!(true);
    v
}

/// Seed 002's grid in small (after `python/airqueue/reproduce/bp_grid.py`): 802.11b at
/// 2 Mb/s (control frames at 1 Mb/s), TCP-aware backpressure with 100-packet buffers,
/// four TCP-SACK flows with the network-coding layer from node 0 to nodes 3, 6, 8 and 11
/// (one to five hops), starting half a second apart.
fn grid_backpressure(duration_s: f64) -> Value {
    let flows: Vec<Value> = [3, 6, 8, 11]
        .iter()
        .enumerate()
        .map(|(i, &dst)| {
            json!({"kind": "tcp", "variant": "sack", "src": 0, "dst": dst,
                   "packet_size": 1000, "start": 0.5 * i as f64})
        })
        .collect();
    json!({
        "name": "grid-backpressure",
        "duration": duration_s,
        "topology": {"kind": "grid", "rows": 3, "cols": 4, "spacing": 200.0},
        "radio": {"data_rate": 2e6, "basic_rate": 1e6},
        "queue": {"kind": "backpressure", "variant": "tcp_aware", "capacity": 100},
        "tcp": {"network_coding": true, "coding_block": 32},
        "flow": flows,
    })
}

fn scenarios(c: &mut Criterion) {
    let mut g = c.benchmark_group("scenario");
    g.sample_size(10);
    let cases = [
        ("star20", star(20, 20.0)),
        ("star50", star(50, 20.0)),
        ("mesh46", mesh46(30.0)),
        ("mesh46-diffq", diffq(mesh46(30.0))),
        ("mesh46-more", more(mesh46(30.0), None)),
        (
            "mesh46-more-user-space",
            more(mesh46(30.0), Some((0.006, 0.001))),
        ),
        ("chain-wired", example("chain-udp.toml")),
        ("tcp-chain", example("tcp-chain.toml")),
        ("tcp-chain-coded", coded(example("tcp-chain.toml"))),
        ("grid-backpressure", grid_backpressure(60.0)),
        ("mesh1000", scale("mesh1000.toml", 10.0)),
        ("mesh1000-olsr", scale("mesh1000-olsr.toml", 10.0)),
        ("mesh1000-aodv", scale("mesh1000-aodv.toml", 10.0)),
        ("chain10000", scale("chain10000.toml", 10.0)),
    ];
    for (name, v) in cases {
        let probe = run_value(v.clone(), None, None).expect("benchmark scenario validates");
        let sim_s = probe.outcome.simulated.as_secs_f64();
        let goodput: f64 = probe
            .outcome
            .metrics
            .flows
            .iter()
            .map(|f| f.goodput_bps())
            .sum();
        eprintln!(
            "{name}: {} events in {:.3} s wall: {:.0} events/s, {:.1} simulated s per wall s, aggregate {:.3} Mb/s",
            probe.outcome.events,
            probe.wall_seconds,
            probe.outcome.events as f64 / probe.wall_seconds,
            sim_s / probe.wall_seconds,
            goodput / 1e6
        );
        g.throughput(Throughput::Elements(probe.outcome.events));
        g.bench_function(name, |b| {
            b.iter(|| {
                run_value(v.clone(), None, None)
                    .expect("runs")
                    .outcome
                    .events
            })
        });
    }
    g.finish();
}

criterion_group!(benches, scenarios);
criterion_main!(benches);
