//! AODV as a [`RoutingProtocol`] (RFC 3561): every node's state machine, the packets
//! that wait for a route, the control FIFOs, and link breaks from MAC feedback.
//!
//! * Control packets go out through the node's own MAC at level 0, ahead of the queue
//!   discipline's data (ns-2's PriQueue puts routing packets at the head of the
//!   interface queue). Broadcasts (RREQs, originated or relayed, and RERRs) wait a
//!   uniform jitter of up to `max_jitter` first, drawn from the node's "aodv.jitter"
//!   stream. Their losses are counted in `AodvStats::control_drops`.
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

use super::{Action, AodvConfig, AodvMsg, AodvNode, AodvTimer, Buffer, LinkDetection};
use crate::ids::NodeId;
use crate::medium::wifi::BROADCAST;
use crate::net::control::ControlQueues;
use crate::net::protocol::{
    ProtocolStats, RoutingAction, RoutingProtocol, RoutingTimer, StatValue,
};
use crate::net::{DropReason, Packet, RoutingTable, TransportHeader};
use crate::qdisc::Dequeued;
use airqueue_kernel::Time;

/// Every node's AODV state.
pub struct AodvNet {
    cfg: AodvConfig,
    nodes: Vec<AodvNode>,
    buffers: Vec<Buffer>,
    control: ControlQueues,
    /// Scratch lists, reused.
    actions: Vec<Action>,
    packets: Vec<(Packet, NodeId)>,
}

/// The state machine's actions the world carries out later, through [`AodvNet::resume`].
const STEP_ROUTE_FOUND: u64 = 0;
const STEP_DISCOVERY_FAILED: u64 = 1;
const STEP_LINK_BROKEN: u64 = 2;

impl From<AodvTimer> for RoutingTimer {
    fn from(t: AodvTimer) -> Self {
        let (kind, arg) = match t {
            AodvTimer::Discovery { generation } => (0, generation),
            AodvTimer::Jitter => (1, 0),
            AodvTimer::Buffer => (2, 0),
            AodvTimer::Hello => (3, 0),
        };
        RoutingTimer { kind, arg }
    }
}

