"""Fuzzing (issue 20): no input can hang or crash a run.

Hypothesis mutates every bundled example and sweep file (shortened to a fraction of a
second, see ``fuzz_worker.shorten``): it deletes keys, misspells them, and replaces values
with 0, -1, 1e308, NaN, +-inf, empty strings, lists and tables, wrong types, huge integers
and stray strings. Each case goes through the Python API (the scenario as a dict, or as
a TOML file where nan and inf are literals) or a sweep, in a worker process that bounds
its wall time and whose death is a crash. A case passes when it runs or is refused with a
ConfigError whose every message names what it is about; the spin guard's
SimulationError ("simulation stopped at ...") is the one documented simulation error.
Never another exception, a hang or a crash. A few cases go through the command line too.
Other cases set one to four mechanism keys of an example to other documented values
(``ALTERNATIVES``), so that valid combinations no example has run or are refused too.

The suite runs about two hundred derandomized cases; ``scripts/fuzz.sh`` runs many more
(``AIRQUEUE_FUZZ_CASES``, ``AIRQUEUE_FUZZ_SEED``) and writes the tally of outcomes to
``AIRQUEUE_FUZZ_REPORT``.
"""

from __future__ import annotations

import copy
import json
import math
import os
import select
import subprocess
import sys
import tempfile
from collections import Counter
from pathlib import Path
from typing import Any

import pytest
from fuzz_worker import (
    load_toml,
    scenario_examples,
    short_sweep,
    shorten,
    sweep_examples,
    to_toml,
)
from hypothesis import HealthCheck, given, seed, settings
from hypothesis import strategies as st
from typer.testing import CliRunner

import airqueue
from airqueue import _core
from airqueue.cli import app

# Reporting a failing example makes hypothesis import libcst, which (where installed) warns
# about mypy_extensions; without this the warning-as-error would hide the failure.
pytestmark = pytest.mark.filterwarnings("ignore:mypy_extensions:DeprecationWarning")

WORKER = Path(__file__).resolve().parent / "fuzz_worker.py"

#: Cases through the API in the test suite; scripts/fuzz.sh raises it.
CASES = int(os.environ.get("AIRQUEUE_FUZZ_CASES", "200"))
#: Cases through the command line (a process each, so fewer).
CLI_CASES = int(os.environ.get("AIRQUEUE_FUZZ_CLI_CASES", "8"))
#: Without a seed the cases are derandomized (the same in every CI run).
SEED = os.environ.get("AIRQUEUE_FUZZ_SEED")
#: Wall-time bound of one case: a shortened example runs in well under a second, a
#: sweep of eight of them in a few; anything near this bound is a hang.
CASE_TIMEOUT_S = 60.0

ODD_VALUES: list[Any] = [
    0,
    -1,
    1,
    0.5,
    1e308,
    -1e308,
    1e-300,
    math.nan,
    math.inf,
    -math.inf,
    "",
    "x",
    "saturate",
    [],
    [0],
    {},
    {"x": 1},
    True,
    False,
    None,
    2**31,
    2**32 - 1,
    2**63 - 1,
    2**64,
    10**30,
]

