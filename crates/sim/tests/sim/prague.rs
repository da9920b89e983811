//! TCP Prague against the theory of scalable congestion control, with DCTCP and Reno as the
//! null controls that each claim must fail on.
//!
//! The fluid balance (see `tcp::prague::ai_scale`): a flow that adds `a` segments per round
//! trip and gives back W·α/2 once per round trip, α ≈ p the marked fraction, holds W = 2a/p,
//! a rate 2a/(p·R). Reno under the same marks holds √(3/(2p)) (the square-root law). Prague's
//! a = R/V with V = max(R, 25 ms) makes its rate 2/(p·V) for every R below 25 ms.

use aqm::time::{NS_PER_MS, NS_PER_SEC};
use aqm::QueueLimit;
use sim::bench::tcp_dumbbell;
use sim::config::{Dist, ImpairConfig, LossModel, TcpConfig, Transport};
use sim::tcp::params::{DctcpVariant, Ect, EcnMode};
use crate::common::simulation;

const MS: u64 = NS_PER_MS;
const S: u64 = NS_PER_SEC;
/// Packets of 1500 bytes, headers included: tcp_prague v0.7 adds MTU_SYS = 1500 bytes per
/// round trip (`increase * MTU_SYS / tcp_mss_to_mtu`), so a = 1 segment as in the theory.
const PACKET: u32 = 1500;

fn tcp(cc: &str) -> TcpConfig {
    let linux = TcpConfig::profile("linux").unwrap();
    match cc {
        "prague" => TcpConfig { cc: cc.into(), ecn: EcnMode::Dctcp, ect: Ect::Ect1, hystart: false, ..linux },
        // RFC 8257's arithmetic: under sparse random marks Linux's integer α collapses (see
        // sim::tcp::cc::DctcpVariant::Linux and docs/tcp.md), so its rate is not the 1/R law
        // the null control below relies on.
        "dctcp" => TcpConfig { cc: cc.into(), ecn: EcnMode::Dctcp, hystart: false, dctcp: DctcpVariant::Rfc, ..linux },
        _ => TcpConfig { cc: cc.into(), ecn: EcnMode::Classic, hystart: false, ..linux },
    }
}

/// One flow of [`PACKET`]-byte packets over an uncongested 1 Gb/s path of round trip `rtt`
/// whose bottleneck CE-marks packets by `marks`; returns (data packets per second after warm-up, mean of cwnd and its
/// range max − min over the last half of the run).
fn marked_path(t: TcpConfig, marks: LossModel, rtt: u64, secs: u64, seed: u64) -> (f64, f64, f64) {
    let mut c = tcp_dumbbell(1, 1_000_000_000, rtt, QueueLimit::Packets(100_000), secs * S);
    for g in &mut c.flows {
        g.transport = Transport::Tcp(t.clone());
        g.packet_size = PACKET;
    }
    c.seed = seed;
    c.flows[0].start_ns = Dist::Fixed(0);
    // A scalable flow converges at one segment per round trip: half the run is warm-up.
    c.warmup_ns = secs * S / 2;
    c.bottleneck.impairment = Some(ImpairConfig { loss: marks, mark_instead: true, outages: vec![] });
    c.traces.tcp = true;
    c.traces.interval_ns = 10 * MS;
    let mut sim = simulation(c).unwrap();
    sim.run();
    let s = sim.summary();
    let w = &sim.traces.tcp_cwnd[sim.traces.tcp_cwnd.len() / 2..];
    let mean = w.iter().sum::<f64>() / w.len() as f64;
    let range = w.iter().cloned().fold(f64::MIN, f64::max) - w.iter().cloned().fold(f64::MAX, f64::min);
    assert_eq!(s.dropped, 0, "marks only, never drops");
    (s.flows[0].throughput_bps / (8.0 * PACKET as f64), mean, range)
}

fn bernoulli(p: f64) -> LossModel {
    LossModel::Bernoulli { p }
}

