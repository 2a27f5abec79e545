//! The state machine of one OLSR node (RFC 3626): HELLO generation and link sensing
//! (6, 7), neighbour detection (8), MPR selection and MPR selectors (8.3, 8.4), TC
//! generation, processing and forwarding (3.4, 9), route calculation (10).
//!
//! The node never sees packets or the channel: the world hands it message contents and
//! sends what it generates.

use super::link::{link_cost, missed_hellos, FfLq, Link, LinkSet, LqAlgorithm, LqWindow, Metric};
use super::mpr::{self, MprScratch};
use super::route::{self, RouteScratch};
use super::topology::{Compaction, DupEntry, TcDests, TcLists, TopoEntry};
use super::wire::{dequantize, quantize, HelloLink, LinkType, NeighType, TcLink};
use super::{OlsrConfig, TcRedundancy};
use crate::ids::NodeId;
use crate::net::protocol::{ProtocolStats, StatValue};
use crate::net::routing::NO_ROUTE;
use airqueue_kernel::Time;

/// Counters of one node, and a few gauges of its final state.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct OlsrStats {
    pub hellos_sent: u64,
    pub hellos_received: u64,
    pub tcs_originated: u64,
    pub tcs_forwarded: u64,
    pub tcs_received: u64,
    /// TCs dropped as already seen (3.4 step 2).
    pub tc_duplicates: u64,
    /// TCs ignored for an older ANSN (9.5 step 2) or a non-symmetric sender (3.4 step 1).
    pub tc_ignored: u64,
    pub route_recomputations: u64,
    /// (destination) entries whose next hop changed, after the node's first table.
    pub route_changes: u64,
    /// Control packets lost: refused by a full control queue, or whose body was
    /// overwritten before they were received.
    pub control_drops: u64,
    /// At the end of the run: symmetric neighbours, MPRs, MPR selectors.
    pub sym_neighbors: u64,
    pub mprs: u64,
    pub mpr_selectors: u64,
    /// At the end: mean ETX of the symmetric links (0 without any) and lowest LQ.
    pub mean_link_etx: f64,
    pub min_lq: f64,
    /// At the end: mean ETX of the link to the next hop over the destinations routed.
    pub mean_next_hop_etx: f64,
}

