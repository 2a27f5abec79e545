//! OLSR as a [`RoutingProtocol`] (RFC 3626): sends the periodic HELLOs and TCs of the
//! node state machines, hands them the messages received, and writes each node's
//! recalculated routes into its row of the world's `RoutingTable`, which forwarding and
//! the queue disciplines read as they would a static table.
//!
//! * Control packets go out through the node's own MAC at level 0, ahead of the queue
//!   discipline's data, from a per-node control FIFO (as AODV's, `net/control.rs`). They
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

use super::wire::{hello_bytes, tc_bytes};
use super::{
    warm_start, Bodies, LqAlgorithm, MsgKind, OlsrConfig, OlsrMsg, OlsrNode, OlsrStats,
    RouteScratch, TcLists,
};
use crate::ids::NodeId;
use crate::medium::wifi::BROADCAST;
use crate::net::control::ControlQueues;
use crate::net::protocol::{ProtocolStats, RoutingAction, RoutingProtocol, RoutingTimer};
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

impl From<OlsrTimer> for RoutingTimer {
    fn from(t: OlsrTimer) -> Self {
        let kind = match t {
            OlsrTimer::Hello => 0,
            OlsrTimer::Tc => 1,
            OlsrTimer::Routes => 2,
            OlsrTimer::Jitter => 3,
            OlsrTimer::Lq => 4,
        };
        RoutingTimer { kind, arg: 0 }
    }
}

impl OlsrTimer {
    fn of(t: RoutingTimer) -> Self {
        match t.kind {
            0 => OlsrTimer::Hello,
            1 => OlsrTimer::Tc,
            2 => OlsrTimer::Routes,
            3 => OlsrTimer::Jitter,
            _ => OlsrTimer::Lq,
        }
    }
}

/// Every node's OLSR state.
pub struct OlsrNet {
    cfg: OlsrConfig,
    /// The idle network, for the warm start.
    neighbours: Vec<Vec<(NodeId, f64)>>,
    nodes: Vec<OlsrNode>,
    bodies: Bodies,
    /// Every TC list the nodes and the bodies hold.
    lists: TcLists,
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
    /// The OLSR state of `n` nodes.
    pub fn new(setup: &OlsrSetup, n: usize, seed: u64) -> Self {
        let cfg = setup.cfg;
        OlsrNet {
            cfg,
            neighbours: setup.neighbours.clone(),
            nodes: (0..n)
                .map(|i| OlsrNode::new(NodeId(i as u32), n, cfg))
                .collect(),
            // Room for a minute of HELLOs at 1/s per node, and no less than 4096.
            bodies: Bodies::new((64 * n).max(4096)),
            lists: TcLists::default(),
            control: ControlQueues::new(n, seed, "olsr.jitter", cfg.control_queue_capacity),
            pending: vec![false; n],
            has_table: vec![false; n],
            pkt_seq: vec![0; n],
            next_hop: vec![0; n],
            hops: vec![0; n],
            route_scratch: RouteScratch::default(),
        }
    }

    /// `node`'s state machine (tests look inside).
    pub fn node(&self, node: NodeId) -> Option<&OlsrNode> {
        self.nodes.get(node.index())
    }

    /// A uniform delay in [0, max) from `node`'s jitter stream.
    fn uniform(&mut self, node: NodeId, max: Time) -> Time {
        self.control.jitter(node, max)
    }

    /// Drops the TC lists that no valid topology tuple and no body in the ring holds.
    fn compact_lists(&mut self, now: Time) {
        let (nodes, bodies) = (&mut self.nodes, &mut self.bodies);
        self.lists.compact(|c| {
            for node in nodes.iter_mut() {
                node.keep_lists(c, now);
            }
            bodies.keep_lists(c);
        });
    }

    /// A route recalculation of `node` `route_delay` from now, unless one is pending.
    fn schedule_routes(&mut self, node: NodeId, now: Time, out: &mut Vec<RoutingAction>) {
        if self.pending[node.index()] {
            return;
        }
        self.pending[node.index()] = true;
        out.push(RoutingAction::Arm {
            node,
            at: now + self.cfg.route_delay,
            timer: OlsrTimer::Routes.into(),
        });
    }

    /// A message `node` originates now: message and HELLO sequence numbers `seqs`, its
    /// body `body` of `bytes` on the air (the packet sequence number comes at sending).
    fn originated(kind: MsgKind, node: NodeId, seqs: (u16, u16), body: u64, bytes: u32) -> OlsrMsg {
        OlsrMsg {
            kind,
            originator: node,
            seq: seqs.0,
            hello_seq: seqs.1,
            pkt_seq: 0,
            hop_count: 0,
            body,
            bytes,
        }
    }

