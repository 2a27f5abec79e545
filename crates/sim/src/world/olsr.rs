//! OLSR glue (RFC 3626): sends the periodic HELLOs and TCs of `net::olsr` over the
//! 802.11 MAC, hands received messages to the node state machines and writes each
//! node's recalculated routes into its row of the world's `RoutingTable`, which
//! forwarding and the queue disciplines read as they would a static table.
//!
//! * Control packets go out through the node's own MAC at level 0, ahead of the queue
//!   discipline's data, from a per-node control FIFO (as AODV's, `world/aodv.rs`). They
//!   are broadcasts: no MAC ACK, no retry, so collisions and hidden terminals lose
//!   HELLOs, which is what lowers a link's LQ.
//! * Periodic messages: a node's HELLO is due every `hello_interval`, its TC every
//!   `tc_interval`, each minus a uniform jitter of up to `max_jitter` (RFC 5148 section
//!   5.4); forwarded TCs wait a uniform jitter of up to `max_jitter` too. The draws come
//!   from the node's "olsr.jitter" stream.
//! * Every OLSR packet a node sends carries its packet sequence number (one counter per
//!   node over HELLOs, originated and forwarded TCs, given as the MAC takes the packet),
//!   which the receiver's `etx_ff` link
//!   quality counts before the message is processed. With `etx_ff` each node runs its
//!   1 s link-quality timer (`lq_interval`), first at a uniform time within the first
//!   second; a published change of LQ schedules a route recalculation.
//! * A node's change of state (a HELLO or a new TC) schedules a route recalculation
//!   `route_delay` later, which gathers the changes of a burst of messages; every
//!   HELLO timer recalculates too, so expired tuples leave the routes within one
//!   `hello_interval`.
//! * Control packets belong to no flow and are not in the data conservation law; their
//!   bytes take air time and the MAC counters include them.

use super::control::ControlQueues;
use super::{Event, Iface, World};
use crate::ids::NodeId;
use crate::medium::wifi::BROADCAST;
use crate::net::olsr::wire::{hello_bytes, tc_bytes};
use crate::net::olsr::{
    tc_dests, warm_start, Bodies, LqAlgorithm, MsgKind, OlsrConfig, OlsrMsg, OlsrNode, OlsrStats,
    RouteScratch,
};
use crate::net::{Packet, RoutingTable, TransportHeader};
use crate::qdisc::Dequeued;
use airqueue_kernel::Time;

/// OLSR's settings and, for the warm start, the idle network: `neighbours[i]` lists
/// the nodes i hears with the delivery ratio of their broadcasts at i.
#[derive(Clone, Debug, PartialEq)]
pub struct OlsrSetup {
    pub cfg: OlsrConfig,
    pub neighbours: Vec<Vec<(NodeId, f64)>>,
}

/// The OLSR timers of a node.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum OlsrTimer {
    Hello,
    Tc,
    /// The delayed route recalculation.
    Routes,
    /// A jittered control packet is ready for the MAC.
    Jitter,
    /// `etx_ff`'s link-quality timer.
    Lq,
}

/// Every node's OLSR state and what the world keeps for it.
pub(super) struct OlsrNet {
    cfg: OlsrConfig,
    nodes: Vec<OlsrNode>,
    bodies: Bodies,
    control: ControlQueues,
    /// A route recalculation is scheduled.
    pending: Vec<bool>,
    /// The node has its first table (route changes count after it).
    has_table: Vec<bool>,
    /// The last packet sequence number each node sent.
    pkt_seq: Vec<u16>,
    /// Scratch rows and the shortest-path scratch, reused by every node.
    next_hop: Vec<u32>,
    hops: Vec<u32>,
    route_scratch: RouteScratch,
}

