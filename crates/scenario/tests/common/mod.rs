//! Helpers shared by the scenario integration tests (each test file uses some of them).
#![allow(dead_code)]

use airqueue_scenario::api::{run_value, Run};
use airqueue_scenario::parse::toml_to_json;
use airqueue_sim::FlowId;

/// Per-flow goodputs (bit/s) of a scenario file's run, after checking conservation and
/// that a second run of the same file gives the same goodputs and event count.
#[track_caller]
pub fn goodputs(text: &str) -> Vec<f64> {
    let run = || run_value(toml_to_json(text).unwrap(), None, None).unwrap();
    let (a, b) = (run(), run());
    let c = &a.outcome.conservation;
    assert!(c.holds(), "{c:?}");
    let per_flow = |r: &Run| -> Vec<f64> {
        let flows = r.outcome.metrics.flows.iter();
        flows.map(|f| f.goodput_bps()).collect()
    };
    let (g, h) = (per_flow(&a), per_flow(&b));
    assert_eq!(g, h, "same file, same result");
    assert_eq!(a.outcome.events, b.outcome.events);
    g
}

/// A 5x5 grid 200 m apart with four saturating UDP flows crossing it (corner to corner,
/// edge to edge); carrier sense reaches 400 m (two hops), so hidden terminals make frames
/// and broadcasts fail. `routing` is the `[routing]` table's body, `queue` a whole
/// `[queue]` table or empty, `flow_extra` lines added to every flow.
pub fn congested_grid(duration: f64, routing: &str, queue: &str, flow_extra: &str) -> String {
    let mut s = format!(
        "duration = {duration}\nseed = 1\n[topology]\nkind = \"grid\"\nrows = 5\ncols = 5\n\
         spacing = 200.0\n[radio]\ncs_range = 400.0\n[routing]\n{routing}\n{queue}"
    );
    for (src, dst) in [(0, 24), (20, 4), (10, 14), (2, 22)] {
        s += &format!(
            "[[flow]]\nkind = \"udp\"\nsrc = {src}\ndst = {dst}\nstart = 0.5\n\
             packet_size = 1000\nrate = \"saturate\"\n{flow_extra}"
        );
    }
    s
}

/// An AP (node 0) with stations 1-3 and a wired host (node 4): stations 1 and 2 send
/// saturating UDP to the host, the host sends saturating UDP to station 3; 20 s in 1-s
/// bins. `extra` is appended (a move, a rate change, a radio).
pub fn bss_three_stations(extra: &str) -> String {
    format!(
        r#"
duration = 20
[topology]
kind = "bss"
stations = 3
radius = 10
[outputs]
bin = 1.0
[[flow]]
kind = "udp"
src = 1
dst = 4
rate = "saturate"
[[flow]]
kind = "udp"
src = 2
dst = 4
rate = "saturate"
[[flow]]
kind = "udp"
src = 4
dst = 3
rate = "saturate"
{extra}"#
    )
}

/// Runs a scenario file and checks packet conservation.
#[track_caller]
pub fn run_conserved(text: &str) -> Run {
    let r = run_value(toml_to_json(text).unwrap(), None, None).unwrap_or_else(|e| panic!("{e:?}"));
    let c = r.outcome.conservation;
    assert!(c.holds(), "{c:?}");
    r
}

/// Mean goodput of `flow` over 1-s bins `from..to`, b/s.
pub fn bin_goodput(r: &Run, flow: usize, from: usize, to: usize) -> f64 {
    let bins = &r.outcome.traces.bin_bytes(FlowId(flow as u32))[from..to];
    bins.iter().sum::<u64>() as f64 * 8.0 / (to - from) as f64
}
