"""``bp-tcp-aware``: seed 002's headline result, TCP-aware backpressure keeps both TCP
flows of one source alive where classical backpressure starves the longer one.

Scenario (seed 002, section 5 and Figs. 5-7; the text loses Fig. 5's pictures)::

    tree (our reading, as crates/scenario/tests/backpressure_scenario.rs)
      B(1) -- A(0) -- C(2) -- D(3)        200 m apart on a line

    diamond (our reading)
                 B(1)
               /      \\
          A(0)          D(3)              A-B, A-C, B-D, C-D 212 m; A-D, B-C 300 m
               \\      /
                 C(2)

- Two FTP/TCP flows from A: flow 1 A -> B (one hop), flow 2 A -> D (two hops); flow 2
  starts 0.5 s after flow 1 (the paper: random starts in the first 5 s).
- 802.11b at 2 Mb/s (1 Mb/s control frames), two-ray ground, 250 m range, 1000-byte
  packets, 100-packet buffers, 200 s runs, 10 seeds, TCP-SACK and TCP-Vegas; links
  loss-free (Figs. 6 and 7).
- Schemes: drop-tail with static shortest-path routes (our stand-in for AODV), classical
  backpressure, TCP-aware backpressure.
- Network coding (section 4.1.3) at both ends of every TCP flow, under every scheme, as
  the paper ran them ("for fair comparison, we employ the network coding mechanism ...
  in the classical BP as well as in AODV"): ``[tcp] network_coding``, blocks of
  ``coding_block`` packets. ``--param network_coding=false`` runs plain TCP.

Metrics: per flow its goodput over the whole run (mean, Student-t 95% interval over
seeds), Jain's index of the two flows and the aggregate.

Loss sweep (Fig. 9): the diamond with TCP-SACK, link A-B losing a fraction ``p`` of the
frames in each direction, p = 0, 0.2, 0.3, 0.4, 0.5, to Rayleigh fading of that average
loss (section 5.1: "we simulated the two-ray path loss model and a Rayleigh fading
channel with average loss rates 0, 20, 30, 40, 50 percent"; ``[[link]] fading =
"rayleigh"``, ``link_fading``; ``"none"``: independent erasures); TCP-aware backpressure
against AODV (RFC 3561,
drop-tail queues), the paper's baseline. Rows per p: each flow's goodput, Jain's index,
and TCP-aware BP over AODV per flow (bootstrap ratio of means).

Non-TCP flow (Figs. 12-13): the diamond with TCP-SACK flow 1 A -> B and a non-TCP
flow 2 A -> D, a UDP source with always data to send. Schemes: TCP-aware and classical
backpressure with flow 2 paced by the flow control of eq. (5) (``cc = "backpressure"``,
``x = M / U``, ``M`` = ``log_weight``), AODV with flow 2 uncontrolled (saturating its
drop-tail queue, the paper's "uncontrolled non-TCP flows"), and, as an ablation the paper
does not run, TCP-aware backpressure with flow 2 uncontrolled. Fig. 12 is the loss-free
case; Fig. 13 sweeps the loss of link A-B (``nontcp_losses``) for TCP-aware BP with flow
control against AODV. Rows: each flow's goodput, the aggregate and Jain's index; the
paper only plots, so its column is blank. Two counterfactual parameters, defaults as
above: ``nontcp_sweep`` runs other schemes of ``NONTCP_SCHEMES`` over the losses too
(e.g. TCP-aware BP without flow control), and ``uncontrolled_rate_bps`` gives the
uncontrolled flow 2 a constant rate instead of always data to send (the paper names
no rate).

``--quick``: 2 seeds of 30 s, tree and TCP-SACK only, the sweeps at p = 0 and 0.5.
Deviations are in the notes of the result.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any, Protocol

import pandas as pd

from airqueue.reproduce.claims import Claim, Direction, Ratio, Ref, ValueInCI
from airqueue.reproduce.params import apply_params, as_params
from airqueue.reproduce.report import ReproductionResult, Row, bootstrap_ratio, row
from airqueue.reproduce.runs import Runner

NAME = "bp-tcp-aware"
SUMMARY = "Sec. 5, Figs. 6-7, 9, 12-13: TCP-aware BP vs classical BP and AODV, TCP and non-TCP"

TOPOLOGIES: dict[str, tuple[tuple[float, float], ...]] = {
    "tree": ((0.0, 0.0), (-200.0, 0.0), (200.0, 0.0), (400.0, 0.0)),
    "diamond": ((0.0, 0.0), (150.0, 150.0), (150.0, -150.0), (300.0, 0.0)),
}
SCHEMES = ("droptail", "classical", "tcp_aware")
_LABEL = {
    "droptail": "drop-tail, static routes",
    "classical": "classical BP",
    "tcp_aware": "TCP-aware BP",
}
VARIANT_LABEL = {"sack": "TCP-SACK", "vegas": "TCP-Vegas"}

#: (topology, variant, scheme) -> per-flow goodput (kb/s) the text states, and where.
_PAPER: dict[tuple[str, str, str], tuple[tuple[float, float], str]] = {
    ("tree", "sack", "tcp_aware"): ((205.76, 203.36), "Fig. 6a"),
    ("tree", "vegas", "tcp_aware"): ((469.36, 324.64), "Fig. 6c"),
}

#: Fig. 9's sweep: average loss of link A-B, and the two schemes it compares.
LOSSES = (0.0, 0.2, 0.3, 0.4, 0.5)
SWEEP_SCHEMES = ("aodv", "tcp_aware")
_SWEEP_LABEL = {"aodv": "AODV", "tcp_aware": "TCP-aware BP"}
#: Section 5's text on Fig. 9 at loss 0.5: Jain's index of TCP-aware BP 0.94 and of AODV
#: 0.98; TCP-aware BP's goodput over AODV's +10% (flow 1) and +40% (flow 2).
_SWEEP_PAPER_JAIN = {"tcp_aware": 0.94, "aodv": 0.98}
_SWEEP_PAPER_GAIN = (1.10, 1.40)

#: Figs. 12-13: scheme -> (queue scheme of ``scenario``, flow 2's ``cc``, label).
NONTCP_SCHEMES: dict[str, tuple[str, str, str]] = {
    "tcp_aware_fc": ("tcp_aware", "backpressure", "TCP-aware BP + flow control"),
    "classical_fc": ("classical", "backpressure", "classical BP + flow control"),
    "aodv_udp": ("aodv", "none", "AODV, uncontrolled UDP"),
    "tcp_aware_udp": ("tcp_aware", "none", "TCP-aware BP, uncontrolled UDP (ablation)"),
}
#: Fig. 13 compares these two over the loss of link A-B.
NONTCP_SWEEP = ("aodv_udp", "tcp_aware_fc")
#: M of eq. (5) for the flow-controlled runs, bit/s x packets: the scenario default
#: (section 4.3's eq. (6), see docs/scenario.md, ``[backpressure]``).
LOG_WEIGHT = 4e6


#: ``[queue] unknown_neighbour``'s values (docs/schemes/backpressure.md).
UNKNOWN_NEIGHBOUR = ("zero", "exclude", "k")


@dataclass(frozen=True)
class BackpressureParams:
    """The backpressure settings every seed-002 reproduction passes to ``[queue]``
    (``queue_section``), and how its lossy links lose frames (``lossy_link``); their
    readings are in docs/reproductions/backpressure.md."""

    #: How long an overheard queue report counts (the model's default).
    report_lifetime: float = 0.05
    #: Footnote 2's link estimates, "measured" (the paper) or "configured" (the
    #: configured loss and rate), over ``estimate_interval`` seconds (the paper's T,
    #: not given; the model's default).
    link_estimate: str = "measured"
    estimate_interval: float = 1.0
    #: What the measured estimates count as transmitted: "packets" (footnote 2's words;
    #: a packet fails when the MAC gives up on it) or "attempts" (every frame on the air).
    loss_count: str = "packets"
    #: Section 4.1.2's control packets of an idle node, seconds (0: off; the model's
    #: default, half of ``report_lifetime``).
    control_interval: float = 0.025
    #: When an idle node sends its control packets (4.1.2): "idle" (every
    #: ``control_interval`` while it sends no data; the model's default) or "changed"
    #: (only when a queue size differs from its last report).
    control_when: str = "idle"
    #: Footnote 5's rule: no packet goes to a neighbour whose reported queues fill its
    #: buffer (the model's default, true).
    avoid_overflow: bool = True
    #: What a neighbour's queue counts as in eq. (2) while no live report of it was heard
    #: (4.1.2): "zero" (the model's default), "exclude" (no candidate until it reports)
    #: or "k" (a queue of K); the routing next hop counts as empty until it reports.
    unknown_neighbour: str = "zero"
    #: How a lossy link loses its average loss p (``[[link]] fading``): "rayleigh"
    #: (section 5.1's "Rayleigh fading channel with average loss rates 0, 20, 30, 40, 50
    #: percent") or "none" (each frame erased independently with probability p).
    link_fading: str = "rayleigh"


@dataclass(frozen=True)
class Config(BackpressureParams):
    """Parameters (``airqueue.reproduce(NAME, params={...})`` overrides any of them)."""

    seeds: int = 10
    duration: float = 200.0
    topologies: tuple[str, ...] = ("tree", "diamond")
    variants: tuple[str, ...] = ("sack", "vegas")
    schemes: tuple[str, ...] = SCHEMES
    packet_size: int = 1000
    capacity: int = 100
    data_rate: float = 2e6
    basic_rate: float = 1e6
    #: Flow 2 starts this long after flow 1 (at 0 s).
    second_start: float = 0.5
    #: Fig. 9: loss probabilities of link A-B in the diamond (empty: no sweep).
    losses: tuple[float, ...] = LOSSES
    #: Figs. 12-13: run the non-TCP flow experiment.
    nontcp: bool = True
    #: Fig. 13: loss probabilities of link A-B (0 is Fig. 12's case).
    nontcp_losses: tuple[float, ...] = LOSSES
    #: The schemes of ``NONTCP_SCHEMES`` run at every loss of ``nontcp_losses`` (Fig. 13
    #: compares ``NONTCP_SWEEP``; the others are counterfactuals the paper does not run).
    nontcp_sweep: tuple[str, ...] = NONTCP_SWEEP
    #: Offered rate of the uncontrolled non-TCP flow (``cc = "none"``), bit/s; ``None``:
    #: always data to send (``"saturate"``). The paper gives no rate ("uncontrolled
    #: non-TCP flows (i.e., UDP flows) occupy buffers", section 5.2).
    uncontrolled_rate_bps: float | None = None
    #: M of eq. (5) (``[backpressure] log_weight``), bit/s x packets.
    log_weight: float = LOG_WEIGHT
    #: Section 4.1.3's network-coding layer on every TCP flow (``[tcp] network_coding``).
    network_coding: bool = True
    #: Packets per coding block, ``H`` (``[tcp] coding_block``); the paper sets it to
    #: TCP's average window, which it does not report.
    coding_block: int = 32
    extra: dict[str, Any] = field(default_factory=dict)

    @classmethod
    def make(cls, quick: bool, params: Mapping[str, Any] | None) -> Config:
        base = (
            cls(
                seeds=2,
                duration=30.0,
                topologies=("tree",),
                variants=("sack",),
                losses=(0.0, 0.5),
                nontcp_losses=(0.0, 0.5),
            )
            if quick
            else cls()
        )
        try:
            config = apply_params(base, params)
            config = replace(
                config,
                topologies=tuple(config.topologies),
                variants=tuple(config.variants),
                schemes=tuple(config.schemes),
                losses=tuple(config.losses),
                nontcp_losses=tuple(config.nontcp_losses),
                nontcp_sweep=tuple(config.nontcp_sweep),
            )
            _check(config)
        except ValueError as e:
            raise ValueError(f"{NAME}: {e}") from None
        return config


def _check(config: Config) -> None:
    problems = []
    bad = [t for t in config.topologies if t not in TOPOLOGIES]
    if bad or not config.topologies:
        problems.append(f"topologies {bad or '(none)'}: expected tree and/or diamond")
    bad = [v for v in config.variants if v not in VARIANT_LABEL]
    if bad or not config.variants:
        problems.append(f"variants {bad or '(none)'}: expected sack and/or vegas")
    bad = [s for s in config.schemes if s not in SCHEMES]
    if bad or not config.schemes:
        problems.append(f"schemes {bad or '(none)'}: expected {', '.join(SCHEMES)}")
    if config.seeds < 1:
        problems.append("seeds: at least 1")
    if not 0 <= config.second_start < config.duration:
        problems.append("second_start: within the run")
    bad = [
        p
        for p in config.losses
        if isinstance(p, bool) or not isinstance(p, (int, float)) or not 0 <= p < 1
    ]
    if bad:
        problems.append(f"losses {bad}: expected probabilities in [0, 1)")
    bad = [
        p
        for p in config.nontcp_losses
        if isinstance(p, bool) or not isinstance(p, (int, float)) or not 0 <= p < 1
    ]
    if bad:
        problems.append(f"nontcp_losses {bad}: expected probabilities in [0, 1)")
    if not isinstance(config.nontcp, bool):
        problems.append(f"nontcp {config.nontcp!r}: expected true or false")
    bad = [s for s in config.nontcp_sweep if s not in NONTCP_SCHEMES]
    if bad or not config.nontcp_sweep:
        problems.append(
            f"nontcp_sweep {bad or '(none)'}: expected some of {', '.join(NONTCP_SCHEMES)}"
        )
    r = config.uncontrolled_rate_bps
    if r is not None and (
        isinstance(r, bool) or not isinstance(r, (int, float)) or not 0 < r <= config.data_rate
    ):
        problems.append(
            f"uncontrolled_rate_bps {r!r}: expected bit/s in (0, data_rate = "
            f"{config.data_rate:g}], or null for a source with always data to send"
        )
    problems += coding_problems(config)
    problems += estimate_problems(config)
    w = config.log_weight
    if isinstance(w, bool) or not isinstance(w, (int, float)) or not 0 < w < float("inf"):
        problems.append(f"log_weight {w!r}: expected bit/s x packets > 0")
    if problems:
        raise ValueError("; ".join(problems))


def scenario(
    config: Config, topology: str, variant: str, scheme: str, loss: float = 0.0
) -> dict[str, Any]:
    """One run's scenario; flow ids 0 (A -> B) and 1 (A -> D). ``scheme`` is one of
    ``SCHEMES`` or ``"aodv"`` (drop-tail with AODV routes); link A-B loses ``loss`` of
    its frames in each direction (``lossy_link``)."""
    queue = queue_section(scheme, config)
    flows = [
        {
            "kind": "tcp",
            "variant": variant,
            "src": 0,
            "dst": dst,
            "packet_size": config.packet_size,
            "start": start,
        }
        for dst, start in ((1, 0.0), (3, config.second_start))
    ]
    sc: dict[str, Any] = {
        "name": f"{NAME}-{topology}-{variant}-{scheme}",
        "duration": config.duration,
        "seed": 1,
        "topology": {"kind": "explicit", "positions": [list(p) for p in TOPOLOGIES[topology]]},
        "radio": {"data_rate": config.data_rate, "basic_rate": config.basic_rate},
        "queue": queue,
        "tcp": tcp_section(config),
        "flow": flows,
    }
    if scheme == "aodv":
        sc["routing"] = {"kind": "aodv"}
        sc["name"] = f"{NAME}-{topology}-{variant}-aodv"
    if loss > 0:
        sc["link"] = [lossy_link(config, 0, 1, loss)]
        sc["name"] += f"-loss{loss:g}"
    for k, value in config.extra.items():
        sc[k] = value
    return sc


def lossy_link(config: BackpressureParams, a: int, b: int, loss: float) -> dict[str, Any]:
    """The ``[[link]]`` of a lossy pair: average loss ``loss`` both ways, by Rayleigh
    fading or independent erasures as ``config.link_fading`` says."""
    link: dict[str, Any] = {"a": a, "b": b, "loss": loss}
    if config.link_fading == "rayleigh":
        link["fading"] = "rayleigh"
    return link


def lossy_link_note(config: BackpressureParams) -> str:
    """How the lossy links lose their frames, for a reproduction's notes."""
    if config.link_fading == "rayleigh":
        return (
            "A lossy link with average loss p fades (section 5.1: 'a Rayleigh fading "
            "channel with average loss rates'): per frame, its power is exponential around "
            "the mean at which a frame alone on the air is lost with probability p "
            "(threshold / -ln(1 - p), docs/scenario.md [[link]]), in both directions; the "
            "paper gives no fading speed, so frames fade independently. The other links "
            "keep two-ray ground's power and do not fade."
        )
    return (
        "Lossy links erase each frame independently with probability p in both directions "
        "(link_fading = none), where the paper has Rayleigh fading with average loss p."
    )


