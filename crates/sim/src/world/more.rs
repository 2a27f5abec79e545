//! MORE's glue in the world (MORE, SIGCOMM 2007, section 4; seed 000, section 2): the
//! source keeps its radio queue full of transmission opportunities, forwarders queue one
//! per whole TX credit earned, and an opportunity is filled with a fresh code vector when
//! the MAC takes it (`World::kick`), then broadcast without ACK or retries. The
//! destination's batch ACK goes back by unicast over the static (ETX) routes, ahead of
//! data, reliable hop by hop (`more_ack_retry`), one per batch.
//!
//! DiffQ-MORE (seed 000, 4.2 and 6.2): packets carry the DiffQ header, wait in DiffQ's
//! destination queue scheduled by eq. (2) over the forwarders among the neighbours, and
//! the source is paced by DiffQ's rate control (`more_pace`).
//!
//! Accounting: a coded packet is created by the node that queues it and ends with its
//! broadcast: delivered if innovative at the destination, else dropped as
//! `coding_redundancy` at its sender (as is an opportunity with nothing left to send).
//! ACKs are created at the destination and delivered at the source. Goodput counts
//! decoded batches, K x packet size each.

use super::{FlowApp, Iface, World};
use crate::ids::{FlowId, NodeId};
use crate::medium::wifi::BROADCAST;
use crate::net::more::{
    CoeffArena, CoeffHandle, DestinationArrival, MoreAck, MoreData, MoreDestination,
    MoreFlowConfig, MoreFlowStats, MoreForwarder, MorePlan, MoreSource,
};
use crate::net::{DropReason, Packet, TransportHeader};
use crate::qdisc::{Dequeued, Queued};
use airqueue_kernel::{RngStream, StreamKey, Time};
use std::collections::VecDeque;

/// One MORE flow's state at all its nodes.
#[derive(Clone, Debug)]
pub(super) struct MoreFlow {
    k: u8,
    plan: MorePlan,
    source: MoreSource,
    forwarders: Vec<(NodeId, MoreForwarder)>,
    dest: MoreDestination,
    /// Code-vector draws of all the flow's nodes, keyed (seed, flow, "more.code").
    rng: RngStream,
    stats: MoreFlowStats,
}

impl MoreFlow {
    pub(super) fn new(cfg: &MoreFlowConfig, seed: u64, flow: FlowId) -> Self {
        let k = cfg.batch as usize;
        MoreFlow {
            k: cfg.batch,
            source: MoreSource::new(k, Time::ZERO),
            forwarders: (cfg.plan.forwarders.iter())
                .map(|f| (f.node, MoreForwarder::new(k, f.tx_credit)))
                .collect(),
            dest: MoreDestination::new(k),
            rng: RngStream::new(StreamKey::new(seed, flow.0, "more.code")),
            stats: MoreFlowStats {
                forwarders: (cfg.plan.forwarders.iter())
                    .map(|f| (f.node, f.tx_credit))
                    .collect(),
                ..Default::default()
            },
            plan: cfg.plan.clone(),
        }
    }

    fn forwarder(&mut self, node: NodeId) -> Option<&mut MoreForwarder> {
        (self.forwarders.iter_mut())
            .find(|(n, _)| *n == node)
            .map(|(_, f)| f)
    }

    pub(super) fn stats(&self) -> MoreFlowStats {
        MoreFlowStats {
            batches_decoded: self.dest.decoded(),
            ..self.stats.clone()
        }
    }
}

/// MORE state shared by the world's flows.
#[derive(Debug, Default)]
pub(super) struct MoreNet {
    arena: CoeffArena,
    /// Per node: batch ACKs waiting for the MAC, served ahead of data.
    acks: Vec<VecDeque<Dequeued>>,
    /// Coded packets on the air that the destination took as innovative (resolved at
    /// the end of their broadcast, a few entries at most).
    innovative: Vec<u64>,
}

