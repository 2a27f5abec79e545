//! Queue disciplines that declare their own configuration: each scheme module exports a
//! [`Scheme`] (its `queue.kind` name, its keys with defaults, ranges and meaning, and how
//! to build one instance), and [`SCHEMES`] lists them. The scenario reader validates the
//! keys from the declaration and the world builds instances from it, so adding such a
//! discipline is its module plus one line here. A scheme may also keep keys in a
//! top-level table named after it ([`Scheme::table_keys`]).

use super::Qdisc;
use crate::ids::NodeId;
use airqueue_kernel::{RngStream, Time};
use airqueue_phy::access::Link;
use serde::ser::{Serialize, SerializeMap, Serializer};

/// Every discipline configured through its [`Scheme`] declaration.
pub static SCHEMES: &[&Scheme] = &[
    &super::droptail::SCHEME,
    &super::fq::SCHEME,
    &super::red::SCHEME,
    &super::pi::SCHEME,
    &super::dqm::SCHEME,
    &super::codel::SCHEME,
    &super::fq_codel::SCHEME,
    &super::diffq::SCHEME,
    &super::backpressure::SCHEME,
];

/// The scheme named `kind`, if it is registered.
pub fn scheme(kind: &str) -> Option<&'static Scheme> {
    SCHEMES.iter().copied().find(|s| s.name == kind)
}

/// A registered queue discipline.
#[derive(Debug)]
pub struct Scheme {
    /// Its `queue.kind`.
    pub name: &'static str,
    /// One line: what it is and where it is specified.
    pub summary: &'static str,
    /// `queue.capacity` when absent, packets.
    pub default_capacity_pkts: u32,
    /// Its own `[queue]` keys (besides `kind` and `capacity`).
    pub keys: &'static [Key],
    /// Its keys in the top-level table named after it (`[<name>]`), which it may share
    /// with other parts of the model (DiffQ's `[diffq]` also holds its sources' rate
    /// control); empty for most. The reader checks them whatever `queue.kind` is, as it
    /// does the rest of such a table; their names differ from those in `keys`.
    pub table_keys: &'static [Key],
    /// Whether it hands back the packets for a broken next hop
    /// ([`super::QueueDiscipline::remove_next_hop`]), so that AODV can re-route them.
    pub moves_packets_on_link_break: bool,
    /// Whether it drops early by design (an AQM such as RED or PI), so that a source
    /// that always has a packet (`rate = "saturate"`) would only meet its drops: the
    /// scenario reader refuses that pairing.
    pub refuses_saturating_source: bool,
    /// Whether it serves the access point of an infrastructure WLAN (node 0 of a BSS,
    /// given [`BuildContext::radio`]): the scenario reader refuses it on any other
    /// topology.
    pub runs_at_access_point: bool,
    /// Once every key is read: fills the keys whose default is [`Fallback::Derived`]
    /// and checks between keys. A key that was invalid (already reported) reads as
    /// `None` through [`Params::value`]; checks that need it are skipped.
    pub check: fn(&mut Params, &Setting) -> Vec<Problem>,
    /// One instance for one interface.
    pub build: fn(&Params, &mut BuildContext<'_>) -> Qdisc,
}

/// Schemes are one per name.
impl PartialEq for Scheme {
    fn eq(&self, other: &Self) -> bool {
        self.name == other.name
    }
}

impl Eq for Scheme {}

/// One key of a scheme's `[queue]` table.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Key {
    pub name: &'static str,
    /// What it means, with the clause it comes from (for docs and error messages).
    pub doc: &'static str,
    pub value: KeyValue,
}

