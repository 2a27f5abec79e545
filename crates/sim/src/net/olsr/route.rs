//! Routing table calculation (RFC 3626 section 10) as shortest paths over what one node
//! knows: its symmetric links, its 2-hop neighbours' links and the topology set. The
//! cost of a path is its hop count or, as olsrd does with link quality, the sum of its
//! links' ETX. Ties go to the lowest next-hop id so the result is a pure function of
//! the node's state.

use super::link::{LinkSet, Metric};
use super::topology::{TcLists, TopoEntry};
use crate::ids::NodeId;
use crate::net::routing::NO_ROUTE;
use airqueue_kernel::Time;

/// Dijkstra's scratch, reused by every node's calculation.
#[derive(Clone, Debug, Default)]
pub struct RouteScratch {
    /// Per node: the best path found so far (16 bytes, four to a cache line).
    best: Vec<Best>,
    /// Per node: whether its path is final.
    done: Vec<bool>,
    /// The symmetric neighbours of the node computing (their 2-hop sets are read).
    sym: Vec<bool>,
    /// Paths to settle, by (cost, node).
    heap: BucketHeap,
}

/// The best path to one node found so far.
#[derive(Clone, Copy, Debug)]
struct Best {
    cost: f64,
    first_hop: u32,
    hops: u32,
}

