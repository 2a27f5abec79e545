//! OLSR, Optimized Link State Routing (RFC 3626), with olsrd's ETX link metric.
//!
//! * `wire.rs`: HELLO and TC messages, their on-air sizes (3.3, 6.1, 9.1) and the ring
//!   of message bodies packets refer to;
//! * `link.rs`: the link and neighbour sets, symmetric link detection (7, 8.1) and link
//!   quality: olsrd's `etx_ff` (the default: packet sequence-number gaps counted in 1 s
//!   bins, aged when HELLOs are overdue, published with a 10% hysteresis) or the older
//!   window over the last HELLOs;
//! * `mpr.rs`: MPR selection (8.3.1);
//! * `topology.rs`: the topology set (9.5) and the duplicate set (3.4);
//! * `route.rs`: the routing table calculation (10), by hops or sum of ETX;
//! * `node.rs`: the state machine of one node, and the warm start.
//!
//! OLSR is proactive: each node rewrites its row of the world's dense `RoutingTable`
//! when it recomputes its routes, so forwarding and the queue disciplines that read the
//! table need nothing else. `protocol.rs` runs the nodes as the world's routing protocol:
//! it sends the periodic HELLOs and TCs over the 802.11 MAC. What is left out (HNA, MID, multiple interfaces,
//! willingness, RFC 3626 link hysteresis, fisheye) is listed in `docs/routing.md`.

pub mod keys;
pub mod link;
pub mod mpr;
pub mod node;
pub mod protocol;
pub mod route;
pub mod topology;
pub mod wire;

pub use link::{LqAlgorithm, Metric};
pub use node::{warm_start, OlsrNode, OlsrStats};
pub use protocol::{OlsrNet, OlsrSetup, OlsrTimer};
pub use route::RouteScratch;
pub use topology::{TcDests, TcLists};
pub use wire::{Bodies, MsgKind, OlsrMsg};

use airqueue_kernel::Time;

/// OLSR parameters (RFC 3626 section 18 names).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct OlsrConfig {
    /// Route by the sum of ETX (olsrd's link quality extension) rather than hops.
    pub etx: bool,
    /// HELLO_INTERVAL (2 s).
    pub hello_interval: Time,
    /// TC_INTERVAL (5 s).
    pub tc_interval: Time,
    /// NEIGHB_HOLD_TIME (3 x HELLO_INTERVAL).
    pub neighb_hold_time: Time,
    /// TOP_HOLD_TIME (3 x TC_INTERVAL).
    pub top_hold_time: Time,
    /// DUP_HOLD_TIME (30 s).
    pub dup_hold_time: Time,
    /// How link quality is measured (`link.rs`): olsrd's `etx_ff` by default.
    pub lq_algorithm: LqAlgorithm,
    /// HELLOs in the link-quality window of [`LqAlgorithm::HelloWindow`], 1..=64.
    pub lq_window: u32,
    /// Period of `etx_ff`'s link-quality timer (olsrd: 1 s, `default_lq_initialize_ff`).
    pub lq_interval: Time,
    /// MAXJITTER (RFC 5148): periodic messages come up to this much early, forwarded
    /// TCs wait up to this much.
    pub max_jitter: Time,
    /// Start from the converged state of the idle network.
    pub warm_start: bool,
    /// Delay between a change of a node's state and its route recalculation, which
    /// gathers the changes of a burst of messages (olsrd's scheduler polls every 50 ms).
    pub route_delay: Time,
    /// Control packets a node's interface may hold ahead of data.
    pub control_queue_capacity: usize,
    /// Which neighbours a TC advertises (TC_REDUNDANCY, 15.1).
    pub tc_redundancy: TcRedundancy,
}

/// TC_REDUNDANCY (RFC 3626 section 15.1): the advertised neighbour set of a node's TCs.
/// RFC 3626's default is 0; olsrd's compiled-in default is 2 (`TC_REDUNDANCY` in
/// `src/olsr_protocol.h` since January 2006).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TcRedundancy {
    /// 0: the MPR selector set.
    MprSelectors,
    /// 1: the MPR selector set and the MPR set.
    SelectorsAndMprs,
    /// 2: every symmetric neighbour.
    AllNeighbours,
}

impl TcRedundancy {
    /// The RFC's value 0, 1 or 2.
    pub fn from_rfc(value: u8) -> Option<Self> {
        match value {
            0 => Some(TcRedundancy::MprSelectors),
            1 => Some(TcRedundancy::SelectorsAndMprs),
            2 => Some(TcRedundancy::AllNeighbours),
            _ => None,
        }
    }
}

impl Default for OlsrConfig {
    fn default() -> Self {
        OlsrConfig {
            etx: true,
            hello_interval: Time::from_secs(2),
            tc_interval: Time::from_secs(5),
            neighb_hold_time: Time::from_secs(6),
            top_hold_time: Time::from_secs(15),
            dup_hold_time: Time::from_secs(30),
            lq_algorithm: LqAlgorithm::EtxFf,
            lq_window: 10,
            lq_interval: Time::from_secs(1),
            max_jitter: Time::from_millis(500),
            warm_start: true,
            route_delay: Time::from_millis(50),
            control_queue_capacity: 64,
            tc_redundancy: TcRedundancy::MprSelectors,
        }
    }
}

#[cfg(test)]
mod node_tests;
