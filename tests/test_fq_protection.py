"""``fq-protection --quick`` (seed 001): rows, figures, the scenarios it builds, its
parameter checks, and the one qualitative result that holds robustly in our model."""

from __future__ import annotations

import math

import pandas as pd
import pytest

import airqueue
from airqueue.reproduce import fq_protection as fqp

PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"


@pytest.fixture(scope="module")
def quick(tmp_path_factory):
    out = tmp_path_factory.mktemp("fq-protection")
    return airqueue.reproduce("fq-protection", quick=True, out=out, serial=True)


def test_quick_rows_are_finite_and_inside_their_intervals(quick):
    assert quick.params["quick"] is True and quick.params["seeds"] == 2
    assert quick.params["schemes"] == fqp.QUICK_SCHEMES
    assert quick.rows
    for r in quick.rows:
        assert r.ours is not None and math.isfinite(r.ours), r.metric
        assert r.ci_low is not None and r.ci_high is not None, r.metric
        assert r.ci_low <= r.ours <= r.ci_high, r.metric


def test_quick_rows_carry_the_paper_values(quick):
    frac = "TCP goodput with UDP / without UDP"
    assert quick.row(f"drop-tail, retry 7/4: {frac} (Sec. 3.3)").paper == 0.10
    assert quick.row(f"FQ by IP destination: {frac} (Sec. 3.3 (2), Fig. 3)").paper == 0.64
    bp = quick.row(f"FQ by IP source + back-pressure 1: {frac} (Sec. 4.3 (1), 4.5)")
    assert bp.paper == 0.82
    # Comparisons whose schemes are not in the quick set are left out.
    assert not any("+95%" in r.metric for r in quick.rows)


def test_quick_figure_is_a_png(quick):
    assert [p.name for p in quick.figures] == ["tcp-goodput.png"]
    for path in quick.figures:
        assert path.parent == quick.out
        assert path.read_bytes().startswith(PNG_SIGNATURE)


@pytest.fixture(scope="module")
def quick_10_seeds(tmp_path_factory):
    out = tmp_path_factory.mktemp("fq-protection-10")
    return airqueue.reproduce(
        "fq-protection", quick=True, out=out, serial=True, params={"seeds": 10}
    )


def test_fq_by_destination_protects_tcp_better_than_drop_tail(quick_10_seeds):
    # Section 3.3's claim is about means, so it is checked on seeds 1-10 of the quick
    # scenario: the ratio FQ by destination / drop-tail of TCP goodput with UDP. The quick
    # run's two seeds alone are too few to put its interval above 1.
    ratio = quick_10_seeds.row(
        "FQ by IP destination / drop-tail, retry 7/4: TCP goodput with UDP "
        "(Sec. 3.3 gives fractions, not this ratio)"
    )
    assert ratio.ci_low > 1.0
    frac = "TCP goodput with UDP / without UDP"
    dst = quick_10_seeds.row(f"FQ by IP destination: {frac} (Sec. 3.3 (2), Fig. 3)")
    plain = quick_10_seeds.row(f"drop-tail, retry 7/4: {frac} (Sec. 3.3)")
    assert dst.ours > plain.ours


