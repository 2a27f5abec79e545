//! The TCP glue of the world: flow start and stop, segment and ACK packets, timers, cwnd
//! samples and end-of-run traces.
//!
//! The sender of a flow lives at its `src`, the receiver at its `dst`. Every segment and
//! every ACK is a real [`Packet`] that goes through the queues and the medium like any
//! other; the machines' single timers are kernel [`Timers`](airqueue_kernel::Timers)
//! owned by [`TimerOwner`]s.
//!
//! Accounting rule: a TCP data packet or ACK counts as *created* when its machine emits
//! it, and as *delivered* when it reaches its endpoint, even when the receiver finds it a
//! duplicate (it was delivered to the transport, which discarded it). Goodput counts only
//! what the receiver releases in order to the application, once per segment.

use super::{Event, FlowApp, World};
use crate::ids::{FlowId, NodeId};
use crate::net::packet::TcpAckHeader;
use crate::net::{Packet, TransportHeader};
use crate::transport::tcp::{TcpFlow, TcpFlowStats, TcpSample, TimerOwner};
use airqueue_kernel::{Time, TimerId};
use airqueue_tcp::{AppData, TimerCmd};

impl World {
    pub(super) fn tcp_flow(&mut self, f: FlowId) -> &mut TcpFlow {
        match &mut self.flows[f.index()].app {
            FlowApp::Tcp(t) => t,
            _ => unreachable!("TCP event for a non-TCP flow"),
        }
    }

    /// The flow starts: the sender sends its initial window (nothing yet for DiffQ-TCP,
    /// whose data the pacer hands over). A flow from a node to itself never starts (its segments would be acknowledged within the same instant,
    /// forever).
    pub(super) fn tcp_start(&mut self, f: FlowId) {
        let flow = &self.flows[f.index()];
        if flow.src == flow.dst {
            return;
        }
        let now = self.events.now();
        let mut out = std::mem::take(&mut self.data_out);
        self.tcp_flow(f).sender.poll_send(now, &mut out);
        self.emit_data(f, &mut out);
        self.data_out = out;
    }

    /// DiffQ-TCP pacing tick: the sender may put one segment on the wire (a deferred
    /// retransmission, else what its window rules pick). Returns whether one left.
    pub(super) fn tcp_pace(&mut self, f: FlowId) -> bool {
        let now = self.events.now();
        let mut out = std::mem::take(&mut self.data_out);
        let sent = self.tcp_flow(f).sender.pace_tick(now, &mut out);
        self.emit_data(f, &mut out);
        self.data_out = out;
        sent
    }

    /// The flow's stop time: the application hands over no more data; what was sent is
    /// still recovered (DiffQ-TCP: unpaced from now on).
    pub(super) fn tcp_stop(&mut self, f: FlowId) {
        let now = self.events.now();
        let mut out = std::mem::take(&mut self.data_out);
        let tcp = self.tcp_flow(f);
        tcp.sender.set_app_data(AppData::Finite(0));
        if tcp.paced {
            tcp.sender.end_pacing(now, &mut out);
        }
        self.emit_data(f, &mut out);
        self.data_out = out;
        self.coding_stop(f);
    }

    pub(super) fn tcp_timer(&mut self, owner: TimerOwner) {
        let now = self.events.now();
        match owner {
            TimerOwner::Rto(f) => {
                let mut out = std::mem::take(&mut self.data_out);
                self.tcp_flow(f).sender.on_rto(now, &mut out);
                self.emit_data(f, &mut out);
                self.data_out = out;
            }
            TimerOwner::DelayedAck(f) => {
                let mut out = std::mem::take(&mut self.ack_out);
                self.tcp_flow(f).receiver.on_delack_timer(now, &mut out);
                self.emit_acks(f, &mut out);
                self.ack_out = out;
            }
            TimerOwner::CodingRepair(f) => self.coding_timer(f),
            _ => self.tfrc_timer(owner),
        }
    }

    /// A TCP packet reached its destination `node`.
    pub(super) fn tcp_deliver(&mut self, node: NodeId, pkt: Packet) {
        let now = self.events.now();
        let f = pkt.flow;
        match pkt.transport {
            TransportHeader::TcpData(seg) => {
                self.metrics.on_transport_delivered();
                debug_assert_eq!(node, self.flows[f.index()].dst);
                let mut out = std::mem::take(&mut self.ack_out);
                let tcp = self.tcp_flow(f);
                tcp.counts.data_arrived += 1;
                let n = tcp.receiver.on_data(&seg, now, &mut out);
                if n > 0 {
                    let bytes = n as u64 * seg.payload_bytes as u64;
                    self.metrics
                        .on_app_delivered(f, n as u64, bytes, pkt.created, now);
                }
                self.emit_acks(f, &mut out);
                self.ack_out = out;
            }
            TransportHeader::TcpAck(hdr) => {
                self.metrics.on_transport_delivered();
                debug_assert_eq!(node, self.flows[f.index()].src);
                self.tcp_flow(f).counts.acks_arrived += 1;
                self.tcp_on_ack(f, &hdr.to_wire(pkt.created));
            }
            TransportHeader::Coded(d) => self.coded_deliver(node, pkt, d),
            TransportHeader::CodingFeedback(fb) => self.feedback_deliver(node, pkt, fb),
            _ => unreachable!("non-TCP packet in the TCP path"),
        }
    }

