//! The event queue: a binary heap of plain values with a total order.
//!
//! Order is `(time, seq)` where `seq` is the scheduling sequence number, so events due at
//! the same instant run in the order they were scheduled (FIFO). This makes a run a pure
//! function of the scenario and seed. Scheduling into the past is an error value, never a
//! silent reorder.

use crate::time::Time;
use std::cmp::Ordering;
use std::collections::BinaryHeap;
use std::fmt;

/// Returned when an event would be scheduled before the current time.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct InThePast {
    pub now: Time,
    pub at: Time,
}

impl fmt::Display for InThePast {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "event scheduled at {} but the clock is already at {}",
            self.at, self.now
        )
    }
}

impl std::error::Error for InThePast {}

/// A queued event with its position in the total order packed into one integer,
/// `key = at << 64 | seq`: comparing keys compares `(at, seq)` lexicographically, as one
/// 128-bit comparison instead of two with a branch between them, at every level of every
/// push and pop of the heap.
struct Entry<E> {
    key: u128,
    event: E,
}

impl<E> Entry<E> {
    #[inline]
    fn new(at: Time, seq: u64, event: E) -> Self {
        Entry {
            key: ((at.as_nanos() as u128) << 64) | seq as u128,
            event,
        }
    }

    #[inline]
    fn at(&self) -> Time {
        Time::from_nanos((self.key >> 64) as u64)
    }
}

impl<E> PartialEq for Entry<E> {
    #[inline]
    fn eq(&self, other: &Self) -> bool {
        self.key == other.key
    }
}
impl<E> Eq for Entry<E> {}
impl<E> PartialOrd for Entry<E> {
    #[inline]
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
    #[inline]
    fn lt(&self, other: &Self) -> bool {
        other.key < self.key
    }
    #[inline]
    fn le(&self, other: &Self) -> bool {
        other.key <= self.key
    }
    #[inline]
    fn gt(&self, other: &Self) -> bool {
        other.key > self.key
    }
    #[inline]
    fn ge(&self, other: &Self) -> bool {
        other.key >= self.key
    }
}
impl<E> Ord for Entry<E> {
    /// Reversed so that `BinaryHeap` (a max-heap) pops the earliest `(at, seq)` first.
    #[inline]
    fn cmp(&self, other: &Self) -> Ordering {
        other.key.cmp(&self.key)
    }
}

/// A discrete-event queue with its clock.
pub struct EventQueue<E> {
    heap: BinaryHeap<Entry<E>>,
    now: Time,
    next_seq: u64,
    executed: u64,
}

impl<E> Default for EventQueue<E> {
    fn default() -> Self {
        Self::new()
    }
}

impl<E> EventQueue<E> {
    pub fn new() -> Self {
        Self::with_capacity(1024)
    }

    pub fn with_capacity(cap: usize) -> Self {
        EventQueue {
            heap: BinaryHeap::with_capacity(cap),
            now: Time::ZERO,
            next_seq: 0,
            executed: 0,
        }
    }

    /// The current simulated time: the time of the event last popped.
    #[inline]
    pub fn now(&self) -> Time {
        self.now
    }

    /// Number of events popped so far.
    pub fn executed(&self) -> u64 {
        self.executed
    }

    pub fn len(&self) -> usize {
        self.heap.len()
    }

    pub fn is_empty(&self) -> bool {
        self.heap.is_empty()
    }

    /// Schedules `event` at the absolute time `at`.
    #[inline]
    pub fn schedule(&mut self, at: Time, event: E) -> Result<(), InThePast> {
        if at < self.now {
            return Err(InThePast { now: self.now, at });
        }
        let seq = self.next_seq;
        self.next_seq += 1;
        self.heap.push(Entry::new(at, seq, event));
        Ok(())
    }

    /// Schedules `event` after `delay` from now; cannot fail.
    #[inline]
    pub fn schedule_in(&mut self, delay: Time, event: E) {
        let at = self.now + delay;
        let seq = self.next_seq;
        self.next_seq += 1;
        self.heap.push(Entry::new(at, seq, event));
    }

    /// Time of the next event, if any.
    pub fn peek_time(&self) -> Option<Time> {
        self.heap.peek().map(Entry::at)
    }

