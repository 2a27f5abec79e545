//! A small path-tracking reader over `serde_json::Value`: takes keys one at a time with
//! typed getters, records a `ConfigError` with the full key path for every problem, and
//! at the end reports every key nobody asked for, with a "did you mean" hint.
//!
//! Getters return `None` both when a required key is missing and when a value is invalid;
//! in either case the problem has already been recorded, so callers just propagate `None`
//! and keep reading to collect every problem in one pass.

use std::ops::RangeInclusive;

use serde_json::{Map, Value};

use super::{MAX_DURATION_S, MAX_QUEUE_PKTS, MIN_INTERVAL_S};
use crate::error::ConfigError;

/// The problems found so far, in reading order.
pub(crate) type Errs = Vec<ConfigError>;

/// `path.key`, or `key` at the top level.
pub(crate) fn join(path: &str, key: &str) -> String {
    if path.is_empty() {
        key.to_string()
    } else {
        format!("{path}.{key}")
    }
}

/// How a value is shown after "got": strings quoted, numbers as written, containers by
/// kind (quoting a whole table back at the user helps nobody).
pub(crate) fn describe(v: &Value) -> String {
    match v {
        Value::Null => "null".to_string(),
        Value::Bool(b) => b.to_string(),
        Value::Number(n) => n.to_string(),
        Value::String(s) => format!("{s:?}"),
        Value::Array(_) => "an array".to_string(),
        Value::Object(_) => "a table".to_string(),
    }
}

/// Formats a list of names as `a, b, c` for "expected one of" messages.
pub(crate) fn list(names: &[&str]) -> String {
    names.join(", ")
}

/// Optimal-string-alignment edit distance (Levenshtein plus adjacent transpositions, so
/// the common `flwo` typo counts as one edit).
fn edit_distance(a: &str, b: &str) -> usize {
    let a: Vec<char> = a.chars().collect();
    let b: Vec<char> = b.chars().collect();
    let w = b.len() + 1;
    let mut d = vec![0usize; (a.len() + 1) * w];
    for (i, row) in d.chunks_mut(w).enumerate() {
        row[0] = i;
    }
    for (j, cell) in d.iter_mut().take(w).enumerate() {
        *cell = j;
    }
    for i in 1..=a.len() {
        for j in 1..=b.len() {
            let cost = usize::from(a[i - 1] != b[j - 1]);
            let mut best = (d[(i - 1) * w + j] + 1)
                .min(d[i * w + j - 1] + 1)
                .min(d[(i - 1) * w + j - 1] + cost);
            if i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1] {
                best = best.min(d[(i - 2) * w + j - 2] + 1);
            }
            d[i * w + j] = best;
        }
    }
    d[a.len() * w + b.len()]
}

/// The candidate closest to `word`, if it is close enough to be a plausible typo. Short
/// words get a tight budget so that, say, `c` is not "corrected" to `a`.
pub(crate) fn closest<'k>(word: &str, candidates: &[&'k str]) -> Option<&'k str> {
    let lower = word.to_lowercase();
    let budget = match lower.chars().count() {
        0..=2 => 0,
        3..=5 => 1,
        6..=8 => 2,
        n => n / 3,
    };
    candidates
        .iter()
        .map(|c| (edit_distance(&lower, &c.to_lowercase()), *c))
        .filter(|(d, _)| *d <= budget)
        .min_by_key(|(d, _)| *d)
        .map(|(_, c)| c)
}

/// Reads a finite number satisfying `ok`.
pub(crate) fn number(
    v: &Value,
    path: &str,
    errs: &mut Errs,
    expected: &str,
    ok: impl Fn(f64) -> bool,
) -> Option<f64> {
    match v.as_f64() {
        Some(x) if x.is_finite() && ok(x) => Some(x),
        _ => {
            errs.push(ConfigError::new(
                path,
                format!("expected {expected}, got {}", describe(v)),
            ));
            None
        }
    }
}

/// Keeps `x` (already read and checked by its key's own rule) only if it lies in
/// `[lo, hi]`, the range a physical network can have; else records why at `path`, e.g.
/// `flow[0].rate: 1e308 bit/s is above ...; use a value in [1e0, 1.1e8] bit/s`.
/// `why` says what the bound is ("10 x the fastest link of the scenario"), `fix` what to
/// write instead.
pub(crate) fn within(
    errs: &mut Errs,
    path: &str,
    x: Option<f64>,
    (lo, hi): (f64, f64),
    unit: &str,
    why: &str,
) -> Option<f64> {
    let x = x?;
    if (lo..=hi).contains(&x) {
        return Some(x);
    }
    let unit = if unit.is_empty() {
        String::new()
    } else {
        format!(" {unit}")
    };
    let side = if x < lo { "below" } else { "above" };
    let bound = if x < lo { lo } else { hi };
    errs.push(ConfigError::new(
        path,
        format!(
            "{}{unit} is {side} {}{unit} ({why}); use a value in [{}, {}]{unit}",
            short(x),
            short(bound),
            short(lo),
            short(hi)
        ),
    ));
    None
}

