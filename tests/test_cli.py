"""The `airqueue` command line: `python -m airqueue` in a subprocess and Typer's CliRunner."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pandas as pd
import pytest
import yaml
from shared import CHAIN_TOML, SUMMARY_KEYS
from typer.testing import CliRunner

import airqueue
from airqueue.cli import app

# Three independent mistakes: a negative duration, a flow to a node that does not exist,
# and an unknown key.
BROKEN_TOML = CHAIN_TOML.replace("duration = 10", "duration = -1\nbogus_key = 1").replace(
    "dst = 2", "dst = 7"
)


def airqueue_cli(*args: str | Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "airqueue", *map(str, args)],
        capture_output=True,
        text=True,
        timeout=300,
    )


# Keys that depend on the wall clock, so differ between identical runs.
WALL_KEYS = {"wall_seconds", "events_per_second"}


def without_wall(summary: dict) -> dict:
    return {k: v for k, v in summary.items() if k not in WALL_KEYS}


@pytest.fixture
def chain(tmp_path: Path) -> Path:
    path = tmp_path / "chain.toml"
    path.write_text(CHAIN_TOML)
    return path


def assert_config_failure(proc: subprocess.CompletedProcess[str], *needles: str) -> list[str]:
    assert proc.returncode == 2, proc.stderr
    assert "Traceback" not in proc.stderr + proc.stdout
    assert proc.stdout == ""
    lines = proc.stderr.splitlines()
    assert lines and all(line.startswith("error: ") for line in lines), proc.stderr
    for needle in needles:
        assert needle in proc.stderr
    return lines


# --- subprocess ---------------------------------------------------------------------------


def test_json_output_is_one_object_with_every_summary_key(chain: Path) -> None:
    proc = airqueue_cli("run", chain, "--json")
    assert proc.returncode == 0, proc.stderr
    summary = json.loads(proc.stdout)
    assert SUMMARY_KEYS <= summary.keys()
    assert summary["name"] == "t" and summary["flows"][0]["src"] == 0


def test_same_scenario_twice_gives_identical_json_but_wall_time(chain: Path) -> None:
    first = json.loads(airqueue_cli("run", chain, "--json").stdout)
    second = json.loads(airqueue_cli("run", chain, "--json").stdout)
    assert without_wall(first) == without_wall(second)


def test_seed_and_duration_overrides(chain: Path) -> None:
    summary = json.loads(
        airqueue_cli("run", chain, "--seed", "77", "--duration", "2", "--json").stdout
    )
    assert summary["seed"] == 77
    assert summary["simulated_seconds"] == pytest.approx(2)


def test_yaml_and_json_files_run_like_toml(chain: Path, tmp_path: Path) -> None:
    expected = without_wall(json.loads(airqueue_cli("run", chain, "--json").stdout))
    data = airqueue.Scenario.load(chain).to_dict()
    (tmp_path / "chain.yaml").write_text(yaml.safe_dump(data))
    (tmp_path / "chain.json").write_text(json.dumps(data))
    for name in ("chain.yaml", "chain.json"):
        proc = airqueue_cli("run", tmp_path / name, "--json")
        assert proc.returncode == 0, proc.stderr
        assert without_wall(json.loads(proc.stdout)) == expected


def test_out_writes_parquet_tables_and_manifest(chain: Path, tmp_path: Path) -> None:
    out = tmp_path / "results"
    proc = airqueue_cli("run", chain, "--out", out, "--json")
    assert proc.returncode == 0, proc.stderr
    summary = json.loads(proc.stdout)
    expected = airqueue.run(chain)
    for name in airqueue.TABLES:
        df = pd.read_parquet(out / f"{name}.parquet")
        pd.testing.assert_frame_equal(df, expected.table(name))
    manifest = json.loads((out / "manifest.json").read_text())
    assert manifest["seed"] == summary["seed"]
    assert manifest["scenario"]["name"] == "t"
    assert {"airqueue_version", "git_hash", "created_utc"} <= manifest.keys()
    assert not [p for p in out.iterdir() if p.name.startswith(".")]  # no temp files left


def test_missing_file_exits_2(tmp_path: Path) -> None:
    assert_config_failure(airqueue_cli("run", tmp_path / "nope.toml"), "nope.toml", "no such file")


def test_invalid_toml_exits_2_and_names_the_line(tmp_path: Path) -> None:
    path = tmp_path / "bad.toml"
    path.write_text('name = "t"\nduration = = 3\n')
    lines = assert_config_failure(airqueue_cli("run", path, "--json"), "bad.toml", "line 2")
    assert len(lines) == 1


def test_every_scenario_problem_is_printed(tmp_path: Path) -> None:
    path = tmp_path / "broken.toml"
    path.write_text(BROKEN_TOML)
    lines = assert_config_failure(airqueue_cli("run", path), "duration", "dst", "bogus_key")
    assert len(lines) >= 3


def test_negative_seed_is_a_config_error(chain: Path) -> None:
    assert_config_failure(airqueue_cli("run", chain, "--seed", "-3"), "seed")


def test_a_non_finite_number_is_a_config_error_naming_its_key(tmp_path: Path) -> None:
    path = tmp_path / "nan.toml"
    path.write_text(CHAIN_TOML.replace("duration = 10", "duration = nan"))
    lines = assert_config_failure(airqueue_cli("run", path), "duration")
    assert any("duration: nan is not a finite number" in line for line in lines)


def test_unwritable_out_exits_1(chain: Path, tmp_path: Path) -> None:
    blocker = tmp_path / "file"
    blocker.write_text("")
    proc = airqueue_cli("run", chain, "--out", blocker / "sub")
    assert proc.returncode == 1
    assert proc.stderr.startswith("error: ") and "Traceback" not in proc.stderr


def test_human_output_has_a_flow_table(chain: Path) -> None:
    proc = airqueue_cli("run", chain)
    assert proc.returncode == 0, proc.stderr
    for needle in ("t (seed", "goodput", "0 -> 2", "aggregate goodput", "Jain index"):
        assert needle in proc.stdout


def test_version() -> None:
    proc = airqueue_cli("--version")
    assert proc.returncode == 0
    assert proc.stdout.startswith(f"airqueue {airqueue.__version__} (git ")


# --- CliRunner (in process) ---------------------------------------------------------------

runner = CliRunner()


def test_runner_json(chain: Path) -> None:
    result = runner.invoke(app, ["run", str(chain), "--json", "--seed", "5"])
    assert result.exit_code == 0, result.stderr
    summary = json.loads(result.stdout)
    assert SUMMARY_KEYS <= summary.keys() and summary["seed"] == 5


def test_runner_errors_go_to_stderr_with_exit_2(tmp_path: Path) -> None:
    path = tmp_path / "broken.toml"
    path.write_text(BROKEN_TOML)
    result = runner.invoke(app, ["run", str(path)])
    assert result.exit_code == 2
    assert result.stdout == ""
    assert len(result.stderr.splitlines()) >= 3
    assert all(line.startswith("error: ") for line in result.stderr.splitlines())
    assert "Traceback" not in result.output


def test_runner_unknown_extension(tmp_path: Path) -> None:
    path = tmp_path / "s.txt"
    path.write_text("")
    result = runner.invoke(app, ["run", str(path)])
    assert result.exit_code == 2
    assert result.stderr.startswith("error: ") and "unknown scenario format" in result.stderr


def test_runner_ctrl_c_exits_130_without_traceback(
    chain: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    seen = {}

    def interrupted(*args: object, **kwargs: object) -> None:
        seen.update(kwargs)
        raise KeyboardInterrupt

    monkeypatch.setattr(airqueue, "run", interrupted)
    result = runner.invoke(app, ["run", str(chain), "--progress"])
    assert result.exit_code == 130
    assert result.stderr == "interrupted: the run was stopped; nothing was written\n"
    assert seen["progress"] is True
    runner.invoke(app, ["run", str(chain)])
    assert seen["progress"] is False  # stderr is not a terminal here


def test_runner_simulation_failure_exits_1(chain: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(airqueue._core, "run", lambda *a: airqueue._core._panic_for_tests("x"))
    result = runner.invoke(app, ["run", str(chain)])
    assert result.exit_code == 1
    assert result.stderr.startswith("error: internal error: x")
