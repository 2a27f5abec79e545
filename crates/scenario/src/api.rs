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
//!
//! That whole report holds every trace row until the end; it serves tests and
//! benchmarks. The bindings use [`run_json_streamed`] instead: the per-bin trace tables
//! ([`TraceColumns`]) go to a [`TraceSink`] in flushes of about [`FLUSH_ROWS`] rows while
//! the run goes (or are not recorded at all when nobody reads them), and the report
//! carries only the summary and the end-of-run tables, so memory does not grow with the
//! run's length.

use crate::build::world_config;
use crate::report::{self, TraceColumns};
use crate::schema::Scenario;
use crate::topology::validate_and_place;
use airqueue_kernel::Time;
use airqueue_sim::metrics::Traces;
use airqueue_sim::qdisc::Qdisc;
use airqueue_sim::transport::RateController;
use airqueue_sim::{FlowId, NodeId, RunOutcome, World};
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

/// A streamed run hands its trace rows to the sink once it holds at least this many
/// (and at the end): one Parquet row group's worth.
pub const FLUSH_ROWS: usize = 1 << 14;

/// A run steps at most this many bins at a time, so that rows beyond [`FLUSH_ROWS`] stay
/// bounded by one step's however small the bins.
const MAX_STEP_BINS: u64 = 256;

/// Where a streamed run's trace rows go.
pub trait TraceSink {
    /// Takes one flush of rows (every table, possibly some empty). An error stops the
    /// run; its message is reported.
    fn write(&mut self, rows: &TraceColumns) -> Result<(), String>;
}

/// Schemes a caller supplies as code rather than as scenario keys (the Python bindings'
/// `aq.run(scenario, queue=..., cc=...)`): scenario files stay data. The run asks once per
/// radio interface and once per paced flow before it starts, and after every step of
/// simulated time whether the supplied code failed.
pub trait Extensions {
    /// The discipline of `node`'s radio interface, built for `capacity_pkts` (the
    /// scenario's `queue.capacity`, whatever its `queue.kind`); `None` keeps the
    /// scenario's. Wired links always keep the scenario's discipline.
    fn queue(&mut self, node: NodeId, capacity_pkts: u32) -> Option<Result<Qdisc, String>>;

    /// The rate controller of flow `flow` (from `src` to `dst`), asked for each flow
    /// with `cc = "external"`; `None` leaves it without one (an error).
    fn rate(
        &mut self,
        flow: FlowId,
        src: NodeId,
        dst: NodeId,
    ) -> Option<Result<Box<dyn RateController>, String>>;

    /// Why the supplied code failed since the run started, if it did: the run stops with
    /// this message ([`RunError::Extension`]).
    fn failure(&mut self) -> Option<String>;
}

/// What a run does with its per-bin trace rows.
pub enum TraceMode<'a> {
    /// Keeps every row in `RunOutcome::traces` (tests and the whole report).
    Keep,
    /// Records none: nobody reads them (`airqueue run --json` without `--out`).
    Discard,
    /// Hands them to the sink a flush at a time; `RunOutcome::traces` ends empty.
    Stream(&'a mut dyn TraceSink),
}

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
    /// The trace sink failed; says how.
    Output(String),
    /// Code supplied through [`Extensions`] failed (or could not be built); says where.
    Extension(String),
}

