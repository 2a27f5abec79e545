"""Benchmark: a queue discipline written in Python against the built-in one it copies.

Runs ``examples/star-wifi.toml`` (20 saturating stations and their access point, every
station's radio queue is the discipline under test) with the built-in drop-tail and with
``examples/python/droptail.py``, alternately, and reports the median wall time of each
and their ratio. The two must give the same bits (checked), so the ratio is the price of
calling Python at every enqueue and dequeue. Issue 22 asks for at most 5x.

    python scripts/bench_python_queue.py [--duration 20] [--repeats 5]
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

import airqueue as aq

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "examples" / "python"))
from droptail import DropTail  # noqa: E402

WALL_CLOCK_KEYS = ("wall_seconds", "events_per_second")


def timed(duration: float, queue: type | None) -> tuple[float, dict]:
    t0 = time.perf_counter()
    res = aq.run(ROOT / "examples" / "star-wifi.toml", duration=duration, traces=False, queue=queue)
    wall = time.perf_counter() - t0
    return wall, {k: v for k, v in res.summary.items() if k not in WALL_CLOCK_KEYS}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--duration", type=float, default=20.0, help="simulated seconds")
    parser.add_argument("--repeats", type=int, default=5)
    args = parser.parse_args()
    builtin, python = [], []
    for _ in range(args.repeats):
        wall_b, summary_b = timed(args.duration, None)
        wall_p, summary_p = timed(args.duration, DropTail)
        if summary_p != summary_b:
            sys.exit("the Python drop-tail did not give the built-in's results")
        builtin.append(wall_b)
        python.append(wall_p)
    b, p = statistics.median(builtin), statistics.median(python)
    events = summary_b["events"]
    print(f"star-wifi, {args.duration:g} s simulated, {events} events, {args.repeats} repeats")
    print(f"built-in drop-tail: {b:.3f} s wall (median)")
    print(f"Python drop-tail:   {p:.3f} s wall (median)")
    print(f"ratio:              {p / b:.2f}x (issue 22 asks for at most 5x)")


if __name__ == "__main__":
    main()
