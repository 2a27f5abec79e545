"""``run()``: one scenario, one seed, in the Rust core."""

from __future__ import annotations

import math
import os
import threading
from collections.abc import Callable
from numbers import Integral, Real
from pathlib import Path
from typing import Any

from airqueue import _core
from airqueue.errors import ConfigError, SimulationError, UserCodeError
from airqueue.extend import check_factory
from airqueue.progress import RunProgress
from airqueue.results import Results
from airqueue.scenario import ScenarioLike, decode_report, load_scenario
from airqueue.traces import TRACE_TABLES, TraceBatches, TraceFiles

__all__ = ["run"]

_U64_MAX = 2**64 - 1


def run(
    scenario: ScenarioLike,
    *,
    seed: int | None = None,
    duration: float | None = None,
    progress: bool = False,
    out: str | os.PathLike[str] | None = None,
    traces: bool = True,
    queue: Callable[[int, int], Any] | None = None,
    cc: Callable[[int, int, int], Any] | None = None,
) -> Results:
    """Runs ``scenario`` (a Scenario, a dict of file keys, or a file path) to completion.

    ``seed`` and ``duration`` (simulated seconds) override the scenario's own. Raises
    ConfigError, listing every problem, if the scenario is invalid, and SimulationError if
    the core fails. The GIL is released while the core runs.

    The per-bin trace tables (``timeseries``, ``queues``, ``cwnd``, ``rates``) stream out
    of the core while it runs. With ``out`` they are appended to Parquet files in that
    directory as they come, so memory stays flat however long the run, and the run's
    tables and manifest are written there (``Results.write``) when it ends; the Results
    read the trace tables from disk when asked. Without ``out`` they are kept in memory as
    Arrow tables, or, with ``traces=False``, not recorded at all.

    Called from the main thread, the core runs in a helper thread so that Ctrl-C stops it
    (KeyboardInterrupt, within a thousandth of the run's simulated time) and, with
    ``progress``, a bar on stderr shows the simulated time reached. Runs from other
    threads (sweep workers) call the core directly. Either way the run is the same, bit
    for bit.

    ``queue`` and ``cc`` run schemes written in Python (``airqueue.extend``):
    ``queue(node, capacity)`` builds each radio interface's ``QueueDiscipline``,
    ``cc(flow, src, dst)`` the ``RateController`` of each flow whose ``cc`` gives it one.
    A class with missing methods or wrong arguments raises ConfigError before the run; an
    exception in that code stops the run with UserCodeError, whose ``__cause__`` is the
    exception.
    """
    sc = load_scenario(scenario)
    problems = _check_overrides(seed, duration)
    for what, factory in (("queue", queue), ("cc", cc)):
        if factory is not None:
            try:
                check_factory(factory, what)
            except TypeError as e:
                problems.append(str(e))
    if problems:
        raise ConfigError(problems)
    args = (sc.to_json(), None if seed is None else int(seed), _float(duration))
    user_error: list[BaseException | None] = [None]
    core_run: Callable[..., str] = _core.run
    if queue is not None or cc is not None:

        def core_run(*a: Any) -> str:
            raw, exc = _core.run_extended(*a, queue, cc)
            user_error[0] = exc
            return raw

    sink: TraceFiles | TraceBatches | None = None
    if out is not None:
        sink = TraceFiles(out)
    elif traces:
        sink = TraceBatches()
    try:
        if threading.current_thread() is threading.main_thread():
            label = str(sc.to_dict().get("name", "run"))
            raw = _run_watched(core_run, *args, sink, progress=progress, label=label)
        else:
            raw = core_run(*args, None, sink)
        report = decode_report(raw)
        if sink is not None and sink.error is not None:
            raise sink.error
        if report.get("extension"):
            raise UserCodeError(report.get("errors") or ["user code failed"]) from user_error[0]
        if report.get("interrupted"):
            raise KeyboardInterrupt
        if report.get("ok") is not True:
            errors = report.get("errors") or ["the core reported failure without a reason"]
            if report.get("internal"):
                raise SimulationError(errors)
            raise ConfigError(errors)
        kept: dict[str, Any]
        if isinstance(sink, TraceFiles):
            kept = dict(sink.commit())
        elif isinstance(sink, TraceBatches):
            kept = dict(sink.tables())
        else:
            kept = dict.fromkeys(TRACE_TABLES)
    except BaseException:
        if isinstance(sink, TraceFiles):
            sink.abort()
        raise
    results = Results.from_report(report, scenario=sc.to_dict(), traces=kept)
    if out is not None:
        results.write(Path(out))
    return results


def _run_watched(
    core_run: Callable[..., str],
    scenario_json: str,
    seed: int | None,
    duration: float | None,
    traces: Callable[[Any], None] | None,
    *,
    progress: bool,
    label: str,
) -> str:
    """Runs the core in a helper thread while this (main) thread waits, interruptibly,
    drawing the bar when ``progress``. On KeyboardInterrupt the run is told to stop and
    joined before the interrupt goes on, so no run outlives its caller."""
    monitor = _core.RunMonitor()
    out: list[str] = []
    worker = threading.Thread(
        target=lambda: out.append(core_run(scenario_json, seed, duration, monitor, traces)),
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
