//! Regression pin: the dumbbell's traces and summaries, bit for bit, as the simulator produced
//! them before the general topologies were added (issue 20). The hashes are *regression pins*
//! (recorded from the code at commit 132d31c, not derived independently): they say that the
//! dumbbell is still the same special case, not that its numbers are right (the physics tests
//! say that).

use aqm::time::{NS_PER_MS, NS_PER_SEC};
use aqm::QueueLimit;
use sim::bench::tcp_dumbbell;
use sim::config::{App, Dist, FlowGroup, ImpairConfig, LossModel, RateStep, SimConfig, Transport, UdpConfig};
use crate::common::simulation;

const MS: u64 = NS_PER_MS;
const S: u64 = NS_PER_SEC;

/// FNV-1a over a byte string: a stable hash (std's `DefaultHasher` may change between releases).
fn fnv(bytes: &[u8]) -> u64 {
    bytes.iter().fold(0xcbf2_9ce4_8422_2325u64, |h, &b| (h ^ b as u64).wrapping_mul(0x0100_0000_01b3))
}

/// Every trace and the summary of a run, hashed.
pub fn run_hash(cfg: SimConfig) -> u64 {
    let mut sim = simulation(cfg).unwrap();
    sim.run();
    let t = &sim.traces;
    let text = format!(
        "{:?}{:?}{:?}{:?}{:?}{:?}{:?}{:?}{:?}{:?}{:?}{:?}{:?}{:?}{:?}{:?}{:?}{:?}{:?}{:?}{:?}{:?}{:?}{}",
        t.sample_t, t.queue_bytes, t.queue_packets, t.last_sojourn_ns, t.link_rate_bps, t.sojourn_t, t.sojourn_ns,
        t.sojourn_qdisc_ns, t.sojourn_flow, t.flow_bytes, t.drop_t, t.drop_flow, t.drop_kind, t.drop_link,
        t.probe_names, t.probe, t.tcp_cwnd, t.tcp_ssthresh, t.tcp_srtt_ns, t.tcp_event_t, t.tcp_event_flow,
        t.tcp_event_kind, sim.delivered_packets, serde_json::to_string(&sim.summary()).unwrap()
    );
    fnv(text.as_bytes())
}

fn all_traces(c: &mut SimConfig) {
    let t = &mut c.traces;
    (t.queue, t.sojourn, t.flow_bytes, t.drops, t.probe, t.tcp) = (true, true, true, true, true, true);
}

/// PIE with a rate schedule, rated access links, an impairment, a device queue, and TCP bulk,
/// sessions and UDP groups: every feature of the dumbbell that touches a link.
pub fn pin_configs() -> Vec<(&'static str, SimConfig)> {
    let mut a = tcp_dumbbell(4, 10_000_000, 80 * MS, QueueLimit::Packets(100), 6 * S);
    a.bottleneck.queue = serde_json::from_str(r#"{"type":"pie","limit":{"packets":100}}"#).unwrap();
    a.bottleneck.rate_schedule = vec![RateStep { at_ns: 3 * S, rate_bps: 5_000_000 }];
    a.warmup_ns = S;
    all_traces(&mut a);
    let mut b = a.clone();
    b.access.rate_bps = Some(100_000_000);
    b.bottleneck.device.queue_packets = 2;
    b.bottleneck.impairment = Some(ImpairConfig { loss: LossModel::Bernoulli { p: 0.001 }, mark_instead: false, outages: vec![(4 * S, 4 * S + 50 * MS)] });
    b.bottleneck.queue = serde_json::from_str(r#"{"type":"fq_codel"}"#).unwrap();
    let mut sessions = b.flows[0].clone();
    sessions.name = "web".into();
    sessions.count = 3;
    sessions.access_delay_ns = Dist::Each(vec![5 * MS, 30 * MS, 90 * MS]);
    sessions.app = App::Sessions { size: sim::config::SizeDist::Pareto { mean: 30_000.0, shape: 1.5 }, think_mean_ns: 200 * MS };
    let udp = FlowGroup {
        name: "udp".into(),
        count: 1,
        transport: Transport::Udp(UdpConfig { rate_bps: 1_000_000, ecn: false, ect: Default::default() }),
        access_delay_ns: Dist::Fixed(10 * MS),
        receiver_delay_ns: 2 * MS,
        start_ns: Dist::Fixed(S),
        stop_ns: Some(5 * S),
        packet_size: 500,
        app: App::Bulk,
        dscp: 0,
        marker: None,
        route: None,
    };
    b.flows.extend([sessions, udp]);
    vec![("pie-schedule", a), ("fq_codel-access-impaired-mixed", b)]
}

#[test]
fn dumbbell_is_unchanged_bit_for_bit() {
    let got: Vec<(&str, u64)> = pin_configs().into_iter().map(|(n, c)| (n, run_hash(c))).collect();
    let want = PINNED;
    assert_eq!(got, want, "the dumbbell's traces changed");
}

const PINNED: [(&str, u64); 2] = [("pie-schedule", 13995184498134770431), ("fq_codel-access-impaired-mixed", 14771045463092314702)];
