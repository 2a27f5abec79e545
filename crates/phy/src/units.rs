//! Radio power quantities as newtypes with only the arithmetic that makes physical sense:
//! absolute power in [`Dbm`] or [`MilliWatts`], ratios (gains, losses, SINR) in [`Db`].
//!
//! Levels in dB add and subtract; powers from different transmitters add only in linear
//! units, so interference is summed in [`MilliWatts`] and converted back for comparisons.

use std::fmt;
use std::iter::Sum;
use std::ops::{Add, AddAssign, Div, Mul, Neg, Sub};

/// An absolute power level in decibel-milliwatts: `10 log10(P / 1 mW)`.
///
/// `Dbm(f64::NEG_INFINITY)` is zero power (a radio that cannot hear the transmitter at all).
#[derive(Clone, Copy, PartialEq, PartialOrd, Debug, Default)]
pub struct Dbm(pub f64);

/// A power ratio in decibels: `10 log10(P1 / P2)`. Gains, losses, SINR, thresholds.
#[derive(Clone, Copy, PartialEq, PartialOrd, Debug, Default)]
pub struct Db(pub f64);

/// An absolute power in milliwatts, the unit in which powers of concurrent signals add.
#[derive(Clone, Copy, PartialEq, PartialOrd, Debug, Default)]
pub struct MilliWatts(pub f64);

impl Dbm {
    /// Zero power.
    pub const NONE: Dbm = Dbm(f64::NEG_INFINITY);

    /// `P[mW] = 10^(P[dBm] / 10)`.
    pub fn to_mw(self) -> MilliWatts {
        MilliWatts(10f64.powf(self.0 / 10.0))
    }
    /// Watts to dBm (`P[dBm] = 10 log10(P[W]) + 30`); ns-2 configures `Pt_` in watts.
    pub fn from_watts(w: f64) -> Dbm {
        MilliWatts(w * 1e3).to_dbm()
    }
}

impl Db {
    /// The ratio `r` (linear, dimensionless) in dB: `10 log10(r)`.
    pub fn from_ratio(r: f64) -> Db {
        Db(10.0 * r.log10())
    }
    /// The linear ratio: `10^(dB / 10)`.
    pub fn to_ratio(self) -> f64 {
        10f64.powf(self.0 / 10.0)
    }
}

impl MilliWatts {
    pub const ZERO: MilliWatts = MilliWatts(0.0);

    /// `P[dBm] = 10 log10(P[mW])`; zero power gives `-inf` dBm.
    pub fn to_dbm(self) -> Dbm {
        Dbm(10.0 * self.0.log10())
    }
}

/// Signal to interference-plus-noise ratio: `signal / (noise + interference)` in dB.
pub fn sinr(signal: MilliWatts, noise_plus_interference: MilliWatts) -> Db {
    Db::from_ratio(signal / noise_plus_interference)
}

/// Boltzmann's constant times the reference temperature 290 K, in mW/Hz
/// (`1.380649e-23 J/K * 290 K * 1e3`, i.e. the textbook -174 dBm/Hz thermal noise density).
const KT0_MW_PER_HZ: f64 = 1.380649e-23 * 290.0 * 1e3;

/// Thermal noise power over `bandwidth_hz` at 290 K, raised by the receiver's noise figure:
/// `N = k T0 B F` (Friis 1944 noise figure definition). For 802.11b use the 22 MHz channel
/// width ([`crate::dsss::NOISE_BANDWIDTH_HZ`]): -100.6 dBm plus the noise figure.
pub fn thermal_noise(bandwidth_hz: f64, noise_figure: Db) -> Dbm {
    MilliWatts(KT0_MW_PER_HZ * bandwidth_hz).to_dbm() + noise_figure
}

impl From<Dbm> for MilliWatts {
    fn from(p: Dbm) -> MilliWatts {
        p.to_mw()
    }
}

impl From<MilliWatts> for Dbm {
    fn from(p: MilliWatts) -> Dbm {
        p.to_dbm()
    }
}

/// Difference of two levels is a ratio: `Dbm - Dbm = Db` (e.g. SNR = signal - noise).
impl Sub for Dbm {
    type Output = Db;
    fn sub(self, rhs: Dbm) -> Db {
        Db(self.0 - rhs.0)
    }
}

/// A level raised by a gain: `Dbm + Db = Dbm`.
impl Add<Db> for Dbm {
    type Output = Dbm;
    fn add(self, rhs: Db) -> Dbm {
        Dbm(self.0 + rhs.0)
    }
}

/// A level lowered by a loss: `Dbm - Db = Dbm`.
impl Sub<Db> for Dbm {
    type Output = Dbm;
    fn sub(self, rhs: Db) -> Dbm {
        Dbm(self.0 - rhs.0)
    }
}

impl Add for Db {
    type Output = Db;
    fn add(self, rhs: Db) -> Db {
        Db(self.0 + rhs.0)
    }
}

impl Sub for Db {
    type Output = Db;
    fn sub(self, rhs: Db) -> Db {
        Db(self.0 - rhs.0)
    }
}

impl Neg for Db {
    type Output = Db;
    fn neg(self) -> Db {
        Db(-self.0)
    }
}

/// Scaling a ratio in dB (e.g. `10 * n * log10(d)` in log-distance path loss).
impl Mul<f64> for Db {
    type Output = Db;
    fn mul(self, rhs: f64) -> Db {
        Db(self.0 * rhs)
    }
}

