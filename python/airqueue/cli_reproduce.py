"""``airqueue reproduce --list``, ``airqueue reproduce NAME [--quick] [--out DIR] [--json]
[--workers N] [--serial] [--param KEY=VALUE ...]``, ``airqueue reproduce all``: every paper
result in turn, and ``airqueue reproduce --claims [DIR]``: the claims scoreboard of an
output directory."""

from __future__ import annotations

import contextlib
import json
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Annotated

import typer

from airqueue.cli_common import EXIT_CONFIG, EXIT_INTERRUPTED, app, fail, reporting_errors
from airqueue.reproduce import IN_ALL, NAMES, ReproductionResult, default_out, reproduce
from airqueue.reproduce import reproduce_all as run_all
from airqueue.reproduce.registry import REPRODUCTIONS


def _list_lines() -> list[str]:
    """One line per reproduction: its name and what it reproduces; then ``all``."""
    width = max(len(n) for n in (*NAMES, "all"))
    lines = [f"{n:<{width}}  {REPRODUCTIONS[n][1]} (seed {REPRODUCTIONS[n][2]})" for n in NAMES]
    in_all = "every one above but " + ", ".join(n for n in NAMES if n not in IN_ALL)
    lines.append(f"{'all':<{width}}  {in_all}, with one summary (OUT/summary.md)")
    return lines


@app.command(
    "reproduce",
    help="Reproduce a seed paper's result: a table of paper value vs ours, and plots. "
    "NAME is a reproduction or all (every one but diffq-sensitivity, with OUT/summary.md and "
    "the seed papers' claims in OUT/claims.json); --list names them, one line each; "
    "--claims [DIR] prints the claims scoreboard of an output directory.",
    short_help="Reproduce a seed paper's result (--list for the names).",
)
def reproduce_command(
    name: Annotated[
        str | None,
        typer.Argument(
            help="Reproduction (see --list), or all; with --claims, the output directory "
            "(default out/reproduce).",
            show_default=False,
        ),
    ] = None,
    list_names: Annotated[
        bool, typer.Option("--list", help="List the reproductions, one line each, and exit.")
    ] = False,
    quick: Annotated[
        bool, typer.Option(help="Reduced configuration: fewer seeds, shorter runs.")
    ] = False,
    out: Annotated[
        Path | None,
        typer.Option(
            help="Output directory (store, plots, rows) (default: out/reproduce/NAME; "
            "for all: out/reproduce, one directory per reproduction)."
        ),
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
    claims: Annotated[
        bool,
        typer.Option(
            "--claims",
            help="Print the scoreboard of the seed papers' claims for an existing output "
            "directory (NAME), as `reproduce all` wrote it; with --json, the claims.",
        ),
    ] = False,
) -> None:
    if list_names:
        for line in _list_lines():
            typer.echo(line)
        return
    if claims:
        _print_claims(Path(name) if name is not None else default_out("all").parent, json_output)
        return
    if name is None:
        fail(
            ["missing NAME: which reproduction? `airqueue reproduce --list` names them"],
            EXIT_CONFIG,
        )
    if name not in NAMES and name != "all":
        fail(
            [
                f"unknown reproduction {name!r}; expected one of {', '.join(NAMES)}, or all "
                "(`airqueue reproduce --list` says what each does)"
            ],
            EXIT_CONFIG,
        )
    if workers is not None and workers < 1:
        fail([f"--workers: expected an integer >= 1, got {workers}"], EXIT_CONFIG)
    if name == "all":
        if param:
            fail(
                [
                    "--param: overrides one reproduction's Config and does not apply to "
                    "all; run that reproduction by name with --param instead"
                ],
                EXIT_CONFIG,
            )
        _reproduce_all(
            quick=quick,
            out=out,
            json_output=json_output,
            workers=workers,
            serial=serial,
            progress=progress,
        )
        return
    params = _params(param or [])
    target = out if out is not None else default_out(name)
    with reporting_errors(), _interruptible(f"in {target / 'store'}"):
        result = reproduce(
            name,
            quick=quick,
            out=target,
            workers=workers,
            serial=serial,
            progress=progress and not json_output and sys.stderr.isatty(),
            params=params,
        )
    if json_output:
        typer.echo(json.dumps(result.to_rows(), indent=2, allow_nan=False))
    else:
        result.render()


def _reproduce_all(
    *,
    quick: bool,
    out: Path | None,
    json_output: bool,
    workers: int | None,
    serial: bool,
    progress: bool,
) -> None:
    """Runs ``IN_ALL`` in turn: each table as it finishes (or, with ``--json``, one JSON
    object of rows by name at the end), then where the summary went."""
    target = out if out is not None else default_out("all").parent
    bars = progress and not json_output and sys.stderr.isatty()

    def started(i: int, n: int, name: str) -> None:
        print(f"[{i}/{n}] {name}: {REPRODUCTIONS[name][1]}", file=sys.stderr, flush=True)

    def finished(result: ReproductionResult) -> None:
        if not json_output:
            result.render()

    with reporting_errors(), _interruptible(f"under {target}"):
        results = run_all(
            quick=quick,
            out=target,
            workers=workers,
            serial=serial,
            progress=bars,
            on_start=started,
            on_result=finished,
        )
    if json_output:
        rows = {name: r.to_rows() for name, r in results.items()}
        typer.echo(json.dumps(rows, indent=2, allow_nan=False))
    else:
        total = sum(r.wall_seconds for r in results.values())
        typer.echo(
            f"{len(results)} reproductions ({', '.join(IN_ALL)}) in {total:.0f} s; "
            f"summary: {target / 'summary.md'}"
        )
        _print_claims(target, False)


def _print_claims(root: Path, json_output: bool) -> None:
    """The claims scoreboard (or, with ``json_output``, the claims) of ``root``."""
    from airqueue.reproduce.claims import render_scoreboard, score

    if not root.is_dir():
        fail(
            [
                f"--claims {root}: no such directory; run `airqueue reproduce all --out "
                f"{root}` first"
            ],
            EXIT_CONFIG,
        )
    with reporting_errors():
        outcomes = score(root)
    if json_output:
        typer.echo(json.dumps([o.to_dict() for o in outcomes], indent=2, allow_nan=False))
        return
    render_scoreboard(outcomes, title=f"claims of the seed papers in {root}")
    if (root / "claims.json").is_file():
        typer.echo(f"claims: {root / 'claims.json'}")


@contextlib.contextmanager
def _interruptible(where: str) -> Iterator[None]:
    """Turns Ctrl-C into a one-line note of where the finished runs are and exit 130."""
    try:
        yield
    except KeyboardInterrupt:
        print(
            f"interrupted: finished runs are kept {where}; rerun the same command to "
            "finish the rest",
            file=sys.stderr,
        )
        raise typer.Exit(EXIT_INTERRUPTED) from None


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
