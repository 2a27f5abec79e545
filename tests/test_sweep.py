"""Sweeps: grid x seeds on Dask and serially, the results store, resuming, failures."""

from __future__ import annotations

import json
import logging
import os
import re
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import pandas as pd
import pytest

import airqueue
from airqueue import ConfigError, SweepSpec
from airqueue.progress import SweepProgress
from airqueue.sweeps import Outcome, RunSpec, _run_dask, execute, run_id

distributed = pytest.importorskip("distributed")

# A wired 4-node chain, two flows: cheap runs.
BASE = {
    "name": "chain",
    "duration": 5.0,
    "topology": {"kind": "chain", "nodes": 4, "spacing": 200.0},
    "medium": {"kind": "wired", "bandwidth": 2e6, "delay": 0.001},
    "queue": {"capacity": 20},
    "flow": [
        {"kind": "udp", "src": 0, "dst": 3, "rate": 1.5e6},
        {"kind": "udp", "src": 1, "dst": 2, "rate": 1e6, "packet_size": 500},
    ],
}
GRID = {"queue.capacity": [5, 50]}
SEEDS = [1, 2, 3]

# Long enough to interrupt a sweep midway.
SLOW_TOML = """\
name = "slow"
duration = 600
[topology]
kind = "chain"
nodes = 5
spacing = 200
[medium]
kind = "wired"
bandwidth = 11e6
delay = 0.0001
[[flow]]
kind = "udp"
src = 0
dst = 4
rate = "saturate"
"""


@pytest.fixture(scope="module")
def client():
    """One 2-worker local cluster for the whole module (starting one takes seconds).
    A run whose worker dies is retried once, then recorded as failed."""
    import dask

    with (
        dask.config.set({"distributed.scheduler.allowed-failures": 1}),
        distributed.LocalCluster(
            n_workers=2,
            threads_per_worker=1,
            processes=True,
            # Any free port: None means the default 8787, which warns (and fails under
            # pytest -W error) when another cluster already holds it.
            dashboard_address=":0",
            silence_logs=logging.CRITICAL,
        ) as cluster,
        distributed.Client(cluster, set_as_default=False) as c,
    ):
        yield c


def _sweep(out: Path | None, client, **kw):
    return airqueue.sweep(
        BASE, grid=GRID, seeds=SEEDS, out=out, scheduler=client, progress=False, **kw
    )


def test_two_worker_sweep_stores_six_runs_and_reruns_only_what_is_missing(tmp_path, client):
    df = _sweep(tmp_path, client)
    runs = sorted(p.name for p in (tmp_path / "runs").iterdir())
    assert len(runs) == 6 and df.attrs["executed"] == 6 and df.attrs["failed"] == []
    for run in runs:
        files = {p.name for p in (tmp_path / "runs" / run).iterdir()}
        assert {"manifest.json", "run.json", "flows.parquet", "timeseries.parquet"} <= files
    assert len(df) == 12  # 6 runs x 2 flows
    assert list(df.columns[:3]) == ["run_id", "seed", "queue.capacity"]
    expected = {"id", "src", "dst", "goodput_bps", "packets_sent", "run_jain_index"}
    assert expected <= set(df.columns)
    assert df.attrs["params"] == ["queue.capacity"]
    assert sorted(set(zip(df["queue.capacity"], df["seed"], strict=True))) == [
        (c, s) for c in (5, 50) for s in SEEDS
    ]
    manifest = json.loads((tmp_path / "runs" / runs[0] / "manifest.json").read_text())
    assert manifest["scenario"]["seed"] in SEEDS and "git_hash" in manifest
    pd.testing.assert_frame_equal(airqueue.load(tmp_path), df, check_like=False)

    stamps = {r: (tmp_path / "runs" / r / "manifest.json").stat().st_mtime_ns for r in runs}
    again = _sweep(tmp_path, client)
    assert (again.attrs["executed"], again.attrs["skipped"]) == (0, 6)
    assert stamps == {r: (tmp_path / "runs" / r / "manifest.json").stat().st_mtime_ns for r in runs}
    pd.testing.assert_frame_equal(again, df)

    shutil.rmtree(tmp_path / "runs" / runs[2])
    third = _sweep(tmp_path, client)
    assert (third.attrs["executed"], third.attrs["skipped"]) == (1, 5)
    assert (tmp_path / "runs" / runs[2] / "manifest.json").is_file()
    for r in runs:
        if r != runs[2]:
            assert (tmp_path / "runs" / r / "manifest.json").stat().st_mtime_ns == stamps[r]
    pd.testing.assert_frame_equal(third, df)

    forced = _sweep(tmp_path, client, force=True)
    assert forced.attrs["executed"] == 6


