"""Exceptions raised by airqueue. Each carries ``.errors``: one message per problem."""

from __future__ import annotations

from collections.abc import Iterable

__all__ = ["AirqueueError", "ConfigError", "SimulationError", "UserCodeError"]


class AirqueueError(Exception):
    """Base of every airqueue error."""

    errors: list[str]

    def __init__(self, errors: str | Iterable[str]) -> None:
        self.errors = [errors] if isinstance(errors, str) else [str(e) for e in errors]
        # args holds the list so the exception pickles (e.g. back from a sweep worker).
        super().__init__(self.errors)

    def __str__(self) -> str:
        if len(self.errors) == 1:
            return self.errors[0]
        return f"{len(self.errors)} problems:\n" + "\n".join(f"  {e}" for e in self.errors)


class ConfigError(AirqueueError, ValueError):
    """The scenario (file, keys or overrides) is invalid; ``.errors`` lists every problem."""


class SimulationError(AirqueueError, RuntimeError):
    """The simulation itself failed (an internal error); please report it."""


class UserCodeError(AirqueueError, RuntimeError):
    """Code given to a run (``aq.run(..., queue=..., cc=...)``) raised or misbehaved; the
    message names the method, node, simulated time and packet, and ``__cause__`` is the
    user's own exception with its traceback."""
