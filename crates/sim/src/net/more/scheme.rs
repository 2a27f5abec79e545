//! MORE as a network-layer scheme (`net/scheme.rs`; MORE, SIGCOMM 2007, section 4; seed
//! 000, section 2): the source keeps its radio queue full of transmission opportunities,
//! forwarders queue one per whole TX credit earned, and an opportunity is filled with a
//! fresh code vector when the MAC takes it ([`NetScheme::on_dequeue`]), then broadcast
//! without ACK or retries. The destination's batch ACK goes back by unicast over the
//! static (ETX) routes, ahead of data ([`NetScheme::pop_control`]), reliable hop by hop
//! ([`NetScheme::on_retry_exhausted`]), one per batch.
//!
//! DiffQ-MORE (seed 000, 4.2 and 6.2): packets carry the DiffQ header, wait in DiffQ's
//! destination queue scheduled by eq. (2) over the forwarders among the neighbours
//! ([`NetScheme::next_hop_sets`]), and the source is paced by DiffQ's rate control
//! ([`NetScheme::on_pace`]).
//!
//! With a `send_cost` or `receive_cost` (`process.rs`: seed 000's user-space MORE) each
//! coded packet a forwarder or the destination hears waits for the node's process, and
//! each one a node queues is made by it first: the source writes one at a time, waiting
//! for room in its queue as a blocking write does, and a forwarder makes one per credit
//! earned.
//!
//! Accounting: a coded packet is created by the node that queues it and ends with its
//! broadcast: delivered if innovative at the destination, else dropped as
//! `coding_redundancy` at its sender (as is an opportunity with nothing left to send).
//! With a user-space cost its fate waits for the destination's process: held until
//! then, and lost as `queue_overflow` at the destination if its socket buffer was full.
//! ACKs are created at the destination and delivered at the source. Goodput counts
//! decoded batches, K x packet size each.

use super::process::{Job, Processes, SocketFull};
use super::{
    CoeffArena, CoeffHandle, Coeffs, DestinationArrival, MoreAck, MoreData, MoreDestination,
    MoreFlowConfig, MoreFlowStats, MoreForwarder, MorePlan, MoreSource,
};
use crate::ids::{FlowId, NodeId};
use crate::medium::wifi::BROADCAST;
use crate::net::scheme::{
    BroadcastFate, NetAction, NetCx, NetFlow, NetReports, NetScheme, PacketSpec,
};
use crate::net::{DropReason, Packet, TransportHeader};
use crate::qdisc::Dequeued;
use airqueue_kernel::{RngStream, StreamKey, Time};
use std::collections::VecDeque;

/// One MORE flow's state at all its nodes.
#[derive(Clone, Debug)]
struct MoreFlow {
    src: NodeId,
    dst: NodeId,
    start: Time,
    stop: Time,
    payload_bytes: u32,
    k: u8,
    plan: MorePlan,
    source: MoreSource,
    forwarders: Vec<(NodeId, MoreForwarder)>,
    dest: MoreDestination,
    /// Code-vector draws of all the flow's nodes, keyed (seed, flow, "more.code").
    rng: RngStream,
    stats: MoreFlowStats,
    /// Processor time per packet a node's user-space process makes / receives (both
    /// zero: no process), and its socket buffer.
    send_cost: Time,
    receive_cost: Time,
    receive_buffer: u32,
    /// Batch ACKs go up to the process too (with a cost).
    process_acks: bool,
    /// A source rate controller ticks the source.
    paced: bool,
    /// The source's process is making a packet / holds one waiting for queue room.
    source_coding: bool,
    source_ready: bool,
}

impl MoreFlow {
    fn new(f: &NetFlow, cfg: &MoreFlowConfig, seed: u64) -> Self {
        let k = cfg.batch as usize;
        MoreFlow {
            src: f.src,
            dst: f.dst,
            start: f.start,
            stop: f.stop,
            payload_bytes: f.payload_bytes,
            k: cfg.batch,
            source: MoreSource::new(k, Time::ZERO),
            forwarders: (cfg.plan.forwarders.iter())
                .map(|f| (f.node, MoreForwarder::new(k, f.tx_credit)))
                .collect(),
            dest: MoreDestination::new(k),
            rng: RngStream::new(StreamKey::new(seed, f.id.0, "more.code")),
            stats: MoreFlowStats {
                forwarders: (cfg.plan.forwarders.iter())
                    .map(|f| (f.node, f.tx_credit))
                    .collect(),
                ..Default::default()
            },
            plan: cfg.plan.clone(),
            send_cost: cfg.send_cost,
            receive_cost: cfg.receive_cost,
            receive_buffer: cfg.receive_buffer,
            process_acks: cfg.process_acks,
            paced: false,
            source_coding: false,
            source_ready: false,
        }
    }

