"""``dqm-fairness --quick`` (seed 004): rows, figures, the scenarios it builds, its
parameter checks, and the one qualitative result that holds robustly in our model."""

from __future__ import annotations

import math

import pytest

import airqueue
from airqueue import _core
from airqueue.reproduce import dqm_fairness as dqm

PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"


@pytest.fixture(scope="module")
def quick(tmp_path_factory):
    out = tmp_path_factory.mktemp("dqm-fairness")
    return airqueue.reproduce("dqm-fairness", quick=True, out=out, serial=True)


def test_quick_rows_are_finite_and_inside_their_intervals(quick):
    assert quick.params["quick"] is True and quick.params["seeds"] == 2
    assert quick.params["stations"] == (4, 8) and quick.params["cases"] == (1,)
    assert quick.rows
    for r in quick.rows:
        assert r.ours is not None and math.isfinite(r.ours), r.metric
        assert r.ci_low is not None and r.ci_high is not None, r.metric
        assert r.ci_low <= r.ours <= r.ci_high, r.metric


def test_quick_rows_carry_the_paper_values(quick):
    head = "Case 1, N = 8 (4 up, 4 down)"
    base_jain = quick.row(
        f"{head}, BASE: Jain's index, all flows (Sec. IV-A: 'around 0.203' as N grows; "
        "the paper's N range is lost)"
    )
    assert base_jain.paper == 0.203
    dqm_jain = quick.row(f"{head}, DQM: Jain's index, all flows (Sec. IV-A: 'very close to 1')")
    assert dqm_jain.paper == 1.0
    # 0.203 only at the largest N; no number is invented for the smaller ones.
    assert quick.row("Case 1, N = 4 (2 up, 2 down), BASE: Jain's index, all flows").paper is None
    # The join experiment (section IV-C) is not part of the quick run.
    assert not any(r.metric.startswith("Sec. IV-C") for r in quick.rows)


def test_quick_figures_are_pngs(quick):
    assert [p.name for p in quick.figures] == [
        "fairness.png",
        "throughput.png",
        "rate-change.png",
        "queue-traces.png",
    ]
    for path in quick.figures:
        assert path.parent == quick.out
        assert path.read_bytes().startswith(PNG_SIGNATURE)


def test_dqm_is_fairer_than_drop_tail(quick):
    # Case 1 (section IV-A): DQM's Jain's index above BASE's, its R_up/R_dn near 1.
    for n in (4, 8):
        head = f"Case 1, N = {n} ({n // 2} up, {n // 2} down)"
        jains = {r.metric.split(": ")[0]: r for r in quick.rows if "Jain's index" in r.metric}
        assert jains[f"{head}, DQM"].ours > jains[f"{head}, BASE"].ours
        ratio = "uplink/downlink per-flow goodput ratio R_up/R_dn"
        base = quick.row(f"{head}, BASE: {ratio}")
        fair = quick.row(
            f"{head}, DQM: {ratio} (Fig. 3, Sec. IV-A: 'very close to the ideal value 1')"
        )
        assert fair.ci_high < base.ci_low


def test_scenarios_follow_the_paper_setup():
    config = dqm.Config.make(False, None)
    assert config.stations == (2, 4, 8, 12, 16, 20) and config.seeds == 5
    assert dqm.split(1, 8) == (4, 4) and dqm.split(2, 8) == (7, 1)
    sc = dqm.scenario(config, "DQM", 7, 1)
    topo = sc["topology"]
    assert (topo["kind"], topo["stations"], topo["wired_hosts"]) == ("bss", 8, 1)
    assert (topo["wire_bandwidth"], topo["wire_delay"]) == (100e6, 0.025)
    q = sc["queue"]
    assert (q["kind"], q["capacity"], q["a"], q["b"]) == ("dqm", 100, 1.822e-5, 1.816e-5)
    assert (q["sample_hz"], q["d_ref"], q["t_fair"]) == (160.0, 0.05, 0.005)
    assert sc["tcp"] == {"ecn": True, "max_window": 43}
    assert sc["radio"]["data_rate"] == 11e6
    flows = sc["flow"]
    assert [(f["src"], f["dst"]) for f in flows[:7]] == [(9, s) for s in range(1, 8)]
    assert [(f["src"], f["dst"]) for f in flows[7:]] == [(8, 9)]
    assert {f["packet_size"] for f in flows} == {1000}
    base = dqm.scenario(config, "BASE", 4, 4)
    assert base["queue"] == {"kind": "droptail", "capacity": 100}
    join = dqm.scenario(config, "DQM", 4, 4, up_start=100.0, duration=200.0)
    assert [f["start"] for f in join["flow"]] == [1.0] * 4 + [100.0] * 4
    assert join["duration"] == 200.0


