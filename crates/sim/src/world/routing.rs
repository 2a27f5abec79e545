//! The world's side of the routing-protocol extension point (`net/protocol.rs`): the
//! hooks the event core calls, and the carrying out of the protocol's actions, in the
//! order it wrote them. No protocol: the static table.

use super::{Event, Iface, World};
use crate::ids::NodeId;
use crate::net::protocol::Unqueued;
use crate::net::{DropReason, Packet, RoutingAction, RoutingProtocol, RoutingTable, RoutingTimer};
use airqueue_kernel::Time;

/// The protocol, if any, and the reused lists its calls fill.
#[derive(Default)]
pub(super) struct RoutingGlue {
    pub(super) protocol: Option<Box<dyn RoutingProtocol>>,
    /// Action lists, reused (a nested call takes its own).
    outs: Vec<Vec<RoutingAction>>,
    /// The packets of each `Unqueue` not yet handed back (innermost last), and spare
    /// lists.
    unqueued: Vec<Unqueued>,
    spare: Vec<Unqueued>,
}

impl RoutingGlue {
    pub(super) fn new(protocol: Option<Box<dyn RoutingProtocol>>) -> Self {
        RoutingGlue {
            protocol,
            ..RoutingGlue::default()
        }
    }

    fn take_out(&mut self) -> Vec<RoutingAction> {
        self.outs.pop().unwrap_or_default()
    }
}

impl World {
    /// The routing protocol, if any (`downcast_ref` reaches its concrete type).
    pub fn routing_protocol(&self) -> Option<&dyn RoutingProtocol> {
        self.routing_glue.protocol.as_deref()
    }

    /// The routing table the world forwards with (a proactive protocol rewrites it as
    /// it runs).
    pub fn routing_table(&self) -> &RoutingTable {
        &self.routing
    }

    /// Calls `f` on the protocol with an action list, then carries the actions out.
    /// Nothing without a protocol.
    #[inline]
    pub(super) fn with_protocol(
        &mut self,
        f: impl FnOnce(&mut dyn RoutingProtocol, Time, &mut Vec<RoutingAction>),
    ) {
        let now = self.events.now();
        let mut out = self.routing_glue.take_out();
        let Some(p) = self.routing_glue.protocol.as_deref_mut() else {
            self.routing_glue.outs.push(out);
            return;
        };
        f(p, now, &mut out);
        self.route_act(out);
    }

    /// Arms the protocol's first timers (at time zero, once).
    pub(super) fn routing_start(&mut self) {
        let mut out = self.routing_glue.take_out();
        if let Some(p) = self.routing_glue.protocol.as_deref_mut() {
            p.start(&mut self.routing, &mut out);
        }
        self.route_act(out);
    }

    /// `node` received or overheard a frame from neighbour `from`.
    #[inline]
    pub(super) fn routing_heard(&mut self, node: NodeId, from: NodeId) {
        let now = self.events.now();
        if let Some(p) = self.routing_glue.protocol.as_deref_mut() {
            p.on_heard(node, from, now);
        }
    }

    /// A data packet from neighbour `from` reached its destination `node`.
    #[inline]
    pub(super) fn routing_delivered(&mut self, node: NodeId, from: NodeId, pkt: &Packet) {
        let now = self.events.now();
        if let Some(p) = self.routing_glue.protocol.as_deref_mut() {
            p.on_delivered(node, from, pkt, now);
        }
    }

    /// `node`'s next hop for `pkt`, received from `prev` (`node`: generated here).
    #[inline]
    pub(super) fn routing_next_hop(
        &mut self,
        node: NodeId,
        pkt: &Packet,
        prev: NodeId,
    ) -> Option<NodeId> {
        let now = self.events.now();
        match self.routing_glue.protocol.as_deref_mut() {
            None => self.routing.next_hop(node, pkt.dst),
            Some(p) => p.next_hop(node, pkt, prev, now, &self.routing),
        }
    }

    /// `node`'s next hop towards `dst`, changing nothing.
    #[inline]
    pub(super) fn routing_peek_next_hop(&self, node: NodeId, dst: NodeId) -> Option<NodeId> {
        let now = self.events.now();
        match self.routing_glue.protocol.as_deref() {
            None => self.routing.next_hop(node, dst),
            Some(p) => p.peek_next_hop(node, dst, now, &self.routing),
        }
    }

    /// `node` has no next hop for `pkt`, received from `prev`.
    pub(super) fn routing_no_route(&mut self, node: NodeId, prev: NodeId, pkt: Packet) {
        if self.routing_glue.protocol.is_none() {
            self.metrics
                .on_packet_dropped(node, DropReason::NoRoute, &pkt);
            return;
        }
        self.with_protocol(|p, now, out| p.no_route(node, prev, pkt, now, out));
    }

