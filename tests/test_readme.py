"""README.md against the code: every command and snippet on the front page runs.

The fenced blocks are taken from README.md in page order:

- plain blocks hold shell commands, one per line (`&&` chains are split). Each
  `airqueue ...` command runs as ``python -m airqueue ...`` in a scratch directory that
  has the repository's ``examples/`` linked in. It must exit 0, and a command that
  reads a results directory another README command writes (``out/...``) gets that
  command run first. Two commands are recognised and not run: ``pip install .``, because
  the suite runs against the package already installed (reinstalling would rebuild the
  Rust core, which takes minutes, and swap the package under test), and
  ``bash scripts/test.sh``, because that is the full suite, which includes this file;
- ``python`` blocks run in the same scratch directory, each in a fresh namespace;
- ``toml`` blocks are scenarios, which must validate and run, or, when the first line
  names a file (``# examples/x.toml``), a copy of that file, which must parse to the
  same keys and values.

Other checks: the page stays a front page (at most 200 lines), its links point inside
the repository at files that exist, and the error message it quotes is what the command
line prints.
"""

from __future__ import annotations

import re
import shlex
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import pytest

import airqueue as aq

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover
    import tomli as tomllib

ROOT = Path(__file__).resolve().parent.parent
README = ROOT / "README.md"
MAX_LINES = 200

# Commands that exist on another branch only: xfail(strict) until they land, so the mark
# must go when they do (the strict xpass fails).
PENDING_COMMANDS: dict[str, str] = {}
# Link targets another branch creates.
PENDING_LINKS: dict[str, str] = {}
NOT_RUN = {
    "pip install .": "the suite runs against the installed package; reinstalling rebuilds "
    "the Rust core (minutes) and replaces the package under test",
    "bash scripts/test.sh": "it is the whole suite, this file included",
}
# Simulated seconds a README scenario block runs for here.
SCENARIO_CHECK_S = 2.0

_FENCE = re.compile(r"^```(\w*)\n(.*?)^```", re.M | re.S)
_LINK = re.compile(r"\]\(([^)\s]+)\)")


@dataclass(frozen=True)
class Block:
    lang: str
    body: str
    line: int


@dataclass(frozen=True)
class Command:
    text: str
    line: int

    @property
    def argv(self) -> list[str]:
        return shlex.split(self.text, comments=True)

    def writes(self) -> str | None:
        """The directory the command writes with `--out`, if any."""
        argv = self.argv
        if "--out" in argv:
            return argv[argv.index("--out") + 1]
        return None

    def reads(self) -> list[str]:
        """Positional arguments naming a results directory under out/."""
        argv = self.argv
        outs = {i + 1 for i, a in enumerate(argv) if a == "--out"}
        return [a for i, a in enumerate(argv) if a.startswith("out/") and i not in outs]


def _text() -> str:
    return README.read_text(encoding="utf-8")


def _blocks() -> list[Block]:
    text = _text()
    return [
        Block(m.group(1), m.group(2), text.count("\n", 0, m.start()) + 1)
        for m in _FENCE.finditer(text)
    ]


def _commands() -> list[Command]:
    cmds = []
    for b in _blocks():
        if b.lang:
            continue
        for k, line in enumerate(b.body.splitlines()):
            for part in line.split("&&"):
                if part.strip():
                    cmds.append(Command(part.strip(), b.line + 1 + k))
    return cmds


def _param(c: Command) -> object:
    argv = c.argv
    marks = []
    if argv[:1] == ["airqueue"] and len(argv) > 1 and argv[1] in PENDING_COMMANDS:
        marks.append(pytest.mark.xfail(strict=True, reason=PENDING_COMMANDS[argv[1]]))
    return pytest.param(c, id=f"L{c.line}: {c.text}", marks=marks)


@pytest.fixture(scope="module")
def workdir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A scratch directory with the repository's examples, where out/ is written."""
    d = tmp_path_factory.mktemp("readme")
    (d / "examples").symlink_to(ROOT / "examples", target_is_directory=True)
    return d


def _run_airqueue(c: Command, cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "airqueue", *c.argv[1:]],
        cwd=cwd,
        capture_output=True,
        text=True,
        timeout=300,
    )