/// The mean over three seeds.
fn mean3(f: impl Fn(u64) -> (f64, f64, f64)) -> (f64, f64, f64) {
    let r: Vec<_> = (1..=3).map(f).collect();
    let m = |i: usize| r.iter().map(|x| [x.0, x.1, x.2][i]).sum::<f64>() / 3.0;
    (m(0), m(1), m(2))
}

#[test]
fn a_scalable_rate_goes_as_one_over_p() {
    // p four times larger: a scalable flow's rate falls 4× (1/p), Reno's 2× (1/√p). Band
    // ±20 % on the ratio, for the α EWMA's noise and the rounds without a mark (e^−2 of them
    // at W·p = 2); it separates 4 from 2. At R = 50 ms (above V, so a = 1): W = 2/p = 400 and
    // 100 segments; the mean window within a factor [0.7, 1.5] of it (same reasons).
    let rtt = 50 * MS;
    let (lo, hi) = (0.005, 0.02);
    let (r_lo, w_lo, _) = mean3(|s| marked_path(tcp("prague"), bernoulli(lo), rtt, 60, s));
    let (r_hi, w_hi, _) = mean3(|s| marked_path(tcp("prague"), bernoulli(hi), rtt, 60, s));
    let ratio = r_lo / r_hi;
    assert!((3.2..=4.8).contains(&ratio), "Prague rate ratio {ratio} ({r_lo} / {r_hi} pkt/s)");
    for (w, p) in [(w_lo, lo), (w_hi, hi)] {
        assert!((0.7..=1.5).contains(&(w / (2.0 / p))), "Prague mean cwnd {w} vs 2/p = {}", 2.0 / p);
    }
    // Null control: Reno under the same marks.
    let (n_lo, _, _) = mean3(|s| marked_path(tcp("newreno"), bernoulli(lo), rtt, 60, s));
    let (n_hi, _, _) = mean3(|s| marked_path(tcp("newreno"), bernoulli(hi), rtt, 60, s));
    let reno_ratio = n_lo / n_hi;
    assert!(reno_ratio < 2.6, "Reno ratio {reno_ratio}: the claim above must fail for a classic flow");
}

#[test]
fn the_scalable_sawtooth_does_not_grow_with_the_window() {
    // Deterministic marks (every 1/p-th packet), so α settles at p exactly: each reduction gives
    // back W·α/2 = W·p/2 = 1 segment and a round trip adds 1, whatever W (400 or 100 here):
    // the window's range stays within a few segments (band 4: one reduction, one round of
    // growth, delayed-ACK granularity). Reno's sawtooth is W/2, which doubles when p falls 4×.
    let rtt = 50 * MS;
    let every = |p: f64| LossModel::Periodic { every: (1.0 / p).round() as u64 };
    // 120 s: from its first (α = 1) halving the flow climbs one segment per round trip to 400.
    let (_, w_lo, a_lo) = marked_path(tcp("prague"), every(0.005), rtt, 120, 1);
    let (_, w_hi, a_hi) = marked_path(tcp("prague"), every(0.02), rtt, 60, 1);
    assert!(a_lo <= 4.0 && a_hi <= 4.0, "Prague sawtooth {a_lo} at W {w_lo}, {a_hi} at W {w_hi}");
    let (_, _, reno_lo) = marked_path(tcp("newreno"), every(0.005), rtt, 120, 1);
    let (_, _, reno_hi) = marked_path(tcp("newreno"), every(0.02), rtt, 60, 1);
    assert!(reno_lo > 1.6 * reno_hi && reno_hi > 4.0, "Reno sawtooth {reno_lo} vs {reno_hi}: grows as 1/√p");
}

