"""The claims registry (issue 24): each rule's statuses, the registry's completeness
against the docs, ``reproduce all`` writing claims.json and ``reproduce --claims``."""

from __future__ import annotations

import json
import re
import sys
from pathlib import Path

import pytest
from typer.testing import CliRunner

import airqueue
from airqueue.cli import app
from airqueue.reproduce import ReproductionResult, Row
from airqueue.reproduce.claims import (
    SEED_FILES,
    STATUSES,
    Claim,
    Difference,
    Direction,
    Ratio,
    Ref,
    ValueInCI,
    all_claims,
    decide_direction,
    decide_value,
    score,
    scoreboard,
    write_claims,
)
from airqueue.reproduce.registry import REPRODUCTIONS

DOCS = Path(__file__).resolve().parents[1] / "docs"
#: A claim id in a docs table: in backticks, in the row's first cell.
ID = re.compile(r"`(\d{3}-[a-z0-9][a-z0-9.\-]*)`")


# --- the rules ------------------------------------------------------------------------


def test_value_inside_an_informative_interval_is_reproduced():
    assert decide_value(1.96, ValueInCI(null=1.0), 1.8, 1.5, 2.2)[0] == "reproduced"


def test_value_within_the_stated_tolerance_is_reproduced():
    status, reason = decide_value(2.0, ValueInCI(rel=0.2, null=1.0), 1.7, 1.6, 1.8)
    assert (status, reason) == ("reproduced", "within tolerance")
    # The same numbers without a tolerance: right direction only.
    assert decide_value(2.0, ValueInCI(null=1.0), 1.7, 1.6, 1.8)[0] == "direction"


def test_direction_needs_the_interval_to_exclude_the_null():
    assert decide_value(1.96, ValueInCI(null=1.0), 1.3, 1.1, 1.5)[0] == "direction"
    status, reason = decide_value(1.96, ValueInCI(null=1.0), 1.3, 0.9, 1.7)
    assert status == "not_reproduced" and "does not exclude 1" in reason
    # Below the null, as a paper's fraction: 10% of the goodput without UDP.
    assert decide_value(0.1, ValueInCI(null=1.0), 0.5, 0.45, 0.55)[0] == "direction"


def test_opposite_direction_is_not_reproduced():
    assert decide_value(1.96, ValueInCI(null=1.0), 0.8, 0.7, 0.9)[0] == "not_reproduced"


def test_uninformative_interval_never_counts_as_reproduced():
    # Contains the paper's 2.0 but is wider than the effect (2.0 - 1 = 1).
    status, reason = decide_value(2.0, ValueInCI(rel=0.2, null=1.0), 2.0, 0.5, 3.5)
    assert status == "not_reproduced" and "uninformative" in reason
    # Without a null: wider than the paper's value itself.
    assert decide_value(0.2, ValueInCI(), 0.2, 0.0, 0.5)[0] == "not_reproduced"
    # A claim of 0 is informative only with a stated width.
    assert decide_value(0.0, ValueInCI(), 3.0, 0.0, 9.0)[0] == "not_reproduced"
    assert decide_value(0.0, ValueInCI(max_width=100.0), 3.0, 0.0, 9.0)[0] == "reproduced"


def test_a_row_without_interval_is_never_reproduced():
    status, reason = decide_value(4.25, ValueInCI(rel=0.1), 4.25, None, None)
    assert (status, reason) == ("not_reproduced", "no interval")


def test_direction_claims_against_a_number():
    rule = Direction("less", 0.1)
    assert decide_direction(rule, 0.03, 0.01, 0.06)[0] == "reproduced"
    status, reason = decide_direction(rule, 0.05, 0.0, 0.2)
    assert status == "not_reproduced" and "point estimate below" in reason
    assert decide_direction(rule, 0.5, 0.4, 0.6) == (
        "not_reproduced",
        "the opposite: interval above 0.1",
    )
    assert decide_direction(Direction("greater", 70000.0), 8e4, 7.5e4, 8.5e4)[0] == "reproduced"
    assert decide_direction(rule, 0.03, None, None) == ("not_reproduced", "no interval")


