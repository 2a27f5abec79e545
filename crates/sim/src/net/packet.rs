//! Packets as values with honest sizes (DESIGN.md, "Packets are values").
//!
//! A packet carries typed headers and the number of payload bytes; payload bytes are never
//! materialised. `size_bytes()` is what the packet occupies on the air or wire above the
//! link layer (IP header + transport header + payload), so air time follows from it.

use crate::ids::{FlowId, NodeId};
use airqueue_kernel::Time;

/// RFC 791: IPv4 header without options.
pub const IP_HEADER_BYTES: u32 = 20;
/// RFC 768: UDP header.
pub const UDP_HEADER_BYTES: u32 = 8;
/// Initial IP TTL; RFC 1700 recommends 64.
pub const DEFAULT_TTL: u8 = 64;

/// Transport-layer header of a packet.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TransportHeader {
    /// RFC 768 UDP datagram carrying application data.
    Udp,
}

impl TransportHeader {
    pub const fn size_bytes(&self) -> u32 {
        match self {
            TransportHeader::Udp => UDP_HEADER_BYTES,
        }
    }
}

/// A network-layer packet.
#[derive(Clone, Debug, PartialEq)]
pub struct Packet {
    /// Unique over the run, in creation order; used for accounting and tracing.
    pub uid: u64,
    pub flow: FlowId,
    pub src: NodeId,
    pub dst: NodeId,
    /// Per-flow sequence number given by the sending application.
    pub seq: u64,
    pub payload_bytes: u32,
    pub transport: TransportHeader,
    pub ttl: u8,
    /// User priority (the IP DSCP class mapped to an 802.11e level, IEEE 802.11-2016
    /// 10.2.4.2): the MAC level a plain queue discipline asks for. 0 = best effort.
    pub priority: u8,
    /// When the application created it; delay is measured from here.
    pub created: Time,
}

impl Packet {
    /// Bytes above the link layer: IP header, transport header and payload.
    #[inline]
    pub fn size_bytes(&self) -> u32 {
        IP_HEADER_BYTES + self.transport.size_bytes() + self.payload_bytes
    }
}

/// Why a packet left the network without being delivered.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum DropReason {
    /// The queue discipline had no room (drop-tail overflow).
    QueueOverflow,
    /// An active queue management scheme chose to drop.
    Aqm,
    /// The MAC gave up after its retry limit.
    MacRetryLimit,
    /// No route to the destination.
    NoRoute,
    /// TTL reached zero (RFC 791).
    Ttl,
    /// A network-coding layer discarded a packet that brought no new degree of freedom.
    CodingRedundancy,
}

impl DropReason {
    pub const ALL: [DropReason; 6] = [
        DropReason::QueueOverflow,
        DropReason::Aqm,
        DropReason::MacRetryLimit,
        DropReason::NoRoute,
        DropReason::Ttl,
        DropReason::CodingRedundancy,
    ];

    /// The name used in reports and tables.
    pub const fn name(self) -> &'static str {
        match self {
            DropReason::QueueOverflow => "queue_overflow",
            DropReason::Aqm => "aqm",
            DropReason::MacRetryLimit => "mac_retry_limit",
            DropReason::NoRoute => "no_route",
            DropReason::Ttl => "ttl",
            DropReason::CodingRedundancy => "coding_redundancy",
        }
    }

    pub const fn index(self) -> usize {
        self as usize
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn udp_size_counts_headers() {
        let p = Packet {
            uid: 0,
            flow: FlowId(0),
            src: NodeId(0),
            dst: NodeId(1),
            seq: 0,
            payload_bytes: 1000,
            transport: TransportHeader::Udp,
            ttl: DEFAULT_TTL,
            priority: 0,
            created: Time::ZERO,
        };
        assert_eq!(p.size_bytes(), 1028);
    }

    #[test]
    fn reason_indices_are_dense() {
        for (i, r) in DropReason::ALL.iter().enumerate() {
            assert_eq!(r.index(), i);
        }
    }
}
