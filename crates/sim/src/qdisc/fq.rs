//! Per-flow fair queuing with optional hop-by-hop back-pressure (seed 001, sections 3.2
//! and 4).
//!
//! * **Classes**: one FIFO per IP source, IP destination, next hop or previous hop (the
//!   paper's four keys; only the "globally fair" source and destination keys protect TCP,
//!   the hop keys lump it with UDP sharing the link), served round robin one packet per
//!   turn (policy 1). A class over `per_flow_capacity` or the node over `capacity` drops
//!   the arrival (`DropReason::QueueOverflow`: "the node will not accept more packets
//!   from that flow").
//! * **Back-pressure** (4.2, source and destination keys): every departing packet carries
//!   its class's remaining length (the piggybacked [`DiffqHeader`] `qlen`), recorded by
//!   every neighbour that decodes or overhears it. A packet towards `j` (not its
//!   destination) is held while `j`'s report for its class reaches
//!   `backpressure_threshold`; a class sends its first packet whose next hop is not held.
//!   [`ReportView::Overheard`] (default) adds the packets handed to `j` since its last
//!   report; [`ReportView::Exact`] reads `j`'s true length, as the paper's global array.
//! * Reports older than `report_lifetime` stop holding (this model's rule): a node that
//!   missed `j`'s last frame of a class would otherwise hold it for ever.
//! * [`HeldPackets`]: which packets back-pressure may hold. The paper's experiments are
//!   "UDP back-pressure" (4.3 (2), 4.4, 4.5's title) whose objective is "to prevent an
//!   aggressive UDP source from injecting packets" (4.1); 4.2 states the mechanism for
//!   any IP source. [`HeldPackets::Udp`] never holds a TCP segment or ACK.

use super::registry::{Key, KeyValue, Params, Problem, RegisteredQdisc, Scheme, Setting};
use super::reports::NeighbourReports;
use super::{Dequeued, Qdisc, QueueCounters, QueueDiscipline, Queued, Routes};
use crate::ids::NodeId;
use crate::net::{DiffqHeader, DropReason, Packet};
use airqueue_kernel::Time;
use std::collections::VecDeque;

/// `queue.kind = "fq"`: per-flow fair queuing with optional hop-by-hop back-pressure
/// (seed 001). On wired links each direction has its own instance, which hears the
/// reports carried over the reverse direction only.
pub static SCHEME: Scheme = Scheme {
    name: "fq",
    summary: "per-flow fair queuing with optional hop-by-hop back-pressure (seed 001)",
    // ns-2's interface queue.
    default_capacity_pkts: 50,
    keys: &KEYS,
    table_keys: &[],
    moves_packets_on_link_break: true,
    refuses_saturating_source: false,
    runs_at_access_point: false,
    check,
    build: |p, ctx| -> Qdisc {
        Box::new(FairQueue::new(
            FqConfig::from_params(p),
            ctx.node,
            ctx.node_count,
        ))
    },
};

/// `classify`'s names, in [`Classify`]'s order.
const CLASSIFY: [&str; 4] = ["source", "destination", "next_hop", "previous_hop"];
/// `backpressure_view`'s names, in [`ReportView`]'s order.
const VIEW: [&str; 2] = ["overheard", "exact"];
/// `backpressure_classes`' names, in [`HeldPackets`]' order.
const HELD: [&str; 2] = ["all", "udp"];

const KEYS: [Key; 6] = [
    Key {
        name: "classify",
        doc: "the per-flow queue key (section 3.2): the IP source (default), destination, \
              next hop or previous hop",
        value: KeyValue::Choice {
            default: "source",
            names: &CLASSIFY,
        },
    },
    Key {
        name: "per_flow_capacity",
        doc: "buffer quota of one class, packets, at most capacity; default 10 (seed 001 \
              gives none; a fifth of the default buffer)",
        value: KeyValue::Packets { default: Some(10) },
    },
    Key {
        name: "backpressure_threshold",
        doc: "hold a class while the next hop's reported queue for it is at least this \
              many packets (section 4; its best is 1); classify source or destination \
              only; default off",
        value: KeyValue::Packets { default: None },
    },
    Key {
        name: "backpressure_view",
        doc: "where a neighbour's queue is learnt: overheard reports (default, section \
              4.2) or its exact length (the paper's global array; 802.11 medium only)",
        value: KeyValue::Choice {
            default: "overheard",
            names: &VIEW,
        },
    },
    Key {
        name: "backpressure_classes",
        doc: "which packets back-pressure may hold: all (default, section 4.2's mechanism \
              per IP source or destination) or udp (never a TCP segment or ACK: the \
              paper's \"UDP back-pressure\" of 4.3-4.5, whose objective is to stop \"an \
              aggressive UDP source\", 4.1)",
        value: KeyValue::Choice {
            default: "all",
            names: &HELD,
        },
    },
    Key {
        name: "report_lifetime",
        doc: "seconds an overheard report may hold a class back; default 0.05 (not in \
              seed 001: without it a missed last report holds a class for ever)",
        value: KeyValue::Seconds {
            default_s: 0.05,
            max_s: 3600.0,
        },
    },
];

