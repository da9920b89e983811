//! Invariants checked in every run and reported in the summary's `invariants` block.
//!
//! Each is computed from a source other than the books it checks:
//! - flow conservation: a flow's sent = delivered + dropped + its packets found alive in the
//!   packet arena (counted slot by slot, not from the flow's books), for data and ACKs;
//! - queue conservation: the simulator's count of what each discipline holds (arrivals minus
//!   departures and reported drops) equals the discipline's own backlog, packets and bytes;
//! - network conservation: every live packet is in exactly one place: a discipline, a device
//!   queue, or a pending arrival event;
//! - probability bounds: 0 ≤ p ≤ 1 for every probe variable of a discipline that is a
//!   probability;
//! - queue within limit: after every arrival, what a discipline holds (by the simulator's
//!   count) is within the limit of its configuration;
//! - time monotone: no event runs before the one before it.
//!
//! The per-packet ones (limit, time) cost a comparison; the others run every
//! [`PERIODIC_EVENTS`] events (probabilities) and at the end of every `run_until` (all). A
//! violation fails the run in debug builds and in the test suites (the unit tests by `cfg(test)`,
//! the integration tests through `tests/common`); otherwise it is counted and reported, with
//! the first one described.

use aqm::{Nanos, QueueDisc};
use serde::Serialize;

use crate::flow::Endpoint;
use crate::net::{Kind, LinkId};
use crate::world::{Event, Simulation};

/// Probe variables that are probabilities (drop or mark probability of PIE, PI, P, PI², RED,
/// PVPIE, FQ-PIE; PI²'s base probability p′; RED's adaptive max_p). PIE's derandomization
/// accumulator (`accu_prob`) is a sum of probabilities, not one.
pub const PROBABILITY_PROBES: [&str; 3] = ["prob", "p_prime", "max_p"];

/// Probabilities are checked every this many events (a power of two).
pub const PERIODIC_EVENTS: u64 = 4096;

/// One invariant: how often it was checked, how often it failed, and the first failure.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct Check {
    pub checks: u64,
    pub violations: u64,
    /// Simulated time and description of the first violation.
    pub first_violation: Option<String>,
}

impl Check {
    /// Records a failed check.
    #[cold]
    pub fn fail(&mut self, now: Nanos, what: impl FnOnce() -> String) {
        self.checks += 1;
        self.violations += 1;
        if self.first_violation.is_none() {
            self.first_violation = Some(format!("at {now} ns: {}", what()));
        }
    }

    /// Records one check of `ok`.
    #[inline]
    pub fn expect(&mut self, ok: bool, now: Nanos, what: impl FnOnce() -> String) {
        if ok {
            self.checks += 1;
        } else {
            self.fail(now, what);
        }
    }
}

/// The summary's `invariants` block: one field per invariant.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct Invariants {
    pub flow_conservation: Check,
    pub queue_conservation: Check,
    pub network_conservation: Check,
    pub probability_bounds: Check,
    /// Checked at every arrival to a discipline.
    pub queue_within_limit: Check,
    /// Checked at every event.
    pub time_monotone: Check,
    /// TCP congestion responses (fast retransmit, timeout, ECE) that left ssthresh or cwnd
    /// above the window in force before them (`TcpSender::audit_response`). Counted as
    /// violations only for flows whose reduction rule bounds the window (the window itself,
    /// or the SACK pipe); the FlightSize and RFC 4898 rules can raise it by design, and those
    /// raises are in `flows[i].window_raising_responses` only.
    pub window_never_raised: Check,
}

impl Invariants {
    /// Violations of every invariant.
    pub fn violations(&self) -> u64 {
        [&self.flow_conservation, &self.queue_conservation, &self.network_conservation, &self.probability_bounds, &self.queue_within_limit, &self.time_monotone, &self.window_never_raised]
            .iter()
            .map(|c| c.violations)
            .sum()
    }