/// A key's type, default and range.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum KeyValue {
    /// A duration in seconds in `(0, max_s]`.
    Seconds {
        default_s: f64,
        max_s: f64,
    },
    /// An integer in `min..=max`.
    Integer {
        default: u64,
        min: u64,
        max: u64,
    },
    Bool {
        default: bool,
    },
    /// A real number in `range`. `expected` is what an error message asks for ("a
    /// probability in (0, 1]"): it names the quantity and shows `range` as
    /// [`Range::describe`] writes it.
    Real {
        default: Fallback,
        range: Range,
        expected: &'static str,
    },
    /// A number of packets, from 1 to the reader's largest queue; `None`: absent means
    /// off (`null` in the resolved scenario).
    Packets {
        default: Option<u32>,
    },
    /// One of `names` (held as its index).
    Choice {
        default: &'static str,
        names: &'static [&'static str],
    },
    /// A duration in seconds in `(0, max_s]`, or in `[0, max_s]` with `zero_is_off` (0
    /// turns off what it times), any other value at least the reader's shortest period
    /// (as [`KeyValue::Seconds`]). `expected` is what an error message asks for, as for
    /// [`KeyValue::Real`]: it names the quantity and shows the interval.
    Duration {
        default: Fallback,
        max_s: f64,
        zero_is_off: bool,
        expected: &'static str,
    },
    /// An offered bit rate, bit/s: > 0, from the reader's slowest to its fastest rate
    /// (a source rate controller's bounds and steps).
    BitRate {
        default: Fallback,
    },
    /// A number > 0 (`expected` names it) and at most `max`: beyond it an error message
    /// gives the bound in `unit` and `why` it is there.
    Capped {
        default: f64,
        max: f64,
        expected: &'static str,
        unit: &'static str,
        why: &'static str,
    },
    /// An integer in `min..=max`; `expected` is what an error message asks for (it
    /// names the quantity: "an integer number of hops in 1..=255").
    Count {
        default: u64,
        min: u64,
        max: u64,
        expected: &'static str,
    },
    /// A duration in seconds more than the key `than` (declared before it: its value,
    /// or its default when that value was refused) and at most `max_s`; default
    /// `default_times` times `than` (RFC 3626's hold times). An error message asks for
    /// "seconds in (<than>, <max_s>], <expected>".
    MoreThan {
        than: &'static str,
        default_times: f64,
        max_s: f64,
        expected: &'static str,
    },
    /// A duration in seconds in `[0, share x m]`, `m` the smallest of the keys `of`
    /// (declared before it, each at its default when its value was refused); default
    /// that bound (RFC 5148's MAXJITTER). An error message asks for "seconds in [0,
    /// <bound>], <expected>".
    ShareOf {
        of: &'static [&'static str],
        share: f64,
        expected: &'static str,
    },
    /// A source's offered bit rate, or `"saturate"` (a source that always has a packet,
    /// held as infinity); required. The reader bounds it by the scenario's fastest
    /// link; the resolved scenario writes `{"bps": <rate>}` or `"saturate"`.
    RateOrSaturate,
    /// An integer in `min..=max`, or absent for none (`null` in the resolved scenario);
    /// `expected` as for [`KeyValue::Count`].
    OptionalCount {
        min: u64,
        max: u64,
        expected: &'static str,
    },
}

/// A key that only some values of a [`KeyValue::Choice`] key of the same scheme take
/// (OLSR's `lq_window`, with `lq_algorithm = "hello_window"` only): written beside
/// another value it is refused as not used by that value, else it keeps its default.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct OnlyWith {
    pub key: &'static str,
    /// The choice key, declared before `key`.
    pub choice: &'static str,
    /// The values of `choice` that take `key`.
    pub values: &'static [&'static str],
}

/// What a [`KeyValue::Real`] key is when absent.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Fallback {
    Value(f64),
    /// Nothing: the feature it sets is off (`null` in the resolved scenario).
    Off,
    /// Worked out by the scheme's [`Scheme::check`] from other keys, the capacity or
    /// the medium.
    Derived,
}

/// An interval of reals; `f64::INFINITY` as `max` leaves it unbounded above.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Range {
    pub min: f64,
    pub min_inclusive: bool,
    pub max: f64,
    pub max_inclusive: bool,
}

impl Range {
    /// `(min, max]`.
    pub const fn above_to(min: f64, max: f64) -> Self {
        Range {
            min,
            min_inclusive: false,
            max,
            max_inclusive: true,
        }
    }

    /// `[min, max]`.
    pub const fn closed(min: f64, max: f64) -> Self {
        Range {
            min,
            min_inclusive: true,
            max,
            max_inclusive: true,
        }
    }

    /// `(min, ∞)`.
    pub const fn above(min: f64) -> Self {
        Range::above_to(min, f64::INFINITY)
    }

