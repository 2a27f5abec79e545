//! Static shortest-path routing, computed once before the run.
//!
//! Dijkstra from every destination over the neighbour graph, with either hop count or
//! ETX (De Couto et al., MobiCom 2003: ETX = 1 / (d_f * d_r), d the delivery ratios of the
//! two directions) as link cost. Ties go to the lowest node id so the table is a pure
//! function of the graph. The table is dense: `next_hop[src * n + dst]`. Each node's
//! one-hop neighbours (the destinations that are their own next hop) are kept with its
//! row, so that a discipline choosing among them (backpressure) reads a list instead of
//! scanning the row at every pull.

use crate::ids::NodeId;
use std::cmp::Reverse;
use std::collections::BinaryHeap;

/// The `next_hop` and `hops` entry of an unreachable destination.
pub const NO_ROUTE: u32 = u32::MAX;

/// A link of the routing graph with its cost.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct GraphEdge {
    pub to: NodeId,
    pub cost: f64,
}

/// Next hop and path cost for every (source, destination) pair.
#[derive(Clone, Debug)]
pub struct RoutingTable {
    n: usize,
    next_hop: Vec<u32>,
    hops: Vec<u32>,
    /// By node: the nodes its row reaches in one hop, ascending (rebuilt with the row).
    neighbours: Vec<Vec<NodeId>>,
}

impl RoutingTable {
    /// `graph[u]` lists u's outgoing edges. Costs must be positive and finite.
    pub fn shortest_paths(graph: &[Vec<GraphEdge>]) -> Self {
        let n = graph.len();
        let mut next_hop = vec![NO_ROUTE; n * n];
        let mut hops = vec![NO_ROUTE; n * n];
        // Reverse graph: to route towards d we run Dijkstra from d over incoming edges.
        let mut incoming: Vec<Vec<(u32, f64)>> = vec![Vec::new(); n];
        for (u, edges) in graph.iter().enumerate() {
            for e in edges {
                debug_assert!(e.cost > 0.0 && e.cost.is_finite());
                incoming[e.to.index()].push((u as u32, e.cost));
            }
        }
        let mut dist = vec![f64::INFINITY; n];
        let mut heap = BinaryHeap::new();
        for d in 0..n {
            dist.iter_mut().for_each(|x| *x = f64::INFINITY);
            dist[d] = 0.0;
            hops[d * n + d] = 0;
            heap.clear();
            heap.push(Reverse((OrdF64(0.0), d as u32)));
            while let Some(Reverse((OrdF64(du), u))) = heap.pop() {
                let u = u as usize;
                if du > dist[u] {
                    continue;
                }
                for &(v, c) in &incoming[u] {
                    let v = v as usize;
                    let nd = du + c;
                    let cell = v * n + d;
                    // Strictly better, or equal cost through a lower-id next hop.
                    let better = nd < dist[v] - 1e-12
                        || ((nd - dist[v]).abs() <= 1e-12 && (u as u32) < next_hop[cell]);
                    if better {
                        dist[v] = nd;
                        next_hop[cell] = u as u32;
                        hops[cell] = hops[u * n + d].saturating_add(1);
                        heap.push(Reverse((OrdF64(nd), v as u32)));
                    }
                }
            }
        }
        let mut t = RoutingTable {
            n,
            next_hop,
            hops,
            neighbours: vec![Vec::new(); n],
        };
        for i in 0..n as u32 {
            t.find_neighbours(NodeId(i));
        }
        t
    }

    /// Rebuilds `at`'s neighbour list from its row (the list keeps its allocation).
    fn find_neighbours(&mut self, at: NodeId) {
        let row = &self.next_hop[at.index() * self.n..(at.index() + 1) * self.n];
        let list = &mut self.neighbours[at.index()];
        list.clear();
        list.extend(
            (0..self.n as u32)
                .filter(|&j| j != at.0 && row[j as usize] == j)
                .map(NodeId),
        );
    }

    /// The nodes `at` reaches in one hop (its next hop towards them is themselves), in
    /// ascending id order.
    #[inline]
    pub fn neighbours(&self, at: NodeId) -> &[NodeId] {
        &self.neighbours[at.index()]
    }

    /// The neighbour to which `at` forwards packets for `dst`; `None` if unreachable or
    /// `at == dst`.
    #[inline]
    pub fn next_hop(&self, at: NodeId, dst: NodeId) -> Option<NodeId> {
        let v = self.next_hop[at.index() * self.n + dst.index()];
        (v != NO_ROUTE).then_some(NodeId(v))
    }

    /// Number of hops on the chosen path, `None` if unreachable.
    pub fn hop_count(&self, src: NodeId, dst: NodeId) -> Option<u32> {
        let v = self.hops[src.index() * self.n + dst.index()];
        (v != NO_ROUTE).then_some(v)
    }

    pub fn node_count(&self) -> usize {
        self.n
    }

    /// A table of `n` nodes without any route (hop count 0 to themselves).
    pub fn empty(n: usize) -> Self {
        let mut hops = vec![NO_ROUTE; n * n];
        for i in 0..n {
            hops[i * n + i] = 0;
        }
        RoutingTable {
            n,
            next_hop: vec![NO_ROUTE; n * n],
            hops,
            neighbours: vec![Vec::new(); n],
        }
    }

    /// The next hops of `src` by destination (`NO_ROUTE` where there is none).
    pub fn row(&self, src: NodeId) -> &[u32] {
        let i = src.index() * self.n;
        &self.next_hop[i..i + self.n]
    }

