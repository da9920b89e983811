//! TCP against theory: utilization, the square-root and PFTK response functions, CUBIC's
//! average window, ECN marks in place of drops, DCTCP, fairness, an outage and short flows.
//! Numbers quoted in the comments are the formulas evaluated for the test's parameters.

use aqm::time::{NS_PER_MS, NS_PER_SEC};
use aqm::{QdiscConfig, QueueLimit};
use sim::bench::tcp_dumbbell;
use sim::config::{App, Dist, ImpairConfig, LossModel, SimConfig, SizeDist, TcpConfig, Transport};
use sim::tcp::params::EcnMode;
use sim::Summary;

use crate::common::slow_start_completion;
use crate::common::simulation;

const MS: u64 = NS_PER_MS;
const S: u64 = NS_PER_SEC;

fn run(c: SimConfig) -> Summary {
    let mut sim = simulation(c).unwrap();
    sim.run();
    sim.summary()
}

fn with_tcp(mut c: SimConfig, t: TcpConfig) -> SimConfig {
    for g in &mut c.flows {
        g.transport = Transport::Tcp(t.clone());
    }
    c
}

fn profile(name: &str) -> TcpConfig {
    TcpConfig::profile(name).unwrap()
}

/// One flow over an uncongested 1 Gb/s path of the given RTT with a loss model in front of the
/// bottleneck queue; returns (delivered data packets per second after warm-up, summary).
fn lossy_path(t: TcpConfig, loss: LossModel, mark: bool, rtt: u64, secs: u64) -> (f64, Summary) {
    let mut c = with_tcp(tcp_dumbbell(1, 1_000_000_000, rtt, QueueLimit::Packets(100_000), secs * S), t);
    c.flows[0].start_ns = Dist::Fixed(0);
    c.warmup_ns = secs * S / 5;
    c.bottleneck.impairment = Some(ImpairConfig { loss, mark_instead: mark, outages: vec![] });
    let s = run(c);
    (s.flows[0].throughput_bps / 8000.0, s)
}

const PS: [f64; 4] = [0.001, 0.003, 0.01, 0.03];

fn periodic(p: f64) -> LossModel {
    LossModel::Periodic { every: (1.0 / p).ceil() as u64 }
}

#[test]
fn one_sack_flow_keeps_a_bdp_buffer_busy() {
    // 10 Mb/s, 100 ms: BDP = 125 packets of 1000 B; halving a window of 250 leaves the queue
    // just able to cover the pause, so the link stays busy after the first recovery.
    let mut c = tcp_dumbbell(1, 10_000_000, 100 * MS, QueueLimit::Packets(125), 110 * S);
    c.warmup_ns = 10 * S;
    let s = run(c);
    assert!(s.utilization >= 0.98, "utilization {}", s.utilization);
    assert_eq!(s.flows[0].counts.timeouts, 0);
}

/// Goodput in packets per round trip of a window-based TCP under deterministic loss, counted
/// in whole rounds, the way a real sender moves: every round trip it sends its window as one
/// burst, the window grows by `a` packets per round (1 with an ACK per segment, 1/2 with
/// delayed ACKs and no byte counting, α_cubic in CUBIC's Reno-friendly region), and a loss
/// costs a recovery round in which RFC 6675 sends only the reduced window βW (retransmission
/// included) and the window does not grow. One cycle between losses is therefore
///   growth rounds βW, βW + a, ..., W:  n = (1 − β)W/a + 1 rounds averaging (1 + β)W/2;
///   the recovery round:                 βW packets;
/// and holds the `every` packets between two drops:
///   (1 + β)(1 − β)/(2a)·W² + ((1 + β)/2 + β)·W = every,
/// of which every − 1 are delivered in n + 1 rounds. The square-root law is this cycle's
/// limit of large W, with the recovery round and the last growth round dropped: the two
/// O(1/W) terms cost about 2 % each at p = 0.001 but about 10 % each at p = 0.03 (W = 8): a
/// faithful NewReno+SACK trails √(3/2)/(RTT√p) by 15 % at p = 0.01 and 22 % at p = 0.03.
/// Worked case, Reno at p = 1/34: 3W²/8 + 5W/4 = 34 gives W = 8 exactly, six rounds,
/// 33/6 = 5.5 packets per round trip, 55.0 packets/s at 100 ms, against the law's 71.4.
fn whole_round_rate(every: u64, beta: f64, a: f64) -> f64 {
    let qa = (1.0 + beta) * (1.0 - beta) / (2.0 * a);
    let qb = (1.0 + beta) / 2.0 + beta;
    let w = (-qb + (qb * qb + 4.0 * qa * every as f64).sqrt()) / (2.0 * qa);
    let rounds = (1.0 - beta) * w / a + 2.0;
    (every - 1) as f64 / rounds
}