    fn in_user_space(&self) -> bool {
        self.send_cost > Time::ZERO || self.receive_cost > Time::ZERO
    }

    fn forwarder(&mut self, node: NodeId) -> Option<&mut MoreForwarder> {
        (self.forwarders.iter_mut())
            .find(|(n, _)| *n == node)
            .map(|(_, f)| f)
    }

    fn stats(&self) -> MoreFlowStats {
        MoreFlowStats {
            batches_decoded: self.dest.decoded(),
            ..self.stats.clone()
        }
    }

    /// A new unfilled coded packet of flow `flow` at `node` for `batch`.
    fn opportunity(&self, flow: FlowId, node: NodeId, batch: u32) -> PacketSpec {
        PacketSpec {
            node,
            flow,
            dst: self.dst,
            seq: 0,
            payload_bytes: self.payload_bytes,
            transport: TransportHeader::More(MoreData {
                batch,
                coeffs: CoeffHandle::UNFILLED,
                batch_k: self.k,
                forwarders: self.plan.forwarders.len().min(u8::MAX as usize) as u8,
            }),
        }
    }
}

/// Every MORE flow of a run, the code vectors on the air and the nodes' ACK queues.
#[derive(Debug)]
pub struct MoreNet {
    /// By flow id; `None` for the flows of other kinds.
    flows: Vec<Option<MoreFlow>>,
    arena: CoeffArena,
    /// Per node: batch ACKs waiting for the MAC, served ahead of data.
    acks: Vec<VecDeque<Dequeued>>,
    /// Coded packets on the air that the destination took as innovative (resolved at
    /// the end of their broadcast, a few entries at most).
    innovative: Vec<u64>,
    /// With a user-space cost: the nodes' processes; coded packets on the air whose
    /// destination copy waits for its process, or found its socket buffer full; and
    /// the packets whose broadcast ended while their copy waited (held).
    processes: Processes,
    awaiting: Vec<u64>,
    overflowed: Vec<u64>,
    held_for_destination: usize,
}

impl MoreNet {
    /// The MORE flows among `node_count` nodes; code vectors are drawn from streams
    /// keyed by `seed`.
    pub fn new<'a>(
        flows: impl Iterator<Item = (&'a NetFlow<'a>, &'a MoreFlowConfig)>,
        node_count: usize,
        seed: u64,
    ) -> Self {
        let mut by_id: Vec<Option<MoreFlow>> = Vec::new();
        for (f, cfg) in flows {
            if by_id.len() <= f.id.index() {
                by_id.resize(f.id.index() + 1, None);
            }
            by_id[f.id.index()] = Some(MoreFlow::new(f, cfg, seed));
        }
        let user_space = by_id.iter().flatten().any(MoreFlow::in_user_space);
        MoreNet {
            flows: by_id,
            arena: CoeffArena::new(),
            acks: vec![VecDeque::new(); node_count],
            innovative: Vec::new(),
            processes: Processes::new(if user_space { node_count } else { 0 }, seed),
            awaiting: Vec::new(),
            overflowed: Vec::new(),
            held_for_destination: 0,
        }
    }

    fn flow(&mut self, f: FlowId) -> Option<&mut MoreFlow> {
        self.flows.get_mut(f.index())?.as_mut()
    }

    /// Keeps the source's radio queue full of transmission opportunities while the flow
    /// is on (MORE's source sends as fast as the MAC lets it, seed 000 section 2). In
    /// user space its process makes them one at a time: a packet made waits for room,
    /// and the next is begun once it is written.
    fn top_up(&mut self, f: FlowId, cx: &NetCx, out: &mut Vec<NetAction>) {
        let Some(m) = self.flow(f) else { return };
        if cx.now < m.start || cx.now >= m.stop {
            return;
        }
        let pkt = m.opportunity(f, m.src, MoreData::CURRENT_BATCH);
        if !m.in_user_space() {
            out.push(NetAction::Fill { pkt, to: BROADCAST });
            return;
        }
        if m.source_ready {
            if !cx.queues.has_room(m.src, f, BROADCAST) {
                return;
            }
            m.source_ready = false;
            out.push(NetAction::Queue { pkt, to: BROADCAST });
        }
        if !m.source_coding {
            m.source_coding = true;
            let src = m.src;
            self.code(src, f, MoreData::CURRENT_BATCH, cx, out);
        }
    }

    /// Asks `node`'s process to make a coded packet of `flow` for `batch`, at the flow's
    /// send cost (work to send always waits its turn).
    fn code(
        &mut self,
        node: NodeId,
        flow: FlowId,
        batch: u32,
        cx: &NetCx,
        out: &mut Vec<NetAction>,
    ) {
        let Some(m) = self.flow(flow) else { return };
        let cost = m.send_cost;
        self.submit_unbuffered(node, Job::Code { flow, batch }, cost, cx.now, out);
    }

