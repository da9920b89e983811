//! What a run will cost, estimated from its configuration before any work is done, and the
//! limits that keep a run within memory and a bounded number of events.
//!
//! Memory and events grow with a few quantities of the scenario: flows (Poisson arrivals
//! are all created up front), data packets (sources, bottleneck capacity), timers that can
//! fire faster than packets flow (a retransmission timer of a few ns), packets alive at once
//! (bandwidth-delay products, queue limits, retransmissions of such timers) and recorded traces.
//! Each is estimated with the field that drives it, so that a refused scenario is told which
//! value to change. The figures are estimates for orders of magnitude (a factor of two either
//! way), not bounds: a run far below the limits is never refused.

use aqm::{LinkInfo, QueueDisc, Rng};
use serde::Serialize;

use crate::config::{App, Dist, FlowGroup, SimConfig, Transport};
use crate::net::link::Capacity;

/// Events beyond which a run is refused: about a day at the simulator's few million events
/// per second. Python warns long before, from [`Estimate::events`].
pub const MAX_EVENTS: f64 = 1e12;
/// Estimated peak memory beyond which a run is refused.
pub const MAX_MEMORY_BYTES: f64 = 8.0 * (1u64 << 30) as f64;
/// Rows of the periodic traces.
pub const MAX_TRACE_SAMPLES: f64 = 1e8;
/// Flows of one group: its flows' random streams are numbered in 24 bits
/// (see [`crate::net::dumbbell::FLOW_STREAM_BASE`]).
pub const MAX_FLOWS_PER_GROUP: f64 = (1u64 << 24) as f64;

/// Memory of one packet alive: its arena slot and its pending event.
const PACKET_BYTES: f64 = 128.0;
/// Memory of one flow: its state and its four access links, pure delays (measured with
/// `aqmlab bench flows-1M`: 1.5 KB a flow at the end of the run, packets aside).
const FLOW_BYTES: f64 = 1536.0;
/// And of each access link's queue, when the access links have a rate: its port and
/// discipline (`net::link::Port`, about 900 bytes).
const ACCESS_QUEUE_BYTES: f64 = 1024.0;
/// Events per data packet carried across the bottleneck, its ACK included (about 4 with ideal
/// access links, see the benchmark), and the extra for serialization on access links.
const EVENTS_PER_PACKET: f64 = 4.0;
const EVENTS_PER_PACKET_ACCESS: f64 = 4.0;
/// Share of data packets that give rise to a drop, a retransmission or a TCP event (for the
/// size of the `drops` and `tcp` event traces).
const EVENT_SHARE: f64 = 0.05;
/// One delay histogram: each reported queue keeps one or two (see [`crate::queues`]).
const HISTOGRAM_BYTES: f64 = 120_000.0;

/// One contribution to the cost of a run.
#[derive(Clone, Debug, Serialize)]
pub struct Cost {
    /// The scenario field that drives it (`flows[0].arrival_rate`, `traces.interval_ns`, ...).
    pub field: String,
    /// What it is, in words, with its size.
    pub what: String,
    pub events: f64,
    pub memory_bytes: f64,
}

/// The estimated cost of a run (see the module documentation for what "estimated" means).
#[derive(Clone, Debug, Serialize)]
pub struct Estimate {
    pub events: f64,
    pub memory_bytes: f64,
    pub flows: f64,
    /// Data packets sent by all sources.
    pub data_packets: f64,
    /// Rows of the periodic traces, and bytes of every trace.
    pub trace_samples: f64,
    pub trace_bytes: f64,
    /// The contributions, each with the field that drives it.
    pub costs: Vec<Cost>,
    /// The limits a run is held to.
    pub max_events: f64,
    pub max_memory_bytes: f64,
    pub max_trace_samples: f64,
}

fn secs(ns: u64) -> f64 {
    ns as f64 * 1e-9
}

/// "1.2e11", "3400": counts for messages.
pub fn fmt_count(x: f64) -> String {
    if x < 1e6 { format!("{x:.0}") } else { format!("{x:.1e}") }
}

/// "12.8 GB": sizes for messages.
pub fn fmt_bytes(b: f64) -> String {
    let units = [("TB", 1e12), ("GB", 1e9), ("MB", 1e6), ("kB", 1e3)];
    units.iter().find(|(_, s)| b >= *s).map_or(format!("{b:.0} B"), |(u, s)| format!("{:.1} {u}", b / s))
}

/// "1 ns", "20 ms": durations for messages.
pub fn fmt_time(ns: f64) -> String {
    let units = [("s", 1e9), ("ms", 1e6), ("µs", 1e3)];
    units.iter().find(|(_, s)| ns >= *s).map_or(format!("{ns:.0} ns"), |(u, s)| format!("{} {u}", (ns / s * 1000.0).round() / 1000.0))
}

