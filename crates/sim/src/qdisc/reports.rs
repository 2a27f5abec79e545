//! What a node last heard its neighbours report about their queues, per (neighbour,
//! class), where a class is a node id (DiffQ's destination, fair queuing's source or
//! destination class).
//!
//! The schemes that overhear queue reports (DiffQ, seed 000 section 4.1; fair queuing
//! with back-pressure, seed 001) look one up for every class they consider at every
//! dequeue and store one for every frame they decode or overhear, so the table is dense:
//! a slot per neighbour heard so far (found through a node-indexed vector) and, per slot,
//! a row with one entry per class. A row is allocated when a neighbour is first heard,
//! never per report.

use crate::ids::NodeId;

/// `slot_of` value of a node never heard from.
const NO_SLOT: u32 = u32::MAX;

/// Reports of type `V` by (neighbour, class), for a network of `node_count` nodes.
#[derive(Clone, Debug)]
pub struct NeighbourReports<V: Copy> {
    node_count: usize,
    /// Dense by node id: the row of that neighbour, or `NO_SLOT`.
    slot_of: Vec<u32>,
    /// `node_count` entries per slot, by class id; `None` before the first report.
    rows: Vec<Option<V>>,
}

impl<V: Copy> NeighbourReports<V> {
    pub fn new(node_count: usize) -> Self {
        NeighbourReports {
            node_count,
            slot_of: vec![NO_SLOT; node_count],
            rows: Vec::new(),
        }
    }

    fn index(&self, j: NodeId, c: NodeId) -> Option<usize> {
        let slot = *self.slot_of.get(j.index())?;
        (slot != NO_SLOT && c.index() < self.node_count)
            .then(|| slot as usize * self.node_count + c.index())
    }

    /// The last report of neighbour `j` for class `c`.
    #[inline]
    pub fn get(&self, j: NodeId, c: NodeId) -> Option<V> {
        self.index(j, c).and_then(|i| self.rows[i])
    }

    /// The entry of (`j`, `c`), for reading and updating in place; gives `j` a row the
    /// first time it is named.
    pub fn entry(&mut self, j: NodeId, c: NodeId) -> &mut Option<V> {
        assert!(
            j.index() < self.node_count && c.index() < self.node_count,
            "report of node {} for class {} in a network of {} nodes",
            j.index(),
            c.index(),
            self.node_count
        );
        if self.slot_of[j.index()] == NO_SLOT {
            self.slot_of[j.index()] = (self.rows.len() / self.node_count) as u32;
            self.rows.resize(self.rows.len() + self.node_count, None);
        }
        let i = self.index(j, c).expect("slot just given");
        &mut self.rows[i]
    }

    /// Records `v` as the last report of `j` for `c`.
    #[inline]
    pub fn insert(&mut self, j: NodeId, c: NodeId, v: V) {
        *self.entry(j, c) = Some(v);
    }

    /// Neighbour `j`'s reports, by class (`None` where it reported nothing); empty
    /// before `j` is first heard.
    pub fn row(&self, j: NodeId) -> &[Option<V>] {
        match self.slot_of.get(j.index()) {
            Some(&slot) if slot != NO_SLOT => {
                let start = slot as usize * self.node_count;
                &self.rows[start..start + self.node_count]
            }
            _ => &[],
        }
    }

    /// Every report held, of every neighbour and class.
    pub fn all(&self) -> impl Iterator<Item = V> + '_ {
        self.rows.iter().filter_map(|v| *v)
    }

    /// Every report for class `c`, one per neighbour that has one, neighbours in the
    /// order they were first named (a scan of one column, not of the whole table).
    pub fn reports_of(&self, c: NodeId) -> impl Iterator<Item = V> + '_ {
        let column = (c.index() < self.node_count).then_some(c.index());
        let entries = self.rows.iter().skip(column.unwrap_or(self.rows.len()));
        entries.step_by(self.node_count.max(1)).filter_map(|v| *v)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reports_are_kept_per_neighbour_and_class() {
        let mut r: NeighbourReports<u32> = NeighbourReports::new(5);
        assert_eq!(r.get(NodeId(1), NodeId(4)), None);
        r.insert(NodeId(1), NodeId(4), 7);
        r.insert(NodeId(3), NodeId(4), 2);
        r.insert(NodeId(1), NodeId(2), 9);
        assert_eq!(r.get(NodeId(1), NodeId(4)), Some(7));
        assert_eq!(r.get(NodeId(3), NodeId(4)), Some(2));
        assert_eq!(r.get(NodeId(1), NodeId(2)), Some(9));
        assert_eq!(r.get(NodeId(3), NodeId(2)), None);
        assert_eq!(r.get(NodeId(0), NodeId(4)), None);
        r.insert(NodeId(1), NodeId(4), 1);
        assert_eq!(r.get(NodeId(1), NodeId(4)), Some(1));
        // Out of range: nothing heard, never a panic on lookup.
        assert_eq!(r.get(NodeId(9), NodeId(0)), None);
        assert_eq!(r.get(NodeId(1), NodeId(9)), None);
    }

    #[test]
    fn entry_updates_in_place_and_rows_grow_once_per_neighbour() {
        let mut r: NeighbourReports<(u32, u64)> = NeighbourReports::new(3);
        let e = r.entry(NodeId(2), NodeId(0)).get_or_insert((0, 5));
        e.0 += 1;
        assert_eq!(r.get(NodeId(2), NodeId(0)), Some((1, 5)));
        r.insert(NodeId(2), NodeId(1), (4, 6));
        assert_eq!(r.rows.len(), 3, "one row for the one neighbour heard");
        r.insert(NodeId(0), NodeId(1), (2, 7));
        assert_eq!(r.rows.len(), 6);
        assert_eq!(r.get(NodeId(2), NodeId(1)), Some((4, 6)));
        assert_eq!(r.get(NodeId(0), NodeId(1)), Some((2, 7)));
    }

    #[test]
    fn a_neighbours_row_and_every_report() {
        let mut r: NeighbourReports<u32> = NeighbourReports::new(3);
        assert!(r.row(NodeId(1)).is_empty());
        r.insert(NodeId(1), NodeId(2), 5);
        r.insert(NodeId(0), NodeId(1), 7);
        assert_eq!(r.row(NodeId(1)), &[None, None, Some(5)]);
        assert_eq!(r.row(NodeId(0)), &[None, Some(7), None]);
        assert!(r.row(NodeId(9)).is_empty());
        assert_eq!(r.all().collect::<Vec<_>>(), vec![5, 7]);
    }

    #[test]
    fn reports_of_a_class_over_every_neighbour() {
        let mut r: NeighbourReports<u32> = NeighbourReports::new(4);
        assert_eq!(r.reports_of(NodeId(2)).count(), 0);
        r.insert(NodeId(3), NodeId(2), 30);
        r.insert(NodeId(1), NodeId(0), 10);
        r.insert(NodeId(1), NodeId(2), 12);
        r.insert(NodeId(0), NodeId(3), 3);
        // In the order the neighbours were first named: 3, then 1 (0 has none for 2).
        assert_eq!(r.reports_of(NodeId(2)).collect::<Vec<_>>(), vec![30, 12]);
        assert_eq!(r.reports_of(NodeId(0)).collect::<Vec<_>>(), vec![10]);
        assert_eq!(r.reports_of(NodeId(3)).collect::<Vec<_>>(), vec![3]);
        assert_eq!(r.reports_of(NodeId(1)).count(), 0);
        // Out of range: no reports, never a panic.
        assert_eq!(r.reports_of(NodeId(9)).count(), 0);
    }
}
