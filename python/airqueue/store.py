"""The results store of a sweep: one directory per run, written atomically, and ``load()``.

Layout of a store directory ``OUT``::

    OUT/sweep.json               the last sweep run into OUT (name, base, grid, seeds)
    OUT/runs/<run_id>/           one finished run: the ``Results.write`` layout
        flows.parquet ...        (one Parquet file per table) plus manifest.json
        run.json                 run id, seed, swept parameters
    OUT/failed/<run_id>.json     a run that failed: its parameters and error

``run_id`` is a hash of the resolved scenario (see ``sweep.run_id``). A run directory is
written under ``runs/.tmp-<run_id>-<random>/`` and renamed into place, so a directory
``runs/<run_id>/`` is always complete: a sweep killed at any point loses at most the runs
that were still executing, and rerunning it skips every finished one.
"""

from __future__ import annotations

import json
import os
import shutil
import uuid
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import pandas as pd

from airqueue.results import TABLES, Results

__all__ = ["RUN_TABLES", "Store", "load"]

#: What ``load(DIR, table=...)`` accepts: the per-run tables, plus ``summary`` (one row
#: per run) and ``failed`` (one row per failed run).
RUN_TABLES = (*TABLES, "summary", "failed")

#: Run-level summary figures repeated on every row of ``load(DIR)`` (the flows table).
RUN_FIGURES = ("aggregate_goodput_bps", "jain_index", "log_utility", "starved_flows")


class Store:
    """A results directory (created on first write)."""

    def __init__(self, root: str | os.PathLike[str]) -> None:
        self.root = Path(root)
        self.runs = self.root / "runs"
        self.failed = self.root / "failed"

    def run_dir(self, run_id: str) -> Path:
        return self.runs / run_id

    def is_done(self, run_id: str) -> bool:
        """Whether the run finished: its directory exists (it is only ever renamed in whole)."""
        return (self.run_dir(run_id) / "manifest.json").is_file()

    def done_ids(self) -> set[str]:
        """Ids of every finished run in the store."""
        if not self.runs.is_dir():
            return set()
        return {p.name for p in self.runs.iterdir() if not p.name.startswith(".")}

    def clean_partial(self) -> None:
        """Removes half-written run directories left by a sweep that was killed."""
        if self.runs.is_dir():
            for p in self.runs.glob(".tmp-*"):
                shutil.rmtree(p, ignore_errors=True)
            for p in self.runs.glob(".old-*"):
                shutil.rmtree(p, ignore_errors=True)

    def write_sweep(self, definition: Mapping[str, Any]) -> None:
        _atomic_json(self.root / "sweep.json", definition)

    def write_run(self, run_id: str, results: Results, info: Mapping[str, Any]) -> Path:
        """Writes a finished run atomically, replacing an older copy (``--force``)."""
        self.runs.mkdir(parents=True, exist_ok=True)
        tmp = self.runs / f".tmp-{run_id}-{uuid.uuid4().hex[:8]}"
        final = self.run_dir(run_id)
        try:
            tmp.mkdir()
            _atomic_json(tmp / "run.json", info)
            results.write(tmp)
            if final.exists():
                old = self.runs / f".old-{run_id}-{uuid.uuid4().hex[:8]}"
                os.rename(final, old)
                os.rename(tmp, final)
                shutil.rmtree(old, ignore_errors=True)
            else:
                os.rename(tmp, final)
        finally:
            if tmp.exists():
                shutil.rmtree(tmp, ignore_errors=True)
        (self.failed / f"{run_id}.json").unlink(missing_ok=True)
        return final

    def write_failure(self, run_id: str, record: Mapping[str, Any]) -> None:
        self.failed.mkdir(parents=True, exist_ok=True)
        _atomic_json(self.failed / f"{run_id}.json", record)

    def run_info(self, run_id: str) -> dict[str, Any]:
        return _read_json(self.run_dir(run_id) / "run.json")

    def failures(self) -> list[dict[str, Any]]:
        if not self.failed.is_dir():
            return []
        return [_read_json(p) for p in sorted(self.failed.glob("*.json"))]


