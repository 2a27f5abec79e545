"""The per-bin trace tables (``timeseries``, ``queues``, ``cwnd``, ``rates``) as the core
streams them: typed column chunks while the run goes, appended as Parquet row groups to
the output directory (``TraceFiles``) or kept as Arrow record batches (``TraceBatches``),
so that no run holds its traces as Python objects and a run to disk holds at most one
flush (``crates/scenario/src/api.rs``, ``FLUSH_ROWS``).

Rows arrive in the order the run closes them: by time, then flow or node. ``in_run_order``
puts a table back in the order the whole-run report had (flow by flow for ``timeseries``,
``cwnd`` and ``rates``), which is what ``Results`` hands out.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq

from airqueue.errors import SimulationError

__all__ = ["TRACE_SCHEMAS", "TRACE_TABLES", "TraceBatches", "TraceFiles", "in_run_order"]

_I, _F, _S = pa.int64(), pa.float64(), pa.string()

#: Columns and types of each trace table, as stored (the same as before streaming).
TRACE_SCHEMAS: dict[str, pa.Schema] = {
    "timeseries": pa.schema(
        [
            ("flow", _I),
            ("t_start_s", _F),
            ("t_end_s", _F),
            ("packets_delivered", _I),
            ("goodput_bps", _F),
        ]
    ),
    "queues": pa.schema(
        [("t_s", _F), ("node", _I), ("len_pkts", _I), ("q_ref_pkts", _F), ("queue_delay_s", _F)]
    ),
    "cwnd": pa.schema(
        [
            ("flow", _I),
            ("t_s", _F),
            ("cwnd_pkts", _F),
            ("ssthresh_pkts", _F),
            ("srtt_s", _F),
            ("rto_s", _F),
            ("retransmissions", _I),
            ("timeouts", _I),
        ]
    ),
    "rates": pa.schema(
        [("flow", _I), ("t_s", _F), ("kind", _S), ("rate_bps", _F), ("source_queue_pkts", _I)]
    ),
}

TRACE_TABLES = tuple(TRACE_SCHEMAS)


def decode_chunk(chunk: Mapping[str, Mapping[str, Any]]) -> dict[str, pa.RecordBatch]:
    """One flush from the core (``crates/py``'s ``PySink``) as record batches."""
    out = {}
    for name, schema in TRACE_SCHEMAS.items():
        columns = chunk.get(name)
        if not isinstance(columns, Mapping) or set(columns) != set(schema.names):
            raise SimulationError(f"internal error: malformed trace chunk for {name!r}")
        arrays = [_array(columns[field.name], field.type) for field in schema]
        out[name] = pa.RecordBatch.from_arrays(arrays, schema=schema)
    return out


def _array(value: Any, type_: pa.DataType) -> pa.Array:
    if isinstance(value, list):
        return pa.array(value, type=type_)
    kind, data, *valid = value
    if kind == "f8":
        # NaN stands for null (a missing or non-finite value), as in the JSON tables.
        return pa.array(np.frombuffer(data, dtype="<f8"), type=type_, from_pandas=True)
    values = np.frombuffer(data, dtype="<i8")
    if kind == "i8?":
        return pa.array(values, type=type_, mask=np.frombuffer(valid[0], dtype=np.uint8) == 0)
    return pa.array(values, type=type_)


class TraceBatches:
    """Keeps every flush in memory as Arrow record batches (typed, compact)."""

    def __init__(self) -> None:
        self.batches: dict[str, list[pa.RecordBatch]] = {n: [] for n in TRACE_TABLES}
        self.error: BaseException | None = None

    def __call__(self, chunk: Mapping[str, Mapping[str, Any]]) -> None:
        try:
            for name, batch in decode_chunk(chunk).items():
                if batch.num_rows:
                    self.batches[name].append(batch)
        except BaseException as e:
            self.error = e
            raise

    def tables(self) -> dict[str, pa.Table]:
        return {
            name: pa.Table.from_batches(batches, schema=TRACE_SCHEMAS[name])
            for name, batches in self.batches.items()
        }


class TraceFiles:
    """Appends every flush to ``<out>/<table>.parquet`` as row groups while the run goes.

    The files are written under temporary names (``.<table>.parquet.<pid>.tmp``) and
    renamed by ``commit`` once the run has finished; ``abort`` removes them, so the
    directory never holds half a table under a table's name.
    """

    def __init__(self, out_dir: str | os.PathLike[str]) -> None:
        self.out = Path(out_dir)
        self._made_dir = not self.out.exists()
        self.out.mkdir(parents=True, exist_ok=True)
        self.error: BaseException | None = None
        self._tmp = {n: self.out / f".{n}.parquet.{os.getpid()}.tmp" for n in TRACE_TABLES}
        self._writers: dict[str, pq.ParquetWriter] = {}
        try:
            for name, schema in TRACE_SCHEMAS.items():
                self._writers[name] = pq.ParquetWriter(self._tmp[name], schema)
        except BaseException:
            self.abort()
            raise

    def __call__(self, chunk: Mapping[str, Mapping[str, Any]]) -> None:
        try:
            for name, batch in decode_chunk(chunk).items():
                if batch.num_rows:
                    self._writers[name].write_batch(batch)
        except BaseException as e:
            self.error = e
            raise

    def commit(self) -> dict[str, Path]:
        """Closes the files and gives them their tables' names; returns the paths."""
        self._close()
        final = {}
        for name, tmp in self._tmp.items():
            final[name] = self.out / f"{name}.parquet"
            os.replace(tmp, final[name])
        return final

    def abort(self) -> None:
        """Closes and removes the temporary files (and the directory, if this made it
        and it is empty)."""
        try:
            self._close()
        finally:
            for tmp in self._tmp.values():
                tmp.unlink(missing_ok=True)
            if self._made_dir and not any(self.out.iterdir()):
                self.out.rmdir()

    def _close(self) -> None:
        writers, self._writers = self._writers, {}
        for w in writers.values():
            w.close()


def in_run_order(name: str, table: pa.Table) -> pa.Table:
    """A trace table in the whole-run report's row order: ``timeseries`` and ``cwnd``
    flow by flow, ``rates`` the rate-controlled (DiffQ, flow control) flows' rows flow
    by flow and then the TFRC flows', ``queues`` as streamed (by time, then node). The
    sort is stable, so each flow's rows stay in time order."""
    if table.num_rows == 0 or name == "queues":
        return table
    keys: list[tuple[str, str]] = [("flow", "ascending")]
    if name == "rates":
        tfrc = pc.equal(table["kind"], "tfrc")
        table = table.append_column("__tfrc", tfrc)
        keys.insert(0, ("__tfrc", "ascending"))
    ordered = table.take(pc.sort_indices(table, sort_keys=keys))
    return ordered.drop_columns(["__tfrc"]) if name == "rates" else ordered