    /// An ACK for flow `f`'s sender (from the receiver, or built by the coding layer):
    /// the sender's reaction goes out.
    pub(super) fn tcp_on_ack(&mut self, f: FlowId, ack: &airqueue_tcp::TcpAck) {
        let now = self.events.now();
        let mut out = std::mem::take(&mut self.data_out);
        self.tcp_flow(f).sender.on_ack(ack, now, &mut out);
        self.emit_data(f, &mut out);
        self.data_out = out;
    }

    /// Applies a machine's timer command to the world timer `id`.
    pub(super) fn apply_timer(&mut self, id: TimerId, cmd: Option<TimerCmd>) {
        match cmd {
            Some(TimerCmd::Arm(at)) => self.timers.arm(id, at, &mut self.events, Event::Timer),
            Some(TimerCmd::Cancel) => self.timers.cancel(id),
            None => {}
        }
    }

    /// Turns the sender's segments into packets at the flow's source and forwards them,
    /// then applies its timer command.
    fn emit_data(&mut self, f: FlowId, out: &mut airqueue_tcp::Outbox<airqueue_tcp::TcpData>) {
        let timer = self.tcp_flow(f).rto_timer;
        self.apply_timer(timer, out.timer.take());
        for seg in out.items.drain(..) {
            self.release_data(f, seg);
        }
    }

    /// One segment of flow `f` becomes a packet at its source and is forwarded.
    fn release_data(&mut self, f: FlowId, seg: airqueue_tcp::TcpData) {
        let (src, dst) = (self.flows[f.index()].src, self.flows[f.index()].dst);
        self.tcp_flow(f).counts.data_created += 1;
        let transport = self.tcp_data_header(f, &seg);
        let pkt = self.flow_packet(f, src, dst, seg.seq as u64, seg.payload_bytes, transport);
        self.metrics.on_created(&pkt);
        self.forward(src, pkt);
    }

    /// Turns the receiver's ACKs into packets at the flow's destination, addressed to its
    /// source, and forwards them; then applies its timer command.
    fn emit_acks(&mut self, f: FlowId, out: &mut airqueue_tcp::Outbox<airqueue_tcp::TcpAck>) {
        let now = self.events.now();
        let (src, dst) = (self.flows[f.index()].src, self.flows[f.index()].dst);
        let timer = self.tcp_flow(f).delack_timer;
        self.apply_timer(timer, out.timer.take());
        let n = out.items.len() as u64;
        self.tcp_flow(f).counts.acks_created += n;
        for ack in out.items.drain(..) {
            // The header drops `sent_at`; delivery restores it from `created`.
            debug_assert_eq!(ack.sent_at, now);
            let transport = TransportHeader::TcpAck(TcpAckHeader::from_wire(&ack));
            let pkt = self.flow_packet(f, dst, src, ack.cumulative as u64, 0, transport);
            self.metrics.on_created_control();
            self.forward(dst, pkt);
        }
    }

    /// The TCP sender of flow `f` (`None` for other flows), for tests and traces.
    pub fn tcp_sender(&self, f: FlowId) -> Option<&airqueue_tcp::TcpSender> {
        match &self.flows.get(f.index())?.app {
            FlowApp::Tcp(t) => Some(&t.sender),
            _ => None,
        }
    }

    /// Records every started TCP flow's cwnd.
    pub(super) fn tcp_sample(&mut self, now: Time) {
        for (i, fl) in self.flows.iter().enumerate() {
            if let FlowApp::Tcp(t) = &fl.app {
                if now >= fl.start {
                    let stats = t.sender.stats();
                    let flow = FlowId(i as u32);
                    self.metrics.record_cwnd(
                        flow,
                        TcpSample {
                            at: now,
                            cwnd_pkts: t.sender.cwnd(),
                            ssthresh_pkts: t.sender.ssthresh(),
                            srtt: t.sender.srtt(),
                            rto: t.sender.rto(),
                            retransmissions: stats.retransmissions,
                            timeouts: stats.timeouts,
                        },
                    );
                }
            }
        }
    }

    pub(super) fn tcp_stats(&self) -> Vec<Option<TcpFlowStats>> {
        self.flows
            .iter()
            .map(|fl| match &fl.app {
                FlowApp::Tcp(t) => Some(t.stats()),
                _ => None,
            })
            .collect()
    }
}
