//! `[flows]`: flows drawn at random instead of listed. This reads the table; drawing the
//! (src, dst) pairs needs the placed topology and lives in `topology::draw_random_flows`.
//!
//! Every key a `[[flow]]` takes except `src` and `dst` reads exactly as it does there (by
//! handing the rest of the table to `read_flow`), so new flow keys apply to both.

use serde_json::{json, Map, Value};

use super::fields::{closest, describe, integer, number, Errs};
use super::{read_flow, read_pair, MAX_NODES};
use crate::error::ConfigError;
use crate::schema::RandomFlows;

/// Most flows one `[flows]` table may draw.
pub const MAX_RANDOM_FLOWS: u32 = 100_000;

/// The keys of `[flows]` that a `[[flow]]` does not have (`start` is shared but may be a
/// `[min, max]` range here).
const OWN_KEYS: [&str; 4] = ["random", "start", "min_hops", "max_hops"];

const START_EXPECTED: &str = "a number of seconds >= 0, or [min, max] seconds with 0 <= min <= max";

/// Reads the optional `[flows]` table. `Some(None)` when it is absent; `None` when it is
/// invalid (every problem already recorded). `max_offered_bps` bounds `rate` as in a
/// `[[flow]]` (see `offered_rate`).
pub(super) fn read(
    v: Option<&Value>,
    duration: Option<f64>,
    max_offered_bps: Option<(f64, f64)>,
    errs: &mut Errs,
) -> Option<Option<RandomFlows>> {
    let Some(v) = v else { return Some(None) };
    let Some(map) = v.as_object() else {
        errs.push(ConfigError::new(
            "flows",
            format!(
                "expected a table ([flows] with random = <number of flows>), got {}",
                describe(v)
            ),
        ));
        return None;
    };
    let given = |key: &str| map.get(key).filter(|v| !v.is_null());

    let mut all_ok = true;
    for key in ["src", "dst"] {
        if given(key).is_some() {
            errs.push(ConfigError::new(
                format!("flows.{key}"),
                "not used by [flows], which draws src and dst at random; declare a flow \
                 between given nodes as a [[flow]] table",
            ));
            all_ok = false;
        }
    }

    let count_expected = format!("an integer number of flows in 1..={MAX_RANDOM_FLOWS}");
    let count = match given("random") {
        Some(v) => integer(
            v,
            "flows.random",
            errs,
            &count_expected,
            1..=u64::from(MAX_RANDOM_FLOWS),
        ),
        None => {
            errs.push(ConfigError::new(
                "flows.random",
                format!("missing required key; expected {count_expected}"),
            ));
            None
        }
    };
    let hops_expected = format!("an integer number of hops in 1..={MAX_NODES}");
    let hops = |key: &str, errs: &mut Errs| {
        given(key).map(|v| {
            integer(
                v,
                &format!("flows.{key}"),
                errs,
                &hops_expected,
                1..=u64::from(MAX_NODES),
            )
            .map(|h| h as u32)
        })
    };
    let min_hops = hops("min_hops", errs).unwrap_or(Some(1));
    // Outer None: invalid (reported); Some(None): absent, no limit.
    let max_hops = match hops("max_hops", errs) {
        None => Some(None),
        Some(h) => h.map(Some),
    };
    if let (Some(lo), Some(Some(hi))) = (min_hops, max_hops) {
        if hi < lo {
            errs.push(ConfigError::new(
                "flows.max_hops",
                format!("must be >= min_hops ({lo}), got {hi}"),
            ));
            all_ok = false;
        }
    }

    let start = match given("start") {
        None => Some([0.0, 0.0]),
        Some(v @ Value::Array(_)) => {
            read_pair(v, "flows.start", errs, START_EXPECTED, |x| x >= 0.0).filter(|[lo, hi]| {
                let ok = lo <= hi;
                if !ok {
                    errs.push(ConfigError::new(
                        "flows.start",
                        format!("expected {START_EXPECTED}, got [{lo}, {hi}] (min > max)"),
                    ));
                }
                ok
            })
        }
        Some(v) => number(v, "flows.start", errs, START_EXPECTED, |x| x >= 0.0).map(|x| [x, x]),
    };

    // The rest is a [[flow]] with placeholder ends; its start is the latest one drawable,
    // so that read_flow checks it against duration and stop.
    let mut rest = Map::new();
    for (key, value) in map {
        if OWN_KEYS.contains(&key.as_str()) || key == "src" || key == "dst" {
            continue;
        }
        match closest(key, &OWN_KEYS) {
            Some(near) => {
                errs.push(ConfigError::new(
                    format!("flows.{key}"),
                    format!("unknown key; did you mean {near:?}?"),
                ));
                all_ok = false;
            }
            None => {
                rest.insert(key.clone(), value.clone());
            }
        }
    }
    rest.insert("src".into(), json!(0));
    rest.insert("dst".into(), json!(1));
    if let Some([_, hi]) = start {
        rest.insert("start".into(), json!(hi));
    }
    let template = read_flow(
        &Value::Object(rest),
        "flows",
        None,
        duration,
        max_offered_bps,
        errs,
    );

    if !all_ok {
        return None;
    }
    let mut template = template?;
    let start_s = start?;
    template.start_s = start_s[0];
    Some(Some(RandomFlows {
        count: count? as u32,
        start_s,
        min_hops: min_hops?,
        max_hops: max_hops?,
        template,
    }))
}
