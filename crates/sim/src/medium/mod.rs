//! Media that carry frames between nodes: the shared 802.11 channel and point-to-point
//! wired links. A world has either, or both (an access point with wired hosts).

pub mod port;
pub mod wifi;
pub mod wired;

pub use port::Dequeued;
pub use wired::{LinkStats, WiredLink, WiredNet};