class CodingParams(Protocol):
    """The two coding parameters a seed 002 reproduction's Config carries."""

    network_coding: bool
    coding_block: int


def coding_problems(config: CodingParams) -> list[str]:
    """What is wrong with ``network_coding`` and ``coding_block``, if anything."""
    problems = []
    if not isinstance(config.network_coding, bool):
        problems.append(f"network_coding {config.network_coding!r}: expected true or false")
    h = config.coding_block
    if isinstance(h, bool) or not isinstance(h, int) or not 1 <= h <= 1024:
        problems.append(f"coding_block {h!r}: expected an integer number of packets in 1..=1024")
    return problems


def estimate_problems(config: BackpressureParams) -> list[str]:
    """What is wrong with the backpressure keys ``link_estimate``, ``loss_count``,
    ``estimate_interval``, ``control_interval``, ``control_when``, ``avoid_overflow``,
    ``unknown_neighbour`` and ``link_fading``, if anything."""
    problems = []
    if config.link_estimate not in ("measured", "configured"):
        problems.append(
            f'link_estimate {config.link_estimate!r}: expected "measured" or "configured"'
        )
    if config.loss_count not in ("packets", "attempts"):
        problems.append(f'loss_count {config.loss_count!r}: expected "packets" or "attempts"')
    t = config.estimate_interval
    if isinstance(t, bool) or not isinstance(t, (int, float)) or not 0 < t <= 3600:
        problems.append(f"estimate_interval {t!r}: expected seconds in (0, 3600]")
    c = config.control_interval
    if isinstance(c, bool) or not isinstance(c, (int, float)) or not 0 <= c <= 3600:
        problems.append(f"control_interval {c!r}: expected seconds in [0, 3600] (0: off)")
    if config.control_when not in ("idle", "changed"):
        problems.append(f'control_when {config.control_when!r}: expected "idle" or "changed"')
    if not isinstance(config.avoid_overflow, bool):
        problems.append(f"avoid_overflow {config.avoid_overflow!r}: expected true or false")
    if config.unknown_neighbour not in UNKNOWN_NEIGHBOUR:
        problems.append(
            f"unknown_neighbour {config.unknown_neighbour!r}: expected one of "
            + ", ".join(f'"{u}"' for u in UNKNOWN_NEIGHBOUR)
        )
    if config.link_fading not in ("rayleigh", "none"):
        problems.append(
            f'link_fading {config.link_fading!r}: expected "rayleigh" (Rayleigh fading of '
            'the average loss) or "none" (independent erasures)'
        )
    return problems


