"""``python -m validation.ns3.grid_study [--quick] [--airqueue-only]``: seed 001's
13 x 13 grid (8 TCP clients to the centre) under static routes and AODV variants, in
both simulators, with the counters that explain the gap: MAC retry-limit drops (each a
link break under MAC detection), AODV control packets, data dropped for want of a route
or on a broken link.
"""

from __future__ import annotations

import argparse
import sys
from dataclasses import replace

from validation.ns3 import airqueue_side
from validation.ns3.result import RunResult
from validation.ns3.spec import Spec, grid_spec

#: airqueue counters shown (summary "drops" and "routing" keys).
AQ_KEYS = (
    "mac_retry_limit",
    "link_breaks",
    "link_broken",
    "no_route",
    "no_route_timeout",
    "no_route_buffer_full",
    "route_discovery_failed",
    "discoveries_started",
    "rreq_forwarded",
    "rerr_sent",
    "hellos_sent",
)
#: ns-3 counters shown (validation.ns3.ns3_side._counters).
NS3_KEYS = (
    "queue_overflow",
    "control_queue_drops",
    "mac_reached_retry_limit",
    "mac_expired_lifetime",
    "mac_failed_enqueue",
    "aodv_control_packets",
    "ip_no_route",
    "ip_route_error",
)


def variants(quick: bool) -> list[tuple[str, Spec]]:
    """The configurations compared, each a full scenario."""
    base = grid_spec()
    if quick:
        base = base.quick_version()
    return [
        ("static routes", replace(base, routing="static", name="grid-static")),
        ("AODV, MAC detection (matched)", base),
        (
            "AODV, ns-3 defaults (HELLOs, 500-packet MAC queue, 0.5 s lifetime)",
            replace(
                base, ns3_aodv_hello=True, ns3_mac_queue_pkts=500, ns3_mac_queue_lifetime_s=0.5
            ),
        ),
        ("AODV, HELLO detection both", replace(base, aodv_link_detection="hello")),
        (
            "AODV, ns-3 with pre-filled ARP caches (no link-failure detection there)",
            replace(base, ns3_prefill_arp=True),
        ),
        (
            "static routes, no RTS/CTS",
            replace(base, routing="static", rts_cts=False, name="grid-static-basic"),
        ),
        (
            "static routes, airqueue with capture_db = 3 (ns-3's run is variant 0's)",
            replace(
                base,
                routing="static",
                name="grid-static-capture3",
                airqueue_overrides={"radio.capture_db": 3.0},
            ),
        ),
    ]


def _mean(runs: list[RunResult], key: str) -> float:
    return sum(r.counters.get(key, 0.0) for r in runs) / len(runs)


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="python -m validation.ns3.grid_study", description=__doc__)
    p.add_argument("--quick", action="store_true", help="40 s runs, one seed")
    p.add_argument("--airqueue-only", action="store_true", help="skip ns-3")
    p.add_argument("--only", type=int, nargs="+", metavar="I", help="variant indices")
    args = p.parse_args(argv)
    ns3_side = None
    if not args.airqueue_only:
        from validation.ns3 import ns3_side

        ns3_side.load()
    chosen = variants(args.quick)
    if args.only:
        chosen = [chosen[i] for i in args.only]
    for label, spec in chosen:
        aq = [airqueue_side.run(spec, s) for s in spec.seeds]
        ns = [ns3_side.run(spec, s) for s in spec.seeds] if ns3_side else []
        window = spec.duration_s - spec.warmup_s
        line = [f"{label}:"]
        for name, runs, keys in (("airqueue", aq, AQ_KEYS), ("ns-3", ns, NS3_KEYS)):
            if not runs:
                continue
            agg = sum(r.aggregate_bps for r in runs) / len(runs) / 1e6
            jain = sum(r.jain for r in runs) / len(runs)
            counts = ", ".join(f"{k} {_mean(runs, k):.0f}" for k in keys)
            line.append(f"  {name}: {agg:.3f} Mb/s, Jain {jain:.2f}; {counts}")
        line.append(f"  ({len(spec.seeds)} seed(s), window {window:g} s)")
        print("\n".join(line), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
