"""Sweeps: one base scenario, a grid of overrides and a set of seeds, run on Dask (or
serially) into a results store that makes reruns and interrupted sweeps cheap.

A sweep file (TOML, YAML or JSON)::

    name = "queue-sizes"                 # optional; default: the file's stem
    base = "random-mesh.toml"            # relative to the sweep file
    seeds = [1, 20]                      # [first, last] inclusive, an int, or see below
    duration = 10.0                      # optional: simulated seconds of every run
    [grid]                               # optional: dotted keys -> lists of values
    "queue.capacity" = [10, 50]
    "flow[0].rate" = [2e5, 1e6]

``seeds``: an integer is one seed; a list of two integers is an inclusive range (as in
the issue's ``seeds = [1, 20]``); a list of any other length lists the seeds; for exactly
two seeds that are not a range write ``seeds = { list = [3, 7] }`` (``{ range = [1, 20] }``
is the explicit range form). From Python, ``seeds`` is an int or any iterable of ints
(``range(1, 21)``).

Each (grid point, seed) is a run. Its id is the sha256 of the resolved scenario (the base
with the overrides, the seed and the duration applied) as canonical JSON, so equal runs
share one result whatever sweep asked for them.
"""

from __future__ import annotations

import contextlib
import hashlib
import itertools
import json
import logging
import math
import os
import pickle
import traceback
import uuid
from collections.abc import Callable, Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pandas as pd

from airqueue import _core
from airqueue.errors import AirqueueError, ConfigError
from airqueue.extend import check_factory
from airqueue.progress import SweepProgress
from airqueue.results import Results
from airqueue.runner import run
from airqueue.scenario import Scenario, ScenarioLike, load_scenario
from airqueue.store import Store, concat_runs, load, run_frame

__all__ = ["RunSpec", "SweepSpec", "run_id", "sweep"]

#: How often Dask retries a run that raised an unexpected exception (not a ConfigError
#: or SimulationError, which are deterministic and recorded at once). A run whose worker
#: died is rescheduled by Dask itself, up to ``distributed.scheduler.allowed-failures``
#: (default 3) times, before it is recorded as failed with ``KilledWorker``.
RETRIES = 1

_SWEEP_KEYS = ("name", "base", "seeds", "grid", "duration")


@dataclass(frozen=True)
class RunSpec:
    """One run of a sweep: what to run and where its results go."""

    run_id: str
    seed: int
    #: The swept keys and their values at this grid point.
    params: dict[str, Any]
    #: The resolved scenario (overrides and seed applied); None when the overrides failed.
    scenario: dict[str, Any] | None
    duration: float | None = None
    #: Why the overrides could not be applied.
    problems: list[str] = field(default_factory=list)
    #: Python schemes of the run (``aq.run``'s ``queue`` and ``cc``), if any.
    queue: Any = None
    cc: Any = None

    def info(self, sweep_name: str) -> dict[str, Any]:
        """What the store keeps beside the run's tables (``run.json``)."""
        info = {
            "run_id": self.run_id,
            "seed": self.seed,
            "params": self.params,
            "duration": self.duration,
            "sweep": sweep_name,
        }
        if self.queue is not None or self.cc is not None:
            info["python"] = {"queue": _factory_name(self.queue), "cc": _factory_name(self.cc)}
        return info