    /// `[min, ∞)`.
    pub const fn at_least(min: f64) -> Self {
        Range::closed(min, f64::INFINITY)
    }

    /// A [`KeyValue::Duration`]'s interval: `(0, max_s]`, or `[0, max_s]` when 0 turns
    /// the timer off.
    pub const fn duration(max_s: f64, zero_is_off: bool) -> Self {
        Range {
            min_inclusive: zero_is_off,
            ..Range::closed(0.0, max_s)
        }
    }

    pub fn contains(&self, x: f64) -> bool {
        let above = if self.min_inclusive {
            x >= self.min
        } else {
            x > self.min
        };
        let below = if self.max_inclusive {
            x <= self.max
        } else {
            x < self.max
        };
        above && below
    }

    /// As an error message writes it: `> 0`, `>= 0`, `in (0, 1]`, `in [0, 1]`.
    pub fn describe(&self) -> String {
        let min = short(self.min);
        if self.max.is_infinite() {
            let op = if self.min_inclusive { ">=" } else { ">" };
            return format!("{op} {min}");
        }
        let open = if self.min_inclusive { '[' } else { '(' };
        let close = if self.max_inclusive { ']' } else { ')' };
        format!("in {open}{min}, {}{close}", short(self.max))
    }
}

/// A number as a user would write it: `1e6`, `0.025`, `200`, `1e-6`.
pub fn short(x: f64) -> String {
    let plain = format!("{x}");
    let exp = format!("{x:e}");
    if plain.len() <= exp.len().max(6) {
        plain
    } else {
        exp
    }
}

impl KeyValue {
    /// The default as the number [`Params`] holds (booleans as 0 or 1); `None` for a
    /// real that is off or derived.
    pub fn default_number(&self) -> Option<f64> {
        match *self {
            KeyValue::Seconds { default_s, .. } => Some(default_s),
            KeyValue::Integer { default, .. } => Some(default as f64),
            KeyValue::Bool { default } => Some(f64::from(u8::from(default))),
            KeyValue::Real { default, .. }
            | KeyValue::Duration { default, .. }
            | KeyValue::BitRate { default } => match default {
                Fallback::Value(x) => Some(x),
                Fallback::Off | Fallback::Derived => None,
            },
            KeyValue::Capped { default, .. } => Some(default),
            KeyValue::Count { default, .. } => Some(default as f64),
            // Worked out from the keys it depends on ([`Params::relative`]).
            KeyValue::MoreThan { .. } | KeyValue::ShareOf { .. } => None,
            KeyValue::RateOrSaturate | KeyValue::OptionalCount { .. } => None,
            KeyValue::Packets { default } => default.map(f64::from),
            KeyValue::Choice { default, names } => {
                names.iter().position(|n| *n == default).map(|i| i as f64)
            }
        }
    }

    /// Whether absence is a value (off), not a gap a check must fill.
    fn may_be_absent(&self) -> bool {
        matches!(
            self,
            KeyValue::Real {
                default: Fallback::Off,
                ..
            } | KeyValue::Duration {
                default: Fallback::Off,
                ..
            } | KeyValue::BitRate {
                default: Fallback::Off
            } | KeyValue::Packets { default: None }
                | KeyValue::OptionalCount { .. }
        )
    }
}

/// What a scheme's [`Scheme::check`] may read besides its own keys. Each is `None`
/// when it was invalid (already reported).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Setting {
    /// `queue.capacity`, packets.
    pub capacity_pkts: Option<u32>,
    /// The medium's bit rate (`medium.bandwidth` on wires, `radio.data_rate` on the
    /// 802.11 channel).
    pub rate_bps: Option<f64>,
}

/// A mistake [`Scheme::check`] found, reported at `queue.<key>`.
#[derive(Clone, Debug, PartialEq)]
pub struct Problem {
    pub key: &'static str,
    pub message: String,
}

impl Problem {
    pub fn new(key: &'static str, message: impl Into<String>) -> Self {
        Problem {
            key,
            message: message.into(),
        }
    }
}

