//! Backpressure routing and scheduling, classical and TCP-aware (seed 002, section 4.1):
//! per-flow queues whose backlog differences to the neighbours choose both the packet and
//! the neighbour it goes to.
//!
//! * **Queues**: one FIFO per commodity (flow id, destination), so a TCP flow's data and
//!   ACKs are two commodities (the paper's `U_i^s` is per flow and does not place ACKs:
//!   this model's reading). At most `capacity` packets over all queues (`B_i`).
//! * **Overflow** (4.1.4, "a packet from the largest per-flow queue is dropped"): the
//!   longest queue, counting the arrival, loses its tail (ties: smallest commodity) and
//!   the arrival takes its place, at every node since reports are stale. A push-out is one
//!   arrival and one drop, so `received = dropped + enqueued` holds.
//! * **Reports** (4.1.2): every packet handed to the MAC carries its queue's length (the
//!   piggybacked [`DiffqHeader`] `qlen`); every node decoding or overhearing it records it
//!   per (sender, commodity) as `U_j^s`, adding the packets it hands to `j` until `j`
//!   reports again. Reports older than `report_lifetime` (this model's, not the paper's)
//!   count as empty, so a missed report or a lost packet cannot block a link for ever. A
//!   node silent for `control_interval` broadcasts its queue sizes in a control packet
//!   ([`QueueDiscipline::control_reports`], [`Backpressure::advertised`]), repeatedly or only when they
//!   changed since its last report ([`ControlWhen`]).
//! * **Scheduling** (eq. (2)-(4), 4.1.1): for every commodity with packets and every
//!   one-hop neighbour `j`, `D = U_i^s - U_j^s` (classical) or `max(K, U_i^s) - U_j^s`
//!   (TCP-aware; `U_j^s = 0` at the destination, `K = B_i / |S_i|`; a neighbour without
//!   a live report counts as [`UnknownNeighbour`] says), weight
//!   `D * R_ij * (1 - p_ij)` with footnote 2's estimates (module `estimate`) or the
//!   configured rate and loss. The largest positive weight sends its head packet (ties:
//!   commodities at random, then the routing next hop, then the smaller id); otherwise the
//!   interface idles until an arrival, a report or the window changes the weights.
//!   With `avoid_overflow` (footnote 5) a neighbour whose reported queues fill its
//!   buffer is no candidate.
//! * **Forwarding**: the packet joins the chosen neighbour's queue, routing next hop or
//!   not; loops end on the TTL (`DEFAULT_TTL`).
//!
//! Its `[queue]` keys are its registry [`Scheme`](super::registry::Scheme) ([`SCHEME`],
//! `backpressure/scheme.rs`).
//!
//! Tables are dense and indexed (as DiffQ's, `qdisc/reports.rs`): a row per flow seen,
//! a slot per destination, and the commodities with packets listed in (flow, destination)
//! order, which fixes the order of the random tie-breaks.

use super::reports::NeighbourReports;
use super::{Dequeued, QueueCounters, QueueDiscipline, Queued, Routes};
use crate::ids::{FlowId, NodeId};
use crate::medium::wifi::mac::TxStatus;
pub use crate::net::headers::{
    QueueReport, QueueReportsMsg, QUEUE_REPORTS_HEADER_BYTES, QUEUE_REPORT_ENTRY_BYTES,
};
use crate::net::{DiffqHeader, DropReason, Packet};
use airqueue_kernel::{RngStream, Time};
use std::cell::Cell;
use std::collections::VecDeque;

mod estimate;
mod scheme;
pub use estimate::LinkEstimates;
pub use scheme::{config, SCHEME};

/// The backlog difference of eq. (2).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum BackpressureVariant {
    /// `U_i^s - U_j^s` (Tassiulas and Ephremides).
    Classical,
    /// `max(K, U_i^s) - U_j^s` with `K = B_i / |S_i|` (seed 002).
    TcpAware,
}

/// Where the link weight's `R_ij (1 - p_ij)` comes from (section 4.1.1).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum LinkEstimate {
    /// The configured data rate and `[[link]]` loss (a static oracle).
    Configured,
    /// Footnote 2's estimates from the node's own transmissions over the last
    /// `interval` (`T`), counted as `count` says, see [`LinkEstimates`].
    Measured { interval: Time, count: LossCount },
}