/// `exact` needs back-pressure; `per_flow_capacity <= capacity`; back-pressure needs
/// classes that are IP addresses (reports are kept per source or destination).
fn check(p: &mut Params, setting: &Setting) -> Vec<Problem> {
    let mut problems = Vec::new();
    let threshold_off =
        p.value("backpressure_threshold").is_none() && !p.is_invalid("backpressure_threshold");
    for (key, other) in [
        ("backpressure_view", "exact"),
        ("backpressure_classes", "udp"),
    ] {
        if p.choice(key) == Some(other) && threshold_off {
            problems.push(Problem::new(
                key,
                "applies only with back-pressure: set backpressure_threshold too, or drop this \
                 key",
            ));
        }
    }
    if let (Some(c), Some(q)) = (setting.capacity_pkts, p.packets("per_flow_capacity")) {
        if q > c {
            let message = format!("must be at most capacity ({c} packets), got {q}");
            problems.push(Problem::new("per_flow_capacity", message));
        }
    }
    let by_hop = matches!(p.choice("classify"), Some("next_hop" | "previous_hop"));
    if by_hop && p.packets("backpressure_threshold").is_some() {
        problems.push(Problem::new(
            "backpressure_threshold",
            "applies only to classify = \"source\" or \"destination\" (queue reports are \
             kept per IP source or destination)",
        ));
    }
    problems
}

/// What a packet's class is (seed 001, section 3.2, item 2).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Classify {
    /// IP source address.
    Source,
    /// IP destination address.
    Destination,
    /// The neighbour the packet is sent to.
    NextHop,
    /// The neighbour the packet came from (the node itself for its own packets).
    PreviousHop,
}

/// Settings of the fair-queuing discipline.
#[derive(Clone, Debug, PartialEq)]
pub struct FqConfig {
    /// Node buffer over all classes, packets.
    pub capacity_pkts: u32,
    /// Buffer quota of one class, packets.
    pub per_flow_capacity: u32,
    pub classify: Classify,
    /// Hold a class back while its next hop's reported queue for it is at least this
    /// many packets; `None`: no back-pressure. Only with `Source` or `Destination`.
    pub backpressure_threshold: Option<u32>,
    /// How long a neighbour's report may hold a class back.
    pub report_lifetime: Time,
    /// Where back-pressure's view of a neighbour's queue comes from.
    pub view: ReportView,
    /// Which packets back-pressure may hold.
    pub held: HeldPackets,
}

/// Which packets back-pressure may hold (seed 001, section 4). Every packet of a class
/// still carries its class's report either way.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum HeldPackets {
    /// Every packet: section 4.2's mechanism, "restricts the buffer allocation to a
    /// particular IP-source (or IP-destination) at any node", whatever it carries.
    All,
    /// Only packets that are not TCP (UDP datagrams and what rides on UDP): the paper's
    /// "UDP back-pressure" (4.3-4.5), whose objective is to stop "an aggressive UDP
    /// source" (4.1). TCP data segments and ACKs are never held.
    Udp,
}

impl HeldPackets {
    #[inline]
    fn may_hold(self, pkt: &Packet) -> bool {
        match self {
            HeldPackets::All => true,
            HeldPackets::Udp => !pkt.transport.is_tcp(),
        }
    }
}

impl FqConfig {
    /// From the keys of [`SCHEME`].
    pub fn from_params(p: &Params) -> Self {
        let classify = match p.choice("classify") {
            Some("destination") => Classify::Destination,
            Some("next_hop") => Classify::NextHop,
            Some("previous_hop") => Classify::PreviousHop,
            _ => Classify::Source,
        };
        let view = match p.choice("backpressure_view") {
            Some("exact") => ReportView::Exact,
            _ => ReportView::Overheard,
        };
        let held = match p.choice("backpressure_classes") {
            Some("udp") => HeldPackets::Udp,
            _ => HeldPackets::All,
        };
        FqConfig {
            capacity_pkts: p.capacity_pkts,
            per_flow_capacity: p.packets("per_flow_capacity").unwrap_or(10),
            classify,
            backpressure_threshold: p.packets("backpressure_threshold"),
            report_lifetime: p.seconds("report_lifetime"),
            view,
            held,
        }
    }

    /// These settings as `queue.kind = "fq"` for a world.
    pub fn qdisc(&self) -> RegisteredQdisc {
        let mut params = Params::defaults(&SCHEME);
        params.capacity_pkts = self.capacity_pkts;
        params.set("per_flow_capacity", f64::from(self.per_flow_capacity));
        if let Some(t) = self.backpressure_threshold {
            params.set("backpressure_threshold", f64::from(t));
        }
        params.set("report_lifetime", self.report_lifetime.as_secs_f64());
        let classify = match self.classify {
            Classify::Source => "source",
            Classify::Destination => "destination",
            Classify::NextHop => "next_hop",
            Classify::PreviousHop => "previous_hop",
        };
        params.set_choice("classify", classify);
        let view = match self.view {
            ReportView::Overheard => "overheard",
            ReportView::Exact => "exact",
        };
        params.set_choice("backpressure_view", view);
        let held = match self.held {
            HeldPackets::All => "all",
            HeldPackets::Udp => "udp",
        };
        params.set_choice("backpressure_classes", held);
        RegisteredQdisc {
            scheme: &SCHEME,
            params,
        }
    }
}

/// Where back-pressure learns a downstream neighbour's queue for a class (seed 001,
/// section 4.2).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ReportView {
    /// From the reports its frames carry, decoded or overheard (promiscuous mode, the
    /// mechanism section 4.2 describes), plus what this node has handed it since.
    Overheard,
    /// The neighbour's true queue length at the moment of each decision: the "virtual,
    /// globally accessible array" the paper's ns-2 simulations read (section 4.2, last
    /// paragraph). The world writes it in through [`FairQueue::set_exact`] before every
    /// dequeue; only on the 802.11 medium.
    Exact,
}

/// The fair-queuing discipline of one interface.
#[derive(Clone, Debug)]
pub struct FairQueue {
    cfg: FqConfig,
    node: NodeId,
    /// Dense by class id (a node id); an empty class is inactive.
    classes: Vec<VecDeque<Queued>>,
    /// Classes with packets, in the order they became non-empty.
    active: Vec<NodeId>,
    /// Index into `active` of the class whose turn is next.
    rr_next: usize,
    total: usize,
    /// Last queue length reported by (neighbour, class), and when it was heard.
    reported: NeighbourReports<(u32, Time)>,
    counters: QueueCounters,
    /// Turns on which a class with packets was passed over by back-pressure.
    held_back: u64,
}

