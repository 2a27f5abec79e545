//! The media's port to the layer above: what a queue discipline (or a routing protocol's
//! control queue) hands an interface when the interface pulls. The MAC owns this type; the
//! layers above import it.

use crate::ids::NodeId;
use crate::net::Packet;

/// A packet handed to an interface: the packet, the neighbour it goes to, and the MAC
/// priority level it should be sent at (0 = the default/lowest; an EDCA access category
/// on the 802.11 medium, ignored by wired links).
#[derive(Clone, Debug, PartialEq)]
pub struct Dequeued {
    pub pkt: Packet,
    pub next_hop: NodeId,
    pub priority: u8,
}
