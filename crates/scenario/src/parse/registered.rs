//! The `[queue]` keys of the disciplines that declare their own
//! (`airqueue_sim::qdisc::registry`), the keys some keep in a top-level table named
//! after them, the tables of the source rate controllers
//! (`airqueue_sim::transport::RATE_SCHEMES`) and the `[routing]` keys of the routing
//! protocols (`airqueue_sim::net::registry`) and the `[[flow]]` keys of the flow kinds
//! (`airqueue_sim::transport::FLOW_KINDS`): each key is read by the type, default and
//! range its scheme gives, and the scheme's checks between keys run once all are read.

use airqueue_sim::net::registry::{RoutingScheme, ROUTING_SCHEMES};
use airqueue_sim::qdisc::registry::{
    Fallback, Key, KeyValue, OnlyWith, Params, Range, Scheme, Setting, SCHEMES,
};
use airqueue_sim::transport::{FlowKindScheme, RateScheme, RateSetting, FLOW_KINDS, RATE_SCHEMES};

use super::fields::{short, within, Errs, Fields};
use super::{offered_rate, read_rate};
use crate::error::ConfigError;

/// Every `queue.kind`, the default (drop-tail) first.
pub(super) fn queue_kinds() -> Vec<&'static str> {
    SCHEMES.iter().map(|s| s.name).collect()
}

/// The registered schemes' `[queue]` keys: which kinds take which key, each key's kinds
/// in the order of `kinds`.
pub(super) fn keys_by_kind(kinds: &[&'static str]) -> Vec<(&'static str, Vec<&'static str>)> {
    let mut table = Vec::new();
    let registered = SCHEMES
        .iter()
        .flat_map(|s| s.keys.iter().map(|k| (k.name, s.name)));
    add_kinds(&mut table, registered);
    let rank = |kind: &&str| kinds.iter().position(|k| k == kind);
    for (_, ks) in &mut table {
        ks.sort_by_key(rank);
    }
    table
}

/// Every `routing.kind`: `"static"` (the default: no protocol), then the registered
/// protocols.
pub(super) fn routing_kinds() -> Vec<&'static str> {
    let protocols = ROUTING_SCHEMES.iter().map(|s| s.name);
    std::iter::once("static").chain(protocols).collect()
}

/// Which routing kinds take which `[routing]` key: `metric` (static routing and the
/// protocols with a default metric), then the protocols' keys, each key's kinds in
/// registration order.
pub(super) fn routing_keys_by_kind() -> Vec<(&'static str, Vec<&'static str>)> {
    let with_metric = ROUTING_SCHEMES
        .iter()
        .filter(|s| s.default_metric.is_some());
    let metric_kinds = std::iter::once("static").chain(with_metric.map(|s| s.name));
    let mut table = vec![("metric", metric_kinds.collect())];
    let registered = ROUTING_SCHEMES
        .iter()
        .flat_map(|s| s.keys.iter().map(|k| (k.name, s.name)));
    add_kinds(&mut table, registered);
    table
}

/// Which flow kinds take which `[[flow]]` key: each kind's own keys, then `cc` (the
/// kinds a source rate controller may pace), each key's kinds in registration order.
pub(super) fn flow_keys_by_kind() -> Vec<(&'static str, Vec<&'static str>)> {
    let mut table = Vec::new();
    let registered = FLOW_KINDS
        .iter()
        .flat_map(|s| s.keys.iter().map(|k| (k.name, s.name)));
    add_kinds(&mut table, registered);
    let paced = FLOW_KINDS.iter().filter(|s| s.takes_cc).map(|s| s.name);
    table.push(("cc", paced.collect()));
    table
}

/// Reads `kind`'s keys from a `[[flow]]` (`f`); `None` when one is invalid or a
/// required one missing (reported). `max_offered_bps` bounds a source's rate (see
/// [`offered_rate`]).
pub(super) fn read_flow_keys(
    f: &mut Fields,
    errs: &mut Errs,
    kind: &'static FlowKindScheme,
    max_offered_bps: Option<(f64, f64)>,
) -> Option<Params> {
    let mut params = kind.defaults();
    read_keys_with(f, errs, kind.keys, &[], max_offered_bps, &mut params);
    params.is_complete().then_some(params)
}

/// Adds each (key, kind) pair to `table`: the kind to the key's row, or a new row.
fn add_kinds(
    table: &mut Vec<(&'static str, Vec<&'static str>)>,
    pairs: impl Iterator<Item = (&'static str, &'static str)>,
) {
    for (key, kind) in pairs {
        match table.iter_mut().find(|(k, _)| *k == key) {
            Some((_, kinds)) => kinds.push(kind),
            None => table.push((key, vec![kind])),
        }
    }
}

