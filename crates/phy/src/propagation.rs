//! Large-scale propagation: received power as a function of transmit power and distance,
//! and the ns-2 "threshold" idea of deriving receive and carrier-sense thresholds from ranges.
//!
//! All models are deterministic and monotone non-increasing in distance; fading, if any,
//! is applied on top by the medium.

use std::f64::consts::PI;
use std::fmt;

use crate::units::{Db, Dbm};

/// Speed of light in vacuum, m/s (SI definition).
pub const SPEED_OF_LIGHT: f64 = 299_792_458.0;
/// Centre frequency of 802.11b channel 1, Hz (IEEE 802.11-2016 DSSS/HR-DSSS channel plan,
/// clauses 15 and 16: channel 1 = 2412 MHz).
pub const CHANNEL_1_HZ: f64 = 2.412e9;
/// ns-2's default antenna height above ground, metres (`Antenna/OmniAntenna set Z_ 1.5`).
pub const DEFAULT_ANTENNA_HEIGHT_M: f64 = 1.5;

/// A large-scale propagation model. Distances are in metres; gains and losses in dB.
///
/// Out-of-range or NaN distances are treated as 0 m. Near-field clamp: the path loss of
/// the physical models is never negative (received power never exceeds transmit power
/// plus antenna gains), as ns-3's `FriisPropagationLossModel` (`MinLoss` = 0 dB) does.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Propagation {
    /// Free space (Friis 1946): `Pr = Pt Gt Gr lambda^2 / ((4 pi d)^2 L)`.
    Friis {
        frequency_hz: f64,
        tx_gain: Db,
        rx_gain: Db,
        /// ns-2's system loss `L_` (>= 0 dB; 0 dB means L = 1).
        system_loss: Db,
    },
    /// ns-2's `TwoRayGround` (Rappaport, *Wireless Communications*, 2nd ed., 4.6): Friis
    /// below the crossover distance `d_c = 4 pi ht hr / lambda`, and the two-ray
    /// ground-reflection asymptote `Pr = Pt Gt Gr ht^2 hr^2 / (d^4 L)` from `d_c` on. The
    /// two branches meet exactly at `d_c`, so the model is continuous.
    TwoRayGround {
        frequency_hz: f64,
        tx_height_m: f64,
        rx_height_m: f64,
        tx_gain: Db,
        rx_gain: Db,
        system_loss: Db,
    },
    /// Log-distance path loss (Rappaport 4.9.1):
    /// `PL(d) = PL(d0) + 10 n log10(d / d0)` for `d > d0`, `PL(d0)` below `d0`.
    LogDistance {
        exponent: f64,
        reference_distance_m: f64,
        reference_loss_db: Db,
    },
    /// Unit disk: a fixed decodable level inside `tx_range_m`, a weaker level that is still
    /// above the carrier-sense threshold out to `cs_range_m`, nothing beyond.
    ///
    /// Concretely: `Pr = Pt` for `d <= tx_range_m`, `Pr = Pt - RANGE_CS_GAP` for
    /// `tx_range_m < d <= cs_range_m`, and `Dbm::NONE` (zero power) beyond. With the
    /// thresholds from [`threshold_for_range`] at `tx_range_m` and `cs_range_m`, a radio
    /// decodes inside the first disk and senses the medium busy inside the second.
    ///
    /// SINR is not meaningful for this model (two in-range signals give 0 dB); a medium
    /// using it should apply the protocol interference model: a reception fails if any
    /// other transmitter within the receiver's `cs_range_m` overlaps it.
    Range { tx_range_m: f64, cs_range_m: f64 },
}

/// How much weaker than a decodable signal a signal between `tx_range` and `cs_range` is
/// under [`Propagation::Range`]. Any positive value works; 1 dB keeps such a signal close
/// to decodable strength, so summed with noise it is never mistaken for silence.
pub const RANGE_CS_GAP: Db = Db(1.0);

