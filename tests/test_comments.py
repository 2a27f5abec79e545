"""Code comments say what and why; measured figures and history do not belong in them.

Throughputs, timings and "it used to be" go stale as the model changes: numbers live in
test assertions, benchmarks and docs/, history in git (issue 23, part 5; STYLE.md, "Prose
that goes stale"). This scans the comments and docstrings of the Rust, Python, TOML and
shell sources for the shapes such figures take and fails naming file:line.
"""

from __future__ import annotations

import ast
import bisect
import io
import re
import tokenize
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent

#: Where sources live; `target/` and virtualenvs are never scanned.
SCANNED = ["crates", "python", "tests", "examples", "scripts", ".ci"]
TOP_LEVEL = ["Cargo.toml", "pyproject.toml"]

#: Files not scanned (none: every source file keeps to the rule).
NOT_YET_SCANNED: list[str] = []

#: This file quotes the patterns it looks for.
SELF = "tests/test_comments.py"

_NUMBER = r"\d+(?:[.,]\d+)?"
_RATE_UNIT = r"(?:[kMG]?b/s|[kMG]?bit/s|[kMG]bps|[kM]?B/s|bytes?/s)"

#: The 802.11b PHY rates (IEEE 802.11-2016 clauses 15 and 16: 1, 2, 5.5 and 11 Mb/s) and
#: the 0.5 Mb/s unit of the Supported Rates element (9.4.2.3) are specification values.
_PHY_RATE = re.compile(r"(?<![\d.])(?:1|2|5\.5|11|0\.5) ?Mb/s")

#: Words that make a rate next to them a result rather than a setting, a specification
#: value or a paper's figure: within a few words before or after it.
_RESULT_CUE = (
    r"\b(?:gets?|gives?|gave|got|achiev\w*|reach\w*|measured|on average|seeds?|falls?|fell)\b"
)
_RATE = rf"(?<![\w.]){_NUMBER} ?{_RATE_UNIT}"

#: Shapes searched line by line. (pattern, what it is); case-insensitive. A rate that a
#: model predicts is not a measurement.
PER_LINE = [
    (
        rf"^(?!.*\bpredict).*"
        rf"(?:(?:{_RESULT_CUE}).{{0,40}}{_RATE}|{_RATE}.{{0,30}}(?:{_RESULT_CUE}))",
        "a throughput",
    ),
    (r"^\W*measured\s*\(", "a measurement"),
]

#: Shapes searched over each comment block (consecutive comment lines joined), so that a
#: phrase broken across lines is found too.
PER_BLOCK = [
    (
        rf"{_NUMBER} ?(?:%|x|times) (?:faster|slower"
        r"|(?:less|more|fewer) (?:wall|time|instructions|cycles|events))\b",
        "a speed-up",
    ),
    (
        r"\d ?(?:%|s|ms|us|min|x)\b[^.]*\bwall[- ]?(?:clock|time)"
        r"|\bwall[- ]?(?:clock )?time\b[^.]*\d ?(?:%|s|ms|us|min)\b",
        "a timing",
    ),
    (rf"\b{_NUMBER} ?(?:s|ms|us|min) (?:against|vs\.?|versus) {_NUMBER}", "a timing"),
    (r"\b\d+% (?:interval|CI)\W+\d|\bmeasured (?:with|over) (?:seeds?|\d)", "a measurement"),
    (r"\bfell from\b|\brose from\b|\bdropped from \d", "history"),
    (r"\bearlier (?:version|default|model|code)s?\b", "history"),
    (r"\b(?:previous|old|former) (?:version|default|behaviou?r|model|code)\b", "history"),
    (r"\b(?:it|this|they|which|that|we) used to\b|\bthe default before\b", "history"),
    (
        r"\buntil the [\w-]+ change\b|\b(?:since|before|after) (?:commit )?[0-9a-f]{7,40}\b",
        "history",
    ),
]
_LINE = [(re.compile(p, re.IGNORECASE), what) for p, what in PER_LINE]
_BLOCK = [(re.compile(p, re.IGNORECASE), what) for p, what in PER_BLOCK]


