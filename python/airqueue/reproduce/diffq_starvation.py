"""``diffq-starvation``: the three-flow scenario of seed 000, Fig. 2 (TCP) and Fig. 10
(DiffQ-TCP).

Geometry (explicit positions, metres; 250 m decode range, 550 m carrier sense), with
the paper's node names::

            F (200, 564)
            |  flow 2: E -> F, one hop, joins at 45 s
            E (200, 364)
            :  (A, B, C and D sense E, none decodes it)
    A ----- B ----- C ----- D      flow 1: A -> D, three hops, starts first
  (0, 0) (200, 0)       (600, 0)
            :
            G (200, -364)
            |  flow 3: G -> H, one hop, joins at 70 s
            H (200, -564)

Fig. 2 is a testbed run and the paper does not draw its positions; it states who
interferes with whom and where the congestion builds, and the geometry is built from
those statements (section 2):

1. flow 1 is over three hops (caption) and "the channel accesses of node B interfere
   with those of four other nodes, A, C, E and G": flow 1 is A -> B -> C -> D, the
   one-hop senders are E and G, and both are within B's carrier-sense range;
2. "the second and third flows get interference from only the first flow": E and G do
   not sense each other;
3. flows 2 and 3 see no losses "because their destinations are not under any
   interference": F and H sense only their own flow's sender;
4. flow 1 "gets less channel accesses especially at node B ... This causes congestion
   at node B", and under DiffQ "the destination queue of node B will increase"
   (section 4.1): flow 1 is held back by losing the contention for the channel, and A's
   frames reach B and queue there. So every node of flow 1 that contends with B senses
   E and G too: none of flow 1's senders is hidden from them.

With a 200 m chain and 550 m carrier sense, E (and G) at distance ``y`` from B
perpendicular to the chain meets 2 for ``y > 275``, 3 for ``y > 550 - 200 = 350`` and 4
for ``y <= sqrt(550^2 - 400^2) = 377.5`` (D, 400 m along the chain from B, is the
farthest node of flow 1 that B senses); ``sender_offset`` defaults to the middle of
(350, 377.5], 363.7 m, and the receivers sit one ``spacing`` further out. B also senses
D, which statement 1 does not list (B-C and C-D are within 250 m, so B-D is within
500 m). This is the flow-in-the-middle layout: flow 1's nodes contend with two senders
that do not contend with each other.

Earlier layouts stay a parameter away. Before this version E and G stood 531 m from B
(``--param sender_offset=531``), where B senses them and A and C do not: statement 4 was
read as "A and C do not sense E and G", and under the 802.11b capture model
(``[radio] late_capture = "preamble"``) A's and C's frames then start during E's and
G's and die at B, so B's queue stays short, against statement 4. Before that E and G
stood 200 m from B (``--param sender_offset=200``), where they sense each other and B
senses F and H. ``hops`` (default 3, the caption's) lengthens flow 1 along the chain
(``--param hops=4`` with ``sender_offset=200`` is the layout before that). Fig. 10 runs
the same three flows on the testbed (flow 1 five hops, flow 2 two).

``beside`` names the relays E and G sit beside (chain index, A = 0; default ``[1, 1]``,
both beside B). Issue 25's layout, ``--param hops=4 --param beside=[1,3]``, puts them
beside the first and third relays of a 4-hop chain: it reads "the first flow does so
[gets interference] from the other two flows as well as its own flow being forwarded in
different nodes" as the two one-hop flows meeting flow 1 at different relays, as on the
testbed, where flows 2 and 3 join flow 1's path at different places (section 6.3). It
is not the default: the caption gives flow 1 three hops, and only B is named as where
flow 1 loses the channel and congests. It also breaks statement 4: G and A, and E and
flow 1's destination, stand 701 m apart, so each is hidden from a sender of flow 1
whose receiver hears it (docs/reproductions/diffq.md, "What in the layout decides the
long flow's share"). ``one_side`` puts G on E's side, where they sense each other
(a counterfactual, against statement 2). ``sender_offset``'s default band is the one
derived above for both beside B, whatever ``beside``.

Schemes: TCP-SACK (drop-tail interface queue of 199, MadWiFi's, DCF) and DiffQ-TCP
(TCP-SACK reliability with its congestion control off, paced by DiffQ's source rate
control; DiffQ destination queues of ``diffq_d`` = 40 packets without a binding
node-wide limit, source threshold ``queue_threshold`` = 10; EDCA with DiffQ's eight
levels; receive window ``max_window`` = 64 segments for both schemes; 11 transmit
attempts per frame, MadWiFi's at a fixed rate), every flow the same scheme. Delayed
ACKs are a parameter of the reproduction applied to both schemes alike: on by default
(Linux, the paper's testbed, acknowledges every other segment), and the reproduction
also reports them off.

Metrics, over the period when all three flows are active (third start to the end):
each flow's goodput, the long flow's share of the fair share (its goodput over a third
of the aggregate) and Jain's index, mean and 95% interval over seeds (seeds change only
the random draws of the MAC, the topology is fixed).
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pandas as pd

from airqueue.reproduce.claims import Claim, Direction, Ref
from airqueue.reproduce.diffq_single_path import (
    DIFFQ_D,
    MADWIFI_IFQ_PACKETS,
    MADWIFI_TX_ATTEMPTS,
    QUEUE_THRESHOLD,
    RATE_UPDATE,
    diffq_sections,
    mac_section,
)
from airqueue.reproduce.params import apply_params, as_params
from airqueue.reproduce.report import ReproductionResult, Row, row
from airqueue.reproduce.runs import Runner

NAME = "diffq-starvation"
SUMMARY = "Fig. 2 / Fig. 10: a 3-hop TCP flow starves beside two 1-hop flows; DiffQ-TCP shares"

SCHEMES = ("TCP-SACK", "DiffQ-TCP")

#: The radio's carrier-sense range (``radio.cs_range``'s default), metres.
CS_RANGE_M = 550.0


@dataclass(frozen=True)
class Config:
    """Parameters (``airqueue.reproduce(NAME, params={...})`` overrides any of them)."""

    seeds: int = 5
    duration: float = 120.0
    #: Hops of flow 1 along the chain (Fig. 2's caption: "one flow over three hops").
    hops: int = 3
    #: Start times of flows 1 (``hops`` hops), 2 and 3 (1 hop each), seconds.
    starts: tuple[float, float, float] = (1.0, 45.0, 70.0)
    #: Delayed-ACK settings to run; the first is the headline (Linux default: on).
    delayed_ack: tuple[bool, ...] = (True, False)
    spacing: float = 200.0
    #: Distance of the one-hop senders E and G from the relays they sit beside,
    #: perpendicular to the chain, metres; ``None``: the middle of
    #: :func:`sender_offset_band_m` (see the module's docstring). Their receivers sit
    #: ``spacing`` further out.
    sender_offset: float | None = None
    #: The relays of flow 1 (chain index, A = 0) that E and G sit beside, E on one side
    #: of the chain and G on the other. ``(1, 1)``: both beside B, section 2's "node B
    #: interfere[s] with ... A, C, E and G"; ``(1, 3)`` with ``hops=4``: beside the first
    #: and third relays (issue 25's layout, see the module's docstring).
    beside: tuple[int, int] = (1, 1)
    #: E and G on the same side of the chain (G mirrored onto E's side), so that they
    #: sense each other: a counterfactual against section 2's "the second and third
    #: flows get interference from only the first flow"; needs two different ``beside``.
    one_side: bool = False
    packet_size: int = 1400
    #: TCP-SACK's drop-tail interface queue, packets (MadWiFi's ``tx_queue_len``).
    queue_capacity: int = MADWIFI_IFQ_PACKETS
    #: Transmit attempts per data frame (``mac.short_retry_limit``; MadWiFi's).
    retry_limit: int = MADWIFI_TX_ATTEMPTS
    #: TCP timestamps (RFC 7323), on by default in Linux, the paper's testbed: RTT samples
    #: from every ACK and the Eifel undo of spurious timeouts (RFC 3522/4015).
    timestamps: bool = True
    #: TCP's receive window (``tcp.max_window``), segments; DiffQ-TCP is bound by it.
    max_window: int = 64
    diffq_d: int = DIFFQ_D
    queue_threshold: int = QUEUE_THRESHOLD
    #: DiffQ's rate-control clock, ``"interval"`` or ``"packet"`` (``RATE_UPDATE``).
    rate_update: str = RATE_UPDATE
    bin: float = 1.0
    extra: dict[str, Any] = field(default_factory=dict)

    @classmethod
    def make(cls, quick: bool, params: Mapping[str, Any] | None) -> Config:
        base = cls(seeds=3, duration=60.0, starts=(1.0, 10.0, 20.0)) if quick else cls()
        try:
            config = apply_params(base, params)
        except ValueError as e:
            raise ValueError(f"{NAME}: {e}") from None
        if config.hops < 2:
            raise ValueError(
                f"{NAME}: parameter hops must be at least 2 (flow 1 crosses the relay B "
                f"that flows 2 and 3 sit beside), got {config.hops}; e.g. --param hops=3"
            )
        beside = config.beside
        if len(beside) != 2 or not all(
            isinstance(i, int) and not isinstance(i, bool) and 1 <= i < config.hops for i in beside
        ):
            raise ValueError(
                f"{NAME}: parameter beside must be two relays of flow 1 (chain indices "
                f"1 to hops - 1 = {config.hops - 1}, A = 0), got {list(beside)!r}; "
                f"e.g. --param beside=[1,1] or, with --param hops=4, --param beside=[1,3]"
            )
        if config.one_side and beside[0] == beside[1]:
            raise ValueError(
                f"{NAME}: parameter one_side puts E and G on the same side of the chain, "
                f"so they must sit beside different relays, got beside={list(beside)!r}; "
                f"e.g. --param one_side=true --param beside=[1,2]"
            )
        offset = config.sender_offset
        if offset is not None and (
            isinstance(offset, bool) or not isinstance(offset, (int, float)) or not offset > 0
        ):
            raise ValueError(
                f"{NAME}: parameter sender_offset must be a distance in metres > 0, got "
                f"{offset!r}; e.g. --param sender_offset=531"
            )
        return config


def sender_offset_band_m(config: Config) -> tuple[float, float]:
    """The offsets of E and G from B (perpendicular to the chain) that meet section 2's
    statements (module docstring): above ``max(cs - spacing, cs / 2)`` (F and H out of
    B's range, E and G out of each other's) and at most ``sqrt(cs^2 - dx^2)``, where
    ``dx`` is the distance along the chain from B to the farthest node of flow 1 that B
    senses (so every node of flow 1 that contends with B also senses E and G)."""
    s = config.spacing
    lower = max(CS_RANGE_M - s, CS_RANGE_M / 2.0)
    hops_within_cs = math.floor(CS_RANGE_M / s)
    dx = min(config.hops - 1, hops_within_cs) * s
    upper = math.sqrt(max(CS_RANGE_M**2 - dx**2, 0.0))
    return lower, upper


def sender_offset_m(config: Config) -> float:
    """How far E and G sit from B: ``config.sender_offset`` or the middle of
    :func:`sender_offset_band_m`."""
    if config.sender_offset is not None:
        return float(config.sender_offset)
    lower, upper = sender_offset_band_m(config)
    if not lower < upper:
        raise ValueError(
            f"{NAME}: with spacing {config.spacing:g} m no offset of E and G from B meets "
            f"section 2's statements (band {lower:.1f}-{upper:.1f} m); give one with "
            f"--param sender_offset=METRES"
        )
    return (lower + upper) / 2.0


def positions_m(config: Config) -> list[list[float]]:
    """The chain A, B, C, D, ... (``hops + 1`` nodes), then E, F beside relay
    ``beside[0]`` on one side and G, H beside relay ``beside[1]`` on the other (on the
    same side with ``one_side``)."""
    s = config.spacing
    y = sender_offset_m(config)
    chain = [[i * s, 0.0] for i in range(config.hops + 1)]
    xe, xg = (i * s for i in config.beside)
    side_g = 1.0 if config.one_side else -1.0
    return chain + [[xe, y], [xe, y + s], [xg, side_g * y], [xg, side_g * (y + s)]]


def node_names(config: Config) -> list[str]:
    """The paper's names: the chain A, B, C, ... then E, F, G, H."""
    chain = [chr(ord("A") + i) for i in range(config.hops + 1)]
    if config.hops >= 4:  # past D the paper's letters are taken: nodes by index
        chain = chain[:4] + [f"node {i}" for i in range(4, config.hops + 1)]
    return chain + ["E", "F", "G", "H"]


