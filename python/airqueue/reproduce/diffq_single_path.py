"""``diffq-single-path``: seed 000 section 6.3 (Fig. 9, 11, 12, 13, 14 and Table 3).

A random connected mesh of 46 nodes (placed from the seed in a 900 x 900 m square under
a 250 m range, redrawn until connected: hop diameters of 5 to 8, mostly 6 or 7, like the
paper's testbed "around 6 or 7 hops"), OLSR-ETX routing as the paper's testbed ran
(section 6.1; RFC 3626 with olsrd's etx_ff link quality, whose ETX comes from control
packets lost under load; ``routing = "static"`` gives the shortest ETX paths computed
before the run, where without configured link loss every link's ETX is 1), 802.11b at
11 Mb/s without RTS/CTS, and 4, 8, 16 or 32 flows between random (src, dst) pairs drawn from the
seed: one seed is one "scenario" and every scheme runs the same scenarios. 1400-byte
packets, 60 s runs, flows starting within the first second.

Schemes: TCP-SACK and TCP-FeW (drop-tail interface queue of 199, DCF), DiffQ-TCP (SACK reliability,
congestion control off, paced by DiffQ's source rate control; DiffQ destination queues of
``D = 40`` packets without a binding node-wide limit, as in the paper's Forwarder
Algorithm; EDCA with DiffQ's eight levels), UDP (saturating, drop-tail, DCF) and
DiffQ-UDP (saturating UDP paced by DiffQ), and TFRC-ECN (section 6: TFRC with its loss
response off; drop-tail queues of 199 mark CE above 75% of their capacity and marks within
an RTT are one congestion event; DCF), compared against DiffQ-UDP as in Fig. 13. Delayed
ACKs are on for every TCP scheme (Linux default, the paper's testbed). The driver's
constants are MadWiFi's (``MADWIFI_TX_ATTEMPTS``, ``MADWIFI_IFQ_PACKETS``): 11 transmit
attempts per frame at a fixed rate, an interface queue of 199 packets, and behind it
the driver's 200 transmit buffers in per-level FIFOs (``driver_buffer``; 1 is the
counterfactual of a MAC that pulls each packet at the last moment). Every pair of nodes
loses each frame with probability ``link_loss``, 0.04 by default: the one value that fits
Table 2's single-flow TCP throughput over 1-4 hops (``diffq-tcp-chain``), fixed before
any mesh run; 0 is the loss-free counterfactual. ``fading = "rayleigh"`` adds per-frame
Rayleigh fading (``radio.fading``), a counterfactual: section 6.1 describes no channel
model, so the default is ``"none"``.

Metrics per flow count and scheme, mean and 95% interval over scenarios: Jain's index,
log utility (sum of ln per-flow goodput in bit/s), aggregate goodput, starved fraction
(< 1 kb/s); and the ratio of the average per-run median per-flow goodput of DiffQ-TCP
over TCP-SACK (Table 3), with a paired bootstrap interval over scenarios. Fig. 14 is one
run: its starved fraction is set against the range single runs fall in (2.5-97.5
percentiles over scenarios). Section 6.3's "paths where TCP flows are starving can
support more than 500 kbps when run without any competing flows": each TCP-SACK flow
starved at the largest flow count is rerun alone (``alone``): the same mesh, seed and
routing, that one flow with its source, destination and start.
"""

from __future__ import annotations

import statistics
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pandas as pd

from airqueue.reproduce import paths
from airqueue.reproduce.claims import Claim, Direction, Ratio, Ref, ValueInCI
from airqueue.reproduce.params import apply_params, as_params
from airqueue.reproduce.report import ReproductionResult, Row, bootstrap_ratio, row
from airqueue.reproduce.runs import Runner

NAME = "diffq-single-path"
SUMMARY = "Sec. 6.3: 46-node mesh, 4-32 random flows; fairness, log utility, Table 3 ratios"

SCHEMES = ("TCP-SACK", "TCP-FeW", "DiffQ-TCP", "UDP", "DiffQ-UDP", "TFRC-ECN")

#: TFRC-ECN's marking threshold: a fraction of the drop-tail capacity (section 6).
TFRC_ECN_MARK = 0.75

#: A flow starves below this goodput (section 6.3: "no or less than 1 kbps").
STARVED_BPS = 1000.0

#: Section 6.3: the paths of the starved TCP flows "can support more than 500 kbps" alone.
ALONE_BPS = 500e3

#: Table 3: ratio of average per-run median throughput, DiffQ-TCP over TCP-SACK.
TABLE3 = {4: 1.96, 8: 3.45, 16: 4.35, 32: 8.18}

#: DiffQ's two constants the paper names but does not give (section 4.1; section 6.1 gives
#: only alpha and beta): ``D``, the per-destination queue limit that also sets the priority
#: quantisation step ``D / 8``, and the source rate control's queue threshold. Both are
#: the core's defaults and parameters of every DiffQ reproduction (``diffq_d``,
#: ``queue_threshold``); the results depend on them (docs/reproductions/diffq.md, "Sensitivity").
DIFFQ_D = 40
QUEUE_THRESHOLD = 10

#: When DiffQ's source rate control updates (``[diffq] rate_update``): ``"interval"``
#: (every 10 ms, the core's default: AIMD with the same additive step per unit time for
#: every source, as Chiu and Jain's convergence to fairness needs) or ``"packet"`` (once
#: per packet sent: the increase per second grows with the rate). A parameter of every
#: DiffQ reproduction (docs/reproductions/diffq.md, "Rate update").
RATE_UPDATE = "interval"
RATE_UPDATES = ("interval", "packet")

#: The testbed's driver (section 6.1: Atheros cards, MadWiFi, PHY rate fixed at 11 Mb/s).
#: With a fixed rate MadWiFi's rate modules give every unicast data frame
#: ``ATH_TXMAXTRY = 11`` transmit attempts (the standard's dot11ShortRetryLimit is 7);
#: its interface queue, the Linux qdisc in front of the driver, holds
#: ``tx_queue_len = ATH_TXBUF - 1 = 199`` packets (ns-2's 50 has no basis in the
#: testbed). Behind that queue the driver holds up to ``ATH_TXBUF = 200`` frames in
#: per-AC hardware queues (section 5.1: the driver puts each packet "into appropriate
#: priority queues" and "outputs packets into the air interface in the order of priority
#: using the queues"): ``MADWIFI_TXBUF_FRAMES``, the ``driver_buffer`` option.
MADWIFI_TX_ATTEMPTS = 11
MADWIFI_IFQ_PACKETS = 199
MADWIFI_TXBUF_FRAMES = 200

#: Frames the MAC holds behind the queue discipline at the core's default (``[mac]
#: tx_buffer``): one, pulled when the last has left, so DiffQ's scheduler picks each
#: packet and its level at the last moment (section 5.4: "Given that some packets can be
#: transmitted, the scheduler ... schedules the destination with the highest queue
#: differential"); the ``driver_buffer = 1`` counterfactual.
DRIVER_BUFFER_FRAMES = 1

#: Frame erasure probability of every link (``[[link]] loss`` on each pair, both
#: directions) calibrated on Table 2's TCP row alone (``diffq-tcp-chain``; the procedure
#: is in docs/reproductions/diffq.md, "Link loss"). The core's default is loss-free.
TABLE2_LINK_LOSS = 0.04

#: ``radio.fading`` values the mesh runs with: ``"none"`` (the default; section 6.1 gives
#: the radios, the power and the fixed rate, no channel model) or ``"rayleigh"``, the
#: counterfactual of docs/reproductions/diffq.md's "Fading".
FADINGS = ("none", "rayleigh")

#: ``tcp_sack_variant``'s values: the ``[[flow]] variant`` TCP-SACK may run.
TCP_SACK_VARIANTS = ("sack", "cubic")
#: ``[diffq] select``: what DiffQ's scheduler compares (``Config.diffq_select``).
DIFFQ_SELECTS = ("differential", "level")

