"""Writes tests/data/example_summaries.json: every bundled scenario's summary (15 s, as
tests/test_examples.py runs it) without the wall-clock keys.

The test compares each run against this file, so a change that moves any count, drop or
goodput shows up. Regenerate it only for a change meant to alter behaviour, and say in
the commit which figures moved and why.

    python scripts/store_summaries.py
"""

from __future__ import annotations

import json
from pathlib import Path

import airqueue

ROOT = Path(__file__).resolve().parent.parent
OUT = ROOT / "tests" / "data" / "example_summaries.json"
DURATION_S = 15.0
WALL_CLOCK_KEYS = ("wall_seconds", "events_per_second")


def stored_view(summary: dict) -> dict:
    """The summary without what depends on the machine."""
    return {k: v for k, v in summary.items() if k not in WALL_CLOCK_KEYS}


def main() -> None:
    out = {}
    for path in sorted((ROOT / "examples").glob("*.toml")):
        if path.name.startswith("sweep-"):
            continue
        res = airqueue.run(path, duration=DURATION_S)
        out[path.stem] = stored_view(res.summary)
        print(f"{path.stem}: {res.summary['events']} events")
    OUT.write_text(json.dumps(out, indent=1, sort_keys=True) + "\n")


if __name__ == "__main__":
    main()
