//! The event scheduler: a binary heap ordered by (time, insertion sequence).
//!
//! Ties in time are broken by insertion order, so two events scheduled for the same instant run
//! in the order they were scheduled, on every platform and every run. Timers are cancelled
//! lazily by their owners (a generation or deadline check when the event fires), which keeps
//! cancellation O(1) and the heap free of deletions.
//!
//! The clock only moves forward: the scheduler counts every event that would move it back
//! (the `time_monotone` invariant), which `at` also refuses in debug builds.
//!
//! Delay lines keep the heap small when many packets are in flight. Packets crossing the same
//! link leave it in the order they entered, so their arrivals come in time order: a *line*
//! (one per link) holds them as a FIFO and only its head sits in the heap. When the head is
//! popped, the next one takes its place. Every event keeps the (time, sequence) key it got
//! when scheduled, and a line's events are in key order (an event that would arrive before
//! its line's last one goes to the heap directly), so the heap's top is always the smallest
//! key of all: events run in exactly the order a single heap would give, and the heap holds
//! one entry per busy link plus the timers instead of one per packet in flight.
//!
//! The timers of flows (retransmission and delayed-ACK timers, starts, application events)
//! wait in a heap of their own: there are as many as flows, while the events of links stay
//! few, so most pops sift a heap of a few entries instead of one of 10⁴ (issue 22). That heap
//! is a radix heap ([`crate::radix`]): no flow's event is ever scheduled before the last one
//! popped, and at 10,000 flows its pops cost about half a binary heap's (whose comparisons at
//! each of 14 levels the processor mispredicts half the time). The next event is the earlier
//! of the two heaps' tops by the same (time, sequence) key, so the order is again exactly that
//! of a single heap.

use std::cmp::Ordering;
use std::collections::VecDeque;

use aqm::Nanos;

use crate::heap::MinHeap;
use crate::radix::{RadixHeap, RadixKey};

#[derive(Clone, Copy)]
struct Entry<E> {
    at: Nanos,
    seq: u64,
    /// The line this entry heads, or `NO_LINE`.
    line: u32,
    event: E,
}

const NO_LINE: u32 = u32::MAX;

/// How far ahead of a line's front [`Scheduler::line_follower`] prefetches, in entries (4 of
/// 32 bytes: two cache lines; 4 to 32 measured alike at 10 Gb/s).
const LINE_READ_AHEAD: usize = 4;

/// The events of one delay line that wait behind its head (which is in the heap).
struct Line<E> {
    queued: VecDeque<(Nanos, u64, E)>,
    head_in_heap: bool,
    /// Time of the line's last event: a later event joins the line only from this time on.
    last_at: Nanos,
}

// Ordered by (time, sequence) alone: the sequence numbers are distinct, so no two entries tie.
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
    fn cmp(&self, other: &Self) -> Ordering {
        (self.at, self.seq).cmp(&(other.at, other.seq))
    }
}

impl<E> RadixKey for Entry<E> {
    #[inline]
    fn radix_key(&self) -> u64 {
        self.at
    }
}

/// Pending events of type `E` and the simulated clock.
pub struct Scheduler<E> {
    /// Events of links: line heads, transmissions, discipline timers, samples.
    heap: MinHeap<Entry<E>>,
    /// Events of flows (see the module notes).
    flow_heap: RadixHeap<Entry<E>>,
    lines: Vec<Line<E>>,
    seq: u64,
    now: Nanos,
    executed: u64,
    /// Events popped with a time before the clock's, and the first such (time, clock).
    backsteps: u64,
    first_backstep: Option<(Nanos, Nanos)>,
    /// The line of the event popped last (`NO_LINE` for a plain one).
    popped_line: u32,
    /// The flows' heap changed since [`Scheduler::new_flow_top`] last looked.
    flow_heap_changed: bool,
}

impl<E: Copy> Default for Scheduler<E> {
    fn default() -> Self {
        Scheduler { heap: MinHeap::with_capacity(1024), flow_heap: RadixHeap::default(), lines: Vec::new(), seq: 0, now: 0, executed: 0, backsteps: 0, first_backstep: None, popped_line: NO_LINE, flow_heap_changed: false }
    }
}

