"""Plot helpers of the reproductions (matplotlib, Agg backend, PNG files)."""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import matplotlib

matplotlib.use("Agg")

import matplotlib.pyplot as plt  # noqa: E402

from airqueue.reproduce.report import mean_ci  # noqa: E402

__all__ = ["bars", "cdf_panels", "lines_with_ci", "save", "series_against", "timeseries_panels"]


def save(fig: Any, path: Path) -> Path:
    """Saves ``fig`` as PNG at ``path`` and closes it."""
    path.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(path, dpi=120, bbox_inches="tight")
    plt.close(fig)
    return path


def cdf_panels(
    panels: Mapping[str, Mapping[str, Sequence[float]]],
    *,
    title: str,
    xlabel: str = "per-flow goodput (kb/s)",
    log_x: bool = True,
) -> Any:
    """One CDF panel per key of ``panels``; in each, one line per series (label ->
    values). With ``log_x`` values below 1 are drawn at 1 (starved flows)."""
    n = max(1, len(panels))
    cols = min(n, 2)
    rows = math.ceil(n / cols)
    fig, axes = plt.subplots(rows, cols, figsize=(6.5 * cols, 4.2 * rows), squeeze=False)
    for ax, (panel, series) in zip(axes.flat, panels.items(), strict=False):
        for label, values in series.items():
            xs = sorted(float(v) for v in values)
            if not xs:
                continue
            if log_x:
                xs = [max(x, 1.0) for x in xs]
            ys = [(i + 1) / len(xs) for i in range(len(xs))]
            ax.step([xs[0], *xs], [0.0, *ys], where="post", label=label)
        if log_x:
            ax.set_xscale("log")
        ax.set_title(panel, fontsize="medium")
        ax.set_xlabel(xlabel)
        ax.set_ylabel("fraction of flows (CDF)")
        ax.set_ylim(0, 1.02)
        ax.grid(alpha=0.3)
        ax.legend(fontsize="small")
    for ax in list(axes.flat)[len(panels) :]:
        ax.set_visible(False)
    fig.suptitle(title)
    fig.tight_layout()
    return fig


def lines_with_ci(
    panels: Mapping[str, Mapping[str, Mapping[Any, Sequence[float]]]],
    *,
    title: str,
    xlabel: str,
) -> Any:
    """One panel per key (its y label); per panel one line per series, each a mapping
    x -> values, drawn as the mean with a 95% interval."""
    n = max(1, len(panels))
    fig, axes = plt.subplots(n, 1, figsize=(7, 3.4 * n), squeeze=False, sharex=True)
    for ax, (ylabel, series) in zip(axes[:, 0], panels.items(), strict=False):
        for label, points in series.items():
            xs = sorted(points)
            stats = [mean_ci(points[x]) for x in xs]
            ys = [m for m, _ in stats]
            errs = [0.0 if math.isnan(h) else h for _, h in stats]
            ax.errorbar(xs, ys, yerr=errs, marker="o", capsize=3, label=label)
        ax.set_ylabel(ylabel)
        ax.grid(alpha=0.3)
        ax.legend(fontsize="small")
    axes[-1, 0].set_xlabel(xlabel)
    xs_all = sorted({x for s in panels.values() for p in s.values() for x in p})
    if xs_all and all(isinstance(x, (int, float)) for x in xs_all):
        axes[-1, 0].set_xscale("log", base=2)
        axes[-1, 0].set_xticks(xs_all, [str(x) for x in xs_all])
    fig.suptitle(title)
    fig.tight_layout()
    return fig


def series_against(
    panels: Mapping[str, Mapping[str, Sequence[tuple[float, float]]]],
    *,
    title: str,
    xlabel: str,
) -> Any:
    """One panel per key (its y label); per panel one line per series of (x, y) points,
    drawn in x order (values already summarised: no intervals)."""
    n = max(1, len(panels))
    fig, axes = plt.subplots(n, 1, figsize=(7, 3.4 * n), squeeze=False, sharex=True)
    for ax, (ylabel, series) in zip(axes[:, 0], panels.items(), strict=False):
        for label, points in series.items():
            pts = sorted((x, y) for x, y in points if y is not None)
            if pts:
                ax.plot([x for x, _ in pts], [y for _, y in pts], marker="o", label=label)
        ax.set_ylabel(ylabel)
        ax.grid(alpha=0.3)
        ax.legend(fontsize="small")
    axes[-1, 0].set_xlabel(xlabel)
    fig.suptitle(title)
    fig.tight_layout()
    return fig