/// What footnote 2's "transmitted packets" are.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum LossCount {
    /// Network-layer packets, each a success or a failure by its fate at the MAC (sent,
    /// or dropped at the retry limit): the footnote's words, "successfully transmitted
    /// packets over all transmitted packets", and what a network layer above an 802.11
    /// MAC (ns-2's included) learns of a packet. `R~` is the mean rate of each packet's
    /// attempts.
    Packets,
    /// Frame attempts on the air, retries included: the per-transmission loss `p_l` of
    /// the paper's model (section 2), which a network layer cannot see without the
    /// MAC's retry counts.
    Attempts,
}

/// What `U_j^s` counts as while node `i` holds no live report of it from neighbour `j`
/// (never reported, or the report expired), `j` not the destination (section 4.1.2:
/// "the most recent report (until time t) of the size of U_j^s is used").
///
/// With `Exclude` and `AtK` the routing next hop still counts as empty until it
/// reports: no relay reports a commodity before it has received a packet of it, so
/// without that no flow longer than one hop would start.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum UnknownNeighbour {
    /// An empty queue: eq. (1)'s queues start empty, and a neighbour that never held the
    /// flow has none of it.
    Zero,
    /// Not a candidate for the commodity until it reports it.
    Exclude,
    /// A queue of `K` (this node's `K`): eq. (2)'s `max(K, U_i)` applied to the unseen
    /// side, so an unknown neighbour wins only over an own queue above `K`.
    AtK,
}

/// When an idle node sends section 4.1.2's control packets ("If there is no data
/// transmission for some time duration, our algorithm uses independent control packets
/// to exchange the queue size information").
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ControlWhen {
    /// Every `control_interval` while it sends no data and has something to advertise,
    /// so neighbours' reports of it stay live.
    Idle,
    /// After `control_interval` without data, only when a queue size differs from what
    /// its last report (piggybacked or control) told.
    Changed,
}

/// Settings of the backpressure discipline.
#[derive(Clone, Debug, PartialEq)]
pub struct BackpressureConfig {
    /// `B_i`: node buffer over all per-flow queues, packets.
    pub capacity_pkts: u32,
    pub variant: BackpressureVariant,
    /// How long a neighbour's queue report counts (this model's soft state).
    pub report_lifetime: Time,
    /// Measured or configured link weights.
    pub link_estimate: LinkEstimate,
    /// Section 4.1.2's control packets: a node that has handed no data frame to its MAC
    /// for this long broadcasts its queue sizes
    /// ([`QueueDiscipline::control_reports`]); `None`: off.
    pub control_interval: Option<Time>,
    /// What a neighbour without a live report of a commodity counts as.
    pub unknown_neighbour: UnknownNeighbour,
    /// Whether an idle node repeats its control packets or sends them on change only.
    pub control_when: ControlWhen,
    /// Footnote 5 ("a node does not transmit packets to a next hop if there is
    /// possibility of overflow in the next hop"): no packet goes to a neighbour whose
    /// buffer is believed full (see [`Backpressure::believed_occupancy`]).
    pub avoid_overflow: bool,
}

impl BackpressureConfig {
    /// Configured link weights and no control packets: section 4.1 without footnote 2's
    /// estimates and 4.1.2's control packets.
    pub fn configured(
        capacity_pkts: u32,
        variant: BackpressureVariant,
        report_lifetime: Time,
    ) -> Self {
        BackpressureConfig {
            capacity_pkts,
            variant,
            report_lifetime,
            link_estimate: LinkEstimate::Configured,
            control_interval: None,
            unknown_neighbour: UnknownNeighbour::Zero,
            control_when: ControlWhen::Idle,
            avoid_overflow: false,
        }
    }
}

/// A per-flow queue's key: (flow, destination).
type Commodity = (FlowId, NodeId);

/// `row_of` value of a flow never seen.
const NO_ROW: u32 = u32::MAX;

/// `told` value of a queue never reported.
const NEVER_TOLD: u32 = u32::MAX;

/// `room` values: not worked out yet, room, full.
const ROOM_UNKNOWN: u8 = 0;
const ROOM_YES: u8 = 1;
const ROOM_NO: u8 = 2;

