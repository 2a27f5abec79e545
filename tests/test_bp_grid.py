"""``bp-grid --quick`` (seed 002, Figs. 8, 10, 11): the per-seed layouts and the scenarios
built from them, the rows and figures, the parameter checks, and one physical result
that holds in our model for a reason."""

from __future__ import annotations

import math
from dataclasses import replace

import pytest
from shared import PNG_SIGNATURE

import airqueue
from airqueue.reproduce import bp_grid as bg
from airqueue.reproduce.registry import IN_ALL, REPRODUCTIONS

SACK0 = "grid, TCP-SACK, loss 0"


@pytest.fixture(scope="module")
def quick(tmp_path_factory):
    out = tmp_path_factory.mktemp("bp-grid")
    return airqueue.reproduce("bp-grid", quick=True, out=out, serial=True)


@pytest.fixture(scope="module")
def config():
    return bg.Config.make(True, None)


def test_registered_for_seed_002_and_run_by_all():
    assert REPRODUCTIONS["bp-grid"][0] == "airqueue.reproduce.bp_grid"
    assert REPRODUCTIONS["bp-grid"][2] == "002"
    assert "bp-grid" in IN_ALL


def test_full_config_is_the_papers_setup():
    c = bg.Config.make(False, None)
    assert (c.seeds, c.duration, c.variants) == (10, 200.0, ("sack", "vegas"))
    assert c.losses == (0.0, 0.2, 0.3, 0.4, 0.5)  # section 5.1's average loss rates
    assert (c.flows, c.packet_size, c.capacity, c.data_rate) == (4, 1000, 100, 2e6)
    assert c.start_window_s == 5.0


@pytest.mark.parametrize("seed", range(1, 11))
def test_layout_is_one_node_per_cell_connected_and_deterministic(config, seed):
    grid = bg.layout(config, seed)
    assert grid == bg.layout(config, seed)
    assert grid.positions_m[0] == bg.GATEWAY_M and len(grid.positions_m) == 13
    for i, (x, y) in enumerate(grid.positions_m[1:]):
        col, r = i % 4, i // 4
        assert 200 * col <= x <= 200 * (col + 1) and 200 * r <= y <= 200 * (r + 1)
    for a, b in grid.pairs:
        assert math.dist(grid.positions_m[a], grid.positions_m[b]) <= 250.0
    hops = bg._hop_distances(13, grid.pairs)
    assert sorted(hops) == list(range(13))  # the gateway reaches every node


def test_layouts_differ_between_seeds(config):
    layouts = [bg.layout(config, s) for s in range(1, 6)]
    assert len({g.positions_m for g in layouts}) == 5


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_half_the_links_are_lossy_at_positive_loss_and_none_at_zero(config, seed):
    grid = bg.layout(config, seed)
    lossy = bg.scenario(config, grid, "sack", "tcp_aware", loss=0.3)["link"]
    assert len(lossy) == len(grid.pairs) // 2
    assert {(x["a"], x["b"]) for x in lossy} <= set(grid.pairs)
    assert all(x["loss"] == 0.3 and x["fading"] == "rayleigh" for x in lossy)
    aodv = bg.scenario(config, grid, "sack", "aodv", loss=0.5)["link"]
    assert [(x["a"], x["b"]) for x in aodv] == [(x["a"], x["b"]) for x in lossy]
    assert "link" not in bg.scenario(config, grid, "sack", "tcp_aware", loss=0.0)


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_four_flows_from_the_gateway_to_distinct_nodes_within_5_s(config, seed):
    flows = bg.scenario(config, bg.layout(config, seed), "vegas", "classical")["flow"]
    assert len(flows) == 4 and all(f["src"] == 0 and f["variant"] == "vegas" for f in flows)
    dsts = [f["dst"] for f in flows]
    assert len(set(dsts)) == 4 and all(1 <= d <= 12 for d in dsts)
    assert all(0 <= f["start"] < 5.0 for f in flows)