/// A number as a user would write it: `1e308`, `1.1e8`, `0.025`, `200`, `1e-6` (the
/// registry's, so that scheme ranges read the same).
pub(crate) use airqueue_sim::qdisc::registry::short;

/// Reads a non-negative integer in `range`. Floats are accepted only when integral:
/// TOML tells `3` from `3.0`, but JSON written by Python or JavaScript may not.
pub(crate) fn integer(
    v: &Value,
    path: &str,
    errs: &mut Errs,
    expected: &str,
    range: RangeInclusive<u64>,
) -> Option<u64> {
    let n = match v {
        Value::Number(n) => n.as_u64().or_else(|| {
            n.as_f64()
                .filter(|x| x.fract() == 0.0 && *x >= 0.0 && *x < 1.8e19)
                .map(|x| x as u64)
        }),
        _ => None,
    };
    match n {
        Some(n) if range.contains(&n) => Some(n),
        _ => {
            errs.push(ConfigError::new(
                path,
                format!("expected {expected}, got {}", describe(v)),
            ));
            None
        }
    }
}

/// Reads a node id: any non-negative integer that fits a `u32`; whether the node exists is
/// checked by the caller, which knows the topology.
pub(crate) fn node_id(v: &Value, path: &str, errs: &mut Errs) -> Option<u32> {
    integer(
        v,
        path,
        errs,
        "a node id (an integer >= 0)",
        0..=u64::from(u32::MAX),
    )
    .and_then(|n| u32::try_from(n).ok())
}

/// One table being read. Keys are taken one at a time; `finish` reports the rest.
pub(crate) struct Fields<'a> {
    path: String,
    map: Option<&'a Map<String, Value>>,
    /// The value was not a table: that was reported once, and every read now yields `None`
    /// silently instead of piling "missing key" errors on top.
    broken: bool,
    /// Keys this table understands (suggestion candidates for unknown keys).
    known: Vec<&'static str>,
    /// Keys already reported or dealt with, which `finish` must not call unknown.
    handled: Vec<String>,
}

impl<'a> Fields<'a> {
    /// Opens `v` as a table at `path` (empty for the top level).
    pub(crate) fn table(v: &'a Value, path: impl Into<String>, errs: &mut Errs) -> Self {
        let path = path.into();
        let map = v.as_object();
        if map.is_none() {
            let at = if path.is_empty() {
                "scenario"
            } else {
                path.as_str()
            };
            errs.push(ConfigError::new(
                at,
                format!("expected a table, got {}", describe(v)),
            ));
        }
        Fields {
            path,
            map,
            broken: map.is_none(),
            known: Vec::new(),
            handled: Vec::new(),
        }
    }

    /// A section that the file leaves out: every key reads as absent, so defaults apply.
    pub(crate) fn absent(path: impl Into<String>) -> Self {
        Fields {
            path: path.into(),
            map: None,
            broken: false,
            known: Vec::new(),
            handled: Vec::new(),
        }
    }

