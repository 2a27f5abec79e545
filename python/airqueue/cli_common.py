"""The ``airqueue`` Typer app and what its commands share: error reporting, exit codes.

A command lives in its own module (``cli_run.py``, ``cli_sweep.py`` ...), decorates a
function with ``@app.command()``, and is enabled by one import in ``cli.py``.
"""

from __future__ import annotations

import sys
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from typing import Annotated, NoReturn

import typer

from airqueue import _core
from airqueue.errors import AirqueueError, ConfigError

__all__ = ["EXIT_CONFIG", "EXIT_FAILURE", "EXIT_INTERRUPTED", "app", "fail", "reporting_errors"]

#: Exit code for an invalid scenario, file or option.
EXIT_CONFIG = 2
#: Exit code for a run that failed.
EXIT_FAILURE = 1
#: Exit code of a command stopped by Ctrl-C (128 + SIGINT), as shells report it.
EXIT_INTERRUPTED = 130

app = typer.Typer(
    name="airqueue",
    help="Simulate congestion control, scheduling and queue management in 802.11 networks.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_show_locals=False,
)


def _print_version(value: bool) -> None:
    if value:
        typer.echo(f"airqueue {_core.version()} (git {_core.git_hash()})")
        raise typer.Exit()


@app.callback()
def _root(
    version: Annotated[
        bool,
        typer.Option(
            "--version", callback=_print_version, is_eager=True, help="Print the version."
        ),
    ] = False,
) -> None:
    """Simulate congestion control, scheduling and queue management in 802.11 networks."""


def fail(messages: Iterable[str], code: int) -> NoReturn:
    """Prints each message as ``error: ...`` on stderr and exits with ``code``."""
    for message in messages:
        # Plain text: rich markup would eat key paths such as "flow[0].rate".
        print(f"error: {message}", file=sys.stderr)
    raise typer.Exit(code)


@contextmanager
def reporting_errors() -> Iterator[None]:
    """Turns airqueue and I/O errors into ``error:`` lines and exit codes, no traceback."""
    try:
        yield
    except ConfigError as e:
        fail(e.errors, EXIT_CONFIG)
    except AirqueueError as e:
        fail(e.errors, EXIT_FAILURE)
    except OSError as e:
        where = f"{e.filename}: " if e.filename else ""
        fail([f"{where}{e.strerror or e}"], EXIT_FAILURE)
