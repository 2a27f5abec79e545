//! Cancellable, cheaply re-armable timers on top of [`EventQueue`].
//!
//! TCP's retransmission timer and the MAC's ACK timeout are re-armed on almost every
//! packet, usually to a *later* deadline. Pushing a new heap entry each time would grow the
//! heap with dead entries, so a timer keeps at most one live entry in the queue:
//!
//! * arming to a deadline at or after the queued entry only records the new deadline
//!   (O(1)); when the entry fires early it re-queues itself at the recorded deadline;
//! * arming to an earlier deadline queues a fresh entry and bumps the timer's generation,
//!   so the old entry is recognised as stale and ignored when it pops;
//! * cancelling clears the deadline; the queued entry pops later and is ignored.
//!
//! The caller routes `(TimerId, generation)` events from its event type to [`Timers::fire`].

use crate::queue::EventQueue;
use crate::time::Time;

/// Index of a timer slot, stable for the life of the run.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct TimerId(pub u32);

/// What travels in the event queue for a timer: the slot and the generation it was queued
/// with.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TimerEvent {
    pub id: TimerId,
    pub generation: u32,
}

#[derive(Clone, Debug)]
struct Slot<O> {
    owner: O,
    generation: u32,
    /// When the timer should fire, if armed.
    deadline: Option<Time>,
    /// Time of the one live queue entry of this generation, if any.
    queued_at: Option<Time>,
}

/// A table of timers, each owned by some component identified by `O`.
#[derive(Clone, Debug, Default)]
pub struct Timers<O> {
    slots: Vec<Slot<O>>,
}

impl<O: Copy> Timers<O> {
    pub fn new() -> Self {
        Timers { slots: Vec::new() }
    }

    /// Creates an unarmed timer owned by `owner`.
    pub fn create(&mut self, owner: O) -> TimerId {
        let id = TimerId(self.slots.len() as u32);
        self.slots.push(Slot {
            owner,
            generation: 0,
            deadline: None,
            queued_at: None,
        });
        id
    }

    /// How many timers were created.
    pub fn len(&self) -> usize {
        self.slots.len()
    }

    pub fn is_empty(&self) -> bool {
        self.slots.is_empty()
    }

    pub fn owner(&self, id: TimerId) -> O {
        self.slots[id.0 as usize].owner
    }

    pub fn deadline(&self, id: TimerId) -> Option<Time> {
        self.slots[id.0 as usize].deadline
    }

    pub fn is_armed(&self, id: TimerId) -> bool {
        self.slots[id.0 as usize].deadline.is_some()
    }

    /// Arms (or re-arms) `id` to fire at `at` (clamped to now). `wrap` turns a
    /// [`TimerEvent`] into the caller's event type.
    #[inline]
    pub fn arm<E>(
        &mut self,
        id: TimerId,
        at: Time,
        queue: &mut EventQueue<E>,
        wrap: impl FnOnce(TimerEvent) -> E,
    ) {
        let at = at.max(queue.now());
        let slot = &mut self.slots[id.0 as usize];
        slot.deadline = Some(at);
        match slot.queued_at {
            // The live entry pops no later than the new deadline and will re-queue itself.
            Some(q) if q <= at => {}
            _ => {
                slot.generation = slot.generation.wrapping_add(1);
                slot.queued_at = Some(at);
                let ev = TimerEvent {
                    id,
                    generation: slot.generation,
                };
                queue.schedule_in(at - queue.now(), wrap(ev));
            }
        }
    }

    /// Disarms `id`. Its queued entry, if any, will be ignored when it pops.
    #[inline]
    pub fn cancel(&mut self, id: TimerId) {
        self.slots[id.0 as usize].deadline = None;
    }

