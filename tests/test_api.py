"""The Python API: scenarios, run(), Results, errors, and the extension module."""

from __future__ import annotations

import datetime
import json
import pickle
import signal
import time
from pathlib import Path

import pandas as pd
import pytest
import yaml
from hypothesis import given
from hypothesis import strategies as st
from shared import CHAIN_TOML, SUMMARY_KEYS

import airqueue
from airqueue import ConfigError, Results, Scenario, SimulationError, _core

FLOW_KEYS = {
    "id",
    "kind",
    "src",
    "dst",
    "goodput_bps",
    "packets_sent",
    "packets_delivered",
    "mean_delay_s",
}

CHAIN = {
    "name": "t",
    "duration": 10,
    "topology": {"kind": "chain", "nodes": 3, "spacing": 200},
    "medium": {"kind": "wired", "bandwidth": 1e6, "delay": 0.001},
    "flow": [
        {"kind": "udp", "src": 0, "dst": 2, "start": 0, "rate": "saturate", "packet_size": 1000}
    ],
}


# Keys that depend on the wall clock, so differ between identical runs.
WALL_KEYS = {"wall_seconds", "events_per_second"}


def without_wall(summary: dict) -> dict:
    return {k: v for k, v in summary.items() if k not in WALL_KEYS}


@pytest.fixture(scope="module")
def chain_results() -> Results:
    return airqueue.run(CHAIN)


# --- errors ------------------------------------------------------------------------------


def test_error_hierarchy_subclasses_builtins() -> None:
    assert issubclass(ConfigError, airqueue.AirqueueError)
    assert issubclass(ConfigError, ValueError)
    assert issubclass(SimulationError, airqueue.AirqueueError)
    assert issubclass(SimulationError, RuntimeError)


def test_errors_keep_every_message_and_pickle() -> None:
    e = ConfigError(["a: bad", "b: worse"])
    assert e.errors == ["a: bad", "b: worse"]
    assert "a: bad" in str(e) and "b: worse" in str(e)
    back = pickle.loads(pickle.dumps(e))
    assert type(back) is ConfigError and back.errors == e.errors
    assert ConfigError("one").errors == ["one"] and str(ConfigError("one")) == "one"


# --- loading scenario files ----------------------------------------------------------------


def test_toml_yaml_json_files_load_the_same_keys(tmp_path: Path) -> None:
    (tmp_path / "s.toml").write_text(CHAIN_TOML)
    (tmp_path / "s.json").write_text(json.dumps(CHAIN))
    (tmp_path / "s.yaml").write_text(yaml.safe_dump(CHAIN))
    (tmp_path / "s.yml").write_text(json.dumps(CHAIN))  # JSON is YAML too
    loaded = [Scenario.load(tmp_path / f"s.{ext}") for ext in ("toml", "json", "yaml", "yml")]
    assert all(s.to_dict() == loaded[0].to_dict() for s in loaded)
    assert loaded[0].to_dict()["flow"][0]["rate"] == "saturate"
    assert loaded[0].name == "t"
    assert loaded[0].source == tmp_path / "s.toml"


def test_missing_file_is_a_config_error(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match="no such file"):
        Scenario.load(tmp_path / "nope.toml")


def test_unknown_extension_is_a_config_error(tmp_path: Path) -> None:
    (tmp_path / "s.ini").write_text("x=1")
    with pytest.raises(ConfigError, match=r"unknown scenario format '\.ini'"):
        Scenario.load(tmp_path / "s.ini")


def test_directory_is_a_config_error(tmp_path: Path) -> None:
    (tmp_path / "d.toml").mkdir()
    with pytest.raises(ConfigError, match="cannot read"):
        Scenario.load(tmp_path / "d.toml")


@pytest.mark.parametrize(
    ("name", "text", "pattern"),
    [
        ("bad.toml", 'name = "t"\nduration = = 3\n', r"invalid TOML.*line 2"),
        ("bad.yaml", "name: t\nflow: [1, 2\n", r"invalid YAML at line \d+, column \d+"),
        ("bad.json", '{"name": "t",\n "duration": }', r"invalid JSON at line 2, column \d+"),
        ("nan.json", '{"duration": NaN}', r"NaN is not a valid number"),
        ("list.yaml", "- 1\n- 2\n", r"top level must be a table"),
        ("empty.yaml", "", r"top level must be a table"),
    ],
)
def test_syntax_errors_name_file_and_line(tmp_path: Path, name: str, text: str, pattern: str):
    path = tmp_path / name
    path.write_text(text)
    with pytest.raises(ConfigError, match=pattern) as info:
        Scenario.load(path)
    assert len(info.value.errors) == 1
    assert info.value.errors[0].startswith(str(path))