def test_schemes_select_queue_and_routing(config):
    grid = bg.layout(config, 1)
    aware = bg.scenario(config, grid, "sack", "tcp_aware")
    assert aware["queue"]["kind"] == "backpressure" and aware["queue"]["variant"] == "tcp_aware"
    assert "routing" not in aware
    classical = bg.scenario(config, grid, "sack", "classical")
    assert classical["queue"]["variant"] == "classical"
    aodv = bg.scenario(config, grid, "sack", "aodv")
    assert aodv["routing"] == {"kind": "aodv"} and aodv["queue"]["kind"] == "droptail"
    repair = bg.scenario(replace(config, local_repair=True), grid, "sack", "aodv")
    assert repair["routing"] == {"kind": "aodv", "local_repair": True}
    assert aware["topology"] == {
        "kind": "explicit",
        "positions": [list(p) for p in grid.positions_m],
    }


def test_probe_is_one_flow_to_a_gateway_neighbour_over_the_one_lossy_link(config):
    grid = bg.layout(config, 2)
    sc = bg.probe_scenario(config, grid, "tcp_aware", 0.01)
    (flow,) = sc["flow"]
    assert flow["src"] == 0 and flow["start"] == 0.0 and flow["variant"] == "sack"
    assert (0, flow["dst"]) in grid.pairs
    assert sc["link"] == [{"a": 0, "b": flow["dst"], "loss": 0.01, "fading": "rayleigh"}]
    assert "link" not in bg.probe_scenario(config, grid, "aodv", 0.0)


def test_one_run_places_the_layout_and_accounts_for_every_packet(config):
    grid = bg.layout(config, 1)
    results = airqueue.run(bg.scenario(config, grid, "sack", "tcp_aware", loss=0.5))
    nodes = results.table("nodes").sort_values("node")
    assert list(zip(nodes["x_m"], nodes["y_m"], strict=True)) == list(grid.positions_m)
    flows = results.table("flows").sort_values("id")
    assert list(flows["dst"]) == list(grid.destinations)
    assert (flows["packets_delivered"] <= flows["packets_sent"]).all()
    span_s = flows["stop_s"] - flows["start_s"]
    assert flows["goodput_bps"].to_numpy() == pytest.approx(
        (flows["bytes_delivered"] * 8 / span_s).to_numpy()
    )
    per_bin = results.table("timeseries").groupby("flow")["packets_delivered"].sum()
    assert [int(per_bin.get(i, 0)) for i in flows["id"]] == list(flows["packets_delivered"])


def test_lossy_links_fade_by_default_and_erase_with_link_fading_none(config):
    # Section 5.1: "a Rayleigh fading channel with average loss rates 0, 20, 30, 40, 50
    # percent"; ``link_fading = "none"`` keeps the earlier independent erasures.
    grid = bg.layout(config, 1)
    faded = bg.scenario(config, grid, "sack", "tcp_aware", loss=0.2)
    erased = bg.scenario(replace(config, link_fading="none"), grid, "sack", "tcp_aware", 0.2)
    assert all(x.pop("fading") == "rayleigh" for x in faded["link"])
    assert faded == erased


def test_a_faded_link_loses_its_average_loss_on_the_air():
    # Nothing else on the air: an attempt fails when its data frame or its ACK is lost,
    # 1 - (1 - p)^2 with both directions fading at average loss p (docs/scenario.md).
    p = 0.3
    sc = {
        "duration": 20.0,
        "topology": {"kind": "explicit", "positions": [[0, 0], [200, 0]]},
        "radio": {"data_rate": 2e6, "basic_rate": 1e6},
        "link": [{"a": 0, "b": 1, "loss": p, "fading": "rayleigh"}],
        "flow": [{"kind": "udp", "src": 0, "dst": 1, "rate": 2e6, "packet_size": 1000}],
    }
    src = airqueue.run(sc).table("mac").set_index("node").loc[0]
    attempts = int(src["data_tx"])
    failed = int(src["retries"] + src["retry_limit_drops"])
    want = 1 - (1 - p) ** 2
    sd = math.sqrt(want * (1 - want) / attempts)
    assert attempts > 1000
    assert abs(failed / attempts - want) < 4 * sd, (failed, attempts, want)


def test_surviving_counts_flows_at_a_share_of_the_equal_share():
    import pandas as pd

    g = pd.DataFrame({0: [1000.0, 0.0], 1: [30.0, 0.0], 2: [20.0, 0.0], 3: [0.0, 0.0]})
    # seed 0: aggregate 1050, equal share 262.5, 10% of it 26.25: flows 0 and 1 survive
    assert list(bg.surviving(g, 0.1)) == [2, 0]