/// The values of a scheme's keys and the queue's capacity, as read from a scenario (or
/// the defaults).
#[derive(Clone, Debug)]
pub struct Params {
    pub capacity_pkts: u32,
    /// The scheme's `[queue]` keys, then its table keys.
    keys: Vec<&'static Key>,
    /// One per key, in that order (booleans as 0 or 1); `None` for a real that
    /// is off, not derived yet, or was invalid.
    values: Vec<Option<f64>>,
    /// One per key: the scenario gave it a value that was refused (reported).
    invalid: Vec<bool>,
    /// One per key: the scenario wrote it (set by the reader through
    /// [`Params::set_given`]; not part of equality or of the resolved scenario).
    given: Vec<bool>,
}

/// Equal when they hold the same values, whether the scenario wrote them or not.
impl PartialEq for Params {
    fn eq(&self, other: &Self) -> bool {
        (self.capacity_pkts, &self.keys, &self.values, &self.invalid)
            == (
                other.capacity_pkts,
                &other.keys,
                &other.values,
                &other.invalid,
            )
    }
}

impl Params {
    /// Every key of `scheme` at its default (a derived key stays `None` until
    /// [`Params::resolved`] or the scheme's check fills it).
    pub fn defaults(scheme: &Scheme) -> Self {
        let keys: Vec<&'static Key> = scheme.keys.iter().chain(scheme.table_keys).collect();
        Params {
            capacity_pkts: scheme.default_capacity_pkts,
            ..Params::of_keys(keys)
        }
    }

    /// `keys` at their defaults, with no queue capacity (the keys of something other
    /// than a queue: a source rate controller's table, a routing protocol's keys).
    pub fn of_keys(keys: Vec<&'static Key>) -> Self {
        let mut p = Params {
            capacity_pkts: 0,
            values: keys.iter().map(|k| k.value.default_number()).collect(),
            invalid: vec![false; keys.len()],
            given: vec![false; keys.len()],
            keys,
        };
        for i in 0..p.keys.len() {
            if let Some((_, default)) = p.relative(p.keys[i]) {
                p.values[i] = Some(default);
            }
        }
        p
    }

    /// For a [`KeyValue::MoreThan`] or [`KeyValue::ShareOf`] key, the bound the keys it
    /// depends on set now (each at its default when its value was refused) and its
    /// default: `(than, default_times x than)` or `(bound, bound)`; `None` for the
    /// other kinds.
    pub fn relative(&self, key: &Key) -> Option<(f64, f64)> {
        let now = |name: &str| {
            let i = self.index(name);
            self.values[i].or_else(|| self.keys[i].value.default_number())
        };
        match key.value {
            KeyValue::MoreThan {
                than,
                default_times,
                ..
            } => now(than).map(|m| (m, default_times * m)),
            KeyValue::ShareOf { of, share, .. } => {
                let m = of
                    .iter()
                    .map(|k| now(k))
                    .try_fold(f64::INFINITY, |m, x| x.map(|x| m.min(x)))?;
                Some((share * m, share * m))
            }
            _ => None,
        }
    }

    /// Every key of `scheme` at its default, derived ones filled for `setting`
    /// (whose capacity, if any, becomes the queue's); `Err` with the check's problems.
    pub fn resolved(scheme: &Scheme, setting: &Setting) -> Result<Self, Vec<Problem>> {
        let mut p = Params::defaults(scheme);
        if let Some(c) = setting.capacity_pkts {
            p.capacity_pkts = c;
        }
        let problems = (scheme.check)(&mut p, setting);
        if problems.is_empty() && p.is_complete() {
            Ok(p)
        } else {
            Err(problems)
        }
    }

    fn index(&self, key: &str) -> usize {
        match self.keys.iter().position(|k| k.name == key) {
            Some(i) => i,
            // A scheme reads only the keys it declares; its own tests build from
            // `Params::defaults`, so a misspelt read fails there.
            None => panic!("key {key:?} is not declared by its scheme"),
        }
    }

    /// Sets `key` (a number; booleans as 0 or 1). Returns `false` for a key the scheme
    /// does not declare.
    pub fn set(&mut self, key: &str, value: f64) -> bool {
        match self.keys.iter().position(|k| k.name == key) {
            Some(i) => {
                self.values[i] = Some(value);
                self.invalid[i] = false;
                true
            }
            None => false,
        }
    }

    /// Records that the scenario's value for `key` was refused (reported).
    pub fn set_invalid(&mut self, key: &str) {
        let i = self.index(key);
        self.values[i] = None;
        self.invalid[i] = true;
    }

