"""The per-bin trace tables stream out of the core while the run goes: to Parquet files
with ``run(..., out=DIR)`` (row group by row group), to Arrow batches otherwise, or
nowhere with ``traces=False``; every mode is the same run, and every row arrives."""

from __future__ import annotations

from pathlib import Path

import pandas as pd
import pyarrow.parquet as pq
import pytest
from typer.testing import CliRunner

import airqueue
from airqueue import ConfigError
from airqueue.cli import app
from airqueue.traces import TRACE_SCHEMAS, TRACE_TABLES

# A wired 3-node chain with 2-ms bins over 40 s: 20,000 bins, so 80,000 trace rows
# (one flow's timeseries and three nodes' queues per bin), several flushes of the core.
LONG = {
    "name": "long",
    "duration": 40,
    "topology": {"kind": "chain", "nodes": 3, "spacing": 200},
    "medium": {"kind": "wired", "bandwidth": 1e6, "delay": 0.001},
    "flow": [
        {"kind": "udp", "src": 0, "dst": 2, "start": 0, "rate": "saturate", "packet_size": 1000}
    ],
    "outputs": {"bin": 0.002},
}
BINS = 20_000

WALL = {"wall_seconds", "events_per_second"}


def _summary(res: airqueue.Results) -> dict:
    return {k: v for k, v in res.summary.items() if k not in WALL}


@pytest.fixture(scope="module")
def in_memory() -> airqueue.Results:
    return airqueue.run(LONG)


def test_a_long_run_streams_every_row_to_disk(tmp_path: Path, in_memory) -> None:
    res = airqueue.run(LONG, out=tmp_path / "run")
    assert _summary(res) == _summary(in_memory)
    ts_file = pq.ParquetFile(tmp_path / "run" / "timeseries.parquet")
    assert ts_file.metadata.num_rows == BINS
    assert ts_file.metadata.num_row_groups > 1, "written as the run went, not at the end"
    for name in TRACE_TABLES:
        stored = pq.read_table(tmp_path / "run" / f"{name}.parquet")
        assert stored.schema == TRACE_SCHEMAS[name]
        pd.testing.assert_frame_equal(res.table(name), in_memory.table(name))
    ts = res.timeseries
    assert ts["t_start_s"].is_monotonic_increasing
    assert ts["t_end_s"].iloc[-1] == 40.0
    # Every packet delivered in the run is in exactly one bin.
    assert ts["packets_delivered"].sum() == res.flows["packets_delivered"].iloc[0]
    assert len(res.queues) == 3 * BINS and set(res.queues["node"]) == {0, 1, 2}
    assert sorted(p.name for p in (tmp_path / "run").iterdir()) == sorted(
        [f"{t}.parquet" for t in airqueue.TABLES] + ["manifest.json"]
    )


def test_without_traces_the_run_is_the_same_and_says_what_is_missing(in_memory) -> None:
    res = airqueue.run(LONG, traces=False)
    assert _summary(res) == _summary(in_memory)
    pd.testing.assert_frame_equal(res.flows, in_memory.flows)
    with pytest.raises(ValueError, match="'timeseries' table was not kept.*traces=False"):
        _ = res.timeseries
    with pytest.raises(ValueError, match="not kept"):
        res.write("unused")
    assert "timeseries=None" in repr(res)


def test_a_failing_writer_stops_the_run_and_leaves_no_file(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    def full(self: object, batch: object) -> None:
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(pq.ParquetWriter, "write_batch", full)
    with pytest.raises(OSError, match="No space left"):
        airqueue.run(LONG, out=tmp_path / "run")
    assert not (tmp_path / "run").exists()


def test_an_invalid_scenario_writes_nothing(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match="duration"):
        airqueue.run(dict(LONG, duration=-1), out=tmp_path / "run")
    assert not (tmp_path / "run").exists()


def test_cli_keeps_traces_only_for_an_output_directory(monkeypatch: pytest.MonkeyPatch) -> None:
    seen: dict = {}
    real = airqueue.run

    def spy(*args: object, **kwargs: object) -> airqueue.Results:
        seen.update(kwargs)
        return real(*args, **kwargs)

    monkeypatch.setattr(airqueue, "run", spy)
    result = CliRunner().invoke(app, ["run", "examples/chain-udp.toml", "--json"])
    assert result.exit_code == 0, result.output
    assert seen["out"] is None and seen["traces"] is False