def _beside_words(config: Config) -> str:
    """Where E and G sit, for the report: "relay B on either side", "relays B and D on
    either side" or "relays B and C on one side"."""
    names = node_names(config)
    e, g = (names[i] for i in config.beside)
    where = f"relay {e}" if e == g else f"relays {e} and {g}"
    return f"{where} on {'one side' if config.one_side else 'either side'}"


def who_senses(config: Config) -> str:
    """Who is within carrier-sense range of the one-hop flows' nodes, in words (for the
    report, so a changed ``sender_offset``, ``beside`` or ``extra`` radio ``cs_range``
    says what it did to section 2's statements)."""
    pos = positions_m(config)
    names = node_names(config)
    h = config.hops
    radio = config.extra.get("radio")
    cs_m = radio.get("cs_range", CS_RANGE_M) if isinstance(radio, Mapping) else CS_RANGE_M

    def sensed(n: int) -> str:
        near = [names[m] for m in range(len(pos)) if m != n and math.dist(pos[n], pos[m]) <= cs_m]
        return ", ".join(near) or "nobody"

    return (
        f"E senses {sensed(h + 1)}; F senses {sensed(h + 2)}; "
        f"G senses {sensed(h + 3)}; H senses {sensed(h + 4)} "
        f"({cs_m:g} m carrier sense)"
    )


