//! A TFRC flow in the world (RFC 5348; TFRC-ECN of seed 000): the `airqueue-tcp` TFRC
//! sender at the flow's source, its receiver at the destination, their three timers
//! (pacing, no-feedback, feedback) and the per-flow trace counters.
//!
//! It runs as a [`FlowEndpoint`]. Data packets and feedback reports are real packets with
//! honest sizes (IP + UDP + TFRC header). TFRC is unreliable, so its data packets count
//! like UDP's: created when the sender emits them, delivered to the application when they
//! reach the receiver. Feedback reports count like TCP ACKs: for conservation only.

use crate::ids::{FlowId, NodeId};
use crate::metrics::{Metrics, RateKind, RateRow};
use crate::net::packet::TfrcFeedbackHeader;
use crate::net::StatValue;
use crate::net::{Packet, TransportHeader};
use crate::qdisc::registry::{Key, KeyValue, Params};
use crate::transport::endpoint::{End, EndpointIo, FlowEndpoint};
use crate::transport::flow_kind::{
    never_keeps_queue_full, FlowBuildContext, FlowKindConfig, FlowKindScheme,
};
use crate::transport::report::{TransportReports, TransportStats, TransportTableSpec};
use airqueue_kernel::Time;
use airqueue_tcp::{
    CongestionSignal, Outbox, TfrcData, TfrcFeedback, TfrcReceiver, TfrcReceiverConfig,
    TfrcReceiverStats, TfrcSender, TfrcSenderConfig, TfrcSenderStats, TimerCmd,
};

/// `[[flow]] kind = "tfrc"`. Its one key, `ecn` (default false): TFRC-ECN (seed 000),
/// where CE marks, not losses, are congestion events. It sets its own rate, so it takes
/// no `cc`.
pub static FLOW_KIND: FlowKindScheme = FlowKindScheme {
    name: "tfrc",
    summary: "TFRC (RFC 5348), or TFRC-ECN (seed 000) with `ecn`: equation-based, \
              rate-paced, unreliable",
    keys: &[Key {
        name: "ecn",
        doc: "TFRC-ECN (seed 000, section 6): CE marks, not losses, are congestion events",
        value: KeyValue::Bool { default: false },
    }],
    resolved_names: &[],
    takes_cc: false,
    keeps_queue_full: never_keeps_queue_full,
    unpaced_queue: None,
    needs_radio_everywhere: None,
    needs_static_routes: None,
    build: build_tfrc,
};

fn build_tfrc(p: &Params, _: &FlowBuildContext<'_>) -> FlowKindConfig {
    FlowKindConfig::Tfrc(TfrcFlowConfig { ecn: p.flag("ecn") })
}

/// Timer slots of a TFRC flow: the sender's pacing clock and no-feedback timer, the
/// receiver's feedback timer.
const PACE: u8 = 0;
const NO_FEEDBACK: u8 = 1;
const FEEDBACK: u8 = 2;

/// Parameters of a TFRC flow. The flow's `payload_bytes` is TFRC's `s`.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct TfrcFlowConfig {
    /// TFRC-ECN (seed 000, section 6): data packets are ECN-capable, losses are not
    /// congestion events and CE-marked packets are (marks within one RTT form one
    /// event). Pair it with drop-tail `ecn_mark_fraction`.
    pub ecn: bool,
}

/// Packet counts of a TFRC flow, for traces and conservation checks.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct TfrcPacketCounts {
    pub data_created: u64,
    pub data_arrived: u64,
    pub feedback_created: u64,
    pub feedback_arrived: u64,
}

/// The endpoints of one TFRC flow.
#[derive(Clone, Debug)]
pub(crate) struct TfrcFlow {
    pub sender: TfrcSender,
    pub receiver: TfrcReceiver,
    pub counts: TfrcPacketCounts,
    /// The machines' reused outboxes.
    data_out: Outbox<TfrcData>,
    feedback_out: Outbox<TfrcFeedback>,
}

impl TfrcFlow {
    pub fn new(cfg: &TfrcFlowConfig, payload_bytes: u32) -> Self {
        let signal = if cfg.ecn {
            CongestionSignal::EcnMarks
        } else {
            CongestionSignal::Loss
        };
        TfrcFlow {
            sender: TfrcSender::new(TfrcSenderConfig {
                payload_bytes,
                ecn: cfg.ecn,
            }),
            receiver: TfrcReceiver::new(TfrcReceiverConfig { signal }),
            counts: TfrcPacketCounts::default(),
            data_out: Outbox::new(),
            feedback_out: Outbox::new(),
        }
    }

    pub fn stats(&self) -> TfrcFlowStats {
        TfrcFlowStats {
            ecn: self.sender.config().ecn,
            rate_bytes_per_s: self.sender.rate(),
            rtt_s: self.sender.rtt_s(),
            p: self.sender.p(),
            x_recv_bytes_per_s: self.sender.x_recv(),
            sender: self.sender.stats(),
            receiver: self.receiver.stats(),
            packets: self.counts,
        }
    }

