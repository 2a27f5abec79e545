"""Plots: every kind renders a real image from a small sweep, from the API and the CLI."""

from __future__ import annotations

import math

import pytest
from typer.testing import CliRunner

import airqueue
from airqueue.cli import app

plots = pytest.importorskip("airqueue.plots")

PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"

BASE = {
    "name": "chain",
    "duration": 6.0,
    "outputs": {"bin": 0.5},
    "topology": {"kind": "chain", "nodes": 4, "spacing": 200.0},
    "medium": {"kind": "wired", "bandwidth": 2e6, "delay": 0.001},
    "flow": [
        {"kind": "udp", "src": 0, "dst": 3, "rate": 1.5e6},
        {"kind": "udp", "src": 1, "dst": 2, "rate": 1e6, "start": 2.0},
        {"kind": "udp", "src": 3, "dst": 0, "rate": 3e5},
    ],
}


@pytest.fixture(scope="module")
def results(tmp_path_factory):
    out = tmp_path_factory.mktemp("sweep")
    airqueue.sweep(
        BASE,
        grid={"queue.capacity": [3, 30], "flow[0].rate": [5e5, 1.5e6]},
        seeds=[1, 2, 3],
        out=out,
        serial=True,
        progress=False,
    )
    return out


def _check_png(path):
    import matplotlib.image

    data = path.read_bytes()
    assert data.startswith(PNG_SIGNATURE)
    assert len(data) > 10_000, f"{path} is only {len(data)} bytes"
    image = matplotlib.image.imread(path)
    assert image.shape[0] > 200 and image.shape[1] > 300


@pytest.mark.parametrize("kind", plots.KINDS)
def test_each_kind_renders_a_png(results, tmp_path, kind):
    out = tmp_path / f"{kind}.png"
    fig = airqueue.plot(results, kind=kind, x="queue.capacity", out=out)
    _check_png(out)
    axes = [ax for ax in fig.axes if ax.get_label() != "<colorbar>"]
    for ax in axes:
        assert ax.get_xlabel() or ax is not axes[-1]
        assert ax.get_ylabel()
    plots.plt.close(fig)


def test_units_are_on_the_axes(results):
    fig = airqueue.plot(results, kind="aggregate")
    (ax,) = fig.axes
    assert ax.get_xlabel() == "queue.capacity"  # the first swept parameter
    assert ax.get_ylabel() in ("aggregate goodput (Mb/s)", "aggregate goodput (kb/s)")
    plots.plt.close(fig)
    fig = airqueue.plot(results, kind="queues")
    assert fig.axes[0].get_xlabel() == "time (s)"
    assert fig.axes[0].get_ylabel() == "queue length (packets)"
    plots.plt.close(fig)


def test_plots_from_dataframes_and_svg(results, tmp_path):
    df = airqueue.load(results)
    fig = airqueue.plot(df, kind="cdf", out=tmp_path / "cdf.svg")
    assert len(fig.axes[0].get_lines()) == 4  # one per configuration
    plots.plt.close(fig)
    assert (tmp_path / "cdf.svg").read_text().lstrip().startswith("<?xml")
    ts = airqueue.load(results, table="timeseries")
    run = sorted(ts["run_id"])[-1]
    fig = airqueue.plot(ts, kind="timeseries", run=run)
    assert run in fig.axes[0].get_title() and len(fig.axes[0].get_lines()) == 3
    plots.plt.close(fig)


def test_bad_requests_say_what_is_valid(results, tmp_path):
    with pytest.raises(ValueError, match="unknown plot kind 'pie'"):
        airqueue.plot(results, kind="pie")
    with pytest.raises(ValueError, match="not a column"):
        airqueue.plot(results, kind="fairness", x="nope")
    with pytest.raises(ValueError, match=r"\.png or \.svg"):
        airqueue.plot(results, kind="cdf", out=tmp_path / "x.jpg")


