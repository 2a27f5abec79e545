"""Routes of a finished run, recomputed from its node positions exactly as the core's
static routing does (``crates/sim/src/net/routing.rs``): the neighbour graph of nodes
within ``radio.tx_range`` (default 250 m), shortest paths by hop count or ETX (every link
cost 1 unless ``[[link]]`` gives it a loss), ties to the lowest next-hop id. Reports do
not carry routes, and the reproductions need them: hop counts of flows, the hop diameter
of a topology, and which flows pass through a node that dropped packets."""

from __future__ import annotations

import heapq
import math
from collections.abc import Mapping, Sequence
from typing import Any

__all__ = ["Routes"]

_RANGE_SLACK = 1e-9
_EPS = 1e-12
_DEFAULT_RANGE_M = 250.0


class Routes:
    """Next hops between every pair of nodes of one topology."""

    def __init__(
        self,
        positions: Sequence[tuple[float, float]],
        *,
        tx_range: float = _DEFAULT_RANGE_M,
        link_loss: Mapping[tuple[int, int], float] | None = None,
        metric: str = "hops",
    ) -> None:
        n = len(positions)
        self.n = n
        r = tx_range * (1.0 + _RANGE_SLACK)
        adj: list[list[tuple[int, float]]] = [[] for _ in range(n)]
        loss = dict(link_loss or {})
        for i in range(n):
            xi, yi = positions[i]
            for j in range(i + 1, n):
                dx, dy = positions[j][0] - xi, positions[j][1] - yi
                if dx * dx + dy * dy <= r * r:
                    cost = 1.0
                    if metric == "etx":
                        lf = loss.get((i, j), loss.get((j, i), 0.0))
                        cost = 1.0 / ((1.0 - lf) * (1.0 - lf))
                    adj[i].append((j, cost))
                    adj[j].append((i, cost))
        self.neighbours = [sorted(b for b, _ in a) for a in adj]
        self._next = [[-1] * n for _ in range(n)]  # _next[at][dst]
        self._hops = [[-1] * n for _ in range(n)]
        for d in range(n):
            dist = [math.inf] * n
            dist[d] = 0.0
            self._hops[d][d] = 0
            heap = [(0.0, d)]
            while heap:
                du, u = heapq.heappop(heap)
                if du > dist[u]:
                    continue
                for v, c in adj[u]:  # undirected: incoming edges of u are its edges
                    nd = du + c
                    better = nd < dist[v] - _EPS or (
                        abs(nd - dist[v]) <= _EPS and u < self._next_or_max(v, d)
                    )
                    if better:
                        dist[v] = nd
                        self._next[v][d] = u
                        self._hops[v][d] = self._hops[u][d] + 1
                        heapq.heappush(heap, (nd, v))

    def _next_or_max(self, at: int, dst: int) -> int:
        v = self._next[at][dst]
        return v if v >= 0 else 1 << 62

    @classmethod
    def of_run(cls, nodes: Any, scenario: Mapping[str, Any] | None = None) -> Routes:
        """Routes of a run from its ``nodes`` table (node, x_m, y_m) and scenario dict."""
        sc = scenario or {}
        radio = sc.get("radio") or {}
        routing = sc.get("routing") or {}
        if routing.get("kind", "static") != "static":
            # AODV's and OLSR's routes change during the run; no table
            # computed from positions describes them.
            raise ValueError(
                f"routes with routing.kind = {routing.get('kind')!r} are not recomputed in "
                "Python: only static routes are a function of the topology; use routing.kind "
                '= "static", or read the run\'s "routing" table for AODV\'s or OLSR\'s counters'
            )
        if radio.get("fading", "none") != "none" and routing.get("metric") == "etx":
            # The core's ETX then also counts each link's fading loss, from the
            # propagation model, which this mirror does not have.
            raise ValueError(
                'routes with radio.fading and routing.metric = "etx" are not recomputed '
                'in Python: the core\'s ETX counts fading loss; use metric = "hops" or no '
                "fading in a reproduction"
            )
        loss = {
            (int(link["a"]), int(link["b"])): float(link.get("loss", 0.0))
            for link in sc.get("link") or []
        }
        ordered = nodes.sort_values("node")
        positions = list(
            zip(ordered["x_m"].astype(float), ordered["y_m"].astype(float), strict=True)
        )
        return cls(
            positions,
            tx_range=float(radio.get("tx_range", _DEFAULT_RANGE_M)),
            link_loss=loss,
            metric=str(routing.get("metric", "hops")),
        )

    def path(self, src: int, dst: int) -> list[int]:
        """The nodes from ``src`` to ``dst`` inclusive; [] when unreachable."""
        if self._hops[src][dst] < 0:
            return []
        out = [src]
        at = src
        while at != dst:
            at = self._next[at][dst]
            out.append(at)
        return out

    def hops(self, src: int, dst: int) -> int | None:
        h = self._hops[src][dst]
        return None if h < 0 else h

    def diameter(self) -> int:
        """The largest hop count between two connected nodes."""
        return max((h for row in self._hops for h in row if h >= 0), default=0)
