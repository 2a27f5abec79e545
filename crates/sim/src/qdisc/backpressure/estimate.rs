//! Measured link estimates of seed 002, section 4.1.1, footnote 2: `p~_l`, "one minus the
//! ratio of successfully transmitted packets over all transmitted packets during a time
//! interval T on link l", and `R~_l`, "the average of the recent (over an interval) link
//! rates over link l".
//!
//! * **What is counted** ([`super::LossCount`]): by default packets, the footnote's word
//!   and all a network layer learns from an 802.11 MAC (delivered, or dropped at the retry
//!   limit); or every frame attempt on the air (DATA, or the RTS opening an exchange), the
//!   per-transmission loss `p_l` of section 2. Internal 802.11e collisions never reach the
//!   air and do not count. Attempts are counted when the MAC reports the frame's fate.
//! * **Window**: `T` is a ring of [`BUCKETS`] buckets, so the window spans between
//!   `T (1 - 1/BUCKETS)` and `T`; integer sums let old attempts leave exactly.
//! * **A link without attempts in the window** counts as the node's links on average
//!   ([`LinkEstimates::pooled`]), or as loss-free at the configured rate when the node sent
//!   nothing. Neither its last estimate (a link that ended on a retry-limit drop would
//!   weigh 0 for ever, since nothing is sent to correct it) nor "no loss" (an idle
//!   neighbour would outweigh every busy link, whose own collisions show as loss).
//!
//! Storage is dense: a slot per node id (`u32::MAX` = no window yet) into a vector of
//! windows that grows once per neighbour ever sent to, never per event.

use crate::ids::NodeId;
use airqueue_kernel::Time;

/// Buckets of one window.
pub const BUCKETS: usize = 10;

/// Attempts, successes and the sum of the attempts' rates (units of 0.5 Mb/s).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
struct Counts {
    attempts: u64,
    successes: u64,
    half_mbps: u64,
}

impl Counts {
    fn add(&mut self, o: Counts) {
        self.attempts += o.attempts;
        self.successes += o.successes;
        self.half_mbps += o.half_mbps;
    }

    fn sub(&mut self, o: Counts) {
        self.attempts -= o.attempts;
        self.successes -= o.successes;
        self.half_mbps -= o.half_mbps;
    }
}

/// One link's sliding window.
#[derive(Clone, Debug)]
struct Window {
    buckets: [Counts; BUCKETS],
    /// Index (time / width) of the newest bucket.
    newest: u64,
    /// Sum of the buckets.
    total: Counts,
}

impl Window {
    /// Moves the window so that bucket `k` is the newest, clearing those it passes.
    fn advance(&mut self, k: u64) {
        if k <= self.newest {
            return;
        }
        let steps = (k - self.newest).min(BUCKETS as u64);
        for e in (k + 1 - steps)..=k {
            let b = &mut self.buckets[(e % BUCKETS as u64) as usize];
            self.total.sub(*b);
            *b = Counts::default();
        }
        self.newest = k;
    }
}

/// A node's estimates of its outgoing links (module doc).
#[derive(Clone, Debug)]
pub struct LinkEstimates {
    /// `T / BUCKETS`, nanoseconds (at least 1).
    width_ns: u64,
    /// Window of each neighbour id, `u32::MAX` before the first transmission to it.
    slot: Vec<u32>,
    windows: Vec<Window>,
}

impl LinkEstimates {
    /// Windows of `interval` (`T`) for the links to `node_count` nodes.
    pub fn new(interval: Time, node_count: usize) -> Self {
        LinkEstimates {
            width_ns: (interval.as_nanos() / BUCKETS as u64).max(1),
            slot: vec![u32::MAX; node_count],
            windows: Vec::new(),
        }
    }

    fn bucket(&self, now: Time) -> u64 {
        now.as_nanos() / self.width_ns
    }

    /// The start of the bucket after the one holding `now`: when the window next moves.
    pub fn next_bucket(&self, now: Time) -> Time {
        Time::from_nanos((self.bucket(now) + 1) * self.width_ns)
    }

    /// Counts at `now` a frame's `aired` attempts to `j`, of which one succeeded when
    /// `success`, sent at rates summing to `half_mbps` (units of 0.5 Mb/s).
    pub fn record(&mut self, j: NodeId, now: Time, aired: u32, success: bool, half_mbps: u32) {
        if aired == 0 || j.index() >= self.slot.len() {
            return;
        }
        let k = self.bucket(now);
        let mut s = self.slot[j.index()];
        if s == u32::MAX {
            s = self.windows.len() as u32;
            self.slot[j.index()] = s;
            self.windows.push(Window {
                buckets: [Counts::default(); BUCKETS],
                newest: k,
                total: Counts::default(),
            });
        }
        let w = &mut self.windows[s as usize];
        w.advance(k);
        let c = Counts {
            attempts: aired as u64,
            successes: success as u64,
            half_mbps: half_mbps as u64,
        };
        w.buckets[(k % BUCKETS as u64) as usize].add(c);
        w.total.add(c);
    }

    /// `(p~, R~ in bit/s)` of the link to `j` over the window ending at `now`; `None`
    /// when nothing was sent to `j` in it.
    pub fn estimate(&mut self, j: NodeId, now: Time) -> Option<(f64, f64)> {
        let k = self.bucket(now);
        let s = *self.slot.get(j.index())?;
        let w = self.windows.get_mut(s as usize)?;
        w.advance(k);
        let t = w.total;
        if t.attempts == 0 {
            return None;
        }
        let loss = 1.0 - t.successes as f64 / t.attempts as f64;
        let rate = t.half_mbps as f64 * 500_000.0 / t.attempts as f64;
        Some((loss, rate))
    }

