//! The numbers a run is judged by: queue delay statistics, utilization, per-flow throughput,
//! fairness, drop and mark rates. Computed over the measured window [warm-up, end].

use aqm::time::to_secs;
use aqm::Nanos;
use serde::Serialize;

use crate::config::RateStep;
use crate::flow::FlowStats;
use crate::invariants::Invariants;
use crate::net::link::QueueCounts;
use crate::trace::DelayHistogram;
use crate::window::WindowCounts;
use crate::world::Simulation;

#[derive(Clone, Debug, Serialize)]
pub struct FlowSummary {
    pub group: u32,
    pub tcp: bool,
    pub start_s: f64,
    pub rtt_base_s: f64,
    /// Wire throughput at the receiver over the flow's active part of the measured window.
    pub throughput_bps: f64,
    /// Time from start to the last ACK of a finite transfer.
    pub completion_s: Option<f64>,
    /// The current connection's smoothed RTT and retransmission timeout (TCP), at the end.
    pub srtt_s: Option<f64>,
    pub rto_s: Option<f64>,
    /// Counts over the whole run: they balance (sent = delivered + dropped + in flight).
    #[serde(flatten)]
    pub counts: FlowStats,
    /// The packet counts of the measured window (`sent_measured`, ...; see [`crate::window`]).
    #[serde(flatten)]
    pub measured: WindowCounts,
    /// Data packets and ACKs alive in the network at the end, counted in the packet arena
    /// (see [`crate::invariants`]).
    pub in_flight: u64,
    pub acks_in_flight: u64,
}

/// What happened at one queue, or at a family of queues.
#[derive(Clone, Debug, Serialize)]
pub struct QueueSummary {
    /// "bottleneck", "reverse_bottleneck", "access" (every rate-limited access link), or a
    /// network link's name ("A->B").
    pub queue: String,
    /// Links counted.
    pub links: u32,
    /// Counts in the measured window; what the queue holds, at the end.
    #[serde(flatten)]
    pub counts: QueueCounts,
    /// Drops of every kind (discipline and impairment), in the measured window.
    pub drops: u64,
}

/// Sojourn statistics in seconds.
#[derive(Clone, Debug, Serialize)]
pub struct DelayStats {
    pub mean_s: f64,
    pub p50_s: f64,
    pub p90_s: f64,
    pub p95_s: f64,
    pub p99_s: f64,
    pub max_s: f64,
    pub n: u64,
}

impl DelayStats {
    pub fn of(h: &DelayHistogram) -> Self {
        DelayStats {
            mean_s: h.mean() * 1e-9,
            p50_s: h.quantile(0.5) * 1e-9,
            p90_s: h.quantile(0.9) * 1e-9,
            p95_s: h.quantile(0.95) * 1e-9,
            p99_s: h.quantile(0.99) * 1e-9,
            max_s: h.max_ns as f64 * 1e-9,
            n: h.n,
        }
    }
}

#[derive(Clone, Debug, Serialize)]
pub struct Summary {
    pub time_s: f64,
    pub measured_s: f64,
    pub events: u64,
    /// Bits sent on the bottleneck (link-layer overhead included) over the bits its
    /// (possibly changing) capacity allowed.
    pub utilization: f64,
    /// IP bytes that started transmission on the bottleneck in the measured window.
    pub bottleneck_bytes: u64,
    pub qdelay_mean_s: f64,
    pub qdelay_p50_s: f64,
    pub qdelay_p90_s: f64,
    pub qdelay_p95_s: f64,
    pub qdelay_p99_s: f64,
    pub qdelay_max_s: f64,
    pub departures_measured: u64,
    /// Sojourn in the bottleneck discipline alone (enqueue to dequeue, ns-3's `SojournTime`);
    /// the `qdelay_*` figures run to the start of transmission, which differs only by the
    /// wait in a device queue.
    pub qdisc_delay: DelayStats,
    /// Jain's index over the throughputs of the flows active in the measured window.
    pub jain_index: f64,
    /// Data packets sent, dropped at any queue or impairment, and delivered with CE set, in the
    /// measured window (see [`crate::window`]), as are the ACK counts and both rates.
    pub sent: u64,
    pub dropped: u64,
    pub marked: u64,
    pub acks_sent: u64,
    pub acks_dropped: u64,
    pub drop_rate: f64,
    pub mark_rate: f64,
    /// Finite transfers completed, and their completion times (all of the run).
    pub transfers: u64,
    pub fct_mean_s: f64,
    pub fct_p50_s: f64,
    pub fct_p99_s: f64,
    /// Arrivals, departures, drops and marks at every queue.
    pub queues: Vec<QueueSummary>,
    pub invariants: Invariants,
    /// Every flow's figures; empty, and left out of the JSON, in [`Simulation::aggregates`].
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub flows: Vec<FlowSummary>,
}

