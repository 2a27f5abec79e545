"""``airqueue view RUN_DIR [--run ID] [--out FILE.html]``: the HTML run viewer (view.py)."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from airqueue.cli_common import EXIT_CONFIG, app, fail, reporting_errors


@app.command("view")
def view_command(
    results: Annotated[
        Path,
        typer.Argument(
            help="Output directory of `airqueue run --out`, or a sweep store.",
            show_default=False,
        ),
    ],
    run: Annotated[
        str | None, typer.Option(help="Run id, for a sweep store [default: the first].")
    ] = None,
    out: Annotated[
        Path | None, typer.Option(help="HTML file to write [default: RUN_DIR/view.html].")
    ] = None,
) -> None:
    """Write a self-contained HTML page to explore a run: topology, queues, flows, drops."""
    from airqueue.view import view

    with reporting_errors():
        try:
            target = view(results, out=out, run=run)
        except ValueError as e:
            fail([str(e)], EXIT_CONFIG)
    typer.echo(f"wrote {target}")
