//! The `[queue]` keys of the active queue management kinds, "red", "pi" and "dqm": their
//! defaults (from the core's `RedConfig::ns2`, `PiConfig::hollot` and
//! `DqmConfig::table_ii`) and the checks between them and `capacity`. Which kind takes which key is `QUEUE_KEYS`' business.

use airqueue_sim::{DqmConfig, PiConfig, RedConfig};

use super::fields::{Errs, Fields};
use crate::error::ConfigError;
use crate::schema::{DqmSpec, PiSpec, RedSpec};

/// Reads the RED keys when `active` (kind = "red"); otherwise gives the defaults.
/// `rate_bps` is the medium's bit rate, for the default `mean_pkt_time`; `None` (the
/// medium was invalid, already reported) leaves the spec undecided.
pub(super) fn read_red(
    f: &mut Fields,
    errs: &mut Errs,
    active: bool,
    capacity: Option<u32>,
    rate_bps: Option<f64>,
) -> Option<RedSpec> {
    let default_s = rate_bps.map(|r| RedConfig::mean_pkt_time_at(r).as_secs_f64());
    if !active {
        return Some(RedSpec {
            min_threshold_pkts: RedConfig::MIN_TH_PKTS,
            max_threshold_pkts: RedConfig::MAX_TH_PER_MIN_TH * RedConfig::MIN_TH_PKTS,
            max_p: RedConfig::MAX_P,
            weight: RedConfig::WEIGHT,
            gentle: RedConfig::GENTLE,
            ecn: false,
            mean_pkt_time_s: default_s?,
        });
    }
    let min = f.number(
        errs,
        "min_threshold",
        Some(RedConfig::MIN_TH_PKTS),
        "a number of packets >= 0",
        |x| x >= 0.0,
    );
    // Floyd & Jacobson's and ns-2's max_th = 3 min_th unless given.
    let max_given = f.has("max_threshold");
    let max = f
        .optional_number(errs, "max_threshold", "a number of packets > 0", |x| {
            x > 0.0
        })
        .and_then(|x| x.or(min.map(|m| RedConfig::MAX_TH_PER_MIN_TH * m)));
    let unit = |x: f64| x > 0.0 && x <= 1.0;
    let max_p = f.number(
        errs,
        "max_p",
        Some(RedConfig::MAX_P),
        "a probability in (0, 1]",
        unit,
    );
    let weight = f.number(
        errs,
        "weight",
        Some(RedConfig::WEIGHT),
        "a weight in (0, 1]",
        unit,
    );
    let gentle = f.boolean(errs, "gentle", RedConfig::GENTLE);
    let ecn = f.boolean(errs, "ecn", false);
    let mean_pkt_time = f
        .optional_number(
            errs,
            "mean_pkt_time",
            "a number of seconds in (0, 3600]",
            |x| x > 0.0 && x <= 3600.0,
        )
        .and_then(|x| x.or(default_s));
    let default = if max_given {
        ""
    } else {
        " (the default, 3 x min_threshold)"
    };
    if let (Some(lo), Some(hi)) = (min, max) {
        if hi <= lo {
            errs.push(ConfigError::new(
                f.path("max_threshold"),
                format!("must be greater than min_threshold ({lo} packets), got {hi}{default}"),
            ));
        } else if let Some(c) = capacity.filter(|&c| hi > c as f64) {
            errs.push(ConfigError::new(
                f.path("max_threshold"),
                format!("must be at most capacity ({c} packets), got {hi}{default}"),
            ));
        }
    }
    Some(RedSpec {
        min_threshold_pkts: min?,
        max_threshold_pkts: max?,
        max_p: max_p?,
        weight: weight?,
        gentle: gentle?,
        ecn: ecn?,
        mean_pkt_time_s: mean_pkt_time?,
    })
}

/// Reads the PI keys when `active` (kind = "pi"); otherwise gives the defaults.
pub(super) fn read_pi(
    f: &mut Fields,
    errs: &mut Errs,
    active: bool,
    capacity: Option<u32>,
) -> Option<PiSpec> {
    let default_q_ref = capacity.map(PiConfig::default_q_ref);
    if !active {
        return Some(PiSpec {
            q_ref_pkts: default_q_ref?,
            a: PiConfig::A,
            b: PiConfig::B,
            sample_hz: PiConfig::SAMPLE_HZ,
            ecn: false,
        });
    }
    let q_ref = f
        .optional_number(errs, "q_ref", "a number of packets > 0", |x| x > 0.0)
        .and_then(|x| x.or(default_q_ref));
    let (a, b, sample_hz) = read_gains(f, errs);
    let ecn = f.boolean(errs, "ecn", false);
    if let (Some(q), Some(c)) = (q_ref, capacity) {
        if q >= c as f64 {
            errs.push(ConfigError::new(
                f.path("q_ref"),
                format!("must be below capacity ({c} packets), got {q}"),
            ));
        }
    }
    check_integral_gain(f, errs, a, b);
    Some(PiSpec {
        q_ref_pkts: q_ref?,
        a: a?,
        b: b?,
        sample_hz: sample_hz?,
        ecn: ecn?,
    })
}

/// The PI controller's `a`, `b` and `sample_hz` (kinds "pi" and "dqm"); see
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
