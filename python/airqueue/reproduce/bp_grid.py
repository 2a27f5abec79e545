"""``bp-grid``: seed 002's grid topology (section 5.1, Fig. 5c; section 5.2, Figs. 8, 10
and 11): four TCP flows from a gateway to random nodes of a 4 x 3 grid of cells, TCP-aware
backpressure against classical backpressure (Fig. 8) and against AODV over the average
link loss (Figs. 10 and 11).

What the paper states (section 5.1): 4 x 3 cells over an 800 x 600 m terrain, 12 nodes
placed at random in the cells, a gateway connected to the Internet passing flows to the
nodes; four flows from the gateway to four distinct random nodes; half of the links,
chosen at random, lossy with average loss 0-0.5 (Rayleigh fading); 802.11b at 2 Mb/s,
two-ray ground, 100-packet buffers, 1000-byte packets, FTP over TCP-SACK and TCP-Vegas
starting at random times within the first 5 s, 200 s runs, 10 seeds. It gives no numbers
for the grid, only plots.

Modelling choices where the paper is silent (each seed draws its own layout):

- One node per 200 x 200 m cell (12 cells, 12 nodes), uniform in its cell; node ids 1-12
  row by row from the cell at (0, 0). Fig. 5c's picture is lost in the text.
- The gateway is node 0 at the terrain centre (400, 300), the corner shared by the four
  middle cells: the paper does not place it; the centre keeps the paths from the gateway
  short and the layout symmetric. It is a radio node like the others (its Internet side
  is not modelled: the flows start at the gateway).
- Two nodes are neighbours when at most ``tx_range_m`` apart (250 m, ns-2's and the
  simulator's default, as in ``bp-tcp-aware``): the paper's "communicates with nodes in
  its cell or neighbouring cells" is the radio range here. The layout is redrawn from
  the same random stream (up to ``MAX_DRAWS`` times) until the gateway reaches every node;
  a ValueError says so if none does.
- "Links" are the neighbour pairs; half of them (rounded down), drawn at random, are
  lossy. At average loss ``p`` every lossy link loses ``p`` of its frames in both
  directions to Rayleigh fading (section 5.1: "we simulated the two-ray path loss model
  and a Rayleigh fading channel with average loss rates 0, 20, 30, 40, 50 percent";
  ``[[link]] fading = "rayleigh"``, whose mean power is set by ``p``); the other links keep
  two-ray ground's power and do not fade (Fig. 8: "the links are not lossy"). The paper
  gives no fading speed: frames fade independently. ``link_fading = "none"`` erases each
  frame independently with probability ``p`` instead. The lossy set is drawn once per seed, so
  every loss point and scheme of a seed runs the same layout, flows and lossy links
  (paired comparisons); ``p = 0`` has no ``[[link]]`` entries.
- Four destinations drawn without replacement among nodes 1-12; start times uniform in
  [0, ``start_window_s``).
- The random stream is ``random.Random(seed)``, the run's seed: layout draws first, then
  the lossy links, the destinations and the start times. Same seed, same scenario.

Schemes (as ``bp-tcp-aware``): TCP-aware and classical backpressure (``[queue] kind =
"backpressure"``, eq. (2)'s two variants) and AODV (RFC 3561, drop-tail queues), each with
section 4.1.3's network coding on every TCP flow, as the paper ran them
(``network_coding``; false: plain TCP). Fig. 8:
loss 0, TCP-aware vs classical BP, both TCP versions, per-flow goodput over time. Figs. 10
and 11: TCP-aware BP vs AODV at every average loss, TCP-SACK (Fig. 10) and TCP-Vegas
(Fig. 11). The TCP-aware runs at loss 0 serve both.

Metrics per scheme, TCP version and loss: aggregate goodput, Jain's index of the four
flows, surviving flows (a flow survives when its goodput over the run is positive and at
least ``survive_share`` of its equal share of the aggregate, aggregate / flows), the
smallest flow's goodput; TCP-aware BP over AODV, aggregate, per loss (paired bootstrap
over seeds). Means with Student-t 95% intervals over seeds.

Probe (an analysis of ours, not a figure of the paper): per seed, one TCP-SACK flow from
the gateway to its lowest-numbered neighbour, the link between them the only lossy one
(``probe_loss``, 0.01), under TCP-aware BP and AODV, and the same without loss: does a
slightly lossy direct link still carry a flow under eq. (2)-(4)'s loss-aware weight?

``--quick``: 2 seeds of 30 s, TCP-SACK only, losses 0 and 0.5.
"""

from __future__ import annotations

import math
import random
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pandas as pd