    /// The sender's packets become packets at the source, after its no-feedback timer
    /// command and the pacing clock re-armed to its next send time.
    fn emit_data(&mut self, io: &mut EndpointIo) {
        let next = self.sender.next_send_at();
        io.timer(NO_FEEDBACK, self.data_out.timer.take());
        match next {
            Some(at) if io.deadline(PACE) != Some(at) => {
                io.timer(PACE, Some(TimerCmd::Arm(at.max(io.now))))
            }
            Some(_) => {}
            None => io.timer(PACE, Some(TimerCmd::Cancel)),
        }
        self.counts.data_created += self.data_out.items.len() as u64;
        for d in self.data_out.items.drain(..) {
            let (seq, bytes) = (d.seq as u64, d.payload_bytes);
            io.send(End::Source, seq, bytes, TransportHeader::TfrcData(d));
        }
    }

    /// The receiver's reports become packets at the destination, after its timer command.
    fn emit_feedback(&mut self, io: &mut EndpointIo) {
        io.timer(FEEDBACK, self.feedback_out.timer.take());
        self.counts.feedback_created += self.feedback_out.items.len() as u64;
        for fb in self.feedback_out.items.drain(..) {
            let header = TfrcFeedbackHeader::from_wire(&fb);
            io.send(
                End::Destination,
                0,
                0,
                TransportHeader::TfrcFeedback(header),
            );
        }
    }
}

impl FlowEndpoint for TfrcFlow {
    fn name(&self) -> &'static str {
        "TFRC"
    }

    fn timer_slots(&self) -> u8 {
        3
    }

    /// The first packet goes now (RFC 5348 4.2).
    fn start(&mut self, io: &mut EndpointIo) {
        self.sender.start(io.now, &mut self.data_out);
        self.emit_data(io);
    }

    fn stop(&mut self, io: &mut EndpointIo) {
        self.sender.stop(&mut self.data_out);
        self.emit_data(io);
    }

    fn on_timer(&mut self, slot: u8, io: &mut EndpointIo) {
        match slot {
            PACE => {
                self.sender.on_send_timer(io.now, &mut self.data_out);
                self.emit_data(io);
            }
            NO_FEEDBACK => {
                self.sender.on_nofeedback_timer(io.now, &mut self.data_out);
                self.emit_data(io);
            }
            FEEDBACK => {
                self.receiver
                    .on_feedback_timer(io.now, &mut self.feedback_out);
                self.emit_feedback(io);
            }
            _ => unreachable!("TFRC has three timers"),
        }
    }

    fn on_arrival(&mut self, node: NodeId, pkt: &Packet, io: &mut EndpointIo) {
        match &pkt.transport {
            TransportHeader::TfrcData(d) => {
                debug_assert_eq!(node, io.dst);
                io.delivered(pkt);
                self.counts.data_arrived += 1;
                self.receiver.on_data(d, io.now, &mut self.feedback_out);
                self.emit_feedback(io);
            }
            TransportHeader::TfrcFeedback(h) => {
                debug_assert_eq!(node, io.src);
                io.arrived();
                self.counts.feedback_arrived += 1;
                self.sender
                    .on_feedback(&h.to_wire(), io.now, &mut self.data_out);
                self.emit_data(io);
            }
            _ => unreachable!("non-TFRC packet of a TFRC flow"),
        }
    }

    /// The sender's allowed rate (the `rates` table).
    fn sample(&self, flow: FlowId, now: Time, metrics: &mut Metrics) {
        metrics.record_rate(RateRow {
            flow,
            at: now,
            kind: RateKind::Tfrc,
            rate_bps: self.sender.rate() * 8.0,
            source_queue_pkts: None,
        });
    }

    fn report(&self, flow: FlowId, reports: &mut TransportReports) {
        reports.push(flow, self.stats());
    }
}

/// End-of-run trace of a TFRC flow (its row of the `tfrc` table, and in full
/// `RunOutcome::transports.stats`).
#[derive(Clone, Debug, PartialEq)]
pub struct TfrcFlowStats {
    pub ecn: bool,
    /// Final allowed sending rate `X`, payload bytes/s.
    pub rate_bytes_per_s: f64,
    /// Final smoothed RTT, seconds (`None` if no feedback ever arrived).
    pub rtt_s: Option<f64>,
    /// Loss (or mark) event rate last reported to the sender.
    pub p: f64,
    pub x_recv_bytes_per_s: f64,
    pub sender: TfrcSenderStats,
    pub receiver: TfrcReceiverStats,
    pub packets: TfrcPacketCounts,
}

impl TransportStats for TfrcFlowStats {
    /// The run's `tfrc` table: one row per TFRC flow.
    const TABLE: &'static TransportTableSpec = &TransportTableSpec {
        name: "tfrc",
        columns: &[
            "rate_bps",
            "x_recv_bps",
            "rtt_s",
            "loss_event_rate",
            "loss_events",
            "lost",
            "ce_received",
            "feedbacks",
            "nofeedback_expiries",
        ],
    };

    /// Its row: the final allowed and received rates in bit/s, RTT and loss-event rate,
    /// and the ends' counters.
    fn values(&self) -> Vec<StatValue> {
        use StatValue::{Count, Missing, Real};
        vec![
            Real(self.rate_bytes_per_s * 8.0),
            Real(self.x_recv_bytes_per_s * 8.0),
            self.rtt_s.map_or(Missing, Real),
            Real(self.p),
            Count(self.receiver.loss_events),
            Count(self.receiver.lost),
            Count(self.receiver.ce_received),
            Count(self.sender.feedbacks),
            Count(self.sender.nofeedback_expiries),
        ]
    }
}
