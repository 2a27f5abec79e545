//! Helpers shared by the scenario integration tests.

use airqueue_scenario::api::{run_value, Run};
use airqueue_scenario::parse::toml_to_json;

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