    /// The first violation found, by invariant name.
    pub fn first_violation(&self) -> Option<String> {
        [
            ("flow_conservation", &self.flow_conservation),
            ("queue_conservation", &self.queue_conservation),
            ("network_conservation", &self.network_conservation),
            ("probability_bounds", &self.probability_bounds),
            ("queue_within_limit", &self.queue_within_limit),
            ("time_monotone", &self.time_monotone),
            ("window_never_raised", &self.window_never_raised),
        ]
        .into_iter()
        .find_map(|(name, c)| c.first_violation.as_ref().map(|v| format!("{name} {v}")))
    }
}

/// Indices of the probability variables in each link's probe vector.
pub fn probability_probes(sim_links: &[crate::net::Link]) -> Vec<(LinkId, Vec<usize>)> {
    sim_links
        .iter()
        .enumerate()
        .filter_map(|(l, link)| {
            let names = link.qdisc.as_ref()?.probe_names();
            let idx: Vec<usize> = names.iter().enumerate().filter(|(_, n)| PROBABILITY_PROBES.contains(n)).map(|(i, _)| i).collect();
            (!idx.is_empty()).then_some((l as LinkId, idx))
        })
        .collect()
}

/// Data and ACK packets of each flow alive in the arena.
pub(crate) struct Alive {
    pub data: Vec<u64>,
    pub acks: Vec<u64>,
    pub total: u64,
}

impl Simulation {
    /// Counts the live packets of the arena slot by slot, per flow and kind.
    pub(crate) fn alive(&self) -> Alive {
        let n = self.flows.len();
        let mut a = Alive { data: vec![0; n], acks: vec![0; n], total: 0 };
        self.arena.for_each_live(|p| {
            a.total += 1;
            match p.kind {
                Kind::Data => a.data[p.flow as usize] += 1,
                Kind::Ack => a.acks[p.flow as usize] += 1,
            }
        });
        a
    }

    /// Checks 0 ≤ p ≤ 1 for every probability of every discipline.
    pub(crate) fn check_probabilities(&mut self) {
        let now = self.sched.now();
        for (l, idx) in &self.prob_probes {
            let link = &self.links[*l as usize];
            self.probe_buf.clear();
            link.qdisc.as_ref().expect("probed link has a queue").probe(&mut self.probe_buf);
            #[cfg(test)]
            self.faults.perturb_probe(*l, &mut self.probe_buf);
            for &i in idx {
                let p = self.probe_buf[i];
                self.invariants.probability_bounds.expect((0.0..=1.0).contains(&p), now, || format!("{}: {} = {p}", link.name, link.qdisc.as_ref().map_or(vec![], |q| q.probe_names())[i]));
            }
        }
    }

    /// Runs every check that is not made per packet.
    pub(crate) fn check_invariants(&mut self) {
        let now = self.sched.now();
        self.check_probabilities();
        let alive = self.alive();
        // The record's counters and the drop table only: the sender's counts (`flow_counts`)
        // sit at the record's end, two more lines a flow, and at a million flows this check
        // runs after every chunk of a run.
        for (f, (flow, d)) in self.flows.iter().zip(&self.drops).enumerate() {
            let s = &flow.stats;
            let ok = s.sent == s.delivered + d.data + alive.data[f] && s.acks_sent == s.acks_delivered + d.acks + alive.acks[f];
            self.invariants.flow_conservation.expect(ok, now, || {
                format!(
                    "flow {f}: data sent {} != delivered {} + dropped {} + alive {}, or ACKs sent {} != delivered {} + dropped {} + alive {}",
                    s.sent, s.delivered, d.data, alive.data[f], s.acks_sent, s.acks_delivered, d.acks, alive.acks[f]
                )
            });
        }
        let mut placed = 0u64;
        for link in &self.links {
            let Some(q) = link.qdisc.as_ref() else { continue };
            let b = q.backlog();
            let c = &link.counts;
            placed += b.packets as u64 + link.device_backlog() as u64;
            let ok = c.resident_packets == b.packets as u64 && c.resident_bytes == b.bytes;
            self.invariants.queue_conservation.expect(ok, now, || {
                format!("{}: the simulator counts {} packets / {} bytes in the queue, the discipline holds {} / {}", link.name, c.resident_packets, c.resident_bytes, b.packets, b.bytes)
            });
        }
        let in_transit = self.sched.pending_events().filter(|e| matches!(e, Event::Arrive { .. } | Event::Deliver { .. })).count() as u64;
        let arena_live = self.arena.live() as u64;
        let ok = alive.total == placed + in_transit && alive.total == arena_live;
        self.invariants.network_conservation.expect(ok, now, || {
            format!("{} packets alive ({arena_live} by the free list), {placed} in queues, {in_transit} in transit", alive.total)
        });
    }

