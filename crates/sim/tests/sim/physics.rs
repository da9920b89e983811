//! Physics oracles: the simulator against numbers worked out by hand.

use aqm::time::{NS_PER_MS, NS_PER_SEC};
use aqm::QueueLimit;
use sim::bench::tcp_dumbbell;
use sim::config::{App, Dist, FlowGroup, SimConfig, Transport, UdpConfig};
use sim::Simulation;

use crate::common::slow_start_completion;
use crate::common::simulation;

const MS: u64 = NS_PER_MS;
const S: u64 = NS_PER_SEC;

fn udp_group(count: u32, rate_bps: u64, start: u64, stop: Option<u64>, access: u64) -> FlowGroup {
    FlowGroup {
        name: "udp".into(),
        count,
        transport: Transport::Udp(UdpConfig { rate_bps, ecn: false, ect: Default::default() }),
        access_delay_ns: Dist::Fixed(access),
        receiver_delay_ns: 3 * MS,
        start_ns: Dist::Fixed(start),
        stop_ns: stop,
        packet_size: 1000,
        app: App::Bulk,
        dscp: 0,
        marker: None,
        route: None,
    }
}

fn udp_config(rate_bps: u64, limit: u32, duration: u64) -> SimConfig {
    let mut c = tcp_dumbbell(1, 10_000_000, 100 * MS, QueueLimit::Packets(limit), duration);
    c.flows = vec![udp_group(1, rate_bps, 0, None, 20 * MS)];
    c
}

/// Runs until the first data packet is delivered and returns that time, stepping by 1 ns
/// around the expected value so the answer is exact.
fn first_delivery(mut sim: Simulation, expected: u64) -> (u64, u64) {
    sim.run_until(expected - 1);
    let before = sim.delivered_packets;
    sim.run_until(expected);
    (before, sim.delivered_packets)
}

#[test]
fn one_packet_latency_is_propagation_plus_serialization() {
    // One 1000 B datagram (the source stops 1 ns after it starts): sender access 20 ms,
    // bottleneck 25 ms at 10 Mb/s (800 us), receiver access 3 ms: 48.8 ms exactly.
    let mut c = udp_config(10_000_000, 100, S);
    c.flows[0].stop_ns = Some(1);
    let expected = 20 * MS + 800_000 + 25 * MS + 3 * MS;
    assert_eq!(first_delivery(simulation(c.clone()).unwrap(), expected), (0, 1));
    // With 100 Mb/s access links, two more serializations of 80 us each.
    c.access.rate_bps = Some(100_000_000);
    assert_eq!(first_delivery(simulation(c).unwrap(), expected + 160_000), (0, 1));
}

#[test]
fn idle_path_transfer_matches_slow_start_rounds() {
    // 100 segments of 960 B payload, IW 2, 10 Mb/s, 100 ms RTT, no loss possible.
    let mut c = tcp_dumbbell(1, 10_000_000, 100 * MS, QueueLimit::Packets(10_000), 5 * S);
    c.flows[0].start_ns = Dist::Fixed(0);
    c.flows[0].app = App::Transfer { bytes: 100 * 960 };
    let access = match c.flows[0].access_delay_ns { Dist::Fixed(a) => a, _ => unreachable!() };
    let mut sim = simulation(c).unwrap();
    sim.run();
    let s = sim.summary();
    let got = (s.flows[0].completion_s.unwrap() * 1e9).round() as u64;
    // 5 rounds of 100.832 ms, then 38 segments: 634.592 ms.
    let want = slow_start_completion(100, 2, 100 * MS, access, 800_000, 32_000);
    assert_eq!(want, 634_592_000);
    assert!(got.abs_diff(want) <= 800_000, "got {got} ns, want {want} ns within one packet time");
    assert_eq!(s.dropped, 0);
    assert_eq!(s.flows[0].counts.goodput_bytes, 96_000);
    assert_eq!(s.transfers, 1);
}

#[test]
fn overloaded_cbr_is_delivered_at_capacity_with_a_full_queue() {
    // 12 Mb/s into 10 Mb/s with a 100-packet DropTail queue.
    let mut c = udp_config(12_000_000, 100, 20 * S);
    c.warmup_ns = 2 * S;
    let mut sim = simulation(c).unwrap();
    sim.run();
    let s = sim.summary();
    assert!((s.utilization - 1.0).abs() < 0.005, "utilization {}", s.utilization);
    let tput = s.flows[0].throughput_bps;
    assert!((tput / 10e6 - 1.0).abs() < 0.005, "throughput {tput}");
    // A packet joining a full queue waits for the 99 ahead of it plus what is left of the one
    // on the wire: between 99 and 100 packet times of 0.8 ms, i.e. limit / capacity = 80 ms
    // within one packet time (the median also carries the histogram's 0.4 % resolution).
    assert!((s.qdelay_mean_s - 0.080).abs() <= 0.0008, "mean {}", s.qdelay_mean_s);
    assert!((s.qdelay_p50_s - 0.080).abs() <= 0.0008 + 0.080 / 256.0, "median {}", s.qdelay_p50_s);
    assert!(s.qdelay_max_s <= 0.080 + 1e-9, "max {}", s.qdelay_max_s);
    // One sixth of what is offered is dropped.
    assert!((s.drop_rate - 1.0 / 6.0).abs() < 0.005, "drop rate {}", s.drop_rate);
}