def tcp_section(config: CodingParams) -> dict[str, Any]:
    """``[tcp]`` of every run: section 4.1.3's coding layer, or plain TCP."""
    if not config.network_coding:
        return {"network_coding": False}
    return {"network_coding": True, "coding_block": config.coding_block}


def coding_note(config: CodingParams) -> str:
    """What the runs do about section 4.1.3's network coding."""
    if not config.network_coding:
        return (
            "Deviation (network_coding=false): no network coding layer, where the paper "
            "applies it to every scheme; TCP sees the network's reordering and losses."
        )
    return (
        "Network coding (section 4.1.3) on every TCP flow under every scheme, as the paper "
        f"ran them: blocks of {config.coding_block} packets (the paper: TCP's average "
        "window, not reported), coded incrementally; the destination ACKs each packet with "
        "its decoding progress, which the source maps to TCP's ACK of that many segments "
        "(losses and reordering in the network are masked), and asks for repairs when a "
        "block misses packets for 0.2 s; drops in the source's own queue are shown to TCP "
        "(section 4.2.1). Field arithmetic is not carried out: with a large field every "
        "combination of new packets is innovative, so ranks are counted."
    )


def queue_section(scheme: str, config: Any) -> dict[str, Any]:
    """The ``[queue]`` of ``scheme``: drop-tail (``"droptail"``, ``"aodv"``) or seed 002's
    backpressure with that variant of eq. (2) (``"classical"``, ``"tcp_aware"``), its
    link estimates (footnote 2) and control packets (4.1.2) as ``config`` says."""
    if scheme in ("droptail", "aodv"):
        return {"kind": "droptail", "capacity": config.capacity}
    return (
        {
            "kind": "backpressure",
            "variant": scheme,
            "capacity": config.capacity,
            "report_lifetime": config.report_lifetime,
            "link_estimate": config.link_estimate,
            "estimate_interval": config.estimate_interval,
            "control_interval": config.control_interval,
            "unknown_neighbour": config.unknown_neighbour,
            "avoid_overflow": config.avoid_overflow,
        }
        | ({"loss_count": config.loss_count} if config.link_estimate == "measured" else {})
        | ({"control_when": config.control_when} if config.control_interval > 0 else {})
    )