def test_direction_claims_against_another_row_need_apart_intervals():
    from airqueue.reproduce.claims import _Estimate

    rule = Direction("greater", Ref("diffq-starvation", "other"))
    assert decide_direction(rule, 0.9, 0.85, 0.95, _Estimate(0.7, 0.6, 0.8))[0] == "reproduced"
    status, _ = decide_direction(rule, 0.9, 0.75, 0.95, _Estimate(0.7, 0.6, 0.8))
    assert status == "not_reproduced"
    assert decide_direction(rule, 0.9, 0.85, 0.95, _Estimate(0.7, None, None))[0] == (
        "not_reproduced"
    )


# --- evaluation against an output directory -------------------------------------------


def _write_rows(root: Path, name: str, rows: list[tuple[str, float, float, float]]) -> None:
    (root / name).mkdir(parents=True, exist_ok=True)
    doc = [
        {"metric": m, "paper": None, "ours": o, "ci_low": lo, "ci_high": hi}
        for m, o, lo, hi in rows
    ]
    (root / name / "rows.json").write_text(json.dumps(doc), encoding="utf-8")


def _claim(cid: str, **kw) -> Claim:
    return Claim(id=cid, paper="000", where="Table 9", statement="s", metric="m", **kw)


def test_score_reads_rows_ratios_differences_and_says_what_is_missing(tmp_path):
    _write_rows(tmp_path, "diffq-tcp-chain", [("a", 4.0, 3.0, 5.0), ("b", 2.0, 1.5, 2.5)])
    a, b = Ref("diffq-tcp-chain", "a"), Ref("diffq-tcp-chain", "b")
    claims = [
        _claim("000-x-value", paper_value=4.25, measure=a, rule=ValueInCI(null=0.0)),
        _claim("000-x-ratio", paper_value=2.0, measure=Ratio(a, b), rule=ValueInCI(null=1.0)),
        _claim("000-x-diff", measure=Difference(a, b), rule=Direction("greater", 0.0)),
        _claim("000-x-vs", measure=a, rule=Direction("greater", b)),
        _claim(
            "000-x-norow", paper_value=1.0, measure=Ref("diffq-tcp-chain", "c"), rule=ValueInCI()
        ),
        _claim("000-x-notrun", paper_value=1.0, measure=Ref("diffq-more", "a"), rule=ValueInCI()),
        _claim("000-x-skip", not_attempted="no TDMA"),
    ]
    out = {o.claim.id: o for o in score(tmp_path, claims)}
    assert out["000-x-value"].status == "reproduced"
    ratio = out["000-x-ratio"]
    # Conservative interval: [3 / 2.5, 5 / 1.5].
    assert (ratio.ours, ratio.ci_low, ratio.ci_high) == pytest.approx((2.0, 1.2, 5 / 1.5))
    assert ratio.status == "direction"  # contains 2.0, but wider than the effect (1.0)
    diff = out["000-x-diff"]
    assert (diff.ours, diff.ci_low, diff.ci_high) == (2.0, 0.5, 3.5)
    assert diff.status == "reproduced"
    assert out["000-x-vs"].status == "reproduced"
    assert out["000-x-norow"].status == "not_attempted"
    assert out["000-x-norow"].reason.startswith("row 'c' not in")
    assert out["000-x-notrun"].status == "not_attempted"
    assert out["000-x-notrun"].reason.startswith("not run: no ")
    assert (out["000-x-skip"].status, out["000-x-skip"].reason) == ("not_attempted", "no TDMA")
    board = scoreboard(out.values())
    assert board["total"] == {
        "reproduced": 3,
        "direction": 1,
        "not_reproduced": 0,
        "not_attempted": 3,
    }
    assert board[SEED_FILES["000"]] == board["total"]


def test_a_broken_rows_file_is_named(tmp_path):
    (tmp_path / "diffq-tcp-chain").mkdir()
    (tmp_path / "diffq-tcp-chain" / "rows.json").write_text("{not json", encoding="utf-8")
    claim = _claim("000-x", paper_value=1.0, measure=Ref("diffq-tcp-chain", "a"), rule=ValueInCI())
    with pytest.raises(airqueue.ConfigError, match=r"diffq-tcp-chain/rows.json"):
        score(tmp_path, [claim])