/// Bits a link starting at `rate_bps` could carry in [from, to], following its rate schedule.
pub fn capacity_bits(rate_bps: u64, schedule: &[RateStep], from: Nanos, to: Nanos) -> f64 {
    let mut bits = 0.0;
    let mut rate = rate_bps as f64;
    let mut t = from;
    for step in schedule {
        if step.at_ns > t {
            let until = step.at_ns.min(to);
            if until > t {
                bits += rate * to_secs(until - t);
                t = until;
            }
        }
        if step.at_ns <= t {
            rate = step.rate_bps as f64;
        }
    }
    if to > t {
        bits += rate * to_secs(to - t);
    }
    bits
}

/// Jain's fairness index (Σx)² / (n Σx²); 1 for equal shares, 1/n when one takes all.
pub fn jain(x: &[f64]) -> f64 {
    let s: f64 = x.iter().sum();
    let s2: f64 = x.iter().map(|v| v * v).sum();
    if x.is_empty() || s2 == 0.0 { 1.0 } else { s * s / (x.len() as f64 * s2) }
}

/// A column of the per-flow table.
/// Counts are signed, as pandas and Parquet readers expect of them (a difference of two
/// unsigned counts would wrap).
pub enum Column {
    I64(Vec<i64>),
    F64(Vec<f64>),
    Bool(Vec<bool>),
}

