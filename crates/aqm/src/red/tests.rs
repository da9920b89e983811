//! RED tests: the spec §8.2 vectors and behaviours (back-to-back arrivals at t = 0, no dequeues).

use super::*;
use crate::config::QdiscConfig;
use crate::schema::Declared;
use crate::packet::Ecn;
use crate::queue::{Action, Backlog};
use crate::testkit::{probe, run, Counts, Traffic};
use crate::time::NS_PER_SEC;

const LINK: LinkInfo = LinkInfo { rate_bps: 1_500_000, mtu: 1500 };

/// ns-3 red-queue-disc cases: MinTh 70, MaxTh 150, MaxSize 300, 300 arrivals at t = 0.
fn case(f: impl FnOnce(&mut RedConfig)) -> RedConfig {
    let mut c = RedConfig { profile: Some(RedProfile::Ns3), min_th: Some(70.0), max_th: Some(150.0), limit: Some(QueueLimit::Packets(300)), ..Default::default() };
    f(&mut c);
    c
}

/// The view of a queue of `packets` 500-B packets.
fn view(packets: u32) -> QueueView {
    QueueView { backlog: Backlog { bytes: packets as u64 * 500, packets }, limit: QueueLimit::Packets(1000) }
}

/// Runs 300 back-to-back arrivals of `ecn` packets; returns the counts and the average after
/// each arrival.
fn burst(c: RedConfig, ecn: Ecn) -> (Counts, Vec<f64>) {
    let cfg = QdiscConfig::Red(c);
    cfg.validate().unwrap();
    let mut q = cfg.build(LINK, Rng::from_seed(11));
    let t = Traffic { start: 0, enq_every: 0, enq_count: 300, len: 1000, ecn, deq_every: 10 * NS_PER_SEC, until: NS_PER_SEC };
    let mut avgs = Vec::new();
    let n = run(&mut q, &t, |_, q, _: &[Action]| avgs.push(probe(q, "avg")));
    (n, avgs)
}

#[test]
fn average_after_300_arrivals_and_no_drop() {
    // spec §8.2 case 2: avg = Σ 0.002·k·0.998^(299−k) = 74.241; first ≥ 70 at arrival 290;
    // the wait rule needs count·p_b ≥ 1 with p_b ≈ 0.001, so nothing is dropped.
    let (n, avgs) = burst(case(|_| {}), Ecn::NotEct);
    assert!((avgs[299] - 74.241).abs() < 5e-4, "{}", avgs[299]);
    assert_eq!(avgs.iter().position(|&a| a >= 70.0), Some(290));
    assert_eq!((n.early, n.overflow, n.marks), (0, 0, 0));
    // case 3: w = 0.02 crosses 70 at arrival 115 and ends near 250.1; now RED drops.
    let (n3, a3) = burst(case(|c| c.w_q = Some(0.02)), Ecn::NotEct);
    assert_eq!(a3.iter().position(|&a| a >= 70.0), Some(115));
    assert!(n3.early > 0);
}

#[test]
fn more_drops_with_each_harsher_setting() {
    // spec §8.2 cases 4–7 against case 3 (w = 0.02).
    let base = |c: &mut RedConfig| c.w_q = Some(0.02);
    let (c3, a3) = burst(case(base), Ecn::NotEct);
    // The average after 300 arrivals with w = 0.02 (spec: ≈ 250.1) counts only accepted packets.
    assert!(a3[299] > 150.0);
    type Tweak = fn(&mut RedConfig);
    let harsher: [(&str, Tweak); 4] = [
        ("max_th 100", |c| c.max_th = Some(100.0)),
        ("max_p 1/5", |c| c.max_p = Some(0.2)),
        ("gentle off", |c| c.gentle = Some(false)),
        ("wait off", |c| c.wait = Some(false)),
    ];
    for (name, f) in harsher {
        let (n, _) = burst(
            case(|c| {
                base(c);
                f(c)
            }),
            Ecn::NotEct,
        );
        assert!(n.early > c3.early, "{name}: {} vs {}", n.early, c3.early);
    }
}

