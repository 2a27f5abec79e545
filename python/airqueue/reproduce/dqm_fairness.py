"""``dqm-fairness``: seed 004's headline results, Dual Queue Management (DQM) at an
access point restoring TCP uplink/downlink fairness in an 802.11b infrastructure WLAN.

Scenario (seed 004, section III-A, Fig. 1 and Table II; the text extraction loses the
figures)::

    wired host (node N + 1) ==== 100 Mb/s, 25 ms ==== AP (node 0)
                                                      /  |   \\
                                         stations 1..N, 10 m from the AP

- ``N_dn`` stations download from the wired host (downlink TCP flows, the first station
  ids) and ``N_up`` stations upload to it (uplink TCP flows, the last ids); one greedy
  TCP flow per station, ECN on every flow (section III-A: "all nodes are ECN capable"),
  1000-byte segments, window capped at 43 packets (Table II).
- 802.11b at a uniform 11 Mb/s data rate (section IV-A: "uniform bit-rate 11 Mbps,
  assuming stations ... close enough to the AP"), 1 Mb/s basic rate.
- The AP's downlink buffer: 100 packets (Table II), drop-tail (BASE) or DQM with the
  PI gains (a, b) = (1.822e-5, 1.816e-5) at 160 Hz, D_ref = 0.05 s, T_fair = 0.005 s
  (Table II). Stations keep a drop-tail queue of the same capacity.

Experiments:

- Section IV-A (Fig. 2, 3): Case 1, ``N_up = N_dn = N / 2``; Case 2, ``N_up = 1``,
  ``N_dn = N - 1`` (the text, after [5]); N = 2, 4, 8, 12, 16, 20 (the paper's range is
  in the lost figures). Metrics per (case, N, scheme), mean and 95% interval over seeds:
  the mean per-flow throughput ratio ``gamma = R_up / R_dn`` (Table I; ideal 1; a ratio of
  means over seeds with a bootstrap interval, since a starved downlink makes one seed's
  ratio unbounded), Jain's index over all flows, the aggregate goodput ``R_total``; and
  DQM / BASE aggregate goodput (paired bootstrap over seeds).
- Section IV-B (Fig. 4a): ``rate_stations`` stations, half each way, all 10 m from the
  AP until ``rate_time`` (t0 = 100 s), when the uplink stations "move far away from the
  AP at the time of t0 [...], hence their bit-rates change from 11 Mbps to 2 Mbps", with
  "AARF [6] rate adaptation [...] at the MAC layer" (section III). ``rate_model``:
  ``"move"`` (the default, the paper's words) jumps them (``[[move]]``) to
  ``move_distance``, where 2 Mb/s is the fastest rate that decodes, with AARF at every
  station and the AP from the start; ``"drop"`` keeps them in place at constant rate
  control and drops both directions of their links to ``low_rate`` (``[[rate_change]]``).
  DQM then plans with the real rates: ``T_pkt`` of each packet at its link's rate, and
  the faster head first while both classes are within their share (III-B.2). Rows per
  scheme: R_up and R_dn before and after t0, gamma before and after, the aggregate
  after, and the uplink share of the channel time after t0, estimated from the goodputs
  and DQM's own ``T_pkt`` per segment (data plus TCP ACK); and one reference row, the
  time-fair gamma (equal channel time per flow at those ``T_pkt``). The paper only
  plots these (Fig. 4a): with DQM the uplink flows "converge to lower average
  throughput based on the temporal fairness rule"; with BASE one expects the
  performance anomaly (all flows pulled to the slow stations' throughput). A figure
  shows the per-flow throughput of each class over time (``rate-change.png``).
- Section IV-C (Fig. 4b): downlink flows from the start, the uplink flows joining at
  100 s (``join_stations`` stations, half each way), 11 Mb/s: Jain's index of the
  downlink flows before the join, gamma and Jain's index after it.
- Fig. 5 (sections IV-B and IV-C, DQM only): the AP's q.ref, queue length and mean
  queueing delay (the ``queues`` table's ``q_ref_pkts``, ``len_pkts`` and
  ``queue_delay_s`` of node 0) before and after t0 (the rate drop, the join), with
  ``D_ref`` as the reference row, and their evolution over time (``queue-traces.png``).

Goodputs are measured after a warm-up (``warmup``), as ns-2 traces usually are; the paper
states neither its run length nor its measurement window. ``--quick``: 2 seeds of 30 s
runs, Case 1, N in {4, 8}, the rate change with 4 stations at 15 s of a 30 s run, no
join experiment. Deviations are in the result's notes.
"""

from __future__ import annotations

import functools
import math
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pandas as pd

from airqueue import _core
from airqueue.reproduce.claims import Claim, Direction, Ratio, Ref, ValueInCI
from airqueue.reproduce.diffq_starvation import window_goodputs
from airqueue.reproduce.params import apply_params, as_params
from airqueue.reproduce.report import (
    ReproductionResult,
    Row,
    bootstrap_groups,
    bootstrap_ratio,
    coefficient_of_variation,
    linear_misfit,
    row,
)
from airqueue.reproduce.runs import Runner

NAME = "dqm-fairness"
SUMMARY = "Sec. IV-A-C: BASE vs DQM at an 802.11b AP, 2-20 stations, 11 -> 2 Mb/s; up/down fairness"

SCHEMES = ("BASE", "DQM")
CASES = (1, 2)

#: Section IV-A: with BASE, Jain's index falls "around 0.203" as N grows (both cases).
PAPER_BASE_JAIN = 0.203

#: 802.11b's data rates, bit/s, slowest first.
DSSS_RATES = (1e6, 2e6, 5.5e6, 11e6)
#: Section IV-B's readings (``Config.rate_model``).
RATE_MODELS = ("move", "drop")
#: Section III-B.1's readings of the AP's own packets' T_pkt (``Config.t_pkt``).
T_PKT_READINGS = ("drawn", "elapsed", "estimate")
#: Parts of the "drawn" T_pkt a counterfactual replaces by the estimate's
#: (``Config.drawn_estimated``).
DRAWN_ESTIMATED = ("none", "backoff", "ifs", "retries", "all")
#: Dequeue rules (``Config.dequeue``): Algorithm 1, or arrival order (counterfactual).
DEQUEUE_RULES = ("algorithm1", "arrival")
#: Carrier-sense range over decode range of the scenario's default radio (550 m / 250 m).
CS_OVER_DECODE = 2.2


