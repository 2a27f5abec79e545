"""``python -m validation.ns3 [--quick] [--only NAME ...] [--airqueue-only] [--json FILE]``:
runs every scenario of ``spec.all_specs()`` in airqueue and in ns-3 and prints both side
by side (aggregate goodput, Jain's index, starved flows, per-flow goodputs, and Bianchi's
model for the saturated stars). Needs the optional ``ns3`` extra for the ns-3 half.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from dataclasses import asdict, replace

from validation.ns3 import airqueue_side, bianchi
from validation.ns3.result import RunResult
from validation.ns3.spec import Spec, all_specs

#: A flow below this fraction of its fair share (aggregate / flows) counts as starved.
STARVED_FRACTION = 0.1


def _mean(xs: list[float]) -> float:
    return sum(xs) / len(xs) if xs else float("nan")


def summarise(spec: Spec, runs: list[RunResult]) -> dict[str, float]:
    """Means over seeds of aggregate goodput (bit/s), Jain's index and starved flows."""
    aggs = [r.aggregate_bps for r in runs]
    fair = _mean(aggs) / max(1, len(spec.flows))
    return {
        "aggregate_bps": _mean(aggs),
        "jain": _mean([r.jain for r in runs]),
        "starved": _mean([float(r.starved(STARVED_FRACTION * fair)) for r in runs]),
    }


def compare_line(
    spec: Spec,
    aq: dict[str, float],
    ns3: dict[str, float] | None,
    variants: dict[str, dict[str, float]],
) -> str:
    a = aq["aggregate_bps"] / 1e6
    cols = [f"{spec.name:<20}", f"aq {a:7.3f} Mb/s J {aq['jain']:.2f} st {aq['starved']:4.1f}"]
    if ns3 is not None:
        b = ns3["aggregate_bps"] / 1e6
        gap = (a - b) / b * 100 if b > 0 else float("nan")
        cols.append(f"ns-3 {b:7.3f} Mb/s J {ns3['jain']:.2f} st {ns3['starved']:4.1f}")
        cols.append(f"gap {gap:+6.1f}% dJ {aq['jain'] - ns3['jain']:+.2f}")
    if spec.bianchi_stations:
        n = spec.bianchi_stations
        d = bianchi.saturation_bps(n, data_rate_bps=spec.data_rate_bps) / 1e6
        e = bianchi.saturation_bps(n, data_rate_bps=spec.data_rate_bps, after_collision="eifs")
        cols.append(f"Bianchi {d:.3f} (EIFS {e / 1e6:.3f})")
    for label, v in variants.items():
        cols.append(f"aq {label}: {v['aggregate_bps'] / 1e6:.3f} Mb/s J {v['jain']:.2f}")
    return " | ".join(cols)


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="python -m validation.ns3", description=__doc__)
    p.add_argument("--quick", action="store_true", help="shorter runs, one seed each")
    p.add_argument("--only", nargs="+", metavar="NAME", help="scenarios to run (names or families)")
    p.add_argument("--airqueue-only", action="store_true", help="skip ns-3")
    p.add_argument("--list", action="store_true", help="list the scenarios and exit")
    p.add_argument("--seeds", type=int, metavar="N", help="run seeds 1..N instead")
    p.add_argument("--json", metavar="FILE", help="write every run's per-flow results here")
    p.add_argument(
        "--markdown", metavar="FILE", help="write the side-by-side tables (docs/validation.md's)"
    )
    args = p.parse_args(argv)

    specs = all_specs()
    if args.list:
        for s in specs:
            print(f"{s.name:<22} {s.family:<10} {s.description}")
        return 0
    if args.only:
        wanted = set(args.only)
        unknown = wanted - {s.name for s in specs} - {s.family for s in specs}
        if unknown:
            names = ", ".join(s.name for s in specs)
            print(
                f"error: --only: unknown scenario(s) {sorted(unknown)}; known: {names}",
                file=sys.stderr,
            )
            return 2
        specs = [s for s in specs if s.name in wanted or s.family in wanted]
    if args.quick:
        specs = [s.quick_version() for s in specs]
    if args.seeds:
        specs = [replace(s, seeds=tuple(range(1, args.seeds + 1))) for s in specs]

    ns3_side = None
    if not args.airqueue_only:
        from validation.ns3 import ns3_side

        ns3_side.load()

    records = []
    for spec in specs:
        aq_runs, ns_runs = [], []
        for seed in spec.seeds:
            t0 = time.monotonic()
            aq_runs.append(airqueue_side.run(spec, seed))
            t1 = time.monotonic()
            if ns3_side is not None:
                ns_runs.append(ns3_side.run(spec, seed))
            t2 = time.monotonic()
            print(
                f"  {spec.name} seed {seed}: airqueue {t1 - t0:.1f} s, ns-3 {t2 - t1:.1f} s",
                file=sys.stderr,
                flush=True,
            )
        variant_runs = {
            label: [airqueue_side.run(spec, seed, overrides) for seed in spec.seeds]
            for label, overrides in spec.variants
        }
        aq = summarise(spec, aq_runs)
        ns = summarise(spec, ns_runs) if ns_runs else None
        variants = {label: summarise(spec, runs) for label, runs in variant_runs.items()}
        print(compare_line(spec, aq, ns, variants), flush=True)
        records.append(
            {
                "scenario": spec.name,
                "family": spec.family,
                "duration_s": spec.duration_s,
                "warmup_s": spec.warmup_s,
                "airqueue": aq,
                "ns3": ns,
                "variants": variants,
                "runs": [asdict(r) for r in aq_runs + ns_runs],
            }
        )
    if args.json:
        with open(args.json, "w") as fh:
            json.dump(records, fh, indent=1)
    if args.markdown:
        with open(args.markdown, "w") as fh:
            fh.write(markdown(records))
    return 0