def test_bad_parameters_are_refused():
    with pytest.raises(ValueError, match="Case 1 needs an even N"):
        dqm.Config.make(False, {"stations": [3]})
    with pytest.raises(ValueError, match="cases"):
        dqm.Config.make(True, {"cases": [3]})
    with pytest.raises(ValueError, match="unknown parameter"):
        dqm.Config.make(True, {"nope": 1})


RATE_HEAD = "Sec. IV-B, 2 down + 2 up, uplink 11 -> 2 Mb/s at 15 s"


def test_quick_rate_change_rows(quick):
    # The quick scenario: 4 stations, uplink at 2 Mb/s from 15 s of 30 (section IV-B).
    rows = [r for r in quick.rows if r.metric.startswith("Sec. IV-B")]
    # 8 rows per scheme and the time-fair reference, then DQM's Fig. 5 rows (q.ref,
    # queue length, delay before and after t0; D_ref).
    assert len(rows) == 2 * 8 + 1 + 7
    gamma = "R_up/R_dn from 20 s"
    fair = quick.row(
        f"{RATE_HEAD}, DQM: {gamma} (Fig. 4a: uplink 'converge to lower' throughput, no number)"
    )
    base = quick.row(f"{RATE_HEAD}, BASE: {gamma}")
    assert fair.paper is None and base.paper is None
    ideal = next(r for r in rows if r.metric.startswith("Sec. IV-B reference"))
    # (T_pkt(1040 B) + T_pkt(40 B)) at 11 Mb/s over the same at 2 Mb/s: 2571 / 6340 us.
    assert ideal.ours == pytest.approx(2571 / 6340)
    assert ideal.ci_low == ideal.ci_high == ideal.ours
    # Temporal fairness: DQM's ratio near the time-fair one, far below BASE's.
    assert 0.7 * ideal.ours < fair.ours < 1.3 * ideal.ours
    assert fair.ci_high < 1.0 < base.ci_low
    share = "uplink share of the flows' channel time from 20 s (estimate: goodput x DQM's "
    share += "T_pkt per segment; temporal fairness: 0.5)"
    dqm_share = quick.row(f"{RATE_HEAD}, DQM: {share}")
    assert 0.4 < dqm_share.ours < 0.6
    assert quick.row(f"{RATE_HEAD}, BASE: {share}").ours > 0.8
    # The uplink flows lose throughput at the drop under either scheme.
    for scheme in ("BASE", "DQM"):
        before = quick.row(f"{RATE_HEAD}, {scheme}: R_up before t0, kb/s")
        after = quick.row(f"{RATE_HEAD}, {scheme}: R_up from 20 s, kb/s")
        assert after.ours < 0.6 * before.ours, scheme


def test_rate_scenario_moves_the_uplink_stations_under_aarf_by_default():
    # Section IV-B: the uplink stations "move far away from the AP at the time of t0",
    # AARF (section III) finds their rate.
    config = dqm.Config.make(False, None)
    assert (config.rate_stations, config.rate_time, config.low_rate) == (8, 100.0, 2e6)
    assert config.rate_model == "move"
    sc = dqm.rate_scenario(config, "DQM")
    assert sc["duration"] == 200.0
    assert sc["mac"] == {"rate_control": "aarf"}
    assert "rate_change" not in sc
    [move] = sc["move"]
    assert (move["at"], move["nodes"], move["away_from"]) == (100.0, [5, 6, 7, 8], 0)
    # Between where 5.5 Mb/s stops decoding and where 2 Mb/s does.
    fast, slow = _core.dsss_decode_range_m(5.5e6), _core.dsss_decode_range_m(2e6)
    assert fast < move["distance"] < slow
    assert move["distance"] == pytest.approx(math.sqrt(fast * slow))
    # The receive threshold reaches the 1 Mb/s range, carrier sense 2.2 times farther.
    assert sc["radio"]["tx_range"] == _core.dsss_decode_range_m(1e6)
    assert sc["radio"]["cs_range"] == pytest.approx(2.2 * sc["radio"]["tx_range"])
    # Uplink flows are the ones from stations 5-8 to the wired host (node 9).
    assert [(f["src"], f["dst"]) for f in sc["flow"][4:]] == [(s, 9) for s in range(5, 9)]
    airqueue.Scenario.from_dict(sc).validate()