from airqueue.reproduce.bp_tcp_aware import (
    LOSSES,
    VARIANT_LABEL,
    BackpressureParams,
    coding_note,
    coding_problems,
    estimate_problems,
    jain,
    lossy_link,
    lossy_link_note,
    per_flow,
    queue_section,
    tcp_section,
)
from airqueue.reproduce.claims import Claim, Direction, Ratio, Ref, ValueInCI
from airqueue.reproduce.params import as_params, make_config
from airqueue.reproduce.report import ReproductionResult, Row, bootstrap_ratio, row
from airqueue.reproduce.runs import Runner

NAME = "bp-grid"
SUMMARY = "Sec. 5, Figs. 8, 10-11: 4x3 grid, 4 TCP flows from a gateway; TCP-aware BP vs BP, AODV"

#: Section 5.1: 4 x 3 cells over 800 x 600 m.
CELLS = (4, 3)
TERRAIN_M = (800.0, 600.0)
#: Our choice: the gateway (node 0) at the terrain centre.
GATEWAY_M = (400.0, 300.0)
GATEWAY = 0
#: Layout draws per seed before giving up on a connected neighbour graph (as the
#: simulator's random topology, docs/scenario.md).
MAX_DRAWS = 1000
#: Fig. 8 compares these at loss 0; Figs. 10-11 compare ``SWEEP_SCHEMES`` at every loss.
TIME_SCHEMES = ("tcp_aware", "classical")
SWEEP_SCHEMES = ("tcp_aware", "aodv")
_LABEL = {"tcp_aware": "TCP-aware BP", "classical": "classical BP", "aodv": "AODV"}
#: Mean Jain's index of TCP-aware BP may fall this far below AODV's and still count as
#: "without violating fairness" (the paper gives no tolerance; ours).
FAIRNESS_TOLERANCE = 0.05


@dataclass(frozen=True)
class Config(BackpressureParams):
    """Parameters (``airqueue.reproduce(NAME, params={...})`` overrides any of them; the
    backpressure settings are ``BackpressureParams``'s)."""

    #: Seeds 1..seeds, each its own layout (section 5.1: 10).
    seeds: int = 10
    #: Run length, seconds (section 5.1: 200).
    duration: float = 200.0
    #: TCP versions: ``"sack"`` (Figs. 8, 10) and/or ``"vegas"`` (Figs. 8, 11).
    variants: tuple[str, ...] = ("sack", "vegas")
    #: Average loss of the lossy links (section 5.1's 0, 20, 30, 40 and 50 percent).
    losses: tuple[float, ...] = LOSSES
    #: TCP flows from the gateway, to distinct nodes (section 5.2: four).
    flows: int = 4
    #: Section 5.1: 1000-byte packets, 100-packet buffers, 2 Mb/s channel (802.11b,
    #: control frames at 1 Mb/s as in bp-tcp-aware).
    packet_size: int = 1000
    capacity: int = 100
    data_rate: float = 2e6
    basic_rate: float = 1e6
    #: Decoding range, metres: the neighbour rule (ns-2's and the model's 250 m).
    tx_range_m: float = 250.0
    #: Flows start uniformly at random within this window (section 5.1: 5 s).
    start_window_s: float = 5.0
    #: A flow survives with at least this fraction of its equal share of the aggregate.
    survive_share: float = 0.1
    #: The probe's loss on the one lossy link (an analysis of ours, not a figure).
    probe_loss: float = 0.01
    #: Section 4.1.3's network-coding layer on every TCP flow, every scheme, as the paper
    #: ran them (``[tcp] network_coding``; false: plain TCP).
    network_coding: bool = True
    #: Packets per coding block, ``H`` (the paper: TCP's average window, not reported).
    coding_block: int = 32
    #: The AODV runs with RFC 3561 6.12 local repair (``[routing] local_repair``; off by
    #: default, the baseline as modelled so far, although ns-2 compiles it in).
    local_repair: bool = False
    extra: dict[str, Any] = field(default_factory=dict)

    @classmethod
    def make(cls, quick: bool, params: Mapping[str, Any] | None) -> Config:
        base = (
            cls(seeds=2, duration=30.0, variants=("sack",), losses=(0.0, 0.5)) if quick else cls()
        )
        return make_config(NAME, base, params, _check)


def _is_number(x: Any) -> bool:
    return not isinstance(x, bool) and isinstance(x, (int, float)) and math.isfinite(x)


