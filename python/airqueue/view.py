"""``airqueue view``: one run as a self-contained HTML page (no network access needed).

The page shows the topology (nodes at their positions, the radio links of the ``links``
table), each node's queue length over time as colour and size with a time slider and
play/pause, flows along their ``routes`` with width by goodput, drops by node and reason,
the goodput (and for TCP cwnd and smoothed RTT, for paced flows the sending rate) of a
selected flow over time, and the MAC priority levels in use when there are several
(DiffQ's EDCA levels, seed 000).

Data are embedded as compact JSON: per-frame arrays of small integers, one frame per
queue sample (``outputs.bin``), every k-th sample kept when a run has more than
``MAX_FRAMES`` (fewer for more than 2,000 nodes, ``MAX_QUEUE_CELLS``), so the page stays a
few MB. The script and styles are
inlined from ``view_assets.py``; nothing is fetched.
"""

from __future__ import annotations

import html
import json
import math
import os
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from airqueue.view_assets import PAGE_CSS, PAGE_JS

__all__ = ["MAX_FRAMES", "page_data", "render_html", "resolve_run_dir", "view", "view_results"]

#: Most frames embedded; longer runs keep every k-th queue sample.
MAX_FRAMES = 600
#: Most (frame, node) queue values embedded: big networks get fewer frames (at least 50),
#: so the page stays a few MB.
MAX_QUEUE_CELLS = 1_200_000
#: Most points of a selected flow's cwnd/RTT/rate trace.
MAX_TRACE_POINTS = 600

_TABLES = ("flows", "timeseries", "queues", "nodes", "links", "routes", "drops")
_TABLES += ("mac_levels", "cwnd", "rates")


def resolve_run_dir(source: str | os.PathLike[str], run: str | None = None) -> Path:
    """The run directory to show: ``source`` itself when it holds a run (``manifest.json``),
    else run ``run`` (default: the first by id) of the sweep store ``source``."""
    root = Path(source)
    if not root.is_dir():
        raise FileNotFoundError(f"{root}: no such directory; pass the --out DIR of a run or sweep")
    if (root / "manifest.json").is_file():
        if run is not None:
            raise ValueError(f"--run {run}: {root} is a single run, not a sweep store")
        return root
    runs = root / "runs"
    ids = (
        sorted(p.name for p in runs.iterdir() if not p.name.startswith("."))
        if runs.is_dir()
        else []
    )
    if not ids:
        raise ValueError(
            f"{root}: neither a run directory (no manifest.json) nor a sweep store with "
            "finished runs (no runs/<id>/); pass the --out DIR of `airqueue run` or "
            "`airqueue sweep`"
        )
    if run is None:
        return runs / ids[0]
    if run not in ids:
        shown = ", ".join(ids[:5]) + (" ..." if len(ids) > 5 else "")
        raise ValueError(f"--run {run}: no such run in {root}; runs are {shown}")
    return runs / run


def view(
    source: str | os.PathLike[str],
    *,
    out: str | os.PathLike[str] | None = None,
    run: str | None = None,
) -> Path:
    """Writes the viewer page of a run directory (``airqueue run --out DIR``) or of one run
    of a sweep store (``run``: its id, default the first). ``out`` defaults to
    ``<run dir>/view.html``. Returns the path written."""
    run_dir = resolve_run_dir(source, run)
    manifest = json.loads((run_dir / "manifest.json").read_text(encoding="utf-8"))
    tables = {}
    for name in _TABLES:
        path = run_dir / f"{name}.parquet"
        # Runs written before the routes/links tables existed still show, without them.
        tables[name] = pd.read_parquet(path) if path.is_file() else pd.DataFrame()
    data = page_data(
        tables, summary=manifest.get("summary", {}), scenario=manifest.get("scenario", {})
    )
    target = Path(out) if out is not None else run_dir / "view.html"
    return _write(target, render_html(data))