fn dist_range(d: &Dist) -> (u64, u64) {
    match d {
        Dist::Fixed(v) => (*v, *v),
        Dist::Uniform { lo, hi } => (*lo, *hi),
        Dist::Each(v) => (v.iter().copied().min().unwrap_or(0), v.iter().copied().max().unwrap_or(0)),
    }
}

/// Expected flows of a group: its count, or for Poisson arrivals rate × (stop − start), all
/// of which are created before the run starts.
pub fn group_flows(g: &FlowGroup) -> f64 {
    match (&g.app, &g.start_ns, g.stop_ns) {
        (App::Poisson { rate_per_s, .. }, Dist::Fixed(start), Some(stop)) => rate_per_s * secs(stop.saturating_sub(*start)),
        _ => g.count as f64,
    }
}

/// Period of a discipline's background update, found by running one (None: it has none).
fn update_period(q: &aqm::QdiscConfig, info: LinkInfo) -> Option<u64> {
    let mut d = q.build(info, Rng::from_seed(0));
    let first = d.next_update_at()?;
    d.update(first);
    Some(d.next_update_at()?.saturating_sub(first).max(1))
}

impl Estimate {
    /// Estimates the cost of running `cfg`, whose values are in range (see
    /// [`SimConfig::validate`]).
    pub fn of(cfg: &SimConfig) -> Estimate {
        let mut costs = Vec::new();
        let b = &cfg.bottleneck;
        let duration = cfg.duration_ns;
        let peak = |rate: u64, steps: &[crate::config::RateStep]| steps.iter().map(|s| s.rate_bps).chain([rate]).max().unwrap_or(rate) as f64;
        let max_rate = peak(b.rate_bps, &b.rate_schedule);
        // Every packet-hop costs about as much as a bottleneck crossing: with a network, TCP can
        // fill each of its links (a parking lot's cross traffic), so their capacities add up.
        let net_links = cfg.network.as_ref().map_or(&[][..], |n| &n.links[..]);
        let hop_rate = max_rate + net_links.iter().map(|l| peak(l.rate_bps, &l.rate_schedule)).sum::<f64>();
        let access_rated = cfg.access.rate_bps.is_some();
        let per_packet = EVENTS_PER_PACKET + if access_rated { EVENTS_PER_PACKET_ACCESS } else { 0.0 };
        let flow_bytes = FLOW_BYTES + if access_rated { 4.0 * ACCESS_QUEUE_BYTES } else { 0.0 };
        let flows: f64 = cfg.flows.iter().map(group_flows).sum();
        let mut tcp_sizes = Vec::new();
        let mut udp_packets = 0.0;
        let mut max_rtt: u64 = 0;
        for (i, g) in cfg.flows.iter().enumerate() {
            let n = group_flows(g);
            let (acc_lo, acc_hi) = dist_range(&g.access_delay_ns);
            let (start, _) = dist_range(&g.start_ns);
            let active = secs(g.stop_ns.unwrap_or(duration).min(duration).saturating_sub(start));
            let one_way = |acc: u64| acc + b.delay_ns + g.receiver_delay_ns;
            max_rtt = max_rtt.max(2 * one_way(acc_hi));
            let field = if matches!(g.app, App::Poisson { .. }) { format!("flows[{i}].app.rate_per_s") } else { format!("flows[{i}].count") };
            costs.push(Cost { field, what: format!("{} flows", fmt_count(n)), events: 3.0 * n, memory_bytes: n * flow_bytes });
            match &g.transport {
                Transport::Udp(u) => {
                    let rate = u.rate_bps as f64 / (8.0 * g.packet_size as f64);
                    let packets = n * rate * active;
                    udp_packets += packets;
                    costs.push(Cost {
                        field: format!("flows[{i}].transport.rate_bps"),
                        what: format!("{} datagrams sent", fmt_count(packets)),
                        events: packets * per_packet,
                        memory_bytes: n * rate * secs(one_way(acc_hi)) * PACKET_BYTES,
                    });
                }
                Transport::Tcp(t) => {
                    tcp_sizes.push(g.packet_size);
                    // A retransmission timer fires at most once per RTO, and the RTO never
                    // falls below min(max_rto, max(min_rto, RTT)) once RTTs are measured
                    // (RFC 6298 (2.4), (2.5)); each firing sends a segment that lives about
                    // one RTT.
                    let rtt_lo = 2 * one_way(acc_lo);
                    let floor = t.max_rto_ns.min(t.min_rto_ns.max(rtt_lo)).max(1);
                    let name = if t.max_rto_ns < rtt_lo { "max_rto_ns" } else { "min_rto_ns" };
                    let firings = n * active * 1e9 / floor as f64;
                    let alive = n * (2 * one_way(acc_hi)) as f64 / floor as f64;
                    costs.push(Cost {
                        field: format!("flows[{i}].transport.{name}"),
                        what: format!("a retransmission timer as short as {} firing up to {} times, with ≈{} retransmissions in flight", fmt_time(floor as f64), fmt_count(firings), fmt_count(alive)),
                        events: firings,
                        memory_bytes: alive * PACKET_BYTES,
                    });
                }
            }
        }
        // TCP fills what UDP leaves of the bottleneck: its packets follow the capacity, in the
        // smallest packets used (UDP sent beyond the capacity is dropped at the queue).
        let tcp_packets = tcp_sizes.iter().min().map_or(0.0, |&size| (hop_rate * secs(duration) / (8.0 * size as f64) - udp_packets).max(0.0));
        let min_size = tcp_sizes.iter().copied().min().unwrap_or(1000) as f64;
        let bdp = max_rate * secs(max_rtt) / (8.0 * min_size);
        if !tcp_sizes.is_empty() {
            costs.push(Cost {
                field: "bottleneck.rate_bps".into(),
                what: format!("{} TCP segments at {} b/s, ≈{} in flight", fmt_count(tcp_packets), fmt_count(hop_rate), fmt_count(2.0 * bdp)),
                events: tcp_packets * per_packet,
                memory_bytes: 2.0 * bdp * PACKET_BYTES,
            });
        }
        // Queues hold up to their limits (in the smallest packets, ACKs, for byte limits).
        let info = LinkInfo { rate_bps: b.rate_bps, mtu: b.mtu };
        let net_queues = net_links.iter().enumerate().flat_map(|(i, l)| [(format!("network.links[{i}].queue"), &l.queue), (format!("network.links[{i}].reverse_queue"), &l.reverse_queue)]);
        for (name, q) in [("bottleneck.queue".to_string(), &b.queue), ("bottleneck.reverse_queue".to_string(), &b.reverse_queue)].into_iter().chain(net_queues) {
            let cap = Capacity::of(q, b.mtu);
            let held = (cap.packets as f64).min(cap.bytes as f64 / crate::net::HEADER_BYTES as f64);
            let updates = update_period(q, info).map_or(0.0, |p| duration as f64 / p as f64);
            costs.push(Cost { field: name, what: format!("a queue of up to {} packets, {} updates", fmt_count(held), fmt_count(updates)), events: updates, memory_bytes: held * PACKET_BYTES });
        }
        if let Some(rate) = cfg.access.rate_bps {
            let links = 4.0 * flows;
            let updates = update_period(&cfg.access.queue, LinkInfo { rate_bps: rate, mtu: b.mtu }).map_or(0.0, |p| links * duration as f64 / p as f64);
            costs.push(Cost { field: "access.queue".into(), what: format!("{} access queues, {} updates", fmt_count(links), fmt_count(updates)), events: updates, memory_bytes: 0.0 });
        }
        // Traces.
        let tr = &cfg.traces;
        let samples = if tr.any_periodic() { duration as f64 / tr.interval_ns as f64 + 1.0 } else { 0.0 };
        let probes = cfg.bottleneck.queue.build(info, Rng::from_seed(0)).probe_names().len() as f64 + 8.0;
        // The reported queues: the bottleneck's two directions, the access family, the
        // network's link directions; each has a column of the per-queue periodic trace.
        let queues = 2.0 + cfg.access.rate_bps.map_or(0.0, |_| 1.0) + 2.0 * net_links.len() as f64;
        let row = 8.0
            + if tr.queue { 28.0 + 28.0 * queues } else { 0.0 }
            // The bottleneck's variables, then every queue's again in `link_probe` (about as many each).
            + if tr.probe { 8.0 * probes * (1.0 + queues) } else { 0.0 }
            + if tr.flow_bytes { 8.0 * flows } else { 0.0 }
            + if tr.tcp { 24.0 * flows } else { 0.0 };
        let data_packets = tcp_packets + udp_packets;
        let smallest = cfg.flows.iter().map(|g| g.packet_size).min().unwrap_or(1000) as f64;
        let departures = data_packets.min(max_rate * secs(duration) / (8.0 * smallest));
        let mut trace_bytes = samples * row;
        if samples > 0.0 {
            costs.push(Cost {
                field: "traces.interval_ns".into(),
                what: format!("{} samples every {}", fmt_count(samples), fmt_time(tr.interval_ns as f64)),
                events: samples,
                memory_bytes: samples * row,
            });
        }
        let mut event_trace = |on: bool, field: &str, what: &str, n: f64, bytes: f64, costs: &mut Vec<Cost>| {
            if on {
                trace_bytes += n * bytes;
                costs.push(Cost { field: field.into(), what: format!("{} {what}", fmt_count(n)), events: 0.0, memory_bytes: n * bytes });
            }
        };
        event_trace(tr.sojourn, "traces.sojourn_every", "sojourn records", departures / tr.sojourn_every as f64, 28.0, &mut costs);
        // At most every packet at every other queue (the ACKs at the reverse ones).
        event_trace(tr.sojourn, "traces.sojourn_every", "sojourn records at the other queues", (queues - 1.0) * departures / tr.sojourn_every as f64, 32.0, &mut costs);
        let drops = (udp_packets - departures).max(0.0) + EVENT_SHARE * data_packets;
        event_trace(tr.drops, "traces.drops", "drop and mark records", drops, 21.0, &mut costs);
        event_trace(tr.tcp, "traces.tcp", "TCP event records", EVENT_SHARE * tcp_packets, 13.0, &mut costs);
        // A capture keeps a 16-byte record header and up to snaplen bytes of each frame (an
        // MTU-sized one at most) per packet at each point, inside its window.
        let window = tr.pcap_window_ns.map_or(duration, |[from, to]| to.min(duration).saturating_sub(from));
        let captured = tr.pcap.len() as f64 * departures * (window as f64 / duration.max(1) as f64) / tr.pcap_every as f64;
        let frame = 16.0 + tr.pcap_snaplen.min(b.mtu + 14) as f64;
        event_trace(!tr.pcap.is_empty(), "traces.pcap", "captured packets", captured, frame, &mut costs);
        Estimate {
            events: costs.iter().map(|c| c.events).sum(),
            memory_bytes: 2.0 * queues * HISTOGRAM_BYTES + costs.iter().map(|c| c.memory_bytes).sum::<f64>(),
            flows,
            data_packets,
            trace_samples: samples,
            trace_bytes,
            costs,
            max_events: MAX_EVENTS,
            max_memory_bytes: MAX_MEMORY_BYTES,
            max_trace_samples: MAX_TRACE_SAMPLES,
        }
    }