def nontcp_scenario(config: Config, scheme: str, loss: float = 0.0) -> dict[str, Any]:
    """Figs. 12-13: the diamond, flow 1 TCP-SACK A -> B, flow 2 a saturating UDP source
    A -> D, paced by eq. (5) or uncontrolled as ``NONTCP_SCHEMES[scheme]`` says (an
    uncontrolled one offers ``config.uncontrolled_rate_bps`` when given)."""
    queue_scheme, cc, _ = NONTCP_SCHEMES[scheme]
    sc = scenario(config, "diamond", "sack", queue_scheme, loss=loss)
    tcp = sc["flow"][1]
    rate = config.uncontrolled_rate_bps
    sc["flow"][1] = {
        "kind": "udp",
        "rate": "saturate" if cc != "none" or rate is None else float(rate),
        "cc": cc,
        "src": tcp["src"],
        "dst": tcp["dst"],
        "packet_size": tcp["packet_size"],
        "start": tcp["start"],
    }
    if cc == "backpressure":
        sc["backpressure"] = {"log_weight": config.log_weight}
    sc["name"] = sc["name"].replace(f"-{queue_scheme}", f"-{scheme}", 1)
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
    cases = [(t, v, s) for t in config.topologies for v in config.variants for s in config.schemes]
    frames = []
    with Runner(out, workers=workers, serial=serial, progress=progress, client=client) as runner:
        for t, v, s in cases:
            frames.append(runner.sweep(f"{t}|{v}|{s}", scenario(config, t, v, s), seeds=seeds))
        flows = pd.concat(frames, ignore_index=True)
        goodputs = {case: per_flow(flows[flows["scheme"] == "|".join(case)]) for case in cases}

        sweep = _run_sweep(config, runner, seeds)
        nontcp, nontcp_ts = _run_nontcp(config, runner, seeds) if config.nontcp else ({}, None)

    rows: list[Row] = []
    for case in cases:
        rows += _rows(case, goodputs[case])
    rows += _sweep_rows(config, sweep)
    rows += _nontcp_rows(config, nontcp)
    figures = [_figure(config, cases, goodputs, out)]
    if sweep:
        figures.append(_sweep_figure(config, sweep, out))
    if nontcp_ts is not None:
        figures.append(_nontcp_time_figure(config, nontcp_ts, out))
        figures.append(_nontcp_loss_figure(config, nontcp, out))
    return ReproductionResult(
        name=NAME,
        rows=rows,
        figures=figures,
        notes=_notes(config, quick, seeds, goodputs)
        + _sweep_notes(sweep)
        + _nontcp_notes(config, nontcp),
        params={"quick": quick, **as_params(config), "seed_list": seeds},
        out=out,
    )


def _run_sweep(
    config: Config, runner: Runner, seeds: list[int]
) -> dict[tuple[str, float], pd.DataFrame]:
    """Fig. 9: (scheme, loss) -> per-flow goodput per seed, diamond, TCP-SACK."""
    out: dict[tuple[str, float], pd.DataFrame] = {}
    for p in config.losses:
        for s in SWEEP_SCHEMES:
            sc = scenario(config, "diamond", "sack", s, loss=float(p))
            out[(s, float(p))] = per_flow(runner.sweep(f"sweep|{s}|{p:g}", sc, seeds=seeds))
    return out


def _nontcp_cases(config: Config) -> list[tuple[str, float]]:
    """(scheme, loss) of the Figs. 12-13 runs: every scheme loss-free, those of
    ``nontcp_sweep`` (Fig. 13's two by default) at every other loss."""
    cases = [(s, 0.0) for s in NONTCP_SCHEMES]
    for p in config.nontcp_losses:
        if p > 0:
            cases += [(s, float(p)) for s in config.nontcp_sweep]
    return cases


def _run_nontcp(
    config: Config, runner: Runner, seeds: list[int]
) -> tuple[dict[tuple[str, float], pd.DataFrame], pd.DataFrame]:
    """Figs. 12-13: (scheme, loss) -> per-flow goodput per seed; and the loss-free runs'
    goodput time series (Fig. 12 plots throughput over time)."""
    out: dict[tuple[str, float], pd.DataFrame] = {}
    loss_free = []
    for s, p in _nontcp_cases(config):
        flows = runner.sweep(f"nontcp|{s}|{p:g}", nontcp_scenario(config, s, p), seeds=seeds)
        out[(s, p)] = per_flow(flows)
        if p == 0:
            loss_free.append(flows)
    ts = runner.table(pd.concat(loss_free, ignore_index=True), "timeseries")
    return out, ts


def _nontcp_label(scheme: str) -> str:
    return NONTCP_SCHEMES[scheme][2]


def _nontcp_block(head: str, g: pd.DataFrame) -> list[Row]:
    return [
        row(f"{head}: flow 1 (TCP, A->B) goodput, kb/s", list(g[0]), scale=1e3),
        row(f"{head}: flow 2 (non-TCP, A->D) goodput, kb/s", list(g[1]), scale=1e3),
        row(f"{head}: aggregate goodput, kb/s", list(g.sum(axis=1)), scale=1e3),
        row(f"{head}: Jain's index", list(jain(g)), high=1.0),
    ]


