//! Network layer: packets and headers, drop reasons, routing (static tables and AODV).

pub mod aodv;
pub mod packet;
pub mod routing;

pub use packet::{DiffqHeader, DropReason, Packet, TransportHeader};
pub use routing::{GraphEdge, RoutingTable};