impl OlsrNet {
    /// The OLSR state of `n` nodes. With the warm start, `routing` receives the routes
    /// of the converged idle network; without it, no routes.
    pub(super) fn new(
        setup: &OlsrSetup,
        n: usize,
        seed: u64,
        routing: &mut RoutingTable,
        events: &mut airqueue_kernel::EventQueue<Event>,
    ) -> Self {
        let cfg = setup.cfg;
        let mut net = OlsrNet {
            cfg,
            nodes: (0..n)
                .map(|i| OlsrNode::new(NodeId(i as u32), n, cfg))
                .collect(),
            // Room for a minute of HELLOs at 1/s per node, and no less than 4096.
            bodies: Bodies::new((64 * n).max(4096)),
            control: ControlQueues::new(n, seed, "olsr.jitter", cfg.control_queue_capacity),
            pending: vec![false; n],
            has_table: vec![false; n],
            pkt_seq: vec![0; n],
            next_hop: vec![0; n],
            hops: vec![0; n],
            route_scratch: RouteScratch::default(),
        };
        *routing = RoutingTable::empty(n);
        if cfg.warm_start {
            warm_start(&mut net.nodes, &setup.neighbours, Time::ZERO);
            for i in 0..n {
                let id = NodeId(i as u32);
                net.nodes[i].compute_routes(
                    Time::ZERO,
                    &mut net.route_scratch,
                    &mut net.next_hop,
                    &mut net.hops,
                );
                routing.set_row(id, &net.next_hop, &net.hops);
                net.has_table[i] = true;
            }
        }
        // First HELLO and TC at a uniform time within their intervals (RFC 5148).
        for i in 0..n {
            let id = NodeId(i as u32);
            let h = net.uniform(id, cfg.hello_interval);
            let t = net.uniform(id, cfg.tc_interval);
            events.schedule_in(h, Event::Olsr(id, OlsrTimer::Hello));
            events.schedule_in(t, Event::Olsr(id, OlsrTimer::Tc));
        }
        // etx_ff's timers, drawn after the others so the other draws stay as they were.
        if cfg.lq_algorithm == LqAlgorithm::EtxFf && cfg.etx {
            for i in 0..n {
                let id = NodeId(i as u32);
                let l = net.uniform(id, cfg.lq_interval);
                events.schedule_in(l, Event::Olsr(id, OlsrTimer::Lq));
            }
        }
        net
    }

    /// A uniform delay in [0, max) from `node`'s jitter stream.
    fn uniform(&mut self, node: NodeId, max: Time) -> Time {
        self.control.jitter(node, max)
    }

    /// The first control packet of `node` due at `now`, for its MAC (level 0). It gets
    /// the node's next packet sequence number here, in the order packets go on the air
    /// (olsrd numbers a packet when it sends it; numbering at enqueue time would count
    /// a jittered TC overtaken by a HELLO as a loss).
    #[inline]
    pub(super) fn pop_control(&mut self, node: NodeId, now: Time) -> Option<Dequeued> {
        let mut d = self.control.pop(node, now)?;
        if let TransportHeader::Olsr(msg) = &mut d.pkt.transport {
            let seq = &mut self.pkt_seq[node.index()];
            *seq = seq.wrapping_add(1);
            msg.pkt_seq = *seq;
        }
        Some(d)
    }

    /// Every node's counters, with the gauges of the state at `now`.
    pub(super) fn stats(&mut self, now: Time, routing: &RoutingTable) -> Vec<OlsrStats> {
        self.nodes
            .iter_mut()
            .map(|node| {
                node.close_stats(now, routing.row(node.id).unwrap_or_default());
                node.stats
            })
            .collect()
    }
}

impl World {
    /// With OLSR: `node`'s state machine (tests look inside).
    pub fn olsr_node(&self, node: NodeId) -> Option<&OlsrNode> {
        self.olsr.as_ref()?.nodes.get(node.index())
    }

    /// The routing table the world forwards with (OLSR rewrites it as it runs).
    pub fn routing_table(&self) -> &RoutingTable {
        &self.routing
    }

    fn olsr(&mut self) -> &mut OlsrNet {
        self.olsr.as_mut().expect("OLSR glue called without OLSR")
    }

    /// One of `node`'s OLSR timers fired.
    pub(super) fn olsr_timer(&mut self, node: NodeId, timer: OlsrTimer) {
        let now = self.events.now();
        match timer {
            OlsrTimer::Hello => {
                let o = self.olsr();
                let etx = o.cfg.etx;
                let (id, body) = o.bodies.alloc();
                let (seq, hello_seq) = o.nodes[node.index()].hello(now, &mut body.hello);
                let bytes = hello_bytes(&body.hello, etx);
                let msg = OlsrMsg {
                    kind: MsgKind::Hello,
                    originator: node,
                    seq,
                    hello_seq,
                    pkt_seq: 0,
                    hop_count: 0,
                    body: id,
                    bytes,
                };
                // HELLOs are never forwarded (6.2): TTL 1.
                self.olsr_send(node, msg, 1, Time::ZERO);
                let o = self.olsr();
                let next = o
                    .cfg
                    .hello_interval
                    .saturating_sub(o.uniform(node, o.cfg.max_jitter));
                self.events
                    .schedule_in(next, Event::Olsr(node, OlsrTimer::Hello));
                // Housekeeping: expired tuples leave the routes.
                self.olsr_routes(node);
            }
            OlsrTimer::Tc => {
                let o = self.olsr();
                let etx = o.cfg.etx;
                let (id, body) = o.bodies.alloc();
                let made = o.nodes[node.index()].tc(now, &mut body.tc);
                if let Some((seq, ansn)) = made {
                    body.ansn = ansn;
                    body.tc_dests = Some(tc_dests(o.nodes[node.index()].metric(), &body.tc));
                    let bytes = tc_bytes(body.tc.len(), etx);
                    let msg = OlsrMsg {
                        kind: MsgKind::Tc,
                        originator: node,
                        seq,
                        hello_seq: 0,
                        pkt_seq: 0,
                        hop_count: 0,
                        body: id,
                        bytes,
                    };
                    self.olsr_send(node, msg, 255, Time::ZERO);
                }
                let o = self.olsr();
                let next = o
                    .cfg
                    .tc_interval
                    .saturating_sub(o.uniform(node, o.cfg.max_jitter));
                self.events
                    .schedule_in(next, Event::Olsr(node, OlsrTimer::Tc));
            }
            OlsrTimer::Routes => {
                self.olsr().pending[node.index()] = false;
                self.olsr_routes(node);
            }
            OlsrTimer::Jitter => self.kick(Iface::Wifi(node)),
            OlsrTimer::Lq => {
                let o = self.olsr();
                let published = o.nodes[node.index()].lq_tick(now);
                let next = o.cfg.lq_interval;
                self.events
                    .schedule_in(next, Event::Olsr(node, OlsrTimer::Lq));
                if published {
                    self.olsr_schedule_routes(node);
                }
            }
        }
    }

