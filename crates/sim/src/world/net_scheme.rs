//! The world's side of the network-layer scheme extension point (`net/scheme.rs`): the
//! hooks the event core calls, and the carrying out of the scheme's actions in the order
//! it wrote them. Without a scheme (no flow of a `FlowKindConfig::Net` kind) each hook is
//! one `None` check.

use super::{Event, Iface, World};
use crate::ids::{FlowId, NodeId};
use crate::net::scheme::{
    BroadcastFate, NetAction, NetCx, NetReports, NetScheme, NetSchemes, PacketSpec, QueueRoom,
};
use crate::net::{DropReason, Packet};
use crate::qdisc::{Dequeued, Queued};

/// The scheme, if any (boxed: a call takes it out of the world, a pointer's move), and
/// the reused lists its calls fill.
#[derive(Default)]
pub(super) struct NetGlue {
    scheme: Option<Box<NetSchemes>>,
    /// Action lists, reused (a nested call takes its own).
    outs: Vec<Vec<NetAction>>,
}

impl NetGlue {
    pub(super) fn new(scheme: Option<NetSchemes>) -> Self {
        NetGlue {
            scheme: scheme.map(Box::new),
            outs: Vec::new(),
        }
    }

    /// Whether `pkt` is the scheme's.
    #[inline]
    pub(super) fn claims(&self, pkt: &Packet) -> bool {
        self.scheme.as_ref().is_some_and(|s| s.claims(pkt))
    }

    /// `node`'s next control frame of the scheme, ahead of the data.
    #[inline]
    pub(super) fn pop_control(&mut self, node: NodeId) -> Option<Dequeued> {
        self.scheme.as_mut()?.pop_control(node)
    }

    /// Packets the scheme holds (in flight for the conservation law).
    pub(super) fn held(&self) -> usize {
        self.scheme.as_ref().map_or(0, |s| s.held())
    }

    /// For flow `flow`, per node, the neighbours that may take its packets on.
    pub(super) fn next_hop_sets(&self, flow: FlowId) -> &[(NodeId, Vec<NodeId>)] {
        self.scheme.as_ref().map_or(&[], |s| s.next_hop_sets(flow))
    }
}

impl World {
    /// The network-layer scheme, if any (`downcast_ref` reaches its concrete type).
    pub fn net_scheme(&self) -> Option<&dyn NetScheme> {
        self.net.scheme.as_deref().map(NetSchemes::as_dyn)
    }

    /// Calls `f` on the scheme with an action list, then carries the actions out.
    /// `None` without a scheme. (The scheme is taken out of the world for the call, so
    /// that it may read the world's queues.)
    fn with_net<R>(
        &mut self,
        f: impl FnOnce(&mut NetSchemes, &NetCx, &mut Vec<NetAction>) -> R,
    ) -> Option<R> {
        let mut scheme = self.net.scheme.take()?;
        let mut out = self.net.outs.pop().unwrap_or_default();
        let cx = NetCx {
            now: self.events.now(),
            routes: &self.routing,
            queues: &*self,
        };
        let r = f(&mut scheme, &cx, &mut out);
        self.net.scheme = Some(scheme);
        if out.is_empty() {
            self.net.outs.push(out);
        } else {
            self.net_act(out);
        }
        Some(r)
    }

    /// A flow of the scheme starts (`paced`: a source rate controller ticks it).
    pub(super) fn net_flow_start(&mut self, f: FlowId, paced: bool) {
        self.with_net(|s, cx, out| s.on_flow_start(f, paced, cx, out));
    }

    /// A pacing tick of a flow of the scheme; whether a packet left.
    pub(super) fn net_pace(&mut self, f: FlowId) -> bool {
        self.with_net(|s, cx, out| s.on_pace(f, cx, out))
            .unwrap_or(false)
    }

    /// A packet of unpaced flow `f` left its source's queue.
    pub(super) fn net_source_dequeue(&mut self, f: FlowId) {
        self.with_net(|s, cx, out| s.on_source_dequeue(f, cx, out));
    }

    /// One of the scheme's packets reached `node` from `from`.
    pub(super) fn net_receive(&mut self, node: NodeId, from: NodeId, pkt: Packet) {
        self.with_net(|s, cx, out| s.on_packet(node, from, pkt, cx, out));
    }

    /// `node`'s broadcast of one of the scheme's packets ended: arrived, or dropped.
    pub(super) fn net_broadcast_done(&mut self, node: NodeId, pkt: Packet) {
        let Some(s) = &mut self.net.scheme else {
            return;
        };
        match s.on_broadcast_done(node, &pkt) {
            BroadcastFate::Arrived => self.metrics.on_transport_delivered(),
            BroadcastFate::Dropped(reason) => self.metrics.on_packet_dropped(node, reason, &pkt),
            BroadcastFate::Held => {}
        }
    }

    /// The time a wake-up of the scheme at `node` asked for has come.
    pub(super) fn net_wake(&mut self, node: NodeId) {
        self.with_net(|s, cx, out| s.on_wake(node, cx, out));
    }

    /// `node`'s MAC gave up on one of the scheme's unicast packets.
    pub(super) fn net_retry_exhausted(&mut self, node: NodeId, pkt: Packet) {
        self.with_net(|s, cx, out| s.on_retry_exhausted(node, pkt, cx, out));
    }

