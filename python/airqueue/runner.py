"""``run()``: one scenario, one seed, in the Rust core."""

from __future__ import annotations

import math
from numbers import Integral, Real

from airqueue import _core
from airqueue.errors import ConfigError, SimulationError
from airqueue.results import Results
from airqueue.scenario import ScenarioLike, decode_report, load_scenario

__all__ = ["run"]

_U64_MAX = 2**64 - 1


def run(
    scenario: ScenarioLike, *, seed: int | None = None, duration: float | None = None
) -> Results:
    """Runs ``scenario`` (a Scenario, a dict of file keys, or a file path) to completion.

    ``seed`` and ``duration`` (simulated seconds) override the scenario's own. Raises
    ConfigError, listing every problem, if the scenario is invalid, and SimulationError if
    the core fails. The GIL is released while the core runs.
    """
    sc = load_scenario(scenario)
    problems = _check_overrides(seed, duration)
    if problems:
        raise ConfigError(problems)
    report = decode_report(
        _core.run(sc.to_json(), None if seed is None else int(seed), _float(duration))
    )
    if report.get("ok") is True:
        return Results.from_report(report, scenario=sc.to_dict())
    errors = report.get("errors") or ["the core reported failure without a reason"]
    if report.get("internal"):
        raise SimulationError(errors)
    raise ConfigError(errors)


def _float(value: float | None) -> float | None:
    return None if value is None else float(value)


def _check_overrides(seed: object, duration: object) -> list[str]:
    problems = []
    if seed is not None and (
        isinstance(seed, bool) or not isinstance(seed, Integral) or not 0 <= seed <= _U64_MAX
    ):
        problems.append(f"seed: must be an integer in [0, 2^64), got {seed!r}")
    if duration is not None and (
        isinstance(duration, bool)
        or not isinstance(duration, Real)
        or not math.isfinite(duration)
        or duration <= 0
    ):
        problems.append(f"duration: must be a finite number of seconds > 0, got {duration!r}")
    return problems
