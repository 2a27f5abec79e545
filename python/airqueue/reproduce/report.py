"""What a reproduction returns: rows of paper value vs ours, figures, notes; and the
statistics every reproduction shares (means with Student-t 95% intervals, a bootstrap
interval for ratios)."""

from __future__ import annotations

import json
import math
import random
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

__all__ = [
    "ReproductionResult",
    "Row",
    "bootstrap_ratio",
    "mean_ci",
    "row",
]


@dataclass(frozen=True)
class Row:
    """One line of a reproduction's table.

    ``paper`` is the number the paper gives for this metric (the metric's text says where:
    figure, table or section), or None where it gives none. ``ours`` is our estimate (a
    mean over seeds or scenarios, unless the metric says otherwise) and ``ci_low`` /
    ``ci_high`` its 95% confidence interval (None with fewer than two seeds).
    """

    metric: str
    paper: float | None
    ours: float | None
    ci_low: float | None = None
    ci_high: float | None = None

    def to_dict(self) -> dict[str, Any]:
        return {
            "metric": self.metric,
            "paper": _finite(self.paper),
            "ours": _finite(self.ours),
            "ci_low": _finite(self.ci_low),
            "ci_high": _finite(self.ci_high),
        }


@dataclass
class ReproductionResult:
    """The outcome of ``airqueue.reproduce(name)``."""

    name: str
    rows: list[Row]
    #: PNG files written into ``out``.
    figures: list[Path] = field(default_factory=list)
    #: Remarks printed under the table: setup, parameters, where we differ from the paper.
    notes: list[str] = field(default_factory=list)
    #: The parameters the reproduction ran with (quick or full, seeds, durations ...).
    params: dict[str, Any] = field(default_factory=dict)
    out: Path | None = None
    wall_seconds: float = 0.0

    def to_rows(self) -> list[dict[str, Any]]:
        """The rows as ``--json`` prints them: ``{metric, paper, ours, ci_low, ci_high}``."""
        return [r.to_dict() for r in self.rows]

    def row(self, metric: str) -> Row:
        """The row whose metric is ``metric`` (exact match)."""
        for r in self.rows:
            if r.metric == metric:
                return r
        raise KeyError(f"no row {metric!r} in reproduction {self.name!r}")

    def frame(self) -> Any:
        """The rows as a pandas DataFrame."""
        import pandas as pd

        return pd.DataFrame(
            self.to_rows(), columns=["metric", "paper", "ours", "ci_low", "ci_high"]
        )

    def write(self) -> Path | None:
        """Writes ``rows.json`` and ``report.json`` (rows, notes, params, figures, wall
        time) into ``out``; returns the report's path."""
        if self.out is None:
            return None
        self.out.mkdir(parents=True, exist_ok=True)
        report = {
            "name": self.name,
            "rows": self.to_rows(),
            "notes": self.notes,
            "params": self.params,
            "figures": [str(p) for p in self.figures],
            "wall_seconds": self.wall_seconds,
        }
        (self.out / "rows.json").write_text(
            json.dumps(self.to_rows(), indent=2, allow_nan=False) + "\n", encoding="utf-8"
        )
        path = self.out / "report.json"
        path.write_text(json.dumps(report, indent=2, allow_nan=False) + "\n", encoding="utf-8")
        return path

    def render(self, console: Any = None) -> None:
        """Prints the table (rich), the notes and the figures."""
        from rich.console import Console
        from rich.table import Table

        console = console or Console()
        table = Table(title=f"{self.name}", title_justify="left")
        table.add_column("metric", overflow="fold")
        for col in ("paper", "ours", "95% CI low", "high"):
            table.add_column(col, justify="right")
        for r in self.rows:
            table.add_row(r.metric, _fmt(r.paper), _fmt(r.ours), _fmt(r.ci_low), _fmt(r.ci_high))
        console.print(table)
        for note in self.notes:
            console.print(f"- {note}", markup=False, highlight=False)
        for fig in self.figures:
            console.print(f"wrote {fig}", markup=False, highlight=False)
        console.print(f"wall time {self.wall_seconds:.1f} s", markup=False, highlight=False)


def row(
    metric: str,
    values: Sequence[float],
    *,
    paper: float | None = None,
    scale: float = 1.0,
    low: float | None = 0.0,
    high: float | None = None,
) -> Row:
    """A row with the mean of ``values`` (divided by ``scale``) and its 95% interval,
    clipped to the metric's range [``low``, ``high``] (default: non-negative; None for
    no bound): a Student-t interval over few seeds can otherwise reach below 0."""
    mean, half = mean_ci(values)
    if math.isnan(mean):
        return Row(metric, paper, None, None, None)
    if math.isnan(half):
        return Row(metric, paper, mean / scale, None, None)
    lo, hi = mean - half, mean + half
    if low is not None:
        lo = max(lo, low)
    if high is not None:
        hi = min(hi, high)
    return Row(metric, paper, mean / scale, lo / scale, hi / scale)


def mean_ci(values: Sequence[float]) -> tuple[float, float]:
    """(mean, half-width of the Student-t 95% interval) of the finite values; the
    half-width is NaN for fewer than two values (as ``airqueue.plots``)."""
    from airqueue.plots import confidence_interval

    return confidence_interval([float(v) for v in values if v is not None])


def bootstrap_ratio(
    num: Sequence[float],
    den: Sequence[float],
    *,
    stat: Callable[[Sequence[float]], float] | None = None,
    resamples: int = 2000,
    seed: int = 12345,
) -> tuple[float, float | None, float | None]:
    """Ratio of means ``mean(num) / mean(den)`` over paired samples (one pair per
    scenario), with a 95% percentile bootstrap interval resampling the pairs. Returns
    (ratio, low, high); the interval is None with fewer than two pairs, and the ratio is
    NaN when ``mean(den)`` is 0."""
    pairs = [
        (float(a), float(b))
        for a, b in zip(num, den, strict=True)
        if a is not None and b is not None and math.isfinite(a) and math.isfinite(b)
    ]
    if not pairs:
        return math.nan, None, None
    agg = stat or (lambda xs: sum(xs) / len(xs))

    def ratio(sample: Sequence[tuple[float, float]]) -> float:
        d = agg([b for _, b in sample])
        return agg([a for a, _ in sample]) / d if d > 0 else math.inf

    point = ratio(pairs)
    if len(pairs) < 2:
        return point, None, None
    rng = random.Random(seed)
    n = len(pairs)
    stats = sorted(ratio([pairs[rng.randrange(n)] for _ in range(n)]) for _ in range(resamples))
    lo = stats[int(0.025 * (resamples - 1))]
    hi = stats[int(math.ceil(0.975 * (resamples - 1)))]
    return point, lo, hi


def _finite(x: float | None) -> float | None:
    if x is None:
        return None
    x = float(x)
    return x if math.isfinite(x) else None


def _fmt(x: float | None) -> str:
    if x is None or not math.isfinite(x):
        return ""
    ax = abs(x)
    if ax >= 1e5:
        return f"{x:,.0f}"
    if ax >= 100:
        return f"{x:.1f}"
    if ax >= 1:
        return f"{x:.3g}" if ax < 10 else f"{x:.2f}"
    return f"{x:.3f}"