def _ensure_inputs(c: Command, cwd: Path) -> None:
    """Runs the README command that writes each results directory `c` reads, unless an
    earlier test already made it."""
    for needed in c.reads():
        if (cwd / needed).exists():
            continue
        producers = [p for p in _commands() if p.writes() == needed and p.line < c.line]
        assert producers, f"README line {c.line} reads {needed}, which no earlier command writes"
        res = _run_airqueue(producers[-1], cwd)
        assert res.returncode == 0, f"{producers[-1].text}\n{res.stdout}\n{res.stderr}"


def test_the_page_is_found_and_parsed() -> None:
    cmds = [c.text for c in _commands()]
    assert cmds[:2] == ["pip install .", "airqueue run examples/star-wifi.toml"]
    assert "bash scripts/test.sh" in cmds
    assert {b.lang for b in _blocks()} >= {"", "toml", "python"}


def test_the_front_page_stays_short() -> None:
    lines = _text().count("\n")
    assert lines <= MAX_LINES, f"README.md has {lines} lines; move detail to docs/"


@pytest.mark.parametrize("command", [_param(c) for c in _commands()])
def test_command_runs(command: Command, workdir: Path) -> None:
    if command.text in NOT_RUN:
        return  # recognised on purpose (NOT_RUN says why)
    argv = command.argv
    assert argv[0] == "airqueue", (
        f"README line {command.line}: `{command.text}` is neither an airqueue command nor "
        "one of the commands this test knows not to run"
    )
    _ensure_inputs(command, workdir)
    res = _run_airqueue(command, workdir)
    assert res.returncode == 0, f"{command.text}\nstdout:\n{res.stdout}\nstderr:\n{res.stderr}"
    out = command.writes()
    if out is not None:
        assert (workdir / out).exists(), f"{command.text} did not write {out}"


@pytest.mark.parametrize(
    "block",
    [pytest.param(b, id=f"L{b.line}") for b in _blocks() if b.lang == "python"],
)
def test_python_snippet_runs(block: Block, workdir: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(workdir)
    code = compile(block.body, f"README.md:{block.line}", "exec")
    exec(code, {"__name__": "readme_snippet"})


@pytest.mark.parametrize(
    "block",
    [pytest.param(b, id=f"L{b.line}") for b in _blocks() if b.lang == "toml"],
)
def test_toml_block(block: Block) -> None:
    doc = tomllib.loads(block.body)
    first = block.body.splitlines()[0]
    named = re.fullmatch(r"#\s*(examples/\S+)", first.strip())
    if named:
        copy_of = ROOT / named.group(1)
        assert tomllib.loads(copy_of.read_text(encoding="utf-8")) == doc, (
            f"README line {block.line} no longer matches {copy_of.name}"
        )
        return
    res = aq.run(doc, duration=SCENARIO_CHECK_S)
    assert res.summary["conservation"]["holds"]
    assert len(res.flows) == len(doc.get("flow", []))


def _links() -> list[str]:
    return [t.split("#")[0] for t in _LINK.findall(_text()) if not t.startswith("http")]


def test_links_stay_inside_the_repository() -> None:
    links = _links()
    assert links, "no links found"
    for target in links:
        resolved = (ROOT / target).resolve()
        assert resolved.is_relative_to(ROOT), f"{target} points outside the repository"
        assert "shared" not in Path(target).parts, target


@pytest.mark.parametrize(
    "target",
    [
        pytest.param(
            t,
            marks=[pytest.mark.xfail(strict=True, reason=PENDING_LINKS[t])]
            if t in PENDING_LINKS
            else [],
        )
        for t in sorted(set(_links()))
    ],
)
def test_link_target_exists(target: str) -> None:
    assert (ROOT / target).exists(), f"README links to {target}, which does not exist"


def test_quoted_error_is_what_the_cli_prints(tmp_path: Path) -> None:
    quoted = re.findall(r"`(error: [^`]+)`", _text())
    assert quoted, "the README quotes no error message"
    scenario = next(b for b in _blocks() if b.lang == "toml").body
    broken = tmp_path / "broken.toml"
    broken.write_text(scenario.replace("capacity = 50", "capacty = 50"), encoding="utf-8")
    res = subprocess.run(
        [sys.executable, "-m", "airqueue", "run", str(broken)],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert res.returncode != 0
    for message in quoted:
        assert message in res.stderr + res.stdout, (message, res.stderr)
