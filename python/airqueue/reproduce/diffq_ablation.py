"""``diffq-ablation``: seed 000 section 6.4, Fig. 15: what rate control, scheduling and MAC
prioritisation each contribute.

Three variants of DiffQ-UDP (saturating UDP paced by DiffQ's source rate control, DiffQ
queues, EDCA with DiffQ's eight levels), 16 random flows on the random mesh of
``diffq-single-path``:

- RC only: ``diffq.scheduling = false`` (round robin over destinations) and
  ``diffq.mac_priority = false`` (every frame at level 0);
- RC + scheduling: ``diffq.mac_priority = false``;
- full DiffQ.

The paper ran one 16-flow experiment of 2 minutes; we run several scenarios (seeds) of
the same length and report means with 95% intervals. Metrics: queue drops (overflow of a
destination queue or of the node buffer) and MAC drops (retry limit), log utility, Jain's
index, aggregate goodput, and queue drops by the path length of the flows (Fig. 15's x
axis). Reports give drops per node, not per flow, so a node's queue drops are split
equally among the flows whose route (recomputed from the node positions as the core's
static routing does) transmits through it, as source or relay.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pandas as pd

from airqueue.reproduce.diffq_single_path import _apply, scheme_scenario
from airqueue.reproduce.paths import Routes
from airqueue.reproduce.report import ReproductionResult, Row, bootstrap_ratio, row
from airqueue.reproduce.runs import Runner

NAME = "diffq-ablation"
SUMMARY = "Sec. 6.4, Fig. 15: rate control only vs + scheduling vs full DiffQ (queue drops)"

#: Variant -> [diffq] switches.
VARIANTS: dict[str, dict[str, bool]] = {
    "RC only": {"scheduling": False, "mac_priority": False},
    "RC + scheduling": {"scheduling": True, "mac_priority": False},
    "full DiffQ": {"scheduling": True, "mac_priority": True},
}

#: Fig. 15 / section 6.4 text: queue drops over the 2-minute, 16-flow experiment. "Both
#: variants of DiffQ-UDP suffer more than 70,000 queue drops" (a lower bound).
PAPER_QUEUE_DROPS = {"RC only": 70_000.0, "RC + scheduling": 70_000.0, "full DiffQ": 2_500.0}


@dataclass(frozen=True)
class Config:
    """Parameters (``airqueue.reproduce(NAME, params={...})`` overrides any of them)."""

    seeds: int = 10
    flows: int = 16
    duration: float = 120.0
    nodes: int = 46
    area: tuple[float, float] = (900.0, 900.0)
    packet_size: int = 1400
    queue_capacity: int = 50

    @classmethod
    def make(cls, quick: bool, params: Mapping[str, Any] | None) -> Config:
        base = cls(seeds=3, duration=20.0) if quick else cls()
        return _apply(base, params)


def run(
    *,
    quick: bool,
    out: Path,
    workers: int | None,
    serial: bool,
    progress: bool,
    params: Mapping[str, Any] | None = None,
) -> ReproductionResult:
    config = Config.make(quick, params)
    seeds = list(range(1, config.seeds + 1))
    with Runner(out, workers=workers, serial=serial, progress=progress) as runner:
        frames = []
        for variant, switches in VARIANTS.items():
            base = scheme_scenario(
                "DiffQ-UDP",
                name=f"{NAME}-{variant.replace(' ', '').replace('+', '-').lower()}",
                duration=config.duration,
                nodes=config.nodes,
                area=config.area,
                flows=config.flows,
                packet_size=config.packet_size,
                queue_capacity=config.queue_capacity,
                delayed_ack=False,
            )
            base["diffq"] = dict(switches)
            frames.append(runner.sweep(variant, base, seeds=seeds))
        flows = pd.concat(frames, ignore_index=True)
        summary = runner.table(flows, "summary")
        drops = runner.table(flows, "drops")
        nodes = runner.table(flows, "nodes")

    by_hops, longest_share = _attribute(flows, drops, nodes)
    relay_drops = _relay_only_drops(flows, drops)
    runs = flows.drop_duplicates("run_id").set_index("run_id")
    summary = summary.set_index("run_id")
    summary["scheme"] = runs["scheme"]
    summary["seed"] = runs["seed"]
    rows: list[Row] = []
    span = f"{config.duration:g} s"
    for variant in VARIANTS:
        s = summary[summary["scheme"] == variant].sort_values("seed")
        paper = PAPER_QUEUE_DROPS[variant]
        bound = " (> 70,000)" if variant != "full DiffQ" else " (~2,500)"
        rows.append(
            row(
                f"{variant}: queue drops per run, {span} (Fig. 15, 120 s{bound})",
                list(s.get("drops.queue_overflow", pd.Series(dtype=float))),
                paper=paper,
            )
        )
        rows.append(
            row(
                f"{variant}: queue drops at relay-only nodes (no flow's source) per run",
                [relay_drops[(variant, seed)] for seed in sorted(s["seed"])],
            )
        )
        rows.append(
            row(
                f"{variant}: MAC retry-limit drops per run, {span}",
                list(s.get("drops.mac_retry_limit", pd.Series(dtype=float))),
            )
        )
        rows.append(row(f"{variant}: log utility (Fig. 15)", list(s["log_utility"])))
        rows.append(row(f"{variant}: Jain's index", list(s["jain_index"]), high=1.0))
        rows.append(
            row(
                f"{variant}: aggregate goodput, Mb/s",
                list(s["aggregate_goodput_bps"]),
                scale=1e6,
            )
        )
        short = [
            sum(v for h, v in by_hops[(variant, seed)].items() if h <= 2)
            for seed in sorted(s["seed"])
        ]
        rows.append(
            row(
                f"{variant}: queue drops on 1-2-hop flows' paths per run"
                + (" (section 6.4: 0 for RC only)" if variant == "RC only" else ""),
                short,
                paper=0.0 if variant == "RC only" else None,
            )
        )
        rows.append(
            row(
                f"{variant}: share of queue drops on the longest flow's path"
                + (" (section 6.4: 70% on the 8-hop path)" if variant == "full DiffQ" else ""),
                [longest_share[(variant, seed)] for seed in sorted(s["seed"])],
                paper=0.7 if variant == "full DiffQ" else None,
                high=1.0,
            )
        )
    full = summary[summary["scheme"] == "full DiffQ"].set_index("seed")
    rc = summary[summary["scheme"] == "RC only"].set_index("seed")
    common = sorted(set(full.index) & set(rc.index))
    col = "drops.queue_overflow"
    if col in summary:
        ratio, lo, hi = bootstrap_ratio(
            [full[col][k] for k in common], [rc[col][k] for k in common]
        )
        rows.append(
            Row(
                "queue drops ratio full DiffQ / RC only (Fig. 15: ~2,500 / > 70,000)",
                None,
                ratio,
                lo,
                hi,
            )
        )
    figures = [_drops_figure(by_hops, out), _summary_figure(summary, out)]
    notes = [
        f"{len(seeds)} scenarios of {config.flows} flows, {span} each "
        f"({'quick' if quick else 'full'}); the paper: one scenario of 16 flows, 120 s. "
        "Scale differs (our packets, queue sizes and rates are the simulator's), so compare "
        "the ordering and the ratio, not the counts.",
        "Paper (section 6.4 text): full DiffQ-UDP about 2,500 queue drops, 70% of them on "
        "the 8-hop path; both other variants more than 70,000; RC only: 0 drops for 1- and "
        "2-hop flows. Log utilities are plotted in Fig. 15 without numbers: blank.",
        "Drops by path length: a node's queue drops split equally among the flows routed "
        "through it (source or relay); routes recomputed from node positions. Relay-only "
        "nodes: nodes that are no flow's source (drops at a source node may be its own "
        "packets or forwarded ones; reports do not say).",
    ]
    return ReproductionResult(
        name=NAME,
        rows=rows,
        figures=figures,
        notes=notes,
        params={"quick": quick, **{k: getattr(config, k) for k in Config.__dataclass_fields__}},
        out=out,
    )


def _attribute(
    flows: pd.DataFrame, drops: pd.DataFrame, nodes: pd.DataFrame
) -> tuple[dict[tuple[str, int], dict[int, float]], dict[tuple[str, int], float]]:
    """Per (variant, seed): queue drops by the path length of the flows they are split
    among; and the share of the run's queue drops on its longest flow's path."""
    by_hops: dict[tuple[str, int], dict[int, float]] = defaultdict(lambda: defaultdict(float))
    longest_share: dict[tuple[str, int], float] = {}
    qd = drops[drops["reason"] == "queue_overflow"] if "reason" in drops else drops.iloc[0:0]
    for run_id, fl in flows.groupby("run_id", sort=True):
        key = (str(fl["scheme"].iloc[0]), int(fl["seed"].iloc[0]))
        g = nodes[nodes["run_id"] == run_id].sort_values("node")
        routes = Routes(list(zip(g["x_m"], g["y_m"], strict=True)))
        through: dict[int, list[int]] = defaultdict(list)  # node -> flow ids transmitting
        hops: dict[int, int] = {}
        for fid, src, dst in zip(fl["id"], fl["src"], fl["dst"], strict=True):
            path = routes.path(int(src), int(dst))
            hops[int(fid)] = len(path) - 1
            for n in path[:-1]:
                through[n].append(int(fid))
        per_flow: dict[int, float] = defaultdict(float)
        mine = qd[qd["run_id"] == run_id]
        for n, packets in zip(mine["node"], mine["packets"], strict=True):
            ids = through.get(int(n), [])
            for fid in ids:
                per_flow[fid] += float(packets) / len(ids)
        bucket = by_hops[key]
        for fid, h in hops.items():
            bucket[h] += per_flow.get(fid, 0.0)
        total = sum(per_flow.values())
        longest = max(hops, key=lambda f: (hops[f], per_flow.get(f, 0.0)))
        longest_share[key] = per_flow.get(longest, 0.0) / total if total > 0 else 0.0
    return by_hops, longest_share


def _relay_only_drops(flows: pd.DataFrame, drops: pd.DataFrame) -> dict[tuple[str, int], float]:
    """Per (variant, seed): queue drops at nodes that are no flow's source, i.e. that
    only forward (the paper counts overflows "on intermediate nodes")."""
    out: dict[tuple[str, int], float] = {}
    qd = drops[drops["reason"] == "queue_overflow"] if "reason" in drops else drops.iloc[0:0]
    for run_id, fl in flows.groupby("run_id", sort=True):
        key = (str(fl["scheme"].iloc[0]), int(fl["seed"].iloc[0]))
        mine = qd[(qd["run_id"] == run_id) & ~qd["node"].isin(set(fl["src"]))]
        out[key] = float(mine["packets"].sum())
    return out


def _drops_figure(by_hops: dict[tuple[str, int], dict[int, float]], out: Path) -> Path:
    from airqueue.reproduce.figures import bars, save

    lengths = sorted({h for b in by_hops.values() for h in b})
    groups: dict[str, dict[str, list[float]]] = {}
    for h in lengths:
        groups[f"{h}-hop"] = {
            variant: [b.get(h, 0.0) for (v, _), b in sorted(by_hops.items()) if v == variant]
            for variant in VARIANTS
        }
    fig = bars(
        groups,
        title=f"{NAME}: queue drops by flow path length per run (Fig. 15; mean, 95% CI)",
        ylabel="queue drops per run (symlog)",
        log_y=True,
    )
    return save(fig, out / "drops-by-hops.png")


def _summary_figure(summary: pd.DataFrame, out: Path) -> Path:
    import matplotlib.pyplot as plt

    from airqueue.reproduce.figures import save
    from airqueue.reproduce.report import mean_ci

    fig, axes = plt.subplots(1, 3, figsize=(13, 4))
    for ax, (col, label) in zip(
        axes,
        (
            ("drops.queue_overflow", "queue drops per run"),
            ("drops.mac_retry_limit", "MAC retry-limit drops per run"),
            ("log_utility", "log utility (ln b/s)"),
        ),
        strict=True,
    ):
        means, errs = [], []
        for variant in VARIANTS:
            values = list(summary[summary["scheme"] == variant].get(col, pd.Series(dtype=float)))
            m, h = mean_ci(values)
            means.append(0.0 if m != m else m)
            errs.append(0.0 if h != h else h)
        ax.bar(range(len(VARIANTS)), means, yerr=errs, capsize=3, color=["C0", "C1", "C2"])
        ax.set_xticks(range(len(VARIANTS)), list(VARIANTS), fontsize="small")
        ax.set_title(label, fontsize="medium")
        ax.grid(alpha=0.3, axis="y")
    fig.suptitle(f"{NAME}: DiffQ-UDP variants, 16 flows (Fig. 15; mean, 95% CI)")
    fig.tight_layout()
    return save(fig, out / "variants.png")
