"""Reproductions: ``diffq-starvation --quick`` against the issue's acceptance, the
command line's contract, and smoke runs of the larger reproductions."""

from __future__ import annotations

import json
import math

import pandas as pd
import pytest
from typer.testing import CliRunner

import airqueue
from airqueue.cli import app
from airqueue.reproduce import NAMES
from airqueue.store import load

PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"
ROW_KEYS = {"metric", "paper", "ours", "ci_low", "ci_high"}


@pytest.fixture(scope="module")
def starvation_dir(tmp_path_factory):
    return tmp_path_factory.mktemp("starvation")


@pytest.fixture(scope="module")
def starvation(starvation_dir):
    return airqueue.reproduce("diffq-starvation", quick=True, out=starvation_dir, serial=True)


def _share(result, scheme, delack):
    tag = "delayed ACK on" if delack else "delayed ACK off"
    return result.row(f"{scheme}, {tag}: flow 1 share of fair share (aggregate/3)")


def _pngs(result):
    assert result.figures
    for path in result.figures:
        assert path.is_file() and path.read_bytes().startswith(PNG_SIGNATURE), path
        assert path.parent == result.out


def test_starvation_quick_rows_and_figures(starvation):
    assert starvation.name == "diffq-starvation"
    assert starvation.params["seeds"] == 3 and starvation.params["quick"] is True
    assert starvation.params["delayed_ack"] == (True, False)
    for r in starvation.to_rows():
        assert set(r) == ROW_KEYS
        assert r["paper"] is None  # Fig. 2 and Fig. 10 are plots without numbers
        assert r["ours"] is not None and r["ci_low"] <= r["ours"] <= r["ci_high"]
    _pngs(starvation)
    assert (starvation.out / "goodput-over-time.png").is_file()
    saved = json.loads((starvation.out / "rows.json").read_text())
    assert saved == starvation.to_rows()


@pytest.mark.parametrize("delack", [True, False], ids=["delack-on", "delack-off"])
def test_diffq_tcp_gives_the_long_flow_a_larger_share(starvation, delack):
    # Only the disjoint intervals are asserted, not a ratio of the shares: a magnitude
    # read off the paper would come from another model and layout.
    tcp = _share(starvation, "TCP-SACK", delack)
    diffq = _share(starvation, "DiffQ-TCP", delack)
    assert diffq.ci_low > tcp.ci_high


@pytest.mark.parametrize("delack", [True, False], ids=["delack-on", "delack-off"])
def test_diffq_tcp_has_the_higher_jain_index(starvation, delack):
    # Disjoint intervals, with delayed ACKs on and off (the interval rate clock; under the
    # per-packet clock, `--param rate_update=packet`, they need not be).
    tag = "delayed ACK on" if delack else "delayed ACK off"
    jain = {
        s: starvation.row(f"{s}, {tag}: Jain's index, all 3 active")
        for s in ("TCP-SACK", "DiffQ-TCP")
    }
    assert jain["DiffQ-TCP"].ci_low > jain["TCP-SACK"].ci_high


@pytest.mark.parametrize("delack", [True, False], ids=["delack-on", "delack-off"])
def test_acceptance_tcp_sack_long_flow_below_10_percent(starvation, delack):
    assert _share(starvation, "TCP-SACK", delack).ours < 0.10


_DIFFQ_TCP_BELOW_HALF_WITHOUT_DELACK = pytest.mark.xfail(
    strict=True,
    reason="without delayed ACKs (not the paper's Linux testbed) DiffQ-TCP's 3-hop flow "
    "gets under half of the fair share: quick 0.404, 95% CI 0.103-0.705; full (5 "
    "seeds of 120 s) 0.430, 0.368-0.492 (docs/reproductions/diffq.md, 'Starvation')",
)


@pytest.mark.parametrize(
    "delack",
    [
        pytest.param(True, id="delack-on"),
        pytest.param(False, marks=_DIFFQ_TCP_BELOW_HALF_WITHOUT_DELACK, id="delack-off"),
    ],
)
def test_acceptance_diffq_tcp_long_flow_above_half(starvation, delack):
    # With delayed ACKs, the paper's configuration (docs/reproductions/diffq.md gives the quick and
    # full figures).
    assert _share(starvation, "DiffQ-TCP", delack).ours > 0.50


def test_rate_update_is_a_parameter_and_a_wrong_clock_is_refused(tmp_path):
    with pytest.raises(ValueError, match=r"rate_update must be one of.*--param rate_update="):
        airqueue.reproduce(
            "diffq-starvation", quick=True, out=tmp_path, serial=True, params={"rate_update": "ack"}
        )


#: A one-second, four-flow version of the DiffQ mesh's scenario arguments.
SMALL_MESH = {
    "name": "x",
    "duration": 1.0,
    "nodes": 46,
    "area": (900.0, 900.0),
    "flows": 4,
    "packet_size": 1400,
    "queue_capacity": 199,
    "delayed_ack": True,
}


@pytest.mark.parametrize("name", ["diffq-single-path", "diffq-ablation"])
def test_olsr_tc_redundancy_is_olsrds_and_a_wrong_value_is_refused(tmp_path, name):
    from airqueue.reproduce.diffq_single_path import scheme_scenario

    mesh = dict(SMALL_MESH)
    sc = scheme_scenario("DiffQ-TCP", routing="olsr", **mesh)
    assert sc["routing"]["tc_redundancy"] == 2
    static = scheme_scenario("TCP-SACK", routing="static", **mesh)
    assert "tc_redundancy" not in static["routing"]
    with pytest.raises(ValueError, match=r"tc_redundancy must be 0, 1 or 2.*--param"):
        airqueue.reproduce(name, quick=True, out=tmp_path, serial=True, params={"tc_redundancy": 3})


