//! AODV glue (RFC 3561): carries the control messages of `net::aodv` over the 802.11
//! MAC, holds the packets that wait for a route, and turns MAC feedback into link breaks.
//!
//! * Control packets go out through the node's own MAC at level 0, ahead of the queue
//!   discipline's data (ns-2's PriQueue puts routing packets at the head of the interface
//!   queue): the MAC pulls from a per-node control FIFO first. Broadcasts (RREQs,
//!   originated or relayed, and RERRs) wait a uniform jitter of up to `max_jitter`
//!   first, drawn from the node's "aodv.jitter" stream.
//! * Control packets belong to no flow: they are not counted as created, delivered or
//!   dropped packets (the conservation law is about data), but their bytes take air
//!   time and the MAC counters include them. Their losses are counted in
//!   `AodvStats::control_drops`.
//! * Link breaks (`LinkDetection`): by default a unicast frame that reaches the MAC
//!   retry limit is a link break (link-layer feedback, as ns-2's AODV does). With hello
//!   detection (RFC 3561 6.9) every packet a node receives or overhears marks its sender
//!   alive, each node's HELLO_INTERVAL timer sends HELLOs (jittered like the other
//!   broadcasts) and reports next hops silent for ALLOWED_HELLO_LOSS * HELLO_INTERVAL
//!   as broken, and MAC failures are only drops. Either way the routes through that
//!   neighbour break and the packets queued for it leave the queue: those this node
//!   generated wait for a new route, the others are dropped (`DropReason::LinkBroken`).
//!   A frame that reached the retry limit stays a `MacRetryLimit` drop.
//! * Local repair (RFC 3561 6.12, `AodvConfig::local_repair`, off by default): the
//!   relayed packets queued for the lost neighbour, those that arrive later and the
//!   destination of the frame that reached the retry limit start a repair of their
//!   route when the state machine flagged it repairable; the packets wait in the node's
//!   buffer (in flight, like a source's) with the neighbour they came from, go on when
//!   the route is found and are dropped as `RouteDiscoveryFailed` when it is not.

use super::control::ControlQueues;
use super::{Event, Iface, World};
use crate::ids::NodeId;
use crate::medium::wifi::BROADCAST;
use crate::net::aodv::{
    Action, AodvConfig, AodvMsg, AodvNode, AodvStats, AodvTimer, Buffer, LinkDetection,
};
use crate::net::{DropReason, Packet, TransportHeader};
use crate::qdisc::{Dequeued, Queued};
use airqueue_kernel::{EventQueue, Time};

/// Every node's AODV state and what the world keeps for it.
pub(super) struct AodvNet {
    cfg: AodvConfig,
    nodes: Vec<AodvNode>,
    buffers: Vec<Buffer>,
    control: ControlQueues,
    /// Scratch lists, reused.
    actions: Vec<Action>,
    packets: Vec<(Packet, NodeId)>,
    removed: Vec<Queued>,
}

impl AodvNet {
    /// With hello detection, arms every node's first HELLO_INTERVAL tick.
    pub(super) fn new(
        cfg: AodvConfig,
        node_count: usize,
        seed: u64,
        events: &mut EventQueue<Event>,
    ) -> Self {
        if cfg.link_detection == LinkDetection::Hello {
            for i in 0..node_count {
                events.schedule_in(
                    cfg.hello_interval,
                    Event::Aodv(NodeId(i as u32), AodvTimer::Hello),
                );
            }
        }
        AodvNet {
            cfg,
            nodes: (0..node_count)
                .map(|i| AodvNode::new(NodeId(i as u32), node_count, cfg))
                .collect(),
            buffers: (0..node_count)
                .map(|_| Buffer::new(cfg.buffer_capacity))
                .collect(),
            control: ControlQueues::new(
                node_count,
                seed,
                "aodv.jitter",
                cfg.control_queue_capacity,
            ),
            actions: Vec::new(),
            packets: Vec::new(),
            removed: Vec::new(),
        }
    }

    /// The next hop of `node`'s active route to `dst`, without refreshing it.
    #[inline]
    pub(super) fn next_hop(&self, node: NodeId, dst: NodeId, now: Time) -> Option<NodeId> {
        self.nodes[node.index()].next_hop(dst, now)
    }

