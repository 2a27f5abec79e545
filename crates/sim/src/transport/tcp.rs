//! A TCP flow in the world: the `airqueue-tcp` sender at the flow's source, the receiver at
//! its destination, their two timers, and the per-flow trace counters.
//!
//! The world (`world/tcp.rs`) turns the machines' outboxes into [`Packet`]s and timer
//! commands; this module only holds state and configuration, and never calls outward.
//!
//! [`Packet`]: crate::net::Packet

use crate::ids::FlowId;
use crate::transport::coding::{CodingConfig, CodingDecoder, CodingEncoder, CodingStats};
use airqueue_kernel::{Time, TimerId};
use airqueue_tcp::{AppData, ReceiverConfig, RtoConfig, SenderConfig, TcpReceiver, TcpSender};

/// The congestion control flavour (re-exported from `airqueue-tcp`).
pub use airqueue_tcp::Variant as TcpVariant;

/// Parameters of a TCP flow. The flow's `payload_bytes` is the MSS.
#[derive(Clone, Debug, PartialEq)]
pub struct TcpFlowConfig {
    pub variant: TcpVariant,
    /// RFC 6298 (2.4) RTO floor. Default 200 ms (see `airqueue_tcp::RtoConfig`).
    pub min_rto: Time,
    /// RFC 5681 (4.2): the receiver ACKs every second segment, or after 200 ms.
    pub delayed_ack: bool,
    /// Receiver's advertised window and cap on cwnd, in packets. Default 64.
    pub max_window: u32,
    /// RFC 3168: the sender marks data ECT and halves cwnd on ECE.
    pub ecn: bool,
    /// RFC 7323 Timestamps option on data and ACKs (12 bytes each). Default off.
    pub timestamps: bool,
    /// Packets to transfer; `None` is an infinite bulk transfer (FTP).
    pub transfer_pkts: Option<u32>,
    /// The network-coding layer of seed 002 (4.1.3) between TCP and the network, at the
    /// flow's two ends; `None`: plain TCP.
    pub coding: Option<CodingConfig>,
}

impl TcpFlowConfig {
    pub fn new(variant: TcpVariant) -> Self {
        TcpFlowConfig {
            variant,
            min_rto: RtoConfig::default().min,
            delayed_ack: false,
            max_window: 64,
            ecn: false,
            timestamps: false,
            transfer_pkts: None,
            coding: None,
        }
    }

    /// The sender's configuration for segments of `mss_bytes`.
    pub fn sender_config(&self, mss_bytes: u32) -> SenderConfig {
        let mut c = SenderConfig::new(self.variant);
        c.mss_bytes = mss_bytes;
        c.initial_cwnd = airqueue_tcp::rfc5681_initial_window(mss_bytes);
        c.max_window = self.max_window.max(1);
        c.rto = RtoConfig {
            min: self.min_rto,
            ..RtoConfig::default()
        };
        c.timestamps = self.timestamps;
        c.ecn = self.ecn;
        c.app = match self.transfer_pkts {
            Some(n) => AppData::Finite(n),
            None => AppData::Infinite,
        };
        c
    }

    /// The receiver's configuration: SACK blocks only for the SACK variant (they cost
    /// bytes on the air), a receive window equal to `max_window`.
    pub fn receiver_config(&self) -> ReceiverConfig {
        ReceiverConfig {
            sack: matches!(self.variant, TcpVariant::Sack),
            delayed_ack: self.delayed_ack,
            window: self.max_window.max(1),
            ..ReceiverConfig::default()
        }
    }
}

impl Default for TcpFlowConfig {
    fn default() -> Self {
        TcpFlowConfig::new(TcpVariant::NewReno)
    }
}

/// Who owns a world timer.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum TimerOwner {
    /// The retransmission timer of a flow's sender.
    Rto(FlowId),
    /// The delayed-ACK timer of a flow's receiver.
    DelayedAck(FlowId),
    /// A TFRC sender's pacing clock.
    TfrcPace(FlowId),
    /// A TFRC sender's no-feedback timer.
    TfrcNoFeedback(FlowId),
    /// A TFRC receiver's feedback timer.
    TfrcFeedback(FlowId),
    /// The repair timer of a coded TCP flow's decoder.
    CodingRepair(FlowId),
}

/// Packet counts of a TCP flow, for traces and conservation checks.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct TcpPacketCounts {
    /// Data packets created by the sender (retransmissions included).
    pub data_created: u64,
    /// Data packets that reached the receiver (duplicates included).
    pub data_arrived: u64,
    /// ACK packets created by the receiver.
    pub acks_created: u64,
    /// ACK packets that reached the sender.
    pub acks_arrived: u64,
}

/// The endpoints of one TCP flow.
#[derive(Clone, Debug)]
pub(crate) struct TcpFlow {
    pub sender: TcpSender,
    pub receiver: TcpReceiver,
    /// DiffQ-TCP: the sender's congestion control is off and it is paced
    /// (`SenderConfig::paced`): one segment, new or retransmitted, per pacing tick.
    pub paced: bool,
    pub rto_timer: TimerId,
    pub delack_timer: TimerId,
    pub counts: TcpPacketCounts,
    /// The network-coding layer, when the flow has one: TCP's segments leave through its
    /// encoder and its decoder stands in for the TCP receiver (`world/coding.rs`).
    pub coding: Option<Box<CodingEnds>>,
}

