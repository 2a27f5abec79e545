"""The reproductions by name. Each is a module with ``NAME``, ``SUMMARY`` and
``run(*, quick, out, workers, serial, progress, params, client=None) ->
ReproductionResult`` (``client``: a Dask client to run on instead of starting a local
cluster); it is imported only when it runs (matplotlib and Dask load on first use)."""

from __future__ import annotations

import importlib
from types import ModuleType

__all__ = ["IN_ALL", "REPRODUCTIONS", "module"]

#: name -> (module, one-line summary, seed paper).
REPRODUCTIONS: dict[str, tuple[str, str, str]] = {
    "diffq-starvation": (
        "airqueue.reproduce.diffq_starvation",
        "Fig. 2 / Fig. 10: a 3-hop TCP flow starves beside two 1-hop flows; DiffQ-TCP shares",
        "000",
    ),
    "diffq-single-path": (
        "airqueue.reproduce.diffq_single_path",
        "Sec. 6.3: 46-node mesh, 4-32 random flows; fairness, log utility, Table 3 ratios",
        "000",
    ),
    "diffq-ablation": (
        "airqueue.reproduce.diffq_ablation",
        "Sec. 6.4, Fig. 15: rate control only vs + scheduling vs full DiffQ (queue drops)",
        "000",
    ),
    "diffq-sensitivity": (
        "airqueue.reproduce.diffq_sensitivity",
        "DiffQ's unpublished constants (D, queue threshold, TCP window) vs the headline results",
        "000",
    ),
    "diffq-tcp-chain": (
        "airqueue.reproduce.diffq_tcp_chain",
        "Table 2: one TCP flow alone over 1-4 hops, the testbed's throughput (calibration)",
        "000",
    ),
    "diffq-more": (
        "airqueue.reproduce.diffq_more",
        "Sec. 2, 6.2, Table 2: MORE vs DiffQ-MORE, 46-node mesh with 1-32 flows; MORE 1-4 hops",
        "000",
    ),
    "fq-protection": (
        "airqueue.reproduce.fq_protection",
        "Sec. 3.3, 4.3-4.5: fair queuing and back-pressure protect 8 TCP flows from UDP",
        "001",
    ),
    "dqm-fairness": (
        "airqueue.reproduce.dqm_fairness",
        "Sec. IV-A-C: BASE vs DQM at an 802.11b AP, 2-20 stations, 11 -> 2 Mb/s; up/down fairness",
        "004",
    ),
    "bp-tcp-aware": (
        "airqueue.reproduce.bp_tcp_aware",
        "Sec. 5, Figs. 6-7, 9, 12-13: TCP-aware BP vs classical BP and AODV, TCP and non-TCP",
        "002",
    ),
    "bp-grid": (
        "airqueue.reproduce.bp_grid",
        "Sec. 5, Figs. 8, 10-11: 4x3 grid, 4 TCP flows from a gateway; TCP-aware BP vs BP, AODV",
        "002",
    ),
}


#: What ``airqueue reproduce all`` runs: every reproduction of a paper's result, in the
#: order above. ``diffq-sensitivity`` reruns three of them over a grid of constants the
#: paper does not give: an analysis of ours, not a result of the paper, and the longest
#: run, so it runs only when asked for by name.
IN_ALL: tuple[str, ...] = tuple(n for n in REPRODUCTIONS if n != "diffq-sensitivity")


def module(name: str) -> ModuleType:
    """The module of reproduction ``name`` (KeyError if there is none)."""
    return importlib.import_module(REPRODUCTIONS[name][0])
