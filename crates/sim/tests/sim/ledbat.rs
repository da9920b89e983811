//! LEDBAT (RFC 6817) against its own theory: alone, it holds the queue at TARGET; beside a
//! standard TCP that fills the buffer, it yields down to its minimum window. Each claim is
//! checked against the null control (Reno in LEDBAT's place), which fails it.

use aqm::time::{NS_PER_MS, NS_PER_SEC};
use aqm::QueueLimit;
use sim::bench::tcp_dumbbell;
use sim::config::{SimConfig, Transport};
use sim::tcp::ledbat::TARGET_S;
use crate::common::simulation;

const MS: u64 = NS_PER_MS;
const S: u64 = NS_PER_SEC;

fn set_cc(c: &mut SimConfig, group: usize, cc: &str) {
    let Transport::Tcp(t) = &mut c.flows[group].transport else { unreachable!() };
    t.cc = cc.into();
}

/// One bulk flow over 10 Mb/s, 40 ms base RTT, a DropTail buffer of 1000 packets (800 ms):
/// mean bottleneck queue delay and utilization after a 20 s warm-up.
fn alone(cc: &str) -> (f64, f64) {
    let mut c = tcp_dumbbell(1, 10_000_000, 40 * MS, QueueLimit::Packets(1000), 60 * S);
    c.warmup_ns = 20 * S;
    set_cc(&mut c, 0, cc);
    let mut sim = simulation(c).unwrap();
    sim.run();
    let s = sim.summary();
    (s.qdelay_mean_s, s.utilization)
}

#[test]
fn alone_ledbat_holds_the_queue_at_target() {
    // RFC 6817 §2.4.2: the window stops growing where queuing_delay = TARGET, 100 ms. The
    // delay it measures is the round trip's excess over the smallest seen, which on this path
    // is the bottleneck queue (the ACK direction does not queue). Band: ±15 ms, the growth of
    // GAIN·off_target segments per round trip around the fixed point and the CURRENT_FILTER
    // minimum (which sees the queue's troughs) together; the link stays full (≥ 95 %).
    let (d, u) = alone("ledbat");
    assert!((d - TARGET_S).abs() < 0.015, "LEDBAT's queue delay {d}");
    assert!(u > 0.95, "utilization {u}");
    // Null control: Reno fills the 800 ms buffer instead.
    let (d_reno, _) = alone("newreno");
    assert!(d_reno > 0.3, "Reno's queue delay {d_reno}");
}

#[test]
fn ledbat_yields_to_standard_tcp() {
    // One Reno flow beside the flow under test over 10 Mb/s, 40 ms base RTT (a BDP of 50
    // packets) and a 400-packet DropTail buffer (320 ms). Reno's window saws between
    // (50 + 400)/2 = 225 and 450 packets, so the queue holds 175 to 400 packets: 140 to
    // 320 ms, always above LEDBAT's 100 ms TARGET. Its off_target stays negative and its
    // window at MIN_CWND = 2 segments (RFC 6817 §2.4.2): at most 2 packets per 180 ms round
    // trip, 0.89 % of C, of a total that Reno keeps near C (a buffer above the BDP); LEDBAT's
    // share must stay under 1 % (RFC 6817 §1: yield to standard TCP).
    //
    // Null control, Reno in LEDBAT's place: two Reno flows of equal RTT converge to equal
    // windows (AIMD, Chiu and Jain 1989). Their total window climbs from 225 to 450 packets
    // at 2 per round trip of 180 to 360 ms: a loss cycle every ≈30 s, 3 before the 100 s
    // warm-up ends and ≈7 in the 200 s measured. Each cycle in which both lose halves the
    // difference of their windows; a cycle in which one loses alone moves at most a quarter of
    // the total (it halves its half), and the next losses fall more often on the larger window
    // (a FIFO drops in proportion to the rates). Averaged over ≈7 cycles the second flow's
    // share is 1/2 within ±0.1. Three seeds (the start times differ).
    let share = |cc: &str, seed: u64| {
        let mut c = tcp_dumbbell(2, 10_000_000, 40 * MS, QueueLimit::Packets(400), 300 * S);
        c.seed = seed;
        c.warmup_ns = 100 * S;
        let mut lbe = c.flows[0].clone();
        lbe.name = "lbe".into();
        lbe.count = 1;
        c.flows[0].count = 1;
        c.flows.push(lbe);
        set_cc(&mut c, 1, cc);
        let mut sim = simulation(c).unwrap();
        sim.run();
        let s = sim.summary();
        s.flows[1].throughput_bps / (s.flows[0].throughput_bps + s.flows[1].throughput_bps)
    };
    for seed in 1..=3 {
        let ledbat = share("ledbat", seed);
        assert!(ledbat < 0.01, "seed {seed}: LEDBAT's share {ledbat}");
        let reno = share("newreno", seed);
        assert!((reno - 0.5).abs() < 0.1, "seed {seed}: the second Reno flow's share {reno}");
    }
}
