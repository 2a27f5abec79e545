//! Bianchi's saturation throughput model of the 802.11 DCF (G. Bianchi, "Performance
//! Analysis of the IEEE 802.11 Distributed Coordination Function", IEEE JSAC 18(3), 2000),
//! with the finite retry limit of Wu et al. (INFOCOM 2002) as an option.
//!
//! Which collision time a faithful MAC matches: Bianchi's `Tc = H + P + DIFS + delta`
//! (eq. 20) has every station resume after DIFS. Under IEEE 802.11-2016 the stations that
//! did not transmit end the collision with an erroneous reception and defer EIFS
//! (10.3.2.3.7: SIFS + Ack at the lowest mandatory rate + DIFS), while the colliders wait
//! for AckTimeout (10.3.2.9, [`airqueue_phy::dsss::ack_timeout`]) then DIFS, one slot
//! later. With `n >= 3` stations the bystanders seize the channel first, so a faithful
//! MAC matches [`CollisionRecovery::Eifs`] (`Tc = DATA + EIFS`, or `RTS + EIFS`); only at
//! `n = 2` do both stations wait AckTimeout + DIFS. [`CollisionRecovery::Difs`] is
//! Bianchi's original, for his figures and for simulators without EIFS (ns-2).
//!
//! Durations are [`Time`] (integer ns); probabilities and throughput are `f64`.

use std::fmt;

use airqueue_kernel::Time;
use airqueue_phy::dsss::{self, DsssRate, Preamble};

/// Basic access (DATA, ACK) or the RTS/CTS four-way handshake (Bianchi section IV).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Access {
    Basic,
    RtsCts,
}

/// What follows a collision before the next backoff slot (see the module docs).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum CollisionRecovery {
    /// Bianchi's eq. (20)/(22): `Tc = H + P + DIFS + delta`.
    Difs,
    /// IEEE 802.11-2016 10.3.2.3.7: bystanders defer EIFS after an undecodable frame:
    /// `Tc = H + P + delta + EIFS`. What a faithful MAC matches.
    Eifs,
}

/// How many transmission attempts a frame gets.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum RetryLimit {
    /// Bianchi's model: retry until success (no drops).
    Unlimited,
    /// At most this many attempts (>= 1), then the frame is dropped (Wu et al. 2002); the
    /// 802.11 default is [`dsss::SHORT_RETRY_LIMIT`] = 7 for frames below the RTS threshold.
    Attempts(u32),
}

/// Binary exponential backoff: `W_0 = cw_min + 1`, `W_i = min(2^i W_0, cw_max + 1)`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Backoff {
    pub cw_min: u16,
    pub cw_max: u16,
    pub retry: RetryLimit,
}

impl Backoff {
    /// 802.11b DCF: CW 31..1023, unlimited retries (Bianchi's assumption).
    pub const DCF: Backoff = Backoff {
        cw_min: dsss::CW_MIN,
        cw_max: dsss::CW_MAX,
        retry: RetryLimit::Unlimited,
    };

    /// Window size (number of backoff values `0..W_i-1`) of backoff stage `i`.
    fn window(&self, stage: u32) -> f64 {
        let w0 = self.cw_min as u64 + 1;
        let wmax = self.cw_max as u64 + 1;
        let w = if stage >= 32 {
            wmax
        } else {
            (w0 << stage).min(wmax)
        };
        w as f64
    }

    /// Bianchi's `m`: the first stage whose window is the maximum (`log2(W_max / W_0)` for
    /// power-of-two windows).
    pub fn max_stage(&self) -> u32 {
        let mut m = 0;
        while self.window(m) < self.cw_max as f64 + 1.0 {
            m += 1;
        }
        m
    }

    /// The transmission probability per slot of a station whose attempts collide with
    /// probability `p`: the attempts per frame divided by the slots (backoff slots plus the
    /// transmission slot) per frame, `sum_i p^i / sum_i p^i (W_i + 1) / 2` over the stages
    /// `i` a frame can reach. With unlimited retries this is Bianchi's eq. (7),
    /// `2 (1 - 2p) / ((1 - 2p)(W + 1) + p W (1 - (2p)^m))`, rewritten without the
    /// removable singularity at `p = 1/2`:
    /// `1 / ((1 - p) sum_{i<m} p^i (W_i + 1)/2 + p^m (W_m + 1)/2)`.
    /// With `K` attempts it is Wu et al.'s finite-stage chain.
    pub fn tau_of_p(&self, p: f64) -> f64 {
        match self.retry {
            RetryLimit::Unlimited => {
                let m = self.max_stage();
                let mut head = 0.0;
                let mut pi = 1.0;
                for i in 0..m {
                    head += pi * (self.window(i) + 1.0) / 2.0;
                    pi *= p;
                }
                1.0 / ((1.0 - p) * head + pi * (self.window(m) + 1.0) / 2.0)
            }
            RetryLimit::Attempts(k) => {
                let (mut num, mut den, mut pi) = (0.0, 0.0, 1.0);
                for i in 0..k.max(1) {
                    num += pi;
                    den += pi * (self.window(i) + 1.0) / 2.0;
                    pi *= p;
                }
                num / den
            }
        }
    }