def scenario(config: Config, scheme: str) -> dict[str, Any]:
    """The scenario of one scheme (delayed ACK as swept by the grid)."""
    h = config.hops
    positions = positions_m(config)
    t1, t2, t3 = config.starts
    diffq = scheme == "DiffQ-TCP"
    flows = [
        {"src": 0, "dst": h, "start": t1},
        {"src": h + 1, "dst": h + 2, "start": t2},
        {"src": h + 3, "dst": h + 4, "start": t3},
    ]
    for f in flows:
        f.update(kind="tcp", variant="sack", packet_size=config.packet_size)
        if diffq:
            f["cc"] = "diffq"
    sc: dict[str, Any] = {
        "name": f"{NAME}-{scheme.lower()}",
        "duration": config.duration,
        "seed": 1,
        "topology": {"kind": "explicit", "positions": positions},
        "radio": {"data_rate": 11e6},
        "mac": mac_section(diffq, config.retry_limit),
        "routing": {"kind": "static", "metric": "etx"},
        "queue": {"kind": "droptail", "capacity": config.queue_capacity},
        "tcp": {
            "delayed_ack": config.delayed_ack[0],
            "timestamps": config.timestamps,
            "max_window": config.max_window,
        },
        "flow": flows,
        "outputs": {"bin": config.bin},
    }
    if diffq:
        sc.update(
            diffq_sections(
                len(positions), config.diffq_d, config.queue_threshold, config.rate_update
            )
        )
    for key, value in config.extra.items():
        sc[key] = value
    return sc


