//! The network-coding glue of the world (seed 002, 4.1.3 and 4.2.1): for a TCP flow with
//! a coding layer, the sender's segments leave through the encoder as coded packets, the
//! decoder at the destination stands in for the TCP receiver (releasing decoded blocks to
//! the application and ACKing every arrival), and the decoder's feedback is turned into
//! TCP ACKs and repair packets at the source.
//!
//! Accounting: coded packets and repairs are data packets (created at the source,
//! delivered when they reach the decoder, or dropped as `coding_redundancy` there when
//! they bring no new degree of freedom); the feedback messages count like TCP ACKs.
//! Goodput counts what the decoder releases in order.

use super::World;
use crate::ids::{FlowId, NodeId};
use crate::net::packet::DEFAULT_TTL;
use crate::net::{DropReason, Packet, TransportHeader};
use crate::transport::coding::{CodedData, CodingFeedback, FeedbackKind};
use airqueue_tcp::TcpData;

impl World {
    /// The packet header for a segment TCP sends: coded if the flow has a coding layer.
    pub(super) fn tcp_data_header(&mut self, f: FlowId, seg: &TcpData) -> TransportHeader {
        match &mut self.tcp_flow(f).coding {
            Some(c) => TransportHeader::Coded(c.encoder.encode(seg)),
            None => TransportHeader::TcpData(*seg),
        }
    }

    /// A coded packet reached the flow's destination `node`.
    pub(super) fn coded_deliver(&mut self, node: NodeId, pkt: Packet, d: CodedData) {
        let now = self.events.now();
        let f = pkt.flow;
        debug_assert_eq!(node, self.flows[f.index()].dst);
        let mut timer = None;
        let (arrival, repair_timer) = {
            let tcp = self.tcp_flow(f);
            tcp.counts.data_arrived += 1;
            let c = tcp
                .coding
                .as_mut()
                .expect("coded packet of a flow without coding");
            (c.decoder.on_data(&d, now, &mut timer), c.repair_timer)
        };
        if arrival.innovative {
            self.metrics.on_transport_delivered();
        } else {
            self.metrics
                .on_packet_dropped(node, DropReason::CodingRedundancy, &pkt);
        }
        if arrival.released_pkts > 0 {
            let n = arrival.released_pkts as u64;
            self.metrics
                .on_app_delivered(f, n, n * d.seg.payload_bytes as u64, pkt.created, now);
        }
        self.apply_timer(repair_timer, timer);
        self.send_feedback(f, arrival.ack);
    }

    /// Feedback reached the flow's source `node`: an ACK that moves the decoder's
    /// frontier goes to TCP; a repair request is answered with fresh combinations.
    pub(super) fn feedback_deliver(&mut self, node: NodeId, pkt: Packet, fb: CodingFeedback) {
        let now = self.events.now();
        let f = pkt.flow;
        debug_assert_eq!(node, self.flows[f.index()].src);
        self.metrics.on_transport_delivered();
        self.tcp_flow(f).counts.acks_arrived += 1;
        match fb.kind {
            FeedbackKind::Ack => {
                let tcp = self.tcp_flow(f);
                let coding = tcp
                    .coding
                    .as_mut()
                    .expect("feedback for a flow without coding");
                if let Some(ack) = coding.encoder.on_feedback(&fb, now) {
                    self.tcp_on_ack(f, &ack);
                }
            }
            FeedbackKind::Repair => {
                for _ in 0..fb.count {
                    self.send_repair(f, fb.block);
                }
            }
        }
    }

    /// The decoder's repair timer fired: send the requests that are due.
    pub(super) fn coding_timer(&mut self, f: FlowId) {
        let now = self.events.now();
        let mut requests = std::mem::take(&mut self.coding_out);
        let mut timer = None;
        let repair_timer = {
            let c = self
                .tcp_flow(f)
                .coding
                .as_mut()
                .expect("repair timer without coding");
            c.decoder.on_timer(now, &mut requests, &mut timer);
            c.repair_timer
        };
        self.apply_timer(repair_timer, timer);
        for fb in requests.drain(..) {
            self.send_feedback(f, fb);
        }
        self.coding_out = requests;
    }

    /// The application stopped: a block cut short is closed with one repair that carries
    /// its real size, so the decoder can release it.
    pub(super) fn coding_stop(&mut self, f: FlowId) {
        let cut = match &mut self.tcp_flow(f).coding {
            Some(c) => c.encoder.cut(),
            None => None,
        };
        if let Some(block) = cut {
            self.send_repair(f, block);
        }
    }

    /// `node`'s queue dropped `pkt` for `reason`. A coded segment dropped by congestion at
    /// its own source is shown to TCP (4.2.1); every other loss stays masked.
    pub(super) fn coding_on_drop(&mut self, node: NodeId, reason: DropReason, pkt: &Packet) {
        let TransportHeader::Coded(d) = &pkt.transport else {
            return;
        };
        if node != pkt.src || !matches!(reason, DropReason::QueueOverflow | DropReason::Aqm) {
            return;
        }
        if let Some(c) = &mut self.tcp_flow(pkt.flow).coding {
            c.encoder.on_source_drop(d);
        }
    }

    /// One repair of `block` from the flow's source.
    fn send_repair(&mut self, f: FlowId, block: u32) {
        let now = self.events.now();
        let template = TcpData {
            seq: 0,
            payload_bytes: self.flows[f.index()].payload_bytes,
            retransmission: true,
            sent_at: now,
            timestamps: self.tcp_flow(f).sender.config().timestamps,
            cwr: false,
            ect: false,
            ce: false,
        };
        let repair = match &mut self.tcp_flow(f).coding {
            Some(c) => c.encoder.repair(block, &template, now),
            None => None,
        };
        if let Some(d) = repair {
            self.tcp_flow(f).counts.data_created += 1;
            let (src, dst) = (self.flows[f.index()].src, self.flows[f.index()].dst);
            let (seq, bytes) = (d.seg.seq as u64, d.seg.payload_bytes);
            let pkt = self.flow_packet(f, src, dst, seq, bytes, TransportHeader::Coded(d));
            self.metrics.on_created(&pkt);
            self.forward(src, pkt);
        }
    }

    /// One feedback message from the flow's destination to its source.
    fn send_feedback(&mut self, f: FlowId, fb: CodingFeedback) {
        self.tcp_flow(f).counts.acks_created += 1;
        let (src, dst) = (self.flows[f.index()].src, self.flows[f.index()].dst);
        let pkt = self.flow_packet(
            f,
            dst,
            src,
            fb.block as u64,
            0,
            TransportHeader::CodingFeedback(fb),
        );
        self.metrics.on_created_control();
        self.forward(dst, pkt);
    }

    /// A packet of flow `f` from `from` to `to`, created now, with the flow's priority and
    /// queue-report header.
    pub(super) fn flow_packet(
        &mut self,
        f: FlowId,
        from: NodeId,
        to: NodeId,
        seq: u64,
        payload_bytes: u32,
        transport: TransportHeader,
    ) -> Packet {
        let fl = &self.flows[f.index()];
        let pkt = Packet {
            uid: self.next_uid,
            flow: f,
            src: from,
            dst: to,
            seq,
            payload_bytes,
            transport,
            ttl: DEFAULT_TTL,
            priority: fl.priority,
            created: self.events.now(),
            diffq: fl.diffq_header(),
            report: None,
        };
        self.next_uid += 1;
        pkt
    }
}