    /// Pops the next event and advances the clock to its time.
    #[inline]
    pub fn pop(&mut self) -> Option<(Time, E)> {
        let e = self.heap.pop()?;
        let at = e.at();
        debug_assert!(at >= self.now);
        self.now = at;
        self.executed += 1;
        Some((at, e.event))
    }

    /// Pops the next event only if it is due at or before `until`.
    #[inline]
    pub fn pop_until(&mut self, until: Time) -> Option<(Time, E)> {
        match self.heap.peek() {
            Some(e) if e.at() <= until => self.pop(),
            _ => None,
        }
    }

    /// Moves the clock forward to `t` without running anything (end of a run).
    pub fn advance_to(&mut self, t: Time) {
        if t > self.now {
            self.now = t;
        }
    }

    /// Iterates over pending events in no particular order (for end-of-run accounting).
    pub fn pending(&self) -> impl Iterator<Item = &E> {
        self.heap.iter().map(|e| &e.event)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn same_instant_runs_in_scheduling_order() {
        let mut q = EventQueue::new();
        let t = Time::from_micros(10);
        for i in 0..100u32 {
            q.schedule(t, i).unwrap();
        }
        q.schedule(Time::from_micros(5), 1000).unwrap();
        assert_eq!(q.pop(), Some((Time::from_micros(5), 1000)));
        for i in 0..100u32 {
            assert_eq!(q.pop(), Some((t, i)));
        }
        assert!(q.pop().is_none());
        assert_eq!(q.executed(), 101);
    }

    #[test]
    fn past_is_an_error() {
        let mut q = EventQueue::new();
        q.schedule(Time::from_secs(1), ()).unwrap();
        q.pop();
        let err = q.schedule(Time::from_millis(999), ()).unwrap_err();
        assert_eq!(err.now, Time::from_secs(1));
        assert!(err.to_string().contains("already at"));
        // Now is allowed.
        q.schedule(Time::from_secs(1), ()).unwrap();
    }

    #[test]
    fn pop_until_stops_at_horizon() {
        let mut q = EventQueue::new();
        q.schedule(Time::from_secs(1), 1).unwrap();
        q.schedule(Time::from_secs(3), 3).unwrap();
        assert_eq!(
            q.pop_until(Time::from_secs(2)),
            Some((Time::from_secs(1), 1))
        );
        assert_eq!(q.pop_until(Time::from_secs(2)), None);
        assert_eq!(q.len(), 1);
    }

    proptest! {
        /// Whatever the insertion order, events come out sorted by time and, within a
        /// time, by insertion order.
        #[test]
        fn total_order(times in proptest::collection::vec(0u64..50, 0..200)) {
            let mut q = EventQueue::new();
            for (i, t) in times.iter().enumerate() {
                q.schedule(Time::from_nanos(*t), i).unwrap();
            }
            let mut last: Option<(Time, usize)> = None;
            while let Some((t, i)) = q.pop() {
                prop_assert_eq!(Time::from_nanos(times[i]), t);
                if let Some((lt, li)) = last {
                    prop_assert!(lt < t || (lt == t && li < i));
                }
                last = Some((t, i));
            }
        }

        /// Pushes (delays from now) interleaved with pops (`None`) come out exactly as
        /// from a sorted list of `(time, insertion index)`, the order the queue promises.
        #[test]
        fn interleaved_matches_sorted_model(
            ops in proptest::collection::vec(proptest::option::weighted(0.6, 0u64..40), 0..400)
        ) {
            let mut q = EventQueue::new();
            let mut model: Vec<(Time, usize)> = Vec::new();
            for (i, op) in ops.iter().enumerate() {
                match op {
                    Some(d) => {
                        q.schedule_in(Time::from_nanos(*d), i);
                        model.push((q.now() + Time::from_nanos(*d), i));
                    }
                    None => {
                        model.sort_unstable_by(|a, b| b.cmp(a));
                        prop_assert_eq!(q.pop(), model.pop());
                    }
                }
                prop_assert_eq!(q.len(), model.len());
            }
            model.sort_unstable_by(|a, b| b.cmp(a));
            while let Some(e) = model.pop() {
                prop_assert_eq!(q.pop(), Some(e));
            }
            prop_assert!(q.pop().is_none());
        }
    }
}
