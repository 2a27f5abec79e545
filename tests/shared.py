"""Scenarios and expectations shared by the Python test modules."""

#: Keys DESIGN.md fixes for ``airqueue run --json``.
SUMMARY_KEYS = {
    "name",
    "seed",
    "simulated_seconds",
    "wall_seconds",
    "events",
    "flows",
    "aggregate_goodput_bps",
    "jain_index",
    "log_utility",
    "starved_flows",
    "drops",
}

#: A 3-node wired chain with one saturating UDP flow: fast, exact, deterministic.
CHAIN_TOML = """\
name = "t"
duration = 10

[topology]
kind = "chain"
nodes = 3
spacing = 200

[medium]
kind = "wired"
bandwidth = 1e6
delay = 0.001

[[flow]]
kind = "udp"
src = 0
dst = 2
start = 0
rate = "saturate"
packet_size = 1000
"""

#: The first bytes of every PNG file (the reproductions' figures).
PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"