impl AodvNet {
    pub fn new(cfg: AodvConfig, node_count: usize, seed: u64) -> Self {
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
        }
    }

    /// The next hop and hop count of `node`'s active route to `dst` at `now`.
    pub fn route(&self, node: NodeId, dst: NodeId, now: Time) -> Option<(NodeId, u8)> {
        let r = self.nodes.get(node.index())?;
        r.table()
            .active(dst, now)
            .map(|r| (r.next_hop, r.hop_count))
    }

    /// Hands `acts`, what `node`'s state machine asked for, to the world as actions.
    fn emit(&mut self, node: NodeId, acts: &mut Vec<Action>, out: &mut Vec<RoutingAction>) {
        for act in acts.drain(..) {
            out.push(match act {
                Action::Send {
                    msg,
                    to,
                    ttl,
                    jitter,
                } => RoutingAction::Send {
                    node,
                    to,
                    transport: TransportHeader::Aodv(msg),
                    ttl,
                    delay: if jitter { None } else { Some(Time::ZERO) },
                },
                Action::Arm { at, timer } => RoutingAction::Arm {
                    node,
                    at,
                    timer: timer.into(),
                },
                Action::RouteFound(dst) => RoutingAction::Resume {
                    node,
                    step: STEP_ROUTE_FOUND << 32 | dst.0 as u64,
                },
                Action::DiscoveryFailed(dst) => RoutingAction::Resume {
                    node,
                    step: STEP_DISCOVERY_FAILED << 32 | dst.0 as u64,
                },
                Action::LinkBroken(next) => RoutingAction::Resume {
                    node,
                    step: STEP_LINK_BROKEN << 32 | next.0 as u64,
                },
            });
        }
    }

    /// Runs `f` on `node`'s state machine with the reused action list, then emits.
    fn with_node(
        &mut self,
        node: NodeId,
        out: &mut Vec<RoutingAction>,
        f: impl FnOnce(&mut AodvNode, &mut Vec<Action>),
    ) {
        let mut acts = std::mem::take(&mut self.actions);
        f(&mut self.nodes[node.index()], &mut acts);
        self.emit(node, &mut acts, out);
        self.actions = acts;
    }

    /// Holds `pkt`, received from `prev`, in `node`'s buffer until a route is found,
    /// then emits `acts` (the discovery or repair that will find it).
    fn hold(
        &mut self,
        node: NodeId,
        prev: NodeId,
        pkt: Packet,
        acts: &mut Vec<Action>,
        now: Time,
        out: &mut Vec<RoutingAction>,
    ) {
        let expires = now + self.cfg.buffer_timeout;
        let evicted = self.buffers[node.index()].push(pkt, prev, expires);
        acts.push(Action::Arm {
            at: expires,
            timer: AodvTimer::Buffer,
        });
        if let Some(p) = evicted {
            out.push(RoutingAction::Drop {
                node,
                reason: DropReason::NoRouteBufferFull,
                pkt: p,
            });
        }
        self.emit(node, acts, out);
    }

    /// Local repair (RFC 3561 6.12): if the route of `pkt`, which `node` relays for
    /// `prev`, is being repaired or may be, holds it (starting the repair); else hands
    /// it back. Always hands it back without local repair.
    fn try_repair(
        &mut self,
        node: NodeId,
        prev: NodeId,
        pkt: Packet,
        now: Time,
        out: &mut Vec<RoutingAction>,
    ) -> Option<Packet> {
        if !self.cfg.local_repair {
            return Some(pkt);
        }
        let mut acts = std::mem::take(&mut self.actions);
        if !self.nodes[node.index()].start_repair(pkt.dst, pkt.src, now, &mut acts) {
            self.actions = acts;
            return Some(pkt);
        }
        self.hold(node, prev, pkt, &mut acts, now, out);
        self.actions = acts;
        None
    }

    /// The link from `node` to `next` broke (RFC 3561 6.11 case i): the routes through
    /// it break, its control packets go, and the data queued for it leaves the queue.
    fn link_break(&mut self, node: NodeId, next: NodeId, now: Time, out: &mut Vec<RoutingAction>) {
        let mut acts = std::mem::take(&mut self.actions);
        self.nodes[node.index()].on_link_break(next, now, &mut acts);
        // Control packets for that neighbour will not get through either.
        let lost = self.control.remove_to(node, next);
        self.nodes[node.index()].stats.control_drops += lost as u64;
        out.push(RoutingAction::Unqueue { node, next });
        self.emit(node, &mut acts, out);
        self.actions = acts;
        out.push(RoutingAction::HandBackUnqueued(node));
    }
}

impl RoutingProtocol for AodvNet {
    /// With hello detection, arms every node's first HELLO_INTERVAL tick.
    fn start(&mut self, _table: &mut RoutingTable, out: &mut Vec<RoutingAction>) {
        if self.cfg.link_detection == LinkDetection::Hello {
            for i in 0..self.nodes.len() {
                out.push(RoutingAction::Arm {
                    node: NodeId(i as u32),
                    at: self.cfg.hello_interval,
                    timer: AodvTimer::Hello.into(),
                });
            }
        }
    }

    fn on_control(
        &mut self,
        node: NodeId,
        from: NodeId,
        pkt: Packet,
        now: Time,
        out: &mut Vec<RoutingAction>,
    ) {
        let TransportHeader::Aodv(msg) = pkt.transport else {
            return;
        };
        let ttl = pkt.ttl;
        self.with_node(node, out, |n, acts| match msg {
            AodvMsg::Rreq(r) => n.on_rreq(from, ttl, r, now, acts),
            AodvMsg::Rrep(r) => n.on_rrep(from, r, now, acts),
            AodvMsg::Rerr(r) => n.on_rerr(from, r, now, acts),
        });
    }

    fn on_timer(
        &mut self,
        node: NodeId,
        timer: RoutingTimer,
        now: Time,
        out: &mut Vec<RoutingAction>,
    ) {
        match timer.kind {
            0 => self.with_node(node, out, |n, acts| {
                n.on_discovery_timeout(timer.arg, now, acts)
            }),
            1 => out.push(RoutingAction::Kick(node)),
            2 => {
                let mut pkts = std::mem::take(&mut self.packets);
                self.buffers[node.index()].take_expired(now, &mut pkts);
                let any = !pkts.is_empty();
                for (p, _) in pkts.drain(..) {
                    out.push(RoutingAction::Drop {
                        node,
                        reason: DropReason::NoRouteTimeout,
                        pkt: p,
                    });
                }
                self.packets = pkts;
                if any {
                    out.push(RoutingAction::RefillSaturating(node));
                }
            }
            _ => self.with_node(node, out, |n, acts| n.on_hello_timer(now, acts)),
        }
    }

