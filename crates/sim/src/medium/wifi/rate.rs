//! Per-destination data-rate choice: constant (with per-destination overrides set by
//! scheduled rate changes, [`super::config::RateChange`]), or Adaptive ARF.
//!
//! AARF (Lacage, Manshaei, Turletti, "IEEE 802.11 rate adaptation: a practical approach",
//! MSWiM 2004, section 4.1): like ARF, move up one rate after `success_threshold`
//! consecutive successes and down one after two consecutive failures; when the first
//! frame after a move up fails ("probe" failure), go back down and double the success
//! threshold (up to 50), so a link whose higher rate keeps failing is probed less and
//! less often. Any move down resets the threshold to 10.

use crate::ids::NodeId;
use airqueue_phy::DsssRate;

const MIN_SUCCESS_THRESHOLD: u32 = 10;
const MAX_SUCCESS_THRESHOLD: u32 = 50;

/// AARF state towards one destination.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Aarf {
    index: usize,
    successes: u32,
    failures: u32,
    success_threshold: u32,
    /// The last move was up and no frame has been sent at the new rate yet.
    probing: bool,
}

impl Aarf {
    pub fn new(start: DsssRate) -> Self {
        let index = DsssRate::ALL.iter().position(|r| *r == start).unwrap_or(0);
        Aarf {
            index,
            successes: 0,
            failures: 0,
            success_threshold: MIN_SUCCESS_THRESHOLD,
            probing: false,
        }
    }

    pub fn rate(&self) -> DsssRate {
        DsssRate::ALL[self.index]
    }

    /// An attempt at the current rate was acknowledged.
    pub fn on_success(&mut self) {
        self.probing = false;
        self.failures = 0;
        self.successes += 1;
        if self.successes >= self.success_threshold && self.index + 1 < DsssRate::ALL.len() {
            self.index += 1;
            self.successes = 0;
            self.probing = true;
        }
    }

    /// An attempt at the current rate got no acknowledgement.
    pub fn on_failure(&mut self) {
        self.successes = 0;
        if self.probing {
            // The probe at the higher rate failed: back down, probe less often.
            self.probing = false;
            self.index = self.index.saturating_sub(1);
            self.success_threshold = (self.success_threshold * 2).min(MAX_SUCCESS_THRESHOLD);
            self.failures = 0;
            return;
        }
        self.failures += 1;
        if self.failures >= 2 {
            self.index = self.index.saturating_sub(1);
            self.success_threshold = MIN_SUCCESS_THRESHOLD;
            self.failures = 0;
        }
    }
}

/// A station's rate choice for every destination it has sent to.
#[derive(Clone, Debug)]
pub enum RateTable {
    /// `rate` to every destination except those in `overrides`, sorted by node id (set
    /// only by scheduled rate changes, so looked up by binary search without allocating).
    Constant {
        rate: DsssRate,
        overrides: Vec<(NodeId, DsssRate)>,
    },
    /// Small list keyed by destination: a station talks to a handful of neighbours.
    Aarf {
        start: DsssRate,
        peers: Vec<(NodeId, Aarf)>,
    },
}

impl RateTable {
    pub fn constant(rate: DsssRate) -> Self {
        RateTable::Constant {
            rate,
            overrides: Vec::new(),
        }
    }

    fn peer(&mut self, dst: NodeId) -> Option<&mut Aarf> {
        match self {
            RateTable::Constant { .. } => None,
            RateTable::Aarf { start, peers } => {
                let i = match peers.iter().position(|(n, _)| *n == dst) {
                    Some(i) => i,
                    None => {
                        peers.push((dst, Aarf::new(*start)));
                        peers.len() - 1
                    }
                };
                Some(&mut peers[i].1)
            }
        }
    }

    /// Rate for the next data frame to `dst`.
    pub fn rate_for(&mut self, dst: NodeId) -> DsssRate {
        match self {
            RateTable::Constant { .. } => self.current(dst),
            _ => self.peer(dst).map_or(DsssRate::Mbps1, |a| a.rate()),
        }
    }

