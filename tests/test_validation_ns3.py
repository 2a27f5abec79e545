"""validation/ns3 without ns-3: every scenario definition builds a valid airqueue
scenario, the airqueue half of a small one runs and is measured as the comparison
reads it, the static routes given to ns-3 are airqueue's, and Bianchi's model behaves.
The ns-3 half is a separate command (``python -m validation.ns3``), not part of CI."""

from __future__ import annotations

import math
from dataclasses import replace

import pytest

import airqueue as aq
from validation.ns3 import __main__ as cli
from validation.ns3 import airqueue_side, bianchi, ns3_side
from validation.ns3.result import jain_index
from validation.ns3.spec import all_specs, by_name, grid_spec


@pytest.mark.parametrize("spec", all_specs(), ids=lambda s: s.name)
def test_every_scenario_is_a_valid_airqueue_scenario(spec):
    for s in (spec, spec.quick_version()):
        sc = aq.Scenario.from_dict(airqueue_side.scenario(s, s.seeds[0]))
        sc.validate()
        assert all(f.start_s < s.warmup_s for f in s.flows), "windows start after every flow"
    names = [s.name for s in all_specs()]
    assert len(names) == len(set(names))


def test_the_airqueue_half_of_a_small_star_runs_and_matches_its_summary():
    spec = replace(by_name()["star-5"], duration_s=3.0, warmup_s=1.5)
    r = airqueue_side.run(spec, 1)
    assert [f.flow for f in r.flows] == [0, 1, 2, 3, 4]
    assert all(f.goodput_bps > 0 for f in r.flows)
    res = aq.run(airqueue_side.scenario(spec, 1), traces=False)
    assert r.aggregate_bps == pytest.approx(res.summary["aggregate_goodput_bps"])
    assert r.jain == pytest.approx(res.summary["jain_index"])
    # Five saturated stations share one 11 Mb/s cell: a few Mb/s, near Bianchi's figure.
    assert 0.8 < r.aggregate_bps / bianchi.saturation_bps(5) < 1.1


def test_ns3_static_routes_are_airqueues():
    spec = grid_spec("static", name="grid-static", duration_s=2.0, warmup_s=1.5)
    nxt = ns3_side.static_next_hops(spec)
    res = aq.run(airqueue_side.scenario(spec, 1), traces=False)
    routes = res.routes
    for k, f in enumerate(spec.flows):
        path = routes[routes["flow"] == k].sort_values("hop")["node"].tolist()
        ours = [f.src]
        while ours[-1] != f.dst:
            ours.append(nxt[ours[-1]][f.dst])
        assert path == ours, f"flow {k}"


def test_two_ray_thresholds_are_airqueues_derived_ones():
    # docs/scenario.md: -68.87 dBm at 250 m and -82.57 dBm at 550 m with every default.
    assert ns3_side._two_ray_dbm(250.0) == pytest.approx(-68.87, abs=0.01)
    assert ns3_side._two_ray_dbm(550.0) == pytest.approx(-82.57, abs=0.01)


def test_bianchi_falls_with_stations_and_eifs_costs_more_than_difs():
    difs = [bianchi.saturation_bps(n) for n in (5, 10, 20, 50)]
    eifs = [bianchi.saturation_bps(n, after_collision="eifs") for n in (5, 10, 20, 50)]
    assert difs == sorted(difs, reverse=True)
    assert all(e < d for e, d in zip(eifs, difs, strict=True))
    # One station never collides: DIFS + mean backoff + frame + SIFS + ACK per packet.
    one = bianchi.saturation_bps(1)
    cycle = 50e-6 + 15.5 * 20e-6 + 192e-6 + 774e-6 + 10e-6 + 304e-6
    assert one == pytest.approx(8000 / cycle, rel=1e-3)


def test_jain_and_starved_flows():
    assert jain_index([1.0, 1.0, 1.0]) == 1.0
    assert jain_index([1.0, 0.0, 0.0, 0.0]) == pytest.approx(0.25)
    assert math.isclose(jain_index([]), 1.0)


def test_cli_lists_and_refuses_unknown_names(capsys):
    assert cli.main(["--list"]) == 0
    assert "grid-13x13-aodv" in capsys.readouterr().out
    assert cli.main(["--only", "nope", "--airqueue-only"]) == 2
    assert "unknown scenario" in capsys.readouterr().err


def test_the_cubic_scenarios_differ_from_their_pair_only_in_the_window_rule():
    """bss-q10-cubic is bss-q10 with every TCP flow on CUBIC: the airqueue scenarios
    differ in the flows' variant alone, and both compare ns-3's classic recovery."""
    specs = by_name()
    plain, cubic = specs["bss-1dn-0up-q10"], specs["bss-1dn-0up-q10-cubic"]
    assert (plain.ns3_recovery, cubic.ns3_recovery) == ("classic", "classic")
    a, b = (airqueue_side.scenario(s, 1) for s in (plain, cubic))
    assert [f["variant"] for f in b["flow"]] == ["cubic"] * len(b["flow"])
    for f in b["flow"]:
        f["variant"] = "sack"
    a.pop("name"), b.pop("name")
    assert a == b
