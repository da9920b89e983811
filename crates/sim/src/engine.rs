//! The event scheduler: a binary heap ordered by (time, insertion sequence).
//!
//! Ties in time are broken by insertion order, so two events scheduled for the same instant run
//! in the order they were scheduled, on every platform and every run. Timers are cancelled
//! lazily by their owners (a generation or deadline check when the event fires), which keeps
//! cancellation O(1) and the heap free of deletions.

use std::cmp::Ordering;
use std::collections::BinaryHeap;

use aqm::Nanos;

struct Entry<E> {
    at: Nanos,
    seq: u64,
    event: E,
}

impl<E> PartialEq for Entry<E> {
    fn eq(&self, other: &Self) -> bool {
        self.at == other.at && self.seq == other.seq
    }
}
impl<E> Eq for Entry<E> {}
impl<E> PartialOrd for Entry<E> {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}
impl<E> Ord for Entry<E> {
    // Reversed, so that the max-heap pops the earliest (time, seq) first.
    fn cmp(&self, other: &Self) -> Ordering {
        (other.at, other.seq).cmp(&(self.at, self.seq))
    }
}

/// Pending events of type `E` and the simulated clock.
pub struct Scheduler<E> {
    heap: BinaryHeap<Entry<E>>,
    seq: u64,
    now: Nanos,
    executed: u64,
}

impl<E> Default for Scheduler<E> {
    fn default() -> Self {
        Scheduler { heap: BinaryHeap::with_capacity(1024), seq: 0, now: 0, executed: 0 }
    }
}

impl<E> Scheduler<E> {
    /// Current simulated time.
    #[inline]
    pub fn now(&self) -> Nanos {
        self.now
    }

    /// Number of events executed so far.
    pub fn executed(&self) -> u64 {
        self.executed
    }

    /// Number of pending events.
    pub fn pending(&self) -> usize {
        self.heap.len()
    }

    /// Schedules `event` at absolute time `at` (never in the past).
    #[inline]
    pub fn at(&mut self, at: Nanos, event: E) {
        debug_assert!(at >= self.now, "event scheduled in the past: {at} < {}", self.now);
        self.seq += 1;
        self.heap.push(Entry { at, seq: self.seq, event });
    }

    /// Schedules `event` after `delay`.
    #[inline]
    pub fn after(&mut self, delay: Nanos, event: E) {
        self.at(self.now + delay, event);
    }

    /// Pops the next event if it is due no later than `until`, advancing the clock to it.
    #[inline]
    pub fn pop_until(&mut self, until: Nanos) -> Option<E> {
        if self.heap.peek()?.at > until {
            return None;
        }
        let e = self.heap.pop()?;
        self.now = e.at;
        self.executed += 1;
        Some(e.event)
    }

    /// Moves the clock to `t` when no event remains before it.
    pub fn advance_to(&mut self, t: Nanos) {
        debug_assert!(self.heap.peek().is_none_or(|e| e.at > t));
        self.now = self.now.max(t);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pops_in_time_then_insertion_order() {
        let mut s = Scheduler::default();
        s.at(30, 'c');
        s.at(10, 'a');
        s.at(30, 'd');
        s.at(10, 'b');
        s.at(50, 'e');
        let mut got = Vec::new();
        while let Some(e) = s.pop_until(40) {
            got.push((s.now(), e));
        }
        assert_eq!(got, vec![(10, 'a'), (10, 'b'), (30, 'c'), (30, 'd')]);
        assert_eq!(s.pending(), 1);
        assert_eq!(s.executed(), 4);
        s.advance_to(40);
        assert_eq!(s.now(), 40);
        s.after(5, 'f');
        assert_eq!(s.pop_until(100), Some('f'));
        assert_eq!(s.now(), 45);
    }
}
