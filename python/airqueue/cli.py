"""The ``airqueue`` command line. Each command lives in its own module and is enabled by
one import below; see ``cli_common.py`` for the shared app and error handling."""

from __future__ import annotations

import airqueue.cli_plot  # noqa: F401  (registers `airqueue plot`)
import airqueue.cli_reproduce  # noqa: F401  (registers `airqueue reproduce`)
import airqueue.cli_sweep  # noqa: F401  (registers `airqueue sweep`)
import airqueue.cli_view  # noqa: F401  (registers `airqueue view`)
from airqueue import cli_run  # noqa: F401  (registers `airqueue run`)
from airqueue.cli_common import app

__all__ = ["app", "main"]


def main() -> None:
    """Entry point of the ``airqueue`` script and ``python -m airqueue``."""
    app(prog_name="airqueue")
