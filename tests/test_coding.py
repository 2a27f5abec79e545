"""The network-coding layer of seed 002 (section 4.1.3) from Python: the ``[tcp]`` keys,
the ``tcp`` table's coding columns, and accounting of redundant packets."""

from __future__ import annotations

import pytest

import airqueue


def chain(coding: bool, loss: float = 0.0) -> dict:
    """A 3-hop 2 Mb/s chain with one TCP-SACK flow; link 1-2 erases ``loss`` of the frames
    with a 2-attempt MAC, so some packets are lost in the network."""
    sc = {
        "name": "coding-chain",
        "duration": 20.0,
        "seed": 1,
        "topology": {"kind": "chain", "nodes": 4, "spacing": 200.0},
        "radio": {"data_rate": 2e6, "basic_rate": 1e6},
        "mac": {"short_retry_limit": 2},
        "tcp": {"network_coding": coding, "max_window": 8},
        "flow": [{"kind": "tcp", "variant": "sack", "src": 0, "dst": 3, "packet_size": 1000}],
    }
    if loss:
        sc["link"] = [{"a": 1, "b": 2, "loss": loss}]
    return sc


#: The ``tcp`` table's coding columns (null for a plain TCP flow).
COLUMNS = (
    "coded_packets repair_packets repair_requests redundant_packets blocks_decoded unmasked_losses"
).split()


def test_plain_tcp_has_no_coding_counters():
    tcp = airqueue.run(chain(False)).tcp
    assert tcp[COLUMNS].isna().all(axis=None)


def test_coded_flow_reports_blocks_repairs_and_redundancy():
    res = airqueue.run(chain(True, loss=0.3))
    t = res.tcp.iloc[0]
    assert t["blocks_decoded"] > 0
    # Goodput is what the decoder released: whole 32-packet blocks here.
    assert t["segments_delivered"] == 32 * t["blocks_decoded"]
    assert t["repair_requests"] > 0 and t["repair_packets"] >= t["repair_requests"]
    assert t["coded_packets"] >= t["segments_delivered"]
    drops = res.drops
    redundant = drops[drops["reason"] == "coding_redundancy"]["packets"].sum()
    assert redundant == t["redundant_packets"]
    s = res.summary
    assert s["conservation"]["holds"], s["conservation"]


@pytest.mark.parametrize(
    ("key", "value", "message"),
    [
        ("network_coding", "yes", "tcp.network_coding"),
        ("coding_block", 0, "tcp.coding_block"),
        ("coding_repair_delay", -1.0, "tcp.coding_repair_delay"),
    ],
)
def test_bad_coding_keys_name_their_path(key, value, message):
    sc = chain(True)
    sc["tcp"][key] = value
    with pytest.raises(airqueue.ConfigError, match=message):
        airqueue.run(sc)