@dataclass(frozen=True)
class Config:
    """Parameters (``airqueue.reproduce(NAME, params={...})`` overrides any of them)."""

    seeds: int = 5
    duration: float = 200.0
    warmup: float = 20.0
    cases: tuple[int, ...] = CASES
    stations: tuple[int, ...] = (2, 4, 8, 12, 16, 20)
    schemes: tuple[str, ...] = SCHEMES
    radius: float = 10.0
    wire_bandwidth: float = 100e6
    wire_delay: float = 0.025
    data_rate: float = 11e6
    basic_rate: float = 1e6
    queue_capacity: int = 100
    #: Table II: PI gains, sampling frequency, queueing delay target, fair time unit.
    pi_a: float = 1.822e-5
    pi_b: float = 1.816e-5
    sample_hz: float = 160.0
    d_ref: float = 0.05
    t_fair: float = 0.005
    #: T_pkt of the AP's own packets (section III-B.1; ``queue.t_pkt``): "drawn",
    #: "elapsed" or "estimate".
    t_pkt: str = "drawn"
    #: Counterfactuals, not in the paper (``queue.drawn_estimated``, ``queue.dequeue``):
    #: a part of the "drawn" T_pkt replaced by the estimate's ("none", "backoff", "ifs",
    #: "retries", "all"), and the queues served in arrival order ("arrival") instead of
    #: by Algorithm 1 ("algorithm1").
    drawn_estimated: str = "none"
    dequeue: str = "algorithm1"
    ecn: bool = True
    max_window: int = 43
    packet_size: int = 1000
    #: The paper's ns-2 TCP agent is not named; SACK as in examples/bss-*.toml.
    tcp_variant: str = "sack"
    tcp_start: float = 1.0
    #: Section IV-C: uplink flows join at ``join_time``; 0 stations: not run.
    join_stations: int = 8
    join_time: float = 100.0
    join_duration: float = 200.0
    #: After the join, goodputs are measured from ``join_time + join_settle``.
    join_settle: float = 20.0
    #: Section IV-B: the uplink stations' links drop to ``low_rate`` at ``rate_time``;
    #: 0 stations: not run.
    rate_stations: int = 8
    rate_time: float = 100.0
    rate_duration: float = 200.0
    low_rate: float = 2e6
    #: How the uplink stations reach ``low_rate``: "move" (they jump away, AARF finds
    #: the rate) or "drop" (a scheduled rate change in place, constant rate control).
    rate_model: str = "move"
    #: After the drop, goodputs are measured from ``rate_time + rate_settle``.
    rate_settle: float = 20.0
    bin: float = 1.0
    extra: dict[str, Any] = field(default_factory=dict)

    @classmethod
    def make(cls, quick: bool, params: Mapping[str, Any] | None) -> Config:
        base = (
            cls(
                seeds=2,
                duration=30.0,
                warmup=5.0,
                cases=(1,),
                stations=(4, 8),
                join_stations=0,
                rate_stations=4,
                rate_time=15.0,
                rate_duration=30.0,
                rate_settle=5.0,
            )
            if quick
            else cls()
        )
        try:
            config = apply_params(base, params)
            _check(config)
        except ValueError as e:
            raise ValueError(f"{NAME}: {e}") from None
        return config


def _check(config: Config) -> None:
    problems = []
    if not config.cases or any(c not in CASES for c in config.cases):
        problems.append(f"cases: some of {list(CASES)}, got {list(config.cases)}")
    if not config.schemes or any(s not in SCHEMES for s in config.schemes):
        problems.append(f"schemes: some of {list(SCHEMES)}, got {list(config.schemes)}")
    if not config.stations:
        problems.append("stations: none given")
    for n in config.stations:
        if not isinstance(n, int) or n < 2:
            problems.append(f"stations: {n!r} is not an integer >= 2")
        elif 1 in config.cases and n % 2:
            problems.append(f"stations: Case 1 needs an even N, got {n}")
    if config.join_stations and (config.join_stations < 2 or config.join_stations % 2):
        problems.append(f"join_stations: an even number >= 2 or 0, got {config.join_stations}")
    if not 0 <= config.warmup < config.duration:
        problems.append(f"warmup {config.warmup:g} s: not in [0, duration)")
    if config.join_stations and not (
        config.warmup < config.join_time < config.join_time + config.join_settle
        and config.join_time + config.join_settle < config.join_duration
    ):
        problems.append("join: need warmup < join_time < join_time + join_settle < join_duration")
    if config.rate_stations and (config.rate_stations < 2 or config.rate_stations % 2):
        problems.append(f"rate_stations: an even number >= 2 or 0, got {config.rate_stations}")
    if config.rate_stations and not (
        config.warmup < config.rate_time < config.rate_time + config.rate_settle
        and config.rate_time + config.rate_settle < config.rate_duration
    ):
        problems.append(
            "rate change: need warmup < rate_time < rate_time + rate_settle < rate_duration"
        )
    if config.low_rate not in DSSS_RATES:
        problems.append(f"low_rate: one of 1e6, 2e6, 5.5e6, 11e6 (bit/s), got {config.low_rate:g}")
    elif config.rate_model == "move" and config.low_rate == DSSS_RATES[-1]:
        problems.append(
            "low_rate: under rate_model = move the stations move to where low_rate is the "
            "fastest rate that decodes; give a rate below 11e6 or rate_model=drop"
        )
    if config.rate_model not in RATE_MODELS:
        problems.append(f"rate_model: one of {', '.join(RATE_MODELS)}, got {config.rate_model!r}")
    if config.t_pkt not in T_PKT_READINGS:
        problems.append(f"t_pkt: one of {', '.join(T_PKT_READINGS)}, got {config.t_pkt!r}")
    if config.drawn_estimated not in DRAWN_ESTIMATED:
        problems.append(
            f"drawn_estimated: one of {', '.join(DRAWN_ESTIMATED)}, got {config.drawn_estimated!r}"
        )
    elif config.drawn_estimated != "none" and config.t_pkt != "drawn":
        problems.append(
            f"drawn_estimated: replaces a part of t_pkt = drawn, but t_pkt is {config.t_pkt!r}; "
            "give t_pkt=drawn or drawn_estimated=none"
        )
    if config.dequeue not in DEQUEUE_RULES:
        problems.append(f"dequeue: one of {', '.join(DEQUEUE_RULES)}, got {config.dequeue!r}")
    if problems:
        raise ValueError("; ".join(problems))


