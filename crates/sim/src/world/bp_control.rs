//! Backpressure's idle control packets (seed 002, section 4.1.2: "If there is no data
//! transmission for some time duration, our algorithm uses independent control packets
//! to exchange the queue size information").
//!
//! * **When**: a node whose discipline handed no data frame to its MAC for
//!   `control_interval` broadcasts one, then every `control_interval` while idle and with
//!   something to advertise; each check is jittered by up to a quarter interval from the
//!   node's "bp.control.jitter" stream (RFC 5148 5.4), so idle nodes do not keep colliding.
//!   With [`ControlWhen::Changed`] a check sends only when a queue size differs from
//!   what the node last reported.
//! * **What**: [`Backpressure::advertised`](crate::qdisc::Backpressure::advertised), read
//!   by receivers as piggybacked reports with the same `report_lifetime`.
//! * **On the air** ([`BpControlMsg::size_bytes`]): UDP/IP, a 4-byte header and 12 bytes
//!   per entry, broadcast at the basic rate through the control FIFO ahead of data
//!   (`world/control.rs`), outside the data packets' conservation law ([`BpControlStats`]).
//!   Bodies live in a ring named by the packet (as OLSR's); one overwritten before its
//!   packet is heard is lost.

use super::{Event, Iface, World};
use crate::ids::NodeId;
use crate::medium::wifi::BROADCAST;
use crate::net::control::ControlQueues;
use crate::net::TransportHeader;
use crate::qdisc::backpressure::{BpControlMsg, ControlWhen, QueueReport};
use crate::qdisc::Backpressure;
use airqueue_kernel::Time;

/// Per-node counters of backpressure control packets.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct BpControlStats {
    /// Control packets handed to the control FIFO.
    pub sent: u64,
    /// Queue entries they carried.
    pub entries_sent: u64,
    /// Control packets decoded from neighbours.
    pub received: u64,
    /// Packets refused by a full control FIFO, or heard after their body was reused.
    pub lost: u64,
}

/// Bodies kept per node (the ring holds this many times the node count).
const BODIES_PER_NODE: usize = 16;

/// Every node's control state.
pub(super) struct BpControlNet {
    interval: Time,
    control: ControlQueues,
    /// When each node last handed a data frame to its MAC.
    last_data: Vec<Time>,
    /// The ring of bodies: (id, entries); vectors are reused.
    bodies: Vec<(u64, Vec<QueueReport>)>,
    next_body: u64,
    stats: Vec<BpControlStats>,
}

impl BpControlNet {
    pub(super) fn new(node_count: usize, seed: u64, interval: Time) -> Self {
        BpControlNet {
            interval,
            control: ControlQueues::new(node_count, seed, "bp.control.jitter", 8),
            last_data: vec![Time::ZERO; node_count],
            bodies: (0..(BODIES_PER_NODE * node_count).max(1))
                .map(|_| (u64::MAX, Vec::new()))
                .collect(),
            next_body: 0,
            stats: vec![BpControlStats::default(); node_count],
        }
    }

    /// The next check of `node`, `from` on: one interval less up to a quarter.
    fn next_check(&mut self, node: NodeId, from: Time) -> Time {
        let jitter = self
            .control
            .jitter(node, Time::from_nanos(self.interval.as_nanos() / 4));
        from + self.interval - jitter
    }

    /// `node` handed a data frame to its MAC at `now`.
    #[inline]
    pub(super) fn on_data(&mut self, node: NodeId, now: Time) {
        self.last_data[node.index()] = now;
    }

    #[inline]
    pub(super) fn pop_control(
        &mut self,
        node: NodeId,
        now: Time,
    ) -> Option<crate::qdisc::Dequeued> {
        self.control.pop(node, now)
    }

    pub(super) fn stats(&self) -> Vec<BpControlStats> {
        self.stats.clone()
    }
}

impl World {
    /// Starts every radio node's idle timer.
    pub(super) fn bp_control_start(&mut self) {
        let Some(b) = &mut self.bp_control else {
            return;
        };
        for i in 0..self.node_count {
            let node = NodeId(i as u32);
            let at = b.next_check(node, Time::ZERO);
            self.events.schedule_in(at, Event::BpIdle(node));
        }
    }

    /// `node`'s idle timer: a control packet if it sent no data for an interval, and
    /// the next check.
    pub(super) fn bp_idle(&mut self, node: NodeId) {
        let now = self.events.now();
        let (Some(b), Some(w)) = (&mut self.bp_control, &mut self.wifi) else {
            return;
        };
        let idle_since = b.last_data[node.index()];
        if now < idle_since + b.interval {
            // Data went out since: idle one interval after it (no jitter here, the data
            // frame's own timing is not synchronised with the neighbours').
            let at = idle_since + b.interval;
            self.events.schedule_in(at - now, Event::BpIdle(node));
            return;
        }
        let at = b.next_check(node, now);
        self.events.schedule_in(at - now, Event::BpIdle(node));
        let Some(q) = w.qdiscs[node.index()].downcast_mut::<Backpressure>() else {
            return;
        };
        if !w.net.has_radio(node) {
            return;
        }
        if q.config().control_when == ControlWhen::Changed && !q.changed_since_report() {
            return;
        }
        let id = b.next_body;
        let slot = (id % b.bodies.len() as u64) as usize;
        let body = &mut b.bodies[slot];
        q.advertised(now, &mut body.1);
        if body.1.is_empty() {
            return;
        }
        b.next_body += 1;
        body.0 = id;
        let entries = body.1.len().min(u16::MAX as usize) as u16;
        let msg = BpControlMsg { body: id, entries };
        let pkt = self.control_packet(node, BROADCAST, TransportHeader::BpControl(msg), 1);
        let Some(b) = &mut self.bp_control else {
            return;
        };
        let st = &mut b.stats[node.index()];
        if b.control.push(node, pkt, BROADCAST, now) {
            st.sent += 1;
            st.entries_sent += entries as u64;
            self.kick(Iface::Wifi(node));
        } else {
            st.lost += 1;
        }
    }

    /// A control packet from `from` reached `node`: its entries become reports.
    pub(super) fn bp_control_receive(&mut self, node: NodeId, from: NodeId, msg: BpControlMsg) {
        let now = self.events.now();
        let (Some(b), Some(w)) = (&mut self.bp_control, &mut self.wifi) else {
            return;
        };
        let body = &b.bodies[(msg.body % b.bodies.len() as u64) as usize];
        if body.0 != msg.body {
            b.stats[node.index()].lost += 1;
            return;
        }
        b.stats[node.index()].received += 1;
        let Some(q) = w.qdiscs[node.index()].downcast_mut::<Backpressure>() else {
            return;
        };
        if q.on_control_report(from, &body.1, now) {
            self.kick(Iface::Wifi(node));
        }
    }
}
