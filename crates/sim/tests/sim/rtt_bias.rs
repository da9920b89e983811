//! Issue 13's acceptance test: NewReno+SACK flows of mixed round trips sharing a PIE bottleneck
//! take throughput in the known RTT bias, throughput ∝ RTT^−a with a between 0.5 and 1.2 (a = 1
//! for synchronized AIMD flows with equal loss rates, Lakshman & Madhow 1997; about 0.5 to 1 as
//! the losses decorrelate and queueing delay dilutes the round-trip differences), fairly enough
//! (Jain above 0.6), and no congestion response ever raises a window.

use aqm::time::{NS_PER_MS, NS_PER_SEC};
use aqm::QueueLimit;
use sim::bench::tcp_dumbbell;
use sim::config::{Dist, TcpConfig, Transport};
use sim::tcp::params::ReduceFrom;
use sim::Summary;
use crate::common::simulation;

const MS: u64 = NS_PER_MS;
const S: u64 = NS_PER_SEC;
const RTTS_MS: [u64; 8] = [20, 30, 45, 70, 100, 130, 160, 200];

/// Eight bulk flows, one per base RTT, 20 Mb/s, PIE (RFC 8033, 20 ms, 400 packets), 120 s.
fn run(t: TcpConfig, seed: u64) -> Summary {
    let mut c = tcp_dumbbell(RTTS_MS.len() as u32, 20_000_000, 20 * MS, QueueLimit::Packets(400), 120 * S);
    c.seed = seed;
    c.warmup_ns = 20 * S;
    c.bottleneck.delay_ns = 5 * MS;
    c.bottleneck.queue = serde_json::from_str(r#"{"type":"pie","profile":"rfc","target":20000000,"limit":{"packets":400}}"#).unwrap();
    c.flows[0].access_delay_ns = Dist::Each(RTTS_MS.iter().map(|r| r * MS / 2 - 5 * MS).collect());
    c.flows[0].transport = Transport::Tcp(t);
    let mut sim = simulation(c).unwrap();
    sim.run();
    sim.summary()
}

/// The least-squares slope of ln(throughput) on ln(RTT), negated: the exponent a.
fn rtt_exponent(s: &Summary) -> f64 {
    let pts: Vec<(f64, f64)> = s.flows.iter().map(|f| (f.rtt_base_s.ln(), f.throughput_bps.ln())).collect();
    let n = pts.len() as f64;
    let (mx, my) = (pts.iter().map(|p| p.0).sum::<f64>() / n, pts.iter().map(|p| p.1).sum::<f64>() / n);
    let sxy: f64 = pts.iter().map(|p| (p.0 - mx) * (p.1 - my)).sum();
    let sxx: f64 = pts.iter().map(|p| (p.0 - mx).powi(2)).sum();
    -sxy / sxx
}

#[test]
fn mixed_rtt_newreno_sack_flows_share_by_the_rtt_bias() {
    for profile in ["ns3", "ns2-sack"] {
        for seed in 1..=4 {
            let s = run(TcpConfig::profile(profile).unwrap(), seed);
            let a = rtt_exponent(&s);
            eprintln!("{profile} seed {seed}: a = {a:.2}, Jain {:.3}, util {:.3}, drops {:.4}, raising {}", s.jain_index, s.utilization, s.drop_rate, raised(&s));
            assert!((0.5..=1.2).contains(&a), "{profile} seed {seed}: a = {a}");
            assert!(s.jain_index > 0.6, "{profile} seed {seed}: Jain {}", s.jain_index);
            assert_eq!((raised(&s), s.invariants.window_never_raised.violations), (0, 0), "{profile} seed {seed}");
            assert!(s.utilization > 0.9, "{profile} seed {seed}: utilization {}", s.utilization);
        }
    }
}

#[test]
fn halving_flightsize_breaks_it_and_the_invariant_sees_it() {
    // The null control of the invariant: the same runs halving FlightSize, the rule the ns-3
    // profile had, raise windows now and then (measured 2 or 3 responses per run).
    let t = TcpConfig { reduce_from: ReduceFrom::Flight, ..TcpConfig::profile("ns3").unwrap() };
    for seed in 1..=4 {
        let s = run(t.clone(), seed);
        eprintln!("flight seed {seed}: a = {:.2}, Jain {:.3}, raising {}", rtt_exponent(&s), s.jain_index, raised(&s));
        assert!(raised(&s) > 0, "seed {seed}");
    }
}

/// Congestion responses that raised the window, over all flows (the FlightSize rule is not
/// bound by the invariant, so its raises are counted per flow only).
fn raised(s: &sim::summary::Summary) -> u64 {
    s.flows.iter().map(|f| f.counts.window_raising_responses).sum()
}