def test_rate_scenario_drop_keeps_the_stations_in_place():
    config = dqm.Config.make(False, {"rate_model": "drop"})
    sc = dqm.rate_scenario(config, "DQM")
    assert sc["rate_change"] == [{"at": 100.0, "nodes": [5, 6, 7, 8], "data_rate": 2e6}]
    assert "move" not in sc and "mac" not in sc
    assert sc["radio"] == {"data_rate": 11e6, "basic_rate": 1e6}
    airqueue.Scenario.from_dict(sc).validate()


def test_t_pkt_reading_reaches_the_access_points_queue():
    # Section III-B.1: the AP's own packets' T_pkt from their backoff and retries,
    # "drawn" by default; BASE's drop-tail queue has no such key.
    assert dqm.Config.make(False, None).t_pkt == "drawn"
    config = dqm.Config.make(True, {"t_pkt": "elapsed"})
    assert dqm.rate_scenario(config, "DQM")["queue"]["t_pkt"] == "elapsed"
    assert "t_pkt" not in dqm.rate_scenario(config, "BASE")["queue"]
    with pytest.raises(ValueError, match="t_pkt: one of drawn, elapsed, estimate"):
        dqm.Config.make(True, {"t_pkt": "measured"})


def test_counterfactual_keys_reach_the_queue_only_when_set():
    # The model's scenarios carry neither key, so their runs stay as they were.
    default = dqm.scenario(dqm.Config.make(True, None), "DQM", 2, 2)["queue"]
    assert "drawn_estimated" not in default and "dequeue" not in default
    config = dqm.Config.make(True, {"drawn_estimated": "backoff", "dequeue": "arrival"})
    sc = dqm.scenario(config, "DQM", 2, 2)
    assert (sc["queue"]["drawn_estimated"], sc["queue"]["dequeue"]) == ("backoff", "arrival")
    assert "dequeue" not in dqm.scenario(config, "BASE", 2, 2)["queue"]
    airqueue.Scenario.from_dict(sc).validate()
    with pytest.raises(ValueError, match="drawn_estimated: one of none, backoff"):
        dqm.Config.make(True, {"drawn_estimated": "slots"})
    with pytest.raises(ValueError, match="drawn_estimated: replaces a part of t_pkt = drawn"):
        dqm.Config.make(True, {"drawn_estimated": "ifs", "t_pkt": "elapsed"})
    with pytest.raises(ValueError, match="dequeue: one of algorithm1, arrival"):
        dqm.Config.make(True, {"dequeue": "fifo"})


def test_decode_ranges_shrink_with_the_rate():
    # Two-ray ground beyond its crossover: 40 log10 d, so the 4.40 dB between the 5.5 and
    # 2 Mb/s SINR thresholds (5.95, 1.55 dB) is a factor 10^(4.40 / 40) in distance.
    ranges = [_core.dsss_decode_range_m(r) for r in (11e6, 5.5e6, 2e6, 1e6)]
    assert ranges == sorted(ranges)
    assert ranges[2] / ranges[1] == pytest.approx(10 ** (4.40 / 40), rel=1e-3)
    with pytest.raises(ValueError, match="not an 802.11b rate"):
        _core.dsss_decode_range_m(3e6)


def test_dqm_t_pkt_is_the_queues_estimate():
    # The values crates/sim/src/qdisc/dqm.rs's unit tests check.
    assert _core.dqm_t_pkt(1040, 11e6) == pytest.approx(1649e-6)
    assert _core.dqm_t_pkt(40, 11e6) == pytest.approx(922e-6)
    assert _core.dqm_t_pkt(1040, 2e6) == pytest.approx(5170e-6)
    with pytest.raises(ValueError, match="not an 802.11b rate"):
        _core.dqm_t_pkt(1040, 3e6)


