"""One report over several reproductions: ``summary.md`` (every table of paper value vs
ours, with notes and figure links, for reading) and ``summary.json`` (the same rows, for
scripts), written by ``reproduce_all``."""

from __future__ import annotations

import json
import math
import os
from collections.abc import Mapping
from pathlib import Path

from airqueue.reproduce.registry import REPRODUCTIONS
from airqueue.reproduce.report import ReproductionResult, Row

__all__ = ["markdown", "write_summary"]


def write_summary(
    results: Mapping[str, ReproductionResult],
    root: Path,
    *,
    quick: bool,
    wall_seconds: float,
) -> Path:
    """Writes ``root/summary.md`` and ``root/summary.json``; returns the Markdown path."""
    root.mkdir(parents=True, exist_ok=True)
    md = root / "summary.md"
    md.write_text(markdown(results, root, quick=quick, wall_seconds=wall_seconds), "utf-8")
    doc = {
        "quick": quick,
        "wall_seconds": wall_seconds,
        "version": _version(),
        "reproductions": {
            name: {
                "seed_paper": REPRODUCTIONS[name][2],
                "summary": REPRODUCTIONS[name][1],
                "rows": r.to_rows(),
                "notes": r.notes,
                "figures": [str(p) for p in r.figures],
                "wall_seconds": r.wall_seconds,
            }
            for name, r in results.items()
        },
    }
    (root / "summary.json").write_text(
        json.dumps(doc, indent=2, allow_nan=False) + "\n", encoding="utf-8"
    )
    return md


def markdown(
    results: Mapping[str, ReproductionResult],
    root: Path,
    *,
    quick: bool,
    wall_seconds: float,
) -> str:
    """The Markdown report: a heading per reproduction with its seed paper, the table
    (blank paper cells where the paper gives no number), the notes and the figures
    (linked relative to ``root``)."""
    lines = [
        "# airqueue reproductions",
        "",
        f"{'Quick' if quick else 'Full'} configurations, airqueue {_version()}, "
        f"{len(results)} reproductions in {wall_seconds:.0f} s. Each row: the paper's "
        "number where it gives one, ours (mean over seeds or scenarios), its 95% "
        "interval, and where the paper gives a number how close we come (ours / paper; "
        '"in CI" when our interval contains the paper\'s value). Rerun one with '
        "`airqueue reproduce NAME`.",
        "",
    ]
    for name, r in results.items():
        _, summary, seed = REPRODUCTIONS[name]
        lines += [f"## {name} (seed {seed})", "", summary, ""]
        lines += [
            "| metric | paper | ours | 95% CI | ours / paper |",
            "|---|---:|---:|---|---:|",
        ]
        for row in r.rows:
            ci = (
                f"[{_num(row.ci_low)}, {_num(row.ci_high)}]"
                if row.ci_low is not None and row.ci_high is not None
                else ""
            )
            metric = row.metric.replace("|", "/")
            lines.append(
                f"| {metric} | {_num(row.paper)} | {_num(row.ours)} | {ci} | {_closeness(row)} |"
            )
        lines.append("")
        lines += [f"- {note}" for note in r.notes]
        for fig in r.figures:
            lines.append(f"- figure: [{Path(fig).name}]({_relative(Path(fig), root)})")
        lines += [f"- wall time {r.wall_seconds:.1f} s", ""]
    return "\n".join(lines)


def _closeness(row: Row) -> str:
    """How close we come where the paper gives a number: ours / paper, and whether our
    95% interval contains the paper's value (marked "in CI")."""
    if row.paper is None or row.ours is None or row.paper == 0:
        return ""
    if not (math.isfinite(row.paper) and math.isfinite(row.ours)):
        return ""
    inside = (
        row.ci_low is not None
        and row.ci_high is not None
        and row.ci_low <= row.paper <= row.ci_high
    )
    return f"{row.ours / row.paper:.2f}" + (" (in CI)" if inside else "")


def _num(x: float | None) -> str:
    if x is None or not math.isfinite(x):
        return ""
    return f"{x:.4g}"


def _relative(path: Path, root: Path) -> str:
    try:
        return Path(os.path.relpath(path, root)).as_posix()
    except ValueError:  # another drive on Windows
        return path.as_posix()


def _version() -> str:
    from airqueue import __git_hash__, __version__

    return f"{__version__} ({__git_hash__})" if __git_hash__ else __version__