    /// The rate the next data frame to `dst` would use, without creating AARF state.
    pub fn current(&self, dst: NodeId) -> DsssRate {
        match self {
            RateTable::Constant { rate, overrides } => overrides
                .binary_search_by_key(&dst, |o| o.0)
                .map_or(*rate, |i| overrides[i].1),
            RateTable::Aarf { start, peers } => peers
                .iter()
                .find(|(n, _)| *n == dst)
                .map_or(*start, |(_, a)| a.rate()),
        }
    }

    /// From now on, data frames to `dst` go at `rate`. Under AARF the adaptation towards
    /// `dst` restarts at `rate` (success count and probing threshold reset), which is
    /// what a scheduled change can mean for a rate the MAC chooses itself.
    pub fn set_rate(&mut self, dst: NodeId, rate: DsssRate) {
        match self {
            RateTable::Constant { overrides, .. } => {
                match overrides.binary_search_by_key(&dst, |o| o.0) {
                    Ok(i) => overrides[i].1 = rate,
                    Err(i) => overrides.insert(i, (dst, rate)),
                }
            }
            RateTable::Aarf { .. } => {
                if let Some(a) = self.peer(dst) {
                    *a = Aarf::new(rate);
                }
            }
        }
    }

    pub fn report(&mut self, dst: NodeId, success: bool) {
        if let Some(a) = self.peer(dst) {
            if success {
                a.on_success()
            } else {
                a.on_failure()
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn constant_overrides_apply_per_destination_and_the_last_wins() {
        let mut t = RateTable::constant(DsssRate::Mbps11);
        t.set_rate(NodeId(7), DsssRate::Mbps2);
        t.set_rate(NodeId(3), DsssRate::Mbps5_5);
        assert_eq!(t.rate_for(NodeId(7)), DsssRate::Mbps2);
        assert_eq!(t.rate_for(NodeId(3)), DsssRate::Mbps5_5);
        assert_eq!(t.rate_for(NodeId(4)), DsssRate::Mbps11);
        t.set_rate(NodeId(7), DsssRate::Mbps1);
        assert_eq!(t.current(NodeId(7)), DsssRate::Mbps1);
        assert!(matches!(&t, RateTable::Constant { overrides, .. } if overrides.len() == 2));
    }

    #[test]
    fn aarf_restarts_at_a_set_rate() {
        let mut t = RateTable::Aarf {
            start: DsssRate::Mbps11,
            peers: Vec::new(),
        };
        assert_eq!(t.current(NodeId(1)), DsssRate::Mbps11);
        t.set_rate(NodeId(1), DsssRate::Mbps2);
        assert_eq!(t.rate_for(NodeId(1)), DsssRate::Mbps2);
        // Ten successes climb one step from there, as from any AARF start.
        for _ in 0..10 {
            t.report(NodeId(1), true);
        }
        assert_eq!(t.rate_for(NodeId(1)), DsssRate::Mbps5_5);
    }

    #[test]
    fn climbs_after_ten_successes_each_step() {
        let mut a = Aarf::new(DsssRate::Mbps1);
        for _ in 0..30 {
            a.on_success();
        }
        assert_eq!(a.rate(), DsssRate::Mbps11);
    }

    #[test]
    fn two_failures_step_down() {
        let mut a = Aarf::new(DsssRate::Mbps11);
        a.on_failure();
        assert_eq!(a.rate(), DsssRate::Mbps11);
        a.on_failure();
        assert_eq!(a.rate(), DsssRate::Mbps5_5);
    }

    #[test]
    fn failed_probe_goes_back_and_doubles_threshold() {
        let mut a = Aarf::new(DsssRate::Mbps5_5);
        for _ in 0..10 {
            a.on_success();
        }
        assert_eq!(a.rate(), DsssRate::Mbps11);
        a.on_failure(); // probe fails
        assert_eq!(a.rate(), DsssRate::Mbps5_5);
        for _ in 0..19 {
            a.on_success();
        }
        assert_eq!(a.rate(), DsssRate::Mbps5_5, "threshold is now 20");
        a.on_success();
        assert_eq!(a.rate(), DsssRate::Mbps11);
    }
}
