//! DiffQ's per-destination queues and differential-backlog scheduler (seed 000, section
//! 4.1 "Forwarder Algorithm" and 5.4).
//!
//! One FIFO per destination; neighbours' queue sizes come from the `qlen` piggybacked on
//! every DiffQ frame decoded or overheard. The scheduler picks the destination with the
//! largest `QD(d) = |Q_i(d)| - |Q_j(d)|` (`j` the next hop, 0 at the destination, eq. 1;
//! ties at random) and sends its head at MAC level `max(ceil(QD / (D / levels)), 0)`,
//! clipped (line 7). Traffic without a DiffQ header waits in its own FIFO at level 0
//! (5.5). A multi-path flow (4.2, DiffQ-MORE; `set_multipath`) takes the minimum over its
//! forwarders among the neighbours (eq. 2). Section 6.4's ablations are the switches
//! `scheduling` (round robin when off) and `mac_priority` (level 0 when off). `select`
//! reads line 5 as written (argmax of `QD`, the default) or as section 4.1's prose has
//! it: the head packet of the highest quantised priority, ties broken at random.
//!
//! Its keys: `per_dest_capacity` in `[queue]`, the two switches and `select` in
//! `[diffq]`, the table it shares with its sources' rate control (`transport/diffq.rs`).

use super::registry::{Key, KeyValue, Params, Problem, RegisteredQdisc, Scheme, Setting};
use super::reports::NeighbourReports;
use super::{Dequeued, Qdisc, QueueCounters, QueueDiscipline, Queued, RelayOverflow, Routes};
use crate::ids::{FlowId, NodeId};
use crate::net::{DropReason, Packet};
use airqueue_kernel::{RngStream, Time};
use std::collections::VecDeque;

/// What a node believes about a neighbour's queue for a destination, next to the truth
/// ([`DiffQ::view_of`]; for tests and traces: the model itself never reads another
/// node's memory).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct DiffqView {
    /// The last qlen the node decoded from the neighbour for the destination; 0 before
    /// any report, and always 0 when the neighbour is the destination (eq. 1).
    pub believed: u32,
    /// The neighbour's queue for the destination now.
    pub actual: u32,
}

/// `queue.kind = "diffq"`. Meant for the 802.11 medium, where a node's one instance sees
/// every destination and hears its neighbours' reports (the scenario reader refuses it
/// elsewhere). On a wired link each direction gets its own instance, which hears only
/// the reports carried by packets arriving over the reverse direction, so its
/// differential there is mostly its own backlog.
pub static SCHEME: Scheme = Scheme {
    name: "diffq",
    summary: "DiffQ's per-destination queues and differential-backlog scheduling (seed 000)",
    // ns-2's interface queue, here the node buffer over all destinations.
    default_capacity_pkts: 50,
    keys: &[Key {
        name: "per_dest_capacity",
        doc: "D, the limit of one destination queue, packets, at most capacity; default 40",
        value: KeyValue::Packets {
            default: Some(DiffQConfig::PER_DEST_CAPACITY_PKTS),
        },
    }],
    table_keys: &[
        Key {
            name: "scheduling",
            doc: "differential-backlog choice of destination; false: round robin (seed 000, \
                  6.4); default true",
            value: KeyValue::Bool { default: true },
        },
        Key {
            name: "mac_priority",
            doc: "EDCA level from the differential; false: level 0 for all (seed 000, 6.4); \
                  default true",
            value: KeyValue::Bool { default: true },
        },
        Key {
            name: "select",
            doc: "what the scheduler compares: \"differential\" (default, the largest QD, \
                  the Forwarder Algorithm's line 5) or \"level\" (the highest quantised \
                  priority, ties at random, as section 4.1's prose says)",
            value: KeyValue::Choice {
                default: "differential",
                names: &["differential", "level"],
            },
        },
    ],
    moves_packets_on_link_break: false,
    refuses_saturating_source: false,
    runs_at_access_point: false,
    check,
    build: |p, ctx| -> Qdisc {
        let cfg = DiffQConfig::from_params(p, ctx.mac_levels);
        Box::new(DiffQ::new(cfg, ctx.node, ctx.node_count, ctx.rng.clone()))
    },
};