#[test]
fn the_whole_round_model_reproduces_the_worked_case_and_converges_to_the_law() {
    assert!((whole_round_rate(34, 0.5, 1.0) - 5.5).abs() < 1e-12);
    // Reno at p = 0.001: 3W²/8 + 5W/4 = 1000 gives W = 50 and 27 rounds.
    assert!((whole_round_rate(1000, 0.5, 1.0) - 999.0 / 27.0).abs() < 1e-12);
    // As p → 0 the cycle becomes the law's sawtooth.
    let p = 1e-7f64;
    assert!((whole_round_rate(1e7 as u64, 0.5, 1.0) / (1.5 / p).sqrt() - 1.0).abs() < 1e-3);
}

/// Whether a faithful TCP can meet a band around a continuous formula at all: where the
/// whole-round model itself falls outside the band, no sender that pays RFC 6675's recovery
/// round can be inside it, and the model is asserted instead.
fn band_is_reachable(every: u64, beta: f64, a: f64, formula_per_rtt: f64, band: f64) -> bool {
    (whole_round_rate(every, beta, a) / formula_per_rtt - 1.0).abs() < band
}

/// The same where the sender is held to the model only within `model_band`: the formula's band
/// is sure to be reachable only where the model lies within `band − model_band` of it.
fn band_is_reachable_within(every: u64, beta: f64, a: f64, formula_per_rtt: f64, band: f64, model_band: f64) -> bool {
    band_is_reachable(every, beta, a, formula_per_rtt, band - model_band)
}

#[test]
fn periodic_loss_follows_the_whole_round_model_and_the_square_root_law_where_it_applies() {
    // NewReno+SACK, ACK per segment, per-ACK growth: the law is sqrt(3/2)/(RTT·sqrt(p)).
    let mut law_checked = 0;
    for p in PS {
        let every = (1.0 / p).ceil() as u64;
        let (rate, s) = lossy_path(profile("ns2-sack"), periodic(p), false, 100 * MS, 300);
        assert_eq!(s.flows[0].counts.timeouts, 0, "p {p}");
        // ±3 %: besides what the model counts, half the cycles at p = 0.01 lose one more round
        // when the drop falls among the last two segments of its burst, so that the third
        // duplicate ACK comes from the next burst (measured: 104.2 against 105.6).
        let model = whole_round_rate(every, 0.5, 1.0) / 0.1;
        let law = (1.5 / p).sqrt() / 0.1;
        eprintln!("NewReno+SACK p {p}: {rate:.1} packets/s, whole-round {model:.1}, law {law:.1}");
        assert!((rate / model - 1.0).abs() < 0.03, "p {p}: {rate:.1} vs whole-round {model:.1} packets/s");
        if band_is_reachable(every, 0.5, 1.0, law * 0.1, 0.10) {
            assert!((rate / law - 1.0).abs() < 0.10, "p {p}: {rate:.1} vs law {law:.1} packets/s");
            law_checked += 1;
        }
    }
    assert_eq!(law_checked, 2, "the law band is asserted at p = 0.001 and 0.003");
}

