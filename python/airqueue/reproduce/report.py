"""What a reproduction returns: rows of paper value vs ours, figures, notes; and the
statistics every reproduction shares (means with Student-t 95% intervals, a bootstrap
interval for ratios and for any statistic of independent groups of runs, and the
measures of how a result varies: linear misfit, coefficient of variation, rank
correlation)."""

from __future__ import annotations

import json
import math
import random
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TypeVar

__all__ = [
    "ReproductionResult",
    "Row",
    "bootstrap_groups",
    "bootstrap_ratio",
    "coefficient_of_variation",
    "linear_misfit",
    "mean_ci",
    "rank_correlation",
    "row",
]

T = TypeVar("T")


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


def bootstrap_groups(
    groups: Sequence[Sequence[T]],
    stat: Callable[[list[list[T]]], float],
    *,
    resamples: int = 2000,
    seed: int = 12345,
) -> tuple[float, float | None, float | None]:
    """``stat(groups)`` with a 95% percentile bootstrap interval. ``groups`` are
    independent sets of samples (one per configuration, e.g. the seeds of each N, or
    one group of scenarios); each resample redraws every group's samples with
    replacement, as many as it holds, independently of the other groups. Returns
    (value, low, high); the interval is None when a group has fewer than two samples or
    some resample's statistic is not finite (a zero denominator, a constant series)."""
    data = [list(g) for g in groups]
    point = float(stat(data))
    if not data or any(len(g) < 2 for g in data):
        return point, None, None
    rng = random.Random(seed)
    stats = []
    for _ in range(resamples):
        value = float(stat([[g[rng.randrange(len(g))] for _ in g] for g in data]))
        if not math.isfinite(value):
            return point, None, None
        stats.append(value)
    stats.sort()
    lo = stats[int(0.025 * (resamples - 1))]
    hi = stats[int(math.ceil(0.975 * (resamples - 1)))]
    return point, lo, hi


def linear_misfit(x: Sequence[float], y: Sequence[float]) -> float:
    """``1 - R^2`` of the least-squares line ``y ~ a + b x``: the share of ``y``'s
    variance over the points that a straight line in ``x`` leaves unexplained (0: the
    points lie on a line; 1: no linear trend at all). NaN with fewer than three points or
    a constant ``y`` or ``x``."""
    xs, ys = [float(v) for v in x], [float(v) for v in y]
    n = len(xs)
    if n < 3 or n != len(ys):
        return math.nan
    mx, my = sum(xs) / n, sum(ys) / n
    sxx = sum((a - mx) ** 2 for a in xs)
    syy = sum((b - my) ** 2 for b in ys)
    if sxx == 0 or syy == 0:
        return math.nan
    sxy = sum((a - mx) * (b - my) for a, b in zip(xs, ys, strict=True))
    return 1.0 - sxy * sxy / (sxx * syy)


def coefficient_of_variation(y: Sequence[float]) -> float:
    """Standard deviation of the values (over the values themselves, no ``n - 1``:
    they are the points of a curve, not a sample) over their mean. NaN for fewer than
    two values or a mean of 0."""
    ys = [float(v) for v in y]
    if len(ys) < 2:
        return math.nan
    mean = sum(ys) / len(ys)
    if mean == 0:
        return math.nan
    return math.sqrt(sum((v - mean) ** 2 for v in ys) / len(ys)) / abs(mean)


def rank_correlation(x: Sequence[float], y: Sequence[float]) -> float:
    """Spearman's rank correlation: the Pearson correlation of the average ranks (ties
    share the mean of their ranks). In [-1, 1]; > 0 when ``y`` tends to grow with ``x``.
    NaN with fewer than three points or when either side is constant."""
    rx, ry = _average_ranks(x), _average_ranks(y)
    if len(rx) < 3 or len(rx) != len(ry):
        return math.nan
    misfit = linear_misfit(rx, ry)
    if math.isnan(misfit):
        return math.nan
    mx, my = sum(rx) / len(rx), sum(ry) / len(ry)
    sxy = sum((a - mx) * (b - my) for a, b in zip(rx, ry, strict=True))
    return math.copysign(math.sqrt(max(0.0, 1.0 - misfit)), sxy)


def _average_ranks(values: Sequence[float]) -> list[float]:
    """1-based ranks of ``values``, ties given the mean of the ranks they span."""
    order = sorted(range(len(values)), key=lambda i: values[i])
    ranks = [0.0] * len(values)
    start = 0
    while start < len(order):
        end = start
        while end + 1 < len(order) and values[order[end + 1]] == values[order[start]]:
            end += 1
        for i in order[start : end + 1]:
            ranks[i] = (start + end) / 2.0 + 1.0
        start = end + 1
    return ranks


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
