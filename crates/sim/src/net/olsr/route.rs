//! Routing table calculation (RFC 3626 section 10) as shortest paths over what one node
//! knows: its symmetric links, its 2-hop neighbours' links and the topology set. The
//! cost of a path is its hop count or, as olsrd does with link quality, the sum of its
//! links' ETX. Ties go to the lowest next-hop id so the result is a pure function of
//! the node's state.

use super::link::{Link, Metric};
use super::topology::TopoEntry;
use crate::ids::NodeId;
use crate::net::routing::NO_ROUTE;
use airqueue_kernel::Time;
use std::cmp::Reverse;
use std::collections::BinaryHeap;

/// Dijkstra's scratch, reused by every node's calculation.
#[derive(Clone, Debug, Default)]
pub struct RouteScratch {
    /// Per node: the best path found so far and whether it is final, side by side so
    /// that one relaxation reads one cache line.
    best: Vec<Best>,
    /// The symmetric neighbours of the node computing (their 2-hop sets are read).
    sym: Vec<bool>,
    /// Paths to settle, by (cost, node). A cost is finite and non-negative, so its IEEE
    /// bits order as the number does.
    heap: BinaryHeap<Reverse<(u64, u32)>>,
}

/// The best path to one node found so far.
#[derive(Clone, Copy, Debug)]
struct Best {
    cost: f64,
    first_hop: u32,
    hops: u32,
    done: bool,
}

impl Best {
    const NONE: Best = Best {
        cost: f64::INFINITY,
        first_hop: NO_ROUTE,
        hops: NO_ROUTE,
        done: false,
    };
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
    s.best.clear();
    s.best.resize(n, Best::NONE);
    s.sym.clear();
    s.sym.resize(n, false);
    s.heap.clear();
    warm_up(topo, now);
    let m = me.index();
    let mut until = Time::MAX;
    s.best[m].cost = 0.0;
    s.best[m].hops = 0;
    s.heap.push(Reverse((0.0f64.to_bits(), me.0)));
    while let Some(Reverse((du, u))) = s.heap.pop() {
        let (du, u) = (f64::from_bits(du), u as usize);
        if s.best[u].done {
            continue;
        }
        s.best[u].done = true;
        let from = s.best[u];
        if u == m {
            for &x in known {
                let l = &links[x as usize];
                if x as usize != m && l.is_sym(now) {
                    s.sym[x as usize] = true;
                    until = until.min(l.sym_until);
                    relax(s, m, du, x, from, l.cost(metric), x);
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
                    relax(s, m, du, v.0, from, c, from.first_hop);
                }
            }
        }
        let t = &topo[u];
        if t.valid(now) {
            until = until.min(t.until);
            for &(v, c) in t.dests(now) {
                relax(s, m, du, v.0, from, c, from.first_hop);
            }
        }
    }
    for (d, b) in s.best.iter().enumerate() {
        next_hop[d] = b.first_hop;
        hops[d] = b.hops;
    }
    until
}

/// Offers `v` the path through `from` (settled at cost `du`) over a link of cost `c`,
/// whose first hop is `first`: taken when cheaper, or as cheap (within 1e-9) through a
/// lower-id first hop.
#[inline(always)]
fn relax(s: &mut RouteScratch, me: usize, du: f64, v: u32, from: Best, c: f64, first: u32) {
    let b = &mut s.best[v as usize];
    if v as usize == me || b.done || !c.is_finite() {
        return;
    }
    let nd = du + c;
    let better = nd < b.cost - 1e-9 || ((nd - b.cost).abs() <= 1e-9 && first < b.first_hop);
    if better {
        b.cost = nd;
        b.first_hop = first;
        b.hops = from.hops + 1;
        s.heap.push(Reverse((nd.to_bits(), v)));
    }
}

/// Reads the topology set once in id order before the search visits it in cost order:
/// a sequential pass streams the node's tuples (and the TC lists they share) into the
/// cache at memory bandwidth, where the search's scattered reads would each wait for
/// memory. It changes nothing.
#[inline]
fn warm_up(topo: &[TopoEntry], now: Time) {
    let mut touched = 0.0;
    for t in topo {
        if let Some(&(_, c)) = t.dests(now).first() {
            touched += c;
        }
    }
    std::hint::black_box(touched);
}

impl RouteScratch {
    /// The cost of the last computed path to `d` (infinite if none).
    pub fn cost(&self, d: NodeId) -> f64 {
        self.best.get(d.index()).map_or(f64::INFINITY, |b| b.cost)
    }
}