def test_scenarios_follow_the_paper_setup():
    config = fqp.Config.make(False, None)
    sc = fqp.scenario(config, "fq-source-bp1", udp=True)
    assert sc["topology"] == {"kind": "grid", "rows": 13, "cols": 13, "spacing": 200.0}
    assert sc["duration"] == 150.0
    assert (sc["radio"]["tx_range"], sc["radio"]["cs_range"]) == (250.0, 550.0)
    assert (sc["mac"]["short_retry_limit"], sc["mac"]["long_retry_limit"]) == (21, 12)
    assert sc["queue"]["classify"] == "source" and sc["queue"]["backpressure_threshold"] == 1
    # The paper's simulations read a global array of queue lengths (section 4.2).
    assert sc["queue"]["backpressure_view"] == "exact"
    heard = fqp.Config.make(False, {"backpressure_view": "overheard"})
    heard_bp = fqp.scenario(heard, "fq-source-bp1", udp=True)
    assert heard_bp["queue"]["backpressure_view"] == "overheard"
    assert "backpressure_view" not in fqp.scenario(heard, "fq-source", udp=True)["queue"]
    # The paper's "UDP back-pressure" (4.3-4.5): TCP is never held unless asked.
    assert sc["queue"]["backpressure_classes"] == "udp"
    every = fqp.Config.make(False, {"backpressure_classes": "all"})
    assert fqp.scenario(every, "fq-source-bp1", udp=True)["queue"]["backpressure_classes"] == "all"
    assert "backpressure_classes" not in fqp.scenario(every, "fq-source", udp=True)["queue"]
    tcp = [f for f in sc["flow"] if f["kind"] == "tcp"]
    udp = [f for f in sc["flow"] if f["kind"] == "udp"]
    assert len(tcp) == 8 and {f["dst"] for f in tcp} == {84}
    assert [(f["src"], f["dst"]) for f in udp] == [(80, 88), (32, 136)]
    assert {f["start"] for f in udp} == {config.tcp_start + 12.0}
    without = fqp.scenario(config, "droptail", udp=False)
    assert all(f["kind"] == "tcp" for f in without["flow"])
    assert (without["mac"]["short_retry_limit"], without["mac"]["long_retry_limit"]) == (7, 4)
    assert without["queue"] == {"kind": "droptail", "capacity": 50}


def test_every_udp_path_crosses_the_server():
    # The paths come from the core's static routing, as the run's routes table gives them.
    config = fqp.Config.make(False, None)
    sc = fqp.scenario(config, "droptail", udp=True)
    res = airqueue.run(sc, duration=config.tcp_start + 12.5)
    udp_ids = [i for i, f in enumerate(sc["flow"]) if f["kind"] == "udp"]
    assert len(udp_ids) == len(config.udp_flows)
    routes = res.routes
    for fid in udp_ids:
        path = list(routes[routes["flow"] == fid].sort_values("hop")["node"])
        assert config.server in path[1:-1] and len(path) - 1 == 8


def test_case2_udp_paths_leave_the_server_and_connections_6_and_7_free():
    # Section 3.3's Case 2: "UDP streams do not isolate the server" (our reading of the
    # lost Fig. 1b). The UDP paths are static routing's, as the run's routes table
    # gives them; connections 6 and 7 have a shortest path to the server (grid hops)
    # that crosses no node of a UDP path.
    config = fqp.Config.make(False, None)
    sc = fqp.scenario(config, "droptail-case2", udp=True)
    assert sc["queue"] == {"kind": "droptail", "capacity": 50}
    assert (sc["mac"]["short_retry_limit"], sc["mac"]["long_retry_limit"]) == (7, 4)
    sc["routing"] = {"kind": "static"}
    res = airqueue.run(sc, duration=config.tcp_start + 12.5)
    routes = res.routes
    kinds = [f["kind"] for f in sc["flow"]]
    udp_paths = [
        list(routes[routes["flow"] == i].sort_values("hop")["node"])
        for i, k in enumerate(kinds)
        if k == "udp"
    ]
    assert [(p[0], p[-1]) for p in udp_paths] == list(config.case2_udp_flows)
    on_udp = {n for p in udp_paths for n in p}
    assert config.server not in on_udp and all(len(p) - 1 == 8 for p in udp_paths)

    def hops_avoiding(src: int, dst: int, blocked: set[int]) -> int | None:
        cols = config.cols
        seen, frontier, hops = {src}, [src], 0
        while frontier:
            if dst in frontier:
                return hops
            nxt = []
            for n in frontier:
                r, c = divmod(n, cols)
                for rr, cc in ((r - 1, c), (r + 1, c), (r, c - 1), (r, c + 1)):
                    m = rr * cols + cc
                    if 0 <= rr < config.rows and 0 <= cc < cols and m not in seen | blocked:
                        seen.add(m)
                        nxt.append(m)
            frontier, hops = nxt, hops + 1
        return None

    def grid_hops(a: int, b: int) -> int:
        (ra, ca), (rb, cb) = divmod(a, config.cols), divmod(b, config.cols)
        return abs(ra - rb) + abs(ca - cb)

    for client in config.case2_clients:
        free = hops_avoiding(client, config.server, on_udp)
        assert free == grid_hops(client, config.server), client
    # In Case 1 every path of client 156 to the server meets a UDP path (the cross
    # encloses the server).
    case1 = fqp.scenario(config, "droptail", udp=True)
    assert [(f["src"], f["dst"]) for f in case1["flow"] if f["kind"] == "udp"] == [
        (80, 88),
        (32, 136),
    ]
    arms = set(range(80, 89)) | set(range(32, 137, 13))
    assert hops_avoiding(156, config.server, arms - {config.server}) is None


