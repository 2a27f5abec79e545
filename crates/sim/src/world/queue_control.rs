//! A queue discipline's own control broadcasts: the queue sizes an idle node sends when
//! no data frame carries them (seed 002, 4.1.2: "If there is no data transmission for
//! some time duration, our algorithm uses independent control packets to exchange the
//! queue size information"). The world runs them for any discipline whose
//! [`QueueDiscipline::control_interval`](crate::qdisc::QueueDiscipline::control_interval)
//! is set; the discipline decides what a broadcast carries and what it makes of one.
//!
//! * **When**: a node that handed no data frame to its MAC for the interval is asked for
//!   its reports ([`control_reports`](crate::qdisc::QueueDiscipline::control_reports)),
//!   then again every interval while idle; each check is jittered by up to a quarter
//!   interval from the node's "bp.control.jitter" stream (RFC 5148 5.4), so idle nodes
//!   do not keep colliding. No reports, no broadcast.
//! * **On the air** ([`QueueReportsMsg::size_bytes`]): UDP/IP, a 4-byte header and 12 bytes
//!   per entry, broadcast at the basic rate through the control FIFO ahead of data,
//!   outside the data packets' conservation law ([`QueueControlStats`]). Bodies live in a
//!   ring named by the packet (as OLSR's); one overwritten before its packet is heard is
//!   lost.

use super::{Event, Iface, World};
use crate::ids::NodeId;
use crate::medium::wifi::BROADCAST;
use crate::net::control::ControlQueues;
use crate::net::headers::{QueueReport, QueueReportsMsg};
use crate::net::TransportHeader;
use airqueue_kernel::Time;

/// Per-node counters of the queue disciplines' control broadcasts.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct QueueControlStats {
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
pub(super) struct QueueControlNet {
    interval: Time,
    control: ControlQueues,
    /// When each node last handed a data frame to its MAC.
    last_data: Vec<Time>,
    /// The ring of bodies: (id, entries); vectors are reused.
    bodies: Vec<(u64, Vec<QueueReport>)>,
    next_body: u64,
    /// The reports of the check under way (swapped into the ring when sent).
    scratch: Vec<QueueReport>,
    stats: Vec<QueueControlStats>,
}

impl QueueControlNet {
    pub(super) fn new(node_count: usize, seed: u64, interval: Time) -> Self {
        QueueControlNet {
            interval,
            control: ControlQueues::new(node_count, seed, "bp.control.jitter", 8),
            last_data: vec![Time::ZERO; node_count],
            bodies: (0..(BODIES_PER_NODE * node_count).max(1))
                .map(|_| (u64::MAX, Vec::new()))
                .collect(),
            next_body: 0,
            scratch: Vec::new(),
            stats: vec![QueueControlStats::default(); node_count],
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

    pub(super) fn stats(&self) -> Vec<QueueControlStats> {
        self.stats.clone()
    }
}

impl World {
    /// Starts every node's idle check, if the radio nodes' discipline asks for them.
    pub(super) fn queue_control_start(&mut self) {
        let Some(c) = &mut self.queue_control else {
            return;
        };
        for i in 0..self.node_count {
            let node = NodeId(i as u32);
            let at = c.next_check(node, Time::ZERO);
            self.events.schedule_in(at, Event::QueueControl(node));
        }
    }

    /// `node`'s idle check: a control broadcast if it sent no data for an interval and
    /// its discipline has reports, and the next check.
    pub(super) fn queue_control_check(&mut self, node: NodeId) {
        let now = self.events.now();
        let (Some(c), Some(w)) = (&mut self.queue_control, &mut self.wifi) else {
            return;
        };
        let idle_since = c.last_data[node.index()];
        if now < idle_since + c.interval {
            // Data went out since: idle one interval after it (no jitter here, the data
            // frame's own timing is not synchronised with the neighbours').
            let at = idle_since + c.interval;
            self.events.schedule_in(at - now, Event::QueueControl(node));
            return;
        }
        let at = c.next_check(node, now);
        self.events.schedule_in(at - now, Event::QueueControl(node));
        if !w.net.has_radio(node) {
            return;
        }
        c.scratch.clear();
        w.qdiscs[node.index()].control_reports(now, &mut c.scratch);
        if c.scratch.is_empty() {
            return;
        }
        let id = c.next_body;
        c.next_body += 1;
        let slot = (id % c.bodies.len() as u64) as usize;
        let body = &mut c.bodies[slot];
        body.0 = id;
        std::mem::swap(&mut body.1, &mut c.scratch);
        let entries = body.1.len().min(u16::MAX as usize) as u16;
        let msg = QueueReportsMsg { body: id, entries };
        let pkt = self.control_packet(node, BROADCAST, TransportHeader::QueueReports(msg), 1);
        let Some(c) = &mut self.queue_control else {
            return;
        };
        let st = &mut c.stats[node.index()];
        if c.control.push(node, pkt, BROADCAST, now) {
            st.sent += 1;
            st.entries_sent += entries as u64;
            self.kick(Iface::Wifi(node));
        } else {
            st.lost += 1;
        }
    }

    /// A control broadcast from `from` reached `node`: its entries go to `node`'s
    /// discipline.
    pub(super) fn queue_control_receive(
        &mut self,
        node: NodeId,
        from: NodeId,
        msg: QueueReportsMsg,
    ) {
        let now = self.events.now();
        let (Some(c), Some(w)) = (&mut self.queue_control, &mut self.wifi) else {
            return;
        };
        let body = &c.bodies[(msg.body % c.bodies.len() as u64) as usize];
        if body.0 != msg.body {
            c.stats[node.index()].lost += 1;
            return;
        }
        c.stats[node.index()].received += 1;
        if w.qdiscs[node.index()].on_control_reports(from, &body.1, now) {
            self.kick(Iface::Wifi(node));
        }
    }
}