/// A model parameter that makes no physical sense.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum PropagationError {
    /// Frequencies must be positive and finite.
    Frequency(f64),
    /// Antenna heights must be positive and finite.
    AntennaHeight(f64),
    /// The path-loss exponent must be positive and finite.
    Exponent(f64),
    /// The log-distance reference distance must be positive and finite.
    ReferenceDistance(f64),
    /// Unit-disk ranges need `0 < tx_range_m <= cs_range_m`, both finite.
    Ranges { tx_range_m: f64, cs_range_m: f64 },
    /// Gains and losses must be finite; system loss must be >= 0 dB.
    Gain(f64),
}

impl fmt::Display for PropagationError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::Frequency(v) => write!(f, "frequency_hz must be positive, got {v}"),
            Self::AntennaHeight(v) => write!(f, "antenna height must be positive metres, got {v}"),
            Self::Exponent(v) => write!(f, "path-loss exponent must be positive, got {v}"),
            Self::ReferenceDistance(v) => {
                write!(f, "reference_distance_m must be positive, got {v}")
            }
            Self::Ranges {
                tx_range_m,
                cs_range_m,
            } => write!(
                f,
                "need 0 < tx_range_m <= cs_range_m, got tx_range_m = {tx_range_m}, cs_range_m = {cs_range_m}"
            ),
            Self::Gain(v) => write!(
                f,
                "antenna gains must be finite and system loss finite and >= 0 dB, got {v}"
            ),
        }
    }
}

impl std::error::Error for PropagationError {}

/// `20 log10(lambda / (4 pi d))`, the free-space path gain in dB, clamped at 0 dB.
fn friis_gain_db(frequency_hz: f64, d: f64) -> f64 {
    let lambda = SPEED_OF_LIGHT / frequency_hz;
    (20.0 * (lambda / (4.0 * PI * d)).log10()).min(0.0)
}

fn clean_distance(d: f64) -> f64 {
    // f64::max ignores NaN, so NaN and negatives become 0.
    d.max(0.0)
}

impl Propagation {
    /// Free space at 2.412 GHz, unit antenna gains, no system loss.
    pub const fn friis_default() -> Propagation {
        Propagation::Friis {
            frequency_hz: CHANNEL_1_HZ,
            tx_gain: Db(0.0),
            rx_gain: Db(0.0),
            system_loss: Db(0.0),
        }
    }

    /// ns-2's two-ray ground model with ns-2's antenna defaults (heights 1.5 m, gains 1,
    /// system loss 1) but at 2.412 GHz (802.11b channel 1) instead of ns-2's 914 MHz
    /// WaveLAN default. Crossover distance: `4 pi 1.5 * 1.5 / 0.1243 m = 227.5 m`.
    pub const fn two_ray_ground_default() -> Propagation {
        Propagation::TwoRayGround {
            frequency_hz: CHANNEL_1_HZ,
            tx_height_m: DEFAULT_ANTENNA_HEIGHT_M,
            rx_height_m: DEFAULT_ANTENNA_HEIGHT_M,
            tx_gain: Db(0.0),
            rx_gain: Db(0.0),
            system_loss: Db(0.0),
        }
    }

    /// Log-distance with exponent `n`, reference distance 1 m and the free-space loss at
    /// 1 m and 2.412 GHz as reference loss (40.09 dB), the way ns-3 derives its default.
    pub fn log_distance(exponent: f64) -> Propagation {
        Propagation::LogDistance {
            exponent,
            reference_distance_m: 1.0,
            reference_loss_db: Db(-friis_gain_db(CHANNEL_1_HZ, 1.0)),
        }
    }

    /// Unit disk with the given decode and carrier-sense ranges.
    pub const fn range(tx_range_m: f64, cs_range_m: f64) -> Propagation {
        Propagation::Range {
            tx_range_m,
            cs_range_m,
        }
    }