def test_bad_rate_parameters_are_refused():
    with pytest.raises(ValueError, match="rate_stations"):
        dqm.Config.make(False, {"rate_stations": 3})
    with pytest.raises(ValueError, match="rate_time"):
        dqm.Config.make(True, {"rate_time": 40.0})
    with pytest.raises(ValueError, match="low_rate"):
        dqm.Config.make(True, {"low_rate": 3e6})
    with pytest.raises(ValueError, match="low_rate: under rate_model = move"):
        dqm.Config.make(True, {"low_rate": 11e6})
    dqm.Config.make(True, {"low_rate": 11e6, "rate_model": "drop"})
    with pytest.raises(ValueError, match="rate_model: one of move, drop"):
        dqm.Config.make(True, {"rate_model": "walk"})


def test_quick_queue_trace_rows(quick):
    # Fig. 5 (a): after the rate drop q.ref falls "due to larger mean transmission time".
    # The delay exceeds D_ref (T_pkt counts one uncontended access, the AP contends with
    # its stations), so it is not compared to D_ref.
    head = f"{RATE_HEAD}, DQM"
    before, after = "before t0 (5-15 s)", "from 20 s"
    q_ref = {
        w: quick.row(f"{head}: mean q.ref {w}, packets (Fig. 5, plotted only)")
        for w in (before, after)
    }
    delay = {
        w: quick.row(f"{head}: mean queueing delay at the AP {w}, ms (Fig. 5, plotted only)")
        for w in (before, after)
    }
    length = {w: quick.row(f"{head}: mean AP queue length {w}, packets") for w in (before, after)}
    for r in (*q_ref.values(), *delay.values(), *length.values()):
        assert r.paper is None
        assert r.ours > 0
    # q.ref = D_ref / mean T_pkt lies between 50 ms over an ACK's and a 1500-byte
    # packet's T_pkt at 11 Mb/s (922 and 1984 us) before, and lower after.
    assert 25 < q_ref[before].ours < 55
    assert q_ref[after].ours < 0.95 * q_ref[before].ours
    # Delays are per packet and of D_ref's order: milliseconds, not seconds.
    assert all(2 < r.ours < 500 for r in delay.values())
    d_ref = quick.row(f"{head}: reference: D_ref, ms (Table II; no interval)")
    assert d_ref.ours == d_ref.ci_low == d_ref.ci_high == 50.0
    # No BASE rows: drop-tail has no q.ref.
    assert not any("BASE" in r.metric and "q.ref" in r.metric for r in quick.rows)


def test_queues_table_has_dqm_columns_for_the_access_point_only():
    config = dqm.Config.make(True, {"seeds": 1})
    sc = dqm.scenario(config, "DQM", 1, 1, duration=8.0)
    q = airqueue.run(sc).queues
    assert {"q_ref_pkts", "queue_delay_s"} <= set(q.columns)
    assert q["q_ref_pkts"].dtype == "float64" and q["queue_delay_s"].dtype == "float64"
    ap, others = q[q["node"] == 0], q[q["node"] != 0]
    assert ap["q_ref_pkts"].notna().all() and others["q_ref_pkts"].isna().all()
    assert others["queue_delay_s"].isna().all()
    assert (ap["queue_delay_s"].dropna() > 0).all() and ap["queue_delay_s"].notna().any()
    base = dqm.scenario(config, "BASE", 1, 1, duration=8.0)
    q = airqueue.run(base).queues
    assert q["q_ref_pkts"].isna().all() and q["q_ref_pkts"].dtype == "float64"


# --- how results vary across N (section IV-A), on hand-made per-seed numbers -----------

#: Per N = 2, 4, 8, 12, 16, 20: R_up/R_dn and Jain's index of each (case, scheme). BASE's
#: Case 2 ratio is N itself and its index falls on a line; Case 1 jumps about; DQM stays
#: near 1.
HAND_MADE = {
    (1, "BASE"): ([1.0, 50.0, 3.0, 400.0, 20.0, 900.0], [1.0, 0.5, 0.9, 0.5, 0.8, 0.45]),
    (2, "BASE"): ([2.0, 4.0, 8.0, 12.0, 16.0, 20.0], [0.94, 0.88, 0.76, 0.64, 0.52, 0.40]),
    (1, "DQM"): ([1.0, 1.02, 1.0, 1.02, 1.0, 1.02], [0.99] * 6),
    (2, "DQM"): ([1.0, 1.05, 1.0, 1.05, 1.0, 1.05], [0.99] * 6),
}


