//! PVPIE and the PPV scheduler with CUBIC traffic: the policy's shares and the delay target
//! (PVPIE ANRW'17 §4, scenario 1c's 100 Mb/s, N_tcp.c = 5, τ = 40 ms, RTT 40 ms).

use aqm::pie::{PieConfig, PieProfile};
use aqm::ppv::PpvConfig;
use aqm::pvpie::PvPieConfig;
use aqm::time::{NS_PER_MS, NS_PER_SEC};
use aqm::{QdiscConfig, QueueLimit};
use sim::bench::tcp_dumbbell;
use sim::config::{App, Dist, FlowGroup, SimConfig, TcpConfig, Transport, UdpConfig};
use sim::ppv::{MarkerConfig, MarkerKind, TvfConfig};
use sim::{Simulation, Summary};
use crate::common::simulation;

const MS: u64 = NS_PER_MS;
const S: u64 = NS_PER_SEC;

fn token_bucket() -> MarkerKind {
    MarkerKind::TokenBucket { depth_ns: 40 * MS, regions_per_decade: 30, min_rate_bps: 1e4, max_rate_bps: 1e10 }
}

/// `flows` policy flows of `conns` CUBIC connections each, marked with `tvf`; without HyStart,
/// as the PVPIE paper's NS-3 NSC (Linux 2.6.26, before tcp_cubic had it) ran.
fn tcp_class(name: &str, tvf: TvfConfig, flows: u32, conns: u32, access_ns: u64) -> FlowGroup {
    FlowGroup {
        name: name.into(),
        count: flows * conns,
        transport: Transport::Tcp(TcpConfig { hystart: false, rack: false, ..TcpConfig::profile("linux").unwrap() }),
        access_delay_ns: Dist::Fixed(access_ns),
        receiver_delay_ns: 0,
        start_ns: Dist::Uniform { lo: 0, hi: 100 * MS },
        stop_ns: None,
        packet_size: 1500,
        app: App::Bulk,
        dscp: 0,
        marker: Some(MarkerConfig { tvf, kind: token_bucket(), connections_per_flow: Some(conns) }),
        route: None,
    }
}

/// 1 Gold and 1 Silver flow of 5 CUBIC connections each at 100 Mb/s, RTT 40 ms.
fn gold_silver(queue: QdiscConfig, duration: u64) -> SimConfig {
    let mut c = tcp_dumbbell(1, 100_000_000, 40 * MS, QueueLimit::Packets(1000), duration);
    c.bottleneck.mtu = 1500;
    c.bottleneck.queue = queue;
    c.warmup_ns = 5 * S;
    let access = 20 * MS - c.bottleneck.delay_ns;
    c.flows = vec![tcp_class("gold", TvfConfig::Gold, 1, 5, access), tcp_class("silver", TvfConfig::Silver, 1, 5, access)];
    c.traces.probe = true;
    c.traces.interval_ns = 100 * MS;
    c
}

fn group_rate(s: &Summary, group: u32) -> f64 {
    s.flows.iter().filter(|f| f.group == group).map(|f| f.throughput_bps).sum()
}

fn pvpie(target: u64) -> QdiscConfig {
    QdiscConfig::PvPie(PvPieConfig { target: Some(target), ..Default::default() })
}

/// The mean of probe `name` over samples after `from_s`.
fn probe_mean(sim: &Simulation, name: &str, from: u64) -> f64 {
    let names = &sim.traces.probe_names;
    let i = names.iter().position(|n| *n == name).unwrap_or_else(|| panic!("no probe {name} in {names:?}"));
    let rows: Vec<f64> = sim.traces.probe.chunks(names.len()).zip(&sim.traces.sample_t).filter(|(_, &t)| t >= from).map(|(r, _)| r[i]).collect();
    rows.iter().sum::<f64>() / rows.len() as f64
}

#[test]
fn pvpie_gold_silver_shares_and_delay() {
    let mut sim = simulation(gold_silver(pvpie(40 * NS_PER_MS), 30 * S)).unwrap();
    sim.run();
    let s = sim.summary();
    let (gold, silver) = (group_rate(&s, 0), group_rate(&s, 1));
    // Desired (region III of Fig. 1): Gold = 4 × Silver, 80 / 20 Mb/s of the link.
    let d = sim.ppv.desired(10 * S, 100e6);
    let want = d.rates_bps[0] / d.rates_bps[1];
    assert!((want - 4.0).abs() < 1e-6, "{d:?}");
    let ratio = gold / silver;
    eprintln!(
        "PVPIE gold {:.2} Mb/s silver {:.2} Mb/s ratio {ratio:.3} (desired {want}); qdelay p50 {:.1} ms; util {:.3}; ctv mean {:.1}, desired {:.1}",
        gold / 1e6,
        silver / 1e6,
        s.qdelay_p50_s * 1e3,
        s.utilization,
        probe_mean(&sim, "ctv", 5 * S),
        probe_mean(&sim, "desired_ctv", 5 * S),
    );
    // Issue 7 bands: the ratio within ±25 % of desired after the 5 s transient, the median
    // queue delay within ±50 % of the 40 ms target.
    assert!((ratio / want - 1.0).abs() <= 0.25, "Gold/Silver {ratio:.3} vs desired {want}");
    assert!((s.qdelay_p50_s / 0.040 - 1.0).abs() <= 0.5, "median queue delay {:.1} ms", s.qdelay_p50_s * 1e3);
    // PVPIE drops only at arrival (paper §3): no overflow, no drop at dequeue.
    assert!(s.utilization > 0.9, "utilization {}", s.utilization);
}

