//! Headers that only some protocols put on packets, as the packet carries them: wire
//! formats, below the queue disciplines and transports that make and read them.

use airqueue_kernel::Time;
use airqueue_tcp::TcpData;

// A queue discipline's control broadcast: its queue sizes when no data frame carries
// them (seed 002, 4.1.2, for backpressure).

/// Type, reserved byte and entry count.
pub const QUEUE_REPORTS_HEADER_BYTES: u32 = 4;
/// Flow id, destination address, queue length, two reserved bytes.
pub const QUEUE_REPORT_ENTRY_BYTES: u32 = 12;

/// One entry of a control broadcast's body: (flow, destination, queue length).
pub type QueueReport = (crate::ids::FlowId, crate::ids::NodeId, u16);

/// A control broadcast's header as the packet carries it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct QueueReportsMsg {
    /// Its body in the sender's ring.
    pub body: u64,
    pub entries: u16,
}

impl QueueReportsMsg {
    /// Bytes above UDP.
    #[inline]
    pub fn size_bytes(&self) -> u32 {
        QUEUE_REPORTS_HEADER_BYTES + QUEUE_REPORT_ENTRY_BYTES * self.entries as u32
    }
}

// The network-coding layer of TCP-aware backpressure (seed 002, 4.1.3).

/// Bytes of the coding header on the air before the coefficients: block ID (4), packet ID
/// within the block (2) and block size (2). The paper lists these fields (4.1.3) but not
/// their widths; these hold a 2^32-block stream and blocks of up to 65535 packets.
pub const CODING_HEADER_BYTES: u32 = 8;
/// Bytes of an NC feedback message (ACK or repair request): block ID (4), rank or missing
/// count (2), kind (2); plus the echoed timestamp when TCP timestamps are on.
pub const CODING_FEEDBACK_BYTES: u32 = 8;
/// The echoed timestamp in a feedback message (as RFC 7323's TSecr).
pub const CODING_TSECR_BYTES: u32 = 4;

/// The coding header of a coded data packet, with the TCP segment it carries coded in.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct CodedData {
    /// The TCP segment whose transmission produced this packet; for an NC repair, a
    /// stand-in with the block's last coded segment number (TCP never sees repairs).
    pub seg: TcpData,
    pub block: u32,
    /// Number of block members combined: packets `1..=degree` of the block. One
    /// coefficient byte (GF(2^8)) each on the air.
    pub degree: u16,
    /// Packets in the block as the encoder knows it (`H`, or fewer for a block cut short
    /// when the application stopped).
    pub block_size: u16,
    /// Sent by the NC layer on its own (a repair or the closing packet of a cut block),
    /// not by TCP.
    pub repair: bool,
}

impl CodedData {
    /// Bytes above the IP header and below the payload: coding header, coefficients, and
    /// the coded TCP header with its options.
    #[inline]
    pub fn header_bytes(&self) -> u32 {
        CODING_HEADER_BYTES
            + self.degree as u32
            + (self.seg.size_bytes() - self.seg.payload_bytes - crate::net::packet::IP_HEADER_BYTES)
    }
}

/// What a feedback message says.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FeedbackKind {
    /// The decoder's frontier: block `block` has rank `count`.
    Ack,
    /// Block `block` misses `count` degrees of freedom; send that many repairs.
    Repair,
}

/// An NC feedback message from the decoder to the encoder.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct CodingFeedback {
    pub kind: FeedbackKind,
    pub block: u32,
    pub count: u16,
    /// The `sent_at` of the TCP segment in the packet that triggered this ACK, echoed
    /// when TCP timestamps are on (RTT samples for TCP).
    pub tsecr: Option<Time>,
}

impl CodingFeedback {
    #[inline]
    pub fn size_bytes(&self) -> u32 {
        CODING_FEEDBACK_BYTES
            + if self.tsecr.is_some() {
                CODING_TSECR_BYTES
            } else {
                0
            }
    }
}
