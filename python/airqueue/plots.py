"""Plots of sweep results with matplotlib (Agg backend: files, no display).

Kinds:

- ``cdf``: CDF of per-flow goodput, one line per swept configuration (seeds pooled).
- ``fairness``: Jain's index and log utility against a swept parameter, mean over seeds
  with a 95% confidence interval, one line per configuration of the other parameters.
- ``aggregate``: aggregate goodput against a swept parameter, likewise.
- ``timeseries``: per-flow goodput over time in one run.
- ``queues``: queue length over time per node in one run.

Confidence intervals are Student-t intervals over seeds, mean +- t(0.975, n-1) s/sqrt(n),
with the t quantiles tabulated for n-1 <= 30 and the normal 1.96 above (within 2% of t
there); a configuration with one seed has no interval.
"""

from __future__ import annotations

import math
import os
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import matplotlib

matplotlib.use("Agg")

import matplotlib.pyplot as plt  # noqa: E402
import pandas as pd  # noqa: E402
from matplotlib.figure import Figure  # noqa: E402

from airqueue.store import load  # noqa: E402

__all__ = ["KINDS", "confidence_interval", "plot", "t_quantile_975"]

KINDS = ("cdf", "fairness", "timeseries", "aggregate", "queues")

# t(0.975, df) for df = 1..30 (two-sided 95%).
_T975 = (
    12.706, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365, 2.306, 2.262, 2.228,
    2.201, 2.179, 2.160, 2.145, 2.131, 2.120, 2.110, 2.101, 2.093, 2.086,
    2.080, 2.074, 2.069, 2.064, 2.060, 2.056, 2.052, 2.048, 2.045, 2.042,
)  # fmt: skip


def t_quantile_975(df: int) -> float:
    """The 97.5% quantile of Student's t with ``df`` degrees of freedom (>= 1)."""
    if df < 1:
        raise ValueError(f"degrees of freedom must be >= 1, got {df}")
    return _T975[df - 1] if df <= len(_T975) else 1.96


def confidence_interval(values: Sequence[float]) -> tuple[float, float]:
    """(mean, half-width of the 95% interval); half-width NaN for fewer than 2 values."""
    xs = [float(v) for v in values if v is not None and math.isfinite(float(v))]
    n = len(xs)
    if n == 0:
        return math.nan, math.nan
    mean = sum(xs) / n
    if n < 2:
        return mean, math.nan
    sd = math.sqrt(sum((x - mean) ** 2 for x in xs) / (n - 1))
    return mean, t_quantile_975(n - 1) * sd / math.sqrt(n)


def plot(
    source: str | os.PathLike[str] | pd.DataFrame,
    *,
    kind: str = "cdf",
    x: str | None = None,
    run: str | None = None,
    out: str | os.PathLike[str] | None = None,
) -> Figure:
    """Draws one kind of plot (see ``KINDS``) from a results directory or a DataFrame.

    ``source`` is a sweep's results directory, or a DataFrame: the flows frame of
    ``sweep()``/``load()`` for ``cdf``, ``fairness`` and ``aggregate``, ``load(DIR,
    table="timeseries")`` / ``table="queues"`` for those kinds. ``x`` is the swept
    parameter on the x axis (default: the first one with more than one value); ``run`` the
    run id to show for ``timeseries``/``queues`` (default: the first run). With ``out``
    (``.png`` or ``.svg``) the figure is saved there. Returns the figure.
    """
    if kind not in KINDS:
        raise ValueError(f"unknown plot kind {kind!r}; expected one of {', '.join(KINDS)}")
    table = {"timeseries": "timeseries", "queues": "queues"}.get(kind, "flows")
    df = source if isinstance(source, pd.DataFrame) else load(source, table=table)
    params = list(df.attrs.get("params") or _guess_params(df))
    if df.empty:
        raise ValueError("no finished runs to plot")
    draw = {
        "cdf": _cdf,
        "fairness": _fairness,
        "aggregate": _aggregate,
        "timeseries": _timeseries,
        "queues": _queues,
    }[kind]
    fig = draw(df, params, x=x, run=run)
    if out is not None:
        out = Path(out)
        if out.suffix.lower() not in (".png", ".svg"):
            plt.close(fig)
            raise ValueError(f"{out}: save plots as .png or .svg")
        out.parent.mkdir(parents=True, exist_ok=True)
        fig.savefig(out, dpi=120, bbox_inches="tight")
    return fig