def test_driver_buffer_and_link_loss_options_of_the_mesh(tmp_path):
    """``driver_buffer`` sets ``[mac] tx_buffer`` and ``link_loss`` one ``[[link]]`` per
    pair of the 46 nodes, for every scheme and for the reruns alone; at the defaults
    neither key appears (the scenarios, and so the runs, are those of before); a value
    the core would refuse is refused before any run, naming the parameter."""
    from airqueue.reproduce import diffq_single_path as sp

    config = sp.Config.make(
        False, {"driver_buffer": sp.MADWIFI_TXBUF_FRAMES, "link_loss": sp.TABLE2_LINK_LOSS}
    )
    alone = sp.alone_scenario(config, 3, 7, 0.5)
    assert alone["mac"]["tx_buffer"] == 200
    assert len(alone["link"]) == 46 * 45 // 2
    assert {(lk["a"], lk["b"]) for lk in alone["link"]} == {
        (a, b) for a in range(46) for b in range(a + 1, 46)
    }
    assert all(lk["loss"] == sp.TABLE2_LINK_LOSS for lk in alone["link"])
    assert sp.Config().driver_buffer == 200 and sp.Config().link_loss == 0.04
    plain = sp.alone_scenario(sp.Config(driver_buffer=1, link_loss=0.0), 3, 7, 0.5)
    assert plain["mac"] == {"kind": "dcf", "short_retry_limit": 11}
    assert "link" not in plain
    for params, needle in [
        ({"driver_buffer": 0}, r"driver_buffer must be .*1..=512.*--param driver_buffer=200"),
        ({"link_loss": 1.0}, r"link_loss must be a probability in \[0, 1\).*--param link_loss"),
    ]:
        with pytest.raises(ValueError, match=needle):
            airqueue.reproduce(
                "diffq-single-path", quick=True, out=tmp_path, serial=True, params=params
            )


def test_fading_option_of_the_mesh(tmp_path):
    """``fading = "rayleigh"`` sets ``radio.fading`` for every scheme and for the reruns
    alone; the default leaves the radio as before; another value is refused before any
    run, naming the parameter."""
    from airqueue.reproduce import diffq_single_path as sp

    assert sp.Config().fading == "none"
    faded = sp.Config.make(False, {"fading": "rayleigh"})
    assert sp.alone_scenario(faded, 3, 7, 0.5)["radio"] == {
        "data_rate": 11e6,
        "fading": "rayleigh",
    }
    assert sp.alone_scenario(sp.Config(), 3, 7, 0.5)["radio"] == {"data_rate": 11e6}
    mesh = sp.scheme_scenario(
        "DiffQ-TCP",
        name="x",
        duration=1.0,
        nodes=46,
        area=(900.0, 900.0),
        flows=4,
        packet_size=1400,
        queue_capacity=199,
        delayed_ack=True,
        fading="rayleigh",
    )
    assert mesh["radio"]["fading"] == "rayleigh"
    with pytest.raises(ValueError, match=r"fading must be one of \['none', 'rayleigh'\].*--param"):
        airqueue.reproduce(
            "diffq-single-path", quick=True, out=tmp_path, serial=True, params={"fading": "rice"}
        )


def test_tcp_sack_variant_of_the_mesh_is_a_counterfactual():
    """``tcp_sack_variant = "cubic"`` gives TCP-SACK (and its reruns alone) CUBIC's
    window; DiffQ-TCP and TCP-FeW keep theirs; the default leaves the scored runs as they
    were; another value is refused with the configuration, before any run, naming the
    parameter."""
    from airqueue.reproduce import diffq_single_path as sp

    mesh = dict(SMALL_MESH)
    assert sp.Config().tcp_sack_variant == "sack"
    variant = {
        scheme: sp.scheme_scenario(scheme, sack_variant="cubic", **mesh)["flows"]["variant"]
        for scheme in ("TCP-SACK", "TCP-FeW", "DiffQ-TCP")
    }
    assert variant == {"TCP-SACK": "cubic", "TCP-FeW": "few", "DiffQ-TCP": "sack"}
    assert sp.scheme_scenario("TCP-SACK", **mesh)["flows"]["variant"] == "sack"
    cubic = sp.Config.make(False, {"tcp_sack_variant": "cubic"})
    assert sp.alone_scenario(cubic, 3, 7, 0.5)["flow"][0]["variant"] == "cubic"
    with pytest.raises(ValueError, match=r"tcp_sack_variant must be one of sack, cubic.*--param"):
        sp.Config.make(True, {"tcp_sack_variant": "bic"})


def test_cs_range_of_the_mesh_is_a_counterfactual():
    """``cs_range`` sets ``radio.cs_range`` for every scheme and the reruns alone; the
    default leaves the radio as before; a range below the 250 m decode range, or not a
    number, is refused with the configuration, naming the parameter."""
    from airqueue.reproduce import diffq_single_path as sp

    mesh = dict(SMALL_MESH)
    assert sp.Config().cs_range is None
    assert sp.scheme_scenario("TCP-SACK", **mesh)["radio"] == {"data_rate": 11e6}
    near = sp.scheme_scenario("DiffQ-UDP", cs_range=400.0, **mesh)
    assert near["radio"] == {"data_rate": 11e6, "cs_range": 400.0}
    config = sp.Config.make(False, {"cs_range": 250})
    assert sp.alone_scenario(config, 3, 7, 0.5)["radio"]["cs_range"] == 250
    for bad in (100.0, "far", True):
        with pytest.raises(ValueError, match=r"cs_range must be a distance in metres.*--param"):
            sp.Config.make(True, {"cs_range": bad})


def test_tcp_initial_rto_of_the_mesh_is_a_counterfactual():
    """``tcp_initial_rto`` sets ``tcp.initial_rto`` for every scheme and the reruns alone;
    the default leaves the ``[tcp]`` section as before; a value that is not a number of
    seconds in (0, 60] is refused with the configuration, naming the parameter."""
    from airqueue.reproduce import diffq_single_path as sp

    mesh = dict(SMALL_MESH)
    assert sp.Config().tcp_initial_rto is None
    assert "initial_rto" not in sp.scheme_scenario("TCP-SACK", **mesh)["tcp"]
    for scheme in ("TCP-SACK", "DiffQ-TCP", "TFRC-ECN"):
        assert sp.scheme_scenario(scheme, initial_rto=3.0, **mesh)["tcp"]["initial_rto"] == 3.0
    config = sp.Config.make(False, {"tcp_initial_rto": 3})
    assert sp.alone_scenario(config, 3, 7, 0.5)["tcp"]["initial_rto"] == 3
    for bad in (0.0, -1.0, 61.0, "3 s", True):
        with pytest.raises(ValueError, match=r"tcp_initial_rto must be a number of seconds"):
            sp.Config.make(True, {"tcp_initial_rto": bad})