impl FairQueue {
    pub fn new(cfg: FqConfig, node: NodeId, node_count: usize) -> Self {
        FairQueue {
            cfg,
            node,
            classes: (0..node_count).map(|_| VecDeque::new()).collect(),
            active: Vec::new(),
            rr_next: 0,
            total: 0,
            reported: NeighbourReports::new(node_count),
            counters: QueueCounters::default(),
            held_back: 0,
        }
    }

    pub fn config(&self) -> &FqConfig {
        &self.cfg
    }

    /// The class of a packet with these addresses held by this node.
    pub fn class_of(&self, src: NodeId, dst: NodeId, next_hop: NodeId, prev_hop: NodeId) -> NodeId {
        match self.cfg.classify {
            Classify::Source => src,
            Classify::Destination => dst,
            Classify::NextHop => next_hop,
            Classify::PreviousHop => prev_hop,
        }
    }

    fn class(&self, q: &Queued) -> NodeId {
        self.class_of(q.pkt.src, q.pkt.dst, q.next_hop, q.prev_hop)
    }

    /// Packets of class `c` held here.
    pub fn class_len(&self, c: NodeId) -> usize {
        self.classes.get(c.index()).map_or(0, VecDeque::len)
    }

    /// Whether a packet of class `c` would be accepted.
    pub fn has_room_for(&self, c: NodeId) -> bool {
        self.total < self.cfg.capacity_pkts as usize
            && self.class_len(c) < self.cfg.per_flow_capacity as usize
    }

    pub fn enqueue(&mut self, q: Queued) -> Result<(), (Queued, DropReason)> {
        self.counters.received += 1;
        let c = self.class(&q);
        if !self.has_room_for(c) {
            self.counters.dropped += 1;
            return Err((q, DropReason::QueueOverflow));
        }
        self.counters.enqueued += 1;
        self.total += 1;
        let queue = &mut self.classes[c.index()];
        if queue.is_empty() {
            self.active.push(c);
        }
        queue.push_back(q);
        Ok(())
    }

    /// The class key a report carried by `pkt` is about, if back-pressure is on.
    fn report_key(&self, pkt: &Packet) -> Option<NodeId> {
        self.cfg.backpressure_threshold?;
        match self.cfg.classify {
            Classify::Source => Some(pkt.src),
            Classify::Destination => Some(pkt.dst),
            Classify::NextHop | Classify::PreviousHop => None,
        }
    }

    /// Records the queue report a frame from `from` carried, heard at `now`. Returns
    /// whether it was recorded (it may have released a held-back class).
    pub fn on_report(&mut self, from: NodeId, pkt: &Packet, now: Time) -> bool {
        let (Some(c), Some(h)) = (self.report_key(pkt), pkt.diffq) else {
            return false;
        };
        self.reported.insert(from, c, (h.qlen as u32, now));
        true
    }

    /// With the exact view, the range of `k` that [`Self::exact_query`] takes: one slot
    /// per (class with packets, position in its queue up to the longest class's length);
    /// 0 without the exact view or without packets.
    pub fn exact_queries(&self) -> usize {
        if self.cfg.view == ReportView::Exact && self.cfg.backpressure_threshold.is_some() {
            self.active.len() * self.longest_class()
        } else {
            0
        }
    }

    fn longest_class(&self) -> usize {
        self.active
            .iter()
            .map(|c| self.classes[c.index()].len())
            .max()
            .unwrap_or(0)
    }

    /// The (neighbour, class) pair whose true length the next decision reads for slot
    /// `k` of [`Self::exact_queries`]: the next hop of the packet at that position of
    /// that class and the class. `None` for an empty slot, for a packet back-pressure never
    /// holds (next hop = destination, or TCP with [`HeldPackets::Udp`]), and for a next
    /// hop an earlier holdable packet of the class already names. Every packet is read, not only the head: back-pressure stops a
    /// class per neighbour (see [`Self::sendable`]).
    pub fn exact_query(&self, k: usize) -> Option<(NodeId, NodeId)> {
        let width = self.longest_class();
        let c = *self.active.get(k.checked_div(width)?)?;
        let queue = &self.classes[c.index()];
        let pos = k % width;
        let q = queue.get(pos)?;
        let holdable = |p: &Queued| p.next_hop != p.pkt.dst && self.cfg.held.may_hold(&p.pkt);
        let first = queue
            .iter()
            .take(pos)
            .all(|p| p.next_hop != q.next_hop || !holdable(p));
        (holdable(q) && first).then_some((q.next_hop, c))
    }

    /// Writes neighbour `j`'s true queue length for class `c` at `now` (exact view).
    pub fn set_exact(&mut self, j: NodeId, c: NodeId, len: usize, now: Time) {
        self.reported
            .insert(j, c, (len.min(u32::MAX as usize) as u32, now));
    }

    /// What this node last heard neighbour `j` report for class `c` (0 before any report),
    /// however old.
    pub fn neighbour_len(&self, j: NodeId, c: NodeId) -> u32 {
        self.reported.get(j, c).map_or(0, |r| r.0)
    }

    /// Until when back-pressure stops packet `q` of class `c` at `now`: back-pressure
    /// may hold it ([`HeldPackets`]), its next hop is not its destination, and the next
    /// hop's last report for `c`, still alive, reached the threshold. `None`: not held.
    fn hold_to(&self, c: NodeId, q: &Queued, now: Time) -> Option<Time> {
        let t = self.cfg.backpressure_threshold?;
        if q.next_hop == q.pkt.dst || !self.cfg.held.may_hold(&q.pkt) {
            return None;
        }
        let (qlen, at) = self.reported.get(q.next_hop, c)?;
        let until = at + self.cfg.report_lifetime;
        (qlen >= t && now < until).then_some(until)
    }

