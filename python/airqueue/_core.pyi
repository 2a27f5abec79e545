"""Type stubs of the compiled extension module (crates/py)."""

from collections.abc import Callable
from typing import Any

class RunMonitor:
    """Watches a run from another thread: simulated time reached, and a stop request."""

    def __init__(self) -> None: ...
    def simulated_s(self) -> float:
        """Simulated seconds reached so far."""
    def duration_s(self) -> float:
        """The run's simulated duration; 0 until the scenario has validated."""
    def stop(self) -> None:
        """Asks the run to stop at its next slice; it then reports ``interrupted``."""

def run(
    scenario_json: str,
    seed: int | None = None,
    duration: float | None = None,
    monitor: RunMonitor | None = None,
    traces: Callable[[dict[str, dict[str, Any]]], object] | None = None,
) -> str:
    """Runs a scenario given as JSON text; returns the report (summary and end-of-run
    tables) as JSON text. Each flush of per-bin trace rows goes to ``traces`` while the
    run goes (not recorded without it); an exception there stops the run."""

def validate(scenario_json: str) -> str:
    """Validates a scenario given as JSON text; returns ``{"ok": ..., ...}`` as JSON text."""

def dqm_t_pkt(msdu_bytes: int, data_rate: float, basic_rate: float = 1e6) -> float:
    """DQM's T_pkt (one 802.11b channel access) of an MSDU, seconds; ValueError for a
    rate that is not 1e6, 2e6, 5.5e6 or 11e6."""

def dsss_decode_range_m(data_rate: float) -> float:
    """Farthest distance (m) at which a lone frame at ``data_rate`` clears its SINR
    threshold over the default radio's noise (two-ray ground, 20 dBm, thermal noise)."""

def version() -> str:
    """The crate version."""

def git_hash() -> str:
    """The git commit the extension was built from, or "unknown"."""

def _panic_for_tests(message: str) -> str:
    """Panics inside the panic guard and returns the resulting error report."""

def _run_with_spin_limit_for_tests(scenario_json: str, max_events_per_instant: int) -> str:
    """Runs a scenario with the spin guard's bound lowered; returns the report."""