def _nontcp_rows(config: Config, nontcp: Mapping[tuple[str, float], pd.DataFrame]) -> list[Row]:
    """Fig. 12 (loss-free, every scheme), then Fig. 13 (per loss, TCP-aware BP with flow
    control and AODV; loss 0 repeats Fig. 12's runs). The paper only plots: no numbers."""
    if not nontcp:
        return []
    rows: list[Row] = []
    for s in NONTCP_SCHEMES:
        head = f"Fig. 12, diamond, TCP + non-TCP, no loss, {_nontcp_label(s)}"
        rows += _nontcp_block(head, nontcp[(s, 0.0)])
    for p in config.nontcp_losses:
        for s in config.nontcp_sweep:
            head = f"Fig. 13, diamond, TCP + non-TCP, loss {p:g} on A-B, {_nontcp_label(s)}"
            rows += _nontcp_block(head, nontcp[(s, float(p))])
    return rows


def _nontcp_time_figure(config: Config, ts: pd.DataFrame, out: Path) -> Path:
    """Fig. 12: per-flow goodput over time, mean over seeds, one panel per scheme."""
    from airqueue.reproduce.figures import save, timeseries_panels

    panels: dict[str, dict[str, tuple[list[float], list[float]]]] = {}
    for s in NONTCP_SCHEMES:
        g = ts[ts["scheme"] == f"nontcp|{s}|0"]
        mean = g.groupby(["flow", "t_start_s", "t_end_s"], sort=True)["goodput_bps"].mean()
        series = {}
        for flow, f in mean.groupby(level="flow"):
            f = f.reset_index()
            mid = (f["t_start_s"] + f["t_end_s"]) / 2
            what = "flow 1 (TCP)" if int(flow) == 0 else "flow 2 (non-TCP)"
            series[what] = (list(mid), list(f["goodput_bps"] / 1e3))
        panels[f"{_nontcp_label(s)}, mean of {config.seeds} seeds"] = series
    fig = timeseries_panels(
        panels, title=f"{NAME}: Fig. 12, diamond, TCP-SACK A->B and non-TCP A->D, no loss"
    )
    return save(fig, out / "nontcp-over-time.png")


def _nontcp_loss_figure(
    config: Config, nontcp: Mapping[tuple[str, float], pd.DataFrame], out: Path
) -> Path:
    """Fig. 13: each flow's goodput, the aggregate and Jain's index against the loss."""
    from airqueue.reproduce.figures import lines_with_ci, save

    def series(f: Any) -> dict[str, dict[Any, list[float]]]:
        return {
            _nontcp_label(s): {
                f"{p:g}": list(f(nontcp[(s, float(p))])) for p in config.nontcp_losses
            }
            for s in config.nontcp_sweep
        }

    panels = {
        "flow 1 (TCP), kb/s": series(lambda g: g[0] / 1e3),
        "flow 2 (non-TCP), kb/s": series(lambda g: g[1] / 1e3),
        "aggregate, kb/s": series(lambda g: g.sum(axis=1) / 1e3),
        "Jain's index": series(jain),
    }
    fig = lines_with_ci(
        panels,
        title=f"{NAME}: Fig. 13, diamond, TCP + non-TCP, against loss on A-B",
        xlabel="loss probability of link A-B",
    )
    return save(fig, out / "nontcp-loss.png")


def _nontcp_notes(config: Config, nontcp: Mapping[tuple[str, float], pd.DataFrame]) -> list[str]:
    if not nontcp:
        return []
    notes = [
        "Figs. 12-13: flow 2 is a UDP source with always data to send (the paper's "
        "'non-TCP flow'; its rate and packet size are not given: 1000 B like TCP). With "
        f"backpressure it is paced by eq. (5) with g = log: x = M / max(U, 1), M = "
        f"{config.log_weight:g} bit/s x packets, U its own per-flow queue at A, capped at "
        f"R_max = the data rate ({config.data_rate:g} b/s), floored at 10 kb/s, updated per "
        "packet sent. M is the scenario default, from eq. (6) (section 4.3): T ~ 0.5 s, "
        "q ~ 1% (TCP-SACK's RTT and retransmitted fraction in this diamond under TCP-aware "
        "BP) and beta = 0.5 give x ~ 40 packets/s; times a backlog U = 12 (a quarter of "
        "K = 50) gives 3.8e6, rounded to 4e6. It was not tuned against these results.",
        (
            "Figs. 12-13 deviations: AODV's flow 2 fills its drop-tail queue (100 packets) "
            "and is refilled as packets leave"
            if config.uncontrolled_rate_bps is None
            else "Counterfactual (uncontrolled_rate_bps): the uncontrolled flow 2 offers a "
            f"constant {config.uncontrolled_rate_bps:g} bit/s instead of always having data"
        )
        + "; the TCP-aware BP + uncontrolled UDP runs are an ablation the paper does not show"
        + (
            "."
            if config.nontcp_sweep == NONTCP_SWEEP
            else f"; over the losses run {', '.join(config.nontcp_sweep)} (Fig. 13 compares "
            f"{' and '.join(NONTCP_SWEEP)})."
        ),
        lossy_link_note(config),
    ]
    for s in NONTCP_SCHEMES:
        g = nontcp[(s, 0.0)]
        f1, f2 = g[0].mean() / 1e3, g[1].mean() / 1e3
        notes.append(
            f"Fig. 12, {_nontcp_label(s)}: TCP / non-TCP = {f1:.0f} / {f2:.0f} kb/s, Jain "
            f"{jain(g).mean():.2f}."
        )
    for p in config.nontcp_losses:
        if ("tcp_aware_fc", float(p)) not in nontcp or ("aodv_udp", float(p)) not in nontcp:
            continue
        bp, aodv = nontcp[("tcp_aware_fc", float(p))], nontcp[("aodv_udp", float(p))]
        notes.append(
            f"Fig. 13, loss {p:g}: aggregate TCP-aware BP + flow control "
            f"{bp.sum(axis=1).mean() / 1e3:.0f} kb/s (Jain {jain(bp).mean():.2f}), AODV "
            f"{aodv.sum(axis=1).mean() / 1e3:.0f} kb/s (Jain {jain(aodv).mean():.2f})."
        )
    classical = nontcp[("classical_fc", 0.0)]
    if classical[0].mean() > 0.1 * max(classical[1].mean(), 1.0):
        u = config.log_weight / max(classical[1].mean(), 1.0)
        notes.append(
            "Fig. 12: the paper's TCP flow does not survive classical BP; here it does. Our "
            "reading (shown by larger log_weight runs, docs/reproductions/backpressure.md): "
            "the flow control holds the UDP backlog at A near "
            f"M / x, about {u:.0f} packets at the rate it gets, and TCP-SACK's window (up "
            "to 64 segments) queues more than that at A, so U_i - U_j serves TCP too; the "
            "packets the paper sees trapped are those of a flow whose queue stays below "
            "its competitor's."
        )
    starved = sorted(
        p
        for (s, p), g in nontcp.items()
        if s == "tcp_aware_fc" and p > 0 and g[0].mean() < 0.05 * max(g[1].mean(), 1.0)
    )
    if starved:
        notes.append(
            "Fig. 13: TCP-aware BP with flow control starves the TCP flow at loss "
            f"{', '.join(f'{p:g}' for p in starved)}, where the paper finds it better than "
            "AODV at high loss; the UDP flow, no longer held back by a large backlog, "
            "takes the channel. The cause is the one of the Fig. 9 note: on the lossy "
            "link A-B the TCP flow's weight max(K, U_i) R (1 - p) loses to the UDP flow's "
            "(K - U_C) R towards C whenever U_C < K p; flow control bounds the UDP "
            "backlog, not its share of the scheduler."
        )
    return notes


