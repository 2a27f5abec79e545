"""``diffq-ablation``: seed 000 section 6.4, Fig. 15: what rate control, scheduling and MAC
prioritisation each contribute.

Three variants of DiffQ-UDP (saturating UDP paced by DiffQ's source rate control, DiffQ
queues, EDCA with DiffQ's eight levels), 16 random flows on the random mesh of
``diffq-single-path``, with its routing (OLSR-ETX by default):

- RC only: ``diffq.scheduling = false`` (round robin over destinations) and
  ``diffq.mac_priority = false`` (every frame at level 0);
- RC + scheduling: ``diffq.mac_priority = false``;
- full DiffQ.

The paper ran one 16-flow experiment of 2 minutes; we run several scenarios (seeds) of
the same length and report means with 95% intervals. Metrics: queue drops at
intermediate nodes (Fig. 15 counts "queue overflows on intermediate nodes": overflows of
a destination queue at a node that relays the packet, from the run's ``flow_drops``
table), queue drops at the packets' own sources, all queue drops, MAC drops (retry
limit), log utility, Jain's index, aggregate goodput, and intermediate-node queue drops
by the path length of the flow whose packet was dropped (Fig. 15's x axis).

The MAC holds one frame behind DiffQ's queues and links are loss-free; ``driver_buffer``
and ``link_loss`` give ``diffq-single-path``'s MadWiFi driver buffer and Table 2 link
loss as a counterfactual, ``fading=rayleigh`` per-frame Rayleigh fading;
``source_queue=first_relay`` gives the sources' rate rule their
next hop's queue for the destination as well (an oracle the paper does not describe).
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pandas as pd

from airqueue.reproduce.claims import Claim, Direction, Ref, ValueInCI
from airqueue.reproduce.diffq_single_path import (
    DIFFQ_D,
    DRIVER_BUFFER_FRAMES,
    MADWIFI_IFQ_PACKETS,
    MADWIFI_TX_ATTEMPTS,
    OLSRD_TC_REDUNDANCY,
    QUEUE_THRESHOLD,
    RATE_UPDATE,
    check_driver,
    check_fading,
    check_routing,
    check_select,
    scheme_scenario,
)
from airqueue.reproduce.params import apply_params, as_params
from airqueue.reproduce.paths import flow_hops
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


#: ``[diffq] source_queue``'s values (docs/scenario.md).
SOURCE_QUEUES = ("own", "first_relay")


@dataclass(frozen=True)
class Config:
    """Parameters (``airqueue.reproduce(NAME, params={...})`` overrides any of them)."""

    seeds: int = 10
    flows: int = 16
    duration: float = 120.0
    nodes: int = 46
    area: tuple[float, float] = (900.0, 900.0)
    packet_size: int = 1400
    queue_capacity: int = MADWIFI_IFQ_PACKETS
    #: Transmit attempts per data frame (``mac.short_retry_limit``; MadWiFi's).
    retry_limit: int = MADWIFI_TX_ATTEMPTS
    diffq_d: int = DIFFQ_D
    queue_threshold: int = QUEUE_THRESHOLD
    #: DiffQ's rate-control clock, ``"interval"`` or ``"packet"`` (``RATE_UPDATE``).
    rate_update: str = RATE_UPDATE
    #: ``[routing] kind``, as in ``diffq-single-path``: ``"olsr"`` (OLSR-ETX, the paper's
    #: routing) or ``"static"`` (shortest ETX paths computed before the run).
    routing: str = "olsr"
    #: OLSR's ``tc_redundancy``, as in ``diffq-single-path`` (olsrd's 2).
    tc_redundancy: int = OLSRD_TC_REDUNDANCY
    #: Frames the MAC holds behind DiffQ's queues (``[mac] tx_buffer``): one, the default
    #: (``DRIVER_BUFFER_FRAMES``); ``diffq-single-path``'s MadWiFi 200 is a
    #: counterfactual here (docs/reproductions/diffq.md, "Driver buffer and link loss").
    driver_buffer: int = DRIVER_BUFFER_FRAMES
    #: Frame erasure probability of every pair of nodes (``[[link]] loss``): 0, the
    #: default; ``diffq-single-path``'s Table 2 calibration 0.04 is a counterfactual here.
    link_loss: float = 0.0
    #: ``radio.fading``: ``"none"``, the default, or ``"rayleigh"`` (per-frame fading,
    #: a counterfactual as in ``diffq-single-path``: section 6.1 gives no channel model).
    fading: str = "none"
    #: ``[diffq] source_queue``: ``"own"``, the paper's rule (4.1: the source reads its
    #: own queue for the destination); ``"first_relay"``, a counterfactual whose sources
    #: read the larger of their own and their next hop's queue (docs/reproductions/diffq.md,
    #: "Why full DiffQ still drops a quarter").
    source_queue: str = "own"
    #: ``[diffq] select`` of the scheduling variants, as ``diffq-single-path``'s
    #: ``diffq_select``: ``"differential"``, the default, or ``"level"`` (a counterfactual).
    diffq_select: str = "differential"

    @classmethod
    def make(cls, quick: bool, params: Mapping[str, Any] | None) -> Config:
        base = cls(seeds=3, duration=20.0) if quick else cls()
        config = apply_params(base, params)
        check_routing(NAME, config.routing, config.tc_redundancy)
        check_driver(NAME, config.driver_buffer, config.link_loss)
        check_fading(NAME, config.fading)
        if config.source_queue not in SOURCE_QUEUES:
            raise ValueError(
                f"{NAME}: source_queue must be one of {', '.join(SOURCE_QUEUES)}, got "
                f"{config.source_queue!r}; e.g. --param source_queue=first_relay"
            )
        check_select(NAME, config.diffq_select)
        return config


def run(
    *,
    quick: bool,
    out: Path,
    workers: int | None,
    serial: bool,
    progress: bool,
    params: Mapping[str, Any] | None = None,
    client: Any = None,
) -> ReproductionResult:
    config = Config.make(quick, params)
    seeds = list(range(1, config.seeds + 1))
    with Runner(out, workers=workers, serial=serial, progress=progress, client=client) as runner:
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
                diffq_d=config.diffq_d,
                queue_threshold=config.queue_threshold,
                rate_update=config.rate_update,
                retry_limit=config.retry_limit,
                routing=config.routing,
                tc_redundancy=config.tc_redundancy,
                driver_buffer=config.driver_buffer,
                link_loss=config.link_loss,
                fading=config.fading,
                select=config.diffq_select,
            )
            base["diffq"].update(switches)
            if config.source_queue != "own":
                base["diffq"]["source_queue"] = config.source_queue
            frames.append(runner.sweep(variant, base, seeds=seeds))
        flows = pd.concat(frames, ignore_index=True)
        summary = runner.table(flows, "summary")
        flow_drops = runner.table(flows, "flow_drops")
        routes = runner.table(flows, "routes")

    by_hops, longest_share, relay_drops, source_drops = _attribute(flows, flow_drops, routes)
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
        seeds_here = sorted(s["seed"])
        rows.append(
            row(
                f"{variant}: queue drops at intermediate nodes per run, {span} "
                f"(Fig. 15, 120 s{bound})",
                [relay_drops[(variant, seed)] for seed in seeds_here],
                paper=paper,
            )
        )
        rows.append(
            row(
                f"{variant}: queue drops at the packet's own source per run",
                [source_drops[(variant, seed)] for seed in seeds_here],
            )
        )
        rows.append(
            row(
                f"{variant}: queue drops per run, all nodes",
                list(s.get("drops.queue_overflow", pd.Series(dtype=float))),
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
                f"{variant}: intermediate-node queue drops of 1-2-hop flows per run"
                + (" (section 6.4: 0 for RC only)" if variant == "RC only" else ""),
                short,
                paper=0.0 if variant == "RC only" else None,
            )
        )
        rows.append(
            row(
                f"{variant}: share of intermediate-node queue drops on the longest flow"
                + (" (section 6.4: 70% on the 8-hop path)" if variant == "full DiffQ" else ""),
                [longest_share[(variant, seed)] for seed in sorted(s["seed"])],
                paper=0.7 if variant == "full DiffQ" else None,
                high=1.0,
            )
        )
    full_seeds = set(summary[summary["scheme"] == "full DiffQ"]["seed"])
    rc_seeds = set(summary[summary["scheme"] == "RC only"]["seed"])
    common = sorted(full_seeds & rc_seeds)
    if common:
        ratio, lo, hi = bootstrap_ratio(
            [relay_drops[("full DiffQ", k)] for k in common],
            [relay_drops[("RC only", k)] for k in common],
        )
        rows.append(
            Row(
                "intermediate-node queue drops ratio full DiffQ / RC only "
                "(Fig. 15: ~2,500 / > 70,000)",
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
        "Intermediate-node drops: queue overflows of packets at a node other than their "
        "source (the flow_drops table records each drop's flow and whether the node "
        "created the packet). Drops by path length: each drop counts for the flow whose "
        "packet it was; path lengths are the static shortest routes of each run's routes "
        "table "
        + (
            "(static routing's own)."
            if config.routing == "static"
            else "(OLSR-ETX's paths are at least as long and change during a run)."
        ),
        "DiffQ queues: destination queues of D = 40 packets and a node buffer that never "
        "binds (the paper's Forwarder Algorithm limits destination queues only).",
        *(
            [
                f"Driver: {config.driver_buffer} frame(s) held by the MAC behind DiffQ's "
                f"queues; links: frame erasure probability {config.link_loss:g} on every "
                "pair (a counterfactual: the default is one frame, loss-free)."
            ]
            if (config.driver_buffer, config.link_loss) != (DRIVER_BUFFER_FRAMES, 0.0)
            else []
        ),
        *(
            [f"Radio: {config.fading} fading (a counterfactual: the default is none)."]
            if config.fading != "none"
            else []
        ),
    ]
    return ReproductionResult(
        name=NAME,
        rows=rows,
        figures=figures,
        notes=notes,
        params={"quick": quick, **as_params(config)},
        out=out,
    )


def _attribute(
    flows: pd.DataFrame, flow_drops: pd.DataFrame, routes: pd.DataFrame
) -> tuple[
    dict[tuple[str, int], dict[int, float]],
    dict[tuple[str, int], float],
    dict[tuple[str, int], float],
    dict[tuple[str, int], float],
]:
    """Per (variant, seed): intermediate-node queue drops by the path length of the flow
    whose packet was dropped; the longest flow's share of them; their total; and the
    queue drops at the packets' own sources."""
    by_hops: dict[tuple[str, int], dict[int, float]] = defaultdict(lambda: defaultdict(float))
    longest_share: dict[tuple[str, int], float] = {}
    relay: dict[tuple[str, int], float] = {}
    source: dict[tuple[str, int], float] = {}
    fd = flow_drops
    qd = fd[fd["reason"] == "queue_overflow"] if "reason" in fd else fd.iloc[0:0]
    for run_id, fl in flows.groupby("run_id", sort=True):
        key = (str(fl["scheme"].iloc[0]), int(fl["seed"].iloc[0]))
        path_hops = flow_hops(routes[routes["run_id"] == run_id])
        # -1 for a flow without a path (it delivers nothing and is dropped nowhere).
        hops = {int(fid): path_hops.get((str(run_id), int(fid)), -1) for fid in fl["id"]}
        mine = qd[qd["run_id"] == run_id]
        at_relay = mine[mine["at_origin"] == 0]
        per_flow = {int(f): float(p) for f, p in at_relay.groupby("flow")["packets"].sum().items()}
        relay[key] = float(at_relay["packets"].sum())
        source[key] = float(mine[mine["at_origin"] != 0]["packets"].sum())
        bucket = by_hops[key]
        for fid, h in hops.items():
            bucket[h] += per_flow.get(fid, 0.0)
        total = sum(per_flow.values())
        longest = max(hops, key=lambda f: (hops[f], per_flow.get(f, 0.0)))
        longest_share[key] = per_flow.get(longest, 0.0) / total if total > 0 else 0.0
    return by_hops, longest_share, relay, source


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
        title=f"{NAME}: intermediate-node queue drops by flow path length per run "
        "(Fig. 15; mean, 95% CI)",
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