/// What the scheduler chose, before the packet leaves its queue.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Choice {
    pub commodity: (FlowId, NodeId),
    pub next_hop: NodeId,
    pub differential: i64,
    pub weight: f64,
}

/// The backpressure discipline of one node's radio interface.
///
/// Storage is dense (module doc): a row per flow ever seen, found through a
/// flow-indexed vector, with one slot per destination; a commodity's slot is
/// `row * node_count + destination`.
#[derive(Clone, Debug)]
pub struct Backpressure {
    cfg: BackpressureConfig,
    node: NodeId,
    node_count: usize,
    /// Configured `R_ij (1 - p_ij)` in bit/s, dense by neighbour id (1 when never set).
    quality: Vec<f64>,
    /// Configured `R_ij`: what a measured link without transmissions plans with.
    prior_rate: Vec<f64>,
    /// Footnote 2's estimates (`LinkEstimate::Measured`).
    estimates: Option<LinkEstimates>,
    /// The weight factor of each neighbour for the current decision (scratch, dense).
    current: Vec<f64>,
    /// Whether each neighbour's buffer has room for the current decision (footnote 5;
    /// scratch, dense): `ROOM_UNKNOWN` until a choice needs it, then worked out once.
    room: Vec<Cell<u8>>,
    /// Dense by flow id: the flow's row, or `NO_ROW` before its first packet or report.
    row_of: Vec<u32>,
    /// By slot: the commodity's FIFO, empty when it holds no packet (the queue "does not
    /// exist", but keeps its allocation for the next packet).
    queues: Vec<VecDeque<Queued>>,
    /// The commodities holding packets (`S_i`) and their slots, in commodity order: the
    /// order in which the scheduler draws its ties and overflow breaks its ties.
    active: Vec<(Commodity, usize)>,
    /// By row: the last report of (neighbour, destination) and when it was heard.
    reported: Vec<NeighbourReports<(u32, Time)>>,
    /// By slot: when the commodity's queue last emptied (control packets report its zero
    /// while a neighbour may still hold a live report of it); `None` once forgotten.
    emptied_at: Vec<Option<Time>>,
    /// The commodities (and slots) with an `emptied_at` time, one entry per commodity.
    emptied: Vec<(Commodity, usize)>,
    /// By slot: the queue length this node last reported (piggybacked or in a control
    /// packet), `NEVER_TOLD` before its first report.
    told: Vec<u32>,
    total: usize,
    counters: QueueCounters,
    /// Dequeue attempts that found packets but no positive weight.
    held: u64,
    /// Tie-breaking between commodities.
    rng: RngStream,
}

impl Backpressure {
    pub fn new(cfg: BackpressureConfig, node: NodeId, node_count: usize, rng: RngStream) -> Self {
        let estimates = match cfg.link_estimate {
            LinkEstimate::Configured => None,
            LinkEstimate::Measured { interval, .. } => {
                Some(LinkEstimates::new(interval, node_count))
            }
        };
        Backpressure {
            cfg,
            node,
            node_count,
            quality: vec![1.0; node_count],
            prior_rate: vec![1.0; node_count],
            estimates,
            current: vec![0.0; node_count],
            room: vec![Cell::new(ROOM_YES); node_count],
            row_of: Vec::new(),
            queues: Vec::new(),
            active: Vec::new(),
            reported: Vec::new(),
            emptied_at: Vec::new(),
            emptied: Vec::new(),
            told: Vec::new(),
            total: 0,
            counters: QueueCounters::default(),
            held: 0,
            rng,
        }
    }

    /// The slot of commodity `c`, `None` before its flow's first packet or report (or
    /// for a destination outside the network).
    #[inline]
    fn slot(&self, c: Commodity) -> Option<usize> {
        let row = *self.row_of.get(c.0.index())?;
        (row != NO_ROW && c.1.index() < self.node_count)
            .then(|| row as usize * self.node_count + c.1.index())
    }