    /// Hands `job` of mean cost `cost` to `node`'s process, outside the socket buffer's
    /// limit, and wakes the process if it was idle.
    fn submit_unbuffered(
        &mut self,
        node: NodeId,
        job: Job,
        cost: Time,
        now: Time,
        out: &mut Vec<NetAction>,
    ) {
        if let Ok(Some(at)) = self.processes.submit(node, job, cost, u32::MAX, now) {
            out.push(NetAction::Wake { node, at });
        }
    }

    /// A coded packet `pkt` of a user-space flow reached `node` from `from`: up to the
    /// process if this is a forwarder or the destination of its flow.
    fn hear_in_user_space(
        &mut self,
        node: NodeId,
        from: NodeId,
        pkt: Packet,
        d: MoreData,
        now: Time,
        out: &mut Vec<NetAction>,
    ) {
        let coeffs = *self.arena.get(d.coeffs);
        let Some(m) = self.flow(pkt.flow) else { return };
        let at_destination = node == m.dst;
        if !at_destination && m.forwarder(node).is_none() {
            return; // not a forwarder of this flow: overheard, not a delivery
        }
        let (uid, f, cost, buffer) = (pkt.uid, pkt.flow, m.receive_cost, m.receive_buffer);
        let job = Job::Receive {
            from,
            pkt,
            coeffs,
            at_destination,
        };
        match self.processes.submit(node, job, cost, buffer, now) {
            Ok(wake) => {
                if let Some(at) = wake {
                    out.push(NetAction::Wake { node, at });
                }
                if at_destination {
                    self.awaiting.push(uid);
                }
            }
            Err(SocketFull) => {
                if at_destination {
                    self.overflowed.push(uid);
                }
                if let Some(m) = self.flow(f) {
                    m.stats.receive_overflow += 1;
                }
            }
        }
    }

    /// `node` decoded coded packet `pkt` (header `d`, code vector `coeffs`) broadcast
    /// by `from`. `held`: the packet's broadcast has ended and its fate waited for this
    /// (the destination's process), so it is settled now.
    #[allow(clippy::too_many_arguments)]
    fn receive_coded(
        &mut self,
        node: NodeId,
        from: NodeId,
        pkt: &Packet,
        d: MoreData,
        coeffs: &Coeffs,
        held: bool,
        cx: &NetCx,
        out: &mut Vec<NetAction>,
    ) {
        let f = pkt.flow;
        let Some(m) = self.flows.get_mut(f.index()).and_then(Option::as_mut) else {
            return;
        };
        if node == m.dst {
            let arrival = m.dest.on_packet(d.batch, coeffs);
            let (innovative, ack) = match arrival {
                DestinationArrival::Innovative => (true, None),
                DestinationArrival::Decoded(b) => (true, Some(b)),
                // A batch already decoded: its ACK is on its way, reliable hop by hop
                // (`on_retry_exhausted`), so the destination does not repeat it; repeats
                // would queue faster than a lossy first hop carries them.
                DestinationArrival::Redundant | DestinationArrival::Old(_) => (false, None),
            };
            if innovative {
                m.stats.destination_innovative += 1;
            } else {
                m.stats.destination_redundant += 1;
            }
            match (held, innovative) {
                (false, true) => self.innovative.push(pkt.uid),
                (false, false) => {}
                (true, true) => out.push(NetAction::Arrived),
                (true, false) => out.push(NetAction::Drop {
                    node,
                    reason: DropReason::CodingRedundancy,
                    pkt: pkt.clone(),
                }),
            }
            if let DestinationArrival::Decoded(_) = arrival {
                let k = m.k as u64;
                out.push(NetAction::Release {
                    flow: f,
                    packets: k,
                    bytes: k * m.payload_bytes as u64,
                    sent: m.source.batch_started,
                });
            }
            if let Some(batch) = ack {
                // The destination ACKs `batch` to the source.
                m.stats.acks_sent += 1;
                out.push(NetAction::Send(PacketSpec {
                    node,
                    flow: f,
                    dst: m.src,
                    seq: batch as u64,
                    payload_bytes: 0,
                    transport: TransportHeader::MoreAck(MoreAck { batch }),
                }));
            }
            return;
        }
        let upstream = m.plan.is_upstream(from, node);
        let Some(fw) = m.forwarder(node) else {
            return; // not a forwarder of this flow: overheard, not a delivery
        };
        let arrival = fw.on_packet(d.batch, coeffs, upstream);
        let batch = fw.batch();
        if arrival.innovative {
            m.stats.forwarder_innovative += 1;
        } else {
            m.stats.forwarder_redundant += 1;
        }
        if m.in_user_space() {
            for _ in 0..arrival.transmissions {
                self.code(node, f, batch, cx, out);
            }
            return;
        }
        for _ in 0..arrival.transmissions {
            let pkt = m.opportunity(f, node, batch);
            out.push(NetAction::Queue { pkt, to: BROADCAST });
        }
    }