#: What can start a comment or a literal in Rust: a comment, a raw string (`r#"`, `br"`),
#: a string, or a quote (a character literal or a lifetime).
_RUST_TOKEN = re.compile(r"//|/\*|(?<![\w])b?r(#*)\"|\"|'")
_RUST_CHAR = re.compile(r"'(?:\\u\{[0-9a-fA-F]+\}|\\.|[^\\'])'")


def _rust_comments(text: str) -> list[tuple[int, str]]:
    """Line and block comments (`//`, `///`, `//!`, `/* */`) outside string and character
    literals, which may span lines."""
    newlines = [m.start() for m in re.finditer("\n", text)]
    found = []
    i = 0
    while token := _RUST_TOKEN.search(text, i):
        start = token.start()
        if token[0] == "//":
            end = text.find("\n", start)
            end = len(text) if end < 0 else end
            found.append((bisect.bisect(newlines, start) + 1, text[start + 2 : end]))
        elif token[0] == "/*":
            end = text.find("*/", start)
            end = len(text) if end < 0 else end + 2
            first = bisect.bisect(newlines, start) + 1
            found += [(first + k, part) for k, part in enumerate(text[start:end].split("\n"))]
        elif token[0] == "'":
            char = _RUST_CHAR.match(text, start)
            end = char.end() if char else start + 1
        elif token[0] == '"':
            end = start + 1
            while end < len(text) and text[end] != '"':
                end += 2 if text[end] == "\\" else 1
            end += 1
        else:  # a raw string, closed by a quote and as many hashes as opened it
            close = text.find('"' + token[1], token.end())
            end = len(text) if close < 0 else close + 1 + len(token[1])
        i = end
    return found


def _python_comments(text: str) -> list[tuple[int, str]]:
    """`#` comments and docstrings (module, class, function)."""
    found = [
        (tok.start[0], tok.string[1:])
        for tok in tokenize.generate_tokens(io.StringIO(text).readline)
        if tok.type == tokenize.COMMENT
    ]
    lines = text.splitlines()
    for node in ast.walk(ast.parse(text)):
        if isinstance(node, ast.Module | ast.ClassDef | ast.FunctionDef | ast.AsyncFunctionDef):
            body = node.body
            if body and isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant):
                if isinstance(body[0].value.value, str):
                    first, last = body[0].lineno, body[0].end_lineno or body[0].lineno
                    found += [(n, lines[n - 1]) for n in range(first, last + 1)]
    return found


def _hash_comments(text: str) -> list[tuple[int, str]]:
    """`#` comments of TOML and shell: a `#` at the start of a line or after a space, not
    inside a quoted string."""
    found = []
    for number, line in enumerate(text.splitlines(), 1):
        quoted = None
        for i, c in enumerate(line):
            if quoted:
                if c == quoted:
                    quoted = None
            elif c in "\"'":
                quoted = c
            elif c == "#" and (i == 0 or line[i - 1].isspace()):
                found.append((number, line[i + 1 :]))
                break
    return found


def _sources() -> list[Path]:
    files = [ROOT / name for name in TOP_LEVEL]
    for top in SCANNED:
        files += [p for p in (ROOT / top).rglob("*") if p.is_file()]
    return sorted(p for p in files if not _skipped(p.relative_to(ROOT).as_posix()))


def _skipped(relative: str) -> bool:
    if relative == SELF or "__pycache__" in relative:
        return True
    return any(Path(relative).match(glob) for glob in NOT_YET_SCANNED)


def comments(path: Path) -> list[tuple[int, str]]:
    """(line number, text) of every comment in `path`; [] for a file that has none."""
    name = path.name
    if name.endswith(".rs"):
        return _rust_comments(path.read_text(encoding="utf-8"))
    if name.endswith((".py", ".pyi")):
        return _python_comments(path.read_text(encoding="utf-8"))
    if name.endswith((".toml", ".sh")) or path.parent.name in ("scripts", ".ci"):
        return _hash_comments(path.read_text(encoding="utf-8"))
    return []