def _ab(metric: str) -> Ref:
    return Ref(NAME, metric)


def _relay_drops(variant: str) -> Ref:
    bound = " (> 70,000)" if variant != "full DiffQ" else " (~2,500)"
    return _ab(
        f"{variant}: queue drops at intermediate nodes per run, 120 s (Fig. 15, 120 s{bound})"
    )


#: Section 6.4, Fig. 15: one scenario of 16 flows in the paper, a mean over scenarios
#: here. "About" is a 20% tolerance.
CLAIMS = [
    Claim(
        id="000-fig15-full-drops-2500",
        paper="000",
        where="Sec. 6.4, Fig. 15",
        statement="DiffQ-UDP incurred only about 2500 queue drops over a 2 minute experiment",
        metric="full DiffQ: queue drops at intermediate nodes per 120 s run",
        paper_value=2500.0,
        measure=_relay_drops("full DiffQ"),
        rule=ValueInCI(rel=0.2),
    ),
    *[
        Claim(
            id=f"000-fig15-{key}-drops-70000",
            paper="000",
            where="Sec. 6.4, Fig. 15",
            statement="both variants of DiffQ-UDP suffer more than 70,000 queue drops over "
            "the same period",
            metric=f"{variant}: queue drops at intermediate nodes per 120 s run",
            measure=_relay_drops(variant),
            rule=Direction("greater", 70000.0),
        )
        for key, variant in (("rc", "RC only"), ("rcsched", "RC + scheduling"))
    ],
    Claim(
        id="000-fig15-full-fewer-drops",
        paper="000",
        where="Sec. 6.4, Fig. 15",
        statement="only about 2500 queue drops [full DiffQ] ... both variants more than 70,000",
        metric="intermediate-node queue drops ratio full DiffQ / RC only",
        measure=_ab(
            "intermediate-node queue drops ratio full DiffQ / RC only (Fig. 15: ~2,500 / > 70,000)"
        ),
        rule=Direction("less", 1.0),
    ),
    Claim(
        id="000-s64-longest-70pct",
        paper="000",
        where="Sec. 6.4",
        statement="70% of which [the queue drops] occurred along nodes on the 8-hop path",
        metric="full DiffQ: share of intermediate-node queue drops on the longest flow",
        paper_value=0.7,
        measure=_ab(
            "full DiffQ: share of intermediate-node queue drops on the longest flow "
            "(section 6.4: 70% on the 8-hop path)"
        ),
        rule=ValueInCI(),
    ),
    Claim(
        id="000-s64-rc-short-flows-zero",
        paper="000",
        where="Sec. 6.4",
        statement="source rate control alone is effective only for the 1-hop and 2-hop flows "
        "which incur 0 queue drops",
        metric="RC only: intermediate-node queue drops of 1-2-hop flows per run "
        "(informative: interval <= 100 drops)",
        paper_value=0.0,
        measure=_ab(
            "RC only: intermediate-node queue drops of 1-2-hop flows per run "
            "(section 6.4: 0 for RC only)"
        ),
        rule=ValueInCI(max_width=100.0),
    ),
    Claim(
        id="000-s64-rcsched-below-rc",
        paper="000",
        where="Sec. 6.4, Fig. 15",
        statement="the large number of queue drops observed for DiffQ-UDP RC + Scheduling, "
        "albeit somewhat lower than DiffQ-UDP RC",
        metric="intermediate-node queue drops per run, RC + scheduling vs RC only",
        measure=_relay_drops("RC + scheduling"),
        rule=Direction("less", _relay_drops("RC only")),
    ),
    Claim(
        id="000-fig15-logutil",
        paper="000",
        where="Sec. 6.4, Fig. 15",
        statement="MAC prioritization is key ... This is reflected in the log utilities for "
        "this experiment",
        metric="log utility, full DiffQ vs RC only",
        measure=_ab("full DiffQ: log utility (Fig. 15)"),
        rule=Direction("greater", _ab("RC only: log utility (Fig. 15)")),
    ),
]
