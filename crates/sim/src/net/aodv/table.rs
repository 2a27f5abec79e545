//! The AODV route table of one node: destination sequence numbers (RFC 3561 6.1), the
//! rules for replacing a route (6.2), lifetimes refreshed on use, and precursor lists
//! (6.2, used by RERR in 6.11).
//!
//! One entry per destination, in a dense vector indexed by node id. An entry that was
//! once created is never removed: when a route breaks or expires it turns invalid and
//! keeps its sequence number, which later requests carry (6.3). RFC 3561 deletes invalid
//! entries after DELETE_PERIOD; keeping them only means a node remembers a destination's
//! last sequence number for longer.

use crate::ids::NodeId;
use airqueue_kernel::Time;

/// RFC 3561 6.1: `a` is fresher than `b` under 32-bit signed rollover arithmetic.
#[inline]
pub fn seq_newer(a: u32, b: u32) -> bool {
    (a.wrapping_sub(b) as i32) > 0
}

/// `a` is at least as fresh as `b` (6.1 arithmetic).
#[inline]
pub fn seq_at_least(a: u32, b: u32) -> bool {
    (a.wrapping_sub(b) as i32) >= 0
}

/// A route table entry (RFC 3561 section 2's fields that this model uses).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Route {
    pub next_hop: NodeId,
    pub hop_count: u8,
    pub seq: u32,
    /// The "valid destination sequence number" flag.
    pub valid_seq: bool,
    /// Valid (usable until `lifetime`) or invalid.
    pub valid: bool,
    /// Expiry of a valid route; for an invalid one, when it was invalidated plus
    /// DELETE_PERIOD (kept for information only).
    pub lifetime: Time,
    /// Neighbours that forward traffic to this destination through this node (6.2).
    pub precursors: Vec<NodeId>,
    /// Local repair (6.12): until when this invalid route may still be repaired locally
    /// (its link broke, its precursors have not been told); `Time::ZERO`: not repairable.
    pub repair_until: Time,
}

impl Route {
    /// Valid and not yet expired at `now`: an "active route" (section 3).
    #[inline]
    pub fn is_active(&self, now: Time) -> bool {
        self.valid && self.lifetime > now
    }

    pub fn add_precursor(&mut self, n: NodeId) {
        if !self.precursors.contains(&n) {
            self.precursors.push(n);
        }
    }
}

/// What a control message offers about a route: the 6.2 inputs.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Offer {
    pub next_hop: NodeId,
    pub hop_count: u8,
    /// `None`: the message carries no valid sequence number for the destination.
    pub seq: Option<u32>,
    /// Expiry of the offered route.
    pub lifetime: Time,
}

/// The route table of one node.
#[derive(Clone, Debug)]
pub struct RouteTable {
    routes: Vec<Option<Route>>,
}

impl RouteTable {
    pub fn new(node_count: usize) -> Self {
        RouteTable {
            routes: vec![None; node_count],
        }
    }

    #[inline]
    pub fn get(&self, dst: NodeId) -> Option<&Route> {
        self.routes.get(dst.index())?.as_ref()
    }

    #[inline]
    pub fn get_mut(&mut self, dst: NodeId) -> Option<&mut Route> {
        self.routes.get_mut(dst.index())?.as_mut()
    }

    /// The active route to `dst` at `now`, if any.
    #[inline]
    pub fn active(&self, dst: NodeId, now: Time) -> Option<&Route> {
        self.get(dst).filter(|r| r.is_active(now))
    }

    /// RFC 3561 6.2: applies `o` to the entry of `dst` when there is none, or when the
    /// entry's sequence number is not valid, or `o` carries a fresher one, or the same
    /// one with the entry invalid or with fewer hops. Returns whether the entry now holds
    /// the offered route. An offer without a sequence number (the route to a neighbour
    /// learnt from a message it sent, 6.5 and 6.7) replaces only an entry that is not
    /// active or is longer, and keeps the entry's sequence number; an active one-hop
    /// entry through the same neighbour only has its lifetime extended.
    pub fn offer(&mut self, dst: NodeId, o: Offer, now: Time) -> bool {
        let slot = &mut self.routes[dst.index()];
        let Some(r) = slot else {
            *slot = Some(Route {
                next_hop: o.next_hop,
                hop_count: o.hop_count,
                seq: o.seq.unwrap_or(0),
                valid_seq: o.seq.is_some(),
                valid: true,
                lifetime: o.lifetime,
                precursors: Vec::new(),
                repair_until: Time::ZERO,
            });
            return true;
        };
        let active = r.is_active(now);
        let replace = match o.seq {
            Some(s) => {
                !r.valid_seq
                    || seq_newer(s, r.seq)
                    || (s == r.seq && (!active || o.hop_count < r.hop_count))
            }
            None => !active || o.hop_count < r.hop_count,
        };
        if replace {
            if let Some(s) = o.seq {
                r.seq = s;
                r.valid_seq = true;
            }
            r.next_hop = o.next_hop;
            r.hop_count = o.hop_count;
            r.lifetime = if active {
                r.lifetime.max(o.lifetime)
            } else {
                o.lifetime
            };
            r.valid = true;
            return true;
        }
        if o.seq.is_none() && active && r.next_hop == o.next_hop && r.hop_count == o.hop_count {
            r.lifetime = r.lifetime.max(o.lifetime);
        }
        false
    }