/// `per_dest_capacity <= capacity`.
fn check(p: &mut Params, setting: &Setting) -> Vec<Problem> {
    let per_dest = p.packets("per_dest_capacity");
    match (setting.capacity_pkts, per_dest) {
        (Some(c), Some(d)) if d > c => vec![Problem::new(
            "per_dest_capacity",
            format!("must be at most capacity ({c} packets), got {d}"),
        )],
        _ => Vec::new(),
    }
}

/// DiffQ on a node buffer of `capacity_pkts` with `D = per_dest_capacity_pkts`, both
/// switches on.
pub fn config(capacity_pkts: u32, per_dest_capacity_pkts: u32) -> RegisteredQdisc {
    let mut params = Params::defaults(&SCHEME);
    params.capacity_pkts = capacity_pkts;
    params.set("per_dest_capacity", f64::from(per_dest_capacity_pkts));
    RegisteredQdisc {
        scheme: &SCHEME,
        params,
    }
}

/// Settings of the DiffQ queue discipline.
#[derive(Clone, Debug, PartialEq)]
pub struct DiffQConfig {
    /// Node buffer over all destinations, packets.
    pub capacity_pkts: u32,
    /// `D`: maximum size of one destination queue, packets.
    pub per_dest_capacity: u32,
    /// MAC priority levels available (8 with the `diffq8` EDCA table).
    pub levels: u8,
    /// Differential-backlog scheduling; `false` = round robin over destinations.
    pub scheduling: bool,
    /// Priority from the differential; `false` = everything at level 0.
    pub mac_priority: bool,
    /// Compare quantised priorities (`select = "level"`) instead of differentials.
    pub select_by_level: bool,
}

impl DiffQConfig {
    /// Default `D`, packets.
    pub const PER_DEST_CAPACITY_PKTS: u32 = 40;

    /// From its scheme's keys, with one priority level per level of the MAC (8 under
    /// the `diffq8` EDCA table).
    pub fn from_params(p: &Params, mac_levels: usize) -> Self {
        DiffQConfig {
            capacity_pkts: p.capacity_pkts,
            per_dest_capacity: p.integer("per_dest_capacity") as u32,
            levels: mac_levels.min(usize::from(u8::MAX)) as u8,
            scheduling: p.flag("scheduling"),
            mac_priority: p.flag("mac_priority"),
            select_by_level: p.choice("select") == Some("level"),
        }
    }
}

/// What the scheduler chose, before the packet leaves the queue.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Choice {
    pub dst: NodeId,
    pub differential: i64,
    pub level: u8,
}

/// The DiffQ queue discipline of one node.
#[derive(Clone, Debug)]
pub struct DiffQ {
    cfg: DiffQConfig,
    node: NodeId,
    /// Dense by destination id; an empty queue is a queue that does not exist.
    dests: Vec<VecDeque<Queued>>,
    /// Destinations with packets, in the order their queues appeared.
    active: Vec<NodeId>,
    /// Packets that carry no DiffQ header.
    legacy: VecDeque<Queued>,
    total: usize,
    /// Last reported queue size of (neighbour, destination).
    reported: NeighbourReports<u32>,
    /// Round-robin position (ablation) and legacy/DiffQ alternation.
    rr_next: usize,
    legacy_turn: bool,
    rng: RngStream,
    counters: QueueCounters,
    /// `F_ip` of each multi-path flow through this node (section 4.2).
    multipath: Vec<(FlowId, Vec<NodeId>)>,
}

impl DiffQ {
    pub fn new(cfg: DiffQConfig, node: NodeId, node_count: usize, rng: RngStream) -> Self {
        DiffQ {
            cfg,
            node,
            dests: (0..node_count).map(|_| VecDeque::new()).collect(),
            active: Vec::new(),
            legacy: VecDeque::new(),
            total: 0,
            reported: NeighbourReports::new(node_count),
            rr_next: 0,
            legacy_turn: false,
            rng,
            counters: QueueCounters::default(),
            multipath: Vec::new(),
        }
    }

    pub fn config(&self) -> &DiffQConfig {
        &self.cfg
    }

    /// `|Q_i(d)|`: this node's queue for destination `d`.
    pub fn queue_len(&self, d: NodeId) -> usize {
        self.dests.get(d.index()).map_or(0, VecDeque::len)
    }

