"""Fairness of ``examples/python/diffq_backlog.py`` next to DiffQ's on the 46-node mesh
of ``diffq-single-path`` (seed 000, section 6.3): 16 random flows of saturating UDP paced
by DiffQ's source rate control, OLSR-ETX, EDCA with DiffQ's eight levels. Each seed runs
three schemes on the same topology and flows: the built-in DiffQ scheduler, the Python
differential-backlog scheduler in its place, and plain saturating UDP over drop-tail.
Prints per-seed and mean Jain's index, aggregate goodput and starved flows.

    python scripts/diffq_backlog_mesh.py [--duration 60] [--seeds 10] [--flows 16]
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

import airqueue as aq
from airqueue.reproduce.diffq_single_path import scheme_scenario

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "examples" / "python"))
from diffq_backlog import DiffBacklog  # noqa: E402

SCHEMES = (
    ("DiffQ-UDP (built-in DiffQ)", "DiffQ-UDP", None),
    ("DiffQ-UDP pacing + diffq_backlog.py", "DiffQ-UDP", DiffBacklog),
    ("UDP over drop-tail", "UDP", None),
)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--duration", type=float, default=60.0, help="simulated seconds")
    parser.add_argument("--seeds", type=int, default=10)
    parser.add_argument("--flows", type=int, default=16)
    args = parser.parse_args()
    rows: dict[str, list[tuple[float, float, int, float]]] = {}
    for seed in range(1, args.seeds + 1):
        for label, scheme, queue in SCHEMES:
            sc = scheme_scenario(
                scheme,
                name="diffq-backlog-mesh",
                duration=args.duration,
                nodes=46,
                area=(900.0, 900.0),
                flows=args.flows,
                packet_size=1400,
                queue_capacity=199,
                delayed_ack=True,
                routing="olsr",
            )
            sc["seed"] = seed
            t0 = time.perf_counter()
            s = aq.run(sc, traces=False, queue=queue).summary
            wall = time.perf_counter() - t0
            row = (s["jain_index"], s["aggregate_goodput_bps"], s["starved_flows"], wall)
            rows.setdefault(label, []).append(row)
            print(
                f"seed {seed:2d}  {label:38s} Jain {row[0]:.3f}  "
                f"{row[1] / 1e6:.3f} Mb/s  starved {row[2]}  wall {wall:.2f} s",
                flush=True,
            )
    print(f"\nmeans over {args.seeds} seeds, {args.flows} flows, {args.duration:g} s:")
    for label, v in rows.items():
        jain = statistics.mean(r[0] for r in v)
        agg = statistics.mean(r[1] for r in v) / 1e6
        starved = statistics.mean(r[2] for r in v)
        wall = sum(r[3] for r in v)
        print(
            f"{label:38s} Jain {jain:.3f}  {agg:.3f} Mb/s  starved {starved:.1f}  "
            f"wall {wall:.1f} s in all"
        )


if __name__ == "__main__":
    main()