    /// `(p~, R~)` over every link's attempts in the window ending at `now`, `None`
    /// without any: what a link without attempts of its own stands for.
    pub fn pooled(&mut self, now: Time) -> Option<(f64, f64)> {
        let k = self.bucket(now);
        let mut t = Counts::default();
        for w in &mut self.windows {
            w.advance(k);
            t.add(w.total);
        }
        if t.attempts == 0 {
            return None;
        }
        let loss = 1.0 - t.successes as f64 / t.attempts as f64;
        let rate = t.half_mbps as f64 * 500_000.0 / t.attempts as f64;
        Some((loss, rate))
    }

    /// Attempts to `j` in the window ending at `now` (tests and diagnostics).
    pub fn attempts(&mut self, j: NodeId, now: Time) -> u64 {
        let k = self.bucket(now);
        match self.slot.get(j.index()) {
            Some(&s) if s != u32::MAX => {
                let w = &mut self.windows[s as usize];
                w.advance(k);
                w.total.attempts
            }
            _ => 0,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const J: NodeId = NodeId(3);
    /// 2 Mb/s in units of 0.5 Mb/s.
    const R2: u32 = 4;

    fn est() -> LinkEstimates {
        LinkEstimates::new(Time::from_secs(1), 8)
    }

    fn ms(x: u64) -> Time {
        Time::from_millis(x)
    }

    #[test]
    fn no_transmission_no_estimate() {
        let mut e = est();
        assert_eq!(e.estimate(J, ms(500)), None);
        e.record(J, ms(10), 1, true, R2);
        assert_eq!(e.estimate(NodeId(4), ms(20)), None);
        // Out-of-range neighbours are ignored, not a panic.
        e.record(NodeId(99), ms(10), 1, true, R2);
        assert_eq!(e.estimate(NodeId(99), ms(20)), None);
    }

    #[test]
    fn retries_count_as_transmissions() {
        let mut e = est();
        // One frame through on its third attempt, one given up after 7.
        e.record(J, ms(10), 3, true, 3 * R2);
        e.record(J, ms(20), 7, false, 7 * R2);
        let (p, r) = e.estimate(J, ms(30)).unwrap();
        assert!((p - 9.0 / 10.0).abs() < 1e-12, "p~ = {p}");
        assert_eq!(r, 2e6);
        // Ten first-attempt successes: 11 of 20 attempts succeeded.
        for i in 0..10 {
            e.record(J, ms(40 + i), 1, true, R2);
        }
        let (p, _) = e.estimate(J, ms(60)).unwrap();
        assert!((p - 9.0 / 20.0).abs() < 1e-12, "p~ = {p}");
    }

    #[test]
    fn mean_rate_of_the_attempts() {
        let mut e = est();
        e.record(J, ms(10), 1, true, 22); // 11 Mb/s
        e.record(J, ms(10), 1, true, 2); // 1 Mb/s
        assert_eq!(e.estimate(J, ms(10)).unwrap().1, 6e6);
    }

    #[test]
    fn window_slides_and_forgets() {
        let mut e = est();
        e.record(J, ms(50), 4, false, 4 * R2); // bucket 0
        e.record(J, ms(550), 1, true, R2); // bucket 5
        assert_eq!(e.attempts(J, ms(999)), 5);
        // At 1.0 s bucket 0 leaves the window (it spans buckets 1-10).
        assert_eq!(e.attempts(J, ms(1000)), 1);
        assert_eq!(e.estimate(J, ms(1000)).unwrap().0, 0.0);
        // At 1.5 s bucket 5 leaves too: no evidence left.
        assert_eq!(e.estimate(J, ms(1499)).map(|x| x.0), Some(0.0));
        assert_eq!(e.estimate(J, ms(1500)), None);
        // Long silence, then new attempts only.
        e.record(J, ms(60_000), 2, true, 2 * R2);
        let (p, _) = e.estimate(J, ms(60_000)).unwrap();
        assert_eq!(p, 0.5);
        assert_eq!(e.attempts(J, ms(60_000)), 2);
    }

    #[test]
    fn the_window_moves_at_bucket_boundaries() {
        let e = est();
        assert_eq!(e.next_bucket(ms(0)), ms(100));
        assert_eq!(e.next_bucket(ms(250)), ms(300));
    }

    #[test]
    fn pooled_over_every_link() {
        let mut e = est();
        assert_eq!(e.pooled(ms(0)), None);
        e.record(J, ms(10), 4, true, 4 * R2); // 1 of 4
        e.record(NodeId(5), ms(10), 4, true, 4 * 22); // 1 of 4 at 11 Mb/s
        e.record(NodeId(5), ms(10), 2, true, 2 * 22); // 1 of 2
        let (p, r) = e.pooled(ms(20)).unwrap();
        assert!((p - 7.0 / 10.0).abs() < 1e-12, "p~ = {p}");
        assert!((r - (4.0 * 2e6 + 6.0 * 11e6) / 10.0).abs() < 1e-6);
        assert_eq!(e.pooled(ms(1100)), None, "forgotten with the window");
    }

    #[test]
    fn links_are_independent() {
        let mut e = est();
        e.record(J, ms(10), 2, false, 2 * R2);
        e.record(NodeId(5), ms(10), 1, true, R2);
        assert_eq!(e.estimate(J, ms(20)).unwrap().0, 1.0);
        assert_eq!(e.estimate(NodeId(5), ms(20)).unwrap().0, 0.0);
    }
}
