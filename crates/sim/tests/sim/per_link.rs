//! Every queue's metrics and traces, named by link (issue 20): a two-hop chain whose second hop
//! is the narrower one, fed by a constant-rate ECN-capable source, against the closed forms of
//! a deterministic queue (no randomness in the run: the bands are the transient only).

use aqm::time::{NS_PER_MS, NS_PER_SEC};
use aqm::{QdiscConfig, QueueLimit};
use sim::bench::{cbr_group, no_traces, tcp_dumbbell};
use sim::config::{FlowGroup, ImpairConfig, LossModel, NetLinkConfig, NetworkConfig, SimConfig};

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
    let mut c = two_hops();
    c.traces.drops = true;
    let mut sim = simulation(c).unwrap();
    sim.run();
    let links = sim.link_summaries();
    let names: Vec<(&str, &str)> = links.iter().map(|l| (l.queue.as_str(), l.ends.as_str())).collect();
    assert_eq!(names, [("bottleneck", "R0->R1"), ("reverse_bottleneck", "R1->R0"), ("R1->R2", "R1->R2"), ("R2->R1", "R2->R1")]);
    // The queues' links: the bottleneck's two directions are links 0 and 1, the flow's four
    // access links (2 to 5) are pure delays in no queue, the declared link's directions 6 and 7.
    let members: Vec<(&str, &[u32])> = sim.queues().iter().map(|q| (q.name.as_str(), q.members.as_slice())).collect();
    assert_eq!(members, [("bottleneck", &[0][..]), ("reverse_bottleneck", &[1][..]), ("R1->R2", &[6][..]), ("R2->R1", &[7][..])]);
    let none = sim::queues::NO_QUEUE;
    assert_eq!(sim.link_queues(), [0, 1, none, none, none, none, 2, 3]);
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
    // Exactly so, in the window's counts: every arrival in [2 s, 10 s] finds hop 2 above K (it
    // filled in the first 80 ms), so it is marked or, the queue full, dropped at the tail; and
    // what is admitted leaves, the backlog being 49 or 50 at both ends of the window.
    let hop2_counts = sim.summary().queues[2].counts;
    assert_eq!(hop2_counts.marks + hop2_counts.drops_overflow, hop2_counts.arrivals, "{hop2_counts:?}");
    assert!(hop2_counts.marks.abs_diff(hop2_counts.departures) <= 1, "{hop2_counts:?}");
    // Nothing travels backwards: ACK-less UDP leaves the reverse queues empty.
    assert_eq!((links[1].delay.n, links[3].delay.n), (0, 0));
    // The drop trace names the link: every tail drop is hop 2's (link 6, queue 2), and those
    // in the window are the window's count.
    let t = &sim.traces;
    let slot = sim.link_queues();
    let tail: Vec<(u64, u32)> = (0..t.drop_t.len()).filter(|&i| t.drop_kind[i] == sim::trace::EVENT_DROP_OVERFLOW).map(|i| (t.drop_t[i], t.drop_link[i])).collect();
    assert!(tail.iter().all(|&(_, l)| l == 6 && slot[l as usize] == 2));
    assert_eq!(tail.iter().filter(|&&(at, _)| at >= 2 * S).count() as u64, hop2_counts.drops_overflow);

    // The traces, per queue: every sample has a column per queue, in the summaries' order;
    // hop 2 holds 49 or 50 packets once full, hop 1 at most the one that just arrived.
    let n = links.len();
    assert_eq!(t.link_queue_packets.len(), n * t.sample_t.len());
    for (row, &at) in t.sample_t.iter().enumerate() {
        let q = &t.link_queue_packets[row * n..(row + 1) * n];
        assert!(q[0] <= 1, "hop 1 backlog {} at {at}", q[0]);
        if at >= S {
            assert!(q[2] == 49 || q[2] == 50, "hop 2 backlog {} at {at}", q[2]);
        }
        assert_eq!(q[0], t.queue_packets[row], "the bottleneck's column is its queue trace");
        // Every packet is 1000 B.
        let bytes: Vec<u64> = q.iter().map(|&p| p as u64 * 1000).collect();
        assert_eq!(t.link_queue_bytes[row * n..(row + 1) * n], bytes[..], "backlog bytes at {at}");
        assert_eq!(t.queue_bytes[row], bytes[0]);
        // The mean sojourn of each 10 ms interval's departures: none at hop 1 (12 or 13 of
        // them), (78.4, 80] ms at hop 2 once full (6 or 7), and no departures, NaN, backwards.
        let mean = &t.link_queue_sojourn_mean_ns[row * n..(row + 1) * n];
        if at >= S {
            assert_eq!(mean[0], 0.0, "hop 1 mean sojourn at {at}");
            assert!(mean[2] > 78.4e6 && mean[2] <= 80e6, "hop 2 mean sojourn {} at {at}", mean[2]);
            assert!(mean[1].is_nan() && mean[3].is_nan(), "{mean:?}");
        }
    }
    // Without a device queue the discipline's sojourn is the link's, at every queue.
    assert_eq!(t.link_sojourn_qdisc_ns, t.link_sojourn_ns);
    assert_eq!(t.sojourn_qdisc_ns, t.sojourn_ns);
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

