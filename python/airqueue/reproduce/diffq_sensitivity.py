"""``diffq-sensitivity``: how the DiffQ reproductions move with the constants seed 000
names but does not give.

Section 4.1 of the paper uses ``D`` ("maximum per-destination queue size") both as the
limit of a destination queue and to set the priority quantisation step ``D / 8``, and a
source queue threshold ``QUEUE_THRESH`` for the rate control; section 6.1 gives only
alpha and beta. DiffQ-TCP is also bound by TCP's receive window, which the paper's Linux
hosts set and the paper does not report. This reproduction reruns the headline metrics
of ``diffq-starvation``, ``diffq-single-path`` (TCP-SACK and DiffQ-TCP at 16 and 32
flows) and ``diffq-ablation`` for each ``(D, threshold, window)`` of a grid, with
everything else at the defaults of those reproductions, so that a reader can see which
conclusions depend on the choice.

The runs go to one store per underlying reproduction under ``out`` (``starvation/``,
``single-path/``, ``ablation/``): TCP-SACK runs, which do not depend on ``D``, are shared
between grid points, and rerunning with a larger grid only runs the new points.
"""

from __future__ import annotations

import contextlib
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from airqueue.reproduce import diffq_ablation, diffq_single_path, diffq_starvation
from airqueue.reproduce.diffq_single_path import RATE_UPDATE
from airqueue.reproduce.params import apply_params, as_params
from airqueue.reproduce.report import ReproductionResult, Row
from airqueue.sweeps import dask_client

NAME = "diffq-sensitivity"
SUMMARY = "DiffQ's unpublished constants (D, queue threshold, TCP window) vs the headline results"

#: (D, queue threshold, window) points: the defaults (40, 10, 64); threshold D / 8 (a
#: source at its threshold sends at level 1) for D = 16 ... 64; and a larger window.
GRID: tuple[tuple[int, int, int], ...] = (
    (40, 10, 64),
    (40, 5, 64),
    (24, 3, 64),
    (16, 2, 64),
    (64, 8, 64),
    (40, 10, 128),
    (40, 5, 128),
)


@dataclass(frozen=True)
class Config:
    """Parameters (``airqueue.reproduce(NAME, params={...})`` overrides any of them)."""

    #: ``[D, queue_threshold, max_window]`` points.
    grid: tuple[tuple[int, int, int], ...] = GRID
    #: Seeds of each underlying reproduction (None: its own default).
    starvation_seeds: int = 5
    single_path_seeds: int = 20
    ablation_seeds: int = 10
    #: Flow counts of the single-path runs.
    flow_counts: tuple[int, ...] = (16, 32)
    #: Run the ablation (DiffQ-UDP: the window does not apply, so once per (D, threshold)).
    ablation: bool = True
    #: DiffQ's rate-control clock at every point (``diffq_single_path.RATE_UPDATE``).
    rate_update: str = RATE_UPDATE
    #: Frames the MAC holds in the single-path runs (``[mac] tx_buffer``); None: that
    #: reproduction's default, MadWiFi's 200, behind which the backlog waits out of reach
    #: of D and the threshold; 1 gives the model the grid below was first run on.
    driver_buffer: int | None = None
    quick: bool = False

    @classmethod
    def make(cls, quick: bool, params: Mapping[str, Any] | None) -> Config:
        base = (
            cls(
                grid=((40, 10, 64), (16, 2, 64)),
                starvation_seeds=3,
                single_path_seeds=3,
                ablation_seeds=2,
                flow_counts=(16,),
                quick=True,
            )
            if quick
            else cls()
        )
        try:
            config: Config = apply_params(base, params)
        except ValueError as e:
            raise ValueError(f"{NAME}: {e}") from None
        grid = []
        for point in config.grid:
            if (
                not isinstance(point, (list, tuple))
                or len(point) != 3
                or not all(isinstance(x, int) and not isinstance(x, bool) for x in point)
            ):
                raise ValueError(
                    f"{NAME}: parameter grid: each point is [D, queue_threshold, max_window] "
                    f"as integers, got {point!r}"
                )
            d, t, w = point
            if not (d >= 1 and 0 <= t < d and w >= 1):
                raise ValueError(
                    f"{NAME}: parameter grid: point {list(point)} needs D >= 1, "
                    f"0 <= queue_threshold < D and max_window >= 1"
                )
            grid.append((d, t, w))
        return apply_params(config, {"grid": tuple(grid)})


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
    with contextlib.ExitStack() as stack:
        # One cluster for every underlying reproduction.
        if client is None and not serial:
            runs = config.single_path_seeds * len(config.flow_counts) * 2
            client = stack.enter_context(dask_client(workers=workers, scheduler=None, runs=runs))
        common = {"workers": workers, "serial": serial, "progress": progress, "client": client}
        return _run(config, out, common)


