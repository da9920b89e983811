//! Setting PIE's delay reference (QDELAY_REF) automatically, as the 2013 "PIE further studies"
//! slides propose for service-provider links ("Adjusting Delay Reference to Accommodate
//! Changing Network or Traffic Scenarios").
//!
//! The slides state the aims, not the rules: the reference "can be tuned dynamically without
//! affecting stability"; "if the algorithm detects that a draining speed have increased and has
//! been stable for 10 sec, the scheme automatically lowers the delay reference value"; and an
//! "auto-setting based on the link speed". Our reading, stated so that it can be checked:
//!
//! - The reference stands for a fixed amount of queued data, `target_bytes`: the delay
//!   reference at a draining rate R is `target_bytes / R`, bounded below by `min_target` and
//!   above by the configured `target`. 25 000 B reproduces both operating points of the slides:
//!   20 ms at 10 Mb/s (their service-provider runs) and 20 µs at 10 Gb/s (their data-centre
//!   runs).
//! - `link_speed`: R is the link rate, at creation and whenever it changes.
//! - `drain_rate`: R is measured every T_update as the bytes that left during the period, over
//!   T_update, counted only for periods in which the queue never ran empty (an idle queue says
//!   nothing of the draining speed). A rate is "stable" while every such sample stays within
//!   `stable_band` (±10 % by default) of the first sample of the run; any other sample, or an
//!   idle period, starts a new run. Once a run has lasted `stable_for` (10 s), the reference
//!   becomes `target_bytes / R` of that first sample if that is lower than the reference in
//!   force: as the slides say, the rule only lowers it. A run-time change of the target
//!   ([`crate::pie::Pie::set_target`]) becomes the new upper bound and restarts the run.

use crate::schema::choice_enum;
use crate::time::{Nanos, NS_PER_SEC};

choice_enum! {
    /// How PIE's delay reference is set.
    pub enum TargetPolicy = Fixed {
        /// The configured `target`, changed only by a run-time call.
        Fixed = "fixed",
        /// Lowered once the measured draining rate has risen and held steady (slides 2013).
        DrainRate = "drain_rate",
        /// From the link rate (slides 2013).
        LinkSpeed = "link_speed",
    }
}

/// A run of steady draining-rate samples.
#[derive(Clone, Copy, Debug, PartialEq)]
struct Run {
    rate: f64,
    since: Nanos,
}

/// The delay-reference policy of one PIE instance and what it measures.
#[derive(Clone, Debug, PartialEq)]
pub struct Reference {
    policy: TargetPolicy,
    bytes: u64,
    floor: Nanos,
    ceiling: Nanos,
    band: f64,
    stable_for: Nanos,
    /// Bytes departed since the last update, and whether a departure emptied the queue.
    departed: u64,
    emptied: bool,
    backlog_at_update: u64,
    run: Option<Run>,
}

impl Reference {
    pub fn new(policy: TargetPolicy, bytes: u64, floor: Nanos, ceiling: Nanos, band: f64, stable_for: Nanos) -> Self {
        Reference { policy, bytes, floor, ceiling, band, stable_for, departed: 0, emptied: false, backlog_at_update: 0, run: None }
    }

    /// `target_bytes` drained at `bytes_per_s`, bounded by the floor and the configured target.
    pub fn for_rate(&self, bytes_per_s: f64) -> Nanos {
        let t = (self.bytes as f64 / bytes_per_s * NS_PER_SEC as f64).round() as Nanos;
        t.clamp(self.floor.min(self.ceiling), self.ceiling)
    }

    /// The reference for a link of `rate_bps`, if this policy follows the link.
    pub fn for_link(&self, rate_bps: u64) -> Option<Nanos> {
        (self.policy == TargetPolicy::LinkSpeed && rate_bps > 0).then(|| self.for_rate(rate_bps as f64 / 8.0))
    }

    /// A run-time change of the configured target: the new upper bound, and a new run.
    pub fn rebase(&mut self, target: Nanos) {
        self.ceiling = target;
        self.run = None;
    }

    /// A departure of `len` bytes leaving `left` bytes queued.
    pub fn at_dequeue(&mut self, len: u32, left: u64) {
        self.departed += len as u64;
        self.emptied |= left == 0;
    }

