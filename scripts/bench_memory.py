"""Maximum resident memory of `airqueue run` against the simulated duration (issue 20).

A benchmark, not a test: it runs the installed `airqueue` (this interpreter's) once per
duration in a fresh process and reports that process's max RSS (`wait4`'s rusage) and
wall time. Per-bin traces stream to the output directory as the run goes, so max RSS
should not grow with the duration.

    python scripts/bench_memory.py                      # star-wifi, 300 s and 3600 s
    python scripts/bench_memory.py --duration 86400 --bin 1.0   # a simulated day
    python scripts/bench_memory.py --json-only          # `--json`: traces not kept
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def measure(scenario: Path, duration: float, *, json_only: bool) -> tuple[float, float]:
    """(max RSS in MB, wall seconds) of one run in a child process."""
    with tempfile.TemporaryDirectory() as tmp:
        cmd = [sys.executable, "-m", "airqueue", "run", str(scenario)]
        cmd += ["--duration", str(duration), "--no-progress"]
        cmd += ["--json"] if json_only else ["--out", str(Path(tmp) / "out")]
        t0 = time.perf_counter()
        child = subprocess.Popen(cmd, stdout=subprocess.DEVNULL)
        _, status, usage = os.wait4(child.pid, 0)
        wall = time.perf_counter() - t0
        child.returncode = os.waitstatus_to_exitcode(status)
        if child.returncode != 0:
            raise SystemExit(f"{' '.join(cmd)} failed with exit code {child.returncode}")
    return usage.ru_maxrss / 1024, wall  # ru_maxrss is in KiB on Linux


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    p.add_argument("--scenario", type=Path, default=ROOT / "examples" / "star-wifi.toml")
    p.add_argument("--duration", type=float, nargs="+", default=[300.0, 3600.0])
    p.add_argument("--bin", type=float, help="[outputs] bin, seconds (default: the file's)")
    p.add_argument("--json-only", action="store_true", help="run with --json, no --out")
    args = p.parse_args()
    scenario = args.scenario
    with tempfile.TemporaryDirectory() as tmp:
        if args.bin is not None:
            scenario = Path(tmp) / scenario.name
            text = args.scenario.read_text(encoding="utf-8")
            scenario.write_text(f"{text}\n[outputs]\nbin = {args.bin!r}\n", encoding="utf-8")
        print(f"{'simulated s':>12} {'max RSS MB':>11} {'wall s':>8}  ({args.scenario.name})")
        for d in args.duration:
            rss_mb, wall = measure(scenario, d, json_only=args.json_only)
            print(f"{d:>12g} {rss_mb:>11.1f} {wall:>8.1f}", flush=True)


if __name__ == "__main__":
    main()
