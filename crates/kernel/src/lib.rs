//! The discrete-event kernel of airqueue: [`Time`] in integer nanoseconds, an
//! [`EventQueue`] with a total `(time, seq)` order, cheap re-armable [`Timers`], and
//! [`RngStream`]s keyed by stable identities. It knows nothing about networks.

pub mod queue;
pub mod rng;
pub mod time;
pub mod timer;

pub use queue::{EventQueue, InThePast};
pub use rng::{RngStream, StreamKey};
pub use time::Time;
pub use timer::{TimerEvent, TimerId, Timers};
