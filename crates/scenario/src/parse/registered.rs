//! The `[queue]` keys of the disciplines that declare their own
//! (`airqueue_sim::qdisc::registry`): each key is read by the type, default and range its
//! scheme gives, and the scheme's checks between keys run once all are in range.

use airqueue_sim::qdisc::registry::{KeyValue, Params, Scheme, SCHEMES};

use super::fields::{short, Errs, Fields};
use super::QUEUE_KEYS;
use crate::error::ConfigError;

/// Every `queue.kind`: the built-in ones, then the registered ones.
pub(super) fn queue_kinds(builtin: &[&'static str]) -> Vec<&'static str> {
    let registered = SCHEMES.iter().map(|s| s.name);
    builtin.iter().copied().chain(registered).collect()
}

/// `QUEUE_KEYS` with the registered schemes' keys: which kinds take which key.
pub(super) fn keys_by_kind() -> Vec<(&'static str, Vec<&'static str>)> {
    let mut table: Vec<(&'static str, Vec<&'static str>)> = (QUEUE_KEYS.iter())
        .map(|(k, kinds)| (*k, kinds.to_vec()))
        .collect();
    for scheme in SCHEMES {
        for key in scheme.keys {
            match table.iter_mut().find(|(k, _)| *k == key.name) {
                Some((_, kinds)) => kinds.push(scheme.name),
                None => table.push((key.name, vec![scheme.name])),
            }
        }
    }
    table
}

/// Reads `scheme`'s keys from `[queue]`; `None` when one is invalid (reported).
pub(super) fn read(
    f: &mut Fields,
    errs: &mut Errs,
    scheme: &'static Scheme,
    capacity_pkts: Option<u32>,
) -> Option<Params> {
    let mut params = Params::defaults(scheme);
    let mut ok = true;
    for key in scheme.keys {
        let value = match key.value {
            KeyValue::Seconds { default_s, max_s } => f.interval(
                errs,
                key.name,
                Some(default_s),
                &format!("a number of seconds in (0, {}]", short(max_s)),
                |x| x > 0.0 && x <= max_s,
            ),
            KeyValue::Integer { default, min, max } => f
                .integer(
                    errs,
                    key.name,
                    Some(default),
                    &format!("an integer in {min}..={max}"),
                    min..=max,
                )
                .map(|x| x as f64),
            KeyValue::Bool { default } => f
                .boolean(errs, key.name, default)
                .map(|b| f64::from(u8::from(b))),
        };
        match value {
            Some(x) => {
                params.set(key.name, x);
            }
            None => ok = false,
        }
    }
    params.capacity_pkts = capacity_pkts?;
    if !ok {
        return None;
    }
    if let Err((key, message)) = (scheme.check)(&params) {
        errs.push(ConfigError::new(f.path(key), message));
        return None;
    }
    Some(params)
}
