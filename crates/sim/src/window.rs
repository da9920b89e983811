//! The counts at the start of the measured window [warm-up, end], so that the summary's packet
//! counts and rates cover the window as its delay, utilization and throughput do.
//!
//! The counters themselves run over the whole run: a flow's `sent = delivered + dropped + in
//! flight` balances only so (see [`crate::invariants`]). `run_until` runs every event due
//! before the warm-up's first nanosecond, copies the counters here, then goes on; the events
//! and their order are those of an uninterrupted run, and no event is added. The window's
//! counts are the counters' values at the end less these: what happened at or after the
//! warm-up time, the rule the byte counters (`bytes_measured`, `tx_bytes_measured`) and the
//! delay histograms follow (`now >= warmup`).

use aqm::Nanos;
use serde::Serialize;

use crate::flow::FlowStats;
use crate::net::link::QueueCounts;
use crate::world::Simulation;

/// A flow's packet counts in the measured window (data packets unless named `acks_`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize)]
pub struct WindowCounts {
    #[serde(rename = "sent_measured")]
    pub sent: u64,
    #[serde(rename = "dropped_measured")]
    pub dropped: u64,
    #[serde(rename = "marked_measured")]
    pub marked: u64,
    #[serde(rename = "acks_sent_measured")]
    pub acks_sent: u64,
    #[serde(rename = "acks_dropped_measured")]
    pub acks_dropped: u64,
}

impl WindowCounts {
    pub fn of(c: &FlowStats) -> Self {
        WindowCounts { sent: c.sent, dropped: c.dropped, marked: c.marked, acks_sent: c.acks_sent, acks_dropped: c.acks_dropped }
    }

    fn since(&self, start: &WindowCounts) -> Self {
        WindowCounts {
            sent: self.sent - start.sent,
            dropped: self.dropped - start.dropped,
            marked: self.marked - start.marked,
            acks_sent: self.acks_sent - start.acks_sent,
            acks_dropped: self.acks_dropped - start.acks_dropped,
        }
    }

    /// Adds `o`'s counts to these.
    pub fn add(&mut self, o: &WindowCounts) {
        self.sent += o.sent;
        self.dropped += o.dropped;
        self.marked += o.marked;
        self.acks_sent += o.acks_sent;
        self.acks_dropped += o.acks_dropped;
    }
}

/// Where the counters stood when the window opened: the simulator's, and the live router's,
/// which counts by the same rules.
pub enum Window {
    /// No warm-up: the window is the whole run, and no copy is held (a million flows' run
    /// among them).
    Whole,
    /// The warm-up has not ended: the window holds nothing yet.
    NotOpen,
    /// Every flow's counts (in flow order) and every link's (in link order) as it opened.
    Open { flows: Vec<WindowCounts>, links: Vec<QueueCounts> },
}

impl Window {
    pub fn new(warmup_ns: Nanos) -> Self {
        if warmup_ns == 0 { Window::Whole } else { Window::NotOpen }
    }

    /// Whether the counters must be copied now: the warm-up has ended and they were not.
    pub fn opens_at(&self, now: Nanos, warmup_ns: Nanos) -> bool {
        matches!(self, Window::NotOpen) && now >= warmup_ns
    }

    pub fn open(&mut self, flows: Vec<WindowCounts>, links: Vec<QueueCounts>) {
        *self = Window::Open { flows, links };
    }

    /// Flow `f`'s packet counts in the window, from its counts `now`.
    pub fn flow(&self, f: usize, now: &FlowStats) -> WindowCounts {
        let now = WindowCounts::of(now);
        match self {
            Window::Whole => now,
            Window::NotOpen => WindowCounts::default(),
            Window::Open { flows, .. } => now.since(&flows[f]),
        }
    }

    /// Link `l`'s queue counts in the window, from its counts `now`; what the queue holds is
    /// at `now`.
    pub fn link(&self, l: usize, now: QueueCounts) -> QueueCounts {
        match self {
            Window::Whole => now,
            Window::NotOpen => now.since(&now),
            Window::Open { links, .. } => now.since(&links[l]),
        }
    }
}

impl Simulation {
    /// Copies the counters as the window opens (see the module's notes).
    pub(crate) fn open_window(&mut self) {
        let flows = (0..self.flows.len()).map(|f| WindowCounts::of(&self.flow_counts(f))).collect();
        let links = self.links.iter().map(|l| l.queue_counts()).collect();
        self.window.open(flows, links);
    }

