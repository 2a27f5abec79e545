//! The RFC 6298 retransmission-timeout estimator: SRTT, RTTVAR, RTO with clamping and
//! exponential backoff. Integer nanoseconds throughout (no `f64` seconds in the core).

use airqueue_kernel::Time;

/// RFC 6298 (2): alpha = 1/8, as a shift.
const ALPHA_SHIFT: u32 = 3;
/// RFC 6298 (2): beta = 1/4, as a shift.
const BETA_SHIFT: u32 = 2;
/// RFC 6298 (2): K = 4.
const K: u64 = 4;

/// Estimator parameters.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct RtoConfig {
    /// RFC 6298 (2.1): RTO before the first sample, 1 s.
    pub initial: Time,
    /// RFC 6298 (2.4) asks for a 1 s floor; the default here is 0.2 s (as Linux and the
    /// seed papers' ns-2 setups use) because 1 s is far above multi-hop 802.11 RTTs.
    pub min: Time,
    /// RFC 6298 (2.5): an upper bound, which must be at least 60 s.
    pub max: Time,
    /// RFC 6298 (2): clock granularity G, the floor of the variance term. Default 1 ms.
    pub granularity: Time,
}

impl Default for RtoConfig {
    fn default() -> Self {
        RtoConfig {
            initial: Time::from_secs(1),
            min: Time::from_millis(200),
            max: Time::from_secs(60),
            granularity: Time::from_millis(1),
        }
    }
}

/// SRTT / RTTVAR / RTO state.
#[derive(Clone, Debug)]
pub struct RtoEstimator {
    cfg: RtoConfig,
    /// Smoothed RTT in ns; `None` before the first sample.
    srtt: Option<u64>,
    rttvar: u64,
    /// RTO without backoff, as computed from the last sample (or the initial value).
    base: Time,
    /// RTO in force, including backoff.
    rto: Time,
    backoffs: u32,
}

impl RtoEstimator {
    pub fn new(cfg: RtoConfig) -> Self {
        // A misconfigured max below min must not panic in `clamp`; the larger value wins.
        let max = if cfg.max < cfg.min { cfg.min } else { cfg.max };
        let cfg = RtoConfig { max, ..cfg };
        let rto = cfg.initial.clamp(cfg.min, cfg.max);
        RtoEstimator {
            cfg,
            srtt: None,
            rttvar: 0,
            base: rto,
            rto,
            backoffs: 0,
        }
    }

    pub fn config(&self) -> &RtoConfig {
        &self.cfg
    }

    /// Takes one RTT measurement `r` (RFC 6298 (2.2) for the first, (2.3) afterwards) and
    /// recomputes the RTO, which also clears any backoff (RFC 6298 (5.7) and Karn's rule:
    /// the caller only feeds samples from unambiguous segments).
    pub fn sample(&mut self, r: Time) {
        let r = r.as_nanos();
        match self.srtt {
            None => {
                // RFC 6298 (2.2): SRTT <- R, RTTVAR <- R/2.
                self.srtt = Some(r);
                self.rttvar = r / 2;
            }
            Some(srtt) => {
                // RFC 6298 (2.3): RTTVAR <- (1 - beta) RTTVAR + beta |SRTT - R'|, then
                // SRTT <- (1 - alpha) SRTT + alpha R'. The order matters (RTTVAR first).
                let diff = srtt.abs_diff(r);
                self.rttvar = self.rttvar - (self.rttvar >> BETA_SHIFT) + (diff >> BETA_SHIFT);
                self.srtt = Some(srtt - (srtt >> ALPHA_SHIFT) + (r >> ALPHA_SHIFT));
            }
        }
        let srtt = self.srtt.unwrap_or(r);
        // RFC 6298 (2.2)/(2.3): RTO <- SRTT + max(G, K * RTTVAR); (2.4)/(2.5): clamp.
        let var = (K.saturating_mul(self.rttvar)).max(self.cfg.granularity.as_nanos());
        let rto = Time::from_nanos(srtt.saturating_add(var));
        self.base = rto.clamp(self.cfg.min, self.cfg.max);
        self.rto = self.base;
        self.backoffs = 0;
    }

