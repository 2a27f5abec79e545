//! The 802.11 medium: a shared [`channel::Channel`] with SINR reception and per-station
//! MACs that pull frames from their node's queue discipline: DCF/EDCA
//! ([`mac::WifiNet`]) or a fixed TDMA schedule ([`tdma::TdmaNet`]), both behind
//! [`mac_port::Mac`].

pub mod channel;
pub mod config;
pub mod frame;
pub mod mac;
pub mod mac_port;
pub mod rate;
pub mod tdma;

pub use config::{
    Access, Fading, LateCapture, NodeMove, RateChange, RateControl, SensedFrames, WifiConfig,
};
pub use frame::BROADCAST;
pub use mac::{LevelStats, MacStats, TxStatus, WifiEvent, WifiNet, WifiOutput, STATS_LEVELS};
pub use mac_port::Mac;
pub use tdma::TdmaNet;