def test_from_dict_copies_its_input() -> None:
    data = json.loads(json.dumps(CHAIN))
    sc = Scenario.from_dict(data)
    data["flow"][0]["src"] = 99
    assert sc.to_dict()["flow"][0]["src"] == 0
    sc.to_dict()["name"] = "changed"
    assert sc.name == "t"


def test_non_mapping_is_rejected() -> None:
    with pytest.raises(ConfigError, match="mapping"):
        Scenario.from_dict([1, 2])  # type: ignore[arg-type]
    with pytest.raises(ConfigError, match="expected a Scenario"):
        airqueue.load_scenario(42)  # type: ignore[arg-type]


def test_values_json_cannot_carry_are_config_errors_naming_their_key_path() -> None:
    with pytest.raises(ConfigError, match=r"^name: a object value .* use numbers"):
        Scenario.from_dict({"name": object()}).to_json()
    with pytest.raises(ConfigError, match=r"^duration: inf is not a finite number"):
        Scenario.from_dict({"duration": float("inf")}).to_json()
    # Every such value is named, in lists of tables too (a TOML date is one).
    bad = {
        "flow": [{"rate": 1.0}, {"rate": float("nan")}],
        "topology": {"nodes": [0, float("-inf")]},
        "when": datetime.date(2026, 1, 1),
    }
    with pytest.raises(ConfigError) as info:
        Scenario.from_dict(bad).to_json()
    assert [e.split(":")[0] for e in info.value.errors] == [
        "flow[1].rate",
        "topology.nodes[1]",
        "when",
    ]


# --- overrides ----------------------------------------------------------------------------


def test_overrides_set_dotted_paths_in_a_copy() -> None:
    sc = Scenario.from_dict(CHAIN)
    new = sc.with_overrides(
        {"queue.capacity": 10, "flow[0].rate": 1e6, "duration": 5, "topology.nodes": 4}
    )
    d = new.to_dict()
    assert d["queue"] == {"capacity": 10}
    assert d["flow"][0]["rate"] == 1e6
    assert d["duration"] == 5 and d["topology"]["nodes"] == 4
    assert sc.to_dict() == CHAIN
    assert new != sc and Scenario.from_dict(CHAIN) == sc


def test_overrides_report_every_bad_path() -> None:
    sc = Scenario.from_dict(CHAIN)
    with pytest.raises(ConfigError) as info:
        sc.with_overrides(
            {"flow[3].rate": 1, "name.x": 1, "topology[0]": 1, "a..b": 1, "": 1, "ok": 1}
        )
    errors = info.value.errors
    assert len(errors) == 5
    assert "index 3 out of range (1 entries)" in errors[0]
    assert "name is not a table" in errors[1]
    assert "topology is not a list" in errors[2]
    assert "not a key path" in errors[3] and "not a key path" in errors[4]


# --- validation and run -------------------------------------------------------------------


def test_valid_scenario_validates() -> None:
    Scenario.from_dict(CHAIN).validate()


def test_several_problems_are_all_reported() -> None:
    bad = Scenario.from_dict(CHAIN).with_overrides(
        {"duration": -1, "flow[0].dst": 7, "bogus_key": 1}
    )
    with pytest.raises(ConfigError) as info:
        bad.validate()
    assert len(info.value.errors) >= 3
    text = "\n".join(info.value.errors)
    for key in ("duration", "dst", "bogus_key"):
        assert key in text
    with pytest.raises(ConfigError) as again:
        airqueue.run(bad)
    assert again.value.errors == info.value.errors


def test_run_returns_summary_with_the_contract_keys(chain_results: Results) -> None:
    s = chain_results.summary
    assert SUMMARY_KEYS <= s.keys()
    assert s["name"] == "t"
    assert s["simulated_seconds"] == pytest.approx(10)
    assert len(s["flows"]) == 1 and FLOW_KEYS <= s["flows"][0].keys()
    flow = s["flows"][0]
    assert (flow["src"], flow["dst"], flow["kind"]) == (0, 2, "udp")
    assert 0 < flow["goodput_bps"] <= 1e6
    assert 0 < flow["packets_delivered"] <= flow["packets_sent"]
    assert json.loads(chain_results.to_json()) == s