@dataclass(frozen=True)
class SweepSpec:
    """A validated sweep: base scenario, grid, seeds."""

    name: str
    base: Scenario
    grid: dict[str, list[Any]]
    seeds: list[int]
    duration: float | None = None

    @classmethod
    def load(cls, path: str | os.PathLike[str]) -> SweepSpec:
        """Reads a sweep file; ``base`` is resolved relative to the file's directory."""
        path = Path(path)
        data = Scenario.load(path).to_dict()  # the same readers and messages as scenarios
        problems = [
            f"{key}: unknown key; expected one of {', '.join(_SWEEP_KEYS)}"
            for key in data
            if key not in _SWEEP_KEYS
        ]
        base = data.get("base")
        if not isinstance(base, str):
            problems.append(
                f"base: expected the path of a scenario file (relative to {path.name}), "
                f"got {base!r}"
            )
        seeds, seed_problems = _file_seeds(data.get("seeds"))
        problems += seed_problems
        if problems:
            raise ConfigError([f"{path}: {p}" for p in problems])
        assert isinstance(base, str)
        scenario = Scenario.load(path.parent / base)
        try:
            return cls.build(
                scenario,
                grid=data.get("grid"),
                seeds=seeds,
                name=data.get("name", path.stem),
                duration=data.get("duration"),
            )
        except ConfigError as e:
            raise ConfigError([f"{path}: {p}" for p in e.errors]) from None

    @classmethod
    def build(
        cls,
        base: ScenarioLike,
        *,
        grid: Mapping[str, Iterable[Any]] | None = None,
        seeds: int | Iterable[int] | None = None,
        name: str | None = None,
        duration: float | None = None,
    ) -> SweepSpec:
        """Checks the pieces of a sweep; raises ConfigError listing every problem."""
        scenario = load_scenario(base)
        problems: list[str] = []
        checked: dict[str, list[Any]] = {}
        if grid is not None and not isinstance(grid, Mapping):
            problems.append(f"grid: expected a table of key -> list of values, got {grid!r}")
            grid = None
        for key, values in (grid or {}).items():
            if not isinstance(key, str):
                problems.append(f"grid: keys must be strings, got {key!r}")
            elif key == "seed":
                problems.append("grid.seed: sweep seeds with `seeds`, not a grid key")
            elif isinstance(values, (str, bytes, Mapping)) or not isinstance(values, Iterable):
                problems.append(f'grid."{key}": expected a list of values, got {values!r}')
            elif not (listed := list(values)):
                problems.append(f'grid."{key}": expected at least one value, got an empty list')
            else:
                checked[key] = listed
        if seeds is None:
            default = scenario.to_dict().get("seed", 1)
            seed_list = [default] if isinstance(default, int) else [1]
        elif isinstance(seeds, int) and not isinstance(seeds, bool):
            seed_list = [seeds]
        else:
            seed_list = list(seeds)
        for s in seed_list:
            if isinstance(s, bool) or not isinstance(s, int) or not 0 <= s < 2**64:
                problems.append(f"seeds: every seed must be an integer in [0, 2^64), got {s!r}")
        if not seed_list:
            problems.append("seeds: expected at least one seed")
        ints = [s for s in seed_list if _is_int(s)]  # the others are reported above
        if len(set(ints)) != len(ints):
            problems.append(f"seeds: listed more than once: {sorted(_repeats(ints))}")
        if duration is not None and (
            isinstance(duration, bool)
            or not isinstance(duration, (int, float))
            or not duration > 0
            or duration == float("inf")
        ):
            problems.append(f"duration: expected a number of seconds > 0, got {duration!r}")
        if name is not None and not isinstance(name, str):
            problems.append(f"name: expected a string, got {name!r}")
        # NaN and infinity (from TOML or Python) are no scenario value; the sweep's
        # definition and run ids are JSON, so they are refused here, with their path.
        problems += _non_finite("base", scenario.to_dict())
        problems += [p for k, v in checked.items() for p in _non_finite(f'grid."{k}"', v)]
        if problems:
            raise ConfigError(problems)
        return cls(
            name=name or scenario.name,
            base=scenario,
            grid=checked,
            seeds=seed_list,
            duration=None if duration is None else float(duration),
        )

    def runs(self) -> list[RunSpec]:
        """Every (grid point, seed), grid points in order with seeds innermost; runs that
        resolve to the same scenario appear once."""
        keys = list(self.grid)
        out: list[RunSpec] = []
        seen: set[str] = set()
        for values in itertools.product(*(self.grid[k] for k in keys)):
            params = dict(zip(keys, values, strict=True))
            try:
                swept: Scenario | None = self.base.with_overrides(params)
                problems: list[str] = []
            except ConfigError as e:
                swept, problems = None, e.errors
            for seed in self.seeds:
                if swept is not None:
                    resolved = swept.with_overrides({"seed": seed}).to_dict()
                    rid = run_id(resolved, self.duration)
                else:
                    resolved = None
                    rid = run_id(
                        {"base": self.base.to_dict(), "overrides": params, "seed": seed},
                        self.duration,
                    )
                if rid in seen:
                    continue
                seen.add(rid)
                out.append(RunSpec(rid, seed, params, resolved, self.duration, problems))
        return out

    def definition(self) -> dict[str, Any]:
        """What the store keeps as ``sweep.json``."""
        return {
            "name": self.name,
            "base": self.base.to_dict(),
            "base_path": None if self.base.source is None else str(self.base.source),
            "grid": self.grid,
            "seeds": self.seeds,
            "duration": self.duration,
            "airqueue_version": _core.version(),
            "git_hash": _core.git_hash(),
        }