#: The testbed's OLSR is olsrd with ETX (section 6.1; docs/routing.md): its TCs advertise
#: every symmetric neighbour, ``TC_REDUNDANCY`` 2 in olsrd's ``src/olsr_protocol.h`` from
#: January 2006 on and in its sample configurations, where RFC 3626's default (0)
#: advertises only the MPR selectors (``[routing] tc_redundancy``, RFC 3626 section 15.1).
OLSRD_TC_REDUNDANCY = 2


def _check_optional_number(
    name: str, value: Any, ok: Callable[[float], bool], expected: str, example: str
) -> None:
    """Refuses a parameter that is set but not a number ``ok`` accepts."""
    number = isinstance(value, (int, float)) and not isinstance(value, bool)
    if value is not None and not (number and ok(value)):
        raise ValueError(
            f"{NAME}: {name} must be {expected}, got {value!r}; e.g. --param {name}={example}"
        )


@dataclass(frozen=True)
class Config:
    """Parameters (``airqueue.reproduce(NAME, params={...})`` overrides any of them)."""

    seeds: int = 20
    flow_counts: tuple[int, ...] = (4, 8, 16, 32)
    duration: float = 60.0
    nodes: int = 46
    area: tuple[float, float] = (900.0, 900.0)
    packet_size: int = 1400
    #: Drop-tail interface queue of the non-DiffQ schemes, packets (MadWiFi's).
    queue_capacity: int = MADWIFI_IFQ_PACKETS
    #: Transmit attempts per data frame (``mac.short_retry_limit``; MadWiFi's).
    retry_limit: int = MADWIFI_TX_ATTEMPTS
    delayed_ack: bool = True
    #: TCP timestamps (RFC 7323), on by default in Linux, the paper's testbed: RTT samples
    #: from every ACK and the Eifel undo of spurious timeouts (RFC 3522/4015).
    timestamps: bool = True
    #: TCP's receive window (``tcp.max_window``), segments; DiffQ-TCP is bound by it.
    max_window: int = 64
    diffq_d: int = DIFFQ_D
    queue_threshold: int = QUEUE_THRESHOLD
    rate_update: str = RATE_UPDATE
    schemes: tuple[str, ...] = SCHEMES
    #: ``[routing] kind``: ``"olsr"`` (OLSR with ETX measured by olsrd's etx_ff, as the
    #: paper's testbed ran, section 6.1; warm-started from the idle network's routes),
    #: the default, or ``"static"`` (shortest ETX paths computed before the run, with no
    #: routing traffic).
    routing: str = "olsr"
    #: OLSR's ``tc_redundancy`` (``OLSRD_TC_REDUNDANCY``; 0 is RFC 3626's default).
    tc_redundancy: int = OLSRD_TC_REDUNDANCY
    #: Section 6.3: rerun each TCP-SACK flow starved at the largest flow count alone on
    #: its mesh (one run per starved flow).
    alone: bool = True
    #: Frames the MAC holds behind the queue discipline (``[mac] tx_buffer``), shared by
    #: its per-level FIFOs: MadWiFi's 200 (``MADWIFI_TXBUF_FRAMES``), the default, as
    #: section 5.1 describes the testbed's driver; 1 hands each packet down at the last
    #: moment (``DRIVER_BUFFER_FRAMES``, the core's default).
    driver_buffer: int = MADWIFI_TXBUF_FRAMES
    #: Frame erasure probability of every pair of nodes (``[[link]] loss``): the Table 2
    #: calibration ``TABLE2_LINK_LOSS``, the default (the testbed's paths run through a
    #: building and OLSR routes them by ETX, section 6.1); 0 is loss-free.
    link_loss: float = TABLE2_LINK_LOSS
    #: ``radio.fading`` (``FADINGS``): ``"none"``, the default, or ``"rayleigh"``.
    fading: str = "none"
    #: ``[diffq] scheduling`` of the DiffQ schemes: on, the default (section 4.2: the
    #: destination with the highest queue differential is served first); off serves
    #: destinations round robin, section 6.4's "Flows are scheduled based on a simple
    #: round-robin scheduling scheme". A counterfactual, as ``diffq-ablation``'s variants.
    diffq_scheduling: bool = True
    #: ``[diffq] mac_priority`` of the DiffQ schemes: on, the default (section 5.5: the
    #: differential sets one of eight MAC levels); off sends every frame at level 0,
    #: section 6.4's "packets are transmitted with priority 0". A counterfactual.
    diffq_mac_priority: bool = True
    #: ``[diffq] select`` of the DiffQ schemes: ``"differential"``, the default (the
    #: Forwarder Algorithm's line 5, ``F = argmax_d QD_i(d)``), or ``"level"``, section
    #: 4.1's prose: "Node i chooses the HOL packet of the highest priority among all HOL
    #: packets in its destination queues ... Ties are broken arbitrarily" (the quantised
    #: priority, ties at random). A counterfactual.
    diffq_select: str = "differential"
    #: ``[[flow]] variant`` of TCP-SACK (and of its runs alone): ``"sack"``, the default
    #: (RFC 5681's window with RFC 6675 recovery, the paper's name for the scheme), or
    #: ``"cubic"``, RFC 9438's window with the same recovery: the default of the Linux
    #: 2.6.19 and later kernels the testbed ran (section 5.1: "2.6.18 onwards"). A
    #: counterfactual; DiffQ-TCP has no window control to change.
    tcp_sack_variant: str = "sack"
    #: ``radio.cs_range``, metres: ``None``, the default, keeps the core's 550 m (ns-2's
    #: carrier sense, over twice the 250 m decode range); a shorter range is a channel
    #: counterfactual with more hidden terminals, as walls would give (section 6.1 gives
    #: no channel model). At least the 250 m decode range.
    cs_range: float | None = None
    #: ``[tcp] initial_rto``, seconds in (0, 60]: ``None``, the default, keeps the core's
    #: 1 s (RFC 6298 (2.1)); 3 is RFC 2988's, the ``TCP_TIMEOUT_INIT`` of the testbed's
    #: 2.6 kernels (section 5.1), which timed their SYNs. With no handshake in the model
    #: the first data segment takes the SYN's place. A counterfactual.
    tcp_initial_rto: float | None = None
    #: Table 3 and Fig. 13 taken apart at this flow count: every flow of TCP-SACK's and
    #: DiffQ-TCP's (and TFRC-ECN's and DiffQ-UDP's) runs with that many flows rerun alone
    #: on its mesh under its own scheme, giving the ratio of the schemes alone and the
    #: share of its goodput alone that each scheme keeps among the others (the median
    #: flow's for Table 3, the aggregate for Fig. 13). ``None``, the default, runs none.
    alone_at: int | None = None

    @classmethod
    def make(cls, quick: bool, params: Mapping[str, Any] | None) -> Config:
        base = cls(seeds=3, flow_counts=(4, 8), duration=20.0) if quick else cls()
        config = apply_params(base, params)
        _check_optional_number(
            "cs_range",
            config.cs_range,
            lambda x: 250.0 <= x <= 1e6,
            "a distance in metres from the 250 m decode range to 1e6",
            "400",
        )
        _check_optional_number(
            "tcp_initial_rto",
            config.tcp_initial_rto,
            lambda x: 0.0 < x <= 60.0,
            "a number of seconds in (0, 60]",
            "3",
        )
        check_select(NAME, config.diffq_select)
        if config.alone_at is not None and (
            config.alone_at not in config.flow_counts or not _alone_pairs(config.schemes)
        ):
            raise ValueError(
                f"{NAME}: alone_at must be one of the flow counts "
                f"{list(config.flow_counts)}, with TCP-SACK and DiffQ-TCP, or TFRC-ECN and "
                f"DiffQ-UDP, among the schemes; got {config.alone_at!r}; e.g. --param "
                "alone_at=4"
            )
        if config.tcp_sack_variant not in TCP_SACK_VARIANTS:
            raise ValueError(
                f"{NAME}: tcp_sack_variant must be one of {', '.join(TCP_SACK_VARIANTS)}, "
                f"got {config.tcp_sack_variant!r}; e.g. --param tcp_sack_variant=cubic"
            )
        return config