#[test]
fn markers_are_shared_per_policy_flow_and_stamp_only_data() {
    let mut c = gold_silver(pvpie(40 * NS_PER_MS), S);
    c.warmup_ns = 0;
    let sim = simulation(c).unwrap();
    assert_eq!(sim.ppv.len(), 2);
    assert_eq!((0..10).map(|f| sim.ppv.policy_flow_of(f).unwrap()).collect::<Vec<_>>(), vec![0, 0, 0, 0, 0, 1, 1, 1, 1, 1]);
    assert_eq!(sim.traces.probe_names.last(), Some(&"desired_ctv"));
    // A group that does not divide into whole policy flows is rejected with the field path.
    let mut bad = gold_silver(pvpie(40 * NS_PER_MS), 10 * S);
    if let Some(m) = bad.flows[0].marker.as_mut() {
        m.connections_per_flow = Some(3);
    }
    assert_eq!(simulation(bad).err().unwrap(), "flows[0].marker.connections_per_flow: 3 does not divide count = 5");
}

#[test]
fn background_udp_cannot_take_more_than_its_share() {
    // Scenario 2's load: 3 Background UDP sources of 30 Mb/s (60 % of the 50 Mb/s link) with
    // one Gold and one Silver flow (N_tcp.c = 5). Desired (region III): G = 4·S = 40·B,
    // 53·B = 50 Mb/s.
    let mut c = gold_silver(pvpie(40 * NS_PER_MS), 30 * S);
    c.bottleneck.rate_bps = 50_000_000;
    c.flows.push(FlowGroup {
        name: "background".into(),
        count: 3,
        transport: Transport::Udp(UdpConfig { rate_bps: 30_000_000, ecn: false, ect: Default::default() }),
        access_delay_ns: Dist::Fixed(10 * MS),
        receiver_delay_ns: 0,
        start_ns: Dist::Fixed(0),
        stop_ns: None,
        packet_size: 1500,
        app: App::Bulk,
        dscp: 0,
        marker: Some(MarkerConfig { tvf: TvfConfig::Background, kind: token_bucket(), connections_per_flow: Some(1) }),
        route: None,
    });
    let mut sim = simulation(c).unwrap();
    sim.run();
    let s = sim.summary();
    let (gold, silver, bg) = (group_rate(&s, 0), group_rate(&s, 1), group_rate(&s, 2));
    let want_bg = 3.0 * 50e6 / 53.0;
    eprintln!("scenario-2 load: gold {:.2} silver {:.2} background {:.2} Mb/s (desired bg {:.2})", gold / 1e6, silver / 1e6, bg / 1e6, want_bg / 1e6);
    // TCP keeps at least 90 % of its desired total (measured 94 %, seed 1): the UDP sources
    // cannot take the TCP flows' share. They do get more than their own desired share
    // (measured 1.9×): after each loss TCP sends below its allowance for a while and the
    // controller lowers the threshold to keep the link busy, which the CBR sources use at
    // once (PVPIE §4 scenario 2 explains its Fig. 10 the same way). Band: at most 2.5×.
    let want_tcp = 50e6 - want_bg;
    assert!(gold + silver >= 0.9 * want_tcp, "tcp {} of desired {want_tcp}", gold + silver);
    assert!(bg <= 2.5 * want_bg, "background {bg} of desired {want_bg}");
    assert!(((gold / silver) / 4.0 - 1.0).abs() <= 0.25, "Gold/Silver {}", gold / silver);
}

#[test]
fn ppv_scheduler_baseline_keeps_the_shares() {
    // The PPV baseline (drop the smallest PV when full) with a 40 ms buffer at 100 Mb/s
    // (333 packets of 1500 B): it keeps a full buffer, so the delay is the buffer's, and the
    // shares follow the policy. Band ±25 % as for PVPIE.
    let q = QdiscConfig::Ppv(PpvConfig { limit: Some(QueueLimit::Packets(333)), ..Default::default() });
    let mut sim = simulation(gold_silver(q, 20 * S)).unwrap();
    sim.run();
    let s = sim.summary();
    let ratio = group_rate(&s, 0) / group_rate(&s, 1);
    eprintln!("PPV ratio {ratio:.3}; qdelay p50 {:.1} ms; util {:.3}", s.qdelay_p50_s * 1e3, s.utilization);
    assert!((ratio / 4.0 - 1.0).abs() <= 0.25, "Gold/Silver {ratio:.3}");
    assert!(s.utilization > 0.9);
}

#[test]
fn plain_pie_ignores_the_policy() {
    // Control: the same load under PIE (no PVs read) splits about evenly, far from 4:1.
    let q = QdiscConfig::Pie(PieConfig { profile: Some(PieProfile::Rfc), target: Some(40 * NS_PER_MS), ..Default::default() });
    let mut sim = simulation(gold_silver(q, 20 * S)).unwrap();
    sim.run();
    let s = sim.summary();
    let ratio = group_rate(&s, 0) / group_rate(&s, 1);
    eprintln!("PIE ratio {ratio:.3}");
    assert!(ratio < 2.0, "PIE has no policy: {ratio}");
}