    /// The slot of commodity `c`, giving its flow a row the first time it is named.
    fn slot_or_insert(&mut self, c: Commodity) -> usize {
        assert!(
            c.0 != FlowId::NONE && c.1.index() < self.node_count,
            "backpressure commodity ({:?}, {:?}) in a network of {} nodes (routing control \
             packets never enter these queues)",
            c.0,
            c.1,
            self.node_count
        );
        if self.row_of.len() <= c.0.index() {
            self.row_of.resize(c.0.index() + 1, NO_ROW);
        }
        if self.row_of[c.0.index()] == NO_ROW {
            self.row_of[c.0.index()] = self.reported.len() as u32;
            self.reported.push(NeighbourReports::new(self.node_count));
            let slots = self.queues.len() + self.node_count;
            self.queues.resize_with(slots, VecDeque::new);
            self.emptied_at.resize(slots, None);
            self.told.resize(slots, NEVER_TOLD);
        }
        self.slot(c).expect("row just given")
    }

    /// The reports of the row holding `slot`.
    #[inline]
    fn reports(&self, slot: usize) -> &NeighbourReports<(u32, Time)> {
        &self.reported[slot / self.node_count]
    }

    pub fn config(&self) -> &BackpressureConfig {
        &self.cfg
    }

    /// Sets `R_ij (1 - p_ij)` for neighbour `j`: `rate_bps` times one minus `loss`.
    pub fn set_link(&mut self, j: NodeId, rate_bps: f64, loss: f64) {
        if let Some(q) = self.quality.get_mut(j.index()) {
            *q = rate_bps * (1.0 - loss);
            self.prior_rate[j.index()] = rate_bps;
        }
    }

    /// The MAC's report on a unicast frame to `j` (`aired` attempts on the air, the last
    /// successful when `success`, at rates summing to `half_mbps` x 0.5 Mb/s): feeds the
    /// measured estimates; ignored with configured ones.
    pub fn on_tx_status(
        &mut self,
        j: NodeId,
        now: Time,
        aired: u32,
        success: bool,
        half_mbps: u32,
    ) {
        let Some(e) = &mut self.estimates else { return };
        match self.cfg.link_estimate {
            LinkEstimate::Measured {
                count: LossCount::Packets,
                ..
            } if aired > 0 => e.record(j, now, 1, success, half_mbps / aired),
            _ => e.record(j, now, aired, success, half_mbps),
        }
    }

    /// `(p~, R~)` of the link to `j` at `now`: footnote 2's estimates, `None` when the
    /// window holds no transmission or the estimates are configured.
    pub fn link_estimate(&mut self, j: NodeId, now: Time) -> Option<(f64, f64)> {
        self.estimates.as_mut()?.estimate(j, now)
    }

    /// The weight factor `R_ij (1 - p_ij)` of the link to `j` at `now`; `pooled`: the
    /// node's estimate over all its links (for a link without attempts of its own).
    fn link_quality(&mut self, j: NodeId, now: Time, pooled: Option<(f64, f64)>) -> f64 {
        let configured = self.quality.get(j.index()).copied().unwrap_or(0.0);
        match &mut self.estimates {
            None => configured,
            Some(e) => match e.estimate(j, now).or(pooled) {
                Some((loss, rate)) => rate * (1.0 - loss),
                // Nothing sent at all: the configured rate, no loss (see `estimate`).
                None => self.prior_rate.get(j.index()).copied().unwrap_or(0.0),
            },
        }
    }

    /// `U_i^s`: this node's queue for `(flow, dst)`.
    pub fn queue_len(&self, flow: FlowId, dst: NodeId) -> usize {
        self.slot((flow, dst)).map_or(0, |s| self.queues[s].len())
    }

    /// Packets held towards `dst`, over all flows.
    pub fn dest_len(&self, dst: NodeId) -> usize {
        let q = self.active.iter().filter(|((_, d), _)| *d == dst);
        q.map(|&(_, s)| self.queues[s].len()).sum()
    }

    /// `U_j^s` as believed at `now`: 0 when `j` is the destination, before any report,
    /// or once the last report has expired (whatever `unknown_neighbour` says).
    pub fn neighbour_len(&self, j: NodeId, c: Commodity, now: Time) -> u32 {
        self.slot(c)
            .and_then(|s| self.believed(j, c, s, now))
            .unwrap_or(0)
    }