    /// `node`'s process finished `job`.
    fn job_done(&mut self, node: NodeId, job: Job, cx: &NetCx, out: &mut Vec<NetAction>) {
        match job {
            Job::Receive {
                from,
                pkt,
                coeffs,
                at_destination,
            } => {
                let TransportHeader::More(d) = pkt.transport else {
                    return;
                };
                // The destination's copy settles the packet's fate: at once if its
                // broadcast is still on, else now, out of the held ones.
                let mut held = false;
                if at_destination {
                    match self.awaiting.iter().position(|&u| u == pkt.uid) {
                        Some(i) => {
                            self.awaiting.swap_remove(i);
                        }
                        None => {
                            held = true;
                            self.held_for_destination -= 1;
                        }
                    }
                }
                self.receive_coded(node, from, &pkt, d, &coeffs, held, cx, out);
            }
            Job::Ack { pkt, ack } => self.forward_ack(node, pkt, ack, cx, out),
            Job::Code { flow, batch } => {
                let Some(m) = self.flow(flow) else { return };
                if node == m.src && batch == MoreData::CURRENT_BATCH {
                    m.source_coding = false;
                    if m.paced {
                        let pkt = m.opportunity(flow, node, batch);
                        out.push(NetAction::Queue { pkt, to: BROADCAST });
                    } else {
                        m.source_ready = true;
                        self.top_up(flow, cx, out);
                    }
                    return;
                }
                // A forwarder whose batch was flushed meanwhile has nothing to send.
                if m.forwarder(node).is_some_and(|fw| fw.batch() == batch) {
                    let pkt = m.opportunity(flow, node, batch);
                    out.push(NetAction::Queue { pkt, to: BROADCAST });
                }
            }
        }
    }

    /// A batch ACK is at `node` (made or received here): the source moves on, a
    /// forwarder flushes the batch, others pass it on ahead of their data.
    fn forward_ack(
        &mut self,
        node: NodeId,
        mut pkt: Packet,
        a: MoreAck,
        cx: &NetCx,
        out: &mut Vec<NetAction>,
    ) {
        let Some(m) = self.flow(pkt.flow) else { return };
        if let Some(fw) = m.forwarder(node) {
            fw.flush_to(a.batch + 1);
        }
        if pkt.dst == node {
            m.stats.acks_received += 1;
            m.source.on_ack(a.batch, cx.now);
            out.push(NetAction::Arrived);
            return;
        }
        if pkt.src != node {
            pkt.ttl = pkt.ttl.saturating_sub(1);
            if pkt.ttl == 0 {
                let reason = DropReason::Ttl;
                out.push(NetAction::Drop { node, reason, pkt });
                return;
            }
        }
        self.queue_ack(node, pkt, false, cx, out);
    }

    /// Queues a batch ACK at `node` towards the source, at the tail of its ACK queue or
    /// (`again`, after the MAC gave up on it) at the head.
    fn queue_ack(
        &mut self,
        node: NodeId,
        pkt: Packet,
        again: bool,
        cx: &NetCx,
        out: &mut Vec<NetAction>,
    ) {
        let Some(next_hop) = cx.routes.next_hop(node, pkt.dst) else {
            let reason = DropReason::NoRoute;
            out.push(NetAction::Drop { node, reason, pkt });
            return;
        };
        // The top MAC level the station has (the MAC clips the level): ahead of data in
        // the channel too, under DiffQ's EDCA table as under plain DCF.
        let d = Dequeued {
            pkt,
            next_hop,
            priority: u8::MAX,
        };
        let q = &mut self.acks[node.index()];
        if again {
            q.push_front(d);
        } else {
            q.push_back(d);
        }
        out.push(NetAction::Kick(node));
    }
}

impl NetScheme for MoreNet {
    fn claims(&self, pkt: &Packet) -> bool {
        matches!(
            pkt.transport,
            TransportHeader::More(_) | TransportHeader::MoreAck(_)
        )
    }

    /// The first batch begins now; an unpaced source fills its queue.
    fn on_flow_start(&mut self, flow: FlowId, paced: bool, cx: &NetCx, out: &mut Vec<NetAction>) {
        let Some(m) = self.flow(flow) else { return };
        m.source.batch_started = cx.now;
        m.paced = paced;
        if !paced {
            self.top_up(flow, cx, out);
        }
    }