#[test]
fn the_window_counts_what_reached_a_queue_within_it() {
    // A 1 Mb/s CBR of 1000 B datagrams from t = 0 (one every 8 ms) through 5 ms of ideal access
    // reaches the bottleneck at 5 + 8k ms, never while another is on the wire (0.8 ms each at
    // 10 Mb/s); the impairment loses every 4th (k + 1 a multiple of 4). The window [2 s, 10 s]
    // holds arrivals k = 250 ..= 1249: 1000 packets, of which k + 1 = 252, 256, ..., 1248 are
    // lost, 250, and 750 reach the queue and leave at once. (The whole run lost 312.)
    let mut c = tcp_dumbbell(1, 10_000_000, 40 * MS, QueueLimit::Packets(100), 10 * S);
    c.warmup_ns = 2 * S;
    c.traces = no_traces();
    c.flows = vec![udp(1_000_000, false, None)];
    c.bottleneck.impairment = Some(ImpairConfig { loss: LossModel::Periodic { every: 4 }, mark_instead: false, outages: vec![] });
    // Until the window opens nothing is measured: no capacity and no rates (0, not 0 / 0).
    let mut early = simulation(c.clone()).unwrap();
    early.run_until(S);
    for l in early.link_summaries() {
        assert_eq!((l.utilization, l.drop_rate, l.mark_rate), (0.0, 0.0, 0.0), "{}", l.queue);
    }
    let mut sim = simulation(c).unwrap();
    sim.run();
    let s = sim.summary();
    let b = &s.queues[0];
    assert_eq!((b.counts.arrivals, b.counts.drops_impairment, b.counts.departures, b.drops), (750, 250, 750, 250), "{b:?}");
    // The flow's window: datagrams sent at 8k ms for k = 250 ..= 1250 (both ends of the window
    // count), the same 250 lost.
    assert_eq!((s.sent, s.dropped), (1001, 250));
    let link = &sim.link_summaries()[0];
    assert_eq!(link.drop_rate, 0.25, "impairment losses over everything that reached the link");
}

#[test]
fn the_window_counts_the_acks_a_queue_drops_within_it() {
    // A 1-byte reverse queue holds no 40-byte ACK: every ACK reaching it is dropped, and the
    // senders, hearing nothing, send again only at their (backed-off) retransmission timeouts,
    // each retransmission drawing an ACK. In the window [5 s, 20 s] the queue's ACK drops are
    // exactly its arrivals and its overflow drops, and the flows' window counts the same drops;
    // the ACKs dropped before 5 s stay out.
    let mut c = tcp_dumbbell(5, 10_000_000, 100 * MS, QueueLimit::Packets(100), 20 * S);
    c.warmup_ns = 5 * S;
    c.traces = no_traces();
    c.bottleneck.reverse_queue = QdiscConfig::drop_tail(QueueLimit::Bytes(1));
    // The same run without a warm-up (the same events: the window only reads the counters)
    // counts over all of it: ACKs were dropped before 5 s, and more after.
    let mut whole = c.clone();
    whole.warmup_ns = 0;
    let mut whole = simulation(whole).unwrap();
    whole.run_until(5 * S - 1);
    let before = whole.summary().queues[1].counts;
    assert!(before.acks_dropped > 0, "ACKs were dropped before the window");
    whole.run();
    let all = whole.summary().queues[1].counts;
    let mut sim = simulation(c).unwrap();
    sim.run();
    let s = sim.summary();
    let r = s.queues[1].counts;
    assert!(r.arrivals > 0);
    assert_eq!((r.acks_dropped, r.drops_overflow, r.departures), (r.arrivals, r.arrivals, 0), "{r:?}");
    assert_eq!(r.acks_dropped, all.acks_dropped - before.acks_dropped);
    assert_eq!(s.acks_dropped, r.acks_dropped);
}

#[test]
fn the_per_packet_trace_keeps_every_nth_departure_of_each_queue() {
    // Each queue counts its own departures for the per-packet trace: with sojourn_every = 4 it
    // keeps departures 0, 4, 8, ... of each, so the bottleneck's columns and hop 2's rows are
    // every 4th of the full trace's (the run itself is the same).
    let run = |every: u32| {
        let mut c = two_hops();
        c.traces.sojourn_every = every;
        let mut sim = simulation(c).unwrap();
        sim.run();
        let t = &sim.traces;
        let hop2: Vec<(u64, u64)> = (0..t.link_sojourn_t.len()).filter(|&i| t.link_sojourn_queue[i] == 2).map(|i| (t.link_sojourn_t[i], t.link_sojourn_ns[i])).collect();
        (t.sojourn_t.clone(), t.sojourn_ns.clone(), hop2)
    };
    let (full, kept) = (run(1), run(4));
    let every_4th = |v: &[u64]| v.iter().step_by(4).copied().collect::<Vec<_>>();
    assert!(full.0.len() > 10_000 && full.2.len() > 5_000);
    assert_eq!(kept.0, every_4th(&full.0));
    assert_eq!(kept.1, every_4th(&full.1));
    assert_eq!(kept.2, full.2.iter().step_by(4).copied().collect::<Vec<_>>());
}