def split(case: int, n: int) -> tuple[int, int]:
    """(N_dn, N_up) of Case ``case`` with ``n`` stations (section IV-A)."""
    return (n // 2, n // 2) if case == 1 else (n - 1, 1)


def _queue(config: Config, scheme: str) -> dict[str, Any]:
    if scheme == "BASE":
        return {"kind": "droptail", "capacity": config.queue_capacity}
    return {
        "kind": "dqm",
        "capacity": config.queue_capacity,
        "a": config.pi_a,
        "b": config.pi_b,
        "sample_hz": config.sample_hz,
        "d_ref": config.d_ref,
        "t_fair": config.t_fair,
        "t_pkt": config.t_pkt,
        # The counterfactual keys only when set, so the model's scenarios stay as they were.
        **({"drawn_estimated": config.drawn_estimated} if config.drawn_estimated != "none" else {}),
        **({"dequeue": config.dequeue} if config.dequeue != "algorithm1" else {}),
    }


def scenario(
    config: Config,
    scheme: str,
    n_dn: int,
    n_up: int,
    *,
    up_start: float | None = None,
    duration: float | None = None,
    name: str | None = None,
) -> dict[str, Any]:
    """The BSS with ``n_dn`` downlink stations (ids 1..n_dn, flows 0..n_dn-1) and
    ``n_up`` uplink stations (the next ids and flows); the wired host is node
    ``n_dn + n_up + 1``. Uplink flows start at ``up_start`` (default: with the rest)."""
    n = n_dn + n_up
    host = n + 1
    common = {"kind": "tcp", "variant": config.tcp_variant, "packet_size": config.packet_size}
    flows = [
        {**common, "src": host, "dst": s, "start": config.tcp_start} for s in range(1, n_dn + 1)
    ]
    up = config.tcp_start if up_start is None else up_start
    flows += [{**common, "src": s, "dst": host, "start": up} for s in range(n_dn + 1, n + 1)]
    sc: dict[str, Any] = {
        "name": name or f"{NAME}-{scheme.lower()}-{n_dn}dn-{n_up}up",
        "duration": config.duration if duration is None else duration,
        "warmup": config.warmup,
        "seed": 1,
        "topology": {
            "kind": "bss",
            "stations": n,
            "radius": config.radius,
            "wired_hosts": 1,
            "wire_bandwidth": config.wire_bandwidth,
            "wire_delay": config.wire_delay,
        },
        "radio": {"data_rate": config.data_rate, "basic_rate": config.basic_rate},
        "queue": _queue(config, scheme),
        "tcp": {"ecn": config.ecn, "max_window": config.max_window},
        "flow": flows,
        "outputs": {"bin": config.bin},
    }
    for k, value in config.extra.items():
        sc[k] = value
    return sc


def move_distance(config: Config) -> float:
    """Where the uplink stations move under ``rate_model = "move"``, metres from the AP:
    between the default radio's decode ranges of the next faster rate and of
    ``low_rate`` (``_core.dsss_decode_range_m``, the SINR thresholds over thermal noise),
    at their geometric mean, so the signal clears ``low_rate``'s threshold and misses the
    faster one's by the same margin in dB (two-ray ground: 40 log10 d)."""
    faster = DSSS_RATES[DSSS_RATES.index(config.low_rate) + 1]
    return math.sqrt(_core.dsss_decode_range_m(faster) * _core.dsss_decode_range_m(config.low_rate))


def move_radio(config: Config) -> dict[str, Any]:
    """The radio of ``rate_model = "move"``: the receive threshold at the 1 Mb/s decode
    range, so each rate's SINR threshold, not the receive threshold, says where it works
    (by default every rate decodes to 250 m and nothing beyond); carrier sense at the
    default radio's ratio of ranges."""
    decode = _core.dsss_decode_range_m(DSSS_RATES[0])
    return {
        "data_rate": config.data_rate,
        "basic_rate": config.basic_rate,
        "tx_range": decode,
        "cs_range": CS_OVER_DECODE * decode,
    }


def rate_scenario(config: Config, scheme: str) -> dict[str, Any]:
    """Section IV-B: ``rate_stations`` stations, half down and half up; at ``rate_time``
    the uplink stations move to ``move_distance`` under AARF (``rate_model = "move"``)
    or their links (both directions) drop to ``low_rate`` in place (``"drop"``)."""
    half = config.rate_stations // 2
    sc = scenario(
        config,
        scheme,
        half,
        half,
        duration=config.rate_duration,
        name=f"{NAME}-rate-{scheme.lower()}-{half}dn-{half}up",
    )
    up_stations = list(range(half + 1, 2 * half + 1))
    if config.rate_model == "move":
        sc["radio"] = move_radio(config)
        sc["mac"] = {"rate_control": "aarf"}
        sc["move"] = [
            {
                "at": config.rate_time,
                "nodes": up_stations,
                "away_from": 0,
                "distance": move_distance(config),
            }
        ]
    else:
        sc["rate_change"] = [
            {"at": config.rate_time, "nodes": up_stations, "data_rate": config.low_rate}
        ]
    return sc


def segment_time(config: Config, rate: float) -> float:
    """DQM's channel time for one TCP segment of a flow whose station link runs at
    ``rate``: ``T_pkt`` of the data packet plus ``T_pkt`` of its TCP ACK (one ACK per
    segment, no delayed ACKs; 40 bytes of IP and TCP headers), seconds."""
    data = _core.dqm_t_pkt(config.packet_size + 40, rate, config.basic_rate)
    ack = _core.dqm_t_pkt(40, rate, config.basic_rate)
    return data + ack


def time_fair_gamma(config: Config) -> float:
    """R_up/R_dn when every flow gets the same channel time (temporal fairness) and the
    uplink stations run at ``low_rate``, the downlink ones at ``data_rate``."""
    return segment_time(config, config.data_rate) / segment_time(config, config.low_rate)


@dataclass
class _Point:
    """Per-seed numbers of one (case, N, scheme) (index: seed)."""

    up: pd.Series  # mean uplink per-flow goodput, bit/s
    dn: pd.Series  # mean downlink per-flow goodput, bit/s
    jain: pd.Series
    total: pd.Series


def _measure(goodput: pd.DataFrame, n_dn: int) -> _Point:
    """``goodput``: one row per (seed, flow id) with ``goodput_bps``."""
    g = goodput.pivot_table(index="seed", columns="flow", values="goodput_bps", aggfunc="sum")
    g = g.fillna(0.0)
    dn_ids = [c for c in g.columns if c < n_dn]
    up_ids = [c for c in g.columns if c >= n_dn]
    total = g.sum(axis=1)
    squares = (g**2).sum(axis=1)
    jain = (total**2 / (g.shape[1] * squares)).where(squares > 0)
    return _Point(
        up=g[up_ids].mean(axis=1), dn=g[dn_ids].mean(axis=1), jain=jain.dropna(), total=total
    )


def _gamma(p: _Point) -> tuple[float, float | None, float | None]:
    seeds = sorted(set(p.up.index) & set(p.dn.index))
    return bootstrap_ratio(list(p.up[seeds]), list(p.dn[seeds]))


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
    points: dict[tuple[int, int, str], _Point] = {}
    join: dict[str, tuple[_Point, _Point]] = {}
    rate: dict[str, tuple[_Point, _Point]] = {}
    rate_ts: dict[str, pd.DataFrame] = {}
    #: The AP's DQM queue samples (q.ref, length, delay) per experiment ("rate", "join").
    traces: dict[str, pd.DataFrame] = {}
    with Runner(out, workers=workers, serial=serial, progress=progress, client=client) as runner:
        for case in config.cases:
            for n in config.stations:
                n_dn, n_up = split(case, n)
                for scheme in config.schemes:
                    sc = scenario(config, scheme, n_dn, n_up)
                    flows = runner.sweep(f"case{case}|N={n}|{scheme}", sc, seeds=seeds)
                    gp = flows.rename(columns={"id": "flow"})[["seed", "flow", "goodput_bps"]]
                    points[(case, n, scheme)] = _measure(gp, n_dn)
        if config.join_stations:
            half = config.join_stations // 2
            for scheme in config.schemes:
                sc = scenario(
                    config,
                    scheme,
                    half,
                    half,
                    up_start=config.join_time,
                    duration=config.join_duration,
                    name=f"{NAME}-join-{scheme.lower()}-{half}dn-{half}up",
                )
                flows = runner.sweep(f"join|{scheme}", sc, seeds=seeds)
                ts = runner.table(flows, "timeseries")
                before = window_goodputs(ts, config.warmup, config.join_time)
                after = window_goodputs(
                    ts, config.join_time + config.join_settle, config.join_duration
                )
                join[scheme] = (
                    _measure(before[before["flow"] < half], half),
                    _measure(after, half),
                )
                if scheme == "DQM":
                    traces["join"] = _ap_queue(runner.table(flows, "queues"))
        if config.rate_stations:
            half = config.rate_stations // 2
            for scheme in config.schemes:
                flows = runner.sweep(f"rate|{scheme}", rate_scenario(config, scheme), seeds=seeds)
                ts = runner.table(flows, "timeseries")
                before = window_goodputs(ts, config.warmup, config.rate_time)
                after = window_goodputs(
                    ts, config.rate_time + config.rate_settle, config.rate_duration
                )
                rate[scheme] = (_measure(before, half), _measure(after, half))
                rate_ts[scheme] = ts
                if scheme == "DQM":
                    traces["rate"] = _ap_queue(runner.table(flows, "queues"))

    rows: list[Row] = []
    for case in config.cases:
        for n in config.stations:
            rows += _point_rows(config, case, n, points)
    rows += across_n_rows(config, points)
    rows += _rate_rows(config, rate)
    rows += _join_rows(config, join)
    rows += _trace_rows(config, traces)
    figures = [_fairness_figure(config, points, out), _throughput_figure(config, points, out)]
    if rate_ts:
        figures.append(_rate_figure(config, rate_ts, out))
    if traces:
        figures.append(_trace_figure(config, traces, out))
    notes = _notes(config, quick, seeds, points)
    return ReproductionResult(
        name=NAME,
        rows=rows,
        figures=figures,
        notes=notes,
        params={"quick": quick, **as_params(config), "seed_list": seeds},
        out=out,
    )


def _ratio_row(metric: str, value: tuple[float, float | None, float | None], paper: float | None):
    r, lo, hi = value
    return Row(metric, paper, r if math.isfinite(r) else None, lo, hi)


def _point_rows(
    config: Config, case: int, n: int, points: Mapping[tuple[int, int, str], _Point]
) -> list[Row]:
    n_dn, n_up = split(case, n)
    head = f"Case {case}, N = {n} ({n_up} up, {n_dn} down)"
    largest = n == max(config.stations)
    rows: list[Row] = []
    for scheme in config.schemes:
        p = points[(case, n, scheme)]
        dqm = scheme == "DQM"
        rows.append(
            _ratio_row(
                f"{head}, {scheme}: uplink/downlink per-flow goodput ratio R_up/R_dn"
                + (" (Fig. 3, Sec. IV-A: 'very close to the ideal value 1')" if dqm else ""),
                _gamma(p),
                1.0 if dqm else None,
            )
        )
        if dqm:
            jain_ref, jain_paper = " (Sec. IV-A: 'very close to 1')", 1.0
        elif largest:
            jain_ref = " (Sec. IV-A: 'around 0.203' as N grows; the paper's N range is lost)"
            jain_paper = PAPER_BASE_JAIN
        else:
            jain_ref, jain_paper = "", None
        rows.append(
            row(
                f"{head}, {scheme}: Jain's index, all flows{jain_ref}",
                list(p.jain),
                paper=jain_paper,
                high=1.0,
            )
        )
        rows.append(row(f"{head}, {scheme}: aggregate goodput, Mb/s", list(p.total), scale=1e6))
    if "BASE" in config.schemes and "DQM" in config.schemes:
        base, dqm = points[(case, n, "BASE")], points[(case, n, "DQM")]
        seeds = sorted(set(base.total.index) & set(dqm.total.index))
        rows.append(
            _ratio_row(
                f"{head}: DQM / BASE aggregate goodput (Fig. 2 plots it, no number)",
                bootstrap_ratio(list(dqm.total[seeds]), list(base.total[seeds])),
                None,
            )
        )
    return rows


#: One seed's numbers at one N: (R_up, R_dn, Jain's index).
_Seed = tuple[float, float, float]


def _seeds_by_n(
    config: Config, points: Mapping[tuple[int, int, str], _Point], case: int, scheme: str
) -> list[list[_Seed]]:
    """Per N of ``config.stations``, the seeds' (R_up, R_dn, Jain's index) of (case,
    scheme): the independent groups the across-N bootstrap redraws."""
    groups = []
    for n in config.stations:
        p = points[(case, n, scheme)]
        seeds = sorted(set(p.up.index) & set(p.dn.index) & set(p.jain.index))
        groups.append([(float(p.up[s]), float(p.dn[s]), float(p.jain[s])) for s in seeds])
    return groups


def gamma_by_n(groups: list[list[_Seed]]) -> list[float]:
    """R_up/R_dn at each N: the ratio of the seeds' mean R_up and mean R_dn, as the
    per-N rows (infinite when every seed starves the downlink)."""
    out = []
    for g in groups:
        up, dn = sum(s[0] for s in g) / len(g), sum(s[1] for s in g) / len(g)
        out.append(up / dn if dn > 0 else math.inf)
    return out


def jain_by_n(groups: list[list[_Seed]]) -> list[float]:
    """Jain's index at each N: the mean over the seeds."""
    return [sum(s[2] for s in g) / len(g) for g in groups]


def across_n_rows(config: Config, points: Mapping[tuple[int, int, str], _Point]) -> list[Row]:
    """How R_up/R_dn and Jain's index vary with N (section IV-A, Figs. 2-3), per case
    and scheme, with a bootstrap over each N's seeds: ``1 - R^2`` of a straight line in
    N (the paper calls Case 2 "stable" because its ratio "increases linearly with
    N_dn": 0 on a line, larger as the curve fluctuates), and the coefficient of
    variation across N (DQM "much more stable ... even when N gets larger": a level that
    does not move with N). Needs three N or more."""
    ns = list(config.stations)
    if len(ns) < 3:
        return []
    head = f"Sec. IV-A across N = {', '.join(map(str, ns))}"
    rows: list[Row] = []
    for case in config.cases:
        for scheme in config.schemes:
            groups = _seeds_by_n(config, points, case, scheme)
            for metric, value in (
                (
                    "R_up/R_dn, 1 - R^2 of a straight line in N",
                    bootstrap_groups(groups, lambda g: linear_misfit(ns, gamma_by_n(g))),
                ),
                (
                    "Jain's index, 1 - R^2 of a straight line in N",
                    bootstrap_groups(groups, lambda g: linear_misfit(ns, jain_by_n(g))),
                ),
                (
                    "R_up/R_dn, coefficient of variation across N",
                    bootstrap_groups(groups, lambda g: coefficient_of_variation(gamma_by_n(g))),
                ),
            ):
                rows.append(_ratio_row(f"{head}, Case {case}, {scheme}: {metric}", value, None))
    if set(CASES) <= set(config.cases):
        for scheme, pick, word in (("DQM", max, "larger"), ("BASE", min, "smaller")):
            if scheme not in config.schemes:
                continue
            groups = [g for case in CASES for g in _seeds_by_n(config, points, case, scheme)]
            stat = functools.partial(_cases_cv, per_case=len(ns), pick=pick)
            rows.append(
                _ratio_row(
                    f"{head}, {scheme}: R_up/R_dn, coefficient of variation across N, the "
                    f"{word} of Case 1's and Case 2's",
                    bootstrap_groups(groups, stat),
                    None,
                )
            )
    return rows


def _cases_cv(
    groups: list[list[_Seed]], *, per_case: int, pick: Callable[[Iterable[float]], float]
) -> float:
    """``pick`` (``max``, ``min``) of the cases' coefficients of variation of R_up/R_dn
    across N; ``groups`` holds each case's per-N groups in turn, ``per_case`` each."""
    return pick(
        coefficient_of_variation(gamma_by_n(groups[i : i + per_case]))
        for i in range(0, len(groups), per_case)
    )


def _rate_rows(config: Config, rate: Mapping[str, tuple[_Point, _Point]]) -> list[Row]:
    if not rate:
        return []
    half = config.rate_stations // 2
    t0, settle = config.rate_time, config.rate_settle
    fast, slow = config.data_rate / 1e6, config.low_rate / 1e6
    t_up, t_dn = segment_time(config, config.low_rate), segment_time(config, config.data_rate)
    rows: list[Row] = []
    for scheme, (before, after) in rate.items():
        head = (
            f"Sec. IV-B, {half} down + {half} up, uplink {fast:g} -> {slow:g} Mb/s at "
            f"{t0:g} s, {scheme}"
        )
        dqm = scheme == "DQM"
        rows.append(row(f"{head}: R_up before t0, kb/s", list(before.up), scale=1e3))
        rows.append(row(f"{head}: R_dn before t0, kb/s", list(before.dn), scale=1e3))
        rows.append(
            _ratio_row(
                f"{head}: R_up/R_dn before t0" + (" (Fig. 4a: 'very similar')" if dqm else ""),
                _gamma(before),
                1.0 if dqm else None,
            )
        )
        rows.append(row(f"{head}: R_up from {t0 + settle:g} s, kb/s", list(after.up), scale=1e3))
        rows.append(row(f"{head}: R_dn from {t0 + settle:g} s, kb/s", list(after.dn), scale=1e3))
        rows.append(
            _ratio_row(
                f"{head}: R_up/R_dn from {t0 + settle:g} s"
                + (" (Fig. 4a: uplink 'converge to lower' throughput, no number)" if dqm else ""),
                _gamma(after),
                None,
            )
        )
        # Channel time per second of each class: goodput / payload bits x T per segment.
        seg_bits = config.packet_size * 8
        up_time = after.up * half * t_up / seg_bits
        dn_time = after.dn * half * t_dn / seg_bits
        share = (up_time / (up_time + dn_time)).dropna()
        rows.append(
            row(
                f"{head}: uplink share of the flows' channel time from {t0 + settle:g} s "
                "(estimate: goodput x DQM's T_pkt per segment; temporal fairness: 0.5)",
                list(share),
                high=1.0,
            )
        )
        rows.append(
            row(
                f"{head}: aggregate goodput from {t0 + settle:g} s, Mb/s",
                list(after.total),
                scale=1e6,
            )
        )
    ideal = time_fair_gamma(config)
    rows.append(
        Row(
            f"Sec. IV-B reference: time-fair R_up/R_dn after t0, equal channel time per flow "
            f"at DQM's T_pkt per segment ({t_dn * 1e3:.3f} ms at {fast:g} Mb/s, "
            f"{t_up * 1e3:.3f} ms at {slow:g} Mb/s; analytic, no interval)",
            None,
            ideal,
            ideal,
            ideal,
        )
    )
    return rows


def _join_rows(config: Config, join: Mapping[str, tuple[_Point, _Point]]) -> list[Row]:
    rows: list[Row] = []
    half = config.join_stations // 2
    t0, settle = config.join_time, config.join_settle
    for scheme, (before, after) in join.items():
        head = f"Sec. IV-C, {half} down + {half} up joining at {t0:g} s, {scheme}"
        dqm = scheme == "DQM"
        rows.append(
            row(
                f"{head}: Jain's index of the downlink flows before the join"
                + (" (Fig. 4b: 'fairly share', no number)" if dqm else ""),
                list(before.jain),
                high=1.0,
            )
        )
        rows.append(
            row(
                f"{head}: aggregate goodput before the join, Mb/s",
                list(before.total),
                scale=1e6,
            )
        )
        rows.append(
            _ratio_row(
                f"{head}: R_up/R_dn from {t0 + settle:g} s"
                + (" (Fig. 4b: 'converges to the same value')" if dqm else ""),
                _gamma(after),
                1.0 if dqm else None,
            )
        )
        rows.append(
            row(
                f"{head}: Jain's index, all flows, from {t0 + settle:g} s",
                list(after.jain),
                high=1.0,
            )
        )
    return rows


def _ap_queue(queues: pd.DataFrame) -> pd.DataFrame:
    """The access point's (node 0, the one DQM runs at) rows of a ``queues`` table."""
    return queues[queues["node"] == 0].reset_index(drop=True)


def _trace_windows(config: Config, experiment: str) -> tuple[str, float, float, float, float]:
    """(heading, t0, start of 'after', end of run, bin) of a Fig. 5 experiment."""
    if experiment == "rate":
        half = config.rate_stations // 2
        head = (
            f"Sec. IV-B, {half} down + {half} up, uplink {config.data_rate / 1e6:g} -> "
            f"{config.low_rate / 1e6:g} Mb/s at {config.rate_time:g} s, DQM"
        )
        t0, settle, end = config.rate_time, config.rate_settle, config.rate_duration
    else:
        half = config.join_stations // 2
        head = f"Sec. IV-C, {half} down + {half} up joining at {config.join_time:g} s, DQM"
        t0, settle, end = config.join_time, config.join_settle, config.join_duration
    return head, t0, t0 + settle, end, config.bin


def _window_means(q: pd.DataFrame, column: str, start: float, end: float) -> list[float]:
    """Per seed, the mean of ``column`` over the samples of bins inside [start, end]
    (a sample at ``t_s`` closes the bin ending there); bins without a value are left out."""
    w = q[(q["t_s"] > start + 1e-9) & (q["t_s"] <= end + 1e-9)]
    means = w.groupby("seed")[column].mean().dropna()
    return [float(v) for v in means]


def _trace_rows(config: Config, traces: Mapping[str, pd.DataFrame]) -> list[Row]:
    rows: list[Row] = []
    for experiment in ("rate", "join"):
        q = traces.get(experiment)
        if q is None:
            continue
        head, t0, after, end, _ = _trace_windows(config, experiment)
        windows = (
            (f"before t0 ({config.warmup:g}-{t0:g} s)", config.warmup, t0),
            (f"from {after:g} s", after, end),
        )
        for label, start, stop in windows:
            rows.append(
                row(
                    f"{head}: mean q.ref {label}, packets (Fig. 5, plotted only)",
                    _window_means(q, "q_ref_pkts", start, stop),
                )
            )
            rows.append(
                row(
                    f"{head}: mean AP queue length {label}, packets",
                    _window_means(q, "len_pkts", start, stop),
                )
            )
            rows.append(
                row(
                    f"{head}: mean queueing delay at the AP {label}, ms (Fig. 5, plotted only)",
                    _window_means(q, "queue_delay_s", start, stop),
                    scale=1e-3,
                )
            )
        d_ref = config.d_ref * 1e3
        rows.append(
            Row(
                f"{head}: reference: D_ref, ms (Table II; no interval)",
                None,
                d_ref,
                d_ref,
                d_ref,
            )
        )
    return rows


def _trace_figure(config: Config, traces: Mapping[str, pd.DataFrame], out: Path) -> Path:
    """Fig. 5: q.ref, the AP's queue length and its queueing delay over time (DQM, mean
    over seeds), one row of panels per experiment."""
    from airqueue.reproduce.figures import queue_trace_panels, save

    panels = {}
    for experiment in ("rate", "join"):
        q = traces.get(experiment)
        if q is None:
            continue
        head, t0, _, _, _ = _trace_windows(config, experiment)
        mean = q.groupby("t_s", sort=True)[["q_ref_pkts", "len_pkts", "queue_delay_s"]].mean()
        t = list(mean.index)
        panels[f"{head}, mean of {config.seeds} seeds"] = (
            {
                "q.ref": (t, list(mean["q_ref_pkts"])),
                "queue length": (t, list(mean["len_pkts"])),
            },
            {"queueing delay": (t, list(mean["queue_delay_s"] * 1e3))},
            t0,
        )
    fig = queue_trace_panels(
        panels,
        d_ref_ms=config.d_ref * 1e3,
        title=f"{NAME}: DQM queue at the AP (Fig. 5; t0: rate drop / uplink join)",
    )
    return save(fig, out / "queue-traces.png")


def _rate_figure(config: Config, rate_ts: Mapping[str, pd.DataFrame], out: Path) -> Path:
    """Fig. 4a: mean per-flow goodput of each class over time, mean over seeds."""
    from airqueue.reproduce.figures import save, timeseries_panels

    half = config.rate_stations // 2
    panels: dict[str, dict[str, tuple[list[float], list[float]]]] = {}
    for scheme, ts in rate_ts.items():
        cls = ts.assign(up=ts["flow"] >= half)
        mean = cls.groupby(["up", "t_start_s", "t_end_s"], sort=True)["goodput_bps"].mean()
        series = {}
        for up, g in mean.groupby(level="up"):
            g = g.reset_index()
            mid = (g["t_start_s"] + g["t_end_s"]) / 2
            label = "uplink" if up else "downlink"
            series[f"{label}, per flow"] = (list(mid), list(g["goodput_bps"] / 1e3))
        panels[f"{scheme}, mean of {config.seeds} seeds"] = series
    t0 = config.rate_time
    fast, slow = config.data_rate / 1e6, config.low_rate / 1e6
    fig = timeseries_panels(
        panels,
        title=f"{NAME}: throughput evolution, uplink {fast:g} -> {slow:g} Mb/s (Fig. 4a)",
        marks=[(t0, f"t0: uplink at {slow:g} Mb/s")],
    )
    return save(fig, out / "rate-change.png")


def _series(
    config: Config, points: Mapping[tuple[int, int, str], _Point], value: Any
) -> dict[str, dict[int, list[float]]]:
    out: dict[str, dict[int, list[float]]] = {}
    for case in config.cases:
        for scheme in config.schemes:
            out[f"Case {case}, {scheme}"] = {
                n: [v for v in value(points[(case, n, scheme)]) if math.isfinite(v)]
                for n in config.stations
            }
    return out


def _fairness_figure(
    config: Config, points: Mapping[tuple[int, int, str], _Point], out: Path
) -> Path:
    from airqueue.reproduce.figures import lines_with_ci, save

    def gamma(p: _Point) -> list[float]:
        # Per seed, a starved downlink (R_dn = 0) is drawn at R_dn = 1 b/s.
        return list(p.up / p.dn.clip(lower=1.0))

    fig = lines_with_ci(
        {
            "R_up / R_dn, mean of per-seed ratios (log)": _series(config, points, gamma),
            "Jain's index, all flows": _series(config, points, lambda p: list(p.jain)),
        },
        title=f"{NAME}: uplink/downlink fairness (Fig. 3; mean of {config.seeds} seeds, 95% CI)",
        xlabel="stations N",
    )
    ax = fig.axes[0]
    ax.set_yscale("log")
    ax.axhline(1.0, color="grey", linestyle=":", linewidth=1)
    return save(fig, out / "fairness.png")


def _throughput_figure(
    config: Config, points: Mapping[tuple[int, int, str], _Point], out: Path
) -> Path:
    from airqueue.reproduce.figures import lines_with_ci, save

    fig = lines_with_ci(
        {
            "R_up, per uplink flow (kb/s)": _series(config, points, lambda p: list(p.up / 1e3)),
            "R_dn, per downlink flow (kb/s)": _series(config, points, lambda p: list(p.dn / 1e3)),
            "R_total (Mb/s)": _series(config, points, lambda p: list(p.total / 1e6)),
        },
        title=f"{NAME}: goodput (Fig. 2; mean of {config.seeds} seeds, 95% CI)",
        xlabel="stations N",
    )
    return save(fig, out / "throughput.png")


def _rate_model_note(config: Config) -> str:
    if config.rate_model == "move":
        return (
            f"uplink stations move from {config.radius:g} m to {move_distance(config):.0f} m "
            f"from the AP, where {config.low_rate / 1e6:g} Mb/s is the fastest rate that "
            "decodes (between the SINR-threshold ranges of the next faster rate and of it); "
            "AARF at every station and the AP from the start; receive threshold at the "
            "1 Mb/s range, carrier sense at 2.2 times it (the default radio's ratio)."
        )
    return (
        f"uplink stations' links drop from {config.data_rate / 1e6:g} to "
        f"{config.low_rate / 1e6:g} Mb/s in both directions (rate_model = drop: a "
        "scheduled rate change at a fixed position, where the paper moves the stations "
        "and lets AARF find the rate; MAC ACKs stay at the basic rate)."
    )


def _notes(
    config: Config,
    quick: bool,
    seeds: list[int],
    points: Mapping[tuple[int, int, str], _Point],
) -> list[str]:
    notes = [
        f"BSS: AP + N stations {config.radius:g} m away + 1 wired host "
        f"({config.wire_bandwidth / 1e6:g} Mb/s, {config.wire_delay * 1e3:g} ms); 802.11b at "
        f"{config.data_rate / 1e6:g} Mb/s (basic {config.basic_rate / 1e6:g} Mb/s); one TCP "
        f"{config.tcp_variant} flow per station, ECN {'on' if config.ecn else 'off'}, "
        f"{config.packet_size} B segments, window {config.max_window}; AP buffer "
        f"{config.queue_capacity} packets; {config.duration:g} s runs measured after "
        f"{config.warmup:g} s; N in {list(config.stations)}, Case(s) {list(config.cases)}; "
        f"{len(seeds)} seeds ({'quick' if quick else 'full'}).",
        "DQM as Table II: (a, b) = (1.822e-5, 1.816e-5) at 160 Hz, D_ref = 0.05 s, "
        "T_fair = 0.005 s. In section IV-A every link runs at one data rate, so the "
        "opportunistic (rate-based) choice between the queues is a tie and the two queues "
        "are served in arrival order while both classes are under their share; in IV-B the "
        "head on the faster link goes first.",
        "Paper values: the text gives only qualitative results besides FI ~0.203 for BASE "
        "at large N (Sec. IV-A); 'very close to 1' (DQM's ratio and Jain's index) is put as "
        "1.0. The paper's N range and run length are in the lost figures: we use N = 2-20 "
        "and 0.203 against our largest N.",
        "Reading: in Case 1, when BASE starves all N/2 downlink flows and the uplink flows "
        "share equally, Jain's index is exactly 0.5; the paper's 0.203 also needs unequal "
        "shares among the uplink flows: ours has them from N = 20 on, where uplink flows "
        "that lose a window of ACKs at the AP's full queue starve in repeated timeouts.",
        "Deviation: no AARF. Section IV-A fixes every station at 11 Mb/s, so we run a "
        "fixed rate; the paper's rate adaptation then has nothing to adapt (no channel "
        "errors in the model at 10 m).",
        "Deviation: TCP SACK (the paper's ns-2 agent is not named); ECN on for BASE too "
        "(drop-tail never marks, so BASE behaves as without ECN).",
        "Fig. 5 (queue-traces.png and the 'q.ref' / 'queueing delay' rows, DQM only): the "
        "paper plots, gives no numbers. It describes (a) after the rate drop at t0 'the "
        "reference queue length decreases due to larger mean transmission time' while 'the "
        "queueing delay still fluctuates around the reference value' D_ref; (b) with "
        "downlink flows only the link is 'under-utilized, with smaller queueing delay and "
        "queue size than the reference values', and after the uplink flows join 'both "
        "queueing delay and queue size are controlled around the reference values'. Ours: "
        "the AP (node 0) sampled at every bin: q.ref = D_ref / mean T_pkt (EWMA of the "
        f"T_pkt of the AP's own packets, t_pkt = {config.t_pkt!r}: 'drawn' their backoff "
        "slots, IFS, DATA, SIFS and ACK over every attempt, 'elapsed' head of the MAC to "
        "the end of the exchange, 'estimate' one access without retries) at the bin's end, "
        "the queue length (the AP's radio queue "
        "plus its nearly empty 100 Mb/s wire queue), and the mean enqueue-to-dequeue time "
        "of the packets that left the DQM queue in the bin; per seed the mean over the "
        "bins inside each window, then mean and 95% CI over seeds.",
    ]
    if config.rate_stations:
        half = config.rate_stations // 2
        notes.append(
            f"Section IV-B: {half} downlink and {half} uplink stations (the paper does not "
            f"give the counts), {config.rate_duration:g} s runs; at {config.rate_time:g} s the "
            + _rate_model_note(config)
            + " 'Before' is "
            f"{config.warmup:g}-{config.rate_time:g} s, 'after' "
            f"{config.rate_time + config.rate_settle:g}-{config.rate_duration:g} s. The AP's "
            "DQM knows each link's current rate (III-B), as the paper assumes. The uplink "
            "channel-time share is an estimate from goodputs and the one-access T_pkt (no "
            "retransmissions, collisions or TCP retransmissions counted), not a measured "
            "airtime; the time-fair reference uses the same T_pkt."
        )
    else:
        notes.append("Section IV-B (uplink rate drop at 100 s) not run (rate_stations = 0).")
    if config.join_stations:
        notes.append(
            f"Section IV-C: {config.join_stations // 2} downlink flows from "
            f"{config.tcp_start:g} s, {config.join_stations // 2} uplink flows from "
            f"{config.join_time:g} s (the paper does not give the counts), "
            f"{config.join_duration:g} s runs; 'before' is {config.warmup:g}-"
            f"{config.join_time:g} s, 'after' {config.join_time + config.join_settle:g}-"
            f"{config.join_duration:g} s."
        )
    else:
        notes.append("Section IV-C (uplink flows joining at 100 s) not run (join_stations = 0).")
    if "BASE" in config.schemes:
        lows = {
            (c, n): points[(c, n, "BASE")].jain.mean()
            for c in config.cases
            for n in config.stations
        }
        (c, n), low = min(lows.items(), key=lambda kv: kv[1])
        notes.append(
            f"Lowest mean BASE Jain's index: {low:.3f} (Case {c}, N = {n}); the paper's "
            f"BASE reaches about {PAPER_BASE_JAIN}."
        )
    return notes


def _dq(metric: str) -> Ref:
    return Ref(NAME, metric)


def _point(case: int, n: int, scheme: str, what: str) -> Ref:
    """A Figs. 2-3 row of ``case`` with ``n`` stations (Case 1: n/2 up; Case 2: 1 up)."""
    n_up = n // 2 if case == 1 else 1
    head = f"Case {case}, N = {n} ({n_up} up, {n - n_up} down), {scheme}"
    dqm = scheme == "DQM"
    if what == "ratio":
        note = " (Fig. 3, Sec. IV-A: 'very close to the ideal value 1')" if dqm else ""
        return _dq(f"{head}: uplink/downlink per-flow goodput ratio R_up/R_dn{note}")
    if dqm:
        note = " (Sec. IV-A: 'very close to 1')"
    elif n == max(Config().stations):
        note = " (Sec. IV-A: 'around 0.203' as N grows; the paper's N range is lost)"
    else:
        note = ""
    return _dq(f"{head}: Jain's index, all flows{note}")


def _across(what: str) -> Ref:
    """A row of ``across_n_rows`` over the default N (2-20)."""
    ns = ", ".join(map(str, Config().stations))
    return _dq(f"Sec. IV-A across N = {ns}{what}")


_RATE = "Sec. IV-B, 4 down + 4 up, uplink 11 -> 2 Mb/s at 100 s"
_JOIN = "Sec. IV-C, 4 down + 4 up joining at 100 s"
_BEFORE, _AFTER = "before t0 (20-100 s)", "from 120 s"

#: Section IV at the largest N we run (20 stations), and the 8-station experiments of
#: IV-B and IV-C. "Very close to 1": within 0.05 (Jain's index) or 0.1 (R_up/R_dn) with an
#: interval at most twice that wide; "around" a number: within 20%.
CLAIMS = [
    Claim(
        id="004-s1-base-uplink-dominates",
        paper="004",
        where="Sec. I (citing [3]), Fig. 3",
        statement="the sending stations (UP_STAs) obtain substantially larger bandwidth than "
        "the receiving stations (DN_STAs)",
        metric="BASE, Case 1, N = 20: R_up/R_dn",
        measure=_point(1, 20, "BASE", "ratio"),
        rule=Direction("greater", 1.0),
    ),
    Claim(
        id="004-fig3-base-case2-ratio-grows",
        paper="004",
        where="Sec. IV-A, Fig. 3",
        statement="[BASE, Case 2] the throughput ratio increases linearly with N_dn",
        metric="BASE, Case 2: R_up/R_dn at N = 20 vs N = 2",
        measure=_point(2, 20, "BASE", "ratio"),
        rule=Direction("greater", _point(2, 2, "BASE", "ratio")),
    ),
    *[
        Claim(
            id=f"004-fig3-dqm-ratio-1-case{case}",
            paper="004",
            where="Sec. IV-A, Fig. 3",
            statement="[DQM] the throughput ratio is very close to the ideal value 1",
            metric=f"DQM, Case {case}, N = 20: R_up/R_dn",
            paper_value=1.0,
            measure=_point(case, 20, "DQM", "ratio"),
            rule=ValueInCI(abs=0.1, max_width=0.2),
        )
        for case in CASES
    ],
    *[
        Claim(
            id=f"004-fig3-base-jain-0.203-case{case}",
            paper="004",
            where="Sec. IV-A, Fig. 3",
            statement="as N increases, with BASE, FI drops ... both achieve very low values "
            "around 0.203",
            metric=f"BASE, Case {case}, N = 20: Jain's index",
            paper_value=PAPER_BASE_JAIN,
            measure=_point(case, 20, "BASE", "jain"),
            rule=ValueInCI(rel=0.2),
        )
        for case in CASES
    ],
    *[
        Claim(
            id=f"004-fig3-dqm-jain-1-case{case}",
            paper="004",
            where="Sec. IV-A, Fig. 3",
            statement="with uniform traffic, it [DQM] can achieve the global fairness very "
            "close to 1",
            metric=f"DQM, Case {case}, N = 20: Jain's index",
            paper_value=1.0,
            measure=_point(case, 20, "DQM", "jain"),
            rule=ValueInCI(abs=0.05, max_width=0.1),
        )
        for case in CASES
    ],
    Claim(
        id="004-fig4a-similar-before",
        paper="004",
        where="Sec. IV-B, Fig. 4a",
        statement="before t0, the average per-flow throughput of uplink and downlink flows "
        "is very similar",
        metric="rate drop, DQM: R_up/R_dn before t0",
        paper_value=1.0,
        measure=_dq(f"{_RATE}, DQM: R_up/R_dn before t0 (Fig. 4a: 'very similar')"),
        rule=ValueInCI(abs=0.1, max_width=0.2),
    ),
    Claim(
        id="004-fig4a-uplink-lower-after",
        paper="004",
        where="Sec. IV-B, Fig. 4a",
        statement="after that, the uplink flows converge to lower average throughput based "
        "on the 'temporal fairness' rule",
        metric="rate drop, DQM: R_up/R_dn after t0",
        measure=_dq(
            f"{_RATE}, DQM: R_up/R_dn {_AFTER} (Fig. 4a: uplink 'converge to lower' "
            "throughput, no number)"
        ),
        rule=Direction("less", 1.0),
    ),
    Claim(
        id="004-s4b-anomaly-alleviated",
        paper="004",
        where="Sec. IV-B",
        statement="opportunistic scheduling alleviates the well known phenomenon of "
        "'performance anomaly'",
        metric="rate drop: aggregate goodput after t0, DQM vs BASE",
        measure=_dq(f"{_RATE}, DQM: aggregate goodput {_AFTER}, Mb/s"),
        rule=Direction("greater", _dq(f"{_RATE}, BASE: aggregate goodput {_AFTER}, Mb/s")),
    ),
    Claim(
        id="004-fig5a-qref-decreases",
        paper="004",
        where="Sec. IV-B, Fig. 5a",
        statement="after t0, the reference queue length decreases due to larger mean "
        "transmission time",
        metric="rate drop, DQM: mean q.ref after vs before t0",
        measure=_dq(f"{_RATE}, DQM: mean q.ref {_AFTER}, packets (Fig. 5, plotted only)"),
        rule=Direction(
            "less", _dq(f"{_RATE}, DQM: mean q.ref {_BEFORE}, packets (Fig. 5, plotted only)")
        ),
    ),
    *[
        Claim(
            id=f"004-fig5{fig}-delay-around-dref",
            paper="004",
            where=f"Sec. IV-{sec}, Fig. 5{fig}",
            statement=text,
            metric=f"{head}, DQM: mean queueing delay at the AP after t0, ms (D_ref 50 ms)",
            paper_value=50.0,
            measure=_dq(
                f"{head}, DQM: mean queueing delay at the AP {_AFTER}, ms (Fig. 5, plotted only)"
            ),
            rule=ValueInCI(rel=0.2),
        )
        for fig, sec, head, text in (
            ("a", "B", _RATE, "the queueing delay still fluctuates around the reference value"),
            (
                "b",
                "C",
                _JOIN,
                "after uplink flows start, ... both queueing delay and queue size are "
                "controlled around the reference values",
            ),
        )
    ],
    Claim(
        id="004-fig5b-queue-around-qref",
        paper="004",
        where="Sec. IV-C, Fig. 5b",
        statement="after uplink flows start, ... both queueing delay and queue size are "
        "controlled around the reference values",
        metric="join, DQM: mean AP queue length / mean q.ref after t0",
        paper_value=1.0,
        measure=Ratio(
            _dq(f"{_JOIN}, DQM: mean AP queue length {_AFTER}, packets"),
            _dq(f"{_JOIN}, DQM: mean q.ref {_AFTER}, packets (Fig. 5, plotted only)"),
        ),
        rule=ValueInCI(rel=0.2),
    ),
    Claim(
        id="004-fig5b-delay-below-dref-before",
        paper="004",
        where="Sec. IV-C, Fig. 5b",
        statement="when there is only downlink traffic, the link is under-utilized, with "
        "smaller queueing delay and queue size than the reference values",
        metric="join, DQM: mean queueing delay before t0 vs D_ref (50 ms)",
        measure=_dq(
            f"{_JOIN}, DQM: mean queueing delay at the AP {_BEFORE}, ms (Fig. 5, plotted only)"
        ),
        rule=Direction("less", 50.0),
    ),
    Claim(
        id="004-fig5b-queue-below-qref-before",
        paper="004",
        where="Sec. IV-C, Fig. 5b",
        statement="when there is only downlink traffic, the link is under-utilized, with "
        "smaller queueing delay and queue size than the reference values",
        metric="join, DQM: mean AP queue length vs mean q.ref before t0",
        measure=_dq(f"{_JOIN}, DQM: mean AP queue length {_BEFORE}, packets"),
        rule=Direction(
            "less", _dq(f"{_JOIN}, DQM: mean q.ref {_BEFORE}, packets (Fig. 5, plotted only)")
        ),
    ),
    Claim(
        id="004-fig4b-downlink-fair-before",
        paper="004",
        where="Sec. IV-C, Fig. 4b",
        statement="before t0, downlink flows fairly share the whole bandwidth",
        metric="join, DQM: Jain's index of the downlink flows before the join",
        paper_value=1.0,
        measure=_dq(
            f"{_JOIN}, DQM: Jain's index of the downlink flows before the join "
            "(Fig. 4b: 'fairly share', no number)"
        ),
        rule=ValueInCI(abs=0.05, max_width=0.1),
    ),
    Claim(
        id="004-fig4b-converge",
        paper="004",
        where="Sec. IV-C, Fig. 4b",
        statement="after t0, uplink flows start traffic and the average throughput of uplink "
        "and downlink flows converges to the same value",
        metric="join, DQM: R_up/R_dn after the join",
        paper_value=1.0,
        measure=_dq(f"{_JOIN}, DQM: R_up/R_dn {_AFTER} (Fig. 4b: 'converges to the same value')"),
        rule=ValueInCI(abs=0.1, max_width=0.2),
    ),
    # How results vary across N (section IV-A). "Stable" as the paper defines it for
    # BASE's Case 2 ("the throughput ratio increases linearly with N_dn"): close to a
    # straight line in N, so "fluctuate a lot and hardly predictable" and "drops less
    # smoothly" are a larger 1 - R^2 of that line. DQM's "much more stable ... even when N
    # gets larger", beside a ratio "very close to 1": a level that moves less with N than
    # BASE's, the coefficient of variation across N, in both cases.
    Claim(
        id="004-fig2-base-case1-fluctuates",
        paper="004",
        where="Sec. IV-A, Figs. 2-3",
        statement="with BASE, the figures in Case 1 fluctuate a lot and are hardly "
        "predictable, while the ones in Case 2 are more stable (the throughput ratio "
        "increases linearly with N_dn)",
        metric="BASE: R_up/R_dn against N = 2-20, 1 - R^2 of a straight line in N, Case 1 vs "
        "Case 2",
        measure=_across(", Case 1, BASE: R_up/R_dn, 1 - R^2 of a straight line in N"),
        rule=Direction(
            "greater", _across(", Case 2, BASE: R_up/R_dn, 1 - R^2 of a straight line in N")
        ),
    ),
    Claim(
        id="004-fig3-base-case2-smoother",
        paper="004",
        where="Sec. IV-A, Fig. 3",
        statement="as N increases, with BASE, FI drops more smoothly in Case 2 than in Case 1",
        metric="BASE: Jain's index against N = 2-20, 1 - R^2 of a straight line in N, Case 2 "
        "vs Case 1",
        measure=_across(", Case 2, BASE: Jain's index, 1 - R^2 of a straight line in N"),
        rule=Direction(
            "less", _across(", Case 1, BASE: Jain's index, 1 - R^2 of a straight line in N")
        ),
    ),
    Claim(
        id="004-s4a-dqm-stable",
        paper="004",
        where="Sec. IV-A, Fig. 2",
        statement="with DQM, the throughput performance is much more stable both in Case 1 "
        "and 2, even when N gets larger",
        metric="R_up/R_dn's coefficient of variation across N = 2-20: DQM's larger of the two "
        "cases vs BASE's smaller",
        measure=_across(
            ", DQM: R_up/R_dn, coefficient of variation across N, the larger of Case 1's and "
            "Case 2's"
        ),
        rule=Direction(
            "less",
            _across(
                ", BASE: R_up/R_dn, coefficient of variation across N, the smaller of Case "
                "1's and Case 2's"
            ),
        ),
    ),
]