def test_case2_and_jitter_rows_of_a_short_run(tmp_path):
    res = airqueue.reproduce(
        "fq-protection",
        quick=True,
        out=tmp_path,
        serial=True,
        params={"seeds": 1, "duration": 16.0, "schemes": ["droptail-case2", "fq-source-bp1"]},
    )
    case2 = fqp.scheme(fqp.Config(), "droptail-case2").label
    pair = res.row(f"{case2}: {fqp._PAIR}")
    assert pair.ours is not None and pair.ours > 0
    bp = fqp.scheme(fqp.Config(), "fq-source-bp1").label
    jitter = res.row(f"{bp}: {fqp._JITTER}")
    # Delays of saturating UDP over 8 hops spread over milliseconds at least.
    assert jitter.ours is not None and 0.1 < jitter.ours < 10_000
    stalls = res.row(
        f"{bp}: runs in which TCP stalls (none delivered in the last 20% of the run), of 2 per seed"
    )
    assert stalls.ours in (0.0, 1.0, 2.0)
    # The delay variation of consecutive packets is bounded by twice the deviation
    # (|d_i - d_j| <= |d_i - mean| + |d_j - mean|), and is positive for a spread delay.
    variation = res.row(f"{bp}: {fqp._JITTER_VARIATION}")
    assert variation.ours is not None and 0 < variation.ours <= 2.1 * jitter.ours
    delay = res.row(f"{bp}: {fqp._DELAY}")
    assert delay.ours is not None and delay.ours > jitter.ours / 10
    wait = res.row(f"{bp}: {fqp._SOURCE_WAIT}")
    assert wait.ours is not None and wait.ours > 0


def test_source_wait_is_littles_law_at_the_source_node():
    config = fqp.Config(duration=23.0)  # 10 s after the UDP start at 13 s
    queues = pd.DataFrame(
        {
            "scheme": ["x|udp"] * 4,
            "seed": [1, 1, 1, 1],
            "t_s": [12.0, 14.0, 15.0, 16.0],
            "node": [80, 80, 80, 32],
            # Before the UDP start the sample does not count; node 32 is the other flow's.
            "len_pkts": [50, 8, 12, 4],
        }
    )
    udp = pd.DataFrame({"id": [8, 9], "seed": [1, 1], "src": [80, 32], "packets_sent": [300, 20]})
    # Flow 8 loses 100 packets at its source before the MAC: 200 injected in 10 s, 20/s,
    # its node holds 10 on average: 0.5 s. Flow 9: 20 injected, 2/s, 4 held: 2 s.
    before_mac = pd.DataFrame({"flow": [8], "seed": [1], "packets": [100]})
    wait = fqp._source_wait(queues, udp, before_mac, "x|udp", config)
    assert wait.loc[1] == pytest.approx((0.5 + 2.0) / 2)


@pytest.mark.parametrize(
    ("params", "message"),
    [
        ({"schemes": ["fq-sauce"]}, "scheme 'fq-sauce'"),
        ({"clients": [0, 169]}, "node ids [169] outside the 13 x 13 grid"),
        (
            {"udp_flows": [[80]]},
            "udp_flows, case2_udp_flows, tdma_udp_flows: lists of [source, destination]",
        ),
        ({"tdma_clients": [0, 25]}, "tdma node ids [25] outside the 5 x 5 grid"),
        ({"schemes": ["tdma-fq-source-bp1"]}, "scheme 'tdma-fq-source-bp1'"),
        ({"duration": 10.0}, "UDP starts at 13 s"),
        ({"backpressure_view": "global"}, "backpressure_view: expected one of exact"),
        ({"backpressure_classes": "tcp"}, "backpressure_classes: expected one of udp, all"),
        ({"case2_clients": [156, 7]}, "case2_clients: [7] are not clients"),
    ],
)
def test_bad_parameters_are_named(tmp_path, params, message):
    with pytest.raises(airqueue.ConfigError, match="fq-protection") as e:
        airqueue.reproduce("fq-protection", quick=True, out=tmp_path, params=params)
    assert message in str(e.value)
    assert not any(tmp_path.iterdir())