/// Reads `scheme`'s keys from `[routing]` (`f`) and runs its check; `None` when a key
/// is invalid or the check found a mistake (reported).
pub(super) fn read_routing(
    f: &mut Fields,
    errs: &mut Errs,
    scheme: &'static RoutingScheme,
) -> Option<Params> {
    let mut params = Params::of_keys(scheme.keys.iter().collect());
    read_keys_with(f, errs, scheme.keys, scheme.only_with, None, &mut params);
    let problems = (scheme.check)(&mut params);
    let fine = problems.is_empty();
    for p in problems {
        errs.push(ConfigError::new(f.path(p.key), p.message));
    }
    (fine && params.is_complete()).then_some(params)
}

/// The top-level tables of the schemes that keep keys there ([`Scheme::table_keys`]),
/// taken from the scenario before `[queue]` is read.
pub(super) struct SchemeTables<'a> {
    tables: Vec<(&'static Scheme, Fields<'a>)>,
}

impl<'a> SchemeTables<'a> {
    /// Takes `[<name>]` for every scheme with table keys.
    pub(super) fn take(top: &mut Fields<'a>, errs: &mut Errs) -> Self {
        let with_table = SCHEMES.iter().filter(|s| !s.table_keys.is_empty());
        let tables = with_table
            .map(|&s| (s, top.section(s.name, errs)))
            .collect();
        SchemeTables { tables }
    }

    fn table(&mut self, scheme: &Scheme) -> Option<&mut Fields<'a>> {
        (self.tables.iter_mut()).find_map(|(s, f)| (*s == scheme).then_some(f))
    }

    /// Checks the table keys of every scheme but `selected` (their tables may be there
    /// for other parts of the model, and a value of the wrong type is a mistake
    /// whichever queue runs).
    pub(super) fn check_unselected(&mut self, errs: &mut Errs, selected: Option<&Scheme>) {
        for (scheme, f) in &mut self.tables {
            if selected != Some(*scheme) {
                let mut params = Params::defaults(scheme);
                read_keys(f, errs, scheme.table_keys, &mut params);
            }
        }
    }

    /// The table named `name`, if a scheme keeps keys there, to read its other keys.
    fn remove_named(&mut self, name: &str) -> Option<Fields<'a>> {
        let i = self.tables.iter().position(|(s, _)| s.name == name)?;
        Some(self.tables.remove(i).1)
    }

    /// Reports the unknown keys of the tables not removed.
    pub(super) fn finish(self, errs: &mut Errs) {
        for (_, f) in self.tables {
            f.finish(errs);
        }
    }
}

/// Reads `scheme`'s keys from `[queue]` (`f`) and its table keys from its table, then
/// runs its check (which fills the derived defaults); `None` when a key is invalid or
/// the check found a mistake (reported), or when the capacity or a derived key is
/// undecided because something it depends on was invalid (reported elsewhere).
pub(super) fn read(
    f: &mut Fields,
    tables: &mut SchemeTables,
    errs: &mut Errs,
    scheme: &'static Scheme,
    setting: &Setting,
) -> Option<Params> {
    let mut params = Params::defaults(scheme);
    read_keys(f, errs, scheme.keys, &mut params);
    let mut table = tables.table(scheme);
    if let Some(t) = table.as_deref_mut() {
        read_keys(t, errs, scheme.table_keys, &mut params);
    }
    if let Some(c) = setting.capacity_pkts {
        params.capacity_pkts = c;
    }
    let problems = (scheme.check)(&mut params, setting);
    let fine = problems.is_empty();
    for p in problems {
        let in_table = scheme.table_keys.iter().any(|k| k.name == p.key);
        let path = match &table {
            Some(t) if in_table => t.path(p.key),
            _ => f.path(p.key),
        };
        errs.push(ConfigError::new(path, p.message));
    }
    setting.capacity_pkts?;
    (fine && params.is_complete()).then_some(params)
}

/// Reads the table of every registered source rate controller with keys, in the order
/// of [`RATE_SCHEMES`] (a table a queue discipline shares, `[diffq]`, from `tables`; the
/// others from `top`), runs each scheme's check and reports the table's unknown keys.
/// Each scheme comes with its keys, `None` when one was invalid or the check found a
/// mistake (reported); a scheme without keys takes no table.
pub(super) fn read_rate_tables(
    top: &mut Fields,
    tables: &mut SchemeTables,
    setting: &RateSetting,
    errs: &mut Errs,
) -> Vec<(&'static RateScheme, Option<Params>)> {
    let mut out = Vec::with_capacity(RATE_SCHEMES.len());
    for &scheme in RATE_SCHEMES {
        let mut params = Params::of_keys(scheme.keys.iter().collect());
        if scheme.keys.is_empty() {
            out.push((scheme, Some(params)));
            continue;
        }
        let mut f = match tables.remove_named(scheme.name) {
            Some(f) => f,
            None => top.section(scheme.name, errs),
        };
        read_keys(&mut f, errs, scheme.keys, &mut params);
        let problems = (scheme.check)(&mut params, setting);
        let fine = problems.is_empty();
        for p in problems {
            errs.push(ConfigError::new(f.path(p.key), p.message));
        }
        f.finish(errs);
        out.push((scheme, (fine && params.is_complete()).then_some(params)));
    }
    out
}

