"""Scenarios: the keys of a scenario file (TOML, YAML or JSON) as a plain dict."""

from __future__ import annotations

import copy
import json
import math
import os
import re
import sys
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import yaml

from airqueue import _core
from airqueue.errors import ConfigError, SimulationError

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover
    import tomli as tomllib

__all__ = ["Scenario", "ScenarioLike", "load_scenario"]

_TOKEN = re.compile(r"([^.\[\]]+)|\[(-?\d+)\]")


class Scenario:
    """A scenario: the file's keys, unvalidated until ``validate()`` or ``run()``.

    Instances are treated as values: ``with_overrides`` returns a new one.
    """

    __slots__ = ("_data", "source")

    def __init__(self, data: Mapping[str, Any], *, source: Path | None = None) -> None:
        if not isinstance(data, Mapping):
            raise ConfigError(f"a scenario must be a mapping of keys, not {type(data).__name__}")
        self._data: dict[str, Any] = copy.deepcopy(dict(data))
        self.source = source

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> Scenario:
        """Builds a scenario from a dict with the same keys as a scenario file."""
        return cls(data)

    @classmethod
    def load(cls, path: str | os.PathLike[str]) -> Scenario:
        """Reads a .toml, .yaml/.yml or .json scenario file; raises ConfigError if it can't."""
        path = Path(path)
        try:
            text = path.read_text(encoding="utf-8")
        except FileNotFoundError:
            raise ConfigError(f"{path}: no such file") from None
        except UnicodeDecodeError:
            raise ConfigError(f"{path}: not UTF-8 text") from None
        except OSError as e:
            raise ConfigError(f"{path}: cannot read: {e.strerror or e}") from None
        reader = _READERS.get(path.suffix.lower())
        if reader is None:
            raise ConfigError(
                f"{path}: unknown scenario format {path.suffix or '(no extension)'!r}; "
                "use .toml, .yaml, .yml or .json"
            )
        data = reader(path, text)
        if not isinstance(data, Mapping):
            raise ConfigError(f"{path}: the top level must be a table of keys")
        return cls(data, source=path)

    @property
    def name(self) -> str:
        """The scenario's ``name`` key, or "unnamed"."""
        return str(self._data.get("name", "unnamed"))

    def to_dict(self) -> dict[str, Any]:
        """A deep copy of the keys."""
        return copy.deepcopy(self._data)

    def to_json(self) -> str:
        """The keys as JSON text, as the core reads them."""
        problems = _json_problems(self._data, "")
        if problems:
            raise ConfigError(problems)
        return json.dumps(self._data, allow_nan=False)

    def with_overrides(self, overrides: Mapping[str, Any]) -> Scenario:
        """A copy with keys set by dotted path: ``{"queue.capacity": 10, "flow[0].rate": 1e6}``.

        Missing tables along the path are created; list indices must exist.
        """
        data = copy.deepcopy(self._data)
        problems = []
        for key, value in overrides.items():
            try:
                _set_path(data, key, copy.deepcopy(value))
            except ConfigError as e:
                problems.extend(e.errors)
        if problems:
            raise ConfigError(problems)
        return Scenario(data, source=self.source)

    def validate(self) -> None:
        """Checks the scenario in the core; raises ConfigError listing every problem."""
        report = decode_report(_core.validate(self.to_json()))
        if not report.get("ok"):
            raise ConfigError(report.get("errors") or ["invalid scenario"])

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Scenario) and self._data == other._data

    __hash__ = None  # type: ignore[assignment]

    def __repr__(self) -> str:
        origin = f", source={str(self.source)!r}" if self.source else ""
        return f"Scenario(name={self.name!r}{origin})"


#: What ``run()`` and ``load_scenario()`` accept.
ScenarioLike = Scenario | Mapping[str, Any] | str | os.PathLike[str]


def load_scenario(scenario: ScenarioLike) -> Scenario:
    """A Scenario from a Scenario (returned as is), a dict of keys, or a file path."""
    if isinstance(scenario, Scenario):
        return scenario
    if isinstance(scenario, Mapping):
        return Scenario.from_dict(scenario)
    if isinstance(scenario, (str, os.PathLike)):
        return Scenario.load(scenario)
    raise ConfigError(f"expected a Scenario, a dict or a file path, not {type(scenario).__name__}")


