//! The `[queue]` keys of kind "dqm": their defaults (seed 004's Table II,
//! `DqmConfig::table_ii`, and `PiConfig::hollot`'s gains) and the check between them.
//! Which kind takes which key is `QUEUE_KEYS`' business.

use airqueue_sim::{DqmConfig, PiConfig};

use super::fields::{Errs, Fields};
use crate::error::ConfigError;
use crate::schema::DqmSpec;

/// The PI controller's `a`, `b` and `sample_hz` (as kind "pi" declares them); see
/// [`check_integral_gain`].
fn read_gains(f: &mut Fields, errs: &mut Errs) -> (Option<f64>, Option<f64>, Option<f64>) {
    let a = f.number(errs, "a", Some(PiConfig::A), "a gain in (0, 1]", |x| {
        x > 0.0 && x <= 1.0
    });
    let b = f.number(errs, "b", Some(PiConfig::B), "a gain in [0, 1]", |x| {
        (0.0..=1.0).contains(&x)
    });
    let sample_hz = f.number(
        errs,
        "sample_hz",
        Some(PiConfig::SAMPLE_HZ),
        "a sampling rate in (0, 1e6] Hz",
        |x| x > 0.0 && x <= 1e6,
    );
    (a, b, sample_hz)
}

/// `b <= a`: the integral gain `a - b` must not be negative.
fn check_integral_gain(f: &Fields, errs: &mut Errs, a: Option<f64>, b: Option<f64>) {
    if let (Some(a), Some(b)) = (a, b) {
        if b > a {
            errs.push(ConfigError::new(
                f.path("b"),
                format!(
                    "must be at most a ({a}), got {b}: a - b is the integral gain, which must \
                     not be negative"
                ),
            ));
        }
    }
}

/// Reads the DQM keys when `active` (kind = "dqm"); otherwise gives the defaults.
pub(super) fn read_dqm(f: &mut Fields, errs: &mut Errs, active: bool) -> Option<DqmSpec> {
    let defaults = DqmSpec {
        d_ref_s: DqmConfig::D_REF.as_secs_f64(),
        a: PiConfig::A,
        b: PiConfig::B,
        sample_hz: PiConfig::SAMPLE_HZ,
        t_fair_s: DqmConfig::T_FAIR.as_secs_f64(),
        flow_timeout_s: DqmConfig::FLOW_TIMEOUT.as_secs_f64(),
    };
    if !active {
        return Some(defaults);
    }
    let mut seconds = |key: &'static str, default: f64, max: f64| {
        f.interval(
            errs,
            key,
            Some(default),
            &format!("a number of seconds in (0, {max}]"),
            |x| x > 0.0 && x <= max,
        )
    };
    let d_ref = seconds("d_ref", defaults.d_ref_s, 10.0);
    let t_fair = seconds("t_fair", defaults.t_fair_s, 1.0);
    let flow_timeout = seconds("flow_timeout", defaults.flow_timeout_s, 3600.0);
    let (a, b, sample_hz) = read_gains(f, errs);
    check_integral_gain(f, errs, a, b);
    Some(DqmSpec {
        d_ref_s: d_ref?,
        a: a?,
        b: b?,
        sample_hz: sample_hz?,
        t_fair_s: t_fair?,
        flow_timeout_s: flow_timeout?,
    })
}
