//! The TFRC glue of the world: flow start and stop, data and feedback packets, the three
//! timers, rate samples and end-of-run traces.
//!
//! The sender lives at the flow's `src`, the receiver at its `dst`. Data packets and
//! feedback reports are real [`Packet`]s with honest sizes (IP + UDP + TFRC header).
//!
//! Accounting rule: TFRC is unreliable, so its data packets are counted like UDP's:
//! created when the sender emits them, delivered (conservation and goodput: payload of
//! packets created in the active window and delivered by the end) when they reach the
//! receiver. Feedback reports count like TCP ACKs: for conservation only.

use super::{FlowApp, World};
use crate::ids::{FlowId, NodeId};
use crate::metrics::{RateKind, RateRow};
use crate::net::packet::{TfrcFeedbackHeader, DEFAULT_TTL};
use crate::net::{Packet, TransportHeader};
use crate::transport::tcp::TimerOwner;
use crate::transport::tfrc::{TfrcFlow, TfrcFlowStats};
use airqueue_kernel::Time;
use airqueue_tcp::{Outbox, TfrcData, TfrcFeedback};

impl World {
    fn tfrc_flow(&mut self, f: FlowId) -> &mut TfrcFlow {
        match &mut self.flows[f.index()].app {
            FlowApp::Tfrc(t) => t,
            _ => unreachable!("TFRC event for another flow kind"),
        }
    }

    /// The flow starts: the first packet goes now (RFC 5348 4.2). A flow from a node to
    /// itself never starts.
    pub(super) fn tfrc_start(&mut self, f: FlowId) {
        let flow = &self.flows[f.index()];
        if flow.src == flow.dst {
            return;
        }
        let now = self.events.now();
        let mut out = std::mem::take(&mut self.tfrc_data_out);
        self.tfrc_flow(f).sender.start(now, &mut out);
        self.tfrc_emit_data(f, &mut out);
        self.tfrc_data_out = out;
    }

    /// The flow's stop time: the sender sends no more.
    pub(super) fn tfrc_stop(&mut self, f: FlowId) {
        let mut out = std::mem::take(&mut self.tfrc_data_out);
        self.tfrc_flow(f).sender.stop(&mut out);
        self.tfrc_emit_data(f, &mut out);
        self.tfrc_data_out = out;
    }

    pub(super) fn tfrc_timer(&mut self, owner: TimerOwner) {
        let now = self.events.now();
        match owner {
            TimerOwner::TfrcPace(f) => {
                let mut out = std::mem::take(&mut self.tfrc_data_out);
                self.tfrc_flow(f).sender.on_send_timer(now, &mut out);
                self.tfrc_emit_data(f, &mut out);
                self.tfrc_data_out = out;
            }
            TimerOwner::TfrcNoFeedback(f) => {
                let mut out = std::mem::take(&mut self.tfrc_data_out);
                self.tfrc_flow(f).sender.on_nofeedback_timer(now, &mut out);
                self.tfrc_emit_data(f, &mut out);
                self.tfrc_data_out = out;
            }
            TimerOwner::TfrcFeedback(f) => {
                let mut out = std::mem::take(&mut self.tfrc_fb_out);
                self.tfrc_flow(f).receiver.on_feedback_timer(now, &mut out);
                self.tfrc_emit_feedback(f, &mut out);
                self.tfrc_fb_out = out;
            }
            TimerOwner::Rto(_) | TimerOwner::DelayedAck(_) | TimerOwner::CodingRepair(_) => {
                unreachable!("TCP timer in the TFRC path")
            }
        }
    }

    /// A TFRC packet reached its destination `node`.
    pub(super) fn tfrc_deliver(&mut self, node: NodeId, pkt: Packet) {
        let now = self.events.now();
        let f = pkt.flow;
        match pkt.transport {
            TransportHeader::TfrcData(d) => {
                debug_assert_eq!(node, self.flows[f.index()].dst);
                self.metrics.on_delivered(&pkt, now);
                let mut out = std::mem::take(&mut self.tfrc_fb_out);
                let tfrc = self.tfrc_flow(f);
                tfrc.counts.data_arrived += 1;
                tfrc.receiver.on_data(&d, now, &mut out);
                self.tfrc_emit_feedback(f, &mut out);
                self.tfrc_fb_out = out;
            }
            TransportHeader::TfrcFeedback(h) => {
                debug_assert_eq!(node, self.flows[f.index()].src);
                self.metrics.on_transport_delivered();
                let fb = h.to_wire();
                let mut out = std::mem::take(&mut self.tfrc_data_out);
                let tfrc = self.tfrc_flow(f);
                tfrc.counts.feedback_arrived += 1;
                tfrc.sender.on_feedback(&fb, now, &mut out);
                self.tfrc_emit_data(f, &mut out);
                self.tfrc_data_out = out;
            }
            _ => unreachable!("non-TFRC packet in the TFRC path"),
        }
    }