def test_diffq_switches_of_the_mesh_are_counterfactuals(tmp_path):
    """``diffq_scheduling`` and ``diffq_mac_priority`` off set ``[diffq] scheduling`` and
    ``mac_priority`` to false for the DiffQ schemes only (section 6.4's round robin and
    priority 0); on, the defaults, neither key appears, so the scored runs stay as they
    were; a value that is not a boolean is refused before any run, naming the parameter."""
    from airqueue.reproduce import diffq_single_path as sp

    mesh = dict(SMALL_MESH)
    config = sp.Config()
    assert config.diffq_scheduling and config.diffq_mac_priority
    for scheme in ("DiffQ-TCP", "DiffQ-UDP"):
        default = sp.scheme_scenario(scheme, **mesh)
        assert "scheduling" not in default["diffq"] and "mac_priority" not in default["diffq"]
        off = sp.scheme_scenario(scheme, scheduling=False, mac_priority=False, **mesh)
        assert off["diffq"]["scheduling"] is False and off["diffq"]["mac_priority"] is False
        assert {k: v for k, v in off["diffq"].items() if k not in default["diffq"]} == {
            "scheduling": False,
            "mac_priority": False,
        }
        only_rr = sp.scheme_scenario(scheme, scheduling=False, **mesh)
        assert "mac_priority" not in only_rr["diffq"]
    tfrc = sp.scheme_scenario("TFRC-ECN", scheduling=False, mac_priority=False, **mesh)
    assert tfrc == sp.scheme_scenario("TFRC-ECN", **mesh)
    assert "diffq" not in tfrc
    made = sp.Config.make(False, {"diffq_scheduling": False, "diffq_mac_priority": False})
    assert not made.diffq_scheduling and not made.diffq_mac_priority
    with pytest.raises(ValueError, match=r"parameter diffq_mac_priority: expected bool"):
        airqueue.reproduce(
            "diffq-single-path",
            quick=True,
            out=tmp_path,
            serial=True,
            params={"diffq_mac_priority": "off"},
        )


def test_diffq_select_of_the_diffq_reproductions_is_a_counterfactual():
    """``diffq_select = "level"`` sets ``[diffq] select`` for the DiffQ schemes of the
    mesh, the ablation's variants and DiffQ-MORE, and for no other scheme; the default
    leaves the key out, so the scored runs stay as they were; another value is refused
    before any run, naming the parameter."""
    from airqueue.reproduce import diffq_ablation as ab
    from airqueue.reproduce import diffq_more as dm
    from airqueue.reproduce import diffq_single_path as sp

    mesh = dict(SMALL_MESH)
    assert sp.Config().diffq_select == "differential"
    for scheme in ("DiffQ-TCP", "DiffQ-UDP"):
        assert "select" not in sp.scheme_scenario(scheme, **mesh)["diffq"]
        assert sp.scheme_scenario(scheme, select="level", **mesh)["diffq"]["select"] == "level"
    tfrc = sp.scheme_scenario("TFRC-ECN", select="level", **mesh)
    assert tfrc == sp.scheme_scenario("TFRC-ECN", **mesh)
    more = dm.Config.make(False, {"diffq_select": "level"})
    assert dm._common(more, "DiffQ-MORE", "x", 10)["diffq"]["select"] == "level"
    assert "diffq" not in dm._common(more, "MORE", "x", 10)
    assert "select" not in dm._common(dm.Config(), "DiffQ-MORE", "x", 10)["diffq"]
    assert ab.Config.make(False, {"diffq_select": "level"}).diffq_select == "level"
    for make in (sp.Config.make, ab.Config.make, dm.Config.make):
        with pytest.raises(ValueError, match=r"diffq_select must be one of differential, level"):
            make(True, {"diffq_select": "highest"})


def test_table3_and_fig13_taken_apart_rerun_every_flow_alone_under_its_scheme():
    """``alone_at = n`` reruns every flow of TCP-SACK's, DiffQ-TCP's, TFRC-ECN's and
    DiffQ-UDP's runs of ``n`` flows alone on its seed's mesh, each under its own scheme
    (the DiffQ schemes keep their ``cc``); the rows are each pair's ratio alone and each
    scheme's statistic with the others over it alone: the median flow for Table 3's pair,
    the aggregate for Fig. 13's. A flow count not run, or a run without a whole pair, is
    refused naming the parameter."""
    from airqueue.reproduce import diffq_single_path as sp

    config = sp.Config.make(True, {"alone_at": 4})
    factor = {"TCP-SACK": 1, "DiffQ-TCP": 2, "TFRC-ECN": 1, "DiffQ-UDP": 4}
    flows = pd.DataFrame(
        [
            (scheme, seed, 4, src, src + 10, 0.5, bps * factor[scheme])
            for scheme in factor
            for seed in (1, 2)
            for src, bps in ((1, 100e3), (2, 300e3), (3, 500e3))
        ],
        columns=["scheme", "seed", "flows.random", "src", "dst", "start_s", "goodput_bps"],
    )

    class Runner:
        calls = []

        def sweep(self, name, base, *, seeds, grid):
            self.calls.append((base, seeds, grid))
            rows = [
                {"seed": seeds[0], "src": f[0]["src"], "dst": f[0]["dst"], "goodput_bps": 1e6}
                for f in grid["flow"]
            ]
            return pd.DataFrame(rows)

    alone = sp._run_every_alone(Runner(), flows, config, 4)
    assert len(Runner.calls) == 8 and len(alone) == 24
    assert sorted(seeds for _, seeds, _ in Runner.calls) == [[1]] * 4 + [[2]] * 4
    kinds = set()
    for base, _, grid in Runner.calls:
        assert "flows" not in base and len(grid["flow"]) == 3
        flow = grid["flow"][0][0]
        assert flow["start"] == 0.5 and "random" not in flow
        assert ("cc" in flow) == ("diffq" in base)
        kinds.add(flow["kind"])
    assert kinds == {"tcp", "udp", "tfrc"}
    rows = {r.metric: r for r in sp.every_alone_rows(4, flows, alone, config.schemes)}
    t3, f13 = (
        "Table 3 at 4 flows, every flow rerun alone: ",
        "Fig. 13 at 4 flows, every flow rerun alone: ",
    )
    assert rows[t3 + "median goodput ratio DiffQ-TCP / TCP-SACK alone"].ours == pytest.approx(1.0)
    assert rows[t3 + "TCP-SACK, median goodput with the others / alone"].ours == pytest.approx(0.3)
    assert rows[t3 + "DiffQ-TCP, median goodput with the others / alone"].ours == pytest.approx(0.6)
    kept = "aggregate goodput with the others / alone"
    assert rows[f13 + f"TFRC-ECN, {kept}"].ours == pytest.approx(0.3)
    assert rows[f13 + f"DiffQ-UDP, {kept}"].ours == pytest.approx(1.2)
    assert rows[f13 + "TFRC-ECN, summed goodput alone, kb/s"].ours == pytest.approx(3000.0)
    only_tcp = sp.every_alone_rows(4, flows, alone, ("TCP-SACK", "DiffQ-TCP"))
    assert all(r.metric.startswith(t3) for r in only_tcp) and len(only_tcp) == 5
    for bad in ({"alone_at": 16}, {"alone_at": 4, "schemes": ["TCP-SACK", "TCP-FeW", "DiffQ-UDP"]}):
        with pytest.raises(ValueError, match=r"alone_at must be one of the flow counts"):
            sp.Config.make(True, bad)


