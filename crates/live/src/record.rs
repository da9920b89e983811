//! What the router records, in the simulator's shapes: [`sim::trace::Traces`] columns, the
//! sojourn [`DelayHistogram`] of the measured window, per-flow [`FlowStats`] and the
//! [`Summary`], computed by the simulator's rules (same warm-up, same windows, same formulas).

use aqm::time::to_secs;
use aqm::{Backlog, Nanos};
use serde::Serialize;
use sim::config::{SimConfig, TraceConfig};
use sim::flow::FlowStats;
use sim::invariants::Invariants;
use sim::net::link::QueueCounts;
use sim::net::Link;
use sim::summary::{capacity_bits, jain, DelayStats, FlowSummary, QueueSummary, Summary};
use sim::trace::{DelayHistogram, Traces};
use sim::window::{Window, WindowCounts};

use crate::config::{FlowKind, FlowPlan};

pub struct Recorder {
    cfg: TraceConfig,
    warmup_ns: Nanos,
    /// Counters of flows 0..n, and of everything else (ping, ARP) at index n.
    pub stats: Vec<FlowStats>,
    pub traces: Traces,
    pub delay_hist: DelayHistogram,
    last_sojourn_ns: Nanos,
    interval_sojourn: (u64, u64),
    departures: u64,
    flow_bytes_since_sample: Vec<u64>,
    probe_buf: Vec<f64>,
    /// Forward frames that left the router with CE set, any flow (the receiver's kernel counts
    /// the same packets in IpExtInCEPkts).
    pub ce_delivered: u64,
    /// Frames that bypassed the AQM (not IPv4), both directions.
    pub bypassed: u64,
    /// The counters as the measured window opened: the summary's packet counts are the
    /// window's, as the simulator's are (`sim::window`).
    pub window: Window,
}

impl Recorder {
    pub fn new(cfg: &SimConfig, n_flows: usize, probe_names: Vec<&'static str>) -> Self {
        let t = &cfg.traces;
        let mut traces = Traces::default();
        if t.any_periodic() || t.sojourn || t.drops {
            traces.cfg = Some(t.clone());
            traces.probe_names = probe_names;
        }
        Recorder {
            cfg: t.clone(),
            warmup_ns: cfg.warmup_ns,
            stats: vec![FlowStats::default(); n_flows + 1],
            traces,
            delay_hist: DelayHistogram::default(),
            last_sojourn_ns: 0,
            interval_sojourn: (0, 0),
            departures: 0,
            flow_bytes_since_sample: vec![0; n_flows],
            probe_buf: Vec::new(),
            ce_delivered: 0,
            bypassed: 0,
            window: Window::new(cfg.warmup_ns),
        }
    }

    /// Copies the counters if the measured window opens at `now`, before anything at `now`
    /// is counted; `links` are the forward and reverse links' queue counts.
    pub fn open_window_at(&mut self, now: Nanos, links: impl FnOnce() -> Vec<QueueCounts>) {
        if self.window.opens_at(now, self.warmup_ns) {
            self.window.open(self.stats.iter().map(WindowCounts::of).collect(), links());
        }
    }

    /// A departure from the forward queue at `now`: the start of its serialization, exactly
    /// where the simulator measures a sojourn (`world.rs`, `record_departure`).
    pub fn departure(&mut self, now: Nanos, enqueued_at: Nanos, flow: u32) {
        let sojourn = now - enqueued_at;
        self.last_sojourn_ns = sojourn;
        self.interval_sojourn.0 += sojourn;
        self.interval_sojourn.1 += 1;
        if now >= self.warmup_ns {
            self.delay_hist.record(sojourn);
        }
        if self.cfg.sojourn {
            if self.departures.is_multiple_of(self.cfg.sojourn_every as u64) {
                self.traces.sojourn_t.push(now);
                self.traces.sojourn_ns.push(sojourn);
                // The router has no device queue below its discipline: the two sojourns agree.
                self.traces.sojourn_qdisc_ns.push(sojourn);
                self.traces.sojourn_flow.push(flow);
            }
            self.departures += 1;
        }
    }

