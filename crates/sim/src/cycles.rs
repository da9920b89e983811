//! Processor cycles by kind of event (cargo feature `event-cycles`, x86-64 only): where a run's
//! time goes, read from the time-stamp counter around each event of the event loop. Shows what
//! a profile of the whole program cannot: the cost of one kind of event at one scale against
//! another (issue 22: why a packet costs more at 10,000 flows than at 100). Off by default: the
//! counter reads slow a run by 4–12 % (measured at 10,000 and at 100 flows); they change no
//! result.
//!
//! `cargo bench -p aqmlab-sim --features event-cycles --bench scenarios -- cycles NAME...`
//! prints the table for benchmark scenarios.

#[cfg(not(target_arch = "x86_64"))]
compile_error!("the event-cycles feature reads the x86-64 time-stamp counter");

use serde::{Deserialize, Serialize};

/// The kinds counted apart: a delivery by its packet's kind, a flow's timer (retransmission,
/// RACK; mostly re-arming after ACKs moved it) apart from its other events.
pub const KINDS: [&str; 8] = ["arrival", "delivery of data", "delivery of an ACK", "end of serialization", "flow's retransmission timer", "flow's delayed ACK", "flow's start", "other"];

/// One kind's totals: events, and cycles from the end of the previous event to this one's
/// dispatch (taking it from the scheduler, fetching ahead) and in its handling.
#[derive(Clone, Debug, Default, Serialize, Deserialize)]
pub struct KindCycles {
    pub kind: String,
    pub events: u64,
    pub pop_cycles: u64,
    pub handle_cycles: u64,
}

/// The counts of a run.
pub struct EventCycles {
    kinds: [KindCycles; KINDS.len()],
    /// The counter at the end of the last event (or at the start of the loop).
    last: u64,
}

impl Default for EventCycles {
    fn default() -> Self {
        EventCycles { kinds: KINDS.map(|k| KindCycles { kind: k.to_string(), ..Default::default() }), last: stamp() }
    }
}

/// The time-stamp counter (not a serializing read: the processor may overlap an event's end
/// with the next one's start, so an event's share is approximate, the total exact).
#[inline]
pub fn stamp() -> u64 {
    // SAFETY: RDTSC has no preconditions on x86-64.
    unsafe { std::arch::x86_64::_rdtsc() }
}

impl EventCycles {
    /// Restarts the interval before the loop's first pop (the time outside the loop counts
    /// for no event).
    pub fn start(&mut self) {
        self.last = stamp();
    }

    /// Records an event of `kind` taken from the scheduler at `dispatched` and done now.
    #[inline]
    pub fn record(&mut self, kind: usize, dispatched: u64) {
        let done = stamp();
        let k = &mut self.kinds[kind];
        k.events += 1;
        k.pop_cycles += dispatched - self.last;
        k.handle_cycles += done - dispatched;
        self.last = done;
    }

    /// The kinds that occurred, in [`KINDS`] order.
    pub fn totals(&self) -> Vec<KindCycles> {
        self.kinds.iter().filter(|k| k.events > 0).cloned().collect()
    }
}

#[cfg(test)]
mod tests {
    use crate::world::Simulation;

    /// Every event is counted once, under one kind: the counts add up to the scheduler's own
    /// count of the events it ran, and each kind that ran took time.
    #[test]
    fn every_event_is_counted_once() {
        let mut cfg = crate::bench::scenario("flows-100").expect("a benchmark scenario");
        cfg.duration_ns /= 8;
        let mut sim = Simulation::new(cfg).expect("valid");
        sim.run();
        let totals = sim.cycles.totals();
        assert_eq!(totals.iter().map(|k| k.events).sum::<u64>(), sim.events());
        assert!(totals.iter().all(|k| k.handle_cycles > 0 && k.pop_cycles > 0), "{totals:?}");
        assert!(totals.iter().any(|k| k.kind == "delivery of an ACK"));
    }
}
