"""The command line's help stays short, and ``reproduce --list`` names every reproduction."""

from __future__ import annotations

from typer.testing import CliRunner

from airqueue.cli import app
from airqueue.reproduce import IN_ALL, NAMES
from airqueue.reproduce.registry import REPRODUCTIONS


def test_top_level_help_is_short():
    res = CliRunner().invoke(app, ["--help"], env={"COLUMNS": "100"})
    assert res.exit_code == 0
    lines = res.output.strip().splitlines()
    assert len(lines) <= 20, res.output
    for command in ("run", "sweep", "plot", "view", "reproduce"):
        assert any(line.strip("│ ").startswith(command + " ") for line in lines), command
    # No reproduction's summary in the overview: those are for `reproduce --list`.
    assert "diffq-starvation" not in res.output


def test_reproduce_list_names_each_with_one_line():
    res = CliRunner().invoke(app, ["reproduce", "--list"])
    assert res.exit_code == 0
    lines = res.output.strip().splitlines()
    assert [line.split()[0] for line in lines] == [*NAMES, "all"]
    for name, line in zip(NAMES, lines, strict=False):
        assert REPRODUCTIONS[name][1] in line
    left_out = [n for n in NAMES if n not in IN_ALL]
    assert all(n in lines[-1] for n in left_out)


def test_reproduce_without_a_name_points_to_the_list():
    res = CliRunner().invoke(app, ["reproduce"])
    assert res.exit_code == 2
    assert "--list" in res.output