impl OlsrStats {
    /// The counters, then the gauges of the final link state, by name, as the run's
    /// `routing` table has them.
    pub fn named(&self) -> [(&'static str, StatValue); 16] {
        let c = StatValue::Count;
        let r = StatValue::Real;
        [
            ("hellos_sent", c(self.hellos_sent)),
            ("hellos_received", c(self.hellos_received)),
            ("tcs_originated", c(self.tcs_originated)),
            ("tcs_forwarded", c(self.tcs_forwarded)),
            ("tcs_received", c(self.tcs_received)),
            ("tc_duplicates", c(self.tc_duplicates)),
            ("tc_ignored", c(self.tc_ignored)),
            ("route_recomputations", c(self.route_recomputations)),
            ("route_changes", c(self.route_changes)),
            ("control_drops", c(self.control_drops)),
            ("sym_neighbors", c(self.sym_neighbors)),
            ("mprs", c(self.mprs)),
            ("mpr_selectors", c(self.mpr_selectors)),
            ("mean_link_etx", r(self.mean_link_etx)),
            ("min_lq", r(self.min_lq)),
            ("mean_next_hop_etx", r(self.mean_next_hop_etx)),
        ]
    }

    /// Each node's statistics read back from a run's routing report (zero where the
    /// report has no such column).
    pub fn from_report(report: &ProtocolStats) -> Vec<OlsrStats> {
        (0..report.rows.len())
            .map(|i| {
                let c = |name| report.count(i, name).unwrap_or(0);
                let r = |name| match report.value(i, name) {
                    Some(StatValue::Real(x)) => x,
                    _ => 0.0,
                };
                OlsrStats {
                    hellos_sent: c("hellos_sent"),
                    hellos_received: c("hellos_received"),
                    tcs_originated: c("tcs_originated"),
                    tcs_forwarded: c("tcs_forwarded"),
                    tcs_received: c("tcs_received"),
                    tc_duplicates: c("tc_duplicates"),
                    tc_ignored: c("tc_ignored"),
                    route_recomputations: c("route_recomputations"),
                    route_changes: c("route_changes"),
                    control_drops: c("control_drops"),
                    sym_neighbors: c("sym_neighbors"),
                    mprs: c("mprs"),
                    mpr_selectors: c("mpr_selectors"),
                    mean_link_etx: r("mean_link_etx"),
                    min_lq: r("min_lq"),
                    mean_next_hop_etx: r("mean_next_hop_etx"),
                }
            })
            .collect()
    }

    /// The run's totals: the counters summed over the nodes; `mean_link_etx` and
    /// `mean_next_hop_etx` averaged over the nodes with symmetric neighbours, `min_lq`
    /// the lowest LQ of any symmetric link at the end (missing without any).
    pub fn totals(
        all: &[OlsrStats],
        summed: Vec<(&'static str, StatValue)>,
    ) -> Vec<(&'static str, StatValue)> {
        let linked: Vec<&OlsrStats> = all.iter().filter(|s| s.sym_neighbors > 0).collect();
        let gauge = |v: f64| match linked.is_empty() {
            true => StatValue::Missing,
            false => StatValue::Real(v),
        };
        let mean = |f: fn(&OlsrStats) -> f64| {
            gauge(linked.iter().map(|s| f(s)).sum::<f64>() / linked.len() as f64)
        };
        let min_lq = linked
            .iter()
            .map(|s| s.min_lq)
            .fold(f64::INFINITY, f64::min);
        let mut totals = summed;
        totals.push(("mean_link_etx", mean(|s| s.mean_link_etx)));
        totals.push(("mean_next_hop_etx", mean(|s| s.mean_next_hop_etx)));
        totals.push(("min_lq", gauge(min_lq)));
        totals
    }
}

/// One node's OLSR state: dense vectors by node id.
///
/// Route calculations and MPR selections cost in proportion to what changed: a
/// calculation whose inputs (symmetric links and their costs, 2-hop sets, topology
/// set) are as they were at the last one, or changed only in links no path can use,
/// none of them expired since, gives the same routes and is not run again; MPR
/// selection reruns only on changes of the link set (RFC 3626 10 recalculates
/// "whenever a change is detected"; the counters still count every recalculation due).
#[derive(Clone, Debug)]
pub struct OlsrNode {
    pub id: NodeId,
    cfg: OlsrConfig,
    links: LinkSet,
    /// The ids `links` has a tuple for (or had), ascending: loops over the link set
    /// visit only these; the other entries were never touched.
    known: Vec<u32>,
    /// Bumped by every change of what routes are computed from; `link_inputs` by those
    /// of the link set, all that MPR selection reads.
    inputs: u64,
    link_inputs: u64,
    /// The links that changed since the last route calculation, and each destination's
    /// path cost then: a calculation that none of them can change is not run.
    changes: route::Changes,
    /// `inputs` at the last route calculation and MPR selection, and until when their
    /// results hold (the first expiry among the tuples they used).
    routes_at: (u64, Time),
    mprs_at: (u64, Time),
    /// A HELLO's previous 2-hop list, to tell whether it changed (reused).
    old_two_hop: Vec<(NodeId, f64)>,
    mpr: Vec<bool>,
    topo: Vec<TopoEntry>,
    dup: Vec<DupEntry>,
    msg_seq: u16,
    hello_seq: u16,
    ansn: u16,
    /// The neighbours of the last TC, to bump the ANSN when they change (9.3).
    advertised: Vec<bool>,
    /// TCs go on until then, empty ones included, after the last MPR selector (9.3).
    advertise_until: Time,
    /// Something changed since the last route calculation.
    pub dirty: bool,
    mpr_scratch: MprScratch,
    pub stats: OlsrStats,
}

impl OlsrNode {
    pub fn new(id: NodeId, n: usize, cfg: OlsrConfig) -> Self {
        OlsrNode {
            id,
            cfg,
            links: LinkSet::new(n),
            known: Vec::new(),
            inputs: 0,
            link_inputs: 0,
            changes: route::Changes::default(),
            routes_at: (u64::MAX, Time::ZERO),
            mprs_at: (u64::MAX, Time::ZERO),
            old_two_hop: Vec::new(),
            mpr: vec![false; n],
            topo: vec![TopoEntry::default(); n],
            dup: vec![DupEntry::default(); n],
            msg_seq: 0,
            hello_seq: 0,
            ansn: 0,
            advertised: vec![false; n],
            advertise_until: Time::ZERO,
            dirty: false,
            mpr_scratch: MprScratch::default(),
            stats: OlsrStats::default(),
        }
    }

    pub fn link(&self, x: NodeId) -> &Link {
        &self.links[x.index()]
    }

    /// The LQ and NLQ of the link to `x` in use (advertised and routed on), as fractions.
    pub fn quality(&self, x: NodeId) -> (f64, f64) {
        self.links[x.index()].quality(self.cfg.lq_algorithm)
    }

    pub fn is_mpr(&self, x: NodeId) -> bool {
        self.mpr[x.index()]
    }

    pub fn topology(&self, orig: NodeId) -> &TopoEntry {
        &self.topo[orig.index()]
    }

    /// How this node prices links.
    #[inline]
    pub fn metric(&self) -> Metric {
        Metric {
            etx: self.cfg.etx,
            algorithm: self.cfg.lq_algorithm,
        }
    }

    /// The cost of `self`'s link to `x` now (infinite unless symmetric).
    pub fn link_cost(&self, x: NodeId, now: Time) -> f64 {
        let l = &self.links[x.index()];
        if !l.is_sym(now) {
            return f64::INFINITY;
        }
        l.cost(self.metric())
    }

    /// Records that `links[x]` has a tuple (kept ascending, once).
    fn know(&mut self, x: NodeId) {
        if let Err(at) = self.known.binary_search(&x.0) {
            self.known.insert(at, x.0);
        }
    }

    fn next_seq(&mut self) -> u16 {
        self.msg_seq = self.msg_seq.wrapping_add(1);
        self.msg_seq
    }

    /// Builds a HELLO (6.2) into `out`; returns its message and HELLO sequence numbers.
    pub fn hello(&mut self, now: Time, out: &mut Vec<HelloLink>) -> (u16, u16) {
        self.select_mprs(now);
        out.clear();
        for &x in &self.known {
            let (x, l) = (x as usize, &self.links[x as usize]);
            if x == self.id.index() || !l.exists(now) {
                continue;
            }
            let sym = l.is_sym(now);
            let link = if sym {
                LinkType::Sym
            } else if l.asym_until > now {
                LinkType::Asym
            } else {
                LinkType::Lost
            };
            let neigh = match (sym, self.mpr[x]) {
                (true, true) => NeighType::Mpr,
                (true, false) => NeighType::Sym,
                _ => NeighType::Not,
            };
            let (lq, nlq) = l.quality(self.cfg.lq_algorithm);
            out.push(HelloLink {
                neighbor: NodeId(x as u32),
                link,
                neigh,
                lq: quantize(lq),
                nlq: quantize(nlq),
            });
        }
        self.hello_seq = self.hello_seq.wrapping_add(1);
        self.stats.hellos_sent += 1;
        (self.next_seq(), self.hello_seq)
    }

    /// An OLSR packet with packet sequence number `seq` from neighbour `from`, before its
    /// message is processed: `etx_ff` counts it if a link to `from` exists
    /// (`default_lq_parser_ff`, run by olsrd's packet parser ahead of the messages).
    pub fn on_packet(&mut self, from: NodeId, seq: u16, now: Time) {
        if self.cfg.lq_algorithm != LqAlgorithm::EtxFf || from == self.id {
            return;
        }
        let l = &mut self.links[from.index()];
        if l.exists(now) && l.ff.on_packet(seq) {
            l.last_packet = now;
        }
    }

    /// `etx_ff`'s once-a-second timer (`default_lq_ff_timer` and
    /// `default_lq_ff_handle_lqchange`): measures every link's LQ, aged by its overdue
    /// HELLOs, and publishes the changes past the hysteresis. Returns whether anything
    /// was published (the routes are then due for a recalculation).
    pub fn lq_tick(&mut self, now: Time) -> bool {
        if self.cfg.lq_algorithm != LqAlgorithm::EtxFf {
            return false;
        }
        let h = self.cfg.hello_interval;
        let h_ms = h.as_nanos() / 1_000_000;
        let (me, m) = (self.id.index(), self.metric());
        let mut triggered = false;
        for &x in &self.known {
            let (x, l) = (x as usize, &mut self.links[x as usize]);
            if x == me || !l.exists(now) {
                continue;
            }
            let missed = missed_hellos(l.last_hello, l.last_packet, h, now);
            let missed_s = (missed as u64 * h_ms / 1000).min(u32::MAX as u64) as u32;
            l.ff.tick(missed, missed_s);
            if l.ff.relevant_change() {
                let before = l.cost(m);
                l.ff.publish();
                if l.is_sym(now) {
                    self.changes.link(me as u32, x as u32, before, l.cost(m));
                }
                triggered = true;
            }
        }
        if !triggered {
            return false;
        }
        for &x in &self.known {
            let (x, l) = (x as usize, &mut self.links[x as usize]);
            if x != me && l.exists(now) && !l.ff.perfect() && l.ff.unpublished() {
                let before = l.cost(m);
                l.ff.publish();
                if l.is_sym(now) {
                    self.changes.link(me as u32, x as u32, before, l.cost(m));
                }
            }
        }
        self.dirty = true;
        self.inputs += 1;
        self.link_inputs += 1;
        true
    }

    /// A HELLO from neighbour `from` (link sensing 7.1.1, 2-hop neighbours 8.2.1, MPR
    /// selectors 8.4.1). Validity times are this node's own hold times: every node runs
    /// the same configuration, so they equal the Vtime the message would carry.
    pub fn on_hello(&mut self, from: NodeId, hello_seq: u16, body: &[HelloLink], now: Time) {
        if from == self.id {
            return;
        }
        self.stats.hellos_received += 1;
        let hold = self.cfg.neighb_hold_time;
        let (m, window, me) = (self.metric(), self.cfg.lq_window, self.id);
        let ff = m.algorithm == LqAlgorithm::EtxFf;
        self.know(from);
        let l = &mut self.links[from.index()];
        // What routes and MPRs see of this link before, to tell whether it changed.
        let (sym_before, cost_before) = (l.is_sym(now), l.cost(m));
        let two_hop_before = sym_before && l.two_hop_until > now;
        std::mem::swap(&mut l.two_hop, &mut self.old_two_hop);
        if !l.exists(now) {
            l.lq = LqWindow::default();
            l.nlq = 0.0;
            l.ff = FfLq::default();
            l.last_packet = now;
            l.sym_until = Time::ZERO;
            l.selector_until = Time::ZERO;
            l.two_hop_until = Time::ZERO;
            l.two_hop.clear();
        }
        if ff {
            // The loss timer restarts (`olsr_received_hello_handler`).
            l.last_hello = now;
        } else {
            l.lq.on_hello(hello_seq, window);
        }
        l.asym_until = now + hold;
        let listed = body.iter().find(|e| e.neighbor == me);
        if ff {
            // `default_lq_memorize_foreign_hello_ff`: not listed reads as NLQ 0.
            l.ff.nlq = listed.map_or(0, |e| e.lq);
        }
        match listed {
            Some(e) => {
                if e.link == LinkType::Lost {
                    l.sym_until = now;
                } else {
                    l.sym_until = now + hold;
                    l.until = l.sym_until + hold;
                }
                l.nlq = dequantize(e.lq);
                // The HELLO lists the sender's current MPR set: being left out of it ends
                // the selector tuple at once rather than at MS_time.
                l.selector_until = if e.neigh == NeighType::Mpr {
                    now + hold
                } else {
                    Time::ZERO
                };
            }
            None => l.selector_until = Time::ZERO,
        }
        l.until = l.until.max(l.asym_until);
        l.two_hop.clear();
        if l.is_sym(now) {
            for e in body {
                if e.neighbor != me && e.neigh != NeighType::Not {
                    let cost = m.cost(dequantize(e.lq), dequantize(e.nlq));
                    l.two_hop.push((e.neighbor, cost));
                }
            }
            l.two_hop_until = now + hold;
        }
        let sym = l.is_sym(now);
        let changed = sym != sym_before
            || (sym
                && (l.cost(m) != cost_before || !two_hop_before || l.two_hop != self.old_two_hop));
        if changed {
            self.inputs += 1;
            self.link_inputs += 1;
            let (me, x) = (me.0, from.0);
            let before = if sym_before {
                cost_before
            } else {
                f64::INFINITY
            };
            let after = if sym { l.cost(m) } else { f64::INFINITY };
            self.changes.link(me, x, before, after);
            let old: &[(NodeId, f64)] = if two_hop_before {
                &self.old_two_hop
            } else {
                &[]
            };
            let new: &[(NodeId, f64)] = if sym { &l.two_hop } else { &[] };
            self.changes.links_of(x, old, new);
        }
        self.dirty = true;
    }

    /// Builds a TC (9.3) advertising the neighbours TC_REDUNDANCY names (15.1: the MPR
    /// selectors, with the MPRs, or every symmetric neighbour) into `out`; `None` when
    /// there is nothing to advertise. Returns the message sequence number and ANSN.
    pub fn tc(&mut self, now: Time, out: &mut Vec<TcLink>) -> Option<(u16, u16)> {
        out.clear();
        let mut changed = false;
        for &x in &self.known {
            let x = x as usize;
            let l = &self.links[x];
            let advertise = match self.cfg.tc_redundancy {
                TcRedundancy::MprSelectors => l.is_selector(now),
                TcRedundancy::SelectorsAndMprs => {
                    l.is_selector(now) || (self.mpr[x] && l.is_sym(now))
                }
                TcRedundancy::AllNeighbours => x != self.id.index() && l.is_sym(now),
            };
            changed |= advertise != self.advertised[x];
            self.advertised[x] = advertise;
            if advertise {
                let (lq, nlq) = l.quality(self.cfg.lq_algorithm);
                out.push(TcLink {
                    neighbor: NodeId(x as u32),
                    lq: quantize(lq),
                    nlq: quantize(nlq),
                });
            }
        }
        if changed {
            self.ansn = self.ansn.wrapping_add(1);
        }
        if !out.is_empty() {
            self.advertise_until = now + self.cfg.top_hold_time;
        } else if now >= self.advertise_until {
            return None;
        }
        self.stats.tcs_originated += 1;
        Some((self.next_seq(), self.ansn))
    }

    /// A TC of `orig` with sequence number `seq` and message TTL `ttl` arrived from the
    /// neighbour `from` (3.4 default forwarding, 9.5 processing). Returns whether to
    /// forward it.
    #[allow(clippy::too_many_arguments)]
    pub fn on_tc(
        &mut self,
        from: NodeId,
        orig: NodeId,
        seq: u16,
        ansn: u16,
        ttl: u8,
        dests: TcDests,
        lists: &TcLists,
        now: Time,
    ) -> bool {
        if orig == self.id {
            return false;
        }
        self.stats.tcs_received += 1;
        // 3.4 step 1: only from symmetric neighbours.
        if !self.links[from.index()].is_sym(now) {
            self.stats.tc_ignored += 1;
            return false;
        }
        let o = orig.index();
        if self.dup[o].lookup(seq, now).is_some() {
            self.stats.tc_duplicates += 1;
            return false;
        }
        let t = &mut self.topo[o];
        if t.is_stale(ansn, now) {
            self.stats.tc_ignored += 1;
        } else {
            let same = t.holds(ansn, dests, lists, now);
            if !same {
                self.changes
                    .links_of(orig.0, t.dests(lists, now), lists.get(dests));
            }
            let until = now + self.cfg.top_hold_time;
            if same {
                t.until = until;
            } else {
                t.set(ansn, dests, until);
                self.dirty = true;
                self.inputs += 1;
            }
        }
        // 3.4.1: forward if the sender selected this node as MPR and the TTL allows.
        let forward = self.links[from.index()].is_selector(now) && ttl > 1;
        self.dup[o].record(seq, forward, now + self.cfg.dup_hold_time, now);
        if forward {
            self.stats.tcs_forwarded += 1;
        }
        forward
    }

    /// Recomputes the MPR set (8.3.1) from the current neighbourhood (unless it is
    /// as at the last selection).
    pub fn select_mprs(&mut self, now: Time) {
        if self.mprs_at.0 == self.link_inputs && now < self.mprs_at.1 {
            return;
        }
        let until = mpr::select(
            self.id,
            &self.links,
            &self.known,
            now,
            &mut self.mpr_scratch,
            &mut self.mpr,
        );
        self.mprs_at = (self.link_inputs, until);
    }

    /// The routing table calculation (10) into `next_hop` and `hops` (length n), with
    /// `scratch` shared by all nodes (one warm copy rather than one cold copy per node).
    /// Returns `false`, writing nothing, when nothing it reads changed or expired since
    /// the last calculation: that one's routes stand.
    pub fn compute_routes(
        &mut self,
        now: Time,
        lists: &TcLists,
        scratch: &mut RouteScratch,
        next_hop: &mut [u32],
        hops: &mut [u32],
    ) -> bool {
        self.select_mprs(now);
        self.dirty = false;
        self.stats.route_recomputations += 1;
        if self.routes_at.0 == self.inputs && now < self.routes_at.1 {
            return false;
        }
        if now < self.routes_at.1 && self.changes.none_can_change_routes(self.id) {
            // The routes stand; only until when they hold moves (refreshed tuples).
            let until = route::holds_until(
                self.id,
                &self.links,
                &self.known,
                &self.topo,
                now,
                &self.changes,
            );
            self.changes.clear();
            self.routes_at = (self.inputs, until);
            return false;
        }
        let until = route::compute(
            self.id,
            self.metric(),
            &self.links,
            &self.known,
            &self.topo,
            lists,
            now,
            scratch,
            next_hop,
            hops,
        );
        self.changes.settle(scratch);
        self.routes_at = (self.inputs, until);
        true
    }

    /// Keeps the TC lists of this node's valid topology tuples through a compaction.
    pub fn keep_lists(&mut self, c: &mut Compaction<'_>, now: Time) {
        for t in &mut self.topo {
            t.keep(c, now);
        }
    }

    /// Forgets the last route calculation and MPR selection, so that the next ones run
    /// in full (tests compare them with the ones that are skipped).
    #[cfg(test)]
    pub(crate) fn forget_last_calculation(&mut self) {
        self.routes_at = (u64::MAX, Time::ZERO);
        self.mprs_at = (u64::MAX, Time::ZERO);
    }

    /// Fills the gauges of `stats` from the state at `now`; `next_hop` is the node's
    /// row of the routing table.
    pub fn close_stats(&mut self, now: Time, next_hop: &[u32]) {
        let me = self.id.index();
        let s = &mut self.stats;
        let (mut sum, mut count, mut min_lq) = (0.0, 0u64, f64::INFINITY);
        s.mprs = 0;
        s.mpr_selectors = 0;
        for &x in &self.known {
            let (x, l) = (x as usize, &self.links[x as usize]);
            if x == me || !l.is_sym(now) {
                continue;
            }
            let (lq, nlq) = l.quality(self.cfg.lq_algorithm);
            let c = link_cost(true, lq, nlq);
            if c.is_finite() {
                sum += c;
            }
            count += 1;
            min_lq = min_lq.min(lq);
            s.mprs += self.mpr[x] as u64;
            s.mpr_selectors += l.is_selector(now) as u64;
        }
        s.sym_neighbors = count;
        s.mean_link_etx = if count > 0 { sum / count as f64 } else { 0.0 };
        s.min_lq = if count > 0 { min_lq } else { 0.0 };
        let (mut sum, mut routed) = (0.0, 0u64);
        for (d, &nh) in next_hop.iter().enumerate() {
            if d == me || nh == NO_ROUTE {
                continue;
            }
            let (lq, nlq) = self.links[nh as usize].quality(self.cfg.lq_algorithm);
            let c = link_cost(true, lq, nlq);
            if c.is_finite() {
                sum += c;
                routed += 1;
            }
        }
        s.mean_next_hop_etx = if routed > 0 { sum / routed as f64 } else { 0.0 };
    }
}

/// Puts every node in the state the idle network converges to (the warm start):
/// `graph[i]` lists i's neighbours j with the delivery ratio of j's frames at i. Links
/// become symmetric with LQ windows filled at those ratios, MPRs are selected and every
/// node learns every TC, as if HELLOs and TCs had been exchanged without loss. Routes
/// are then computed by the caller.
pub fn warm_start(
    nodes: &mut [OlsrNode],
    graph: &[Vec<(NodeId, f64)>],
    lists: &mut TcLists,
    now: Time,
) {
    let n = nodes.len().min(graph.len());
    let nodes = &mut nodes[..n];
    let delivery = |at: usize, from: NodeId| {
        graph[at]
            .iter()
            .find(|(j, _)| *j == from)
            .map_or(0.0, |e| e.1)
    };
    for (i, node) in nodes.iter_mut().enumerate() {
        let cfg = node.cfg;
        // Delivery ratios outside [0, 1] (not a probability) count as 0 and 1.
        let hold = cfg.neighb_hold_time;
        for &(j, ratio) in &graph[i] {
            if j.index() == i || j.index() >= n {
                continue;
            }
            let back = delivery(j.index(), NodeId(i as u32)).clamp(0.0, 1.0);
            let ratio = ratio.clamp(0.0, 1.0);
            let w = cfg.lq_window;
            let (fwd, rev) = (
                (ratio * w as f64).round() as u32,
                (back * w as f64).round() as u32,
            );
            if fwd == 0 || rev == 0 {
                continue; // no HELLO would get through: no link
            }
            node.know(j);
            let l = &mut node.links[j.index()];
            l.lq = LqWindow::filled(fwd, w);
            // What j would report: its window of i's HELLOs, quantised as on the air.
            let j_lq = LqWindow::filled(rev, w).lq();
            l.nlq = dequantize(quantize(j_lq));
            // etx_ff: full windows at the two ratios, published.
            l.ff = FfLq::filled(ratio, FfLq::filled(back, 0).lq);
            l.last_hello = now;
            l.last_packet = now;
            l.asym_until = now + hold;
            l.sym_until = now + hold;
            l.until = now + hold + hold;
        }
    }
    // 2-hop sets from the neighbours' would-be HELLOs.
    for i in 0..n {
        let now_hold = now + nodes[i].cfg.neighb_hold_time;
        for k in 0..graph[i].len() {
            let j = graph[i][k].0.index();
            if j == i || j >= n || !nodes[i].links[j].is_sym(now) {
                continue;
            }
            let mut list = std::mem::take(&mut nodes[i].links[j].two_hop);
            list.clear();
            for &(y, _) in &graph[j] {
                if y.index() != i && y.index() < n && nodes[j].links[y.index()].is_sym(now) {
                    let l = &nodes[j].links[y.index()];
                    let (lq, nlq) = l.quality(nodes[j].cfg.lq_algorithm);
                    let (lq, nlq) = (dequantize(quantize(lq)), dequantize(quantize(nlq)));
                    list.push((y, nodes[i].metric().cost(lq, nlq)));
                }
            }
            nodes[i].links[j].two_hop = list;
            nodes[i].links[j].two_hop_until = now_hold;
        }
    }
    for node in nodes.iter_mut() {
        node.select_mprs(now);
    }
    for i in 0..n {
        for m in 0..n {
            if nodes[i].mpr[m] {
                let hold = nodes[m].cfg.neighb_hold_time;
                nodes[m].links[i].selector_until = now + hold;
            }
        }
    }
    let mut body = Vec::new();
    for o in 0..n {
        let Some((_, ansn)) = nodes[o].tc(now, &mut body) else {
            continue;
        };
        nodes[o].stats.tcs_originated = 0;
        nodes[o].msg_seq = 0;
        // One list for every node that prices links as the originator does.
        let (m_orig, shared) = (nodes[o].metric(), lists.add(nodes[o].metric(), &body));
        for (i, node) in nodes.iter_mut().enumerate() {
            if i == o {
                continue;
            }
            let m = node.metric();
            let dests = if m == m_orig {
                shared
            } else {
                lists.add(m, &body)
            };
            node.topo[o].set(ansn, dests, now + node.cfg.top_hold_time);
        }
    }
    for node in nodes.iter_mut() {
        node.inputs += 1;
        node.link_inputs += 1;
        node.changes.untracked();
    }
}