def window_goodputs(timeseries: pd.DataFrame, start: float, end: float) -> pd.DataFrame:
    """Per (run, flow) goodput over [start, end] from the binned time series, bit/s."""
    ts = timeseries
    lo = ts["t_start_s"].clip(lower=start)
    hi = ts["t_end_s"].clip(upper=end)
    overlap = (hi - lo).clip(lower=0.0)
    width = ts["t_end_s"] - ts["t_start_s"]
    bits = ts["goodput_bps"] * width * (overlap / width.where(width > 0, 1.0))
    keys = [c for c in ("scheme", "run_id", "seed", "tcp.delayed_ack", "flow") if c in ts]
    out = ts.assign(_bits=bits).groupby(keys, sort=True)["_bits"].sum().reset_index()
    out["goodput_bps"] = out.pop("_bits") / (end - start)
    return out


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
    grid = {"tcp.delayed_ack": list(config.delayed_ack)}
    with Runner(out, workers=workers, serial=serial, progress=progress, client=client) as runner:
        frames = [runner.sweep(s, scenario(config, s), seeds=seeds, grid=grid) for s in SCHEMES]
        flows = pd.concat(frames, ignore_index=True)
        ts = runner.table(flows, "timeseries")
    t3, end = config.starts[2], config.duration
    win = window_goodputs(ts, t3, end)

    rows: list[Row] = []
    figures: list[Path] = []
    for delack in config.delayed_ack:
        tag = "delayed ACK on" if delack else "delayed ACK off"
        for scheme in SCHEMES:
            w = win[(win["scheme"] == scheme) & (win["tcp.delayed_ack"] == delack)]
            per_run = w.pivot_table(index="run_id", columns="flow", values="goodput_bps")
            fig_ref = "Fig. 2b" if scheme == "TCP-SACK" else "Fig. 10"
            for flow, what in (
                (0, f"flow 1 ({config.hops} hops)"),
                (1, "flow 2 (1 hop)"),
                (2, "flow 3 (1 hop)"),
            ):
                rows.append(
                    row(
                        f"{scheme}, {tag}: {what} goodput, all 3 active, kb/s ({fig_ref})",
                        list(per_run.get(flow, pd.Series(dtype=float))),
                        scale=1e3,
                    )
                )
            agg = per_run.sum(axis=1)
            share = per_run.get(0, 0.0) / (agg / 3.0)
            rows.append(
                row(f"{scheme}, {tag}: flow 1 share of fair share (aggregate/3)", list(share))
            )
            jain = agg**2 / (3 * (per_run**2).sum(axis=1))
            rows.append(row(f"{scheme}, {tag}: Jain's index, all 3 active", list(jain), high=1.0))
            rows.append(row(f"{scheme}, {tag}: aggregate goodput, kb/s", list(agg), scale=1e3))
        figures.append(_timeseries_figure(ts, config, delack, out))
    figures.append(_bars_figure(win, config, out))

    notes = [
        "Paper (Fig. 2b, TCP): flow 1 starves soon after the third flow joins; (Fig. 10, "
        "DiffQ-TCP): all three share the medium without starving. The paper gives these as "
        "plots, no numbers: the paper column is blank.",
        f"Window: t = {t3:g} s (third flow starts) to {end:g} s; flows start at "
        f"{', '.join(f'{t:g}' for t in config.starts)} s; {len(seeds)} seeds "
        f"({'quick' if quick else 'full'}).",
        f"Topology: {config.hops}-hop chain from A at {config.spacing:g} m spacing (Fig. 2: "
        f"three hops), 1-hop senders E and G {sender_offset_m(config):.0f} m from "
        f"{_beside_words(config)}, their receivers one spacing further out; "
        f"{who_senses(config)}.",
        "Delayed ACK applies to both schemes alike; 'on' is the Linux default of the "
        "paper's testbed.",
    ]
    return ReproductionResult(
        name=NAME,
        rows=rows,
        figures=figures,
        notes=notes,
        params={"quick": quick, **as_params(config), "seed_list": seeds},
        out=out,
    )