    /// Replaces `src`'s routes (a dynamic protocol's recalculation, e.g. OLSR's): next
    /// hop and hop count by destination, `NO_ROUTE` where there is none. Both slices
    /// hold one entry per node; returns how many next hops changed.
    pub fn set_row(&mut self, src: NodeId, next_hop: &[u32], hops: &[u32]) -> usize {
        let i = src.index() * self.n;
        let row = &mut self.next_hop[i..i + self.n];
        let changed = row.iter().zip(next_hop).filter(|(a, b)| a != b).count();
        row.copy_from_slice(next_hop);
        self.hops[i..i + self.n].copy_from_slice(hops);
        self.find_neighbours(src);
        changed
    }
}

/// f64 with a total order for the heap (costs are never NaN); shared with OLSR's route
/// calculation.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) struct OrdF64(pub(crate) f64);
impl Eq for OrdF64 {}
impl PartialOrd for OrdF64 {
    fn partial_cmp(&self, other: &Self) -> Option<std::cmp::Ordering> {
        Some(self.cmp(other))
    }
}
impl Ord for OrdF64 {
    fn cmp(&self, other: &Self) -> std::cmp::Ordering {
        self.0.total_cmp(&other.0)
    }
}

/// ETX of a link from the erasure probabilities of its two directions.
pub fn etx(loss_forward: f64, loss_reverse: f64) -> f64 {
    1.0 / ((1.0 - loss_forward) * (1.0 - loss_reverse))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn undirected(n: usize, edges: &[(u32, u32, f64)]) -> Vec<Vec<GraphEdge>> {
        let mut g = vec![Vec::new(); n];
        for &(a, b, c) in edges {
            g[a as usize].push(GraphEdge {
                to: NodeId(b),
                cost: c,
            });
            g[b as usize].push(GraphEdge {
                to: NodeId(a),
                cost: c,
            });
        }
        g
    }

    #[test]
    fn chain_routes_hop_by_hop() {
        let g = undirected(4, &[(0, 1, 1.0), (1, 2, 1.0), (2, 3, 1.0)]);
        let t = RoutingTable::shortest_paths(&g);
        assert_eq!(t.next_hop(NodeId(0), NodeId(3)), Some(NodeId(1)));
        assert_eq!(t.next_hop(NodeId(3), NodeId(0)), Some(NodeId(2)));
        assert_eq!(t.next_hop(NodeId(2), NodeId(2)), None);
        assert_eq!(t.hop_count(NodeId(0), NodeId(3)), Some(3));
    }

    #[test]
    fn etx_prefers_two_clean_hops_over_one_lossy() {
        // 0-2 direct with 60% loss each way: ETX 6.25; via 1: 2.0.
        let g = undirected(3, &[(0, 2, etx(0.6, 0.6)), (0, 1, 1.0), (1, 2, 1.0)]);
        let t = RoutingTable::shortest_paths(&g);
        assert_eq!(t.next_hop(NodeId(0), NodeId(2)), Some(NodeId(1)));
        let hops =
            RoutingTable::shortest_paths(&undirected(3, &[(0, 2, 1.0), (0, 1, 1.0), (1, 2, 1.0)]));
        assert_eq!(hops.next_hop(NodeId(0), NodeId(2)), Some(NodeId(2)));
    }

    #[test]
    fn rows_are_replaced_and_changes_counted() {
        let mut t = RoutingTable::empty(3);
        assert_eq!(t.next_hop(NodeId(0), NodeId(2)), None);
        assert_eq!(t.hop_count(NodeId(1), NodeId(1)), Some(0));
        assert!(t.neighbours(NodeId(0)).is_empty());
        assert_eq!(t.set_row(NodeId(0), &[NO_ROUTE, 1, 1], &[0, 1, 2]), 2);
        assert_eq!(t.next_hop(NodeId(0), NodeId(2)), Some(NodeId(1)));
        assert_eq!(t.hop_count(NodeId(0), NodeId(2)), Some(2));
        assert_eq!(t.neighbours(NodeId(0)), &[NodeId(1)]);
        assert_eq!(t.set_row(NodeId(0), &[NO_ROUTE, 1, 2], &[0, 1, 1]), 1);
        assert_eq!(t.row(NodeId(0)), &[NO_ROUTE, 1, 2]);
        assert_eq!(t.row(NodeId(1)), &[NO_ROUTE; 3]);
        // The neighbour lists follow the rows they were rebuilt from.
        assert_eq!(t.neighbours(NodeId(0)), &[NodeId(1), NodeId(2)]);
        assert!(t.neighbours(NodeId(1)).is_empty());
        // A row naming its own node as next hop does not list it.
        t.set_row(NodeId(2), &[NO_ROUTE, 1, 2], &[2, 1, 0]);
        assert_eq!(t.neighbours(NodeId(2)), &[NodeId(1)]);
    }

    #[test]
    fn ties_go_to_lowest_id_and_unreachable_is_none() {
        // Diamond 0-{1,2}-3 plus isolated node 4.
        let g = undirected(5, &[(0, 2, 1.0), (0, 1, 1.0), (1, 3, 1.0), (2, 3, 1.0)]);
        let t = RoutingTable::shortest_paths(&g);
        assert_eq!(t.next_hop(NodeId(0), NodeId(3)), Some(NodeId(1)));
        assert_eq!(t.next_hop(NodeId(0), NodeId(4)), None);
        assert_eq!(t.hop_count(NodeId(4), NodeId(0)), None);
        // One-hop neighbours in id order; none for the isolated node.
        assert_eq!(t.neighbours(NodeId(0)), &[NodeId(1), NodeId(2)]);
        assert_eq!(t.neighbours(NodeId(3)), &[NodeId(1), NodeId(2)]);
        assert!(t.neighbours(NodeId(4)).is_empty());
    }
}