/// [`whole_round_rate`] for a sender that multiplies W − `d` rather than W by β at a loss
/// (ns-3 halves its BytesInFlight, W − 2 after limited transmit). With s = β(W − d) the cycle
/// holds ((W − s)/a + 1)·(s + W)/2 + s packets in (W − s)/a + 2 rounds, a quadratic in W.
fn whole_round_rate_from(every: u64, beta: f64, a: f64, d: f64) -> f64 {
    let (ga, gb, gc, gd) = ((1.0 - beta) / a, beta * d / a + 1.0, 1.0 + beta, beta * d);
    let qa = ga * gc / 2.0;
    let qb = (gb * gc - ga * gd) / 2.0 + beta;
    let qc = -gb * gd / 2.0 - gd - every as f64;
    let w = (-qb + (qb * qb - 4.0 * qa * qc).sqrt()) / (2.0 * qa);
    (every - 1) as f64 / (((1.0 - beta) * w + beta * d) / a + 2.0)
}

#[test]
fn the_offset_model_is_the_whole_round_model_at_zero_offset() {
    for every in [34, 100, 334, 1000] {
        assert!((whole_round_rate_from(every, 0.5, 1.0, 0.0) / whole_round_rate(every, 0.5, 1.0) - 1.0).abs() < 1e-12);
    }
    // Reno with d = 2 at 100 packets per cycle, by hand: s = (W − 2)/2, (W + 2)/2 + 1 growth
    // rounds averaging (3W − 2)/4, so (3W² + 14W − 16)/8 = 100: W = (−14 + √9988)/6 = 14.32,
    // in (W + 2)/2 + 2 = 10.16 rounds, 9.74 packets per round trip.
    let w = (-14.0 + 9988f64.sqrt()) / 6.0;
    assert!((whole_round_rate_from(100, 0.5, 1.0, 2.0) - 99.0 / ((w + 2.0) / 2.0 + 2.0)).abs() < 1e-9);
}

#[test]
fn delayed_acks_without_byte_counting_follow_the_half_growth_model() {
    // ns-3's TCP: delayed ACKs every 2nd segment and growth per ACK halve the increase: the
    // whole-round model takes a = 1/2, and ns-3 halves its BytesInFlight at a loss, W − 2
    // after limited transmit sent two segments and three SACKed ones and the lost one left the
    // pipe (d = 2).
    for p in PS {
        let every = (1.0 / p).ceil() as u64;
        let (rate, s) = lossy_path(profile("ns3"), periodic(p), false, 100 * MS, 300);
        assert_eq!(s.flows[0].counts.timeouts, 0, "p {p}");
        let model = whole_round_rate_from(every, 0.5, 0.5, 2.0) / 0.1;
        eprintln!("delayed ACKs p {p}: {rate:.1} packets/s, whole-round {model:.1}");
        // A burst of odd length leaves its last segment to the 200 ms delayed-ACK timer, longer
        // than the round trip, so each round loses part of a segment the model does not count:
        // a few % of a large window, a large share of a small one. Held within 12 % where the
        // window stays above 15 segments (p ≤ 0.003; measured −3.0 % and −9.8 %), and only
        // below the model, by at most 30 %, where it falls to 5-10 (measured −16 % and −23 %).
        if p <= 0.003 {
            assert!((rate / model - 1.0).abs() < 0.12, "p {p}: {rate:.1} vs whole-round {model:.1} packets/s");
        } else {
            assert!(rate < model && rate > 0.7 * model, "p {p}: {rate:.1} vs whole-round {model:.1} packets/s");
        }
    }
}

/// RFC 9438 §5: average windows under deterministic loss, the CUBIC curve's and the
/// Reno-friendly estimate's (α_cubic makes it Reno's sqrt(3/(2p))); CUBIC runs the larger.
fn cubic_expected_window(p: f64, rtt_s: f64) -> f64 {
    let (c, b) = (0.4f64, 0.7f64);
    let cubic = (c * (3.0 + b) / (4.0 * (1.0 - b))).powf(0.25) * rtt_s.powf(0.75) / p.powf(0.75);
    let reno = (1.5 / p).sqrt();
    cubic.max(reno)
}

