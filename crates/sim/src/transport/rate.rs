//! Source rate controllers: what paces a flow's packets from what its source sees
//! locally (its own queue for the flow, whether it could use its rate). The world asks
//! for an update per packet sent or every period ([`RateUpdate`]) and spaces packets at
//! the rate it gets back. DiffQ's source rate control and backpressure's flow control for
//! non-TCP flows (`diffq.rs`) implement it.

use super::diffq::RateUpdate;
use airqueue_kernel::Time;
use std::fmt::Debug;

/// A source rate controller (bit/s of application payload).
pub trait RateController: Debug + Send {
    /// The current rate.
    fn rate_bps(&self) -> f64;

    /// When the world updates it: as each packet is sent, or every period.
    fn update_clock(&self) -> RateUpdate;

    /// One update on the length of the source's queue for the flow
    /// (`source_queue_pkts`); `may_rise` is false when the source had data its window kept
    /// back since the last update. Returns the new rate.
    fn on_update(&mut self, source_queue_pkts: usize, may_rise: bool) -> f64;

    /// One update on everything the source sees locally ([`SourceView`]); by default
    /// [`RateController::on_update`] on its queue and `may_rise`. Controllers that read
    /// more (the Python ones of `crates/py`) override it.
    fn on_update_seen(&mut self, seen: &SourceView) -> f64 {
        self.on_update(seen.queue_pkts, seen.may_rise)
    }

    /// Updates made and how many lowered the rate, for the run's outcome.
    fn counts(&self) -> (u64, u64) {
        (0, 0)
    }

    /// Time between two packets of `payload_bytes` at the current rate, capped by
    /// `cap_bps` (an application that offers less), never zero.
    fn interval(&self, payload_bytes: u32, cap_bps: Option<f64>) -> Time {
        let rate = self.rate_bps();
        let rate = cap_bps.map_or(rate, |c| rate.min(c.max(1.0)));
        let t = Time::from_secs_f64(payload_bytes.max(1) as f64 * 8.0 / rate);
        t.max(Time::from_nanos(1))
    }
}

/// What a source sees locally when its controller updates.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct SourceView {
    pub now: Time,
    /// The source's queue for the flow (the destination's queue of the source's
    /// discipline; a FIFO's whole length).
    pub queue_pkts: usize,
    /// False when the source had data its window kept back since the last update.
    pub may_rise: bool,
    /// Packets the source has put on the network so far (retransmissions included).
    pub sent_pkts: u64,
    /// Where the transport has feedback (TCP): segments cumulatively acknowledged so far.
    pub acked_pkts: Option<u64>,
}

/// A controller's state at the end of a run.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct RateSummary {
    pub rate_bps: f64,
    pub updates: u64,
    pub decreases: u64,
}

impl RateSummary {
    pub fn of(c: &dyn RateController) -> Self {
        let (updates, decreases) = c.counts();
        RateSummary {
            rate_bps: c.rate_bps(),
            updates,
            decreases,
        }
    }
}
