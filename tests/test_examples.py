"""Every bundled example keeps working: scenarios run (shortened) with packets conserved,
sweep files expand to valid scenarios."""

from __future__ import annotations

from pathlib import Path

import pytest

import airqueue

EXAMPLES = Path(__file__).resolve().parent.parent / "examples"
SCENARIOS = sorted(p for p in EXAMPLES.glob("*.toml") if not p.name.startswith("sweep-"))
SWEEPS = sorted(EXAMPLES.glob("sweep-*.toml"))


def test_examples_are_found():
    assert len(SCENARIOS) >= 8 and len(SWEEPS) >= 2


@pytest.mark.parametrize("path", SCENARIOS, ids=lambda p: p.stem)
def test_example_runs(path):
    # Long enough for every example's flows to have started.
    res = airqueue.run(path, duration=15.0)
    s = res.summary
    assert s["simulated_seconds"] == 15.0
    assert s["conservation"]["holds"]
    assert len(s["flows"]) == len(res.flows) > 0
    assert res.flows["packets_delivered"].sum() > 0


@pytest.mark.parametrize("path", SWEEPS, ids=lambda p: p.stem)
def test_sweep_example_expands_to_valid_runs(path):
    runs = airqueue.SweepSpec.load(path).runs()
    assert len(runs) > 1
    for r in runs:
        assert r.problems == [], (r.params, r.problems)