def markdown(records: list[dict]) -> str:
    """One table per scenario family: aggregate goodput, Jain's index and starved flows
    on both sides, the gap, and the airqueue-only variants and Bianchi where they apply."""
    out = []
    families: dict[str, list[dict]] = {}
    for r in records:
        families.setdefault(r["family"], []).append(r)
    for family, recs in families.items():
        variant_labels = sorted({v for r in recs for v in (r.get("variants") or {})})
        head = ["scenario", "window s", "seeds", "airqueue Mb/s", "ns-3 Mb/s", "gap"]
        head += ["Jain aq", "Jain ns-3", "starved aq", "starved ns-3"]
        head += [f"aq {v} Mb/s" for v in variant_labels]
        bianchi_col = any(by_name_bianchi(r) for r in recs)
        if bianchi_col:
            head += ["Bianchi DIFS Mb/s", "Bianchi EIFS Mb/s"]
        out.append(f"### {family}\n")
        out.append("| " + " | ".join(head) + " |")
        out.append("|" + "---|" * len(head))
        for r in recs:
            a, n = r["airqueue"], r["ns3"]
            seeds = len({run["seed"] for run in r["runs"]})
            cells = [r["scenario"], f"{r['duration_s'] - r['warmup_s']:g}", str(seeds)]
            cells.append(f"{a['aggregate_bps'] / 1e6:.3f}")
            if n:
                gap = (a["aggregate_bps"] - n["aggregate_bps"]) / n["aggregate_bps"] * 100
                cells += [f"{n['aggregate_bps'] / 1e6:.3f}", f"{gap:+.1f}%"]
            else:
                cells += ["", ""]
            cells += [f"{a['jain']:.2f}", f"{n['jain']:.2f}" if n else ""]
            cells += [f"{a['starved']:.1f}", f"{n['starved']:.1f}" if n else ""]
            for v in variant_labels:
                val = (r.get("variants") or {}).get(v)
                cells.append(f"{val['aggregate_bps'] / 1e6:.3f}" if val else "")
            if bianchi_col:
                stations = by_name_bianchi(r)
                if stations:
                    d = bianchi.saturation_bps(stations) / 1e6
                    e = bianchi.saturation_bps(stations, after_collision="eifs") / 1e6
                    cells += [f"{d:.3f}", f"{e:.3f}"]
                else:
                    cells += ["", ""]
            out.append("| " + " | ".join(cells) + " |")
        out.append("")
    return "\n".join(out)


def by_name_bianchi(record: dict) -> int | None:
    """The saturated stations of a record's scenario, if Bianchi's model applies."""
    from validation.ns3.spec import by_name

    spec = by_name().get(record["scenario"])
    return spec.bianchi_stations if spec else None


if __name__ == "__main__":
    raise SystemExit(main())
