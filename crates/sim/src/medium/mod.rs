//! Media that carry frames between nodes. Only the wired stand-in exists so far; the
//! 802.11 channel joins it as another variant.

pub mod wifi;
pub mod wired;

pub use wired::{LinkStats, WiredLink, WiredNet};