    /// The position in class `c`'s queue of the packet the class sends next at `now`:
    /// the first one whose next hop back-pressure does not hold (`Err`: every packet is
    /// held, with the earliest expiry of the reports holding them).
    ///
    /// Seed 001, section 4.2, paraphrased: a node follows, per flow, the queue of each
    /// downstream neighbour it forwards that flow to, and once that neighbour's queue
    /// for the flow reaches the threshold it stops sending the flow *to that
    /// neighbour*. The hold is per (class, neighbour): packets of the class bound for
    /// other neighbours still go. Holding the whole class on its head's next hop (this
    /// model before) let a head-of-line packet for a full neighbour stop packets for
    /// empty ones, which closed the hold cycle traced in docs/reproductions/fq.md ("Back-pressure
    /// stalls"). The paper's rule can still deadlock by itself, when one class crosses
    /// a link both ways (`tests/fq.rs`). Packets to one next hop keep their order.
    fn sendable(&self, c: NodeId, now: Time) -> Result<usize, Time> {
        let mut earliest: Option<Time> = None;
        for (i, q) in self.classes[c.index()].iter().enumerate() {
            match self.hold_to(c, q, now) {
                None => return Ok(i),
                Some(until) => earliest = Some(earliest.map_or(until, |e| e.min(until))),
            }
        }
        // An empty class is not active; `Err` here means every packet is held.
        Err(earliest.unwrap_or(now))
    }

    /// Until when back-pressure holds every packet of class `c` back at `now` (the
    /// earliest expiry among the reports holding them). `None`: a packet may go.
    fn held_until(&self, c: NodeId, now: Time) -> Option<Time> {
        self.sendable(c, now).err()
    }

    /// When the earliest report holding a class back expires, if every class with
    /// packets is held at `now` (the interface should try again then).
    pub fn release_at(&self, now: Time) -> Option<Time> {
        // `None` as soon as one class is free; no collection on this per-pull path.
        self.active
            .iter()
            .try_fold(None, |earliest: Option<Time>, &c| {
                let until = self.held_until(c, now)?;
                Some(Some(earliest.map_or(until, |e| e.min(until))))
            })
            .flatten()
    }