#: Documented values of keys that switch mechanisms (docs/scenario.md): a few of them set
#: at once combine mechanisms no example combines, such as TDMA under coded TCP.
ALTERNATIVES: dict[tuple[str, str], list[Any]] = {
    ("mac", "kind"): ["dcf", "edca", "tdma"],
    ("mac", "rts_threshold"): [0, 500, "off"],
    ("mac", "rate_control"): ["constant", "aarf"],
    ("mac", "tx_buffer"): [1, 2, 200],
    ("mac", "short_retry_limit"): [1, 7],
    ("mac", "nav_reset_after_rts"): [True],
    ("radio", "data_rate"): [1e6, 2e6, 5.5e6, 11e6],
    ("radio", "fading"): ["none", "rayleigh"],
    ("radio", "propagation"): ["two-ray-ground", "log-distance", "friis", "range"],
    ("radio", "late_capture"): ["preamble", "always", "never"],
    ("radio", "sensed_frames"): ["rx_error", "energy"],
    ("radio", "preamble_detection_db"): [4.0, "off"],
    ("radio", "preamble"): ["long", "short"],
    ("routing", "kind"): ["static", "aodv", "olsr"],
    ("routing", "metric"): ["hops", "etx"],
    ("queue", "kind"): ["droptail", "diffq", "fq", "red", "pi", "codel", "fq_codel"],
    ("queue", "capacity"): [1, 2, 5, 200],
    ("tcp", "network_coding"): [True, False],
    ("tcp", "delayed_ack"): [True, False],
    ("tcp", "timestamps"): [True, False],
    ("tcp", "ecn"): [True, False],
    ("tcp", "max_window"): [1, 4, 64],
    ("tcp", "initial_rto"): [0.01, 3.0],
    ("diffq", "select"): ["differential", "level"],
}

SCENARIOS = {p.stem: shorten(load_toml(p)) for p in scenario_examples()}
#: The examples for ``ALTERNATIVES``, run longer: most such cases are valid, and some
#: combinations go wrong only once transports are under way (TCP's first window).
COMBINED_DURATION_S = 2.0
LONGER = {p.stem: shorten(load_toml(p), COMBINED_DURATION_S) for p in scenario_examples()}
SWEEPS = {
    p.stem: (short_sweep(load_toml(p)), shorten(load_toml(p.parent / load_toml(p)["base"])))
    for p in sweep_examples()
}

#: How the cases ended, over the session (scripts/fuzz.sh prints it).
TALLY: Counter[str] = Counter()


def test_every_example_and_sweep_file_is_fuzzed() -> None:
    assert len(SCENARIOS) >= 15 and len(SWEEPS) >= 2, (sorted(SCENARIOS), sorted(SWEEPS))


