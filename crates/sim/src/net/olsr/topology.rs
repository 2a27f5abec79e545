//! The topology set (RFC 3626 sections 4.4, 9.5) and the duplicate set (3.4), kept
//! per originator in dense vectors by node id.
//!
//! A TC's advertised links with their costs are one list ([`TcDests`]), made once when
//! the TC is originated: every node that takes the TC holds the same list. The lists
//! live end to end in one arena ([`TcLists`]), so a route calculation, which reads one
//! list per reachable node, reads them from a few contiguous kilobytes (the newest
//! together at the end) rather than from wherever an allocator put each one.

use super::link::Metric;
use super::wire::{dequantize, seq_newer, TcLink};
use crate::ids::NodeId;
use airqueue_kernel::Time;

/// A TC's advertised neighbours with the cost of the originator's link to each: a
/// range of the run's [`TcLists`].
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct TcDests {
    start: u32,
    len: u16,
}

/// Every TC list still held, end to end. Lists are only added; the protocol drops
/// those no node or message body holds any more with [`TcLists::compact`] once the
/// arena has doubled since the last compaction.
#[derive(Clone, Debug, Default)]
pub struct TcLists {
    entries: Vec<(NodeId, f64)>,
    /// Entries kept by the last compaction.
    kept: usize,
}

impl TcLists {
    /// The arena grows to at least this many entries before the first compaction.
    const MIN_ENTRIES: usize = 1 << 14;

    /// Adds the advertised links of a TC body priced under `m`.
    pub fn add(&mut self, m: Metric, body: &[TcLink]) -> TcDests {
        let start = self.entries.len();
        self.entries.extend(
            body.iter()
                .map(|b| (b.neighbor, m.cost(dequantize(b.lq), dequantize(b.nlq)))),
        );
        TcDests {
            start: u32::try_from(start).expect("TC lists are compacted long before 2^32 entries"),
            len: u16::try_from(body.len()).expect("a TC advertises fewer than 65,536 links"),
        }
    }

    #[inline]
    pub fn get(&self, d: TcDests) -> &[(NodeId, f64)] {
        let start = d.start as usize;
        &self.entries[start..start + d.len as usize]
    }

    /// Whether the arena has doubled since the last compaction.
    pub fn wants_compaction(&self) -> bool {
        self.entries.len() > 2 * self.kept.max(Self::MIN_ENTRIES / 2)
    }

    /// Keeps the lists `holders` hands to [`Compaction::keep`] (each once, in the order
    /// first handed) and drops the rest; every handle handed is rewritten.
    pub fn compact(&mut self, holders: impl FnOnce(&mut Compaction<'_>)) {
        let mut c = Compaction {
            old: &self.entries,
            new: Vec::with_capacity(self.kept.max(Self::MIN_ENTRIES / 2)),
            moved: vec![u32::MAX; self.entries.len()],
        };
        holders(&mut c);
        let new = c.new;
        self.kept = new.len();
        self.entries = new;
    }
}

/// A compaction of [`TcLists`] under way.
pub struct Compaction<'a> {
    old: &'a [(NodeId, f64)],
    new: Vec<(NodeId, f64)>,
    /// Per old start: where that list now starts (`u32::MAX`: not kept yet).
    moved: Vec<u32>,
}

impl Compaction<'_> {
    /// Keeps the list `d` and points `d` at its new place.
    pub fn keep(&mut self, d: &mut TcDests) {
        if d.len == 0 {
            *d = TcDests::default();
            return;
        }
        let moved = &mut self.moved[d.start as usize];
        if *moved == u32::MAX {
            *moved = self.new.len() as u32;
            let start = d.start as usize;
            self.new
                .extend_from_slice(&self.old[start..start + d.len as usize]);
        }
        d.start = *moved;
    }
}

/// The topology tuples of one originator (T_last_addr): the neighbours it advertised
/// (T_dest_addr) with their link costs, under one ANSN (T_seq) and one T_time (a TC
/// replaces all of its originator's tuples, so they share both). Sixteen bytes: a
/// route calculation reads every originator's.
#[derive(Clone, Copy, Debug, Default)]
pub struct TopoEntry {
    pub until: Time,
    /// The list, as a [`TcDests`] laid out flat beside the ANSN.
    start: u32,
    len: u16,
    pub ansn: u16,
}

impl TopoEntry {
    #[inline]
    pub fn valid(&self, now: Time) -> bool {
        self.until > now
    }

