//! The topology set (RFC 3626 sections 4.4, 9.5) and the duplicate set (3.4), kept
//! per originator in dense vectors by node id.
//!
//! A TC's advertised links with their costs are one shared list ([`TcDests`]), made
//! once when the TC is originated: every node that takes the TC holds the same list,
//! so the route calculations of all nodes read the same few kilobytes rather than a
//! copy each.

use super::link::Metric;
use super::wire::{dequantize, seq_newer, TcLink};
use crate::ids::NodeId;
use airqueue_kernel::Time;
use std::sync::Arc;

/// A TC's advertised neighbours with the cost of the originator's link to each.
pub type TcDests = Arc<[(NodeId, f64)]>;

/// The advertised links of a TC body priced under `m`.
pub fn tc_dests(m: Metric, body: &[TcLink]) -> TcDests {
    body.iter()
        .map(|b| (b.neighbor, m.cost(dequantize(b.lq), dequantize(b.nlq))))
        .collect()
}

/// The topology tuples of one originator (T_last_addr): the neighbours it advertised
/// (T_dest_addr) with their link costs, under one ANSN (T_seq) and one T_time (a TC
/// replaces all of its originator's tuples, so they share both).
#[derive(Clone, Debug, Default)]
pub struct TopoEntry {
    pub ansn: u16,
    pub until: Time,
    pub dests: Option<TcDests>,
}

impl TopoEntry {
    #[inline]
    pub fn valid(&self, now: Time) -> bool {
        self.until > now
    }

    #[inline]
    pub fn dests(&self, now: Time) -> &[(NodeId, f64)] {
        match &self.dests {
            Some(d) if self.valid(now) => d,
            _ => &[],
        }
    }

    /// Whether a TC with `ansn` is to be ignored (9.5 step 2: older than what is held).
    pub fn is_stale(&self, ansn: u16, now: Time) -> bool {
        self.valid(now) && seq_newer(self.ansn, ansn)
    }

    /// Whether the entry holds, now, exactly `dests` under `ansn`.
    pub fn holds(&self, ansn: u16, dests: &TcDests, now: Time) -> bool {
        self.valid(now)
            && self.ansn == ansn
            && self
                .dests
                .as_ref()
                .is_some_and(|d| Arc::ptr_eq(d, dests) || **d == **dests)
    }
}

/// Duplicate tuples (D_seq_num, D_retransmitted, D_time) of one originator.
#[derive(Clone, Debug, Default)]
pub struct DupEntry {
    seen: Vec<(u16, bool, Time)>,
}

impl DupEntry {
    /// `Some(retransmitted)` if message `seq` was seen and its tuple still holds.
    pub fn lookup(&self, seq: u16, now: Time) -> Option<bool> {
        self.seen
            .iter()
            .find(|t| t.0 == seq && t.2 > now)
            .map(|t| t.1)
    }

    /// Records message `seq` until `until`, dropping expired tuples.
    pub fn record(&mut self, seq: u16, retransmitted: bool, until: Time, now: Time) {
        self.seen.retain(|t| t.2 > now && t.0 != seq);
        self.seen.push((seq, retransmitted, until));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn duplicate_tuples_expire_and_remember_retransmission() {
        let mut d = DupEntry::default();
        let t = Time::from_secs;
        assert_eq!(d.lookup(5, t(0)), None);
        d.record(5, false, t(30), t(0));
        assert_eq!(d.lookup(5, t(1)), Some(false));
        d.record(5, true, t(30), t(1));
        assert_eq!(d.lookup(5, t(2)), Some(true));
        assert_eq!(d.lookup(5, t(30)), None, "expired at D_time");
    }

    #[test]
    fn older_ansn_is_stale_only_while_the_entry_holds() {
        let e = TopoEntry {
            ansn: 10,
            until: Time::from_secs(15),
            dests: None,
        };
        assert!(e.is_stale(9, Time::ZERO));
        assert!(!e.is_stale(10, Time::ZERO));
        assert!(!e.is_stale(11, Time::ZERO));
        assert!(!e.is_stale(9, Time::from_secs(15)));
    }
}
