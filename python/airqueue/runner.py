"""``run()``: one scenario, one seed, in the Rust core."""

from __future__ import annotations

import math
import threading
from numbers import Integral, Real

from airqueue import _core
from airqueue.errors import ConfigError, SimulationError
from airqueue.progress import RunProgress
from airqueue.results import Results
from airqueue.scenario import ScenarioLike, decode_report, load_scenario

__all__ = ["run"]

_U64_MAX = 2**64 - 1


def run(
    scenario: ScenarioLike,
    *,
    seed: int | None = None,
    duration: float | None = None,
    progress: bool = False,
) -> Results:
    """Runs ``scenario`` (a Scenario, a dict of file keys, or a file path) to completion.

    ``seed`` and ``duration`` (simulated seconds) override the scenario's own. Raises
    ConfigError, listing every problem, if the scenario is invalid, and SimulationError if
    the core fails. The GIL is released while the core runs.

    Called from the main thread, the core runs in a helper thread so that Ctrl-C stops it
    (KeyboardInterrupt, within a thousandth of the run's simulated time) and, with
    ``progress``, a bar on stderr shows the simulated time reached. Runs from other
    threads (sweep workers) call the core directly. Either way the run is the same, bit
    for bit.
    """
    sc = load_scenario(scenario)
    problems = _check_overrides(seed, duration)
    if problems:
        raise ConfigError(problems)
    args = (sc.to_json(), None if seed is None else int(seed), _float(duration))
    if threading.current_thread() is threading.main_thread():
        raw = _run_watched(*args, progress=progress, label=str(sc.to_dict().get("name", "run")))
    else:
        raw = _core.run(*args)
    report = decode_report(raw)
    if report.get("interrupted"):
        raise KeyboardInterrupt
    if report.get("ok") is True:
        return Results.from_report(report, scenario=sc.to_dict())
    errors = report.get("errors") or ["the core reported failure without a reason"]
    if report.get("internal"):
        raise SimulationError(errors)
    raise ConfigError(errors)


def _run_watched(
    scenario_json: str, seed: int | None, duration: float | None, *, progress: bool, label: str
) -> str:
    """Runs the core in a helper thread while this (main) thread waits, interruptibly,
    drawing the bar when ``progress``. On KeyboardInterrupt the run is told to stop and
    joined before the interrupt goes on, so no run outlives its caller."""
    monitor = _core.RunMonitor()
    out: list[str] = []
    worker = threading.Thread(
        target=lambda: out.append(_core.run(scenario_json, seed, duration, monitor)),
        name="airqueue-run",
        daemon=True,
    )
    bar = RunProgress(label) if progress else None
    try:
        worker.start()
        while worker.is_alive():
            worker.join(0.1)
            if bar is not None:
                bar.update(monitor.simulated_s(), monitor.duration_s())
    except KeyboardInterrupt:
        monitor.stop()
        worker.join()
        raise
    finally:
        if bar is not None:
            bar.close()
    return out[0]


def _float(value: float | None) -> float | None:
    return None if value is None else float(value)


def _check_overrides(seed: object, duration: object) -> list[str]:
    problems = []
    if seed is not None and (
        isinstance(seed, bool) or not isinstance(seed, Integral) or not 0 <= seed <= _U64_MAX
    ):
        problems.append(f"seed: must be an integer in [0, 2^64), got {seed!r}")
    if duration is not None and (
        isinstance(duration, bool)
        or not isinstance(duration, Real)
        or not math.isfinite(duration)
        or duration <= 0
    ):
        problems.append(f"duration: must be a finite number of seconds > 0, got {duration!r}")
    return problems