    /// The advertised links, empty once the tuples expired (or before the first TC).
    #[inline]
    pub fn dests<'a>(&self, lists: &'a TcLists, now: Time) -> &'a [(NodeId, f64)] {
        if self.valid(now) {
            lists.get(self.list())
        } else {
            &[]
        }
    }

    #[inline]
    fn list(&self) -> TcDests {
        TcDests {
            start: self.start,
            len: self.len,
        }
    }

    /// Takes a TC's list and ANSN, valid until `until`.
    pub fn set(&mut self, ansn: u16, dests: TcDests, until: Time) {
        self.ansn = ansn;
        (self.start, self.len) = (dests.start, dests.len);
        self.until = until;
    }

    /// Whether a TC with `ansn` is to be ignored (9.5 step 2: older than what is held).
    pub fn is_stale(&self, ansn: u16, now: Time) -> bool {
        self.valid(now) && seq_newer(self.ansn, ansn)
    }

    /// Whether the entry holds, now, exactly `dests` under `ansn`.
    pub fn holds(&self, ansn: u16, dests: TcDests, lists: &TcLists, now: Time) -> bool {
        self.valid(now)
            && self.ansn == ansn
            && (self.list() == dests || lists.get(self.list()) == lists.get(dests))
    }

    /// Keeps the list of a valid entry through a compaction; an expired entry's list
    /// is never read again and is let go.
    pub fn keep(&mut self, c: &mut Compaction<'_>, now: Time) {
        let mut d = self.list();
        if self.valid(now) {
            c.keep(&mut d);
        } else {
            d = TcDests::default();
        }
        (self.start, self.len) = (d.start, d.len);
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
        let mut e = TopoEntry::default();
        e.set(10, TcDests::default(), Time::from_secs(15));
        assert!(e.is_stale(9, Time::ZERO));
        assert!(!e.is_stale(10, Time::ZERO));
        assert!(!e.is_stale(11, Time::ZERO));
        assert!(!e.is_stale(9, Time::from_secs(15)));
    }
}

#[cfg(test)]
mod lists_tests {
    use super::*;
    use crate::net::olsr::link::LqAlgorithm;
    use proptest::prelude::*;

    fn link(neighbor: u32, lq: u8) -> TcLink {
        TcLink {
            neighbor: NodeId(neighbor),
            lq,
            nlq: 255,
        }
    }

    proptest! {
        /// A compaction keeps every list handed to it, whatever the order and however
        /// often handed, and each rewritten handle reads what it read before; the arena
        /// shrinks to the lists kept.
        #[test]
        fn compaction_keeps_what_is_held_and_drops_the_rest(
            sizes in proptest::collection::vec(0usize..8, 1..60),
            held in proptest::collection::vec((0usize..60, proptest::bool::ANY), 0..80),
        ) {
            let m = Metric { etx: true, algorithm: LqAlgorithm::EtxFf };
            let mut lists = TcLists::default();
            let all: Vec<TcDests> = sizes
                .iter()
                .enumerate()
                .map(|(i, &k)| {
                    let body: Vec<TcLink> =
                        (0..k).map(|j| link((i * 8 + j) as u32, 100 + j as u8)).collect();
                    lists.add(m, &body)
                })
                .collect();
            let mut handles: Vec<TcDests> =
                held.iter().map(|&(i, _)| all[i % all.len()]).collect();
            let want: Vec<Vec<(NodeId, f64)>> =
                handles.iter().map(|&h| lists.get(h).to_vec()).collect();
            lists.compact(|c| {
                for h in &mut handles {
                    c.keep(h);
                }
            });
            for (h, w) in handles.iter().zip(&want) {
                prop_assert_eq!(lists.get(*h), &w[..]);
            }
            let mut distinct: Vec<&Vec<(NodeId, f64)>> = want.iter().collect();
            distinct.sort_by_key(|w| w.first().map(|e| e.0));
            distinct.dedup_by_key(|w| w.first().map(|e| e.0));
            let kept: usize = distinct.iter().map(|w| w.len()).sum();
            prop_assert_eq!(lists.entries.len(), kept);
        }
    }

    #[test]
    fn an_expired_entry_lets_its_list_go() {
        let m = Metric {
            etx: true,
            algorithm: LqAlgorithm::EtxFf,
        };
        let mut lists = TcLists::default();
        let (mut live, mut gone) = (TopoEntry::default(), TopoEntry::default());
        live.set(1, lists.add(m, &[link(3, 255)]), Time::from_secs(20));
        gone.set(
            1,
            lists.add(m, &[link(4, 255), link(5, 255)]),
            Time::from_secs(5),
        );
        let now = Time::from_secs(10);
        lists.compact(|c| {
            live.keep(c, now);
            gone.keep(c, now);
        });
        assert_eq!(live.dests(&lists, now), &[(NodeId(3), 1.0)]);
        assert!(gone.dests(&lists, now).is_empty());
        assert_eq!(lists.entries.len(), 1);
    }
}
