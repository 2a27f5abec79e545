//! Network layer: packets and headers, drop reasons, routing.

pub mod packet;
pub mod routing;

pub use packet::{DropReason, Packet, TransportHeader};
pub use routing::{GraphEdge, RoutingTable};