def view_results(results: Any, out: str | os.PathLike[str]) -> Path:
    """The page of an in-memory ``Results`` (``Results.view``)."""
    tables = {name: results.table(name) for name in _TABLES}
    data = page_data(tables, summary=results.summary, scenario=results.scenario)
    return _write(Path(out), render_html(data))


def _write(target: Path, text: str) -> Path:
    if target.suffix.lower() not in (".html", ".htm"):
        raise ValueError(f"{target}: the viewer writes an .html file; name it e.g. view.html")
    target.parent.mkdir(parents=True, exist_ok=True)
    tmp = target.with_name(f".{target.name}.{os.getpid()}.tmp")
    try:
        tmp.write_text(text, encoding="utf-8")
        os.replace(tmp, target)
    finally:
        tmp.unlink(missing_ok=True)
    return target


def _col(df: pd.DataFrame, name: str) -> pd.Series:
    return df[name] if name in df.columns else pd.Series(dtype="float64")


def page_data(
    tables: Mapping[str, pd.DataFrame],
    *,
    summary: Mapping[str, Any],
    scenario: Mapping[str, Any],
) -> dict[str, Any]:
    """What the page embeds, as JSON-able lists (see the module doc)."""
    empty = pd.DataFrame()
    nodes = tables.get("nodes", empty)
    n = len(nodes)
    if n == 0:
        raise ValueError("the run has no nodes table; rerun it with this airqueue version")
    nodes = nodes.sort_values("node")
    xs, ys, placed = _positions(nodes["x_m"].to_numpy(float), nodes["y_m"].to_numpy(float))

    queues = tables.get("queues", empty)
    times, qmatrix = _queue_frames(queues, n)
    flows = tables.get("flows", empty)
    flow_list = _flows(flows, tables, times)
    return {
        "name": str(summary.get("name") or scenario.get("name") or "run"),
        "seed": summary.get("seed"),
        "duration_s": _finite(summary.get("simulated_seconds") or scenario.get("duration")),
        "aggregate_goodput_bps": _finite(summary.get("aggregate_goodput_bps")),
        "jain_index": _finite(summary.get("jain_index")),
        "queue_kind": str((scenario.get("queue") or {}).get("kind", "")),
        # AODV and OLSR choose paths during the run; the routes table holds the shortest
        # path they settle on in the idle network, and the page says so.
        "routing_kind": str((scenario.get("routing") or {}).get("kind", "static")),
        "nodes": {
            "x": [round(v, 2) for v in xs],
            "y": [round(v, 2) for v in ys],
            "wired": [int(not p) for p in placed],
        },
        "links": _links(tables.get("links", empty)),
        "times_s": [round(t, 4) for t in times],
        "queue": qmatrix,
        "flows": flow_list,
        "drops": _drops(tables.get("drops", empty)),
        "mac_levels": _mac_levels(tables.get("mac_levels", empty)),
    }


def _finite(v: Any) -> float | None:
    try:
        f = float(v)
    except (TypeError, ValueError):
        return None
    return f if math.isfinite(f) else None


def _positions(x: np.ndarray, y: np.ndarray) -> tuple[list[float], list[float], list[bool]]:
    """Positions, with nodes that have none (a BSS's wired hosts) on a row below the
    others so that they can be drawn and their wires seen."""
    placed = np.isfinite(x) & np.isfinite(y)
    if not placed.any():
        x, y = np.arange(len(x), dtype=float), np.zeros(len(x))
        placed = np.ones(len(x), dtype=bool)
    xmin, xmax = float(x[placed].min()), float(x[placed].max())
    ymin, ymax = float(y[placed].min()), float(y[placed].max())
    span = max(xmax - xmin, ymax - ymin, 1.0)
    loose = np.flatnonzero(~placed)
    x, y = x.copy(), y.copy()
    for k, i in enumerate(loose):
        x[i] = xmin + (xmax - xmin) * (k + 1) / (len(loose) + 1)
        y[i] = ymin - 0.25 * span
    return [float(v) for v in x], [float(v) for v in y], [bool(p) for p in placed]