impl RunError {
    /// One message per problem, the form the JSON API carries.
    pub fn messages(&self) -> Vec<String> {
        match self {
            RunError::Config(m) => m.clone(),
            RunError::Interrupted(m)
            | RunError::Simulation(m)
            | RunError::Output(m)
            | RunError::Extension(m) => vec![m.clone()],
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
    run_traced(v, seed, duration_s, monitor, TraceMode::Keep)
}

/// [`run_monitored`] with the trace rows handled as `traces` says. The run goes in steps
/// of simulated time (a thousandth of the run, at most [`MAX_STEP_BINS`] bins); slicing
/// changes nothing (see [`Monitor`]) and tracing only observes, so every mode runs the
/// same run, bit for bit. A sink's error stops the run and is returned.
pub fn run_traced(
    v: Value,
    seed: Option<u64>,
    duration_s: Option<f64>,
    monitor: Option<&Monitor>,
    traces: TraceMode<'_>,
) -> Result<Run, Vec<String>> {
    run_guarded(v, seed, duration_s, monitor, traces, None, None).map_err(|e| e.messages())
}

/// [`run_traced`] with the spin guard's bound set to `spin_limit` events at one instant
/// instead of `airqueue_sim::MAX_EVENTS_PER_INSTANT`.
fn run_guarded(
    mut v: Value,
    seed: Option<u64>,
    duration_s: Option<f64>,
    monitor: Option<&Monitor>,
    mut traces: TraceMode<'_>,
    spin_limit: Option<u64>,
    mut ext: Option<&mut dyn Extensions>,
) -> Result<Run, RunError> {
    apply_overrides(&mut v, seed, duration_s);
    let (scenario, positions) =
        validate_and_place(&v).map_err(|e| RunError::Config(e.messages()))?;
    let cfg = world_config(&scenario, &positions);
    let duration = cfg.duration;
    let mut columns = TraceColumns::new(cfg.bin, scenario.duration_s);
    let step_ns = (duration.as_nanos() / SLICES)
        .min(cfg.bin.as_nanos().saturating_mul(MAX_STEP_BINS))
        .max(1);
    let t0 = Instant::now();
    let mut world = World::new(cfg);
    if let Some(limit) = spin_limit {
        world.set_max_events_per_instant(limit);
    }
    world.set_keep_traces(!matches!(traces, TraceMode::Discard));
    if let Some(ext) = ext.as_deref_mut() {
        install(&mut world, &scenario, ext)?;
    }
    let missing: Vec<String> = (world.missing_pacers())
        .map(|f| {
            format!(
                "flow[{f}].cc: \"external\" takes its rate controller from the code that \
                 runs the scenario; pass one (aq.run(scenario, cc=MyController)) or use \
                 another cc"
            )
        })
        .collect();
    if !missing.is_empty() {
        return Err(RunError::Config(missing));
    }
    if let Some(m) = monitor {
        m.duration_ns.store(duration.as_nanos(), Ordering::Relaxed);
    }
    while world.now() < duration && world.spin_error().is_none() {
        if monitor.is_some_and(Monitor::stopped) {
            return Err(RunError::Interrupted(format!(
                "interrupted at {:.3} s of {:.3} s simulated",
                world.now().as_secs_f64(),
                duration.as_secs_f64()
            )));
        }
        world.run_until(world.now() + Time::from_nanos(step_ns));
        if let Some(failure) = ext.as_deref_mut().and_then(|e| e.failure()) {
            return Err(RunError::Extension(failure));
        }
        if let Some(m) = monitor {
            m.simulated_ns
                .store(world.now().as_nanos(), Ordering::Relaxed);
        }
        if let TraceMode::Stream(sink) = &mut traces {
            if world.traces_mut().len() >= FLUSH_ROWS {
                flush(world.traces_mut(), &mut columns, &mut **sink)?;
            }
        }
    }
    let mut outcome = world.finish();
    if let Some(spin) = &outcome.spin {
        return Err(RunError::Simulation(spin.to_string()));
    }
    if let TraceMode::Stream(sink) = &mut traces {
        flush(&mut outcome.traces, &mut columns, &mut **sink)?;
    }
    let wall_seconds = t0.elapsed().as_secs_f64();
    Ok(Run {
        scenario,
        positions,
        outcome,
        wall_seconds,
    })
}

/// Puts the caller's disciplines on every radio interface and its controllers on every
/// paced flow, before the first event.
fn install(
    world: &mut World,
    scenario: &Scenario,
    ext: &mut dyn Extensions,
) -> Result<(), RunError> {
    for node in (0..world.node_count()).map(|i| NodeId(i as u32)) {
        if !world.has_radio(node) {
            continue;
        }
        if let Some(q) = ext.queue(node, scenario.queue.capacity_pkts) {
            let q = q.map_err(RunError::Extension)?;
            // Only radio nodes are asked, so the discipline always finds its place.
            let _ = world.set_radio_qdisc(node, q);
        }
    }
    for f in (0..world.flow_count()).map(|i| FlowId(i as u32)) {
        let Some((src, dst)) = world.flow_ends(f).filter(|_| world.wants_pacer(f)) else {
            continue;
        };
        if let Some(c) = ext.rate(f, src, dst) {
            let c = c.map_err(RunError::Extension)?;
            let _ = world.set_pacer(f, c);
        }
    }
    if let Some(failure) = ext.failure() {
        return Err(RunError::Extension(failure));
    }
    Ok(())
}

/// Hands the rows of `traces` to `sink` as columns and empties `traces` (keeping its
/// buffers).
fn flush(
    traces: &mut Traces,
    columns: &mut TraceColumns,
    sink: &mut dyn TraceSink,
) -> Result<(), RunError> {
    columns.fill(traces);
    traces.clear();
    sink.write(columns)
        .map_err(|e| RunError::Output(format!("writing the trace tables: {e}")))
}

/// Parses the scenario JSON text, or says why it is not JSON.
fn parse_scenario_json(scenario_json: &str) -> Result<Value, String> {
    serde_json::from_str(scenario_json).map_err(|e| {
        json!({"ok": false, "errors": [format!("scenario: not valid JSON: {e}")]}).to_string()
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
    match parse_scenario_json(scenario_json) {
        Ok(v) => report_json(
            run_guarded(v, seed, duration_s, monitor, TraceMode::Keep, None, None),
            true,
        ),
        Err(e) => e,
    }
}

/// [`run_json_monitored`] with the trace tables streamed to `sink` while the run goes,
/// or not recorded at all without one. The report's `tables` are the end-of-run tables
/// only ([`report::tables`]).
pub fn run_json_streamed(
    scenario_json: &str,
    seed: Option<u64>,
    duration_s: Option<f64>,
    monitor: Option<&Monitor>,
    sink: Option<&mut dyn TraceSink>,
) -> String {
    streamed(scenario_json, seed, duration_s, monitor, sink, None)
}

/// [`run_json_streamed`] with the caller's schemes ([`Extensions`]) in place of the
/// scenario's on radio interfaces and paced flows. A failure of that code reports
/// `{"ok": false, "extension": true, "errors": [...]}`.
pub fn run_json_extended(
    scenario_json: &str,
    seed: Option<u64>,
    duration_s: Option<f64>,
    monitor: Option<&Monitor>,
    sink: Option<&mut dyn TraceSink>,
    ext: &mut dyn Extensions,
) -> String {
    streamed(scenario_json, seed, duration_s, monitor, sink, Some(ext))
}

fn streamed(
    scenario_json: &str,
    seed: Option<u64>,
    duration_s: Option<f64>,
    monitor: Option<&Monitor>,
    sink: Option<&mut dyn TraceSink>,
    ext: Option<&mut dyn Extensions>,
) -> String {
    let mode = match sink {
        Some(sink) => TraceMode::Stream(sink),
        None => TraceMode::Discard,
    };
    match parse_scenario_json(scenario_json) {
        Ok(v) => report_json(
            run_guarded(v, seed, duration_s, monitor, mode, None, ext),
            false,
        ),
        Err(e) => e,
    }
}

/// A run of `scenario_json` whose spin guard stops it past `max_events_per_instant`
/// events at one instant, as [`run_json`] reports it. Valid scenarios never spin, so this
/// is how the bindings' tests follow a spin-guard error to Python and the command line.
#[doc(hidden)]
pub fn run_json_with_spin_limit(scenario_json: &str, max_events_per_instant: u64) -> String {
    match parse_scenario_json(scenario_json) {
        Ok(v) => report_json(
            run_guarded(
                v,
                None,
                None,
                None,
                TraceMode::Keep,
                Some(max_events_per_instant),
                None,
            ),
            true,
        ),
        Err(e) => e,
    }
}

/// The JSON report of a run or of why it has none (the module's contract); with
/// `with_traces`, the kept trace rows join the end-of-run tables.
fn report_json(result: Result<Run, RunError>, with_traces: bool) -> String {
    match result {
        Ok(run) => {
            let mut tables = report::tables(&run.scenario, &run.positions, &run.outcome);
            if with_traces {
                let mut columns = TraceColumns::new(
                    Time::from_secs_f64(run.scenario.outputs.bin_s),
                    run.scenario.duration_s,
                );
                columns.fill(&run.outcome.traces);
                for t in &columns.tables {
                    tables[t.name] = t.to_json();
                }
            }
            json!({
                "ok": true,
                "summary": report::summary(&run.scenario, &run.outcome, run.wall_seconds),
                "tables": tables,
            })
            .to_string()
        }
        Err(e @ RunError::Interrupted(_)) => {
            json!({"ok": false, "interrupted": true, "errors": e.messages()}).to_string()
        }
        Err(e @ RunError::Simulation(_)) => {
            json!({"ok": false, "internal": true, "errors": e.messages()}).to_string()
        }
        Err(e @ RunError::Extension(_)) => {
            json!({"ok": false, "extension": true, "errors": e.messages()}).to_string()
        }
        Err(e @ (RunError::Config(_) | RunError::Output(_))) => {
            json!({"ok": false, "errors": e.messages()}).to_string()
        }
    }
}

/// Validates a scenario given as JSON text. Returns `{"ok": true, "scenario": <resolved>}`
/// or `{"ok": false, "errors": [...]}`.
pub fn validate_json(scenario_json: &str) -> String {
    let v = match parse_scenario_json(scenario_json) {
        Ok(v) => v,
        Err(e) => return e,
    };
    match validate_and_place(&v) {
        Ok((scenario, positions)) => {
            json!({"ok": true, "scenario": scenario, "positions": positions}).to_string()
        }
        Err(e) => json!({"ok": false, "errors": e.messages()}).to_string(),
    }
}
