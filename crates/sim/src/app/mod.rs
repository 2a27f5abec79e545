//! Applications: traffic sources and sinks.

pub mod udp;

pub use udp::{UdpRate, UdpSource};