def test_serial_and_dask_give_identical_results(tmp_path, client):
    on_dask = _sweep(None, client)
    serial = airqueue.sweep(BASE, grid=GRID, seeds=SEEDS, serial=True, progress=False)
    stored = airqueue.sweep(BASE, grid=GRID, seeds=SEEDS, out=tmp_path, serial=True, progress=False)
    pd.testing.assert_frame_equal(on_dask, serial)
    pd.testing.assert_frame_equal(on_dask, stored)
    assert len(on_dask) == 12 and on_dask["goodput_bps"].gt(0).all()


def test_failing_runs_are_recorded_and_the_rest_complete(tmp_path, client):
    grid = {"flow[0].rate": [1e5, -1.0], "queue.capacity": [10]}
    df = airqueue.sweep(
        BASE, grid=grid, seeds=[1, 2], out=tmp_path, scheduler=client, progress=False
    )
    failed = df.attrs["failed"]
    assert sorted(f["seed"] for f in failed) == [1, 2]
    assert all(f["error_type"] == "ConfigError" for f in failed)
    assert all("flow[0].rate" in f["errors"][0] for f in failed)
    assert set(df["flow[0].rate"]) == {1e5} and df["run_id"].nunique() == 2
    table = airqueue.load(tmp_path, table="failed")
    assert len(table) == 2 and table["error"].str.contains("flow\\[0\\].rate").all()

    # An override that cannot apply fails its runs, not the sweep.
    bad = airqueue.sweep(
        BASE, grid={"flow[7].rate": [1e5]}, seeds=[1], scheduler=client, progress=False
    )
    assert bad.empty and "out of range" in bad.attrs["failed"][0]["errors"][0]


def test_a_run_whose_worker_dies_is_retried_then_recorded(client):
    spec = SweepSpec.build(BASE, seeds=[1, 2])
    runs = spec.runs()
    doomed = runs[1].run_id

    def crash_one(r: RunSpec) -> Outcome:
        if r.run_id == doomed:
            os._exit(3)  # the worker process dies
        return execute(r)

    got: dict[str, Outcome] = {}

    def record(r: RunSpec, outcome: Outcome) -> None:
        got[r.run_id] = outcome

    with SweepProgress(len(runs), enabled=False) as bar:
        _run_dask(runs, record, bar, workers=None, scheduler=client, fn=crash_one)
    assert got[runs[0].run_id].ok
    assert got[doomed].error_type == "KilledWorker", got[doomed]
    assert bar.failed == 1 and bar.done == 2


def test_sweep_file_and_cli_resume_after_a_kill(tmp_path, client):
    (tmp_path / "base.toml").write_text(SLOW_TOML)
    (tmp_path / "sweep.toml").write_text('name = "slow"\nbase = "base.toml"\nseeds = [1, 12]\n')
    spec = SweepSpec.load(tmp_path / "sweep.toml")
    assert spec.seeds == list(range(1, 13)) and spec.grid == {}
    out = tmp_path / "out"
    cmd = [sys.executable, "-m", "airqueue", "sweep", str(tmp_path / "sweep.toml")]
    cmd += ["--out", str(out), "--no-progress"]
    proc = subprocess.Popen([*cmd, "--workers", "2"], stdout=subprocess.PIPE, text=True)
    # The loop ends as soon as two runs are stored; the bound only matters on a machine so
    # loaded that the workers take minutes to start.
    deadline = time.monotonic() + 300
    while _finished(out) < 2 and proc.poll() is None and time.monotonic() < deadline:
        time.sleep(0.01)
    proc.send_signal(signal.SIGKILL)
    proc.communicate()
    done_before = _finished(out)
    assert 2 <= done_before < 12, "the sweep was not interrupted midway"

    address = client.scheduler.address
    res = subprocess.run(
        [*cmd, "--scheduler", address], capture_output=True, text=True, check=False
    )
    assert res.returncode == 0, res.stderr
    m = re.search(r"12 runs: (\d+) ran, 0 failed, (\d+) already done", res.stdout)
    assert m, res.stdout
    assert (int(m[1]), int(m[2])) == (12 - done_before, done_before)
    assert _finished(out) == 12 and not list((out / "runs").glob(".tmp-*"))
    assert len(airqueue.load(out, table="summary")) == 12


