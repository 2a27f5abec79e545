"""Paths and hop counts of finished runs, read from their reports: the ``routes`` table
(each flow's path under the core's static routing, which the report computes from the
scenario whatever routing the run used) and the ``links`` table (the pairs the PHY
connects). Nothing here recomputes routes."""

from __future__ import annotations

from collections import deque

import pandas as pd

__all__ = ["flow_hops", "hop_diameter"]


def flow_hops(routes: pd.DataFrame) -> dict[tuple[str, int], int]:
    """Hops of each flow's static path, keyed by (run_id, flow); a flow without a path
    has no entry."""
    if routes.empty:
        return {}
    last = routes.groupby(["run_id", "flow"])["hop"].max()
    return {(str(r), int(f)): int(h) for (r, f), h in last.items()}


def hop_diameter(links: pd.DataFrame, node_count: int) -> int:
    """The largest hop count between two connected nodes over the links of one run (the
    pairs that can decode each other, and wires; breadth-first from every node)."""
    adj: list[list[int]] = [[] for _ in range(node_count)]
    for a, b in zip(links["a"], links["b"], strict=True):
        adj[int(a)].append(int(b))
        adj[int(b)].append(int(a))
    best = 0
    for s in range(node_count):
        dist = [-1] * node_count
        dist[s] = 0
        queue = deque([s])
        while queue:
            u = queue.popleft()
            for v in adj[u]:
                if dist[v] < 0:
                    dist[v] = dist[u] + 1
                    queue.append(v)
        best = max(best, max(dist))
    return best