impl Best {
    const NONE: Best = Best {
        cost: f64::INFINITY,
        first_hop: NO_ROUTE,
        hops: NO_ROUTE,
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
    links: &LinkSet,
    known: &[u32],
    topo: &[TopoEntry],
    lists: &TcLists,
    now: Time,
    s: &mut RouteScratch,
    next_hop: &mut [u32],
    hops: &mut [u32],
) -> Time {
    let n = links.len();
    s.best.clear();
    s.best.resize(n, Best::NONE);
    s.done.clear();
    s.done.resize(n, false);
    s.sym.clear();
    s.sym.resize(n, false);
    s.heap.clear();
    warm_up(topo, lists, now);
    let m = me.index();
    let mut until = Time::MAX;
    s.best[m].cost = 0.0;
    s.best[m].hops = 0;
    s.heap.push(0.0, me.0);
    while let Some((du, u)) = s.heap.pop() {
        let u = u as usize;
        if s.done[u] {
            continue;
        }
        s.done[u] = true;
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
            for &(v, c) in t.dests(lists, now) {
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
    // An infinite or NaN `c` is never better; the cost test goes first because it
    // refuses most offers (a settled node's path costs less than `du` plus a link).
    let b = &mut s.best[v as usize];
    let nd = du + c;
    let better = nd < b.cost - 1e-9 || ((nd - b.cost).abs() <= 1e-9 && first < b.first_hop);
    if better && !s.done[v as usize] && v as usize != me {
        b.cost = nd;
        b.first_hop = first;
        b.hops = from.hops + 1;
        s.heap.push(nd, v);
    }
}

/// The links of one node's graph that changed since its last route calculation, with
/// each destination's path cost from that calculation.
///
/// A changed link u -> v can change no route when u was unreachable, or when the path
/// through it, at the lower of its costs before and after, costs more than `MARGIN`
/// above v's path (the 1e-9 tie rule can move a path cost by far less). Such an offer
/// is either refused or overwritten before v is settled, in both graphs, so the search
/// settles every node as it did: with only such changes, the last routes stand.
#[derive(Clone, Debug, Default)]
pub struct Changes {
    /// Path cost per destination at the last calculation (empty before the first).
    settled: Vec<f64>,
    /// (from, to, cost before, cost after); an absent link costs infinity.
    links: Vec<(u32, u32, f64, f64)>,
    /// A change not recorded link by link, or too many: the next calculation runs.
    untracked: bool,
}

impl Changes {
    const MAX_LINKS: usize = 256;
    const MARGIN: f64 = 1e-4;

    /// The link `from -> to` went from cost `before` to `after`.
    #[inline]
    pub fn link(&mut self, from: u32, to: u32, before: f64, after: f64) {
        if before == after {
            return;
        }
        if self.links.len() < Self::MAX_LINKS {
            self.links.push((from, to, before, after));
        } else {
            self.untracked = true;
        }
    }

    /// The links out of `from` went from `old` to `new` (each neighbour once in each).
    pub fn links_of(&mut self, from: u32, old: &[(NodeId, f64)], new: &[(NodeId, f64)]) {
        for &(v, before) in old {
            let after = new.iter().find(|e| e.0 == v).map_or(f64::INFINITY, |e| e.1);
            self.link(from, v.0, before, after);
        }
        for &(v, after) in new {
            if !old.iter().any(|e| e.0 == v) {
                self.link(from, v.0, f64::INFINITY, after);
            }
        }
    }

    /// Something changed that is not recorded link by link.
    pub fn untracked(&mut self) {
        self.untracked = true;
    }

    pub fn clear(&mut self) {
        self.links.clear();
        self.untracked = false;
    }

    /// Takes the path costs of the calculation just made in `s`.
    pub fn settle(&mut self, s: &RouteScratch) {
        self.settled.clear();
        self.settled.extend(s.best.iter().map(|b| b.cost));
        self.clear();
    }

    /// Whether the routes of `me`'s last calculation stand (see the type's docs).
    pub fn none_can_change_routes(&self, me: NodeId) -> bool {
        if self.untracked || self.settled.is_empty() {
            return false;
        }
        self.links.iter().all(|&(u, v, before, after)| {
            let c = before.min(after);
            let du = self.settled[u as usize];
            v == me.0
                || !c.is_finite()
                || !du.is_finite()
                || du + c > self.settled[v as usize] + Self::MARGIN
        })
    }
}

/// Until when the routes of the last calculation hold, read now, when they stand: what
/// [`compute`] would return, from the same tuples (the symmetric links, the 2-hop sets
/// of reachable symmetric neighbours, the topology tuples of reachable nodes).
pub fn holds_until(
    me: NodeId,
    links: &LinkSet,
    known: &[u32],
    topo: &[TopoEntry],
    now: Time,
    changes: &Changes,
) -> Time {
    let (m, reached) = (me.index(), &changes.settled);
    let mut until = Time::MAX;
    for &x in known {
        let l = &links[x as usize];
        if x as usize != m && l.is_sym(now) {
            until = until.min(l.sym_until);
            if reached[x as usize].is_finite() && l.two_hop_until > now {
                until = until.min(l.two_hop_until);
            }
        }
    }
    for (u, t) in topo.iter().enumerate() {
        if u != m && reached[u].is_finite() && t.valid(now) {
            until = until.min(t.until);
        }
    }
    until
}

/// Reads the topology set once in id order before the search visits it in cost order:
/// a sequential pass streams the node's tuples, and both ends of each TC list (a list
/// of more than four links spans two cache lines), into the cache at memory bandwidth,
/// where the search's scattered reads would each wait for memory. It changes nothing.
#[inline]
fn warm_up(topo: &[TopoEntry], lists: &TcLists, now: Time) {
    let mut touched = 0.0;
    for t in topo {
        let d = t.dests(lists, now);
        if let (Some(&(_, a)), Some(&(_, b))) = (d.first(), d.last()) {
            touched += a + b;
        }
    }
    std::hint::black_box(touched);
}

/// A priority queue of (cost, node) that pops in (cost, node) order, as one binary heap
/// of the pairs would. Keys go into buckets a quarter of a cost unit wide (the last one
/// open-ended); a bucket is sorted once, when the search reaches it, and then read in
/// order. A link costs at least 1 under ETX and hop count, so a search never pushes into
/// the bucket it is reading; a push that does (or below it) still lands in order. A cost
/// is finite and non-negative, so its IEEE bits order as the number does.
#[derive(Clone, Debug, Default)]
struct BucketHeap {
    buckets: Vec<Bucket>,
    /// The lowest bucket that may hold keys, and one past the highest used.
    current: usize,
    used: usize,
    len: usize,
}

/// One bucket: keys `(cost bits << 32) | node`; those before `head` were popped.
#[derive(Clone, Debug, Default)]
struct Bucket {
    keys: Vec<u128>,
    head: usize,
    sorted: bool,
}

impl Bucket {
    /// Inserts `key` in order into a bucket being read.
    #[cold]
    fn insert(&mut self, key: u128) {
        let i = self.head + self.keys[self.head..].partition_point(|&k| k < key);
        self.keys.insert(i, key);
    }
}

impl BucketHeap {
    const PER_UNIT: f64 = 4.0;
    const LAST: usize = 1 << 16;

    fn clear(&mut self) {
        for b in &mut self.buckets[..self.used] {
            b.keys.clear();
            b.head = 0;
            b.sorted = false;
        }
        self.current = 0;
        self.used = 0;
        self.len = 0;
    }

    #[inline(always)]
    fn push(&mut self, cost: f64, node: u32) {
        let at = ((cost * Self::PER_UNIT) as usize).min(Self::LAST);
        if at >= self.used {
            self.grow(at);
        }
        let key = (u128::from(cost.to_bits()) << 32) | u128::from(node);
        let b = &mut self.buckets[at];
        if b.sorted {
            b.insert(key);
        } else {
            b.keys.push(key);
        }
        self.current = self.current.min(at);
        self.len += 1;
    }

    #[cold]
    fn grow(&mut self, at: usize) {
        if at >= self.buckets.len() {
            self.buckets.resize_with(at + 1, Bucket::default);
        }
        self.used = at + 1;
    }

    #[inline]
    fn pop(&mut self) -> Option<(f64, u32)> {
        if self.len == 0 {
            return None;
        }
        loop {
            let b = &mut self.buckets[self.current];
            if b.head < b.keys.len() {
                if !b.sorted {
                    b.keys[b.head..].sort_unstable();
                    b.sorted = true;
                }
                let key = b.keys[b.head];
                b.head += 1;
                self.len -= 1;
                return Some((f64::from_bits((key >> 32) as u64), key as u32));
            }
            self.current += 1;
        }
    }
}

impl RouteScratch {
    /// The cost of the last computed path to `d` (infinite if none).
    pub fn cost(&self, d: NodeId) -> f64 {
        self.best.get(d.index()).map_or(f64::INFINITY, |b| b.cost)
    }
}

#[cfg(test)]
mod tests {
    use super::BucketHeap;
    use proptest::prelude::*;
    use std::cmp::Reverse;
    use std::collections::BinaryHeap;

    proptest! {
        /// The search's use (after each pop, pushes at or above it), across bucket
        /// edges and into the open-ended last bucket, and pushes below the last pop:
        /// the bucket heap pops what one binary heap of (cost, node) pops, in order.
        #[test]
        fn pops_as_one_binary_heap_does(
            steps in proptest::collection::vec(
                proptest::collection::vec((0u32..64, 0u32..64), 0..6), 1..200),
            scale in prop_oneof![Just(1.0f64), Just(400.0), Just(40_000.0)],
            below in prop_oneof![Just(0.0f64), Just(0.5), Just(3.0)],
        ) {
            let (mut buckets, mut binary) = (BucketHeap::default(), BinaryHeap::new());
            for _round in 0..2 {
                buckets.clear();
                binary.clear();
                buckets.push(0.0, 7);
                binary.push(Reverse((0.0f64.to_bits(), 7u32)));
                let mut steps = steps.iter();
                loop {
                    let want = binary.pop().map(|Reverse((c, n))| (f64::from_bits(c), n));
                    let got = buckets.pop();
                    prop_assert_eq!(got, want);
                    let Some((cost, _)) = got else { break };
                    for &(step, node) in steps.next().map_or(&[][..], |v| &v[..]) {
                        let c = (cost + f64::from(step) / 16.0 * scale - below).max(0.0);
                        buckets.push(c, node);
                        binary.push(Reverse((c.to_bits(), node)));
                    }
                }
            }
        }
    }
}