def _blocks(found: list[tuple[int, str]]) -> list[list[tuple[int, str]]]:
    """Consecutive comment lines, each line's text without its comment markers."""
    blocks: list[list[tuple[int, str]]] = []
    for number, text in sorted(found):
        text = text.lstrip("/!#:\"' \t").rstrip()
        if blocks and blocks[-1][-1][0] == number - 1:
            blocks[-1].append((number, text))
        else:
            blocks.append([(number, text)])
    return blocks


def offences(path: Path, relative: str | None = None) -> list[str]:
    """`file:line: what: text` for every comment that quotes a measured figure or history."""
    relative = relative or path.relative_to(ROOT).as_posix()
    found = {}
    for block in _blocks(comments(path)):
        for number, text in block:
            for pattern, what in _LINE:
                if pattern.search(_PHY_RATE.sub("", text)):
                    found.setdefault(number, f"{what}: {text}")
        joined = " ".join(text for _, text in block)
        starts = []
        offset = 0
        for number, text in block:
            starts.append((offset, number))
            offset += len(text) + 1
        for pattern, what in _BLOCK:
            for match in pattern.finditer(_PHY_RATE.sub(lambda m: "_" * len(m[0]), joined)):
                number = max(n for o, n in starts if o <= match.start())
                found.setdefault(number, f"{what}: {match[0]}")
    return [f"{relative}:{number}: {found[number]}" for number in sorted(found)]


def test_no_comment_quotes_a_measured_figure_or_history():
    found = [line for path in _sources() for line in offences(path)]
    assert not found, (
        "comments quote measured figures or history; state what and why (cite the clause) "
        "and put numbers in a test assertion, a benchmark or docs/:\n" + "\n".join(found)
    )


@pytest.mark.parametrize(
    ("source", "name"),
    [
        ("// goodput fell from 1216 to 66 kb/s\n", "x.rs"),
        ("fn f() {} /// 9-21% less wall time per run\n", "x.rs"),
        ("# a cold build: 57 s against 63 s\n", "Cargo.toml"),
        ('"""An earlier version of this test asserted it."""\n', "x.py"),
        ("x = 1  # TCP-aware 97 kb/s on average (95% interval 69-125)\n", "x.py"),
        ("# the aggregate gets about 4.5 Mbit/s\n", "x.toml"),
        ("// An earlier\n// version of this test asserted it.\n", "x.rs"),
        ("# the defaults since 6d7113c\n", "x.sh"),
    ],
)
def test_the_scan_catches_measured_figures(tmp_path, source, name):
    path = tmp_path / name
    path.write_text(source)
    assert _flagged(path)


@pytest.mark.parametrize(
    ("source", "name"),
    [
        ("/// IEEE 802.11-2016 16.2.2.2: long PLCP at 1 Mb/s, 192 us.\n", "x.rs"),
        ("/// 5.5 and 11 Mb/s HR/DSSS with CCK (clause 16).\n", "x.rs"),
        ('let s = "// not a comment: 66 kb/s";\n', "x.rs"),
        ("x = '# 66 kb/s'  # RFC 6298 (2.1): initial RTO 1 s\n", "x.py"),
        ('name = "a # 66 kb/s"  # a string, not a comment\n', "x.toml"),
        ("# Bianchi's model predicts about 4.5 Mb/s of goodput for 20 seeds\n", "x.toml"),
        ("# Flows below this goodput count as starved (DESIGN.md: 1 kb/s).\n", "x.toml"),
        ('"""Mean and Student-t 95% interval over seeds."""\n', "x.py"),
    ],
)
def test_the_scan_keeps_specification_values_and_code(tmp_path, source, name):
    path = tmp_path / name
    path.write_text(source)
    assert not _flagged(path)


def _flagged(path: Path) -> bool:
    return bool(offences(path, relative=path.name))