def run_id(scenario: Mapping[str, Any], duration: float | None = None) -> str:
    """The store key of a run: sha256 of the resolved scenario as canonical JSON."""
    payload = {"scenario": scenario, "duration": duration}
    text = json.dumps(payload, sort_keys=True, separators=(",", ":"), allow_nan=False)
    return hashlib.sha256(text.encode("utf-8")).hexdigest()[:16]


@dataclass(frozen=True)
class Outcome:
    """What executing a run produced: results, or the error that stopped it."""

    results: Results | None = None
    error_type: str | None = None
    errors: list[str] = field(default_factory=list)
    traceback: str | None = None

    @property
    def ok(self) -> bool:
        return self.results is not None


def execute(spec: RunSpec) -> Outcome:
    """Runs one sweep run (in a Dask worker or in-process). Configuration and simulation
    errors are returned, not raised: they are deterministic, so retrying is pointless."""
    if spec.scenario is None:
        return Outcome(error_type="ConfigError", errors=list(spec.problems))
    try:
        return Outcome(
            results=run(spec.scenario, duration=spec.duration, queue=spec.queue, cc=spec.cc)
        )
    except AirqueueError as e:
        return Outcome(error_type=type(e).__name__, errors=list(e.errors))


def sweep(
    base: ScenarioLike | SweepSpec,
    *,
    grid: Mapping[str, Iterable[Any]] | None = None,
    seeds: int | Iterable[int] | None = None,
    out: str | os.PathLike[str] | None = None,
    workers: int | None = None,
    scheduler: Any = None,
    force: bool = False,
    progress: bool = True,
    serial: bool = False,
    name: str | None = None,
    duration: float | None = None,
    queue: Any = None,
    cc: Any = None,
) -> pd.DataFrame:
    """Runs every (grid point, seed) of a sweep and returns one row per (run, flow).

    ``base`` is a scenario (Scenario, dict or file path), a sweep file (a path to a file
    with a ``base`` key; ``grid``, ``seeds``, ``name`` and ``duration`` given here
    replace the file's), or a SweepSpec. ``grid`` maps override keys (as in
    ``Scenario.with_overrides``) to lists of values; ``seeds`` is an int or an iterable of
    ints (default: the base's seed).

    With ``out``, results go to that store directory (see ``airqueue.store``): finished
    runs are skipped unless ``force``; without it they are kept in memory. Runs execute
    on a Dask ``LocalCluster`` of ``workers`` processes (default: one per CPU), or on
    the cluster at ``scheduler`` (an address, or a ``distributed.Client``), or in this
    process when ``serial``. A run that fails is recorded and the others go on. Local
    workers are started with multiprocessing's "spawn", which re-imports the calling
    script: call ``sweep`` under ``if __name__ == "__main__":`` in scripts.

    The DataFrame has ``run_id``, ``seed``, one column per grid key, the flow columns,
    and the run's ``run_aggregate_goodput_bps``, ``run_jain_index``, ``run_log_utility``,
    ``run_starved_flows``. ``df.attrs`` holds ``params`` (the grid keys), ``runs`` (how
    many), ``executed``, ``skipped`` and ``failed`` (a list of records with ``run_id``,
    ``seed``, ``params``, ``error_type`` and ``errors``).

    ``queue`` and ``cc`` are Python schemes, as for ``run`` (``airqueue.extend``). Dask
    workers receive them pickled, so they must be importable classes (or picklable
    callables); one that cannot be pickled raises ConfigError before any run. Their
    qualified names join each run's id, so a store never mixes their runs with others.
    """
    spec = _spec(base, grid=grid, seeds=seeds, name=name, duration=duration)
    _check_extensions(queue, cc, pickled=not serial)
    runs = [_with_extensions(r, queue, cc) for r in spec.runs()]
    store = None if out is None else Store(out)
    if store is not None:
        store.clean_partial()
        store.write_sweep(spec.definition())
    todo = [r for r in runs if force or store is None or not store.is_done(r.run_id)]
    in_memory: dict[str, Results] = {}
    failed: list[dict[str, Any]] = []

    def record(r: RunSpec, outcome: Outcome) -> None:
        if outcome.results is not None:
            if store is not None:
                store.write_run(r.run_id, outcome.results, r.info(spec.name))
            else:
                in_memory[r.run_id] = outcome.results
            return
        rec = {
            "run_id": r.run_id,
            "seed": r.seed,
            "params": r.params,
            "error_type": outcome.error_type,
            "errors": outcome.errors,
            "traceback": outcome.traceback,
        }
        failed.append(rec)
        if store is not None:
            store.write_failure(r.run_id, rec)

    with SweepProgress(len(todo), skipped=len(runs) - len(todo), enabled=progress) as bar:
        if serial or not todo:
            _run_serial(todo, record, bar)
        else:
            _run_dask(todo, record, bar, workers=workers, scheduler=scheduler)

    params = list(spec.grid)
    ids = [r.run_id for r in runs]
    if store is not None:
        df = load(store.root, run_ids=ids)
    else:
        frames = [
            run_frame(in_memory[r.run_id], "flows", r.run_id, r.info(spec.name), params)
            for r in runs
            if r.run_id in in_memory
        ]
        df = concat_runs(frames, params)
    df.attrs.update(
        params=params,
        runs=len(runs),
        executed=len(todo),
        skipped=len(runs) - len(todo),
        failed=failed,
    )
    return df