    /// `U_j^s` of the commodity in slot `s` as believed at `now`: 0 when `j` is the
    /// destination, the live report plus what this node handed `j` since, `None`
    /// without a live report.
    #[inline]
    fn believed(&self, j: NodeId, c: Commodity, s: usize, now: Time) -> Option<u32> {
        if j == c.1 {
            return Some(0);
        }
        match self.reports(s).get(j, c.1) {
            Some((q, at)) if now < at + self.cfg.report_lifetime => Some(q),
            _ => None,
        }
    }

    /// `U_j^s` as eq. (2) counts it in slot `s` (`k`: `K` now; `routed`: whether `j` is
    /// the routing next hop), `None` when `j` is no candidate ([`UnknownNeighbour`]).
    #[inline]
    fn counted(
        &self,
        j: NodeId,
        c: Commodity,
        s: usize,
        k: i64,
        routed: bool,
        now: Time,
    ) -> Option<i64> {
        if let Some(q) = self.believed(j, c, s, now) {
            return Some(q as i64);
        }
        match self.cfg.unknown_neighbour {
            UnknownNeighbour::Zero => Some(0),
            _ if routed => Some(0),
            UnknownNeighbour::Exclude => None,
            UnknownNeighbour::AtK => Some(k),
        }
    }

    /// `K = B_i / |S_i|` with the commodities now holding packets (`B_i` when none).
    pub fn k(&self) -> i64 {
        self.cfg.capacity_pkts as i64 / self.active.len().max(1) as i64
    }

    /// Neighbour `j`'s buffer occupancy as believed at `now`: the sum of its live reports
    /// over every commodity, each with the packets this node handed it since (footnote
    /// 5's rule reads it against this node's own `B`: one `capacity` for every node).
    /// Commodities it has not reported count as empty.
    pub fn believed_occupancy(&self, j: NodeId, now: Time) -> u64 {
        let lifetime = self.cfg.report_lifetime;
        (self.reported.iter())
            .flat_map(|r| r.row(j).iter().flatten())
            .filter(|&&(_, at)| now < at + lifetime)
            .map(|&(q, _)| q as u64)
            .sum()
    }

    /// Whether `j`'s buffer is believed to have room in the current decision (footnote
    /// 5), worked out on first use and kept in `room`.
    fn has_room_at(&self, j: NodeId, now: Time) -> bool {
        let Some(cell) = self.room.get(j.index()) else {
            return true;
        };
        if cell.get() == ROOM_UNKNOWN {
            let room = self.believed_occupancy(j, now) < self.cfg.capacity_pkts as u64;
            cell.set(if room { ROOM_YES } else { ROOM_NO });
        }
        cell.get() == ROOM_YES
    }

    /// The backlog difference of eq. (2) (or its classical form) for `c` towards `j`,
    /// `j` not the routing next hop; `None` when `j` is no candidate.
    pub fn differential(&self, c: Commodity, j: NodeId, now: Time) -> Option<i64> {
        let s = self.slot(c)?;
        let k = self.k();
        let mine = self.backlog(self.queues[s].len() as i64, k);
        Some(mine - self.counted(j, c, s, k, false, now)?)
    }

    /// The own term of eq. (2) (or its classical form) for a queue of `mine` packets.
    #[inline]
    fn backlog(&self, mine: i64, k: i64) -> i64 {
        match self.cfg.variant {
            BackpressureVariant::Classical => mine,
            BackpressureVariant::TcpAware => mine.max(k),
        }
    }

    /// Whether one more arrival fits without pushing a packet out.
    pub fn has_room(&self) -> bool {
        self.total < self.cfg.capacity_pkts as usize
    }

    /// Appends `q` to the queue of `c` in slot `s`, which joins `S_i` if it was empty.
    fn push(&mut self, c: Commodity, s: usize, q: Queued) {
        if self.queues[s].is_empty() {
            if let Err(i) = self.active.binary_search_by_key(&c, |e| e.0) {
                self.active.insert(i, (c, s));
            }
        }
        self.queues[s].push_back(q);
    }