def _sweep_rows(config: Config, sweep: Mapping[tuple[str, float], pd.DataFrame]) -> list[Row]:
    rows: list[Row] = []
    for p in config.losses:
        at_half = abs(p - 0.5) < 1e-12
        for s in SWEEP_SCHEMES:
            g = sweep[(s, float(p))]
            head = f"Fig. 9, diamond, TCP-SACK, loss {p:g} on A-B, {_SWEEP_LABEL[s]}"
            for i, what in ((0, "flow 1 (A->B)"), (1, "flow 2 (A->D)")):
                rows.append(row(f"{head}: {what} goodput, kb/s", list(g[i]), scale=1e3))
            rows.append(
                row(
                    f"{head}: Jain's index" + (" (Sec. 5 text at loss 0.5)" if at_half else ""),
                    list(jain(g)),
                    paper=_SWEEP_PAPER_JAIN[s] if at_half else None,
                    high=1.0,
                )
            )
        bp, aodv = sweep[("tcp_aware", float(p))], sweep[("aodv", float(p))]
        for i, what in ((0, "flow 1"), (1, "flow 2")):
            est, lo, hi = bootstrap_ratio(list(bp[i]), list(aodv[i]))
            rows.append(
                Row(
                    f"Fig. 9, loss {p:g}: {what} goodput, TCP-aware BP / AODV"
                    + (" (Sec. 5 text, as we read it at loss 0.5)" if at_half else ""),
                    _SWEEP_PAPER_GAIN[i] if at_half else None,
                    est,
                    lo,
                    hi,
                )
            )
    return rows


def _sweep_figure(
    config: Config, sweep: Mapping[tuple[str, float], pd.DataFrame], out: Path
) -> Path:
    from airqueue.reproduce.figures import lines_with_ci, save

    panels: dict[str, dict[str, dict[Any, list[float]]]] = {}
    for i, what in ((0, "flow 1 (A->B), kb/s"), (1, "flow 2 (A->D), kb/s")):
        panels[what] = {
            _SWEEP_LABEL[s]: {f"{p:g}": list(sweep[(s, float(p))][i] / 1e3) for p in config.losses}
            for s in SWEEP_SCHEMES
        }
    fig = lines_with_ci(
        panels,
        title=f"{NAME}: Fig. 9, diamond, TCP-SACK, goodput against loss on A-B",
        xlabel="loss probability of link A-B",
    )
    return save(fig, out / "loss-sweep.png")


def per_flow(flows: pd.DataFrame) -> pd.DataFrame:
    """Goodput (bit/s) per seed (index) and flow id (columns 0, 1)."""
    return flows.pivot_table(index="seed", columns="id", values="goodput_bps", aggfunc="sum")


def jain(g: pd.DataFrame) -> pd.Series:
    """Jain's index of the flows, per seed."""
    total = g.sum(axis=1)
    squares = (g**2).sum(axis=1)
    return (total**2 / (g.shape[1] * squares)).where(squares > 0).dropna()


def _head(case: tuple[str, str, str]) -> str:
    t, v, s = case
    return f"{t}, {VARIANT_LABEL[v]}, {_LABEL[s]}"


def _rows(case: tuple[str, str, str], g: pd.DataFrame) -> list[Row]:
    paper, ref = _PAPER.get(case, ((None, None), "no number in the paper"))
    head = _head(case)
    rows = [
        row(
            f"{head}: flow {i + 1} ({hops}) goodput, kb/s ({ref})",
            list(g[i]),
            paper=paper[i],
            scale=1e3,
        )
        for i, hops in ((0, "A->B, 1 hop"), (1, "A->D, 2 hops"))
    ]
    j_paper = None
    if paper[0] is not None:
        a, b = paper
        j_paper = round((a + b) ** 2 / (2 * (a * a + b * b)), 3)
    rows.append(
        row(
            f"{head}: Jain's index of the two flows ({ref})",
            list(jain(g)),
            paper=j_paper,
            high=1.0,
        )
    )
    rows.append(
        row(
            f"{head}: aggregate goodput, kb/s ({ref})",
            list(g.sum(axis=1)),
            paper=None if paper[0] is None else round(paper[0] + paper[1], 2),
            scale=1e3,
        )
    )
    return rows


def _figure(
    config: Config,
    cases: list[tuple[str, str, str]],
    goodputs: Mapping[tuple[str, str, str], pd.DataFrame],
    out: Path,
) -> Path:
    from airqueue.reproduce.figures import bars, save

    groups = {
        _head(case).replace(", ", ",\n"): {
            "flow 1 (A->B)": list(goodputs[case][0] / 1e3),
            "flow 2 (A->D)": list(goodputs[case][1] / 1e3),
        }
        for case in cases
    }
    fig = bars(
        groups,
        title=f"{NAME}: per-flow goodput, {config.duration:g} s runs "
        f"(mean of {config.seeds} seeds, 95% CI)",
        ylabel="goodput (kb/s)",
    )
    fig.autofmt_xdate(rotation=30, ha="right")
    return save(fig, out / "goodput.png")


def _sweep_notes(sweep: Mapping[tuple[str, float], pd.DataFrame]) -> list[str]:
    """What the Fig. 9 sweep shows where it departs from the paper."""
    starved = sorted(
        p
        for (s, p), g in sweep.items()
        if s == "tcp_aware"
        and p > 0
        and g[0].mean() < 0.05 * max(sweep[("aodv", p)][0].mean(), 1.0)
    )
    if not starved:
        return []
    return [
        "Fig. 9: TCP-aware BP starves flow 1 (A->B) at loss "
        f"{', '.join(f'{p:g}' for p in starved)}, where the paper keeps both flows "
        "(Jain 0.94 at 0.5). The weight as we implement it accounts for this (not "
        "instrumented): "
        "max(K, U_i) - U_j times R (1 - p), K = capacity / flows = 50; while queues "
        "stay below K, flow 1's weight on the lossy link is 50 R (1 - p) and flow 2's "
        "towards C is (50 - U_C) R, which wins whenever U_C < 50 p, and C drains fast "
        "to D. The loss-free case keeps both flows."
    ]