def diffq_sections(
    nodes: int,
    d: int = DIFFQ_D,
    threshold: int = QUEUE_THRESHOLD,
    rate_update: str = RATE_UPDATE,
) -> dict[str, dict[str, Any]]:
    """The ``[queue]`` and ``[diffq]`` of a DiffQ scheme: destination queues of ``d``
    packets, a node buffer that never binds (``d`` times the number of possible
    destinations), and the source threshold. The paper's Forwarder Algorithm limits each
    destination queue to ``D`` and has no node-wide limit; a node buffer smaller than
    that drops packets at a relay whose destination queue is short, which no upstream
    differential can see (with a 50-packet node buffer, 74% of full DiffQ's relay drops
    in the 16-flow mesh, seed 1). ``rate_update`` is the controller's clock; a value
    the core does not know is refused here, before any run, naming the parameter."""
    if rate_update not in RATE_UPDATES:
        raise ValueError(
            f"rate_update must be one of {list(RATE_UPDATES)}, got {rate_update!r}: "
            f"pass --param rate_update=interval (the default) or --param rate_update=packet"
        )
    return {
        "queue": {"kind": "diffq", "capacity": d * nodes, "per_dest_capacity": d},
        "diffq": {"queue_threshold": threshold, "rate_update": rate_update},
    }


def check_routing(name: str, routing: str, tc_redundancy: int = OLSRD_TC_REDUNDANCY) -> None:
    """Refuses a ``routing`` parameter other than the two the DiffQ mesh runs on, or a
    ``tc_redundancy`` other than RFC 3626's 0, 1 and 2, before any run, naming the fix."""
    if routing not in ("static", "olsr"):
        raise ValueError(
            f'{name}: routing must be "static" or "olsr", got {routing!r}; '
            "e.g. --param routing=static"
        )
    if tc_redundancy not in (0, 1, 2) or isinstance(tc_redundancy, bool):
        raise ValueError(
            f"{name}: tc_redundancy must be 0, 1 or 2 (RFC 3626 section 15.1), got "
            f"{tc_redundancy!r}; e.g. --param tc_redundancy=0 for RFC 3626's default"
        )


def mac_section(
    diffq: bool, retry_limit: int, driver_buffer: int = DRIVER_BUFFER_FRAMES
) -> dict[str, Any]:
    """``[mac]`` of a scheme: EDCA with DiffQ's eight levels (Table 1) or plain DCF, both
    without RTS/CTS, with ``retry_limit`` transmit attempts per data frame and
    ``driver_buffer`` frames held behind the queue discipline (the key is left out at
    the core's default of 1, so those scenarios stay as they were)."""
    mac: dict[str, Any] = {"kind": "edca", "levels": "diffq8"} if diffq else {"kind": "dcf"}
    mac["short_retry_limit"] = retry_limit
    if driver_buffer != DRIVER_BUFFER_FRAMES:
        mac["tx_buffer"] = driver_buffer
    return mac


def check_driver(name: str, driver_buffer: int, link_loss: float) -> None:
    """Refuses a ``driver_buffer`` or ``link_loss`` the core would, before any run,
    naming the parameter and the fix."""
    if (
        isinstance(driver_buffer, bool)
        or not isinstance(driver_buffer, int)
        or not (1 <= driver_buffer <= 512)
    ):
        raise ValueError(
            f"{name}: driver_buffer must be an integer number of frames in 1..=512, got "
            f"{driver_buffer!r}; e.g. --param driver_buffer={MADWIFI_TXBUF_FRAMES} "
            "(MadWiFi's ATH_TXBUF)"
        )
    if (
        isinstance(link_loss, bool)
        or not isinstance(link_loss, (int, float))
        or not (0.0 <= link_loss < 1.0)
    ):
        raise ValueError(
            f"{name}: link_loss must be a probability in [0, 1), got {link_loss!r}; "
            f"e.g. --param link_loss={TABLE2_LINK_LOSS} (the Table 2 calibration)"
        )


def check_select(name: str, select: str) -> None:
    """``diffq_select`` is one of ``DIFFQ_SELECTS``, or a ValueError naming the parameter."""
    if select not in DIFFQ_SELECTS:
        raise ValueError(
            f"{name}: diffq_select must be one of {', '.join(DIFFQ_SELECTS)}, "
            f"got {select!r}; e.g. --param diffq_select=level"
        )


def check_fading(name: str, fading: str) -> None:
    """Refuses a ``fading`` other than ``FADINGS``, before any run, naming the parameter."""
    if fading not in FADINGS:
        raise ValueError(
            f"{name}: fading must be one of {list(FADINGS)}, got {fading!r}; "
            'e.g. --param fading=rayleigh (the default is "none")'
        )


def lossy_links(nodes: int, link_loss: float) -> list[dict[str, Any]]:
    """``[[link]]`` entries giving every pair of ``nodes`` the erasure probability
    ``link_loss`` (none when it is 0); pairs out of range never exchange frames."""
    if link_loss == 0.0:
        return []
    return [
        {"a": a, "b": b, "loss": float(link_loss)}
        for a in range(nodes)
        for b in range(a + 1, nodes)
    ]


def scheme_scenario(
    scheme: str,
    *,
    name: str,
    duration: float,
    nodes: int,
    area: tuple[float, float],
    flows: int,
    packet_size: int,
    queue_capacity: int,
    delayed_ack: bool,
    timestamps: bool = True,
    diffq_d: int = DIFFQ_D,
    queue_threshold: int = QUEUE_THRESHOLD,
    max_window: int = 64,
    retry_limit: int = MADWIFI_TX_ATTEMPTS,
    routing: str = "static",
    rate_update: str = RATE_UPDATE,
    tc_redundancy: int = OLSRD_TC_REDUNDANCY,
    driver_buffer: int = DRIVER_BUFFER_FRAMES,
    link_loss: float = 0.0,
    fading: str = "none",
    scheduling: bool = True,
    mac_priority: bool = True,
    select: str = "differential",
    sack_variant: str = "sack",
    cs_range: float | None = None,
    initial_rto: float | None = None,
) -> dict[str, Any]:
    """The scenario of one scheme on the random mesh (shared with ``diffq-ablation``);
    ``routing`` is the ``[routing] kind``, with the ETX metric and, under OLSR,
    ``tc_redundancy``; ``driver_buffer`` frames behind the queue, ``link_loss`` on
    every pair, and ``radio.fading`` when ``fading`` is not ``"none"``. ``scheduling``
    and ``mac_priority`` off set those ``[diffq]`` switches of a DiffQ scheme (left out
    when on, the core's default, so those scenarios stay as they were), as is ``select``
    at ``"differential"``.
    ``sack_variant`` is TCP-SACK's ``variant``, ``cs_range`` the ``radio.cs_range`` and
    ``initial_rto`` the ``tcp.initial_rto`` (absent: the core's defaults)."""
    diffq = scheme.startswith("DiffQ")
    template: dict[str, Any] = {
        "random": flows,
        "packet_size": packet_size,
        "start": [0.0, 1.0],
    }
    queue: dict[str, Any] = {"kind": "droptail", "capacity": queue_capacity}
    if scheme.endswith("TCP") or scheme.startswith("TCP"):
        variant = {"TCP-FeW": "few", "TCP-SACK": sack_variant}.get(scheme, "sack")
        template.update(kind="tcp", variant=variant)
    elif scheme == "TFRC-ECN":
        template.update(kind="tfrc", ecn=True)
        queue["ecn_mark"] = TFRC_ECN_MARK
    else:
        template.update(kind="udp", rate="saturate")
    if diffq:
        template["cc"] = "diffq"
    sc: dict[str, Any] = {
        "name": f"{name}-{scheme.lower()}",
        "duration": duration,
        "seed": 1,
        "topology": {"kind": "random", "nodes": nodes, "area": list(area), "connected": True},
        "radio": {"data_rate": 11e6},
        "mac": mac_section(diffq, retry_limit, driver_buffer),
        "routing": {"kind": routing, "metric": "etx"},
        "queue": queue,
        "tcp": {"delayed_ack": delayed_ack, "timestamps": timestamps, "max_window": max_window},
        "flows": template,
    }
    if routing == "olsr":
        sc["routing"]["tc_redundancy"] = tc_redundancy
    if link_loss:
        sc["link"] = lossy_links(nodes, link_loss)
    if fading != "none":
        sc["radio"]["fading"] = fading
    if cs_range is not None:
        sc["radio"]["cs_range"] = cs_range
    if initial_rto is not None:
        sc["tcp"]["initial_rto"] = initial_rto
    if diffq:
        sc.update(diffq_sections(nodes, diffq_d, queue_threshold, rate_update))
        if not scheduling:
            sc["diffq"]["scheduling"] = False
        if not mac_priority:
            sc["diffq"]["mac_priority"] = False
        if select != "differential":
            sc["diffq"]["select"] = select
    return sc


