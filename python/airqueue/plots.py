"""Plots of sweep results with matplotlib (Agg backend: files, no display).

Kinds:

- ``cdf``: CDF of per-flow goodput, one line per swept configuration (seeds pooled).
- ``fairness``: Jain's index and log utility against a swept parameter, mean over seeds
  with a 95% confidence interval, one line per configuration of the other parameters.
- ``aggregate``: aggregate goodput against a swept parameter, likewise.
- ``timeseries``: per-flow goodput over time in one run.
- ``queues``: queue length over time per node in one run, with a legend naming the nodes
  (all of them up to 12, else the 10 with the longest mean queue; the rest in grey).
- ``topology``: one run's network for papers: nodes at their positions coloured and sized
  by queue length (at a chosen time, or the mean over the run), the radio links of the
  ``links`` table and each flow along its route (``routes``), width by goodput.

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

KINDS = ("cdf", "fairness", "timeseries", "aggregate", "queues", "topology")

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
    at: float | None = None,
) -> Figure:
    """Draws one kind of plot (see ``KINDS``) from a results directory or a DataFrame.

    ``source`` is a sweep's results directory, or a DataFrame: the flows frame of
    ``sweep()``/``load()`` for ``cdf``, ``fairness`` and ``aggregate``, ``load(DIR,
    table="timeseries")`` / ``table="queues"`` for those kinds. ``x`` is the swept
    parameter on the x axis (default: the first one with more than one value); ``run`` the
    run id to show for ``timeseries``/``queues``/``topology`` (default: the first run).
    ``topology`` takes a sweep's results directory or one run's (``airqueue run --out``),
    and ``at``: the time (s) whose queue lengths and goodput it shows (default: the mean
    over the run). With ``out`` (``.png`` or ``.svg``) the figure is saved there. Returns
    the figure.
    """
    if kind not in KINDS:
        raise ValueError(f"unknown plot kind {kind!r}; expected one of {', '.join(KINDS)}")
    if kind == "topology":
        if isinstance(source, pd.DataFrame):
            raise ValueError(
                "the topology plot needs a run's tables: pass a results directory, not a DataFrame"
            )
        return _save(_topology(source, run=run, at=at), out)
    if at is not None:
        raise ValueError(f"at= (--at) applies to the topology plot only, not to {kind!r}")
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
    return _save(draw(df, params, x=x, run=run), out)


def _save(fig: Figure, out: str | os.PathLike[str] | None) -> Figure:
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
    fig, ax = plt.subplots(figsize=(9, 4.5))
    nodes = one.groupby("node", sort=True)
    named = _named_nodes(one)
    colours = plt.get_cmap("tab10" if len(named) <= 10 else "tab20")
    for node, g in nodes:
        if node in named:
            k = named.index(node)
            ax.plot(
                g["t_s"],
                g["len_pkts"],
                label=f"node {node}",
                linewidth=1.2,
                color=colours(k),
                zorder=3,
            )
        else:
            ax.plot(g["t_s"], g["len_pkts"], color="0.75", linewidth=0.6, zorder=2)
    ax.set_xlabel("time (s)")
    ax.set_ylabel("queue length (packets)")
    ax.set_title(f"Queue length per node, {title}", fontsize="medium")
    ax.grid(alpha=0.3)
    if named:
        handles, labels = ax.get_legend_handles_labels()
        order = sorted(range(len(labels)), key=lambda i: named.index(int(labels[i][5:])))
        legend_title = (
            "node"
            if len(named) == nodes.ngroups
            else f"node ({len(named)} longest mean queue;\nothers grey)"
        )
        ax.legend(
            [handles[i] for i in order],
            [labels[i] for i in order],
            fontsize="small",
            title=legend_title,
            title_fontsize="small",
            loc="upper left",
            bbox_to_anchor=(1.01, 1.0),
            borderaxespad=0.0,
        )
    return fig


def _run_name(run_dir: Path) -> str:
    """The scenario's name and seed from the run's manifest, else the directory's name."""
    import json

    try:
        summary = json.loads((run_dir / "manifest.json").read_text(encoding="utf-8"))["summary"]
        return f"{summary['name']}, seed {summary['seed']}"
    except (OSError, ValueError, KeyError, TypeError):
        return run_dir.name


def _named_nodes(one: pd.DataFrame) -> list[int]:
    """The nodes the queues legend names: every node up to 12, else the 10 with the
    longest mean queue (in that order) among those that queued at all."""
    means = one.groupby("node")["len_pkts"].mean()
    if len(means) <= 12:
        return [int(n) for n in means.index]
    top = means[means > 0].sort_values(ascending=False, kind="stable").head(10)
    return [int(n) for n in top.index]