    /// Whether the scenario's value for `key` was refused.
    pub fn is_invalid(&self, key: &str) -> bool {
        self.invalid[self.index(key)]
    }

    /// Records that the scenario wrote `key` (the reader, before reading it).
    pub fn set_given(&mut self, key: &str) {
        let i = self.index(key);
        self.given[i] = true;
    }

    /// Whether the scenario wrote `key`, valid or not: a check may refuse a key that
    /// has no effect beside the others' values, default or not.
    pub fn given(&self, key: &str) -> bool {
        self.given[self.index(key)]
    }

    /// `key`'s value: `None` when it is off, not derived yet, or was invalid.
    pub fn value(&self, key: &str) -> Option<f64> {
        self.values[self.index(key)]
    }

    /// Gives a derived key its value unless the scenario set one or its value was
    /// invalid; returns whether it did.
    pub fn fill(&mut self, key: &str, value: f64) -> bool {
        let i = self.index(key);
        let empty = self.values[i].is_none() && !self.invalid[i];
        if empty {
            self.values[i] = Some(value);
        }
        empty
    }

    /// No key invalid and every key that may not be absent (off) has a value.
    pub fn is_complete(&self) -> bool {
        (self.keys.iter().zip(&self.values).zip(&self.invalid))
            .all(|((k, v), &bad)| !bad && (v.is_some() || k.value.may_be_absent()))
    }

    fn get(&self, key: &str) -> f64 {
        match self.value(key) {
            Some(x) => x,
            None => panic!("key {key:?} has no value"),
        }
    }

    pub fn seconds(&self, key: &str) -> Time {
        Time::from_secs_f64(self.get(key))
    }

    pub fn integer(&self, key: &str) -> u64 {
        self.get(key) as u64
    }

    pub fn flag(&self, key: &str) -> bool {
        self.get(key) != 0.0
    }

    pub fn real(&self, key: &str) -> f64 {
        self.get(key)
    }

    /// A [`Fallback::Off`] real: `None` when off.
    pub fn optional_real(&self, key: &str) -> Option<f64> {
        self.value(key)
    }

    /// A [`KeyValue::Duration`] key: `None` when 0 (off).
    pub fn duration(&self, key: &str) -> Option<Time> {
        let s = self.get(key);
        (s > 0.0).then(|| Time::from_secs_f64(s))
    }

    /// A [`KeyValue::RateOrSaturate`] key: `None` for `"saturate"`.
    pub fn rate_or_saturate(&self, key: &str) -> Option<f64> {
        let x = self.get(key);
        x.is_finite().then_some(x)
    }

    /// A [`KeyValue::OptionalCount`] key: `None` when absent.
    pub fn optional_count(&self, key: &str) -> Option<u64> {
        self.value(key).map(|x| x as u64)
    }

    /// A [`KeyValue::Packets`] key: `None` when off.
    pub fn packets(&self, key: &str) -> Option<u32> {
        self.value(key).map(|x| x as u32)
    }

    /// A [`KeyValue::Choice`] key's name; `None` when it was invalid.
    pub fn choice(&self, key: &str) -> Option<&'static str> {
        let i = self.index(key);
        match (self.keys[i].value, self.values[i]) {
            (KeyValue::Choice { names, .. }, Some(x)) => names.get(x as usize).copied(),
            _ => None,
        }
    }

    /// Sets the [`KeyValue::Choice`] key `key` to `name`; `false` for a name (or key)
    /// it does not have.
    pub fn set_choice(&mut self, key: &str, name: &str) -> bool {
        let found = (self.keys.iter().find(|k| k.name == key)).and_then(|k| match k.value {
            KeyValue::Choice { names, .. } => names.iter().position(|n| *n == name),
            _ => None,
        });
        found.is_some_and(|i| self.set(key, i as f64))
    }
}

/// As a map of key to value, each in its own type (an absent real as `null`); the
/// table keys follow the `[queue]` ones in the same map.
impl Serialize for Params {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut map = serializer.serialize_map(Some(self.keys.len()))?;
        self.serialize_entries(&mut map, |name| name)?;
        map.end()
    }
}

