"""Results of one run: the summary dict and tidy tables (pandas, Arrow, Parquet).

The end-of-run tables come in the core's report; the per-bin trace tables
(``airqueue.traces``) were streamed while the run went, either into Arrow batches held
here or into Parquet files of the output directory, read from disk when asked for.
"""

from __future__ import annotations

import json
import os
import shutil
from collections.abc import Callable, Mapping
from datetime import datetime, timezone
from functools import partial
from pathlib import Path
from typing import Any

import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq

from airqueue import _core
from airqueue.errors import SimulationError
from airqueue.traces import TRACE_SCHEMAS, in_run_order

__all__ = ["TABLES", "Results"]

#: A trace table's source: an Arrow table, a Parquet file, or None when the run did not
#: keep it (``run(..., traces=False)``).
TraceSource = pa.Table | Path | None

#: The tables every run reports, in the order they are written.
TABLES = (
    "flows",
    "timeseries",
    "drops",
    "flow_drops",
    "queues",
    "nodes",
    "mac",
    "mac_levels",
    "tcp",
    "cwnd",
    "rates",
    "tfrc",
    "more",
    "routing",
    "routes",
    "links",
)


class Results:
    """What one run produced.

    ``summary`` is the ``airqueue run --json`` object; ``flows``, ``timeseries``,
    ``drops``, ``queues`` and ``nodes`` are DataFrames with one row per observation.
    ``traces`` gives the per-bin tables (``airqueue.traces.TRACE_TABLES``) as Arrow
    tables or Parquet files (read when first asked for); a table it names as None was
    not kept, and asking for it is an error. Tables in neither come from ``tables``'
    columns.
    """

    def __init__(
        self,
        *,
        summary: Mapping[str, Any],
        tables: Mapping[str, Mapping[str, list[Any]]],
        scenario: Mapping[str, Any] | None = None,
        traces: Mapping[str, TraceSource] | None = None,
    ) -> None:
        self.summary: dict[str, Any] = dict(summary)
        self.scenario: dict[str, Any] = dict(scenario or {})
        traces = traces or {}
        self._sources: dict[str, TraceSource] = {
            name: traces[name] if name in traces else _to_arrow(name, tables.get(name, {}))
            for name in TABLES
        }
        self._frames: dict[str, pd.DataFrame] = {}

    @classmethod
    def from_report(
        cls,
        report: Mapping[str, Any],
        *,
        scenario: Mapping[str, Any],
        traces: Mapping[str, TraceSource] | None = None,
    ) -> Results:
        """Builds Results from a successful core report (``{"ok": true, ...}``) and the
        trace tables streamed during the run."""
        summary, tables = report.get("summary"), report.get("tables", {})
        if not isinstance(summary, dict) or not isinstance(tables, dict):
            raise SimulationError("internal error: report lacks 'summary' or 'tables'")
        return cls(summary=summary, tables=tables, scenario=scenario, traces=traces)

    @property
    def seed(self) -> int | None:
        """The seed the run used."""
        return self.summary.get("seed")

    def table(self, name: str) -> pd.DataFrame:
        """One table by name (see ``TABLES``) as a DataFrame."""
        if name not in self._frames:
            self._frames[name] = self.arrow(name).to_pandas()
        return self._frames[name]

    def arrow(self, name: str) -> pa.Table:
        """One table by name as a pyarrow Table (a trace table in the order of
        ``airqueue.traces.in_run_order``)."""
        if name not in self._sources:
            raise KeyError(f"no table {name!r}; tables are {', '.join(TABLES)}")
        source = self._sources[name]
        if source is None:
            raise ValueError(
                f"the {name!r} table was not kept: the run was made with traces=False; "
                "run it again without it (or with --out DIR) to get the trace tables"
            )
        if isinstance(source, Path):
            return in_run_order(name, pq.read_table(source))
        if name in TRACE_SCHEMAS:
            return in_run_order(name, source)
        return source

    def num_rows(self, name: str) -> int | None:
        """Rows of table ``name`` without loading it; None when it was not kept."""
        source = self._sources[name]
        if source is None:
            return None
        if isinstance(source, Path):
            return int(pq.ParquetFile(source).metadata.num_rows)
        return int(source.num_rows)

    @property
    def flows(self) -> pd.DataFrame:
        """Per-flow figures: one row per flow."""
        return self.table("flows")

    @property
    def timeseries(self) -> pd.DataFrame:
        """Per-flow goodput per time bin: one row per (flow, bin)."""
        return self.table("timeseries")

    @property
    def drops(self) -> pd.DataFrame:
        """Drops by node and reason."""
        return self.table("drops")

    @property
    def flow_drops(self) -> pd.DataFrame:
        """Drops of flows' packets by flow, node, reason and ``at_origin`` (1 when the
        node created the packet: a flow's source for data, its destination for TCP ACKs).
        """
        return self.table("flow_drops")

    @property
    def queues(self) -> pd.DataFrame:
        """Queue length per node, sampled at every time-series bin boundary; for a node
        whose radio queue is DQM (seed 004) also ``q_ref_pkts`` (its reference length
        q.ref, packets); for a node whose queue is DQM, CoDel or FQ-CoDel,
        ``queue_delay_s`` (mean enqueue-to-dequeue time of the packets that left it
        during the bin, NaN when none did); NaN for every other node."""
        return self.table("queues")

    @property
    def nodes(self) -> pd.DataFrame:
        """Node positions: one row per node (NaN for a BSS's wired hosts, which have no
        radio and no place on the channel)."""
        return self.table("nodes")

    @property
    def mac(self) -> pd.DataFrame:
        """802.11 MAC counters per node (empty for the wired medium)."""
        return self.table("mac")

    @property
    def mac_levels(self) -> pd.DataFrame:
        """802.11 data frames, failed attempts and retry-limit drops per node and level."""
        return self.table("mac_levels")

    @property
    def tcp(self) -> pd.DataFrame:
        """One row per TCP flow: final cwnd/ssthresh/RTT/RTO, retransmissions, timeouts."""
        return self.table("tcp")

    @property
    def tfrc(self) -> pd.DataFrame:
        """One row per TFRC flow: final allowed rate, RTT, loss-event rate, events."""
        return self.table("tfrc")

    @property
    def more(self) -> pd.DataFrame:
        """One row per MORE flow: batches decoded, coded packets sent, receptions, ACKs."""
        return self.table("more")

    @property
    def routing(self) -> pd.DataFrame:
        """Routing counters per node; empty with static routing. AODV: requests
        originated and relayed, replies, errors, discoveries started, succeeded and
        failed, link breaks, control packets lost, and with ``local_repair`` the local
        repairs started and failed. OLSR: HELLOs and TCs sent, relayed and
        received, duplicates, route recalculations and changes, control packets lost,
        and the final symmetric neighbours, MPRs, MPR selectors, mean link ETX, lowest
        LQ and mean ETX of the next-hop links (docs/routing.md)."""
        return self.table("routing")

    @property
    def cwnd(self) -> pd.DataFrame:
        """Per-flow TCP trace at every bin boundary: cwnd, ssthresh, smoothed RTT, RTO and
        the retransmissions and timeouts so far."""
        return self.table("cwnd")

    @property
    def rates(self) -> pd.DataFrame:
        """Sending rate of every rate-controlled flow at every bin boundary from its
        start: ``kind`` ``"diffq"`` (DiffQ source rate control, seed 000 section 4.1) or
        ``"flow_control"`` (backpressure flow control, seed 002 eq. (5)) or ``"external"``
        (a Python ``RateController``, ``cc = "external"``), with ``source_queue_pkts`` the
        source queue the controller reads; ``"tfrc"``: TFRC's allowed rate X (RFC 5348),
        no queue."""
        return self.table("rates")

    @property
    def routes(self) -> pd.DataFrame:
        """Each flow's path: one row per (flow, hop, node), hop 0 the source, over the
        run's static routing table (under AODV/OLSR: the idle network's shortest paths)."""
        return self.table("routes")

    @property
    def links(self) -> pd.DataFrame:
        """Neighbour pairs ``a < b``: ``radio`` where the received power (``rx_power_dbm``)
        reaches the receive threshold, ``wire`` for wires; with ``distance_m``."""
        return self.table("links")

    def view(self, out: str | os.PathLike[str]) -> Path:
        """Writes the HTML run viewer of these results to ``out`` (``airqueue view``;
        see docs/viewer.md). Returns the path."""
        from airqueue.view import view_results

        return view_results(self, out)

    def to_json(self, *, indent: int | None = None) -> str:
        """The summary as JSON text (the ``airqueue run --json`` object)."""
        return json.dumps(self.summary, indent=indent, allow_nan=False)

    def manifest(self) -> dict[str, Any]:
        """What ``write`` puts in manifest.json: provenance plus the summary."""
        return {
            "airqueue_version": _core.version(),
            "git_hash": _core.git_hash(),
            "created_utc": datetime.now(timezone.utc).isoformat(timespec="seconds"),
            "seed": self.seed,
            "scenario": self.scenario,
            "tables": {name: f"{name}.parquet" for name in TABLES},
            "summary": self.summary,
        }

    def write(self, out_dir: str | os.PathLike[str]) -> Path:
        """Writes ``<table>.parquet`` per table and ``manifest.json`` into ``out_dir``.

        Each file is written under a temporary name and renamed, the manifest last, so a
        directory with a manifest is complete. A trace table held in memory is written in
        run order (``in_run_order``); one already on disk (streamed there by ``run(...,
        out=DIR)``, by time then flow or node) is copied, or left in place. Returns the
        directory.
        """
        out = Path(out_dir)
        missing = [n for n, source in self._sources.items() if source is None]
        if missing:
            raise ValueError(
                f"cannot write {out}: the {', '.join(missing)} tables were not kept "
                "(traces=False); run again with out=DIR or without traces=False"
            )
        out.mkdir(parents=True, exist_ok=True)
        for name, source in self._sources.items():
            target = out / f"{name}.parquet"
            if isinstance(source, Path):
                if not (target.exists() and os.path.samefile(source, target)):
                    _atomic(target, partial(shutil.copyfile, source))
            else:
                _atomic(target, partial(pq.write_table, self.arrow(name)))
        text = json.dumps(self.manifest(), indent=2, allow_nan=False) + "\n"
        _atomic(out / "manifest.json", lambda tmp: tmp.write_text(text, encoding="utf-8"))
        return out

    def __repr__(self) -> str:
        rows = ", ".join(f"{n}={self.num_rows(n)}" for n in TABLES)
        return f"Results(name={self.summary.get('name')!r}, seed={self.seed}, rows: {rows})"