def test_results_tables_are_dataframes(chain_results: Results) -> None:
    for name in airqueue.TABLES:
        df = getattr(chain_results, name)
        assert isinstance(df, pd.DataFrame)
        assert df is chain_results.table(name)  # built once
    flows = chain_results.flows
    assert len(flows) == 1
    assert pd.api.types.is_integer_dtype(flows["packets_sent"])
    assert pd.api.types.is_float_dtype(flows["goodput_bps"])
    assert flows["goodput_bps"].iloc[0] == pytest.approx(
        chain_results.summary["flows"][0]["goodput_bps"]
    )
    with pytest.raises(KeyError):
        chain_results.table("nope")


def test_run_accepts_scenario_dict_and_path(tmp_path: Path, chain_results: Results) -> None:
    path = tmp_path / "s.toml"
    path.write_text(CHAIN_TOML)
    expected = without_wall(chain_results.summary)
    for source in (path, str(path), Scenario.load(path), CHAIN):
        assert without_wall(airqueue.run(source).summary) == expected


def test_same_seed_same_results_and_seed_override(chain_results: Results) -> None:
    again = airqueue.run(CHAIN)
    assert without_wall(again.summary) == without_wall(chain_results.summary)
    pd.testing.assert_frame_equal(again.timeseries, chain_results.timeseries)
    other = airqueue.run(CHAIN, seed=12345)
    assert other.summary["seed"] == 12345 and other.seed == 12345


def test_duration_override() -> None:
    short = airqueue.run(CHAIN, duration=2.5)
    assert short.summary["simulated_seconds"] == pytest.approx(2.5)


@pytest.mark.parametrize(
    ("kwargs", "pattern"),
    [
        ({"seed": -1}, "seed"),
        ({"seed": 2**64}, "seed"),
        ({"seed": True}, "seed"),
        ({"seed": 1.5}, "seed"),
        ({"duration": 0}, "duration"),
        ({"duration": float("nan")}, "duration"),
        ({"duration": "3"}, "duration"),
    ],
)
def test_bad_overrides_are_config_errors(kwargs: dict, pattern: str) -> None:
    with pytest.raises(ConfigError, match=pattern):
        airqueue.run(CHAIN, **kwargs)


def test_write_round_trips_through_parquet(tmp_path: Path, chain_results: Results) -> None:
    out = chain_results.write(tmp_path / "out" / "deeper")
    names = sorted(p.name for p in out.iterdir())
    assert names == sorted([f"{t}.parquet" for t in airqueue.TABLES] + ["manifest.json"])
    for name in airqueue.TABLES:
        back = pd.read_parquet(out / f"{name}.parquet")
        pd.testing.assert_frame_equal(back, chain_results.table(name))
    manifest = json.loads((out / "manifest.json").read_text())
    assert manifest["scenario"] == CHAIN
    assert manifest["seed"] == chain_results.seed
    assert manifest["airqueue_version"] == airqueue.__version__
    assert manifest["git_hash"] == _core.git_hash()
    assert manifest["created_utc"].endswith("+00:00")
    assert manifest["summary"] == chain_results.summary
    chain_results.write(out)  # overwriting is fine


# --- the extension module -----------------------------------------------------------------


def test_version_and_git_hash() -> None:
    assert airqueue.__version__ == _core.version()
    assert _core.version().count(".") == 2
    h = _core.git_hash()
    assert h == "unknown" or (len(h) == 40 and all(c in "0123456789abcdef" for c in h))


def test_panics_become_error_reports_not_exceptions() -> None:
    report = json.loads(_core._panic_for_tests("boom"))
    assert report["ok"] is False and report["internal"] is True
    assert report["errors"][0].startswith("internal error: boom")