    /// Opens the optional section `key` of this table.
    pub(crate) fn section(&mut self, key: &'static str, errs: &mut Errs) -> Fields<'a> {
        let path = self.path(key);
        match self.take(key) {
            Some(v) => Fields::table(v, path, errs),
            None => Fields {
                broken: self.broken,
                ..Fields::absent(path)
            },
        }
    }

    pub(crate) fn path(&self, key: &str) -> String {
        join(&self.path, key)
    }

    pub(crate) fn is_broken(&self) -> bool {
        self.broken
    }

    /// Takes `key`. JSON `null` reads as absent, so a Python `None` means "use the
    /// default". (TOML has no null; its NaN and infinity are rejected before this point.)
    pub(crate) fn take(&mut self, key: &'static str) -> Option<&'a Value> {
        self.known.push(key);
        self.handled.push(key.to_string());
        self.map.and_then(|m| m.get(key)).filter(|v| !v.is_null())
    }

    /// `key`'s value, without taking it (for keys that accept more than one type).
    pub(crate) fn peek(&self, key: &str) -> Option<&'a Value> {
        self.map.and_then(|m| m.get(key)).filter(|v| !v.is_null())
    }

    /// Whether `key` is present, without taking it.
    pub(crate) fn has(&self, key: &str) -> bool {
        self.map
            .is_some_and(|m| m.get(key).is_some_and(|v| !v.is_null()))
    }

    /// Marks `key` as dealt with (reported by the caller, or irrelevant) without offering
    /// it as a suggestion for unknown keys.
    pub(crate) fn consume(&mut self, key: &str) {
        self.handled.push(key.to_string());
    }

    /// Keys that only some values of a selector key (`kind`, `propagation`) take. A key
    /// given with another value is a mistake worth a precise message ("rows applies only
    /// to kind grid"), not just "unknown key". `value` is the selector's value (`None` when
    /// it was invalid: already reported, so its keys are not called unknown as well);
    /// `given` says whether the file set it or the default applies.
    pub(crate) fn only_for(
        &mut self,
        errs: &mut Errs,
        selector: &str,
        value: Option<&str>,
        given: bool,
        keys: &[(&str, &[&str])],
    ) {
        for (key, values) in keys {
            match value {
                // A JSON null reads as absent: consumed without a word.
                Some(v) if !values.contains(&v) && !self.has(key) => self.consume(key),
                Some(v) if !values.contains(&v) => {
                    self.consume(key);
                    let which = match values {
                        [one] => format!("{selector} {one}"),
                        _ => format!("{selector}s {}", list(values)),
                    };
                    let default = if given { "" } else { " (the default)" };
                    errs.push(ConfigError::new(
                        self.path(key),
                        format!(
                            "not used by {selector} \"{v}\"{default}; {key} applies only to {which}"
                        ),
                    ));
                }
                None => self.consume(key),
                _ => {}
            }
        }
    }

    /// Records that a required key is missing.
    fn missing(&self, key: &str, expected: &str, errs: &mut Errs) {
        if !self.broken {
            errs.push(ConfigError::new(
                self.path(key),
                format!("missing required key; expected {expected}"),
            ));
        }
    }

    /// A number satisfying `ok`; `default` when absent, an error when absent and `default`
    /// is `None`.
    pub(crate) fn number(
        &mut self,
        errs: &mut Errs,
        key: &'static str,
        default: Option<f64>,
        expected: &str,
        ok: impl Fn(f64) -> bool,
    ) -> Option<f64> {
        match self.take(key) {
            Some(v) => number(v, &self.path(key), errs, expected, ok),
            None if self.broken => None,
            None => {
                if default.is_none() {
                    self.missing(key, expected, errs);
                }
                default
            }
        }
    }

    /// A period or timeout in seconds: [`Fields::number`], at most [`MAX_DURATION_S`], and
    /// a positive value must be at least [`MIN_INTERVAL_S`] (0 is left to `ok`, for keys
    /// where it means "off").
    pub(crate) fn interval(
        &mut self,
        errs: &mut Errs,
        key: &'static str,
        default: Option<f64>,
        expected: &str,
        ok: impl Fn(f64) -> bool,
    ) -> Option<f64> {
        let x = self.number(errs, key, default, expected, ok)?;
        if x > MAX_DURATION_S {
            // Past the longest run, a period's next instant would overflow the clock.
            errs.push(ConfigError::new(
                self.path(key),
                format!(
                    "{x:e} s is longer than the longest run ({MAX_DURATION_S:e} s); use at most \
                     {MAX_DURATION_S:e} s"
                ),
            ));
            return None;
        }
        if x > 0.0 && x < MIN_INTERVAL_S {
            errs.push(ConfigError::new(
                self.path(key),
                format!(
                    "{} s is below {} s, the shortest period or timeout accepted (the clock \
                     ticks in nanoseconds, and a timer rounded to 0 ns would fire without \
                     end at one instant); use at least {} s",
                    short(x),
                    short(MIN_INTERVAL_S),
                    short(MIN_INTERVAL_S)
                ),
            ));
            return None;
        }
        Some(x)
    }

    /// A number satisfying `ok` that may be absent: `Some(None)` when absent, `None` when
    /// invalid (reported). For a default derived from other keys, which is unknown when
    /// those were invalid: `.and_then(|x| x.or(default))`.
    pub(crate) fn optional_number(
        &mut self,
        errs: &mut Errs,
        key: &'static str,
        expected: &str,
        ok: impl Fn(f64) -> bool,
    ) -> Option<Option<f64>> {
        match self.take(key) {
            Some(v) => number(v, &self.path(key), errs, expected, ok).map(Some),
            None => Some(None),
        }
    }

    /// An integer in `range`, with the same default rule as `number`.
    pub(crate) fn integer(
        &mut self,
        errs: &mut Errs,
        key: &'static str,
        default: Option<u64>,
        expected: &str,
        range: RangeInclusive<u64>,
    ) -> Option<u64> {
        match self.take(key) {
            Some(v) => integer(v, &self.path(key), errs, expected, range),
            None if self.broken => None,
            None => {
                if default.is_none() {
                    self.missing(key, expected, errs);
                }
                default
            }
        }
    }

    /// A count of packets in `1..=MAX_QUEUE_PKTS`, with the same default rule as `number`.
    pub(crate) fn packets(
        &mut self,
        errs: &mut Errs,
        key: &'static str,
        default: Option<u32>,
    ) -> Option<u32> {
        let expected = format!("an integer number of packets in 1..={MAX_QUEUE_PKTS}");
        let n = self.integer(
            errs,
            key,
            default.map(u64::from),
            &expected,
            1..=u64::from(MAX_QUEUE_PKTS),
        );
        n.and_then(|n| u32::try_from(n).ok())
    }

    /// A required node id.
    pub(crate) fn node(&mut self, errs: &mut Errs, key: &'static str) -> Option<u32> {
        match self.take(key) {
            Some(v) => node_id(v, &self.path(key), errs),
            None => {
                self.missing(key, "a node id (an integer >= 0)", errs);
                None
            }
        }
    }

    pub(crate) fn boolean(
        &mut self,
        errs: &mut Errs,
        key: &'static str,
        default: bool,
    ) -> Option<bool> {
        match self.take(key) {
            Some(Value::Bool(b)) => Some(*b),
            Some(v) => {
                errs.push(ConfigError::new(
                    self.path(key),
                    format!("expected true or false, got {}", describe(v)),
                ));
                None
            }
            None if self.broken => None,
            None => Some(default),
        }
    }

    pub(crate) fn string(
        &mut self,
        errs: &mut Errs,
        key: &'static str,
        default: &'a str,
    ) -> Option<&'a str> {
        match self.take(key) {
            Some(Value::String(s)) => Some(s.as_str()),
            Some(v) => {
                errs.push(ConfigError::new(
                    self.path(key),
                    format!("expected a string, got {}", describe(v)),
                ));
                None
            }
            None if self.broken => None,
            None => Some(default),
        }
    }