def config_scenario(config: Config, scheme: str, flows: int) -> dict[str, Any]:
    """``scheme``'s mesh scenario with ``flows`` random flows under every setting of
    ``config``."""
    return scheme_scenario(
        scheme,
        name=NAME,
        duration=config.duration,
        nodes=config.nodes,
        area=config.area,
        flows=flows,
        packet_size=config.packet_size,
        queue_capacity=config.queue_capacity,
        delayed_ack=config.delayed_ack,
        timestamps=config.timestamps,
        diffq_d=config.diffq_d,
        queue_threshold=config.queue_threshold,
        max_window=config.max_window,
        retry_limit=config.retry_limit,
        routing=config.routing,
        rate_update=config.rate_update,
        tc_redundancy=config.tc_redundancy,
        driver_buffer=config.driver_buffer,
        link_loss=config.link_loss,
        fading=config.fading,
        scheduling=config.diffq_scheduling,
        mac_priority=config.diffq_mac_priority,
        select=config.diffq_select,
        sack_variant=config.tcp_sack_variant,
        cs_range=config.cs_range,
        initial_rto=config.tcp_initial_rto,
    )


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
    unknown = [s for s in config.schemes if s not in SCHEMES]
    if unknown:
        raise ValueError(f"{NAME}: unknown scheme(s) {unknown}; known: {list(SCHEMES)}")
    check_routing(NAME, config.routing, config.tc_redundancy)
    check_driver(NAME, config.driver_buffer, config.link_loss)
    check_fading(NAME, config.fading)
    seeds = list(range(1, config.seeds + 1))
    grid = {"flows.random": list(config.flow_counts)}
    with Runner(out, workers=workers, serial=serial, progress=progress, client=client) as runner:
        frames = []
        for s in config.schemes:
            base = config_scenario(config, s, config.flow_counts[0])
            frames.append(runner.sweep(s, base, seeds=seeds, grid=grid))
        flows = pd.concat(frames, ignore_index=True)
        alone = (
            _run_alone(runner, flows, config)
            if config.alone and "TCP-SACK" in config.schemes
            else None
        )
        every_alone = (
            _run_every_alone(runner, flows, config, config.alone_at)
            if config.alone_at is not None
            else None
        )
        first = flows[flows["scheme"] == config.schemes[0]]
        nodes = runner.table(first, "nodes")
        routes = runner.table(first, "routes")
        links = runner.table(first, "links")
        summary = runner.table(flows, "summary")

    runs = flows.drop_duplicates("run_id").set_index("run_id")
    rows: list[Row] = []
    rows += _topology_rows(first, nodes, routes, links, config)
    for n in config.flow_counts:
        at_n = flows[flows["flows.random"] == n]
        per_run = at_n.groupby(["scheme", "seed"])
        median = per_run["goodput_bps"].median()
        starved = per_run["goodput_bps"].apply(lambda g: float((g < STARVED_BPS).mean()))
        r = runs[runs["flows.random"] == n]
        for s in config.schemes:
            rs = r[r["scheme"] == s].sort_values("seed")
            rows.append(
                row(
                    f"{s}, {n} flows: Jain's index (Fig. 11a/13)",
                    list(rs["run_jain_index"]),
                    high=1.0,
                )
            )
            rows.append(
                row(f"{s}, {n} flows: log utility (Fig. 11c/13)", list(rs["run_log_utility"]))
            )
            rows.append(
                row(
                    f"{s}, {n} flows: aggregate goodput, Mb/s (Fig. 11b/13)",
                    list(rs["run_aggregate_goodput_bps"]),
                    scale=1e6,
                )
            )
            rows.append(
                row(
                    f"{s}, {n} flows: fraction of flows starved < 1 kb/s (Fig. 9, 14)",
                    list(starved.get(s, pd.Series(dtype=float))),
                    high=1.0,
                )
            )
            rows.append(
                row(
                    f"{s}, {n} flows: median per-flow goodput, kb/s",
                    list(median.get(s, pd.Series(dtype=float))),
                    scale=1e3,
                )
            )
        if "TCP-SACK" in config.schemes:
            largest = per_run["goodput_bps"].max().get("TCP-SACK", pd.Series(dtype=float))
            rows.append(
                row(
                    f"TCP-SACK, {n} flows: largest per-flow goodput, kb/s (Fig. 1b)",
                    list(largest),
                    scale=1e3,
                )
            )
        if {"DiffQ-TCP", "TCP-SACK"} <= set(config.schemes):
            rows += _ratio_rows(n, median, r)
            if n == max(config.flow_counts):
                rows += _fig12_rows(n, at_n)
        if {"DiffQ-UDP", "TFRC-ECN"} <= set(config.schemes):
            rows += _tfrc_rows(n, r)
        if n == max(config.flow_counts) and {"TCP-SACK", "TCP-FeW"} <= set(config.schemes):
            rows += fig14_rows(n, at_n)
    if alone is not None:
        rows += alone_rows(max(config.flow_counts), alone)
    if every_alone is not None and config.alone_at is not None:
        rows += every_alone_rows(config.alone_at, flows, every_alone, config.schemes)
    figures = [
        cdf_figure(flows, config, out),
        _metrics_figure(runs, config, out),
    ]
    if {"DiffQ-TCP", "TCP-SACK"} <= set(config.schemes):
        figures.append(_scatter_figure(flows, config, out))
    drops = summary.set_index("run_id")
    sim_wall = float(drops["wall_seconds"].sum()) if "wall_seconds" in drops else float("nan")
    notes = [
        f"{len(seeds)} scenarios (seeds {seeds[0]}..{seeds[-1]}) per flow count, "
        f"{config.duration:g} s runs, flow counts {list(config.flow_counts)} "
        f"({'quick' if quick else 'full'}); {len(runs)} runs, {sim_wall:.1f} s of "
        "simulation wall time in total.",
        f"Topology: {config.nodes} nodes uniformly in {config.area[0]:g} x {config.area[1]:g} m, "
        "connected under 250 m range; "
        + (
            f"static ETX routes (ETX {1 / (1 - config.link_loss) ** 2:.3g} per link)."
            if config.routing == "static"
            else "OLSR-ETX routes (RFC 3626 with olsrd's etx_ff link quality), warm-started "
            "from the idle network. The flow path lengths under topology are shortest "
            "routes; OLSR's paths are at least as long and change during a run."
        ),
        f"Driver: {config.driver_buffer} frame(s) held by the MAC behind the queue "
        "discipline in per-level FIFOs (MadWiFi's ATH_TXBUF is 200); links: frame "
        f"erasure probability {config.link_loss:g} on every pair "
        + (
            "(loss-free)."
            if config.link_loss == 0
            else f"(the Table 2 calibration is {TABLE2_LINK_LOSS:g})."
        )
        + (f" Fading: {config.fading}." if config.fading != "none" else "")
        + (
            f" Carrier sense: {config.cs_range:g} m (counterfactual; default 550 m)."
            if config.cs_range is not None
            else ""
        ),
        *(
            [
                "TCP-SACK (counterfactual): CUBIC's window (RFC 9438), Linux's default, "
                "with SACK recovery."
            ]
            if config.tcp_sack_variant == "cubic"
            else []
        ),
        *(
            [
                "DiffQ schemes (counterfactual, section 6.4's switches): "
                f"scheduling {'on' if config.diffq_scheduling else 'off (round robin)'}, "
                f"MAC priority {'on' if config.diffq_mac_priority else 'off (level 0)'}."
            ]
            if not (config.diffq_scheduling and config.diffq_mac_priority)
            else []
        ),
        *(
            [
                "DiffQ schemes (counterfactual, section 4.1's prose): the head packet of the "
                "highest quantised priority is served, ties at random."
            ]
            if config.diffq_select == "level"
            else []
        ),
        "Paper values: Table 3 ratios are numbers in the paper; Jain and log-utility ratios "
        "are the text's 'about two times higher' and 'about 20% better' (section 6.3, over "
        "all flow counts, Fig. 11a/c). Per-scheme absolute values are plotted, not "
        "tabulated, in the paper: blank.",
        "Ratios: ratio of means over scenarios (the paper's 'ratio of average per-run "
        "median'); interval: 95% percentile bootstrap resampling scenarios (paired).",
        "Log utility: sum over flows of ln(goodput in bit/s), goodput floored at 1 bit/s; "
        "the paper's unit is not stated, so absolute values are not comparable.",
    ]
    return ReproductionResult(
        name=NAME,
        rows=rows,
        figures=figures,
        notes=notes,
        params={"quick": quick, **as_params(config)},
        out=out,
    )


