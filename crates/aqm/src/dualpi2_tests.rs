//! DualPI2 against hand-worked vectors: the integer arithmetic of sch_dualpi2 re-derived by
//! hand, and RFC 9332 Appendix A's pseudo-code traced step by step.

use super::*;
use crate::config::{QdiscConfig, ResolvedQdisc};
use crate::schema::Declared;

const LINK: LinkInfo = LinkInfo { rate_bps: 10_000_000, mtu: 1500 };

fn build(json: &str) -> DualPi2 {
    let c: QdiscConfig = serde_json::from_str(json).unwrap();
    let ResolvedQdisc::DualPi2(p) = c.resolve().unwrap() else { panic!("not dualpi2") };
    p.build(LINK, Rng::from_seed(7))
}

fn pkt(id: u32, ecn: Ecn) -> Pkt {
    Pkt { ecn, ..Pkt::new(id, 1500, 0) }
}

#[test]
fn linux_gain_scaling_by_hand() {
    // 41·(2³²−1) = 176 093 659 095; >> 2 = 44 023 414 773; / 1e9 = 44.
    assert_eq!(linux_scale_gain(41), 44);
    // 819·(2³²−1) = 3 517 578 214 605; >> 2 = 879 394 553 651; / 1e9 = 879.
    assert_eq!(linux_scale_gain(819), 879);
    let q = build(r#"{"type":"dualpi2"}"#);
    assert_eq!((q.alpha_fp, q.beta_fp, q.tupdate, q.target), (44, 879, 16 * NS_PER_MS, 15 * NS_PER_MS));
    // WRR credit starts at MTU·(wc − wl) = 1500·(10 − 90).
    assert_eq!(q.credit, -120_000);
}

#[test]
fn linux_probability_update_by_hand() {
    let mut q = build(r#"{"type":"dualpi2"}"#);
    // A C packet enqueued at 0 and still at the head at 25 ms: qdelay 25 ms, last 0, target 15 ms.
    // delta = 10e6·44 + 25e6·879 = 440 000 000 + 21 975 000 000 = 22 415 000 000; /64 = 350 234 375.
    q.enqueue(0, pkt(1, Ecn::NotEct), &mut Vec::new());
    q.update(25 * NS_PER_MS);
    assert_eq!(q.prob_u32(), 350_234_375);
    // Same delay (head enqueued 25 ms before): only the integral term, 440 000 000/64 = 6 875 000.
    let mut out = Vec::new();
    q.dequeue(25 * NS_PER_MS, &mut out);
    q.enqueue(25 * NS_PER_MS, pkt(2, Ecn::NotEct), &mut out);
    q.update(50 * NS_PER_MS);
    assert_eq!(q.prob_u32(), 357_109_375);
    // Empty queue: delta = −15e6·44 − 25e6·879 = −22 635 000 000; /64 = 353 671 875.
    q.dequeue(50 * NS_PER_MS, &mut out);
    q.update(66 * NS_PER_MS);
    assert_eq!(q.prob_u32(), 357_109_375 - 353_671_875);
    // Again empty: −660 000 000/64 = 10 312 500 > 3 437 500: the kernel's wrap check floors it at 0.
    q.update(82 * NS_PER_MS);
    assert_eq!(q.prob_u32(), 0);
    // The controller sees the larger of the two head delays: an L packet 40 ms old, C empty.
    // delta = 25e6·44 + 40e6·879 = 1 100 000 000 + 35 160 000 000; /64 = 566 562 500.
    q.enqueue(100 * NS_PER_MS, pkt(3, Ecn::Ect1), &mut out);
    q.update(140 * NS_PER_MS);
    assert_eq!(q.prob_u32(), 566_562_500);
}

#[test]
fn linux_saturation_and_overflow_cap() {
    let mut q = build(r#"{"type":"dualpi2"}"#);
    q.prob = MAX_PROB - 10;
    q.enqueue(0, pkt(1, Ecn::NotEct), &mut Vec::new());
    q.update(NS_PER_SEC);
    assert_eq!(q.prob_u32(), MAX_PROB);
    // Without drop on overload, p′ is capped at MAX/k so that k·p′ ≤ 100 %.
    let mut q = build(r#"{"type":"dualpi2","drop_overload":false}"#);
    q.enqueue(0, pkt(1, Ecn::NotEct), &mut Vec::new());
    q.prob = MAX_PROB - 10;
    q.update(NS_PER_SEC);
    assert_eq!(q.prob_u32(), MAX_PROB / 2);
}

/// The kernel's s64 delta wraps (-fno-strict-overflow); the fuzzer found the product
/// overflowing, a panic in a build with overflow checks (fuzz/regressions/dualpi2 replays it).
/// By hand, for a head 2⁶⁰ ns old (last delay 0, target 15 ms): 44·(2⁶⁰ − 15e6) + 879·2⁶⁰
/// = 923·2⁶⁰ − 660e6, and 923·2⁶⁰ wraps to (923 − 928)·2⁶⁰ = −5·2⁶⁰ in 64 bits: a negative
/// delta, from p = 0 floored at 0 by the wrap check.
#[test]
fn linux_delta_wraps_as_the_kernels_s64() {
    let mut q = build(r#"{"type":"dualpi2"}"#);
    q.enqueue(0, pkt(1, Ecn::NotEct), &mut Vec::new());
    q.update(1 << 60);
    assert_eq!(q.prob_u32(), 0);
}

#[test]
fn classification_by_ecn_codepoint_and_dscp() {
    let mut q = build(r#"{"type":"dualpi2","l_dscp":[46]}"#);
    let mut out = Vec::new();
    for (id, ecn) in [(1, Ecn::NotEct), (2, Ecn::Ect0), (3, Ecn::Ect1), (4, Ecn::Ce)] {
        q.enqueue(0, pkt(id, ecn), &mut out);
    }
    q.enqueue(0, Pkt { dscp: 46, ..pkt(5, Ecn::NotEct) }, &mut out);
    assert_eq!((q.l.backlog().packets, q.c.backlog().packets), (3, 2));
    let mut any = build(r#"{"type":"dualpi2","classifier":"any_ect"}"#);
    any.enqueue(0, pkt(1, Ecn::Ect0), &mut out);
    any.enqueue(0, pkt(2, Ecn::NotEct), &mut out);
    assert_eq!((any.l.backlog().packets, any.c.backlog().packets), (1, 1));
    // The shared limit counts both queues.
    let mut small = build(r#"{"type":"dualpi2","limit":{"packets":2}}"#);
    assert!(small.enqueue(0, pkt(1, Ecn::Ect1), &mut out) && small.enqueue(0, pkt(2, Ecn::NotEct), &mut out));
    assert!(!small.enqueue(0, pkt(3, Ecn::Ect1), &mut out));
    assert_eq!(out.last().unwrap().kind, ActionKind::Drop(DropReason::Overflow));
}

#[test]
fn wrr_serves_nine_l_packets_per_c_packet() {
    // Credit −120 000; each L packet with C waiting adds 10·1500, each C packet with L waiting
    // takes 90·1500. L is served while credit ≤ 0: 9 L (−120 000 → +15 000), then 1 C
    // (→ −120 000), and again. With p′ = 0 nothing is dropped or marked.
    let mut q = build(r#"{"type":"dualpi2","step_thresh":10000000}"#);
    let mut out = Vec::new();
    for i in 0..40 {
        q.enqueue(0, pkt(i, Ecn::Ect1), &mut out);
        q.enqueue(0, pkt(100 + i, Ecn::NotEct), &mut out);
    }
    let order: String = (0..20).map(|_| if q.dequeue(0, &mut out).unwrap().id < 100 { 'L' } else { 'C' }).collect();
    assert_eq!(order, "LLLLLLLLLCLLLLLLLLLC");
    assert!(out.is_empty());
    // An empty qdisc resets the credit.
    let mut q = build(r#"{"type":"dualpi2"}"#);
    q.enqueue(0, pkt(1, Ecn::Ect1), &mut out);
    q.enqueue(0, pkt(2, Ecn::NotEct), &mut out);
    q.dequeue(0, &mut out);
    assert_eq!(q.credit, -120_000 + 15_000);
    q.dequeue(0, &mut out);
    assert_eq!(q.credit, -120_000 + 15_000, "C alone: no change");
    assert!(q.dequeue(0, &mut out).is_none());
    assert_eq!(q.credit, -120_000);
}

#[test]
fn time_shifted_fifo_serves_the_older_head_after_the_shift() {
    let mut q = build(r#"{"type":"dualpi2","scheduler":"time_shifted","tshift":5000000}"#);
    let mut out = Vec::new();
    q.enqueue(0, pkt(1, Ecn::NotEct), &mut out);
    q.enqueue(4 * NS_PER_MS, pkt(2, Ecn::Ect1), &mut out); // 4 ms younger, within the 5 ms shift
    q.enqueue(4 * NS_PER_MS, pkt(3, Ecn::NotEct), &mut out);
    q.enqueue(10 * NS_PER_MS, pkt(4, Ecn::Ect1), &mut out); // 6 ms younger than C's head (4 ms)
    let order: Vec<u32> = (0..4).map(|_| q.dequeue(10 * NS_PER_MS, &mut out).unwrap().id).collect();
    // L(4 ms) vs C(0): 4 ≤ 0 + 5 → L; L(10) vs C(0): 10 > 5 → C; L(10) vs C(4): 10 ≤ 9? no → C; L.
    assert_eq!(order, vec![2, 1, 3, 4]);
}

#[test]
fn linux_step_marks_above_the_threshold_and_drops_not_ect() {
    let mut q = build(r#"{"type":"dualpi2","l_dscp":[46]}"#);
    let mut out = Vec::new();
    q.enqueue(0, pkt(1, Ecn::Ect1), &mut out);
    q.enqueue(0, pkt(2, Ecn::Ect1), &mut out);
    q.enqueue(0, Pkt { dscp: 46, ..pkt(3, Ecn::NotEct) }, &mut out);
    // Sojourn exactly 1 ms: not above the step.
    assert_eq!(q.dequeue(NS_PER_MS, &mut out).unwrap().ecn, Ecn::Ect1);
    assert!(out.is_empty());
    // 1 ms + 1 ns: marked.
    assert_eq!(q.dequeue(NS_PER_MS + 1, &mut out).unwrap().ecn, Ecn::Ce);
    // A not-ECT packet in the L queue over the step is dropped (do_step_aqm), and the dequeue
    // moves on (here to nothing).
    assert!(q.dequeue(NS_PER_MS + 1, &mut out).is_none());
    let kinds: Vec<_> = out.iter().map(|a| (a.pkt.id, a.kind)).collect();
    assert_eq!(kinds, vec![(2, ActionKind::Mark), (3, ActionKind::Drop(DropReason::Dequeue))]);
    // min_qlen_step 2: a packet that found fewer than 2 L packets queued is never step-marked.
    let mut q = build(r#"{"type":"dualpi2","min_qlen_step":2}"#);
    out.clear();
    for i in 0..3 {
        q.enqueue(0, pkt(i, Ecn::Ect1), &mut out);
    }
    let ecn: Vec<_> = (0..3).map(|_| q.dequeue(5 * NS_PER_MS, &mut out).unwrap().ecn).collect();
    assert_eq!(ecn, vec![Ecn::Ect1, Ecn::Ect1, Ecn::Ce]);
}

/// Mark and drop frequencies over `n` packets judged at dequeue, the backlog topped up to 50
/// packets of one codepoint before every dequeue (so that even a run of drops stays above the
/// 2-MTU floor).
fn coupled_rates(q: &mut DualPi2, ecn: Ecn, n: u32) -> (f64, f64) {
    let mut out = Vec::new();
    let (mut judged, mut marks, mut drops, mut id) = (0u32, 0u32, 0u32, 0u32);
    while judged < n {
        while q.backlog().packets < 50 {
            q.enqueue(0, pkt(id, ecn), &mut out);
            id += 1;
        }
        out.clear();
        let sent = q.dequeue(0, &mut out).is_some() as u32;
        let d = out.iter().filter(|a| matches!(a.kind, ActionKind::Drop(_))).count() as u32;
        marks += out.iter().filter(|a| a.kind == ActionKind::Mark).count() as u32;
        drops += d;
        judged += sent + d;
    }
    (marks as f64 / judged as f64, drops as f64 / judged as f64)
}

#[test]
fn coupled_probabilities_are_p_squared_and_k_p() {
    // p′ = 0.2 (in u32): C marks ECT(0) with p′² = 0.04, drops not-ECT with 0.04; L marks with
    // k·p′ = 0.4. 200 000 draws: binomial sd ≤ 1.1e-3; bands of 5 sd.
    let n = 200_000;
    let p = (0.2 * MAX_PROB as f64) as u32;
    for (ecn, want_mark, want_drop) in [(Ecn::Ect0, 0.04, 0.0), (Ecn::NotEct, 0.0, 0.04), (Ecn::Ect1, 0.4, 0.0)] {
        let mut q = build(r#"{"type":"dualpi2","step_thresh":10000000}"#);
        q.prob = p;
        let (m, d) = coupled_rates(&mut q, ecn, n);
        assert!((m - want_mark).abs() < 5.5e-3 && (d - want_drop).abs() < 2.2e-3, "{ecn:?}: {m} {d}");
    }
    // Overload (k·p′ > 1, p′ = 0.6): L packets meet the classic drop p′² = 0.36 and the rest are
    // marked; C ECT(0) packets are dropped, not marked.
    let p = (0.6 * MAX_PROB as f64) as u32;
    let mut q = build(r#"{"type":"dualpi2","step_thresh":10000000}"#);
    q.prob = p;
    let (m, d) = coupled_rates(&mut q, Ecn::Ect1, n);
    assert!((d - 0.36).abs() < 6e-3 && (m + d - 1.0).abs() < 1e-12, "{m} {d}");
    let mut q = build(r#"{"type":"dualpi2","step_thresh":10000000}"#);
    q.prob = p;
    let (m, d) = coupled_rates(&mut q, Ecn::Ect0, n);
    assert!(m == 0.0 && (d - 0.36).abs() < 6e-3, "{m} {d}");
    // Overload without drop_overload: every L packet marked, none dropped.
    let mut q = build(r#"{"type":"dualpi2","step_thresh":10000000,"drop_overload":false}"#);
    q.prob = p;
    assert_eq!(coupled_rates(&mut q, Ecn::Ect1, 1000), (1.0, 0.0));
}

#[test]
fn no_coupled_signal_below_two_mtu() {
    // p′ = 100 %: with the rest of the qdisc under 2·1500 B after the dequeue, nothing happens.
    let mut q = build(r#"{"type":"dualpi2"}"#);
    q.prob = MAX_PROB;
    let mut out = Vec::new();
    q.enqueue(0, pkt(1, Ecn::NotEct), &mut out);
    q.enqueue(0, pkt(2, Ecn::NotEct), &mut out);
    q.enqueue(0, pkt(3, Ecn::NotEct), &mut out);
    // Packet 1 leaves 3000 B behind (not below 2 MTU): dropped; the dequeue retries, and
    // packet 2 leaves 1500 B: it passes.
    let p = q.dequeue(0, &mut out).unwrap();
    assert_eq!(p.id, 2);
    assert_eq!(out.iter().map(|a| (a.pkt.id, a.kind)).collect::<Vec<_>>(), vec![(1, ActionKind::Drop(DropReason::Dequeue))]);
    // The bound is twice the MTU, not an MTU and a little: of three 1000-B packets the first
    // leaves 2000 B, under 3000 B, and passes.
    let mut q = build(r#"{"type":"dualpi2"}"#);
    q.prob = MAX_PROB;
    out.clear();
    for id in 1..=3 {
        q.enqueue(0, Pkt::new(id, 1000, 0), &mut out);
    }
    assert_eq!(q.dequeue(0, &mut out).map(|p| p.id), Some(1));
    assert!(out.is_empty());
}

#[test]
fn rfc_controller_by_hand() {
    let mut q = build(r#"{"type":"dualpi2","profile":"rfc"}"#);
    assert_eq!((q.alpha, q.beta, q.tupdate), (0.15, 3.0, 15 * NS_PER_MS));
    // C head 25 ms old: p′ = 0.15·(0.025 − 0.015) + 3·(0.025 − 0) = 0.0015 + 0.075.
    q.enqueue(0, pkt(1, Ecn::NotEct), &mut Vec::new());
    q.update(25 * NS_PER_MS);
    assert!((q.p_prime() - 0.0765).abs() < 1e-15);
    // Only the C queue counts in the rfc profile: an old L head alone is an empty C (curq 0):
    // p′ += 0.15·(−0.015) + 3·(−0.025).
    let mut out = Vec::new();
    q.dequeue(25 * NS_PER_MS, &mut out);
    q.enqueue(25 * NS_PER_MS, pkt(2, Ecn::Ect1), &mut out);
    q.update(125 * NS_PER_MS);
    assert_eq!(q.p_prime(), 0.0);
    // Clamped at √p_Cmax = 1/k = 0.5: p_CL = 1.
    q.update(5 * NS_PER_SEC);
    q.enqueue(5 * NS_PER_SEC, pkt(3, Ecn::NotEct), &mut out);
    q.update(10 * NS_PER_SEC);
    assert_eq!((q.p_prime(), q.p_cl()), (0.5, 1.0));
}

#[test]
fn rfc_ramp_and_recur_by_hand() {
    let q = build(r#"{"type":"dualpi2","profile":"rfc"}"#);
    // laqm: 0 up to 800 µs, (q − 800 µs)/400 µs on the ramp, 1 from 1.2 ms.
    assert_eq!((q.native(800 * NS_PER_US), q.native(1000 * NS_PER_US), q.native(1200 * NS_PER_US)), (0.0, 0.5, 1.0));
    // recur with p_L = 0.25 (p_CL 0, sojourn 900 µs on the ramp): counts 0.25, 0.5, 0.75, 1.0
    // (not > 1), 1.25 → mark (0.25 left), then every 4th: marks at packets 5, 9, 13.
    let mut q = build(r#"{"type":"dualpi2","profile":"rfc","min_qlen_step":0}"#);
    let mut out = Vec::new();
    let mut marked = Vec::new();
    for i in 1..=13u32 {
        q.enqueue(0, pkt(i, Ecn::Ect1), &mut out);
        if q.dequeue(900 * NS_PER_US, &mut out).unwrap().ecn == Ecn::Ce {
            marked.push(i);
        }
    }
    assert_eq!(marked, vec![5, 9, 13]);
    // Th_len = 1: a packet that found the L queue empty is not ramp-marked, whatever its sojourn.
    let mut q = build(r#"{"type":"dualpi2","profile":"rfc"}"#);
    for i in 0..5 {
        q.enqueue(0, pkt(i, Ecn::Ect1), &mut out);
        assert_eq!(q.dequeue(5 * NS_PER_MS, &mut out).unwrap().ecn, Ecn::Ect1);
    }
}

#[test]
fn the_linux_ranges_include_their_ends() {
    // k = 1 is a coupling sch_dualpi2 takes (a u8 from 1), and 4.294967295 s the longest time
    // its u32 nanoseconds hold; one nanosecond more is refused (bad_parameters_are_named).
    let q = build(r#"{"type":"dualpi2","coupling":1,"tupdate":4294967295}"#);
    assert_eq!((q.k, q.tupdate), (1.0, 4_294_967_295));
    let c: QdiscConfig = serde_json::from_str(r#"{"type":"dualpi2","tupdate":4294967296}"#).unwrap();
    assert!(c.resolve().is_err());
}

#[test]
fn overload_is_strictly_above_certainty() {
    // sch_dualpi2: `overload = k·p > MAX_PROB`. With k = 1 and p = MAX_PROB the L queue's
    // probability is exactly 1, not over it: an ECT(1) packet is marked, as always at p = 1,
    // where overload (drop_overload on) would drop it.
    let mut q = build(r#"{"type":"dualpi2","coupling":1}"#);
    q.prob = MAX_PROB;
    let mut out = Vec::new();
    for id in 1..=3 {
        q.enqueue(0, pkt(id, Ecn::Ect1), &mut out);
    }
    assert_eq!(q.dequeue(0, &mut out).map(|p| p.id), Some(1));
    assert_eq!(out.iter().map(|a| (a.pkt.id, a.kind)).collect::<Vec<_>>(), vec![(1, ActionKind::Mark)]);
    // A Not-ECT packet the DSCP puts in the L queue cannot be marked: the same signal drops it
    // (sch_dualpi2 must_drop), and the dequeue goes on to the next.
    let mut q = build(r#"{"type":"dualpi2","coupling":1,"l_dscp":[46]}"#);
    q.prob = MAX_PROB;
    out.clear();
    for id in 1..=3 {
        q.enqueue(0, Pkt { dscp: 46, ..pkt(id, Ecn::NotEct) }, &mut out);
    }
    assert_eq!(q.l.backlog().packets, 3);
    assert_eq!(q.dequeue(0, &mut out).map(|p| p.id), Some(2));
    assert_eq!(out.iter().map(|a| (a.pkt.id, a.kind)).collect::<Vec<_>>(), vec![(1, ActionKind::Drop(DropReason::Dequeue))]);
}

#[test]
fn rfc_judgements_follow_appendix_a() {
    // RFC 9332 Appendix A (dualpi2_dequeue): a C packet is dropped (Not-ECT) or marked with
    // p_C = p'^2; an L packet is marked with max(native ramp, p_CL = k p'), through the recur
    // counter, which makes that exact; when p_CL reaches 1 and drop on overload is on, an L
    // packet is first dropped with p_C. The bands on the random ones are over 5 binomial
    // standard deviations of 4,000 draws (about 0.007).
    let n = 4_000;
    let share = |q: &mut DualPi2, pkt: &Pkt, in_l: bool, kind: Verdict| {
        (0..n).filter(|_| q.judge(0, pkt, in_l, true) == kind).count() as f64 / n as f64
    };
    let mut q = build(r#"{"type":"dualpi2","profile":"rfc"}"#);
    q.p_prime = 0.5;
    assert!((share(&mut q, &pkt(1, Ecn::NotEct), false, Verdict::Drop) - 0.25).abs() < 0.035);
    assert!((share(&mut q, &pkt(1, Ecn::Ect0), false, Verdict::Mark) - 0.25).abs() < 0.035);
    assert_eq!(share(&mut q, &pkt(1, Ecn::Ect0), false, Verdict::Drop), 0.0);
    // L: p' = 0.25, k = 2: p_CL = 0.5. The counter must pass 1 (`count > 1`), so from 0 the
    // third packet is the first marked, then every second: 1,999 of 4,000. Not-ECT (here put in
    // L by its DSCP) is dropped instead; no overload drop below p_CL = 1.
    q.p_prime = 0.25;
    q.l_count = 0.0;
    assert_eq!(share(&mut q, &pkt(1, Ecn::Ect1), true, Verdict::Mark), 1_999.0 / 4_000.0);
    q.l_count = 0.0;
    assert_eq!(share(&mut q, &Pkt { dscp: 46, ..pkt(1, Ecn::NotEct) }, true, Verdict::Drop), 1_999.0 / 4_000.0);
    // p' = 0.6: p_CL = 1.2 >= 1, p_C = 0.36 of overload drops; the rest marked (recur at 1).
    q.p_prime = 0.6;
    assert!((share(&mut q, &pkt(1, Ecn::Ect1), true, Verdict::Drop) - 0.36).abs() < 0.035);
    let mut no_drop = build(r#"{"type":"dualpi2","profile":"rfc","drop_overload":false}"#);
    no_drop.p_prime = 0.6;
    assert_eq!(share(&mut no_drop, &pkt(1, Ecn::Ect1), true, Verdict::Drop), 0.0);
    // The native ramp: 0 up to step_thresh (800 us), 1 from step_thresh + ramp_range (1.2 ms),
    // linear between; the sojourn is the dequeue time less the enqueue time.
    assert_eq!((q.native(800 * NS_PER_US), q.native(1_000 * NS_PER_US), q.native(1_200 * NS_PER_US)), (0.0, 0.5, 1.0));
    assert_eq!(q.native(2 * NS_PER_MS), 1.0);
    q.p_prime = 0.0;
    let late = Pkt { enqueued_at: 10 * NS_PER_MS, ..pkt(1, Ecn::Ect1) };
    assert_eq!(q.judge(10 * NS_PER_MS + 500 * NS_PER_US, &late, true, true), Verdict::Accept);
}

#[test]
fn linux_steps_under_one_unit_leave_p_alone() {
    // sch_dualpi2 adds delta >> 6 with wrap-around tests `new < p` / `new > p`: a delta of
    // ±44 (one nanosecond of error at alpha 44, no trend) shifts to 0, so p stays put; it is
    // neither saturated to 1 nor floored to 0, which `<=` / `>=` would do.
    let mut q = build(r#"{"type":"dualpi2"}"#);
    for qdelay in [q.target + 1, q.target - 1] {
        (q.prob, q.last_qdelay) = (1_000_000, qdelay);
        q.update_linux(qdelay);
        assert_eq!(q.prob, 1_000_000, "qdelay {qdelay}");
    }
}

#[test]
fn drop_early_marks_on_arrival() {
    // sch_dualpi2 with drop_early: must_drop runs at enqueue. At p = 1, with two MTUs queued
    // ahead, an ECT(1) arrival is marked CE there and queued; a Not-ECT one is dropped.
    let mut q = build(r#"{"type":"dualpi2","drop_early":true,"coupling":1}"#);
    q.prob = MAX_PROB;
    let mut out = Vec::new();
    for id in 1..=2 {
        assert!(q.enqueue(0, pkt(id, Ecn::Ect1), &mut out));
    }
    out.clear();
    assert!(q.enqueue(0, pkt(3, Ecn::Ect1), &mut out));
    assert_eq!(out.iter().map(|a| (a.pkt.id, a.kind, a.pkt.ecn)).collect::<Vec<_>>(), vec![(3, ActionKind::Mark, Ecn::Ce)]);
    out.clear();
    assert!(!q.enqueue(0, pkt(4, Ecn::NotEct), &mut out));
    assert_eq!(out.iter().map(|a| (a.pkt.id, a.kind)).collect::<Vec<_>>(), vec![(4, ActionKind::Drop(DropReason::Early))]);
}

#[test]
fn bad_parameters_are_named() {
    let bad = [
        (r#"{"type":"dualpi2","coupling":0}"#, "coupling: 0 is outside the accepted range (0, 255]"),
        (r#"{"type":"dualpi2","coupling":1.5}"#, "coupling: 1.5 is not a whole number in [1, 255] (sch_dualpi2 keeps k in a u8)"),
        (r#"{"type":"dualpi2","profile":"rfc","target":1000000}"#, "step_thresh: the L queue's marking threshold 800us (+ ramp_range 400us) must be below the classic target 1ms"),
        (r#"{"type":"dualpi2","alpha":0.001}"#, "alpha: 0.001 Hz is outside the linux profile's range [1/256 Hz, 8388607 Hz] (sch_dualpi2 takes whole 1/256 Hz)"),
        // tc sends (uint32_t)(0.003f · 256) = (uint32_t)0.768 = 0, which sch_dualpi2's policy refuses.
        (r#"{"type":"dualpi2","alpha":0.003}"#, "alpha: 0.003 Hz is outside the linux profile's range [1/256 Hz, 8388607 Hz] (sch_dualpi2 takes whole 1/256 Hz)"),
        // sch_dualpi2 holds both times in u32 ns; `convert_us_to_nsec` would cap 5 s at 4.294967295 s.
        (r#"{"type":"dualpi2","tupdate":5000000000}"#, "tupdate: 5s is outside the linux profile's range (at most 4.294967295s: sch_dualpi2 keeps it in u32 nanoseconds)"),
        (r#"{"type":"dualpi2","target":10000000000,"step_thresh":5000000000}"#, "step_thresh: 5s is outside the linux profile's range (at most 4.294967295s: sch_dualpi2 keeps it in u32 nanoseconds)"),
        (r#"{"type":"dualpi2","ramp_range":400000}"#, "ramp_range: 400us is a ramp, and the linux profile marks on a step (sch_dualpi2 has no ramp): give 0s, or the rfc profile"),
        (r#"{"type":"dualpi2","c_protection":101}"#, "c_protection: 101 % is outside the accepted range [0 %, 100 %]"),
        (r#"{"type":"dualpi2","tshift":20000000}"#, "tshift: applies only with scheduler = \"time_shifted\" (the WRR serves by c_protection)"),
        (r#"{"type":"dualpi2","scheduler":"time_shifted","c_protection":20}"#, "c_protection: applies only with scheduler = \"wrr\" (the time-shifted FIFO serves by tshift)"),
        (r#"{"type":"dualpi2","profile":"rfc","drop_early":true}"#, "drop_early: the rfc profile decides at dequeue (Appendix A); drop_early is a linux option"),
    ];
    for (json, err) in bad {
        let c: QdiscConfig = serde_json::from_str(json).unwrap();
        assert_eq!(c.validate(), Err(err.into()), "{json}");
    }
    let unknown = serde_json::from_str::<QdiscConfig>(r#"{"type":"dualpi2","classifier":"dscp"}"#).unwrap_err().to_string();
    assert!(unknown.starts_with("unknown variant `dscp`, expected `l4s_ect` or `any_ect`"), "{unknown}");
    // A scheduler's parameter at its default is accepted with the other scheduler: a resolved
    // record (a saved scenario) holds every field.
    let ok = |json: &str| serde_json::from_str::<QdiscConfig>(json).unwrap().validate();
    assert_eq!(ok(r#"{"type":"dualpi2","tshift":30000000}"#), Ok(()));
    assert_eq!(ok(r#"{"type":"dualpi2","scheduler":"time_shifted","c_protection":10}"#), Ok(()));
    // The rfc profile takes a fractional k.
    assert!(DualPi2Config { profile: Some(DualPi2Profile::Rfc), coupling: Some(1.5), ..Default::default() }.resolve().is_ok());
}

/// Oracle for the next two: net/sched/sch_dualpi2.c (Linux 6.17) and iproute2's tc/q_dualpi2.c,
/// worked by hand (an independent audit of this module against them, 2026-11-29).
///
/// `dualpi2_policy` gives the target no range and `dualpi2_change` stores it and the step
/// threshold without relating them, so tc accepts `target 1ms` with the default 1 ms step, and
/// its own auto-configuration for `max_rtt 5ms`: typical_rtt = 5000/6 = 833 µs, target = 833 µs,
/// tupdate = min(833 µs, 5000/3 µs) = 833 µs, a target below the step.
#[test]
fn linux_takes_a_target_at_or_below_the_step_threshold_as_the_kernel_does() {
    let ok = |json: &str| serde_json::from_str::<QdiscConfig>(json).unwrap().validate();
    assert_eq!(ok(r#"{"type":"dualpi2","target":1000000}"#), Ok(()));
    assert_eq!(ok(r#"{"type":"dualpi2","target":833000,"tupdate":833000}"#), Ok(()));
}

/// tc's `parse_alpha_beta` sends (uint32_t)(f · 256) of a C float, a truncation: alpha 0.1 →
/// 0.1f · 256 = 25.6000004 → 25, beta 0.3 → 76.8000031 → 76. `dualpi2_scale_alpha_beta`:
/// 25·(2³²−1) = 107 374 182 375, >> 2 = 26 843 545 593, / 1e9 = 26; 76·(2³²−1) =
/// 326 417 514 420, >> 2 = 81 604 378 605, / 1e9 = 81. (Rounding gave 26 and 77, scaled 27
/// and 82.)
#[test]
fn linux_gains_are_truncated_to_whole_1_256_hz_as_tc_sends_them() {
    let q = build(r#"{"type":"dualpi2","alpha":0.1,"beta":0.3}"#);
    assert_eq!((q.alpha_fp, q.beta_fp), (26, 81));
}

#[test]
fn the_controller_runs_every_tupdate() {
    // sch_dualpi2 arms its timer tupdate after creation and re-arms it tupdate after each run
    // (16 ms by default in Linux, 15 ms in RFC 9332's Appendix A); an update at an odd time
    // re-arms from that time.
    for (profile, tupdate) in [("linux", 16_000_000), ("rfc", 15_000_000)] {
        let mut q = build(&format!(r#"{{"type":"dualpi2","profile":"{profile}"}}"#));
        assert_eq!(q.next_update_at(), Some(tupdate), "{profile}");
        q.update(tupdate + 3);
        assert_eq!(q.next_update_at(), Some(2 * tupdate + 3), "{profile}");
    }
}

#[test]
fn probes_give_the_last_sojourns_and_the_coupled_probabilities() {
    // The sojourn of each queue's last packet (dequeue time less enqueue time), and from p′ the
    // classic probability p′² and the coupled L probability k·p′ (RFC 9332 §2.4, k = 2).
    let mut q = build(r#"{"type":"dualpi2","step_thresh":10000000}"#);
    let mut out = Vec::new();
    q.enqueue(1_000_000, pkt(1, Ecn::Ect1), &mut out);
    q.enqueue(2_000_000, pkt(2, Ecn::NotEct), &mut out);
    q.prob = (0.3 * MAX_PROB as f64) as u32;
    while q.dequeue(7_000_000, &mut out).is_some() {}
    let at = |name| crate::testkit::probe(&q, name);
    assert!((at("qdelay_l_s") - 0.006).abs() < 1e-12 && (at("qdelay_c_s") - 0.005).abs() < 1e-12);
    assert!((at("p_prime") - 0.3).abs() < 1e-9);
    assert!((at("p_c") - 0.09).abs() < 1e-9 && (at("p_cl") - 0.6).abs() < 1e-9);
}

#[test]
fn a_not_ect_packet_in_l_asked_to_be_marked_in_overload_passes_unmarked() {
    // In overload without drop_overload every L packet is to be marked (sch_dualpi2 must_drop,
    // at dequeue or, with drop_early, at arrival), but a Not-ECT packet put in L by its DSCP
    // cannot carry CE: INET_ECN_set_ce fails on it and the kernel sends it on as it came,
    // neither dropped nor marked; ECT(1) packets in the same state are marked. p′ = 0.6, k = 2:
    // 1.2 > 1; ten packets keep the backlog over 2 MTU.
    for drop_early in [false, true] {
        for ecn in [Ecn::NotEct, Ecn::Ect1] {
            let mut q = build(&format!(
                r#"{{"type":"dualpi2","l_dscp":[46],"drop_overload":false,"drop_early":{drop_early},"step_thresh":10000000}}"#
            ));
            q.prob = (0.6 * MAX_PROB as f64) as u32;
            let mut out = Vec::new();
            for id in 0..10 {
                assert!(q.enqueue(0, Pkt { dscp: 46, ..pkt(id, ecn) }, &mut out));
            }
            assert_eq!(q.l.backlog().packets, 10);
            let sent = q.dequeue(0, &mut out).unwrap();
            let marks = out.iter().filter(|a| a.kind == ActionKind::Mark).count();
            if ecn == Ecn::NotEct {
                assert_eq!((sent.ecn, out.len()), (Ecn::NotEct, 0), "drop_early {drop_early}");
            } else {
                assert!(marks > 0 && out.len() == marks, "drop_early {drop_early}: {out:?}");
            }
        }
    }
}