    /// RFC 6298 (5.5): on expiry, RTO <- RTO * 2, capped by the maximum (2.5).
    pub fn backoff(&mut self) {
        let doubled = Time::from_nanos(self.rto.as_nanos().saturating_mul(2));
        self.rto = doubled.min(self.cfg.max);
        self.backoffs = self.backoffs.saturating_add(1);
    }

    /// The RTO currently in force (with backoff).
    pub fn rto(&self) -> Time {
        self.rto
    }

    /// SRTT and RTTVAR (RFC 6298 (2)), once a sample has been taken.
    pub fn smoothed(&self) -> Option<(Time, Time)> {
        self.srtt
            .map(|s| (Time::from_nanos(s), Time::from_nanos(self.rttvar)))
    }

    /// How many consecutive backoffs have been applied since the last sample.
    pub fn backoffs(&self) -> u32 {
        self.backoffs
    }

    pub fn srtt(&self) -> Option<Time> {
        self.srtt.map(Time::from_nanos)
    }

    pub fn rttvar(&self) -> Time {
        Time::from_nanos(self.rttvar)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ms(v: u64) -> Time {
        Time::from_millis(v)
    }

    #[test]
    fn initial_rto_is_one_second() {
        let e = RtoEstimator::new(RtoConfig::default());
        assert_eq!(e.rto(), Time::from_secs(1));
        assert_eq!(e.srtt(), None);
    }

    #[test]
    fn first_and_second_samples_follow_rfc6298() {
        let mut e = RtoEstimator::new(RtoConfig {
            min: ms(1),
            ..RtoConfig::default()
        });
        e.sample(ms(100));
        // SRTT = 100, RTTVAR = 50, RTO = 100 + 4*50 = 300 ms.
        assert_eq!(e.srtt(), Some(ms(100)));
        assert_eq!(e.rttvar(), ms(50));
        assert_eq!(e.rto(), ms(300));
        e.sample(ms(200));
        // RTTVAR = 3/4*50 + 1/4*100 = 62.5; SRTT = 7/8*100 + 1/8*200 = 112.5;
        // RTO = 112.5 + 250 = 362.5 ms.
        assert_eq!(e.rttvar(), Time::from_micros(62_500));
        assert_eq!(e.srtt(), Some(Time::from_micros(112_500)));
        assert_eq!(e.rto(), Time::from_micros(362_500));
    }

    #[test]
    fn granularity_and_min_floor() {
        let mut e = RtoEstimator::new(RtoConfig {
            min: ms(1),
            granularity: ms(10),
            ..RtoConfig::default()
        });
        for _ in 0..200 {
            e.sample(ms(5));
        }
        // RTTVAR decays to ~0, so the G term (10 ms) dominates.
        assert_eq!(e.rto(), ms(15));
        let mut e = RtoEstimator::new(RtoConfig::default());
        for _ in 0..200 {
            e.sample(ms(5));
        }
        assert_eq!(e.rto(), ms(200));
    }

    #[test]
    fn backoff_doubles_to_max_and_sample_resets() {
        let mut e = RtoEstimator::new(RtoConfig::default());
        let mut seen = vec![e.rto()];
        for _ in 0..8 {
            e.backoff();
            seen.push(e.rto());
        }
        let secs: Vec<u64> = seen.iter().map(|t| t.as_nanos() / 1_000_000_000).collect();
        assert_eq!(secs, vec![1, 2, 4, 8, 16, 32, 60, 60, 60]);
        assert_eq!(e.backoffs(), 8);
        e.sample(ms(100));
        assert_eq!(e.rto(), ms(300));
        assert_eq!(e.backoffs(), 0);
    }

    #[test]
    fn bad_config_does_not_panic() {
        let mut e = RtoEstimator::new(RtoConfig {
            min: ms(500),
            max: ms(100),
            ..RtoConfig::default()
        });
        e.sample(Time::MAX);
        e.backoff();
        assert_eq!(e.rto(), ms(500));
    }
}