/// Both ends of a coded flow's network-coding layer.
#[derive(Clone, Debug)]
pub(crate) struct CodingEnds {
    pub encoder: CodingEncoder,
    pub decoder: CodingDecoder,
    pub repair_timer: TimerId,
}

impl CodingEnds {
    /// `transfer_pkts`: the flow's finite transfer, if any (its last block is short).
    pub fn new(cfg: &CodingConfig, transfer_pkts: Option<u32>, repair_timer: TimerId) -> Self {
        CodingEnds {
            encoder: CodingEncoder::for_transfer(cfg, transfer_pkts),
            decoder: CodingDecoder::new(cfg),
            repair_timer,
        }
    }

    /// The two ends' counters together.
    pub fn stats(&self) -> CodingStats {
        let (e, d) = (self.encoder.stats(), self.decoder.stats());
        CodingStats {
            coded_packets: e.coded_packets,
            repair_packets: e.repair_packets,
            unmasked_losses: e.unmasked_losses,
            repair_requests: d.repair_requests,
            redundant_packets: d.redundant_packets,
            blocks_decoded: d.blocks_decoded,
        }
    }
}

/// The sender's state at one time-series bin boundary (per-flow TCP trace).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct TcpSample {
    pub at: Time,
    pub cwnd_pkts: f64,
    pub ssthresh_pkts: f64,
    /// RFC 6298 smoothed RTT; `None` before the first RTT sample.
    pub srtt: Option<Time>,
    pub rto: Time,
    /// Retransmissions and timeouts so far.
    pub retransmissions: u64,
    pub timeouts: u64,
}

impl TcpFlow {
    /// `paced`: DiffQ-TCP (seed 000, section 6.1): the sender keeps TCP's reliability
    /// but not its congestion control (`SenderConfig::congestion_control = false`), and
    /// transmits only when the world's pacer ticks (`SenderConfig::paced`).
    pub fn new(
        cfg: &TcpFlowConfig,
        mss_bytes: u32,
        paced: bool,
        rto_timer: TimerId,
        delack_timer: TimerId,
        coding: Option<CodingEnds>,
    ) -> Self {
        let mut sender = cfg.sender_config(mss_bytes);
        if paced {
            sender.congestion_control = false;
            sender.paced = true;
        }
        TcpFlow {
            sender: TcpSender::new(sender),
            paced,
            receiver: TcpReceiver::new(cfg.receiver_config()),
            rto_timer,
            delack_timer,
            counts: TcpPacketCounts::default(),
            coding: coding.map(Box::new),
        }
    }

    pub fn stats(&self) -> TcpFlowStats {
        let s = self.sender.stats();
        let r = self.receiver.stats();
        TcpFlowStats {
            variant: self.sender.config().variant,
            cwnd_pkts: self.sender.cwnd(),
            ssthresh_pkts: self.sender.ssthresh(),
            srtt: self.sender.srtt(),
            rto: self.sender.rto(),
            segments_sent: s.segments_sent,
            retransmissions: s.retransmissions,
            timeouts: s.timeouts,
            spurious_timeouts: s.spurious_timeouts,
            fast_retransmits: s.fast_retransmits,
            ecn_reductions: s.ecn_reductions,
            segments_delivered: match &self.coding {
                Some(c) => c.decoder.released(),
                None => self.receiver.delivered(),
            },
            duplicate_segments: r.duplicates,
            out_of_order_segments: r.out_of_order,
            ce_received: r.ce_received,
            packets: self.counts,
            coding: self.coding.as_ref().map(|c| c.stats()),
        }
    }
}

/// End-of-run trace of a TCP flow (`RunOutcome::tcp`).
#[derive(Clone, Debug, PartialEq)]
pub struct TcpFlowStats {
    pub variant: TcpVariant,
    /// Final congestion window, packets.
    pub cwnd_pkts: f64,
    /// Final slow-start threshold, packets.
    pub ssthresh_pkts: f64,
    /// Final smoothed RTT; `None` if no RTT sample was ever taken.
    pub srtt: Option<Time>,
    /// Final retransmission timeout, backoff included.
    pub rto: Time,
    /// Data segments sent, retransmissions included.
    pub segments_sent: u64,
    pub retransmissions: u64,
    pub timeouts: u64,
    /// Timeouts the Eifel algorithm found spurious and undid (timestamps only).
    pub spurious_timeouts: u64,
    /// Loss-recovery episodes entered on duplicate ACKs / SACK.
    pub fast_retransmits: u64,
    /// RFC 3168 window reductions on ECE.
    pub ecn_reductions: u64,
    /// Segments the receiver released in order to the application.
    pub segments_delivered: u64,
    /// Segments that reached the receiver a second time.
    pub duplicate_segments: u64,
    /// Segments that reached the receiver above a hole.
    pub out_of_order_segments: u64,
    /// Segments that arrived with Congestion Experienced.
    pub ce_received: u64,
    pub packets: TcpPacketCounts,
    /// The network-coding layer's counters, for a coded flow.
    pub coding: Option<CodingStats>,
}