    fn on_packet(
        &mut self,
        node: NodeId,
        from: NodeId,
        pkt: Packet,
        cx: &NetCx,
        out: &mut Vec<NetAction>,
    ) {
        match pkt.transport {
            TransportHeader::More(d) => {
                let user_space = (self.flows.get(pkt.flow.index()))
                    .is_some_and(|m| m.as_ref().is_some_and(MoreFlow::in_user_space));
                if user_space {
                    self.hear_in_user_space(node, from, pkt, d, cx.now, out);
                } else {
                    let coeffs = *self.arena.get(d.coeffs);
                    self.receive_coded(node, from, &pkt, d, &coeffs, false, cx, out);
                }
            }
            TransportHeader::MoreAck(a) => {
                let to_process = (self.flow(pkt.flow))
                    .filter(|m| m.process_acks && m.in_user_space())
                    .map(|m| m.receive_cost);
                match to_process {
                    Some(cost) => {
                        self.submit_unbuffered(node, Job::Ack { pkt, ack: a }, cost, cx.now, out)
                    }
                    None => self.forward_ack(node, pkt, a, cx, out),
                }
            }
            _ => {}
        }
    }

    fn report(&self, reports: &mut NetReports) {
        for (i, m) in self.flows.iter().enumerate() {
            if let (Some(m), Some(slot)) = (m, reports.more.get_mut(i)) {
                *slot = Some(m.stats());
            }
        }
    }

    /// One tick of a DiffQ-MORE source (seed 000, 6.2: the source sends coded packets at
    /// the rate DiffQ regulates): one coded packet into its destination queue. A full
    /// queue drops it, as it would a DiffQ-UDP datagram; the tick counts either way.
    /// In user space the tick begins the packet, which is queued when made; a tick
    /// while the process is still making one passes.
    fn on_pace(&mut self, flow: FlowId, cx: &NetCx, out: &mut Vec<NetAction>) -> bool {
        let Some(m) = self.flow(flow) else {
            return false;
        };
        if !m.in_user_space() {
            let pkt = m.opportunity(flow, m.src, MoreData::CURRENT_BATCH);
            out.push(NetAction::Queue { pkt, to: BROADCAST });
            return true;
        }
        if m.source_coding {
            return false;
        }
        m.source_coding = true;
        let src = m.src;
        self.code(src, flow, MoreData::CURRENT_BATCH, cx, out);
        true
    }

    fn on_source_dequeue(&mut self, flow: FlowId, cx: &NetCx, out: &mut Vec<NetAction>) {
        self.top_up(flow, cx, out);
    }

    /// `node`'s process finished its head job; it begins the next.
    fn on_wake(&mut self, node: NodeId, cx: &NetCx, out: &mut Vec<NetAction>) {
        let Some((job, next)) = self.processes.finish(node, cx.now) else {
            return;
        };
        if let Some(at) = next {
            out.push(NetAction::Wake { node, at });
        }
        self.job_done(node, job, cx, out);
    }

    /// The next batch ACK `node` should send (MORE, 4.2.3).
    fn pop_control(&mut self, node: NodeId) -> Option<Dequeued> {
        self.acks.get_mut(node.index())?.pop_front()
    }

