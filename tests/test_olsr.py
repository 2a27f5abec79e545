"""OLSR-ETX through the Python API: counters in the summary and the routing table, the
CLI's overhead line, and the refusals."""

from __future__ import annotations

from pathlib import Path

import pandas as pd
import pytest
from typer.testing import CliRunner

import airqueue
from airqueue import ConfigError
from airqueue.cli import app

EXAMPLE = Path(__file__).resolve().parent.parent / "examples" / "olsr-mesh.toml"

COUNTERS = {
    "hellos_sent",
    "hellos_received",
    "tcs_originated",
    "tcs_forwarded",
    "tc_duplicates",
    "route_recomputations",
    "route_changes",
    "control_drops",
}


@pytest.fixture(scope="module")
def mesh() -> airqueue.Results:
    return airqueue.run(EXAMPLE, duration=8.0)


def test_olsr_reports_routing_counters(mesh: airqueue.Results) -> None:
    routing = mesh.summary["routing"]
    assert routing["kind"] == "olsr"
    assert COUNTERS <= routing.keys()
    table = mesh.routing
    assert isinstance(table, pd.DataFrame)
    assert list(table["node"]) == list(range(25))
    for name in COUNTERS:
        assert int(table[name].sum()) == routing[name], name
    # Every node sends a HELLO every 2 s (minus jitter): 3 to 5 in 8 s.
    assert table["hellos_sent"].between(3, 5).all()
    # TCs travel further than one hop: relayed by MPRs, some copies heard twice.
    assert routing["tcs_forwarded"] > routing["tcs_originated"] > 0
    assert routing["tc_duplicates"] > 0
    # A grid node has 2 to 4 neighbours within 250 m; under load a link may be down at
    # the end (three HELLOs lost in a row), but most are symmetric. Broadcast HELLOs are
    # not retried, so a busy node may hold no symmetric link at all at the end.
    assert table["sym_neighbors"].between(0, 4).all()
    assert table["sym_neighbors"].mean() > 2.5
    assert 0.0 < routing["min_lq"] <= 1.0
    assert routing["mean_link_etx"] >= 1.0
    assert mesh.summary["conservation"]["holds"]
    assert all(f["packets_delivered"] > 0 for f in mesh.summary["flows"])


def test_hop_metric_and_no_warm_start_are_accepted() -> None:
    sc = airqueue.Scenario.load(EXAMPLE).with_overrides(
        {"routing.metric": "hops", "routing.warm_start": False}
    )
    res = airqueue.run(sc, duration=3.0)
    # Without the warm start, 3 s are too few for TCs: routes reach neighbours only.
    assert res.summary["routing"]["kind"] == "olsr"
    assert res.summary["drops"]["no_route"] > 0


def test_bad_olsr_keys_are_refused() -> None:
    sc = airqueue.Scenario.load(EXAMPLE).with_overrides({"routing.lq_window": 0})
    with pytest.raises(ConfigError, match=r"routing\.lq_window"):
        airqueue.run(sc, duration=3.0)
    sc = airqueue.Scenario.load(EXAMPLE).with_overrides(
        {"routing.kind": "static", "routing.hello_interval": 1.0}
    )
    # metric = "etx" is fine with static; an OLSR key is not.
    with pytest.raises(ConfigError, match=r"routing\.hello_interval.*olsr"):
        airqueue.run(sc, duration=3.0)


def test_the_link_quality_estimator_is_chosen_by_name() -> None:
    base = airqueue.Scenario.load(EXAMPLE)
    res = airqueue.run(
        base.with_overrides({"routing.lq_algorithm": "hello_window", "routing.lq_window": 12}),
        duration=3.0,
    )
    assert res.summary["routing"]["kind"] == "olsr"
    with pytest.raises(ConfigError, match=r"routing\.lq_algorithm.*etx_ff"):
        airqueue.run(base.with_overrides({"routing.lq_algorithm": "etx_fpm"}), duration=3.0)
    # The window belongs to the HELLO-window estimator, not to the default etx_ff.
    with pytest.raises(ConfigError, match=r"routing\.lq_window.*hello_window"):
        airqueue.run(base.with_overrides({"routing.lq_window": 12}), duration=3.0)


def test_the_cli_shows_olsr_overhead() -> None:
    result = CliRunner().invoke(app, ["run", str(EXAMPLE), "--duration", "3"])
    assert result.exit_code == 0, result.output
    line = next(ln for ln in result.output.splitlines() if ln.startswith("olsr:"))
    assert "HELLO" in line and "route changes" in line


def test_the_single_path_reproduction_runs_on_olsr_by_default() -> None:
    """Issue 6: "static ETX routing until OLSR exists"; the testbed ran OLSR-ETX (seed
    000, section 6.1). Static routes stay one parameter away, for the mesh and the
    ablation that runs on it."""
    from airqueue.reproduce import diffq_ablation as ab
    from airqueue.reproduce import diffq_single_path as sp

    config = sp.Config.make(quick=True, params=None)
    assert config.routing == "olsr"
    assert ab.Config.make(quick=True, params=None).routing == "olsr"
    assert sp.Config.make(quick=True, params={"routing": "static"}).routing == "static"
    assert ab.Config.make(quick=True, params={"routing": "static"}).routing == "static"
    with pytest.raises(ValueError, match='diffq-ablation: routing must be "static" or "olsr"'):
        ab.Config.make(quick=True, params={"routing": "aodv"})
    sc = sp.scheme_scenario(
        "DiffQ-TCP",
        name="t",
        duration=5.0,
        nodes=10,
        area=(400.0, 400.0),
        flows=2,
        packet_size=1400,
        queue_capacity=50,
        delayed_ack=True,
        routing=config.routing,
    )
    assert sc["routing"] == {"kind": "olsr", "metric": "etx", "tc_redundancy": 2}
    assert sc["queue"]["kind"] == "diffq"
    res = airqueue.run(airqueue.Scenario.from_dict(sc))
    assert res.summary["routing"]["kind"] == "olsr"
    assert res.summary["conservation"]["holds"]
    with pytest.raises(ValueError, match="routing"):
        sp.run(
            quick=True,
            out=Path("/nonexistent"),
            workers=1,
            serial=True,
            progress=False,
            params={"routing": "aodv"},
        )
