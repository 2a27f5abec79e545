"""``airqueue sweep FILE --out DIR [--workers N] [--scheduler ADDRESS] [--force] [--serial]``."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Annotated

import typer

import airqueue
from airqueue.cli_common import EXIT_FAILURE, EXIT_INTERRUPTED, app, reporting_errors


@app.command("sweep")
def sweep_command(
    file: Annotated[
        str, typer.Argument(help="Sweep file (.toml, .yaml/.yml or .json).", show_default=False)
    ],
    out: Annotated[
        Path,
        typer.Option(help="Results directory; finished runs are skipped.", show_default=False),
    ],
    workers: Annotated[
        int | None,
        typer.Option(help="Worker processes of the local Dask cluster [default: one per CPU]."),
    ] = None,
    scheduler: Annotated[
        str | None,
        typer.Option(help="Address of an existing Dask scheduler, e.g. tcp://host:8786."),
    ] = None,
    force: Annotated[bool, typer.Option(help="Rerun runs that already finished.")] = False,
    serial: Annotated[
        bool, typer.Option(help="Run in this process, one run after another, without Dask.")
    ] = False,
    progress: Annotated[bool, typer.Option(help="Show the progress bar.")] = True,
) -> None:
    """Run every (grid point, seed) of a sweep into a results directory.

    A failed run is recorded in DIR/failed/ and the sweep goes on; the exit code is 1 when
    any run failed. Interrupted, the sweep keeps every finished run: rerun the same command
    to finish the rest.
    """
    with reporting_errors():
        try:
            df = airqueue.sweep(
                file,
                out=out,
                workers=workers,
                scheduler=scheduler,
                force=force,
                progress=progress,
                serial=serial,
            )
        except KeyboardInterrupt:
            print(
                f"interrupted: finished runs are kept in {out}; rerun the same command to "
                "finish the rest",
                file=sys.stderr,
            )
            raise typer.Exit(EXIT_INTERRUPTED) from None
    failed = df.attrs["failed"]
    typer.echo(
        f"{df.attrs['runs']} runs: {df.attrs['executed'] - len(failed)} ran, "
        f"{len(failed)} failed, {df.attrs['skipped']} already done; results in {out}"
    )
    for rec in failed:
        params = ", ".join(f"{k}={v!r}" for k, v in rec["params"].items())
        where = f"seed {rec['seed']}" + (f", {params}" if params else "")
        for error in rec["errors"] or ["(no message)"]:
            print(f"failed: run {rec['run_id']} ({where}): {error}", file=sys.stderr)
    if failed:
        raise typer.Exit(EXIT_FAILURE)
