//! OLSR messages as packets carry them (RFC 3626 section 3.3, 6.1, 9.1), apart from the
//! state machine that reads and writes them (`node.rs`).
//!
//! A packet is a plain value, so it cannot hold a HELLO's or TC's neighbour list. The
//! packet carries [`OlsrMsg`]: the message header fields and its honest on-air size;
//! the list itself lives in [`Bodies`], a ring of bodies indexed by a message id that
//! the header names. A forwarded TC names the body of the originator's message. A body
//! is overwritten after [`Bodies::capacity`] newer ones (a minute or more of traffic):
//! a packet still in flight then finds its body gone and is treated as lost.
//!
//! Sizes, IPv4 addresses, without the 28 bytes of IP and UDP headers (the packet and
//! [`TransportHeader::size_bytes`](crate::net::TransportHeader::size_bytes) add them;
//! OLSR runs over UDP port 698, section 3.1):
//! * packet header 4 bytes (length, packet sequence number), one message per packet;
//! * message header 12 bytes (type, Vtime, size, originator, TTL, hop count, sequence
//!   number), section 3.3;
//! * HELLO 4 bytes (reserved, Htime, Willingness) plus per link code group 4 bytes and
//!   4 per neighbour address (6.1);
//! * TC 4 bytes (ANSN, reserved) plus 4 per advertised address (9.1);
//! * with the ETX metric olsrd's LQ_HELLO and LQ_TC add 4 bytes per neighbour (LQ,
//!   NLQ, two reserved bytes).

use crate::ids::NodeId;

pub const PACKET_HEADER_BYTES: u32 = 4;
pub const MESSAGE_HEADER_BYTES: u32 = 12;
pub const HELLO_HEADER_BYTES: u32 = 4;
pub const LINK_GROUP_BYTES: u32 = 4;
pub const TC_HEADER_BYTES: u32 = 4;
pub const ADDRESS_BYTES: u32 = 4;
/// olsrd's link-quality extension per neighbour (LQ, NLQ and padding).
pub const LQ_BYTES: u32 = 4;

/// RFC 3626 6.1.1 link types.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum LinkType {
    Asym,
    Sym,
    Lost,
}

/// RFC 3626 6.1.1 neighbour types.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum NeighType {
    Not,
    Sym,
    Mpr,
}

/// One neighbour of a HELLO: its link and neighbour types, and (olsrd LQ_HELLO) the
/// sender's link quality of that neighbour's HELLOs and what the neighbour reported
/// of the sender's, each as olsrd sends them: a byte, the fraction times 255.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct HelloLink {
    pub neighbor: NodeId,
    pub link: LinkType,
    pub neigh: NeighType,
    pub lq: u8,
    pub nlq: u8,
}

/// One advertised neighbour of a TC with the originator's LQ and NLQ of that link.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TcLink {
    pub neighbor: NodeId,
    pub lq: u8,
    pub nlq: u8,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum MsgKind {
    Hello,
    Tc,
}

/// The header of an OLSR message as a packet carries it. The message TTL is the
/// packet's `ttl`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct OlsrMsg {
    pub kind: MsgKind,
    pub originator: NodeId,
    /// Message sequence number (3.3), per originator, shared by HELLOs and TCs.
    pub seq: u16,
    /// HELLO count of the sender, for the `hello_window` link quality (see `link.rs`); 0
    /// in TCs.
    pub hello_seq: u16,
    /// Packet sequence number (3.3, 3.4 of the packet header): per sending node, over
    /// every OLSR packet it sends (HELLOs, its TCs and the TCs it forwards); `etx_ff`
    /// counts the gaps.
    pub pkt_seq: u16,
    pub hop_count: u8,
    /// The message's body in [`Bodies`].
    pub body: u64,
    /// Packet and message bytes (without IP and UDP).
    pub bytes: u32,
}

impl OlsrMsg {
    #[inline]
    pub fn size_bytes(&self) -> u32 {
        self.bytes
    }
}

/// A message body: a HELLO's links or a TC's ANSN and advertised links.
#[derive(Clone, Debug, Default)]
pub struct Body {
    id: u64,
    pub ansn: u16,
    pub hello: Vec<HelloLink>,
    pub tc: Vec<TcLink>,
    /// A TC's links priced as receivers store them, made once by the originator.
    pub tc_dests: Option<super::TcDests>,
}

/// The ring of message bodies (see the module doc).
#[derive(Clone, Debug)]
pub struct Bodies {
    ring: Vec<Body>,
    next: u64,
}

impl Bodies {
    pub fn new(capacity: usize) -> Self {
        Bodies {
            ring: (0..capacity.max(1))
                .map(|_| Body {
                    id: u64::MAX,
                    ..Body::default()
                })
                .collect(),
            next: 0,
        }
    }

