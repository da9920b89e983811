//! Regression pins: fingerprints (FNV-1a 64 of the summary and of every trace column) of
//! scenarios that cover the event path's branches: rate changes, PIE with ECN, CoDel and
//! FQ-CoDel, UDP, HTTP-like sessions, impairment, device queues and rated access links.
//!
//! These hashes are the simulator's own output, recorded before the event path was optimized
//! (issue 22); they are regression pins, not oracles. Any change in behaviour, however small,
//! changes a hash. A deliberate behaviour change updates them, naming the reason in the commit;
//! a speed-up must leave them alone. Run with `-- --nocapture` to print the current values.

use aqm::time::{NS_PER_MS, NS_PER_SEC};
use aqm::QueueLimit;
use sim::bench::{scenario, tcp_dumbbell};
use sim::config::{App, DeviceConfig, Dist, FlowGroup, SimConfig, SizeDist, TcpConfig, TraceConfig, Transport, UdpConfig};
use crate::common::simulation;

const MS: u64 = NS_PER_MS;
const S: u64 = NS_PER_SEC;

fn all_traces() -> TraceConfig {
    TraceConfig { interval_ns: 10 * MS, queue: true, sojourn: true, sojourn_every: 1, flow_bytes: true, drops: true, probe: true, tcp: true, pcap: Vec::new(), pcap_snaplen: 128, pcap_window_ns: None, pcap_every: 1 }
}

/// 64-bit FNV-1a, enough to tell two byte streams apart here (not an adversarial setting).
struct Fnv(u64);
impl Fnv {
    fn new() -> Self {
        Fnv(0xcbf2_9ce4_8422_2325)
    }
    fn add(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.0 = (self.0 ^ b as u64).wrapping_mul(0x0000_0100_0000_01b3);
        }
    }
    fn debug<T: std::fmt::Debug>(&mut self, v: &T) {
        self.add(format!("{v:?}").as_bytes());
    }
}

/// (summary hash, traces hash) of `cfg` run to the end.
fn fingerprint(cfg: SimConfig) -> (u64, u64) {
    fingerprint_with(cfg, false)
}

fn fingerprint_with(cfg: SimConfig, reference_path: bool) -> (u64, u64) {
    let mut sim = simulation(cfg).expect("valid scenario");
    if reference_path {
        sim.use_reference_event_path();
    }
    sim.run();
    let mut s = Fnv::new();
    s.add(serde_json::to_string(&sim.summary()).expect("summary serializes").as_bytes());
    let t = &sim.traces;
    let mut h = Fnv::new();
    h.debug(&(&t.sample_t, &t.queue_bytes, &t.queue_packets, &t.last_sojourn_ns, &t.link_rate_bps));
    h.debug(&(&t.sojourn_t, &t.sojourn_ns, &t.sojourn_qdisc_ns, &t.sojourn_flow, &t.flow_bytes));
    h.debug(&(&t.drop_t, &t.drop_flow, &t.drop_kind, &t.drop_link, &t.probe_names));
    // f64 columns by their bits (NaN-safe, exact).
    for col in [&t.probe, &t.tcp_cwnd, &t.tcp_ssthresh, &t.tcp_srtt_ns] {
        h.debug(&col.iter().map(|x| x.to_bits()).collect::<Vec<_>>());
    }
    h.debug(&(&t.tcp_event_t, &t.tcp_event_flow, &t.tcp_event_kind, &sim.transfers));
    (s.0, h.0)
}

fn qdisc(json: &str) -> aqm::QdiscConfig {
    serde_json::from_str(json).expect("valid discipline")
}

fn named(name: &str, duration_ns: u64) -> SimConfig {
    let mut c = scenario(name).expect("known benchmark");
    c.duration_ns = duration_ns;
    c.traces = all_traces();
    c
}