#[test]
fn ecn_marks_instead_of_unforced_drops() {
    // spec §8.2 cases 8–10: MinTh 30, MaxTh 90, w 0.002, max_p 1/2, gentle (no forced drops:
    // avg stays below 2·max_th).
    let c = |ecn: bool| RedConfig {
        profile: Some(RedProfile::Ns3),
        min_th: Some(30.0),
        max_th: Some(90.0),
        max_p: Some(0.5),
        ecn: Some(ecn),
        limit: Some(QueueLimit::Packets(300)),
        ..Default::default()
    };
    let (not_ect, _) = burst(c(true), Ecn::NotEct);
    assert!(not_ect.early > 0 && not_ect.marks == 0);
    let (off, _) = burst(c(false), Ecn::Ect0);
    assert!(off.early > 0 && off.marks == 0);
    let (on, _) = burst(c(true), Ecn::Ect0);
    assert!(on.early == 0 && on.marks > 0, "{on:?}");
}

#[test]
fn uniformization_rules_hand_worked() {
    let mut r = case(|_| {}).resolve().unwrap().build(LINK, Rng::from_seed(1));
    // p_b = 0.02·(110 − 70)/80 = 0.01.
    r.avg = 110.0;
    assert!((r.base_prob() - 0.01).abs() < 1e-17);
    // Wait rule: count 50 → c = 0.5 → 0; count 150 → c = 1.5 → 0.01/0.5 = 0.02; count 250 → 1.
    for (count, want) in [(50, 0.0), (150, 0.02), (250, 1.0)] {
        r.count = count;
        assert!((r.uniformized(0.01, 1000) - want).abs() < 1e-15, "count {count}");
    }
    // Floyd 1993 without wait: count 50 → 0.01/(1 − 0.5) = 0.02; count 100 → 1.
    r.wait = false;
    r.count = 50;
    assert!((r.uniformized(0.01, 1000) - 0.02).abs() < 1e-15);
    r.count = 100;
    assert_eq!(r.uniformized(0.01, 1000), 1.0);
    // Gentle: at avg = 1.5·max_th, p_b = max_p + (1 − max_p)/2 = 0.51.
    r.avg = 225.0;
    assert!((r.base_prob() - 0.51).abs() < 1e-15);
}

#[test]
fn byte_mode_counts_mean_packets_and_scales_below_one() {
    // ns-2 modify_p in byte mode: the count is count_bytes / mean_pktsize, and p is scaled by
    // size / mean_pktsize only while it is below 1. Mean 500 B, a 250-B arrival, p_b = 0.01,
    // no wait: 25 000 B = 50 mean packets → 0.01/(1 − 0.5) = 0.02 → ×1/2 = 0.01; 50 000 B =
    // 100 mean packets → c = 1 → p = 1, left whole.
    let mut r = case(|c| {
        c.byte_mode = Some(true);
        c.wait = Some(false);
    })
    .resolve()
    .unwrap()
    .build(LINK, Rng::from_seed(1));
    r.count_bytes = 25_000;
    assert!((r.uniformized(0.01, 250) - 0.01).abs() < 1e-15, "{}", r.uniformized(0.01, 250));
    r.count_bytes = 50_000;
    assert_eq!(r.uniformized(0.01, 250), 1.0);
}

#[test]
fn gentle_forces_drops_only_from_twice_max_th() {
    // Floyd 2000 (gentle RED): between max_th and 2·max_th p rises from max_p to 1; only an
    // average of at least 2·max_th (300 here) forces a drop. The queue equals the average, so
    // the arrival leaves it in place.
    let pkt = Pkt::new(1, 500, 0);
    for (avg, verdict) in [(250, Verdict::Accept), (310, Verdict::Drop)] {
        let mut r = case(|_| {}).resolve().unwrap().build(LINK, Rng::from_seed(1));
        r.idle_since = None;
        r.avg = avg as f64;
        // The first arrival above min_th is never an early drop (ns-2 `old`): only a forced one can drop it.
        assert_eq!(r.on_enqueue(0, &pkt, &view(avg)), verdict, "avg {avg}");
    }
}