    /// RFC 3561 6.2: extends an active route's lifetime to at least `until`.
    #[inline]
    pub fn refresh(&mut self, dst: NodeId, now: Time, until: Time) {
        if let Some(r) = self.get_mut(dst).filter(|r| r.is_active(now)) {
            r.lifetime = r.lifetime.max(until);
        }
    }

    /// Every destination with an entry, as (destination, entry).
    pub fn iter(&self) -> impl Iterator<Item = (NodeId, &Route)> {
        self.routes
            .iter()
            .enumerate()
            .filter_map(|(i, r)| Some((NodeId(i as u32), r.as_ref()?)))
    }

    /// Every destination with an entry, as (destination, entry), mutable.
    pub fn iter_mut(&mut self) -> impl Iterator<Item = (NodeId, &mut Route)> {
        self.routes
            .iter_mut()
            .enumerate()
            .filter_map(|(i, r)| Some((NodeId(i as u32), r.as_mut()?)))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const T: Time = Time::from_secs(10);

    fn offer(next: u32, hops: u8, seq: Option<u32>) -> Offer {
        Offer {
            next_hop: NodeId(next),
            hop_count: hops,
            seq,
            lifetime: Time::from_secs(13),
        }
    }

    #[test]
    fn sequence_numbers_compare_across_rollover() {
        assert!(seq_newer(5, 4));
        assert!(!seq_newer(4, 5));
        assert!(!seq_newer(7, 7));
        assert!(seq_at_least(7, 7));
        // 0 follows 0xffff_ffff; a jump of less than 2^31 is newer.
        assert!(seq_newer(0, u32::MAX));
        assert!(seq_newer(3, u32::MAX - 2));
        assert!(!seq_newer(u32::MAX, 0));
        assert!(seq_newer(0x8000_0000, 1));
        assert!(
            !seq_newer(0x8000_0001, 1),
            "half the space away counts as older"
        );
    }

    #[test]
    fn update_rules_of_section_6_2() {
        let mut t = RouteTable::new(8);
        let d = NodeId(5);
        assert!(t.offer(d, offer(1, 4, Some(10)), T), "new entry");
        // Same sequence number, more hops: kept.
        assert!(!t.offer(d, offer(2, 5, Some(10)), T));
        assert_eq!(t.get(d).unwrap().next_hop, NodeId(1));
        // Older sequence number, fewer hops: kept.
        assert!(!t.offer(d, offer(2, 1, Some(9)), T));
        // Same sequence number, fewer hops: taken.
        assert!(t.offer(d, offer(2, 3, Some(10)), T));
        assert_eq!(t.get(d).unwrap().next_hop, NodeId(2));
        // Fresher sequence number, even with more hops: taken.
        assert!(t.offer(d, offer(3, 9, Some(11)), T));
        assert_eq!(
            (t.get(d).unwrap().hop_count, t.get(d).unwrap().seq),
            (9, 11)
        );
        // Same sequence number with the route invalid: taken.
        t.get_mut(d).unwrap().valid = false;
        assert!(t.active(d, T).is_none());
        assert!(t.offer(d, offer(4, 12, Some(11)), T));
        assert_eq!(t.active(d, T).unwrap().next_hop, NodeId(4));
        // An entry without a valid sequence number takes any numbered offer.
        let e = NodeId(6);
        assert!(t.offer(e, offer(6, 1, None), T));
        assert!(!t.get(e).unwrap().valid_seq);
        assert!(t.offer(e, offer(1, 3, Some(0)), T));
        assert!(t.get(e).unwrap().valid_seq);
    }

    #[test]
    fn neighbour_offers_keep_the_sequence_number_and_expiry_is_lazy() {
        let mut t = RouteTable::new(4);
        let n = NodeId(2);
        assert!(t.offer(n, offer(1, 2, Some(7)), T));
        // The neighbour itself speaks: a one-hop route, the sequence number stays.
        assert!(t.offer(n, offer(2, 1, None), T));
        let r = t.get(n).unwrap();
        assert_eq!(
            (r.next_hop, r.hop_count, r.seq, r.valid_seq),
            (n, 1, 7, true)
        );
        // Refresh on use extends, never shortens.
        t.refresh(n, T, Time::from_secs(20));
        t.refresh(n, T, Time::from_secs(15));
        assert_eq!(t.get(n).unwrap().lifetime, Time::from_secs(20));
        assert!(
            t.active(n, Time::from_secs(20)).is_none(),
            "expired at its lifetime"
        );
        // An expired route is replaced by any offer with the same sequence number.
        assert!(t.offer(n, offer(3, 4, Some(7)), Time::from_secs(21)));
    }
}
