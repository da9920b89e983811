//! TCP as its namesakes size it, in the whole simulator: header bytes with options (ns-3 and
//! Linux count the timestamps: a 1000-byte packet carries 948 bytes) and the window bounds of
//! the receive and send buffers.

use aqm::time::{NS_PER_MS, NS_PER_SEC};
use aqm::QueueLimit;
use sim::bench::tcp_dumbbell;
use sim::config::{App, Dist, SimConfig, TcpConfig, Transport};
use sim::Summary;
use crate::common::simulation;

const MS: u64 = NS_PER_MS;
const S: u64 = NS_PER_SEC;

fn one_flow(profile: &str, rate_bps: u64, secs: u64) -> SimConfig {
    let mut c = tcp_dumbbell(1, rate_bps, 100 * MS, QueueLimit::Packets(100_000), secs * S);
    c.flows[0].transport = Transport::Tcp(TcpConfig::profile(profile).unwrap());
    c.flows[0].start_ns = Dist::Fixed(0);
    c
}

fn run(c: SimConfig) -> Summary {
    let mut sim = simulation(c).unwrap();
    sim.run();
    sim.summary()
}

#[test]
fn a_transfer_takes_as_many_packets_as_its_payload_needs() {
    // 94 800 bytes of payload: 100 segments of 948 bytes in ns-3 (40-byte headers plus 12 of
    // timestamps), 99 of 960 bytes in ns-2 (40-byte headers), each packet 1000 bytes but the
    // last; no loss on an idle 10 Mb/s path.
    for (profile, packets, last) in [("ns3", 100, 1000), ("ns2-sack", 99, 94_800 - 98 * 960 + 40)] {
        let mut c = one_flow(profile, 10_000_000, 5);
        c.flows[0].app = App::Transfer { bytes: 94_800 };
        let s = run(c);
        let f = &s.flows[0];
        assert_eq!((f.counts.sent, f.counts.dropped, f.counts.retransmits), (packets, 0, 0), "{profile}");
        assert_eq!(f.counts.bytes_delivered, (packets - 1) * 1000 + last, "{profile}");
        assert_eq!(f.counts.goodput_bytes, 94_800, "{profile}");
    }
}

#[test]
fn the_receive_window_caps_a_flow_at_window_over_rtt() {
    // A bulk flow on an idle 1 Gb/s, 100 ms path is limited by its window alone: once ACK-clocked
    // it sends a window of 1000-byte packets per 100 ms round trip (each packet's 8 µs on the
    // link is spread, not queued). ns-3's 128 KiB buffers hold 138 segments of 948 bytes:
    // 11.04 Mb/s; Linux's 3 MiB window holds 3318: 265.4 Mb/s (±2 %: the measured window
    // starts after slow start). ns-2 has no bound and fills the link.
    for (profile, want_bps) in [("ns3", 138.0 * 8000.0 / 0.1), ("linux", 3318.0 * 8000.0 / 0.1)] {
        let mut c = one_flow(profile, 1_000_000_000, 20);
        c.warmup_ns = 10 * S;
        let s = run(c);
        let got = s.flows[0].throughput_bps;
        assert!((got / want_bps - 1.0).abs() < 0.02, "{profile}: {got:.0} vs window/RTT {want_bps:.0} b/s");
        assert_eq!(s.dropped, 0, "{profile}");
    }
    let mut c = one_flow("ns2-sack", 100_000_000, 20);
    c.warmup_ns = 10 * S;
    assert!(run(c).utilization > 0.95);
}