    pub fn capacity(&self) -> usize {
        self.ring.len()
    }

    /// A cleared slot for a new body (its vectors keep their allocation) and its id.
    pub fn alloc(&mut self) -> (u64, &mut Body) {
        let id = self.next;
        self.next += 1;
        let cap = self.ring.len() as u64;
        let b = &mut self.ring[(id % cap) as usize];
        b.id = id;
        b.ansn = 0;
        b.hello.clear();
        b.tc.clear();
        b.tc_dests = None;
        (id, b)
    }

    /// Keeps the TC lists of every body in the ring through a compaction (a packet in
    /// flight may still refer to any of them).
    pub fn keep_lists(&mut self, c: &mut super::topology::Compaction<'_>) {
        for b in &mut self.ring {
            if let Some(d) = &mut b.tc_dests {
                c.keep(d);
            }
        }
    }

    /// The body `id`, `None` if it has been overwritten.
    pub fn get(&self, id: u64) -> Option<&Body> {
        let b = &self.ring[(id % self.ring.len() as u64) as usize];
        (b.id == id).then_some(b)
    }
}

/// Link code groups of a HELLO: distinct (link type, neighbour type) pairs.
fn link_groups(links: &[HelloLink]) -> u32 {
    let mut seen = 0u16;
    for l in links {
        let bit = (l.link as u16) * 3 + l.neigh as u16;
        seen |= 1 << bit;
    }
    seen.count_ones()
}

/// On-air bytes of a HELLO packet (without IP and UDP).
pub fn hello_bytes(links: &[HelloLink], lq: bool) -> u32 {
    let per = ADDRESS_BYTES + if lq { LQ_BYTES } else { 0 };
    PACKET_HEADER_BYTES
        + MESSAGE_HEADER_BYTES
        + HELLO_HEADER_BYTES
        + LINK_GROUP_BYTES * link_groups(links)
        + per * links.len() as u32
}

/// On-air bytes of a TC packet (without IP and UDP).
pub fn tc_bytes(advertised: usize, lq: bool) -> u32 {
    let per = ADDRESS_BYTES + if lq { LQ_BYTES } else { 0 };
    PACKET_HEADER_BYTES + MESSAGE_HEADER_BYTES + TC_HEADER_BYTES + per * advertised as u32
}

/// A fraction in [0, 1] as olsrd puts it on the air.
#[inline]
pub fn quantize(x: f64) -> u8 {
    (x.clamp(0.0, 1.0) * 255.0).round() as u8
}

/// The fraction a link-quality byte stands for.
#[inline]
pub fn dequantize(b: u8) -> f64 {
    b as f64 / 255.0
}

/// RFC 3626 section 19: `a` is newer than `b` (16-bit sequence numbers wrap).
#[inline]
pub fn seq_newer(a: u16, b: u16) -> bool {
    (a > b && a - b <= 32768) || (b > a && b - a > 32768)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn link(n: u32, link: LinkType, neigh: NeighType) -> HelloLink {
        HelloLink {
            neighbor: NodeId(n),
            link,
            neigh,
            lq: 255,
            nlq: 255,
        }
    }

    #[test]
    fn sizes_follow_the_rfc_layouts() {
        // Empty HELLO: 4 + 12 + 4.
        assert_eq!(hello_bytes(&[], false), 20);
        // Three neighbours in two groups: 20 + 2 * 4 + 3 * 4; with LQ + 3 * 4.
        let l = [
            link(1, LinkType::Sym, NeighType::Mpr),
            link(2, LinkType::Sym, NeighType::Sym),
            link(3, LinkType::Sym, NeighType::Sym),
        ];
        assert_eq!(hello_bytes(&l, false), 40);
        assert_eq!(hello_bytes(&l, true), 52);
        assert_eq!(tc_bytes(2, false), 28);
        assert_eq!(tc_bytes(2, true), 36);
    }

    #[test]
    fn bodies_are_overwritten_in_order() {
        let mut b = Bodies::new(2);
        let (a, body) = b.alloc();
        body.ansn = 7;
        let (c, _) = b.alloc();
        assert_eq!(b.get(a).map(|x| x.ansn), Some(7));
        let (_, _) = b.alloc();
        assert!(b.get(a).is_none(), "overwritten by the third body");
        assert!(b.get(c).is_some());
    }

    #[test]
    fn sequence_numbers_wrap() {
        assert!(seq_newer(2, 1));
        assert!(!seq_newer(1, 2));
        assert!(seq_newer(0, 65535));
        assert!(!seq_newer(5, 5));
    }
}