    /// The periodic update at `now` with `backlog` bytes queued and `current` the reference in
    /// force; returns a lower reference when the draining rate has held steady long enough.
    pub fn at_update(&mut self, now: Nanos, tupdate: Nanos, backlog: u64, current: Nanos) -> Option<Nanos> {
        let busy = self.backlog_at_update > 0 && backlog > 0 && !self.emptied;
        let rate = self.departed as f64 / (tupdate as f64 / NS_PER_SEC as f64);
        (self.departed, self.emptied, self.backlog_at_update) = (0, false, backlog);
        if self.policy != TargetPolicy::DrainRate {
            return None;
        }
        if !busy {
            self.run = None;
            return None;
        }
        let run = match self.run {
            Some(r) if (rate - r.rate).abs() <= self.band * r.rate => r,
            _ => {
                self.run = Some(Run { rate, since: now });
                return None;
            }
        };
        let lower = self.for_rate(run.rate);
        (now - run.since >= self.stable_for && lower < current).then_some(lower)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::time::{NS_PER_MS, NS_PER_US};

    const MS: Nanos = NS_PER_MS;

    #[test]
    fn link_speed_keeps_the_bytes_of_the_slides_operating_points() {
        let r = Reference::new(TargetPolicy::LinkSpeed, 25_000, 20 * NS_PER_US, 20 * MS, 0.1, 10 * NS_PER_SEC);
        // 25 000 B at 10 Mb/s = 20 ms; at 100 Mb/s 2 ms; at 1 Gb/s 200 µs; at 10 Gb/s 20 µs.
        let at = |bps: u64| r.for_link(bps).unwrap();
        assert_eq!((at(10_000_000), at(100_000_000), at(1_000_000_000), at(10_000_000_000)), (20 * MS, 2 * MS, 200 * NS_PER_US, 20 * NS_PER_US));
        // Bounded by the configured target above and min_target below.
        assert_eq!((at(1_000_000), at(40_000_000_000)), (20 * MS, 20 * NS_PER_US));
        let fixed = Reference::new(TargetPolicy::Fixed, 25_000, 20 * NS_PER_US, 20 * MS, 0.1, 10 * NS_PER_SEC);
        assert_eq!(fixed.for_link(10_000_000), None);
    }

    /// Feeds `periods` updates of T = 30 ms with `bytes` departed in each (the queue busy).
    fn feed(r: &mut Reference, from: Nanos, periods: u64, bytes: u32, current: &mut Nanos) -> Vec<(u64, Nanos)> {
        let mut changes = Vec::new();
        for k in 1..=periods {
            r.at_dequeue(bytes, 50_000);
            if let Some(t) = r.at_update(from + k * 30 * MS, 30 * MS, 50_000, *current) {
                *current = t;
                changes.push((k, t));
            }
        }
        changes
    }

    #[test]
    fn drain_rate_lowers_the_reference_after_ten_steady_seconds() {
        let mut r = Reference::new(TargetPolicy::DrainRate, 25_000, 20 * NS_PER_US, 20 * MS, 0.1, 10 * NS_PER_SEC);
        let mut current = 20 * MS;
        // 10 Mb/s: 37 500 B per 30 ms. The first update only records the backlog (no busy
        // period yet); the run starts at update 2. target_bytes / 1.25 MB/s = 20 ms: no change.
        assert_eq!(feed(&mut r, 0, 1000, 37_500, &mut current), vec![]);
        // 20 Mb/s from 30 s: the run starts at the first faster period (update 1 of this phase,
        // at 30.03 s); 10 s later is 40.03 s, between updates 334 (40.02 s) and 335 (40.05 s):
        // the reference drops to 25 000 B / 2.5 MB/s = 10 ms at update 335.
        assert_eq!(feed(&mut r, 30 * NS_PER_SEC, 400, 75_000, &mut current), vec![(335, 10 * MS)]);
    }

    #[test]
    fn an_unsteady_or_idle_rate_never_lowers_it() {
        let mut r = Reference::new(TargetPolicy::DrainRate, 25_000, 20 * NS_PER_US, 20 * MS, 0.1, 10 * NS_PER_SEC);
        let current = 20 * MS;
        // Alternating 20 and 26 Mb/s: each sample is 30 % off the run's first: new runs only.
        for k in 0..1000u64 {
            r.at_dequeue(if k % 2 == 0 { 75_000 } else { 97_500 }, 50_000);
            assert_eq!(r.at_update(k * 30 * MS, 30 * MS, 50_000, current), None);
        }
        // A steady 20 Mb/s, but the queue runs empty once every 5 s: no run lasts 10 s.
        for k in 0..1000u64 {
            r.at_dequeue(75_000, if k % 166 == 0 { 0 } else { 50_000 });
            assert_eq!(r.at_update(30 * NS_PER_SEC + k * 30 * MS, 30 * MS, 50_000, current), None);
        }
        // A run-time target change restarts the run and becomes the upper bound.
        r.rebase(5 * MS);
        assert_eq!(r.for_rate(1_250_000.0), 5 * MS);
    }
}