    /// Hands the next packet to the interface at `now`: the first class from the
    /// round-robin position on that back-pressure does not hold. With back-pressure on,
    /// writes the class's remaining length into the packet's queue report.
    pub fn dequeue(&mut self, now: Time) -> Option<Dequeued> {
        let n = self.active.len();
        let mut pick = None;
        for k in 0..n {
            let idx = (self.rr_next + k) % n;
            match self.sendable(self.active[idx], now) {
                Ok(pos) => {
                    pick = Some((idx, pos));
                    break;
                }
                Err(_) => self.held_back += 1,
            }
        }
        let (idx, pos) = pick?;
        let c = self.active[idx];
        let queue = &mut self.classes[c.index()];
        let mut q = queue.remove(pos).expect("active classes have packets");
        let remaining = queue.len();
        if remaining == 0 {
            // The class after the removed one slides into its place and has the next turn.
            self.active.remove(idx);
            self.rr_next = idx;
        } else {
            self.rr_next = idx + 1;
        }
        if self.active.is_empty() {
            self.rr_next = 0;
        } else {
            self.rr_next %= self.active.len();
        }
        if self.report_key(&q.pkt).is_some() {
            q.pkt.diffq = Some(DiffqHeader {
                qlen: remaining.min(u16::MAX as usize) as u16,
            });
            // What this node hands to `j` joins `j`'s queue for the class: count it on
            // top of `j`'s last report until `j` reports again, so that a neighbour that
            // has stopped sending (and so reporting) still fills up in this node's view
            // and holds the class at the threshold, as the paper's exact queue lengths
            // would.
            if q.next_hop != q.pkt.dst {
                let e = self.reported.entry(q.next_hop, c).get_or_insert((0, now));
                *e = (e.0.saturating_add(1), now);
            }
        }
        self.total -= 1;
        self.counters.dequeued += 1;
        Some(Dequeued {
            priority: q.pkt.priority,
            pkt: q.pkt,
            next_hop: q.next_hop,
        })
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

    /// Turns on which back-pressure passed over a class with packets.
    pub fn held_back(&self) -> u64 {
        self.held_back
    }

    pub fn node(&self) -> NodeId {
        self.node
    }

    /// Every packet held (end-of-run accounting).
    pub fn iter(&self) -> impl Iterator<Item = &Queued> {
        self.classes.iter().flat_map(|q| q.iter())
    }

    /// Moves every packet waiting for neighbour `next` to `out`, class by class in
    /// round-robin order (a routing protocol found the link broken). They count as
    /// dequeued; a class left empty leaves the round robin, whose next turn stays with
    /// the class that had it.
    pub fn remove_next_hop(&mut self, next: NodeId, out: &mut Vec<Queued>) {
        let before = out.len();
        let mut idx = 0;
        while idx < self.active.len() {
            let queue = &mut self.classes[self.active[idx].index()];
            let mut i = 0;
            while i < queue.len() {
                if queue[i].next_hop == next {
                    out.extend(queue.remove(i));
                } else {
                    i += 1;
                }
            }
            if queue.is_empty() {
                self.active.remove(idx);
                if idx < self.rr_next {
                    self.rr_next -= 1;
                }
            } else {
                idx += 1;
            }
        }
        if self.active.is_empty() {
            self.rr_next = 0;
        } else {
            self.rr_next %= self.active.len();
        }
        let removed = out.len() - before;
        self.total -= removed;
        self.counters.dequeued += removed as u64;
    }
}

impl QueueDiscipline for FairQueue {
    fn enqueue(&mut self, q: Queued, _now: Time) -> Result<(), (Queued, DropReason)> {
        FairQueue::enqueue(self, q)
    }
    fn dequeue(&mut self, _routes: &dyn Routes, now: Time) -> Option<Dequeued> {
        FairQueue::dequeue(self, now)
    }
    fn len(&self) -> usize {
        FairQueue::len(self)
    }
    fn has_room(&self, src: NodeId, dst: NodeId, next_hop: NodeId, _with_report: bool) -> bool {
        self.has_room_for(self.class_of(src, dst, next_hop, self.node()))
    }
    fn counters(&self) -> QueueCounters {
        FairQueue::counters(self)
    }
    fn on_report(&mut self, from: NodeId, pkt: &Packet, now: Time) -> bool {
        FairQueue::on_report(self, from, pkt, now)
    }
    fn release_at(&self, now: Time) -> Option<Time> {
        FairQueue::release_at(self, now)
    }
    /// By destination, that class; by another key, the whole queue.
    fn queue_len_for(&self, dst: NodeId) -> usize {
        match self.config().classify {
            Classify::Destination => FairQueue::class_len(self, dst),
            _ => FairQueue::len(self),
        }
    }
    /// By destination: the last report for that class.
    fn neighbour_len(&self, j: NodeId, dst: NodeId) -> Option<u32> {
        match self.config().classify {
            Classify::Destination => Some(FairQueue::neighbour_len(self, j, dst)),
            _ => None,
        }
    }
    fn remove_next_hop(&mut self, next: NodeId, out: &mut Vec<Queued>) {
        FairQueue::remove_next_hop(self, next, out)
    }
    fn exact_queries(&self) -> usize {
        FairQueue::exact_queries(self)
    }
    fn exact_query(&self, k: usize) -> Option<(NodeId, NodeId)> {
        FairQueue::exact_query(self, k)
    }
    fn class_len(&self, c: NodeId) -> usize {
        FairQueue::class_len(self, c)
    }
    fn set_exact(&mut self, j: NodeId, c: NodeId, len: usize, now: Time) {
        FairQueue::set_exact(self, j, c, len, now)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ids::FlowId;
    use crate::net::TransportHeader;
    const T0: Time = Time::ZERO;

    fn cfg(classify: Classify) -> FqConfig {
        FqConfig {
            capacity_pkts: 50,
            per_flow_capacity: 10,
            classify,
            backpressure_threshold: None,
            report_lifetime: Time::from_millis(50),
            view: ReportView::Overheard,
            held: HeldPackets::All,
        }
    }

    /// A packet src -> dst held by node 1, going to `next`, arrived from `prev`.
    fn pkt(src: u32, dst: u32, next: u32, prev: Option<u32>, seq: u64) -> Queued {
        Queued {
            pkt: Packet {
                uid: seq,
                flow: FlowId(0),
                src: NodeId(src),
                dst: NodeId(dst),
                seq,
                payload_bytes: 1000,
                transport: TransportHeader::Udp,
                ttl: 64,
                priority: 0,
                created: T0,
                diffq: None,
                report: None,
            },
            next_hop: NodeId(next),
            prev_hop: NodeId(prev.unwrap_or(1)),
        }
    }

    fn fq(c: FqConfig) -> FairQueue {
        FairQueue::new(c, NodeId(1), 10)
    }

    #[test]
    fn removes_the_packets_of_one_next_hop_and_keeps_the_round_robin() {
        let mut q = fq(cfg(Classify::Source));
        // Classes by source: 0 all via 2; 3 via 2 then 4; 5 via 4.
        for (src, next, seq) in [(0, 2, 0), (3, 2, 1), (3, 4, 2), (5, 4, 3), (0, 2, 4)] {
            q.enqueue(pkt(src, 9, next, Some(0), seq)).unwrap();
        }
        assert_eq!(q.dequeue(T0).unwrap().pkt.seq, 0); // class 0's turn; 3 is next
        let mut out = Vec::new();
        q.remove_next_hop(NodeId(2), &mut out);
        let seqs: Vec<u64> = out.iter().map(|p| p.pkt.seq).collect();
        assert_eq!(seqs, [4, 1]);
        assert_eq!(q.len(), 2);
        assert!(q.counters().consistent_with(q.len()));
        let rest: Vec<u64> = (0..2).map(|_| q.dequeue(T0).unwrap().pkt.seq).collect();
        assert_eq!(rest, [2, 3]);
        assert!(q.dequeue(T0).is_none());
    }

    #[test]
    fn classifies_by_each_key() {
        let p = pkt(0, 5, 2, Some(3), 0);
        let local = pkt(1, 5, 2, None, 0);
        let class = |k: Classify, q: &Queued| fq(cfg(k)).class(q).0;
        assert_eq!(class(Classify::Source, &p), 0);
        assert_eq!(class(Classify::Destination, &p), 5);
        assert_eq!(class(Classify::NextHop, &p), 2);
        assert_eq!(class(Classify::PreviousHop, &p), 3);
        assert_eq!(
            class(Classify::PreviousHop, &local),
            1,
            "own packets: the node"
        );
        // Two sources through the same next hop share a next-hop class only.
        let mut q = fq(cfg(Classify::NextHop));
        q.enqueue(pkt(0, 5, 2, Some(0), 0)).unwrap();
        q.enqueue(pkt(4, 5, 2, Some(4), 1)).unwrap();
        assert_eq!((q.class_len(NodeId(2)), q.active.len()), (2, 1));
        let mut q = fq(cfg(Classify::Source));
        q.enqueue(pkt(0, 5, 2, Some(0), 0)).unwrap();
        q.enqueue(pkt(4, 5, 2, Some(4), 1)).unwrap();
        assert_eq!(q.active.len(), 2);
    }

    #[test]
    fn round_robin_one_packet_per_turn() {
        let mut q = fq(cfg(Classify::Source));
        // Class 0: 1 packet, class 3: 3 packets, class 4: 2 packets.
        q.enqueue(pkt(3, 9, 2, None, 30)).unwrap();
        q.enqueue(pkt(3, 9, 2, None, 31)).unwrap();
        q.enqueue(pkt(0, 9, 2, None, 0)).unwrap();
        q.enqueue(pkt(4, 9, 2, None, 40)).unwrap();
        q.enqueue(pkt(3, 9, 2, None, 32)).unwrap();
        q.enqueue(pkt(4, 9, 2, None, 41)).unwrap();
        let mut order = vec![q.dequeue(T0).unwrap().pkt.seq];
        // A class arriving mid-round takes its turn after the classes already waiting.
        q.enqueue(pkt(7, 9, 2, None, 70)).unwrap();
        while let Some(d) = q.dequeue(T0) {
            order.push(d.pkt.seq);
        }
        assert_eq!(order, vec![30, 0, 40, 70, 31, 41, 32]);
        assert!(q.counters().consistent_with(q.len()));
        assert!(q.is_empty());
    }

    #[test]
    fn per_class_quota_and_node_buffer() {
        let mut c = cfg(Classify::Destination);
        c.capacity_pkts = 5;
        c.per_flow_capacity = 3;
        let mut q = fq(c);
        for s in 0..3 {
            q.enqueue(pkt(0, 5, 2, None, s)).unwrap();
        }
        assert!(!q.has_room_for(NodeId(5)) && q.has_room_for(NodeId(6)));
        let (back, reason) = q.enqueue(pkt(0, 5, 2, None, 3)).unwrap_err();
        assert_eq!((back.pkt.seq, reason), (3, DropReason::QueueOverflow));
        q.enqueue(pkt(0, 6, 2, None, 10)).unwrap();
        q.enqueue(pkt(0, 7, 2, None, 20)).unwrap();
        assert!(
            q.enqueue(pkt(0, 8, 2, None, 30)).is_err(),
            "node buffer full"
        );
        let c = q.counters();
        assert_eq!((c.received, c.enqueued, c.dropped), (7, 5, 2));
        assert!(c.consistent_with(q.len()));
        assert_eq!(q.iter().count(), q.len());
    }

    #[test]
    fn reports_follow_the_class_and_only_with_backpressure() {
        let mut q = fq(cfg(Classify::Source));
        q.enqueue(pkt(0, 5, 2, None, 0)).unwrap();
        assert_eq!(
            q.dequeue(T0).unwrap().pkt.diffq,
            None,
            "no back-pressure: no report"
        );
        let mut c = cfg(Classify::Source);
        c.backpressure_threshold = Some(1);
        let mut q = fq(c);
        // Next hop = destination: reports go out, nothing is held.
        for s in 0..3 {
            q.enqueue(pkt(0, 5, 5, None, s)).unwrap();
        }
        q.enqueue(pkt(4, 5, 5, None, 9)).unwrap();
        let qlens: Vec<u16> = (0..4)
            .map(|_| q.dequeue(T0).unwrap().pkt.diffq.unwrap().qlen)
            .collect();
        assert_eq!(qlens, vec![2, 0, 1, 0], "what is left of the class");
    }

    #[test]
    fn what_this_node_sends_counts_until_the_neighbour_reports() {
        let mut c = cfg(Classify::Source);
        c.backpressure_threshold = Some(2);
        let mut q = fq(c);
        for s in 0..4 {
            q.enqueue(pkt(0, 5, 2, None, s)).unwrap();
        }
        // Neighbour 2 never reported: two packets handed to it fill its queue in this
        // node's view, and the class is held at the threshold.
        assert_eq!(q.dequeue(T0).unwrap().pkt.seq, 0);
        assert_eq!(q.neighbour_len(NodeId(2), NodeId(0)), 1);
        assert_eq!(q.dequeue(T0).unwrap().pkt.seq, 1);
        assert_eq!(q.dequeue(T0), None);
        // Its report replaces the estimate: it has forwarded one of the two.
        let mut heard = pkt(0, 5, 3, None, 99).pkt;
        heard.diffq = Some(DiffqHeader { qlen: 1 });
        let t = Time::from_millis(1);
        q.on_report(NodeId(2), &heard, t);
        assert_eq!(q.dequeue(t).unwrap().pkt.seq, 2);
        assert_eq!(q.dequeue(t), None, "1 reported + 1 sent since");
        assert!(q.counters().consistent_with(q.len()));
    }

    #[test]
    fn backpressure_skips_a_class_and_resumes_on_a_lower_report() {
        let mut c = cfg(Classify::Source);
        c.backpressure_threshold = Some(2);
        let mut q = fq(c);
        for s in 0..2 {
            q.enqueue(pkt(0, 5, 2, None, s)).unwrap(); // class 0 via 2
            q.enqueue(pkt(4, 5, 2, None, 40 + s)).unwrap(); // class 4 via 2
        }
        // Neighbour 2 reports 2 packets of source 0: at the threshold.
        let mut heard = pkt(0, 5, 3, None, 99).pkt;
        heard.diffq = Some(DiffqHeader { qlen: 2 });
        assert!(q.on_report(NodeId(2), &heard, T0));
        assert_eq!(q.neighbour_len(NodeId(2), NodeId(0)), 2);
        assert_eq!(q.dequeue(T0).unwrap().pkt.seq, 40);
        assert_eq!(q.dequeue(T0).unwrap().pkt.seq, 41);
        assert_eq!(q.dequeue(T0), None, "only the held class is left");
        assert_eq!(q.len(), 2);
        assert!(q.held_back() >= 3);
        assert_eq!(q.release_at(T0), Some(Time::from_millis(50)));
        // The report expires: the class goes without a newer one, and is held again by
        // a fresh report.
        let later = Time::from_millis(50);
        assert_eq!(q.dequeue(later).unwrap().pkt.seq, 0);
        q.on_report(NodeId(2), &heard, later);
        assert_eq!(q.dequeue(later), None);
        // A report below the threshold releases it.
        heard.diffq = Some(DiffqHeader { qlen: 1 });
        q.on_report(NodeId(2), &heard, later);
        assert_eq!(q.release_at(later), None);
        // Reports from another neighbour or about another class change nothing here.
        heard.diffq = Some(DiffqHeader { qlen: 9 });
        q.on_report(NodeId(3), &heard, later);
        assert_eq!(q.dequeue(later).unwrap().pkt.seq, 1);
        assert!(q.counters().consistent_with(q.len()));
    }

    #[test]
    fn backpressure_holds_per_neighbour_and_keeps_each_next_hops_order() {
        let mut c = cfg(Classify::Source);
        c.backpressure_threshold = Some(1);
        let mut q = fq(c);
        // Class 0: to 2, 3, 2, 3; neighbour 2 is at the threshold, 3 is empty.
        for (next, seq) in [(2, 0), (3, 1), (2, 2), (3, 3)] {
            q.enqueue(pkt(0, 9, next, Some(0), seq)).unwrap();
        }
        let mut heard = pkt(0, 9, 4, None, 99).pkt;
        heard.diffq = Some(DiffqHeader { qlen: 1 });
        q.on_report(NodeId(2), &heard, T0);
        // The head is held; the packets for 3 behind it are not (seed 001, 4.2: the
        // flow stops "to that neighbor"). Each handed packet counts at 3 in this
        // node's view, so 3 reports room again before the second one goes.
        assert_eq!(q.dequeue(T0).unwrap().pkt.seq, 1);
        heard.diffq = Some(DiffqHeader { qlen: 0 });
        q.on_report(NodeId(3), &heard, T0);
        assert_eq!(q.dequeue(T0).unwrap().pkt.seq, 3);
        assert_eq!(q.dequeue(T0), None, "only packets for 2 are left");
        assert_eq!(q.release_at(T0), Some(Time::from_millis(50)));
        // 2 has room: its packets go in their order.
        q.on_report(NodeId(2), &heard, T0);
        assert_eq!(q.dequeue(T0).unwrap().pkt.seq, 0);
        q.on_report(NodeId(2), &heard, T0);
        assert_eq!(q.dequeue(T0).unwrap().pkt.seq, 2);
        assert!(q.is_empty() && q.counters().consistent_with(0));
    }

    /// Reads, as the world does before each decision (exact view), every neighbour
    /// queue node `i`'s packets wait on; nodes outside `nodes` are empty.
    fn refresh_exact(nodes: &[u32], qs: &mut [FairQueue], i: usize, now: Time) {
        for k in 0..qs[i].exact_queries() {
            if let Some((j, c)) = qs[i].exact_query(k) {
                let len = nodes
                    .iter()
                    .position(|&n| n == j.0)
                    .map_or(0, |x| qs[x].class_len(c));
                qs[i].set_exact(j, c, len, now);
            }
        }
    }

    /// A hold cycle of `airqueue reproduce fq-protection` (back-pressure threshold 2, seed 5,
    /// without UDP; docs/reproductions/fq.md, "Back-pressure stalls"):
    /// all packets are the server 84's TCP ACKs, one class by IP source. 71 heads with
    /// an ACK for client 6 via 72 (AODV route 71 -> 6 via 72), 72 heads with an ACK for
    /// client 78 via 71 (route 72 -> 78 via 71, the ACK came 84 -> 85 -> 72), both at
    /// the threshold, and the server heads with an ACK for 6 via 71. Behind each head
    /// waits an ACK for an empty neighbour (71: for 156 via 70; 72: for 6 via 59; 84:
    /// for 168 via 85). Holding a whole class on its head's next hop, every node would wait
    /// on another for ever; holding per neighbour, the ACKs for the empty neighbours go,
    /// 71 and 72 drop below the threshold, and everything drains.
    #[test]
    fn the_traced_hold_cycle_unwinds_when_holds_are_per_neighbour() {
        let nodes = [84, 71, 72];
        let mut c = cfg(Classify::Source);
        c.backpressure_threshold = Some(2);
        c.view = ReportView::Exact;
        let mut qs: Vec<FairQueue> = nodes
            .iter()
            .map(|&n| FairQueue::new(c.clone(), NodeId(n), 169))
            .collect();
        // The transport header does not matter to the queue; `pkt`'s is UDP.
        let ack = |dst: u32, next: u32, prev: u32, uid: u64| pkt(84, dst, next, Some(prev), uid);
        for (i, d, next, prev, uid) in [
            (0, 6, 71, 84, 3041),
            (0, 168, 85, 84, 3121),
            (1, 6, 72, 84, 2948),
            (1, 156, 70, 84, 2971),
            (2, 78, 71, 85, 3030),
            (2, 6, 59, 71, 2889),
        ] {
            qs[i].enqueue(ack(d, next, prev, uid)).unwrap();
        }
        assert_eq!(qs.iter().map(FairQueue::len).collect::<Vec<_>>(), [2, 2, 2]);
        // Rounds in which every node reads the exact view, then hands out at most one
        // packet; one handed to a modelled node joins its queue (routes as in the run).
        let route = |at: u32, dst: u32| match (at, dst) {
            (71, 6) => 72,
            (72, 78) => 71,
            (71, 78) => 70,
            (72, 6) => 59,
            other => panic!("no route in the traced run for {other:?}"),
        };
        let mut sent = Vec::new();
        for round in 0..10u64 {
            let now = Time::from_millis(round);
            let mut moved = Vec::new();
            for i in 0..nodes.len() {
                refresh_exact(&nodes, &mut qs, i, now);
            }
            for (i, q) in qs.iter_mut().enumerate() {
                if let Some(d) = q.dequeue(now) {
                    moved.push((nodes[i], d.next_hop.0, d.pkt));
                }
            }
            if moved.is_empty() {
                break;
            }
            for (from, to, pkt) in moved {
                sent.push(pkt.uid);
                if let Some(x) = nodes.iter().position(|&n| n == to) {
                    let next_hop = NodeId(route(to, pkt.dst.0));
                    let prev_hop = NodeId(from);
                    qs[x]
                        .enqueue(Queued {
                            pkt,
                            next_hop,
                            prev_hop,
                        })
                        .unwrap();
                }
            }
        }
        assert!(
            qs.iter().all(FairQueue::is_empty),
            "queues left: {:?}, sent: {sent:?}",
            qs.iter().map(FairQueue::len).collect::<Vec<_>>()
        );
        // The first round sends exactly the ACKs for the empty neighbours.
        assert_eq!(sent[..3], [3121, 2971, 2889], "sent: {sent:?}");
    }

    /// A TCP ACK src -> dst held by node 1, going to `next`.
    fn tcp_ack(src: u32, dst: u32, next: u32, seq: u64) -> Queued {
        let mut q = pkt(src, dst, next, None, seq);
        q.pkt.payload_bytes = 0;
        q.pkt.transport = TransportHeader::TcpAck(crate::net::packet::TcpAckHeader {
            cumulative: seq as u32,
            sack: Default::default(),
            ece: false,
            tsecr: None,
        });
        q
    }

    #[test]
    fn udp_only_backpressure_never_holds_tcp_and_still_holds_udp() {
        // Class 0: the server's TCP ACKs via 2; class 4: a UDP source's datagrams via 2.
        // Neighbour 2 reports both classes far over the threshold.
        let fill = |q: &mut FairQueue| {
            for s in 0..3 {
                q.enqueue(tcp_ack(0, 9, 2, s)).unwrap();
                q.enqueue(pkt(4, 9, 2, None, 40 + s)).unwrap();
            }
            let mut heard = pkt(0, 9, 3, None, 99).pkt;
            heard.diffq = Some(DiffqHeader { qlen: 5 });
            assert!(q.on_report(NodeId(2), &heard, T0));
            heard.src = NodeId(4);
            assert!(q.on_report(NodeId(2), &heard, T0));
        };
        let mut c = cfg(Classify::Source);
        c.backpressure_threshold = Some(1);
        c.held = HeldPackets::Udp;
        let mut q = fq(c.clone());
        fill(&mut q);
        let sent: Vec<u64> = std::iter::from_fn(|| q.dequeue(T0).map(|d| d.pkt.seq)).collect();
        assert_eq!(sent, [0, 1, 2], "every ACK goes, no datagram");
        assert_eq!(q.len(), 3);
        assert_eq!(q.release_at(T0), Some(Time::from_millis(50)));
        // The UDP class goes once its report is below the threshold.
        let mut heard = pkt(4, 9, 3, None, 99).pkt;
        heard.diffq = Some(DiffqHeader { qlen: 0 });
        q.on_report(NodeId(2), &heard, T0);
        assert_eq!(q.dequeue(T0).unwrap().pkt.seq, 40);
        assert_eq!(q.dequeue(T0), None, "handed datagram counts at 2");
        assert!(q.counters().consistent_with(q.len()));
        // The same reports with every class held: nothing goes.
        c.held = HeldPackets::All;
        let mut q = fq(c);
        fill(&mut q);
        assert_eq!(q.dequeue(T0), None);
    }

    #[test]
    fn udp_only_exact_view_reads_only_the_queues_a_datagram_waits_on() {
        let mut c = cfg(Classify::Destination);
        c.backpressure_threshold = Some(1);
        c.view = ReportView::Exact;
        c.held = HeldPackets::Udp;
        let mut q = fq(c);
        // Class 9: an ACK via 2, then a datagram via 2 and one via 3.
        q.enqueue(tcp_ack(0, 9, 2, 0)).unwrap();
        q.enqueue(pkt(4, 9, 2, None, 1)).unwrap();
        q.enqueue(pkt(4, 9, 3, None, 2)).unwrap();
        let asked: Vec<_> = (0..q.exact_queries())
            .filter_map(|k| q.exact_query(k))
            .collect();
        assert_eq!(asked, [(NodeId(2), NodeId(9)), (NodeId(3), NodeId(9))]);
    }

    #[test]
    fn backpressure_never_holds_a_packet_for_its_destination() {
        let mut c = cfg(Classify::Destination);
        c.backpressure_threshold = Some(1);
        let mut q = fq(c);
        q.enqueue(pkt(0, 2, 2, None, 0)).unwrap();
        let mut heard = pkt(0, 2, 2, None, 1).pkt;
        heard.diffq = Some(DiffqHeader { qlen: 5 });
        q.on_report(NodeId(2), &heard, T0);
        assert_eq!(q.dequeue(T0).unwrap().pkt.seq, 0);
    }

    #[test]
    fn hop_keys_ignore_reports() {
        let mut c = cfg(Classify::NextHop);
        c.backpressure_threshold = Some(1);
        let mut q = fq(c);
        let mut heard = pkt(0, 5, 2, None, 1).pkt;
        heard.diffq = Some(DiffqHeader { qlen: 5 });
        assert!(!q.on_report(NodeId(2), &heard, T0));
        q.enqueue(pkt(0, 5, 2, None, 0)).unwrap();
        assert_eq!(q.dequeue(T0).unwrap().pkt.diffq, None);
    }
}
