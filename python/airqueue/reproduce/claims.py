"""The seed papers' claims and the rules that decide them (issue 24): every claim of the
four papers that states a number or a direction, each with the rule fixed here, before
any run, and ``score(DIR)``, which reads a reproduction output directory and gives
each claim a status: ``reproduced``, ``direction``, ``not_reproduced`` or
``not_attempted``.

Each reproduction module declares its claims next to its code (a ``CLAIMS`` list) and
names the rows of its table that measure them; claims no reproduction covers are
declared below with the reason (``NOT_ATTEMPTED``), so the count cannot grow by leaving
claims out. docs/claims.md explains the rules and lists the claims.
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

from airqueue.errors import ConfigError

__all__ = [
    "NOT_ATTEMPTED",
    "SEED_FILES",
    "STATUSES",
    "Claim",
    "Difference",
    "Direction",
    "Outcome",
    "Ratio",
    "Ref",
    "ValueInCI",
    "all_claims",
    "decide_direction",
    "decide_value",
    "render_scoreboard",
    "score",
    "scoreboard",
    "write_claims",
]

#: A claim id: the seed number, then lower-case words (docs cite claims by it).
_ID = re.compile(r"\d{3}-[a-z0-9][a-z0-9.\-]*")

#: The four statuses, in the scoreboard's column order.
STATUSES = ("reproduced", "direction", "not_reproduced", "not_attempted")

#: Seed number -> the seed paper's file name (/work/shared/seeds, README.md there).
SEED_FILES = {
    "000": "000_f0e0977c848aa82b.txt",
    "001": "001_bde467a861444fb8.txt",
    "002": "002_bf4d0f47dd119da8.txt",
    "004": "004_a830f895ed27e03b.txt",
}

#: Seed number -> the scheme it evaluates (the scoreboard's row labels).
SEED_SCHEMES = {"000": "DiffQ", "001": "FQ + BP", "002": "TCP-aware BP", "004": "DQM"}


# --- what a claim is measured by -------------------------------------------------------


@dataclass(frozen=True)
class Ref:
    """One row of a reproduction's table (``DIR/reproduction/rows.json``), by its exact
    metric text."""

    reproduction: str
    metric: str

    def describe(self) -> str:
        return f"{self.reproduction}: {self.metric}"


@dataclass(frozen=True)
class Ratio:
    """``num / den`` of two rows, for a ratio the paper states but no row gives. The
    interval is the conservative [num_low / den_high, num_high / den_low] (positive
    values only), wider than a paired interval would be."""

    num: Ref
    den: Ref

    def describe(self) -> str:
        return f"({self.num.describe()}) / ({self.den.describe()})"


@dataclass(frozen=True)
class Difference:
    """``a - b`` of two rows, with the conservative interval [a_low - b_high, a_high -
    b_low]."""

    a: Ref
    b: Ref

    def describe(self) -> str:
        return f"({self.a.describe()}) - ({self.b.describe()})"


Measure = Ref | Ratio | Difference


# --- the rules ------------------------------------------------------------------------


@dataclass(frozen=True)
class ValueInCI:
    """For a claim that gives a number. ``reproduced``: the paper's value lies inside our
    95% interval, or ours lies within the tolerance the claim states (``rel``: a fraction
    of the paper's value; ``abs``: in the metric's unit), and the interval is
    informative: no wider than ``max_width`` (default: the paper's value itself), so a
    claim of 0 must state one. ``direction``: ours lies on the paper's side of ``null``
    (the no-effect value, e.g. 1 for a ratio) with an interval that excludes ``null``.
    A row without an interval is never reproduced."""

    rel: float | None = None
    abs: float | None = None
    null: float | None = None
    max_width: float | None = None

    def describe(self) -> str:
        parts = ["value_in_ci"]
        if self.rel is not None:
            parts.append(f"or within {self.rel:.0%} of the paper's value")
        if self.abs is not None:
            parts.append(f"or within {self.abs:g} of it")
        if self.max_width is not None:
            parts.append(f"(informative: interval width <= {self.max_width:g})")
        text = " ".join(parts)
        if self.null is not None:
            text += f"; direction: on the paper's side of {self.null:g}, interval excluding it"
        return text


@dataclass(frozen=True)
class Direction:
    """For a claim that states only a direction: ours ``greater`` or ``less`` than
    ``than`` (a number, or another row). ``reproduced`` only when the interval excludes
    the opposite: our whole 95% interval beyond the number, or our interval and the
    other row's apart (a conservative test); else ``not_reproduced``."""

    op: Literal["greater", "less"]
    than: float | Ref

    def describe(self) -> str:
        sign = ">" if self.op == "greater" else "<"
        other = f"{self.than:g}" if isinstance(self.than, float | int) else self.than.describe()
        return f"direction: ours {sign} {other}, intervals apart"


Rule = ValueInCI | Direction


# --- the claim ------------------------------------------------------------------------


@dataclass(frozen=True)
class Claim:
    """One statement of a seed paper that gives a number or a direction.

    ``id``: ``<seed>-<where>-<what>``, e.g. ``000-tab3-ratio-32``; ``paper``: the seed
    number (``SEED_FILES``); ``where``: table, figure or section; ``statement``: the
    paper's words; ``metric``: what we measure; ``paper_value``: the paper's number
    (None when it states a direction only). Either ``measure`` and ``rule`` say how a
    reproduction decides it, or ``not_attempted`` says why none does.
    """

    id: str
    paper: str
    where: str
    statement: str
    metric: str
    paper_value: float | None = None
    measure: Measure | None = None
    rule: Rule | None = None
    not_attempted: str | None = None

    def __post_init__(self) -> None:
        problems = []
        if self.paper not in SEED_FILES:
            problems.append(f"paper {self.paper!r}: expected one of {', '.join(SEED_FILES)}")
        if not self.id.startswith(f"{self.paper}-") or not _ID.fullmatch(self.id):
            problems.append(
                f"id must be the seed number {self.paper}- then lower-case letters, digits, "
                "'.' and '-'"
            )
        if self.not_attempted is None and (self.measure is None or self.rule is None):
            problems.append("needs a measure and a rule, or a not_attempted reason")
        if self.not_attempted is not None and (self.measure or self.rule):
            problems.append("a not_attempted claim has no measure or rule")
        if isinstance(self.rule, ValueInCI) and self.paper_value is None:
            problems.append("value_in_ci needs the paper's value")
        if problems:
            raise ValueError(f"claim {self.id}: " + "; ".join(problems))

    def paper_text(self) -> float | str | None:
        """The paper's value for claims.json: its number, or the direction it states."""
        if self.paper_value is not None:
            return self.paper_value
        if isinstance(self.rule, Direction):
            sign = ">" if self.rule.op == "greater" else "<"
            than = self.rule.than
            return f"{sign} {than:g}" if isinstance(than, float | int) else f"{sign} {than.metric}"
        return None


@dataclass(frozen=True)
class Outcome:
    """A claim's status in one output directory, with our estimate and why."""

    claim: Claim
    status: str
    reason: str
    ours: float | None = None
    ci_low: float | None = None
    ci_high: float | None = None
    #: The reproduction missing from the output directory, if that is why.
    not_run: str | None = None
    #: Not attempted because the output directory lacks the reproduction or the row.
    missing: bool = False

    def to_dict(self) -> dict[str, Any]:
        c = self.claim
        return {
            "id": c.id,
            "paper": SEED_FILES[c.paper],
            "where": c.where,
            "statement": c.statement,
            "metric": c.metric,
            "paper_value": c.paper_text(),
            "ours": _finite(self.ours),
            "ci_low": _finite(self.ci_low),
            "ci_high": _finite(self.ci_high),
            "rule": c.rule.describe() if c.rule is not None else "none",
            "source": c.measure.describe() if c.measure is not None else None,
            "status": self.status,
            "reason": self.reason,
        }


@dataclass(frozen=True)
class _Estimate:
    ours: float | None
    low: float | None
    high: float | None

    @property
    def has_ci(self) -> bool:
        return self.low is not None and self.high is not None


class _Missing(Exception):
    """A row or reproduction the output directory does not have; ``reproduction`` is set
    when the whole reproduction is missing."""

    def __init__(self, message: str, reproduction: str | None = None) -> None:
        super().__init__(message)
        self.reproduction = reproduction


# --- the registry ---------------------------------------------------------------------


def _skip(cid: str, where: str, statement: str, metric: str, reason: str) -> Claim:
    return Claim(
        id=cid,
        paper=cid[:3],
        where=where,
        statement=statement,
        metric=metric,
        not_attempted=reason,
    )


#: Claims no reproduction covers, with the reason (``_skip``); none at present.
NOT_ATTEMPTED: tuple[Claim, ...] = ()


def all_claims() -> list[Claim]:
    """Every claim: each reproduction module's ``CLAIMS`` (in ``REPRODUCTIONS`` order),
    then ``NOT_ATTEMPTED``; sorted by paper, stable. ValueError on a duplicate id or a
    reference to an unknown reproduction."""
    from airqueue.reproduce.registry import REPRODUCTIONS, module

    found: list[Claim] = []
    for name in REPRODUCTIONS:
        found.extend(getattr(module(name), "CLAIMS", ()))
    found.extend(NOT_ATTEMPTED)
    seen: set[str] = set()
    for c in found:
        if c.id in seen:
            raise ValueError(f"claim id {c.id} declared twice")
        seen.add(c.id)
        for ref in _refs(c.measure):
            if ref.reproduction not in REPRODUCTIONS:
                raise ValueError(f"claim {c.id}: unknown reproduction {ref.reproduction!r}")
        if isinstance(c.rule, Direction) and isinstance(c.rule.than, Ref):
            if c.rule.than.reproduction not in REPRODUCTIONS:
                raise ValueError(f"claim {c.id}: unknown reproduction {c.rule.than.reproduction!r}")
    return sorted(found, key=lambda c: c.paper)


def _refs(measure: Measure | None) -> list[Ref]:
    if measure is None:
        return []
    if isinstance(measure, Ref):
        return [measure]
    if isinstance(measure, Ratio):
        return [measure.num, measure.den]
    return [measure.a, measure.b]


# --- evaluation -----------------------------------------------------------------------


class _Rows:
    """The rows of each reproduction under ``root``, read once."""

    def __init__(self, root: Path) -> None:
        self.root = root
        self._tables: dict[str, dict[str, dict[str, Any]] | None] = {}

    def get(self, ref: Ref) -> _Estimate:
        table = self._table(ref.reproduction)
        if table is None:
            raise _Missing(
                f"not run: no {self.root / ref.reproduction / 'rows.json'}", ref.reproduction
            )
        if ref.metric not in table:
            raise _Missing(
                f"row {ref.metric!r} not in {self.root / ref.reproduction / 'rows.json'} "
                "(a --quick or --param run leaves configurations out)"
            )
        r = table[ref.metric]
        return _Estimate(
            _number(r.get("ours")), _number(r.get("ci_low")), _number(r.get("ci_high"))
        )

    def _table(self, name: str) -> dict[str, dict[str, Any]] | None:
        if name not in self._tables:
            path = self.root / name / "rows.json"
            if not path.is_file():
                self._tables[name] = None
            else:
                try:
                    rows = json.loads(path.read_text(encoding="utf-8"))
                    self._tables[name] = {str(r["metric"]): r for r in rows}
                except (json.JSONDecodeError, TypeError, KeyError) as e:
                    raise ConfigError(
                        f"{path}: not a reproduction's rows.json ({e}); rerun "
                        f"`airqueue reproduce {name} --out {path.parent}`"
                    ) from None
        return self._tables[name]


def _measure(m: Measure, rows: _Rows) -> _Estimate:
    if isinstance(m, Ref):
        return rows.get(m)
    if isinstance(m, Ratio):
        a, b = rows.get(m.num), rows.get(m.den)
        ours = a.ours / b.ours if a.ours is not None and b.ours else None
        if a.has_ci and b.has_ci and a.low >= 0 and b.low > 0:  # type: ignore[operator]
            return _Estimate(ours, a.low / b.high, a.high / b.low)  # type: ignore[operator]
        return _Estimate(ours, None, None)
    a, b = rows.get(m.a), rows.get(m.b)
    ours = a.ours - b.ours if a.ours is not None and b.ours is not None else None
    if a.has_ci and b.has_ci:
        return _Estimate(ours, a.low - b.high, a.high - b.low)  # type: ignore[operator]
    return _Estimate(ours, None, None)


def _evaluate(claim: Claim, rows: _Rows) -> Outcome:
    """The status of ``claim`` given the rows under one output directory."""
    if claim.not_attempted is not None:
        return Outcome(claim, "not_attempted", claim.not_attempted)
    assert claim.measure is not None and claim.rule is not None
    try:
        est = _measure(claim.measure, rows)
        other = (
            rows.get(claim.rule.than)
            if isinstance(claim.rule, Direction) and isinstance(claim.rule.than, Ref)
            else None
        )
    except _Missing as e:
        return Outcome(claim, "not_attempted", str(e), not_run=e.reproduction, missing=True)
    if est.ours is None:
        return Outcome(claim, "not_reproduced", "no estimate (no runs, or a zero denominator)")
    if isinstance(claim.rule, ValueInCI):
        assert claim.paper_value is not None
        status, reason = decide_value(claim.paper_value, claim.rule, est.ours, est.low, est.high)
    else:
        status, reason = decide_direction(claim.rule, est.ours, est.low, est.high, other)
    return Outcome(claim, status, reason, est.ours, est.low, est.high)


def decide_value(
    paper: float, rule: ValueInCI, ours: float, low: float | None, high: float | None
) -> tuple[str, str]:
    """(status, reason) of a claim that gives the number ``paper``; see ``ValueInCI``."""
    has_ci = low is not None and high is not None
    max_width = rule.max_width
    if max_width is None:
        max_width = abs(paper) if rule.null is None else min(abs(paper), abs(paper - rule.null))
    informative = has_ci and high - low <= max_width  # type: ignore[operator]
    inside = has_ci and low <= paper <= high  # type: ignore[operator]
    close = (rule.rel is not None and abs(ours - paper) <= rule.rel * abs(paper)) or (
        rule.abs is not None and abs(ours - paper) <= rule.abs
    )
    if (inside or close) and informative:
        return "reproduced", "paper's value inside our interval" if inside else "within tolerance"
    why = (
        "no interval"
        if not has_ci
        else f"interval wider than {max_width:g} (uninformative)"
        if inside or close
        else "paper's value outside our interval and tolerance"
    )
    if rule.null is not None and has_ci and paper != rule.null:
        if paper > rule.null and low > rule.null:  # type: ignore[operator]
            return "direction", f"{why}; above {rule.null:g} as the paper"
        if paper < rule.null and high < rule.null:  # type: ignore[operator]
            return "direction", f"{why}; below {rule.null:g} as the paper"
        why += f"; interval does not exclude {rule.null:g} on the paper's side"
    return "not_reproduced", why


def decide_direction(
    rule: Direction,
    ours: float,
    low: float | None,
    high: float | None,
    other: _Estimate | None = None,
) -> tuple[str, str]:
    """(status, reason) of a claim that states a direction; see ``Direction``."""
    if low is None or high is None:
        return "not_reproduced", "no interval"
    if other is None:
        assert not isinstance(rule.than, Ref)
        lo_bound = hi_bound = float(rule.than)
        what = f"{rule.than:g}"
    else:
        if other.ours is None or not other.has_ci:
            return "not_reproduced", "the row compared with has no interval"
        lo_bound, hi_bound = other.low, other.high  # type: ignore[assignment]
        what = f"the other row's [{other.low:.4g}, {other.high:.4g}]"
    if rule.op == "greater":
        if low > hi_bound:  # type: ignore[operator]
            return "reproduced", f"interval above {what}"
        if high < lo_bound:  # type: ignore[operator]
            return "not_reproduced", f"the opposite: interval below {what}"
        side = "point estimate above" if ours > hi_bound else "not above"  # type: ignore[operator]
    else:
        if high < lo_bound:  # type: ignore[operator]
            return "reproduced", f"interval below {what}"
        if low > hi_bound:  # type: ignore[operator]
            return "not_reproduced", f"the opposite: interval above {what}"
        side = "point estimate below" if ours < lo_bound else "not below"  # type: ignore[operator]
    return "not_reproduced", f"{side} {what}, intervals overlap"


def score(root: str | Path, claims: Sequence[Claim] | None = None) -> list[Outcome]:
    """Every claim's outcome for the reproduction outputs under ``root`` (one directory
    per reproduction, as ``airqueue reproduce all`` writes). A reproduction missing from
    ``root`` makes its claims ``not_attempted`` ("not run")."""
    rows = _Rows(Path(root))
    return [_evaluate(c, rows) for c in (claims if claims is not None else all_claims())]


def write_claims(root: str | Path, outcomes: Sequence[Outcome] | None = None) -> Path:
    """Writes ``root/claims.json`` (a list of objects: id, paper, where, statement,
    metric, paper_value, ours, ci_low, ci_high, rule, source, status, reason)."""
    root = Path(root)
    outcomes = score(root) if outcomes is None else outcomes
    root.mkdir(parents=True, exist_ok=True)
    path = root / "claims.json"
    doc = [o.to_dict() for o in outcomes]
    path.write_text(json.dumps(doc, indent=2, allow_nan=False) + "\n", encoding="utf-8")
    return path


# --- the scoreboard -------------------------------------------------------------------


def scoreboard(outcomes: Iterable[Outcome]) -> dict[str, dict[str, int]]:
    """Counts by paper (seed file name) and status, plus a ``total`` entry."""
    board: dict[str, dict[str, int]] = {
        SEED_FILES[p]: dict.fromkeys(STATUSES, 0) for p in SEED_FILES
    }
    board["total"] = dict.fromkeys(STATUSES, 0)
    for o in outcomes:
        board[SEED_FILES[o.claim.paper]][o.status] += 1
        board["total"][o.status] += 1
    return board


def render_scoreboard(outcomes: Sequence[Outcome], *, title: str, console: Any = None) -> None:
    """Prints the scoreboard (rich): per paper and total, reproduced / direction only /
    not reproduced / not attempted; then how many claims are not attempted because a
    reproduction was not run or a row is missing."""
    from rich.console import Console
    from rich.table import Table

    console = console or Console()
    table = Table(title=title, title_justify="left")
    table.add_column("seed paper", no_wrap=True)
    for head in ("reproduced", "direction\nonly", "not\nreproduced", "not\nattempted", "claims"):
        table.add_column(head, justify="right", no_wrap=True, min_width=max(map(len, head.split())))
    labels = {SEED_FILES[p]: f"{p} {SEED_SCHEMES[p]}" for p in SEED_FILES}
    for paper, counts in scoreboard(outcomes).items():
        cells = [str(counts[s]) for s in STATUSES] + [str(sum(counts.values()))]
        table.add_row(labels.get(paper, paper), *cells, style="bold" if paper == "total" else None)
    console.print(table)
    console.print(
        "seed papers: " + ", ".join(SEED_FILES.values()) + " (/work/shared/seeds)",
        markup=False,
        highlight=False,
    )
    not_run = sorted({o.not_run for o in outcomes if o.not_run is not None})
    missing = [o.claim.id for o in outcomes if o.missing and o.not_run is None]
    if not_run:
        console.print(
            f"not run (their claims count as not attempted): {', '.join(not_run)}",
            markup=False,
            highlight=False,
        )
    if missing:
        console.print(
            f"rows missing from this output (counted as not attempted): {', '.join(missing)}",
            markup=False,
            highlight=False,
        )


def _number(x: Any) -> float | None:
    if x is None:
        return None
    try:
        v = float(x)
    except (TypeError, ValueError):
        return None
    return v if math.isfinite(v) else None


def _finite(x: float | None) -> float | None:
    return x if x is not None and math.isfinite(x) else None