def _timeseries_figure(ts: pd.DataFrame, config: Config, delack: bool, out: Path) -> Path:
    from airqueue.reproduce.figures import save, timeseries_panels

    panels: dict[str, dict[str, tuple[list[float], list[float]]]] = {}
    sub = ts[ts["tcp.delayed_ack"] == delack]
    for scheme in SCHEMES:
        g = sub[sub["scheme"] == scheme]
        mean = g.groupby(["flow", "t_start_s", "t_end_s"], sort=True)["goodput_bps"].mean()
        series = {}
        for flow, f in mean.groupby(level="flow"):
            f = f.reset_index()
            mid = (f["t_start_s"] + f["t_end_s"]) / 2
            series[f"flow {int(flow) + 1}"] = (list(mid), list(f["goodput_bps"] / 1e3))
        label = "Fig. 2b" if scheme == "TCP-SACK" else "Fig. 10"
        panels[f"{scheme} ({label}), mean of {config.seeds} seeds"] = series
    marks = [(t, f"flow {i + 1} starts") for i, t in enumerate(config.starts)]
    tag = "on" if delack else "off"
    fig = timeseries_panels(
        panels, title=f"{NAME}: per-flow goodput over time (delayed ACK {tag})", marks=marks
    )
    suffix = "" if delack == config.delayed_ack[0] else f"-delack-{tag}"
    return save(fig, out / f"goodput-over-time{suffix}.png")