    /// `|Q_j(d)|` as last reported by neighbour `j`; zero when `j` is `d` (eq. 1) or
    /// nothing has been heard yet.
    pub fn neighbour_len(&self, j: NodeId, d: NodeId) -> u32 {
        if j == d {
            return 0;
        }
        self.reported.get(j, d).unwrap_or(0)
    }

    /// What this node believes `neighbour`'s queue for `d` holds, next to what it holds
    /// (`neighbour`: that node's discipline).
    pub fn view_of(&self, neighbour: &DiffQ, d: NodeId) -> DiffqView {
        DiffqView {
            believed: self.neighbour_len(neighbour.node, d),
            actual: neighbour.queue_len(d) as u32,
        }
    }

    /// Records a queue report piggybacked on a frame from `from` for destination `d`.
    pub fn on_report(&mut self, from: NodeId, d: NodeId, qlen: u32) {
        self.reported.insert(from, d, qlen);
    }

    /// Whether a packet towards `d` (`diffq`: it carries a DiffQ header) would be accepted.
    pub fn has_room_for(&self, d: NodeId, diffq: bool) -> bool {
        self.total < self.cfg.capacity_pkts as usize
            && (!diffq || self.queue_len(d) < self.cfg.per_dest_capacity as usize)
    }

    /// Accepts a packet into its destination queue (`diffq`) or the legacy FIFO.
    pub fn enqueue(&mut self, q: Queued, diffq: bool) -> Result<(), (Queued, DropReason)> {
        self.counters.received += 1;
        let d = q.pkt.dst;
        if !self.has_room_for(d, diffq) {
            self.counters.dropped += 1;
            return Err((q, DropReason::QueueOverflow));
        }
        self.counters.enqueued += 1;
        self.total += 1;
        if diffq {
            let queue = &mut self.dests[d.index()];
            if queue.is_empty() {
                self.active.push(d);
            }
            queue.push_back(q);
        } else {
            self.legacy.push_back(q);
        }
        Ok(())
    }

    /// `QD(d)` with `next_hop` from the routing layer.
    pub fn differential(&self, d: NodeId, next_hop: Option<NodeId>) -> i64 {
        let mine = self.queue_len(d) as i64;
        match next_hop {
            Some(j) => mine - self.neighbour_len(j, d) as i64,
            None => mine,
        }
    }

    /// Registers `forwarders` as `F_ip` of multi-path flow `flow` at this node.
    pub fn set_multipath(&mut self, flow: FlowId, forwarders: Vec<NodeId>) {
        self.multipath.retain(|(f, _)| *f != flow);
        self.multipath.push((flow, forwarders));
    }

    /// `QD(d)` for scheduling: eq. (2) when the head packet for `d` is of a multi-path
    /// flow, else eq. (1) with the routing next hop.
    fn scheduling_differential(&self, d: NodeId, next_hop: Option<NodeId>) -> i64 {
        let head = self.dests.get(d.index()).and_then(|q| q.front());
        let list = head.and_then(|q| {
            let flow = q.pkt.flow;
            self.multipath.iter().find(|(f, _)| *f == flow)
        });
        match list {
            Some((_, fwd)) => {
                let most = fwd.iter().map(|&j| self.neighbour_len(j, d)).max();
                self.queue_len(d) as i64 - most.unwrap_or(0) as i64
            }
            None => self.differential(d, next_hop),
        }
    }

    /// Quantises a differential into a MAC level: `max(ceil(QD / (D / levels)), 0)`, clipped
    /// to `levels - 1`.
    pub fn level_for(&self, qd: i64) -> u8 {
        if !self.cfg.mac_priority {
            return 0;
        }
        self.priority_of(qd)
    }

    /// Line 7's priority of a head packet whose destination has differential `qd`.
    fn priority_of(&self, qd: i64) -> u8 {
        if qd <= 0 || self.cfg.levels <= 1 {
            return 0;
        }
        // ceil(qd * levels / D) in integers.
        let d = self.cfg.per_dest_capacity.max(1) as i64;
        let l = (qd * self.cfg.levels as i64 + d - 1) / d;
        l.clamp(0, self.cfg.levels as i64 - 1) as u8
    }

