//! CUBIC's window (RFC 9438), the congestion control of Linux from 2.6.19 on: after a
//! congestion event the window follows `W_cubic(t) = C (t - K)^3 + W_max` in the time
//! `t` since the congestion-avoidance stage began, never below the window a Reno flow
//! would have by then (the Reno-friendly region, 4.3). Windows are in segments and
//! times in seconds, the units of the RFC's constants. Slow start and loss recovery
//! are the sender's (RFC 5681, RFC 6675); this module decides the decrease (4.6, 4.8)
//! and the growth in congestion avoidance (4.2-4.5).

use airqueue_kernel::Time;

/// RFC 9438 (4.6): the multiplicative decrease factor.
pub const BETA: f64 = 0.7;
/// RFC 9438 (5.1): the aggressiveness of the cubic curve, segments per second cubed.
pub const C: f64 = 0.4;
/// RFC 9438 (4.3): the Reno-friendly region's additive increase, 3 (1 - beta) / (1 +
/// beta) segments per RTT, so that it matches Reno's rate at its own decrease.
pub const ALPHA: f64 = 3.0 * (1.0 - BETA) / (1.0 + BETA);

/// One congestion-avoidance stage: its start and curve.
#[derive(Clone, Copy, Debug, PartialEq)]
struct Epoch {
    /// t_epoch (4.2): when the stage began.
    start: Time,
    /// K (4.2), seconds: when the curve reaches `w_max` again.
    k_s: f64,
    /// The curve's plateau: W_max, or the window at the stage's start after a timeout.
    w_max: f64,
    /// W_est (4.3): the window a Reno flow would have now.
    w_est: f64,
}

/// CUBIC's state between congestion events.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Cubic {
    /// W_max (4.6): the window just before the last decrease (lowered by fast
    /// convergence); 0 before the first.
    w_max: f64,
    /// cwnd_prior (4.6): the window just before the last decrease.
    cwnd_prior: f64,
    /// The current congestion-avoidance stage; `None` until its first ACK.
    epoch: Option<Epoch>,
    /// The last decrease was a timeout: the next stage's curve is flat at its start (4.8).
    after_timeout: bool,
}

impl Cubic {
    /// RFC 9438 (4.6, 4.7): a congestion event (fast retransmit, SACK recovery, ECE) with
    /// window `cwnd`; returns the new ssthresh, `cwnd * beta` and at least 2 segments, as
    /// Linux computes it from cwnd. Fast convergence: an event below the last W_max
    /// lowers the new W_max to `cwnd (1 + beta) / 2`, yielding to newer flows.
    pub fn on_congestion(&mut self, cwnd: f64) -> f64 {
        self.cwnd_prior = cwnd;
        self.w_max = if cwnd < self.w_max {
            cwnd * (1.0 + BETA) / 2.0
        } else {
            cwnd
        };
        self.epoch = None;
        self.after_timeout = false;
        (cwnd * BETA).max(2.0)
    }

    /// RFC 9438 (4.8): a retransmission timeout. ssthresh as for any congestion event
    /// (the caller keeps RFC 5681's loss window of one segment); the first stage after
    /// it starts its curve at its own window with K = 0.
    pub fn on_timeout(&mut self, cwnd: f64) -> f64 {
        let ssthresh = self.on_congestion(cwnd);
        self.after_timeout = true;
        ssthresh
    }