    /// One of the names in `valid`. Names in `later` are known but not available in this
    /// version; each comes with its own message saying what to use instead.
    pub(crate) fn choice(
        &mut self,
        errs: &mut Errs,
        key: &'static str,
        default: Option<&'static str>,
        valid: &[&'static str],
        later: &[(&str, &str)],
    ) -> Option<&'static str> {
        let expected = match valid {
            [one] => format!("expected {one}"),
            _ => format!("expected one of {}", list(valid)),
        };
        let path = self.path(key);
        match self.take(key) {
            Some(Value::String(s)) => {
                if let Some(name) = valid.iter().find(|n| **n == s.as_str()) {
                    return Some(name);
                }
                let message = match later.iter().find(|(n, _)| *n == s.as_str()) {
                    Some((_, why)) => why.to_string(),
                    None => match closest(s, valid) {
                        Some(near) => {
                            format!("unknown {key} {s:?}; did you mean {near:?}? {expected}")
                        }
                        None => format!("unknown {key} {s:?}; {expected}"),
                    },
                };
                errs.push(ConfigError::new(path, message));
                None
            }
            Some(v) => {
                errs.push(ConfigError::new(
                    path,
                    format!("{expected} (a string), got {}", describe(v)),
                ));
                None
            }
            None if self.broken => None,
            None => {
                if default.is_none() {
                    self.missing(key, &expected["expected ".len()..], errs);
                }
                default
            }
        }
    }

    /// An array of tables (`[[key]]`); absent means empty.
    pub(crate) fn tables(&mut self, errs: &mut Errs, key: &'static str) -> &'a [Value] {
        match self.take(key) {
            Some(Value::Array(items)) => items,
            Some(v) => {
                errs.push(ConfigError::new(
                    self.path(key),
                    format!(
                        "expected an array of tables ([[{key}]]), got {}",
                        describe(v)
                    ),
                ));
                &[]
            }
            None => &[],
        }
    }

    /// Reports every key of the table that nobody took, suggesting the nearest known key.
    pub(crate) fn finish(self, errs: &mut Errs) {
        let Some(map) = self.map else { return };
        for key in map.keys() {
            if self.handled.iter().any(|h| h == key) {
                continue;
            }
            let message = match closest(key, &self.known) {
                Some(near) => format!("unknown key; did you mean {near:?}?"),
                None => format!("unknown key; expected one of {}", list(&self.known)),
            };
            errs.push(ConfigError::new(self.path(key), message));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn edit_distance_counts_transpositions_once() {
        assert_eq!(edit_distance("flwo", "flow"), 1);
        assert_eq!(edit_distance("capacty", "capacity"), 1);
        assert_eq!(edit_distance("", "abc"), 3);
        assert_eq!(edit_distance("ring", "chain"), 4);
    }

    #[test]
    fn short_words_are_not_corrected_to_other_short_words() {
        assert_eq!(closest("c", &["a", "b", "loss"]), None);
        assert_eq!(closest("B", &["a", "b", "loss"]), Some("b"));
        assert_eq!(
            closest("durration", &["duration", "warmup"]),
            Some("duration")
        );
    }
}
