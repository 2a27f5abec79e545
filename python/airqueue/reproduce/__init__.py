"""Reproductions of the seed papers' results: ``airqueue.reproduce(NAME)`` or
``airqueue reproduce NAME``.

Each reproduction runs its scenarios as sweeps into a results store under ``out``
(default ``out/reproduce/NAME``; an interrupted reproduction resumes, a rerun only
redoes the analysis), and returns rows of ``metric | paper | ours | 95% CI`` (the paper
column is blank where the paper gives no number; each metric names the figure or table
it reproduces), the PNG figures it wrote and notes on the setup.

This package imports nothing heavy: the reproductions load matplotlib and Dask when
they run.
"""

from __future__ import annotations

import contextlib
import os
import time
from collections.abc import Callable, Iterable, Mapping
from pathlib import Path
from typing import Any

from airqueue.errors import ConfigError
from airqueue.reproduce.registry import IN_ALL, REPRODUCTIONS
from airqueue.reproduce.report import ReproductionResult, Row

__all__ = [
    "IN_ALL",
    "NAMES",
    "ReproductionResult",
    "Row",
    "default_out",
    "reproduce",
    "reproduce_all",
]

#: The names ``reproduce`` accepts.
NAMES: tuple[str, ...] = tuple(REPRODUCTIONS)


def default_out(name: str) -> Path:
    """Where a reproduction writes when ``out`` is not given: ``out/reproduce/NAME``."""
    return Path("out") / "reproduce" / name


def reproduce(
    name: str,
    *,
    quick: bool = False,
    out: str | os.PathLike[str] | None = None,
    workers: int | None = None,
    serial: bool = False,
    progress: bool = False,
    params: Mapping[str, Any] | None = None,
) -> ReproductionResult:
    """Runs the reproduction ``name`` (one of ``NAMES``) and returns its rows and figures.

    ``quick`` runs the reduced configuration (fewer seeds, shorter runs; each
    reproduction's module says which). Results go to ``out`` (default
    ``out/reproduce/NAME``): the runs' store in ``out/store``, the PNG figures, and
    ``rows.json`` / ``report.json``. Runs execute on a local Dask cluster of ``workers``
    processes (default: one per CPU), or in this process when ``serial``. ``params``
    overrides fields of the reproduction's ``Config`` (e.g. ``{"seeds": 2,
    "flow_counts": [4], "duration": 5.0}``). Raises ConfigError for an unknown name or
    parameter, SimulationError if a run failed.
    """
    if name not in REPRODUCTIONS:
        raise ConfigError(f"unknown reproduction {name!r}; expected one of {', '.join(NAMES)}")
    target = Path(out) if out is not None else default_out(name)
    return _run_one(
        name,
        quick=quick,
        out=target,
        workers=workers,
        serial=serial,
        progress=progress,
        params=params,
        client=None,
    )


def reproduce_all(
    *,
    quick: bool = False,
    out: str | os.PathLike[str] | None = None,
    workers: int | None = None,
    serial: bool = False,
    progress: bool = False,
    names: Iterable[str] | None = None,
    on_start: Callable[[int, int, str], None] | None = None,
    on_result: Callable[[ReproductionResult], None] | None = None,
) -> dict[str, ReproductionResult]:
    """Runs every reproduction of a paper result (``IN_ALL``, or ``names``) one after
    another on one local Dask cluster, each into ``out/NAME`` (default
    ``out/reproduce/NAME``, where ``reproduce(NAME)`` writes too, so finished runs are
    shared), and writes ``out/summary.md`` and ``out/summary.json``: every table of paper
    value vs ours in one place, and ``out/claims.json``: every claim of the seed papers
    with its status (``airqueue.reproduce.claims``). ``on_start(i, n, name)`` is called before each
    reproduction and ``on_result(result)`` after it. Returns the results by name.
    Raises ConfigError for an unknown name, SimulationError if a run failed (the
    reproductions finished before it keep their outputs)."""
    from airqueue.reproduce.claims import write_claims
    from airqueue.reproduce.summary import write_summary
    from airqueue.sweeps import dask_client

    chosen = list(IN_ALL if names is None else names)
    unknown = [n for n in chosen if n not in REPRODUCTIONS]
    if unknown or not chosen:
        raise ConfigError(
            f"reproductions {unknown or chosen!r}: expected names among {', '.join(NAMES)}"
        )
    root = Path(out) if out is not None else default_out("x").parent
    results: dict[str, ReproductionResult] = {}
    start = time.perf_counter()
    with contextlib.ExitStack() as stack:
        client = None
        if not serial:
            client = stack.enter_context(dask_client(workers=workers, scheduler=None, runs=64))
        for i, name in enumerate(chosen):
            if on_start is not None:
                on_start(i + 1, len(chosen), name)
            result = _run_one(
                name,
                quick=quick,
                out=root / name,
                workers=workers,
                serial=serial,
                progress=progress,
                params=None,
                client=client,
            )
            results[name] = result
            if on_result is not None:
                on_result(result)
    write_summary(results, root, quick=quick, wall_seconds=time.perf_counter() - start)
    write_claims(root)
    return results


def _run_one(
    name: str,
    *,
    quick: bool,
    out: Path,
    workers: int | None,
    serial: bool,
    progress: bool,
    params: Mapping[str, Any] | None,
    client: Any,
) -> ReproductionResult:
    from airqueue.reproduce.registry import module

    start = time.perf_counter()
    try:
        result: ReproductionResult = module(name).run(
            quick=quick,
            out=out,
            workers=workers,
            serial=serial,
            progress=progress,
            params=params,
            client=client,
        )
    except ValueError as e:
        raise ConfigError(str(e)) from None
    result.wall_seconds = time.perf_counter() - start
    result.write()
    return result