    /// The `invariants` block as of now.
    pub fn invariants(&self) -> Invariants {
        let mut inv = self.invariants.clone();
        inv.time_monotone.checks = self.sched.executed();
        inv.time_monotone.violations = self.sched.backsteps();
        if inv.time_monotone.violations > 0 {
            inv.time_monotone.first_violation = self.sched.first_backstep().map(|(at, was)| format!("at {at} ns: an event ran after one at {was} ns"));
        }
        inv.queue_within_limit.checks = self.links.iter().map(|l| l.counts.arrivals).sum();
        for (i, f) in self.flows.iter().enumerate() {
            let Endpoint::Tcp { tx, .. } = &f.endpoint else { continue };
            let st = &f.counts();
            inv.window_never_raised.checks += st.fast_recoveries + st.timeouts + st.ecn_reductions;
            if tx.reduction_bounds_window() && st.window_raising_responses > 0 {
                inv.window_never_raised.violations += st.window_raising_responses;
                inv.window_never_raised.first_violation.get_or_insert_with(|| {
                    format!("flow {i}: {} congestion responses raised the window", st.window_raising_responses)
                });
            }
        }
        inv
    }

    /// Fails the run on a violation when invariants are strict.
    pub(crate) fn enforce_invariants(&self) {
        if self.strict_invariants {
            let inv = self.invariants();
            if inv.violations() > 0 {
                panic!("{} invariant violation(s); first: {}", inv.violations(), inv.first_violation().unwrap_or_default());
            }
        }
    }
}

/// Faults the tests inject through the real state a check reads.
#[cfg(test)]
#[derive(Default)]
pub(crate) struct Faults {
    /// Replaces probe variable `.1` of link `.0` with `.2`.
    pub probe: Option<(LinkId, usize, f64)>,
}

