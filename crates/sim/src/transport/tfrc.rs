//! A TFRC flow in the world (RFC 5348; TFRC-ECN of seed 000): the `airqueue-tcp` TFRC
//! sender at the flow's source, its receiver at the destination, their three timers
//! (pacing, no-feedback, feedback) and the per-flow trace counters.
//!
//! The world (`world/tfrc.rs`) turns the machines' outboxes into packets and timer
//! commands; this module only holds state and configuration.

use airqueue_kernel::TimerId;
use airqueue_tcp::{
    CongestionSignal, TfrcReceiver, TfrcReceiverConfig, TfrcReceiverStats, TfrcSender,
    TfrcSenderConfig, TfrcSenderStats,
};

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
    pub pace_timer: TimerId,
    pub nofeedback_timer: TimerId,
    pub feedback_timer: TimerId,
    pub counts: TfrcPacketCounts,
}

impl TfrcFlow {
    pub fn new(
        cfg: &TfrcFlowConfig,
        payload_bytes: u32,
        pace_timer: TimerId,
        nofeedback_timer: TimerId,
        feedback_timer: TimerId,
    ) -> Self {
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
            pace_timer,
            nofeedback_timer,
            feedback_timer,
            counts: TfrcPacketCounts::default(),
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
}

/// End-of-run trace of a TFRC flow (`RunOutcome::tfrc`).
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