    /// Arms `node`'s periodic `timer` one `interval` from now less a jitter of up to
    /// `max_jitter` (RFC 5148 5.4).
    fn rearm(
        &mut self,
        node: NodeId,
        timer: OlsrTimer,
        interval: Time,
        now: Time,
        out: &mut Vec<RoutingAction>,
    ) {
        let jitter = self.uniform(node, self.cfg.max_jitter);
        out.push(RoutingAction::Arm {
            node,
            at: now + interval.saturating_sub(jitter),
            timer: timer.into(),
        });
    }

    /// Sends `msg` from `node` to every neighbour with IP TTL `ttl`, ready after `delay`.
    fn send(node: NodeId, msg: OlsrMsg, ttl: u8, delay: Time, out: &mut Vec<RoutingAction>) {
        out.push(RoutingAction::Send {
            node,
            to: BROADCAST,
            transport: TransportHeader::Olsr(msg),
            ttl,
            delay: Some(delay),
        });
    }
}

impl RoutingProtocol for OlsrNet {
    /// With the warm start, `table` receives the routes of the converged idle network;
    /// without it, no routes. The first HELLO and TC go at a uniform time within their
    /// intervals (RFC 5148).
    fn start(&mut self, table: &mut RoutingTable, out: &mut Vec<RoutingAction>) {
        let (cfg, n) = (self.cfg, self.nodes.len());
        *table = RoutingTable::empty(n);
        if cfg.warm_start {
            warm_start(
                &mut self.nodes,
                &self.neighbours,
                &mut self.lists,
                Time::ZERO,
            );
            for i in 0..n {
                let id = NodeId(i as u32);
                self.nodes[i].compute_routes(
                    Time::ZERO,
                    &self.lists,
                    &mut self.route_scratch,
                    &mut self.next_hop,
                    &mut self.hops,
                );
                table.set_row(id, &self.next_hop, &self.hops);
                self.has_table[i] = true;
            }
        }
        for i in 0..n {
            let node = NodeId(i as u32);
            let h = self.uniform(node, cfg.hello_interval);
            let t = self.uniform(node, cfg.tc_interval);
            out.push(RoutingAction::Arm {
                node,
                at: h,
                timer: OlsrTimer::Hello.into(),
            });
            out.push(RoutingAction::Arm {
                node,
                at: t,
                timer: OlsrTimer::Tc.into(),
            });
        }
        // etx_ff's timers, drawn after the others so the other draws stay as they were.
        if cfg.lq_algorithm == LqAlgorithm::EtxFf && cfg.etx {
            for i in 0..n {
                let node = NodeId(i as u32);
                let l = self.uniform(node, cfg.lq_interval);
                out.push(RoutingAction::Arm {
                    node,
                    at: l,
                    timer: OlsrTimer::Lq.into(),
                });
            }
        }
    }

