"""``diffq-more --quick`` (seed 000 sections 2 and 6.2, Table 2's MORE row): MORE against
DiffQ-MORE on the random mesh, and one MORE flow alone over 1-4 hops."""

from __future__ import annotations

import math

import pytest

import airqueue
from airqueue.errors import ConfigError
from airqueue.reproduce import diffq_more as dm
from airqueue.reproduce.registry import IN_ALL, REPRODUCTIONS

PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"


@pytest.fixture(scope="module")
def quick(tmp_path_factory):
    out = tmp_path_factory.mktemp("diffq-more")
    return airqueue.reproduce("diffq-more", quick=True, out=out, serial=True)


def test_registered_for_seed_000_and_in_all():
    assert REPRODUCTIONS["diffq-more"][0] == "airqueue.reproduce.diffq_more"
    assert REPRODUCTIONS["diffq-more"][2] == "000"
    assert "diffq-more" in IN_ALL


def test_rows_paper_values_and_figures(quick):
    assert quick.params["quick"] is True and quick.params["seeds"] == 3
    chain = [r for r in quick.rows if "(Table 2)" in r.metric]
    assert len(chain) == 2 * 4
    mesh = [r for r in quick.rows if " flows: " in r.metric and not r.metric.startswith("Fig. 8")]
    # schemes x flow counts (4, 32) x metrics, and MORE's share below 100 kb/s per count
    assert len(mesh) == 2 * 2 * 4 + 2
    below = quick.row("MORE, 32 flows: fraction of flows below 100 kb/s (Fig. 1a)")
    starved_32 = quick.row("MORE, 32 flows: fraction of flows starved < 1 kb/s (Figs. 1a, 7; text)")
    assert starved_32.ours <= below.ours <= 1.0
    for r in chain + mesh:
        assert r.ours is not None and math.isfinite(r.ours), r.metric
    for h, mbps in dm.TABLE2_MORE_MBPS.items():
        name = f"MORE, {h} hop{'s' if h > 1 else ''}: goodput alone, Mb/s (Table 2)"
        assert quick.row(name).paper == mbps
    starved = "32 flows: fraction of flows starved < 1 kb/s (Figs. 1a, 7; text)"
    assert quick.row(f"MORE, {starved}").paper == 0.5
    assert quick.row(f"DiffQ-MORE, {starved}").paper == 0.18
    papers = [r for r in quick.rows if r.paper is not None]
    assert len(papers) == 4 + 2, "paper values only where the paper states numbers"
    assert any(r.metric.startswith("Fig. 8") for r in quick.rows)
    for png in ("cdf.png", "goodput-by-hops.png", "fig8.png"):
        assert (quick.out / png).read_bytes()[:8] == PNG_SIGNATURE
    assert any("conservation held in every run" in n for n in quick.notes)


def test_one_flow_slows_down_with_every_hop(quick):
    # Every hop of a chain shares one channel: each relay's broadcasts take air time
    # from the source's (and the first hops' nodes hear each other).
    for scheme in dm.SCHEMES:
        g = [
            quick.row(
                f"{scheme}, {h} hop{'s' if h > 1 else ''}: goodput alone, Mb/s (Table 2)"
            ).ours
            for h in (1, 2, 3, 4)
        ]
        assert g[0] > g[1] > g[2] > g[3] > 0, (scheme, g)


def test_diffq_more_starves_fewer_flows_than_more_at_32_flows(quick):
    # MORE's sources broadcast as fast as the MAC lets them, whatever the network
    # holds; with 32 of them the channel near every source is taken by packets that
    # die in queues downstream (section 2's congestion collapse). DiffQ's rate control
    # throttles sources whose queues grow.
    starved = "32 flows: fraction of flows starved < 1 kb/s (Figs. 1a, 7; text)"
    more = quick.row(f"MORE, {starved}").ours
    dq = quick.row(f"DiffQ-MORE, {starved}").ours
    assert more > dq, (more, dq)
    # Starvation under MORE grows with load.
    assert (
        more
        > quick.row("MORE, 4 flows: fraction of flows starved < 1 kb/s (Figs. 1a, 7; text)").ours
    )


def test_scenarios():
    config = dm.Config.make(True, None)
    sc = dm.chain_scenario(config, "MORE", 3)
    assert sc["topology"] == {"kind": "chain", "nodes": 4, "spacing": 200.0}
    assert sc["flow"][0]["kind"] == "more" and sc["flow"][0]["dst"] == 3
    assert "cc" not in sc["flow"][0] and sc["queue"]["kind"] == "droptail"
    mesh = dm.mesh_scenario(config, "DiffQ-MORE", 8)
    assert mesh["flows"]["random"] == 8 and mesh["flows"]["cc"] == "diffq"
    assert mesh["queue"]["kind"] == "diffq" and mesh["mac"]["levels"] == "diffq8"
    assert mesh["topology"]["nodes"] == 46
    assert "tx_buffer" not in mesh["mac"] and "link" not in mesh and "link" not in sc
    assert not {"send_cost", "receive_cost", "receive_buffer"} & set(mesh["flows"])


