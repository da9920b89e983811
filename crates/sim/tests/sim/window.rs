//! The summary's packet counts cover the measured window [warm-up, end], as its delays,
//! utilization and throughput do: a constant-rate source overloading a DropTail bottleneck,
//! whose counts in the window follow from the rates alone.

use aqm::time::{NS_PER_MS, NS_PER_SEC};
use aqm::QueueLimit;
use sim::bench::{cbr_group, tcp_dumbbell};
use sim::config::SimConfig;

use crate::common::simulation;

const MS: u64 = NS_PER_MS;
const S: u64 = NS_PER_SEC;

/// 15 Mb/s of 1000-B datagrams (one every 533.3 µs) into a 10 Mb/s bottleneck (one service
/// every 800 µs) with room for 20 packets, for 6 s; the drop trace on.
fn overload(warmup_ns: u64) -> SimConfig {
    let mut c = tcp_dumbbell(1, 10_000_000, 40 * MS, QueueLimit::Packets(20), 6 * S);
    c.flows = vec![cbr_group(15_000_000, false, 5 * MS, 0)];
    c.warmup_ns = warmup_ns;
    c.traces.drops = true;
    c
}

/// Whether `got` is the number of packets `num / den` ns apart in `span_ns`, to within one at
/// the edges.
fn about(got: u64, span_ns: u64, num: u64, den: u64) -> bool {
    got.abs_diff(span_ns * den / num) <= 1
}

#[test]
fn counts_and_rates_cover_the_window_only() {
    let mut sim = simulation(overload(2 * S)).unwrap();
    sim.run();
    let s = sim.summary();
    // 4 s of the window: 7,500 datagrams sent (533 1/3 µs apart) and 5,000 served (800 µs).
    assert!(about(s.sent, 4 * S, 1_600_000, 3), "sent in the window {}", s.sent);
    let bottleneck = &s.queues[0].counts;
    assert!(about(bottleneck.departures, 4 * S, 800_000, 1), "departures in the window {}", bottleneck.departures);
    assert!(about(bottleneck.arrivals, 4 * S, 1_600_000, 3), "arrivals in the window {}", bottleneck.arrivals);
    // The queue is full from well before 2 s to the end, so what arrives and is not served is
    // dropped: 2,500, give or take the edges and the packet in service.
    assert!(s.dropped.abs_diff(2_500) <= 3, "drops in the window {}", s.dropped);
    assert!((s.drop_rate - 1.0 / 3.0).abs() < 1e-3, "drop rate {}", s.drop_rate);
    // The drop trace keeps the whole run; its entries at or after 2 s are the window's drops.
    let traced = sim.traces.drop_t.iter().filter(|&&t| t >= 2 * S).count() as u64;
    assert_eq!(traced, s.dropped);
    assert!(sim.traces.drop_t.len() as u64 > s.dropped, "drops before the window are left out");
    // The per-flow table has both: the window's counts and the whole run's, which balance.
    let f = &s.flows[0];
    assert_eq!((f.measured.sent, f.measured.dropped), (s.sent, s.dropped));
    assert!(about(f.counts.sent, 6 * S, 1_600_000, 3), "sent in the run {}", f.counts.sent);
    assert_eq!(f.counts.sent, f.counts.delivered + f.counts.dropped + f.in_flight);
}

#[test]
fn without_a_warm_up_the_window_is_the_whole_run() {
    let mut sim = simulation(overload(0)).unwrap();
    sim.run();
    let s = sim.summary();
    assert!(about(s.sent, 6 * S, 1_600_000, 3), "sent {}", s.sent);
    assert_eq!((s.sent, s.dropped), (s.flows[0].counts.sent, s.flows[0].counts.dropped));
    assert_eq!(s.dropped, sim.traces.drop_t.len() as u64);
}

#[test]
fn a_run_stopped_before_the_window_opens_counts_nothing_in_it() {
    let mut sim = simulation(overload(2 * S)).unwrap();
    sim.run_until(S);
    let s = sim.summary();
    assert_eq!((s.sent, s.dropped, s.queues[0].counts.arrivals, s.queues[0].counts.departures), (0, 0, 0, 0));
    assert!(s.flows[0].counts.sent > 1_000, "the whole run's counts go on: {}", s.flows[0].counts.sent);
}

#[test]
fn the_window_does_not_depend_on_how_the_run_is_cut() {
    // Chunks ending before, at, just after and well after the warm-up's first nanosecond give
    // the summary of one uninterrupted run, bit for bit, but for the invariants' tally of
    // checks (they are checked at the end of every chunk).
    let summary = |cuts: &[u64]| {
        let mut sim = simulation(overload(2 * S)).unwrap();
        for &t in cuts {
            sim.run_until(t);
        }
        sim.run();
        let mut s = sim.summary();
        s.invariants = Default::default();
        serde_json::to_string(&s).unwrap()
    };
    let whole = summary(&[]);
    for cuts in [&[S, 2 * S - 1, 2 * S][..], &[2 * S + 1, 3 * S], &[S + S / 2]] {
        assert_eq!(summary(cuts), whole);
    }
}
