"""A reproduction's parameters: its frozen ``Config`` dataclass, overridden from
``airqueue.reproduce(NAME, params={...})`` or ``--param KEY=VALUE``, and reported back in
``report.json``."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import replace
from typing import Any

__all__ = ["apply_params", "as_params", "make_config"]


def apply_params(base: Any, params: Mapping[str, Any] | None) -> Any:
    """``base`` (a frozen Config dataclass) with ``params`` replacing fields; each value
    must have its field's type (a list for a tuple field; an int where a float is
    expected); a field whose default is ``None`` (a value derived when not given) takes
    any value and the reproduction checks it. Raises ValueError naming the parameter."""
    params = dict(params or {})
    fields = type(base).__dataclass_fields__
    unknown = set(params) - set(fields)
    if unknown:
        raise ValueError(f"unknown parameter(s) {sorted(unknown)}; known: {sorted(fields)}")
    problems = []
    for key, value in params.items():
        current = getattr(base, key)
        if current is None:
            continue
        if isinstance(current, tuple) and isinstance(value, (list, tuple)):
            params[key] = value = tuple(value)
        expected = type(current)
        ok = isinstance(value, expected) and not (isinstance(value, bool) and expected is not bool)
        if expected is float and isinstance(value, int) and not isinstance(value, bool):
            params[key] = float(value)
            ok = True
        if not ok:
            problems.append(
                f"parameter {key}: expected {expected.__name__} like {current!r}, got {value!r}"
            )
    if problems:
        raise ValueError("; ".join(problems))
    return replace(base, **params)


def as_params(config: Any) -> dict[str, Any]:
    """Every field of ``config`` by name (what a result reports as its parameters)."""
    return {k: getattr(config, k) for k in type(config).__dataclass_fields__}


def make_config(
    name: str, base: Any, params: Mapping[str, Any] | None, check: Callable[[Any], None]
) -> Any:
    """``base`` with ``params`` applied (``apply_params``) and passed through ``check``
    (which raises ValueError listing the problems); the error is prefixed with the
    reproduction's ``name``."""
    try:
        config = apply_params(base, params)
        check(config)
    except ValueError as e:
        raise ValueError(f"{name}: {e}") from None
    return config