def test_quick_rows_are_well_formed(quick):
    assert quick.params["quick"] is True and quick.params["seeds"] == 2
    assert quick.params["variants"] == ("sack",) and quick.params["losses"] == (0.0, 0.5)
    # 4 layout rows; cases: classical at 0, TCP-aware and AODV at 0 and 0.5, 4 rows each;
    # one ratio per loss; the probe: 2 schemes x 2 losses.
    assert len(quick.rows) == 4 + 5 * 4 + 2 + 4
    assert all(r.paper is None for r in quick.rows)  # the paper gives no grid numbers
    for r in quick.rows:
        assert r.ours is not None and math.isfinite(r.ours), r.metric
        assert r.ci_low is not None and r.ci_high is not None, r.metric
        assert r.ci_low <= r.ours + 1e-9 and r.ours <= r.ci_high + 1e-9, r
        if "Jain" in r.metric:
            assert 0.25 - 1e-9 <= r.ours <= 1.0 + 1e-9, r
        if "surviving" in r.metric:
            assert 0 <= r.ours <= 4, r
    assert quick.row("layout: draws until connected").ours >= 1
    names = [r.metric for r in quick.rows]
    assert len(set(names)) == len(names)


def test_quick_figures_are_pngs(quick):
    assert [p.name for p in quick.figures] == ["grid-over-time.png", "grid-loss-sack.png"]
    for path in quick.figures:
        assert path.parent == quick.out
        assert path.read_bytes().startswith(PNG_SIGNATURE)


def test_quick_notes_check_each_claim(quick):
    claims = [n for n in quick.notes if n.startswith(("Fig. 8,", "Fig. 10,"))]
    assert len(claims) == 2
    assert all(n.endswith(("agrees.", "does not agree.")) for n in claims)


def test_classical_backpressure_starves_more_flows_than_aodv(quick):
    # Fig. 8's claim for classical BP ("one or more flows do not survive"), with network
    # coding as the paper ran it, TCP-SACK, loss 0: classical BP's smallest flow starves
    # and fewer flows survive than under AODV. (TCP-aware BP with coding delivers less than
    # AODV: its packets wander over the neighbours with the smallest reported queues and
    # TCP's RTT grows to seconds; docs/reproductions/backpressure.md. Not asserted.)
    classical_min = quick.row(f"Fig. 8, {SACK0}, classical BP: smallest flow's goodput, kb/s")
    assert classical_min.ci_high < 1.0, classical_min
    survive = {
        scheme: quick.row(f"Fig. {fig}, {SACK0}, {scheme}: surviving flows (of 4)")
        for fig, scheme in (("8", "classical BP"), ("10", "AODV"))
    }
    assert survive["AODV"].ours > survive["classical BP"].ours, survive


@pytest.mark.parametrize(
    ("params", "key"),
    [
        ({"variants": ["reno"]}, "variants"),
        ({"variants": []}, "variants"),
        ({"seeds": 0}, "seeds"),
        ({"duration": 0.0}, "duration"),
        ({"losses": [0.0, 1.0]}, "losses"),
        ({"losses": [0.2, 0.5]}, "losses"),
        ({"losses": ["high"]}, "losses"),
        ({"flows": 13}, "flows"),
        ({"tx_range_m": 0.0}, "tx_range_m"),
        ({"tx_range_m": 600.0}, "tx_range_m"),
        ({"start_window_s": 40.0}, "start_window_s"),
        ({"survive_share": 0.0}, "survive_share"),
        ({"probe_loss": 0.0}, "probe_loss"),
        ({"seeds": "ten"}, "seeds"),
        ({"nodes": 20}, "nodes"),
        ({"network_coding": "yes"}, "network_coding"),
        ({"coding_block": 0}, "coding_block"),
        ({"link_fading": "rician"}, "link_fading"),
    ],
)
def test_bad_parameters_are_refused_naming_the_key(params, key):
    with pytest.raises(ValueError, match=f"bp-grid.*{key}"):
        bg.Config.make(True, params)


def test_a_range_too_short_to_connect_fails_clearly(config):
    from dataclasses import replace

    short = replace(config, tx_range_m=50.0)
    with pytest.raises(ValueError, match="no layout of 1000 draws.*tx_range_m = 50"):
        bg.layout(short, 1)