def _guess_params(df: pd.DataFrame) -> list[str]:
    """Parameter columns of a frame that lost its attrs: those between seed and the table."""
    cols = list(df.columns)
    if "seed" not in cols:
        return []
    start = cols.index("seed") + 1
    stop = next((i for i, c in enumerate(cols) if i >= start and ("." not in c)), len(cols))
    return cols[start:stop] if "run_id" in cols else []


def _label(row: dict[str, Any] | pd.Series, keys: list[str]) -> str:
    return ", ".join(f"{k}={_value(row[k])}" for k in keys) if keys else "all runs"


def _value(v: Any) -> str:
    return f"{v:g}" if isinstance(v, float) else str(v)


def _configs(df: pd.DataFrame, keys: list[str]) -> list[tuple[str, pd.DataFrame]]:
    if not keys:
        return [("all runs", df)]
    groups = df.groupby(keys, sort=True, dropna=False)
    out = []
    for k, g in groups:
        values = k if isinstance(k, tuple) else (k,)
        out.append((_label(dict(zip(keys, values, strict=True)), keys), g))
    return out


def _rate_unit(values: pd.Series) -> tuple[str, float]:
    peak = float(values.abs().max()) if len(values) else 0.0
    for unit, scale in (("Mb/s", 1e6), ("kb/s", 1e3)):
        if peak >= scale:
            return unit, scale
    return "b/s", 1.0


def _cdf(df: pd.DataFrame, params: list[str], **_: Any) -> Figure:
    fig, ax = plt.subplots(figsize=(7, 4.5))
    unit, scale = _rate_unit(df["goodput_bps"])
    for label, g in _configs(df, params):
        xs = sorted(g["goodput_bps"].dropna() / scale)
        if not xs:
            continue
        ys = [(i + 1) / len(xs) for i in range(len(xs))]
        ax.step([xs[0], *xs], [0.0, *ys], where="post", label=label)
    ax.set_xlabel(f"per-flow goodput ({unit})")
    ax.set_ylabel("fraction of flows (CDF)")
    ax.set_ylim(0, 1.02)
    ax.set_title("Per-flow goodput")
    ax.grid(alpha=0.3)
    ax.legend(fontsize="small")
    return fig


def _runs(df: pd.DataFrame, params: list[str]) -> pd.DataFrame:
    """One row per run with its summary figures."""
    cols = [c for c in df.columns if c.startswith("run_") and c != "run_id"]
    runs = df.drop_duplicates("run_id")[["run_id", "seed", *params, *cols]]
    return runs.rename(columns={c: c[len("run_") :] for c in cols})


def _x_param(df: pd.DataFrame, params: list[str], x: str | None) -> str:
    if x is not None:
        if x not in df.columns:
            raise ValueError(f"--x {x}: not a column; swept parameters are {params or 'none'}")
        return x
    varying = [p for p in params if df[p].nunique(dropna=False) > 1]
    if not varying:
        raise ValueError(
            "no swept parameter to put on the x axis; sweep a grid key or pass x=COLUMN "
            "(e.g. x='seed')"
        )
    return varying[0]


