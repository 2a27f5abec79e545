//! Shortest-path routing over the neighbour graph: static routes computed before the run,
//! and the table dynamic protocols (OLSR) rewrite row by row.
//!
//! Dijkstra from each destination over the reversed neighbour graph, with either hop
//! count or ETX (De Couto et al., MobiCom 2003: ETX = 1 / (d_f * d_r), d the delivery
//! ratios of the two directions) as link cost. Ties go to the lowest node id so the table
//! is a pure function of the graph. Two layouts:
//!
//! * dense, `next_hop[src * n + dst]` for every pair ([`RoutingTable::shortest_paths`],
//!   [`RoutingTable::empty`]): what OLSR rewrites a row of at a time;
//! * by destination, one column per destination a run sends to
//!   ([`RoutingTable::shortest_paths_to`]): the same routes to those destinations at a
//!   cost of one Dijkstra and `n` entries each, so a 10,000-node topology with a few
//!   flows is set up in time and memory near-linear in nodes and links.
//!
//! Each node's one-hop neighbours (the destinations that are their own next hop) are kept
//! with the table, so that a discipline choosing among them (backpressure) reads a list
//! instead of scanning a row at every pull. The by-destination layout finds them with a
//! Dijkstra from each node cut off past its costliest incoming link: no later step can
//! change a neighbour's next hop, so the lists equal the dense table's.

use crate::ids::NodeId;
use std::cmp::Reverse;
use std::collections::BinaryHeap;

/// The `next_hop` and `hops` entry of an unreachable destination.
pub const NO_ROUTE: u32 = u32::MAX;

/// Two path costs within this are equal (the tie then goes to the lower next hop).
const COST_TIE: f64 = 1e-12;

/// A link of the routing graph with its cost.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct GraphEdge {
    pub to: NodeId,
    pub cost: f64,
}

/// How the entries are laid out (see the module doc).
#[derive(Clone, Debug)]
enum Layout {
    /// `next_hop[src * n + dst]` for every pair.
    Dense,
    /// `next_hop[column[dst] * n + src]`; `column[dst] == NO_ROUTE` for a destination
    /// without a column (nothing is routed to it).
    ByDestination { column: Vec<u32> },
}

/// Next hop and path cost for (source, destination) pairs.
#[derive(Clone, Debug)]
pub struct RoutingTable {
    n: usize,
    layout: Layout,
    next_hop: Vec<u32>,
    hops: Vec<u32>,
    /// By node: the nodes its row reaches in one hop, ascending (rebuilt with the row).
    neighbours: Vec<Vec<NodeId>>,
}

/// Dijkstra's scratch by node, reset only where a search touched it.
struct Search {
    incoming: Vec<Vec<(u32, f64)>>,
    dist: Vec<f64>,
    next_hop: Vec<u32>,
    hops: Vec<u32>,
    touched: Vec<u32>,
    heap: BinaryHeap<Reverse<(OrdF64, u32)>>,
}

impl Search {
    /// To route towards d we run Dijkstra from d over incoming edges.
    fn new(graph: &[Vec<GraphEdge>]) -> Self {
        let n = graph.len();
        let mut incoming: Vec<Vec<(u32, f64)>> = vec![Vec::new(); n];
        for (u, edges) in graph.iter().enumerate() {
            for e in edges {
                debug_assert!(e.cost > 0.0 && e.cost.is_finite());
                incoming[e.to.index()].push((u as u32, e.cost));
            }
        }
        Search {
            incoming,
            dist: vec![f64::INFINITY; n],
            next_hop: vec![NO_ROUTE; n],
            hops: vec![NO_ROUTE; n],
            touched: Vec::new(),
            heap: BinaryHeap::new(),
        }
    }

