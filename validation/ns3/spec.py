"""Scenario definitions shared by both simulators: each scenario is written once, as a
``Spec``, and turned into an airqueue scenario (``airqueue_side.py``) and an ns-3 script
(``ns3_side.py``).

Common ground (what "identical" means here):

- 802.11b DSSS, long preamble, DCF (CWmin 31, CWmax 1023, slot 20 us, SIFS 10 us), data
  at ``data_rate_bps``, control frames and ACKs at 1 Mb/s (ns-3 is told its basic rate set
  is 1 Mb/s only, otherwise it answers 2 and 11 Mb/s frames at 2 Mb/s).
- Two-ray ground propagation as ns-2's (2.412 GHz, antennas 1.5 m high, 20 dBm): frames
  above the power at 250 m are received, those above the power at 550 m only sensed
  (ns-3: ``RxSensitivity`` and ``CcaEdThreshold``). ns-3 treats a sensed frame as energy
  (no EIFS), so airqueue runs with ``radio.sensed_frames = "energy"``, ``late_capture =
  "never"`` (ns-3 has no frame capture model by default) and ``preamble_detection_db = 4``
  (ns-3's default ThresholdPreambleDetectionModel: equal frames colliding in one slot are
  never received, so no EIFS follows them).
- Queues: one drop-tail FIFO of ``queue_capacity_pkts`` per interface (ns-3: its traffic
  control layer removed, the WifiMacQueue sized to it, its 0.5 s lifetime switched off).
- TCP as ns-3's defaults, set explicitly on both sides: delayed ACKs (every second
  segment, 200 ms), timestamps, SACK, minimum RTO 1 s, a 128 KiB receive window; the MSS
  is the flow's ``packet_size_bytes``, the initial window RFC 5681's.
- Goodput: payload bytes the sink application received inside the window
  [``warmup_s``, ``duration_s``), over its length; every flow starts before ``warmup_s``.
"""

from __future__ import annotations

import math
import random
from dataclasses import dataclass, field, replace

#: ns-3's TcpSocket RcvBufSize / SndBufSize default, bytes.
NS3_TCP_BUFFER_BYTES = 131072


#: airqueue decoding by the SINR threshold alone, as ns-3's error model: no capture
#: threshold over the strongest interferer (``capture_db = 0`` leaves only the SINR
#: test for 2 Mb/s and faster frames; 1 Mb/s frames still need S >= I, against their
#: -3.09 dB SINR threshold). A variant, not the matched setting.
SINR_ALONE = ("capture_db 0", {"radio.capture_db": 0.0})
#: airqueue without the NAV reset after an RTS (its default), beside the matched runs.
NAV_KEPT = ("NAV kept after RTS", {"mac.nav_reset_after_rts": False})


@dataclass(frozen=True)
class Flow:
    """One application flow. ``rate_bps`` None with ``kind = "udp"``: saturating."""

    kind: str  # "tcp" | "udp"
    src: int
    dst: int
    start_s: float
    rate_bps: float | None = None
    packet_size_bytes: int = 1000


@dataclass(frozen=True)
class Bss:
    """An access point (node 0) with radio stations 1..n and wired hosts after them."""

    stations: int
    radius_m: float
    wired_hosts: int = 1
    wire_bandwidth_bps: float = 100e6
    wire_delay_s: float = 0.025
    wire_capacity_pkts: int = 1000


