//! Analytic reference models the MAC is validated against: [`bianchi`] saturation
//! throughput of n DCF stations, single-sender [`airtime`] budgets, and [`fairness`]
//! summaries. Closed forms and small fixed points only; no simulation.

pub mod airtime;
pub mod bianchi;
pub mod fairness;

pub use airtime::{Link, TcpExchange};
pub use bianchi::{
    Access, Backoff, BianchiError, CollisionRecovery, DsssSaturation, RetryLimit, Saturation,
    SlotDurations,
};
pub use fairness::{jain_index, log_utility, log_utility_floored};
