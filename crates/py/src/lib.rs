//! PyO3 bindings: the `airqueue._core` extension module. Scenario JSON in, report JSON out;
//! no model logic lives here. The Python package (`python/airqueue/`) turns reports into
//! `Results` and error lists into exceptions. The per-bin trace tables do not travel in
//! the report: while the run goes, each flush of rows is handed to a Python callable as
//! typed columns (raw little-endian buffers), which the package writes to Parquet.

use std::cell::RefCell;
use std::panic::{self, catch_unwind, AssertUnwindSafe, UnwindSafe};
use std::sync::Arc;

mod extend;

use airqueue_scenario::api::TraceSink;
use airqueue_scenario::report::{Column, TraceColumns};
use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyDict, PyList};

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

/// Calls a Python callable with each flush of trace rows: `{table: {column: value}}`,
/// where a value is `("i8", bytes)` (int64), `("f8", bytes)` (float64, NaN for null),
/// `("i8?", bytes, validity bytes)` (int64 with nulls) or a list of str. A Python
/// exception stops the run; the caller keeps the exception itself.
struct PySink {
    callback: Py<PyAny>,
    /// Reused encoding buffer.
    buf: Vec<u8>,
}

impl PySink {
    fn chunk<'py>(&mut self, py: Python<'py>, rows: &TraceColumns) -> PyResult<Bound<'py, PyDict>> {
        let chunk = PyDict::new(py);
        for table in &rows.tables {
            let cols = PyDict::new(py);
            for (name, col) in &table.columns {
                self.buf.clear();
                let value: Bound<'py, PyAny> = match col {
                    Column::Int(v) => {
                        v.iter()
                            .for_each(|x| self.buf.extend_from_slice(&x.to_le_bytes()));
                        ("i8", PyBytes::new(py, &self.buf))
                            .into_pyobject(py)?
                            .into_any()
                    }
                    Column::Float(v) => {
                        v.iter()
                            .for_each(|x| self.buf.extend_from_slice(&x.to_le_bytes()));
                        ("f8", PyBytes::new(py, &self.buf))
                            .into_pyobject(py)?
                            .into_any()
                    }
                    Column::OptInt(v) => {
                        v.iter().for_each(|x| {
                            self.buf.extend_from_slice(&x.unwrap_or(0).to_le_bytes())
                        });
                        let valid: Vec<u8> = v.iter().map(|x| u8::from(x.is_some())).collect();
                        ("i8?", PyBytes::new(py, &self.buf), PyBytes::new(py, &valid))
                            .into_pyobject(py)?
                            .into_any()
                    }
                    Column::Text(v) => PyList::new(py, v.iter().copied())?.into_any(),
                };
                cols.set_item(*name, value)?;
            }
            chunk.set_item(table.name, cols)?;
        }
        Ok(chunk)
    }
}

impl TraceSink for PySink {
    fn write(&mut self, rows: &TraceColumns) -> Result<(), String> {
        Python::attach(|py| {
            let chunk = self.chunk(py, rows)?;
            self.callback.call1(py, (chunk,)).map(drop)
        })
        .map_err(|e| e.to_string())
    }
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

    /// Runs a scenario (JSON text of the file's keys); returns the report (summary and
    /// end-of-run tables) as JSON text. The per-bin trace tables go to `traces`, a
    /// callable taking one flush of rows at a time (see `PySink`), while the run goes;
    /// without it they are not recorded. The GIL is released while the simulation runs;
    /// `monitor` sees its progress.
    #[pyfunction]
    #[pyo3(signature = (scenario_json, seed=None, duration=None, monitor=None, traces=None))]
    fn run(
        py: Python<'_>,
        scenario_json: &str,
        seed: Option<u64>,
        duration: Option<f64>,
        monitor: Option<&RunMonitor>,
        traces: Option<Py<PyAny>>,
    ) -> String {
        let scenario_json = scenario_json.to_owned();
        let monitor = monitor.map(|m| Arc::clone(&m.inner));
        let mut sink = traces.map(|callback| PySink {
            callback,
            buf: Vec::new(),
        });
        py.detach(move || {
            guarded(AssertUnwindSafe(move || {
                airqueue_scenario::api::run_json_streamed(
                    &scenario_json,
                    seed,
                    duration,
                    monitor.as_deref(),
                    sink.as_mut().map(|s| s as &mut dyn TraceSink),
                )
            }))
        })
    }

    #[pymodule_export]
    use super::extend::PacketView;

    /// [`run`] with Python schemes (`airqueue.extend`): `queue(node, capacity)` builds
    /// the queue discipline of each radio interface, `cc(flow, src, dst)` the rate
    /// controller of each flow whose `cc` gives it one. Returns the report JSON and the
    /// user's exception (with its traceback) when their code failed, else None.
    #[pyfunction]
    #[pyo3(signature = (scenario_json, seed=None, duration=None, monitor=None, traces=None, queue=None, cc=None))]
    #[allow(clippy::too_many_arguments)]
    fn run_extended(
        py: Python<'_>,
        scenario_json: &str,
        seed: Option<u64>,
        duration: Option<f64>,
        monitor: Option<&RunMonitor>,
        traces: Option<Py<PyAny>>,
        queue: Option<Py<PyAny>>,
        cc: Option<Py<PyAny>>,
    ) -> (String, Option<Py<PyAny>>) {
        let scenario_json = scenario_json.to_owned();
        let monitor = monitor.map(|m| Arc::clone(&m.inner));
        let mut sink = traces.map(|callback| PySink {
            callback,
            buf: Vec::new(),
        });
        let failure = Arc::new(super::extend::Failure::default());
        let mut ext = super::extend::PyExtensions {
            queue,
            cc,
            failure: Arc::clone(&failure),
        };
        let report = py.detach(move || {
            guarded(AssertUnwindSafe(move || {
                airqueue_scenario::api::run_json_extended(
                    &scenario_json,
                    seed,
                    duration,
                    monitor.as_deref(),
                    sink.as_mut().map(|s| s as &mut dyn TraceSink),
                    &mut ext,
                )
            }))
        });
        (report, failure.take_exception(py))
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

    /// The farthest distance, metres, at which a lone frame at `data_rate` (bit/s, an
    /// 802.11b rate) clears that rate's SINR threshold over the noise floor with the
    /// scenario's default radio (two-ray ground, 20 dBm, thermal noise): the rate's
    /// decode range when the receive threshold does not cut it shorter. Reproductions
    /// place stations where a given rate is the fastest that works.
    #[pyfunction]
    fn dsss_decode_range_m(data_rate: f64) -> PyResult<f64> {
        use airqueue_phy::{dsss, Dbm, DsssRate};
        use airqueue_sim::medium::wifi::WifiConfig;
        let rate = DsssRate::ALL
            .into_iter()
            .find(|r| r.bps() as f64 == data_rate)
            .ok_or_else(|| {
                pyo3::exceptions::PyValueError::new_err(format!(
                    "{data_rate} b/s is not an 802.11b rate; use 1e6, 2e6, 5.5e6 or 11e6"
                ))
            })?;
        let radio = WifiConfig::dsss_default();
        let weakest = Dbm(radio.noise_dbm + dsss::sinr_threshold(rate).0);
        Ok(radio
            .propagation
            .range_for_threshold(Dbm(radio.tx_power_dbm), weakest))
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