impl<E: Copy> Scheduler<E> {
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
        self.heap.iter().chain(self.flow_heap.iter()).map(|e| &e.event).chain(self.lines.iter().flat_map(|l| l.queued.iter().map(|q| &q.2)))
    }

    /// Makes room for `n` delay lines, numbered from 0.
    pub fn add_lines(&mut self, n: usize) {
        self.lines.resize_with(self.lines.len() + n, || Line { queued: VecDeque::new(), head_in_heap: false, last_at: 0 });
    }

    /// Events that ran before the clock's time (0 unless something scheduled into the past).
    pub fn backsteps(&self) -> u64 {
        self.backsteps
    }

    /// The first such event's time and the clock it found.
    pub fn first_backstep(&self) -> Option<(Nanos, Nanos)> {
        self.first_backstep
    }

    /// The next event, without running it.
    #[inline]
    pub fn peek(&self) -> Option<&E> {
        if self.flow_next() {
            self.flow_heap.peek().map(|e| &e.event)
        } else {
            self.heap.peek().map(|e| &e.event)
        }
    }

    /// The earliest of the flows' events (timers, starts) and its sequence number, when the
    /// flows' heap changed since the last call (None otherwise): the sequence number tells a
    /// new earliest from the one seen before. It may run many events later, long enough to
    /// fetch what it reads into the cache. Most events leave the flows' heap alone, and cost
    /// only the test of a flag here.
    #[inline]
    pub fn new_flow_top(&mut self) -> Option<(u64, &E)> {
        if !self.flow_heap_changed {
            return None;
        }
        self.flow_heap_changed = false;
        self.flow_heap.peek().map(|e| (e.seq, &e.event))
    }

    /// The next event is a flow's (the flows' heap holds the earlier top).
    #[inline]
    fn flow_next(&self) -> bool {
        match (self.heap.peek(), self.flow_heap.peek()) {
            (Some(link), Some(flow)) => flow < link,
            (None, flow) => flow.is_some(),
            (Some(_), None) => false,
        }
    }

    /// The event that waits second in the line of the event popped last, behind the head that
    /// took its place in the heap: the earliest event of a busy link that is not yet next, so
    /// a caller can fetch its data into the cache well before it runs.
    #[inline]
    pub fn line_follower(&self) -> Option<&E> {
        let l = self.lines.get(self.popped_line as usize)?;
        // The line's entries are read front to back, one per pop: fetching one a few entries
        // ahead keeps the reads of a long line (a packet per entry, 10⁵ at 10 Gb/s) from
        // waiting on memory (issue 22).
        if let Some(ahead) = l.queued.get(LINE_READ_AHEAD) {
            crate::prefetch::record(ahead);
        }
        l.queued.front().map(|q| &q.2)
    }

    /// The event that waits third in the line of the event popped last (the one behind
    /// [`Scheduler::line_follower`]'s): what it reads can be fetched a pop earlier still.
    #[inline]
    pub fn line_third(&self) -> Option<&E> {
        self.lines.get(self.popped_line as usize)?.queued.get(1).map(|q| &q.2)
    }

    /// Schedules `event` at absolute time `at` (never in the past).
    #[inline]
    pub fn at(&mut self, at: Nanos, event: E) {
        debug_assert!(at >= self.now, "event scheduled in the past: {at} < {}", self.now);
        self.seq += 1;
        self.heap.push(Entry { at, seq: self.seq, line: NO_LINE, event });
    }

    /// Schedules `event` of a flow at absolute time `at` (never in the past): the same order
    /// as [`Scheduler::at`], kept apart from the links' events (see the module notes). Not
    /// inlined: the radix heap's push is then one copy, and its callers (every ACK's timer
    /// update among them) stay small; inlined, the small-flow points ran 1–2 % slower.
    #[inline(never)]
    pub fn at_flow(&mut self, at: Nanos, event: E) {
        debug_assert!(at >= self.now, "event scheduled in the past: {at} < {}", self.now);
        self.seq += 1;
        self.flow_heap.push(Entry { at, seq: self.seq, line: NO_LINE, event });
        self.flow_heap_changed = true;
    }

    /// Schedules `event` at `at` on delay line `line` (see the module notes): the same order
    /// as [`Scheduler::at`], with a smaller heap when the line's events come in time order.
    #[inline]
    pub fn at_line(&mut self, line: u32, at: Nanos, event: E) {
        debug_assert!(at >= self.now, "event scheduled in the past: {at} < {}", self.now);
        self.seq += 1;
        let l = &mut self.lines[line as usize];
        if !l.head_in_heap {
            l.head_in_heap = true;
            l.last_at = at;
            self.heap.push(Entry { at, seq: self.seq, line, event });
        } else if at >= l.last_at {
            l.last_at = at;
            l.queued.push_back((at, self.seq, event));
        } else {
            self.heap.push(Entry { at, seq: self.seq, line: NO_LINE, event });
        }
    }

    /// Pops the next event if it is due no later than `until`, advancing the clock to it.
    #[inline]
    pub fn pop_until(&mut self, until: Nanos) -> Option<E> {
        let (at, event) = if self.flow_next() {
            if self.flow_heap.peek()?.at > until {
                return None;
            }
            self.popped_line = NO_LINE;
            let e = self.flow_heap.pop()?;
            self.flow_heap_changed = true;
            (e.at, e.event)
        } else {
            self.pop_link(until)?
        };
        if at < self.now {
            self.backstep(at);
        }
        self.now = at;
        self.executed += 1;
        Some(event)
    }

    /// Pops the links' heap's top if it is due no later than `until`; a line's next event
    /// takes its place.
    #[inline]
    fn pop_link(&mut self, until: Nanos) -> Option<(Nanos, E)> {
        let top = *self.heap.peek()?;
        if top.at > until {
            return None;
        }
        self.popped_line = top.line;
        if top.line != NO_LINE {
            let l = &mut self.lines[top.line as usize];
            match l.queued.pop_front() {
                // The line's next event replaces its head in place: one sift instead of a
                // pop and a push.
                Some((at, seq, event)) => {
                    self.heap.replace_top(Entry { at, seq, line: top.line, event });
                    return Some((top.at, top.event));
                }
                None => l.head_in_heap = false,
            }
        }
        self.heap.pop();
        Some((top.at, top.event))
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
        self.heap.push(Entry { at, seq: self.seq, line: NO_LINE, event });
    }

    /// Moves the clock to `t` when no event remains before it.
    pub fn advance_to(&mut self, t: Nanos) {
        debug_assert!(self.heap.peek().is_none_or(|e| e.at > t) && self.flow_heap.peek().is_none_or(|e| e.at > t));
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
        s.at(s.now() + 5, 'f');
        assert_eq!(s.pop_until(100), Some('f'));
        assert_eq!(s.now(), 45);
        assert_eq!(s.backsteps(), 0);
    }

    /// The flows' earliest event is reported once after each change of the flows' heap (a push
    /// or a pop of a flow's event) with the sequence number it was scheduled with, and not
    /// after the links' events.
    #[test]
    fn a_new_flow_top_is_reported_once_per_change() {
        let mut s = Scheduler::default();
        assert_eq!(s.new_flow_top(), None);
        s.at_flow(20, 'x'); // sequence 1
        s.at_flow(10, 'y'); // sequence 2, now the earliest
        assert_eq!(s.new_flow_top(), Some((2, &'y')));
        assert_eq!(s.new_flow_top(), None);
        s.at(5, 'l');
        assert_eq!((s.pop_until(100), s.new_flow_top()), (Some('l'), None));
        assert_eq!((s.pop_until(100), s.new_flow_top()), (Some('y'), Some((1, &'x'))));
        assert_eq!((s.pop_until(100), s.new_flow_top()), (Some('x'), None));
    }

    /// Property: with delay lines and the flows' heap, events pop in the order of a plain sort
    /// by (time, order of scheduling), whatever mix of lines, out-of-order line events, plain
    /// events and flows' events.
    #[test]
    fn delay_lines_keep_the_order_of_a_single_heap() {
        let mut x = 0x9e37_79b9_7f4a_7c15u64;
        let mut rand = move |n: u64| {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            x % n
        };
        for _ in 0..200 {
            let mut s = Scheduler::default();
            s.add_lines(4);
            let mut reference: Vec<(Nanos, u64)> = Vec::new();
            let (mut got, mut want) = (Vec::new(), Vec::new());
            let mut id = 0u64;
            for _ in 0..300 {
                if rand(3) == 0 {
                    // What peek shows is what the pop then gives.
                    let peeked = s.peek().copied();
                    if let Some(e) = s.pop_until(u64::MAX) {
                        assert_eq!(peeked, Some(e));
                        got.push(e);
                        reference.sort_unstable();
                        want.push(reference.remove(0).1);
                    }
                    continue;
                }
                id += 1;
                // Mostly increasing times per line, with ties and some that arrive early.
                let at = s.now() + rand(50);
                match rand(6) {
                    0 => s.at(at, id),
                    1 => s.at_flow(at, id),
                    k => s.at_line(k as u32 - 2, at, id),
                }
                reference.push((at, id));
            }
            while let Some(e) = s.pop_until(u64::MAX) {
                got.push(e);
            }
            reference.sort_unstable();
            want.extend(reference.iter().map(|r| r.1));
            assert_eq!(got, want);
        }
    }

    /// A flow's event due at the bound of `pop_until` runs, one due a nanosecond after it does
    /// not (as the links' events: "due no later than `until`").
    #[test]
    fn a_flows_event_runs_up_to_the_bound_inclusive() {
        let mut s = Scheduler::default();
        s.at_flow(40, 'p');
        s.at_flow(50, 'q');
        assert_eq!(s.pop_until(39), None);
        assert_eq!((s.pop_until(40), s.now()), (Some('p'), 40));
        assert_eq!(s.pop_until(49), None);
        assert_eq!((s.pop_until(50), s.now()), (Some('q'), 50));
        assert_eq!(s.pop_until(u64::MAX), None);
    }

    /// Hand-worked trace of the line's followers: line 0 holds a, b, c, d at 10, 20, 30, 40, a
    /// plain event x at 15 and a flow's event f at 25. After a pops, b heads the line in the
    /// heap, so c waits second and d third; after x or f (not a line's event) there is none;
    /// after b, d waits second and no event third; after c and d the line is empty.
    #[test]
    fn the_followers_are_those_behind_the_lines_new_head() {
        let mut s = Scheduler::default();
        s.add_lines(2);
        for (at, e) in [(10, 'a'), (20, 'b'), (30, 'c'), (40, 'd')] {
            s.at_line(0, at, e);
        }
        s.at(15, 'x');
        s.at_flow(25, 'f');
        assert_eq!((s.line_follower(), s.line_third()), (None, None));
        let mut got = Vec::new();
        while let Some(e) = s.pop_until(100) {
            got.push((e, s.line_follower().copied(), s.line_third().copied()));
        }
        assert_eq!(got, [('a', Some('c'), Some('d')), ('x', None, None), ('b', Some('d'), None), ('f', None, None), ('c', None, None), ('d', None, None)]);
    }

    /// Entries are equal when their (time, sequence) keys are, whatever their line and event,
    /// as their order says (`Eq` agrees with `Ord`); the radix key of an entry is its time, the
    /// leading part of that order.
    #[test]
    fn entries_compare_by_time_and_sequence_alone() {
        let e = |at, seq, line, event| Entry { at, seq, line, event };
        assert!(e(5, 1, 0, 'a') == e(5, 1, NO_LINE, 'b'));
        assert!(e(5, 1, 0, 'a') != e(6, 1, 0, 'a'));
        assert!(e(5, 1, 0, 'a') != e(5, 2, 0, 'a'));
        assert!(e(5, 1, 0, 'a') != e(6, 2, 0, 'a'));
        assert_eq!(e(5, 1, 0, 'a').cmp(&e(5, 1, NO_LINE, 'b')), Ordering::Equal);
        assert_eq!((e(5, 9, 0, 'a').radix_key(), e(1 << 40, 0, 0, 'a').radix_key()), (5, 1 << 40));
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