    /// The MAC takes `pkt` from `node`'s queue discipline: the scheme fills in its own
    /// packets, or refuses one (the caller drops it).
    #[inline]
    pub(super) fn net_dequeue(&mut self, node: NodeId, pkt: &mut Packet) -> Result<(), DropReason> {
        match &mut self.net.scheme {
            Some(s) if s.claims(pkt) => s.on_dequeue(node, pkt),
            _ => Ok(()),
        }
    }

    /// The scheme's end-of-run check against the packets still in the MACs.
    pub(super) fn net_check(&self) -> Result<(), String> {
        let Some(s) = &self.net.scheme else {
            return Ok(());
        };
        match &self.wifi {
            Some(w) => s.check(&mut w.net.buffered_packets()),
            None => s.check(&mut std::iter::empty()),
        }
    }

    /// The scheme's per-flow counters (all `None` without a scheme).
    pub(super) fn net_report(&self) -> NetReports {
        let mut reports = NetReports::new(self.flows.len());
        if let Some(s) = &self.net.scheme {
            s.report(&mut reports);
        }
        reports
    }

    /// Carries out `out` in order, then keeps the list for reuse.
    fn net_act(&mut self, mut out: Vec<NetAction>) {
        let now = self.events.now();
        for act in out.drain(..) {
            match act {
                NetAction::Queue { pkt, to } => {
                    let pkt = self.net_packet(pkt, true);
                    self.net_enqueue(pkt, to);
                }
                NetAction::Fill { pkt, to } => self.net_fill(pkt, to),
                NetAction::Send(spec) => {
                    let pkt = self.net_packet(spec, false);
                    let node = spec.node;
                    self.with_net(|s, cx, out| s.on_packet(node, node, pkt, cx, out));
                }
                NetAction::Release {
                    flow,
                    packets,
                    bytes,
                    sent,
                } => (self.metrics).on_app_delivered(flow, packets, bytes, sent, now),
                NetAction::Arrived => self.metrics.on_transport_delivered(),
                NetAction::Drop { node, reason, pkt } => {
                    self.metrics.on_packet_dropped(node, reason, &pkt)
                }
                NetAction::Kick(node) => self.kick(Iface::Wifi(node)),
                NetAction::Wake { node, at } => {
                    (self.events).schedule_in(at.saturating_sub(now), Event::NetWake(node))
                }
            }
        }
        self.net.outs.push(out);
    }

    /// Makes the packet `spec` asks for, with the flow's queue report header if
    /// `report`, and counts it created: as the flow's data at its source, else as
    /// signalling.
    fn net_packet(&mut self, spec: PacketSpec, report: bool) -> Packet {
        let (f, node) = (spec.flow, spec.node);
        let mut pkt = self.flow_packet(
            f,
            node,
            spec.dst,
            spec.seq,
            spec.payload_bytes,
            spec.transport,
        );
        if !report {
            pkt.diffq = None;
        }
        if node == self.flows[f.index()].src {
            self.metrics.on_created(&pkt);
        } else {
            self.metrics.on_created_control();
        }
        pkt
    }

    /// Queues `pkt` at its source node towards neighbour `to`; returns whether it was
    /// taken (a refusal drops it there).
    fn net_enqueue(&mut self, pkt: Packet, to: NodeId) -> bool {
        let node = pkt.src;
        let Some(iface) = self.iface_towards(node, to) else {
            (self.metrics).on_packet_dropped(node, DropReason::NoRoute, &pkt);
            return false;
        };
        self.net_enqueue_at(iface, pkt, to)
    }

    /// [`World::net_enqueue`] through interface `iface`.
    fn net_enqueue_at(&mut self, iface: Iface, pkt: Packet, to: NodeId) -> bool {
        let node = pkt.src;
        let now = self.events.now();
        let q = Queued {
            pkt,
            next_hop: to,
            prev_hop: node,
        };
        match self.qdisc_mut(iface).enqueue(q, now) {
            Ok(()) => {
                self.kick(iface);
                true
            }
            Err((q, reason)) => {
                self.metrics.on_packet_dropped(node, reason, &q.pkt);
                false
            }
        }
    }

    /// Queues packets like `spec` at its node towards `to` while the discipline has
    /// room, up to the first refusal.
    fn net_fill(&mut self, spec: PacketSpec, to: NodeId) {
        let node = spec.node;
        let Some(iface) = self.iface_towards(node, to) else {
            return;
        };
        let reports = self.flows[spec.flow.index()].carries_queue_report();
        while self.qdisc(iface).has_room(node, spec.dst, to, reports) {
            let pkt = self.net_packet(spec, true);
            if !self.net_enqueue_at(iface, pkt, to) {
                return;
            }
        }
    }
}

impl QueueRoom for World {
    fn has_room(&self, node: NodeId, flow: FlowId, to: NodeId) -> bool {
        let Some(iface) = self.iface_towards(node, to) else {
            return false;
        };
        let fl = &self.flows[flow.index()];
        (self.qdisc(iface)).has_room(node, fl.dst, to, fl.carries_queue_report())
    }
}