    /// Picks the destination to serve next (line 5 of the Forwarder Algorithm).
    pub fn choose(&mut self, next_hop: impl Fn(NodeId) -> Option<NodeId>) -> Option<Choice> {
        if self.active.is_empty() {
            return None;
        }
        let idx = if self.cfg.scheduling {
            let mut best = i64::MIN;
            let mut ties = 0u32;
            let mut pick = 0usize;
            for (i, &d) in self.active.iter().enumerate() {
                let mut qd = self.scheduling_differential(d, next_hop(d));
                if self.cfg.select_by_level {
                    qd = i64::from(self.priority_of(qd));
                }
                if qd > best {
                    best = qd;
                    ties = 1;
                    pick = i;
                } else if qd == best {
                    // Reservoir sampling: each tied destination ends up chosen with equal
                    // probability, in one pass and without a buffer.
                    ties += 1;
                    if self.rng.below_inclusive(ties - 1) == 0 {
                        pick = i;
                    }
                }
            }
            pick
        } else {
            self.rr_next % self.active.len()
        };
        let dst = self.active[idx];
        let qd = self.scheduling_differential(dst, next_hop(dst));
        Some(Choice {
            dst,
            differential: qd,
            level: self.level_for(qd),
        })
    }

    /// Hands the next packet to the MAC. The returned `qlen` is `|Q_i(F)|` at scheduling
    /// time (the head packet still counted), which the caller writes into the packet's
    /// DiffQ header. Legacy and DiffQ traffic take turns when both wait.
    pub fn dequeue(
        &mut self,
        next_hop: impl Fn(NodeId) -> Option<NodeId>,
    ) -> Option<(Dequeued, u32)> {
        let serve_legacy = !self.legacy.is_empty() && (self.legacy_turn || self.active.is_empty());
        if serve_legacy {
            self.legacy_turn = false;
            let q = self.legacy.pop_front()?;
            self.total -= 1;
            self.counters.dequeued += 1;
            return Some((
                Dequeued {
                    pkt: q.pkt,
                    next_hop: q.next_hop,
                    priority: 0,
                },
                0,
            ));
        }
        let choice = self.choose(&next_hop)?;
        self.legacy_turn = true;
        let queue = &mut self.dests[choice.dst.index()];
        let qlen = queue.len() as u32;
        let q = queue.pop_front().expect("active destinations have packets");
        if queue.is_empty() {
            let pos = self
                .active
                .iter()
                .position(|d| *d == choice.dst)
                .expect("listed as active");
            self.active.remove(pos);
            // Keep the round robin on the destination that followed the removed one.
            if pos < self.rr_next {
                self.rr_next -= 1;
            }
        } else if !self.cfg.scheduling {
            self.rr_next += 1;
        }
        if !self.active.is_empty() {
            self.rr_next %= self.active.len();
        } else {
            self.rr_next = 0;
        }
        self.total -= 1;
        self.counters.dequeued += 1;
        Some((
            Dequeued {
                pkt: q.pkt,
                next_hop: q.next_hop,
                priority: choice.level,
            },
            qlen,
        ))
    }

    pub fn len(&self) -> usize {
        self.total
    }

    pub fn is_empty(&self) -> bool {
        self.total == 0
    }

    pub fn counters(&self) -> QueueCounters {
        self.counters
    }

    pub fn node(&self) -> NodeId {
        self.node
    }

    /// Every packet held (end-of-run accounting).
    pub fn iter(&self) -> impl Iterator<Item = &Queued> {
        self.legacy
            .iter()
            .chain(self.dests.iter().flat_map(|q| q.iter()))
    }
}