def _to_arrow(name: str, columns: Mapping[str, list[Any]]) -> pa.Table:
    try:
        arrays = {col: pa.array(values) for col, values in columns.items()}
    except (pa.ArrowException, TypeError, ValueError) as e:
        raise SimulationError(f"internal error: malformed table {name!r}: {e}") from None
    # An empty or all-null column has no type of its own; give it the one its name implies,
    # so tables from different runs have one schema.
    arrays = {
        col: arr.cast(_type_by_name(col)) if pa.types.is_null(arr.type) else arr
        for col, arr in arrays.items()
    }
    try:
        return pa.table(arrays)
    except (pa.ArrowException, ValueError) as e:
        raise SimulationError(f"internal error: malformed table {name!r}: {e}") from None


_TEXT_COLUMNS = {"reason", "kind", "name", "scheme", "series", "state"}
_FLOAT_COLUMNS = {"cwnd_pkts", "ssthresh_pkts", "busy_fraction", "loss_event_rate", "q_ref_pkts"}
_FLOAT_SUFFIXES = ("_s", "_bps", "_m", "_db", "_dbm", "_ratio", "_frac", "_index", "_utility")


def _type_by_name(column: str) -> pa.DataType:
    if column in _TEXT_COLUMNS:
        return pa.string()
    if column in _FLOAT_COLUMNS or column.endswith(_FLOAT_SUFFIXES):
        return pa.float64()
    return pa.int64()


def _atomic(path: Path, write: Callable[[Path], object]) -> None:
    tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    try:
        write(tmp)
        os.replace(tmp, path)
    finally:
        tmp.unlink(missing_ok=True)
