//! PyO3 bindings: the `airqueue._core` extension module. Scenario JSON in, report JSON out;
//! no model logic lives here. The Python package (`python/airqueue/`) turns reports into
//! `Results` and error lists into exceptions.

use std::cell::RefCell;
use std::panic::{self, catch_unwind, UnwindSafe};
use std::sync::Arc;

use pyo3::prelude::*;

thread_local! {
    /// Where the last panic on this thread happened, recorded by the hook of `quiet_panics`.
    static PANIC_AT: RefCell<Option<String>> = const { RefCell::new(None) };
}

/// Installs a panic hook that records the location for `guarded` instead of printing it.
/// With `RUST_BACKTRACE` set the previous hook still runs, so backtraces stay available.
/// The hook is this extension's own (a cdylib has its own std), so nothing else changes.
fn quiet_panics() {
    let previous = panic::take_hook();
    let verbose = std::env::var_os("RUST_BACKTRACE").is_some_and(|v| v != "0");
    panic::set_hook(Box::new(move |info| {
        let at = info
            .location()
            .map(|l| format!("{}:{}", l.file(), l.line()));
        PANIC_AT.with(|cell| *cell.borrow_mut() = at);
        if verbose {
            previous(info);
        }
    }));
}

/// Runs `f` and turns a panic into the `{"ok": false, "internal": true, ...}` report,
/// so Python raises `SimulationError` instead of `PanicException`.
fn guarded(f: impl FnOnce() -> String + UnwindSafe) -> String {
    catch_unwind(f).unwrap_or_else(|payload| {
        let what = payload
            .downcast_ref::<&str>()
            .map(|s| (*s).to_owned())
            .or_else(|| payload.downcast_ref::<String>().cloned())
            .unwrap_or_else(|| "panic with a non-string payload".to_owned());
        let at = PANIC_AT.with(|cell| cell.borrow_mut().take());
        let at = at.map(|a| format!(" (at {a})")).unwrap_or_default();
        serde_json::json!({
            "ok": false,
            "internal": true,
            "errors": [format!("internal error: {what}{at}")],
        })
        .to_string()
    })
}

/// airqueue core: run and validate scenarios given as JSON text.
#[pymodule]
mod _core {
    use super::*;

    #[pymodule_init]
    fn init() {
        quiet_panics();
    }

    /// Watches a run from another Python thread: the simulated time reached, and a stop
    /// request (how Ctrl-C reaches a run that has released the GIL).
    #[pyclass(frozen)]
    struct RunMonitor {
        inner: Arc<airqueue_scenario::api::Monitor>,
    }

    #[pymethods]
    impl RunMonitor {
        #[new]
        fn new() -> Self {
            RunMonitor {
                inner: Arc::default(),
            }
        }

        /// Simulated seconds reached so far.
        fn simulated_s(&self) -> f64 {
            self.inner.simulated().as_secs_f64()
        }

        /// The run's simulated duration in seconds; 0 until the scenario has validated.
        fn duration_s(&self) -> f64 {
            self.inner.duration().as_secs_f64()
        }

        /// Asks the run to stop; it reports `"interrupted": true`.
        fn stop(&self) {
            self.inner.stop();
        }
    }

    /// Runs a scenario (JSON text of the file's keys); returns the report as JSON text.
    /// The GIL is released while the simulation runs; `monitor` sees its progress.
    #[pyfunction]
    #[pyo3(signature = (scenario_json, seed=None, duration=None, monitor=None))]
    fn run(
        py: Python<'_>,
        scenario_json: &str,
        seed: Option<u64>,
        duration: Option<f64>,
        monitor: Option<&RunMonitor>,
    ) -> String {
        let scenario_json = scenario_json.to_owned();
        let monitor = monitor.map(|m| Arc::clone(&m.inner));
        py.detach(move || {
            guarded(move || {
                airqueue_scenario::api::run_json_monitored(
                    &scenario_json,
                    seed,
                    duration,
                    monitor.as_deref(),
                )
            })
        })
    }

    /// Validates a scenario (JSON text); returns `{"ok": ..., ...}` as JSON text.
    #[pyfunction]
    fn validate(py: Python<'_>, scenario_json: &str) -> String {
        let scenario_json = scenario_json.to_owned();
        py.detach(move || guarded(move || airqueue_scenario::api::validate_json(&scenario_json)))
    }

    /// DQM's `T_pkt` (seed 004, III-B.1) of an MSDU of `msdu_bytes` at `data_rate`, the
    /// Ack at `basic_rate` (bit/s, 802.11b rates), with the scenario defaults' framing
    /// (long preamble, MAC header + FCS + LLC/SNAP): one channel access, seconds.
    /// Reproductions compute time-fair references from it.
    #[pyfunction]
    #[pyo3(signature = (msdu_bytes, data_rate, basic_rate=1e6))]
    fn dqm_t_pkt(msdu_bytes: u32, data_rate: f64, basic_rate: f64) -> PyResult<f64> {
        use airqueue_phy::DsssRate;
        use airqueue_sim::medium::wifi::WifiConfig;
        use airqueue_sim::qdisc::dqm::{t_pkt_on, Link};
        let rate = |bps: f64| {
            DsssRate::ALL
                .into_iter()
                .find(|r| r.bps() as f64 == bps)
                .ok_or_else(|| {
                    pyo3::exceptions::PyValueError::new_err(format!(
                        "{bps} b/s is not an 802.11b rate; use 1e6, 2e6, 5.5e6 or 11e6"
                    ))
                })
        };
        let framing = WifiConfig::dsss_default();
        let link = Link {
            data_rate: rate(data_rate)?,
            basic_rate: rate(basic_rate)?,
            preamble: framing.preamble,
            mac_overhead_bytes: framing.data_overhead_bytes,
        };
        Ok(t_pkt_on(msdu_bytes, &link).as_secs_f64())
    }

    /// The crate version, e.g. "0.1.0".
    #[pyfunction]
    fn version() -> &'static str {
        env!("CARGO_PKG_VERSION")
    }

    /// The git commit the extension was built from, or "unknown".
    #[pyfunction]
    fn git_hash() -> &'static str {
        env!("AIRQUEUE_GIT_HASH")
    }

    /// Runs a scenario with the spin guard's bound lowered to `max_events_per_instant`;
    /// lets tests follow a spin-guard stop (a `SimulationError`) to Python and the CLI.
    #[pyfunction]
    fn _run_with_spin_limit_for_tests(
        py: Python<'_>,
        scenario_json: &str,
        max_events_per_instant: u64,
    ) -> String {
        let scenario_json = scenario_json.to_owned();
        py.detach(move || {
            guarded(move || {
                airqueue_scenario::api::run_json_with_spin_limit(
                    &scenario_json,
                    max_events_per_instant,
                )
            })
        })
    }

    /// Panics inside the guard; lets tests check that panics surface as error reports.
    #[pyfunction]
    fn _panic_for_tests(message: &str) -> String {
        let message = message.to_owned();
        guarded(move || panic!("{message}"))
    }
}