    /// A drop or mark of kind `code` (the simulator's `EVENT_*` codes) on link `link`
    /// (0 forward, 1 reverse, as the simulator numbers its bottleneck links).
    pub fn event(&mut self, now: Nanos, link: u32, flow: u32, code: u8) {
        if self.cfg.drops {
            self.traces.drop_t.push(now);
            self.traces.drop_flow.push(flow);
            self.traces.drop_kind.push(code);
            self.traces.drop_link.push(link);
        }
    }

    /// A forward frame of `ip_bytes` handed to the receiver side at `now`.
    pub fn delivered(&mut self, now: Nanos, flow: u32, ip_bytes: u64, ce: bool) {
        let st = &mut self.stats[flow as usize];
        st.delivered += 1;
        st.marked += ce as u64;
        st.bytes_delivered += ip_bytes;
        if now >= self.warmup_ns {
            st.bytes_measured += ip_bytes;
        }
        self.ce_delivered += ce as u64;
        if let Some(b) = self.flow_bytes_since_sample.get_mut(flow as usize) {
            *b += ip_bytes;
        }
    }

    /// The periodic sample at `now` (`world.rs`, `sample`, less the TCP state, which the
    /// traffic source records from the kernel).
    pub fn sample(&mut self, now: Nanos, backlog: Backlog, rate_bps: u64, probe: impl FnOnce(&mut Vec<f64>)) {
        let t = &mut self.traces;
        t.sample_t.push(now);
        if self.cfg.queue {
            t.queue_bytes.push(backlog.bytes);
            t.queue_packets.push(backlog.packets);
            t.last_sojourn_ns.push(if backlog.packets == 0 { 0 } else { self.last_sojourn_ns });
            t.sojourn_mean_ns.push(sim::trace::interval_mean(&mut self.interval_sojourn));
            t.link_rate_bps.push(rate_bps);
        }
        if self.cfg.probe {
            self.probe_buf.clear();
            probe(&mut self.probe_buf);
            t.probe.extend_from_slice(&self.probe_buf);
        }
        if self.cfg.flow_bytes {
            t.flow_bytes.extend_from_slice(&self.flow_bytes_since_sample);
            self.flow_bytes_since_sample.iter_mut().for_each(|b| *b = 0);
        }
    }