def _topology_rows(
    first: pd.DataFrame,
    nodes: pd.DataFrame,
    routes: pd.DataFrame,
    links: pd.DataFrame,
    config: Config,
) -> list[Row]:
    diameters: list[float] = []
    flow_hops: list[float] = []
    longest: list[float] = []
    largest = max(config.flow_counts)
    for run_id, g in nodes.groupby("run_id", sort=True):
        fl = first[first["run_id"] == run_id]
        if fl.empty or int(fl["flows.random"].iloc[0]) != largest:
            continue
        diameters.append(paths.hop_diameter(links[links["run_id"] == run_id], len(g)))
        path_hops = paths.flow_hops(routes[routes["run_id"] == run_id])
        hops = [path_hops.get((str(run_id), int(f)), 0) for f in fl["id"]]
        flow_hops += hops
        longest.append(max(hops))
    diameter = row("topology: hop diameter (paper section 2: 'around 6 or 7 hops')", diameters)
    # Flow paths are the geometry's shortest routes (static routing's); OLSR's are at
    # least as long and move during a run, and the notes say so.
    return [
        diameter,
        row(f"topology: longest flow path, hops, {largest} flows", longest),
        Row(
            f"topology: mean flow path, hops, {largest} flows (pooled)",
            None,
            statistics.mean(flow_hops) if flow_hops else None,
        ),
    ]


def _ratio_rows(n: int, median: pd.Series, runs: pd.DataFrame) -> list[Row]:
    out = []
    dq = median.get("DiffQ-TCP", pd.Series(dtype=float))
    tcp = median.get("TCP-SACK", pd.Series(dtype=float))
    seeds = sorted(set(dq.index) & set(tcp.index))
    ratio, lo, hi = bootstrap_ratio([dq[s] for s in seeds], [tcp[s] for s in seeds])
    out.append(
        Row(
            f"median goodput ratio DiffQ-TCP / TCP-SACK, {n} flows (Table 3)",
            TABLE3.get(n),
            ratio,
            lo,
            hi,
        )
    )
    for col, what, paper, fig in (
        ("run_jain_index", "Jain's index", 2.0, "Fig. 11a"),
        ("run_log_utility", "log utility", 1.2, "Fig. 11c"),
    ):
        a = runs[runs["scheme"] == "DiffQ-TCP"].set_index("seed")[col]
        b = runs[runs["scheme"] == "TCP-SACK"].set_index("seed")[col]
        common = sorted(set(a.index) & set(b.index))
        ratio, lo, hi = bootstrap_ratio([a[s] for s in common], [b[s] for s in common])
        out.append(
            Row(
                f"{what} ratio DiffQ-TCP / TCP-SACK, {n} flows ({fig}; text: ~{paper:g}x)",
                paper,
                ratio,
                lo,
                hi,
            )
        )
    return out


#: Fig. 12's goodput bands (section 6.3), bit/s: TCP's "small fraction of flows around 1
#: to 5 Mbps" and DiffQ-TCP's "middle section of plot (around 50 to 500 kbps)".
FIG12_HIGH_BPS = (1e6, 5e6)
FIG12_MIDDLE_BPS = (50e3, 500e3)


def _paired_flows(at_n: pd.DataFrame) -> pd.DataFrame:
    """TCP-SACK's and DiffQ-TCP's goodput of the same flows (same scenario, source and
    destination), columns ``tcp`` and ``diffq``, indexed by (seed, src, dst)."""
    key = ["seed", "src", "dst"]
    a = at_n[at_n["scheme"] == "TCP-SACK"].set_index(key)["goodput_bps"]
    b = at_n[at_n["scheme"] == "DiffQ-TCP"].set_index(key)["goodput_bps"]
    return pd.concat([a.rename("tcp"), b.rename("diffq")], axis=1).dropna()


def _fig12_rows(n: int, at_n: pd.DataFrame) -> list[Row]:
    """Fig. 12's scatter as numbers, per scenario then mean and interval over scenarios:
    DiffQ-TCP's goodput on the flows TCP-SACK starves (median over those flows, in the
    scenarios that have any), and the share of each scheme's flows in the two bands the
    text names."""
    both = _paired_flows(at_n)
    rescued = [
        float(g.loc[g["tcp"] < STARVED_BPS, "diffq"].median())
        for _, g in both.groupby(level="seed")
        if (g["tcp"] < STARVED_BPS).any()
    ]
    out = [
        row(
            f"Fig. 12: DiffQ-TCP goodput of the flows TCP-SACK starves (< 1 kb/s), median over "
            f"those flows, {n} flows, kb/s",
            rescued,
            scale=1e3,
        )
    ]
    for scheme, col in (("TCP-SACK", "tcp"), ("DiffQ-TCP", "diffq")):
        for (lo, hi), band in ((FIG12_HIGH_BPS, "1-5 Mb/s"), (FIG12_MIDDLE_BPS, "50-500 kb/s")):
            share = [
                float(((g[col] >= lo) & (g[col] <= hi)).mean())
                for _, g in both.groupby(level="seed")
            ]
            out.append(
                row(f"Fig. 12: {scheme}, {n} flows: fraction of flows at {band}", share, high=1.0)
            )
    return out


def fig14_rows(n: int, at_n: pd.DataFrame) -> list[Row]:
    """Fig. 14 is "a particular run" of ``n`` flows where TCP and TCP-FeW starve "up to
    60%" of the flows: per scenario, the larger of TCP-SACK's and TCP-FeW's starved
    fractions; ours is their median over scenarios and the interval the 2.5-97.5
    percentiles, the range a single run falls in (a mean's interval would test a
    typical run, which the paper's is not said to be)."""
    starved = (
        at_n[at_n["scheme"].isin(["TCP-SACK", "TCP-FeW"])]
        .groupby(["seed", "scheme"])["goodput_bps"]
        .apply(lambda g: float((g < STARVED_BPS).mean()))
        .unstack("scheme")
        .dropna()
    )
    worse = sorted(float(v) for v in starved.max(axis=1))
    metric = (
        f"Fig. 14: the larger of TCP-SACK's and TCP-FeW's fraction of flows starved < 1 kb/s "
        f"in one {n}-flow run (median over scenarios; interval: 2.5-97.5 percentiles of "
        "single runs)"
    )
    if not worse:
        return [Row(metric, None, None)]
    if len(worse) < 2:
        return [Row(metric, None, worse[0])]
    cuts = statistics.quantiles(worse, n=40, method="inclusive")
    return [Row(metric, None, statistics.median(worse), cuts[0], cuts[-1])]