def test_diffq_switches_reach_the_run(tmp_path):
    """A quick DiffQ-UDP run with the MAC priority off sends every frame at level 0 (the
    run's per-level MAC counts), where the default spreads them over higher levels; the
    report's notes name the switch."""
    params = {
        "schemes": ["DiffQ-UDP"],
        "flow_counts": [8],
        "seeds": 1,
        "duration": 5.0,
        "alone": False,
    }
    on = airqueue.reproduce(
        "diffq-single-path", quick=True, out=tmp_path / "on", serial=True, params=params
    )
    off = airqueue.reproduce(
        "diffq-single-path",
        quick=True,
        out=tmp_path / "off",
        serial=True,
        params={**params, "diffq_mac_priority": False},
    )
    assert not any("MAC priority" in n for n in on.notes)
    assert any("MAC priority off (level 0)" in n for n in off.notes)
    levels = {}
    for name in ("on", "off"):
        df = load(tmp_path / name / "store", table="mac_levels")
        levels[name] = df.groupby("level")["data_tx"].sum()
    assert levels["off"][levels["off"].index > 0].sum() == 0
    assert levels["off"].get(0, 0) > 0
    assert levels["on"][levels["on"].index > 0].sum() > 0


def test_cli_json_rows_resume_from_the_store(starvation, starvation_dir):
    result = CliRunner().invoke(
        app,
        [
            "reproduce",
            "diffq-starvation",
            "--quick",
            "--serial",
            "--json",
            "--out",
            str(starvation_dir),
        ],
    )
    assert result.exit_code == 0, result.output
    rows = json.loads(result.stdout)
    assert isinstance(rows, list) and rows
    for r in rows:
        assert set(r) == ROW_KEYS
        assert isinstance(r["metric"], str)
        for key in ("paper", "ours", "ci_low", "ci_high"):
            assert r[key] is None or isinstance(r[key], (int, float))
    assert rows == starvation.to_rows()  # same store, same runs: identical numbers


def test_cli_table(starvation, starvation_dir):
    result = CliRunner().invoke(
        app, ["reproduce", "diffq-starvation", "--quick", "--serial", "--out", str(starvation_dir)]
    )
    assert result.exit_code == 0, result.output
    assert "95% CI low" in result.stdout and "DiffQ-TCP" in result.stdout
    assert "goodput-over-time.png" in result.stdout


def test_cli_params_override_the_config(starvation, starvation_dir):
    # Seeds 1-2 of the same scenarios: answered from the store, no new run.
    result = CliRunner().invoke(
        app,
        [
            "reproduce",
            "diffq-starvation",
            "--quick",
            "--serial",
            "--json",
            "--out",
            str(starvation_dir),
            "--param",
            "seeds=2",
            "--param",
            "delayed_ack=[true]",
        ],
    )
    assert result.exit_code == 0, result.output
    report = json.loads((starvation_dir / "report.json").read_text())
    assert report["params"]["seeds"] == 2 and report["params"]["delayed_ack"] == [True]
    assert report["params"]["seed_list"] == [1, 2]
    metrics = [r["metric"] for r in json.loads(result.stdout)]
    assert metrics and not any("delayed ACK off" in m for m in metrics)


@pytest.mark.parametrize(
    ("param", "message"),
    [
        ("seeds", "error: --param 'seeds': expected KEY=VALUE, e.g. --param seeds=3"),
        ("diffq_d=forty", "parameter diffq_d: expected int like 40, got 'forty'"),
        ("seeds=true", "parameter seeds: expected int like 3, got True"),
        ("sedes=2", "unknown parameter(s) ['sedes']"),
        ("hops=1", "parameter hops must be at least 2"),
        ("beside=[1,3]", "parameter beside must be two relays of flow 1 (chain indices 1 to"),
        ("beside=[0,1]", "e.g. --param beside=[1,1] or, with --param hops=4"),
    ],
)
def test_cli_bad_params_are_named(tmp_path, param, message):
    result = CliRunner().invoke(
        app,
        ["reproduce", "diffq-starvation", "--quick", "--out", str(tmp_path), "--param", param],
    )
    assert result.exit_code == 2, result.output
    assert message in result.stderr
    assert "Traceback" not in result.output


@pytest.mark.parametrize("hops", [3, 4])
def test_starvation_chain_follows_fig2(hops):
    """Fig. 2: flow 1 over three hops (the default) from A, and who senses whom is what
    section 2 says: B senses A, C, E and G; E and G do not sense each other but every
    node of flow 1 near B senses them; F and H sense only their own sender (550 m
    carrier sense, 250 m decode)."""
    from airqueue.reproduce import diffq_starvation

    params = {} if hops == 3 else {"hops": hops}
    sc = diffq_starvation.scenario(diffq_starvation.Config.make(False, params), "TCP-SACK")
    pos = sc["topology"]["positions"]
    f1, f2, f3 = sc["flow"]
    assert (f1["src"], f1["dst"]) == (0, hops)
    assert [pos[i] for i in range(hops + 1)] == [[200.0 * i, 0.0] for i in range(hops + 1)]
    assert [f["start"] for f in sc["flow"]] == [1.0, 45.0, 70.0]

    def sensed(n):
        return {m for m in range(len(pos)) if m != n and math.dist(pos[n], pos[m]) <= 550.0}

    a, b, c, d = 0, 1, 2, 3
    e, f, g, h = (f2["src"], f2["dst"], f3["src"], f3["dst"])
    assert {a, c, e, g} <= sensed(b)
    # Every node of flow 1 that B senses senses E and G too (no sender on flow 1's links
    # is hidden from them); E and G do not sense each other; F and H only their sender.
    contenders = {n for n in sensed(b) if n <= hops} | {b}
    assert contenders == {a, b, c, d}
    assert sensed(e) == contenders | {f} and sensed(g) == contenders | {h}
    assert sensed(f) == {e} and sensed(h) == {g}
    # The layout with the one-hop senders 200 m from the relay is one parameter away.
    old = diffq_starvation.scenario(
        diffq_starvation.Config.make(False, {**params, "sender_offset": 200}), "TCP-SACK"
    )["topology"]["positions"]
    assert [math.dist(old[1], old[n]) for n in (hops + 1, hops + 2)] == [200.0, 400.0]
    report = diffq_starvation.who_senses(diffq_starvation.Config.make(False, params))
    assert report.startswith("E senses A, B, C, D, F; F senses E;")


