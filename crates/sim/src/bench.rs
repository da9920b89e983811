//! Named benchmark scenarios and their measurement: events per second, delivered packets per
//! wall-second and peak memory. Used by `cargo bench -p aqmlab-sim` and `aqmlab bench`.

use std::time::Instant;

use aqm::time::{NS_PER_MS, NS_PER_SEC};
use aqm::{QdiscConfig, QueueLimit};
use serde::{Deserialize, Serialize};

use crate::config::{AccessConfig, App, BottleneckConfig, Dist, FlowGroup, NetLinkConfig, NetworkConfig, RateStep, SimConfig, TcpConfig, TraceConfig, Transport, UdpConfig};
use crate::world::Simulation;

/// The TCP of the benchmark and test scenarios: the ns-2 Sack1 profile of the PIE paper.
pub fn default_tcp() -> TcpConfig {
    TcpConfig::profile("ns2-sack").expect("known profile")
}

/// All traces off.
pub fn no_traces() -> TraceConfig {
    TraceConfig { interval_ns: 10 * NS_PER_MS, queue: false, sojourn: false, sojourn_every: 1, flow_bytes: false, drops: false, probe: false, tcp: false, pcap: Vec::new(), pcap_snaplen: 128, pcap_window_ns: None, pcap_every: 1 }
}

/// A dumbbell of `n` bulk TCP flows with base RTT `rtt_ns` (bottleneck delay 1/4 of it, the
/// rest on the sender access links), a DropTail bottleneck and an uncongested reverse path.
pub fn tcp_dumbbell(n: u32, rate_bps: u64, rtt_ns: u64, limit: QueueLimit, duration_ns: u64) -> SimConfig {
    let d = rtt_ns / 4;
    SimConfig {
        seed: 1,
        duration_ns,
        warmup_ns: 0,
        bottleneck: BottleneckConfig {
            rate_bps,
            delay_ns: d,
            mtu: 1500,
            queue: QdiscConfig::drop_tail(limit),
            reverse_queue: QdiscConfig::drop_tail(QueueLimit::Packets(100_000)),
            rate_schedule: vec![],
            target_schedule: vec![],
            impairment: None,
            device: Default::default(),
        },
        access: AccessConfig { rate_bps: None, queue: QdiscConfig::drop_tail(QueueLimit::Packets(1000)), device: Default::default() },
        flows: vec![FlowGroup {
            name: "tcp".into(),
            count: n,
            transport: Transport::Tcp(default_tcp()),
            start_ns: Dist::Uniform { lo: 0, hi: NS_PER_SEC },
            ..cbr_group(0, false, rtt_ns / 2 - d, 0)
        }],
        traces: no_traces(),
        network: None,
    }
}

/// One constant-rate source of 1000-B datagrams from t = 0 on the dumbbell's path, with its
/// access delays: the deterministic load of the physics tests (and, with its transport and
/// start replaced, the benchmark's bulk TCP group).
pub fn cbr_group(rate_bps: u64, ecn: bool, access_delay_ns: u64, receiver_delay_ns: u64) -> FlowGroup {
    FlowGroup {
        name: "udp".into(),
        count: 1,
        transport: Transport::Udp(UdpConfig { rate_bps, ecn, ect: Default::default() }),
        access_delay_ns: Dist::Fixed(access_delay_ns),
        receiver_delay_ns,
        start_ns: Dist::Fixed(0),
        stop_ns: None,
        packet_size: 1000,
        app: App::Bulk,
        dscp: 0,
        marker: None,
        route: None,
    }
}

/// A parking lot of `k` hops R0-R1-...-Rk (the bottleneck is R0-R1), all at `rate_bps` with
/// DropTail queues of `limit`: `long` bulk TCP flows cross every hop, `cross` more each hop.
pub fn tcp_parking_lot(k: usize, long: u32, cross: u32, rate_bps: u64, rtt_ns: u64, limit: QueueLimit, duration_ns: u64) -> SimConfig {
    let mut c = tcp_dumbbell(long, rate_bps, rtt_ns, limit, duration_ns);
    let node = |i: usize| format!("R{i}");
    let hop = |i: usize| NetLinkConfig {
        from: node(i),
        to: node(i + 1),
        rate_bps,
        delay_ns: c.bottleneck.delay_ns,
        queue: c.bottleneck.queue.clone(),
        reverse_queue: c.bottleneck.reverse_queue.clone(),
        rate_schedule: vec![],
        impairment: None,
        device: Default::default(),
    };
    c.network = Some(NetworkConfig { nodes: (0..=k).map(node).collect(), bottleneck: [node(0), node(1)], links: (1..k).map(hop).collect() });
    c.flows[0].route = Some(vec![node(0), node(k)]);
    let base = c.flows[0].clone();
    for i in 0..k {
        c.flows.push(FlowGroup { name: format!("cross{i}"), count: cross, route: Some(vec![node(i), node(i + 1)]), ..base.clone() });
    }
    c
}

