//! AODV, Ad hoc On-Demand Distance Vector routing (RFC 3561).
//!
//! * `wire.rs`: the RREQ, RREP and RERR messages and their on-air sizes (section 5);
//! * `table.rs`: sequence numbers (6.1), the route table and its update rules (6.2);
//! * `node.rs`: the state machine of one node: route discovery with an expanding ring
//!   and binary exponential backoff (6.3, 6.4), request handling and duplicate
//!   suppression (6.5), replies by the destination and by intermediate nodes (6.6, 6.7),
//!   link breaks and route errors (6.11);
//! * `buffer.rs`: the packets a source holds while it looks for a route.
//!
//! The world (`world/aodv.rs`) carries the messages over the 802.11 MAC and turns MAC
//! feedback into link breaks. What is left out (hello messages, local repair,
//! gratuitous RREPs, blacklists) is listed in `docs/routing.md`.

pub mod buffer;
pub mod node;
pub mod table;
pub mod wire;

pub use buffer::Buffer;
pub use node::{Action, AodvNode, AodvStats, AodvTimer};
pub use wire::{AodvMsg, Rerr, Rrep, Rreq};

use airqueue_kernel::Time;

/// RFC 3561 section 10 TIMEOUT_BUFFER (in units of NODE_TRAVERSAL_TIME).
const TIMEOUT_BUFFER: u64 = 2;
/// RFC 3561 section 10: K in DELETE_PERIOD = K * max(ACTIVE_ROUTE_TIMEOUT,
/// HELLO_INTERVAL), 5 when link-layer feedback detects breaks.
const DELETE_PERIOD_K: u64 = 5;

/// AODV parameters (RFC 3561 section 10 names) plus the discovery buffer.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct AodvConfig {
    /// ACTIVE_ROUTE_TIMEOUT (3 s).
    pub active_route_timeout: Time,
    /// NET_DIAMETER in hops (35).
    pub net_diameter: u8,
    /// NODE_TRAVERSAL_TIME (40 ms).
    pub node_traversal_time: Time,
    /// RREQ_RETRIES (2): network-wide requests after the first one.
    pub rreq_retries: u32,
    /// TTL_START (1), TTL_INCREMENT (2), TTL_THRESHOLD (7).
    pub ttl_start: u8,
    pub ttl_increment: u8,
    pub ttl_threshold: u8,
    /// Packets a node holds while discovering routes, over all destinations (ns-2: 64).
    pub buffer_capacity: usize,
    /// How long a packet may wait for a route (ns-2: 30 s).
    pub buffer_timeout: Time,
    /// Control packets a node's interface queue may hold ahead of data (ns-2's
    /// PriQueue shares its 50 slots; here they have their own).
    pub control_queue_capacity: usize,
    /// Upper bound of the uniform jitter before a broadcast is relayed (RFC 5148 style).
    pub max_jitter: Time,
}

impl Default for AodvConfig {
    /// The RFC 3561 section 10 values, ns-2's buffer, 10 ms jitter.
    fn default() -> Self {
        AodvConfig {
            active_route_timeout: Time::from_secs(3),
            net_diameter: 35,
            node_traversal_time: Time::from_millis(40),
            rreq_retries: 2,
            ttl_start: 1,
            ttl_increment: 2,
            ttl_threshold: 7,
            buffer_capacity: 64,
            buffer_timeout: Time::from_secs(30),
            control_queue_capacity: 64,
            max_jitter: Time::from_millis(10),
        }
    }
}

impl AodvConfig {
    /// NET_TRAVERSAL_TIME = 2 * NODE_TRAVERSAL_TIME * NET_DIAMETER.
    pub fn net_traversal_time(&self) -> Time {
        self.node_traversal_time.times(2 * self.net_diameter as u64)
    }

    /// PATH_DISCOVERY_TIME = 2 * NET_TRAVERSAL_TIME.
    pub fn path_discovery_time(&self) -> Time {
        self.net_traversal_time().times(2)
    }

    /// MY_ROUTE_TIMEOUT = 2 * ACTIVE_ROUTE_TIMEOUT.
    pub fn my_route_timeout(&self) -> Time {
        self.active_route_timeout.times(2)
    }

    /// DELETE_PERIOD with link-layer feedback.
    pub fn delete_period(&self) -> Time {
        self.active_route_timeout.times(DELETE_PERIOD_K)
    }

    /// RING_TRAVERSAL_TIME = 2 * NODE_TRAVERSAL_TIME * (TTL + TIMEOUT_BUFFER).
    pub fn ring_traversal_time(&self, ttl: u8) -> Time {
        self.node_traversal_time
            .times(2 * (ttl as u64 + TIMEOUT_BUFFER))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn derived_constants_match_section_10() {
        let c = AodvConfig::default();
        assert_eq!(c.net_traversal_time(), Time::from_millis(2800));
        assert_eq!(c.path_discovery_time(), Time::from_millis(5600));
        assert_eq!(c.my_route_timeout(), Time::from_secs(6));
        assert_eq!(c.delete_period(), Time::from_secs(15));
        assert_eq!(c.ring_traversal_time(1), Time::from_millis(240));
    }
}