    /// Draws the code vector of the coded packet the MAC takes at `node`; refused (as
    /// `coding_redundancy`) if the node has nothing to send for its batch any more.
    fn on_dequeue(&mut self, node: NodeId, pkt: &mut Packet) -> Result<(), DropReason> {
        let TransportHeader::More(mut d) = pkt.transport else {
            return Ok(());
        };
        let Some(m) = self
            .flows
            .get_mut(pkt.flow.index())
            .and_then(Option::as_mut)
        else {
            return Ok(());
        };
        let coded = if node == m.src && d.batch == MoreData::CURRENT_BATCH {
            m.stats.source_sent += 1;
            Some(m.source.code(&mut m.rng))
        } else {
            let fw = m.forwarders.iter().find(|(n, _)| *n == node);
            match fw.and_then(|(_, fw)| fw.code(d.batch, &mut m.rng)) {
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
            return Err(DropReason::CodingRedundancy);
        };
        d.batch = batch;
        d.coeffs = self.arena.alloc(coeffs);
        pkt.transport = TransportHeader::More(d);
        Ok(())
    }

    /// A coded packet's broadcast ended: its fate (module docs).
    fn on_broadcast_done(&mut self, _node: NodeId, pkt: &Packet) -> BroadcastFate {
        let TransportHeader::More(d) = pkt.transport else {
            return BroadcastFate::Arrived;
        };
        self.arena.release(d.coeffs);
        if let Some(i) = self.innovative.iter().position(|&u| u == pkt.uid) {
            self.innovative.swap_remove(i);
            return BroadcastFate::Arrived;
        }
        if let Some(i) = self.awaiting.iter().position(|&u| u == pkt.uid) {
            self.awaiting.swap_remove(i);
            self.held_for_destination += 1;
            return BroadcastFate::Held;
        }
        if let Some(i) = self.overflowed.iter().position(|&u| u == pkt.uid) {
            self.overflowed.swap_remove(i);
            return BroadcastFate::Dropped(DropReason::QueueOverflow);
        }
        BroadcastFate::Dropped(DropReason::CodingRedundancy)
    }

    /// The MAC gave up on a batch ACK at `node`: it goes back to the head of the node's
    /// ACK queue, for the MAC to try again. MORE's ACK must arrive (its paper sends it
    /// reliably without saying how): the forwarders it has passed have flushed the batch
    /// and ignore its packets from then on, and the source sends nothing else until it
    /// hears the ACK, so a dropped ACK would stall the flow for good once the destination
    /// stops hearing the batch.
    fn on_retry_exhausted(
        &mut self,
        node: NodeId,
        pkt: Packet,
        cx: &NetCx,
        out: &mut Vec<NetAction>,
    ) {
        match pkt.transport {
            TransportHeader::MoreAck(_) => self.queue_ack(node, pkt, true, cx, out),
            _ => out.push(NetAction::Drop {
                node,
                reason: DropReason::MacRetryLimit,
                pkt,
            }),
        }
    }

    /// ACKs waiting in the per-node queues, and coded packets whose fate waits for the
    /// destination's process.
    fn held(&self) -> usize {
        self.acks.iter().map(|q| q.len()).sum::<usize>()
            + self.processes.acks()
            + self.held_for_destination
    }

    fn next_hop_sets(&self, flow: FlowId) -> &[(NodeId, Vec<NodeId>)] {
        match self.flows.get(flow.index()) {
            Some(Some(m)) => &m.plan.neighbour_forwarders,
            _ => &[],
        }
    }

    /// Every code vector still stored belongs to a coded packet in a MAC's buffer: each
    /// slot is released exactly once, when its broadcast ends. Every packet held for its
    /// destination's process is there.
    fn check(&self, in_macs: &mut dyn Iterator<Item = &Packet>) -> Result<(), String> {
        let held = in_macs
            .filter(|p| matches!(p.transport, TransportHeader::More(d) if d.coeffs.is_filled()))
            .count();
        if held != self.arena.live() {
            return Err(format!(
                "MORE code-vector slots leaked: {} live, {held} coded packets in the MACs",
                self.arena.live()
            ));
        }
        let waiting = (self.processes.receptions())
            .filter(|j| {
                matches!(j, Job::Receive { pkt, at_destination: true, .. }
                    if !self.awaiting.contains(&pkt.uid))
            })
            .count();
        match waiting == self.held_for_destination {
            true => Ok(()),
            false => Err(format!(
                "MORE holds {} packets for their destinations' processes, which hold {waiting}",
                self.held_for_destination
            )),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::net::more::plan;
    use crate::net::packet::DEFAULT_TTL;
    use crate::net::scheme::NetFlowConfig;
    use crate::net::{GraphEdge, RoutingTable};

    const FLOW: FlowId = FlowId(1);
    const K: u8 = 4;

    /// A line S=0 - R=1 - D=2 (S->R 0.5, R->D 0.8, S->D 0.1, both ways): R forwards
    /// with credit 0.9 / 0.8. The MORE flow is flow 1 (flow 0 is of another kind).
    fn line() -> (MoreNet, RoutingTable) {
        let links = [(0, 1, 0.5), (1, 2, 0.8), (0, 2, 0.1)];
        let delivery = |a: NodeId, b: NodeId| {
            let l = links.iter().find(|&&(x, y, _)| {
                (NodeId(x), NodeId(y)) == (a, b) || (NodeId(y), NodeId(x)) == (a, b)
            });
            l.map_or(0.0, |l| l.2)
        };
        let cfg = MoreFlowConfig {
            batch: K,
            send_cost: Time::ZERO,
            receive_cost: Time::ZERO,
            receive_buffer: 50,
            process_acks: false,
            plan: plan(3, NodeId(0), NodeId(2), delivery),
        };
        let config = NetFlowConfig::More(cfg.clone());
        let flow = NetFlow {
            id: FLOW,
            src: NodeId(0),
            dst: NodeId(2),
            start: Time::from_secs(1),
            stop: Time::from_secs(10),
            payload_bytes: 1000,
            config: &config,
        };
        let net = MoreNet::new(std::iter::once((&flow, &cfg)), 3, 7);
        let edge = |to| GraphEdge {
            to: NodeId(to),
            cost: 1.0,
        };
        let routes =
            RoutingTable::shortest_paths(&[vec![edge(1)], vec![edge(0), edge(2)], vec![edge(1)]]);
        (net, routes)
    }

    /// The packet the world makes for `spec` (uid `uid`).
    fn made(spec: PacketSpec, uid: u64) -> Packet {
        Packet {
            uid,
            flow: spec.flow,
            src: spec.node,
            dst: spec.dst,
            seq: spec.seq,
            payload_bytes: spec.payload_bytes,
            transport: spec.transport,
            ttl: DEFAULT_TTL,
            priority: 0,
            created: Time::ZERO,
            diffq: None,
            report: None,
        }
    }

    /// Queues that have room, or not.
    struct Room(bool);

    impl crate::net::scheme::QueueRoom for Room {
        fn has_room(&self, _node: NodeId, _flow: FlowId, _to: NodeId) -> bool {
            self.0
        }
    }

    fn cx(routes: &RoutingTable, secs: u64) -> NetCx<'_> {
        NetCx {
            now: Time::from_secs(secs),
            routes,
            queues: &Room(true),
        }
    }

    fn batch_of(pkt: &Packet) -> u32 {
        match pkt.transport {
            TransportHeader::More(d) => d.batch,
            _ => panic!("not a coded packet"),
        }
    }

    #[test]
    fn claims_its_coded_packets_and_acks_only() {
        let (net, _) = line();
        let coded = made(
            net.flows[1]
                .as_ref()
                .unwrap()
                .opportunity(FLOW, NodeId(0), 0),
            0,
        );
        let mut ack = coded.clone();
        ack.transport = TransportHeader::MoreAck(MoreAck { batch: 0 });
        let mut udp = coded.clone();
        udp.transport = TransportHeader::Udp;
        assert!(net.claims(&coded) && net.claims(&ack) && !net.claims(&udp));
    }

    #[test]
    fn an_unpaced_source_fills_its_queue_while_the_flow_is_on() {
        let (mut net, routes) = line();
        let mut out = Vec::new();
        net.on_flow_start(FLOW, true, &cx(&routes, 1), &mut out);
        assert!(out.is_empty(), "a paced source waits for its ticks");
        net.on_flow_start(FLOW, false, &cx(&routes, 1), &mut out);
        let [NetAction::Fill { pkt, to }] = out.as_slice() else {
            panic!("one fill: {out:?}")
        };
        assert_eq!((pkt.node, pkt.dst, *to), (NodeId(0), NodeId(2), BROADCAST));
        assert_eq!(pkt.payload_bytes, 1000);
        let TransportHeader::More(d) = pkt.transport else {
            panic!("a coded packet")
        };
        assert_eq!(
            (d.batch, d.coeffs, d.batch_k, d.forwarders),
            (MoreData::CURRENT_BATCH, CoeffHandle::UNFILLED, K, 1)
        );
        out.clear();
        net.on_source_dequeue(FLOW, &cx(&routes, 10), &mut out);
        assert!(out.is_empty(), "no refill from the flow's stop on");
        assert!(net.on_pace(FLOW, &cx(&routes, 5), &mut out));
        assert!(matches!(
            out.as_slice(),
            [NetAction::Queue { to: BROADCAST, .. }]
        ));
        assert!(
            !net.on_pace(FlowId(0), &cx(&routes, 5), &mut out),
            "not a MORE flow"
        );
        assert_eq!(out.len(), 1);
    }

    /// One batch from the source to the destination (direct, S->D), the ACK back through
    /// the forwarder's ACK queue, and the accounting of every packet on the way.
    #[test]
    fn a_batch_is_decoded_acked_and_every_packet_accounted_for() {
        let (mut net, routes) = line();
        let mut out = Vec::new();
        net.on_flow_start(FLOW, false, &cx(&routes, 1), &mut out);
        let Some(NetAction::Fill { pkt: spec, .. }) = out.pop() else {
            panic!("a fill")
        };
        // The forwarder hears the first coded packet from upstream: one transmission
        // earned (credit 1.125), for its batch 0.
        let mut sent = Vec::new();
        let mut first = made(spec, 0);
        net.on_dequeue(NodeId(0), &mut first)
            .expect("the source always has a vector");
        assert_eq!(batch_of(&first), 0);
        net.on_packet(
            NodeId(1),
            NodeId(0),
            first.clone(),
            &cx(&routes, 1),
            &mut out,
        );
        let [NetAction::Queue {
            pkt: fw_spec,
            to: BROADCAST,
        }] = out.as_slice()
        else {
            panic!("one transmission earned: {out:?}")
        };
        let fw_opportunity = made(*fw_spec, 100);
        out.clear();
        sent.push(first);
        // The destination decodes after K innovative packets (random vectors over
        // GF(2^8): almost surely the first K).
        let mut uid = 1;
        while !out.iter().any(|a| matches!(a, NetAction::Release { .. })) {
            let mut p = made(spec, uid);
            uid += 1;
            net.on_dequeue(NodeId(0), &mut p).unwrap();
            net.on_packet(NodeId(2), NodeId(0), p.clone(), &cx(&routes, 2), &mut out);
            sent.push(p);
        }
        let release = out.iter().find(|a| matches!(a, NetAction::Release { .. }));
        let Some(&NetAction::Release {
            flow,
            packets,
            bytes,
            sent: at,
        }) = release
        else {
            unreachable!()
        };
        assert_eq!(
            (flow, packets, bytes, at),
            (FLOW, K as u64, K as u64 * 1000, Time::from_secs(1))
        );
        let Some(&NetAction::Send(ack_spec)) = out.last() else {
            panic!("the ACK follows the release: {out:?}")
        };
        assert_eq!(
            (ack_spec.node, ack_spec.dst, ack_spec.seq),
            (NodeId(2), NodeId(0), 0)
        );
        assert_eq!(
            ack_spec.transport,
            TransportHeader::MoreAck(MoreAck { batch: 0 })
        );
        out.clear();
        // Broadcast ends: the K innovative ones arrived, the rest are redundancy.
        let fates: Vec<_> = (sent.iter())
            .map(|p| net.on_broadcast_done(NodeId(0), p))
            .collect();
        let arrived = (fates.iter())
            .filter(|&&f| f == BroadcastFate::Arrived)
            .count();
        let redundant = (fates.iter())
            .filter(|&&f| f == BroadcastFate::Dropped(DropReason::CodingRedundancy))
            .count();
        assert_eq!((arrived, arrived + redundant), (K as usize, sent.len()));
        assert_eq!(
            net.check(&mut std::iter::empty()),
            Ok(()),
            "every vector released"
        );
        out.clear();
        // The ACK, made at the destination, waits in its ACK queue for the MAC.
        let ack = made(ack_spec, 200);
        net.on_packet(NodeId(2), NodeId(2), ack, &cx(&routes, 2), &mut out);
        assert!(matches!(out.as_slice(), [NetAction::Kick(NodeId(2))]));
        assert_eq!(net.held(), 1);
        let d = net.pop_control(NodeId(2)).expect("the ACK");
        assert_eq!(
            (d.next_hop, d.priority, d.pkt.uid),
            (NodeId(1), u8::MAX, 200)
        );
        assert_eq!(net.held(), 0);
        out.clear();
        // At the forwarder: its batch is flushed (its earned opportunity goes stale),
        // the ACK goes on with one hop less, and back to the head if the MAC gives up.
        net.on_packet(NodeId(1), NodeId(2), d.pkt, &cx(&routes, 3), &mut out);
        assert!(matches!(out.as_slice(), [NetAction::Kick(NodeId(1))]));
        let mut stale = fw_opportunity;
        assert_eq!(
            net.on_dequeue(NodeId(1), &mut stale),
            Err(DropReason::CodingRedundancy)
        );
        let d = net.pop_control(NodeId(1)).expect("the ACK");
        assert_eq!((d.next_hop, d.pkt.ttl), (NodeId(0), DEFAULT_TTL - 1));
        out.clear();
        net.on_retry_exhausted(NodeId(1), d.pkt, &cx(&routes, 3), &mut out);
        assert!(matches!(out.as_slice(), [NetAction::Kick(NodeId(1))]));
        let d = net.pop_control(NodeId(1)).expect("the ACK again");
        out.clear();
        // At the source: arrived, and the next batch begins.
        net.on_packet(NodeId(0), NodeId(1), d.pkt, &cx(&routes, 4), &mut out);
        assert!(matches!(out.as_slice(), [NetAction::Arrived]));
        let mut next = made(spec, 300);
        net.on_dequeue(NodeId(0), &mut next).unwrap();
        assert_eq!(batch_of(&next), 1);
        assert!(
            net.check(&mut std::iter::empty()).is_err(),
            "a vector on the air"
        );
        assert_eq!(net.check(&mut std::iter::once(&next)), Ok(()));
        let mut reports = NetReports::new(2);
        net.report(&mut reports);
        assert!(reports.more[0].is_none());
        let m = reports.more[1].clone().expect("the MORE flow");
        assert_eq!((m.batches_decoded, m.acks_sent, m.acks_received), (1, 1, 1));
        assert_eq!((m.source_sent, m.stale_credits), (sent.len() as u64 + 1, 1));
        assert_eq!(
            (m.destination_innovative, m.forwarder_innovative),
            (K as u64, 1)
        );
    }
}