#[test]
fn capacity_schedule_is_followed() {
    // A 20 Mb/s CBR saturates a link that goes 10 -> 5 -> 10 Mb/s at 2 s and 4 s.
    let mut c = udp_config(20_000_000, 50, 6 * S);
    c.bottleneck.rate_schedule = vec![
        sim::config::RateStep { at_ns: 2 * S, rate_bps: 5_000_000 },
        sim::config::RateStep { at_ns: 4 * S, rate_bps: 10_000_000 },
    ];
    c.traces.flow_bytes = true;
    c.traces.interval_ns = 500 * MS;
    let mut sim = simulation(c).unwrap();
    sim.run();
    let t = &sim.traces;
    // Delivered bits per 0.5 s interval, away from the changes (propagation shifts by 48 ms).
    let rate = |i: usize| t.flow_bytes[i] as f64 * 8.0 / 0.5;
    for (i, want) in [(2, 10e6), (3, 10e6), (6, 5e6), (7, 5e6), (10, 10e6), (11, 10e6)] {
        assert!((rate(i) / want - 1.0).abs() < 0.01, "interval {i}: {} vs {want}", rate(i));
    }
    let s = sim.summary();
    assert!((s.utilization - 1.0).abs() < 0.01, "{}", s.utilization);
}

#[test]
fn flow_schedule_adds_and_removes_groups() {
    // 10 -> 30 -> 50 -> 30 -> 10 flows every 5 s. Each flow is a 160 kb/s CBR source (20 packets a second), so even
    // 50 of them (8 Mb/s) fit the 10 Mb/s link without loss and every active flow delivers
    // exactly 20 000 bytes per second: the count of active flows is read off exactly.
    let mut c = udp_config(160_000, 1000, 25 * S);
    c.flows = vec![
        udp_group(10, 160_000, 0, None, 20 * MS),
        udp_group(20, 160_000, 5 * S, Some(20 * S), 20 * MS),
        udp_group(20, 160_000, 10 * S, Some(15 * S), 20 * MS),
    ];
    // The middle group starts at random within its first 100 ms.
    c.flows[1].start_ns = Dist::Uniform { lo: 5 * S, hi: 5 * S + 100 * MS };
    c.traces.flow_bytes = true;
    c.traces.interval_ns = S;
    let mut sim = simulation(c).unwrap();
    sim.run();
    let t = &sim.traces;
    let n = 50;
    // Row i holds the bytes delivered in (i-1, i] s.
    let active = |row: usize| (0..n).filter(|&f| t.flow_bytes[row * n + f] > 0).count();
    for (row, want) in [(3, 10), (8, 30), (13, 50), (18, 30), (23, 10)] {
        assert_eq!(active(row), want, "second {row}");
        let full = (0..n).filter(|&f| t.flow_bytes[row * n + f] == 160_000 / 8).count();
        assert_eq!(full, want, "every active flow delivers its rate in second {row}");
    }
    let s = sim.summary();
    assert_eq!(s.dropped, 0);
    for f in &s.flows[10..30] {
        assert!((5.0..=5.1).contains(&f.start_s), "{}", f.start_s);
    }
    assert!(s.flows[10..30].windows(2).any(|w| w[0].start_s != w[1].start_s));
}

#[test]
fn a_busy_link_starts_each_packet_at_the_floored_cumulative_time() {
    // 1000 B datagrams at 4 Mb/s (one every 2 ms) into a 3 Mb/s bottleneck, where each takes
    // 8000 bits / 3 Mb/s = 2 666 666.67 ns: from the first arrival, at the 20 ms access delay,
    // the link never idles. The k-th packet's transmission then starts when the k before it
    // have been sent, k·8000 bits at 3 Mb/s after 20 ms, on a clock of whole ns that is never
    // ahead of that instant nor a whole ns behind it: 20 ms + ⌊k · 8·10¹² / (3·10⁶)⌋ ns. The
    // 300th starts at 20 ms + 800 ms exactly.
    let mut c = udp_config(4_000_000, 1000, S);
    c.bottleneck.rate_bps = 3_000_000;
    c.traces.sojourn = true;
    let mut sim = simulation(c).unwrap();
    sim.run();
    let t = &sim.traces;
    let want: Vec<u64> = (0..=300u64).map(|k| 20 * MS + k * 8_000_000_000_000 / 3_000_000).collect();
    assert_eq!(t.sojourn_t[..=300], want[..]);
    assert_eq!(want[300], 820 * MS);
    assert_eq!(sim.summary().dropped, 0);
}