def _finished(out: Path) -> int:
    runs = out / "runs"
    return len([p for p in runs.iterdir() if not p.name.startswith(".")]) if runs.is_dir() else 0


def test_cli_reports_failed_runs_with_exit_code_1(tmp_path):
    base = tmp_path / "base.json"
    base.write_text(json.dumps(BASE))
    (tmp_path / "s.toml").write_text(
        'base = "base.json"\nseeds = 4\n[grid]\n"flow[1].rate" = [2e5, 0]\n'
    )
    res = subprocess.run(
        [sys.executable, "-m", "airqueue", "sweep", str(tmp_path / "s.toml")]
        + ["--out", str(tmp_path / "o"), "--serial", "--no-progress"],
        capture_output=True,
        text=True,
        check=False,
    )
    assert res.returncode == 1
    assert "2 runs: 1 ran, 1 failed, 0 already done" in res.stdout
    assert re.search(r"failed: run \w+ \(seed 4, flow\[1\]\.rate=0\): flow\[1\]\.rate", res.stderr)


def test_seeds_and_grid_are_checked():
    with pytest.raises(ConfigError) as e:
        SweepSpec.build(BASE, grid={"seed": [1], "queue.capacity": []}, seeds=[1, 1, "x"])
    assert e.value.errors == [
        "grid.seed: sweep seeds with `seeds`, not a grid key",
        'grid."queue.capacity": expected at least one value, got an empty list',
        "seeds: every seed must be an integer in [0, 2^64), got 'x'",
        "seeds: listed more than once: [1]",
    ]
    assert SweepSpec.build(BASE).seeds == [1]
    assert SweepSpec.build(BASE, seeds=range(3, 6)).seeds == [3, 4, 5]


@pytest.mark.parametrize(
    ("text", "seeds"),
    [
        ("seeds = 4", [4]),
        ("seeds = [2, 4]", [2, 3, 4]),
        ("seeds = [9, 2, 5]", [9, 2, 5]),
        ("seeds = { list = [3, 7] }", [3, 7]),
        ("seeds = { range = [1, 3] }", [1, 2, 3]),
    ],
)
def test_sweep_file_seeds(tmp_path, text, seeds):
    (tmp_path / "b.json").write_text(json.dumps(BASE))
    (tmp_path / "s.toml").write_text(f'base = "b.json"\n{text}\n')
    assert SweepSpec.load(tmp_path / "s.toml").seeds == seeds


def test_sweep_file_mistakes_are_listed(tmp_path):
    (tmp_path / "s.toml").write_text("seeds = [5, 1]\ngird = 1\nbase = 3\n")
    with pytest.raises(ConfigError) as e:
        SweepSpec.load(tmp_path / "s.toml")
    path = tmp_path / "s.toml"
    assert e.value.errors == [
        f"{path}: gird: unknown key; expected one of name, base, seeds, grid, duration",
        f"{path}: base: expected the path of a scenario file (relative to s.toml), got 3",
        f"{path}: seeds: range [5, 1] is empty; expected first <= last",
    ]


def test_run_ids_hash_the_resolved_scenario():
    runs = SweepSpec.build(BASE, grid={"queue.capacity": [20, 7]}, seeds=[1]).runs()
    # capacity 20 is the base's own value: the same scenario as an unswept run.
    plain = SweepSpec.build(BASE, seeds=[1]).runs()
    assert runs[0].run_id == plain[0].run_id != runs[1].run_id
    assert runs[0].run_id == run_id({**BASE, "seed": 1})
    assert run_id({**BASE, "seed": 1}, 2.0) != runs[0].run_id


def test_loading_a_table_an_older_run_lacks_names_the_run_and_the_fix(tmp_path, client):
    _sweep(tmp_path, client)
    run = sorted((tmp_path / "runs").iterdir())[0]
    (run / "rates.parquet").unlink()  # as written before the table existed
    with pytest.raises(FileNotFoundError, match=f"run {run.name} has no 'rates' table"):
        airqueue.load(tmp_path, table="rates")
    assert len(airqueue.load(tmp_path, table="flows")) == 12  # the other tables still load
