"""AODV routing through the Python API: counters in the summary and the routing table,
AODV's drop reasons among the others, and the clear refusals."""

from __future__ import annotations

from pathlib import Path

import pandas as pd
import pytest
from typer.testing import CliRunner

import airqueue
from airqueue import ConfigError
from airqueue.cli import app

EXAMPLE = Path(__file__).resolve().parent.parent / "examples" / "aodv-grid.toml"

COUNTERS = {
    "rreq_originated",
    "rreq_forwarded",
    "rrep_sent",
    "rerr_sent",
    "discoveries_started",
    "discoveries_succeeded",
    "discoveries_failed",
    "link_breaks",
}


@pytest.fixture(scope="module")
def grid() -> airqueue.Results:
    return airqueue.run(EXAMPLE, duration=10.0)


def test_aodv_grid_reports_routing_counters(grid: airqueue.Results) -> None:
    routing = grid.summary["routing"]
    assert routing["kind"] == "aodv"
    assert COUNTERS <= routing.keys()
    # Two flows, each found its route by discovery, with requests relayed by others.
    assert routing["discoveries_succeeded"] >= 2
    assert routing["rreq_forwarded"] > routing["rreq_originated"] > 0
    assert routing["rrep_sent"] >= 2
    table = grid.routing
    assert isinstance(table, pd.DataFrame)
    assert list(table["node"]) == list(range(16))
    for name in COUNTERS:
        assert int(table[name].sum()) == routing[name], name
    # The flows' sources started the discoveries.
    starts = table.set_index("node")["discoveries_started"]
    assert starts[0] >= 1 and starts[12] >= 1
    assert all(f["packets_delivered"] > 0 for f in grid.summary["flows"])
    assert grid.summary["conservation"]["holds"]


def test_aodv_drop_reasons_are_reported_like_the_others(grid: airqueue.Results) -> None:
    drops = grid.summary["drops"]
    for reason in (
        "no_route_buffer_full",
        "no_route_timeout",
        "route_discovery_failed",
        "link_broken",
    ):
        assert reason in drops
    assert "mac_retry_limit" in drops


def test_static_runs_have_an_empty_routing_table() -> None:
    sc = airqueue.Scenario.load(EXAMPLE).with_overrides({"routing.kind": "static"})
    res = airqueue.run(sc, duration=3.0)
    assert res.summary["routing"] == {"kind": "static"}
    # No protocol, no report: the table has only its node column.
    assert res.routing.empty and list(res.routing.columns) == ["node"]


def test_aodv_with_another_queue_is_refused() -> None:
    sc = airqueue.Scenario.load(EXAMPLE).with_overrides({"queue.kind": "red"})
    with pytest.raises(ConfigError, match=r"routing\.kind.*queue\.kind"):
        airqueue.run(sc, duration=1.0)


def test_the_cli_shows_aodv_overhead() -> None:
    result = CliRunner().invoke(app, ["run", str(EXAMPLE), "--duration", "5"])
    assert result.exit_code == 0, result.output
    line = next(ln for ln in result.output.splitlines() if ln.startswith("aodv:"))
    assert "discoveries 2/2 (failed 0)" in line and "link breaks" in line


def test_hello_link_detection_shows_hellos_in_the_counters() -> None:
    sc = airqueue.Scenario.load(EXAMPLE).with_overrides({"routing.link_detection": "hello"})
    res = airqueue.run(sc, duration=6.0)
    routing = res.summary["routing"]
    assert routing["hellos_sent"] > 0
    assert int(res.routing["hellos_sent"].sum()) == routing["hellos_sent"]
    assert all(f["packets_delivered"] > 0 for f in res.summary["flows"])


def test_mac_link_detection_sends_no_hellos(grid: airqueue.Results) -> None:
    assert grid.summary["routing"]["hellos_sent"] == 0


def test_local_repair_adds_its_counters_only_when_on(grid: airqueue.Results) -> None:
    assert "local_repairs" not in grid.summary["routing"]
    assert "local_repairs" not in grid.routing.columns
    sc = airqueue.Scenario.load(EXAMPLE).with_overrides({"routing.local_repair": True})
    res = airqueue.run(sc, duration=6.0)
    routing = res.summary["routing"]
    for key in ("local_repairs", "local_repair_failures"):
        assert int(res.routing[key].sum()) == routing[key]
    assert routing["local_repair_failures"] <= routing["local_repairs"]
    assert res.summary["conservation"]["holds"]
