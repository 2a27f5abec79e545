"""``airqueue plot DIR --kind cdf|fairness|timeseries|aggregate|queues|topology [--x P]
[--run ID] [--at T] [--out FILE]``."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from airqueue.cli_common import EXIT_CONFIG, app, fail, reporting_errors

_KINDS = ("cdf", "fairness", "timeseries", "aggregate", "queues", "topology")


@app.command("plot")
def plot_command(
    results: Annotated[
        Path,
        typer.Argument(
            help="Results directory of a sweep (topology: also of one run).", show_default=False
        ),
    ],
    kind: Annotated[str, typer.Option(help=f"Plot kind: {' | '.join(_KINDS)}.")] = "cdf",
    x: Annotated[
        str | None,
        typer.Option("--x", help="Swept parameter on the x axis (fairness, aggregate)."),
    ] = None,
    run: Annotated[
        str | None,
        typer.Option(help="Run id to show (timeseries, queues, topology) [default: first]."),
    ] = None,
    at: Annotated[
        float | None,
        typer.Option(help="Time (s) to show (topology) [default: the mean over the run]."),
    ] = None,
    out: Annotated[
        Path | None,
        typer.Option(help="Output file, .png or .svg [default: DIR/plots/KIND.png]."),
    ] = None,
) -> None:
    """Plot a sweep's results (or one run's topology) with matplotlib."""
    from airqueue.plots import plot  # matplotlib is imported only by this command

    if kind not in _KINDS:
        expected = ", ".join(_KINDS)
        fail([f"--kind: unknown plot kind {kind!r}; expected one of {expected}"], EXIT_CONFIG)
    target = out if out is not None else results / "plots" / f"{kind}.png"
    with reporting_errors():
        try:
            plot(results, kind=kind, x=x, run=run, out=target, at=at)
        except ValueError as e:
            fail([str(e)], EXIT_CONFIG)
    typer.echo(f"wrote {target}")