def test_starvation_issue_25_layout_beside_the_first_and_third_relays():
    """``hops=4, beside=[1,3]``: E beside B and G beside D, on either side of a 4-hop
    chain; B still senses A, C, E and G, E and G do not sense each other, F and H sense
    only their sender, and flow 1's last hop (D to node 4) is beyond E's range."""
    from airqueue.reproduce import diffq_starvation

    config = diffq_starvation.Config.make(False, {"hops": 4, "beside": [1, 3]})
    sc = diffq_starvation.scenario(config, "DiffQ-TCP")
    pos = sc["topology"]["positions"]
    f1, f2, f3 = sc["flow"]
    assert (f1["src"], f1["dst"]) == (0, 4)
    e, f, g, h = f2["src"], f2["dst"], f3["src"], f3["dst"]
    y = diffq_starvation.sender_offset_m(config)
    assert pos[e] == [200.0, y] and pos[g] == [600.0, -y]
    assert pos[f] == [200.0, y + 200.0] and pos[h] == [600.0, -y - 200.0]

    def sensed(n):
        return {m for m in range(len(pos)) if m != n and math.dist(pos[n], pos[m]) <= 550.0}

    assert {0, 2, e, g} <= sensed(1)
    assert sensed(e) == {0, 1, 2, 3, f} and sensed(g) == {1, 2, 3, 4, h}
    assert sensed(f) == {e} and sensed(h) == {g}
    assert diffq_starvation.who_senses(config).startswith("E senses A, B, C, D, F;")
    assert diffq_starvation._beside_words(config) == "relays B and D on either side"
    # The default stays both senders beside B (section 2's "node B"), on either side.
    default = diffq_starvation.Config.make(False, None)
    assert default.beside == (1, 1) and default.hops == 3 and not default.one_side
    # one_side mirrors G and H onto E's side: E and G then sense each other.
    one = diffq_starvation.Config.make(False, {"hops": 4, "beside": [1, 3], "one_side": True})
    pos_one = diffq_starvation.positions_m(one)
    assert pos_one[g] == [600.0, y] and pos_one[h] == [600.0, y + 200.0]
    assert math.dist(pos_one[e], pos_one[g]) == 400.0
    with pytest.raises(ValueError, match=r"one_side .* beside different relays.*beside=\[1, 1\]"):
        diffq_starvation.Config.make(False, {"one_side": True})


def test_starvation_hidden_one_hop_senders_cost_diffq_tcp_the_long_flow():
    """On a 4-hop chain, DiffQ-TCP's long flow keeps more of its fair share with E and G
    beside the middle relay C (every node of flow 1 senses both) than beside the first
    and third relays (G hidden from the source A, E from the destination): the cause
    docs/reproductions/diffq.md gives for issue 25's layout. Two quick seeds each."""
    from airqueue.reproduce import diffq_starvation

    def shares(beside):
        config = diffq_starvation.Config.make(True, {"hops": 4, "beside": beside})
        sc = diffq_starvation.scenario(config, "DiffQ-TCP")
        out = []
        for seed in (1, 2):
            ts = airqueue.run(sc, seed=seed, traces=True).table("timeseries")
            win = diffq_starvation.window_goodputs(ts, config.starts[2], config.duration)
            goodput = win.set_index("flow")["goodput_bps"]
            out.append(goodput[0] / (goodput.sum() / 3))
        return out

    sensed_by_all, hidden = shares([2, 2]), shares([1, 3])
    assert min(sensed_by_all) > max(hidden), (sensed_by_all, hidden)


@pytest.mark.parametrize("bad", [[1], [1, 4], [0, 2], [1.0, 2], [True, 1]])
def test_starvation_beside_must_name_two_relays(bad):
    from airqueue.reproduce import diffq_starvation

    with pytest.raises(
        ValueError, match=r"beside must be two relays of flow 1 \(chain indices 1 to"
    ):
        diffq_starvation.Config.make(False, {"hops": 4, "beside": bad})


@pytest.mark.parametrize("bad", [0, -5, "far", True])
def test_starvation_sender_offset_must_be_a_distance(bad):
    from airqueue.reproduce import diffq_starvation

    with pytest.raises(ValueError, match="sender_offset must be a distance in metres > 0"):
        diffq_starvation.Config.make(False, {"sender_offset": bad})


def test_sensitivity_quick_reruns_the_headlines_per_point(tmp_path):
    # One driver frame: with the single-path default of 200 the backlog waits in the
    # driver, where neither D nor the threshold sees it (docs/reproductions/diffq.md,
    # "Sensitivity"), and the finding checked below does not hold.
    res = airqueue.reproduce(
        "diffq-sensitivity", quick=True, out=tmp_path, serial=True, params={"driver_buffer": 1}
    )
    assert res.params["grid"] == ((40, 10, 64), (16, 2, 64))
    for tag in ("D=40, threshold=10, window=64", "D=16, threshold=2, window=64"):
        for metric in (
            "starvation, long-flow share, delayed ACK on",
            "starvation, long-flow share, delayed ACK off",
            "Jain's index, 16 flows, DiffQ-TCP",
            "Jain's index, 16 flows, TCP-SACK",
            "median goodput ratio, 16 flows (Table 3)",
            "relay queue drops, full DiffQ / RC only (Fig. 15)",
        ):
            r = res.row(f"{tag}: {metric}")
            assert r.ours is not None and r.ci_low <= r.ours <= r.ci_high, (tag, metric)
    # TCP-SACK does not depend on D: the same runs, the same number.
    sack = [
        res.row(f"{t}: Jain's index, 16 flows, TCP-SACK").ours
        for t in ("D=40, threshold=10, window=64", "D=16, threshold=2, window=64")
    ]
    assert sack[0] == sack[1]
    # The finding docs/reproductions/diffq.md reports: with one driver frame, a finer
    # priority step (smaller D, threshold D/8) makes DiffQ-TCP fairer on the mesh. The
    # full grid separates the 16-flow Jain intervals; the quick run's 3 scenarios do not,
    # so here only the direction of Jain's index is checked. The median ratio is not
    # checked: over 3 scenarios its intervals are too wide to order
    # (docs/reproductions/diffq.md, "Sensitivity").
    metric = "Jain's index, 16 flows, DiffQ-TCP"
    small = res.row(f"D=16, threshold=2, window=64: {metric}")
    large = res.row(f"D=40, threshold=10, window=64: {metric}")
    assert small.ours > large.ours, metric
    _pngs(res)