    /// Checks every parameter; scenario validation calls this before a run.
    pub fn validate(&self) -> Result<(), PropagationError> {
        let pos = |v: f64| v.is_finite() && v > 0.0;
        let gains = |g: &[Db], loss: Db| {
            if let Some(bad) = g.iter().find(|x| !x.0.is_finite()) {
                return Err(PropagationError::Gain(bad.0));
            }
            if !loss.0.is_finite() || loss.0 < 0.0 {
                return Err(PropagationError::Gain(loss.0));
            }
            Ok(())
        };
        match *self {
            Propagation::Friis {
                frequency_hz,
                tx_gain,
                rx_gain,
                system_loss,
            } => {
                if !pos(frequency_hz) {
                    return Err(PropagationError::Frequency(frequency_hz));
                }
                gains(&[tx_gain, rx_gain], system_loss)
            }
            Propagation::TwoRayGround {
                frequency_hz,
                tx_height_m,
                rx_height_m,
                tx_gain,
                rx_gain,
                system_loss,
            } => {
                if !pos(frequency_hz) {
                    return Err(PropagationError::Frequency(frequency_hz));
                }
                for h in [tx_height_m, rx_height_m] {
                    if !pos(h) {
                        return Err(PropagationError::AntennaHeight(h));
                    }
                }
                gains(&[tx_gain, rx_gain], system_loss)
            }
            Propagation::LogDistance {
                exponent,
                reference_distance_m,
                reference_loss_db,
            } => {
                if !pos(exponent) {
                    return Err(PropagationError::Exponent(exponent));
                }
                if !pos(reference_distance_m) {
                    return Err(PropagationError::ReferenceDistance(reference_distance_m));
                }
                gains(&[], reference_loss_db)
            }
            Propagation::Range {
                tx_range_m,
                cs_range_m,
            } => {
                if pos(tx_range_m) && cs_range_m.is_finite() && tx_range_m <= cs_range_m {
                    Ok(())
                } else {
                    Err(PropagationError::Ranges {
                        tx_range_m,
                        cs_range_m,
                    })
                }
            }
        }
    }

    /// The two-ray crossover distance `d_c = 4 pi ht hr / lambda` (ns-2
    /// `TwoRayGround::Pr`), or `None` for the other models.
    pub fn crossover_distance_m(&self) -> Option<f64> {
        match *self {
            Propagation::TwoRayGround {
                frequency_hz,
                tx_height_m,
                rx_height_m,
                ..
            } => Some(4.0 * PI * tx_height_m * rx_height_m * frequency_hz / SPEED_OF_LIGHT),
            _ => None,
        }
    }

    /// A distance beyond which the mean received power from `tx_power` is below
    /// `floor_mw`: doubling from 1 m, infinite if it never falls that low within 10^7 m.
    /// Every model here loses power with distance, so no pair farther apart reaches it.
    pub fn distance_below(&self, tx_power: Dbm, floor_mw: f64) -> f64 {
        let mut d = 1.0;
        while d < 1e7 {
            let p = self.rx_power(tx_power, d).to_mw().0;
            if p < floor_mw || p <= 0.0 {
                return d;
            }
            d *= 2.0;
        }
        f64::INFINITY
    }

    /// Received power at `distance_m` from a transmitter sending at `tx_power`.
    pub fn rx_power(&self, tx_power: Dbm, distance_m: f64) -> Dbm {
        let d = clean_distance(distance_m);
        match *self {
            Propagation::Friis {
                frequency_hz,
                tx_gain,
                rx_gain,
                system_loss,
            } => tx_power + tx_gain + rx_gain + Db(friis_gain_db(frequency_hz, d)) - system_loss,
            Propagation::TwoRayGround {
                frequency_hz,
                tx_height_m,
                rx_height_m,
                tx_gain,
                rx_gain,
                system_loss,
            } => {
                let crossover =
                    4.0 * PI * tx_height_m * rx_height_m * frequency_hz / SPEED_OF_LIGHT;
                let path_gain_db = if d < crossover {
                    friis_gain_db(frequency_hz, d)
                } else {
                    // 10 log10(ht^2 hr^2 / d^4) = 20 log10(ht hr / d^2)
                    (20.0 * (tx_height_m * rx_height_m / (d * d)).log10()).min(0.0)
                };
                tx_power + tx_gain + rx_gain + Db(path_gain_db) - system_loss
            }
            Propagation::LogDistance {
                exponent,
                reference_distance_m,
                reference_loss_db,
            } => {
                let extra = if d > reference_distance_m {
                    10.0 * exponent * (d / reference_distance_m).log10()
                } else {
                    0.0
                };
                tx_power - reference_loss_db - Db(extra)
            }
            Propagation::Range {
                tx_range_m,
                cs_range_m,
            } => {
                if d <= tx_range_m {
                    tx_power
                } else if d <= cs_range_m {
                    tx_power - RANGE_CS_GAP
                } else {
                    Dbm::NONE
                }
            }
        }
    }