    /// Accepts a packet. `Err` carries the packet dropped on overflow: the arrival, or
    /// the tail of the longest queue it pushed out (module doc, "Overflow").
    pub fn enqueue(&mut self, q: Queued) -> Result<(), (Queued, DropReason)> {
        self.counters.received += 1;
        let c = (q.pkt.flow, q.pkt.dst);
        let s = self.slot_or_insert(c);
        if self.has_room() {
            self.counters.enqueued += 1;
            self.total += 1;
            self.push(c, s, q);
            return Ok(());
        }
        self.counters.dropped += 1;
        let own = self.queues[s].len() + 1;
        // In commodity order, the first of the longest wins: ties go to the smallest.
        let victim = self
            .active
            .iter()
            .map(|&(k, vs)| (k, vs, self.queues[vs].len()))
            .filter(|&(k, _, n)| k != c && n > own)
            .fold(None::<(usize, usize)>, |best, (_, vs, n)| match best {
                Some((_, m)) if m >= n => best,
                _ => Some((vs, n)),
            });
        let Some((vs, _)) = victim else {
            return Err((q, DropReason::QueueOverflow));
        };
        let dropped = self.queues[vs]
            .pop_back()
            .expect("victim queue is longer than one");
        self.push(c, s, q);
        Err((dropped, DropReason::QueueOverflow))
    }

    /// Records the report a frame from `from` carried, heard at `now`. Returns whether it
    /// was recorded (the differentials may have changed).
    pub fn on_report(&mut self, from: NodeId, pkt: &Packet, now: Time) -> bool {
        let Some(h) = pkt.diffq else {
            return false;
        };
        self.record(from, (pkt.flow, pkt.dst), h.qlen as u32, now);
        true
    }

    /// Records `qlen` as `from`'s last report of `c`, heard at `now`.
    fn record(&mut self, from: NodeId, c: Commodity, qlen: u32, now: Time) {
        let s = self.slot_or_insert(c);
        self.reported[s / self.node_count].insert(from, c.1, (qlen, now));
    }

    /// Records the queue sizes a control packet from `from` carried, heard at `now`,
    /// exactly as piggybacked reports. Returns whether any was recorded.
    pub fn on_control_report(&mut self, from: NodeId, reports: &[QueueReport], now: Time) -> bool {
        for &(flow, dst, qlen) in reports {
            self.record(from, (flow, dst), qlen as u32, now);
        }
        !reports.is_empty()
    }

    /// What a control packet sent at `now` carries (section 4.1.2), written to `out`
    /// (cleared first): the length of every queue holding packets, and a zero for every
    /// commodity whose queue emptied less than `report_lifetime` ago (a neighbour may
    /// still count a live report or its own sends to this node for it). In commodity
    /// order; older emptied entries are forgotten.
    pub fn advertised(&mut self, now: Time, out: &mut Vec<QueueReport>) {
        out.clear();
        let lifetime = self.cfg.report_lifetime;
        let emptied_at = &mut self.emptied_at;
        self.emptied.retain(|&(_, s)| match emptied_at[s] {
            Some(at) if now < at + lifetime => true,
            _ => {
                emptied_at[s] = None;
                false
            }
        });
        self.emptied.sort_unstable_by_key(|e| e.0);
        let mut zeros = self.emptied.iter().map(|e| e.0).peekable();
        for &(c, s) in &self.active {
            while let Some(z) = zeros.next_if(|z| *z < c) {
                out.push((z.0, z.1, 0));
            }
            zeros.next_if(|z| *z == c);
            let len = self.queues[s].len().min(u16::MAX as usize) as u16;
            out.push((c.0, c.1, len));
            self.told[s] = len as u32;
        }
        out.extend(zeros.map(|z| (z.0, z.1, 0)));
        for &(_, s) in &self.emptied {
            self.told[s] = 0;
        }
    }

    /// Whether a queue size differs from what this node last reported of it (piggybacked
    /// or in a control packet): what `ControlWhen::Changed` sends a control packet for.
    /// A queue empties only by a dequeue, whose frame reports the zero, so the queues
    /// holding packets are the only ones to check.
    pub fn changed_since_report(&self) -> bool {
        (self.active.iter())
            .any(|&(_, s)| self.told[s] != self.queues[s].len().min(u16::MAX as usize) as u32)
    }