def _check(config: Config) -> None:
    problems = []
    bad = [v for v in config.variants if v not in VARIANT_LABEL]
    if bad or not config.variants:
        problems.append(f"variants {bad or '(none)'}: expected sack and/or vegas")
    if config.seeds < 1:
        problems.append("seeds: at least 1")
    if not config.duration > 0:
        problems.append(f"duration {config.duration!r}: expected seconds > 0")
    bad = [p for p in config.losses if not _is_number(p) or not 0 <= p < 1]
    if bad or not config.losses:
        problems.append(f"losses {bad or '(none)'}: expected probabilities in [0, 1)")
    elif 0 not in config.losses:
        problems.append("losses: must include 0 (Fig. 8 runs loss-free)")
    cells = CELLS[0] * CELLS[1]
    if not 1 <= config.flows <= cells:
        problems.append(f"flows {config.flows}: expected 1..{cells} (distinct destinations)")
    if not 0 < config.tx_range_m <= 550:
        problems.append(
            f"tx_range_m {config.tx_range_m!r}: expected metres in (0, 550] (the carrier-"
            "sense range)"
        )
    if not 0 <= config.start_window_s < config.duration:
        problems.append(f"start_window_s {config.start_window_s!r}: expected within the run")
    if not 0 < config.survive_share <= 1:
        problems.append(f"survive_share {config.survive_share!r}: expected a fraction in (0, 1]")
    if not 0 < config.probe_loss < 1:
        problems.append(f"probe_loss {config.probe_loss!r}: expected a probability in (0, 1)")
    problems += coding_problems(config)
    problems += estimate_problems(config)
    if problems:
        raise ValueError("; ".join(problems))


@dataclass(frozen=True)
class Layout:
    """One seed's grid: node positions (node 0 the gateway), neighbour pairs, the lossy
    half of them, and the flows' destinations and start times."""

    seed: int
    positions_m: tuple[tuple[float, float], ...]
    pairs: tuple[tuple[int, int], ...]
    lossy: tuple[tuple[int, int], ...]
    destinations: tuple[int, ...]
    starts_s: tuple[float, ...]
    #: Layouts drawn until this one was connected (1: the first).
    draws: int

    def hops(self) -> tuple[int, ...]:
        """Fewest hops from the gateway to each destination over the neighbour graph."""
        dist = _hop_distances(len(self.positions_m), self.pairs)
        return tuple(dist[d] for d in self.destinations)


def _neighbour_pairs(
    positions_m: Sequence[tuple[float, float]], tx_range_m: float
) -> tuple[tuple[int, int], ...]:
    n = len(positions_m)
    return tuple(
        (a, b)
        for a in range(n)
        for b in range(a + 1, n)
        if math.dist(positions_m[a], positions_m[b]) <= tx_range_m
    )


def _hop_distances(n: int, pairs: Sequence[tuple[int, int]]) -> dict[int, int]:
    """Breadth-first hop count from the gateway to every node it reaches."""
    adjacent: dict[int, list[int]] = {i: [] for i in range(n)}
    for a, b in pairs:
        adjacent[a].append(b)
        adjacent[b].append(a)
    dist = {GATEWAY: 0}
    frontier = [GATEWAY]
    while frontier:
        nxt = []
        for i in frontier:
            for j in adjacent[i]:
                if j not in dist:
                    dist[j] = dist[i] + 1
                    nxt.append(j)
        frontier = nxt
    return dist


def _draw_positions(rng: random.Random) -> list[tuple[float, float]]:
    """The gateway, then one node uniform in each cell, row by row."""
    w_m, h_m = TERRAIN_M[0] / CELLS[0], TERRAIN_M[1] / CELLS[1]
    nodes = [
        (col * w_m + rng.uniform(0, w_m), r * h_m + rng.uniform(0, h_m))
        for r in range(CELLS[1])
        for col in range(CELLS[0])
    ]
    return [GATEWAY_M, *nodes]


def _connected_positions(
    rng: random.Random, tx_range_m: float, seed: int
) -> tuple[list[tuple[float, float]], tuple[tuple[int, int], ...], int]:
    """The first layout of ``rng`` whose neighbour graph connects every node to the
    gateway: (positions, neighbour pairs, draws it took)."""
    for draw in range(1, MAX_DRAWS + 1):
        positions_m = _draw_positions(rng)
        pairs = _neighbour_pairs(positions_m, tx_range_m)
        if len(_hop_distances(len(positions_m), pairs)) == len(positions_m):
            return positions_m, pairs, draw
    raise ValueError(
        f"{NAME}: seed {seed}: no layout of {MAX_DRAWS} draws connects every node to "
        f"the gateway with tx_range_m = {tx_range_m:g}"
    )


