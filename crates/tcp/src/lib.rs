//! TCP as pure, event-loop-free state machines: a [`TcpSender`] (NewReno, SACK, CUBIC, Vegas,
//! FeW; ECN) and a [`TcpReceiver`] (cumulative ACK, SACK blocks, delayed ACK, ECN echo).
//!
//! Both machines are plain structs that never call outward (smoltcp style): each input is
//! a method call with the current time, e.g. [`TcpSender::on_ack`]`(ack, now, out)`, and
//! the outputs go to an [`Outbox`] the caller drains: segments, and the state of the
//! machine's single timer ([`TimerCmd::Arm`] or [`TimerCmd::Cancel`]; a stale expiry is
//! harmless, the machines check their deadline). Nothing allocates per segment once the
//! outbox has grown to the window.
//!
//! ```
//! use airqueue_kernel::Time;
//! use airqueue_tcp::{Outbox, ReceiverConfig, SenderConfig, TcpReceiver, TcpSender, Variant};
//!
//! let mut tx = TcpSender::new(SenderConfig::new(Variant::Sack));
//! let mut rx = TcpReceiver::new(ReceiverConfig::default());
//! let (mut data, mut acks) = (Outbox::new(), Outbox::new());
//! tx.poll_send(Time::ZERO, &mut data); // the initial window, and TimerCmd::Arm(1 s)
//! let t = Time::from_millis(50);
//! for seg in data.items.drain(..) {
//!     rx.on_data(&seg, t, &mut acks); // returns segments delivered in order
//! }
//! for ack in acks.items.drain(..) {
//!     tx.on_ack(&ack, t, &mut data);
//! }
//! assert_eq!(rx.delivered(), 3);
//! assert_eq!(tx.snd_una(), 3);
//! assert_eq!(data.items.len(), 6); // slow start: two segments per ACK
//! ```
//!
//! Like ns-2's TCP agents, sequence numbers count **whole segments**, not bytes: ACKs,
//! SACK blocks (half-open `[start, end)`) and every window (`cwnd` as an `f64`,
//! `ssthresh`, FlightSize, pipe) are in packets, so an RFC rule in "`x` * SMSS bytes" is
//! applied as "`x` packets". Numbers are `u32` and do not wrap within a flow, so plain
//! comparisons replace modular ones.
//!
//! Modules: [`wire`] (headers and sizes), [`rto`] (RFC 6298), [`scoreboard`] (send times,
//! SACKed bits), [`sender`], [`cubic`] (RFC 9438's window), [`receiver`], [`tfrc`] (RFC
//! 5348 and TFRC-ECN).

pub mod cubic;
pub mod receiver;
pub mod rto;
pub mod scoreboard;
pub mod sender;
pub mod tfrc;
pub mod wire;

#[cfg(test)]
mod testnet;

pub use receiver::{ReceiverConfig, ReceiverStats, TcpReceiver};
pub use rto::{RtoConfig, RtoEstimator};
pub use sender::{
    rfc5681_initial_window, AppData, Phase, SenderConfig, SenderStats, TcpSender, Variant,
};
pub use tfrc::{
    CongestionSignal, TfrcData, TfrcFeedback, TfrcReceiver, TfrcReceiverConfig, TfrcReceiverStats,
    TfrcSender, TfrcSenderConfig, TfrcSenderStats,
};
pub use wire::{SackBlocks, TcpAck, TcpData};

use airqueue_kernel::Time;

/// What a machine wants done with its (single) timer. The last command written wins.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TimerCmd {
    /// (Re)start the timer so that it expires at this instant.
    Arm(Time),
    /// Stop the timer.
    Cancel,
}

/// Where a machine pushes its outputs. The caller drains `items` and applies `timer`
/// after every call, then calls [`Outbox::clear`] (which keeps the capacity).
#[derive(Clone, Debug)]
pub struct Outbox<T> {
    /// Packets to hand to the network layer, in order.
    pub items: Vec<T>,
    /// The timer command, if the call changed the timer.
    pub timer: Option<TimerCmd>,
}

impl<T> Default for Outbox<T> {
    fn default() -> Self {
        Outbox::new()
    }
}

impl<T> Outbox<T> {
    pub fn new() -> Self {
        Outbox {
            items: Vec::new(),
            timer: None,
        }
    }
    pub fn with_capacity(n: usize) -> Self {
        Outbox {
            items: Vec::with_capacity(n),
            timer: None,
        }
    }
    /// Forgets the items and the timer command, keeping the allocation.
    pub fn clear(&mut self) {
        self.items.clear();
        self.timer = None;
    }
}
