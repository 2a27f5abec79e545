//! The 802.11 medium: a shared [`channel::Channel`] with SINR reception and per-station
//! DCF/EDCA MACs ([`mac::WifiNet`]) that pull frames from their node's queue discipline.

pub mod channel;
pub mod config;
pub mod frame;
pub mod mac;
pub mod rate;

pub use config::{Fading, LateCapture, RateChange, RateControl, SensedFrames, WifiConfig};
pub use frame::BROADCAST;
pub use mac::{LevelStats, MacStats, TxStatus, WifiEvent, WifiNet, WifiOutput, STATS_LEVELS};