def test_a_claim_must_say_how_it_is_decided():
    with pytest.raises(ValueError, match="measure and a rule"):
        _claim("000-x")
    with pytest.raises(ValueError, match="value_in_ci needs"):
        _claim("000-x", measure=Ref("diffq-tcp-chain", "a"), rule=ValueInCI())
    with pytest.raises(ValueError, match="seed number"):
        _claim("001-x", not_attempted="r")
    with pytest.raises(ValueError, match="lower-case"):
        _claim("000-Fig-2", not_attempted="r")


# --- the registry ---------------------------------------------------------------------


def test_registry_covers_the_four_papers_with_unique_well_formed_ids():
    claims = all_claims()
    ids = [c.id for c in claims]
    assert len(ids) == len(set(ids))
    assert all(ID.fullmatch(f"`{i}`") for i in ids), [i for i in ids if not ID.fullmatch(f"`{i}`")]
    assert {c.paper for c in claims} == set(SEED_FILES)
    for c in claims:
        assert c.statement and c.where and c.metric, c.id
        if c.not_attempted is None:
            assert {r.reproduction for r in _refs(c)} <= set(REPRODUCTIONS), c.id


def _refs(c: Claim) -> list[Ref]:
    m = c.measure
    refs = [m] if isinstance(m, Ref) else [m.num, m.den] if isinstance(m, Ratio) else [m.a, m.b]
    if isinstance(c.rule, Direction) and isinstance(c.rule.than, Ref):
        refs.append(c.rule.than)
    return refs


@pytest.mark.parametrize(
    "cid",
    [
        "001-s33-tdma-fifo-poor",  # seed 001's TDMA experiments
        "001-s33-case2-clients-6-7",  # Case 2
        "001-s44-jitter-lower",  # jitter
        "000-fig12-diffq-50-500k",  # Fig. 12-14 values
        "000-fig14-tcp-starved-60",
        "000-s63-few-like-tcp-32",  # TCP-FeW
        "002-fig6d-bp-vegas-beats-sack",  # Fig. 6d
        "002-fig7-bp-sack-starves-diamond",  # Fig. 7
        "004-fig5a-delay-around-dref",  # delay around D_ref
    ],
)
def test_the_claims_the_issue_names_as_uncovered_are_in_the_registry(cid):
    assert cid in {c.id for c in all_claims()}


def _doc_ids(path: Path) -> set[str]:
    """Claim ids in the first cell of the Markdown table rows of ``path``."""
    ids: set[str] = set()
    for line in path.read_text(encoding="utf-8").splitlines():
        if line.startswith("|"):
            first = line.strip().strip("|").split("|")[0]
            ids.update(ID.findall(first))
    return ids


def _status_docs() -> list[Path]:
    """The docs' status tables: docs/reproductions/*.md once they exist, else docs/*.md."""
    pages = sorted((DOCS / "reproductions").glob("*.md"))
    return pages or sorted(p for p in DOCS.glob("*.md") if p.name != "claims.md")


def test_every_claim_listed_in_the_docs_is_in_the_registry():
    registry = {c.id for c in all_claims()}
    for page in _status_docs():
        unknown = _doc_ids(page) - registry
        assert not unknown, f"{page}: claim ids not in the registry: {sorted(unknown)}"


#: The reproduction page of each seed paper, by the id's seed number.
PAGES = {"000": "diffq.md", "001": "fq.md", "002": "backpressure.md", "004": "dqm.md"}


def test_every_registry_claim_is_in_its_papers_page():
    assert set(PAGES) == set(SEED_FILES)
    claims = all_claims()
    for seed, name in PAGES.items():
        cited = _doc_ids(DOCS / "reproductions" / name)
        wanted = {c.id for c in claims if c.id.startswith(f"{seed}-")}
        assert not wanted - cited, f"{name} lacks {sorted(wanted - cited)}"
        assert all(i.startswith(f"{seed}-") for i in cited), f"{name} cites another paper"


def test_docs_claims_page_lists_every_claim():
    listed = _doc_ids(DOCS / "claims.md")
    registry = {c.id for c in all_claims()}
    assert not registry - listed, f"docs/claims.md lacks {sorted(registry - listed)}"
    assert not listed - registry, f"docs/claims.md lists unknown {sorted(listed - registry)}"


# --- reproduce all and the command line -----------------------------------------------