/// PIE with ECN, classic-ECN TCP, rate steps down and up, a warm-up.
fn pie_ecn_rate_steps() -> SimConfig {
    let mut c = named("tcp100-100M-150s-change", 6 * S);
    c.flows[0].count = 30;
    c.warmup_ns = S;
    c.bottleneck.queue = qdisc(r#"{"type":"pie","profile":"linux","limit":{"packets":1000},"ecn":true}"#);
    c.bottleneck.rate_schedule = vec![
        sim::config::RateStep { at_ns: 2 * S, rate_bps: 20_000_000 },
        sim::config::RateStep { at_ns: 4 * S, rate_bps: 100_000_000 },
    ];
    let Transport::Tcp(t) = &mut c.flows[0].transport else { unreachable!() };
    t.ecn = sim::tcp::params::EcnMode::Classic;
    c
}

/// CoDel, a device queue with framing, rated access links, Linux TCP next to UDP and
/// HTTP-like sessions, Bernoulli loss and an outage on the bottleneck.
fn mixed() -> SimConfig {
    let mut c = tcp_dumbbell(4, 20_000_000, 60 * MS, QueueLimit::Packets(200), 8 * S);
    c.traces = all_traces();
    c.bottleneck.queue = qdisc(r#"{"type":"codel","limit":{"packets":200}}"#);
    c.bottleneck.device = DeviceConfig { overhead_bytes: 38, queue_packets: 4 };
    c.access.rate_bps = Some(100_000_000);
    c.bottleneck.impairment = Some(serde_json::from_str(r#"{"loss":{"bernoulli":{"p":0.002}},"mark_instead":false,"outages":[[3000000000,3050000000]]}"#).expect("valid impairment"));
    c.flows[0].transport = Transport::Tcp(TcpConfig::profile("linux").expect("known profile"));
    let base = c.flows[0].clone();
    c.flows.push(FlowGroup {
        name: "udp".into(),
        count: 1,
        transport: Transport::Udp(UdpConfig { rate_bps: 3_000_000, ecn: false, ect: Default::default() }),
        start_ns: Dist::Fixed(500 * MS),
        stop_ns: Some(6 * S),
        app: App::Bulk,
        ..base.clone()
    });
    c.flows.push(FlowGroup {
        name: "web".into(),
        count: 6,
        access_delay_ns: Dist::Uniform { lo: 5 * MS, hi: 40 * MS },
        receiver_delay_ns: 2 * MS,
        app: App::Sessions { size: SizeDist::Pareto { mean: 30_000.0, shape: 1.5 }, think_mean_ns: 200 * MS },
        ..base
    });
    c
}

/// FQ-CoDel with many flows of different RTTs, and a 20-packet reverse queue that drops ACKs.
fn fq_many_rtts() -> SimConfig {
    let mut c = tcp_dumbbell(40, 50_000_000, 80 * MS, QueueLimit::Packets(1000), 5 * S);
    c.traces = all_traces();
    c.bottleneck.queue = qdisc(r#"{"type":"fq_codel"}"#);
    c.bottleneck.reverse_queue = qdisc(r#"{"type":"drop_tail","limit":{"packets":20}}"#);
    c.flows[0].access_delay_ns = Dist::Uniform { lo: MS, hi: 90 * MS };
    let mut rev = c.flows[0].clone();
    rev.name = "bulk".into();
    rev.count = 2;
    c.flows.push(rev);
    c
}

#[test]
fn regression_pins_fingerprints_of_the_event_path() {
    let cases: Vec<(&str, SimConfig, (u64, u64))> = vec![
        ("tcp5-10M-20s", named("tcp5-10M-100s", 20 * S), (0x3fb226f795c4b042, 0x2dda0309881551b2)),
        ("tcp10-1G-2s", named("tcp10-1G-10s", 2 * S), (0xd514b5752ecfb039, 0xbc92b422d841c54f)),
        ("pie-ecn-rate-steps", pie_ecn_rate_steps(), (0x68eeb1c97bae7558, 0x4ebd7a9e86ac64d8)),
        ("mixed", mixed(), (0x064448d64fb23869, 0xd74e20cffef9cd11)),
        ("fq-many-rtts", fq_many_rtts(), (0xb53c06f1635a34a8, 0xe94773bb2a2668df)),
    ];
    let mut wrong = Vec::new();
    for (name, cfg, pin) in cases {
        let got = fingerprint(cfg);
        println!("(\"{name}\", .., ({:#018x}, {:#018x})),", got.0, got.1);
        if got != pin {
            wrong.push(name);
        }
    }
    assert!(wrong.is_empty(), "fingerprints changed: {wrong:?}");
}

/// (summary hash, traces hash) of `cfg` run on the reference event path: every arrival
/// through the heap, as before delay lines.
fn fingerprint_reference(cfg: SimConfig) -> (u64, u64) {
    fingerprint_with(cfg, true)
}

/// Property: the optimized event path (delay lines) gives bit-identical summaries and traces
/// to the straightforward one on randomized small scenarios (rates, flow counts, delays,
/// disciplines, UDP, impairment and device queues drawn from a fixed-seed generator).
#[test]
fn delay_lines_match_the_reference_event_path_on_random_scenarios() {
    let mut x = 0x2545_f491_4f6c_dd1du64;
    let mut rand = move |n: u64| {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        x % n
    };
    let queues = [
        r#"{"type":"drop_tail","limit":{"packets":50}}"#,
        r#"{"type":"pie","limit":{"packets":300}}"#,
        r#"{"type":"codel","limit":{"packets":300}}"#,
        r#"{"type":"fq_codel"}"#,
        r#"{"type":"red","limit":{"packets":200}}"#,
    ];
    for case in 0..12 {
        let rate = [5_000_000, 20_000_000, 100_000_000][rand(3) as usize];
        let mut c = tcp_dumbbell(1 + rand(12) as u32, rate, (10 + rand(150)) * MS, QueueLimit::Packets(100), (1 + rand(3)) * S);
        c.seed = case;
        c.traces = all_traces();
        c.bottleneck.queue = qdisc(queues[rand(queues.len() as u64) as usize]);
        c.flows[0].access_delay_ns = Dist::Uniform { lo: 0, hi: (1 + rand(60)) * MS };
        c.flows[0].receiver_delay_ns = rand(5) * MS;
        if rand(3) == 0 {
            c.access.rate_bps = Some(rate * (2 + rand(10)));
        }
        if rand(3) == 0 {
            c.bottleneck.device = DeviceConfig { overhead_bytes: rand(40) as u32, queue_packets: rand(5) as u32 };
        }
        if rand(4) == 0 {
            c.bottleneck.impairment = Some(serde_json::from_str(r#"{"loss":{"bernoulli":{"p":0.01}},"mark_instead":false,"outages":[]}"#).expect("valid impairment"));
        }
        if rand(3) == 0 {
            let mut udp = c.flows[0].clone();
            udp.name = "udp".into();
            udp.count = 1;
            udp.transport = Transport::Udp(UdpConfig { rate_bps: rate / (2 + rand(8)), ecn: false, ect: Default::default() });
            c.flows.push(udp);
        }
        assert_eq!(fingerprint(c.clone()), fingerprint_reference(c), "random scenario {case}");
    }
}