    /// The largest distance at which the received power is still `>= threshold`, found by
    /// bisection to 1 mm (exact for [`Propagation::Range`]). Used to build neighbour lists:
    /// a radio farther away than `range_for_threshold(tx, cs_threshold)` can be skipped.
    /// Returns `f64::INFINITY` if the power never drops below the threshold (e.g. a
    /// threshold of `Dbm::NONE`), and 0 if even at 0 m the power is below it.
    pub fn range_for_threshold(&self, tx_power: Dbm, threshold: Dbm) -> f64 {
        if let Propagation::Range {
            tx_range_m,
            cs_range_m,
        } = *self
        {
            return if threshold <= Dbm::NONE {
                f64::INFINITY
            } else if threshold <= tx_power - RANGE_CS_GAP {
                cs_range_m
            } else if threshold <= tx_power {
                tx_range_m
            } else {
                0.0
            };
        }
        if self.rx_power(tx_power, 0.0) < threshold {
            return 0.0;
        }
        let mut hi = 1.0;
        while self.rx_power(tx_power, hi) >= threshold {
            hi *= 2.0;
            if hi > 1e12 {
                return f64::INFINITY;
            }
        }
        let mut lo = 0.0;
        while hi - lo > 1e-3 {
            let mid = 0.5 * (lo + hi);
            if self.rx_power(tx_power, mid) >= threshold {
                lo = mid;
            } else {
                hi = mid;
            }
        }
        lo
    }
}

impl Default for Propagation {
    /// ns-2's usual choice for multi-hop studies: [`Propagation::two_ray_ground_default`].
    fn default() -> Propagation {
        Propagation::two_ray_ground_default()
    }
}

