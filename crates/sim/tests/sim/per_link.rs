//! Every queue's metrics and traces, named by link (issue 20): a two-hop chain whose second hop
//! is the narrower one, fed by a constant-rate ECN-capable source, against the closed forms of
//! a deterministic queue (no randomness in the run: the bands are the transient only).

use aqm::time::{NS_PER_MS, NS_PER_SEC};
use aqm::{QdiscConfig, QueueLimit};
use sim::bench::{cbr_group, no_traces, tcp_dumbbell};
use sim::config::{FlowGroup, NetLinkConfig, NetworkConfig, SimConfig};

use crate::common::simulation;

const MS: u64 = NS_PER_MS;
const S: u64 = NS_PER_SEC;

fn udp(rate_bps: u64, ecn: bool, route: Option<Vec<String>>) -> FlowGroup {
    FlowGroup { route, ..cbr_group(rate_bps, ecn, 5 * MS, 0) }
}

/// R0 -(20 Mb/s, DropTail)-> R1 -(5 Mb/s, step marking at K = 10, limit 50)-> R2, one 10 Mb/s
/// ECN-capable CBR source over both hops, 10 s with 2 s of warm-up.
fn two_hops() -> SimConfig {
    let mut c = tcp_dumbbell(1, 20_000_000, 40 * MS, QueueLimit::Packets(100), 10 * S);
    c.warmup_ns = 2 * S;
    c.traces = no_traces();
    (c.traces.queue, c.traces.sojourn) = (true, true);
    let step: QdiscConfig = serde_json::from_str(r#"{"type":"step","k":10,"limit":{"packets":50}}"#).unwrap();
    let hop = NetLinkConfig {
        from: "R1".into(),
        to: "R2".into(),
        rate_bps: 5_000_000,
        delay_ns: 5 * MS,
        queue: step,
        reverse_queue: QdiscConfig::drop_tail(QueueLimit::Packets(100)),
        rate_schedule: vec![],
        impairment: None,
        device: Default::default(),
    };
    let nodes: Vec<String> = ["R0", "R1", "R2"].map(String::from).to_vec();
    c.network = Some(NetworkConfig { nodes: nodes.clone(), bottleneck: ["R0".into(), "R1".into()], links: vec![hop] });
    c.flows = vec![udp(10_000_000, true, Some(vec![nodes[0].clone(), nodes[2].clone()]))];
    c
}

#[test]
fn every_queue_is_reported_by_name_with_its_own_closed_form() {
    let mut sim = simulation(two_hops()).unwrap();
    sim.run();
    let links = sim.link_summaries();
    let names: Vec<(&str, &str)> = links.iter().map(|l| (l.queue.as_str(), l.ends.as_str())).collect();
    assert_eq!(names, [("bottleneck", "R0->R1"), ("reverse_bottleneck", "R1->R0"), ("R1->R2", "R1->R2"), ("R2->R1", "R2->R1")]);
    let (first, second) = (&links[0], &links[2]);
    // Hop 1: a 1000 B packet every 800 us on a link that sends it in 400 us never waits, and
    // the link is busy half the time.
    assert_eq!(first.delay.max_s, 0.0);
    assert!((first.utilization - 0.5).abs() < 1e-3, "hop 1 utilization {}", first.utilization);
    assert_eq!(first.drop_rate, 0.0);
    // Hop 2 takes 1600 us per packet and gets one every 800 us: its 50-packet queue fills in
    // about 80 ms and stays full; half the arrivals are dropped, the link never idles. A packet
    // is admitted right after a departure, behind 49 waiting packets and the one on the wire:
    // it starts 49 services plus the rest of the current one later, in (78.4, 80] ms.
    assert!((second.utilization - 1.0).abs() < 1e-3, "hop 2 utilization {}", second.utilization);
    assert!((second.drop_rate - 0.5).abs() < 0.01, "hop 2 drop rate {}", second.drop_rate);
    for (what, v) in [("p50", second.delay.p50_s), ("p99", second.delay.p99_s), ("mean", second.delay.mean_s)] {
        assert!(v > 0.0784 * (1.0 - 1.0 / 256.0) && v <= 0.080, "hop 2 sojourn {what} {v}");
    }
    // Step marking marks every admitted packet once more than K = 10 wait: all but the first
    // ~11 of some 6 000 departures (the rest of the run is above K).
    assert!(second.mark_rate > 0.997, "hop 2 mark rate {}", second.mark_rate);
    // Nothing travels backwards: ACK-less UDP leaves the reverse queues empty.
    assert_eq!((links[1].delay.n, links[3].delay.n), (0, 0));

    // The traces, per queue: every sample has a column per queue, in the summaries' order;
    // hop 2 holds 49 or 50 packets once full, hop 1 at most the one that just arrived.
    let t = &sim.traces;
    let n = links.len();
    assert_eq!(t.link_queue_packets.len(), n * t.sample_t.len());
    for (row, &at) in t.sample_t.iter().enumerate() {
        let q = &t.link_queue_packets[row * n..(row + 1) * n];
        assert!(q[0] <= 1, "hop 1 backlog {} at {at}", q[0]);
        if at >= S {
            assert!(q[2] == 49 || q[2] == 50, "hop 2 backlog {} at {at}", q[2]);
        }
        assert_eq!(q[0], t.queue_packets[row], "the bottleneck's column is its queue trace");
    }
    // The summary counts hop 2's departures in the measured window [2 s, 10 s]: those of the
    // per-packet trace at or after 2 s (the trace keeps the whole run), and by the closed form
    // 8 s of back-to-back 1.6 ms services, 5,000 (one more or less at the window's edges).
    let hop2 = t.link_sojourn_queue.iter().zip(&t.link_sojourn_t).filter(|&(&s, &at)| s == 2 && at >= 2 * S).count() as u64;
    let departures = sim.summary().queues[2].counts.departures;
    assert_eq!(hop2, departures);
    assert!(departures.abs_diff(5_000) <= 1, "hop 2 departures in the window {departures}");
    assert!(t.link_sojourn_queue.iter().all(|&s| s == 2), "only hop 2 forwards packets besides the bottleneck");
}

#[test]
fn rate_limited_access_links_are_one_family() {
    // Four access links per host share one report: a 1 Mb/s source crosses two of them (its
    // sender's and its receiver's), so the family carries 2 Mb/s of 4 x 100 Mb/s.
    let mut c = tcp_dumbbell(1, 10_000_000, 40 * MS, QueueLimit::Packets(100), 4 * S);
    c.access.rate_bps = Some(100_000_000);
    c.flows = vec![udp(1_000_000, false, None)];
    let mut sim = simulation(c).unwrap();
    sim.run();
    let access = sim.link_summaries().into_iter().find(|l| l.queue == "access").expect("an access report");
    assert_eq!(access.links, 4);
    assert!((access.utilization - 2.0 / 400.0).abs() < 1e-5, "access utilization {}", access.utilization);
    assert_eq!(sim.summary().queues.iter().map(|q| q.queue.as_str()).collect::<Vec<_>>(), ["bottleneck", "reverse_bottleneck", "access"]);
}

#[test]
fn every_queue_s_discipline_variables_are_traced() {
    // PIE on hop 2 (10 Mb/s offered to 5 Mb/s): an unresponsive overload keeps its queue delay
    // above target, so PIE raises its drop probability (RFC 8033 §4.2: p grows while
    // qdelay > target) towards the 1/2 at which its early drops alone remove the excess, the
    // queue then near target; above 0.3 at the end. DropTail on hop 1 has no variables.
    let mut c = two_hops();
    c.traces.probe = true;
    let pie: QdiscConfig = serde_json::from_str(r#"{"type":"pie","limit":{"packets":50}}"#).unwrap();
    c.network.as_mut().unwrap().links[0].queue = pie;
    let mut sim = simulation(c).unwrap();
    sim.run();
    let t = &sim.traces;
    assert_eq!(t.link_probe_names.len(), 4);
    assert!(t.link_probe_names[0].is_empty() && t.link_probe_names[2][0] == "prob", "{:?}", t.link_probe_names);
    let width: usize = t.link_probe_names.iter().map(Vec::len).sum();
    assert_eq!(t.link_probe.len(), width * t.sample_t.len());
    let prob_at_end = t.link_probe[t.link_probe.len() - width];
    assert!(prob_at_end > 0.3, "PIE's drop probability on hop 2 at the end: {prob_at_end}");
}