    /// The summary of the run up to `end`, by the simulator's rules (`summary.rs`). TCP state
    /// (srtt, rto) and goodput are the kernel's and the sink's: the driver adds them.
    ///
    /// `links` are the forward and reverse bottleneck links, whose queue counts the engine
    /// keeps as the simulator does.
    pub fn summary(&self, cfg: &SimConfig, plans: &[FlowPlan], end: Nanos, links: [&Link; 2], events: u64) -> Summary {
        let tx_bytes_measured = links[0].tx_bytes_measured;
        let warm = cfg.warmup_ns.min(end);
        let cap = capacity_bits(cfg.bottleneck.rate_bps, &cfg.bottleneck.rate_schedule, warm, end);
        let mut active = Vec::new();
        let flows: Vec<FlowSummary> = plans
            .iter()
            .map(|f| {
                let st = &self.stats[f.id as usize];
                let dur = f.stop_ns.min(end).saturating_sub(f.start_ns.max(warm));
                let tput = if dur > 0 { st.bytes_measured as f64 * 8.0 / to_secs(dur) } else { 0.0 };
                if dur > 0 {
                    active.push(tput);
                }
                FlowSummary {
                    group: f.group,
                    tcp: matches!(f.kind, FlowKind::Tcp { .. }),
                    start_s: to_secs(f.start_ns),
                    rtt_base_s: to_secs(2 * (cfg.bottleneck.delay_ns + f.extra_delay_ns)),
                    throughput_bps: tput,
                    completion_s: None,
                    srtt_s: None,
                    rto_s: None,
                    counts: st.clone(),
                    measured: self.window.flow(f.id as usize, st),
                    in_flight: st.sent.saturating_sub(st.delivered + st.dropped),
                    // The kernel's ACKs are not followed one by one between host and router.
                    acks_in_flight: 0,
                }
            })
            .collect();
        let mut w = WindowCounts::default();
        flows.iter().for_each(|f| w.add(&f.measured));
        let WindowCounts { sent, dropped, marked, .. } = w;
        let queues: Vec<QueueCounts> = links.iter().enumerate().map(|(l, link)| self.window.link(l, link.queue_counts())).collect();
        let ratio = |a: u64| if sent == 0 { 0.0 } else { a as f64 / sent as f64 };
        let q = Percentiles::from(&self.delay_hist);
        Summary {
            time_s: to_secs(end),
            measured_s: to_secs(end - warm),
            events,
            utilization: if cap > 0.0 { tx_bytes_measured as f64 * 8.0 / cap } else { 0.0 },
            bottleneck_bytes: tx_bytes_measured,
            qdelay_mean_s: q.mean_s,
            qdelay_p50_s: q.p50_s,
            qdelay_p90_s: q.p90_s,
            qdelay_p95_s: q.p95_s,
            qdelay_p99_s: q.p99_s,
            qdelay_max_s: q.max_s,
            departures_measured: q.n,
            // No device queue under the router's discipline: the qdisc sojourn is the link's.
            qdisc_delay: DelayStats::of(&self.delay_hist),
            jain_index: jain(&active),
            sent,
            dropped,
            marked,
            drop_rate: ratio(dropped),
            mark_rate: ratio(marked),
            transfers: 0,
            fct_mean_s: 0.0,
            fct_p50_s: 0.0,
            fct_p99_s: 0.0,
            // Every frame the router receives on the reverse port is an ACK of a flow (or ARP).
            acks_sent: queues[1].arrivals,
            acks_dropped: queues[1].acks_dropped,
            queues: ["bottleneck", "reverse_bottleneck"]
                .into_iter()
                .zip(queues)
                .map(|(queue, counts)| QueueSummary { queue: queue.into(), links: 1, counts, drops: counts.drops() })
                .collect(),
            // The simulator's invariants follow simulated packets; real hosts are not audited.
            invariants: Invariants::default(),
            flows,
        }
    }
}

/// A histogram as (lower bound, width, count) columns, the shape `Result.delay_histogram` has.
#[derive(Serialize)]
pub struct HistogramColumns {
    pub lower_ns: Vec<u64>,
    pub width_ns: Vec<u64>,
    pub count: Vec<u64>,
}

impl From<&DelayHistogram> for HistogramColumns {
    fn from(h: &DelayHistogram) -> Self {
        let mut c = HistogramColumns { lower_ns: Vec::new(), width_ns: Vec::new(), count: Vec::new() };
        for (lo, w, n) in h.buckets() {
            c.lower_ns.push(lo);
            c.width_ns.push(w);
            c.count.push(n);
        }
        c
    }
}

/// Percentiles of a histogram, in seconds.
#[derive(Serialize)]
pub struct Percentiles {
    pub n: u64,
    pub mean_s: f64,
    pub p50_s: f64,
    pub p90_s: f64,
    pub p95_s: f64,
    pub p99_s: f64,
    pub p999_s: f64,
    pub max_s: f64,
}

impl From<&DelayHistogram> for Percentiles {
    fn from(h: &DelayHistogram) -> Self {
        let at = |q: f64| h.quantile(q) * 1e-9;
        Percentiles { n: h.n, mean_s: h.mean() * 1e-9, p50_s: at(0.5), p90_s: at(0.9), p95_s: at(0.95), p99_s: at(0.99), p999_s: at(0.999), max_s: h.max_ns as f64 * 1e-9 }
    }
}