pub const NAMES: [&str; 4] = ["tcp5-10M-100s", "tcp100-100M-150s-change", "tcp10-1G-10s", "parkinglot3-tcp100-100M-30s"];

/// The scaling curves of issue 22: the link rate with one flow per 2 Mb/s, then the flow
/// count at 1 Gb/s; DropTail with one BDP of buffer at 100 ms. Each runs long enough for a
/// few hundred thousand packets (the flows start over the first second).
/// (`rate-10G` is also the issue's 10 Gb/s, 5,000-flow target.)
pub const SCALING: [&str; 8] = ["rate-10M", "rate-100M", "rate-1G", "rate-10G", "flows-10", "flows-100", "flows-1000", "flows-10000"];

/// (rate, flows, simulated seconds) of a scaling scenario.
fn scaling(name: &str) -> Option<(u64, u32, u64)> {
    const M: u64 = 1_000_000;
    const G: u64 = 1_000 * M;
    Some(match name {
        "rate-10M" => (10 * M, 5, 60),
        "rate-100M" => (100 * M, 50, 20),
        "rate-1G" => (G, 500, 4),
        "rate-10G" => (10 * G, 5_000, 2),
        "flows-10" => (G, 10, 4),
        "flows-100" => (G, 100, 4),
        "flows-1000" => (G, 1_000, 4),
        "flows-10000" => (G, 10_000, 4),
        _ => return None,
    })
}

/// The named scenarios of the foundation issue.
pub fn scenario(name: &str) -> Option<SimConfig> {
    let s = NS_PER_SEC;
    let ms = NS_PER_MS;
    match name {
        // 5 bulk flows, 10 Mb/s, 100 ms RTT, buffer of one BDP (125 packets).
        "tcp5-10M-100s" => Some(tcp_dumbbell(5, 10_000_000, 100 * ms, QueueLimit::Packets(125), 100 * s)),
        // PIE paper Fig. 7: 100 flows, 100 -> 20 -> 100 Mb/s at 50 s and 100 s, PIE (paper
        // profile) with a 2 MB buffer.
        "tcp100-100M-150s-change" => {
            let mut c = tcp_dumbbell(100, 100_000_000, 100 * ms, QueueLimit::Bytes(2_000_000), 150 * s);
            c.bottleneck.queue = serde_json::from_str(r#"{"type":"pie","profile":"paper","limit":{"bytes":2000000}}"#)
                .expect("valid PIE configuration");
            c.bottleneck.rate_schedule = vec![
                RateStep { at_ns: 50 * s, rate_bps: 20_000_000 },
                RateStep { at_ns: 100 * s, rate_bps: 100_000_000 },
            ];
            Some(c)
        }
        // 10 flows at 1 Gb/s, 10 s, 1 BDP of buffer (12 500 packets at 100 ms).
        "tcp10-1G-10s" => Some(tcp_dumbbell(10, 1_000_000_000, 100 * ms, QueueLimit::Packets(12_500), 10 * s)),
        // Issue 20: 3 hops at 100 Mb/s, 40 long flows and 20 cross flows per hop (100 in all),
        // a buffer of one BDP (1250 packets at 100 ms) per hop.
        "parkinglot3-tcp100-100M-30s" => Some(tcp_parking_lot(3, 40, 20, 100_000_000, 100 * ms, QueueLimit::Packets(1250), 30 * s)),
        _ => scaling(name).map(|(rate, n, secs)| {
            let bdp_packets = (rate / 8 / 1000 / 10) as u32; // 100 ms of 1000-B packets
            tcp_dumbbell(n, rate, 100 * ms, QueueLimit::Packets(bdp_packets), secs * s)
        }),
    }
}

#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct BenchResult {
    pub scenario: String,
    pub simulated_s: f64,
    /// Wall-clock time of the run, set-up excluded (as `aqmlab bench --vs-ns3` times ns-3).
    pub wall_s: f64,
    /// CPU time of the run, set-up excluded (this thread's, see [`thread_cpu_s`]): the figure
    /// that other processes on a shared machine disturb least, and the one the per-packet
    /// rates divide by.
    pub cpu_s: f64,
    /// CPU time of building the simulation (validation, flows, topology, queues): a cost per
    /// flow and link, paid once, not per packet (10 ms for 10,000 flows on the machine of
    /// docs/speed.md, 5 % of that scaling point's whole).
    pub setup_cpu_s: f64,
    pub events: u64,
    pub delivered_packets: u64,
    pub events_per_s: f64,
    pub packets_per_s: f64,
    pub packets_per_cpu_s: f64,
    /// Peak resident memory of the process (VmHWM), in MiB; 0 where /proc is unavailable.
    pub peak_rss_mib: f64,
    /// Most packets in the network at once (arena slots).
    pub arena_slots: usize,
    /// Cycles by kind of event, with the `event-cycles` feature (see [`crate::cycles`]).
    #[cfg(feature = "event-cycles")]
    pub event_cycles: Vec<crate::cycles::KindCycles>,
}

