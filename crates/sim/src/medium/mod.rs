//! Media that carry frames between nodes: the shared 802.11 channel and point-to-point
//! wired links. A world has either, or both (an access point with wired hosts).

pub mod port;
pub mod wifi;
pub mod wired;

pub use port::Dequeued;

use crate::ids::NodeId;

/// The configured frame loss of the directed radio link `from -> to` in `pairs` (`[[link]]
/// loss` as (from, to, probability)): the last entry for the pair, 0 if none.
pub fn configured_loss(pairs: &[(NodeId, NodeId, f64)], from: NodeId, to: NodeId) -> f64 {
    (pairs.iter().rev())
        .find(|&&(a, b, _)| a == from && b == to)
        .map_or(0.0, |l| l.2)
}
pub use wired::{LinkStats, WiredLink, WiredNet};