/// How a [`KeyValue::RateOrSaturate`] key is written.
#[derive(serde::Serialize)]
#[serde(rename_all = "snake_case")]
enum WrittenRate {
    Bps(f64),
    Saturate,
}

impl Params {
    /// Writes each key and its value into `map`, under `name(key)` (a flow kind's
    /// resolved names).
    pub fn serialize_entries<M: SerializeMap>(
        &self,
        map: &mut M,
        name: impl Fn(&'static str) -> &'static str,
    ) -> Result<(), M::Error> {
        for (k, v) in self.keys.iter().zip(&self.values) {
            let v = v.unwrap_or(f64::NAN);
            let key = name(k.name);
            match k.value {
                KeyValue::Seconds { .. } => map.serialize_entry(key, &v)?,
                KeyValue::Integer { .. } => map.serialize_entry(key, &(v as u64))?,
                KeyValue::Bool { .. } => map.serialize_entry(key, &(v != 0.0))?,
                KeyValue::Real { .. }
                | KeyValue::Duration { .. }
                | KeyValue::BitRate { .. }
                | KeyValue::Capped { .. }
                | KeyValue::MoreThan { .. }
                | KeyValue::ShareOf { .. } => {
                    map.serialize_entry(key, &v.is_finite().then_some(v))?
                }
                KeyValue::Count { .. } => map.serialize_entry(key, &(v as u64))?,
                KeyValue::Packets { .. } => {
                    map.serialize_entry(key, &v.is_finite().then_some(v as u32))?
                }
                KeyValue::Choice { names, .. } => {
                    let name = v.is_finite().then(|| names.get(v as usize)).flatten();
                    map.serialize_entry(key, &name)?
                }
                KeyValue::RateOrSaturate => {
                    let rate = match v {
                        v if v.is_infinite() => Some(WrittenRate::Saturate),
                        v if v.is_finite() => Some(WrittenRate::Bps(v)),
                        _ => None,
                    };
                    map.serialize_entry(key, &rate)?
                }
                KeyValue::OptionalCount { .. } => {
                    map.serialize_entry(key, &v.is_finite().then_some(v as u64))?
                }
            }
        }
        Ok(())
    }
}

/// A registered discipline and the values of its keys.
#[derive(Clone, Debug, PartialEq)]
pub struct RegisteredQdisc {
    pub scheme: &'static Scheme,
    pub params: Params,
}

/// What one instance is built for.
#[derive(Debug)]
pub struct BuildContext<'a> {
    /// The node whose interface it serves.
    pub node: NodeId,
    /// The far end of a wired link, `None` on the radio.
    pub link_to: Option<NodeId>,
    pub node_count: usize,
    /// The 802.11 rates and framing of the node's radio; `None` on a wired link.
    pub radio: Option<Link>,
    /// The configured frame loss of directed radio links, `[[link]] loss` as (from, to,
    /// probability), a later entry overriding an earlier one; see [`BuildContext::loss_to`].
    pub link_loss: &'a [(NodeId, NodeId, f64)],
    /// Priority levels of the interface's MAC: its EDCA levels on the 802.11 channel (1
    /// under DCF), 1 on a wired link.
    pub mac_levels: usize,
    /// Its own random stream, keyed by (seed, node, `qdisc.<name>`, link).
    pub rng: RngStream,
}

impl BuildContext<'_> {
    /// The configured frame loss of the radio link from this node to `j` (0 unless
    /// `[[link]] loss` sets it).
    pub fn loss_to(&self, j: NodeId) -> f64 {
        crate::medium::configured_loss(self.link_loss, self.node, j)
    }
}

/// No derived keys, no checks between keys.
pub fn no_checks(_: &mut Params, _: &Setting) -> Vec<Problem> {
    Vec::new()
}

