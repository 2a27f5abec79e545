//! Simulated time as an integer number of nanoseconds.
//!
//! 802.11b timing needs sub-microsecond resolution (a 1 byte at 11 Mb/s lasts about 727 ns),
//! so nanoseconds it is; a `u64` of nanoseconds spans 584 years of simulated time.
//! Floating-point seconds exist only at the edges (scenario files, reports).

use std::fmt;
use std::ops::{Add, AddAssign, Sub};

/// An instant or a span of simulated time, in integer nanoseconds.
#[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Default)]
pub struct Time(u64);

impl Time {
    pub const ZERO: Time = Time(0);
    pub const MAX: Time = Time(u64::MAX);

    pub const fn from_nanos(ns: u64) -> Time {
        Time(ns)
    }
    pub const fn from_micros(us: u64) -> Time {
        Time(us * 1_000)
    }
    pub const fn from_millis(ms: u64) -> Time {
        Time(ms * 1_000_000)
    }
    pub const fn from_secs(s: u64) -> Time {
        Time(s * 1_000_000_000)
    }
    /// Rounds to the nearest nanosecond; negative and NaN inputs give zero, huge ones saturate.
    /// Only for converting configuration values at the edges of the core.
    pub fn from_secs_f64(s: f64) -> Time {
        let ns = (s * 1e9).round();
        if ns.is_nan() || ns <= 0.0 {
            Time(0)
        } else if ns >= u64::MAX as f64 {
            Time::MAX
        } else {
            Time(ns as u64)
        }
    }
    pub const fn as_nanos(self) -> u64 {
        self.0
    }
    /// Seconds, correctly rounded: a division by 1e9 (exact) rather than a product with
    /// 1e-9 (inexact), so whole and decimal seconds come back as written (15 s is 15.0,
    /// not 15.000000000000002).
    pub fn as_secs_f64(self) -> f64 {
        self.0 as f64 / 1e9
    }
    pub const fn saturating_sub(self, other: Time) -> Time {
        Time(self.0.saturating_sub(other.0))
    }
    pub const fn checked_sub(self, other: Time) -> Option<Time> {
        match self.0.checked_sub(other.0) {
            Some(v) => Some(Time(v)),
            None => None,
        }
    }
    pub const fn saturating_add(self, other: Time) -> Time {
        Time(self.0.saturating_add(other.0))
    }
    /// Multiplies a span by an integer count (e.g. `slot * backoff_slots`).
    pub const fn times(self, n: u64) -> Time {
        Time(self.0 * n)
    }
    /// Time to send `bits` at `rate_bps`, rounded up to the next nanosecond so that a frame
    /// never ends before its last bit.
    #[inline]
    pub fn for_bits(bits: u64, rate_bps: f64) -> Time {
        debug_assert!(rate_bps > 0.0);
        Time(ceil_u64(bits as f64 * 1e9 / rate_bps))
    }
}

/// `x.ceil() as u64` without the libm call baseline x86-64 makes for `ceil`: the
/// truncation, plus one when it fell short (saturating, as the cast is).
#[inline]
fn ceil_u64(x: f64) -> u64 {
    let t = x as u64;
    if (t as f64) < x {
        t.saturating_add(1)
    } else {
        t
    }
}

impl Add for Time {
    type Output = Time;
    fn add(self, rhs: Time) -> Time {
        Time(self.0 + rhs.0)
    }
}

impl AddAssign for Time {
    fn add_assign(&mut self, rhs: Time) {
        self.0 += rhs.0;
    }
}

impl Sub for Time {
    type Output = Time;
    /// Panics in debug builds if `rhs > self`: a negative span is a logic error.
    fn sub(self, rhs: Time) -> Time {
        debug_assert!(rhs.0 <= self.0, "negative time span: {self:?} - {rhs:?}");
        Time(self.0.wrapping_sub(rhs.0))
    }
}

impl fmt::Debug for Time {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self)
    }
}

impl fmt::Display for Time {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{}.{:09}s",
            self.0 / 1_000_000_000,
            self.0 % 1_000_000_000
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn ceil_u64_is_the_ceiling_cast_at_the_edges() {
        let edges = [
            0.0,
            -0.0,
            -0.5,
            -3.0,
            0.5,
            1.0,
            1.0 + f64::EPSILON,
            2f64.powi(52) + 0.5,
            2f64.powi(53),
            2f64.powi(53) + 2.0,
            2f64.powi(63),
            2f64.powi(64),
            1e300,
            f64::INFINITY,
            f64::NEG_INFINITY,
            f64::NAN,
            f64::MIN_POSITIVE,
        ];
        for x in edges {
            assert_eq!(ceil_u64(x), x.ceil() as u64, "{x}");
        }
    }

    proptest! {
        #[test]
        fn ceil_u64_is_the_ceiling_cast(bits in any::<u64>(), rate in 1.0f64..1e12, x in any::<f64>()) {
            let v = bits as f64 * 1e9 / rate;
            prop_assert_eq!(ceil_u64(v), v.ceil() as u64);
            prop_assert_eq!(ceil_u64(x), x.ceil() as u64);
        }
    }

    #[test]
    fn constructors_agree() {
        assert_eq!(Time::from_secs(2), Time::from_millis(2000));
        assert_eq!(Time::from_millis(3), Time::from_micros(3000));
        assert_eq!(Time::from_micros(5), Time::from_nanos(5000));
        assert_eq!(Time::from_secs_f64(1.5), Time::from_millis(1500));
        assert_eq!(Time::from_secs_f64(-1.0), Time::ZERO);
        assert_eq!(Time::from_secs_f64(f64::NAN), Time::ZERO);
    }

    #[test]
    fn seconds_come_back_as_written() {
        for s in [15.0, 0.1, 0.3, 2.5, 60.0, 120.0, 1e-3] {
            assert_eq!(Time::from_secs_f64(s).as_secs_f64(), s);
        }
    }

    #[test]
    fn bit_time_rounds_up() {
        // 1000 bytes at 11 Mb/s = 727272.7.. ns -> 727273 ns
        assert_eq!(Time::for_bits(8000, 11e6).as_nanos(), 727_273);
        assert_eq!(Time::for_bits(8000, 1e6), Time::from_millis(8));
    }

    #[test]
    fn display_is_seconds() {
        assert_eq!(Time::from_millis(1500).to_string(), "1.500000000s");
    }
}