def layout(config: Config, seed: int) -> Layout:
    """Seed ``seed``'s layout, flows and lossy links (the module docstring says how)."""
    rng = random.Random(seed)
    positions_m, pairs, draws = _connected_positions(rng, config.tx_range_m, seed)
    lossy = tuple(sorted(rng.sample(pairs, len(pairs) // 2)))
    nodes = range(1, len(positions_m))
    destinations = tuple(rng.sample(nodes, config.flows))
    starts_s = tuple(rng.uniform(0, config.start_window_s) for _ in destinations)
    return Layout(
        seed=seed,
        positions_m=tuple(positions_m),
        pairs=pairs,
        lossy=lossy,
        destinations=destinations,
        starts_s=starts_s,
        draws=draws,
    )


def scenario(
    config: Config, grid: Layout, variant: str, scheme: str, loss: float = 0.0
) -> dict[str, Any]:
    """One run on ``grid``: flow ``i`` from the gateway to ``grid.destinations[i]``;
    ``scheme`` is ``"tcp_aware"``, ``"classical"`` or ``"aodv"``; every lossy link loses
    a fraction ``loss`` of its frames in each direction (``lossy_link``)."""
    flows = [
        {
            "kind": "tcp",
            "variant": variant,
            "src": GATEWAY,
            "dst": dst,
            "packet_size": config.packet_size,
            "start": start_s,
        }
        for dst, start_s in zip(grid.destinations, grid.starts_s, strict=True)
    ]
    sc: dict[str, Any] = {
        "name": f"{NAME}-seed{grid.seed}-{variant}-{scheme}-loss{loss:g}",
        "duration": config.duration,
        "seed": grid.seed,
        "topology": {"kind": "explicit", "positions": [list(p) for p in grid.positions_m]},
        "radio": {
            "data_rate": config.data_rate,
            "basic_rate": config.basic_rate,
            "tx_range": config.tx_range_m,
        },
        "queue": queue_section(scheme, config),
        "tcp": tcp_section(config),
        "flow": flows,
    }
    if scheme == "aodv":
        sc["routing"] = {"kind": "aodv"}
        if config.local_repair:
            sc["routing"]["local_repair"] = True
    if loss > 0:
        sc["link"] = [lossy_link(config, a, b, loss) for a, b in grid.lossy]
    for k, value in config.extra.items():
        sc[k] = value
    return sc


Case = tuple[str, str, float]  # (variant, scheme, loss)


def cases(config: Config) -> list[Case]:
    """Every (variant, scheme, loss) run: Fig. 8's two schemes at loss 0, Figs. 10-11's
    two at every loss (TCP-aware BP at loss 0 once)."""
    out: list[Case] = []
    for v in config.variants:
        wanted = [(s, 0.0) for s in TIME_SCHEMES]
        wanted += [(s, float(p)) for p in config.losses for s in SWEEP_SCHEMES]
        out += [(v, s, p) for s, p in dict.fromkeys(wanted)]
    return out


def run(
    *,
    quick: bool,
    out: Path,
    workers: int | None,
    serial: bool,
    progress: bool,
    params: Mapping[str, Any] | None = None,
    client: Any = None,
) -> ReproductionResult:
    config = Config.make(quick, params)
    seeds = list(range(1, config.seeds + 1))
    layouts = {s: layout(config, s) for s in seeds}
    all_cases = cases(config)
    frames: dict[Case, pd.DataFrame] = {}
    with Runner(out, workers=workers, serial=serial, progress=progress, client=client) as runner:
        for case in all_cases:
            frames[case] = _run_case(config, runner, layouts, case)
        time_frames = [frames[(v, s, 0.0)] for v in config.variants for s in TIME_SCHEMES]
        ts = runner.table(pd.concat(time_frames, ignore_index=True), "timeseries")
        probe = _run_probe(config, runner, layouts)
    goodputs = {case: per_flow(f) for case, f in frames.items()}

    rows = _layout_rows(config, layouts)
    rows += [r for case in all_cases for r in _case_rows(config, case, goodputs[case])]
    rows += _ratio_rows(config, goodputs)
    rows += _probe_rows(config, probe)
    figures = [_time_figure(config, layouts[seeds[0]], ts, out)]
    figures += [_sweep_figure(config, v, goodputs, out) for v in config.variants]
    return ReproductionResult(
        name=NAME,
        rows=rows,
        figures=figures,
        notes=_setup_notes(config, quick, layouts)
        + _fig8_notes(config, goodputs)
        + _sweep_notes(config, goodputs)
        + _mechanism_notes(config, goodputs, probe),
        params={"quick": quick, **as_params(config), "seed_list": seeds},
        out=out,
    )


def probe_scenario(config: Config, grid: Layout, scheme: str, loss: float) -> dict[str, Any]:
    """The probe (ours, not the paper's): one TCP-SACK flow from the gateway to its
    lowest-numbered neighbour, starting at 0 s, the link between them the only lossy one
    (``loss``): does a slightly lossy direct link still carry the flow?"""
    dst = min(b for a, b in grid.pairs if a == GATEWAY)
    sc = scenario(config, grid, "sack", scheme)
    sc["flow"] = [{**sc["flow"][0], "dst": dst, "start": 0.0}]
    sc["name"] = f"{NAME}-probe-seed{grid.seed}-{scheme}-loss{loss:g}"
    if loss > 0:
        sc["link"] = [lossy_link(config, GATEWAY, dst, loss)]
    return sc


ProbeCase = tuple[str, float]  # (scheme, loss)


def _run_probe(
    config: Config, runner: Runner, layouts: Mapping[int, Layout]
) -> dict[ProbeCase, pd.Series]:
    """(scheme, loss) -> the probe flow's goodput (bit/s) per seed."""
    out: dict[ProbeCase, pd.Series] = {}
    for s in SWEEP_SCHEMES:
        for p in (0.0, config.probe_loss):
            flows = pd.concat(
                [
                    runner.sweep(f"probe|{s}|{p:g}", probe_scenario(config, g, s, p), seeds=[seed])
                    for seed, g in layouts.items()
                ],
                ignore_index=True,
            )
            out[(s, p)] = flows.set_index("seed")["goodput_bps"]
    return out


def _probe_rows(config: Config, probe: Mapping[ProbeCase, pd.Series]) -> list[Row]:
    return [
        row(
            f"probe (ours): one TCP-SACK flow to a one-hop neighbour, loss {p:g} on that "
            f"link only, {_LABEL[s]}: goodput, kb/s",
            list(probe[(s, p)]),
            scale=1e3,
        )
        for s in SWEEP_SCHEMES
        for p in (0.0, config.probe_loss)
    ]


def _run_case(
    config: Config, runner: Runner, layouts: Mapping[int, Layout], case: Case
) -> pd.DataFrame:
    """One case over every seed: one sweep per seed, since each seed has its own layout.
    The frames share the case's ``scheme`` label."""
    v, s, p = case
    label = f"{v}|{s}|{p:g}"
    per_seed = [
        runner.sweep(label, scenario(config, grid, v, s, p), seeds=[seed])
        for seed, grid in layouts.items()
    ]
    return pd.concat(per_seed, ignore_index=True)


def surviving(g: pd.DataFrame, share: float) -> pd.Series:
    """Per seed, flows whose goodput is positive and at least ``share`` of the equal
    share of the aggregate (aggregate / flows)."""
    floor = g.sum(axis=1) / g.shape[1] * share
    return ((g.gt(0)) & g.ge(floor, axis=0)).sum(axis=1)


def _head(case: Case) -> str:
    v, s, p = case
    figure = "Fig. 8" if s == "classical" else f"Fig. {10 if v == 'sack' else 11}"
    if s == "tcp_aware" and p == 0:
        figure = f"Figs. 8, {10 if v == 'sack' else 11}"
    return f"{figure}, grid, {VARIANT_LABEL[v]}, loss {p:g}, {_LABEL[s]}"


def _case_rows(config: Config, case: Case, g: pd.DataFrame) -> list[Row]:
    head = _head(case)
    return [
        row(f"{head}: aggregate goodput, kb/s", list(g.sum(axis=1)), scale=1e3),
        row(f"{head}: Jain's index of the {g.shape[1]} flows", list(jain(g)), high=1.0),
        row(
            f"{head}: surviving flows (of {g.shape[1]})",
            list(surviving(g, config.survive_share)),
            high=float(g.shape[1]),
        ),
        row(f"{head}: smallest flow's goodput, kb/s", list(g.min(axis=1)), scale=1e3),
    ]


def _ratio(goodputs: Mapping[Case, pd.DataFrame], v: str, p: float) -> tuple[Any, Any, Any]:
    bp = goodputs[(v, "tcp_aware", p)].sum(axis=1)
    aodv = goodputs[(v, "aodv", p)].sum(axis=1)
    return bootstrap_ratio(list(bp), list(aodv.reindex(bp.index)))


def _ratio_rows(config: Config, goodputs: Mapping[Case, pd.DataFrame]) -> list[Row]:
    rows = []
    for v in config.variants:
        for p in config.losses:
            est, lo, hi = _ratio(goodputs, v, float(p))
            metric = (
                f"Fig. {10 if v == 'sack' else 11}, grid, {VARIANT_LABEL[v]}, loss {p:g}: "
                "aggregate goodput, TCP-aware BP / AODV"
            )
            rows.append(Row(metric, None, est, lo, hi))
    return rows


def _layout_rows(config: Config, layouts: Mapping[int, Layout]) -> list[Row]:
    grids = list(layouts.values())
    return [
        row(
            f"layout: neighbour pairs within {config.tx_range_m:g} m",
            [len(g.pairs) for g in grids],
        ),
        row("layout: lossy links (at loss > 0)", [len(g.lossy) for g in grids]),
        row(
            "layout: hops from the gateway to a destination (mean of the flows)",
            [sum(g.hops()) / len(g.destinations) for g in grids],
        ),
        row("layout: draws until connected", [g.draws for g in grids], low=1.0),
    ]


def _time_figure(config: Config, grid: Layout, ts: pd.DataFrame, out: Path) -> Path:
    """Fig. 8: each flow's goodput over time (1 s bins) in the first seed's layout, one
    panel per (TCP version, scheme) at loss 0; the flows start within the first 5 s."""
    from airqueue.reproduce.figures import save, timeseries_panels

    ts = ts[ts["seed"] == grid.seed]
    names = [
        f"flow {i + 1}: node {d}, {h} hop{'s' if h > 1 else ''}"
        for i, (d, h) in enumerate(zip(grid.destinations, grid.hops(), strict=True))
    ]
    panels: dict[str, dict[str, tuple[list[float], list[float]]]] = {}
    for v in config.variants:
        for s in TIME_SCHEMES:
            g = ts[ts["scheme"] == f"{v}|{s}|0"].sort_values(["flow", "t_start_s"])
            panels[f"{_LABEL[s]}, {VARIANT_LABEL[v]}"] = {
                names[int(flow)]: (list(f["t_end_s"]), list(f["goodput_bps"] / 1e3))
                for flow, f in g.groupby("flow")
            }
    fig = timeseries_panels(
        panels,
        title=f"{NAME}: Fig. 8, grid (seed {grid.seed}), four flows from the gateway, no loss",
    )
    return save(fig, out / "grid-over-time.png")


def _sweep_figure(
    config: Config, variant: str, goodputs: Mapping[Case, pd.DataFrame], out: Path
) -> Path:
    """Figs. 10 (TCP-SACK) and 11 (TCP-Vegas): aggregate goodput and Jain's index
    against the average loss of the lossy links."""
    from airqueue.reproduce.figures import lines_with_ci, save

    def series(f: Any) -> dict[str, dict[Any, list[float]]]:
        return {
            _LABEL[s]: {f"{p:g}": list(f(goodputs[(variant, s, float(p))])) for p in config.losses}
            for s in SWEEP_SCHEMES
        }

    fig = lines_with_ci(
        {
            "aggregate goodput, kb/s": series(lambda g: g.sum(axis=1) / 1e3),
            "Jain's index": series(jain),
        },
        title=f"{NAME}: Fig. {10 if variant == 'sack' else 11}, grid, "
        f"{VARIANT_LABEL[variant]}, against the average loss",
        xlabel="average loss probability of the lossy links (half of the links)",
    )
    return save(fig, out / f"grid-loss-{variant}.png")


def _setup_notes(config: Config, quick: bool, layouts: Mapping[int, Layout]) -> list[str]:
    grids = list(layouts.values())
    hops = [h for g in grids for h in g.hops()]
    return [
        f"Grid: 4 x 3 cells of 200 m over 800 x 600 m, one node uniform in each cell, the "
        f"gateway (node 0) at {GATEWAY_M}; {config.flows} TCP flows from the gateway to "
        f"distinct random nodes, starting uniformly within {config.start_window_s:g} s; "
        f"{config.duration:g} s runs, {len(grids)} seeds ({'quick' if quick else 'full'}), "
        "each seed its own layout; TCP "
        f"{', '.join(VARIANT_LABEL[v] for v in config.variants)}; {config.packet_size} B "
        f"packets, {config.capacity}-packet buffers, {config.data_rate / 1e6:g} Mb/s data, "
        f"two-ray ground, {config.tx_range_m:g} m range. Goodput over the whole run.",
        f"Layouts: {_span([len(g.pairs) for g in grids])} neighbour pairs, half of them "
        f"lossy at loss > 0; destinations {_span(hops)} hops from the gateway; up to "
        f"{max(g.draws for g in grids)} draws until connected.",
        "Choices where the paper is silent (module docstring): one node per cell; the "
        "gateway at the centre; neighbours by radio range, not by cell (a pair two cells "
        "apart within range is a link); the same loss p on every lossy link; the lossy "
        "half drawn once per seed.",
        lossy_link_note(config),
        coding_note(config),
        f"A flow survives when its goodput is positive and at least "
        f"{config.survive_share:g} of its equal share (aggregate / {config.flows}); the "
        "paper does not define surviving.",
    ]


def _span(values: Sequence[int]) -> str:
    lo, hi = min(values), max(values)
    return f"{lo}" if lo == hi else f"{lo}-{hi}"


def _all_survive(config: Config, g: pd.DataFrame) -> int:
    """Seeds in which every flow survives."""
    return int((surviving(g, config.survive_share) == g.shape[1]).sum())


def _fig8_notes(config: Config, goodputs: Mapping[Case, pd.DataFrame]) -> list[str]:
    notes = []
    for v in config.variants:
        aware, classical = goodputs[(v, "tcp_aware", 0.0)], goodputs[(v, "classical", 0.0)]
        n = len(aware)
        a_all, c_all = _all_survive(config, aware), _all_survive(config, classical)
        agrees = a_all == n and c_all < len(classical)
        notes.append(
            f"Fig. 8, {VARIANT_LABEL[v]}: the paper has all four flows surviving TCP-aware "
            "BP and one or more not surviving classical BP. Ours: every flow survives in "
            f"{a_all} of {n} seeds under TCP-aware BP (mean "
            f"{surviving(aware, config.survive_share).mean():.1f} of {aware.shape[1]}), in "
            f"{c_all} of {len(classical)} under classical BP (mean "
            f"{surviving(classical, config.survive_share).mean():.1f}): "
            + ("agrees." if agrees else "does not agree.")
        )
    return notes


def _at(losses: Sequence[float]) -> str:
    return f"at loss {', '.join(f'{p:g}' for p in losses)}" if losses else "at none of the losses"


def _sweep_notes(config: Config, goodputs: Mapping[Case, pd.DataFrame]) -> list[str]:
    notes = []
    for v in config.variants:
        higher, lower, fair = [], [], []
        for p in config.losses:
            est, lo, hi = _ratio(goodputs, v, float(p))
            if lo is not None and lo > 1:
                higher.append(p)
            if hi is not None and hi < 1:
                lower.append(p)
            j_bp = jain(goodputs[(v, "tcp_aware", float(p))]).mean()
            j_aodv = jain(goodputs[(v, "aodv", float(p))]).mean()
            if j_bp >= j_aodv - FAIRNESS_TOLERANCE:
                fair.append(p)
        agrees = len(higher) == len(config.losses) and len(fair) == len(config.losses)

        notes.append(
            f"Fig. {10 if v == 'sack' else 11}, {VARIANT_LABEL[v]}: the paper has TCP-aware "
            "BP's throughput significantly above AODV's without violating fairness. Ours: "
            f"aggregate above AODV's (95% interval of the ratio above 1) {_at(higher)}, "
            f"below {_at(lower)}; Jain's index within {FAIRNESS_TOLERANCE:g} of AODV's or "
            f"above {_at(fair)}: " + ("agrees." if agrees else "does not agree.")
        )
    return notes


def _mechanism_notes(
    config: Config,
    goodputs: Mapping[Case, pd.DataFrame],
    probe: Mapping[ProbeCase, pd.Series],
) -> list[str]:
    """Where TCP-aware BP loses flows, our reading of why (eq. (2)-(4) of section 4.1 as
    modelled, crates/sim/src/qdisc/backpressure.rs; not instrumented)."""
    notes = []
    k = config.capacity // config.flows
    for v in config.variants:
        aware = goodputs[(v, "tcp_aware", 0.0)]
        alive_free = surviving(aware, config.survive_share).mean()
        if alive_free < aware.shape[1]:
            notes.append(
                f"{VARIANT_LABEL[v]}, loss 0: TCP-aware BP keeps {alive_free:.1f} of "
                f"{aware.shape[1]} flows on average. Our reading: at the gateway K = "
                f"{config.capacity} / the flows queued there ({k} with all {config.flows}); "
                "the first flow whose queue "
                "there outgrows K weighs U > K against the others' K and wins every slot the "
                "gateway gets, so the others time out (as the one-hop flow of bp-tcp-aware's "
                "tree). Flows that each keep fewer than K packets queued at the gateway all "
                "weigh K and share."
            )
        positive = [float(p) for p in config.losses if p > 0]
        if not positive:
            continue
        lossy = [goodputs[(v, "tcp_aware", p)] for p in positive]
        alive_lossy = sum(surviving(g, config.survive_share).mean() for g in lossy) / len(lossy)
        if alive_lossy < alive_free:
            aggregates_kbps = [round(g.sum(axis=1).mean() / 1e3) for g in lossy]
            notes.append(
                f"{VARIANT_LABEL[v]}, loss > 0: TCP-aware BP keeps {alive_lossy:.1f} flows on "
                f"average (loss 0: {alive_free:.1f}); its aggregate is "
                f"{_span(aggregates_kbps)} kb/s over p = "
                f"{', '.join(f'{p:g}' for p in positive)}. Our reading"
                f" (unknown_neighbour={config.unknown_neighbour}): a neighbour holding no "
                "packet of a flow reports U_j = 0, as the destination does, so whenever the "
                "reports tie, a loss-free link to another neighbour weighs max(K, U_i) R "
                "against the lossy link to the destination's max(K, U_i) R (1 - p), however "
                "small p (at p = 0 the tie goes to the routing next hop): packets leave the "
                "destination's direction, and flows that need a lossy link mostly stall."
                + (
                    " With measured estimates (footnote 2) p is the failed share of the "
                    f"node's own {config.loss_count} on the link over estimate_interval, "
                    "and a neighbour it has not sent to then counts as the node's links "
                    "on average."
                    if config.link_estimate == "measured"
                    else ""
                )
                + (
                    ""
                    if config.network_coding
                    else " Without network coding, TCP also sees the detours' reordering."
                )
                + _probe_evidence(config, probe)
            )
    return notes


def _probe_evidence(config: Config, probe: Mapping[ProbeCase, pd.Series]) -> str:
    """The probe's numbers, where they show a lossy direct link starving its flow."""
    free_kbps = probe[("tcp_aware", 0.0)].mean() / 1e3
    lossy = probe[("tcp_aware", config.probe_loss)] / 1e3
    lossy_kbps = lossy.mean()
    if not lossy_kbps < 0.1 * free_kbps:
        return ""
    aodv_kbps = probe[("aodv", config.probe_loss)].mean() / 1e3
    return (
        f" The probe rows: one flow to a one-hop neighbour gets {lossy_kbps:.0f} kb/s "
        f"({lossy.min():.0f}-{lossy.max():.0f} over the seeds) under TCP-aware BP when its "
        f"direct link loses {config.probe_loss:g} of the frames, "
        f"against {free_kbps:.0f} kb/s without loss ({aodv_kbps:.0f} kb/s under AODV)."
    )


def _grid(metric: str) -> Ref:
    return Ref(NAME, metric)


def _surviving(variant: str, scheme: str, loss: float) -> Ref:
    return _grid(f"{_head((variant, scheme, loss))}: surviving flows (of 4)")


def _gain(variant: str, loss: float) -> Ref:
    return _grid(
        f"Fig. {10 if variant == 'sack' else 11}, grid, {VARIANT_LABEL[variant]}, loss "
        f"{loss:g}: aggregate goodput, TCP-aware BP / AODV"
    )


#: Figs. 8, 10, 11 (the grid's 4 flows). The gains are read at the largest loss the
#: paper plots (0.5), where its figures show them clearest.
CLAIMS = [
    *[
        Claim(
            id=f"002-fig8-taware-all-survive-{v}",
            paper="002",
            where="Sec. 5.2, Fig. 8",
            statement="all four flows could survive in TCP-aware BP for both TCP-SACK and "
            "TCP-Vegas",
            metric=f"grid, {VARIANT_LABEL[v]}, no loss, TCP-aware BP: surviving flows (of 4)",
            paper_value=4.0,
            measure=_surviving(v, "tcp_aware", 0.0),
            rule=ValueInCI(max_width=1.0),
        )
        for v in ("sack", "vegas")
    ],
    *[
        Claim(
            id=f"002-fig8-bp-loses-flows-{v}",
            paper="002",
            where="Sec. 5.2, Fig. 8",
            statement="one or more flows do not survive in classical BP",
            metric=f"grid, {VARIANT_LABEL[v]}, no loss, classical BP: surviving flows (of 4)",
            measure=_surviving(v, "classical", 0.0),
            rule=Direction("less", 4.0),
        )
        for v in ("sack", "vegas")
    ],
    *[
        Claim(
            id=f"002-fig{fig}-grid-gain-{v}",
            paper="002",
            where=f"Sec. 5.2, Fig. {fig}",
            statement=f"TCP-aware BP improves throughput significantly as compared to AODV "
            f"[grid, {VARIANT_LABEL[v]}]",
            metric=f"grid, {VARIANT_LABEL[v]}, loss 0.5: aggregate goodput TCP-aware BP / AODV",
            measure=_gain(v, 0.5),
            rule=Direction("greater", 1.0),
        )
        for fig, v in ((10, "sack"), (11, "vegas"))
    ],
    Claim(
        id="002-fig10-grid-fairness-kept",
        paper="002",
        where="Sec. 5.2, Fig. 10",
        statement="TCP-aware BP improves throughput significantly as compared to AODV without "
        "violating fairness",
        metric="grid, TCP-SACK, loss 0.5: Jain's index TCP-aware BP / AODV (> 0.9)",
        measure=Ratio(
            _grid(f"{_head(('sack', 'tcp_aware', 0.5))}: Jain's index of the 4 flows"),
            _grid(f"{_head(('sack', 'aodv', 0.5))}: Jain's index of the 4 flows"),
        ),
        rule=Direction("greater", 0.9),
    ),
]