def test_sensitivity_grid_is_checked(tmp_path):
    with pytest.raises(airqueue.ConfigError, match=r"point \[8, 8, 64\] needs"):
        airqueue.reproduce("diffq-sensitivity", out=tmp_path, params={"grid": [[8, 8, 64]]})
    with pytest.raises(airqueue.ConfigError, match="each point is"):
        airqueue.reproduce("diffq-sensitivity", out=tmp_path, params={"grid": [[8, 1]]})


def test_cli_unknown_name_lists_the_valid_ones(tmp_path):
    result = CliRunner().invoke(app, ["reproduce", "diffq-nope", "--out", str(tmp_path)])
    assert result.exit_code == 2
    assert result.stderr.startswith("error: unknown reproduction 'diffq-nope'")
    for name in NAMES:
        assert name in result.stderr
    assert not any(tmp_path.iterdir())


def test_api_unknown_name_and_parameter(tmp_path):
    with pytest.raises(airqueue.ConfigError, match="diffq-starvation"):
        airqueue.reproduce("nope", out=tmp_path)
    with pytest.raises(airqueue.ConfigError, match="unknown parameter"):
        airqueue.reproduce("diffq-ablation", out=tmp_path, params={"sedes": 2})


def test_single_path_smoke(tmp_path):
    res = airqueue.reproduce(
        "diffq-single-path",
        out=tmp_path,
        serial=True,
        params={"seeds": 2, "flow_counts": [4], "duration": 5.0},
    )
    metrics = [r.metric for r in res.rows]
    for scheme in ("TCP-SACK", "TCP-FeW", "DiffQ-TCP", "UDP", "DiffQ-UDP", "TFRC-ECN"):
        assert f"{scheme}, 4 flows: Jain's index (Fig. 11a/13)" in metrics
        assert f"{scheme}, 4 flows: log utility (Fig. 11c/13)" in metrics
    table3 = res.row("median goodput ratio DiffQ-TCP / TCP-SACK, 4 flows (Table 3)")
    assert table3.paper == 1.96 and table3.ours is not None
    assert res.row("topology: hop diameter (paper section 2: 'around 6 or 7 hops')").ours >= 3
    assert {p.name for p in res.figures} == {"cdf.png", "metrics.png", "scatter.png"}
    _pngs(res)
    assert (tmp_path / "report.json").is_file()
    runs = airqueue.load(tmp_path / "store", table="summary")
    tfrc = res.row("Jain's index ratio DiffQ-UDP / TFRC-ECN, 4 flows (Fig. 13; text: much better)")
    assert tfrc.ours is not None and tfrc.paper is None
    assert len(runs) == 6 * 2
    # Fig. 12 as numbers (at the largest flow count): shares of flows in the text's bands.
    for scheme in ("TCP-SACK", "DiffQ-TCP"):
        for band in ("1-5 Mb/s", "50-500 kb/s"):
            share = res.row(f"Fig. 12: {scheme}, 4 flows: fraction of flows at {band}")
            assert share.ours is not None and 0.0 <= share.ours <= 1.0
    largest = res.row("TCP-SACK, 4 flows: largest per-flow goodput, kb/s (Fig. 1b)")
    median = res.row("TCP-SACK, 4 flows: median per-flow goodput, kb/s")
    assert largest.ours >= median.ours


def test_fig12_rows_pair_the_same_flows_and_count_the_bands():
    """Fig. 12's numbers from a hand-made table: two scenarios, the same (src, dst) pairs
    under both schemes; a flow TCP-SACK starves is paired with its DiffQ-TCP goodput."""
    import pandas as pd

    from airqueue.reproduce import diffq_single_path as sp

    rows = []
    for seed, tcp, dq in (
        (1, [500.0, 2e6, 80e3, 3e6], [20e3, 600e3, 90e3, 100e3]),
        (2, [0.0, 0.0, 1.5e6, 60e3], [40e3, 60e3, 200e3, 70e3]),
    ):
        for i, (a, b) in enumerate(zip(tcp, dq, strict=True)):
            rows.append({"scheme": "TCP-SACK", "seed": seed, "src": i, "dst": 9, "goodput_bps": a})
            rows.append({"scheme": "DiffQ-TCP", "seed": seed, "src": i, "dst": 9, "goodput_bps": b})
    out = {r.metric: r for r in sp._fig12_rows(4, pd.DataFrame(rows))}
    rescued = out[
        "Fig. 12: DiffQ-TCP goodput of the flows TCP-SACK starves (< 1 kb/s), median over "
        "those flows, 4 flows, kb/s"
    ]
    # One starved flow in the first scenario, two in the second: the mean of the medians.
    assert rescued.ours == pytest.approx((20.0 + 50.0) / 2)
    band = "Fig. 12: {}, 4 flows: fraction of flows at {}"
    assert out[band.format("TCP-SACK", "1-5 Mb/s")].ours == pytest.approx((2 / 4 + 1 / 4) / 2)
    assert out[band.format("DiffQ-TCP", "50-500 kb/s")].ours == pytest.approx((2 / 4 + 3 / 4) / 2)


def test_fig14_rows_set_the_worse_tcp_against_the_range_of_single_runs():
    """Fig. 14 from a hand-made table: per scenario the larger of TCP-SACK's and
    TCP-FeW's starved fractions; the median over scenarios, and the 2.5-97.5 percentiles
    (linear interpolation) as the range one run falls in."""
    import numpy as np
    import pandas as pd

    from airqueue.reproduce import diffq_single_path as sp

    rows = []
    for seed, sack, few in (
        (1, [0.0, 5e3, 6e3, 7e3], [0.0, 500.0, 6e3, 7e3]),  # 1/4 and 2/4 starved
        (2, [0.0, 10.0, 999.0, 7e3], [2e3, 5e3, 6e3, 7e3]),  # 3/4 and 0
        (3, [4e3, 5e3, 6e3, 7e3], [1e3, 5e3, 6e3, 7e3]),  # none (1 kb/s is not starved)
    ):
        for scheme, goodputs in (("TCP-SACK", sack), ("TCP-FeW", few)):
            rows += [{"scheme": scheme, "seed": seed, "goodput_bps": g} for g in goodputs]
    (fig14,) = sp.fig14_rows(4, pd.DataFrame(rows))
    assert fig14.ours == 0.5
    assert fig14.ci_low == pytest.approx(np.percentile([0.5, 0.75, 0.0], 2.5))
    assert fig14.ci_high == pytest.approx(np.percentile([0.5, 0.75, 0.0], 97.5))
    assert fig14.ci_low == pytest.approx(0.025) and fig14.ci_high == pytest.approx(0.7375)