impl MoreNet {
    pub(super) fn new(node_count: usize) -> Self {
        MoreNet {
            acks: vec![VecDeque::new(); node_count],
            ..Default::default()
        }
    }

    /// The next batch ACK `node` should send.
    pub(super) fn pop_ack(&mut self, node: NodeId) -> Option<Dequeued> {
        self.acks.get_mut(node.index())?.pop_front()
    }

    /// ACKs waiting in the per-node queues (end-of-run accounting).
    pub(super) fn waiting(&self) -> usize {
        self.acks.iter().map(|q| q.len()).sum()
    }
}

impl World {
    fn more_flow(&mut self, f: FlowId) -> &mut MoreFlow {
        match &mut self.flows[f.index()].app {
            FlowApp::More(m) => m,
            _ => unreachable!("MORE event for a non-MORE flow"),
        }
    }

    /// The flow starts: its first batch begins now.
    pub(super) fn more_begin(&mut self, f: FlowId) {
        let now = self.events.now();
        self.more_flow(f).source.batch_started = now;
    }

    /// An unpaced MORE flow starts: the source fills its queue.
    pub(super) fn more_start(&mut self, f: FlowId) {
        self.more_begin(f);
        self.more_top_up(f);
    }

    /// One tick of a DiffQ-MORE source (seed 000, 6.2: the source sends coded packets at
    /// the rate DiffQ regulates): one coded packet into its destination queue. A full
    /// queue drops it, as it would a DiffQ-UDP datagram; the tick counts either way.
    pub(super) fn more_pace(&mut self, f: FlowId) -> bool {
        let src = self.flows[f.index()].src;
        let pkt = self.more_opportunity(f, src, MoreData::CURRENT_BATCH);
        self.more_enqueue(src, pkt);
        true
    }

    /// Fills the source's radio queue with transmission opportunities while the flow is
    /// on (MORE's source sends as fast as the MAC lets it, seed 000 section 2).
    pub(super) fn more_top_up(&mut self, f: FlowId) {
        let now = self.events.now();
        let fl = &self.flows[f.index()];
        let (src, dst) = (fl.src, fl.dst);
        if now < fl.start || now >= fl.stop || self.iface_towards(src, BROADCAST).is_none() {
            return;
        }
        let diffq = fl.diffq_header().is_some();
        while (self.qdisc(Iface::Wifi(src))).has_room(src, dst, BROADCAST, diffq) {
            let pkt = self.more_opportunity(f, src, MoreData::CURRENT_BATCH);
            if !self.more_enqueue(src, pkt) {
                return;
            }
        }
    }

    /// A new unfilled coded packet of flow `f` at `node` for `batch`.
    fn more_opportunity(&mut self, f: FlowId, node: NodeId, batch: u32) -> Packet {
        let fl = &self.flows[f.index()];
        let FlowApp::More(m) = &fl.app else {
            unreachable!("MORE packet of a non-MORE flow")
        };
        let (dst, payload_bytes) = (fl.dst, fl.payload_bytes);
        let transport = TransportHeader::More(MoreData {
            batch,
            coeffs: CoeffHandle::UNFILLED,
            batch_k: m.k,
            forwarders: m.plan.forwarders.len().min(u8::MAX as usize) as u8,
        });
        let pkt = self.flow_packet(f, node, dst, 0, payload_bytes, transport);
        let fl = &self.flows[f.index()];
        // The source's coded packets are the flow's sent packets (the flows table's
        // `packets_sent`); forwarders' re-coded ones count for conservation only.
        if node == fl.src {
            self.metrics.on_created(&pkt);
        } else {
            self.metrics.on_created_control();
        }
        pkt
    }