    fn queue_control(
        &mut self,
        node: NodeId,
        pkt: Packet,
        to: NodeId,
        delay: Option<Time>,
        now: Time,
    ) -> Option<Time> {
        if to == BROADCAST {
            self.nodes[node.index()].sent_broadcast(now);
        }
        let max_jitter = self.cfg.max_jitter;
        let delay = match delay {
            Some(d) => d,
            None if max_jitter > Time::ZERO => self.control.jitter(node, max_jitter),
            None => Time::ZERO,
        };
        if !self.control.push(node, pkt, to, now + delay) {
            self.nodes[node.index()].stats.control_drops += 1;
            return None;
        }
        Some(delay)
    }

    #[inline]
    fn pop_control(&mut self, node: NodeId, now: Time) -> Option<Dequeued> {
        self.control.pop(node, now)
    }

    /// The next hop for a data packet, refreshing the routes it uses (RFC 3561 6.2).
    #[inline]
    fn next_hop(
        &mut self,
        node: NodeId,
        pkt: &Packet,
        prev: NodeId,
        now: Time,
        _table: &RoutingTable,
    ) -> Option<NodeId> {
        self.nodes[node.index()].use_route(pkt.src, pkt.dst, prev, now)
    }

    #[inline]
    fn peek_next_hop(
        &self,
        node: NodeId,
        dst: NodeId,
        now: Time,
        _table: &RoutingTable,
    ) -> Option<NodeId> {
        self.nodes[node.index()].next_hop(dst, now)
    }

    /// A source buffers the packet and looks for a route; a forwarder holds it while it
    /// repairs the route locally (6.12, when on), or else drops it and reports the
    /// destination unreachable (RFC 3561 6.11 case ii).
    fn no_route(
        &mut self,
        node: NodeId,
        prev: NodeId,
        pkt: Packet,
        now: Time,
        out: &mut Vec<RoutingAction>,
    ) {
        let dst = pkt.dst;
        if prev != node {
            let Some(pkt) = self.try_repair(node, prev, pkt, now, out) else {
                return;
            };
            out.push(RoutingAction::Drop {
                node,
                reason: DropReason::NoRoute,
                pkt,
            });
            self.with_node(node, out, |n, acts| n.on_no_route(dst, prev, now, acts));
            return;
        }
        let mut acts = std::mem::take(&mut self.actions);
        self.nodes[node.index()].start_discovery(dst, now, &mut acts);
        self.hold(node, node, pkt, &mut acts, now, out);
        self.actions = acts;
    }

    fn resume(&mut self, node: NodeId, step: u64, now: Time, out: &mut Vec<RoutingAction>) {
        let other = NodeId(step as u32);
        match step >> 32 {
            STEP_ROUTE_FOUND => {
                let mut pkts = std::mem::take(&mut self.packets);
                self.buffers[node.index()].take_for(other, &mut pkts);
                for (pkt, prev) in pkts.drain(..) {
                    out.push(RoutingAction::Forward { node, prev, pkt });
                }
                self.packets = pkts;
            }
            STEP_DISCOVERY_FAILED => {
                let mut pkts = std::mem::take(&mut self.packets);
                self.buffers[node.index()].take_for(other, &mut pkts);
                for (pkt, _) in pkts.drain(..) {
                    out.push(RoutingAction::Drop {
                        node,
                        reason: DropReason::RouteDiscoveryFailed,
                        pkt,
                    });
                }
                self.packets = pkts;
                out.push(RoutingAction::RefillSaturating(node));
            }
            _ => self.link_break(node, other, now, out),
        }
    }

    /// A saturating source offers a new packet (which starts a new discovery) once
    /// none of its packets waits, as a source that always has data would.
    fn source_may_send(&self, node: NodeId, dst: NodeId, _table: &RoutingTable) -> bool {
        !self.buffers[node.index()].has_packets_for(dst)
    }

    fn relay_unqueued(
        &mut self,
        node: NodeId,
        prev: NodeId,
        pkt: Packet,
        now: Time,
        out: &mut Vec<RoutingAction>,
    ) -> Option<Packet> {
        self.try_repair(node, prev, pkt, now, out)
    }

