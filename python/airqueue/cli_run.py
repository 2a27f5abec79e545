"""``airqueue run SCENARIO [--seed N] [--duration T] [--out DIR] [--json]``."""

from __future__ import annotations

import json
import math
import sys
from pathlib import Path
from typing import Annotated, Any

import typer
from rich.console import Console
from rich.markup import escape
from rich.table import Table

import airqueue
from airqueue.cli_common import EXIT_INTERRUPTED, app, reporting_errors


@app.command("run")
def run_command(
    scenario: Annotated[
        str, typer.Argument(help="Scenario file (.toml, .yaml/.yml or .json).", show_default=False)
    ],
    seed: Annotated[int | None, typer.Option(help="Run seed (overrides the scenario's).")] = None,
    duration: Annotated[
        float | None, typer.Option(help="Simulated seconds (overrides the scenario's).")
    ] = None,
    out: Annotated[
        Path | None, typer.Option(help="Write tables (Parquet) and manifest.json here.")
    ] = None,
    as_json: Annotated[
        bool, typer.Option("--json", help="Print only the summary as one JSON object.")
    ] = False,
    progress: Annotated[
        bool | None,
        typer.Option(
            "--progress/--no-progress",
            help="Show simulated time on stderr while the run goes (default: when stderr "
            "is a terminal).",
            show_default=False,
        ),
    ] = None,
) -> None:
    """Run one scenario and print its summary. Ctrl-C stops the run (exit 130)."""
    show = sys.stderr.isatty() if progress is None else progress
    with reporting_errors():
        try:
            # The trace tables stream into OUT as the run goes; nobody reads them otherwise.
            results = airqueue.run(
                scenario,
                seed=seed,
                duration=duration,
                progress=show,
                out=out,
                traces=False,
            )
        except KeyboardInterrupt:
            print("interrupted: the run was stopped; nothing was written", file=sys.stderr)
            raise typer.Exit(EXIT_INTERRUPTED) from None
    if as_json:
        typer.echo(results.to_json())
        return
    console = Console(highlight=False)
    _print_summary(console, results.summary)
    if out is not None:
        console.print(f"wrote tables and manifest to {escape(str(out))}")


def _print_summary(console: Console, s: dict[str, Any]) -> None:
    table = Table(title=escape(f"{s.get('name')} (seed {s.get('seed')})"))
    for col in ("flow", "kind", "src -> dst", "goodput", "sent", "delivered", "mean delay"):
        table.add_column(col, justify="left" if col in ("kind", "src -> dst") else "right")
    for f in s.get("flows", []):
        table.add_row(
            str(f.get("id")),
            escape(str(f.get("kind"))),
            f"{f.get('src')} -> {f.get('dst')}",
            _bps(f.get("goodput_bps")),
            str(f.get("packets_sent")),
            str(f.get("packets_delivered")),
            _seconds(f.get("mean_delay_s")),
        )
    console.print(table)
    drops = s.get("drops") or {}
    lines = [
        ("aggregate goodput", _bps(s.get("aggregate_goodput_bps"))),
        ("Jain index", _num(s.get("jain_index"), "{:.4f}")),
        ("log utility", _num(s.get("log_utility"), "{:.3f}")),
        ("starved flows", _starved(s.get("starved_flows"), s.get("starved_flow_ids"))),
        ("drops", ", ".join(f"{k}: {v}" for k, v in drops.items() if v) or "none"),
        *_routing_line(s.get("routing")),
        (
            "simulated",
            f"{_num(s.get('simulated_seconds'), '{:g}')} s in "
            f"{_num(s.get('wall_seconds'), '{:.3g}')} s wall, {s.get('events')} events",
        ),
    ]
    for label, value in lines:
        console.print(f"{label + ':':<19} {escape(value)}", soft_wrap=True)


def _routing_line(r: Any) -> list[tuple[str, str]]:
    """One line of AODV or OLSR overhead; nothing for static routing."""
    if isinstance(r, dict) and r.get("kind") == "olsr":
        return [
            (
                "olsr",
                f"HELLO {r.get('hellos_sent')}, TC {r.get('tcs_originated')} + "
                f"{r.get('tcs_forwarded')} relayed, recalculations "
                f"{r.get('route_recomputations')}, route changes {r.get('route_changes')}, "
                f"min LQ {_num(r.get('min_lq'), '{:.2f}')}, mean link ETX "
                f"{_num(r.get('mean_link_etx'), '{:.3f}')}",
            )
        ]
    if not isinstance(r, dict) or r.get("kind") != "aodv":
        return []
    # Only with [routing] local_repair = true does the summary have the repair counters.
    repairs = (
        f", local repairs {r['local_repairs']} (failed {r.get('local_repair_failures')})"
        if "local_repairs" in r
        else ""
    )
    return [
        (
            "aodv",
            f"discoveries {r.get('discoveries_succeeded')}/{r.get('discoveries_started')} "
            f"(failed {r.get('discoveries_failed')}), link breaks {r.get('link_breaks')}, "
            f"RREQ {r.get('rreq_originated')} + {r.get('rreq_forwarded')} relayed, "
            f"RREP {r.get('rrep_sent')}, RERR {r.get('rerr_sent')}{repairs}",
        )
    ]


def _starved(count: Any, ids: Any) -> str:
    if isinstance(count, list):  # a list of flow ids
        count, ids = len(count), count
    if not ids:
        return "-" if count is None else str(count)
    return f"{count} (flows {', '.join(map(str, ids))})"


def _num(value: Any, fmt: str) -> str:
    if isinstance(value, (int, float)) and not isinstance(value, bool) and math.isfinite(value):
        return fmt.format(value)
    return "-" if value is None else json.dumps(value)


def _bps(value: Any) -> str:
    if not isinstance(value, (int, float)) or isinstance(value, bool):
        return "-"
    for unit, scale in (("Mb/s", 1e6), ("kb/s", 1e3)):
        if abs(value) >= scale:
            return f"{value / scale:.3f} {unit}"
    return f"{value:.1f} b/s"


def _seconds(value: Any) -> str:
    if not isinstance(value, (int, float)) or isinstance(value, bool):
        return "-"
    return f"{value * 1e3:.3f} ms"