    /// Probability that a frame is dropped after exhausting its attempts: `p^K`.
    pub fn drop_probability(&self, p: f64) -> f64 {
        match self.retry {
            RetryLimit::Unlimited => 0.0,
            RetryLimit::Attempts(k) => p.powi(k.max(1) as i32),
        }
    }
}

/// The three durations of Bianchi's renewal slot (eq. 13): an empty slot `sigma`, a
/// successful transmission `Ts` and a collision `Tc`, each including the idle time that
/// precedes the next backoff slot.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SlotDurations {
    pub empty: Time,
    pub success: Time,
    pub collision: Time,
}

/// The model's solution.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Saturation {
    /// Stations.
    pub n: u32,
    /// Probability that a station transmits in a slot (Bianchi's tau).
    pub tau: f64,
    /// Conditional collision probability of an attempt (Bianchi's p).
    pub p: f64,
    /// Probability that a slot holds at least one transmission (P_tr).
    pub p_tr: f64,
    /// Probability that a busy slot is a success (P_s).
    pub p_s: f64,
    /// Probability a frame is dropped at the retry limit (0 with unlimited retries).
    pub p_drop: f64,
    /// Aggregate payload throughput, bit/s (eq. 13).
    pub throughput_bps: f64,
}

/// Invalid model input.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum BianchiError {
    /// At least one station is needed.
    NoStations,
    /// Need `cw_min <= cw_max`.
    ContentionWindow { cw_min: u16, cw_max: u16 },
    /// `RetryLimit::Attempts(0)`.
    ZeroAttempts,
    /// The empty slot must be longer than zero.
    ZeroSlot,
}

impl fmt::Display for BianchiError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            BianchiError::NoStations => write!(f, "n must be at least 1"),
            BianchiError::ContentionWindow { cw_min, cw_max } => {
                write!(f, "need cw_min <= cw_max, got {cw_min} > {cw_max}")
            }
            BianchiError::ZeroAttempts => write!(f, "retry limit must allow at least 1 attempt"),
            BianchiError::ZeroSlot => write!(f, "the empty slot duration must be positive"),
        }
    }
}

impl std::error::Error for BianchiError {}

/// Solves the fixed point `tau = tau_of_p(p)`, `p = 1 - (1 - tau)^(n-1)` (Bianchi eqs. 7
/// and 9) by bisection on `tau` in `[0, 1]`: `g(tau) = tau - tau_of_p(p(tau))` is strictly
/// increasing (`p` grows with `tau`, `tau_of_p` falls with `p`), negative at 0 and
/// non-negative at 1, so the root is unique and bisection converges to it to the last bit.
/// Returns `(tau, p)`.
pub fn solve_fixed_point(n: u32, backoff: &Backoff) -> (f64, f64) {
    let p_of = |tau: f64| 1.0 - (1.0 - tau).powi(n.saturating_sub(1) as i32);
    let g = |tau: f64| tau - backoff.tau_of_p(p_of(tau));
    let (mut lo, mut hi) = (0.0f64, 1.0f64);
    if g(hi) <= 0.0 {
        return (1.0, p_of(1.0));
    }
    for _ in 0..200 {
        let mid = 0.5 * (lo + hi);
        if mid <= lo || mid >= hi {
            break;
        }
        if g(mid) < 0.0 {
            lo = mid;
        } else {
            hi = mid;
        }
    }
    // Of the two bracketing values, return the one with the smaller residual.
    let tau = if g(lo).abs() <= g(hi).abs() { lo } else { hi };
    (tau, p_of(tau))
}