/// RTT-independence in tcp_prague is approximate, and this is why (found when the 20 ms flow
/// ran 25–35 % faster than the 5 ms one). Once RTT-independent a flow reduces at most once per
/// V = 25 ms (prague_enter_cwr), but every ECN echo still puts the sender in CWR for one round
/// trip (tcp_enter_cwr runs before Prague's gate). A mark that arrives after the last CWR
/// episode but before V has passed starts an episode with no reduction, which blocks the next
/// reduction for a further R. So the period between reductions is T ∈ [V + g, V + R + g], g
/// the wait for a mark once allowed (1/(p·rate)), and the rate 2T/(p·V²) (W grows R/V² per
/// second, gives back W·p/2 per period) rises with R by up to (V + R + g)/(V + g). A Monte Carlo
/// of that renewal process (marks Poisson) gives 5.6 and 6.5 thousand packets/s at 5 and 20 ms;
/// the simulator, which also has the round-trip granularity of the echoes, 5.4 and 7.2.
#[test]
fn prague_rate_depends_on_the_rtt_only_through_its_cwr_episodes_below_its_virtual_rtt() {
    // p = 2 %. Band from the mechanism above, for any g ≥ 0: the 20 ms flow's rate over the
    // 5 ms flow's lies within [(V + g)/(V + 5 ms + g), (V + 20 ms + g)/(V + g)] ⊂ [0.8, 1.8]. DCTCP's rate 2/(p·R) is 4× higher at 5 ms than at 20 ms: its ratio
    // (20 ms over 5 ms) is below 1/3 (the null control: the claim fails without Prague's
    // RTT-independence).
    let p = 0.02;
    let rate = |cc: &str, rtt: u64| mean3(|s| marked_path(tcp(cc), bernoulli(p), rtt, 60, s)).0;
    let (pr5, pr20) = (rate("prague", 5 * MS), rate("prague", 20 * MS));
    assert!((0.8..=1.8).contains(&(pr20 / pr5)), "Prague 5 ms {pr5} vs 20 ms {pr20} pkt/s");
    let (dc5, dc20) = (rate("dctcp", 5 * MS), rate("dctcp", 20 * MS));
    assert!(dc20 / dc5 < 1.0 / 3.0, "DCTCP 5 ms {dc5} vs 20 ms {dc20}: its rate goes as 1/R");
}

/// Linux's DCTCP under sparse random marks, and why the null control above takes RFC 8257's
/// arithmetic. In tcp_dctcp's integers (α in 1/1024) a window adds (marked << 6) / acknowledged,
/// which rounds to 0 unless 1/64 of it is marked: with 2 % Bernoulli marks and windows of 10²
/// segments many windows add nothing, α decays by α >> 4 until it is below 16, and there
/// min_not_zero clears it. From then on a window adds at most about 0.02 · 64 ≈ 1 and the next
/// takes all of it off, so α stays at 0 or 1/1024 and dctcp_ssthresh's (W · α) >> 11 reduces
/// nothing below W = 2048. The window grows past the path's bandwidth-delay product (1 Gb/s ·
/// 5 ms / 1500 B = 417 packets) to about 2048 segments and the link runs full (83,333 packets
/// per second). With real numbers α stays near p and the window near 2/α = 100 segments (one
/// segment of growth per round trip against W·α/2 of reduction).
#[test]
fn linux_dctcp_alpha_collapses_under_sparse_random_marks() {
    // Bands from the model above: the link full (within 2 %, the warm-up's share of rounding),
    // a window far above the 417-packet BDP (1500, three quarters of 2048); the real-number
    // window within a factor 2 of 100 (the one reduction per window, and α's spread).
    let (rate, window, _) = marked_path(TcpConfig { dctcp: DctcpVariant::Linux, ..tcp("dctcp") }, bernoulli(0.02), 5 * MS, 60, 1);
    assert!(rate > 0.98 * 1e9 / (8.0 * PACKET as f64) && window > 1500.0, "Linux DCTCP: {rate} pkt/s, mean window {window}");
    let (rate_rfc, window_rfc, _) = marked_path(tcp("dctcp"), bernoulli(0.02), 5 * MS, 60, 1);
    assert!((50.0..=200.0).contains(&window_rfc) && rate_rfc < 0.5 * rate, "RFC DCTCP: {rate_rfc} pkt/s, mean window {window_rfc}");
}