def test_a_run_stopped_by_the_spin_guard_is_a_simulation_error_in_python_and_the_cli(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    # Valid scenarios do not spin, so the guard's bound is lowered to one event per
    # instant: the chain's first instant with two events stops it.
    chain = SCENARIOS["chain-udp"]
    report = json.loads(_core._run_with_spin_limit_for_tests(json.dumps(chain), 1))
    assert report["ok"] is False and report["internal"] is True
    [message] = report["errors"]
    assert message.startswith("simulation stopped at 0.0"), message
    assert "scheduled more than 1 events at that one instant" in message
    monkeypatch.setattr(
        _core,
        "run",
        lambda scenario_json, *rest: _core._run_with_spin_limit_for_tests(scenario_json, 1),
    )
    with pytest.raises(airqueue.SimulationError) as e:
        airqueue.run(chain)
    assert e.value.errors == [message]
    path = tmp_path / "chain.toml"
    path.write_text(to_toml(chain), encoding="utf-8")
    result = CliRunner().invoke(app, ["run", str(path)])
    assert result.exit_code == 1
    assert result.stderr == f"error: {message}\n"


def paths(node: Any, prefix: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
    """Every key path of a scenario, tables and list items included."""
    out = []
    if isinstance(node, dict):
        for key, value in node.items():
            out.append((*prefix, key))
            out.extend(paths(value, (*prefix, key)))
    elif isinstance(node, list):
        for i, value in enumerate(node):
            out.append((*prefix, i))
            out.extend(paths(value, (*prefix, i)))
    return out


def mutate(data: dict[str, Any], path: tuple[Any, ...], op: str, value: Any) -> None:
    """Deletes, misspells or replaces the value at ``path`` (in place)."""
    *parents, last = path
    node: Any = data
    for key in parents:
        node = node[key]
    if op == "set":
        node[last] = copy.deepcopy(value)  # never the shared ODD_VALUES object: no cycles
    elif isinstance(node, list):
        del node[last]
    elif op == "delete":
        del node[last]
    else:  # misspell: the key loses a letter, or gains one if it has only one
        misspelt = last[:-1] if len(last) > 1 else last + "x"
        node[misspelt] = node.pop(last)


@st.composite
def mutated(draw: st.DrawFn, base: dict[str, Any]) -> tuple[dict[str, Any], list[Any]]:
    data = json.loads(json.dumps(base))
    steps = []
    # Mostly one mutation, so that more cases get past validation and run.
    for _ in range(draw(st.sampled_from([1, 1, 1, 2, 3]))):
        candidates = paths(data)
        if not candidates:
            break
        path = draw(st.sampled_from(candidates))
        op = draw(st.sampled_from(["set", "set", "set", "delete", "misspell"]))
        value = draw(st.sampled_from(ODD_VALUES)) if op == "set" else None
        mutate(data, path, op, value)
        steps.append((path, op, value))
    return data, steps


@st.composite
def combined(draw: st.DrawFn, base: dict[str, Any]) -> tuple[dict[str, Any], list[Any]]:
    """The example with one to four mechanism keys set to other documented values
    (``ALTERNATIVES``; sections created where missing)."""
    data = json.loads(json.dumps(base))
    steps = []
    keys = sorted(ALTERNATIVES)
    for _ in range(draw(st.integers(1, 4))):
        section, key = draw(st.sampled_from(keys))
        value = draw(st.sampled_from(ALTERNATIVES[(section, key)]))
        data.setdefault(section, {})[key] = value
        steps.append(((section, key), "alternative", value))
    return data, steps


@st.composite
def cases(draw: st.DrawFn) -> tuple[dict[str, Any], list[Any]]:
    """A mutated example through the API or a TOML file, an example with other documented
    mechanisms through the API, or a mutated sweep (file or base scenario)."""
    # Sweeps run several scenarios per case, so they are drawn less often.
    kind = draw(st.sampled_from(["api", "api", "api", "toml", "toml", "combined", "sweep"]))
    if kind == "sweep":
        name = draw(st.sampled_from(sorted(SWEEPS)))
        sweep, base = SWEEPS[name]
        if draw(st.booleans()):
            sweep, steps = draw(mutated(sweep))
        else:
            base, steps = draw(mutated(base))
        return {"via": "sweep", "sweep": sweep, "base": base}, [name, *steps]
    name = draw(st.sampled_from(sorted(SCENARIOS)))
    if kind == "combined":
        scenario, steps = draw(combined(LONGER[name]))
        return {"via": "api", "scenario": scenario}, [name, *steps]
    scenario, steps = draw(mutated(SCENARIOS[name]))
    return {"via": kind, "scenario": scenario}, [name, *steps]


class Worker:
    """One worker process running cases; replaced after a timeout or a crash."""

    def __init__(self) -> None:
        self.proc: subprocess.Popen[str] | None = None

    def start(self) -> subprocess.Popen[str]:
        if self.proc is None or self.proc.poll() is not None:
            self.proc = subprocess.Popen(
                [sys.executable, str(WORKER)],
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                stderr=subprocess.PIPE,
                text=True,
                bufsize=1,
            )
        return self.proc

    def run(self, case: dict[str, Any]) -> dict[str, Any]:
        proc = self.start()
        assert proc.stdin is not None and proc.stdout is not None
        proc.stdin.write(json.dumps(case) + "\n")
        proc.stdin.flush()
        ready, _, _ = select.select([proc.stdout], [], [], CASE_TIMEOUT_S)
        if not ready:
            self.stop()
            return {"outcome": "hang", "after_s": CASE_TIMEOUT_S}
        line = proc.stdout.readline()
        if not line:
            code = proc.wait()
            stderr = proc.stderr.read() if proc.stderr else ""
            self.stop()
            return {"outcome": "crash", "exit_code": code, "stderr": stderr[-4000:]}
        return json.loads(line)

    def stop(self) -> None:
        if self.proc is not None:
            self.proc.kill()
            self.proc.wait()
            for pipe in (self.proc.stdin, self.proc.stdout, self.proc.stderr):
                if pipe is not None:
                    pipe.close()
            self.proc = None


@pytest.fixture(scope="module")
def worker() -> Any:
    w = Worker()
    yield w
    w.stop()
    report = os.environ.get("AIRQUEUE_FUZZ_REPORT")
    if report:
        Path(report).write_text(json.dumps(dict(TALLY), indent=1, sort_keys=True) + "\n")


def check(result: dict[str, Any], steps: list[Any]) -> None:
    outcome = result["outcome"]
    TALLY[outcome] += 1
    TALLY["cases"] += 1
    if outcome == "ok":
        return
    if outcome == "config":
        assert result["errors"], f"a ConfigError without messages for {steps}"
        for message in result["errors"]:
            # Every message names its key path or file: "path: what is wrong".
            assert ": " in message and not message.startswith(":"), (message, steps)
        return
    if outcome == "simulation":
        for message in result["errors"]:
            assert message.startswith("simulation stopped at"), (message, steps)
        return
    pytest.fail(f"{outcome} for mutation {steps}:\n{json.dumps(result, indent=1)[:6000]}")


def _fuzz_settings(max_examples: int) -> Any:
    return settings(
        max_examples=max_examples,
        deadline=None,
        derandomize=SEED is None,
        database=None,
        suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
        print_blob=True,
    )


def _seeded(test: Any) -> Any:
    return seed(int(SEED))(test) if SEED is not None else test


@_seeded
@_fuzz_settings(CASES)
@given(case=cases())
def test_mutated_examples_run_or_are_refused_through_the_api(
    worker: Worker, case: tuple[dict[str, Any], list[Any]]
) -> None:
    payload, steps = case
    check(worker.run(payload), steps)


@_seeded
@_fuzz_settings(CLI_CASES)
@given(case=cases())
def test_mutated_examples_run_or_are_refused_through_the_command_line(
    case: tuple[dict[str, Any], list[Any]],
) -> None:
    payload, steps = case
    with tempfile.TemporaryDirectory() as tmp:
        tmp_path = Path(tmp)
        if payload["via"] == "sweep":
            (tmp_path / "base.toml").write_text(to_toml(payload["base"]), encoding="utf-8")
            (tmp_path / "sweep.toml").write_text(to_toml(payload["sweep"]), encoding="utf-8")
            args = ["sweep", str(tmp_path / "sweep.toml"), "--out", str(tmp_path / "out")]
            args += ["--serial", "--no-progress"]
        else:
            path = tmp_path / "scenario.toml"
            path.write_text(to_toml(payload["scenario"]), encoding="utf-8")
            args = ["run", str(path), "--json", "--no-progress"]
        try:
            proc = subprocess.run(
                [sys.executable, "-m", "airqueue", *args],
                capture_output=True,
                text=True,
                timeout=CASE_TIMEOUT_S,
            )
        except subprocess.TimeoutExpired:
            pytest.fail(f"hang for mutation {steps}")
    TALLY[f"cli-exit-{proc.returncode}"] += 1
    assert "Traceback" not in proc.stderr, (steps, proc.stderr)
    assert "panicked" not in proc.stderr, (steps, proc.stderr)
    # 0: ran; 2: refused (a ConfigError); 1: the spin guard stopped a run, or a sweep
    # recorded failed runs, each on an "error:"/"failed:" line.
    assert proc.returncode in (0, 1, 2), (steps, proc.returncode, proc.stderr)
    if proc.returncode == 0 and payload["via"] != "sweep":
        json.loads(proc.stdout)
    if proc.returncode != 0:
        lines = [ln for ln in proc.stderr.splitlines() if ln.strip()]
        assert lines, (steps, proc.returncode)
        assert all(ln.startswith(("error: ", "failed: ")) for ln in lines), (steps, lines)
        if proc.returncode == 1 and payload["via"] != "sweep":
            assert lines[0].startswith("error: simulation stopped at"), (steps, lines)
