"""A ``Spec`` as an airqueue scenario (a dict of scenario-file keys) and its run."""

from __future__ import annotations

from typing import Any

from validation.ns3.result import FlowResult, RunResult
from validation.ns3.spec import Spec


def scenario(spec: Spec, seed: int) -> dict[str, Any]:
    """The airqueue scenario of ``spec`` with ``seed`` (docs/scenario.md keys)."""
    if spec.bss is not None:
        topology: dict[str, Any] = {
            "kind": "bss",
            "stations": spec.bss.stations,
            "radius": spec.bss.radius_m,
            "wired_hosts": spec.bss.wired_hosts,
            "wire_bandwidth": spec.bss.wire_bandwidth_bps,
            "wire_delay": spec.bss.wire_delay_s,
            "wire_capacity": spec.bss.wire_capacity_pkts,
        }
    else:
        topology = {"kind": "explicit", "positions": [list(p) for p in spec.positions_m]}
    flows = []
    for f in spec.flows:
        flow: dict[str, Any] = {
            "kind": f.kind,
            "src": f.src,
            "dst": f.dst,
            "start": f.start_s,
            "packet_size": f.packet_size_bytes,
        }
        if f.kind == "tcp":
            flow["variant"] = spec.tcp_variant
        else:
            flow["rate"] = "saturate" if f.rate_bps is None else f.rate_bps
        flows.append(flow)
    routing: dict[str, Any] = {"kind": spec.routing}
    if spec.routing == "olsr":
        # ns-3's OLSR has no link quality: hop counts, and it starts from empty tables.
        routing.update({"metric": "hops", "warm_start": False})
    elif spec.routing == "aodv":
        routing["link_detection"] = spec.aodv_link_detection
    sc: dict[str, Any] = {
        "name": spec.name,
        "duration": spec.duration_s,
        "warmup": spec.warmup_s,
        "seed": seed,
        "topology": topology,
        "radio": {
            "data_rate": spec.data_rate_bps,
            "basic_rate": spec.basic_rate_bps,
            "tx_range": 250.0,
            "cs_range": 550.0,
            "propagation": "two-ray-ground",
            "sensed_frames": "energy",
            "late_capture": "never",
            "preamble_detection_db": 4.0,
        },
        "mac": {
            "kind": "dcf",
            "short_retry_limit": spec.retry_limit,
            "long_retry_limit": spec.retry_limit,
            "rts_threshold": 0 if spec.rts_cts else "off",
            # ns-3's FrameExchangeManager resets a NAV set by an RTS that no reception
            # follows within 10.3.2.4's NAVTimeout.
            "nav_reset_after_rts": True,
        },
        "routing": routing,
        "queue": {"kind": "droptail", "capacity": spec.queue_capacity_pkts},
        "flow": flows,
    }
    if any(f.kind == "tcp" for f in spec.flows):
        sc["tcp"] = {
            "min_rto": spec.min_rto_s,
            "delayed_ack": spec.delayed_ack,
            "timestamps": spec.timestamps,
            "max_window": spec.max_window_pkts,
        }
    for path, value in spec.airqueue_overrides.items():
        _set(sc, path, value)
    return sc


def _set(sc: dict[str, Any], path: str, value: object) -> None:
    *parents, leaf = path.split(".")
    node = sc
    for p in parents:
        node = node.setdefault(p, {})
    if value is None:
        node.pop(leaf, None)
    else:
        node[leaf] = value


def run(spec: Spec, seed: int, overrides: dict[str, object] | None = None) -> RunResult:
    """Runs ``spec`` in airqueue (with ``overrides`` on top); goodput is the flows' window
    goodput (payload the sink received in [warmup, duration))."""
    import airqueue as aq

    sc = scenario(spec, seed)
    for path, value in (overrides or {}).items():
        _set(sc, path, value)
    res = aq.run(sc, traces=False)
    flows = [
        FlowResult(
            flow=int(r.id),
            goodput_bps=float(r.goodput_bps),
        )
        for r in res.flows.sort_values("id").itertuples()
    ]
    routing = res.summary.get("routing") or {}
    drops = res.summary.get("drops") or {}
    counters: dict[str, float] = {}
    for k, v in {**drops, **routing}.items():
        if isinstance(v, (int, float)) and not isinstance(v, bool):
            counters[k] = float(v)
    return RunResult("airqueue", spec.name, seed, flows, counters)