    /// Flow `f`'s packet counts in the measured window.
    pub fn flow_window_counts(&self, f: usize) -> WindowCounts {
        self.window.flow(f, &self.flow_counts(f))
    }

    /// Link `l`'s queue counts in the measured window; what the queue holds is at the end.
    pub fn link_window_counts(&self, l: usize) -> QueueCounts {
        self.window.link(l, self.links[l].queue_counts())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn counts(sent: u64, dropped: u64, marked: u64, acks_sent: u64, acks_dropped: u64) -> WindowCounts {
        WindowCounts { sent, dropped, marked, acks_sent, acks_dropped }
    }

    fn stats(c: WindowCounts) -> FlowStats {
        // Fields the window does not read are set too, to see that they stay out of it.
        FlowStats { sent: c.sent, dropped: c.dropped, marked: c.marked, acks_sent: c.acks_sent, acks_dropped: c.acks_dropped, delivered: 99, acks_delivered: 98, ..Default::default() }
    }

    /// A flow's counts in the window are its counts now less those as the window opened, field
    /// by field (the values chosen so that a sum, a quotient or a swapped field gives another
    /// number: 10 - 4 = 6, 6 - 2 = 4, 9 - 3 = 6, 8 - 5 = 3, 7 - 1 = 6).
    #[test]
    fn a_flows_window_counts_are_the_counts_since_it_opened() {
        let at_open = counts(4, 2, 3, 5, 1);
        let now = stats(counts(10, 6, 9, 8, 7));
        assert_eq!(WindowCounts::of(&now), counts(10, 6, 9, 8, 7));
        let mut w = Window::new(1);
        // Before the warm-up ends nothing is counted in the window.
        assert_eq!(w.flow(0, &now), WindowCounts::default());
        w.open(vec![counts(0, 0, 0, 0, 0), at_open], vec![QueueCounts::ZERO; 2]);
        assert_eq!(w.flow(1, &now), counts(6, 4, 6, 3, 6));
        // Flow 0's window opened at zero counts: all of them are the window's.
        assert_eq!(w.flow(0, &now), counts(10, 6, 9, 8, 7));
        // Without a warm-up the window is the whole run: the counts as they are.
        assert_eq!(Window::new(0).flow(0, &now), counts(10, 6, 9, 8, 7));
    }

    /// Sums of window counts, as the summary adds every flow's: 1 + 10 + 100 per field, from
    /// zero counts (so that a product would stay 0).
    #[test]
    fn window_counts_add_field_by_field() {
        let mut total = WindowCounts::default();
        for k in [1, 10, 100] {
            total.add(&counts(k, 2 * k, 3 * k, 4 * k, 5 * k));
        }
        assert_eq!(total, counts(111, 222, 333, 444, 555));
    }

    /// The window opens at the warm-up time itself (an event at that nanosecond counts in it,
    /// see the module notes), once, and never without a warm-up.
    #[test]
    fn the_window_opens_once_at_the_warm_up() {
        let mut w = Window::new(1000);
        assert!(!w.opens_at(0, 1000));
        assert!(!w.opens_at(999, 1000));
        assert!(w.opens_at(1000, 1000));
        assert!(w.opens_at(5000, 1000), "a run cut after the warm-up opens it late");
        w.open(Vec::new(), Vec::new());
        assert!(!w.opens_at(1000, 1000));
        assert!(!w.opens_at(5000, 1000));
        let whole = Window::new(0);
        assert!(!whole.opens_at(0, 0) && !whole.opens_at(5000, 0));
    }

    /// A link's counts in the window: the counts since it opened, what it holds at `now`;
    /// before it opens none are counted but what it holds is still reported.
    #[test]
    fn a_links_window_counts_are_the_counts_since_it_opened() {
        let q = |a: u64, resident: u64| QueueCounts { arrivals: a, departures: a - resident, marks: a / 4, resident_packets: resident, resident_bytes: 1000 * resident, ..QueueCounts::ZERO };
        let now = q(100, 7);
        let mut w = Window::new(5);
        assert_eq!(w.link(0, now), QueueCounts { resident_packets: 7, resident_bytes: 7000, ..QueueCounts::ZERO });
        w.open(Vec::new(), vec![q(40, 3)]);
        // 100 - 40 arrivals, 93 - 37 departures, 25 - 10 marks; 7 held now.
        assert_eq!(w.link(0, now), QueueCounts { arrivals: 60, departures: 56, marks: 15, resident_packets: 7, resident_bytes: 7000, ..QueueCounts::ZERO });
        assert_eq!(Window::new(0).link(0, now), now);
    }
}
