"""docs/schemes/*.md and ARCHITECTURE.md against the code.

1. Every ```toml block of a scheme page whose first line is ``# complete scenario`` runs
   (for a couple of simulated seconds) and conserves packets; every page has one.
2. Relative links on those pages and in ARCHITECTURE.md point at files that exist,
   inside the repository.
3. Every source path ARCHITECTURE.md and the scheme pages name in backticks exists:
   from the repository root (`crates/...`, `python/airqueue/...`), inside a crate
   (`qdisc/fq.rs`, `world/pacing.rs`, `src/lib.rs`), or, for a bare file name (`pi.rs`),
   somewhere under crates/ or python/. A moved or renamed file shows up here.
"""

from __future__ import annotations

import re
import sys
from pathlib import Path

import pytest

import airqueue as aq

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover
    import tomli as tomllib

ROOT = Path(__file__).resolve().parent.parent
SCHEMES = sorted((ROOT / "docs" / "schemes").glob("*.md"))
ARCHITECTURE = ROOT / "ARCHITECTURE.md"
COMPLETE = "# complete scenario"
RUN_S = 2.0
PENDING_LINKS: dict[str, str] = {}
CRATES = sorted(p for p in (ROOT / "crates").iterdir() if p.is_dir())
# Where a short path such as `qdisc/fq.rs`, `phy/src/edca.rs` or `aodv/` is looked up:
# crates/, each crate and its src/, and the sim crate's module directories.
SIM_SRC = ROOT / "crates" / "sim" / "src"
SOURCE_ROOTS = [
    ROOT / "crates",
    *CRATES,
    *(c / "src" for c in CRATES),
    *(d for d in SIM_SRC.iterdir() if d.is_dir()),
    SIM_SRC / "medium" / "wifi",
]
SOURCE_FILES = {p.name for top in ("crates", "python") for p in (ROOT / top).rglob("*")}

_FENCE = re.compile(r"^```(\w*)\n(.*?)^```", re.M | re.S)
_LINK = re.compile(r"\]\(([^)\s]+)\)")
_PATH = re.compile(r"`([\w./-]+(?:\.rs|\.py|/))`")


def _examples(page: Path) -> list[str]:
    text = page.read_text(encoding="utf-8")
    return [b for lang, b in _FENCE.findall(text) if lang == "toml" and b.startswith(COMPLETE)]


def test_the_pages_exist() -> None:
    names = {p.stem for p in SCHEMES}
    assert {"aqm", "fq", "diffq", "backpressure", "more", "dqm", "tcp", "tfrc", "wifi"} <= names


@pytest.mark.parametrize("page", SCHEMES, ids=lambda p: p.name)
def test_scheme_page_example_runs(page: Path) -> None:
    blocks = _examples(page)
    assert blocks, f"{page.name} has no `{COMPLETE}` example"
    for body in blocks:
        doc = tomllib.loads(body)
        res = aq.run(doc, duration=RUN_S)
        assert res.summary["conservation"]["holds"], page.name
        assert len(res.flows) == len(doc.get("flow", [])) or "flows" in doc


def _link_params() -> list[object]:
    params = []
    for page in [*SCHEMES, ARCHITECTURE]:
        text = page.read_text(encoding="utf-8")
        for target in sorted({t.split("#")[0] for t in _LINK.findall(text)}):
            if target.startswith("http") or not target:
                continue
            pending = next((r for k, r in PENDING_LINKS.items() if k in target), None)
            marks = [pytest.mark.xfail(strict=True, reason=pending)] if pending else []
            params.append(pytest.param(page, target, id=f"{page.name}->{target}", marks=marks))
    return params


@pytest.mark.parametrize(("page", "target"), _link_params())
def test_link_target_exists(page: Path, target: str) -> None:
    resolved = (page.parent / target).resolve()
    assert resolved.is_relative_to(ROOT), f"{page.name}: {target} leaves the repository"
    assert resolved.exists(), f"{page.name} links to {target}, which does not exist"


def _exists(path: str) -> bool:
    """A path from the repository root, a short path inside a crate, or a bare file
    name found somewhere under crates/ or python/."""
    if (ROOT / path.split("/")[0]).exists() and "/" in path:
        return (ROOT / path).exists()
    if "/" in path:
        return any((base / path).exists() for base in SOURCE_ROOTS)
    return path in SOURCE_FILES


def test_named_source_paths_exist() -> None:
    missing = []
    checked = 0
    for page in [*SCHEMES, ARCHITECTURE]:
        for path in set(_PATH.findall(page.read_text(encoding="utf-8"))):
            checked += 1
            if not _exists(path):
                missing.append(f"{page.name}: {path}")
    assert checked > 50, f"only {checked} paths found; is the extraction broken?"
    assert not missing, "paths named in the docs that do not exist:\n" + "\n".join(missing)