def test_alone_rows_take_each_scenario_s_median_then_the_mean():
    import pandas as pd

    from airqueue.reproduce import diffq_single_path as sp

    alone = pd.DataFrame(
        {"seed": [1, 1, 1, 2], "alone_bps": [600e3, 1e6, 200e3, 2e6], "goodput_bps": 0.0}
    )
    count, median, above = sp.alone_rows(32, alone)
    assert count.ours == 4
    assert median.ours == pytest.approx((600.0 + 2000.0) / 2)  # kb/s
    assert median.ci_low < median.ours < median.ci_high
    assert above.ours == pytest.approx((2 / 3 + 1) / 2)
    claim = next(c for c in sp.CLAIMS if c.id == "000-s63-starved-paths-500k")
    assert claim.measure.metric == median.metric
    fig14 = next(c for c in sp.CLAIMS if c.id == "000-fig14-tcp-starved-60")
    assert fig14.measure.metric.startswith("Fig. 14: the larger of TCP-SACK's")


def test_alone_scenario_is_the_same_mesh_with_one_flow():
    from airqueue.reproduce import diffq_single_path as sp

    config = sp.Config()
    mixed = sp.scheme_scenario(
        "TCP-SACK",
        name=sp.NAME,
        duration=config.duration,
        nodes=config.nodes,
        area=config.area,
        flows=32,
        packet_size=config.packet_size,
        queue_capacity=config.queue_capacity,
        delayed_ack=config.delayed_ack,
        routing=config.routing,
        tc_redundancy=config.tc_redundancy,
        driver_buffer=config.driver_buffer,
        link_loss=config.link_loss,
    )
    alone = sp.alone_scenario(config, 14, 22, 0.93)
    assert "flows" not in alone
    assert alone["flow"] == [
        {"kind": "tcp", "variant": "sack", "packet_size": 1400, "src": 14, "dst": 22, "start": 0.93}
    ]
    for key in ("topology", "radio", "mac", "routing", "queue", "tcp", "duration", "link"):
        assert alone[key] == mixed[key], key


def test_single_path_reruns_the_starved_tcp_flows_alone(tmp_path):
    """The reproduction's own reruns: every TCP-SACK flow starved at the largest flow
    count, alone on its scenario's mesh; a rerun is the scenario ``alone_scenario``
    builds, run on that seed."""
    from airqueue.reproduce import diffq_single_path as sp

    # The loss-free one-frame MAC starves a flow in these two short scenarios; the
    # rerun's mechanism does not depend on the driver or the links.
    params = {
        "seeds": 2,
        "flow_counts": [8],
        "duration": 10.0,
        "schemes": ["TCP-SACK"],
        "driver_buffer": 1,
        "link_loss": 0.0,
    }
    res = airqueue.reproduce("diffq-single-path", out=tmp_path, serial=True, params=params)
    mixed = airqueue.load(tmp_path / "store", table="flows")
    starved = sp.starved_tcp_flows(mixed.assign(scheme="TCP-SACK"), 8)
    assert len(starved) >= 1, "the check needs a starved flow in these runs"
    head = "Sec. 6.3: TCP-SACK flows starved (< 1 kb/s) at 8 flows, each rerun alone on its mesh"
    assert res.row(f"{head} (same seed and routing): flows rerun").ours == len(starved)
    config = sp.Config.make(False, params)
    first = starved.iloc[0]
    sc = sp.alone_scenario(config, first["src"], first["dst"], first["start_s"])
    direct = airqueue.run(sc, seed=int(first["seed"])).flows["goodput_bps"].iloc[0]
    every = airqueue.load(tmp_path / "store", table="flows")
    same_pair = every[
        (every["seed"] == first["seed"])
        & (every["src"] == first["src"])
        & (every["dst"] == first["dst"])
    ]
    # The pair's flow in the mixed run (starved) and in its rerun alone (the direct run).
    assert sorted(same_pair["goodput_bps"]) == sorted([first["goodput_bps"], direct])
    assert direct > sp.STARVED_BPS
    median = res.row(
        f"{head} (same seed and routing): goodput alone, median over each scenario's starved "
        "flows, kb/s"
    )
    assert median.ours is not None and median.ours > 0
    none = airqueue.reproduce(
        "diffq-single-path", out=tmp_path, serial=True, params={**params, "alone": False}
    )
    assert not any(r.metric.startswith("Sec. 6.3: TCP-SACK flows starved") for r in none.rows)


def test_ablation_smoke(tmp_path):
    res = airqueue.reproduce(
        "diffq-ablation",
        out=tmp_path,
        serial=True,
        params={"seeds": 2, "duration": 5.0},
    )
    full = res.row(
        "full DiffQ: queue drops at intermediate nodes per run, 5 s (Fig. 15, 120 s (~2,500))"
    )
    assert full.paper == 2500.0 and full.ours is not None
    rc = res.row(
        "RC only: queue drops at intermediate nodes per run, 5 s (Fig. 15, 120 s (> 70,000))"
    )
    assert rc.paper == 70000.0
    # Intermediate-node and own-source drops add up to all queue drops.
    for variant in ("RC only", "RC + scheduling", "full DiffQ"):
        relay = res.row(
            f"{variant}: queue drops at intermediate nodes per run, 5 s (Fig. 15, 120 s "
            + ("(~2,500))" if variant == "full DiffQ" else "(> 70,000))")
        )
        own = res.row(f"{variant}: queue drops at the packet's own source per run")
        every = res.row(f"{variant}: queue drops per run, all nodes")
        assert relay.ours + own.ours == pytest.approx(every.ours)
    assert any(
        r.metric.startswith("intermediate-node queue drops ratio full DiffQ / RC only")
        for r in res.rows
    )
    assert {p.name for p in res.figures} == {"drops-by-hops.png", "variants.png"}
    _pngs(res)