def decode_report(text: str) -> dict[str, Any]:
    """Parses a report from the core; malformed text is an internal error."""
    try:
        report = json.loads(text)
    except json.JSONDecodeError as e:
        raise SimulationError(f"internal error: malformed report from the core: {e}") from None
    if not isinstance(report, dict):
        raise SimulationError("internal error: the core's report is not a JSON object")
    return report


def _json_problems(value: object, path: str) -> list[str]:
    """Each value the core cannot read, by its key path: a non-finite number or a type a
    scenario file cannot hold (a scenario is numbers, strings, booleans, lists, tables)."""
    where = path or "(top level)"
    if isinstance(value, Mapping):
        problems = []
        for key, item in value.items():
            if not isinstance(key, str):
                problems.append(f"{where}: key {key!r} is not a string; keys are names")
                continue
            problems.extend(_json_problems(item, f"{path}.{key}" if path else key))
        return problems
    if isinstance(value, (list, tuple)):
        return [p for i, item in enumerate(value) for p in _json_problems(item, f"{path}[{i}]")]
    if isinstance(value, float) and not math.isfinite(value):
        return [f"{where}: {value!r} is not a finite number; give a finite value"]
    if value is None or isinstance(value, (str, bool, int, float)):
        return []
    return [
        f"{where}: a {type(value).__name__} value ({value!r:.60}) cannot be a scenario value; "
        "use numbers, strings, booleans, lists or tables"
    ]


def _parse_path(key: str) -> list[str | int]:
    tokens: list[str | int] = []
    pos = 0
    for m in _TOKEN.finditer(key):
        gap = key[pos : m.start()]
        if gap not in ("", "."):
            break
        tokens.append(m.group(1) if m.group(1) is not None else int(m.group(2)))
        pos = m.end()
    if not tokens or pos != len(key) or key.startswith(".") or key.endswith("."):
        raise ConfigError(f"{key!r}: not a key path like 'queue.capacity' or 'flow[0].rate'")
    return tokens


def _set_path(data: dict[str, Any], key: str, value: Any) -> None:
    tokens = _parse_path(key)
    node: Any = data
    for i, token in enumerate(tokens):
        if isinstance(token, int):
            if not isinstance(node, list):
                raise ConfigError(f"{key}: {_path_text(tokens[:i])} is not a list")
            if not -len(node) <= token < len(node):
                raise ConfigError(f"{key}: index {token} out of range ({len(node)} entries)")
        elif not isinstance(node, dict):
            raise ConfigError(f"{key}: {_path_text(tokens[:i])} is not a table")
        if i == len(tokens) - 1:
            node[token] = value
        elif isinstance(token, str):
            node = node.setdefault(token, {})
        else:
            node = node[token]


def _path_text(tokens: list[str | int]) -> str:
    out = ""
    for t in tokens:
        out += f"[{t}]" if isinstance(t, int) else (f".{t}" if out else t)
    return out


def _read_toml(path: Path, text: str) -> Any:
    try:
        return tomllib.loads(text)
    except tomllib.TOMLDecodeError as e:
        raise ConfigError(f"{path}: invalid TOML: {e}") from None


def _read_yaml(path: Path, text: str) -> Any:
    try:
        return yaml.safe_load(text)
    except yaml.MarkedYAMLError as e:
        mark = e.problem_mark or e.context_mark
        at = f" at line {mark.line + 1}, column {mark.column + 1}" if mark else ""
        what = e.problem or e.context or "syntax error"
        raise ConfigError(f"{path}: invalid YAML{at}: {what}") from None
    except yaml.YAMLError as e:
        raise ConfigError(f"{path}: invalid YAML: {e}") from None


def _read_json(path: Path, text: str) -> Any:
    def reject_constant(name: str) -> Any:
        raise ValueError(f"{name} is not a valid number")

    try:
        return json.loads(text, parse_constant=reject_constant)
    except json.JSONDecodeError as e:
        raise ConfigError(
            f"{path}: invalid JSON at line {e.lineno}, column {e.colno}: {e.msg}"
        ) from None
    except ValueError as e:
        raise ConfigError(f"{path}: invalid JSON: {e}") from None


_READERS = {".toml": _read_toml, ".yaml": _read_yaml, ".yml": _read_yaml, ".json": _read_json}
