"""The fuzzing harness's worker and its helpers (issue 20): shortened copies of the bundled
examples, a TOML writer that can write what a mutation produces (nan, inf, empty tables),
and a loop that runs one case per line of stdin through the public API and answers with
one JSON line saying how it ended.

The worker is a separate process so that the harness can bound every case in wall time
(a hang is a timeout, and the worker is replaced) and see a crash of the process (a
panic that escapes, an abort, an allocation failure) as the worker's death.

Run as ``python tests/fuzz_worker.py``; ``tests/test_fuzz.py`` drives it.
"""

from __future__ import annotations

import json
import math
import sys
import tempfile
import traceback
from pathlib import Path
from typing import Any

EXAMPLES = Path(__file__).resolve().parent.parent / "examples"

#: Simulated seconds of a shortened example: long enough for every flow to start and the
#: MAC, queues and transports to work, short enough for hundreds of cases a minute.
SHORT_DURATION_S = 0.2

#: The keys that are times within the run, scaled with the duration.
_RUN_TIME_KEYS = ("warmup", "start", "stop", "at")


def scenario_examples() -> list[Path]:
    """Every bundled scenario (not the sweep files)."""
    return sorted(p for p in EXAMPLES.glob("*.toml") if not p.name.startswith("sweep-"))


def sweep_examples() -> list[Path]:
    """Every bundled sweep file."""
    return sorted(EXAMPLES.glob("sweep-*.toml"))


def load_toml(path: Path) -> dict[str, Any]:
    import tomllib

    return tomllib.loads(path.read_text(encoding="utf-8"))


def shorten(scenario: dict[str, Any], duration_s: float = SHORT_DURATION_S) -> dict[str, Any]:
    """The scenario run for ``duration_s``: every time within the run (warm-up, flow
    starts and stops, rate changes) scaled by the same factor, so the run keeps its shape."""
    out = json.loads(json.dumps(scenario))
    factor = duration_s / float(out["duration"])
    out["duration"] = duration_s

    def scale(node: Any) -> None:
        if isinstance(node, dict):
            for key, value in node.items():
                if key in _RUN_TIME_KEYS and isinstance(value, (int, float)):
                    node[key] = value * factor
                elif key in _RUN_TIME_KEYS and isinstance(value, list):
                    node[key] = [v * factor for v in value]
                elif key not in ("topology", "radio", "mac", "tcp", "routing", "queue"):
                    scale(value)
        elif isinstance(node, list):
            for item in node:
                scale(item)

    scale(out)
    return out


def short_sweep(sweep: dict[str, Any]) -> dict[str, Any]:
    """A sweep file over the shortened base (``base.toml`` beside it), one seed (as a
    one-seed range, so that mutating either end still means something)."""
    out = json.loads(json.dumps(sweep))
    out["base"] = "base.toml"
    out["seeds"] = [1, 1]
    out["duration"] = SHORT_DURATION_S
    return out


def to_toml(data: dict[str, Any]) -> str:
    """TOML text for a table whose values may be anything a mutation produced. Values are
    written inline; TOML has no null, so a None is left out (as the key being absent)."""
    lines = []
    for key, value in data.items():
        if value is not None:
            lines.append(f"{json.dumps(key)} = {_toml_value(value)}")
    return "\n".join(lines) + "\n"


def _toml_value(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, float):
        if math.isnan(value):
            return "nan"
        if math.isinf(value):
            return "inf" if value > 0 else "-inf"
        return repr(value)
    if isinstance(value, str):
        return json.dumps(value)
    if isinstance(value, list):
        return "[" + ", ".join(_toml_value(v) for v in value if v is not None) + "]"
    if isinstance(value, dict):
        items = (f"{json.dumps(k)} = {_toml_value(v)}" for k, v in value.items() if v is not None)
        return "{" + ", ".join(items) + "}"
    raise TypeError(f"cannot write {type(value).__name__} as TOML")


def run_case(case: dict[str, Any]) -> dict[str, Any]:
    """Runs one case through the public API; says how it ended.

    ``via``: "api" (the scenario dict to ``airqueue.run``), "toml" (the scenario written
    as a TOML file, its path to ``airqueue.run``) or "sweep" (a sweep file and its base,
    to ``airqueue.sweep``, serially)."""
    import airqueue

    try:
        if case["via"] == "api":
            airqueue.run(case["scenario"])
        elif case["via"] == "toml":
            with tempfile.TemporaryDirectory() as tmp:
                path = Path(tmp) / "scenario.toml"
                path.write_text(to_toml(case["scenario"]), encoding="utf-8")
                airqueue.run(path)
        else:
            with tempfile.TemporaryDirectory() as tmp:
                (Path(tmp) / "base.toml").write_text(to_toml(case["base"]), encoding="utf-8")
                path = Path(tmp) / "sweep.toml"
                path.write_text(to_toml(case["sweep"]), encoding="utf-8")
                df = airqueue.sweep(path, serial=True, progress=False)
                failed = df.attrs["failed"]
                kinds = {f["error_type"] for f in failed}
                if kinds - {"ConfigError", "SimulationError"}:
                    return {"outcome": "sweep-run-failed", "failed": failed}
                errors = [e for f in failed for e in f["errors"]]
                if "SimulationError" in kinds:
                    return {"outcome": "simulation", "errors": errors}
                if failed:
                    return {"outcome": "config", "errors": errors}
        return {"outcome": "ok"}
    except airqueue.ConfigError as e:
        return {"outcome": "config", "errors": e.errors}
    except airqueue.SimulationError as e:
        return {"outcome": "simulation", "errors": e.errors}
    except BaseException:  # anything else is a finding: report it with its traceback
        return {"outcome": "exception", "traceback": traceback.format_exc()}


def main() -> None:
    for line in sys.stdin:
        result = run_case(json.loads(line))
        sys.stdout.write(json.dumps(result) + "\n")
        sys.stdout.flush()


if __name__ == "__main__":
    main()
