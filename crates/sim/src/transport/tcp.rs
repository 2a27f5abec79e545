//! A TCP flow as a [`FlowEndpoint`]: the `airqueue-tcp` sender at the flow's source, the
//! receiver at its destination, their two timers, the optional network-coding layer
//! between them (seed 002, 4.1.3 and 4.2.1) and the per-flow trace counters.
//!
//! Every segment and every ACK is a real packet that goes through the queues and the
//! medium like any other. Accounting: a data packet or ACK counts as created when its
//! machine emits it and as delivered when it reaches its end, even when the receiver
//! finds it a duplicate (it was delivered to the transport, which discarded it).
//! Goodput counts only what the receiver releases in order to the application, once per
//! segment.
//!
//! With a coding layer, the sender's segments leave through the encoder as coded
//! packets, the decoder at the destination stands in for the TCP receiver (releasing
//! decoded blocks and answering every arrival with feedback), and the feedback becomes
//! TCP ACKs and repair packets at the source. Coded packets and repairs are data
//! (delivered when they reach the decoder, or discarded there as `coding_redundancy`
//! when they bring no new degree of freedom); the feedback counts like ACKs.

use crate::ids::{FlowId, NodeId};
use crate::metrics::Metrics;
use crate::net::packet::TcpAckHeader;
use crate::net::StatValue;
use crate::net::{DropReason, Packet, TransportHeader};
use crate::qdisc::registry::{Key, KeyValue, Params};
use crate::transport::coding::{
    CodedData, CodingConfig, CodingDecoder, CodingEncoder, CodingFeedback, CodingStats,
    FeedbackKind,
};
use crate::transport::endpoint::{End, EndpointIo, FlowEndpoint};
use crate::transport::flow_kind::{
    never_keeps_queue_full, FlowBuildContext, FlowKindConfig, FlowKindScheme,
};
use crate::transport::report::{TransportReports, TransportStats, TransportTableSpec};
use airqueue_kernel::Time;
use airqueue_tcp::{
    AppData, Outbox, ReceiverConfig, RtoConfig, SenderConfig, TcpAck, TcpData, TcpReceiver,
    TcpSender,
};

/// The congestion control flavour (re-exported from `airqueue-tcp`).
pub use airqueue_tcp::Variant as TcpVariant;

/// `[[flow]] kind = "tcp"`: a bulk transfer (FTP-like), window-limited, `[tcp]` for the
/// settings all TCP flows share. Its keys: `variant` (default `"newreno"`; DiffQ-TCP
/// uses `"sack"`; `"cubic"` is Linux's) and `packets`, the segments to transfer
/// (default none: unlimited).
pub static FLOW_KIND: FlowKindScheme = FlowKindScheme {
    name: "tcp",
    summary: "a TCP transfer (NewReno, SACK, CUBIC, Vegas or FeW), window-limited",
    keys: &[
        Key {
            name: "variant",
            doc: "the congestion control: NewReno (RFC 6582), SACK (RFC 6675), CUBIC (RFC 9438, \
                  with SACK recovery: Linux's default), Vegas or FeW",
            value: KeyValue::Choice {
                default: "newreno",
                names: &["newreno", "sack", "cubic", "vegas", "few"],
            },
        },
        Key {
            name: "packets",
            doc: "segments to transfer; absent: an unlimited bulk transfer",
            value: KeyValue::OptionalCount {
                min: 1,
                max: u32::MAX as u64,
                expected: "an integer number of segments >= 1",
            },
        },
    ],
    resolved_names: &[("packets", "transfer_pkts")],
    takes_cc: true,
    keeps_queue_full: never_keeps_queue_full,
    unpaced_queue: None,
    needs_radio_everywhere: None,
    needs_static_routes: None,
    build: build_tcp,
};

fn build_tcp(p: &Params, cx: &FlowBuildContext<'_>) -> FlowKindConfig {
    let variant = match p.choice("variant") {
        Some("sack") => TcpVariant::Sack,
        Some("cubic") => TcpVariant::Cubic,
        Some("vegas") => TcpVariant::VEGAS,
        Some("few") => TcpVariant::FEW,
        _ => TcpVariant::NewReno,
    };
    FlowKindConfig::Tcp(TcpFlowConfig {
        variant,
        transfer_pkts: p.optional_count("packets").map(|n| n as u32),
        ..cx.tcp.clone()
    })
}