def _run(config: Config, out: Path, common: dict[str, Any]) -> ReproductionResult:
    rows: list[Row] = []
    points: list[dict[str, Any]] = []
    ablated: dict[tuple[int, int], ReproductionResult] = {}
    for d, t, w in config.grid:
        tag = f"D={d}, threshold={t}, window={w}"
        knobs = {"diffq_d": d, "queue_threshold": t, "rate_update": config.rate_update}
        starv = diffq_starvation.run(
            quick=config.quick,
            out=out / "starvation",
            params={**knobs, "max_window": w, "seeds": config.starvation_seeds},
            **common,
        )
        single = diffq_single_path.run(
            quick=config.quick,
            out=out / "single-path",
            params={
                **knobs,
                "max_window": w,
                "seeds": config.single_path_seeds,
                "flow_counts": list(config.flow_counts),
                "schemes": ["TCP-SACK", "DiffQ-TCP"],
                **({} if config.driver_buffer is None else {"driver_buffer": config.driver_buffer}),
            },
            **common,
        )
        point: dict[str, Any] = {"D": d, "threshold": t, "window": w}
        for label in ("on", "off"):
            source = starv.row(
                f"DiffQ-TCP, delayed ACK {label}: flow 1 share of fair share (aggregate/3)"
            )
            rows.append(_copy(source, f"{tag}: starvation, long-flow share, delayed ACK {label}"))
            point[f"share_delack_{label}"] = source.ours
        for n in config.flow_counts:
            for scheme in ("DiffQ-TCP", "TCP-SACK"):
                source = single.row(f"{scheme}, {n} flows: Jain's index (Fig. 11a/13)")
                rows.append(_copy(source, f"{tag}: Jain's index, {n} flows, {scheme}"))
            ratio = single.row(f"median goodput ratio DiffQ-TCP / TCP-SACK, {n} flows (Table 3)")
            rows.append(_copy(ratio, f"{tag}: median goodput ratio, {n} flows (Table 3)"))
            point[f"jain_ratio_{n}"] = single.row(
                f"Jain's index ratio DiffQ-TCP / TCP-SACK, {n} flows (Fig. 11a; text: ~2x)"
            ).ours
        if config.ablation:
            key = (d, t)
            if key not in ablated:
                ablated[key] = diffq_ablation.run(
                    quick=config.quick,
                    out=out / "ablation",
                    params={**knobs, "seeds": config.ablation_seeds},
                    **common,
                )
            source = next(r for r in ablated[key].rows if "drops ratio full DiffQ" in r.metric)
            rows.append(_copy(source, f"{tag}: relay queue drops, full DiffQ / RC only (Fig. 15)"))
            point["ablation_ratio"] = source.ours
        points.append(point)

    figures = [_figure(points, out)]
    notes = [
        "Each point reruns diffq-starvation (DiffQ-TCP's long-flow share of aggregate/3), "
        "diffq-single-path (Jain's index of DiffQ-TCP and TCP-SACK, Table 3's median "
        "ratio) and diffq-ablation (relay queue drops of full DiffQ over rate control "
        "only) with D, the source queue threshold and TCP's receive window set as named; "
        "TCP-SACK depends only on the window.",
        "The paper gives none of the three constants (section 4.1 names D and "
        "QUEUE_THRESH; section 6.1 gives only alpha = 0.01 and beta = 0.5).",
        f"{len(config.grid)} points; seeds: starvation {config.starvation_seeds}, single "
        f"path {config.single_path_seeds} per flow count, ablation {config.ablation_seeds}"
        f" ({'quick' if config.quick else 'full'}).",
    ]
    params = as_params(config)
    return ReproductionResult(
        name=NAME, rows=rows, figures=figures, notes=notes, params=params, out=out
    )


def _copy(source: Row, metric: str) -> Row:
    return Row(metric, source.paper, source.ours, source.ci_low, source.ci_high)


def _figure(points: list[dict[str, Any]], out: Path) -> Path:
    """Long-flow share and Jain's index ratio against D, one line per (threshold rule,
    window)."""
    from airqueue.reproduce.figures import save, series_against

    panels: dict[str, dict[str, list[tuple[float, float]]]] = {
        "long-flow share (starvation)": {},
        "Jain ratio DiffQ-TCP / TCP-SACK": {},
    }
    for p in points:
        rule = "D/8" if p["threshold"] * 8 == p["D"] else p["threshold"]
        label = f"threshold {rule}, window {p['window']}"
        panels["long-flow share (starvation)"].setdefault(label, []).append(
            (p["D"], p["share_delack_on"])
        )
        for key in sorted(k for k in p if k.startswith("jain_ratio_")):
            n = key.rsplit("_", 1)[1]
            panels["Jain ratio DiffQ-TCP / TCP-SACK"].setdefault(f"{label}, {n} flows", []).append(
                (p["D"], p[key])
            )
    fig = series_against(panels, title=f"{NAME}: DiffQ-TCP against D", xlabel="D (packets)")
    return save(fig, out / "sensitivity.png")