#[test]
fn cubic_average_window_under_periodic_loss() {
    // At 100 ms the Reno-friendly region rules for every p of the issue; its whole-round model
    // has β = 0.7 and a = α_cubic = 3(1 − β)/(1 + β). The cubic curve rules at longer RTTs and
    // lower p; there a cycle spans many round trips (K ≈ 5.5 s at 300 ms and p = 3e-4, 18
    // round trips), and the formula needs no whole-round correction.
    let (beta, alpha) = (0.7, 3.0 * 0.3 / 1.7);
    let mut band_checked = 0;
    for (p, rtt) in [(0.001f64, 100), (0.003, 100), (0.01, 100), (0.03, 100), (0.0003, 300), (0.0001, 300)] {
        let rtt_s = rtt as f64 / 1000.0;
        let every = (1.0 / p).ceil() as u64;
        let (rate, _) = lossy_path(profile("linux"), periodic(p), false, rtt * MS, 1200);
        let want = cubic_expected_window(p, rtt_s) / rtt_s;
        let reno_friendly = rtt == 100;
        eprintln!("CUBIC p {p} RTT {rtt} ms: {rate:.1} packets/s, RFC 9438 {want:.1}");
        if !reno_friendly || band_is_reachable_within(every, beta, alpha, want * rtt_s, 0.15, 0.08) {
            assert!((rate / want - 1.0).abs() < 0.15, "p {p}, RTT {rtt} ms: {rate:.1} vs {want:.1} packets/s");
            band_checked += 1;
        }
        if reno_friendly && p >= 0.01 {
            // ±8 %: near W_max the cubic curve adds a little growth the model does not count,
            // while at windows of 6-13 segments a recovery with delayed ACKs costs a little more
            // than the model's βW (measured −4.5 % at p = 0.01, −6.3 % at 0.03 with Linux's fixed
            // α_cubic; the +3.4 % measured before came from switching α to 1 at W_max, which
            // neither Linux nor RFC 9438 does).
            let model = whole_round_rate(every, beta, alpha) / rtt_s;
            eprintln!("  whole-round {model:.1}");
            assert!((rate / model - 1.0).abs() < 0.08, "p {p}: {rate:.1} vs whole-round {model:.1} packets/s");
        }
    }
    assert_eq!(band_checked, 3, "the RFC 9438 band is asserted at 100 ms for p = 0.001 and at 300 ms");
    assert!(cubic_expected_window(0.0003, 0.3) > 2.0 * (1.5f64 / 0.0003).sqrt(), "the cubic region is tested");
}

#[test]
fn bernoulli_loss_follows_pftk() {
    // Padhye et al. (SIGCOMM'98) with b = 1 and T0 the sender's RTO at the end of the run.
    for p in PS {
        let (rate, s) = lossy_path(profile("ns2-sack"), LossModel::Bernoulli { p }, false, 100 * MS, 400);
        let (r, t0, b) = (0.1, s.flows[0].rto_s.unwrap(), 1.0);
        let want = 1.0 / (r * (2.0 * b * p / 3.0).sqrt() + t0 * (3.0 * (3.0 * b * p / 8.0).sqrt()).min(1.0) * p * (1.0 + 32.0 * p * p));
        assert!((rate / want - 1.0).abs() < 0.20, "p {p}: {rate:.1} vs {want:.1} packets/s (T0 {t0})");
    }
}

#[test]
fn ce_marks_in_place_of_drops_give_the_same_law_without_loss() {
    let ecn = TcpConfig { ecn: EcnMode::Classic, ..profile("ns2-sack") };
    for p in PS {
        let (rate, s) = lossy_path(ecn.clone(), periodic(p), true, 100 * MS, 300);
        let want = (1.5 / p).sqrt() / 0.1;
        assert!((rate / want - 1.0).abs() < 0.10, "p {p}: {rate:.1} vs {want:.1} packets/s");
        let f = &s.flows[0].counts;
        assert_eq!((f.dropped, f.retransmits, s.dropped), (0, 0, 0), "p {p}");
        assert!(f.marked > 0 && f.ecn_reductions > 0);
    }
}