def test_reproduce_all_writes_claims_json(tmp_path, monkeypatch):
    # ``airqueue.reproduce`` is also the function of that name: take the package itself.
    reproduce_pkg = sys.modules["airqueue.reproduce"]

    def fake_run_one(name, *, out, **_):
        result = ReproductionResult(
            name=name, rows=[Row("TCP-SACK, 1 hop: goodput, Mb/s (Table 2)", 4.25, 4.3, 4.2, 4.4)]
        )
        result.out = out
        result.write()
        return result

    monkeypatch.setattr(reproduce_pkg, "_run_one", fake_run_one)
    airqueue.reproduce_all(out=tmp_path, serial=True, names=["diffq-tcp-chain"])
    doc = json.loads((tmp_path / "claims.json").read_text())
    assert len(doc) == len(all_claims())
    keys = {"id", "paper", "where", "metric", "paper_value", "ours", "ci_low", "ci_high"}
    assert all(keys | {"rule", "status"} <= set(c) for c in doc)
    assert {c["status"] for c in doc} <= set(STATUSES)
    by_id = {c["id"]: c for c in doc}
    one_hop = by_id["000-tab2-tcp-1hop"]
    assert (one_hop["status"], one_hop["ours"], one_hop["paper"]) == (
        "reproduced",
        4.3,
        SEED_FILES["000"],
    )
    assert by_id["000-tab2-tcp-2hop"]["status"] == "not_attempted"  # no such row here
    assert by_id["000-fig2-tcp-starves"]["reason"].startswith("not run")


def test_cli_claims_scoreboard_of_a_small_quick_run(tmp_path):
    runner = CliRunner()
    chain = tmp_path / "diffq-tcp-chain"
    result = runner.invoke(
        app,
        [
            "reproduce",
            "diffq-tcp-chain",
            "--quick",
            "--serial",
            "--no-progress",
            "--out",
            str(chain),
            "--param",
            "seeds=2",
            "--param",
            "duration=4",
            "--param",
            "hops=[1,2]",
        ],
    )
    assert result.exit_code == 0, result.output
    board = runner.invoke(app, ["reproduce", "--claims", str(tmp_path)])
    assert board.exit_code == 0, board.output
    total = next(line for line in board.output.splitlines() if "total" in line)
    counts = [int(x) for x in re.findall(r"\d+", total)]
    assert counts[-1] == len(all_claims()) == sum(counts[:4])
    assert "not run (their claims count as not attempted)" in board.output
    doc = json.loads(runner.invoke(app, ["reproduce", "--claims", str(tmp_path), "--json"]).output)
    by_id = {c["id"]: c for c in doc}
    for hops in (1, 2):
        c = by_id[f"000-tab2-tcp-{hops}hop"]
        assert c["ours"] is not None and c["ci_low"] <= c["ours"] <= c["ci_high"]
        assert c["status"] in {"reproduced", "not_reproduced"}
    assert by_id["000-tab2-tcp-3hop"]["status"] == "not_attempted"
    assert by_id["001-s33-default-10pct"]["reason"].startswith("not run")
    write_claims(tmp_path)
    assert json.loads((tmp_path / "claims.json").read_text()) == doc


def test_cli_claims_of_a_missing_directory_is_a_clear_error(tmp_path):
    result = CliRunner().invoke(app, ["reproduce", "--claims", str(tmp_path / "nope")])
    assert result.exit_code == 2
    assert "no such directory" in result.output and "reproduce all --out" in result.output


def test_cli_reproduce_without_a_name_says_what_it_needs():
    result = CliRunner().invoke(app, ["reproduce"])
    assert result.exit_code == 2 and "missing NAME" in result.output


def test_cli_reproduce_all_prints_the_scoreboard(tmp_path, monkeypatch):
    import airqueue.cli_reproduce as cli

    def fake_all(*, out, **_):
        write_claims(out)
        return {}

    monkeypatch.setattr(cli, "run_all", fake_all)
    result = CliRunner().invoke(app, ["reproduce", "all", "--out", str(tmp_path)])
    assert result.exit_code == 0, result.output
    assert "claims of the seed papers" in result.output and "total" in result.output
    assert (tmp_path / "claims.json").is_file()
