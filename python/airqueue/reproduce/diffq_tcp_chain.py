"""``diffq-tcp-chain``: seed 000 Table 2, one TCP flow alone over 1 to 4 hops.

Table 2 of the paper reports the throughput of a single TCP flow over 1-, 2-, 3- and
4-hop paths of the testbed (4.25, 2.29, 1.45 and 1.25 Mb/s). It is the only absolute
throughput the paper gives, and so the calibration check of our 802.11b model against
the testbed that every other DiffQ reproduction rests on: the same radio (11 Mb/s,
no RTS/CTS), the same driver constants (MadWiFi's 11 transmit attempts and 199-packet
interface queue), the same TCP (SACK, delayed ACKs, timestamps, a 64-segment window)
and 1400-byte packets as ``diffq-single-path``.

Geometry: the 4-hop chain of ``diffq-starvation`` (five nodes 200 m apart, 250 m decode
range, 550 m carrier sense); the flow runs from the first node to the node ``h`` hops
away. The testbed's paths are routes through a building, not a straight chain, so the
shape (throughput against hop count) is the comparison, more than each number; the
ratios to the 1-hop throughput are rows of their own. DiffQ-TCP alone on the same
paths is reported beside it (the paper gives no number for it).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pandas as pd

from airqueue.reproduce.claims import Claim, Ref, ValueInCI
from airqueue.reproduce.diffq_single_path import (
    DIFFQ_D,
    MADWIFI_IFQ_PACKETS,
    MADWIFI_TX_ATTEMPTS,
    QUEUE_THRESHOLD,
    RATE_UPDATE,
    check_driver,
    diffq_sections,
    lossy_links,
    mac_section,
)
from airqueue.reproduce.params import apply_params, as_params
from airqueue.reproduce.report import ReproductionResult, Row, bootstrap_ratio, row
from airqueue.reproduce.runs import Runner

NAME = "diffq-tcp-chain"
SUMMARY = "Table 2: one TCP flow alone over 1-4 hops, the testbed's throughput (calibration)"

#: Table 2, TCP row: throughput in Mb/s by hop count.
TABLE2_MBPS = {1: 4.25, 2: 2.29, 3: 1.45, 4: 1.25}

SCHEMES = ("TCP-SACK", "DiffQ-TCP")


@dataclass(frozen=True)
class Config:
    """Parameters (``airqueue.reproduce(NAME, params={...})`` overrides any of them)."""

    seeds: int = 5
    duration: float = 60.0
    hops: tuple[int, ...] = (1, 2, 3, 4)
    spacing: float = 200.0
    packet_size: int = 1400
    queue_capacity: int = MADWIFI_IFQ_PACKETS
    retry_limit: int = MADWIFI_TX_ATTEMPTS
    delayed_ack: bool = True
    timestamps: bool = True
    max_window: int = 64
    diffq_d: int = DIFFQ_D
    queue_threshold: int = QUEUE_THRESHOLD
    #: DiffQ's rate-control clock, ``"interval"`` or ``"packet"`` (``RATE_UPDATE``).
    rate_update: str = RATE_UPDATE
    schemes: tuple[str, ...] = SCHEMES
    #: Frames the MAC holds behind the queue discipline (``diffq-single-path``'s option).
    driver_buffer: int = 1
    #: Frame erasure probability of every pair of nodes of the chain (``[[link]] loss``):
    #: 0 is loss-free; the calibration against Table 2 scans it (diffq.md, "Link loss").
    link_loss: float = 0.0

    @classmethod
    def make(cls, quick: bool, params: Mapping[str, Any] | None) -> Config:
        base = cls(seeds=3, duration=20.0) if quick else cls()
        try:
            config: Config = apply_params(base, params)
        except ValueError as e:
            raise ValueError(f"{NAME}: {e}") from None
        bad = [h for h in config.hops if not isinstance(h, int) or isinstance(h, bool) or h < 1]
        if bad or not config.hops:
            raise ValueError(
                f"{NAME}: parameter hops: expected a non-empty list of integers >= 1, "
                f"got {list(config.hops)!r}"
            )
        unknown = [s for s in config.schemes if s not in SCHEMES]
        if unknown:
            raise ValueError(f"{NAME}: unknown scheme(s) {unknown}; known: {list(SCHEMES)}")
        check_driver(NAME, config.driver_buffer, config.link_loss)
        return config


def scenario(config: Config, scheme: str, hops: int) -> dict[str, Any]:
    """One flow over ``hops`` hops of a straight chain."""
    diffq = scheme == "DiffQ-TCP"
    flow: dict[str, Any] = {
        "kind": "tcp",
        "variant": "sack",
        "src": 0,
        "dst": hops,
        "start": 1.0,
        "packet_size": config.packet_size,
    }
    if diffq:
        flow["cc"] = "diffq"
    sc: dict[str, Any] = {
        "name": f"{NAME}-{scheme.lower()}-{hops}hop",
        "duration": config.duration,
        "seed": 1,
        "topology": {"kind": "chain", "nodes": hops + 1, "spacing": config.spacing},
        "radio": {"data_rate": 11e6},
        "mac": mac_section(diffq, config.retry_limit, config.driver_buffer),
        "routing": {"kind": "static", "metric": "etx"},
        "queue": {"kind": "droptail", "capacity": config.queue_capacity},
        "tcp": {
            "delayed_ack": config.delayed_ack,
            "timestamps": config.timestamps,
            "max_window": config.max_window,
        },
        "flow": [flow],
    }
    if config.link_loss:
        sc["link"] = lossy_links(hops + 1, config.link_loss)
    if diffq:
        sc.update(
            diffq_sections(hops + 1, config.diffq_d, config.queue_threshold, config.rate_update)
        )
    return sc


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
        for scheme in config.schemes:
            for h in config.hops:
                df = runner.sweep(scheme, scenario(config, scheme, h), seeds=seeds)
                frames.append(df.assign(hops=h))
        flows = pd.concat(frames, ignore_index=True)

    rows: list[Row] = []
    goodput: dict[tuple[str, int], list[float]] = {}
    for (scheme, h), g in flows.groupby(["scheme", "hops"], sort=True):
        goodput[(str(scheme), int(h))] = list(g.sort_values("seed")["goodput_bps"] / 1e6)
    for scheme in config.schemes:
        for h in config.hops:
            paper = TABLE2_MBPS.get(h) if scheme == "TCP-SACK" else None
            rows.append(
                row(
                    f"{scheme}, {h} hop{'s' if h > 1 else ''}: goodput, Mb/s (Table 2)",
                    goodput[(scheme, h)],
                    paper=paper,
                )
            )
        if 1 in config.hops:
            base = goodput[(scheme, 1)]
            for h in config.hops:
                if h == 1:
                    continue
                paper = (
                    TABLE2_MBPS[h] / TABLE2_MBPS[1]
                    if scheme == "TCP-SACK" and h in TABLE2_MBPS
                    else None
                )
                est, lo, hi = bootstrap_ratio(goodput[(scheme, h)], base)
                rows.append(
                    Row(
                        f"{scheme}: goodput over {h} hops / over 1 hop (Table 2)",
                        paper,
                        est,
                        lo,
                        hi,
                    )
                )
    figures = [_figure(goodput, config, out)]
    notes = [
        "Paper (section 6.1, Table 2): TCP over 1-4 hop testbed paths, 4.25 / 2.29 / "
        "1.45 / 1.25 Mb/s; MORE's row is reproduced by diffq-more.",
        f"Chain of {max(config.hops) + 1} nodes at {config.spacing:g} m (250 m decode, "
        "550 m carrier sense), one flow from the first node, 11 Mb/s 802.11b without "
        f"RTS/CTS, {config.retry_limit} transmit attempts, drop-tail interface queue of "
        f"{config.queue_capacity}, {config.packet_size}-byte packets, delayed ACKs "
        f"{'on' if config.delayed_ack else 'off'}, window {config.max_window}; "
        f"{len(seeds)} seeds of {config.duration:g} s ({'quick' if quick else 'full'}); "
        f"{config.driver_buffer} frame(s) held by the MAC, frame erasure probability "
        f"{config.link_loss:g} on every link.",
        "The testbed's paths run through a building (walls, floors, links of unequal "
        "quality), ours along a straight loss-free chain: compare the fall with hop count "
        "(the ratio rows) more than each absolute number.",
    ]
    return ReproductionResult(
        name=NAME,
        rows=rows,
        figures=figures,
        notes=notes,
        params={"quick": quick, **as_params(config), "seed_list": seeds},
        out=out,
    )


def _figure(goodput: dict[tuple[str, int], list[float]], config: Config, out: Path) -> Path:
    from airqueue.reproduce.figures import lines_with_ci, save

    series: dict[str, dict[Any, list[float]]] = {
        scheme: {h: goodput[(scheme, h)] for h in config.hops} for scheme in config.schemes
    }
    series["paper, TCP (Table 2)"] = {h: [v] for h, v in TABLE2_MBPS.items() if h in config.hops}
    fig = lines_with_ci(
        {"goodput, Mb/s": series},
        title=f"{NAME}: one TCP flow alone against hop count",
        xlabel="hops",
    )
    return save(fig, out / "goodput-by-hops.png")


#: Table 2, TCP row: the testbed's throughput of one TCP flow over 1-4 hops.
CLAIMS = [
    Claim(
        id=f"000-tab2-tcp-{h}hop",
        paper="000",
        where="Sec. 6.1, Table 2",
        statement=f"TCP (Mbps), {h}-hop: {mbps:g}",
        metric=f"TCP-SACK alone over {h} hop{'s' if h > 1 else ''}: goodput, Mb/s",
        paper_value=mbps,
        measure=Ref(NAME, f"TCP-SACK, {h} hop{'s' if h > 1 else ''}: goodput, Mb/s (Table 2)"),
        rule=ValueInCI(),
    )
    for h, mbps in TABLE2_MBPS.items()
]