#[test]
fn dctcp_with_step_marking_keeps_the_queue_at_k() {
    // 100 Mb/s, 10 ms: BDP = 125 packets; K = 20 > C·RTT/7 = 17.9 (RFC 8257 §3.1 guidance).
    // Linux runs HyStart only inside tcp_cubic: its DCTCP has none.
    let dctcp = TcpConfig { cc: "dctcp".into(), ecn: EcnMode::Dctcp, hystart: false, ..profile("linux") };
    for n in [2, 10] {
        let mut c = with_tcp(tcp_dumbbell(n, 100_000_000, 10 * MS, QueueLimit::Packets(1000), 30 * S), dctcp.clone());
        c.bottleneck.queue = serde_json::from_str(r#"{"type":"step","k":20,"limit":{"packets":1000}}"#).unwrap();
        c.warmup_ns = 5 * S;
        c.traces.queue = true;
        c.traces.interval_ns = MS;
        let mut sim = simulation(c).unwrap();
        sim.run();
        let s = sim.summary();
        assert!(s.utilization >= 0.95, "{n} flows: utilization {}", s.utilization);
        assert_eq!(s.dropped, 0, "{n} flows");
        let q: Vec<f64> = sim.traces.queue_packets[5000..].iter().map(|&q| q as f64).collect();
        let mean = q.iter().sum::<f64>() / q.len() as f64;
        let crossings = q.windows(2).filter(|w| (w[0] - 20.0) * (w[1] - 20.0) < 0.0).count();
        assert!((10.0..=30.0).contains(&mean), "{n} flows: mean queue {mean}");
        assert!(crossings > 100, "{n} flows: the queue oscillates around K ({crossings} crossings)");
    }
}

#[test]
fn random_drops_share_fairly_droptail_is_reported() {
    // Ten identical flows starting 1 s apart over a 100 Mb/s path that drops 0.5 % at random:
    // each runs its own square-root rate (~170 packets/s, 14 Mb/s in all) and they share
    // equally, with equal round trips and with round trips 1 ms apart (100-109 ms, whose
    // 1/RTT rates differ by 9 % at most).
    let mut c = tcp_dumbbell(10, 100_000_000, 100 * MS, QueueLimit::Packets(10_000), 110 * S);
    c.flows[0].start_ns = Dist::Each((0..10).map(|i| i * S).collect());
    c.warmup_ns = 10 * S;
    let equal_rtts = c.flows[0].access_delay_ns.clone();
    let stepped_rtts = Dist::Each((0..10).map(|i| 25 * MS + i * MS / 2).collect());
    c.bottleneck.impairment = Some(ImpairConfig { loss: LossModel::Bernoulli { p: 0.005 }, mark_instead: false, outages: vec![] });
    let random = run(c.clone());
    c.flows[0].access_delay_ns = stepped_rtts.clone();
    let random_stepped = run(c.clone());
    assert!(random.jain_index >= 0.95, "Jain {}", random.jain_index);
    assert!(random_stepped.jain_index >= 0.95, "Jain {}", random_stepped.jain_index);
    // The same ten flows through a 10 Mb/s DropTail bottleneck with one BDP of buffer. Nothing
    // here is random, so Floyd and Jacobson's phase effects (CCR 1991) show: with equal round
    // trips the flows stay in step and share (measured 0.996), but round trips 1 ms apart put
    // them out of phase with the queue's departures, and whichever flow's packets tend to
    // arrive just after a departure finds room while the others meet a full buffer, losing
    // retransmissions to timeouts (measured 0.32: one flow takes over half the link). The
    // indices are reported; the assertion is only that the phases cost fairness.
    c.bottleneck.impairment = None;
    c.bottleneck.rate_bps = 10_000_000;
    c.bottleneck.queue = QdiscConfig::drop_tail(QueueLimit::Packets(125));
    c.flows[0].access_delay_ns = equal_rtts;
    let droptail = run(c.clone());
    c.flows[0].access_delay_ns = stepped_rtts;
    let droptail_stepped = run(c);
    eprintln!(
        "Jain index: random dropper {:.4} (RTTs 1 ms apart {:.4}), DropTail {:.4} (RTTs 1 ms apart {:.4})",
        random.jain_index, random_stepped.jain_index, droptail.jain_index, droptail_stepped.jain_index
    );
    assert!(droptail.utilization > 0.9 && droptail_stepped.utilization > 0.9);
    assert!(droptail_stepped.jain_index < random_stepped.jain_index);
}

#[test]
fn an_outage_is_recovered_by_rto_with_back_off() {
    // A 1 s outage at 10 s loses a whole window; the RTO (~0.3 s) fires into the outage and
    // backs off, then the flow slow-starts and fills the link again.
    let mut c = tcp_dumbbell(1, 10_000_000, 100 * MS, QueueLimit::Packets(125), 30 * S);
    c.flows[0].start_ns = Dist::Fixed(0);
    c.bottleneck.impairment = Some(ImpairConfig { loss: LossModel::None, mark_instead: false, outages: vec![(10 * S, 11 * S)] });
    c.traces.flow_bytes = true;
    c.traces.tcp = true;
    c.traces.interval_ns = S;
    let mut sim = simulation(c).unwrap();
    sim.run();
    let s = sim.summary();
    let f = &s.flows[0].counts;
    assert!(f.timeouts >= 2, "at least one back-off: {f:?}");
    let rates: Vec<f64> = sim.traces.flow_bytes.iter().map(|&b| b as f64 * 8.0).collect();
    assert!(rates[11] < 1e6, "nothing gets through the outage: {}", rates[11]);
    assert!(rates[16..].iter().all(|&r| r > 9.5e6), "normal growth after recovery: {rates:?}");
    // Goodput counts each payload byte once (in-order segments only), so it can never exceed
    // the payload of the packets delivered, nor what the link could carry.
    assert!(f.goodput_bytes <= f.delivered * 960, "{f:?}");
    assert!((f.goodput_bytes as f64) * 8.0 <= 10e6 * 30.0 * 0.96, "{f:?}");
    assert!(f.retransmits > 0);
}

#[test]
fn short_flows_at_low_load_complete_in_the_idle_path_time() {
    // 30-segment transfers arriving at 0.5/s on a 10 Mb/s, 100 ms path (1 % load): the median
    // completion time is the idle-path slow-start time, 4 rounds with IW 2: 415.3 ms.
    let mut c = tcp_dumbbell(1, 10_000_000, 100 * MS, QueueLimit::Packets(1000), 400 * S);
    let g = &mut c.flows[0];
    g.start_ns = Dist::Fixed(0);
    g.stop_ns = Some(400 * S);
    g.app = App::Poisson { rate_per_s: 0.5, size: SizeDist::Fixed(30 * 960) };
    let access = match g.access_delay_ns { Dist::Fixed(a) => a, _ => unreachable!() };
    let s = run(c);
    assert!(s.transfers > 150, "{} transfers", s.transfers);
    let want = slow_start_completion(30, 2, 100 * MS, access, 800_000, 32_000) as f64 * 1e-9;
    assert!((s.fct_p50_s / want - 1.0).abs() < 0.05, "median FCT {} vs {want}", s.fct_p50_s);
}

#[test]
fn http_sessions_fetch_objects_one_after_another() {
    let mut c = tcp_dumbbell(5, 10_000_000, 100 * MS, QueueLimit::Packets(200), 60 * S);
    c.flows[0].app = App::Sessions { size: SizeDist::Pareto { mean: 12_000.0, shape: 1.2 }, think_mean_ns: S };
    let s = run(c);
    // Each session alternates a transfer (~0.5 s) and a think time (1 s): ~40 per session.
    assert!(s.transfers >= 5 * 20, "{} transfers", s.transfers);
    for f in &s.flows {
        assert_eq!(f.counts.sent, f.counts.delivered + f.counts.dropped + f.in_flight);
        assert!(f.counts.transfers >= 10);
    }
}
