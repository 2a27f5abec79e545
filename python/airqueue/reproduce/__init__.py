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

import os
import time
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from airqueue.errors import ConfigError
from airqueue.reproduce.registry import REPRODUCTIONS
from airqueue.reproduce.report import ReproductionResult, Row

__all__ = ["NAMES", "ReproductionResult", "Row", "default_out", "reproduce"]

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
    from airqueue.reproduce.registry import module

    target = Path(out) if out is not None else default_out(name)
    start = time.perf_counter()
    try:
        result: ReproductionResult = module(name).run(
            quick=quick,
            out=target,
            workers=workers,
            serial=serial,
            progress=progress,
            params=params,
        )
    except ValueError as e:
        raise ConfigError(str(e)) from None
    result.wall_seconds = time.perf_counter() - start
    result.write()
    return result