    /// Turns the sender's packets into packets at the flow's source and forwards them;
    /// applies its no-feedback timer command and re-arms the pacing clock.
    fn tfrc_emit_data(&mut self, f: FlowId, out: &mut Outbox<TfrcData>) {
        let now = self.events.now();
        let (nofb, pace, next) = {
            let t = self.tfrc_flow(f);
            (t.nofeedback_timer, t.pace_timer, t.sender.next_send_at())
        };
        self.apply_timer(nofb, out.timer.take());
        match next {
            Some(at) if self.timers.deadline(pace) != Some(at) => {
                self.apply_timer(pace, Some(airqueue_tcp::TimerCmd::Arm(at.max(now))))
            }
            Some(_) => {}
            None => self.timers.cancel(pace),
        }
        let (src, dst, priority) = {
            let fl = &self.flows[f.index()];
            (fl.src, fl.dst, fl.priority)
        };
        self.tfrc_flow(f).counts.data_created += out.items.len() as u64;
        for d in out.items.drain(..) {
            let pkt = Packet {
                uid: self.next_uid,
                flow: f,
                src,
                dst,
                seq: d.seq as u64,
                payload_bytes: d.payload_bytes,
                transport: TransportHeader::TfrcData(d),
                ttl: DEFAULT_TTL,
                priority,
                created: now,
                diffq: None,
                report: None,
            };
            self.next_uid += 1;
            self.metrics.on_created(&pkt);
            self.forward(src, pkt);
        }
    }

    /// Turns the receiver's reports into packets at the flow's destination, addressed to
    /// its source, and forwards them; then applies its timer command.
    fn tfrc_emit_feedback(&mut self, f: FlowId, out: &mut Outbox<TfrcFeedback>) {
        let now = self.events.now();
        let (src, dst, priority) = {
            let fl = &self.flows[f.index()];
            (fl.src, fl.dst, fl.priority)
        };
        let timer = self.tfrc_flow(f).feedback_timer;
        self.apply_timer(timer, out.timer.take());
        self.tfrc_flow(f).counts.feedback_created += out.items.len() as u64;
        for fb in out.items.drain(..) {
            let pkt = Packet {
                uid: self.next_uid,
                flow: f,
                src: dst,
                dst: src,
                seq: 0,
                payload_bytes: 0,
                transport: TransportHeader::TfrcFeedback(TfrcFeedbackHeader::from_wire(&fb)),
                ttl: DEFAULT_TTL,
                priority,
                created: now,
                diffq: None,
                report: None,
            };
            self.next_uid += 1;
            self.metrics.on_created_control();
            self.forward(dst, pkt);
        }
    }

    /// The TFRC sender of flow `f` (`None` for other flows), for tests and traces.
    pub fn tfrc_sender(&self, f: FlowId) -> Option<&airqueue_tcp::TfrcSender> {
        match &self.flows.get(f.index())?.app {
            FlowApp::Tfrc(t) => Some(&t.sender),
            _ => None,
        }
    }

    /// Records every started TFRC flow's allowed rate.
    pub(super) fn tfrc_sample(&mut self, now: Time) {
        for (i, fl) in self.flows.iter().enumerate() {
            if let FlowApp::Tfrc(t) = &fl.app {
                if now >= fl.start {
                    self.metrics.record_rate(RateRow {
                        flow: FlowId(i as u32),
                        at: now,
                        kind: RateKind::Tfrc,
                        rate_bps: t.sender.rate() * 8.0,
                        source_queue_pkts: None,
                    });
                }
            }
        }
    }

    pub(super) fn tfrc_stats(&self) -> Vec<Option<TfrcFlowStats>> {
        self.flows
            .iter()
            .map(|fl| match &fl.app {
                FlowApp::Tfrc(t) => Some(t.stats()),
                _ => None,
            })
            .collect()
    }
}
