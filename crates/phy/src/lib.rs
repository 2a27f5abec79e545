//! Pure 802.11b physical-layer building blocks for airqueue: power [`units`], large-scale
//! [`propagation`] with range-derived thresholds, [`dsss`] frame timing and MAC timing
//! constants, and [`edca`] priority-level parameter tables. No event loop, no state.

pub mod access;
pub mod dsss;
pub mod edca;
pub mod propagation;
pub mod units;

pub use dsss::{frame_duration, DsssRate, Preamble};
pub use edca::{EdcaError, EdcaLevel};
pub use propagation::{threshold_for_range, Propagation, PropagationError};
pub use units::{Db, Dbm, MilliWatts};