    /// The (commodity, neighbour) of largest weight among `neighbours` (module doc,
    /// "Scheduling"), positive or not; `None` without packets or neighbours. For one
    /// commodity, ties between neighbours go to `route(dst)`, the routing next hop, then
    /// to the smaller id; ties between commodities are broken uniformly at random from
    /// the node's stream (section 3, Example 2: with `K` both flows "get equal chance").
    pub fn choose(
        &mut self,
        neighbours: &[NodeId],
        route: impl Fn(NodeId) -> Option<NodeId>,
        now: Time,
    ) -> Option<Choice> {
        let pooled = self.estimates.as_mut().and_then(|e| e.pooled(now));
        for &j in neighbours {
            if j.index() < self.current.len() {
                self.current[j.index()] = self.link_quality(j, now, pooled);
                let room = if self.cfg.avoid_overflow {
                    ROOM_UNKNOWN
                } else {
                    ROOM_YES
                };
                self.room[j.index()].set(room);
            }
        }
        let k = self.k();
        let mut best: Option<Choice> = None;
        let mut ties = 0u32;
        // In commodity order, as the reservoir's draws must come.
        for &(c, s) in &self.active {
            let Some(mine) = self.best_link(c, s, k, neighbours, route(c.1), now) else {
                continue;
            };
            match &best {
                Some(b) if mine.weight < b.weight => {}
                Some(b) if mine.weight == b.weight => {
                    // Reservoir sampling: each tied commodity is chosen with equal
                    // probability in one pass.
                    ties += 1;
                    if self.rng.below_inclusive(ties - 1) == 0 {
                        best = Some(mine);
                    }
                }
                _ => {
                    best = Some(mine);
                    ties = 1;
                }
            }
        }
        best
    }

    /// The neighbour of largest weight for commodity `c` in slot `s` (`k`: `K` now;
    /// `routed`: its routing next hop, which wins ties; then the smaller id).
    fn best_link(
        &self,
        c: Commodity,
        s: usize,
        k: i64,
        neighbours: &[NodeId],
        routed: Option<NodeId>,
        now: Time,
    ) -> Option<Choice> {
        let mine = self.backlog(self.queues[s].len() as i64, k);
        let mut best: Option<(Choice, bool)> = None;
        for &j in neighbours {
            let on_route = routed == Some(j);
            let Some(theirs) = self.counted(j, c, s, k, on_route, now) else {
                continue;
            };
            let differential = mine - theirs;
            let quality = self.current.get(j.index()).copied().unwrap_or(0.0);
            let weight = differential as f64 * quality;
            let better = match &best {
                None => true,
                Some((b, b_route)) => {
                    weight > b.weight || (weight == b.weight && on_route && !b_route)
                }
            };
            // Footnote 5: not into a full buffer; the destination keeps none of `c`. Only
            // a neighbour that would win needs the (memoised) occupancy.
            if better && (j == c.1 || self.has_room_at(j, now)) {
                let choice = Choice {
                    commodity: c,
                    next_hop: j,
                    differential,
                    weight,
                };
                best = Some((choice, on_route));
            }
        }
        best.map(|b| b.0)
    }

    /// Hands the chosen head packet to the MAC at `now`, addressed to the chosen
    /// neighbour and carrying its queue's remaining length; `None` (hold) when no weight
    /// is positive.
    pub fn dequeue(
        &mut self,
        neighbours: &[NodeId],
        route: impl Fn(NodeId) -> Option<NodeId>,
        now: Time,
    ) -> Option<Dequeued> {
        let choice = self.choose(neighbours, route, now)?;
        if choice.weight <= 0.0 {
            self.held += 1;
            return None;
        }
        let c = choice.commodity;
        let s = self.slot(c).expect("chosen queue exists");
        let queue = &mut self.queues[s];
        let mut q = queue.pop_front().expect("queues with packets only");
        let remaining = queue.len();
        if remaining == 0 {
            let i = self
                .active
                .binary_search_by_key(&c, |e| e.0)
                .expect("a queue with packets is active");
            self.active.remove(i);
            if self.cfg.control_interval.is_some() {
                if self.emptied_at[s].is_none() {
                    self.emptied.push((c, s));
                }
                self.emptied_at[s] = Some(now);
            }
        }
        let qlen = remaining.min(u16::MAX as usize) as u16;
        q.pkt.diffq = Some(DiffqHeader { qlen });
        self.told[s] = qlen as u32;
        let j = choice.next_hop;
        if j != c.1 {
            let lifetime = self.cfg.report_lifetime;
            let e = self.reported[s / self.node_count]
                .entry(j, c.1)
                .get_or_insert((0, now));
            let base = if now < e.1 + lifetime { e.0 } else { 0 };
            *e = (base.saturating_add(1), now);
        }
        self.total -= 1;
        self.counters.dequeued += 1;
        Some(Dequeued {
            priority: q.pkt.priority,
            pkt: q.pkt,
            next_hop: j,
        })
    }

