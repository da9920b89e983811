//! The network device below a discipline: link-layer overhead and the device queue, against
//! timings worked out by hand from the queueing recurrences.

use aqm::time::{NS_PER_MS, NS_PER_SEC};
use aqm::QueueLimit;
use sim::bench::{cbr_group, tcp_dumbbell};
use sim::config::{DeviceConfig, SimConfig};
use sim::Simulation;
use crate::common::simulation;

const MS: u64 = NS_PER_MS;
const S: u64 = NS_PER_SEC;
const ACCESS: u64 = 20 * MS;
const RECEIVER: u64 = 3 * MS;
const BOTTLENECK_DELAY: u64 = 25 * MS;

/// One CBR source of 1000-B datagrams into a 10 Mb/s bottleneck with ideal access links.
fn cbr(rate_bps: u64, limit: u32, duration: u64) -> SimConfig {
    let mut c = tcp_dumbbell(1, 10_000_000, 100 * MS, QueueLimit::Packets(limit), duration);
    c.bottleneck.delay_ns = BOTTLENECK_DELAY;
    c.flows = vec![cbr_group(rate_bps, false, ACCESS, RECEIVER)];
    c
}

/// Time the data packet number `n` (0-based) reaches its receiver, found exactly: the
/// delivered count goes from n to n + 1 between `at - 1` and `at`.
fn assert_delivered_at(sim: &mut Simulation, n: u64, at: u64) {
    sim.run_until(at - 1);
    assert_eq!(sim.delivered_packets, n, "packet {n} must not have arrived by {} ns", at - 1);
    sim.run_until(at);
    assert_eq!(sim.delivered_packets, n + 1, "packet {n} must arrive at {at} ns");
}

#[test]
fn serialization_counts_the_link_layer_overhead() {
    // One 1000-B datagram (the source stops 1 ns after it starts). Bottleneck framing of 38 B
    // (Ethernet with preamble, FCS and gap): (1000 + 38)·8 bits at 10 Mb/s = 830.4 us, where
    // the bare packet takes 800 us.
    let mut c = cbr(10_000_000, 100, S);
    c.flows[0].stop_ns = Some(1);
    c.bottleneck.device = DeviceConfig { overhead_bytes: 38, queue_packets: 0 };
    let base = ACCESS + BOTTLENECK_DELAY + RECEIVER;
    assert_delivered_at(&mut simulation(c.clone()).unwrap(), 0, base + 830_400);
    // Access links at 100 Mb/s with PPP framing (2 B): two more serializations of
    // 1002·8 bits = 80.16 us each.
    c.access.rate_bps = Some(100_000_000);
    c.access.device = DeviceConfig { overhead_bytes: 2, queue_packets: 0 };
    assert_delivered_at(&mut simulation(c).unwrap(), 0, base + 830_400 + 2 * 80_160);
}

#[test]
fn overhead_takes_its_share_of_the_capacity() {
    // An overloaded link carries (1000 / 1002) of its bits as IP packets under PPP framing,
    // and is busy all the time: utilization counts the wire bits.
    let mut c = cbr(12_000_000, 100, 20 * S);
    c.warmup_ns = 2 * S;
    c.bottleneck.device = DeviceConfig { overhead_bytes: 2, queue_packets: 0 };
    let mut sim = simulation(c).unwrap();
    sim.run();
    let s = sim.summary();
    // Measured over 18 s: within one packet of 18 s · 10 Mb/s / (1002 · 8) = 22 455.09 packets.
    let packets = s.bottleneck_bytes as f64 / 1000.0;
    assert!((packets - 18.0 * 1e7 / 8016.0).abs() <= 1.0, "{packets}");
    assert!((s.utilization - 1.0).abs() <= 8016.0 / 18e7, "utilization {}", s.utilization);
}

/// The packet timings of a FIFO fed by CBR arrivals `a_k`, with back-to-back service of
/// `tx` ns and a device queue of `n` packets (0: none): transmission starts
/// s_k = max(a_k, s_{k-1} + tx) (a work-conserving FIFO; the device does not reorder), and the
/// discipline releases packet k when the device has room: with n slots, once packet k - n has
/// left the device for the wire, d_k = max(a_k, s_{k-n}); without a device, d_k = s_k.
fn fifo_oracle(arrivals: &[u64], tx: u64, n: usize) -> (Vec<u64>, Vec<u64>) {
    let mut s: Vec<u64> = Vec::new();
    let mut d = Vec::new();
    for (k, &a) in arrivals.iter().enumerate() {
        let start = s.last().map_or(a, |&prev| a.max(prev + tx));
        s.push(start);
        d.push(match n {
            0 => start,
            _ if k < n => a,
            _ => a.max(s[k - n]),
        });
    }
    (d, s)
}