def test_ablation_driver_buffer_and_link_loss_are_counterfactuals(tmp_path):
    """``diffq-ablation``'s ``driver_buffer``, ``link_loss``, ``fading`` and
    ``source_queue`` reach every variant's scenario (``[mac] tx_buffer``, one ``[[link]]``
    per pair, ``radio.fading``, ``[diffq] source_queue``); at the defaults (one frame,
    loss-free, no fading, the source's own queue) none of the keys appears, so the scored
    runs stay as they were; a value the core would refuse is refused before any run,
    naming the parameter."""
    params = {"seeds": 1, "duration": 2.0}
    airqueue.reproduce("diffq-ablation", out=tmp_path / "plain", serial=True, params=params)
    airqueue.reproduce(
        "diffq-ablation",
        out=tmp_path / "driver",
        serial=True,
        params={
            **params,
            "driver_buffer": 200,
            "link_loss": 0.04,
            "fading": "rayleigh",
            "source_queue": "first_relay",
        },
    )
    for name, buffered in (("plain", False), ("driver", True)):
        runs = sorted((tmp_path / name / "store" / "runs").iterdir())
        assert len(runs) == 3
        for run in runs:
            sc = json.loads((run / "manifest.json").read_text())["scenario"]
            assert sc["mac"].get("tx_buffer") == (200 if buffered else None)
            links = sc.get("link", [])
            assert len(links) == (46 * 45 // 2 if buffered else 0)
            assert all(lk["loss"] == 0.04 for lk in links)
            assert sc["diffq"].get("source_queue") == ("first_relay" if buffered else None)
            assert sc["radio"].get("fading") == ("rayleigh" if buffered else None)
    with pytest.raises(ValueError, match=r"diffq-ablation: source_queue must be .*--param"):
        airqueue.reproduce(
            "diffq-ablation", out=tmp_path / "bad", serial=True, params={"source_queue": "x"}
        )
    with pytest.raises(ValueError, match=r"diffq-ablation: fading must be one of .*--param"):
        airqueue.reproduce(
            "diffq-ablation", out=tmp_path / "bad", serial=True, params={"fading": "x"}
        )
    with pytest.raises(ValueError, match=r"diffq-ablation: driver_buffer must be .*--param"):
        airqueue.reproduce(
            "diffq-ablation", out=tmp_path / "bad", serial=True, params={"driver_buffer": 0}
        )


def test_paths_read_hops_and_diameter_from_the_run_s_tables():
    import pandas as pd

    from airqueue.reproduce.paths import flow_hops, hop_diameter

    # A 6-node chain 200 m apart: flow 0 crosses all five hops, flow 1 two of them.
    sc = {
        "duration": 1.0,
        "topology": {"kind": "chain", "nodes": 6, "spacing": 200.0},
        "flow": [
            {"kind": "udp", "src": 0, "dst": 5, "rate": 1e5},
            {"kind": "udp", "src": 4, "dst": 2, "rate": 1e5},
        ],
    }
    res = airqueue.run(sc)
    routes = res.routes.assign(run_id="r")
    assert flow_hops(routes) == {("r", 0): 5, ("r", 1): 2}
    assert hop_diameter(res.links, 6) == 5
    # One more link from 0 to 5 (as a ring would have) halves it.
    ring = pd.concat([res.links, pd.DataFrame({"a": [0], "b": [5]})], ignore_index=True)
    assert hop_diameter(ring, 6) == 3


def test_reproduce_all_runs_the_named_ones_and_writes_one_summary(tmp_path):
    results = airqueue.reproduce_all(
        quick=True, out=tmp_path, serial=True, names=["diffq-tcp-chain"]
    )
    assert list(results) == ["diffq-tcp-chain"]
    chain = results["diffq-tcp-chain"]
    assert (tmp_path / "diffq-tcp-chain" / "rows.json").is_file()
    md = (tmp_path / "summary.md").read_text()
    assert "## diffq-tcp-chain (seed 000)" in md
    one_hop = next(line for line in md.splitlines() if "| TCP-SACK, 1 hop: goodput" in line)
    cells = [c.strip() for c in one_hop.strip("|").split("|")]
    assert cells[1] == "4.25"
    ours = chain.row("TCP-SACK, 1 hop: goodput, Mb/s (Table 2)").ours
    assert cells[4] == f"{ours / 4.25:.2f}"  # ours / paper, outside our narrow interval
    no_paper = next(line for line in md.splitlines() if "| DiffQ-TCP, 1 hop: goodput" in line)
    assert no_paper.rstrip().endswith("|  |")
    assert "(diffq-tcp-chain/goodput-by-hops.png)" in md
    doc = json.loads((tmp_path / "summary.json").read_text())
    assert doc["quick"] is True
    assert doc["reproductions"]["diffq-tcp-chain"]["rows"] == chain.to_rows()


def test_reproduce_all_covers_every_paper_result_but_not_the_sensitivity_grid():
    from airqueue.reproduce import IN_ALL

    assert set(IN_ALL) == set(NAMES) - {"diffq-sensitivity"}
    with pytest.raises(airqueue.ConfigError, match="nope"):
        airqueue.reproduce_all(names=["nope"], serial=True)


def test_cli_reproduce_all_refuses_param_with_a_pointer(tmp_path):
    result = CliRunner().invoke(
        app, ["reproduce", "all", "--quick", "--out", str(tmp_path), "--param", "seeds=2"]
    )
    assert result.exit_code == 2
    assert "--param" in result.output and "by name" in result.output
    assert not (tmp_path / "summary.md").exists()


def test_summary_says_how_close_where_the_paper_gives_a_number(tmp_path):
    from airqueue.reproduce import ReproductionResult, Row
    from airqueue.reproduce.summary import markdown

    result = ReproductionResult(
        name="diffq-tcp-chain",
        rows=[
            Row("inside", 2.0, 2.2, 1.9, 2.5),
            Row("outside", 2.0, 3.0, 2.9, 3.1),
            Row("no paper number", None, 1.0, 0.9, 1.1),
        ],
    )
    md = markdown({"diffq-tcp-chain": result}, tmp_path, quick=True, wall_seconds=1.0)
    lines = {line.split("|")[1].strip(): line for line in md.splitlines() if line.startswith("|")}
    assert lines["inside"].endswith("| 1.10 (in CI) |")
    assert lines["outside"].endswith("| 1.50 |")
    assert lines["no paper number"].endswith("|  |")