    /// The next hop for a data packet, refreshing the routes it uses (RFC 3561 6.2).
    #[inline]
    pub(super) fn use_route(
        &mut self,
        node: NodeId,
        pkt: &Packet,
        prev: NodeId,
        now: Time,
    ) -> Option<NodeId> {
        self.nodes[node.index()].use_route(pkt.src, pkt.dst, prev, now)
    }

    /// Data packets waiting for routes (they count as in flight).
    pub(super) fn buffered(&self) -> usize {
        self.buffers.iter().map(Buffer::len).sum()
    }

    /// The first control packet of `node` due at `now`, for its MAC (level 0).
    #[inline]
    pub(super) fn pop_control(&mut self, node: NodeId, now: Time) -> Option<Dequeued> {
        self.control.pop(node, now)
    }

    pub(super) fn stats(&self) -> Vec<AodvStats> {
        self.nodes.iter().map(|n| n.stats).collect()
    }
}

impl World {
    /// With AODV: the next hop and hop count of `node`'s active route to `dst` now.
    pub fn aodv_route(&self, node: NodeId, dst: NodeId) -> Option<(NodeId, u8)> {
        let now = self.events.now();
        let r = self.aodv.as_ref()?.nodes.get(node.index())?;
        r.table()
            .active(dst, now)
            .map(|r| (r.next_hop, r.hop_count))
    }

    fn aodv(&mut self) -> &mut AodvNet {
        self.aodv.as_mut().expect("AODV glue called without AODV")
    }

    /// `node` has no route for `pkt`, which came from `prev` (`node` itself: generated
    /// here). A source buffers it and looks for a route; a forwarder holds it while it
    /// repairs the route locally (6.12, when on), or else drops it and reports the
    /// destination unreachable (RFC 3561 6.11 case ii).
    pub(super) fn aodv_no_route(&mut self, node: NodeId, prev: NodeId, pkt: Packet) {
        let now = self.events.now();
        let dst = pkt.dst;
        if prev != node {
            let Some(pkt) = self.aodv_try_repair(node, prev, pkt) else {
                return;
            };
            self.metrics
                .on_packet_dropped(node, DropReason::NoRoute, &pkt);
            let a = self.aodv();
            let mut out = std::mem::take(&mut a.actions);
            a.nodes[node.index()].on_no_route(dst, prev, now, &mut out);
            return self.aodv_act(node, out);
        }
        let a = self.aodv();
        let mut out = std::mem::take(&mut a.actions);
        a.nodes[node.index()].start_discovery(dst, now, &mut out);
        self.aodv_hold(node, node, pkt, out);
    }

    /// Holds `pkt`, received from `prev`, in `node`'s buffer until a route is found, then
    /// carries out `out`.
    fn aodv_hold(&mut self, node: NodeId, prev: NodeId, pkt: Packet, mut out: Vec<Action>) {
        let now = self.events.now();
        let a = self.aodv();
        let expires = now + a.cfg.buffer_timeout;
        let evicted = a.buffers[node.index()].push(pkt, prev, expires);
        out.push(Action::Arm {
            at: expires,
            timer: AodvTimer::Buffer,
        });
        if let Some(p) = evicted {
            self.metrics
                .on_packet_dropped(node, DropReason::NoRouteBufferFull, &p);
        }
        self.aodv_act(node, out);
    }

    /// An AODV message `pkt` from neighbour `from` reached `node`.
    pub(super) fn aodv_receive(&mut self, node: NodeId, from: NodeId, pkt: Packet) {
        let now = self.events.now();
        let TransportHeader::Aodv(msg) = pkt.transport else {
            return;
        };
        let a = self.aodv();
        let mut out = std::mem::take(&mut a.actions);
        let n = &mut a.nodes[node.index()];
        match msg {
            AodvMsg::Rreq(r) => n.on_rreq(from, pkt.ttl, r, now, &mut out),
            AodvMsg::Rrep(r) => n.on_rrep(from, r, now, &mut out),
            AodvMsg::Rerr(r) => n.on_rerr(from, r, now, &mut out),
        }
        self.aodv_act(node, out);
    }