#[test]
fn an_average_at_min_th_restarts_the_count() {
    // ns-2 red.cc: the early-drop branch is taken once avg >= min_th (and more than one packet
    // is queued); its first arrival restarts the count at 1 (`old == 0`). With w = 1 the average
    // is the queue, so 70 packets put it exactly on min_th. 10 arrivals were counted before, on
    // a busy queue (not idle).
    let mut r = case(|c| c.w_q = Some(1.0)).resolve().unwrap().build(LINK, Rng::from_seed(1));
    r.idle_since = None;
    r.count = 10;
    assert_eq!(r.on_enqueue(0, &Pkt::new(1, 500, 0), &view(70)), Verdict::Accept);
    assert_eq!((r.avg(), r.count, r.above_min), (70.0, 1, true));
}

#[test]
fn idle_time_decays_the_average() {
    let pkt = Pkt::new(1, 500, 0);
    for (profile, w, rate_bps, expect) in [
        // 1 s idle at 1.5 Mb/s with 500-B mean packets: s = 8/3 ms, m = 375.
        // ns-2/ns-3: avg·(1 − w)^(m+1) + w·0.
        (RedProfile::Ns3, 0.002, 1_500_000, 10.0 * 0.998f64.powi(376)),
        // Linux: avg·(1 − w)^(idle/s), no sample added.
        (RedProfile::Linux, 0.015625, 1_500_000, 10.0 * (1.0 - 0.015625f64).powf(375.0)),
        // The link rate set after construction counts: at 3 Mb/s, s = 4/3 ms, m = 750.
        (RedProfile::Ns3, 0.002, 3_000_000, 10.0 * 0.998f64.powi(751)),
    ] {
        let mut r = RedConfig { profile: Some(profile), w_q: Some(w), mean_pkt_size: Some(500), queue_unit: Some(QueueUnit::Packets), min_th: Some(5.0), max_th: Some(15.0), ..Default::default() }.resolve().unwrap().build(LINK, Rng::from_seed(1));
        r.set_link_rate(rate_bps);
        r.avg = 10.0;
        r.idle_since = None;
        // Empty from 1 s to 2 s.
        r.on_dequeue(NS_PER_SEC, &pkt, &view(0));
        r.on_enqueue(2 * NS_PER_SEC, &pkt, &view(0));
        assert!((r.avg() - expect).abs() < 1e-12, "{profile:?} at {rate_bps} b/s: {} vs {expect}", r.avg());
    }
    // 0.998^376 = e^(376·ln 0.998) = e^(−0.75275) ≈ 0.47109.
    assert!((10.0 * 0.998f64.powi(376) - 4.7109).abs() < 1e-3);
}

#[test]
fn adaptive_red_moves_max_p_toward_the_band() {
    let mut r = case(|c| c.adaptive = Some(true)).resolve().unwrap().build(LINK, Rng::from_seed(1));
    // Band for 70..150: [102, 118]. Above it: max_p += min(0.01, max_p/4) → 0.025.
    r.avg = 130.0;
    r.on_update(0, &view(0));
    assert!((r.max_p() - 0.025).abs() < 1e-17);
    // Below it: ×0.9 per interval while max_p ≥ 0.01.
    r.avg = 80.0;
    let mut want = 0.025;
    while want >= 0.01 {
        r.adapt();
        want *= 0.9;
        assert!((r.max_p() - want).abs() < 1e-17);
    }
    r.adapt();
    assert!((r.max_p() - want).abs() < 1e-17, "no decrease below 1 %");
    assert_eq!(r.update_interval(), Some(NS_PER_SEC / 2));
}

#[test]
fn adaptive_red_leaves_max_p_alone_on_the_band_edges() {
    // Floyd, Gummadi & Shenker 2001: max_p grows only while avg > the band's top and shrinks
    // only while avg < its bottom. For 70..150 the band is [70 + 32, 150 − 32] = [102, 118].
    for avg in [102.0, 118.0] {
        let mut r = case(|c| c.adaptive = Some(true)).resolve().unwrap().build(LINK, Rng::from_seed(1));
        r.avg = avg;
        r.adapt();
        assert_eq!(r.max_p(), 0.02, "avg {avg}");
    }
}