    /// Hello detection's liveness (nothing with MAC detection).
    #[inline]
    fn on_heard(&mut self, node: NodeId, from: NodeId, now: Time) {
        self.nodes[node.index()].heard(from, now);
    }

    /// The routes back to the packet's source are in use (RFC 3561 6.2).
    fn on_delivered(&mut self, node: NodeId, from: NodeId, pkt: &Packet, now: Time) {
        self.nodes[node.index()].refresh_reverse(pkt.src, from, now);
    }

    /// A link break with MAC detection, nothing more than the drop with hello detection.
    fn on_tx_failed(
        &mut self,
        node: NodeId,
        next: NodeId,
        now: Time,
        out: &mut Vec<RoutingAction>,
    ) {
        if self.cfg.link_detection == LinkDetection::Mac {
            self.link_break(node, next, now, out);
        }
    }

    /// With local repair, a relayed frame's retry-limit drop starts the repair of its
    /// route now (RFC 3561 6.12: for the destination the undeliverable packet was
    /// travelling to).
    fn on_relay_failed(
        &mut self,
        node: NodeId,
        pkt: &Packet,
        now: Time,
        out: &mut Vec<RoutingAction>,
    ) {
        if !self.cfg.local_repair || pkt.src == node {
            return;
        }
        let (dst, src) = (pkt.dst, pkt.src);
        self.with_node(node, out, |n, acts| {
            n.start_repair(dst, src, now, acts);
        });
    }

    fn on_control_lost(&mut self, node: NodeId) {
        self.nodes[node.index()].stats.control_drops += 1;
    }

    /// Data packets waiting for routes.
    fn waiting(&self) -> usize {
        self.buffers.iter().map(Buffer::len).sum()
    }

    /// Every node's counters (the local repair ones only when local repair is on, so
    /// that runs without it report what they did before it existed), summed for the
    /// totals.
    fn stats(&mut self, _now: Time, _table: &RoutingTable) -> Option<ProtocolStats> {
        let repair = self.cfg.local_repair;
        let rows = (self.nodes.iter())
            .map(|n| n.stats.named(repair).map(|(k, v)| (k, StatValue::Count(v))));
        let mut stats = ProtocolStats::of_rows("aodv", rows);
        stats.totals = stats.summed_counts();
        Some(stats)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::net::aodv::AodvStats;

    /// The report names every counter once (the local repair ones only with local
    /// repair on), sums them for the totals, and reads back into the same counters.
    #[test]
    fn the_report_names_sums_and_reads_back_every_counter() {
        let node = |k: u64| AodvStats {
            rreq_originated: k,
            rreq_forwarded: 2 * k,
            rrep_by_destination: 3,
            rrep_by_intermediate: 4,
            local_repairs: k,
            hellos_sent: 5 * k,
            ..AodvStats::default()
        };
        for repair in [false, true] {
            let all = [node(1), node(2)];
            let rows = all
                .iter()
                .map(|s| s.named(repair).map(|(k, v)| (k, StatValue::Count(v))));
            let mut report = ProtocolStats::of_rows("aodv", rows);
            report.totals = report.summed_counts();
            assert_eq!(report.columns.len(), if repair { 17 } else { 15 });
            assert_eq!(report.count(1, "rreq_forwarded"), Some(4));
            assert_eq!(report.count(0, "rrep_sent"), Some(7));
            assert!(report
                .totals
                .contains(&("hellos_sent", StatValue::Count(15))));
            assert_eq!(
                report.totals.iter().any(|(k, _)| *k == "local_repairs"),
                repair
            );
            let back = AodvStats::from_report(&report);
            let expected = |s: AodvStats| AodvStats {
                local_repairs: if repair { s.local_repairs } else { 0 },
                ..s
            };
            assert_eq!(back, all.map(expected));
        }
    }

    #[test]
    fn timers_round_trip_through_the_opaque_code() {
        let cases = [
            (AodvTimer::Discovery { generation: 7 }, 0, 7),
            (AodvTimer::Jitter, 1, 0),
            (AodvTimer::Buffer, 2, 0),
            (AodvTimer::Hello, 3, 0),
        ];
        for (t, kind, arg) in cases {
            assert_eq!(RoutingTimer::from(t), RoutingTimer { kind, arg });
        }
    }
}
