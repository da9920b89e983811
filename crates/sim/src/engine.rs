//! The event scheduler: a binary heap ordered by (time, insertion sequence).
//!
//! Ties in time are broken by insertion order, so two events scheduled for the same instant run
//! in the order they were scheduled, on every platform and every run. Timers are cancelled
//! lazily by their owners (a generation or deadline check when the event fires), which keeps
//! cancellation O(1) and the heap free of deletions.
//!
//! The clock only moves forward: the scheduler counts every event that would move it back
//! (the `time_monotone` invariant), which `at` also refuses in debug builds.

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
    /// Events popped with a time before the clock's, and the first such (time, clock).
    backsteps: u64,
    first_backstep: Option<(Nanos, Nanos)>,
}

impl<E> Default for Scheduler<E> {
    fn default() -> Self {
        Scheduler { heap: BinaryHeap::with_capacity(1024), seq: 0, now: 0, executed: 0, backsteps: 0, first_backstep: None }
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

    /// The pending events, in no particular order.
    pub fn pending_events(&self) -> impl Iterator<Item = &E> {
        self.heap.iter().map(|e| &e.event)
    }

    /// Events that ran before the clock's time (0 unless something scheduled into the past).
    pub fn backsteps(&self) -> u64 {
        self.backsteps
    }

    /// The first such event's time and the clock it found.
    pub fn first_backstep(&self) -> Option<(Nanos, Nanos)> {
        self.first_backstep
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
        if e.at < self.now {
            self.backstep(e.at);
        }
        self.now = e.at;
        self.executed += 1;
        Some(e.event)
    }

    #[cold]
    fn backstep(&mut self, at: Nanos) {
        self.backsteps += 1;
        self.first_backstep.get_or_insert((at, self.now));
    }

    /// Schedules an event without the debug check on its time: the fault the
    /// `time_monotone` invariant must catch.
    #[cfg(test)]
    pub(crate) fn at_unchecked(&mut self, at: Nanos, event: E) {
        self.seq += 1;
        self.heap.push(Entry { at, seq: self.seq, event });
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
        assert_eq!(s.pending_events().collect::<Vec<_>>(), [&'e']);
        assert_eq!(s.executed(), 4);
        s.advance_to(40);
        assert_eq!(s.now(), 40);
        s.after(5, 'f');
        assert_eq!(s.pop_until(100), Some('f'));
        assert_eq!(s.now(), 45);
        assert_eq!(s.backsteps(), 0);
    }

    #[test]
    fn an_event_in_the_past_is_counted() {
        let mut s = Scheduler::default();
        s.at(100, 'a');
        assert_eq!(s.pop_until(200), Some('a'));
        s.at_unchecked(40, 'b');
        assert_eq!(s.pop_until(200), Some('b'));
        assert_eq!((s.backsteps(), s.first_backstep()), (1, Some((40, 100))));
    }
}