    /// The first limit the run exceeds, as an error naming the field that drives it.
    pub fn check(&self, cfg: &SimConfig) -> Result<(), String> {
        for (i, g) in cfg.flows.iter().enumerate() {
            let n = group_flows(g);
            if n > MAX_FLOWS_PER_GROUP {
                let field = if let App::Poisson { rate_per_s, .. } = g.app {
                    let span = secs(g.stop_ns.unwrap_or(0).saturating_sub(dist_range(&g.start_ns).0));
                    format!("flows[{i}].app.rate_per_s: {rate_per_s} arrivals per second over {} s would create ≈{} flows (≈{} of state)", span, fmt_count(n), fmt_bytes(n * FLOW_BYTES))
                } else {
                    format!("flows[{i}].count: {n} flows")
                };
                return Err(format!("{field}; the limit is {} flows per group", fmt_count(MAX_FLOWS_PER_GROUP)));
            }
        }
        if self.trace_samples > MAX_TRACE_SAMPLES {
            let t = &cfg.traces;
            return Err(format!(
                "traces.interval_ns: {} over {} would record {} samples (≈{}); the limit is {} samples: use an interval of at least {}",
                fmt_time(t.interval_ns as f64),
                fmt_time(cfg.duration_ns as f64),
                fmt_count(self.trace_samples),
                fmt_bytes(self.trace_bytes),
                fmt_count(MAX_TRACE_SAMPLES),
                // A run of d records d / interval + 1 samples (both ends).
                fmt_time((cfg.duration_ns as f64 / (MAX_TRACE_SAMPLES - 1.0)).ceil())
            ));
        }
        // Name the cost that contributes most to the quantity over its limit.
        let over = |total: f64, limit: f64, key: fn(&Cost) -> f64, fmt: fn(f64) -> String, of: &str| {
            let c = self.costs.iter().max_by(|a, b| key(a).total_cmp(&key(b))).expect("every run has costs");
            Err(format!("{}: {} (≈{}); the run would need ≈{}{of}, above the limit of {}", c.field, c.what, fmt(key(c)), fmt(total), fmt(limit)))
        };
        if self.events > MAX_EVENTS {
            return over(self.events, MAX_EVENTS, |c| c.events, |x| format!("{} events", fmt_count(x)), "");
        }
        if self.memory_bytes > MAX_MEMORY_BYTES {
            return over(self.memory_bytes, MAX_MEMORY_BYTES, |c| c.memory_bytes, fmt_bytes, " of memory");
        }
        Ok(())
    }
}