def bars(
    groups: Mapping[str, Mapping[str, Sequence[float]]],
    *,
    title: str,
    ylabel: str,
    log_y: bool = False,
) -> Any:
    """Grouped bars: per group (x position) one bar per series, mean with a 95% interval."""
    series = list(dict.fromkeys(s for g in groups.values() for s in g))
    fig, ax = plt.subplots(figsize=(max(6.0, 1.3 * len(groups) * max(1, len(series)) / 2), 4.5))
    width = 0.8 / max(1, len(series))
    for k, name in enumerate(series):
        xs, ys, lows, highs = [], [], [], []
        for i, g in enumerate(groups.values()):
            if name not in g:
                continue
            m, h = mean_ci(g[name])
            m = 0.0 if math.isnan(m) else m
            h = 0.0 if math.isnan(h) else h
            xs.append(i - 0.4 + width * (k + 0.5))
            ys.append(m)
            lows.append(min(h, max(m, 0.0)))  # the quantities drawn are >= 0
            highs.append(h)
        ax.bar(xs, ys, width=width, yerr=[lows, highs], capsize=3, label=name)
    ax.set_xticks(range(len(groups)), list(groups))
    ax.set_ylabel(ylabel)
    if log_y:
        ax.set_yscale("symlog", linthresh=1.0)
    ax.set_title(title, fontsize="medium")
    ax.grid(alpha=0.3, axis="y")
    ax.legend(fontsize="small")
    fig.tight_layout()
    return fig


def timeseries_panels(
    panels: Mapping[str, Mapping[str, tuple[Sequence[float], Sequence[float]]]],
    *,
    title: str,
    marks: Sequence[tuple[float, str]] = (),
    ylabel: str = "goodput (kb/s)",
) -> Any:
    """One panel per key; per panel one line per series (label -> (t, y)). ``marks`` are
    vertical lines (time, label), e.g. flow starts."""
    n = max(1, len(panels))
    fig, axes = plt.subplots(n, 1, figsize=(8, 3.2 * n), squeeze=False, sharex=True)
    for ax, (panel, series) in zip(axes[:, 0], panels.items(), strict=False):
        for label, (t, y) in series.items():
            ax.plot(list(t), list(y), label=label)
        for t, label in marks:
            ax.axvline(t, color="grey", linestyle=":", linewidth=1)
            ax.annotate(
                label,
                (t, 1.0),
                xycoords=("data", "axes fraction"),
                fontsize="x-small",
                ha="left",
                va="top",
                rotation=90,
                color="grey",
            )
        ax.set_title(panel, fontsize="medium")
        ax.set_ylabel(ylabel)
        ax.grid(alpha=0.3)
        ax.legend(fontsize="small", loc="upper right")
    axes[-1, 0].set_xlabel("time (s)")
    fig.suptitle(title)
    fig.tight_layout()
    return fig


def queue_trace_panels(
    panels: Mapping[
        str,
        tuple[
            Mapping[str, tuple[Sequence[float], Sequence[float]]],
            Mapping[str, tuple[Sequence[float], Sequence[float]]],
            float,
        ],
    ],
    *,
    d_ref_ms: float,
    title: str,
) -> Any:
    """One row per key: (queue series in packets, delay series in ms, t0). The left panel
    plots the queue series, the right one the delay series with ``d_ref_ms`` as a
    horizontal line; both mark t0 with a vertical line."""
    n = max(1, len(panels))
    fig, axes = plt.subplots(n, 2, figsize=(11, 3.2 * n), squeeze=False)
    for (left, right), (panel, (queue, delay, t0)) in zip(axes, panels.items(), strict=False):
        for label, (t, y) in queue.items():
            left.plot(list(t), list(y), label=label)
        for label, (t, y) in delay.items():
            right.plot(list(t), list(y), label=label)
        right.axhline(d_ref_ms, color="black", linestyle="--", linewidth=1, label="D_ref")
        for ax, ylabel in ((left, "packets"), (right, "ms")):
            ax.axvline(t0, color="grey", linestyle=":", linewidth=1)
            ax.set_title(panel, fontsize="small")
            ax.set_ylabel(ylabel)
            ax.set_xlabel("time (s)")
            ax.grid(alpha=0.3)
            ax.legend(fontsize="small", loc="upper right")
    fig.suptitle(title)
    fig.tight_layout()
    return fig