def load(
    source: str | os.PathLike[str],
    *,
    table: str = "flows",
    run_ids: list[str] | None = None,
) -> pd.DataFrame:
    """The combined table of every finished run in a sweep's results directory.

    ``table`` is one of ``RUN_TABLES``: a per-run table (``flows``, ``timeseries``,
    ``queues``, ...) gets the columns ``run_id``, ``seed`` and one column per swept
    parameter (named by its key, e.g. ``queue.capacity``) in front; ``flows`` also repeats
    the run's ``aggregate_goodput_bps``, ``jain_index``, ``log_utility`` and
    ``starved_flows`` on each row (as ``run_<figure>``). ``summary`` has one row per run
    (scalar summary figures, ``drops.<reason>``); ``failed`` one row per failed run with
    its ``error``. ``run_ids`` restricts the result to those runs. The names of the
    parameter columns are in ``df.attrs["params"]``.
    """
    if table not in RUN_TABLES:
        raise ValueError(f"no table {table!r}; tables are {', '.join(RUN_TABLES)}")
    store = Store(source)
    if not store.root.is_dir():
        raise FileNotFoundError(f"{store.root}: no such results directory")
    if table == "failed":
        records = store.failures()
        if run_ids is not None:
            wanted = set(run_ids)
            records = [r for r in records if r.get("run_id") in wanted]
        return _failed_frame(records)
    ids = sorted(store.done_ids()) if run_ids is None else [i for i in run_ids if store.is_done(i)]
    infos = {i: store.run_info(i) for i in ids}
    params = _param_names(infos.values())
    frames = []
    for run_id in ids:
        info = infos[run_id]
        if table == "summary":
            manifest = _read_json(store.run_dir(run_id) / "manifest.json")
            frame = pd.DataFrame([_summary_row(manifest.get("summary", {}))])
        else:
            path = store.run_dir(run_id) / f"{table}.parquet"
            if not path.is_file():
                raise FileNotFoundError(
                    f"{path}: run {run_id} has no {table!r} table: an earlier airqueue "
                    "wrote it (its manifest.json names the version). Rerun the sweep into "
                    "a new directory to get every table"
                )
            frame = pd.read_parquet(path)
            if table == "flows":
                manifest = _read_json(store.run_dir(run_id) / "manifest.json")
                summary = manifest.get("summary", {})
                for fig in RUN_FIGURES:
                    frame[f"run_{fig}"] = summary.get(fig)
        frames.append(_with_run_columns(frame, run_id, info, params))
    df = concat_runs(frames, params)
    df.attrs["params"] = params
    return df


def run_frame(
    results: Results, table: str, run_id: str, info: Mapping[str, Any], params: list[str]
) -> pd.DataFrame:
    """One run's table with the run columns of ``load`` (for sweeps without a store)."""
    if table == "summary":
        frame = pd.DataFrame([_summary_row(results.summary)])
    else:
        frame = results.table(table).copy()
        if table == "flows":
            for fig in RUN_FIGURES:
                frame[f"run_{fig}"] = results.summary.get(fig)
    return _with_run_columns(frame, run_id, info, params)


def _with_run_columns(
    frame: pd.DataFrame, run_id: str, info: Mapping[str, Any], params: list[str]
) -> pd.DataFrame:
    values = info.get("params", {})
    front = {"run_id": run_id, "seed": info.get("seed")}
    front.update({p: _scalar(values.get(p)) for p in params})
    head = pd.DataFrame({k: [v] * len(frame) for k, v in front.items()}, index=frame.index)
    return pd.concat([head, frame.drop(columns=[c for c in front if c in frame])], axis=1)


def concat_runs(frames: list[pd.DataFrame], params: list[str]) -> pd.DataFrame:
    """Per-run frames as one, ordered by parameters, seed, run and row key."""
    frames = [f for f in frames if len(f.columns)]
    if not frames:
        return pd.DataFrame(columns=["run_id", "seed", *params])
    non_empty = [f for f in frames if len(f)] or frames[:1]
    df = pd.concat(non_empty, ignore_index=True)
    order = [c for c in [*params, "seed", "run_id"] if c in df.columns]
    order += [c for c in ("id", "flow", "node", "t_start_s", "t_s") if c in df.columns]
    try:
        df = df.sort_values(order, kind="stable", ignore_index=True)
    except TypeError:  # parameter values of mixed types: keep run order
        pass
    return df


def _param_names(infos: Any) -> list[str]:
    names: list[str] = []
    for info in infos:
        for key in info.get("params", {}):
            if key not in names:
                names.append(key)
    return names


def _scalar(value: Any) -> Any:
    """A parameter value as a cell: scalars as they are, lists and tables as JSON text."""
    if value is None or isinstance(value, (bool, int, float, str)):
        return value
    return json.dumps(value, sort_keys=True)


def _summary_row(summary: Mapping[str, Any]) -> dict[str, Any]:
    row: dict[str, Any] = {}
    for key, value in summary.items():
        if key == "drops" and isinstance(value, Mapping):
            row.update({f"drops.{reason}": n for reason, n in value.items()})
        elif key in ("flows", "starved_flow_ids"):
            continue
        elif isinstance(value, Mapping):
            row.update(
                {f"{key}.{k}": v for k, v in value.items() if not isinstance(v, (list, dict))}
            )
        elif not isinstance(value, list):
            row[key] = value
    row["flows"] = len(summary.get("flows", []))
    return row


def _failed_frame(records: list[dict[str, Any]]) -> pd.DataFrame:
    params = _param_names(records)
    rows = []
    for r in records:
        row = {"run_id": r.get("run_id"), "seed": r.get("seed")}
        row.update({p: _scalar(r.get("params", {}).get(p)) for p in params})
        row["error_type"] = r.get("error_type")
        row["error"] = "; ".join(r.get("errors", []))
        rows.append(row)
    df = pd.DataFrame(rows, columns=["run_id", "seed", *params, "error_type", "error"])
    df.attrs["params"] = params
    return df


def _read_json(path: Path) -> dict[str, Any]:
    with open(path, encoding="utf-8") as f:
        data = json.load(f)
    return data if isinstance(data, dict) else {}


def _atomic_json(path: Path, data: Mapping[str, Any]) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(f".{path.name}.{uuid.uuid4().hex[:8]}.tmp")
    try:
        tmp.write_text(json.dumps(data, indent=2, allow_nan=False) + "\n", encoding="utf-8")
        os.replace(tmp, path)
    finally:
        tmp.unlink(missing_ok=True)
