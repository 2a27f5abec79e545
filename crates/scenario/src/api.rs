//! The one entry point the bindings and benchmarks use: scenario JSON in, report JSON out.
//!
//! Contract (the Python package relies on it):
//! `run_json(scenario_json, seed, duration_s)` returns a JSON string, either
//! `{"ok": false, "errors": ["key.path: message", ...]}` for a scenario that does not
//! validate (every problem at once), or
//! `{"ok": true, "summary": {...}, "tables": {"<table>": {"<column>": [values...]}}}`
//! where `summary` is exactly the `airqueue run --json` object of DESIGN.md and the tables
//! are column-oriented: `flows`, `timeseries`, `drops`, `queues`, `nodes`.
//! Non-finite floats are written as `null`. A run stopped through its [`Monitor`] returns
//! `{"ok": false, "interrupted": true, "errors": ["interrupted at ..."]}`, and a run the
//! simulation itself had to stop (the spin guard, `airqueue_sim::SpinError`)
//! `{"ok": false, "internal": true, "errors": ["simulation stopped at ..."]}`, which Python
//! raises as `SimulationError`, as it does the bindings' caught panics.

use crate::build::world_config;
use crate::report;
use crate::schema::Scenario;
use crate::topology::validate_and_place;
use airqueue_kernel::Time;
use airqueue_sim::{RunOutcome, World};
use serde_json::{json, Value};
use std::fmt;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::time::Instant;

/// Watches a run from another thread: how far the simulated clock has got, and a flag that
/// stops the run. The run updates it between slices of simulated time (see
/// [`SLICES`]); slicing does not change what runs (`World::run_until` executes exactly
/// the events due by its argument, whatever steps it is called in), so a monitored run
/// is the same run, bit for bit.
#[derive(Debug, Default)]
pub struct Monitor {
    simulated_ns: AtomicU64,
    duration_ns: AtomicU64,
    stop: AtomicBool,
}

/// A monitored run checks its monitor this many times over its simulated duration.
pub const SLICES: u64 = 1000;

impl Monitor {
    /// Simulated time reached so far.
    pub fn simulated(&self) -> Time {
        Time::from_nanos(self.simulated_ns.load(Ordering::Relaxed))
    }

    /// The run's simulated duration; zero until the scenario has validated.
    pub fn duration(&self) -> Time {
        Time::from_nanos(self.duration_ns.load(Ordering::Relaxed))
    }

    /// Asks the run to stop at its next slice boundary.
    pub fn stop(&self) {
        self.stop.store(true, Ordering::Relaxed);
    }

    /// Whether [`Monitor::stop`] was called.
    pub fn stopped(&self) -> bool {
        self.stop.load(Ordering::Relaxed)
    }
}

/// A finished run with what it was run from.
pub struct Run {
    pub scenario: Scenario,
    pub positions: Vec<[f64; 2]>,
    pub outcome: RunOutcome,
    pub wall_seconds: f64,
}

/// Why a run produced no results.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum RunError {
    /// The scenario does not validate: one `"key.path: message"` per problem.
    Config(Vec<String>),
    /// The run was stopped through its [`Monitor`]; says when.
    Interrupted(String),
    /// The simulation stopped itself: one component kept the clock from advancing.
    Simulation(String),
}

impl RunError {
    /// One message per problem, the form the JSON API carries.
    pub fn messages(&self) -> Vec<String> {
        match self {
            RunError::Config(m) => m.clone(),
            RunError::Interrupted(m) | RunError::Simulation(m) => vec![m.clone()],
        }
    }
}

impl fmt::Display for RunError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.messages().join("\n"))
    }
}

impl std::error::Error for RunError {}

/// Applies the command-line overrides to the file's keys. A shorter `duration` also
/// clips flow `stop` times (of `[[flow]]` and `[flows]`) that would fall after the new end.
pub fn apply_overrides(v: &mut Value, seed: Option<u64>, duration_s: Option<f64>) {
    let Some(obj) = v.as_object_mut() else { return };
    if let Some(seed) = seed {
        obj.insert("seed".into(), json!(seed));
    }
    if let Some(d) = duration_s {
        obj.insert("duration".into(), json!(d));
        let clip = |f: &mut serde_json::Map<String, Value>| {
            if f.get("stop").and_then(Value::as_f64).is_some_and(|s| s > d) {
                f.remove("stop");
            }
        };
        if let Some(Value::Array(flows)) = obj.get_mut("flow") {
            flows
                .iter_mut()
                .filter_map(Value::as_object_mut)
                .for_each(clip);
        }
        if let Some(Value::Object(random)) = obj.get_mut("flows") {
            clip(random);
        }
    }
}

/// Validates and runs a scenario given as a parsed value.
/// Errors come as one message per problem (see [`RunError::messages`]).
pub fn run_value(v: Value, seed: Option<u64>, duration_s: Option<f64>) -> Result<Run, Vec<String>> {
    run_monitored(v, seed, duration_s, None)
}