    /// Every node's next hop and hop count towards `d` into the scratch, stopping at the
    /// first node farther than `bound` (all nodes with `f64::INFINITY`). What it fills
    /// is what the unbounded search has there for the nodes whose next hop is settled by
    /// then (the search is the same up to the cut).
    fn towards(&mut self, d: usize, bound: f64) {
        for &v in &self.touched {
            let v = v as usize;
            self.dist[v] = f64::INFINITY;
            self.next_hop[v] = NO_ROUTE;
            self.hops[v] = NO_ROUTE;
        }
        self.touched.clear();
        self.heap.clear();
        self.dist[d] = 0.0;
        self.hops[d] = 0;
        self.touched.push(d as u32);
        self.heap.push(Reverse((OrdF64(0.0), d as u32)));
        while let Some(Reverse((OrdF64(du), u))) = self.heap.pop() {
            if du > bound {
                break;
            }
            let u = u as usize;
            if du > self.dist[u] {
                continue;
            }
            for &(v, c) in &self.incoming[u] {
                let v = v as usize;
                let nd = du + c;
                // Strictly better, or equal cost through a lower-id next hop.
                let better = nd < self.dist[v] - COST_TIE
                    || ((nd - self.dist[v]).abs() <= COST_TIE && (u as u32) < self.next_hop[v]);
                if better {
                    if self.dist[v] == f64::INFINITY {
                        self.touched.push(v as u32);
                    }
                    self.dist[v] = nd;
                    self.next_hop[v] = u as u32;
                    self.hops[v] = self.hops[u].saturating_add(1);
                    self.heap.push(Reverse((OrdF64(nd), v as u32)));
                }
            }
        }
    }

    /// The neighbour lists of the dense table: `at` lists `j` when its next hop towards
    /// `j` is `j` itself. Only nodes with a link to `j` can, and their next hop towards
    /// `j` is settled once the search from `j` is past the costliest of those links.
    fn neighbour_lists(&mut self) -> Vec<Vec<NodeId>> {
        let n = self.incoming.len();
        let mut lists = vec![Vec::new(); n];
        for j in 0..n {
            let Some(bound) = self.incoming[j].iter().map(|e| e.1).reduce(f64::max) else {
                continue;
            };
            self.towards(j, bound + COST_TIE);
            for &(at, _) in &self.incoming[j] {
                if at as usize != j && self.next_hop[at as usize] == j as u32 {
                    lists[at as usize].push(NodeId(j as u32));
                }
            }
        }
        for list in &mut lists {
            list.dedup();
        }
        lists
    }
}

impl RoutingTable {
    /// The dense table of every pair. `graph[u]` lists u's outgoing edges. Costs must be
    /// positive and finite.
    pub fn shortest_paths(graph: &[Vec<GraphEdge>]) -> Self {
        let n = graph.len();
        let mut next_hop = vec![NO_ROUTE; n * n];
        let mut hops = vec![NO_ROUTE; n * n];
        let mut s = Search::new(graph);
        for d in 0..n {
            s.towards(d, f64::INFINITY);
            for &v in &s.touched {
                let cell = v as usize * n + d;
                next_hop[cell] = s.next_hop[v as usize];
                hops[cell] = s.hops[v as usize];
            }
        }
        let mut t = RoutingTable {
            n,
            layout: Layout::Dense,
            next_hop,
            hops,
            neighbours: vec![Vec::new(); n],
        };
        for i in 0..n as u32 {
            t.find_neighbours(NodeId(i));
        }
        t
    }

    /// The routes towards `destinations` only (the nodes a run sends packets to), equal
    /// to those of [`RoutingTable::shortest_paths`], with the same neighbour lists; a
    /// lookup towards any other destination finds no route. Time and memory: one
    /// Dijkstra and `n` entries per destination, plus a search of each node's
    /// neighbourhood for the neighbour lists.
    pub fn shortest_paths_to(graph: &[Vec<GraphEdge>], destinations: &[NodeId]) -> Self {
        let n = graph.len();
        let mut dests: Vec<NodeId> = destinations
            .iter()
            .copied()
            .filter(|d| d.index() < n)
            .collect();
        dests.sort_unstable();
        dests.dedup();
        let mut column = vec![NO_ROUTE; n];
        let mut next_hop = vec![NO_ROUTE; dests.len() * n];
        let mut hops = vec![NO_ROUTE; dests.len() * n];
        let mut s = Search::new(graph);
        for (c, d) in dests.iter().enumerate() {
            column[d.index()] = c as u32;
            s.towards(d.index(), f64::INFINITY);
            let col = c * n;
            for &v in &s.touched {
                next_hop[col + v as usize] = s.next_hop[v as usize];
                hops[col + v as usize] = s.hops[v as usize];
            }
        }
        RoutingTable {
            n,
            layout: Layout::ByDestination { column },
            next_hop,
            hops,
            neighbours: s.neighbour_lists(),
        }
    }

