//! AODV, Ad hoc On-Demand Distance Vector routing (RFC 3561).
//!
//! * `wire.rs`: the RREQ, RREP and RERR messages and their on-air sizes (section 5);
//! * `table.rs`: sequence numbers (6.1), the route table and its update rules (6.2);
//! * `node.rs`: the state machine of one node: route discovery with an expanding ring
//!   and binary exponential backoff (6.3, 6.4), request handling and duplicate
//!   suppression (6.5), replies by the destination and by intermediate nodes (6.6, 6.7),
//!   link breaks and route errors (6.11), and, as an option, local repair (6.12);
//! * `buffer.rs`: the packets a source holds while it looks for a route.
//!
//! `protocol.rs` runs them as the world's routing protocol: it carries the messages over
//! the 802.11 MAC and detects link breaks either from MAC feedback (the default) or from hello messages (6.9,
//! [`LinkDetection::Hello`]). What is left out (gratuitous RREPs, blacklists, parts of
//! local repair) is listed in `docs/routing.md`.

pub mod buffer;
pub mod keys;
pub mod node;
pub mod protocol;
pub mod table;
pub mod wire;

pub use buffer::Buffer;
pub use node::{Action, AodvNode, AodvStats, AodvTimer};
pub use protocol::AodvNet;
pub use wire::{AodvMsg, Rerr, Rrep, Rreq};

use airqueue_kernel::Time;

/// RFC 3561 section 10 TIMEOUT_BUFFER (in units of NODE_TRAVERSAL_TIME).
const TIMEOUT_BUFFER: u64 = 2;
/// RFC 3561 section 10: K in DELETE_PERIOD = K * max(ACTIVE_ROUTE_TIMEOUT,
/// HELLO_INTERVAL), 5 when link-layer feedback detects breaks.
const DELETE_PERIOD_K: u64 = 5;
/// RFC 3561 section 10 LOCAL_ADD_TTL: hops a local repair's request reaches beyond
/// MIN_REPAIR_TTL (6.12).
const LOCAL_ADD_TTL: u8 = 2;

/// How a node learns that the link to a next hop broke (RFC 3561 6.11 case i).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum LinkDetection {
    /// Link-layer feedback: a unicast frame that reaches the MAC retry limit (ns-2).
    #[default]
    Mac,
    /// Hello messages (6.9): a node on an active route broadcasts a HELLO every
    /// HELLO_INTERVAL unless it broadcast something else, and a next hop not heard
    /// from for ALLOWED_HELLO_LOSS * HELLO_INTERVAL is gone. MAC failures are then
    /// only drops.
    Hello,
}

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
    /// How link breaks are detected (default: MAC feedback).
    pub link_detection: LinkDetection,
    /// HELLO_INTERVAL (1 s), with [`LinkDetection::Hello`].
    pub hello_interval: Time,
    /// ALLOWED_HELLO_LOSS (2), with [`LinkDetection::Hello`].
    pub allowed_hello_loss: u8,
    /// Local repair (RFC 3561 6.12; default off): a relay whose link to the next hop
    /// breaks looks for a new route to a destination at most MAX_REPAIR_TTL hops away
    /// itself, holding the packets for it, before reporting it unreachable.
    pub local_repair: bool,
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
            link_detection: LinkDetection::Mac,
            hello_interval: Time::from_secs(1),
            allowed_hello_loss: 2,
            local_repair: false,
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

    /// ALLOWED_HELLO_LOSS * HELLO_INTERVAL: how long a next hop may stay silent, and the
    /// lifetime a HELLO advertises (6.9).
    pub fn hello_loss_time(&self) -> Time {
        self.hello_interval.times(self.allowed_hello_loss as u64)
    }

    /// DELETE_PERIOD with link-layer feedback.
    pub fn delete_period(&self) -> Time {
        self.active_route_timeout.times(DELETE_PERIOD_K)
    }

    /// MAX_REPAIR_TTL = 0.3 * NET_DIAMETER (rounded down): the farthest destination a
    /// local repair is tried for (6.12).
    pub fn max_repair_ttl(&self) -> u8 {
        (self.net_diameter as u16 * 3 / 10) as u8
    }

    /// The TTL of a local repair's request (6.12): max(MIN_REPAIR_TTL, 0.5 * #hops) +
    /// LOCAL_ADD_TTL, with MIN_REPAIR_TTL the last known hop count to the destination
    /// and #hops the hops back to the originator of the undeliverable packet (half of it
    /// rounded up), at most NET_DIAMETER.
    pub fn repair_ttl(&self, last_hops: u8, orig_hops: u8) -> u8 {
        last_hops
            .max(orig_hops.div_ceil(2))
            .saturating_add(LOCAL_ADD_TTL)
            .min(self.net_diameter)
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
        assert_eq!(c.max_repair_ttl(), 10);
        assert_eq!(c.repair_ttl(3, 2), 5, "MIN_REPAIR_TTL + LOCAL_ADD_TTL");
        assert_eq!(
            c.repair_ttl(3, 9),
            7,
            "half the hops to the originator, rounded up"
        );
        assert_eq!(c.repair_ttl(40, 0), 35, "at most NET_DIAMETER");
    }
}