    /// A data packet from `from` reached its destination `node`: the routes back to its
    /// source are in use (RFC 3561 6.2).
    pub(super) fn aodv_delivered(&mut self, node: NodeId, from: NodeId, pkt: &Packet) {
        let now = self.events.now();
        if let Some(a) = &mut self.aodv {
            a.nodes[node.index()].refresh_reverse(pkt.src, from, now);
        }
    }

    /// One of `node`'s AODV timers fired.
    pub(super) fn aodv_timer(&mut self, node: NodeId, timer: AodvTimer) {
        let now = self.events.now();
        match timer {
            AodvTimer::Discovery { generation } => {
                let a = self.aodv();
                let mut out = std::mem::take(&mut a.actions);
                a.nodes[node.index()].on_discovery_timeout(generation, now, &mut out);
                self.aodv_act(node, out);
            }
            AodvTimer::Jitter => self.kick(Iface::Wifi(node)),
            AodvTimer::Hello => {
                let a = self.aodv();
                let mut out = std::mem::take(&mut a.actions);
                a.nodes[node.index()].on_hello_timer(now, &mut out);
                self.aodv_act(node, out);
            }
            AodvTimer::Buffer => {
                let a = self.aodv();
                let mut pkts = std::mem::take(&mut a.packets);
                a.buffers[node.index()].take_expired(now, &mut pkts);
                let any = !pkts.is_empty();
                for (p, _) in pkts.drain(..) {
                    self.metrics
                        .on_packet_dropped(node, DropReason::NoRouteTimeout, &p);
                }
                self.aodv().packets = pkts;
                if any {
                    self.restart_saturating(node);
                }
            }
        }
    }

    /// `node` received or overheard a packet from its neighbour `from` (hello
    /// detection's liveness; nothing without AODV or with MAC detection).
    #[inline]
    pub(super) fn aodv_heard(&mut self, node: NodeId, from: NodeId) {
        let now = self.events.now();
        if let Some(a) = &mut self.aodv {
            a.nodes[node.index()].heard(from, now);
        }
    }

    /// The MAC of `node` gave up on a unicast frame to `next`: a link break with MAC
    /// detection, nothing more than the drop with hello detection.
    pub(super) fn aodv_tx_failed(&mut self, node: NodeId, next: NodeId) {
        if self
            .aodv
            .as_ref()
            .is_some_and(|a| a.cfg.link_detection == LinkDetection::Mac)
        {
            self.aodv_link_break(node, next);
        }
    }

    /// The link from `node` to `next` broke (RFC 3561 6.11 case i).
    pub(super) fn aodv_link_break(&mut self, node: NodeId, next: NodeId) {
        let now = self.events.now();
        let a = self.aodv();
        let mut out = std::mem::take(&mut a.actions);
        a.nodes[node.index()].on_link_break(next, now, &mut out);
        // Control packets for that neighbour will not get through either.
        let lost = a.control.remove_to(node, next);
        a.nodes[node.index()].stats.control_drops += lost as u64;
        let mut removed = std::mem::take(&mut a.removed);
        if let Some(w) = &mut self.wifi {
            w.qdiscs[node.index()].remove_next_hop(next, &mut removed);
        }
        self.aodv_act(node, out);
        for q in removed.drain(..) {
            if q.prev_hop == node {
                // Generated here: look for a new route.
                self.forward(node, q.pkt);
            } else if let Some(p) = self.aodv_try_repair(node, q.prev_hop, q.pkt) {
                self.metrics
                    .on_packet_dropped(node, DropReason::LinkBroken, &p);
            }
        }
        self.aodv().removed = removed;
    }

    /// Local repair (RFC 3561 6.12): if the route of `pkt`, which `node` relays for
    /// `prev`, is being repaired or may be, holds it (starting the repair); else hands
    /// it back. Always hands it back without local repair.
    fn aodv_try_repair(&mut self, node: NodeId, prev: NodeId, pkt: Packet) -> Option<Packet> {
        let now = self.events.now();
        let a = self.aodv();
        if !a.cfg.local_repair {
            return Some(pkt);
        }
        let mut out = std::mem::take(&mut a.actions);
        if !a.nodes[node.index()].start_repair(pkt.dst, pkt.src, now, &mut out) {
            a.actions = out;
            return Some(pkt);
        }
        self.aodv_hold(node, prev, pkt, out);
        None
    }

