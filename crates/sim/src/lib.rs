//! airqueue's network model: packets with honest sizes, media (wired links now, 802.11
//! next), queue disciplines, forwarding and routing, applications, metrics, and the
//! [`World`] that runs them on the `airqueue-kernel` event loop.

pub mod app;
pub mod ids;
pub mod medium;
pub mod metrics;
pub mod net;
pub mod qdisc;
pub mod transport;
pub mod world;

pub use ids::{FlowId, LinkId, NodeId};
pub use qdisc::{
    BackpressureConfig, BackpressureVariant, Classify, ControlWhen, DiffQConfig, DiffqView,
    DqmConfig, FqConfig, LinkEstimate, LossCount, PiConfig, RedConfig, UnknownNeighbour,
};
pub use transport::{
    CodingConfig, CodingStats, DiffqRateConfig, DiffqUtility, RateUpdate, RegisteredRate,
    TcpFlowConfig, TcpFlowStats, TcpVariant, TfrcFlowConfig, TfrcFlowStats,
};
pub use world::{
    FlowConfig, FlowKindConfig, MediumConfig, RegisteredQdisc, RunOutcome, SpinError, WiresConfig,
    World, WorldConfig, MAX_EVENTS_PER_INSTANT,
};
