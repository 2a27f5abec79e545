//! Transports in the world: the glue between the pure state machines of `airqueue-tcp`
//! and the simulator's packets, timers and metrics, UDP's datagram source, each a
//! [`endpoint::FlowEndpoint`] made from its flow kind (`flow_kind.rs`: `FLOW_KINDS`, each
//! kind declared in its module) that may report a row of its transport's table
//! (`report.rs`), and the rate controllers that pace sources (DiffQ's, backpressure's
//! flow control), each a registered `cc` value (`rate.rs`).

pub mod coding;
pub mod diffq;
pub mod endpoint;
pub mod flow_control;
pub mod flow_kind;
pub mod rate;
pub mod report;
pub mod tcp;
pub mod tfrc;
pub mod udp;

pub use coding::{CodingConfig, CodingStats};
pub use diffq::{DiffqRate, DiffqRateConfig, DiffqUtility, RateUpdate};
pub use flow_kind::{
    flow_kind, EndpointSetup, FlowBuildContext, FlowKindConfig, FlowKindScheme, FLOW_KINDS,
};
pub use rate::{
    rate_scheme, RateController, RateScheme, RateSetting, RateSummary, RegisteredRate, SourceQueue,
    SourceView, RATE_SCHEMES,
};
pub use report::{
    TransportReports, TransportRow, TransportStats, TransportTable, TransportTableSpec,
};
pub use tcp::{TcpFlowConfig, TcpFlowStats, TcpVariant};
pub use tfrc::{TfrcFlowConfig, TfrcFlowStats, TfrcPacketCounts};