#[cfg(test)]
impl Faults {
    fn perturb_probe(&self, l: LinkId, values: &mut [f64]) {
        if let Some((fl, i, v)) = self.probe {
            if fl == l {
                values[i] = v;
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use aqm::time::{NS_PER_MS, NS_PER_SEC};
    use aqm::{QdiscConfig, QueueDisc, QueueLimit, Rng};

    use super::*;
    use crate::bench::tcp_dumbbell;
    use crate::net::Packet;
    use crate::summary::Summary;

    const S: u64 = NS_PER_SEC;

    /// Ten NewReno flows into a 30-packet queue: drops, a standing queue, ACKs in flight.
    fn busy(queue: &str) -> Simulation {
        let mut c = tcp_dumbbell(10, 10_000_000, 100 * NS_PER_MS, QueueLimit::Packets(30), 6 * S);
        c.bottleneck.queue = serde_json::from_str(queue).unwrap();
        let mut sim = Simulation::new(c).unwrap();
        // The faults below must be counted, not panic, so that the counts can be read.
        sim.strict_invariants = false;
        sim
    }

    fn droptail() -> Simulation {
        busy(r#"{"type":"drop_tail","limit":{"packets":30}}"#)
    }

    fn finish(mut sim: Simulation) -> Summary {
        sim.run();
        sim.summary()
    }

    /// (checks, violations) of every invariant, in declaration order.
    fn counts(i: &Invariants) -> [(u64, u64); 7] {
        [&i.flow_conservation, &i.queue_conservation, &i.network_conservation, &i.probability_bounds, &i.queue_within_limit, &i.time_monotone, &i.window_never_raised]
            .map(|c| (c.checks, c.violations))
    }

    fn violations(i: &Invariants) -> [u64; 7] {
        counts(i).map(|(_, v)| v)
    }

    #[test]
    fn a_clean_run_checks_everything_and_finds_nothing() {
        let s = finish(busy(r#"{"type":"pie","profile":"rfc","limit":{"packets":30}}"#));
        assert!(s.dropped > 0 && s.flows.iter().any(|f| f.in_flight > 0));
        assert_eq!(violations(&s.invariants), [0; 7]);
        // Every invariant was checked: per flow and per queue at the end, probabilities every
        // 4096 events, the limit at every arrival, the clock at every event.
        let c = counts(&s.invariants);
        assert_eq!(c[0].0, 10);
        assert_eq!(c[1].0, 2);
        assert_eq!(c[2].0, 1);
        assert!(c[3].0 >= s.events / PERIODIC_EVENTS, "{c:?}");
        assert_eq!(c[4].0, s.queues.iter().map(|q| q.counts.arrivals).sum::<u64>());
        assert_eq!(c[5].0, s.events);
    }

    #[test]
    fn time_running_backwards_is_caught() {
        let mut sim = droptail();
        sim.run_until(2 * S);
        sim.sched.at_unchecked(S, Event::FlowStop { flow: 0 });
        let s = finish(sim);
        assert_eq!(violations(&s.invariants), [0, 0, 0, 0, 0, 1, 0]);
        assert_eq!(s.invariants.time_monotone.first_violation.as_deref(), Some("at 1000000000 ns: an event ran after one at 2000000000 ns"));
    }

    #[test]
    fn a_packet_counted_as_sent_but_never_sent_is_caught() {
        let mut sim = droptail();
        sim.run_until(2 * S);
        sim.flows[3].stats.sent += 1;
        let s = finish(sim);
        // Only the flow's books disagree: the network holds what it should.
        assert_eq!(violations(&s.invariants), [1, 0, 0, 0, 0, 0, 0]);
        assert!(s.invariants.flow_conservation.first_violation.as_deref().unwrap().contains("flow 3: data sent"));
    }

    #[test]
    fn a_window_raised_by_a_bounded_rule_is_caught_and_one_by_flightsize_is_not() {
        // The dumbbell's ns2-sack flows reduce from the window: a raise there is a bug.
        let mut sim = droptail();
        sim.run_until(2 * S);
        sim.flows[2].stats.window_raising_responses += 1;
        let s = finish(sim);
        assert_eq!(violations(&s.invariants), [0, 0, 0, 0, 0, 0, 1]);
        assert!(s.invariants.window_never_raised.first_violation.as_deref().unwrap().starts_with("flow 2:"));
        assert!(s.invariants.window_never_raised.checks > 0);
        // The letter of RFC 5681's FlightSize can raise the window by design: counted per flow,
        // not a violation.
        let mut sim = droptail();
        for f in &mut sim.cfg.flows {
            if let crate::config::Transport::Tcp(t) = &mut f.transport {
                t.reduce_from = crate::tcp::cc::ReduceFrom::Flight;
            }
        }
        let mut sim = Simulation::new(sim.cfg.clone()).unwrap();
        sim.strict_invariants = false;
        sim.run_until(2 * S);
        sim.flows[2].stats.window_raising_responses += 1;
        let s = finish(sim);
        assert_eq!(s.invariants.window_never_raised.violations, 0);
        assert_eq!(s.flows[2].counts.window_raising_responses, 1);
    }

    #[test]
    fn a_packet_leaked_outside_the_network_is_caught() {
        let mut sim = droptail();
        sim.run_until(2 * S);
        // Alive, not counted as sent by its flow, and in no queue or link.
        sim.arena.alloc(Packet::data(5, 1000, 7, 2 * S), &[]);
        let s = finish(sim);
        assert_eq!(violations(&s.invariants), [1, 0, 1, 0, 0, 0, 0]);
    }

    #[test]
    fn a_packet_taken_from_a_queue_behind_the_simulators_back_is_caught() {
        let mut sim = droptail();
        let mut t = 2 * S;
        while sim.links[0].qdisc.as_ref().unwrap().backlog().packets == 0 {
            t += NS_PER_MS;
            sim.run_until(t);
        }
        let mut out = Vec::new();
        assert!(sim.links[0].qdisc.as_mut().unwrap().dequeue(t, &mut out).is_some());
        let s = finish(sim);
        // The packet is still alive (its flow's books hold), but no longer where the
        // simulator's count of the queue says, nor anywhere else. (That count, one too high
        // from now on, also makes the full queue look over its limit.)
        let v = violations(&s.invariants);
        assert_eq!([v[0], v[1], v[2], v[3], v[5]], [0, 1, 1, 0, 0], "{v:?}");
        assert!(s.invariants.queue_conservation.first_violation.as_deref().unwrap().contains("bottleneck L->R"));
    }

    #[test]
    fn a_discipline_that_overfills_its_limit_is_caught() {
        // The scenario says 30 packets; the discipline actually running holds up to 300.
        let mut sim = droptail();
        let big = QdiscConfig::drop_tail(QueueLimit::Packets(300));
        sim.links[0].qdisc = Some(big.build(aqm::LinkInfo { rate_bps: 10_000_000, mtu: 1500 }, Rng::from_seed(1)));
        let s = finish(sim);
        let v = violations(&s.invariants);
        assert!(v[4] > 0 && v[..4] == [0; 4] && v[5] == 0, "{v:?}");
        assert!(s.invariants.queue_within_limit.first_violation.as_deref().unwrap().contains("31 packets / 31000 bytes exceed the limit of 30 packets"));
    }

    #[test]
    fn a_probability_outside_zero_one_is_caught() {
        for bad in [1.5, -0.01, f64::NAN] {
            let mut sim = busy(r#"{"type":"pie","profile":"rfc","limit":{"packets":30}}"#);
            assert_eq!(sim.prob_probes, vec![(0, vec![0])], "PIE's prob is its first probe");
            sim.faults.probe = Some((0, 0, bad));
            let s = finish(sim);
            let v = violations(&s.invariants);
            assert!(v[3] > 0 && v.iter().sum::<u64>() == v[3], "{bad}: {v:?}");
            assert!(s.invariants.probability_bounds.first_violation.as_deref().unwrap().contains("bottleneck L->R: prob = "));
        }
        // PIE's derandomization accumulator is not a probability; RED's max_p and PI²'s p′ are.
        let red = busy(r#"{"type":"red","limit":{"packets":30}}"#);
        let names = red.links[0].qdisc.as_ref().unwrap().probe_names();
        assert_eq!(red.prob_probes[0].1.iter().map(|&i| names[i]).collect::<Vec<_>>(), ["max_p", "prob"]);
    }

    #[test]
    #[should_panic(expected = "1 invariant violation(s); first: flow_conservation at 3000000000 ns: flow 3")]
    fn strict_invariants_fail_the_run() {
        let mut sim = droptail();
        sim.strict_invariants = true;
        sim.run_until(2 * S);
        sim.flows[3].stats.sent += 1;
        sim.run_until(3 * S);
    }

    #[test]
    fn the_test_suites_run_strict() {
        // Strict by `cfg(test)`: the default a unit test's simulation gets.
        assert!(Simulation::new(tcp_dumbbell(1, 1_000_000, NS_PER_MS, QueueLimit::Packets(5), S)).unwrap().strict_invariants);
    }
}