    /// The message's packet sequence number counts for the link quality before the
    /// message is processed (3.4, 9.5); a TC to forward waits a jitter.
    fn on_control(
        &mut self,
        node: NodeId,
        from: NodeId,
        pkt: Packet,
        now: Time,
        out: &mut Vec<RoutingAction>,
    ) {
        let TransportHeader::Olsr(msg) = pkt.transport else {
            return;
        };
        self.nodes[node.index()].on_packet(from, msg.pkt_seq, now);
        let Some(body) = self.bodies.get(msg.body) else {
            self.nodes[node.index()].stats.control_drops += 1;
            return;
        };
        let n = &mut self.nodes[node.index()];
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
                *dests,
                &self.lists,
                now,
            ),
            // Every TC body gets its list when made.
            (MsgKind::Tc, None) => false,
        };
        if n.dirty {
            self.schedule_routes(node, now, out);
        }
        if forward {
            let delay = self.uniform(node, self.cfg.max_jitter);
            let fwd = OlsrMsg {
                hop_count: msg.hop_count.saturating_add(1),
                ..msg
            };
            Self::send(node, fwd, pkt.ttl - 1, delay, out);
        }
    }

    fn on_timer(
        &mut self,
        node: NodeId,
        timer: RoutingTimer,
        now: Time,
        out: &mut Vec<RoutingAction>,
    ) {
        match OlsrTimer::of(timer) {
            OlsrTimer::Hello => {
                let etx = self.cfg.etx;
                let (id, body) = self.bodies.alloc();
                let (seq, hello_seq) = self.nodes[node.index()].hello(now, &mut body.hello);
                let bytes = hello_bytes(&body.hello, etx);
                let msg = Self::originated(MsgKind::Hello, node, (seq, hello_seq), id, bytes);
                // HELLOs are never forwarded (6.2): TTL 1.
                Self::send(node, msg, 1, Time::ZERO, out);
                self.rearm(node, OlsrTimer::Hello, self.cfg.hello_interval, now, out);
                // Housekeeping: expired tuples leave the routes.
                out.push(RoutingAction::UpdateRoutes(node));
            }
            OlsrTimer::Tc => {
                let etx = self.cfg.etx;
                let (id, body) = self.bodies.alloc();
                let made = self.nodes[node.index()].tc(now, &mut body.tc);
                if let Some((seq, ansn)) = made {
                    body.ansn = ansn;
                    let dests = self.lists.add(self.nodes[node.index()].metric(), &body.tc);
                    body.tc_dests = Some(dests);
                    let bytes = tc_bytes(body.tc.len(), etx);
                    let msg = Self::originated(MsgKind::Tc, node, (seq, 0), id, bytes);
                    Self::send(node, msg, 255, Time::ZERO, out);
                    if self.lists.wants_compaction() {
                        self.compact_lists(now);
                    }
                }
                self.rearm(node, OlsrTimer::Tc, self.cfg.tc_interval, now, out);
            }
            OlsrTimer::Routes => {
                self.pending[node.index()] = false;
                out.push(RoutingAction::UpdateRoutes(node));
            }
            OlsrTimer::Jitter => out.push(RoutingAction::Kick(node)),
            OlsrTimer::Lq => {
                let published = self.nodes[node.index()].lq_tick(now);
                out.push(RoutingAction::Arm {
                    node,
                    at: now + self.cfg.lq_interval,
                    timer: OlsrTimer::Lq.into(),
                });
                if published {
                    self.schedule_routes(node, now, out);
                }
            }
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
        let delay = delay.unwrap_or(Time::ZERO);
        if !self.control.push(node, pkt, to, now + delay) {
            self.nodes[node.index()].stats.control_drops += 1;
            return None;
        }
        Some(delay)
    }

    /// The first control packet of `node` due at `now`, for its MAC (level 0). It gets
    /// the node's next packet sequence number here, in the order packets go on the air
    /// (olsrd numbers a packet when it sends it; numbering at enqueue time would count
    /// a jittered TC overtaken by a HELLO as a loss).
    #[inline]
    fn pop_control(&mut self, node: NodeId, now: Time) -> Option<Dequeued> {
        let mut d = self.control.pop(node, now)?;
        if let TransportHeader::Olsr(msg) = &mut d.pkt.transport {
            let seq = &mut self.pkt_seq[node.index()];
            *seq = seq.wrapping_add(1);
            msg.pkt_seq = *seq;
        }
        Some(d)
    }

    /// Recalculates `node`'s routes into its row of the routing table.
    fn update_routes(&mut self, node: NodeId, now: Time, table: &mut RoutingTable) -> bool {
        let i = node.index();
        let (scratch, next_hop, hops) =
            (&mut self.route_scratch, &mut self.next_hop, &mut self.hops);
        if !self.nodes[i].compute_routes(now, &self.lists, scratch, next_hop, hops) {
            return false; // the routes in the table stand
        }
        let changed = table.set_row(node, &self.next_hop, &self.hops);
        if self.has_table[i] {
            self.nodes[i].stats.route_changes += changed as u64;
        }
        self.has_table[i] = true;
        changed > 0
    }

    /// Saturating sources that have a route fill their queue again: a source that found
    /// no route dropped its packet and waits for nothing else.
    fn source_may_send(&self, node: NodeId, dst: NodeId, table: &RoutingTable) -> bool {
        table.next_hop(node, dst).is_some()
    }

    /// Every node's counters, with the gauges of the state at `now`.
    fn stats(&mut self, now: Time, table: &RoutingTable) -> Option<ProtocolStats> {
        let all: Vec<OlsrStats> = (self.nodes.iter_mut())
            .map(|node| {
                node.close_stats(now, table.row(node.id).unwrap_or_default());
                node.stats
            })
            .collect();
        let mut stats = ProtocolStats::of_rows("olsr", all.iter().map(OlsrStats::named));
        stats.totals = OlsrStats::totals(&all, stats.summed_counts());
        Some(stats)
    }
}
