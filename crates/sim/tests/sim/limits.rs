//! Scenarios that would exhaust memory or never finish are refused before the run, with the
//! field to change and the estimate; values beyond what the run can represent are refused
//! with their field's name.

use aqm::time::{NS_PER_MS, NS_PER_SEC};
use aqm::QueueLimit;
use sim::bench::tcp_dumbbell;
use sim::config::{App, Dist, SimConfig, SizeDist, Transport, UdpConfig};
use sim::estimate::Estimate;
use crate::common::simulation;

const MS: u64 = NS_PER_MS;
const S: u64 = NS_PER_SEC;

fn base() -> SimConfig {
    tcp_dumbbell(5, 10_000_000, 100 * MS, QueueLimit::Packets(125), 100 * S)
}

fn refused(c: SimConfig) -> String {
    simulation(c).err().expect("the scenario must be refused")
}

#[test]
fn a_one_nanosecond_trace_interval_is_refused_with_the_interval_that_fits() {
    let mut c = base();
    c.traces.interval_ns = 1;
    c.traces.queue = true;
    // 100 s / 1 ns + 1 samples of 92 bytes (time 8, bottleneck queue 28, and 28 for each of the
    // two reported queues: the bottleneck's directions).
    assert_eq!(
        refused(c),
        "traces.interval_ns: 1 ns over 100 s would record 1.0e11 samples (≈9.2 TB); the limit is 1.0e8 samples: use an interval of at least 1.001 µs"
    );
    // Without a periodic trace no samples are taken, whatever the interval.
    let mut quiet = base();
    quiet.traces.interval_ns = 1;
    assert!(simulation(quiet).is_ok());
}

#[test]
fn retransmission_timers_of_one_nanosecond_are_refused() {
    let mut c = base();
    c.flows[0].count = 1;
    let Transport::Tcp(t) = &mut c.flows[0].transport else { unreachable!() };
    (t.min_rto_ns, t.initial_rto_ns, t.max_rto_ns) = (1, 1, 1);
    // Each RTO resends a segment that lives a round trip (100 ms): 10⁸ of them in flight at
    // 128 bytes each.
    let e = refused(c);
    assert!(
        e.starts_with("flows[0].transport.max_rto_ns: a retransmission timer as short as 1 ns firing up to 1.0e11 times, with ≈1.0e8 retransmissions in flight (≈12.8 GB)"),
        "{e}"
    );
    // The RFC 6298 floor of one second is fine, and so is a tiny min_rto under a sane
    // max_rto: once RTTs are measured the RTO is at least one round trip.
    let mut ok = base();
    let Transport::Tcp(t) = &mut ok.flows[0].transport else { unreachable!() };
    (t.min_rto_ns, t.initial_rto_ns) = (1, 1);
    assert!(simulation(ok).is_ok());
}

#[test]
fn a_billion_poisson_arrivals_per_second_are_refused_before_they_are_drawn() {
    let mut c = base();
    c.flows[0].count = 1;
    c.flows[0].start_ns = Dist::Fixed(0);
    c.flows[0].stop_ns = Some(100 * S);
    c.flows[0].app = App::Poisson { rate_per_s: 1e9, size: SizeDist::Fixed(10_000) };
    assert_eq!(
        refused(c.clone()),
        "flows[0].app.rate_per_s: 1000000000 arrivals per second over 100 s would create ≈1.0e11 flows (≈153.6 TB of state); the limit is 1.7e7 flows per group"
    );
    // 1000 arrivals per second over 100 s is 10⁵ flows: accepted.
    c.flows[0].app = App::Poisson { rate_per_s: 1e3, size: SizeDist::Fixed(10_000) };
    assert!(SimConfig::validate(&c).is_ok());
}

#[test]
fn a_source_faster_than_any_run_can_follow_is_refused() {
    let mut c = base();
    c.flows[0].transport = Transport::Udp(UdpConfig { rate_bps: u64::MAX, ecn: false, ect: Default::default() });
    // Five sources of 1.8·10¹⁹ b/s for 100 s, in 1000-B datagrams: 1.15·10¹⁸ of them.
    let e = refused(c);
    assert!(e.starts_with("flows[0].transport.rate_bps: 1.2e18 datagrams sent"), "{e}");
    assert!(e.ends_with("the run would need ≈4.6e18 events, above the limit of 1.0e12 events"), "{e}");
}

#[test]
fn values_beyond_their_type_name_their_field() {
    let json = serde_json::to_string(&base()).unwrap();
    let with = |from: &str, to: &str| {
        assert!(json.contains(from), "{from}");
        SimConfig::from_json(&json.replacen(from, to, 1)).expect_err("refused")
    };
    assert_eq!(with(r#""mtu":1500"#, r#""mtu":1000000000000"#), "bottleneck.mtu: invalid value: integer `1000000000000`, expected u32");
    assert_eq!(with(r#""duration_ns":100000000000"#, r#""duration_ns":1e21"#), "duration_ns: invalid type: floating point `1e+21`, expected u64");
    assert_eq!(
        with(r#""rate_bps":10000000"#, r#""rate_bps":1000000000000000000000000000000000000"#),
        "bottleneck.rate_bps: invalid type: floating point `1e+36`, expected u64"
    );
    assert!(SimConfig::from_json(&json).is_ok());
}

#[test]
fn values_the_run_cannot_represent_are_refused() {
    let mut c = base();
    c.duration_ns = 1 << 60;
    assert_eq!(refused(c), "duration_ns: 1152921504606846976 ns is outside the accepted range [0, 1125899906842624] ns (2^50 ns, about 13 days)");
    let mut c = base();
    let Transport::Tcp(t) = &mut c.flows[0].transport else { unreachable!() };
    t.max_rto_ns = u64::MAX;
    assert!(refused(c).starts_with("flows[0].transport.max_rto_ns: 18446744073709551615 ns is outside"));
    let mut c = base();
    c.bottleneck.mtu = 100_000;
    assert_eq!(refused(c), "bottleneck.mtu: 100000 is outside the accepted range [41, 65535] bytes");
    let mut c = base();
    c.flows[0].app = App::Transfer { bytes: u64::MAX };
    assert!(refused(c).starts_with("flows[0].app.bytes: 18446744073709551615 is outside the accepted range"));
}

#[test]
fn the_estimate_follows_the_runs_it_estimates() {
    // The estimate claims a factor of two either way on events; check it on the benchmark
    // scenarios (with ideal access links) and on one with rated access links and UDP.
    let mut mixed = tcp_dumbbell(10, 20_000_000, 60 * MS, QueueLimit::Packets(100), 10 * S);
    mixed.access.rate_bps = Some(100_000_000);
    mixed.flows.push(sim::config::FlowGroup { name: "cbr".into(), transport: Transport::Udp(UdpConfig { rate_bps: 5_000_000, ecn: false, ect: Default::default() }), count: 2, ..mixed.flows[0].clone() });
    let cases = sim::bench::NAMES.iter().map(|n| (*n, sim::bench::scenario(n).unwrap())).chain([("mixed", mixed)]);
    for (name, mut c) in cases {
        c.duration_ns = c.duration_ns.min(20 * S);
        let e = Estimate::of(&c);
        let mut sim = simulation(c).unwrap();
        sim.run();
        let ratio = e.events / sim.events() as f64;
        assert!((0.5..=2.0).contains(&ratio), "{name}: estimated {} events, ran {}", e.events, sim.events());
        assert!(e.memory_bytes < e.max_memory_bytes && e.events < e.max_events);
    }
}
