//! Routing table calculation (RFC 3626 section 10) as shortest paths over what one node
//! knows: its symmetric links, its 2-hop neighbours' links and the topology set. The
//! cost of a path is its hop count or, as olsrd does with link quality, the sum of its
//! links' ETX. Ties go to the lowest next-hop id so the result is a pure function of
//! the node's state.

use super::link::{Link, Metric};
use super::topology::TopoEntry;
use crate::ids::NodeId;
use crate::net::routing::{OrdF64, NO_ROUTE};
use airqueue_kernel::Time;
use std::cmp::Reverse;
use std::collections::BinaryHeap;

/// Dijkstra's scratch, reused.
#[derive(Clone, Debug, Default)]
pub struct RouteScratch {
    dist: Vec<f64>,
    done: Vec<bool>,
    /// The symmetric neighbours of the node computing (their 2-hop sets are read).
    sym: Vec<bool>,
    heap: BinaryHeap<Reverse<(OrdF64, u32)>>,
}

/// Fills `next_hop[d]` and `hops[d]` (length n) with `me`'s route to every node `d`
/// (`NO_ROUTE` where there is none; `hops[me] = 0`) and returns the path costs in the
/// scratch (see [`RouteScratch::cost`]). `known` lists, ascending, the nodes `me` has a
/// link tuple with (the others have none). Returns until when the result holds as it is
/// without a change of state: the first expiry among the tuples it used (nothing
/// expired then becomes valid again without a message).
#[allow(clippy::too_many_arguments)]
pub fn compute(
    me: NodeId,
    metric: Metric,
    links: &[Link],
    known: &[u32],
    topo: &[TopoEntry],
    now: Time,
    s: &mut RouteScratch,
    next_hop: &mut [u32],
    hops: &mut [u32],
) -> Time {
    let n = links.len();
    s.dist.clear();
    s.dist.resize(n, f64::INFINITY);
    s.done.clear();
    s.done.resize(n, false);
    s.sym.clear();
    s.sym.resize(n, false);
    s.heap.clear();
    next_hop.iter_mut().for_each(|x| *x = NO_ROUTE);
    hops.iter_mut().for_each(|x| *x = NO_ROUTE);
    let m = me.index();
    let mut until = Time::MAX;
    s.dist[m] = 0.0;
    hops[m] = 0;
    s.heap.push(Reverse((OrdF64(0.0), me.0)));
    while let Some(Reverse((OrdF64(du), u))) = s.heap.pop() {
        let u = u as usize;
        if s.done[u] {
            continue;
        }
        s.done[u] = true;
        let relax = |v: NodeId, c: f64, s: &mut RouteScratch, nh: &mut [u32], hp: &mut [u32]| {
            let v = v.index();
            if v == m || s.done[v] || !c.is_finite() {
                return;
            }
            let nd = du + c;
            let first = if u == m { v as u32 } else { nh[u] };
            let better = nd < s.dist[v] - 1e-9 || ((nd - s.dist[v]).abs() <= 1e-9 && first < nh[v]);
            if better {
                s.dist[v] = nd;
                nh[v] = first;
                hp[v] = hp[u] + 1;
                s.heap.push(Reverse((OrdF64(nd), v as u32)));
            }
        };
        if u == m {
            for &x in known {
                let l = &links[x as usize];
                if x as usize != m && l.is_sym(now) {
                    s.sym[x as usize] = true;
                    until = until.min(l.sym_until);
                    relax(NodeId(x), l.cost(metric), s, next_hop, hops);
                }
            }
            continue;
        }
        // `two_hops(now)`: empty unless u is a symmetric neighbour.
        if s.sym[u] {
            let l = &links[u];
            if l.two_hop_until > now {
                until = until.min(l.two_hop_until);
                for &(v, c) in &l.two_hop {
                    relax(v, c, s, next_hop, hops);
                }
            }
        }
        let t = &topo[u];
        if t.valid(now) {
            until = until.min(t.until);
            for &(v, c) in t.dests(now) {
                relax(v, c, s, next_hop, hops);
            }
        }
    }
    until
}

impl RouteScratch {
    /// The cost of the last computed path to `d` (infinite if none).
    pub fn cost(&self, d: NodeId) -> f64 {
        self.dist.get(d.index()).copied().unwrap_or(f64::INFINITY)
    }
}
