//! MORE's forwarder selection and TX credits (MORE, SIGCOMM 2007, section 4.4 and its
//! Appendix A), computed once per flow before the run from the link delivery
//! probabilities.
//!
//! Forwarders are the nodes closer (ETX) to the destination than the source. From the
//! source on, `L_i` is the expected number of packets (per batch packet) node `i` hears
//! from farther nodes and no closer node hears; `i` transmits
//! `z_i = L_i / (1 - prod_{k closer} e_ik)` times (`L_src = 1`). Forwarders expected to
//! make under 10% of the transmissions are pruned and `z` recomputed, except the nodes
//! of the best single path (ours: on a long lossy path the rule alone can prune every
//! forwarder). A forwarder's TX credit is `z_j / sum_{i farther} z_i (1 - e_ij)`, its
//! transmissions per packet heard from upstream.

use crate::ids::NodeId;
use crate::net::routing::{etx, OrdF64 as Ordered};
use std::cmp::Reverse;
use std::collections::BinaryHeap;

/// MORE's pruning threshold: a forwarder must be expected to make at least this share
/// of the flow's transmissions (MORE, 4.4: 10%).
pub const PRUNE_SHARE: f64 = 0.1;

/// One forwarder of a flow.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct PlannedForwarder {
    pub node: NodeId,
    /// Expected transmissions per batch packet (`z_j`).
    pub z: f64,
    /// Transmissions per packet heard from upstream.
    pub tx_credit: f64,
}

/// The forwarding plan of one MORE flow.
#[derive(Clone, Debug, PartialEq)]
pub struct MorePlan {
    pub src: NodeId,
    pub dst: NodeId,
    /// Expected source transmissions per batch packet (`z_src`).
    pub z_src: f64,
    /// The forwarders, farthest from the destination first (excluding source and
    /// destination).
    pub forwarders: Vec<PlannedForwarder>,
    /// ETX distance of every node to the destination (`f64::INFINITY` if unreachable).
    pub etx_to_dst: Vec<f64>,
    /// For the source and each forwarder `i`: `F_ip`, the forwarders and the destination
    /// that hear `i` (seed 000, 4.2: the packet's forwarder list among i's neighbours).
    pub neighbour_forwarders: Vec<(NodeId, Vec<NodeId>)>,
}

impl MorePlan {
    /// The TX credit of `node` if it forwards for this flow.
    pub fn credit_of(&self, node: NodeId) -> Option<f64> {
        self.forwarders
            .iter()
            .find(|f| f.node == node)
            .map(|f| f.tx_credit)
    }

    /// Whether a packet sent by `from` is from upstream of `node` (farther from the
    /// destination by ETX), the only packets that earn credit (MORE, 4.2.2).
    pub fn is_upstream(&self, from: NodeId, node: NodeId) -> bool {
        self.etx_to_dst[from.index()] > self.etx_to_dst[node.index()]
    }
}

/// The plan for a flow from `src` to `dst` among `n` nodes, where `delivery(i, j)` is
/// the probability that a broadcast from `i` is decoded by `j` (0 if out of range).
/// Link ETX counts both directions, as the routing layer's ETX does.
pub fn plan(
    n: usize,
    src: NodeId,
    dst: NodeId,
    delivery: impl Fn(NodeId, NodeId) -> f64,
) -> MorePlan {
    let p = |i: usize, j: usize| {
        if i == j {
            0.0
        } else {
            delivery(NodeId(i as u32), NodeId(j as u32)).clamp(0.0, 1.0)
        }
    };
    let dist = etx_distances(n, dst.index(), &p);
    // Candidates, farthest first (ties by node id so the plan is a pure function).
    let mut order: Vec<usize> = (0..n)
        .filter(|&i| i == src.index() || (i != dst.index() && dist[i] < dist[src.index()]))
        .collect();
    order.sort_by(|&a, &b| dist[b].total_cmp(&dist[a]).then(a.cmp(&b)));
    // The source sorts first: it is the farthest of the candidates.
    if let Some(pos) = order.iter().position(|&i| i == src.index()) {
        order.remove(pos);
    }
    order.insert(0, src.index());
    order.push(dst.index());
    let mut z = transmissions(&order, &p);
    // Prune (MORE, 4.4) and recompute once without the pruned nodes; the best single
    // path stays, so the plan always reaches the destination.
    let total: f64 = z.iter().sum();
    let path = best_path(src.index(), dst.index(), &dist, &p);
    let keep: Vec<usize> = (0..order.len())
        .filter(|&k| {
            k == 0
                || k == order.len() - 1
                || z[k] >= PRUNE_SHARE * total
                || path.contains(&order[k])
        })
        .collect();
    if keep.len() < order.len() {
        order = keep.iter().map(|&k| order[k]).collect();
        z = transmissions(&order, &p);
    }
    let last = order.len() - 1;
    let forwarders: Vec<PlannedForwarder> = (1..last)
        .filter_map(|k| {
            let heard: f64 = (0..k).map(|i| z[i] * p(order[i], order[k])).sum();
            (z[k] > 0.0 && heard > 0.0).then(|| PlannedForwarder {
                node: NodeId(order[k] as u32),
                z: z[k],
                tx_credit: z[k] / heard,
            })
        })
        .collect();
    let listed: Vec<NodeId> = (forwarders.iter().map(|f: &PlannedForwarder| f.node))
        .chain(std::iter::once(dst))
        .collect();
    let neighbour_forwarders = std::iter::once(src)
        .chain(forwarders.iter().map(|f| f.node))
        .map(|i| {
            let heard = listed.iter().copied();
            let heard = heard.filter(|&j| j != i && p(i.index(), j.index()) > 0.0);
            (i, heard.collect())
        })
        .collect();
    MorePlan {
        src,
        dst,
        z_src: z[0],
        forwarders,
        etx_to_dst: dist,
        neighbour_forwarders,
    }
}