#[test]
fn automatic_and_tc_parameters() {
    // tdc's `red limit 1M avpkt 1500 min 100K max 300K`: burst 113, a = 45.73 → Wlog 6.
    assert_eq!(tc_ewma_weight(102_400.0, 307_200.0, 1500), Some(1.0 / 64.0));
    assert_eq!(RedConfig { profile: Some(RedProfile::Linux), ..Default::default() }.resolve().unwrap().w_q, Some(1.0 / 64.0));
    // Adaptive RED at 10 Mb/s, 500-B packets: C = 2500/s, min = max(5, 0.005·2500/2) = 6.25.
    let r = RedConfig { profile: Some(RedProfile::Ared), ..Default::default() }.resolve().unwrap().build(LinkInfo { rate_bps: 10_000_000, mtu: 1500 }, Rng::from_seed(1));
    assert_eq!((r.min_th, r.max_th, r.gentle, r.adaptive), (6.25, 18.75, true, true));
    assert!((r.w_q - (1.0 - (-1.0f64 / 2500.0).exp())).abs() < 1e-18);
    // The same link with the queue in bytes: Floyd 2001's thresholds are in mean packets, so
    // min = 6.25 packets of 500 B = 3125 B and max = 3·min.
    let b = RedConfig { profile: Some(RedProfile::Ared), queue_unit: Some(QueueUnit::Bytes), ..Default::default() }
        .resolve()
        .unwrap()
        .build(LinkInfo { rate_bps: 10_000_000, mtu: 1500 }, Rng::from_seed(1));
    assert_eq!((b.min_th, b.max_th), (3125.0, 9375.0));
    let bad = RedConfig { min_th: Some(20.0), max_th: Some(10.0), ..Default::default() };
    assert!(bad.resolve().unwrap_err().starts_with("max_th"));
}

#[test]
fn tc_weight_needs_a_burst_of_at_least_one_packet_over_min() {
    // tc_red_eval_ewma: burst = ⌊(2·min + max)/(3·avpkt)⌋, a = burst + 1 − min/avpkt, refused
    // when a < 1, else the first W = 2^−k with a ≤ (1 − (1 − W)^burst)/W.
    // min 3000, max 4500, avpkt 1000: burst 3, a = 1: at W = 1/2, (1 − 1/8)/(1/2) = 1.75 ≥ 1.
    assert_eq!(tc_ewma_weight(3000.0, 4500.0, 1000), Some(0.5));
    // min 3500: burst ⌊11 500/3000⌋ = 3, a = 0.5: no weight.
    assert_eq!(tc_ewma_weight(3500.0, 4500.0, 1000), None);
}

#[test]
fn adaptive_red_drops_less_than_a_harsh_max_p() {
    // spec §8.2 adaptive case 9/10 in our harness: max_p 1/2 with thresholds 5/15 drops
    // needlessly; Adaptive RED lowers max_p towards the target band and drops less.
    let t = Traffic { start: 0, enq_every: 10 * crate::time::NS_PER_MS, enq_count: 500, len: 500, ecn: Ecn::NotEct, deq_every: 11 * crate::time::NS_PER_MS, until: 8 * NS_PER_SEC };
    let c = |adaptive: bool| RedConfig {
        profile: Some(RedProfile::Ns3),
        min_th: Some(5.0),
        max_th: Some(15.0),
        w_q: Some(0.002),
        max_p: Some(0.5),
        adaptive: Some(adaptive),
        limit: Some(QueueLimit::Packets(1000)),
        ..Default::default()
    };
    let plain = run(&mut QdiscConfig::Red(c(false)).build(LINK, Rng::from_seed(2)), &t, |_, _, _| {});
    let ared = run(&mut QdiscConfig::Red(c(true)).build(LINK, Rng::from_seed(2)), &t, |_, _, _| {});
    assert!(plain.early > 0 && ared.early < plain.early, "{plain:?} {ared:?}");
}