def test_routing_parameter_reaches_the_scenario_and_is_checked(tmp_path):
    # AODV by default, as the paper ran (footnote 5); static on request.
    default = fqp.Config.make(False, None)
    assert fqp.scenario(default, "droptail", udp=True)["routing"] == {
        "kind": "aodv",
        "link_detection": "mac",
    }
    hello = fqp.Config.make(False, {"aodv_link_detection": "hello"})
    assert fqp.scenario(hello, "droptail", udp=True)["routing"] == {
        "kind": "aodv",
        "link_detection": "hello",
    }
    assert "hello messages (section 6.9" in fqp._routing_note(hello)
    assert "no local repair" in fqp._routing_note(default)
    repair = fqp.Config.make(False, {"local_repair": True})
    assert fqp.scenario(repair, "droptail", udp=True)["routing"] == {
        "kind": "aodv",
        "link_detection": "mac",
        "local_repair": True,
    }
    assert "with local repair (RFC 3561 6.12" in fqp._routing_note(repair)
    with pytest.raises(ValueError, match="aodv_link_detection: expected one of mac, hello"):
        fqp.Config.make(False, {"aodv_link_detection": "hellos"})
    config = fqp.Config.make(False, {"routing": "static"})
    assert fqp.scenario(config, "droptail", udp=True)["routing"] == {"kind": "static"}
    with pytest.raises(airqueue.ConfigError, match="routing: expected one of static, aodv"):
        airqueue.reproduce("fq-protection", quick=True, out=tmp_path, params={"routing": "olsr"})


def test_the_run_stopped_at_the_udp_start_is_the_run_with_udp_until_then():
    # The ACK-share rows subtract this run's MAC counters from the run with UDP's: they
    # must be the latter's at the UDP start (1 us later, before any UDP frame can air).
    config = fqp.Config.make(True, None)
    before = airqueue.run(fqp.before_udp_scenario(config, "fq-destination"), traces=False)
    with_udp = airqueue.run(
        fqp.scenario(config, "fq-destination", udp=True),
        duration=config.udp_start + 1e-6,
        traces=False,
    )
    cols = ["data_tx", "retries", "rts_tx", "data_airtime_s", "tcp_ack_tx", "tcp_ack_airtime_s"]
    a, b = before.table("mac")[cols], with_udp.table("mac")[cols]
    assert a.equals(b)
    assert a["tcp_ack_tx"].sum() > 0


def test_ack_share_rows(quick):
    dst = fqp.scheme(fqp.Config(), "fq-destination").label
    air = quick.row(f"{dst}: {fqp._ACK_AIRTIME} (Sec. 3.3: up to 80%)")
    assert air.paper == 0.80
    for sch in fqp.QUICK_SCHEMES:
        label = fqp.scheme(fqp.Config(), sch).label
        (air,) = [r for r in quick.rows if r.metric.startswith(f"{label}: {fqp._ACK_AIRTIME}")]
        frames = quick.row(f"{label}: {fqp._ACK_FRAMES}")
        assert 0.0 < air.ours <= 1.0 and 0.0 < frames.ours <= 1.0, sch
        # A TCP ACK is the shortest data frame the server sends (UDP and TCP data carry
        # 1460 bytes, AODV messages at least as many bytes as a bare ACK).
        assert air.ours <= frames.ours, sch