/// The nodes of the least-ETX path from `src` to `dst` (empty if there is none): from
/// `src`, each step goes to the neighbour whose link ETX plus distance matches the
/// current distance (the ties to the smaller id).
fn best_path(src: usize, dst: usize, dist: &[f64], p: &impl Fn(usize, usize) -> f64) -> Vec<usize> {
    let n = dist.len();
    let mut path = Vec::new();
    let mut at = src;
    while at != dst && dist[at].is_finite() && path.len() < n {
        path.push(at);
        let step = (0..n)
            .filter(|&v| v != at && p(at, v) > 0.0 && p(v, at) > 0.0)
            .map(|v| (dist[v] + etx(1.0 - p(at, v), 1.0 - p(v, at)), v))
            .min_by(|a, b| a.0.total_cmp(&b.0).then(a.1.cmp(&b.1)));
        match step {
            Some((_, v)) if dist[v] < dist[at] => at = v,
            _ => return Vec::new(),
        }
    }
    if at == dst {
        path.push(dst);
        path
    } else {
        Vec::new()
    }
}

/// `z` along `order` (source first, destination last; the destination's is 0).
fn transmissions(order: &[usize], p: &impl Fn(usize, usize) -> f64) -> Vec<f64> {
    let m = order.len();
    let mut z = vec![0.0; m];
    for k in 0..m - 1 {
        let i = order[k];
        // Probability that none of the nodes closer than i hears one of i's packets.
        let miss_all: f64 = order[k + 1..].iter().map(|&c| 1.0 - p(i, c)).product();
        let l = if k == 0 {
            1.0
        } else {
            (0..k)
                .map(|u| {
                    let j = order[u];
                    let none_closer: f64 = order[k + 1..].iter().map(|&c| 1.0 - p(j, c)).product();
                    z[u] * p(j, i) * none_closer
                })
                .sum()
        };
        z[k] = if miss_all < 1.0 {
            l / (1.0 - miss_all)
        } else {
            0.0
        };
    }
    z
}

/// ETX distance from every node to `dst` (Dijkstra over links with both directions'
/// delivery positive).
fn etx_distances(n: usize, dst: usize, p: &impl Fn(usize, usize) -> f64) -> Vec<f64> {
    let mut dist = vec![f64::INFINITY; n];
    let mut done = vec![false; n];
    dist[dst] = 0.0;
    let mut heap = BinaryHeap::new();
    heap.push(Reverse((Ordered(0.0), dst)));
    while let Some(Reverse((Ordered(d), v))) = heap.pop() {
        if done[v] {
            continue;
        }
        done[v] = true;
        for u in 0..n {
            let (fwd, rev) = (p(u, v), p(v, u));
            if u == v || done[u] || fwd <= 0.0 || rev <= 0.0 {
                continue;
            }
            let nd = d + etx(1.0 - fwd, 1.0 - rev);
            if nd < dist[u] {
                dist[u] = nd;
                heap.push(Reverse((Ordered(nd), u)));
            }
        }
    }
    dist
}

#[cfg(test)]
mod tests {
    use super::*;