@dataclass(frozen=True)
class Spec:
    """One scenario as both simulators run it."""

    name: str
    family: str
    description: str
    #: Radio node positions (the access point and stations of a ``bss``), metres.
    positions_m: tuple[tuple[float, float], ...]
    flows: tuple[Flow, ...]
    duration_s: float
    warmup_s: float
    routing: str = "static"  # static | aodv | olsr
    data_rate_bps: float = 11e6
    basic_rate_bps: float = 1e6
    rts_cts: bool = False
    #: Transmission attempts of a frame: ns-3.44's one ``WifiMac::FrameRetryLimit``
    #: (RTS attempts included); airqueue gets it as both its short and long limit.
    retry_limit: int = 7
    queue_capacity_pkts: int = 50
    #: ``[[flow]] variant`` of every TCP flow: "sack" (ns-3: NewReno with SACK), "cubic".
    tcp_variant: str = "sack"
    #: ns-3's loss recovery: "prr" (its default, RFC 6937) or "classic" (cwnd set to
    #: ssthresh on entry, as airqueue's RFC 6675 recovery does).
    ns3_recovery: str = "prr"
    delayed_ack: bool = True
    timestamps: bool = True
    min_rto_s: float = 1.0
    tcp_buffer_bytes: int = NS3_TCP_BUFFER_BYTES
    #: ns-3's AODV HELLOs (on by default there). airqueue's AODV detects breaks either by
    #: the MAC (ns-3 does too) or by HELLOs, not both; see docs/validation.md.
    aodv_link_detection: str = "mac"
    #: ns-3 settings left at their defaults in the grid study's variants (the matched
    #: runs turn them off): AODV HELLOs, the WifiMacQueue's 500 packets and 0.5 s
    #: lifetime.
    ns3_aodv_hello: bool = False
    ns3_mac_queue_pkts: int | None = None
    ns3_mac_queue_lifetime_s: float | None = None
    #: Fill ns-3's ARP caches before the run under AODV too, which (see ns3_side.run)
    #: silently turns off its link-failure detection: the grid study shows the effect.
    ns3_prefill_arp: bool = False
    bss: Bss | None = None
    seeds: tuple[int, ...] = (1, 2)
    #: Shorter run for ``--quick``: (duration, warmup).
    quick: tuple[float, float] = (20.0, 5.0)
    #: Extra airqueue keys (dotted paths; None removes a key).
    airqueue_overrides: dict[str, object] = field(default_factory=dict)
    #: airqueue-only variants reported beside the matched run: (label, overrides).
    variants: tuple[tuple[str, dict[str, object]], ...] = ()
    #: Saturated single-hop stations (compared with Bianchi's model too).
    bianchi_stations: int | None = None

    def quick_version(self) -> Spec:
        duration, warmup = self.quick
        return replace(self, duration_s=duration, warmup_s=warmup, seeds=self.seeds[:1])

    @property
    def max_window_pkts(self) -> int:
        """The receive window in segments of the largest MSS in use (airqueue counts
        windows in packets)."""
        mss = max(f.packet_size_bytes for f in self.flows)
        return max(1, self.tcp_buffer_bytes // mss)


def _star(n: int) -> Spec:
    """``n`` saturated UDP stations around one receiver, all in range of each other."""
    radius = 10.0
    pos = [(0.0, 0.0)] + [
        (radius * math.cos(2 * math.pi * i / n), radius * math.sin(2 * math.pi * i / n))
        for i in range(n)
    ]
    flows = tuple(
        Flow("udp", i, 0, start_s=1.0 + 0.001 * i, rate_bps=None, packet_size_bytes=1000)
        for i in range(1, n + 1)
    )
    return Spec(
        name=f"star-{n}",
        family="star",
        description=f"{n} saturated UDP stations 10 m from one receiver, 11 Mb/s, no RTS/CTS",
        positions_m=tuple(pos),
        flows=flows,
        duration_s=30.0,
        warmup_s=5.0,
        quick=(10.0, 3.0),
        bianchi_stations=n,
        variants=(("EIFS after collisions", {"radio.preamble_detection_db": None}),),
    )


def _chain(hops: int) -> Spec:
    """One TCP flow along a chain of ``hops`` hops, 200 m apart."""
    pos = tuple((200.0 * i, 0.0) for i in range(hops + 1))
    return Spec(
        name=f"tcp-chain-{hops}",
        family="tcp-chain",
        description=f"one TCP flow over {hops} hop(s) of a 200 m chain, 2 Mb/s, static routes",
        positions_m=pos,
        flows=(Flow("tcp", 0, hops, start_s=1.0, packet_size_bytes=1000),),
        data_rate_bps=2e6,
        duration_s=60.0,
        warmup_s=10.0,
        quick=(20.0, 5.0),
        variants=(SINR_ALONE,),
    )


def random_layout(n: int, area_m: float, range_m: float, seed: int) -> list[tuple[float, float]]:
    """``n`` nodes uniform in a square, redrawn until connected under ``range_m``."""
    rng = random.Random(seed)
    for _ in range(1000):
        pos = [(rng.uniform(0, area_m), rng.uniform(0, area_m)) for _ in range(n)]
        seen, todo = {0}, [0]
        while todo:
            a = todo.pop()
            for b in range(n):
                if b not in seen and math.dist(pos[a], pos[b]) <= range_m:
                    seen.add(b)
                    todo.append(b)
        if len(seen) == n:
            return [(round(x, 1), round(y, 1)) for x, y in pos]
    raise ValueError(f"no connected layout of {n} nodes in {area_m} m after 1000 draws")


def _olsr_mesh() -> Spec:
    """Seed 000's 46-node mesh (900 x 900 m) with 32 random CBR flows of 1 Mb/s, OLSR."""
    pos = random_layout(46, 900.0, 250.0, seed=46)
    rng = random.Random(32)
    pairs: list[tuple[int, int]] = []
    while len(pairs) < 32:
        s, d = rng.sample(range(46), 2)
        if (s, d) not in pairs:
            pairs.append((s, d))
    flows = tuple(
        Flow("udp", s, d, start_s=20.0 + 0.05 * i, rate_bps=1e6, packet_size_bytes=1000)
        for i, (s, d) in enumerate(pairs)
    )
    return Spec(
        name="olsr-mesh-46",
        family="mesh",
        description="46 random nodes in 900 x 900 m, OLSR (hop count), 32 CBR flows of 1 Mb/s",
        positions_m=tuple(pos),
        flows=flows,
        routing="olsr",
        duration_s=80.0,
        warmup_s=25.0,
        quick=(40.0, 25.0),
        seeds=(1,),
    )


def _diffq_mesh() -> Spec:
    """A DiffQ-style mesh (seed 000): the 46-node layout with 8 TCP flows, OLSR."""
    pos = random_layout(46, 900.0, 250.0, seed=46)
    rng = random.Random(8)
    pairs: list[tuple[int, int]] = []
    while len(pairs) < 8:
        s, d = rng.sample(range(46), 2)
        if (s, d) not in pairs:
            pairs.append((s, d))
    flows = tuple(
        Flow("tcp", s, d, start_s=20.0 + 0.1 * i, packet_size_bytes=1000)
        for i, (s, d) in enumerate(pairs)
    )
    return Spec(
        name="diffq-mesh-tcp",
        family="mesh",
        description="the 46-node layout, OLSR (hop count), 8 TCP flows (seed 000's TCP baseline)",
        positions_m=tuple(pos),
        flows=flows,
        routing="olsr",
        duration_s=80.0,
        warmup_s=25.0,
        quick=(40.0, 25.0),
        seeds=(1,),
        variants=(SINR_ALONE,),
    )


#: Seed 001's grid (python/airqueue/reproduce/fq_protection.py): 13 x 13, 200 m, server
#: 84 (the centre), TCP clients at the corners and edge mid-points.
GRID_SERVER = 84
GRID_CLIENTS = (0, 6, 12, 78, 90, 156, 162, 168)


def grid_spec(routing: str = "aodv", name: str = "grid-13x13-aodv", **overrides: object) -> Spec:
    """Seed 001's 13 x 13 grid: 8 TCP clients to the centre, 2 Mb/s, RTS/CTS, retry
    limits 7/4, drop-tail 50, 1460-byte segments (TCP set to ns-3's defaults)."""
    pos = tuple((200.0 * (i % 13), 200.0 * (i // 13)) for i in range(169))
    flows = tuple(
        Flow("tcp", c, GRID_SERVER, start_s=1.0 + 0.1 * k, packet_size_bytes=1460)
        for k, c in enumerate(GRID_CLIENTS)
    )
    spec = Spec(
        name=name,
        family="grid",
        description=f"seed 001's 13 x 13 grid, 8 TCP clients to the centre, {routing}",
        positions_m=pos,
        flows=flows,
        routing=routing,
        data_rate_bps=2e6,
        rts_cts=True,
        duration_s=150.0,
        warmup_s=13.0,
        quick=(40.0, 10.0),
        seeds=(1, 2),
    )
    return replace(spec, **overrides)  # type: ignore[arg-type]


def _bss(n_dn: int, n_up: int) -> Spec:
    """Seed 004's BSS: an AP, ``n_dn + n_up`` stations 10 m away, a wired host behind a
    100 Mb/s, 25 ms wire; TCP down (host -> station) and up (station -> host)."""
    n = n_dn + n_up
    host = n + 1
    bss = Bss(stations=n, radius_m=10.0)
    pos = [(0.0, 0.0)] + [
        (10.0 * math.cos(2 * math.pi * i / n), 10.0 * math.sin(2 * math.pi * i / n))
        for i in range(n)
    ]
    flows = [
        Flow("tcp", host, s, start_s=1.0 + 0.1 * s, packet_size_bytes=1000)
        for s in range(1, n_dn + 1)
    ]
    flows += [
        Flow("tcp", s, host, start_s=1.0 + 0.1 * s, packet_size_bytes=1000)
        for s in range(n_dn + 1, n + 1)
    ]
    return Spec(
        # ns-3's AP advertises 1 and 2 Mb/s as basic rates, so stations and AP answer
        # 11 Mb/s frames at 2 Mb/s; airqueue's ACKs follow basic_rate (no RTS/CTS here,
        # no broadcasts: it only sets the ACK rate).
        basic_rate_bps=2e6,
        name=f"bss-{n_dn}dn-{n_up}up",
        family="bss",
        description=(
            f"seed 004's BSS: AP + {n} stations at 11 Mb/s, {n_dn} downlink and {n_up} "
            "uplink TCP flows to a wired host (100 Mb/s, 25 ms), drop-tail 100"
        ),
        positions_m=tuple(pos),
        flows=tuple(flows),
        bss=bss,
        queue_capacity_pkts=100,
        duration_s=60.0,
        warmup_s=10.0,
        quick=(20.0, 5.0),
    )


def _short_buffer(spec: Spec) -> Spec:
    """``spec`` with a 10-packet queue, below the path's bandwidth-delay product (the
    cell's rate over the wire's 50 ms round trip): after a loss the window's decrease
    empties the queue, so the decrease factor shows in goodput.
    ns-3 recovers as airqueue does (classic recovery, not its default PRR), so that the
    comparison is of the window rule alone."""
    return replace(
        spec,
        name=f"{spec.name}-q10",
        family=f"{spec.family}-q10",
        description=f"{spec.description}; a 10-packet queue",
        queue_capacity_pkts=10,
        ns3_recovery="classic",
    )


def _cubic(spec: Spec) -> Spec:
    """``spec`` with CUBIC's window (RFC 9438) and SACK recovery on every TCP flow."""
    return replace(
        spec,
        name=f"{spec.name}-cubic",
        family=f"{spec.family}-cubic",
        description=f"{spec.description}; TCP CUBIC",
        tcp_variant="cubic",
    )


def all_specs() -> list[Spec]:
    """Every scenario of the suite, in the order they are reported."""
    specs = [_star(n) for n in (5, 10, 20, 50)]
    specs += [_chain(h) for h in range(1, 7)]
    specs += [_olsr_mesh(), _diffq_mesh()]
    specs += [
        grid_spec(),
        grid_spec("static", name="grid-13x13-static", variants=(NAV_KEPT, SINR_ALONE)),
    ]
    specs += [_bss(4, 4), _bss(2, 6)]
    short = _short_buffer(_bss(1, 0))
    specs += [short, _cubic(short)]
    return specs


def by_name() -> dict[str, Spec]:
    return {s.name: s for s in all_specs()}