/// Parameters of a TCP flow. The flow's `payload_bytes` is the MSS.
#[derive(Clone, Debug, PartialEq)]
pub struct TcpFlowConfig {
    pub variant: TcpVariant,
    /// RFC 6298 (2.4) RTO floor. Default 200 ms (see `airqueue_tcp::RtoConfig`).
    pub min_rto: Time,
    /// RFC 6298 (2.1): the RTO before the first RTT sample. Default 1 s.
    pub initial_rto: Time,
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
            initial_rto: RtoConfig::default().initial,
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
            initial: self.initial_rto,
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

    /// The receiver's configuration: SACK blocks only for the SACK variants (they cost
    /// bytes on the air), a receive window equal to `max_window`.
    pub fn receiver_config(&self) -> ReceiverConfig {
        ReceiverConfig {
            sack: self.variant.uses_sack(),
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

/// Timer slots of a TCP flow: the sender's retransmission timer, the receiver's
/// delayed-ACK timer and, with coding, the decoder's repair timer.
const RTO: u8 = 0;
const DELAYED_ACK: u8 = 1;
const CODING_REPAIR: u8 = 2;

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
    pub counts: TcpPacketCounts,
    /// The network-coding layer, when the flow has one: TCP's segments leave through its
    /// encoder and its decoder stands in for the TCP receiver.
    pub coding: Option<Box<CodingEnds>>,
    /// The machines' reused outboxes (no allocation per segment).
    data_out: Outbox<TcpData>,
    ack_out: Outbox<TcpAck>,
}

/// Both ends of a coded flow's network-coding layer.
#[derive(Clone, Debug)]
pub(crate) struct CodingEnds {
    pub encoder: CodingEncoder,
    pub decoder: CodingDecoder,
    /// The decoder's reused list of repair requests.
    requests: Vec<CodingFeedback>,
}

impl CodingEnds {
    /// `transfer_pkts`: the flow's finite transfer, if any (its last block is short).
    pub fn new(cfg: &CodingConfig, transfer_pkts: Option<u32>) -> Self {
        CodingEnds {
            encoder: CodingEncoder::for_transfer(cfg, transfer_pkts),
            decoder: CodingDecoder::new(cfg),
            requests: Vec::new(),
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
    pub fn new(cfg: &TcpFlowConfig, mss_bytes: u32, paced: bool) -> Self {
        let mut sender = cfg.sender_config(mss_bytes);
        if paced {
            sender.congestion_control = false;
            sender.paced = true;
        }
        TcpFlow {
            sender: TcpSender::new(sender),
            paced,
            receiver: TcpReceiver::new(cfg.receiver_config()),
            counts: TcpPacketCounts::default(),
            coding: (cfg.coding.as_ref()).map(|c| Box::new(CodingEnds::new(c, cfg.transfer_pkts))),
            data_out: Outbox::new(),
            ack_out: Outbox::new(),
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

impl TcpFlow {
    /// The sender's segments become packets at the source (coded, with a coding layer),
    /// after its timer command.
    fn emit_data(&mut self, io: &mut EndpointIo) {
        io.timer(RTO, self.data_out.timer.take());
        for seg in self.data_out.items.drain(..) {
            self.counts.data_created += 1;
            let transport = match &mut self.coding {
                Some(c) => TransportHeader::Coded(c.encoder.encode(&seg)),
                None => TransportHeader::TcpData(seg),
            };
            io.send(End::Source, seg.seq as u64, seg.payload_bytes, transport);
        }
    }

    /// The receiver's ACKs become packets at the destination, after its timer command.
    fn emit_acks(&mut self, io: &mut EndpointIo) {
        io.timer(DELAYED_ACK, self.ack_out.timer.take());
        self.counts.acks_created += self.ack_out.items.len() as u64;
        for ack in self.ack_out.items.drain(..) {
            // The header drops `sent_at`; arrival restores it from the packet's `created`.
            debug_assert_eq!(ack.sent_at, io.now);
            let transport = TransportHeader::TcpAck(TcpAckHeader::from_wire(&ack));
            io.send(End::Destination, ack.cumulative as u64, 0, transport);
        }
    }

    /// An ACK for the sender (from the receiver, or built by the coding layer).
    fn on_ack(&mut self, ack: &TcpAck, io: &mut EndpointIo) {
        self.sender.on_ack(ack, io.now, &mut self.data_out);
        self.emit_data(io);
    }

    /// A coded packet reached the decoder at the destination `node`.
    fn on_coded(&mut self, node: NodeId, pkt: &Packet, d: &CodedData, io: &mut EndpointIo) {
        self.counts.data_arrived += 1;
        let c = (self.coding.as_mut()).expect("coded packet of a flow without coding");
        let mut timer = None;
        let arrival = c.decoder.on_data(d, io.now, &mut timer);
        if arrival.innovative {
            io.arrived();
        } else {
            io.discarded(node, DropReason::CodingRedundancy, pkt);
        }
        if arrival.released_pkts > 0 {
            let n = arrival.released_pkts as u64;
            io.released(n, n * d.seg.payload_bytes as u64, pkt.created);
        }
        io.timer(CODING_REPAIR, timer);
        self.send_feedback(arrival.ack, io);
    }

    /// Feedback reached the source: an ACK that moves the decoder's frontier goes to TCP;
    /// a repair request is answered with fresh combinations.
    fn on_feedback(&mut self, fb: &CodingFeedback, io: &mut EndpointIo) {
        io.arrived();
        self.counts.acks_arrived += 1;
        match fb.kind {
            FeedbackKind::Ack => {
                let c = (self.coding.as_mut()).expect("feedback for a flow without coding");
                if let Some(ack) = c.encoder.on_feedback(fb, io.now) {
                    self.on_ack(&ack, io);
                }
            }
            FeedbackKind::Repair => {
                for _ in 0..fb.count {
                    self.send_repair(fb.block, io);
                }
            }
        }
    }

    /// The decoder's repair timer fired: the requests that are due go out.
    fn on_repair_timer(&mut self, io: &mut EndpointIo) {
        let Some(c) = &mut self.coding else { return };
        let mut requests = std::mem::take(&mut c.requests);
        let mut timer = None;
        c.decoder.on_timer(io.now, &mut requests, &mut timer);
        io.timer(CODING_REPAIR, timer);
        for fb in requests.drain(..) {
            self.send_feedback(fb, io);
        }
        if let Some(c) = &mut self.coding {
            c.requests = requests;
        }
    }

    /// One repair of `block` from the source.
    fn send_repair(&mut self, block: u32, io: &mut EndpointIo) {
        let template = TcpData {
            seq: 0,
            payload_bytes: io.payload_bytes,
            retransmission: true,
            sent_at: io.now,
            timestamps: self.sender.config().timestamps,
            cwr: false,
            ect: false,
            ce: false,
        };
        let repair =
            (self.coding.as_mut()).and_then(|c| c.encoder.repair(block, &template, io.now));
        if let Some(d) = repair {
            self.counts.data_created += 1;
            let (seq, bytes) = (d.seg.seq as u64, d.seg.payload_bytes);
            io.send(End::Source, seq, bytes, TransportHeader::Coded(d));
        }
    }

    /// One feedback message from the decoder to the source.
    fn send_feedback(&mut self, fb: CodingFeedback, io: &mut EndpointIo) {
        self.counts.acks_created += 1;
        let seq = fb.block as u64;
        io.send(
            End::Destination,
            seq,
            0,
            TransportHeader::CodingFeedback(fb),
        );
    }
}

impl FlowEndpoint for TcpFlow {
    fn name(&self) -> &'static str {
        "TCP"
    }

    fn timer_slots(&self) -> u8 {
        if self.coding.is_some() {
            3
        } else {
            2
        }
    }

    /// DiffQ-TCP: a source rate controller paces the sender (`paced`).
    fn takes_pacer(&self) -> bool {
        true
    }

    /// The sender sends its initial window (nothing yet when paced: the ticks hand
    /// segments over).
    fn start(&mut self, io: &mut EndpointIo) {
        self.sender.poll_send(io.now, &mut self.data_out);
        self.emit_data(io);
    }

    /// The application hands over no more data; what was sent is still recovered
    /// (unpaced from now on). A block the coding layer cut short is closed with one
    /// repair that carries its real size, so the decoder can release it.
    fn stop(&mut self, io: &mut EndpointIo) {
        self.sender.set_app_data(AppData::Finite(0));
        if self.paced {
            self.sender.end_pacing(io.now, &mut self.data_out);
        }
        self.emit_data(io);
        if let Some(block) = self.coding.as_mut().and_then(|c| c.encoder.cut()) {
            self.send_repair(block, io);
        }
    }

    fn on_timer(&mut self, slot: u8, io: &mut EndpointIo) {
        match slot {
            RTO => {
                self.sender.on_rto(io.now, &mut self.data_out);
                self.emit_data(io);
            }
            DELAYED_ACK => {
                self.receiver.on_delack_timer(io.now, &mut self.ack_out);
                self.emit_acks(io);
            }
            CODING_REPAIR => self.on_repair_timer(io),
            _ => unreachable!("TCP has three timers"),
        }
    }

    fn on_arrival(&mut self, node: NodeId, pkt: &Packet, io: &mut EndpointIo) {
        match &pkt.transport {
            TransportHeader::TcpData(seg) => {
                debug_assert_eq!(node, io.dst);
                io.arrived();
                self.counts.data_arrived += 1;
                let n = self.receiver.on_data(seg, io.now, &mut self.ack_out);
                if n > 0 {
                    let bytes = n as u64 * seg.payload_bytes as u64;
                    io.released(n as u64, bytes, pkt.created);
                }
                self.emit_acks(io);
            }
            TransportHeader::TcpAck(hdr) => {
                debug_assert_eq!(node, io.src);
                io.arrived();
                self.counts.acks_arrived += 1;
                self.on_ack(&hdr.to_wire(pkt.created), io);
            }
            TransportHeader::Coded(d) => self.on_coded(node, pkt, d, io),
            TransportHeader::CodingFeedback(fb) => self.on_feedback(fb, io),
            _ => unreachable!("non-TCP packet of a TCP flow"),
        }
    }

    /// DiffQ-TCP's tick: one segment, a deferred retransmission first, else what the
    /// window rules pick.
    fn on_pace(&mut self, io: &mut EndpointIo) -> bool {
        let sent = self.sender.pace_tick(io.now, &mut self.data_out);
        self.emit_data(io);
        sent
    }

    /// A coded segment dropped by congestion at its own source is shown to TCP (4.2.1);
    /// every other loss stays masked.
    fn on_source_drop(&mut self, pkt: &Packet, reason: DropReason) {
        let (TransportHeader::Coded(d), Some(c)) = (&pkt.transport, &mut self.coding) else {
            return;
        };
        if matches!(reason, DropReason::QueueOverflow | DropReason::Aqm) {
            c.encoder.on_source_drop(d);
        }
    }

    fn acked_pkts(&self) -> Option<u64> {
        Some(u64::from(self.sender.snd_una()))
    }

    fn sample(&self, flow: FlowId, now: Time, metrics: &mut Metrics) {
        let stats = self.sender.stats();
        let sample = TcpSample {
            at: now,
            cwnd_pkts: self.sender.cwnd(),
            ssthresh_pkts: self.sender.ssthresh(),
            srtt: self.sender.srtt(),
            rto: self.sender.rto(),
            retransmissions: stats.retransmissions,
            timeouts: stats.timeouts,
        };
        metrics.record_cwnd(flow, sample);
    }

    fn report(&self, flow: FlowId, reports: &mut TransportReports) {
        reports.push(flow, self.stats());
    }
}

/// End-of-run trace of a TCP flow (its row of the `tcp` table, and in full
/// `RunOutcome::transports.stats`).
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

impl TransportStats for TcpFlowStats {
    /// The run's `tcp` table: one row per TCP flow.
    const TABLE: &'static TransportTableSpec = &TransportTableSpec {
        name: "tcp",
        columns: &[
            "cwnd_pkts",
            "ssthresh_pkts",
            "srtt_s",
            "rto_s",
            "segments_sent",
            "retransmissions",
            "timeouts",
            "spurious_timeouts",
            "fast_retransmits",
            "ecn_reductions",
            "segments_delivered",
            "duplicate_segments",
            "coded_packets",
            "repair_packets",
            "repair_requests",
            "redundant_packets",
            "blocks_decoded",
            "unmasked_losses",
        ],
    };

    /// Its row: the final window and timers, the sender's and receiver's counters, and
    /// the coding layer's (missing for an uncoded flow).
    fn values(&self) -> Vec<StatValue> {
        use StatValue::{Count, Missing, Real};
        let coding =
            |x: fn(&CodingStats) -> u64| (self.coding.as_ref()).map_or(Missing, |c| Count(x(c)));
        vec![
            Real(self.cwnd_pkts),
            Real(self.ssthresh_pkts),
            self.srtt.map_or(Missing, |t| Real(t.as_secs_f64())),
            Real(self.rto.as_secs_f64()),
            Count(self.segments_sent),
            Count(self.retransmissions),
            Count(self.timeouts),
            Count(self.spurious_timeouts),
            Count(self.fast_retransmits),
            Count(self.ecn_reductions),
            Count(self.segments_delivered),
            Count(self.duplicate_segments),
            coding(|c| c.coded_packets),
            coding(|c| c.repair_packets),
            coding(|c| c.repair_requests),
            coding(|c| c.redundant_packets),
            coding(|c| c.blocks_decoded),
            coding(|c| c.unmasked_losses),
        ]
    }
}