def _notes(
    config: Config,
    quick: bool,
    seeds: list[int],
    goodputs: Mapping[tuple[str, str, str], pd.DataFrame],
) -> list[str]:
    notes = [
        f"Topologies {', '.join(config.topologies)}; TCP {', '.join(config.variants)}; "
        f"{config.duration:g} s runs, {len(seeds)} seeds ({'quick' if quick else 'full'}); "
        f"{config.packet_size} B packets, {config.capacity}-packet buffers, "
        f"{config.data_rate / 1e6:g} Mb/s data, two-ray ground, 250 m range. Flow 1 "
        f"A -> B from 0 s, flow 2 A -> D from {config.second_start:g} s (the paper: random "
        "starts within 5 s). Goodput over the whole run.",
        "Fig. 5's pictures are lost in the text: the tree is B-A-C-D on a line, 200 m "
        "apart (as crates/scenario/tests/backpressure_scenario.rs); the diamond is A, B, C, "
        "D with B and C both 212 m from A and D, A-D and B-C out of range (300 m), so "
        "flow 2 has two 2-hop paths.",
        "Figs. 6-7's baseline is drop-tail with static shortest-path routes (ties to the "
        "lowest node id); the Fig. 9 sweep compares against AODV (RFC 3561, link-layer "
        "detection, drop-tail queues), the paper's baseline there.",
        "Fig. 9: " + lossy_link_note(config) + " "
        "The grid topology (Figs. 8, 10, 11) is the reproduction bp-grid"
        + ("." if config.nontcp else "; not run: the non-TCP flow (Figs. 12-13)."),
        coding_note(config),
        "The paper's numbers are stated only for the tree with TCP-aware BP (Fig. 6a, "
        "SACK: 205.76 / 203.36 kb/s; Fig. 6c, Vegas: 469.36 / 324.64 kb/s); its Jain and "
        "aggregate in the paper column are computed from those two goodputs. Fig. 7 "
        "(diamond) is 'similar', without numbers.",
    ]
    for case, g in goodputs.items():
        if case[2] == "tcp_aware" and len(g.columns) == 2:
            f1, f2 = g[0].mean() / 1e3, g[1].mean() / 1e3
            notes.append(
                f"{_head(case)}: flow 1 / flow 2 = {f1:.0f} / {f2:.0f} kb/s; the paper's "
                "near-even split is not met (the one-hop flow's queue at A outgrows the "
                "two-hop flow's and wins most slots; the buffer rarely overflows to push "
                "it back)."
                if f2 < 0.5 * f1
                else f"{_head(case)}: flow 1 / flow 2 = {f1:.0f} / {f2:.0f} kb/s."
            )
    return notes


def _bp(metric: str) -> Ref:
    return Ref(NAME, metric)


def _flow(topology: str, variant: str, scheme: str, i: int) -> Ref:
    """Flow ``i`` (0: A->B, 1: A->D) of a Figs. 6-7 run."""
    case = (topology, variant, scheme)
    _, ref = _PAPER.get(case, ((None, None), "no number in the paper"))
    hops = ("A->B, 1 hop", "A->D, 2 hops")[i]
    return _bp(f"{_head(case)}: flow {i + 1} ({hops}) goodput, kb/s ({ref})")


def _aggregate(topology: str, variant: str, scheme: str) -> Ref:
    case = (topology, variant, scheme)
    _, ref = _PAPER.get(case, ((None, None), "no number in the paper"))
    return _bp(f"{_head(case)}: aggregate goodput, kb/s ({ref})")


def _nontcp(scheme: str, loss: float | None, what: str) -> Ref:
    """A Figs. 12-13 row: ``loss`` None is Fig. 12 (no loss)."""
    label = NONTCP_SCHEMES[scheme][2]
    head = (
        f"Fig. 12, diamond, TCP + non-TCP, no loss, {label}"
        if loss is None
        else f"Fig. 13, diamond, TCP + non-TCP, loss {loss:g} on A-B, {label}"
    )
    return _bp(f"{head}: {what}")


def _tcp_flow_share(scheme: str, loss: float | None) -> Ratio:
    return Ratio(
        _nontcp(scheme, loss, "flow 1 (TCP, A->B) goodput, kb/s"),
        _nontcp(scheme, loss, "flow 2 (non-TCP, A->D) goodput, kb/s"),
    )


def _sweep_jain(scheme: str, loss: float) -> Ref:
    note = " (Sec. 5 text at loss 0.5)" if loss == 0.5 else ""
    return _bp(
        f"Fig. 9, diamond, TCP-SACK, loss {loss:g} on A-B, {_SWEEP_LABEL[scheme]}: "
        f"Jain's index{note}"
    )


def _sweep_gain(i: int, loss: float) -> Ref:
    note = " (Sec. 5 text, as we read it at loss 0.5)" if loss == 0.5 else ""
    return _bp(f"Fig. 9, loss {loss:g}: flow {i + 1} goodput, TCP-aware BP / AODV{note}")