/// Panics unless `k`'s default lies in its range, its error wording shows that range and
/// it is documented (the registries' tests).
#[cfg(test)]
#[track_caller]
pub(crate) fn assert_sound(k: &Key) {
    match k.value {
        KeyValue::Seconds { default_s, max_s } => {
            assert!(default_s > 0.0 && default_s <= max_s, "{}", k.name)
        }
        KeyValue::Integer { default, min, max } => {
            assert!((min..=max).contains(&default), "{}", k.name)
        }
        KeyValue::Bool { .. } => {}
        KeyValue::Real {
            default,
            range,
            expected,
        } => {
            if let Fallback::Value(x) = default {
                assert!(range.contains(x), "{}", k.name)
            }
            assert!(expected.contains(&range.describe()), "{}", k.name)
        }
        KeyValue::Packets { default } => {
            assert!(default.is_none_or(|d| d >= 1), "{}", k.name)
        }
        KeyValue::Choice { default, names } => {
            assert!(names.contains(&default), "{}", k.name)
        }
        KeyValue::Duration {
            default,
            max_s,
            zero_is_off,
            expected,
        } => {
            let range = Range::duration(max_s, zero_is_off);
            if let Fallback::Value(x) = default {
                assert!(range.contains(x), "{}", k.name)
            }
            assert!(expected.contains(&range.describe()), "{}", k.name)
        }
        KeyValue::BitRate { default } => {
            if let Fallback::Value(x) = default {
                assert!(x >= 1.0, "{}", k.name)
            }
        }
        KeyValue::Capped {
            default, max, why, ..
        } => assert!(
            default > 0.0 && default <= max && !why.is_empty(),
            "{}",
            k.name
        ),
        KeyValue::Count {
            default, min, max, ..
        } => assert!((min..=max).contains(&default), "{}", k.name),
        KeyValue::MoreThan {
            default_times,
            max_s,
            expected,
            ..
        } => assert!(
            default_times > 1.0 && max_s > 0.0 && !expected.is_empty(),
            "{}",
            k.name
        ),
        KeyValue::ShareOf {
            of,
            share,
            expected,
        } => assert!(
            !of.is_empty() && share > 0.0 && share <= 1.0 && !expected.is_empty(),
            "{}",
            k.name
        ),
        KeyValue::RateOrSaturate => {}
        KeyValue::OptionalCount { min, max, expected } => {
            assert!(min <= max && !expected.is_empty(), "{}", k.name)
        }
    }
    assert!(!k.doc.is_empty(), "{}", k.name);
}

#[cfg(test)]
mod tests {
    use super::*;
    use airqueue_kernel::StreamKey;

    #[test]
    fn names_are_unique_and_every_scheme_builds_from_its_defaults() {
        for (i, s) in SCHEMES.iter().enumerate() {
            assert!(SCHEMES[..i].iter().all(|o| o.name != s.name), "{}", s.name);
            for (j, k) in s.keys.iter().chain(s.table_keys).enumerate() {
                let mut earlier = s.keys.iter().chain(s.table_keys).take(j);
                assert!(earlier.all(|o| o.name != k.name), "{}.{}", s.name, k.name);
            }
            let setting = Setting {
                capacity_pkts: Some(s.default_capacity_pkts),
                rate_bps: Some(11e6),
            };
            let params = Params::resolved(s, &setting).unwrap();
            let mut ctx = BuildContext {
                node: NodeId(0),
                link_to: None,
                node_count: 2,
                radio: Some(Link::default()),
                link_loss: &[],
                mac_levels: 1,
                rng: RngStream::new(StreamKey::new(1, 0, s.name)),
            };
            let q = (s.build)(&params, &mut ctx);
            assert!(q.is_empty() && q.counters().consistent_with(0));
            assert_eq!(scheme(s.name).map(|x| x.name), Some(s.name));
        }
    }

    #[test]
    fn keys_have_defaults_inside_their_ranges() {
        for s in SCHEMES {
            s.keys.iter().chain(s.table_keys).for_each(assert_sound);
        }
    }

    #[test]
    fn ranges_say_what_they_hold() {
        let cases = [
            (
                Range::above_to(0.0, 1.0),
                "in (0, 1]",
                [false, true, true, false],
            ),
            (
                Range::closed(0.0, 1.0),
                "in [0, 1]",
                [true, true, true, false],
            ),
            (Range::above(0.0), "> 0", [false, true, true, true]),
            (Range::at_least(0.0), ">= 0", [true, true, true, true]),
        ];
        for (range, text, holds) in cases {
            assert_eq!(range.describe(), text);
            let got = [0.0, 0.5, 1.0, 1.5].map(|x| range.contains(x));
            assert_eq!(got, holds, "{text}");
        }
        assert_eq!(Range::above_to(0.0, 1e6).describe(), "in (0, 1e6]");
    }