#[test]
fn a_one_packet_device_queue_splits_the_sojourn_exactly() {
    // 12 Mb/s of 1000-B datagrams (one every 666 666.67 ns, the source's exact spacing) into
    // 10 Mb/s with PPP framing: 801.6 us per packet, so a queue builds from the second packet.
    let k = 40;
    let mut c = cbr(12_000_000, 1000, S);
    c.bottleneck.device = DeviceConfig { overhead_bytes: 2, queue_packets: 1 };
    c.traces.sojourn = true;
    let tx = 801_600;
    let arrivals: Vec<u64> = (0..k).map(|i| ACCESS + i * 8_000_000_000_000 / 12_000_000).collect();
    let (d, s) = fifo_oracle(&arrivals, tx, 1);
    let mut sim = simulation(c).unwrap();
    for i in 0..k as usize {
        // Arrival + qdisc sojourn + device wait + serialization + propagation, per packet.
        let qdisc = d[i] - arrivals[i];
        let device = s[i] - d[i];
        assert_delivered_at(&mut sim, i as u64, arrivals[i] + qdisc + device + tx + BOTTLENECK_DELAY + RECEIVER);
    }
    let t = &sim.traces;
    for i in 0..k as usize {
        assert_eq!(t.sojourn_t[i], s[i], "packet {i} starts transmission");
        assert_eq!(t.sojourn_ns[i], s[i] - arrivals[i], "packet {i}: link sojourn");
        assert_eq!(t.sojourn_qdisc_ns[i], d[i] - arrivals[i], "packet {i}: qdisc sojourn");
    }
    // Once the queue has built, the device wait is one whole packet time: the packet ahead
    // is on the wire for exactly that long after this one entered the device.
    assert!((10..k as usize).all(|i| s[i] - d[i] == tx));
}

#[test]
fn without_a_device_queue_both_sojourns_agree_and_the_device_moves_only_the_split() {
    let run = |n: u32| {
        let mut c = cbr(12_000_000, 50, 5 * S);
        c.warmup_ns = S;
        c.bottleneck.device = DeviceConfig { overhead_bytes: 0, queue_packets: n };
        c.traces.sojourn = true;
        let mut sim = simulation(c).unwrap();
        sim.run();
        sim
    };
    let plain = run(0);
    assert_eq!(plain.traces.sojourn_ns, plain.traces.sojourn_qdisc_ns);
    let s = plain.summary();
    assert_eq!((s.qdisc_delay.mean_s, s.qdisc_delay.p99_s), (s.qdelay_mean_s, s.qdelay_p99_s));
    // A full 50-packet DropTail in front of a 3-packet device: the link sojourn is that of a
    // 53-packet buffer (52 packets ahead + the rest of the one on the wire: within one packet
    // time of 53 · 0.8 ms), the qdisc's that of the 50 packets alone, three packet times less.
    let dev = run(3).summary();
    assert!((dev.qdelay_mean_s - 53.0 * 0.0008).abs() <= 0.0008, "{}", dev.qdelay_mean_s);
    assert!((dev.qdelay_mean_s - dev.qdisc_delay.mean_s - 3.0 * 0.0008).abs() < 1e-6, "{} {}", dev.qdelay_mean_s, dev.qdisc_delay.mean_s);
    assert_eq!(dev.invariants.violations(), 0);
}

#[test]
fn device_settings_are_validated() {
    let mut c = cbr(1_000_000, 10, S);
    c.access.device = DeviceConfig { overhead_bytes: 0, queue_packets: 1 };
    assert!(simulation(c.clone()).err().unwrap().starts_with("access.device:"));
    c.access.device = DeviceConfig::default();
    c.bottleneck.device.overhead_bytes = 70_000;
    assert_eq!(simulation(c).err().unwrap(), "bottleneck.device.overhead_bytes: 70000 is outside the accepted range [0, 65535]");
}

#[test]
fn a_packet_waiting_in_the_device_queue_has_left_the_discipline() {
    // 12 Mb/s of 1000-B datagrams into 10 Mb/s (800 us each) with a 50-packet DropTail above a
    // 3-packet device queue, no warm-up. The first packet reaches the link at 20 ms and from
    // then on the transmitter never idles (a packet arrives every 666.67 us), so transmissions
    // start at 20 ms + 800 us·j, and the discipline refills the device the instant one goes on
    // the wire. At 1 s + 123 ns: (980 000 123 / 800 000) = 1225.0002, so 1226 transmissions
    // have started and 3 more packets wait below the discipline: 1229 departures from it. The
    // queue's books balance with them: arrivals = departures + drops + what it holds.
    let mut c = cbr(12_000_000, 50, 2 * S);
    c.bottleneck.device = DeviceConfig { overhead_bytes: 0, queue_packets: 3 };
    let mut sim = simulation(c).unwrap();
    sim.run_until(S + 123);
    let q = sim.summary().queues[0].counts;
    assert_eq!(q.departures, 1226 + 3, "{q:?}");
    // Datagrams sent at ⌊i · 666 666.67⌋ ns reach the link 20 ms later: i = 0 ..= 1470 by then.
    assert_eq!(q.arrivals, 1471, "{q:?}");
    assert_eq!(q.arrivals, q.departures + q.drops_overflow + q.resident_packets, "{q:?}");
    assert!(q.resident_packets == 49 || q.resident_packets == 50, "{q:?}");
}