/// Bianchi's model for `n` saturated stations with the given backoff, slot durations and
/// `payload_bits` of payload per frame (eq. 13):
/// `S = P_s P_tr E[P] / ((1 - P_tr) sigma + P_tr P_s T_s + P_tr (1 - P_s) T_c)`.
pub fn saturation(
    n: u32,
    backoff: &Backoff,
    durations: &SlotDurations,
    payload_bits: u64,
) -> Result<Saturation, BianchiError> {
    if n == 0 {
        return Err(BianchiError::NoStations);
    }
    if backoff.cw_min > backoff.cw_max {
        return Err(BianchiError::ContentionWindow {
            cw_min: backoff.cw_min,
            cw_max: backoff.cw_max,
        });
    }
    if backoff.retry == RetryLimit::Attempts(0) {
        return Err(BianchiError::ZeroAttempts);
    }
    if durations.empty == Time::ZERO {
        return Err(BianchiError::ZeroSlot);
    }
    let (tau, p) = solve_fixed_point(n, backoff);
    let nf = n as f64;
    let idle = (1.0 - tau).powi(n as i32); // 1 - P_tr
    let success = nf * tau * (1.0 - tau).powi(n as i32 - 1); // P_tr P_s
    let collision = (1.0 - idle - success).max(0.0); // P_tr (1 - P_s)
    let p_tr = 1.0 - idle;
    let mean_slot = idle * durations.empty.as_secs_f64()
        + success * durations.success.as_secs_f64()
        + collision * durations.collision.as_secs_f64();
    Ok(Saturation {
        n,
        tau,
        p,
        p_tr,
        p_s: if p_tr > 0.0 { success / p_tr } else { 0.0 },
        p_drop: backoff.drop_probability(p),
        throughput_bps: success * payload_bits as f64 / mean_slot,
    })
}

/// The model instantiated for 802.11b (clauses 15/16 timing from [`airqueue_phy::dsss`]).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct DsssSaturation {
    pub n: u32,
    /// MSDU payload per frame, bytes (what the throughput counts).
    pub payload_bytes: u32,
    /// MAC overhead per data frame, bytes: header + FCS = 28 by default
    /// ([`dsss::DATA_OVERHEAD_BYTES`]); add LLC/SNAP and IP headers here if the payload
    /// excludes them.
    pub header_bytes: u32,
    pub data_rate: DsssRate,
    /// Rate of Ack, RTS and CTS frames.
    pub basic_rate: DsssRate,
    pub preamble: Preamble,
    pub backoff: Backoff,
    pub access: Access,
    pub recovery: CollisionRecovery,
    /// Bianchi's delta, added after every frame; 0 by default (stations within a few
    /// hundred metres have < 1 us, and a simulator without propagation delay has none;
    /// Bianchi's Table I uses 1 us).
    pub prop_delay: Time,
}

impl DsssSaturation {
    /// `n` stations, `payload_bytes` per frame, 11 Mb/s data, 1 Mb/s basic rate, long
    /// preamble, DCF backoff with unlimited retries, basic access, EIFS recovery.
    pub const fn new(n: u32, payload_bytes: u32) -> DsssSaturation {
        DsssSaturation {
            n,
            payload_bytes,
            header_bytes: dsss::DATA_OVERHEAD_BYTES,
            data_rate: DsssRate::Mbps11,
            basic_rate: DsssRate::Mbps1,
            preamble: Preamble::Long,
            backoff: Backoff::DCF,
            access: Access::Basic,
            recovery: CollisionRecovery::Eifs,
            prop_delay: Time::ZERO,
        }
    }

    /// Bianchi's eqs. (20) and (22) with 802.11b durations:
    /// - basic: `Ts = DATA + d + SIFS + ACK + d + DIFS`, `Tc = DATA + d + DIFS` (or EIFS);
    /// - RTS/CTS: `Ts = RTS + d + SIFS + CTS + d + SIFS + DATA + d + SIFS + ACK + d + DIFS`,
    ///   `Tc = RTS + d + DIFS` (or EIFS),
    ///
    /// where DATA is the whole PPDU (PLCP + MAC header + payload + FCS) and `d` the
    /// propagation delay.
    pub fn durations(&self) -> SlotDurations {
        let d = self.prop_delay;
        let data = dsss::frame_duration(
            self.header_bytes + self.payload_bytes,
            self.data_rate,
            self.preamble,
        );
        let ack = dsss::frame_duration(dsss::ACK_BYTES, self.basic_rate, self.preamble);
        let recovery = match self.recovery {
            CollisionRecovery::Difs => dsss::DIFS,
            CollisionRecovery::Eifs => dsss::EIFS,
        };
        let exchange = data + d + dsss::SIFS + ack + d + dsss::DIFS;
        let (success, collision) = match self.access {
            Access::Basic => (exchange, data + d + recovery),
            Access::RtsCts => {
                let rts = dsss::frame_duration(dsss::RTS_BYTES, self.basic_rate, self.preamble);
                let cts = dsss::frame_duration(dsss::CTS_BYTES, self.basic_rate, self.preamble);
                (
                    rts + d + dsss::SIFS + cts + d + dsss::SIFS + exchange,
                    rts + d + recovery,
                )
            }
        };
        SlotDurations {
            empty: dsss::SLOT,
            success,
            collision,
        }
    }

    /// Solves the model.
    pub fn evaluate(&self) -> Result<Saturation, BianchiError> {
        saturation(
            self.n,
            &self.backoff,
            &self.durations(),
            self.payload_bytes as u64 * 8,
        )
    }
}

#[cfg(test)]
mod tests;