    /// Handles a popped timer event. Returns the owner if the timer really expires now;
    /// `None` for stale, cancelled or postponed entries (a postponed one is re-queued).
    #[inline]
    pub fn fire<E>(
        &mut self,
        ev: TimerEvent,
        queue: &mut EventQueue<E>,
        wrap: impl FnOnce(TimerEvent) -> E,
    ) -> Option<O> {
        let now = queue.now();
        let slot = &mut self.slots[ev.id.0 as usize];
        if ev.generation != slot.generation || slot.queued_at != Some(now) {
            return None;
        }
        slot.queued_at = None;
        match slot.deadline {
            None => None,
            Some(d) if d <= now => {
                slot.deadline = None;
                Some(slot.owner)
            }
            Some(d) => {
                slot.queued_at = Some(d);
                queue.schedule_in(d - now, wrap(ev));
                None
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Runs the queue to the end and returns (time, owner) of every expiry.
    fn run(timers: &mut Timers<u32>, q: &mut EventQueue<TimerEvent>) -> Vec<(Time, u32)> {
        let mut out = vec![];
        while let Some((t, ev)) = q.pop() {
            if let Some(o) = timers.fire(ev, q, |e| e) {
                out.push((t, o));
            }
        }
        out
    }

    #[test]
    fn fires_once_at_deadline() {
        let mut q = EventQueue::new();
        let mut t = Timers::new();
        let a = t.create(7);
        t.arm(a, Time::from_millis(5), &mut q, |e| e);
        assert!(t.is_armed(a));
        assert_eq!(run(&mut t, &mut q), vec![(Time::from_millis(5), 7)]);
        assert!(!t.is_armed(a));
    }

    #[test]
    fn cancel_suppresses_expiry() {
        let mut q = EventQueue::new();
        let mut t = Timers::new();
        let a = t.create(1);
        t.arm(a, Time::from_millis(5), &mut q, |e| e);
        t.cancel(a);
        assert!(run(&mut t, &mut q).is_empty());
    }

    #[test]
    fn rearm_later_reuses_entry_and_fires_at_new_deadline() {
        let mut q = EventQueue::new();
        let mut t = Timers::new();
        let a = t.create(1);
        t.arm(a, Time::from_millis(5), &mut q, |e| e);
        for ms in 6..100 {
            t.arm(a, Time::from_millis(ms), &mut q, |e| e);
        }
        // Only one entry was ever queued for all 95 armings.
        assert_eq!(q.len(), 1);
        assert_eq!(run(&mut t, &mut q), vec![(Time::from_millis(99), 1)]);
    }

    #[test]
    fn rearm_earlier_fires_early_and_once() {
        let mut q = EventQueue::new();
        let mut t = Timers::new();
        let a = t.create(1);
        t.arm(a, Time::from_millis(50), &mut q, |e| e);
        t.arm(a, Time::from_millis(10), &mut q, |e| e);
        assert_eq!(run(&mut t, &mut q), vec![(Time::from_millis(10), 1)]);
    }

    #[test]
    fn cancel_then_rearm_fires_at_rearmed_time() {
        let mut q = EventQueue::new();
        let mut t = Timers::new();
        let a = t.create(1);
        let b = t.create(2);
        t.arm(a, Time::from_millis(10), &mut q, |e| e);
        t.cancel(a);
        t.arm(a, Time::from_millis(30), &mut q, |e| e);
        t.arm(b, Time::from_millis(20), &mut q, |e| e);
        assert_eq!(
            run(&mut t, &mut q),
            vec![(Time::from_millis(20), 2), (Time::from_millis(30), 1)]
        );
    }

    #[test]
    fn rearm_after_expiry_from_inside_handler() {
        let mut q = EventQueue::new();
        let mut t = Timers::new();
        let a = t.create(1);
        t.arm(a, Time::from_millis(1), &mut q, |e| e);
        let mut fired = vec![];
        while let Some((now, ev)) = q.pop() {
            if t.fire(ev, &mut q, |e| e).is_some() {
                fired.push(now);
                if fired.len() < 3 {
                    t.arm(a, now + Time::from_millis(1), &mut q, |e| e);
                }
            }
        }
        assert_eq!(
            fired,
            vec![
                Time::from_millis(1),
                Time::from_millis(2),
                Time::from_millis(3)
            ]
        );
    }
}