impl QueueDiscipline for DiffQ {
    /// Packets with a DiffQ header go to their destination queue, others to the legacy
    /// FIFO.
    fn enqueue(&mut self, q: Queued, _now: Time) -> Result<(), (Queued, DropReason)> {
        let diffq = q.pkt.diffq.is_some();
        DiffQ::enqueue(self, q, diffq)
    }
    /// Writes `|Q_i(F)|` at scheduling time into the packet's DiffQ header (Forwarder
    /// Algorithm line 7, `P.qlen <- |Q_i(F)|`).
    fn dequeue(&mut self, routes: &dyn Routes, _now: Time) -> Option<Dequeued> {
        let node = self.node();
        let (mut out, qlen) = DiffQ::dequeue(self, |dst| routes.next_hop(node, dst))?;
        if let Some(h) = &mut out.pkt.diffq {
            h.qlen = qlen.min(u16::MAX as u32) as u16;
        }
        Some(out)
    }
    fn len(&self) -> usize {
        DiffQ::len(self)
    }
    fn has_room(&self, _src: NodeId, dst: NodeId, _next_hop: NodeId, diffq: bool) -> bool {
        self.has_room_for(dst, diffq)
    }
    fn counters(&self) -> QueueCounters {
        DiffQ::counters(self)
    }
    /// The report is the `qlen` of the packet's DiffQ header, for its destination.
    fn on_report(&mut self, from: NodeId, pkt: &Packet, _now: Time) -> bool {
        if let Some(h) = pkt.diffq {
            DiffQ::on_report(self, from, pkt.dst, h.qlen as u32);
        }
        false
    }
    fn queue_len_for(&self, dst: NodeId) -> usize {
        self.queue_len(dst)
    }
    fn neighbour_len(&self, j: NodeId, dst: NodeId) -> Option<u32> {
        Some(DiffQ::neighbour_len(self, j, dst))
    }
    fn set_multipath(&mut self, flow: FlowId, forwarders: Vec<NodeId>) {
        DiffQ::set_multipath(self, flow, forwarders)
    }