    /// The index of the (`at`, `dst`) entry; `None` for a destination without a column.
    #[inline]
    fn cell(&self, at: NodeId, dst: NodeId) -> Option<usize> {
        match &self.layout {
            Layout::Dense => Some(at.index() * self.n + dst.index()),
            Layout::ByDestination { column } => {
                let c = column[dst.index()];
                (c != NO_ROUTE).then(|| c as usize * self.n + at.index())
            }
        }
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

    /// The neighbour to which `at` forwards packets for `dst`; `None` if unreachable,
    /// `at == dst`, or `dst` is not among the destinations of a by-destination table.
    #[inline]
    pub fn next_hop(&self, at: NodeId, dst: NodeId) -> Option<NodeId> {
        let v = self.next_hop[self.cell(at, dst)?];
        (v != NO_ROUTE).then_some(NodeId(v))
    }

    /// Number of hops on the chosen path, `None` if unreachable (or not a destination of
    /// a by-destination table).
    pub fn hop_count(&self, src: NodeId, dst: NodeId) -> Option<u32> {
        let v = self.hops[self.cell(src, dst)?];
        (v != NO_ROUTE).then_some(v)
    }

    pub fn node_count(&self) -> usize {
        self.n
    }

    /// A dense table of `n` nodes without any route (hop count 0 to themselves).
    pub fn empty(n: usize) -> Self {
        let mut hops = vec![NO_ROUTE; n * n];
        for i in 0..n {
            hops[i * n + i] = 0;
        }
        RoutingTable {
            n,
            layout: Layout::Dense,
            next_hop: vec![NO_ROUTE; n * n],
            hops,
            neighbours: vec![Vec::new(); n],
        }
    }

    /// The next hops of `src` by destination (`NO_ROUTE` where there is none); `None`
    /// for a by-destination table, which has no rows.
    pub fn row(&self, src: NodeId) -> Option<&[u32]> {
        if !matches!(self.layout, Layout::Dense) {
            return None;
        }
        let i = src.index() * self.n;
        Some(&self.next_hop[i..i + self.n])
    }

    /// Replaces `src`'s routes in a dense table (a dynamic protocol's recalculation,
    /// e.g. OLSR's): next hop and hop count by destination, `NO_ROUTE` where there is
    /// none. Both slices hold one entry per node; returns how many next hops changed.
    /// A by-destination table becomes dense first.
    pub fn set_row(&mut self, src: NodeId, next_hop: &[u32], hops: &[u32]) -> usize {
        if !matches!(self.layout, Layout::Dense) {
            self.make_dense();
        }
        let i = src.index() * self.n;
        let row = &mut self.next_hop[i..i + self.n];
        let changed = row.iter().zip(next_hop).filter(|(a, b)| a != b).count();
        row.copy_from_slice(next_hop);
        self.hops[i..i + self.n].copy_from_slice(hops);
        self.find_neighbours(src);
        changed
    }

    /// Rewrites a by-destination table as the dense one with the same entries.
    fn make_dense(&mut self) {
        let n = self.n;
        let mut dense = RoutingTable::empty(n);
        for at in 0..n as u32 {
            for d in 0..n as u32 {
                if let Some(cell) = self.cell(NodeId(at), NodeId(d)) {
                    dense.next_hop[at as usize * n + d as usize] = self.next_hop[cell];
                    dense.hops[at as usize * n + d as usize] = self.hops[cell];
                }
            }
        }
        dense.neighbours = std::mem::take(&mut self.neighbours);
        *self = dense;
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
        assert_eq!(t.row(NodeId(0)), Some(&[NO_ROUTE, 1, 2][..]));
        assert_eq!(t.row(NodeId(1)), Some(&[NO_ROUTE; 3][..]));
        // The neighbour lists follow the rows they were rebuilt from.
        assert_eq!(t.neighbours(NodeId(0)), &[NodeId(1), NodeId(2)]);
        assert!(t.neighbours(NodeId(1)).is_empty());
        // A row naming its own node as next hop does not list it.
        t.set_row(NodeId(2), &[NO_ROUTE, 1, 2], &[2, 1, 0]);
        assert_eq!(t.neighbours(NodeId(2)), &[NodeId(1)]);
    }

    /// Every entry and neighbour list of the by-destination table equals the dense one.
    fn assert_same_as_dense(g: &[Vec<GraphEdge>], dests: &[NodeId]) {
        let dense = RoutingTable::shortest_paths(g);
        let sparse = RoutingTable::shortest_paths_to(g, dests);
        let n = g.len() as u32;
        for at in (0..n).map(NodeId) {
            for &d in dests {
                assert_eq!(
                    sparse.next_hop(at, d),
                    dense.next_hop(at, d),
                    "{at:?}->{d:?}"
                );
                assert_eq!(
                    sparse.hop_count(at, d),
                    dense.hop_count(at, d),
                    "{at:?}->{d:?}"
                );
            }
            assert_eq!(sparse.neighbours(at), dense.neighbours(at), "{at:?}");
        }
        // Destinations without a column have no route.
        for d in (0..n).map(NodeId).filter(|d| !dests.contains(d)) {
            assert!((0..n).all(|at| sparse.next_hop(NodeId(at), d).is_none()));
        }
        assert!(sparse.row(NodeId(0)).is_none());
    }

    #[test]
    fn by_destination_table_equals_the_dense_one() {
        // Chain, diamond (ties), a lossy shortcut, an isolated node.
        let chain = undirected(6, &[(0, 1, 1.0), (1, 2, 1.0), (2, 3, 1.0), (3, 4, 1.0)]);
        assert_same_as_dense(&chain, &[NodeId(4), NodeId(0)]);
        let diamond = undirected(5, &[(0, 2, 1.0), (0, 1, 1.0), (1, 3, 1.0), (2, 3, 1.0)]);
        assert_same_as_dense(&diamond, &[NodeId(3)]);
        let shortcut = undirected(3, &[(0, 2, etx(0.6, 0.6)), (0, 1, 1.0), (1, 2, 1.0)]);
        assert_same_as_dense(&shortcut, &[NodeId(2), NodeId(0)]);
        // Neighbour lists where a direct link loses to a two-hop path (ETX), or ties it.
        let tie = undirected(3, &[(0, 2, 2.0), (0, 1, 1.0), (1, 2, 1.0)]);
        let t = RoutingTable::shortest_paths_to(&tie, &[]);
        assert_eq!(t.neighbours(NodeId(0)), &[NodeId(1)], "tie goes to node 1");
        assert_same_as_dense(&tie, &[NodeId(1)]);
    }

    proptest::proptest! {
        /// Random geometric graphs with hop or random ETX costs, random destinations.
        #[test]
        fn by_destination_table_equals_the_dense_one_on_random_graphs(
            pos in proptest::collection::vec((0.0..600.0f64, 0.0..600.0f64), 2..40),
            costs in proptest::collection::vec(0u8..4, 64),
            etx_metric in proptest::bool::ANY,
            picks in proptest::collection::vec(0usize..40, 0..6),
        ) {
            let n = pos.len();
            let mut g = vec![Vec::new(); n];
            let mut k = 0;
            for a in 0..n {
                for b in a + 1..n {
                    let (dx, dy) = (pos[a].0 - pos[b].0, pos[a].1 - pos[b].1);
                    if dx.hypot(dy) <= 250.0 {
                        // Few distinct costs, so that ties are common.
                        let c = if etx_metric { 1.0 + 0.5 * costs[k % 64] as f64 } else { 1.0 };
                        k += 1;
                        g[a].push(GraphEdge { to: NodeId(b as u32), cost: c });
                        g[b].push(GraphEdge { to: NodeId(a as u32), cost: c });
                    }
                }
            }
            let dests: Vec<NodeId> = picks.iter().map(|&p| NodeId((p % n) as u32)).collect();
            assert_same_as_dense(&g, &dests);
        }
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