def starved_tcp_flows(flows: pd.DataFrame, n: int) -> pd.DataFrame:
    """TCP-SACK's flows below ``STARVED_BPS`` in the runs of ``n`` flows: ``seed``,
    ``src``, ``dst``, ``start_s`` and their ``goodput_bps``."""
    at_n = flows[(flows["flows.random"] == n) & (flows["scheme"] == "TCP-SACK")]
    starved = at_n[at_n["goodput_bps"] < STARVED_BPS]
    cols = ["seed", "src", "dst", "start_s", "goodput_bps"]
    return starved[cols].sort_values(["seed", "src", "dst"]).reset_index(drop=True)


def alone_scenario(config: Config, src: int, dst: int, start_s: float) -> dict[str, Any]:
    """The TCP-SACK mesh scenario with one flow, ``src`` to ``dst`` from ``start_s``: the
    same topology (drawn from the seed alone), radio, MAC, queue and routing as the runs
    with random flows, whose draw this replaces."""
    sc = config_scenario(config, "TCP-SACK", 1)
    sc["name"] = f"{NAME}-alone-tcp-sack"
    del sc["flows"]
    sc["flow"] = [_alone_flow(config, src, dst, start_s)]
    return sc


def _alone_flow(config: Config, src: int, dst: int, start_s: float) -> dict[str, Any]:
    return {
        "kind": "tcp",
        "variant": config.tcp_sack_variant,
        "packet_size": config.packet_size,
        "src": int(src),
        "dst": int(dst),
        "start": float(start_s),
    }


def _run_alone(runner: Runner, flows: pd.DataFrame, config: Config) -> pd.DataFrame:
    """Section 6.3's reruns: every TCP-SACK flow starved at the largest flow count, alone
    on its scenario's mesh (one sweep per scenario, one run per starved flow). The
    starved flows with their goodput alone, ``alone_bps``."""
    starved = starved_tcp_flows(flows, max(config.flow_counts))
    frames = []
    for seed, g in starved.groupby("seed", sort=True):
        specs = [[_alone_flow(config, r.src, r.dst, r.start_s)] for r in g.itertuples(index=False)]
        first = g.iloc[0]
        base = alone_scenario(config, first["src"], first["dst"], first["start_s"])
        df = runner.sweep(
            f"TCP-SACK alone (seed {seed})", base, seeds=[int(seed)], grid={"flow": specs}
        )
        frames.append(df[["seed", "src", "dst", "goodput_bps"]])
    if not frames:
        return starved.assign(alone_bps=pd.Series(dtype=float))
    alone = pd.concat(frames, ignore_index=True).rename(columns={"goodput_bps": "alone_bps"})
    return starved.merge(alone, on=["seed", "src", "dst"], how="left", validate="one_to_one")


#: The pairs ``alone_at`` takes apart, each (DiffQ scheme, baseline, statistic, what it
#: is): Table 3's median flow, and Fig. 13's aggregate.
ALONE_PAIRS = (
    ("DiffQ-TCP", "TCP-SACK", "median", "Table 3"),
    ("DiffQ-UDP", "TFRC-ECN", "sum", "Fig. 13"),
)


def _alone_pairs(schemes: tuple[str, ...]) -> list[tuple[str, str, str, str]]:
    return [p for p in ALONE_PAIRS if {p[0], p[1]} <= set(schemes)]


def _run_every_alone(runner: Runner, flows: pd.DataFrame, config: Config, n: int) -> pd.DataFrame:
    """Every flow of the runs of ``n`` flows of each scheme in a complete
    ``ALONE_PAIRS`` pair rerun alone on its scenario's mesh under its own scheme (one
    sweep per scheme and scenario): ``scheme``, ``seed``, ``src``, ``dst`` and the
    goodput alone, ``alone_bps``."""
    frames = []
    for scheme in [s for pair in _alone_pairs(config.schemes) for s in pair[:2]]:
        at_n = flows[(flows["flows.random"] == n) & (flows["scheme"] == scheme)]
        base = config_scenario(config, scheme, 1)
        template = {k: v for k, v in base.pop("flows").items() if k not in ("random", "start")}
        for seed, g in at_n.groupby("seed", sort=True):
            specs = [
                [dict(template, src=int(r.src), dst=int(r.dst), start=float(r.start_s))]
                for r in g.itertuples(index=False)
            ]
            sc = dict(base, name=f"{NAME}-alone{n}-{scheme.lower()}", flow=specs[0])
            res = runner.sweep(
                f"{scheme} alone (seed {seed})", sc, seeds=[int(seed)], grid={"flow": specs}
            )
            frames.append(res[["seed", "src", "dst", "goodput_bps"]].assign(scheme=scheme))
    alone = pd.concat(frames, ignore_index=True)
    return alone.rename(columns={"goodput_bps": "alone_bps"})


def every_alone_rows(
    n: int, flows: pd.DataFrame, alone: pd.DataFrame, schemes: tuple[str, ...]
) -> list[Row]:
    """Table 3 and Fig. 13 at ``n`` flows taken apart: per scenario the statistic of the
    pair (the median flow's goodput, or the sum of the flows') with the others
    (``flows``) and with every flow alone (``alone``); the schemes' ratio alone, and the
    share of its goodput alone each scheme keeps among the others."""
    at_n = flows[flows["flows.random"] == n]
    rows = []
    for diffq, base, stat, what in _alone_pairs(schemes):
        together = at_n.groupby(["scheme", "seed"])["goodput_bps"].agg(stat)
        apart = alone.groupby(["scheme", "seed"])["alone_bps"].agg(stat)
        head = f"{what} at {n} flows, every flow rerun alone"
        name = "median goodput" if stat == "median" else "aggregate goodput"
        seeds = sorted(set(apart[diffq].index) & set(apart[base].index))
        ratio, lo, hi = bootstrap_ratio(
            [apart[diffq][s] for s in seeds], [apart[base][s] for s in seeds]
        )
        rows.append(Row(f"{head}: {name} ratio {diffq} / {base} alone", None, ratio, lo, hi))
        for scheme in (base, diffq):
            per_flow = "median per-flow goodput" if stat == "median" else "summed goodput"
            rows.append(
                row(
                    f"{head}: {scheme}, {per_flow} alone, kb/s",
                    [apart[scheme][s] for s in seeds],
                    scale=1e3,
                )
            )
            ratio, lo, hi = bootstrap_ratio(
                [together[scheme][s] for s in seeds], [apart[scheme][s] for s in seeds]
            )
            rows.append(
                Row(f"{head}: {scheme}, {name} with the others / alone", None, ratio, lo, hi)
            )
    return rows


def alone_rows(n: int, alone: pd.DataFrame) -> list[Row]:
    """The starved TCP-SACK flows' goodput alone (``alone``: one row per starved flow,
    ``seed`` and ``alone_bps``): per scenario the median over its starved flows and the
    share above ``ALONE_BPS``, then mean and interval over the scenarios that have any."""
    by_seed = alone.groupby("seed", sort=True)["alone_bps"]
    head = (
        f"Sec. 6.3: TCP-SACK flows starved (< 1 kb/s) at {n} flows, each rerun alone on its "
        "mesh (same seed and routing)"
    )
    return [
        Row(f"{head}: flows rerun", None, float(len(alone))),
        row(
            f"{head}: goodput alone, median over each scenario's starved flows, kb/s",
            [float(v) for v in by_seed.median()],
            scale=1e3,
        ),
        row(
            f"{head}: fraction carrying > 500 kb/s alone",
            [float((g > ALONE_BPS).mean()) for _, g in by_seed],
            high=1.0,
        ),
    ]