#: A flow "does not survive" below a tenth of the other flow's goodput, "survives" above
#: it (bp-grid's survive_share); "close to 1" is within 0.05 with an interval <= 0.1 wide.
CLAIMS = [
    *[
        Claim(
            id=f"002-fig6{fig}-flow{i + 1}-{kbps:.0f}",
            paper="002",
            where=f"Sec. 5.2, Fig. 6{fig}",
            statement=f"[tree, {VARIANT_LABEL[v]}, TCP-aware BP] Flow 1 and Flow 2 achieve "
            f"{_PAPER[('tree', v, 'tcp_aware')][0][0]:g} and "
            f"{_PAPER[('tree', v, 'tcp_aware')][0][1]:g} kbps",
            metric=f"tree, {VARIANT_LABEL[v]}, TCP-aware BP: flow {i + 1} goodput, kb/s",
            paper_value=kbps,
            measure=_flow("tree", v, "tcp_aware", i),
            rule=ValueInCI(),
        )
        for fig, v in (("a", "sack"), ("c", "vegas"))
        for i, kbps in enumerate(_PAPER[("tree", v, "tcp_aware")][0])
    ],
    *[
        Claim(
            id=f"002-fig{fig}-bp-sack-starves-{topology}",
            paper="002",
            where=f"Sec. 5.2, Fig. {fig}b",
            statement="Flow 2 does not get any chance for transmission in classical BP"
            + ("" if topology == "tree" else " (similar results ... for the diamond topology)"),
            metric=f"{topology}, TCP-SACK, classical BP: flow 2 / flow 1 goodput",
            measure=Ratio(
                _flow(topology, "sack", "classical", 1), _flow(topology, "sack", "classical", 0)
            ),
            rule=Direction("less", 0.1),
        )
        for fig, topology in (("6", "tree"), ("7", "diamond"))
    ],
    Claim(
        id="002-fig7-taware-sack-both-diamond",
        paper="002",
        where="Sec. 5.2, Fig. 7a",
        statement="in TCP-aware BP, both flows get chance for transmission ... similar "
        "results are presented in Fig. 7 for the diamond topology",
        metric="diamond, TCP-SACK, TCP-aware BP: flow 2 / flow 1 goodput",
        measure=Ratio(
            _flow("diamond", "sack", "tcp_aware", 1), _flow("diamond", "sack", "tcp_aware", 0)
        ),
        rule=Direction("greater", 0.1),
    ),
    Claim(
        id="002-fig6d-bp-vegas-beats-sack",
        paper="002",
        where="Sec. 5.2, Fig. 6d",
        statement="classical BP performs better in TCP-Vegas than in TCP-SACK",
        metric="tree, classical BP: flow 2 goodput, TCP-Vegas vs TCP-SACK",
        measure=_flow("tree", "vegas", "classical", 1),
        rule=Direction("greater", _flow("tree", "sack", "classical", 1)),
    ),
    Claim(
        id="002-fig6c-taware-beats-bp-vegas",
        paper="002",
        where="Sec. 5.2, Figs. 6c-d",
        statement="TCP-aware BP improves throughput of both flows [over classical BP with "
        "TCP-Vegas]",
        metric="tree, TCP-Vegas: flow 2 goodput, TCP-aware BP vs classical BP",
        measure=_flow("tree", "vegas", "tcp_aware", 1),
        rule=Direction("greater", _flow("tree", "vegas", "classical", 1)),
    ),
    *[
        Claim(
            id=f"002-fig9-flow{i + 1}-gain-{pct}pct",
            paper="002",
            where="Sec. 5.2, Fig. 9a",
            statement="TCP-aware BP improves throughput as compared to AODV by 10 and 40 "
            "percent for the first and second flows, respectively",
            metric=f"diamond, TCP-SACK, loss 0.5 on A-B: flow {i + 1} goodput, TCP-aware BP / "
            "AODV (as we read the text: at loss 0.5)",
            paper_value=_SWEEP_PAPER_GAIN[i],
            measure=_sweep_gain(i, 0.5),
            rule=ValueInCI(null=1.0),
        )
        for i, pct in ((0, 10), (1, 40))
    ],
    Claim(
        id="002-fig9a-gain-grows-with-loss",
        paper="002",
        where="Sec. 5.2, Fig. 9a",
        statement="the throughput improvement of TCP-aware BP as compared to AODV increases "
        "as loss probability increases",
        metric="flow 1 (over the lossy link) goodput TCP-aware BP / AODV, loss 0.5 vs loss 0",
        measure=_sweep_gain(0, 0.5),
        rule=Direction("greater", _sweep_gain(0, 0.0)),
    ),
    Claim(
        id="002-fig9b-jain-close-to-1",
        paper="002",
        where="Sec. 5.2, Fig. 9b",
        statement="the fairness index is close to F = 1 when TCP-aware BP is employed",
        metric="diamond, TCP-SACK, no loss, TCP-aware BP: Jain's index",
        paper_value=1.0,
        measure=_sweep_jain("tcp_aware", 0.0),
        rule=ValueInCI(abs=0.05, max_width=0.1),
    ),
    *[
        Claim(
            id=f"002-fig9b-{key}-jain-{value:g}",
            paper="002",
            where="Sec. 5.2, Fig. 9b",
            statement="the fairness index of TCP-aware BP is 0.94, while the fairness index "
            "of AODV is 0.98 when the packet loss probability is 0.5",
            metric=f"diamond, TCP-SACK, loss 0.5 on A-B, {_SWEEP_LABEL[scheme]}: Jain's index",
            paper_value=value,
            measure=_sweep_jain(scheme, 0.5),
            rule=ValueInCI(max_width=0.1),
        )
        for key, scheme in (("taware", "tcp_aware"), ("aodv", "aodv"))
        for value in (_SWEEP_PAPER_JAIN[scheme],)
    ],
    *[
        Claim(
            id=f"002-fig12-{key}-tcp-starves",
            paper="002",
            where="Sec. 5.2, Fig. 12",
            statement=text,
            metric=f"diamond, no loss, {NONTCP_SCHEMES[scheme][2]}: TCP flow / non-TCP flow "
            "goodput",
            measure=_tcp_flow_share(scheme, None),
            rule=Direction("less", 0.1),
        )
        for key, scheme, text in (
            (
                "bp",
                "classical_fc",
                "the TCP flow does not survive in classical BP as packets are trapped in the "
                "buffers",
            ),
            (
                "aodv",
                "aodv_udp",
                "it does not survive with AODV as well, because uncontrolled non-TCP flows "
                "occupy buffers",
            ),
        )
    ],
    Claim(
        id="002-fig12-taware-both-survive",
        paper="002",
        where="Sec. 5.2, Fig. 12",
        statement="both TCP and non-TCP flows survive together in TCP-aware BP",
        metric="diamond, no loss, TCP-aware BP + flow control: TCP flow / non-TCP flow goodput",
        measure=_tcp_flow_share("tcp_aware_fc", None),
        rule=Direction("greater", 0.1),
    ),
    Claim(
        id="002-fig13-aodv-higher-low-loss",
        paper="002",
        where="Sec. 5.2, Fig. 13",
        statement="at low loss probabilities, ... the throughput of AODV is better than "
        "TCP-aware BP",
        metric="diamond, TCP + non-TCP, loss 0: aggregate goodput, AODV vs TCP-aware BP",
        measure=_nontcp("aodv_udp", 0.0, "aggregate goodput, kb/s"),
        rule=Direction("greater", _nontcp("tcp_aware_fc", 0.0, "aggregate goodput, kb/s")),
    ),
    Claim(
        id="002-fig13-aodv-unfair",
        paper="002",
        where="Sec. 5.2, Fig. 13",
        statement="the fairness graph ... shows that the fairness of AODV is very low",
        metric="diamond, TCP + non-TCP, loss 0: Jain's index, AODV vs TCP-aware BP",
        measure=_nontcp("aodv_udp", 0.0, "Jain's index"),
        rule=Direction("less", _nontcp("tcp_aware_fc", 0.0, "Jain's index")),
    ),
    Claim(
        id="002-fig13-taware-higher-high-loss",
        paper="002",
        where="Sec. 5.2, Fig. 13",
        statement="at higher loss probabilities, TCP-aware BP is better than AODV",
        metric="diamond, TCP + non-TCP, loss 0.5: aggregate goodput, TCP-aware BP vs AODV",
        measure=_nontcp("tcp_aware_fc", 0.5, "aggregate goodput, kb/s"),
        rule=Direction("greater", _nontcp("aodv_udp", 0.5, "aggregate goodput, kb/s")),
    ),
]