def test_user_space_costs_are_counterfactuals():
    """``send_cost`` and ``receive_cost`` reach every MORE flow of the mesh and the chain,
    with the socket buffer; the defaults leave them out (test_scenarios)."""
    config = dm.Config.make(False, {"send_cost": 0.005, "receive_buffer": 20})
    mesh = dm.mesh_scenario(config, "DiffQ-MORE", 32)
    keys = ("send_cost", "receive_cost", "receive_buffer")
    assert [mesh["flows"][k] for k in keys] == [0.005, 0.0, 20]
    chain = dm.chain_scenario(config, "MORE", 2)
    assert [chain["flow"][0][k] for k in keys] == [0.005, 0.0, 20]
    assert "process_acks" not in chain["flow"][0]
    acks = dm.Config.make(False, {"send_cost": 0.005, "process_acks": True})
    assert dm.chain_scenario(acks, "MORE", 2)["flow"][0]["process_acks"] is True
    assert dm.mesh_scenario(acks, "MORE", 32)["flows"]["process_acks"] is True


def test_driver_buffer_and_link_loss_are_counterfactuals():
    """``driver_buffer`` and ``link_loss`` reach the mesh's and the chain's scenarios
    (``[mac] tx_buffer``, one ``[[link]]`` per pair of their nodes); the defaults leave
    both out (test_scenarios)."""
    config = dm.Config.make(False, {"driver_buffer": 200, "link_loss": 0.04})
    mesh = dm.mesh_scenario(config, "MORE", 32)
    assert mesh["mac"]["tx_buffer"] == 200
    assert len(mesh["link"]) == 46 * 45 // 2 and {lk["loss"] for lk in mesh["link"]} == {0.04}
    chain = dm.chain_scenario(config, "DiffQ-MORE", 2)
    assert chain["mac"]["tx_buffer"] == 200
    assert [(lk["a"], lk["b"]) for lk in chain["link"]] == [(0, 1), (0, 2), (1, 2)]


@pytest.mark.parametrize(
    "params, needle",
    [
        ({"hops": [0, 2]}, "hops"),
        ({"flow_counts": []}, "flow_counts"),
        ({"batch": 40}, "batch"),
        ({"schemes": ["ExOR"]}, "scheme"),
        ({"fading": "rice"}, "fading"),
        ({"driver_buffer": 0}, "driver_buffer must be .*1..=512"),
        ({"link_loss": 1.5}, "link_loss must be a probability"),
        ({"send_cost": 0.2}, r"send_cost: expected seconds in \[0, 0.1\]"),
        ({"receive_cost": "x"}, "receive_cost"),
        ({"receive_buffer": 0}, "receive_buffer"),
        ({"process_acks": "yes"}, "parameter process_acks: expected bool"),
    ],
)
def test_bad_parameters_are_named(tmp_path, params, needle):
    with pytest.raises(ConfigError, match=needle):
        airqueue.reproduce("diffq-more", quick=True, out=tmp_path, serial=True, params=params)


def test_fig8_trend_is_the_rank_correlation_over_scenarios_pooled():
    """Fig. 8's trend on a hand-made table: two scenarios' flows, path ETX and the
    normalised difference; the rank correlation of the pooled flows, its sign and a
    bootstrap interval that redraws whole scenarios."""
    import numpy as np
    import pandas as pd

    points = pd.DataFrame(
        {
            "seed": [1, 1, 1, 2, 2, 2],
            "etx": [1, 2, 3, 1, 2, 4],
            "diff": [0.0, 1.0, 5.0, -0.5, 2.0, 3.0],
        }
    )
    # The goodputs behind it (b/s): MORE at the 1 kb/s floor, DiffQ-MORE (1 + diff) times it.
    points = points.assign(more=1e3, dq=1e3 * (1 + points["diff"]))
    rho, lo, hi = dm.fig8_trend(points)
    ranks = points[["etx", "diff"]].rank()
    assert rho == pytest.approx(np.corrcoef(ranks["etx"], ranks["diff"])[0, 1])
    assert rho > 0 and lo <= rho <= hi
    falling, _, high = dm.fig8_trend(points.assign(diff=-points["diff"]))
    assert falling == pytest.approx(-rho) and high <= 0
    row = dm._fig8_rows(points, dm.Config())[0]
    assert row.metric.startswith("Fig. 8: rank correlation (Spearman)") and row.ours == rho
    claim = next(c for c in dm.CLAIMS if c.id == "000-fig8-etx-gain-grows")
    assert claim.measure.metric == row.metric
