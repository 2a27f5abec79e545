"""Running a reproduction's sweeps: one results store under ``OUT/store`` (so an
interrupted reproduction resumes where it stopped and a rerun only redoes the analysis),
one local Dask cluster shared by every scheme's sweep, or none when serial."""

from __future__ import annotations

import contextlib
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

import pandas as pd

from airqueue.errors import SimulationError
from airqueue.store import load
from airqueue.sweeps import dask_client, sweep

__all__ = ["Runner"]


class Runner:
    """Runs sweeps into ``out/store``; use as a context manager (it owns the cluster)."""

    def __init__(
        self,
        out: Path,
        *,
        workers: int | None = None,
        serial: bool = False,
        progress: bool = True,
        client: Any = None,
    ) -> None:
        """``client``: a Dask client the caller owns and keeps open (several
        reproductions run in a row on one cluster); None starts a local cluster on the
        first parallel sweep."""
        self.out = out
        self.store = out / "store"
        self.workers = workers
        self.serial = serial
        self.progress = progress
        self._client: Any = client
        self._stack = contextlib.ExitStack()

    def __enter__(self) -> Runner:
        return self

    def __exit__(self, *exc: object) -> None:
        self._stack.close()

    def _scheduler(self, runs: int) -> Any:
        if self.serial:
            return None
        if self._client is None:
            self._client = self._stack.enter_context(
                dask_client(workers=self.workers, scheduler=None, runs=max(runs, 1))
            )
        return self._client

    def sweep(
        self,
        scheme: str,
        base: Mapping[str, Any],
        *,
        seeds: Iterable[int],
        grid: Mapping[str, list[Any]] | None = None,
    ) -> pd.DataFrame:
        """One scheme's sweep; the flows frame gets a ``scheme`` column. Raises
        SimulationError naming the first failure if any run failed (the finished runs
        stay in the store)."""
        seeds = list(seeds)
        runs = len(seeds) * _product(grid)
        df = sweep(
            dict(base),
            grid=grid,
            seeds=seeds,
            out=self.store,
            serial=self.serial,
            scheduler=self._scheduler(runs),
            progress=self.progress,
            name=str(base.get("name", scheme)),
        )
        failed = df.attrs.get("failed") or []
        if failed:
            first = failed[0]
            raise SimulationError(
                [
                    f"{scheme}: {len(failed)} run(s) failed; first (seed {first['seed']}, "
                    f"{first['params']}): {'; '.join(first['errors'])}"
                ]
            )
        df.insert(0, "scheme", scheme)
        return df

    def table(self, df: pd.DataFrame, table: str) -> pd.DataFrame:
        """Another table (``timeseries``, ``drops``, ``nodes``, ``summary`` ...) of the runs
        of ``df`` (a frame from ``sweep``, possibly several schemes concatenated), with
        its ``scheme`` column."""
        ids = list(dict.fromkeys(df["run_id"]))
        other = load(self.store, table=table, run_ids=ids)
        schemes = df.drop_duplicates("run_id").set_index("run_id")["scheme"]
        other.insert(0, "scheme", other["run_id"].map(schemes))
        return other


def _product(grid: Mapping[str, list[Any]] | None) -> int:
    n = 1
    for values in (grid or {}).values():
        n *= max(1, len(values))
    return n