    /// Queues a coded packet for broadcast at `node`; returns whether it was taken.
    fn more_enqueue(&mut self, node: NodeId, pkt: Packet) -> bool {
        let now = self.events.now();
        let iface = Iface::Wifi(node);
        let q = Queued {
            pkt,
            next_hop: BROADCAST,
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

    /// The MAC takes a coded packet at `node`: draws its code vector. Returns `false`
    /// (and drops it) if the node has nothing to send for its batch any more.
    pub(super) fn more_fill(&mut self, node: NodeId, pkt: &mut Packet) -> bool {
        let TransportHeader::More(mut d) = pkt.transport else {
            return true;
        };
        let src = self.flows[pkt.flow.index()].src;
        let m = self.more_flow(pkt.flow);
        let coded = if node == src && d.batch == MoreData::CURRENT_BATCH {
            m.stats.source_sent += 1;
            Some(m.source.code(&mut m.rng))
        } else {
            let MoreFlow {
                forwarders, rng, ..
            } = m;
            let fw = forwarders.iter().find(|(n, _)| *n == node);
            match fw.and_then(|(_, fw)| fw.code(d.batch, rng)) {
                Some(c) => {
                    m.stats.forwarder_sent += 1;
                    Some((d.batch, c))
                }
                None => {
                    m.stats.stale_credits += 1;
                    None
                }
            }
        };
        let Some((batch, coeffs)) = coded else {
            (self.metrics).on_packet_dropped(node, DropReason::CodingRedundancy, pkt);
            return false;
        };
        d.batch = batch;
        d.coeffs = self.more.arena.alloc(coeffs);
        pkt.transport = TransportHeader::More(d);
        true
    }

    /// `node` decoded a coded packet broadcast by `from`.
    pub(super) fn more_receive(&mut self, node: NodeId, from: NodeId, pkt: &Packet) {
        let TransportHeader::More(d) = pkt.transport else {
            return;
        };
        let now = self.events.now();
        let f = pkt.flow;
        let (dst, payload) = {
            let fl = &self.flows[f.index()];
            (fl.dst, fl.payload_bytes)
        };
        let coeffs = *self.more.arena.get(d.coeffs);
        if node == dst {
            let m = self.more_flow(f);
            let arrival = m.dest.on_packet(d.batch, &coeffs);
            let (innovative, ack) = match arrival {
                DestinationArrival::Innovative => (true, None),
                DestinationArrival::Decoded(b) => (true, Some(b)),
                // A batch already decoded: its ACK is on its way, reliable hop by hop
                // (`more_ack_retry`), so the destination does not repeat it; repeats would
                // queue faster than a lossy first hop carries them.
                DestinationArrival::Redundant | DestinationArrival::Old(_) => (false, None),
            };
            if innovative {
                m.stats.destination_innovative += 1;
            } else {
                m.stats.destination_redundant += 1;
            }
            let (k, started) = (m.k as u64, m.source.batch_started);
            if innovative {
                self.more.innovative.push(pkt.uid);
            }
            if let DestinationArrival::Decoded(_) = arrival {
                (self.metrics).on_app_delivered(f, k, k * payload as u64, started, now);
            }
            if let Some(b) = ack {
                self.more_send_ack(f, b);
            }
            return;
        }
        let m = self.more_flow(f);
        let upstream = m.plan.is_upstream(from, node);
        let Some(fw) = m.forwarder(node) else {
            return; // not a forwarder of this flow: overheard, not a delivery
        };
        let arrival = fw.on_packet(d.batch, &coeffs, upstream);
        let batch = fw.batch();
        if arrival.innovative {
            m.stats.forwarder_innovative += 1;
        } else {
            m.stats.forwarder_redundant += 1;
        }
        for _ in 0..arrival.transmissions {
            let pkt = self.more_opportunity(f, node, batch);
            self.more_enqueue(node, pkt);
        }
    }

    /// A coded packet's broadcast from `node` ended: its fate (module docs).
    pub(super) fn more_broadcast_done(&mut self, node: NodeId, pkt: Packet) {
        let TransportHeader::More(d) = pkt.transport else {
            return;
        };
        self.more.arena.release(d.coeffs);
        match self.more.innovative.iter().position(|&u| u == pkt.uid) {
            Some(i) => {
                self.more.innovative.swap_remove(i);
                self.metrics.on_transport_delivered();
            }
            None => (self.metrics).on_packet_dropped(node, DropReason::CodingRedundancy, &pkt),
        }
    }

    /// The destination ACKs `batch` to the source.
    fn more_send_ack(&mut self, f: FlowId, batch: u32) {
        let (src, node) = (self.flows[f.index()].src, self.flows[f.index()].dst);
        let transport = TransportHeader::MoreAck(MoreAck { batch });
        let mut pkt = self.flow_packet(f, node, src, batch as u64, 0, transport);
        // The ACK carries no queue report: it is not in DiffQ's queues.
        pkt.diffq = None;
        self.metrics.on_created_control();
        let m = self.more_flow(f);
        m.stats.acks_sent += 1;
        self.more_ack_forward(node, pkt);
    }

    /// A batch ACK is at `node` (made or received here): the source moves on, a
    /// forwarder flushes the batch, others pass it on ahead of their data.
    pub(super) fn more_ack_forward(&mut self, node: NodeId, mut pkt: Packet) {
        let TransportHeader::MoreAck(a) = pkt.transport else {
            return;
        };
        let now = self.events.now();
        let f = pkt.flow;
        let m = self.more_flow(f);
        if let Some(fw) = m.forwarder(node) {
            fw.flush_to(a.batch + 1);
        }
        if pkt.dst == node {
            m.stats.acks_received += 1;
            m.source.on_ack(a.batch, now);
            self.metrics.on_transport_delivered();
            return;
        }
        if pkt.src != node {
            pkt.ttl = pkt.ttl.saturating_sub(1);
            if pkt.ttl == 0 {
                self.metrics.on_packet_dropped(node, DropReason::Ttl, &pkt);
                return;
            }
        }
        self.more_queue_ack(node, pkt, false);
    }

    /// Queues a batch ACK at `node` towards the source, at the tail of its ACK queue or
    /// (`again`, after the MAC gave up on it) at the head.
    fn more_queue_ack(&mut self, node: NodeId, pkt: Packet, again: bool) {
        let Some(next) = self.routing.next_hop(node, pkt.dst) else {
            self.metrics
                .on_packet_dropped(node, DropReason::NoRoute, &pkt);
            return;
        };
        // The top MAC level the station has (the MAC clips the level): ahead of data in
        // the channel too, under DiffQ's EDCA table as under plain DCF.
        let d = Dequeued {
            pkt,
            next_hop: next,
            priority: u8::MAX,
        };
        let q = &mut self.more.acks[node.index()];
        if again {
            q.push_front(d);
        } else {
            q.push_back(d);
        }
        self.kick(Iface::Wifi(node));
    }

    /// The MAC gave up on a batch ACK at `node`: it goes back to the head of the node's
    /// ACK queue, for the MAC to try again. MORE's ACK must arrive (its paper sends it
    /// reliably without saying how): the forwarders it has passed have flushed the batch
    /// and ignore its packets from then on, and the source sends nothing else until it
    /// hears the ACK, so a dropped ACK would stall the flow for good once the destination
    /// stops hearing the batch.
    pub(super) fn more_ack_retry(&mut self, node: NodeId, pkt: Packet) {
        self.more_queue_ack(node, pkt, true);
    }

    /// Whether every code vector still stored belongs to a coded packet in a MAC's
    /// buffer: each slot is released exactly once, when its broadcast ends.
    pub(super) fn more_arena_consistent(&self) -> bool {
        let held = self.wifi.as_ref().map_or(0, |w| {
            (w.net.buffered_packets())
                .filter(|p| matches!(p.transport, TransportHeader::More(d) if d.coeffs.is_filled()))
                .count()
        });
        held == self.more.arena.live()
    }

    pub(super) fn more_stats(&self) -> Vec<Option<MoreFlowStats>> {
        (self.flows.iter())
            .map(|fl| match &fl.app {
                FlowApp::More(m) => Some(m.stats()),
                _ => None,
            })
            .collect()
    }
}
