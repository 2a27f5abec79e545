//! MORE: opportunistic routing with intra-flow network coding (Chachulski, Jennings,
//! Katti, Katabi, SIGCOMM 2007), the multi-path protocol seed 000 runs under DiffQ
//! (sections 2, 4.2 and 6.2).
//!
//! One job per module: GF(2^8) arithmetic (`gf256`), a node's knowledge of a batch
//! (`basis`), headers and the code-vector arena (`wire`), forwarder selection and TX
//! credits (`credits`), and the source, forwarder and destination state machines
//! (`state`). The world's glue is `world/more.rs`.

pub mod basis;
pub mod credits;
pub mod gf256;
pub mod state;
pub mod wire;

pub use basis::{Basis, Coeffs, MAX_BATCH};
pub use credits::{plan, MorePlan, PlannedForwarder};
pub use state::{DestinationArrival, ForwarderArrival, MoreDestination, MoreForwarder, MoreSource};
pub use wire::{CoeffArena, CoeffHandle, MoreAck, MoreData};
