//! UDP traffic sources: constant bit rate (CBR) and saturating.
//!
//! CBR send times are computed from the packet index (`start + k * interval`) rather than
//! by adding a rounded interval repeatedly, so long runs do not drift from the offered
//! rate. A saturating source keeps its first-hop queue full: it fills the queue when it
//! starts and adds one packet each time one of its packets leaves that queue, so the
//! sender never idles and never overflows its own queue.

use airqueue_kernel::Time;

/// How a UDP source offers load.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum UdpRate {
    /// Application bit/s (payload only).
    Cbr {
        rate_bps: f64,
    },
    Saturate,
}

/// A UDP source's sending state.
#[derive(Clone, Debug)]
pub struct UdpSource {
    pub rate: UdpRate,
    pub payload_bytes: u32,
    pub start: Time,
    pub stop: Time,
    /// Next per-flow sequence number.
    pub next_seq: u64,
}

impl UdpSource {
    pub fn new(rate: UdpRate, payload_bytes: u32, start: Time, stop: Time) -> Self {
        UdpSource {
            rate,
            payload_bytes,
            start,
            stop,
            next_seq: 0,
        }
    }

    /// Whether the source may send at `now` (half-open interval [start, stop)).
    #[inline]
    pub fn active(&self, now: Time) -> bool {
        now >= self.start && now < self.stop
    }

    /// Time at which CBR packet `k` is due; `None` for saturating sources.
    #[inline]
    pub fn cbr_due(&self, k: u64) -> Option<Time> {
        match self.rate {
            UdpRate::Cbr { rate_bps } => {
                let interval_s = self.payload_bytes as f64 * 8.0 / rate_bps;
                Some(self.start + Time::from_secs_f64(k as f64 * interval_s))
            }
            UdpRate::Saturate => None,
        }
    }

    /// Takes the next sequence number.
    #[inline]
    pub fn take_seq(&mut self) -> u64 {
        let s = self.next_seq;
        self.next_seq += 1;
        s
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cbr_schedule_does_not_drift() {
        // 1000-byte packets at 3 Mb/s: 2.666.. ms apart; rounding each step would drift.
        let s = UdpSource::new(
            UdpRate::Cbr { rate_bps: 3e6 },
            1000,
            Time::from_secs(1),
            Time::from_secs(100),
        );
        assert_eq!(s.cbr_due(0), Some(Time::from_secs(1)));
        assert_eq!(s.cbr_due(375), Some(Time::from_secs(2)));
        assert_eq!(s.cbr_due(30_000), Some(Time::from_secs(81)));
    }

    #[test]
    fn active_window_is_half_open() {
        let s = UdpSource::new(
            UdpRate::Saturate,
            100,
            Time::from_secs(1),
            Time::from_secs(2),
        );
        assert!(!s.active(Time::from_millis(999)));
        assert!(s.active(Time::from_secs(1)));
        assert!(!s.active(Time::from_secs(2)));
        assert_eq!(s.cbr_due(0), None);
    }
}
