//! The `[queue]` keys of the disciplines that declare their own
//! (`airqueue_sim::qdisc::registry`): each key is read by the type, default and range its
//! scheme gives, and the scheme's checks between keys run once all are in range.

use airqueue_sim::qdisc::registry::{Fallback, KeyValue, Params, Scheme, Setting, SCHEMES};

use super::fields::{short, Errs, Fields};
use super::QUEUE_KEYS;
use crate::error::ConfigError;

/// Every `queue.kind`: the registered ones (the default, drop-tail, first), then the
/// built-in ones.
pub(super) fn queue_kinds(builtin: &[&'static str]) -> Vec<&'static str> {
    let registered = SCHEMES.iter().map(|s| s.name);
    registered.chain(builtin.iter().copied()).collect()
}

/// `QUEUE_KEYS` with the registered schemes' keys: which kinds take which key, each
/// key's kinds in the order of `kinds`.
pub(super) fn keys_by_kind(kinds: &[&'static str]) -> Vec<(&'static str, Vec<&'static str>)> {
    let mut table: Vec<(&'static str, Vec<&'static str>)> = Vec::new();
    let registered = SCHEMES
        .iter()
        .flat_map(|s| s.keys.iter().map(|k| (k.name, s.name)));
    let builtin = (QUEUE_KEYS.iter()).flat_map(|(k, kinds)| kinds.iter().map(|kind| (*k, *kind)));
    for (key, kind) in builtin.chain(registered) {
        match table.iter_mut().find(|(k, _)| *k == key) {
            Some((_, kinds)) => kinds.push(kind),
            None => table.push((key, vec![kind])),
        }
    }
    let rank = |kind: &&str| kinds.iter().position(|k| k == kind);
    for (_, ks) in &mut table {
        ks.sort_by_key(rank);
    }
    table
}

/// Reads `scheme`'s keys from `[queue]`, then runs its check (which fills the derived
/// defaults); `None` when a key is invalid or the check found a mistake (reported), or
/// when the capacity or a derived key is undecided because something it depends on was
/// invalid (reported elsewhere).
pub(super) fn read(
    f: &mut Fields,
    errs: &mut Errs,
    scheme: &'static Scheme,
    setting: &Setting,
) -> Option<Params> {
    let mut params = Params::defaults(scheme);
    for key in scheme.keys {
        let value = match key.value {
            KeyValue::Seconds { default_s, max_s } => f
                .interval(
                    errs,
                    key.name,
                    Some(default_s),
                    &format!("a number of seconds in (0, {}]", short(max_s)),
                    |x| x > 0.0 && x <= max_s,
                )
                .map(Some),
            KeyValue::Integer { default, min, max } => f
                .integer(
                    errs,
                    key.name,
                    Some(default),
                    &format!("an integer in {min}..={max}"),
                    min..=max,
                )
                .map(|x| Some(x as f64)),
            KeyValue::Bool { default } => f
                .boolean(errs, key.name, default)
                .map(|b| Some(f64::from(u8::from(b)))),
            KeyValue::Real {
                default: Fallback::Value(default),
                range,
                expected,
            } => f
                .number(errs, key.name, Some(default), expected, |x| {
                    range.contains(x)
                })
                .map(Some),
            KeyValue::Real {
                range, expected, ..
            } => f.optional_number(errs, key.name, expected, |x| range.contains(x)),
            KeyValue::Packets {
                default: Some(default),
            } => f
                .packets(errs, key.name, Some(default))
                .map(|x| Some(f64::from(x))),
            KeyValue::Packets { default: None } if f.has(key.name) => {
                f.packets(errs, key.name, None).map(|x| Some(f64::from(x)))
            }
            KeyValue::Packets { default: None } => {
                // Absent, or a JSON null: off.
                let _ = f.take(key.name);
                Some(None)
            }
            KeyValue::Choice { default, names } => f
                .choice(errs, key.name, Some(default), names, &[])
                .and_then(|name| names.iter().position(|n| *n == name))
                .map(|i| Some(i as f64)),
        };
        match value {
            Some(Some(x)) => {
                params.set(key.name, x);
            }
            Some(None) => {}
            None => params.set_invalid(key.name),
        }
    }
    if let Some(c) = setting.capacity_pkts {
        params.capacity_pkts = c;
    }
    let problems = (scheme.check)(&mut params, setting);
    let fine = problems.is_empty();
    for p in problems {
        errs.push(ConfigError::new(f.path(p.key), p.message));
    }
    setting.capacity_pkts?;
    (fine && params.is_complete()).then_some(params)
}