def _bars_figure(win: pd.DataFrame, config: Config, out: Path) -> Path:
    from airqueue.reproduce.figures import bars, save

    groups: dict[str, dict[str, list[float]]] = {}
    for delack in config.delayed_ack:
        for scheme in SCHEMES:
            w = win[(win["scheme"] == scheme) & (win["tcp.delayed_ack"] == delack)]
            key = f"{scheme}\ndelayed ACK {'on' if delack else 'off'}"
            groups[key] = {
                f"flow {int(f) + 1}": list(g["goodput_bps"] / 1e3)
                for f, g in w.groupby("flow", sort=True)
            }
    fig = bars(
        groups,
        title=f"{NAME}: goodput while all three flows are active (mean, 95% CI)",
        ylabel="goodput (kb/s)",
    )
    return save(fig, out / "window-goodput.png")


def _row(metric: str) -> Ref:
    return Ref(NAME, metric)


#: Section 2 / Fig. 2 and section 6.3 / Fig. 10 (delayed ACKs on: Linux's default, as on
#: the paper's testbed). "Starves": below a tenth of the fair share.
CLAIMS = [
    Claim(
        id="000-fig2-tcp-starves",
        paper="000",
        where="Sec. 2, Fig. 2",
        statement="the throughput of flow 1 quickly reduces to zero as flows 2 and 3 join",
        metric="TCP-SACK: the 3-hop flow's share of aggregate/3 while all 3 are active",
        measure=_row("TCP-SACK, delayed ACK on: flow 1 share of fair share (aggregate/3)"),
        rule=Direction("less", 0.1),
    ),
    Claim(
        id="000-fig10-no-starvation",
        paper="000",
        where="Sec. 6.3, Fig. 10",
        statement="even after all three flows have started, they co-exist ... without "
        "starving any one flow",
        metric="DiffQ-TCP: the 3-hop flow's share of aggregate/3 while all 3 are active",
        measure=_row("DiffQ-TCP, delayed ACK on: flow 1 share of fair share (aggregate/3)"),
        rule=Direction("greater", 0.1),
    ),
    Claim(
        id="000-fig10-fairer",
        paper="000",
        where="Sec. 6.3, Fig. 10 vs Fig. 2",
        statement="[the three flows] share the medium fairly (TCP: flow 1 starves)",
        metric="Jain's index of the 3 flows, DiffQ-TCP vs TCP-SACK",
        measure=_row("DiffQ-TCP, delayed ACK on: Jain's index, all 3 active"),
        rule=Direction("greater", _row("TCP-SACK, delayed ACK on: Jain's index, all 3 active")),
    ),
]
