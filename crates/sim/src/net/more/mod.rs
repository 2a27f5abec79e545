//! MORE: opportunistic routing with intra-flow network coding (Chachulski, Jennings,
//! Katti, Katabi, SIGCOMM 2007), the multi-path protocol seed 000 runs under DiffQ
//! (sections 2, 4.2 and 6.2).
//!
//! One job per module: GF(2^8) arithmetic (`gf256`), a node's knowledge of a batch
//! (`basis`), headers and the code-vector arena (`wire`), forwarder selection and TX
//! credits (`credits`), the source, forwarder and destination state machines
//! (`state`), and the flows at every node behind the world's network-layer scheme
//! extension point (`scheme`: [`MoreNet`], a `net::scheme::NetScheme`).

pub mod basis;
pub mod credits;
pub mod gf256;
pub mod scheme;
pub mod state;
pub mod wire;

pub use basis::{Basis, Coeffs, MAX_BATCH};
pub use credits::{plan, MorePlan, PlannedForwarder};
pub use scheme::MoreNet;
pub use state::{DestinationArrival, ForwarderArrival, MoreDestination, MoreForwarder, MoreSource};
pub use wire::{CoeffArena, CoeffHandle, MoreAck, MoreData};

/// A MORE flow as the core sees it.
#[derive(Clone, Debug, PartialEq)]
pub struct MoreFlowConfig {
    /// Batch size K (MORE: 32), at most [`MAX_BATCH`].
    pub batch: u8,
    /// Forwarders and TX credits ([`plan`]).
    pub plan: MorePlan,
}

/// What a MORE flow did over a run.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct MoreFlowStats {
    /// Batches the destination decoded (goodput = batches x K x packet size).
    pub batches_decoded: u64,
    /// Coded packets the source broadcast.
    pub source_sent: u64,
    /// Coded packets the forwarders broadcast.
    pub forwarder_sent: u64,
    /// Receptions at forwarders that were innovative / not (older batch included).
    pub forwarder_innovative: u64,
    pub forwarder_redundant: u64,
    /// Receptions at the destination that were innovative / not (decoded batches
    /// included).
    pub destination_innovative: u64,
    pub destination_redundant: u64,
    /// Queued transmissions a forwarder had nothing to fill with when the MAC took them
    /// (its batch was flushed meanwhile); dropped as `coding_redundancy`.
    pub stale_credits: u64,
    /// Batch ACKs the destination sent (one per decoded batch) and the source received.
    pub acks_sent: u64,
    pub acks_received: u64,
    /// The flow's forwarders with their TX credits.
    pub forwarders: Vec<(crate::ids::NodeId, f64)>,
}