/// Reads `keys` from `f` into `params`, marking the ones written as given and the
/// refused ones invalid (reported).
fn read_keys(f: &mut Fields, errs: &mut Errs, keys: &'static [Key], params: &mut Params) {
    read_keys_with(f, errs, keys, &[], None, params);
}

/// [`read_keys`], where a key of `only_with` is read only beside the values of its
/// choice key that take it: beside another it is refused as not used (and silently
/// dropped when that choice was invalid, already reported), and keeps its default.
/// `max_offered_bps` bounds a [`KeyValue::RateOrSaturate`] key (see [`offered_rate`]).
fn read_keys_with(
    f: &mut Fields,
    errs: &mut Errs,
    keys: &'static [Key],
    only_with: &[OnlyWith],
    max_offered_bps: Option<(f64, f64)>,
    params: &mut Params,
) {
    for key in keys {
        if let Some(w) = only_with.iter().find(|w| w.key == key.name) {
            let value = params.choice(w.choice);
            let given = f.has(w.choice);
            f.only_for(errs, w.choice, value, given, &[(w.key, w.values)]);
            if !value.is_some_and(|v| w.values.contains(&v)) {
                continue;
            }
        }
        if f.has(key.name) {
            params.set_given(key.name);
        }
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
            KeyValue::BitRate { default } => {
                let default = match default {
                    Fallback::Value(d) => Some(d),
                    _ => None,
                };
                if default.is_some() || f.has(key.name) {
                    let x = f.number(errs, key.name, default, "bit/s > 0", |x| x > 0.0);
                    offered_rate(errs, &f.path(key.name), x, None).map(Some)
                } else {
                    // Absent, or a JSON null: off or derived.
                    let _ = f.take(key.name);
                    Some(None)
                }
            }
            KeyValue::Capped {
                default,
                max,
                expected,
                unit,
                why,
            } => {
                let x = f.number(errs, key.name, Some(default), expected, |x| x > 0.0);
                within(errs, &f.path(key.name), x, (0.0, max), unit, why).map(Some)
            }
            KeyValue::Count {
                default,
                min,
                max,
                expected,
            } => f
                .integer(errs, key.name, Some(default), expected, min..=max)
                .map(|x| Some(x as f64)),
            KeyValue::MoreThan {
                max_s, expected, ..
            } => match params.relative(key) {
                Some((than, default)) => {
                    let expected =
                        format!("seconds in ({}, {}], {expected}", short(than), short(max_s));
                    f.number(errs, key.name, Some(default), &expected, |x| {
                        x > than && x <= max_s
                    })
                    .map(Some)
                }
                // Never for a registered key: the keys it depends on have defaults.
                None => {
                    let _ = f.take(key.name);
                    Some(None)
                }
            },
            KeyValue::ShareOf { expected, .. } => match params.relative(key) {
                Some((bound, default)) => {
                    let expected = format!("seconds in [0, {}], {expected}", short(bound));
                    f.number(errs, key.name, Some(default), &expected, |x| {
                        (0.0..=bound).contains(&x)
                    })
                    .map(Some)
                }
                None => {
                    let _ = f.take(key.name);
                    Some(None)
                }
            },
            KeyValue::RateOrSaturate => read_rate(f, key.name, max_offered_bps, errs).map(Some),
            KeyValue::OptionalCount { min, max, expected } if f.has(key.name) => f
                .integer(errs, key.name, None, expected, min..=max)
                .map(|x| Some(x as f64)),
            KeyValue::OptionalCount { .. } => {
                // Absent, or a JSON null: none.
                let _ = f.take(key.name);
                Some(None)
            }
            KeyValue::Duration {
                default,
                max_s,
                zero_is_off,
                expected,
            } => {
                let range = Range::duration(max_s, zero_is_off);
                let in_range = |x: f64| range.contains(x);
                match default {
                    Fallback::Value(d) => f
                        .interval(errs, key.name, Some(d), expected, in_range)
                        .map(Some),
                    _ if f.has(key.name) => f
                        .interval(errs, key.name, None, expected, in_range)
                        .map(Some),
                    _ => {
                        // Absent, or a JSON null: off or derived.
                        let _ = f.take(key.name);
                        Some(None)
                    }
                }
            }
        };
        match value {
            Some(Some(x)) => {
                params.set(key.name, x);
            }
            Some(None) => {}
            None => params.set_invalid(key.name),
        }
    }
}