    /// RFC 9438 (4.2-4.5): the window after an ACK of `acked` new segments in
    /// congestion avoidance at `now`, from window `cwnd` and the smoothed RTT `srtt`.
    /// The target is `W_cubic(t + RTT)`, kept within `[cwnd, 1.5 cwnd]` (4.2), and cwnd
    /// moves `(target - cwnd) / cwnd` towards it per segment acknowledged (as Linux counts
    /// its increase in segments, so delayed ACKs do not slow it); the Reno-friendly
    /// estimate wins where it is larger (4.3).
    pub fn grow(&mut self, cwnd: f64, acked: u32, now: Time, srtt: Time) -> f64 {
        let (w_max, after_timeout) = (self.w_max, self.after_timeout);
        let e = self.epoch.get_or_insert_with(|| {
            // A stage that starts at or above W_max (the first, or after a timeout)
            // has its plateau where it starts.
            let (plateau, k_s) = if after_timeout || cwnd >= w_max {
                (cwnd, 0.0)
            } else {
                (w_max, ((w_max - cwnd) / C).cbrt())
            };
            Epoch {
                start: now,
                k_s,
                w_max: plateau,
                w_est: cwnd,
            }
        });
        self.after_timeout = false;
        let curve = |t: f64| C * (t - e.k_s).powi(3) + e.w_max;
        let t = now.saturating_sub(e.start).as_secs_f64();
        let acked = acked as f64;
        let alpha = if e.w_est >= self.cwnd_prior {
            1.0
        } else {
            ALPHA
        };
        e.w_est += alpha * acked / cwnd;
        if curve(t) < e.w_est {
            // The Reno-friendly window; an ACK never shrinks the window (near the
            // plateau cwnd may already be past W_est, aiming one RTT ahead).
            return e.w_est.max(cwnd);
        }
        let target = curve(t + srtt.as_secs_f64()).clamp(cwnd, 1.5 * cwnd);
        cwnd + (target - cwnd) / cwnd * acked
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const RTT: Time = Time::from_millis(100);

    /// Runs `rtts` round trips of one ACK per segment of the window from `cwnd`; no ACK
    /// shrinks the window.
    fn run(c: &mut Cubic, mut cwnd: f64, from: Time, rtts: u32) -> (f64, Time) {
        let mut now = from;
        for _ in 0..rtts {
            let n = cwnd.floor().max(1.0) as u32;
            for _ in 0..n {
                let next = c.grow(cwnd, 1, now, RTT);
                assert!(next >= cwnd, "an ACK took the window from {cwnd} to {next}");
                cwnd = next;
            }
            now = now.saturating_add(RTT);
        }
        (cwnd, now)
    }

    #[test]
    fn decrease_is_beta_with_fast_convergence_below_the_last_maximum() {
        let mut c = Cubic::default();
        assert_eq!(c.on_congestion(100.0), 70.0);
        assert_eq!(c.w_max, 100.0);
        // A second event below W_max: W_max = 80 (1 + 0.7) / 2 = 68.
        assert_eq!(c.on_congestion(80.0), 56.0);
        assert!((c.w_max - 68.0).abs() < 1e-12);
        assert_eq!(c.on_congestion(2.0), 2.0, "never below 2 segments");
    }

    #[test]
    fn the_window_returns_to_w_max_after_k_seconds_and_then_probes_beyond() {
        // A large window, where the cubic curve is above the Reno-friendly estimate.
        let mut c = Cubic::default();
        let ss = c.on_congestion(1000.0);
        let k = ((1000.0 - ss) / C).cbrt();
        let rtts = (k / RTT.as_secs_f64()).round() as u32;
        let (w, now) = run(&mut c, ss, Time::ZERO, rtts);
        // Growth aims at W_cubic one RTT ahead, so at K it sits near the plateau.
        assert!((w - 1000.0).abs() < 5.0, "window at K {w}");
        let (w2, _) = run(&mut c, w, now, 20);
        let expect = C * (2.0f64 + RTT.as_secs_f64()).powi(3) + 1000.0;
        assert!(
            w2 > 1000.0 + 1.0 && w2 <= expect + 1.0,
            "convex region {w2}"
        );
    }

    #[test]
    fn small_windows_grow_in_the_reno_friendly_region() {
        // At 10 segments and 100 ms the curve needs K = 1.9 s to climb 3 segments; the
        // Reno-friendly estimate grows alpha = 0.53 segments per RTT before that.
        let mut c = Cubic::default();
        let ss = c.on_congestion(10.0);
        let (w, _) = run(&mut c, ss, Time::ZERO, 4);
        let reno = ss + 4.0 * ALPHA;
        assert!((w - reno).abs() < 0.2, "window {w} against {reno}");
    }

    #[test]
    fn the_reno_friendly_estimate_takes_over_from_the_curve_without_a_dip() {
        // At 30 segments the Reno-friendly estimate overtakes the flattening curve
        // before K (2.8 s), while cwnd aims one RTT ahead of the curve: `run` checks
        // that no ACK of the hand-over shrinks the window.
        let mut c = Cubic::default();
        let ss = c.on_congestion(30.0);
        let (w, _) = run(&mut c, ss, Time::ZERO, 60);
        assert!(w > 30.0, "window {w}");
    }

    #[test]
    fn after_a_timeout_the_curve_starts_flat_at_the_stage_window() {
        let mut c = Cubic::default();
        assert_eq!(c.on_timeout(40.0), 28.0);
        // Slow start ends at ssthresh; the stage's curve has K = 0 there.
        let w = c.grow(28.0, 1, Time::from_secs(1), RTT);
        let e = c.epoch.expect("stage started");
        assert_eq!((e.k_s, e.w_max), (0.0, 28.0));
        assert!((28.0..28.1).contains(&w), "window {w}");
    }
}