    /// Seed 000, 6.4's ablation diagnostic: the sender's differential from the `qlen`
    /// the packet carries less what its table holds for this relay, the relay's own
    /// towards its next hop, and how stale the sender's table was.
    fn relay_overflow(
        &self,
        sender: &dyn QueueDiscipline,
        pkt: &Packet,
        routes: &dyn Routes,
    ) -> Option<RelayOverflow> {
        let h = pkt.diffq?;
        let tx = sender.downcast_ref::<DiffQ>()?;
        let next_hop = routes.next_hop(self.node, pkt.dst);
        let believed = tx.neighbour_len(self.node, pkt.dst) as i64;
        Some(RelayOverflow {
            sender_level: tx.level_for(h.qlen as i64 - believed),
            receiver_level: self.level_for(self.differential(pkt.dst, next_hop)),
            stale_by: self.queue_len(pkt.dst) as i64 - believed,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ids::FlowId;
    use crate::net::{Packet, TransportHeader};
    use airqueue_kernel::{StreamKey, Time};

    fn cfg() -> DiffQConfig {
        DiffQConfig {
            capacity_pkts: 100,
            per_dest_capacity: 40,
            levels: 8,
            scheduling: true,
            mac_priority: true,
            select_by_level: false,
        }
    }

    fn diffq(node: u32) -> DiffQ {
        DiffQ::new(
            cfg(),
            NodeId(node),
            10,
            RngStream::new(StreamKey::new(1, node, "qdisc.diffq")),
        )
    }

    fn pkt(dst: u32, seq: u64) -> Queued {
        Queued {
            pkt: Packet {
                uid: seq,
                flow: FlowId(0),
                src: NodeId(0),
                dst: NodeId(dst),
                seq,
                payload_bytes: 1400,
                transport: TransportHeader::Udp,
                ttl: 64,
                priority: 0,
                created: Time::ZERO,
                diffq: None,
                report: None,
            },
            next_hop: NodeId(dst),
            prev_hop: NodeId(0),
        }
    }

    /// Node 1 routes to every destination through neighbour 2, except to 2 itself.
    fn via2(d: NodeId) -> Option<NodeId> {
        Some(NodeId(2)).filter(|_| d != NodeId(1)).or(Some(d))
    }

    #[test]
    fn the_scheme_reads_its_keys_and_takes_one_level_per_mac_level() {
        let mut p = config(100, 30).params;
        p.set("scheduling", 0.0);
        let want = DiffQConfig {
            capacity_pkts: 100,
            per_dest_capacity: 30,
            levels: 8,
            scheduling: false,
            mac_priority: true,
            select_by_level: false,
        };
        assert_eq!(DiffQConfig::from_params(&p, 8), want);
        p.set_choice("select", "level");
        assert!(DiffQConfig::from_params(&p, 8).select_by_level);
        let defaults = Params::defaults(&SCHEME);
        assert_eq!(
            DiffQConfig::from_params(&defaults, 1),
            DiffQConfig {
                capacity_pkts: 50,
                per_dest_capacity: 40,
                levels: 1,
                scheduling: true,
                mac_priority: true,
                select_by_level: false,
            }
        );
        let setting = |c| Setting {
            capacity_pkts: Some(c),
            rate_bps: None,
        };
        assert!(check(&mut p, &setting(30)).is_empty());
        let problems = check(&mut p, &setting(29));
        assert_eq!(problems[0].key, "per_dest_capacity");
        assert_eq!(
            problems[0].message,
            "must be at most capacity (29 packets), got 30"
        );
    }

    #[test]
    fn differential_subtracts_the_next_hops_report_and_is_own_length_towards_the_destination() {
        let mut q = diffq(1);
        for s in 0..10 {
            q.enqueue(pkt(5, s), true).unwrap();
        }
        for s in 0..4 {
            q.enqueue(pkt(2, s), true).unwrap();
        }
        q.on_report(NodeId(2), NodeId(5), 7);
        // Report from 2 about destination 2 itself is ignored: the next hop is the destination.
        q.on_report(NodeId(2), NodeId(2), 30);
        assert_eq!(q.differential(NodeId(5), via2(NodeId(5))), 3);
        assert_eq!(q.differential(NodeId(2), via2(NodeId(2))), 4);
        // Unheard neighbours count as empty.
        assert_eq!(q.differential(NodeId(5), Some(NodeId(9))), 10);
    }

    #[test]
    fn quantisation_follows_the_paper() {
        let q = diffq(1); // D = 40, 8 levels: one level per 5 packets of differential
        let levels: Vec<u8> = [-3, 0, 1, 5, 6, 10, 11, 34, 35, 36, 40, 80]
            .iter()
            .map(|&qd| q.level_for(qd))
            .collect();
        assert_eq!(levels, vec![0, 0, 1, 1, 2, 2, 3, 7, 7, 7, 7, 7]);
        let mut flat = cfg();
        flat.mac_priority = false;
        let q = DiffQ::new(
            flat,
            NodeId(1),
            10,
            RngStream::new(StreamKey::new(1, 1, "x")),
        );
        assert_eq!(q.level_for(40), 0);
    }

    #[test]
    fn scheduler_serves_the_largest_differential_and_reports_its_queue_length() {
        let mut q = diffq(1);
        for s in 0..6 {
            q.enqueue(pkt(5, s), true).unwrap();
        }
        for s in 0..3 {
            q.enqueue(pkt(6, 100 + s), true).unwrap();
        }
        q.on_report(NodeId(2), NodeId(5), 6); // QD(5) = 0
        let (d, qlen) = q.dequeue(via2).unwrap();
        assert_eq!(d.pkt.dst, NodeId(6), "QD(6) = 3 beats QD(5) = 0");
        assert_eq!(qlen, 3);
        assert_eq!(d.priority, 1); // ceil(3 / 5)
        assert_eq!(d.pkt.seq, 100, "FIFO within a destination");
    }

    #[test]
    fn ties_are_broken_at_random_but_reproducibly() {
        let picks = |seed: u64| {
            let mut q = DiffQ::new(
                cfg(),
                NodeId(1),
                10,
                RngStream::new(StreamKey::new(seed, 1, "qdisc.diffq")),
            );
            let mut out = vec![];
            for round in 0..40 {
                for d in [5, 6, 7] {
                    q.enqueue(pkt(d, round), true).unwrap();
                }
                out.push(q.dequeue(via2).unwrap().0.pkt.dst.0);
                // Bring the three queues back to equal length.
                while !q.is_empty() {
                    q.dequeue(via2);
                }
            }
            out
        };
        let a = picks(1);
        assert_eq!(a, picks(1));
        for d in [5, 6, 7] {
            let n = a.iter().filter(|x| **x == d).count();
            assert!(n >= 5, "destination {d} chosen {n} of 40 times: {a:?}");
        }
    }

    /// Section 4.1's prose: among head packets of one quantised priority the choice is at
    /// random, so a differential of 5 no longer always beats one of 1 (both level 1),
    /// while level 2 (a differential of 6) still beats both.
    #[test]
    fn selecting_by_level_ties_the_differentials_of_one_level() {
        let picks = |by_level: bool, own: [u64; 3]| {
            let mut c = cfg();
            c.select_by_level = by_level;
            let mut q = DiffQ::new(
                c,
                NodeId(1),
                10,
                RngStream::new(StreamKey::new(3, 1, "qdisc.diffq")),
            );
            let mut out = vec![];
            for round in 0..40 {
                for (d, n) in [5, 6, 7].into_iter().zip(own) {
                    for s in 0..n {
                        q.enqueue(pkt(d, round * 100 + s), true).unwrap();
                    }
                }
                out.push(q.dequeue(via2).unwrap().0.pkt.dst.0);
                while !q.is_empty() {
                    q.dequeue(via2);
                }
            }
            out
        };
        let count = |v: &[u32], d: u32| v.iter().filter(|x| **x == d).count();
        let by_qd = picks(false, [5, 1, 0]);
        assert_eq!(count(&by_qd, 5), 40, "{by_qd:?}");
        let by_level = picks(true, [5, 1, 0]);
        assert!(
            count(&by_level, 5) >= 10 && count(&by_level, 6) >= 10,
            "{by_level:?}"
        );
        assert_eq!(count(&by_level, 7), 0, "an empty queue is never chosen");
        let higher = picks(true, [5, 1, 6]);
        assert_eq!(count(&higher, 7), 40, "{higher:?}");
    }

    #[test]
    fn round_robin_ablation_rotates_destinations() {
        let mut c = cfg();
        c.scheduling = false;
        let mut q = DiffQ::new(c, NodeId(1), 10, RngStream::new(StreamKey::new(1, 1, "x")));
        for s in 0..3 {
            q.enqueue(pkt(5, s), true).unwrap();
            q.enqueue(pkt(6, s), true).unwrap();
        }
        q.on_report(NodeId(2), NodeId(6), 0);
        q.on_report(NodeId(2), NodeId(5), 40);
        let order: Vec<u32> = (0..6)
            .map(|_| q.dequeue(via2).unwrap().0.pkt.dst.0)
            .collect();
        assert_eq!(order, vec![5, 6, 5, 6, 5, 6]);
    }

    #[test]
    fn limits_and_legacy_fifo() {
        let mut c = cfg();
        c.capacity_pkts = 5;
        c.per_dest_capacity = 3;
        let mut q = DiffQ::new(c, NodeId(1), 10, RngStream::new(StreamKey::new(1, 1, "x")));
        for s in 0..3 {
            q.enqueue(pkt(5, s), true).unwrap();
        }
        assert_eq!(
            q.enqueue(pkt(5, 3), true).unwrap_err().1,
            DropReason::QueueOverflow
        );
        q.enqueue(pkt(6, 0), false).unwrap();
        q.enqueue(pkt(6, 1), false).unwrap();
        assert!(q.enqueue(pkt(7, 0), true).is_err(), "node buffer full");
        // Legacy and DiffQ alternate; legacy goes at level 0.
        let first = q.dequeue(via2).unwrap().0;
        let second = q.dequeue(via2).unwrap().0;
        assert_eq!((first.pkt.dst.0, second.pkt.dst.0), (5, 6));
        assert_eq!(second.priority, 0);
        let c = q.counters();
        assert!(c.consistent_with(q.len()), "{c:?}");
        assert_eq!(q.iter().count(), q.len());
    }

    #[test]
    fn multipath_differential_is_the_minimum_over_neighbouring_forwarders() {
        // Seed 000, eq. (2): node 1 holds 12 packets for 9; forwarders 2 and 3 report 5
        // and 9, so QD = min(12 - 5, 12 - 9) = 3, whatever the routing next hop says.
        let mut q = diffq(1);
        for s in 0..12 {
            q.enqueue(pkt(9, s), true).unwrap();
        }
        q.on_report(NodeId(2), NodeId(9), 5);
        q.on_report(NodeId(3), NodeId(9), 9);
        q.set_multipath(FlowId(0), vec![NodeId(2), NodeId(3)]);
        assert_eq!(q.choose(|_| Some(NodeId(2))).unwrap().differential, 3);
        // Only the destination among the neighbours: QD is the node's own backlog.
        q.set_multipath(FlowId(0), vec![NodeId(9)]);
        assert_eq!(q.choose(|_| Some(NodeId(2))).unwrap().differential, 12);
        // A flow not registered keeps eq. (1).
        q.set_multipath(FlowId(5), vec![NodeId(3)]);
        q.multipath.retain(|(f, _)| *f != FlowId(0));
        assert_eq!(q.choose(|_| Some(NodeId(3))).unwrap().differential, 3);
    }
}