def test_cli_plot(results, tmp_path):
    runner = CliRunner()
    res = runner.invoke(app, ["plot", str(results), "--kind", "fairness", "--x", "flow[0].rate"])
    assert res.exit_code == 0, res.output
    _check_png(results / "plots" / "fairness.png")
    out = tmp_path / "q.png"
    res = runner.invoke(app, ["plot", str(results), "--kind", "queues", "--out", str(out)])
    assert res.exit_code == 0 and out.is_file(), res.output
    res = runner.invoke(app, ["plot", str(results), "--kind", "bars"])
    assert res.exit_code == 2 and "unknown plot kind 'bars'" in res.output
    res = runner.invoke(app, ["plot", str(tmp_path / "missing"), "--kind", "cdf"])
    assert res.exit_code == 1 and "no such results directory" in res.output


def test_confidence_intervals_use_student_t():
    assert plots.t_quantile_975(1) == 12.706
    assert plots.t_quantile_975(30) == 2.042
    assert plots.t_quantile_975(200) == 1.96
    mean, half = plots.confidence_interval([1.0, 2.0, 3.0])
    assert mean == 2.0 and math.isclose(half, 4.303 * 1.0 / math.sqrt(3))
    assert math.isnan(plots.confidence_interval([5.0])[1])


def test_queues_legend_names_the_nodes(results):
    fig = airqueue.plot(results, kind="queues")
    legend = fig.axes[0].get_legend()
    assert [t.get_text() for t in legend.get_texts()] == [f"node {n}" for n in range(4)]
    plots.plt.close(fig)
    # Many nodes: the ten longest mean queues are named, longest first; the rest grey.
    import pandas as pd

    rows = [
        {"t_s": float(t), "node": n, "len_pkts": (n * 7) % 20 + (t % 2)}
        for n in range(20)
        for t in range(5)
    ]
    fig = airqueue.plot(pd.DataFrame(rows), kind="queues")
    names = [t.get_text() for t in fig.axes[0].get_legend().get_texts()]
    means = {n: (n * 7) % 20 + 0.4 for n in range(20)}
    top = sorted(means, key=lambda n: -means[n])[:10]
    assert names == [f"node {n}" for n in top]
    assert len(fig.axes[0].get_lines()) == 20
    plots.plt.close(fig)


def test_topology_of_a_run(results, tmp_path):
    from matplotlib.collections import LineCollection, PathCollection

    run_dir = sorted((results / "runs").iterdir())[0]
    fig = airqueue.plot(run_dir, kind="topology", out=tmp_path / "topo.png")
    _check_png(tmp_path / "topo.png")
    ax = fig.axes[0]
    (nodes,) = [c for c in ax.collections if isinstance(c, PathCollection)]
    assert len(nodes.get_offsets()) == 4
    (links,) = [c for c in ax.collections if isinstance(c, LineCollection)]
    assert len(links.get_segments()) == 3  # the chain's three wires
    # Mean over the run: the colours are each node's mean queue length.
    q = airqueue.load(results, table="queues")
    q = q[q["run_id"] == run_dir.name].groupby("node")["len_pkts"].mean()
    assert list(nodes.get_array()) == pytest.approx([q.get(n, 0.0) for n in range(4)])
    # One line per flow along its route, named in the legend.
    labels = [t.get_text() for t in ax.get_legend().get_texts()]
    assert [lab.split(":")[0] for lab in labels] == ["flow 0", "flow 1", "flow 2"]
    assert labels[0].startswith("flow 0: 0\u21923")
    plots.plt.close(fig)
    # At a time: that sample's queue lengths.
    fig = airqueue.plot(results, kind="topology", run=run_dir.name, at=3.0)
    (nodes,) = [c for c in fig.axes[0].collections if isinstance(c, PathCollection)]
    q = airqueue.load(results, table="queues")
    q = q[(q["run_id"] == run_dir.name) & (q["t_s"] == 3.0)].set_index("node")["len_pkts"]
    assert list(nodes.get_array()) == pytest.approx([q.get(n, 0) for n in range(4)])
    assert "t = 3 s" in fig.axes[0].get_title()
    plots.plt.close(fig)
    with pytest.raises(ValueError, match="outside the run's queue samples"):
        airqueue.plot(run_dir, kind="topology", at=99.0)
    with pytest.raises(ValueError, match="topology plot only"):
        airqueue.plot(results, kind="queues", at=1.0)
    runner = CliRunner()
    out = tmp_path / "t.svg"
    res = runner.invoke(
        app, ["plot", str(results), "--kind", "topology", "--at", "2", "--out", str(out)]
    )
    assert res.exit_code == 0 and out.read_text().startswith("<?xml"), res.output