/// Peak resident set size of this process, from /proc/self/status.
pub fn peak_rss_mib() -> f64 {
    std::fs::read_to_string("/proc/self/status")
        .ok()
        .and_then(|s| {
            s.lines().find(|l| l.starts_with("VmHWM:")).and_then(|l| l.split_whitespace().nth(1)?.parse::<f64>().ok())
        })
        .map_or(0.0, |kb| kb / 1024.0)
}

/// CPU time this thread has used, in seconds: POSIX's per-thread CPU clock, which the kernel
/// brings up to date when it is read; 0 where it is unavailable. (The scheduler's statistics
/// in /proc, used before, lag by up to a timer tick, several milliseconds: a fifth of the
/// shortest scaling run, 18 ms.)
pub fn thread_cpu_s() -> f64 {
    #[cfg(unix)]
    {
        let mut ts = libc::timespec { tv_sec: 0, tv_nsec: 0 };
        // SAFETY: `ts` is a valid timespec for the call to fill in.
        if unsafe { libc::clock_gettime(libc::CLOCK_THREAD_CPUTIME_ID, &mut ts) } == 0 {
            return ts.tv_sec as f64 + ts.tv_nsec as f64 / 1e9;
        }
    }
    0.0
}

/// Builds `cfg`, runs it to the end and measures both (see [`BenchResult`]).
pub fn measure(name: &str, cfg: SimConfig) -> Result<BenchResult, String> {
    let c0 = thread_cpu_s();
    let mut sim = Simulation::new(cfg)?;
    let (t1, c1) = (Instant::now(), thread_cpu_s());
    sim.run();
    let wall = t1.elapsed().as_secs_f64();
    let cpu = thread_cpu_s() - c1;
    Ok(BenchResult {
        scenario: name.to_string(),
        simulated_s: sim.now() as f64 / NS_PER_SEC as f64,
        wall_s: wall,
        cpu_s: cpu,
        setup_cpu_s: c1 - c0,
        packets_per_cpu_s: sim.delivered_packets as f64 / cpu,
        events: sim.events(),
        delivered_packets: sim.delivered_packets,
        events_per_s: sim.events() as f64 / wall,
        packets_per_s: sim.delivered_packets as f64 / wall,
        peak_rss_mib: peak_rss_mib(),
        arena_slots: sim.arena_capacity(),
        #[cfg(feature = "event-cycles")]
        event_cycles: sim.cycles.totals(),
    })
}

/// Runs the named scenario, optionally cut to a fraction of its duration (for the
/// memory-growth check: peak memory at half and full length should match).
pub fn run_named(name: &str, fraction: f64) -> Result<BenchResult, String> {
    let mut cfg = scenario(name)
        .ok_or_else(|| format!("unknown benchmark scenario '{name}' (known: {}, {})", NAMES.join(", "), SCALING.join(", ")))?;
    cfg.duration_ns = (cfg.duration_ns as f64 * fraction) as u64;
    measure(name, cfg)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The thread's CPU clock advances while the thread computes, and never faster than the
    /// wall clock (a thread runs on one core at a time): a bound from physics, not a timing.
    #[test]
    fn thread_cpu_time_advances_no_faster_than_the_wall_clock() {
        let (t0, c0) = (Instant::now(), thread_cpu_s());
        let mut x = 0u64;
        while t0.elapsed().as_millis() < 20 {
            x = std::hint::black_box(x.wrapping_mul(6364136223846793005).wrapping_add(1));
        }
        let (cpu, wall) = (thread_cpu_s() - c0, t0.elapsed().as_secs_f64());
        assert!(cpu > 0.0, "the CPU clock did not move");
        assert!(cpu <= wall + 1e-3, "{cpu} s of CPU in {wall} s");
    }
}