def _tfrc_rows(n: int, runs: pd.DataFrame) -> list[Row]:
    """DiffQ-UDP over TFRC-ECN (Fig. 13). The paper gives no numbers: 'much better
    fairness' and 'up to 20% higher average throughput' (section 6.3)."""
    out = []
    for col, what, text in (
        ("run_jain_index", "Jain's index", "much better"),
        ("run_aggregate_goodput_bps", "aggregate goodput", "up to 1.2x"),
        ("run_log_utility", "log utility", "not stated"),
    ):
        a = runs[runs["scheme"] == "DiffQ-UDP"].set_index("seed")[col]
        b = runs[runs["scheme"] == "TFRC-ECN"].set_index("seed")[col]
        common = sorted(set(a.index) & set(b.index))
        ratio, lo, hi = bootstrap_ratio([a[s] for s in common], [b[s] for s in common])
        out.append(
            Row(
                f"{what} ratio DiffQ-UDP / TFRC-ECN, {n} flows (Fig. 13; text: {text})",
                None,
                ratio,
                lo,
                hi,
            )
        )
    return out


def cdf_figure(
    flows: pd.DataFrame, config: Any, out: Path, *, name: str = NAME, figs: str = "Fig. 9, 14"
) -> Path:
    """Per-flow goodput CDFs, one panel per flow count, one line per scheme, of the
    random-flow mesh runs in ``flows`` (``config``: ``flow_counts``, ``seeds``, ``schemes``;
    shared with ``diffq-more``)."""
    from airqueue.reproduce.figures import cdf_panels, save

    panels = {}
    for n in config.flow_counts:
        at_n = flows[flows["flows.random"] == n]
        panels[f"{n} flows ({config.seeds} scenarios pooled)"] = {
            s: list(at_n[at_n["scheme"] == s]["goodput_bps"] / 1e3) for s in config.schemes
        }
    fig = cdf_panels(panels, title=f"{name}: CDF of per-flow goodput ({figs}; < 1 kb/s at 1)")
    return save(fig, out / "cdf.png")


def _metrics_figure(runs: pd.DataFrame, config: Config, out: Path) -> Path:
    from airqueue.reproduce.figures import lines_with_ci, save

    def series(col: str, scale: float = 1.0) -> dict[str, dict[int, list[float]]]:
        return {
            s: {
                int(n): list(g[col] / scale)
                for n, g in runs[runs["scheme"] == s].groupby("flows.random")
            }
            for s in config.schemes
        }

    fig = lines_with_ci(
        {
            "Jain's index": series("run_jain_index"),
            "log utility (ln b/s)": series("run_log_utility"),
            "aggregate goodput (Mb/s)": series("run_aggregate_goodput_bps", 1e6),
        },
        title=f"{NAME}: per-run metrics, mean and 95% CI over scenarios (Fig. 11, 13)",
        xlabel="number of flows",
    )
    return save(fig, out / "metrics.png")


def _scatter_figure(flows: pd.DataFrame, config: Config, out: Path) -> Path:
    import matplotlib.pyplot as plt

    from airqueue.reproduce.figures import save

    n = max(config.flow_counts)
    both = _paired_flows(flows[flows["flows.random"] == n])
    fig, ax = plt.subplots(figsize=(5.5, 5.5))
    x = (both["tcp"] / 1e3).clip(lower=0.1)
    y = (both["diffq"] / 1e3).clip(lower=0.1)
    ax.scatter(x, y, s=10, alpha=0.6)
    lim = [0.1, max(10.0, float(max(x.max(), y.max())) * 1.5)]
    ax.plot(lim, lim, color="grey", linewidth=1)
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xlim(lim)
    ax.set_ylim(lim)
    ax.set_xlabel("TCP-SACK per-flow goodput (kb/s, < 0.1 at 0.1)")
    ax.set_ylabel("DiffQ-TCP per-flow goodput (kb/s)")
    ax.set_title(f"{NAME}: same flows, {n} flows (Fig. 12)", fontsize="medium")
    ax.grid(alpha=0.3)
    return save(fig, out / "scatter.png")


def _sp(metric: str) -> Ref:
    return Ref(NAME, metric)


def _starved(scheme: str, n: int) -> Ref:
    return _sp(f"{scheme}, {n} flows: fraction of flows starved < 1 kb/s (Fig. 9, 14)")


def _jain(scheme: str, n: int) -> Ref:
    return _sp(f"{scheme}, {n} flows: Jain's index (Fig. 11a/13)")


def _aggregate(scheme: str, n: int) -> Ref:
    return _sp(f"{scheme}, {n} flows: aggregate goodput, Mb/s (Fig. 11b/13)")


def _largest(n: int) -> Ref:
    return _sp(f"TCP-SACK, {n} flows: largest per-flow goodput, kb/s (Fig. 1b)")


def _fig12(scheme: str, band: str) -> Ref:
    return _sp(f"Fig. 12: {scheme}, 32 flows: fraction of flows at {band}")