def _topology(source: str | os.PathLike[str], *, run: str | None, at: float | None) -> Figure:
    from matplotlib.collections import LineCollection
    from matplotlib.colors import Normalize

    from airqueue.view import resolve_run_dir

    run_dir = resolve_run_dir(source, run)

    def table(name: str) -> pd.DataFrame:
        path = run_dir / f"{name}.parquet"
        return pd.read_parquet(path) if path.is_file() else pd.DataFrame()

    nodes = table("nodes").sort_values("node")
    if nodes.empty:
        raise ValueError(f"{run_dir}: the run has no nodes table")
    pos = {int(r.node): (float(r.x_m), float(r.y_m)) for r in nodes.itertuples()}
    placed = {n: p for n, p in pos.items() if math.isfinite(p[0]) and math.isfinite(p[1])}
    queues, flows, ts = table("queues"), table("flows"), table("timeseries")
    if at is None:
        qlen = queues.groupby("node")["len_pkts"].mean() if not queues.empty else pd.Series()
        when = "mean over the run"
        goodput = dict(zip(flows.get("id", []), flows.get("goodput_bps", []), strict=True))
    else:
        if queues.empty:
            raise ValueError(f"{run_dir}: the run has no queue samples to show at a time")
        times = sorted(queues["t_s"].unique())
        if not times[0] - 1e-9 <= at <= times[-1] + 1e-9:
            raise ValueError(
                f"--at {at:g}: outside the run's queue samples, {times[0]:g} to {times[-1]:g} s"
            )
        t = min(times, key=lambda v: abs(v - at))
        qlen = queues[queues["t_s"] == t].set_index("node")["len_pkts"]
        when = f"at t = {t:g} s"
        inbin = ts[(ts["t_start_s"] < t + 1e-9) & (ts["t_end_s"] >= t - 1e-9)] if len(ts) else ts
        inbin = inbin.sort_values("t_end_s").groupby("flow").last() if len(inbin) else inbin
        goodput = {
            int(f): float(g) for f, g in zip(inbin.index, inbin.get("goodput_bps", []), strict=True)
        }
    fig, ax = plt.subplots(figsize=(8, 7))
    links = table("links")
    segs = [
        (placed[int(a)], placed[int(b)])
        for a, b in zip(links.get("a", []), links.get("b", []), strict=True)
        if int(a) in placed and int(b) in placed
    ]
    if segs:
        ax.add_collection(LineCollection(segs, colors="0.78", linewidths=0.6, zorder=1))
    routes = table("routes")
    peak = max([v for v in goodput.values() if math.isfinite(v)] or [0.0]) or 1.0
    unit, scale = _rate_unit(pd.Series(list(goodput.values()) or [0.0]))
    flow_colours = plt.get_cmap("tab10")
    few = len(flows) <= 12
    for fid in sorted(routes["flow"].unique()) if not routes.empty else []:
        path = routes[routes["flow"] == fid].sort_values("hop")["node"]
        pts = [placed[int(n)] for n in path if int(n) in placed]
        if len(pts) < 2:
            continue
        g = goodput.get(int(fid), 0.0)
        g = g if math.isfinite(g) else 0.0
        src, dst = int(path.iloc[0]), int(path.iloc[-1])
        ax.plot(
            *zip(*pts, strict=True),
            color=flow_colours(int(fid) % 10),
            alpha=0.7,
            linewidth=1.0 + 7.0 * math.sqrt(g / peak),
            solid_capstyle="round",
            zorder=2,
            label=f"flow {fid}: {src}\u2192{dst}, {g / scale:.3g} {unit}" if few else None,
        )
    xs = [placed[n][0] for n in placed]
    ys = [placed[n][1] for n in placed]
    q = [float(qlen.get(n, 0.0)) for n in placed]
    qmax = max(q + [1.0])
    span = max(max(xs) - min(xs), max(ys) - min(ys), 1.0)
    size = 900.0 / max(len(placed), 9) ** 0.5
    sc = ax.scatter(
        xs,
        ys,
        c=q,
        s=[size * (1 + 2.0 * math.sqrt(v / qmax)) for v in q],
        cmap="viridis_r",
        norm=Normalize(0, qmax),
        edgecolors="0.25",
        linewidths=0.5,
        zorder=3,
    )
    if len(placed) <= 60:
        for n, (x, y) in placed.items():
            ax.annotate(
                str(n), (x, y), xytext=(4, 4), textcoords="offset points", fontsize=7, zorder=4
            )
    cbar = fig.colorbar(sc, ax=ax, shrink=0.75, pad=0.02)
    cbar.set_label(f"queue length (packets), {when}")
    ax.set_aspect("equal")
    pad = 0.05 * span
    ax.set_xlim(min(xs) - pad, max(xs) + pad)
    ax.set_ylim(min(ys) - pad, max(ys) + pad)
    ax.set_xlabel("x (m)")
    ax.set_ylabel("y (m)")
    name = _run_name(run_dir)
    ax.set_title(f"Topology, queues and flows ({name}, {when})", fontsize="medium")
    if few and not routes.empty:
        ax.legend(
            fontsize="x-small",
            loc="upper left",
            bbox_to_anchor=(0.0, -0.1),
            ncol=2,
            title="flows along their routes (width: goodput)",
            title_fontsize="x-small",
        )
    unplaced = len(pos) - len(placed)
    if unplaced:
        ax.text(
            0.99,
            0.01,
            f"{unplaced} wired host(s) without position not shown",
            transform=ax.transAxes,
            ha="right",
            fontsize="x-small",
            color="0.4",
        )
    return fig
