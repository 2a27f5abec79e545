//! Queue disciplines that declare their own configuration: each scheme module exports a
//! [`Scheme`] (its `queue.kind` name, its keys with defaults, ranges and meaning, and how
//! to build one instance), and [`SCHEMES`] lists them. The scenario reader validates the
//! keys from the declaration and the world builds instances from it, so adding such a
//! discipline is its module plus one line here.

use super::Qdisc;
use crate::ids::NodeId;
use airqueue_kernel::{RngStream, Time};
use serde::ser::{Serialize, SerializeMap, Serializer};

/// Every discipline configured through its [`Scheme`] declaration.
pub static SCHEMES: &[&Scheme] = &[&super::codel::SCHEME, &super::fq_codel::SCHEME];

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
    /// Whether it hands back the packets for a broken next hop
    /// ([`super::QueueDiscipline::remove_next_hop`]), so that AODV can re-route them.
    pub moves_packets_on_link_break: bool,
    /// Checks between keys once each is in range: `Err((key, message))`.
    pub check: fn(&Params) -> Result<(), (&'static str, String)>,
    /// One instance for one interface.
    pub build: fn(&Params, &mut BuildContext) -> Qdisc,
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
}

impl KeyValue {
    /// The default as the number [`Params`] holds (booleans as 0 or 1).
    pub fn default_number(&self) -> f64 {
        match *self {
            KeyValue::Seconds { default_s, .. } => default_s,
            KeyValue::Integer { default, .. } => default as f64,
            KeyValue::Bool { default } => f64::from(u8::from(default)),
        }
    }
}

/// The values of a scheme's keys and the queue's capacity, as read from a scenario (or
/// the defaults).
#[derive(Clone, Debug, PartialEq)]
pub struct Params {
    pub capacity_pkts: u32,
    keys: &'static [Key],
    /// One per key, in declaration order (booleans as 0 or 1).
    values: Vec<f64>,
}

impl Params {
    /// Every key of `scheme` at its default.
    pub fn defaults(scheme: &Scheme) -> Self {
        Params {
            capacity_pkts: scheme.default_capacity_pkts,
            keys: scheme.keys,
            values: scheme
                .keys
                .iter()
                .map(|k| k.value.default_number())
                .collect(),
        }
    }

    /// Sets `key` (a number; booleans as 0 or 1). Returns `false` for a key the scheme
    /// does not declare.
    pub fn set(&mut self, key: &str, value: f64) -> bool {
        match self.keys.iter().position(|k| k.name == key) {
            Some(i) => {
                self.values[i] = value;
                true
            }
            None => false,
        }
    }

    fn get(&self, key: &str) -> f64 {
        match self.keys.iter().position(|k| k.name == key) {
            Some(i) => self.values[i],
            // A scheme reads only the keys it declares; its own tests build from
            // `Params::defaults`, so a misspelt read fails there.
            None => panic!("queue key {key:?} is not declared by its scheme"),
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
}

/// As a map of key to value, each in its own type.
impl Serialize for Params {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut map = serializer.serialize_map(Some(self.keys.len()))?;
        for (k, &v) in self.keys.iter().zip(&self.values) {
            match k.value {
                KeyValue::Seconds { .. } => map.serialize_entry(k.name, &v)?,
                KeyValue::Integer { .. } => map.serialize_entry(k.name, &(v as u64))?,
                KeyValue::Bool { .. } => map.serialize_entry(k.name, &(v != 0.0))?,
            }
        }
        map.end()
    }
}

/// What one instance is built for.
#[derive(Debug)]
pub struct BuildContext {
    /// The node whose interface it serves.
    pub node: NodeId,
    /// The far end of a wired link, `None` on the radio.
    pub link_to: Option<NodeId>,
    pub node_count: usize,
    /// Its own random stream, keyed by (seed, node, `qdisc.<name>`, link).
    pub rng: RngStream,
}

/// `Ok` for a scheme with no checks between its keys.
pub fn no_checks(_: &Params) -> Result<(), (&'static str, String)> {
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use airqueue_kernel::StreamKey;

    #[test]
    fn names_are_unique_and_every_scheme_builds_from_its_defaults() {
        for (i, s) in SCHEMES.iter().enumerate() {
            assert!(SCHEMES[..i].iter().all(|o| o.name != s.name), "{}", s.name);
            let params = Params::defaults(s);
            assert_eq!((s.check)(&params), Ok(()), "{}", s.name);
            let mut ctx = BuildContext {
                node: NodeId(0),
                link_to: None,
                node_count: 2,
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
            for k in s.keys {
                match k.value {
                    KeyValue::Seconds { default_s, max_s } => {
                        assert!(default_s > 0.0 && default_s <= max_s, "{}", k.name)
                    }
                    KeyValue::Integer { default, min, max } => {
                        assert!((min..=max).contains(&default), "{}", k.name)
                    }
                    KeyValue::Bool { .. } => {}
                }
                assert!(!k.doc.is_empty());
            }
        }
    }
}