#: Sections 2 and 6.3 (Figs. 1b, 9, 11-14, Table 3). "About" is a 20% tolerance, "about
#: 20% better" 5 points either side; ratios' no-effect value is 1.
CLAIMS = [
    Claim(
        id="000-s2-diameter",
        paper="000",
        where="Sec. 2",
        statement="the maximum number of hops in our testbed is around 6 or 7 hops",
        metric="hop diameter of the 46-node layout",
        paper_value=6.5,
        measure=_sp("topology: hop diameter (paper section 2: 'around 6 or 7 hops')"),
        rule=ValueInCI(abs=0.5),
    ),
    Claim(
        id="000-fig1b-tcp-starved-32",
        paper="000",
        where="Sec. 2, Fig. 1b",
        statement="TCP also experiences much starvation with about 30 to 40% of flows starving",
        metric="TCP-SACK, 32 flows: fraction of flows below 1 kb/s",
        paper_value=0.35,
        measure=_starved("TCP-SACK", 32),
        rule=ValueInCI(abs=0.05),
    ),
    Claim(
        id="000-fig9-fewer-starved-32",
        paper="000",
        where="Sec. 6.3, Fig. 9 vs Fig. 1b",
        statement="DiffQ-TCP gets a far less number of starved flows than TCP",
        metric="fraction of flows below 1 kb/s, 32 flows, DiffQ-TCP vs TCP-SACK",
        measure=_starved("DiffQ-TCP", 32),
        rule=Direction("less", _starved("TCP-SACK", 32)),
    ),
    *[
        Claim(
            id=f"000-fig11a-jain-2x-{n}",
            paper="000",
            where="Sec. 6.3, Fig. 11a",
            statement="the fairness index is about two times higher for DiffQ-TCP",
            metric=f"Jain's index ratio DiffQ-TCP / TCP-SACK, {n} flows",
            paper_value=2.0,
            measure=_sp(
                f"Jain's index ratio DiffQ-TCP / TCP-SACK, {n} flows (Fig. 11a; text: ~2x)"
            ),
            rule=ValueInCI(rel=0.2, null=1.0),
        )
        for n in (16, 32)
    ],
    *[
        Claim(
            id=f"000-fig11c-logutil-1.2x-{n}",
            paper="000",
            where="Sec. 6.3, Fig. 11c",
            statement="the log utility is about 20% better",
            metric=f"log utility ratio DiffQ-TCP / TCP-SACK, {n} flows",
            paper_value=1.2,
            measure=_sp(
                f"log utility ratio DiffQ-TCP / TCP-SACK, {n} flows (Fig. 11c; text: ~1.2x)"
            ),
            rule=ValueInCI(abs=0.05, null=1.0),
        )
        for n in (16, 32)
    ],
    *[
        Claim(
            id=f"000-tab3-ratio-{n}",
            paper="000",
            where="Sec. 6.3, Table 3",
            statement=f"ratio of average per-run median throughput of DiffQ-TCP over TCP-SACK, "
            f"{n} flows: {TABLE3[n]:g}",
            metric=f"median goodput ratio DiffQ-TCP / TCP-SACK, {n} flows",
            paper_value=TABLE3[n],
            measure=_sp(f"median goodput ratio DiffQ-TCP / TCP-SACK, {n} flows (Table 3)"),
            rule=ValueInCI(null=1.0),
        )
        for n in (4, 8, 16, 32)
    ],
    Claim(
        id="000-fig11b-aggregate-comparable-32",
        paper="000",
        where="Sec. 6.3, Fig. 11b",
        statement="overall, it [DiffQ-TCP] achieves comparable average performance to that of TCP",
        metric="aggregate goodput DiffQ-TCP / TCP-SACK, 32 flows (within 20%)",
        paper_value=1.0,
        measure=Ratio(_aggregate("DiffQ-TCP", 32), _aggregate("TCP-SACK", 32)),
        rule=ValueInCI(rel=0.2),
    ),
    Claim(
        id="000-fig11b-less-at-8",
        paper="000",
        where="Sec. 6.3, Fig. 11b",
        statement="the average throughput of DiffQ-TCP is slightly less than TCP especially "
        "under 8 flows",
        metric="aggregate goodput, 8 flows, DiffQ-TCP vs TCP-SACK",
        measure=_aggregate("DiffQ-TCP", 8),
        rule=Direction("less", _aggregate("TCP-SACK", 8)),
    ),
    Claim(
        id="000-s63-few-like-tcp-32",
        paper="000",
        where="Sec. 6.3, Fig. 11",
        statement="TCP-FeW ... shows about similar performance as TCP",
        metric="Jain's index TCP-FeW / TCP-SACK, 32 flows (within 20%)",
        paper_value=1.0,
        measure=Ratio(_jain("TCP-FeW", 32), _jain("TCP-SACK", 32)),
        rule=ValueInCI(rel=0.2),
    ),
    Claim(
        id="000-fig11a-fairer-than-few-32",
        paper="000",
        where="Sec. 1, 6.3, Fig. 11a",
        statement="the DiffQ augmented protocols show superior fairness properties than "
        "these protocols [TCP-FeW, TFRC/ECN]",
        metric="Jain's index, 32 flows, DiffQ-TCP vs TCP-FeW",
        measure=_jain("DiffQ-TCP", 32),
        rule=Direction("greater", _jain("TCP-FeW", 32)),
    ),
    Claim(
        id="000-fig13-udp-fairer-32",
        paper="000",
        where="Sec. 6.3, Fig. 13",
        statement="DiffQ-UDP achieves still much better fairness than TFRC-ECN",
        metric="Jain's index ratio DiffQ-UDP / TFRC-ECN, 32 flows",
        measure=_sp(
            "Jain's index ratio DiffQ-UDP / TFRC-ECN, 32 flows (Fig. 13; text: much better)"
        ),
        rule=Direction("greater", 1.0),
    ),
    Claim(
        id="000-fig13-udp-throughput-1.2x-32",
        paper="000",
        where="Sec. 6.3, Fig. 13",
        statement="DiffQ-UDP also achieves up to 20% higher average throughput",
        metric="aggregate goodput ratio DiffQ-UDP / TFRC-ECN, 32 flows",
        paper_value=1.2,
        measure=_sp(
            "aggregate goodput ratio DiffQ-UDP / TFRC-ECN, 32 flows (Fig. 13; text: up to 1.2x)"
        ),
        rule=ValueInCI(abs=0.1, null=1.0),
    ),
    Claim(
        id="000-fig14-tfrc-fewer-starved-32",
        paper="000",
        where="Sec. 6.3, Fig. 14",
        statement="TFRC-ECN can significantly reduce the number of starved flows",
        metric="fraction of flows below 1 kb/s, 32 flows, TFRC-ECN vs TCP-SACK",
        measure=_starved("TFRC-ECN", 32),
        rule=Direction("less", _starved("TCP-SACK", 32)),
    ),
    Claim(
        id="000-s2-tcp-max-invariant",
        paper="000",
        where="Sec. 2, Fig. 1b",
        statement="the maximum throughput that TCP flows achieve is almost invariant of the "
        "number of concurrent flows running",
        metric="TCP-SACK largest per-flow goodput, 32 flows / 4 flows (within 20%)",
        paper_value=1.0,
        measure=Ratio(_largest(32), _largest(4)),
        rule=ValueInCI(rel=0.2),
    ),
    Claim(
        id="000-fig12-tcp-starved-get-10-100k",
        paper="000",
        where="Sec. 6.3, Fig. 12",
        statement="for a fraction of flows starved for TCP getting no or less than 1 kbps "
        "throughput, DiffQ-TCP achieves about 10 to 100 kbps",
        metric="DiffQ-TCP goodput of the flows TCP-SACK starves, 32 flows, kb/s (the paper's "
        "10 to 100 as 55 +- 45)",
        paper_value=55.0,
        measure=_sp(
            "Fig. 12: DiffQ-TCP goodput of the flows TCP-SACK starves (< 1 kb/s), median over "
            "those flows, 32 flows, kb/s"
        ),
        rule=ValueInCI(abs=45.0),
    ),
    Claim(
        id="000-fig12-tcp-few-1-5mbps",
        paper="000",
        where="Sec. 6.3, Fig. 12",
        statement="TCP has a small fraction of flows around 1 to 5 Mbps but at the cost of a "
        "significant fraction of flows around low throughput areas",
        metric="fraction of flows at 1-5 Mb/s, 32 flows, TCP-SACK vs DiffQ-TCP",
        measure=_fig12("TCP-SACK", "1-5 Mb/s"),
        rule=Direction("greater", _fig12("DiffQ-TCP", "1-5 Mb/s")),
    ),
    Claim(
        id="000-fig12-diffq-50-500k",
        paper="000",
        where="Sec. 6.3, Fig. 12",
        statement="DiffQ-TCP distributes more evenly around the middle section of plot "
        "(around 50 to 500 kbps)",
        metric="fraction of flows at 50-500 kb/s, 32 flows, DiffQ-TCP vs TCP-SACK",
        measure=_fig12("DiffQ-TCP", "50-500 kb/s"),
        rule=Direction("greater", _fig12("TCP-SACK", "50-500 kb/s")),
    ),
    Claim(
        id="000-fig14-tcp-starved-60",
        paper="000",
        where="Sec. 6.3, Fig. 14",
        statement="many flows of TCP and TCP-FeW are starving up to 60% of flows [in a "
        "particular run involving 32 flows]",
        metric="the larger of TCP-SACK's and TCP-FeW's fraction of flows below 1 kb/s in one "
        "32-flow run: the range of single runs (2.5-97.5 percentiles over scenarios)",
        paper_value=0.6,
        measure=_sp(
            "Fig. 14: the larger of TCP-SACK's and TCP-FeW's fraction of flows starved < 1 "
            "kb/s in one 32-flow run (median over scenarios; interval: 2.5-97.5 percentiles "
            "of single runs)"
        ),
        rule=ValueInCI(),
    ),
    Claim(
        id="000-s63-starved-paths-500k",
        paper="000",
        where="Sec. 6.3",
        statement="these paths where TCP flows are starving can support more than 500 kbps "
        "when run without any competing flows",
        metric="goodput alone on the paths of the TCP-SACK flows starved at 32 flows (median "
        "over each scenario's starved flows), kb/s",
        measure=_sp(
            "Sec. 6.3: TCP-SACK flows starved (< 1 kb/s) at 32 flows, each rerun alone on its "
            "mesh (same seed and routing): goodput alone, median over each scenario's starved "
            "flows, kb/s"
        ),
        rule=Direction("greater", ALONE_BPS / 1e3),
    ),
    Claim(
        id="000-fig14-tfrc-starved-40-32",
        paper="000",
        where="Sec. 6.3, Fig. 14",
        statement="[with TFRC-ECN] more than 40% of flows are achieving less than 1 kbps",
        metric="TFRC-ECN, 32 flows: fraction of flows below 1 kb/s (mean over scenarios; "
        "the paper's is one run)",
        measure=_starved("TFRC-ECN", 32),
        rule=Direction("greater", 0.4),
    ),
]