/// The received power at exactly `range_m` from a transmitter at `tx_power`: use it as the
/// receive threshold for `radio.tx_range` and as the carrier-sense threshold for
/// `radio.cs_range` (the idea of ns-2's `indep-utils/propagation/threshold.cc`). Since all
/// models are monotone non-increasing, every radio within `range_m` then receives at least
/// this power.
pub fn threshold_for_range(model: &Propagation, tx_power: Dbm, range_m: f64) -> Dbm {
    model.rx_power(tx_power, range_m)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[track_caller]
    fn close(a: f64, b: f64, tol: f64) {
        assert!((a - b).abs() <= tol, "{a} != {b} (tol {tol})");
    }

    const PT: Dbm = Dbm(20.0);

    fn all_models() -> [Propagation; 5] {
        [
            Propagation::friis_default(),
            Propagation::two_ray_ground_default(),
            Propagation::log_distance(3.0),
            Propagation::range(250.0, 550.0),
            Propagation::Friis {
                frequency_hz: 914e6,
                tx_gain: Db(2.0),
                rx_gain: Db(2.0),
                system_loss: Db(1.0),
            },
        ]
    }

    #[test]
    fn friis_hand_computed() {
        // lambda = 299792458 / 2.412e9 = 0.124292 m; loss at 1 m = 20 log10(4 pi / lambda)
        // = 20 log10(101.1035) = 40.0953 dB; at 100 m, 40 dB more.
        let m = Propagation::friis_default();
        close(m.rx_power(PT, 1.0).0, 20.0 - 40.0953, 1e-3);
        close(m.rx_power(PT, 100.0).0, 20.0 - 80.0947, 1e-3);
        // Near-field clamp: never more than transmitted.
        assert_eq!(m.rx_power(PT, 0.0), PT);
        assert_eq!(m.rx_power(PT, f64::NAN), PT);
        // Gains and loss apply in dB.
        let g = Propagation::Friis {
            frequency_hz: CHANNEL_1_HZ,
            tx_gain: Db(3.0),
            rx_gain: Db(2.0),
            system_loss: Db(1.0),
        };
        close(g.rx_power(PT, 100.0).0, 20.0 - 80.0947 + 4.0, 1e-3);
    }

    #[test]
    fn two_ray_is_continuous_at_crossover_and_ns2_beyond() {
        let m = Propagation::two_ray_ground_default();
        let dc = m.crossover_distance_m().unwrap();
        close(dc, 227.483, 1e-3);
        let below = m.rx_power(PT, dc * (1.0 - 1e-12)).0;
        let at = m.rx_power(PT, dc).0;
        close(below, at, 1e-9);
        // Friis below, 40 dB/decade beyond: 10 log10(1.5^4 / 1000^4) at 1 km = -112.956 dB.
        assert_eq!(
            m.rx_power(PT, 100.0),
            Propagation::friis_default().rx_power(PT, 100.0)
        );
        close(m.rx_power(PT, 1000.0).0, 20.0 - 112.9563, 1e-3);
        close(
            m.rx_power(PT, 500.0).0 - m.rx_power(PT, 1000.0).0,
            40.0 * 2f64.log10(),
            1e-9,
        );
    }

    #[test]
    fn log_distance_reference() {
        let m = Propagation::log_distance(3.0);
        close(m.rx_power(PT, 1.0).0, 20.0 - 40.0953, 1e-3);
        close(m.rx_power(PT, 0.5).0, 20.0 - 40.0953, 1e-3);
        close(m.rx_power(PT, 10.0).0, 20.0 - 70.0947, 1e-3);
    }

    #[test]
    fn monotone_non_increasing() {
        for m in all_models() {
            m.validate().unwrap();
            let mut prev = m.rx_power(PT, 0.0);
            let mut d = 0.0;
            while d < 3000.0 {
                d += 0.37;
                let p = m.rx_power(PT, d);
                assert!(p <= prev, "{m:?} increases at {d} m: {prev} -> {p}");
                prev = p;
            }
        }
    }

    #[test]
    fn threshold_round_trip() {
        for m in all_models() {
            for range in [40.0, 250.0, 550.0] {
                let thr = threshold_for_range(&m, PT, range);
                assert_eq!(m.rx_power(PT, range), thr);
                assert!(m.rx_power(PT, range * 0.99) >= thr);
                let back = m.range_for_threshold(PT, thr);
                if let Propagation::Range { .. } = m {
                    // Steps: the range back is the edge of the disk holding `range`.
                    assert!(back >= range);
                } else {
                    assert!(m.rx_power(PT, range * 1.01) < thr);
                    close(back, range, 2e-3);
                }
            }
        }
    }

    #[test]
    fn unit_disk_thresholds_separate_decode_and_sense() {
        let m = Propagation::range(250.0, 550.0);
        let rx_thr = threshold_for_range(&m, PT, 250.0);
        let cs_thr = threshold_for_range(&m, PT, 550.0);
        assert!(cs_thr < rx_thr);
        let decodes = |d: f64| m.rx_power(PT, d) >= rx_thr;
        let senses = |d: f64| m.rx_power(PT, d) >= cs_thr;
        assert!(decodes(250.0) && senses(250.0));
        assert!(!decodes(250.1) && senses(250.1) && senses(550.0));
        assert!(!senses(550.1));
        assert_eq!(m.rx_power(PT, 551.0).to_mw().0, 0.0);
        assert_eq!(m.range_for_threshold(PT, rx_thr), 250.0);
        assert_eq!(m.range_for_threshold(PT, cs_thr), 550.0);
    }

    #[test]
    fn validation_rejects_nonsense() {
        assert_eq!(
            Propagation::range(300.0, 200.0).validate(),
            Err(PropagationError::Ranges {
                tx_range_m: 300.0,
                cs_range_m: 200.0
            })
        );
        assert!(Propagation::log_distance(0.0).validate().is_err());
        let bad = Propagation::Friis {
            frequency_hz: -1.0,
            tx_gain: Db(0.0),
            rx_gain: Db(0.0),
            system_loss: Db(0.0),
        };
        assert_eq!(bad.validate(), Err(PropagationError::Frequency(-1.0)));
        assert!(bad
            .validate()
            .unwrap_err()
            .to_string()
            .contains("frequency_hz"));
    }
}