def test_tdma_scenarios_follow_section_3_3():
    # Section 3.3's fair MAC: a 5 x 5 grid, four clients on the corners, the server at
    # the centre, TDMA in place of 802.11; the queue of the configuration named after
    # ``tdma-``; every other setting as on the 13 x 13 grid.
    config = fqp.Config.make(False, None)
    sc = fqp.scenario(config, "tdma-fq-next-hop", udp=True)
    assert sc["topology"] == {"kind": "grid", "rows": 5, "cols": 5, "spacing": 200.0}
    assert sc["mac"] == {"kind": "tdma", "short_retry_limit": 21}
    assert sc["queue"]["kind"] == "fq" and sc["queue"]["classify"] == "next_hop"
    tcp = [f for f in sc["flow"] if f["kind"] == "tcp"]
    udp = [f for f in sc["flow"] if f["kind"] == "udp"]
    assert sorted(f["src"] for f in tcp) == [0, 4, 20, 24] and {f["dst"] for f in tcp} == {12}
    assert [(f["src"], f["dst"]) for f in udp] == [(10, 14), (2, 22)]
    fifo = fqp.scenario(config, "tdma-droptail", udp=False)
    assert fifo["queue"] == {"kind": "droptail", "capacity": 50}
    assert fqp.scheme(config, "tdma-droptail").label == "TDMA 5 x 5, drop-tail"
    # Both UDP paths cross the server, as Case 1's do on the 13 x 13 grid.
    res = airqueue.run(sc, duration=config.udp_start + 1.0)
    routes = res.routes
    for fid in [i for i, f in enumerate(sc["flow"]) if f["kind"] == "udp"]:
        path = list(routes[routes["flow"] == fid].sort_values("hop")["node"])
        assert 12 in path[1:-1] and len(path) - 1 == 4


def test_quick_tdma_rows_and_the_claims_rows(quick):
    for key in fqp.TDMA_SCHEMES:
        label = fqp.scheme(fqp.Config(), key).label
        frac = quick.row(f"{label}: TCP goodput with UDP / without UDP (no number in the paper)")
        assert frac.paper is None and frac.ours > 0.0, key
        assert quick.row(f"{label}: {fqp._CUT_TDMA}").ours <= 4
    for metric in (fqp._TDMA_GLOBAL, fqp._TDMA_LOCAL):
        assert quick.row(metric).ours > 0.0


def test_counterfactual_layouts_reach_the_scenarios():
    # docs/reproductions/fq.md's counterfactuals: UDP from two hops of the server, a
    # larger drop-tail buffer, and the TDMA grid's UDP crossing off the server.
    config = fqp.Config.make(
        False,
        {
            "udp_flows": [[82, 86], [58, 110]],
            "queue_capacity": 200,
            "tdma_udp_flows": [[5, 9], [1, 21]],
        },
    )
    sc = fqp.scenario(config, "droptail", udp=True)
    udp = [(f["src"], f["dst"]) for f in sc["flow"] if f["kind"] == "udp"]
    assert udp == [(82, 86), (58, 110)]
    # Both cross the server, two hops from it on each side.
    for s, d in udp:
        (rs, cs), (rd, cd), (r0, c0) = (divmod(x, config.cols) for x in (s, d, config.server))
        assert (rs == rd == r0 and cs == c0 - 2 and cd == c0 + 2) or (
            cs == cd == c0 and rs == r0 - 2 and rd == r0 + 2
        )
    assert sc["queue"] == {"kind": "droptail", "capacity": 200}
    tdma = fqp.scenario(config, "tdma-fq-source", udp=True)
    tdma_udp = [(f["src"], f["dst"]) for f in tdma["flow"] if f["kind"] == "udp"]
    assert tdma_udp == [(5, 9), (1, 21)]
    # Row 1 and column 1 of the 5 x 5 grid: neither passes the server (row 2, column 2).
    on_paths = set(range(5, 10)) | set(range(1, 22, 5))
    assert config.tdma_server not in on_paths


def test_tdma_server_slots_reach_the_tdma_scenarios_only():
    # docs/reproductions/fq.md's TDMA counterfactual: the server owns more slots of each
    # round; the paper's schedule (one slot each) writes no key, and 802.11 runs none.
    default = fqp.Config.make(False, None)
    assert "tdma_slots" not in fqp.scenario(default, "tdma-fq-source", udp=True)["mac"]
    config = fqp.Config.make(False, {"tdma_server_slots": 3})
    mac = fqp.scenario(config, "tdma-fq-source", udp=True)["mac"]
    assert mac["tdma_slots"] == [[config.tdma_server, 3]]
    assert "tdma_slots" not in fqp.scenario(config, "droptail", udp=True)["mac"]
    with pytest.raises(ValueError, match=r"tdma_server_slots: expected an integer in 1\.\.=64"):
        fqp.Config.make(False, {"tdma_server_slots": 0})
