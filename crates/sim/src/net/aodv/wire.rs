//! AODV control messages as packets carry them (RFC 3561 section 5), apart from the
//! state machine that reads and writes them (`node.rs`).
//!
//! Only the fields the protocol acts on are stored; the on-air size of each message is
//! the size of its RFC 3561 layout (section 5.1 RREQ: 24 bytes, 5.2 RREP: 20 bytes, 5.3
//! RERR: 4 bytes plus 8 per unreachable destination). The packet adds the IP header and
//! [`TransportHeader::size_bytes`](crate::net::TransportHeader::size_bytes) adds the UDP
//! header (AODV runs over UDP port 654, section 4), so an RREQ occupies 52 bytes above
//! the link layer.

use crate::ids::NodeId;
use airqueue_kernel::Time;

/// RFC 3561 5.1: the RREQ message, without its flags other than U.
pub const RREQ_BYTES: u32 = 24;
/// RFC 3561 5.2: the RREP message.
pub const RREP_BYTES: u32 = 20;
/// RFC 3561 5.3: the RERR message before its (address, sequence number) pairs.
pub const RERR_HEADER_BYTES: u32 = 4;
/// RFC 3561 5.3: one unreachable destination (IPv4 address and sequence number).
pub const RERR_DEST_BYTES: u32 = 8;
/// Unreachable destinations one [`Rerr`] carries here. A node with more to report sends
/// several RERRs (the RFC's DestCount allows 255 in one message; keeping the list inline
/// keeps packets plain values without heap storage).
pub const RERR_MAX_DESTS: usize = 4;

/// Route Request (RFC 3561 5.1). The J, R, G and D flags are not modelled (no multicast,
/// no gratuitous RREP, no destination-only flag).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Rreq {
    /// Hops from the originator to the node handling the request.
    pub hop_count: u8,
    /// U flag: the originator knows no sequence number for `dst` (`dst_seq` is then 0).
    pub unknown_seq: bool,
    pub rreq_id: u32,
    pub dst: NodeId,
    pub dst_seq: u32,
    pub orig: NodeId,
    pub orig_seq: u32,
}

/// Route Reply (RFC 3561 5.2). The R and A flags and the prefix size are not modelled.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Rrep {
    /// Hops from the destination to the node handling the reply.
    pub hop_count: u8,
    pub dst: NodeId,
    pub dst_seq: u32,
    /// The node that asked for the route; the reply travels towards it.
    pub orig: NodeId,
    /// How long the route it carries stays valid, from reception.
    pub lifetime: Time,
}

/// Route Error (RFC 3561 5.3), with at most [`RERR_MAX_DESTS`] destinations, and the N
/// flag (no delete: a local repair found a longer route, 6.12).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Rerr {
    count: u8,
    no_delete: bool,
    dests: [(NodeId, u32); RERR_MAX_DESTS],
}

impl Rerr {
    pub const fn new() -> Self {
        Rerr {
            count: 0,
            no_delete: false,
            dests: [(NodeId(0), 0); RERR_MAX_DESTS],
        }
    }

    /// An empty RERR with the N flag set (6.12): the routes to its destinations were
    /// repaired, longer, and stay.
    pub const fn no_delete() -> Self {
        let mut e = Rerr::new();
        e.no_delete = true;
        e
    }

    /// The N flag.
    pub fn is_no_delete(&self) -> bool {
        self.no_delete
    }

    /// Adds an unreachable destination and its sequence number; `false` when full.
    pub fn push(&mut self, dst: NodeId, seq: u32) -> bool {
        let Some(slot) = self.dests.get_mut(self.count as usize) else {
            return false;
        };
        *slot = (dst, seq);
        self.count += 1;
        true
    }

    pub fn is_full(&self) -> bool {
        self.count as usize == RERR_MAX_DESTS
    }

    pub fn is_empty(&self) -> bool {
        self.count == 0
    }

    /// The unreachable destinations with their sequence numbers.
    pub fn dests(&self) -> &[(NodeId, u32)] {
        &self.dests[..self.count as usize]
    }
}

impl Default for Rerr {
    fn default() -> Self {
        Rerr::new()
    }
}

/// One AODV control message.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum AodvMsg {
    Rreq(Rreq),
    Rrep(Rrep),
    Rerr(Rerr),
}

impl AodvMsg {
    /// Bytes of the message itself (RFC 3561 section 5), without UDP and IP headers.
    #[inline]
    pub fn size_bytes(&self) -> u32 {
        match self {
            AodvMsg::Rreq(_) => RREQ_BYTES,
            AodvMsg::Rrep(_) => RREP_BYTES,
            AodvMsg::Rerr(e) => RERR_HEADER_BYTES + RERR_DEST_BYTES * e.dests().len() as u32,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sizes_follow_the_rfc_layouts() {
        let rreq = AodvMsg::Rreq(Rreq {
            hop_count: 0,
            unknown_seq: true,
            rreq_id: 1,
            dst: NodeId(3),
            dst_seq: 0,
            orig: NodeId(0),
            orig_seq: 1,
        });
        assert_eq!(rreq.size_bytes(), 24);
        let mut e = Rerr::new();
        assert!(e.is_empty());
        assert!(e.push(NodeId(1), 7));
        assert_eq!(AodvMsg::Rerr(e).size_bytes(), 12);
        for k in 1..RERR_MAX_DESTS as u32 {
            assert!(e.push(NodeId(1 + k), k));
        }
        assert!(e.is_full() && !e.push(NodeId(9), 0));
        assert_eq!(e.dests().len(), RERR_MAX_DESTS);
        assert_eq!(e.dests()[1], (NodeId(2), 1));
        assert_eq!(AodvMsg::Rerr(e).size_bytes(), 4 + 8 * RERR_MAX_DESTS as u32);
    }
}