/// [`run_value`], reporting progress to `monitor` and stopping early when it is told to
/// (then the error names the simulated time reached).
pub fn run_monitored(
    v: Value,
    seed: Option<u64>,
    duration_s: Option<f64>,
    monitor: Option<&Monitor>,
) -> Result<Run, Vec<String>> {
    run_guarded(v, seed, duration_s, monitor, None).map_err(|e| e.messages())
}

/// [`run_monitored`] with the spin guard's bound set to `spin_limit` events at one
/// instant instead of `airqueue_sim::MAX_EVENTS_PER_INSTANT`.
fn run_guarded(
    mut v: Value,
    seed: Option<u64>,
    duration_s: Option<f64>,
    monitor: Option<&Monitor>,
    spin_limit: Option<u64>,
) -> Result<Run, RunError> {
    apply_overrides(&mut v, seed, duration_s);
    let (scenario, positions) =
        validate_and_place(&v).map_err(|e| RunError::Config(e.messages()))?;
    let cfg = world_config(&scenario, &positions);
    let duration = cfg.duration;
    let t0 = Instant::now();
    let mut world = World::new(cfg);
    if let Some(limit) = spin_limit {
        world.set_max_events_per_instant(limit);
    }
    let outcome = match monitor {
        None => world.run(),
        Some(m) => {
            m.duration_ns.store(duration.as_nanos(), Ordering::Relaxed);
            let step = Time::from_nanos((duration.as_nanos() / SLICES).max(1));
            while world.now() < duration && world.spin_error().is_none() {
                if m.stopped() {
                    return Err(RunError::Interrupted(format!(
                        "interrupted at {:.3} s of {:.3} s simulated",
                        world.now().as_secs_f64(),
                        duration.as_secs_f64()
                    )));
                }
                world.run_until(world.now() + step);
                m.simulated_ns
                    .store(world.now().as_nanos(), Ordering::Relaxed);
            }
            world.finish()
        }
    };
    let wall_seconds = t0.elapsed().as_secs_f64();
    if let Some(spin) = &outcome.spin {
        return Err(RunError::Simulation(spin.to_string()));
    }
    Ok(Run {
        scenario,
        positions,
        outcome,
        wall_seconds,
    })
}

/// Runs a scenario given as JSON text (the file's keys, already parsed from TOML/YAML/JSON
/// by the caller), with optional seed and duration overrides.
pub fn run_json(scenario_json: &str, seed: Option<u64>, duration_s: Option<f64>) -> String {
    run_json_monitored(scenario_json, seed, duration_s, None)
}

/// [`run_json`] with a [`Monitor`]; a stopped run reports `"interrupted": true`.
pub fn run_json_monitored(
    scenario_json: &str,
    seed: Option<u64>,
    duration_s: Option<f64>,
    monitor: Option<&Monitor>,
) -> String {
    let v: Value = match serde_json::from_str(scenario_json) {
        Ok(v) => v,
        Err(e) => {
            return json!({"ok": false, "errors": [format!("scenario: not valid JSON: {e}")]})
                .to_string()
        }
    };
    report_json(run_guarded(v, seed, duration_s, monitor, None))
}

/// A run of `scenario_json` whose spin guard stops it past `max_events_per_instant`
/// events at one instant, as [`run_json`] reports it. Valid scenarios never spin, so this
/// is how the bindings' tests follow a spin-guard error to Python and the command line.
#[doc(hidden)]
pub fn run_json_with_spin_limit(scenario_json: &str, max_events_per_instant: u64) -> String {
    let v: Value = match serde_json::from_str(scenario_json) {
        Ok(v) => v,
        Err(e) => {
            return json!({"ok": false, "errors": [format!("scenario: not valid JSON: {e}")]})
                .to_string()
        }
    };
    report_json(run_guarded(
        v,
        None,
        None,
        None,
        Some(max_events_per_instant),
    ))
}

/// The JSON report of a run or of why it has none (the module's contract).
fn report_json(result: Result<Run, RunError>) -> String {
    match result {
        Ok(run) => json!({
            "ok": true,
            "summary": report::summary(&run.scenario, &run.outcome, run.wall_seconds),
            "tables": report::tables(&run.scenario, &run.positions, &run.outcome),
        })
        .to_string(),
        Err(e @ RunError::Interrupted(_)) => {
            json!({"ok": false, "interrupted": true, "errors": e.messages()}).to_string()
        }
        Err(e @ RunError::Simulation(_)) => {
            json!({"ok": false, "internal": true, "errors": e.messages()}).to_string()
        }
        Err(RunError::Config(errors)) => json!({"ok": false, "errors": errors}).to_string(),
    }
}

/// Validates a scenario given as JSON text. Returns `{"ok": true, "scenario": <resolved>}`
/// or `{"ok": false, "errors": [...]}`.
pub fn validate_json(scenario_json: &str) -> String {
    let v: Value = match serde_json::from_str(scenario_json) {
        Ok(v) => v,
        Err(e) => {
            return json!({"ok": false, "errors": [format!("scenario: not valid JSON: {e}")]})
                .to_string()
        }
    };
    match validate_and_place(&v) {
        Ok((scenario, positions)) => {
            json!({"ok": true, "scenario": scenario, "positions": positions}).to_string()
        }
        Err(e) => json!({"ok": false, "errors": e.messages()}).to_string(),
    }
}