def _hand_made_points(table, ns=None):
    import pandas as pd

    ns = ns or dqm.Config().stations
    points = {}
    for (case, scheme), (ratios, jains) in table.items():
        for n, ratio, jain in zip(ns, ratios, jains, strict=True):
            # Two seeds with the same numbers; R_up is the ratio times R_dn.
            def same(v):
                return pd.Series({1: v, 2: v})

            points[(case, n, scheme)] = dqm._Point(
                up=same(ratio * 1e3), dn=same(1e3), jain=same(jain), total=same(1e6)
            )
    return points


def _across(rows, what):
    ns = ", ".join(map(str, dqm.Config().stations))
    return next(r for r in rows if r.metric == f"Sec. IV-A across N = {ns}{what}")


def test_across_n_rows_measure_the_straight_line_misfit_and_the_spread():
    import numpy as np

    rows = dqm.across_n_rows(dqm.Config(), _hand_made_points(HAND_MADE))
    ns = list(dqm.Config().stations)
    line = "1 - R^2 of a straight line in N"
    case1 = _across(rows, f", Case 1, BASE: R_up/R_dn, {line}")
    r = np.corrcoef(ns, HAND_MADE[(1, "BASE")][0])[0, 1]
    assert case1.ours == pytest.approx(1 - r * r)
    # Every seed alike: each resample is the data, so the interval is the point.
    assert case1.ci_low == pytest.approx(case1.ours) and case1.ci_high == pytest.approx(case1.ours)
    assert _across(rows, f", Case 2, BASE: R_up/R_dn, {line}").ours == pytest.approx(0, abs=1e-12)
    assert _across(rows, f", Case 2, BASE: Jain's index, {line}").ours == pytest.approx(0, abs=1e-9)
    r = np.corrcoef(ns, HAND_MADE[(1, "BASE")][1])[0, 1]
    assert _across(rows, f", Case 1, BASE: Jain's index, {line}").ours == pytest.approx(1 - r * r)
    cv = "R_up/R_dn, coefficient of variation across N"
    dqm_larger = _across(rows, f", DQM: {cv}, the larger of Case 1's and Case 2's")
    assert dqm_larger.ours == pytest.approx(0.025 / 1.025)
    base_smaller = _across(rows, f", BASE: {cv}, the smaller of Case 1's and Case 2's")
    assert base_smaller.ours == pytest.approx(np.std(ns) / np.mean(ns))


@pytest.mark.parametrize("swap, status", [(False, "reproduced"), (True, "not_reproduced")])
def test_the_across_n_claims_read_these_rows(tmp_path, swap, status):
    from airqueue.reproduce.claims import all_claims, score
    from airqueue.reproduce.report import ReproductionResult

    table = dict(HAND_MADE)
    if swap:  # Case 1 on the line, Case 2 jumping; DQM's ratio as BASE's
        table[(1, "BASE")], table[(2, "BASE")] = HAND_MADE[(2, "BASE")], HAND_MADE[(1, "BASE")]
        table[(2, "DQM")] = (HAND_MADE[(1, "BASE")][0], [0.99] * 6)
    rows = dqm.across_n_rows(dqm.Config(), _hand_made_points(table))
    ReproductionResult(name=dqm.NAME, rows=rows, out=tmp_path / dqm.NAME).write()
    ids = {"004-fig2-base-case1-fluctuates", "004-fig3-base-case2-smoother", "004-s4a-dqm-stable"}
    outcomes = score(tmp_path, [c for c in all_claims() if c.id in ids])
    assert {o.claim.id: o.status for o in outcomes} == dict.fromkeys(ids, status)


def test_across_n_needs_three_n():
    config = dqm.Config.make(True, {"cases": [1, 2]})  # N = 4, 8
    table = {k: (ratios[:2], jains[:2]) for k, (ratios, jains) in HAND_MADE.items()}
    assert dqm.across_n_rows(config, _hand_made_points(table, config.stations)) == []
