//! Network layer: packets and headers, drop reasons, routing (static tables, AODV, OLSR,
//! and the registry of the protocols' `[routing]` keys), and the schemes that carry
//! their flows with packets of their own (`scheme`: MORE).

pub mod aodv;
pub mod control;
pub mod headers;
pub mod more;
pub mod olsr;
pub mod packet;
pub mod protocol;
pub mod registry;
pub mod routing;
pub mod scheme;

pub use packet::{ControlMsg, DiffqHeader, DropReason, Packet, Report, TransportHeader};
pub use protocol::{ProtocolStats, RoutingAction, RoutingProtocol, RoutingTimer, StatValue};
pub use routing::{GraphEdge, RoutingTable};
pub use scheme::{NetAction, NetScheme};
