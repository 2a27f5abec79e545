//! Routing protocols that declare their own `[routing]` keys: each protocol exports a
//! [`RoutingScheme`] (its `routing.kind` name, its keys with defaults, ranges and
//! meaning, the checks between them) and [`ROUTING_SCHEMES`] lists them. The scenario
//! reader validates the keys from the declaration with the same [`Key`]s and
//! [`Params`] as the queue disciplines', and the protocol reads its configuration back
//! from them (`AodvConfig::from_params`, `OlsrConfig::from_params`). `kind = "static"`
//! and `metric` are the reader's own: static routing is no protocol.

use crate::ids::NodeId;
use crate::net::protocol::RoutingProtocol;
use crate::qdisc::registry::{Key, KeyValue, OnlyWith, Params, Problem};

/// Every `routing.kind` but `"static"`, in the order the reader lists them.
pub static ROUTING_SCHEMES: &[&RoutingScheme] =
    &[&super::aodv::keys::SCHEME, &super::olsr::keys::SCHEME];

/// The protocol whose `routing.kind` is `kind`, if it is registered.
pub fn routing_scheme(kind: &str) -> Option<&'static RoutingScheme> {
    ROUTING_SCHEMES.iter().copied().find(|s| s.name == kind)
}

/// A registered routing protocol.
#[derive(Debug)]
pub struct RoutingScheme {
    /// Its `routing.kind`.
    pub name: &'static str,
    /// One line: what it is and where it is specified.
    pub summary: &'static str,
    /// Its own `[routing]` keys (besides `kind` and `metric`), in the order they are
    /// read: a [`KeyValue::MoreThan`] or [`KeyValue::ShareOf`] key after the keys it
    /// depends on.
    pub keys: &'static [Key],
    /// Its keys that only some values of another of its keys take.
    pub only_with: &'static [OnlyWith],
    /// The `metric` it routes by when the scenario gives none (`"hops"` or `"etx"`);
    /// `None`: it takes no `metric` (it counts hops).
    pub default_metric: Option<&'static str>,
    /// Whether it takes back the packets queued for a next hop whose link broke, to
    /// route them again (AODV, RFC 3561 6.11): the queue discipline must hand them back
    /// (`Scheme::moves_packets_on_link_break`).
    pub reroutes_queued_packets: bool,
    /// Once every key is read: checks between keys. A key that was invalid (already
    /// reported) reads as `None` through [`Params::value`]; checks that need it are
    /// skipped.
    pub check: fn(&mut Params) -> Vec<Problem>,
    /// The protocol of a whole network, configured by `params` (checked).
    pub build: fn(&Params, &RoutingBuildContext<'_>) -> Box<dyn RoutingProtocol>,
}

/// What a routing protocol is built from besides its keys.
#[derive(Clone, Copy, Debug)]
pub struct RoutingBuildContext<'a> {
    pub node_count: usize,
    /// The run's seed (each protocol keys its random streams by it).
    pub seed: u64,
    /// Whether `routing.metric` is `"etx"`.
    pub etx: bool,
    /// The idle network, for a protocol that starts converged: by node `a`, the nodes it
    /// hears with the share of their broadcasts it receives (`[[link]] loss` and fading).
    pub neighbours: &'a [Vec<(NodeId, f64)>],
}

/// A registered routing protocol as a world is given it: the scheme, its keys and what
/// else it is built from.
#[derive(Clone, Debug)]
pub struct RoutingSetup {
    pub scheme: &'static RoutingScheme,
    pub params: Params,
    pub etx: bool,
    /// See [`RoutingBuildContext::neighbours`].
    pub neighbours: Vec<Vec<(NodeId, f64)>>,
}

impl RoutingSetup {
    /// The protocol for a network of `node_count` nodes and run seed `seed`.
    pub fn build(&self, node_count: usize, seed: u64) -> Box<dyn RoutingProtocol> {
        let cx = RoutingBuildContext {
            node_count,
            seed,
            etx: self.etx,
            neighbours: &self.neighbours,
        };
        (self.scheme.build)(&self.params, &cx)
    }
}

/// Protocols are one per name.
impl PartialEq for RoutingScheme {
    fn eq(&self, other: &Self) -> bool {
        self.name == other.name
    }
}

impl Eq for RoutingScheme {}

impl RoutingScheme {
    /// Every key at its default; `Err` with the check's problems.
    pub fn defaults(&self) -> Result<Params, Vec<Problem>> {
        let mut params = Params::of_keys(self.keys.iter().collect());
        let problems = (self.check)(&mut params);
        if problems.is_empty() && params.is_complete() {
            Ok(params)
        } else {
            Err(problems)
        }
    }
}

/// No checks between keys.
pub fn no_routing_checks(_: &mut Params) -> Vec<Problem> {
    Vec::new()
}

/// The names of the keys `value` reads before its own: a relative duration's bounds.
pub fn depends_on(value: &'static KeyValue) -> &'static [&'static str] {
    match value {
        KeyValue::MoreThan { than, .. } => std::slice::from_ref(than),
        KeyValue::ShareOf { of, .. } => of,
        _ => &[],
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::qdisc::registry::assert_sound;

    #[test]
    fn names_are_unique_and_every_protocol_resolves_from_its_defaults() {
        for (i, s) in ROUTING_SCHEMES.iter().enumerate() {
            assert!(
                ROUTING_SCHEMES[..i].iter().all(|o| o.name != s.name) && s.name != "static",
                "{}",
                s.name
            );
            assert!(!s.summary.is_empty());
            assert_eq!(routing_scheme(s.name), Some(*s));
            assert!(matches!(s.default_metric, None | Some("hops" | "etx")));
            let p = s.defaults().unwrap();
            assert!(p.is_complete(), "{}", s.name);
        }
    }

    #[test]
    fn keys_are_sound_and_read_after_what_they_depend_on() {
        for s in ROUTING_SCHEMES {
            for (j, k) in s.keys.iter().enumerate() {
                assert_sound(k);
                let earlier = &s.keys[..j];
                assert!(earlier.iter().all(|o| o.name != k.name), "{}", k.name);
                for d in depends_on(&k.value) {
                    let dep = earlier.iter().find(|o| o.name == *d);
                    let dep = dep.unwrap_or_else(|| panic!("{}: {d} is not before it", k.name));
                    assert!(dep.value.default_number().is_some(), "{}: {d}", k.name);
                }
            }
            for w in s.only_with {
                let at = |name: &str| s.keys.iter().position(|k| k.name == name);
                let (key, choice) = (at(w.key).unwrap(), at(w.choice).unwrap());
                assert!(choice < key, "{}", w.key);
                let KeyValue::Choice { names, .. } = s.keys[choice].value else {
                    panic!("{} is not a choice", w.choice)
                };
                assert!(w.values.iter().all(|v| names.contains(v)), "{}", w.key);
            }
        }
    }
}