/// Powers of concurrent signals add linearly.
impl Add for MilliWatts {
    type Output = MilliWatts;
    fn add(self, rhs: MilliWatts) -> MilliWatts {
        MilliWatts(self.0 + rhs.0)
    }
}

impl AddAssign for MilliWatts {
    fn add_assign(&mut self, rhs: MilliWatts) {
        self.0 += rhs.0;
    }
}

/// Removing a signal that ended. Clamped at zero: repeated add/subtract of floating-point
/// powers leaves tiny negative residues, and negative power is meaningless.
impl Sub for MilliWatts {
    type Output = MilliWatts;
    fn sub(self, rhs: MilliWatts) -> MilliWatts {
        MilliWatts((self.0 - rhs.0).max(0.0))
    }
}

/// The ratio of two powers (dimensionless, linear).
impl Div for MilliWatts {
    type Output = f64;
    fn div(self, rhs: MilliWatts) -> f64 {
        self.0 / rhs.0
    }
}

/// Scaling a power by a linear factor (e.g. a fading gain).
impl Mul<f64> for MilliWatts {
    type Output = MilliWatts;
    fn mul(self, rhs: f64) -> MilliWatts {
        MilliWatts(self.0 * rhs)
    }
}

impl Sum for MilliWatts {
    fn sum<I: Iterator<Item = MilliWatts>>(iter: I) -> MilliWatts {
        iter.fold(MilliWatts::ZERO, |a, b| a + b)
    }
}

impl<'a> Sum<&'a MilliWatts> for MilliWatts {
    fn sum<I: Iterator<Item = &'a MilliWatts>>(iter: I) -> MilliWatts {
        iter.fold(MilliWatts::ZERO, |a, b| a + *b)
    }
}

fn fmt_with_unit(v: f64, unit: &str, f: &mut fmt::Formatter<'_>) -> fmt::Result {
    match f.precision() {
        Some(p) => write!(f, "{v:.p$} {unit}"),
        None => write!(f, "{v} {unit}"),
    }
}

impl fmt::Display for Dbm {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt_with_unit(self.0, "dBm", f)
    }
}

impl fmt::Display for Db {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt_with_unit(self.0, "dB", f)
    }
}

impl fmt::Display for MilliWatts {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt_with_unit(self.0, "mW", f)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[track_caller]
    fn close(a: f64, b: f64, tol: f64) {
        assert!((a - b).abs() <= tol, "{a} != {b} (tol {tol})");
    }

    #[test]
    fn dbm_mw_round_trip() {
        close(Dbm(0.0).to_mw().0, 1.0, 1e-15);
        close(Dbm(20.0).to_mw().0, 100.0, 1e-12);
        close(Dbm(-30.0).to_mw().0, 1e-3, 1e-18);
        close(MilliWatts(250.0).to_dbm().0, 23.979_400_086_720_375, 1e-12);
        close(Dbm::from_watts(0.281_838_3).0, 24.5, 1e-6);
        assert_eq!(MilliWatts::ZERO.to_dbm(), Dbm::NONE);
        assert_eq!(Dbm::NONE.to_mw(), MilliWatts::ZERO);
    }

    #[test]
    fn level_arithmetic() {
        let snr: Db = Dbm(-60.0) - Dbm(-90.0);
        assert_eq!(snr, Db(30.0));
        assert_eq!(Dbm(20.0) + Db(3.0), Dbm(23.0));
        assert_eq!(Dbm(20.0) - Db(3.0), Dbm(17.0));
        assert_eq!(-Db(3.0), Db(-3.0));
        close(Db(3.0).to_ratio(), 1.995_262_314_968_879_5, 1e-15);
        close(Db::from_ratio(2.0).0, 3.010_299_956_639_812, 1e-15);
    }

    #[test]
    fn interference_sums_in_milliwatts() {
        // Two equal -80 dBm interferers make -76.99 dBm, not -160 dBm.
        let total: MilliWatts = [Dbm(-80.0), Dbm(-80.0)].iter().map(|p| p.to_mw()).sum();
        close(total.to_dbm().0, -80.0 + 3.010_299_956_639_812, 1e-9);
        let mut acc = MilliWatts::ZERO;
        acc += Dbm(-80.0).to_mw();
        assert_eq!(
            acc - Dbm(-80.0).to_mw() - Dbm(-80.0).to_mw(),
            MilliWatts::ZERO
        );
        close(sinr(Dbm(-70.0).to_mw(), Dbm(-90.0).to_mw()).0, 20.0, 1e-9);
    }

    #[test]
    fn thermal_noise_matches_textbook() {
        // -174 dBm/Hz + 10 log10(22e6) = -100.58 dBm.
        close(thermal_noise(1.0, Db(0.0)).0, -173.975, 1e-3);
        close(thermal_noise(22e6, Db(7.0)).0, -100.551 + 7.0, 1e-2);
    }

    #[test]
    fn display_spells_units() {
        assert_eq!(Dbm(-82.5).to_string(), "-82.5 dBm");
        assert_eq!(format!("{:.1}", Db(10.0)), "10.0 dB");
        assert_eq!(format!("{:.2}", MilliWatts(1.0)), "1.00 mW");
    }
}
