//! Whole-scenario benchmarks: events per second and simulated seconds per wall second.
//!
//! Each bundled example is run once to count its events, then timed by criterion with
//! that count as throughput, so criterion's "elem/s" is events per second. The
//! simulated-seconds-per-wall-second figure is printed alongside.

use airqueue_scenario::api::run_value;
use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use std::path::Path;

fn load(name: &str) -> serde_json::Value {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../examples")
        .join(name);
    let text = std::fs::read_to_string(&path).expect("bundled example");
    let v: toml::Value = toml::from_str(&text).expect("example parses");
    serde_json::to_value(v).expect("TOML to JSON")
}

fn scenarios(c: &mut Criterion) {
    let mut g = c.benchmark_group("scenario");
    g.sample_size(10);
    for name in ["chain-udp.toml", "random-mesh.toml"] {
        let v = load(name);
        let probe = run_value(v.clone(), None, None).expect("example validates");
        let sim_s = probe.outcome.simulated.as_secs_f64();
        eprintln!(
            "{name}: {} events, {:.0} events/s, {:.1} simulated s per wall s",
            probe.outcome.events,
            probe.outcome.events as f64 / probe.wall_seconds,
            sim_s / probe.wall_seconds
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
