"""Random flows (`[flows]`) from Python: drawn from the seed, ordinary flows in results."""

from __future__ import annotations

import pytest

import airqueue
from airqueue import ConfigError

MESH = {
    "name": "mesh",
    "duration": 4.0,
    "seed": 3,
    "topology": {"kind": "random", "nodes": 25, "area": [900.0, 900.0]},
    "medium": {"kind": "wired", "bandwidth": 2e6, "delay": 0.001},
    "flow": [{"kind": "udp", "src": 0, "dst": 1, "rate": 1e5}],
    "flows": {
        "random": 6,
        "kind": "udp",
        "rate": 2e5,
        "packet_size": 500,
        "start": [0.5, 1.0],
        "min_hops": 2,
        "max_hops": 4,
    },
}


def _pairs(res):
    return list(zip(res.flows["src"], res.flows["dst"], strict=True))


def test_drawn_flows_follow_the_listed_ones():
    res = airqueue.run(MESH)
    flows = res.flows.sort_values("id")
    assert list(flows["id"]) == list(range(7))
    assert (flows["src"].iloc[0], flows["dst"].iloc[0]) == (0, 1)
    drawn = flows.iloc[1:]
    assert len(set(zip(drawn["src"], drawn["dst"], strict=True))) == 6
    assert drawn["start_s"].between(0.5, 1.0).all()
    assert (drawn["packet_size_bytes"] == 500).all()
    assert (drawn["packets_sent"] > 0).all()
    assert len(res.summary["flows"]) == 7


def test_same_seed_same_flows_other_seed_other_flows():
    assert _pairs(airqueue.run(MESH)) == _pairs(airqueue.run(MESH))
    assert _pairs(airqueue.run(MESH)) != _pairs(airqueue.run(MESH, seed=4))


def test_too_many_flows_is_a_config_error():
    with pytest.raises(ConfigError) as e:
        airqueue.run(airqueue.Scenario(MESH).with_overrides({"flows.max_hops": 1}), seed=3)
    assert e.value.errors == ["flows.max_hops: must be >= min_hops (2), got 1"]
    with pytest.raises(ConfigError, match=r"flows\.random: 600 flows asked for, but only"):
        airqueue.run(airqueue.Scenario(MESH).with_overrides({"flows.random": 600}))


def test_sweeping_the_number_of_random_flows():
    df = airqueue.sweep(
        MESH, grid={"flows.random": [2, 5]}, seeds=[1, 2], serial=True, progress=False
    )
    per_run = df.groupby("run_id").size().sort_values()
    assert list(per_run) == [3, 3, 6, 6]
    assert df.attrs["failed"] == []