/// The per-flow figures of [`FlowSummary`] as columns, in its field order: the `flows` table a
/// run writes to Parquet, built without a row per flow (a million flows' rows as JSON took
/// 612 MB, issue 22). An absent figure is NaN: the throughput of a flow with no active time in
/// the measured window, the completion time of a flow that completed nothing, a UDP flow's
/// RTT and timeout. The second field is the number of rows the table will hold.
pub struct FlowColumns(pub Vec<(&'static str, Column)>, usize);

impl FlowColumns {
    /// Appends a flow's row; the first row makes the columns, each with room for every row, so
    /// that none is copied as it grows (a million flows: 26 columns of 8 MB).
    fn push(&mut self, f: &FlowSummary, active: bool) {
        let c = &f.counts;
        let absent = f64::NAN;
        let values = [
            ("group", Value::I64(f.group as i64)),
            ("tcp", Value::Bool(f.tcp)),
            ("start_s", Value::F64(f.start_s)),
            ("rtt_base_s", Value::F64(f.rtt_base_s)),
            ("throughput_bps", Value::F64(if active { f.throughput_bps } else { absent })),
            ("completion_s", Value::F64(f.completion_s.unwrap_or(absent))),
            ("srtt_s", Value::F64(f.srtt_s.unwrap_or(absent))),
            ("rto_s", Value::F64(f.rto_s.unwrap_or(absent))),
            ("sent", Value::I64(c.sent as i64)),
            ("delivered", Value::I64(c.delivered as i64)),
            ("dropped", Value::I64(c.dropped as i64)),
            ("marked", Value::I64(c.marked as i64)),
            ("acks_sent", Value::I64(c.acks_sent as i64)),
            ("acks_delivered", Value::I64(c.acks_delivered as i64)),
            ("acks_dropped", Value::I64(c.acks_dropped as i64)),
            ("bytes_delivered", Value::I64(c.bytes_delivered as i64)),
            ("bytes_measured", Value::I64(c.bytes_measured as i64)),
            ("goodput_bytes", Value::I64(c.goodput_bytes as i64)),
            ("retransmits", Value::I64(c.retransmits as i64)),
            ("timeouts", Value::I64(c.timeouts as i64)),
            ("fast_recoveries", Value::I64(c.fast_recoveries as i64)),
            ("ecn_reductions", Value::I64(c.ecn_reductions as i64)),
            ("window_raising_responses", Value::I64(c.window_raising_responses as i64)),
            ("transfers", Value::I64(c.transfers as i64)),
            ("sent_measured", Value::I64(f.measured.sent as i64)),
            ("dropped_measured", Value::I64(f.measured.dropped as i64)),
            ("marked_measured", Value::I64(f.measured.marked as i64)),
            ("acks_sent_measured", Value::I64(f.measured.acks_sent as i64)),
            ("acks_dropped_measured", Value::I64(f.measured.acks_dropped as i64)),
            ("in_flight", Value::I64(f.in_flight as i64)),
            ("acks_in_flight", Value::I64(f.acks_in_flight as i64)),
        ];
        if self.0.is_empty() {
            self.0 = values.iter().map(|(name, v)| (*name, v.empty_column(self.1))).collect();
        }
        for ((_, col), (_, v)) in self.0.iter_mut().zip(values) {
            v.push_to(col);
        }
    }
}

enum Value {
    I64(i64),
    F64(f64),
    Bool(bool),
}

impl Value {
    fn empty_column(&self, rows: usize) -> Column {
        match self {
            Value::I64(_) => Column::I64(Vec::with_capacity(rows)),
            Value::F64(_) => Column::F64(Vec::with_capacity(rows)),
            Value::Bool(_) => Column::Bool(Vec::with_capacity(rows)),
        }
    }

    fn push_to(self, col: &mut Column) {
        match (self, col) {
            (Value::I64(v), Column::I64(c)) => c.push(v),
            (Value::F64(v), Column::F64(c)) => c.push(v),
            (Value::Bool(v), Column::Bool(c)) => c.push(v),
            _ => unreachable!("a column keeps its type"),
        }
    }
}

impl Simulation {
    /// Every flow's figures in flow order, each with whether the flow had active time in the
    /// measured window (its throughput is 0 in the row when it had none).
    fn flow_rows(&self) -> impl Iterator<Item = (FlowSummary, bool)> + '_ {
        let end = self.now();
        let warm = self.cfg.warmup_ns.min(end);
        let alive = self.alive();
        self.flows.iter().enumerate().map(move |(i, f)| {
            let from = f.start_ns.max(warm);
            let to = f.stop_ns.unwrap_or(end).min(end);
            let dur = to.saturating_sub(from);
            let tput = if dur > 0 { f.stats.bytes_measured as f64 * 8.0 / to_secs(dur) } else { 0.0 };
            let d = f.path_delay_ns + f.access_delay_ns + f.receiver_delay_ns;
            let tcp = match &f.endpoint {
                crate::flow::Endpoint::Tcp { tx, .. } => Some(tx),
                crate::flow::Endpoint::Udp(_) => None,
            };
            let row = FlowSummary {
                group: f.group,
                tcp: f.is_tcp(),
                start_s: to_secs(f.start_ns),
                rtt_base_s: to_secs(2 * d),
                throughput_bps: tput,
                completion_s: f.completed_ns.map(|c| to_secs(c - f.start_ns)),
                srtt_s: tcp.map(|tx| tx.rtt.srtt() * 1e-9),
                rto_s: tcp.map(|tx| to_secs(tx.rtt.rto())),
                counts: self.flow_counts(i),
                measured: self.flow_window_counts(i),
                in_flight: alive.data[i],
                acks_in_flight: alive.acks[i],
            };
            (row, dur > 0)
        })
    }

    /// The per-flow table (see [`FlowColumns`]).
    pub fn flow_columns(&self) -> FlowColumns {
        let mut cols = FlowColumns(Vec::new(), self.flows.len());
        for (row, active) in self.flow_rows() {
            cols.push(&row, active);
        }
        cols
    }

    pub fn summary(&self) -> Summary {
        let mut s = self.aggregates();
        s.flows = self.flow_rows().map(|(row, _)| row).collect();
        s
    }

    /// The summary without its per-flow rows (`flows` empty; [`Simulation::flow_columns`] has
    /// them): what a run of a million flows can afford to hold.
    pub fn aggregates(&self) -> Summary {
        let end = self.now();
        let warm = self.cfg.warmup_ns.min(end);
        let measured = end - warm;
        let bl = &self.links[self.bottleneck as usize];
        let cap = capacity_bits(self.cfg.bottleneck.rate_bps, &self.cfg.bottleneck.rate_schedule, warm, end);
        let h = &self.queues[0].delay;
        let active: Vec<f64> = self.flow_rows().filter(|(_, active)| *active).map(|(row, _)| row.throughput_bps).collect();
        let mut w = WindowCounts::default();
        (0..self.flows.len()).for_each(|f| w.add(&self.flow_window_counts(f)));
        let WindowCounts { sent, dropped, marked, acks_sent, acks_dropped } = w;
        let ratio = |a: u64| if sent == 0 { 0.0 } else { a as f64 / sent as f64 };
        let mut fct: Vec<f64> = self.transfers.iter().map(|t| to_secs(t.3)).collect();
        fct.sort_by(f64::total_cmp);
        let pick = |q: f64| if fct.is_empty() { 0.0 } else { fct[((q * fct.len() as f64).ceil() as usize).clamp(1, fct.len()) - 1] };
        let link_delay = DelayStats::of(h);
        Summary {
            time_s: to_secs(end),
            measured_s: to_secs(measured),
            events: self.events(),
            utilization: if cap > 0.0 { bl.wire_bytes_measured() as f64 * 8.0 / cap } else { 0.0 },
            bottleneck_bytes: bl.tx_bytes_measured,
            qdelay_mean_s: link_delay.mean_s,
            qdelay_p50_s: link_delay.p50_s,
            qdelay_p90_s: link_delay.p90_s,
            qdelay_p95_s: link_delay.p95_s,
            qdelay_p99_s: link_delay.p99_s,
            qdelay_max_s: link_delay.max_s,
            departures_measured: link_delay.n,
            qdisc_delay: DelayStats::of(self.queues[0].qdisc_delay.as_ref().unwrap_or(h)),
            jain_index: jain(&active),
            sent,
            dropped,
            marked,
            acks_sent,
            acks_dropped,
            drop_rate: ratio(dropped),
            mark_rate: ratio(marked),
            transfers: fct.len() as u64,
            fct_mean_s: if fct.is_empty() { 0.0 } else { fct.iter().sum::<f64>() / fct.len() as f64 },
            fct_p50_s: pick(0.5),
            fct_p99_s: pick(0.99),
            queues: self.queue_summaries(),
            invariants: self.invariants(),
            flows: Vec::new(),
        }
    }

}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::{BottleneckConfig, Dist, FlowGroup};
    use aqm::{QdiscConfig, QueueLimit};

    #[test]
    fn capacity_follows_schedule() {
        let q = QdiscConfig::drop_tail(QueueLimit::Packets(10));
        let s = 1_000_000_000;
        let b = BottleneckConfig {
            rate_bps: 100_000_000,
            delay_ns: 0,
            mtu: 1500,
            queue: q.clone(),
            reverse_queue: q,
            rate_schedule: vec![RateStep { at_ns: 50 * s, rate_bps: 20_000_000 }, RateStep { at_ns: 100 * s, rate_bps: 100_000_000 }],
            target_schedule: vec![],
            impairment: None,
            device: Default::default(),
        };
        // 100 Mb/s·40 s + 20 Mb/s·50 s + 100 Mb/s·50 s from 10 s to 150 s.
        assert_eq!(capacity_bits(b.rate_bps, &b.rate_schedule, 10 * s, 150 * s), 4e9 + 1e9 + 5e9);
        assert_eq!(capacity_bits(b.rate_bps, &b.rate_schedule, 60 * s, 70 * s), 2e8);
        assert_eq!(capacity_bits(b.rate_bps, &b.rate_schedule, 0, 50 * s), 5e9);
    }

    #[test]
    fn jain_bounds() {
        assert_eq!(jain(&[2.0, 2.0, 2.0]), 1.0);
        assert_eq!(jain(&[4.0, 0.0, 0.0, 0.0]), 0.25);
    }

    /// Jain's index by its definition, (Σx)² / (n Σx²): 1 and 3 give 16 / (2 · 10) = 0.8; no
    /// flows, or flows that all got nothing, count as fair (1, not 0 / 0).
    #[test]
    fn jain_by_its_definition() {
        assert_eq!(jain(&[1.0, 3.0]), 0.8);
        assert_eq!(jain(&[]), 1.0);
        assert_eq!(jain(&[0.0, 0.0]), 1.0);
    }

    /// A histogram of the sojourns 1, 2, ..., 100 ns (each in a bucket of its own, below 256
    /// ns): mean 50.5 ns, the q-quantile the value of rank ceil(100 q) (50, 90, 95, 99 ns),
    /// max 100 ns, all reported in seconds.
    #[test]
    fn delay_statistics_are_in_seconds() {
        let mut h = DelayHistogram::default();
        for v in 1..=100 {
            h.record(v);
        }
        let d = DelayStats::of(&h);
        let close = |got: f64, want: f64| (got - want).abs() <= 1e-12 * want;
        for (got, want) in [(d.mean_s, 50.5e-9), (d.p50_s, 50e-9), (d.p90_s, 90e-9), (d.p95_s, 95e-9), (d.p99_s, 99e-9), (d.max_s, 100e-9)] {
            assert!(close(got, want), "{got} s, not {want} s");
        }
        assert_eq!(d.n, 100);
    }

    /// Capacity over windows that start or end on a step, or hold none: 100 Mb/s until 50 s,
    /// 20 until 100 s, 100 after.
    #[test]
    fn capacity_at_the_steps() {
        let s = 1_000_000_000;
        let steps = [RateStep { at_ns: 50 * s, rate_bps: 20_000_000 }, RateStep { at_ns: 100 * s, rate_bps: 100_000_000 }];
        // From a step: 20 Mb/s · 10 s.
        assert_eq!(capacity_bits(100_000_000, &steps, 50 * s, 60 * s), 2e8);
        // To a step: 20 Mb/s · 10 s.
        assert_eq!(capacity_bits(100_000_000, &steps, 90 * s, 100 * s), 2e8);
        // After every step: 100 Mb/s · 10 s.
        assert_eq!(capacity_bits(100_000_000, &steps, 110 * s, 120 * s), 1e9);
        // An empty window, and no schedule.
        assert_eq!(capacity_bits(100_000_000, &steps, 70 * s, 70 * s), 0.0);
        assert_eq!(capacity_bits(100_000_000, &[], 3 * s, 5 * s), 2e8);
    }

    /// Three CBR sources of 1000-B datagrams on a 10 Mb/s bottleneck (0.8 ms a packet, 2 ms
    /// one way, 100-packet DropTail), access links of 0.5 ms, receivers 0.3 ms behind it: a
    /// datagram sent at t reaches the bottleneck at t + 0.5 ms and its receiver at t + 3.6 ms
    /// (0.5 + 0.8 + 2 + 0.3), never queued as the sources below never meet there. Run 2 s with
    /// a warm-up of 1 s.
    /// - A: 4 Mb/s (one every 2 ms) from 1 ms: it reaches the bottleneck at odd ms + 0.5, its
    ///   receiver at 1 + 2j + 3.6 ms, in [1000, 2000] ms for j = 498..997: 500 datagrams, 4 Mb/s
    ///   over the whole window.
    /// - B: 2 Mb/s (one every 4 ms) from 1.5 s: at the bottleneck at even ms + 0.5 (A's
    ///   transmissions end at odd ms + 1.3), at its receiver at 1500 + 4k + 3.6 <= 2000 ms for
    ///   k = 0..124: 125 datagrams in its active 0.5 s, 2 Mb/s.
    /// - C: 1 Mb/s from 0 to 0.5 s: no active time in the window.
    ///
    /// Transmissions starting in the window: A's j = 500..999 and B's 125, 625 of 8000 bits
    /// over a capacity of 10^7: utilization 0.5. Jain's index over A and B: 36 / (2 · 20) =
    /// 0.9. Base RTT 2 (2 + 0.5 + 0.3) = 5.6 ms.
    fn three_sources() -> Simulation {
        let mut c = crate::bench::tcp_dumbbell(1, 10_000_000, 8_000_000, QueueLimit::Packets(100), 2 * s());
        c.warmup_ns = s();
        let source = |rate, start, stop| FlowGroup { start_ns: Dist::Fixed(start), stop_ns: stop, ..crate::bench::cbr_group(rate, false, 500_000, 300_000) };
        c.flows = vec![source(4_000_000, 1_000_000, None), source(2_000_000, 1_500_000_000, None), source(1_000_000, 0, Some(s() / 2))];
        let mut sim = Simulation::new(c).unwrap();
        sim.run();
        sim
    }

    fn s() -> u64 {
        1_000_000_000
    }

    /// Before the warm-up ends the window is empty: no capacity, so no utilization (0, not 0 /
    /// 0), no flow active in it (Jain's index of no flows, 1), nothing sent (rates 0).
    #[test]
    fn an_empty_window_has_zero_figures_not_nans() {
        let mut c = crate::bench::tcp_dumbbell(1, 10_000_000, 8_000_000, QueueLimit::Packets(100), 2 * s());
        c.warmup_ns = s();
        c.flows = vec![crate::bench::cbr_group(4_000_000, false, 500_000, 0)];
        let mut sim = Simulation::new(c).unwrap();
        sim.run_until(s() / 2);
        let sum = sim.aggregates();
        assert_eq!((sum.measured_s, sum.utilization, sum.jain_index, sum.sent, sum.drop_rate), (0.0, 0.0, 1.0, 0, 0.0));
    }

    #[test]
    fn the_summary_of_three_sources_is_worked_by_hand() {
        let mut sim = three_sources();
        // Four transfers completed in 4, 1, 3 and 2 s (written here, as the summary reads
        // them): mean 2.5 s; the median the value of rank ceil(0.5 · 4) = 2 in order, 2 s; the
        // 99th percentile of rank ceil(3.96) = 4, 4 s.
        sim.transfers.extend([4, 1, 3, 2].map(|t| (0, 0, 0, t * s())));
        let sum = sim.summary();
        assert_eq!((sum.time_s, sum.measured_s), (2.0, 1.0));
        assert_eq!(sum.bottleneck_bytes, 625 * 1000);
        assert_eq!(sum.utilization, 0.5);
        let tput: Vec<f64> = sum.flows.iter().map(|f| f.throughput_bps).collect();
        assert_eq!(tput, [4e6, 2e6, 0.0]);
        assert!((sum.jain_index - 0.9).abs() < 1e-12, "Jain's index {}", sum.jain_index);
        for f in &sum.flows {
            assert!((f.rtt_base_s - 5.6e-3).abs() < 1e-15, "base RTT {}", f.rtt_base_s);
            assert_eq!((f.completion_s, f.srtt_s, f.rto_s), (None, None, None));
        }
        assert_eq!(sum.transfers, 4);
        assert_eq!((sum.fct_mean_s, sum.fct_p50_s, sum.fct_p99_s), (2.5, 2.0, 4.0));
        // No drop and no mark; nothing waited at the bottleneck.
        assert_eq!((sum.dropped, sum.marked, sum.drop_rate, sum.mark_rate, sum.qdelay_max_s), (0, 0, 0.0, 0.0, 0.0));
        // The per-flow table has the rows' figures, C's throughput absent (NaN) as it had no
        // active time.
        let cols = sim.flow_columns();
        let col = |name: &str| &cols.0.iter().find(|(n, _)| *n == name).expect("a column").1;
        let Column::F64(t) = col("throughput_bps") else { panic!("throughput in floats") };
        assert_eq!((t.len(), t[0], t[1], t[2].is_nan()), (3, 4e6, 2e6, true));
        let Column::I64(g) = col("group") else { panic!("groups in integers") };
        assert_eq!(g, &[0, 1, 2]);
        let Column::Bool(tcp) = col("tcp") else { panic!("tcp in booleans") };
        assert_eq!(tcp, &[false; 3]);
        let Column::I64(sent) = col("sent_measured") else { panic!("counts in integers") };
        assert_eq!(sent, &sum.flows.iter().map(|f| f.measured.sent as i64).collect::<Vec<_>>());
    }
}