def test_internal_error_raises_simulation_error(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(_core, "run", lambda *a: _core._panic_for_tests("kaput"))
    with pytest.raises(SimulationError, match="internal error: kaput"):
        airqueue.run(CHAIN)
    monkeypatch.setattr(_core, "run", lambda *a: "not json")
    with pytest.raises(SimulationError, match="malformed report"):
        airqueue.run(CHAIN)


def test_core_functions_take_keywords() -> None:
    report = json.loads(_core.run(scenario_json=json.dumps(CHAIN), seed=3, duration=1.0))
    assert report["ok"] is True and report["summary"]["seed"] == 3
    assert json.loads(_core.validate(scenario_json=json.dumps(CHAIN)))["ok"] is True


_IDENT = st.from_regex(r"x[a-z0-9_]{0,8}", fullmatch=True)


@given(keys=st.lists(_IDENT, min_size=1, max_size=4), value=st.integers() | st.text(max_size=5))
def test_override_then_read_back(keys: list[str], value: object) -> None:
    d = Scenario.from_dict(CHAIN).with_overrides({".".join(keys): value}).to_dict()
    for key in keys:
        d = d[key]
    assert d == value


def test_empty_columns_get_the_type_their_name_implies() -> None:
    empty = {"node": [], "reason": [], "packets": [], "t_s": []}
    res = Results(summary={"seed": 1}, tables={"drops": empty})
    dtypes = res.drops.dtypes
    assert pd.api.types.is_integer_dtype(dtypes["node"])
    assert pd.api.types.is_integer_dtype(dtypes["packets"])
    assert pd.api.types.is_string_dtype(dtypes["reason"])
    assert pd.api.types.is_float_dtype(dtypes["t_s"])
    assert list(res.flows.columns) == []  # tables the core did not send are empty


def test_malformed_tables_are_simulation_errors() -> None:
    with pytest.raises(SimulationError, match="malformed table 'flows'"):
        Results(summary={}, tables={"flows": {"a": [1, 2], "b": [1]}})


def _same_run(a: Results, b: Results) -> None:
    wall = {"wall_seconds", "events_per_second"}
    assert {k: v for k, v in a.summary.items() if k not in wall} == {
        k: v for k, v in b.summary.items() if k not in wall
    }


def test_watched_runs_are_the_same_runs():
    """From the main thread the core runs in a helper thread, sliced for progress and
    Ctrl-C; from another thread (a sweep worker) it is called directly: same bits."""
    import threading

    plain = airqueue.run(CHAIN, seed=5)
    watched = airqueue.run(CHAIN, seed=5, progress=True)
    box: list[Results] = []
    t = threading.Thread(target=lambda: box.append(airqueue.run(CHAIN, seed=5)))
    t.start()
    t.join()
    _same_run(plain, watched)
    _same_run(plain, box[0])


def test_ctrl_c_stops_a_long_run_and_leaves_no_thread_behind():
    import _thread
    import threading

    long_run = dict(CHAIN, duration=1e7)  # hours of wall time if it were not stopped

    def interrupt_once_running() -> None:
        # Ctrl-C once the core's thread runs (however loaded the machine), not at a fixed
        # time that could fall before the run begins.
        deadline = time.monotonic() + 60.0
        while time.monotonic() < deadline:
            if any(t.name == "airqueue-run" and t.is_alive() for t in threading.enumerate()):
                time.sleep(0.2)
                _thread.interrupt_main()
                return
            time.sleep(0.01)

    # Python's own Ctrl-C handler, whatever the parent left (a background job starts
    # with SIGINT ignored, and then an interrupt does nothing).
    previous = signal.signal(signal.SIGINT, signal.default_int_handler)
    timer = threading.Thread(target=interrupt_once_running)
    try:
        timer.start()
        with pytest.raises(KeyboardInterrupt):
            airqueue.run(long_run)
        timer.join()
    finally:
        signal.signal(signal.SIGINT, previous)
    # run() joins its helper thread before the interrupt goes on: the core has stopped.
    assert not [t for t in threading.enumerate() if t.name == "airqueue-run" and t.is_alive()]


def test_monitor_reports_simulated_time_and_stops():
    monitor = _core.RunMonitor()
    assert (monitor.simulated_s(), monitor.duration_s()) == (0.0, 0.0)
    report = json.loads(_core.run(json.dumps(CHAIN), 1, None, monitor))
    assert report["ok"] is True
    assert monitor.simulated_s() == monitor.duration_s() == 10.0
    stopped = _core.RunMonitor()
    stopped.stop()
    report = json.loads(_core.run(json.dumps(CHAIN), 1, None, stopped))
    assert report["ok"] is False and report["interrupted"] is True
    assert report["errors"] == ["interrupted at 0.000 s of 10.000 s simulated"]


def test_rates_trace_diffq_sources_per_bin(tmp_path: Path) -> None:
    """``Results.rates``: every DiffQ-paced flow's rate and destination queue at each bin
    boundary from its start, typed, and through Parquet unchanged."""
    res = airqueue.run("examples/diffq-mesh.toml", duration=4.0)
    rates = res.rates
    paced = {f["id"] for f in res.summary["flows"]}
    assert set(rates["flow"]) == paced
    assert set(rates["kind"]) == {"diffq"}
    assert pd.api.types.is_float_dtype(rates["rate_bps"])
    assert pd.api.types.is_integer_dtype(rates["source_queue_pkts"])
    assert (rates["rate_bps"] > 0).all() and (rates["source_queue_pkts"] >= 0).all()
    assert rates.groupby("flow")["t_s"].max().eq(4.0).all()
    res.write(tmp_path / "run")
    back = pd.read_parquet(tmp_path / "run" / "rates.parquet")
    pd.testing.assert_frame_equal(back, rates)
