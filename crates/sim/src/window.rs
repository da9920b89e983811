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