def _versus(ax: Any, runs: pd.DataFrame, params: list[str], x: str, y: str, scale: float) -> None:
    others = [p for p in params if p != x]
    for label, g in _configs(runs, others):
        points = []
        for xv, gx in g.groupby(x, sort=True):
            mean, half = confidence_interval(list(gx[y] / scale))
            points.append((xv, mean, half))
        xs = [p[0] for p in points]
        numeric = all(isinstance(v, (int, float)) for v in xs)
        pos = xs if numeric else list(range(len(xs)))
        errs = [0.0 if math.isnan(p[2]) else p[2] for p in points]
        ax.errorbar(pos, [p[1] for p in points], yerr=errs, marker="o", capsize=3, label=label)
        if not numeric:
            ax.set_xticks(pos, [str(v) for v in xs])
    ax.set_xlabel(x)
    ax.ticklabel_format(axis="y", useOffset=False)
    ax.grid(alpha=0.3)
    if others:
        ax.legend(fontsize="small")


def _fairness(df: pd.DataFrame, params: list[str], *, x: str | None, **_: Any) -> Figure:
    runs = _runs(df, params)
    xp = _x_param(runs, params, x)
    fig, (top, bottom) = plt.subplots(2, 1, figsize=(7, 7), sharex=True)
    _versus(top, runs, params, xp, "jain_index", 1.0)
    top.set_ylabel("Jain's fairness index (0-1)")
    top.set_title(f"Fairness vs {xp} (mean, 95% CI over seeds)")
    _versus(bottom, runs, params, xp, "log_utility", 1.0)
    bottom.set_ylabel("log utility (sum of ln goodput in b/s)")
    bottom.set_xlabel(xp)
    return fig


def _aggregate(df: pd.DataFrame, params: list[str], *, x: str | None, **_: Any) -> Figure:
    runs = _runs(df, params)
    xp = _x_param(runs, params, x)
    unit, scale = _rate_unit(runs["aggregate_goodput_bps"])
    fig, ax = plt.subplots(figsize=(7, 4.5))
    _versus(ax, runs, params, xp, "aggregate_goodput_bps", scale)
    ax.set_ylabel(f"aggregate goodput ({unit})")
    ax.set_title(f"Aggregate goodput vs {xp} (mean, 95% CI over seeds)")
    return fig


def _one_run(df: pd.DataFrame, params: list[str], run: str | None) -> tuple[pd.DataFrame, str]:
    if "run_id" not in df.columns:
        return df, "run"
    run_id = run if run is not None else df["run_id"].iloc[0]
    one = df[df["run_id"] == run_id]
    if one.empty:
        raise ValueError(f"no run {run_id!r} in the results")
    first = one.iloc[0]
    title = f"run {run_id} (seed {first['seed']}"
    title += f", {_label(first, params)})" if params else ")"
    return one, title


def _timeseries(df: pd.DataFrame, params: list[str], *, run: str | None, **_: Any) -> Figure:
    one, title = _one_run(df, params, run)
    unit, scale = _rate_unit(one["goodput_bps"])
    fig, ax = plt.subplots(figsize=(8, 4.5))
    for flow, g in one.groupby("flow", sort=True):
        mid = (g["t_start_s"] + g["t_end_s"]) / 2
        ax.plot(mid, g["goodput_bps"] / scale, label=f"flow {flow}")
    ax.set_xlabel("time (s)")
    ax.set_ylabel(f"goodput ({unit})")
    ax.set_title(f"Per-flow goodput over time, {title}", fontsize="medium")
    ax.grid(alpha=0.3)
    if one["flow"].nunique() <= 12:
        ax.legend(fontsize="small")
    return fig


def _queues(df: pd.DataFrame, params: list[str], *, run: str | None, **_: Any) -> Figure:
    one, title = _one_run(df, params, run)
    fig, ax = plt.subplots(figsize=(8, 4.5))
    nodes = one.groupby("node", sort=True)
    for node, g in nodes:
        ax.plot(g["t_s"], g["len_pkts"], label=f"node {node}", linewidth=1)
    ax.set_xlabel("time (s)")
    ax.set_ylabel("queue length (packets)")
    ax.set_title(f"Queue length per node, {title}", fontsize="medium")
    ax.grid(alpha=0.3)
    if nodes.ngroups <= 12:
        ax.legend(fontsize="small")
    return fig