    #[test]
    fn an_absent_optional_real_is_null_and_a_derived_one_is_incomplete_until_filled() {
        static KEYS: [Key; 2] = [
            Key {
                name: "off",
                doc: "x",
                value: KeyValue::Real {
                    default: Fallback::Off,
                    range: Range::above(0.0),
                    expected: "a number > 0",
                },
            },
            Key {
                name: "derived",
                doc: "x",
                value: KeyValue::Real {
                    default: Fallback::Derived,
                    range: Range::above(0.0),
                    expected: "a number > 0",
                },
            },
        ];
        let mut p = Params {
            capacity_pkts: 1,
            keys: KEYS.iter().collect(),
            values: vec![None, None],
            invalid: vec![false, false],
            given: vec![false, false],
        };
        assert!(!p.is_complete());
        assert!(p.fill("derived", 2.0));
        assert!(!p.fill("derived", 3.0), "a value already there stays");
        assert!(p.is_complete());
        assert_eq!((p.optional_real("off"), p.real("derived")), (None, 2.0));
        p.set_invalid("derived");
        assert!(!p.fill("derived", 2.0) && !p.is_complete() && p.is_invalid("derived"));
    }

    #[test]
    fn a_zero_duration_is_off_and_what_was_written_is_not_part_of_the_values() {
        static KEYS: [Key; 1] = [Key {
            name: "period",
            doc: "x",
            value: KeyValue::Duration {
                default: Fallback::Value(0.5),
                max_s: 10.0,
                zero_is_off: true,
                expected: "a number of seconds in [0, 10]",
            },
        }];
        let scheme = Scheme {
            keys: &KEYS,
            ..droptail_like()
        };
        let defaults = Params::defaults(&scheme);
        let mut p = defaults.clone();
        assert_eq!(p.duration("period"), Some(Time::from_millis(500)));
        p.set_given("period");
        assert!(p.given("period") && !defaults.given("period"));
        assert_eq!(p, defaults, "same values");
        p.set("period", 0.0);
        assert_eq!(p.duration("period"), None);
    }

    #[test]
    fn a_relative_duration_follows_the_keys_it_depends_on_or_their_defaults() {
        const fn interval(name: &'static str, default_s: f64) -> Key {
            Key {
                name,
                doc: "x",
                value: KeyValue::Duration {
                    default: Fallback::Value(default_s),
                    max_s: 10.0,
                    zero_is_off: false,
                    expected: "seconds in (0, 10]",
                },
            }
        }
        static KEYS: [Key; 4] = [
            interval("a", 2.0),
            interval("b", 1.0),
            Key {
                name: "hold",
                doc: "x",
                value: KeyValue::MoreThan {
                    than: "a",
                    default_times: 3.0,
                    max_s: 10.0,
                    expected: "more than a",
                },
            },
            Key {
                name: "jitter",
                doc: "x",
                value: KeyValue::ShareOf {
                    of: &["a", "b"],
                    share: 0.25,
                    expected: "at most a quarter of a and b",
                },
            },
        ];
        KEYS.iter().for_each(assert_sound);
        let mut p = Params::of_keys(KEYS.iter().collect());
        assert_eq!(
            (p.real("hold"), p.real("jitter")),
            (6.0, 0.25),
            "from the defaults"
        );
        assert!(p.is_complete());
        p.set("a", 0.5);
        assert_eq!(p.relative(&KEYS[2]), Some((0.5, 1.5)));
        assert_eq!(
            p.relative(&KEYS[3]),
            Some((0.125, 0.125)),
            "the smaller of a and b"
        );
        p.set_invalid("a");
        assert_eq!(
            p.relative(&KEYS[2]),
            Some((2.0, 6.0)),
            "a refused counts at its default"
        );
        assert_eq!(p.relative(&KEYS[0]), None, "not relative");
    }

    fn droptail_like() -> Scheme {
        Scheme {
            name: "test",
            summary: "x",
            default_capacity_pkts: 1,
            keys: &[],
            table_keys: &[],
            moves_packets_on_link_break: false,
            refuses_saturating_source: false,
            runs_at_access_point: false,
            check: no_checks,
            build: super::super::droptail::SCHEME.build,
        }
    }
}