def _check_extensions(queue: Any, cc: Any, *, pickled: bool) -> None:
    """Refuses, before any run, a scheme ``run`` would refuse, or one the Dask workers
    cannot receive."""
    problems = []
    for what, factory in (("queue", queue), ("cc", cc)):
        if factory is None:
            continue
        try:
            check_factory(factory, what)
        except TypeError as e:
            problems.append(str(e))
            continue
        if pickled:
            try:
                pickle.dumps(factory)
            except Exception as e:  # noqa: BLE001 (any pickling failure is reported)
                problems.append(
                    f"{what}: {factory!r} cannot be sent to the sweep's Dask workers "
                    f"({type(e).__name__}: {e}); define it as a class at module level in an "
                    "importable module, or pass serial=True"
                )
    if problems:
        raise ConfigError(problems)


def _factory_name(factory: Any) -> str | None:
    if factory is None:
        return None
    return f"{getattr(factory, '__module__', '?')}.{getattr(factory, '__qualname__', factory)}"


def _with_extensions(r: RunSpec, queue: Any, cc: Any) -> RunSpec:
    """``r`` running ``queue`` and ``cc``, under an id that names them."""
    if queue is None and cc is None:
        return r
    names = {"queue": _factory_name(queue), "cc": _factory_name(cc)}
    rid = run_id({"run": r.run_id, "python": names}, r.duration)
    params = dict(r.params)
    return RunSpec(rid, r.seed, params, r.scenario, r.duration, r.problems, queue, cc)


def _spec(
    base: ScenarioLike | SweepSpec,
    *,
    grid: Mapping[str, Iterable[Any]] | None,
    seeds: int | Iterable[int] | None,
    name: str | None,
    duration: float | None,
) -> SweepSpec:
    if isinstance(base, (str, os.PathLike)) and _is_sweep_file(Path(base)):
        base = SweepSpec.load(base)
    if isinstance(base, SweepSpec):
        return SweepSpec.build(
            base.base,
            grid=base.grid if grid is None else grid,
            seeds=base.seeds if seeds is None else seeds,
            name=base.name if name is None else name,
            duration=base.duration if duration is None else duration,
        )
    return SweepSpec.build(base, grid=grid, seeds=seeds, name=name, duration=duration)


def _is_sweep_file(path: Path) -> bool:
    try:
        data = Scenario.load(path).to_dict()
    except ConfigError:
        return False
    return "base" in data and "topology" not in data


def _run_serial(
    todo: list[RunSpec], record: Callable[[RunSpec, Outcome], None], bar: SweepProgress
) -> None:
    for r in todo:
        bar.set_running(1)
        try:
            outcome = execute(r)
        except Exception as e:  # noqa: BLE001 (recorded like a failed Dask task)
            outcome = _unexpected(e)
        record(r, outcome)
        bar.finished(ok=outcome.ok)
    bar.set_running(0)