    /// When a held interface should be asked again: the earliest expiry, after `now`, of
    /// a live report about a commodity queued here. `None` when nothing is held back.
    pub fn release_at(&self, now: Time) -> Option<Time> {
        if self.active.is_empty() {
            return None;
        }
        let lifetime = self.cfg.report_lifetime;
        let expiry = self
            .active
            .iter()
            .flat_map(|&(c, s)| self.reports(s).reports_of(c.1))
            .map(|(_, at)| at + lifetime)
            .filter(|&until| until > now)
            .min();
        // Footnote 5: a full neighbour frees up as any of its reports expires.
        let expiry = match self.cfg.avoid_overflow {
            false => expiry,
            true => (self.reported.iter())
                .flat_map(|r| r.all())
                .map(|(_, at)| at + lifetime)
                .filter(|&until| until > now)
                .chain(expiry)
                .min(),
        };
        let bucket = self.estimates.as_ref().map(|e| e.next_bucket(now));
        match (expiry, bucket) {
            (Some(a), Some(b)) => Some(a.min(b)),
            (a, b) => a.or(b),
        }
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

    /// Dequeue attempts held back because no weight was positive.
    pub fn held(&self) -> u64 {
        self.held
    }

    pub fn node(&self) -> NodeId {
        self.node
    }

    /// Every packet held (end-of-run accounting), in commodity order.
    pub fn iter(&self) -> impl Iterator<Item = &Queued> {
        self.active.iter().flat_map(|&(_, s)| self.queues[s].iter())
    }
}

impl QueueDiscipline for Backpressure {
    fn enqueue(&mut self, q: Queued, _now: Time) -> Result<(), (Queued, DropReason)> {
        Backpressure::enqueue(self, q)
    }
    /// Chooses among the 802.11 neighbours, in id order, the routing table reaches.
    fn dequeue(&mut self, routes: &dyn Routes, now: Time) -> Option<Dequeued> {
        let node = self.node();
        let neighbours = routes.neighbours(node);
        Backpressure::dequeue(self, neighbours, |dst| routes.next_hop(node, dst), now)
    }
    fn len(&self) -> usize {
        Backpressure::len(self)
    }
    fn has_room(&self, _src: NodeId, _dst: NodeId, _next_hop: NodeId, _with_report: bool) -> bool {
        Backpressure::has_room(self)
    }
    fn control_interval(&self) -> Option<Time> {
        self.cfg.control_interval
    }
    /// [`ControlWhen::Changed`] sends only when a queue size moved since the last report.
    fn control_reports(&mut self, now: Time, out: &mut Vec<QueueReport>) {
        if self.cfg.control_when == ControlWhen::Changed && !self.changed_since_report() {
            return;
        }
        self.advertised(now, out);
    }
    fn on_control_reports(&mut self, from: NodeId, reports: &[QueueReport], now: Time) -> bool {
        self.on_control_report(from, reports, now)
    }
    fn counters(&self) -> QueueCounters {
        Backpressure::counters(self)
    }
    fn on_report(&mut self, from: NodeId, pkt: &Packet, now: Time) -> bool {
        Backpressure::on_report(self, from, pkt, now)
    }
    /// Feeds the measured link estimates (footnote 2).
    fn on_tx_status(&mut self, st: &TxStatus, now: Time) {
        Backpressure::on_tx_status(
            self,
            st.next_hop,
            now,
            st.aired,
            st.success,
            st.aired_half_mbps,
        )
    }
    fn release_at(&self, now: Time) -> Option<Time> {
        Backpressure::release_at(self, now)
    }
    fn queue_len_for(&self, dst: NodeId) -> usize {
        self.dest_len(dst)
    }
    /// The per-flow queue `U_i^s` of commodity (flow, dst) (eq. (5)).
    fn commodity_len(&self, flow: FlowId, dst: NodeId) -> usize {
        self.queue_len(flow, dst)
    }
}

#[cfg(test)]
mod tests;