def _queue_frames(queues: pd.DataFrame, n: int) -> tuple[list[float], list[list[int]]]:
    """Frame times and, per frame, every node's queue length (packets)."""
    if queues.empty:
        return [0.0], [[0] * n]
    wide = queues.pivot_table(index="t_s", columns="node", values="len_pkts", aggfunc="last")
    wide = wide.reindex(columns=range(n)).fillna(0).sort_index()
    most = min(MAX_FRAMES, max(50, MAX_QUEUE_CELLS // max(n, 1)))
    stride = max(1, math.ceil(len(wide) / most))
    keep = list(range(0, len(wide), stride))
    if keep[-1] != len(wide) - 1:
        keep.append(len(wide) - 1)
    wide = wide.iloc[keep]
    matrix = wide.to_numpy(dtype=float).round().astype(int)
    return [float(t) for t in wide.index], matrix.tolist()


def _flows(flows: pd.DataFrame, tables: Mapping[str, pd.DataFrame], times: list[float]) -> list:
    if flows.empty:
        return []
    empty = pd.DataFrame()
    routes = tables.get("routes", empty)
    ts = tables.get("timeseries", empty)
    cwnd = tables.get("cwnd", empty)
    rates = tables.get("rates", empty)
    frame_t = np.asarray(times, dtype=float)
    out = []
    for row in flows.sort_values("id").itertuples(index=False):
        fid = int(row.id)
        path = []
        if not routes.empty:
            r = routes[routes["flow"] == fid].sort_values("hop")
            path = [int(v) for v in r["node"]]
        entry: dict[str, Any] = {
            "id": fid,
            "kind": str(row.kind),
            "src": int(row.src),
            "dst": int(row.dst),
            "route": path,
            "goodput_kbps": round(float(row.goodput_bps) / 1e3, 2),
            "frames_kbps": _goodput_frames(ts[ts["flow"] == fid] if not ts.empty else ts, frame_t),
        }
        if not cwnd.empty:
            c = cwnd[cwnd["flow"] == fid]
            if not c.empty:
                entry["cwnd"] = _trace(c, "cwnd_pkts", 1.0, 2)
                entry["rtt_ms"] = _trace(c, "srtt_s", 1e3, 1)
        if not rates.empty:
            r = rates[rates["flow"] == fid]
            if not r.empty:
                entry["rate_kbps"] = _trace(r, "rate_bps", 1e-3, 1)
        out.append(entry)
    return out


def _goodput_frames(ts: pd.DataFrame, frame_t: np.ndarray) -> list[float]:
    """Goodput over each frame's interval (from the previous frame time), kb/s, from the
    delivered bits accumulated over the time-series bins; 0 for the first frame."""
    if ts.empty or len(frame_t) < 2:
        return [0.0] * len(frame_t)
    ts = ts.sort_values("t_start_s")
    width = (ts["t_end_s"] - ts["t_start_s"]).to_numpy(float)
    bits = np.nan_to_num(ts["goodput_bps"].to_numpy(float)) * width
    ends = np.concatenate([[float(ts["t_start_s"].iloc[0])], ts["t_end_s"].to_numpy(float)])
    cum = np.concatenate([[0.0], np.cumsum(bits)])
    at = np.interp(frame_t, ends, cum)
    dt = np.diff(frame_t)
    rate = np.where(dt > 0, np.diff(at) / np.where(dt > 0, dt, 1.0), 0.0)
    return [0.0, *(round(float(v) / 1e3, 1) for v in rate)]


def _trace(df: pd.DataFrame, column: str, scale: float, digits: int) -> dict[str, list]:
    df = df.sort_values("t_s")
    stride = max(1, math.ceil(len(df) / MAX_TRACE_POINTS))
    df = df.iloc[::stride]
    values = [
        None if not math.isfinite(v) else round(v * scale, digits)
        for v in df[column].to_numpy(float)
    ]
    return {"t": [round(float(t), 4) for t in df["t_s"]], "v": values}


def _links(links: pd.DataFrame) -> dict[str, list[int]]:
    if links.empty:
        return {"a": [], "b": [], "wire": []}
    return {
        "a": [int(v) for v in links["a"]],
        "b": [int(v) for v in links["b"]],
        "wire": [int(k == "wire") for k in links["kind"]],
    }


def _drops(drops: pd.DataFrame) -> dict[str, Any]:
    """Drops by node and reason: the reasons, and per node its counts in that order."""
    if drops.empty:
        return {"reasons": [], "by_node": {}}
    totals = drops.groupby("reason")["packets"].sum().sort_values(ascending=False)
    reasons = [str(r) for r in totals.index]
    by_node: dict[str, list[int]] = {}
    for node, g in drops.groupby("node"):
        counts = dict(zip(g["reason"], g["packets"], strict=True))
        by_node[str(int(node))] = [int(counts.get(r, 0)) for r in reasons]
    return {"reasons": reasons, "by_node": by_node}


def _mac_levels(levels: pd.DataFrame) -> dict[str, Any]:
    """Data frames sent per MAC priority level, in total and per node."""
    if levels.empty:
        return {"levels": [], "total": [], "by_node": {}}
    used = sorted(int(v) for v in levels["level"].unique())
    totals = levels.groupby("level")["data_tx"].sum()
    by_node: dict[str, list[int]] = {}
    for node, g in levels.groupby("node"):
        counts = dict(zip(g["level"], g["data_tx"], strict=True))
        by_node[str(int(node))] = [int(counts.get(lv, 0)) for lv in used]
    return {"levels": used, "total": [int(totals.get(lv, 0)) for lv in used], "by_node": by_node}


def render_html(data: Mapping[str, Any]) -> str:
    """The page: markup, inlined style and script, and the data as JSON."""
    payload = json.dumps(data, separators=(",", ":"), allow_nan=False)
    # "</" would end the script element early; JSON allows the escaped form.
    payload = payload.replace("</", "<\\/")
    title = html.escape(f"airqueue: {data.get('name', 'run')}")
    head, rest = _PAGE.split("{data}")
    head = head.replace("{title}", title).replace("{css}", PAGE_CSS)
    return head + payload + rest.replace("{js}", PAGE_JS)


_PAGE = """<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<link rel="icon" href="data:,">
<title>{title}</title>
<style>{css}</style>
</head>
<body>
<main id="map-pane">
  <svg id="backdrop" xmlns="http://www.w3.org/2000/svg" aria-hidden="true">
    <g id="links"></g></svg>
  <svg id="map" xmlns="http://www.w3.org/2000/svg" role="img" aria-label="network topology">
    <g id="routes"></g><g id="nodes"></g><g id="labels"></g>
  </svg>
  <div id="tooltip" hidden></div>
</main>
<aside id="side">
  <header><h1 id="title"></h1><p id="facts"></p></header>
  <section id="controls">
    <div class="row">
      <button id="play" type="button">&#9654; play</button>
      <input id="time" type="range" min="0" max="0" value="0" step="1" aria-label="time">
    </div>
    <div class="row small"><span id="clock"></span></div>
    <div class="row small">
      <label>speed <select id="speed">
        <option value="4">4 frames/s</option><option value="10" selected>10 frames/s</option>
        <option value="25">25 frames/s</option><option value="60">60 frames/s</option>
      </select></label>
      <label>colour <select id="colour-by"></select></label>
    </div>
  </section>
  <section id="legend"></section>
  <section><h2>Flows</h2>
    <select id="flow-select" aria-label="flow"></select>
    <div id="flow-info" class="small"></div>
    <div id="charts"></div>
  </section>
  <section><h2>Node</h2><div id="node-info" class="small">click a node</div></section>
  <section><h2>Drops by node and reason</h2><div id="drops"></div></section>
  <section id="levels-section" hidden><h2>MAC priority levels in use</h2>
    <div id="levels"></div></section>
</aside>
<script id="airqueue-data" type="application/json">{data}</script>
<script>{js}</script>
</body>
</html>
"""