    /// Recalculates `node`'s routes into its row of the routing table.
    fn olsr_routes(&mut self, node: NodeId) {
        let now = self.events.now();
        let Some(o) = self.olsr.as_deref_mut() else {
            return;
        };
        let i = node.index();
        if !o.nodes[i].compute_routes(now, &mut o.route_scratch, &mut o.next_hop, &mut o.hops) {
            return; // the routes in the table stand
        }
        let changed = self.routing.set_row(node, &o.next_hop, &o.hops);
        if o.has_table[i] {
            o.nodes[i].stats.route_changes += changed as u64;
        }
        o.has_table[i] = true;
        if changed > 0 {
            self.olsr_restart_saturating(node);
        }
    }

    /// Saturating UDP sources at `node` that have a route now fill their queue again: a
    /// source that found no route dropped its packet and waits for nothing else.
    fn olsr_restart_saturating(&mut self, node: NodeId) {
        self.refill_saturating_at(node, |w, dst| w.routing.next_hop(node, dst).is_some());
    }

    /// An OLSR packet `pkt` from neighbour `from` reached `node`.
    pub(super) fn olsr_receive(&mut self, node: NodeId, from: NodeId, pkt: Packet) {
        let now = self.events.now();
        let TransportHeader::Olsr(msg) = pkt.transport else {
            return;
        };
        let o = self.olsr();
        o.nodes[node.index()].on_packet(from, msg.pkt_seq, now);
        let Some(body) = o.bodies.get(msg.body) else {
            o.nodes[node.index()].stats.control_drops += 1;
            return;
        };
        let n = &mut o.nodes[node.index()];
        let forward = match (msg.kind, &body.tc_dests) {
            (MsgKind::Hello, _) => {
                n.on_hello(from, msg.hello_seq, &body.hello, now);
                false
            }
            (MsgKind::Tc, Some(dests)) => n.on_tc(
                from,
                msg.originator,
                msg.seq,
                body.ansn,
                pkt.ttl,
                dests,
                now,
            ),
            // Every TC body gets its list when made.
            (MsgKind::Tc, None) => false,
        };
        if n.dirty {
            self.olsr_schedule_routes(node);
        }
        if forward {
            let o = self.olsr();
            let delay = o.uniform(node, o.cfg.max_jitter);
            let fwd = OlsrMsg {
                hop_count: msg.hop_count.saturating_add(1),
                ..msg
            };
            self.olsr_send(node, fwd, pkt.ttl - 1, delay);
        }
    }

    /// A route recalculation of `node` `route_delay` from now, unless one is pending.
    fn olsr_schedule_routes(&mut self, node: NodeId) {
        let o = self.olsr();
        if o.pending[node.index()] {
            return;
        }
        o.pending[node.index()] = true;
        let delay = o.cfg.route_delay;
        self.events
            .schedule_in(delay, Event::Olsr(node, OlsrTimer::Routes));
    }

    /// Puts an OLSR packet in `node`'s control queue, ready after `delay`.
    fn olsr_send(&mut self, node: NodeId, msg: OlsrMsg, ttl: u8, delay: Time) {
        let now = self.events.now();
        let pkt = self.control_packet(node, BROADCAST, TransportHeader::Olsr(msg), ttl);
        let o = self.olsr();
        if !o.control.push(node, pkt, BROADCAST, now + delay) {
            o.nodes[node.index()].stats.control_drops += 1;
            return;
        }
        if delay > Time::ZERO {
            self.events
                .schedule_in(delay, Event::Olsr(node, OlsrTimer::Jitter));
        } else {
            self.kick(Iface::Wifi(node));
        }
    }
}