    fn matrix(n: usize, links: &[(u32, u32, f64)]) -> impl Fn(NodeId, NodeId) -> f64 + '_ {
        let _ = n;
        move |a: NodeId, b: NodeId| {
            links
                .iter()
                .find(|(x, y, _)| {
                    (NodeId(*x), NodeId(*y)) == (a, b) || (NodeId(*y), NodeId(*x)) == (a, b)
                })
                .map_or(0.0, |l| l.2)
        }
    }

    fn close(a: f64, b: f64) -> bool {
        (a - b).abs() < 1e-9
    }

    #[test]
    fn lossy_line_by_hand() {
        // S=0 - R=1 - D=2; S->R 0.5, R->D 0.8, S->D 0.1 (symmetric).
        let links = [(0, 1, 0.5), (1, 2, 0.8), (0, 2, 0.1)];
        let plan = plan(3, NodeId(0), NodeId(2), matrix(3, &links));
        // ETX to D: R 1/0.64 = 1.5625; S direct 100, via R 4 + 1.5625.
        assert!(close(plan.etx_to_dst[1], 1.5625));
        assert!(close(plan.etx_to_dst[0], 5.5625));
        // z_S = 1 / (1 - 0.5 * 0.9) = 1 / 0.55.
        assert!(close(plan.z_src, 1.0 / 0.55));
        // L_R = z_S * 0.5 * 0.9; z_R = L_R / 0.8; credit = z_R / (z_S * 0.5) = 0.9 / 0.8.
        let r = plan.forwarders[0];
        assert_eq!(r.node, NodeId(1));
        assert!(close(r.z, 0.5 * 0.9 / 0.55 / 0.8));
        assert!(close(r.tx_credit, 0.9 / 0.8));
        assert!(plan.is_upstream(NodeId(0), NodeId(1)));
        assert!(!plan.is_upstream(NodeId(2), NodeId(1)));
    }

    #[test]
    fn diamond_by_hand_both_middle_nodes_forward() {
        // S=0 reaches A=1 and B=2 with 0.5 each; both reach D=3 with 0.8; S and D, A and
        // B do not hear each other. A and B tie on ETX; A (lower id) sorts farther.
        let links = [(0, 1, 0.5), (0, 2, 0.5), (1, 3, 0.8), (2, 3, 0.8)];
        let plan = plan(4, NodeId(0), NodeId(3), matrix(4, &links));
        // z_S = 1 / (1 - 0.5 * 0.5) = 4/3.
        assert!(close(plan.z_src, 4.0 / 3.0));
        let a = plan.forwarders[0];
        let b = plan.forwarders[1];
        assert_eq!((a.node, b.node), (NodeId(1), NodeId(2)));
        // A forwards what B missed: L_A = 4/3 * 0.5 * 0.5 = 1/3, z_A = (1/3) / 0.8.
        assert!(close(a.z, 5.0 / 12.0));
        // B forwards all it hears: L_B = 4/3 * 0.5, z_B = (2/3) / 0.8.
        assert!(close(b.z, 5.0 / 6.0));
        // Credits: z / (z_S * 0.5).
        assert!(close(a.tx_credit, 0.625));
        assert!(close(b.tx_credit, 1.25));
        // F_ip: the source is heard by A and B; A and B by the destination only.
        let f = |n: u32| {
            let e = plan
                .neighbour_forwarders
                .iter()
                .find(|(i, _)| *i == NodeId(n));
            e.unwrap().1.clone()
        };
        assert_eq!(f(0), vec![NodeId(1), NodeId(2)]);
        assert_eq!((f(1), f(2)), (vec![NodeId(3)], vec![NodeId(3)]));
    }

    /// On a loss-free line of twelve hops every node makes one transmission per packet,
    /// 1/12 of the total each, under the 10% mark: the rule alone would prune every relay
    /// and leave the destination out of reach. The best path's relays stay.
    #[test]
    fn pruning_never_cuts_the_last_path() {
        let links: Vec<(u32, u32, f64)> = (0..12).map(|i| (i, i + 1, 1.0)).collect();
        let plan = plan(13, NodeId(0), NodeId(12), matrix(13, &links));
        let relays: Vec<u32> = plan.forwarders.iter().map(|f| f.node.0).collect();
        assert_eq!(relays, (1..12).collect::<Vec<_>>(), "{plan:?}");
        assert!(plan
            .forwarders
            .iter()
            .all(|f| close(f.z, 1.0) && close(f.tx_credit, 1.0)));
    }

    #[test]
    fn rarely_useful_forwarders_are_pruned() {
        // S=0 - D=2 direct at 0.9; R=1 hears S at 0.05 and reaches D at 1.0, so it would
        // make far less than 10% of the transmissions.
        let links = [(0, 2, 0.9), (0, 1, 0.05), (1, 2, 1.0)];
        let plan = plan(3, NodeId(0), NodeId(2), matrix(3, &links));
        assert!(plan.forwarders.is_empty(), "{plan:?}");
        assert!(close(plan.z_src, 1.0 / 0.9));
        // Nodes farther than the source are never forwarders.
        let line = [(0, 1, 1.0), (1, 2, 1.0)];
        let plan = super::plan(3, NodeId(1), NodeId(2), matrix(3, &line));
        assert!(plan.forwarders.is_empty());
        assert_eq!(plan.credit_of(NodeId(0)), None);
    }
}
