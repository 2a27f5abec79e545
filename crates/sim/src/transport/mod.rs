//! Transports in the world: the glue between the pure state machines of `airqueue-tcp`
//! and the simulator's packets, timers and metrics.

pub mod tcp;

pub use tcp::{TcpFlowConfig, TcpFlowStats, TcpVariant};
