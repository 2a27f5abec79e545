"""``airqueue reproduce NAME [--quick] [--out DIR] [--json] [--workers N] [--serial]
[--param KEY=VALUE ...]``."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Annotated

import typer

from airqueue.cli_common import EXIT_CONFIG, app, fail, reporting_errors
from airqueue.reproduce import NAMES, default_out, reproduce
from airqueue.reproduce.registry import REPRODUCTIONS

#: Exit code of a reproduction stopped by Ctrl-C (128 + SIGINT), as shells report it.
EXIT_INTERRUPTED = 130


def _names_help() -> str:
    return "; ".join(f"{n}: {REPRODUCTIONS[n][1]}" for n in NAMES)


@app.command("reproduce", help=f"Reproduce a seed paper's result. Names: {_names_help()}.")
def reproduce_command(
    name: Annotated[
        str,
        typer.Argument(help=f"Reproduction: {' | '.join(NAMES)}.", show_default=False),
    ],
    quick: Annotated[
        bool, typer.Option(help="Reduced configuration: fewer seeds, shorter runs.")
    ] = False,
    out: Annotated[
        Path | None,
        typer.Option(help="Output directory (store, plots, rows) (default: out/reproduce/NAME)."),
    ] = None,
    json_output: Annotated[
        bool,
        typer.Option(
            "--json", help="Print the rows as JSON: [{metric, paper, ours, ci_low, ci_high}]."
        ),
    ] = False,
    workers: Annotated[
        int | None,
        typer.Option(help="Worker processes of the local Dask cluster (default: one per CPU)."),
    ] = None,
    serial: Annotated[
        bool, typer.Option(help="Run in this process, one run after another, without Dask.")
    ] = False,
    progress: Annotated[
        bool, typer.Option(help="Show the sweeps' progress bars (on stderr).")
    ] = True,
    param: Annotated[
        list[str] | None,
        typer.Option(
            "--param",
            help="Override a field of the reproduction's Config, KEY=VALUE, VALUE as JSON "
            "(a bare word is a string); repeatable. E.g. --param diffq_d=24 "
            "--param seeds=3 --param flow_counts=[16,32].",
            show_default=False,
        ),
    ] = None,
) -> None:
    """Reproduce a seed paper's result: a table of paper value vs ours, and plots."""
    if name not in NAMES:
        fail([f"unknown reproduction {name!r}; expected one of {', '.join(NAMES)}"], EXIT_CONFIG)
    if workers is not None and workers < 1:
        fail([f"--workers: expected an integer >= 1, got {workers}"], EXIT_CONFIG)
    params = _params(param or [])
    target = out if out is not None else default_out(name)
    with reporting_errors():
        try:
            result = reproduce(
                name,
                quick=quick,
                out=target,
                workers=workers,
                serial=serial,
                progress=progress and not json_output and sys.stderr.isatty(),
                params=params,
            )
        except KeyboardInterrupt:
            print(
                f"interrupted: finished runs are kept in {target / 'store'}; rerun the same "
                "command to finish the rest",
                file=sys.stderr,
            )
            raise typer.Exit(EXIT_INTERRUPTED) from None
    if json_output:
        typer.echo(json.dumps(result.to_rows(), indent=2, allow_nan=False))
    else:
        result.render()


def _params(items: list[str]) -> dict[str, object]:
    """``KEY=VALUE`` pairs from ``--param``; VALUE is JSON, or else a plain string."""
    params: dict[str, object] = {}
    problems = []
    for item in items:
        key, sep, text = item.partition("=")
        if not sep or not key.strip():
            problems.append(f"--param {item!r}: expected KEY=VALUE, e.g. --param seeds=3")
            continue
        try:
            params[key.strip()] = json.loads(text)
        except json.JSONDecodeError:
            params[key.strip()] = text
    if problems:
        fail(problems, EXIT_CONFIG)
    return params
