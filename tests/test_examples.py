"""Every bundled example keeps working: scenarios run (shortened) with packets conserved
and give exactly the stored summaries (events, per-flow counts, drops: a refactor keeps
behaviour), sweep files expand to valid scenarios."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

import airqueue

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "scripts"))
from store_summaries import DURATION_S, OUT, stored_view  # noqa: E402

EXAMPLES = Path(__file__).resolve().parent.parent / "examples"
SCENARIOS = sorted(p for p in EXAMPLES.glob("*.toml") if not p.name.startswith("sweep-"))
SWEEPS = sorted(EXAMPLES.glob("sweep-*.toml"))


def test_examples_are_found():
    assert len(SCENARIOS) >= 8 and len(SWEEPS) >= 2


@pytest.mark.parametrize("path", SCENARIOS, ids=lambda p: p.stem)
def test_example_runs(path):
    # Long enough for every example's flows to have started.
    res = airqueue.run(path, duration=DURATION_S)
    s = res.summary
    assert s["simulated_seconds"] == DURATION_S
    assert s["conservation"]["holds"]
    assert len(s["flows"]) == len(res.flows) > 0
    assert res.flows["packets_delivered"].sum() > 0
    # Same bits as the stored run (scripts/store_summaries.py says when to regenerate).
    stored = json.loads(OUT.read_text())[path.stem]
    ours = json.loads(json.dumps(stored_view(s)))
    assert ours["events"] == stored["events"]
    assert ours["drops"] == stored["drops"]
    for mine, theirs in zip(ours["flows"], stored["flows"], strict=True):
        assert mine == theirs
    assert ours == stored


def test_every_example_has_a_stored_summary():
    assert sorted(json.loads(OUT.read_text())) == sorted(p.stem for p in SCENARIOS)


@pytest.mark.parametrize("path", SWEEPS, ids=lambda p: p.stem)
def test_sweep_example_expands_to_valid_runs(path):
    runs = airqueue.SweepSpec.load(path).runs()
    assert len(runs) > 1
    for r in runs:
        assert r.problems == [], (r.params, r.problems)