    /// A control packet from neighbour `from` reached `node`.
    pub(super) fn routing_control(&mut self, node: NodeId, from: NodeId, pkt: Packet) {
        self.with_protocol(|p, now, out| p.on_control(node, from, pkt, now, out));
    }

    /// A routing timer of `node` fired.
    pub(super) fn routing_timer(&mut self, node: NodeId, timer: RoutingTimer) {
        self.with_protocol(|p, now, out| p.on_timer(node, timer, now, out));
    }

    /// `node`'s MAC gave up on a unicast frame to `next`.
    pub(super) fn routing_tx_failed(&mut self, node: NodeId, next: NodeId) {
        self.with_protocol(|p, now, out| p.on_tx_failed(node, next, now, out));
    }

    /// A data frame of `node` reached the MAC retry limit and was dropped.
    pub(super) fn routing_relay_failed(&mut self, node: NodeId, pkt: &Packet) {
        self.with_protocol(|p, now, out| p.on_relay_failed(node, pkt, now, out));
    }

    /// A control packet of `node` was lost by the MAC.
    pub(super) fn routing_control_lost(&mut self, node: NodeId) {
        if let Some(p) = self.routing_glue.protocol.as_deref_mut() {
            p.on_control_lost(node);
        }
    }

    /// Data packets the protocol holds.
    pub(super) fn routing_waiting(&self) -> usize {
        self.routing_glue
            .protocol
            .as_deref()
            .map_or(0, |p| p.waiting())
    }

    /// Carries out `out` in order, then keeps the list for reuse.
    fn route_act(&mut self, mut out: Vec<RoutingAction>) {
        let now = self.events.now();
        for act in out.drain(..) {
            match act {
                RoutingAction::Send {
                    node,
                    to,
                    transport,
                    ttl,
                    delay,
                } => {
                    let pkt = self.control_packet(node, to, transport, ttl);
                    let Some(p) = self.routing_glue.protocol.as_deref_mut() else {
                        continue;
                    };
                    match p.queue_control(node, pkt, to, delay, now) {
                        Some(d) if d > Time::ZERO => {
                            self.events.schedule_in(d, Event::Wake(Iface::Wifi(node)))
                        }
                        Some(_) => self.kick(Iface::Wifi(node)),
                        None => {}
                    }
                }
                RoutingAction::Arm { node, at, timer } => self
                    .events
                    .schedule_in(at.saturating_sub(now), Event::Routing(node, timer)),
                RoutingAction::Forward { node, prev, pkt } => self.forward_from(node, prev, pkt),
                RoutingAction::Drop { node, reason, pkt } => {
                    self.metrics.on_packet_dropped(node, reason, &pkt)
                }
                RoutingAction::UpdateRoutes(node) => {
                    let Some(p) = self.routing_glue.protocol.as_deref_mut() else {
                        continue;
                    };
                    if p.update_routes(node, now, &mut self.routing) {
                        self.routing_refill(node);
                    }
                }
                RoutingAction::RefillSaturating(node) => self.routing_refill(node),
                RoutingAction::Unqueue { node, next } => {
                    let mut removed = self.routing_glue.spare.pop().unwrap_or_default();
                    if let Some(w) = &mut self.wifi {
                        w.qdiscs[node.index()].remove_next_hop(next, &mut removed);
                    }
                    self.routing_glue.unqueued.push(removed);
                }
                RoutingAction::HandBackUnqueued(node) => {
                    let mut removed = self.routing_glue.unqueued.pop().unwrap_or_default();
                    for q in removed.drain(..) {
                        if q.prev_hop == node {
                            // Generated here: look for a new route.
                            self.forward_from(node, node, q.pkt);
                            continue;
                        }
                        let mut back = None;
                        self.with_protocol(|p, now, out| {
                            back = p.relay_unqueued(node, q.prev_hop, q.pkt, now, out);
                        });
                        if let Some(pkt) = back {
                            self.metrics
                                .on_packet_dropped(node, DropReason::LinkBroken, &pkt);
                        }
                    }
                    self.routing_glue.spare.push(removed);
                }
                RoutingAction::Resume { node, step } => {
                    self.with_protocol(|p, now, out| p.resume(node, step, now, out))
                }
                RoutingAction::Kick(node) => self.kick(Iface::Wifi(node)),
            }
        }
        self.routing_glue.outs.push(out);
    }

    /// Greedy sources (saturating UDP) at `node` that the protocol lets send fill their
    /// queue again.
    fn routing_refill(&mut self, node: NodeId) {
        self.refill_saturating_at(node, |w, dst| {
            w.routing_glue
                .protocol
                .as_deref()
                .is_none_or(|p| p.source_may_send(node, dst, &w.routing))
        });
    }
}