    /// A data frame `pkt` that `node` relayed reached the MAC retry limit (and was
    /// dropped): with local repair, the repair of its route starts now (RFC 3561 6.12:
    /// for the destination the undeliverable packet was travelling to).
    pub(super) fn aodv_relay_failed(&mut self, node: NodeId, pkt: &Packet) {
        let now = self.events.now();
        let Some(a) = self.aodv.as_mut().filter(|a| a.cfg.local_repair) else {
            return;
        };
        if pkt.src == node {
            return;
        }
        let mut out = std::mem::take(&mut a.actions);
        a.nodes[node.index()].start_repair(pkt.dst, pkt.src, now, &mut out);
        self.aodv_act(node, out);
    }

    /// Carries out what `node`'s state machine asked for, then hands `out` back for
    /// reuse.
    fn aodv_act(&mut self, node: NodeId, mut out: Vec<Action>) {
        let now = self.events.now();
        for act in out.drain(..) {
            match act {
                Action::Send {
                    msg,
                    to,
                    ttl,
                    jitter,
                } => self.aodv_send(node, msg, to, ttl, jitter),
                Action::Arm { at, timer } => {
                    self.events
                        .schedule_in(at.saturating_sub(now), Event::Aodv(node, timer));
                }
                Action::RouteFound(dst) => {
                    let a = self.aodv();
                    let mut pkts = std::mem::take(&mut a.packets);
                    a.buffers[node.index()].take_for(dst, &mut pkts);
                    // A nested call finding the scratch list taken gets a new one.
                    for (p, prev) in pkts.drain(..) {
                        self.forward_from(node, prev, p);
                    }
                    self.aodv().packets = pkts;
                }
                Action::DiscoveryFailed(dst) => {
                    let a = self.aodv();
                    let mut pkts = std::mem::take(&mut a.packets);
                    a.buffers[node.index()].take_for(dst, &mut pkts);
                    for (p, _) in pkts.drain(..) {
                        self.metrics
                            .on_packet_dropped(node, DropReason::RouteDiscoveryFailed, &p);
                    }
                    self.aodv().packets = pkts;
                    self.restart_saturating(node);
                }
                Action::LinkBroken(next) => self.aodv_link_break(node, next),
            }
        }
        let a = self.aodv();
        if a.actions.is_empty() {
            a.actions = out; // keep the allocation
        }
    }

    /// Puts a control message in `node`'s control queue and lets the MAC pull it.
    fn aodv_send(&mut self, node: NodeId, msg: AodvMsg, to: NodeId, ttl: u8, jitter: bool) {
        let now = self.events.now();
        let pkt = self.control_packet(node, to, TransportHeader::Aodv(msg), ttl);
        let a = self.aodv();
        if to == BROADCAST {
            a.nodes[node.index()].sent_broadcast(now);
        }
        let max_jitter = a.cfg.max_jitter;
        let delay = if jitter && max_jitter > Time::ZERO {
            a.control.jitter(node, max_jitter)
        } else {
            Time::ZERO
        };
        if !a.control.push(node, pkt, to, now + delay) {
            a.nodes[node.index()].stats.control_drops += 1;
            return;
        }
        if delay > Time::ZERO {
            self.events
                .schedule_in(delay, Event::Aodv(node, AodvTimer::Jitter));
        } else {
            self.kick(Iface::Wifi(node));
        }
    }

    /// A control packet was lost by the MAC.
    pub(super) fn aodv_control_lost(&mut self, node: NodeId) {
        if let Some(a) = &mut self.aodv {
            a.nodes[node.index()].stats.control_drops += 1;
        }
    }

    /// Saturating UDP sources at `node` whose waiting packets were dropped offer a new
    /// one (which starts a new discovery), as a source that always has data would.
    fn restart_saturating(&mut self, node: NodeId) {
        self.refill_saturating_at(node, |w, dst| {
            !w.aodv
                .as_ref()
                .is_some_and(|a| a.buffers[node.index()].has_packets_for(dst))
        });
    }
}