def _run_dask(
    todo: list[RunSpec],
    record: Callable[[RunSpec, Outcome], None],
    bar: SweepProgress,
    *,
    workers: int | None,
    scheduler: Any,
    fn: Callable[[RunSpec], Outcome] = execute,
) -> None:
    from distributed import as_completed

    with dask_client(workers=workers, scheduler=scheduler, runs=len(todo)) as client:
        slots = max(1, sum(client.nthreads().values()))
        tag = uuid.uuid4().hex[:8]
        futures = {
            client.submit(
                fn, r, key=f"airqueue-run-{r.run_id}-{tag}", pure=False, retries=RETRIES
            ): r
            for r in todo
        }
        remaining = len(futures)
        bar.set_running(min(slots, remaining))
        try:
            for future in as_completed(futures, loop=client.loop):
                try:
                    outcome = future.result()
                except Exception as e:  # noqa: BLE001 (worker death, unexpected errors)
                    outcome = _unexpected(e)
                record(futures[future], outcome)
                future.release()
                remaining -= 1
                bar.set_running(min(slots, remaining))
                bar.finished(ok=outcome.ok)
        finally:
            client.cancel([f for f in futures if not f.done()])


@contextlib.contextmanager
def dask_client(*, workers: int | None, scheduler: Any, runs: int) -> Iterator[Any]:
    """A Dask client: the caller's ``Client``, one connected to ``scheduler``'s address,
    or a local cluster of ``workers`` processes (one per CPU, at most ``runs``)."""
    from distributed import Client, LocalCluster

    if scheduler is not None and not isinstance(scheduler, str):
        yield scheduler  # a Client the caller owns
        return
    if scheduler is not None:
        with Client(scheduler, set_as_default=False) as client:
            yield client
        return
    if workers is not None and workers < 1:
        raise ConfigError(f"workers: expected an integer >= 1, got {workers}")
    n = max(1, min(workers or _cpus(), runs))
    with (
        LocalCluster(
            n_workers=n,
            threads_per_worker=1,
            processes=True,
            # Any free port: None means the default 8787, which warns (and fails under
            # pytest -W error) when another cluster already holds it.
            dashboard_address=":0",
            silence_logs=logging.ERROR,
        ) as cluster,
        Client(cluster, set_as_default=False) as client,
    ):
        yield client


def _cpus() -> int:
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # pragma: no cover (not Linux)
        return os.cpu_count() or 1


def _unexpected(e: BaseException) -> Outcome:
    return Outcome(
        error_type=type(e).__name__,
        errors=[str(e) or type(e).__name__],
        traceback="".join(traceback.format_exception(type(e), e, e.__traceback__)),
    )


def _file_seeds(value: Any) -> tuple[list[int], list[str]]:
    expected = (
        "an integer, [first, last] (inclusive), a list of seeds, "
        "{ list = [...] } or { range = [first, last] }"
    )
    if value is None:
        return [], ["seeds: missing required key; expected " + expected]
    if isinstance(value, int) and not isinstance(value, bool):
        return [value], []
    if isinstance(value, Mapping) and list(value) in (["list"], ["range"]):
        key, inner = next(iter(value.items()))
        if key == "list" and isinstance(inner, list):
            return inner, []
        value = inner
    if isinstance(value, list) and len(value) == 2 and all(_is_int(v) for v in value):
        first, last = value
        if first > last:
            return [], [f"seeds: range [{first}, {last}] is empty; expected first <= last"]
        if last - first >= 1_000_000:
            return [], [f"seeds: range [{first}, {last}] has more than a million seeds"]
        return list(range(first, last + 1)), []
    if isinstance(value, list) and len(value) != 2:
        return value, []
    return [], [f"seeds: expected {expected}, got {value!r}"]


def _non_finite(path: str, value: Any) -> list[str]:
    """One problem per NaN or infinity in ``value``, at its key path under ``path``."""
    if isinstance(value, float) and not math.isfinite(value):
        return [f"{path}: expected a finite number, got {value}"]
    if isinstance(value, Mapping):
        return [p for k, v in value.items() for p in _non_finite(f"{path}.{k}", v)]
    if isinstance(value, list):
        return [p for i, v in enumerate(value) for p in _non_finite(f"{path}[{i}]", v)]
    return []


def _is_int(v: Any) -> bool:
    return isinstance(v, int) and not isinstance(v, bool)


def _repeats(values: list[Any]) -> set[Any]:
    seen: set[Any] = set()
    return {v for v in values if v in seen or seen.add(v)}  # type: ignore[func-returns-value]
