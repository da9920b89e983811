//! Every queue, reported by name: the bottleneck, its reverse direction, the family of
//! rate-limited access links, and each direction of a network's declared links.
//!
//! A link with a discipline belongs to one reported queue (its `report` slot); the access
//! links share one (there are four per host: a histogram each would cost more memory than the
//! hosts themselves). Each queue keeps the sojourn histograms of its departures in the measured
//! window (to the start of transmission, and in the discipline alone when a device queue sits
//! between the two), the last departure's sojourn for the periodic trace, and its own
//! sampling counter for the per-packet trace. The counts (arrivals, drops, marks) stay on the
//! links (see [`QueueCounts`]) and are added up per queue here.

use aqm::{Nanos, QueueDisc};
use serde::Serialize;

use crate::config::{RateStep, SimConfig};
use crate::net::link::QueueCounts;
use crate::net::{Link, LinkId};
use crate::summary::{capacity_bits, DelayStats, QueueSummary};
use crate::trace::DelayHistogram;
use crate::world::Simulation;

/// The `report` slot of a link that belongs to no reported queue (a pure-delay link).
pub const NO_QUEUE: u32 = u32::MAX;
/// Slots of the bottleneck's two directions.
pub const BOTTLENECK: u32 = 0;

/// One reported queue and what is recorded of it.
pub struct Queue {
    /// "bottleneck", "reverse_bottleneck", "access", or a network link's "from->to".
    pub name: String,
    /// The routers it joins ("L->R" on the dumbbell; "access" for the access family).
    pub ends: String,
    /// Its links (one, except for the access family).
    pub members: Vec<LinkId>,
    /// The configured rate and schedule of each member (for the utilization).
    rate_bps: u64,
    schedule: Vec<RateStep>,
    /// Link sojourn (discipline enqueue to transmission start) of departures in the measured window.
    pub delay: DelayHistogram,
    /// Discipline sojourn (enqueue to dequeue), kept only when a device queue separates the two.
    pub qdisc_delay: Option<DelayHistogram>,
    /// Sojourn of the latest departure, and the sum and count of the sojourns since the last
    /// sample (the periodic trace's `last_sojourn` and `sojourn_mean`).
    pub last_sojourn_ns: Nanos,
    pub interval_sojourn: (u64, u64),
    /// Departures seen by the per-packet trace (it keeps every n-th).
    pub traced: u64,
}

/// One queue's figures over the measured window.
#[derive(Clone, Debug, Serialize)]
pub struct LinkSummary {
    pub queue: String,
    pub ends: String,
    pub links: u32,
    /// Bits on the wire (link-layer overhead included) over what the capacity allowed.
    pub utilization: f64,
    /// Drops of every kind over arrivals (impairment losses counted as arrivals).
    pub drop_rate: f64,
    /// CE marks over departures.
    pub mark_rate: f64,
    /// Link sojourn and discipline sojourn (the same when there is no device queue).
    pub delay: DelayStats,
    pub qdisc_delay: DelayStats,
}

/// The reported queues of a built topology, and the slot of each link (written into it).
pub fn assign(cfg: &SimConfig, links: &mut [Link], network_first_link: LinkId) -> Vec<Queue> {
    let b = &cfg.bottleneck;
    let (l, r) = cfg.network.as_ref().map_or(("L".to_string(), "R".to_string()), |n| (n.bottleneck[0].clone(), n.bottleneck[1].clone()));
    let mut out = Vec::new();
    let mut add = |links: &mut [Link], name: String, ends: String, members: Vec<LinkId>, rate_bps: u64, schedule: Vec<RateStep>| {
        let device = members.iter().any(|&m| links[m as usize].device.is_some());
        for &m in &members {
            links[m as usize].report = out.len() as u32;
        }
        out.push(Queue { name, ends, members, rate_bps, schedule, delay: DelayHistogram::default(), qdisc_delay: device.then(DelayHistogram::default), last_sojourn_ns: 0, interval_sojourn: (0, 0), traced: 0 });
    };
    add(links, "bottleneck".into(), format!("{l}->{r}"), vec![0], b.rate_bps, b.rate_schedule.clone());
    add(links, "reverse_bottleneck".into(), format!("{r}->{l}"), vec![1], b.rate_bps, b.rate_schedule.clone());
    let access: Vec<LinkId> = (2..network_first_link).filter(|&i| links[i as usize].qdisc.is_some()).collect();
    if let (false, Some(rate)) = (access.is_empty(), cfg.access.rate_bps) {
        add(links, "access".into(), "access".into(), access, rate, vec![]);
    }
    for (k, nl) in cfg.network.iter().flat_map(|n| &n.links).enumerate() {
        let fwd = network_first_link + 2 * k as LinkId;
        for (id, ends) in [(fwd, format!("{}->{}", nl.from, nl.to)), (fwd + 1, format!("{}->{}", nl.to, nl.from))] {
            add(links, ends.clone(), ends, vec![id], nl.rate_bps, nl.rate_schedule.clone());
        }
    }
    out
}

impl Simulation {
    /// Arrivals, departures, drops and marks of every reported queue in the measured window,
    /// in slot order.
    pub(crate) fn queue_summaries(&self) -> Vec<QueueSummary> {
        self.queues
            .iter()
            .map(|q| {
                let mut c = QueueCounts::default();
                q.members.iter().for_each(|&m| c.add(&self.link_window_counts(m as usize)));
                QueueSummary { queue: q.name.clone(), links: q.members.len() as u32, counts: c, drops: c.drops() }
            })
            .collect()
    }

    /// Every reported queue's utilization, drop and mark rates and sojourn statistics.
    pub fn link_summaries(&self) -> Vec<LinkSummary> {
        let end = self.now();
        let warm = self.cfg.warmup_ns.min(end);
        self.queues
            .iter()
            .zip(self.queue_summaries())
            .map(|(q, s)| {
                let wire: u64 = q.members.iter().map(|&m| self.links[m as usize].wire_bytes_measured()).sum();
                let cap = capacity_bits(q.rate_bps, &q.schedule, warm, end) * q.members.len() as f64;
                let c = s.counts;
                let ratio = |a: u64, b: u64| if b == 0 { 0.0 } else { a as f64 / b as f64 };
                LinkSummary {
                    queue: q.name.clone(),
                    ends: q.ends.clone(),
                    links: s.links,
                    utilization: if cap > 0.0 { wire as f64 * 8.0 / cap } else { 0.0 },
                    drop_rate: ratio(s.drops, c.arrivals + c.drops_impairment),
                    mark_rate: ratio(c.marks, c.departures),
                    delay: DelayStats::of(&q.delay),
                    qdisc_delay: DelayStats::of(q.qdisc_delay.as_ref().unwrap_or(&q.delay)),
                }
            })
            .collect()
    }

    /// The reported queues, in slot order (the summaries' and the traces' order).
    pub fn queues(&self) -> &[Queue] {
        &self.queues
    }

    /// Each link's queue slot, by link id ([`NO_QUEUE`] for a pure-delay link).
    pub fn link_queues(&self) -> Vec<u32> {
        self.links.iter().map(|l| l.report).collect()
    }

    /// Samples every queue's backlog, last sojourn and mean sojourn since the last sample into
    /// the `link_queue_*` traces; returns the index of this sample's first column.
    pub(crate) fn sample_queues(&mut self) -> usize {
        let row = self.traces.link_queue_bytes.len();
        for q in &mut self.queues {
            let (mut bytes, mut packets) = (0, 0);
            for &m in &q.members {
                let b = self.links[m as usize].qdisc.as_ref().expect("a reported queue has a discipline").backlog();
                bytes += b.bytes;
                packets += b.packets;
            }
            let t = &mut self.traces;
            t.link_queue_bytes.push(bytes);
            t.link_queue_packets.push(packets);
            t.link_queue_last_sojourn_ns.push(if packets == 0 { 0 } else { q.last_sojourn_ns });
            t.link_queue_sojourn_mean_ns.push(crate::trace::interval_mean(&mut q.interval_sojourn));
        }
        row
    }

    /// The discipline of each queue that has one (not the access family's many).
    fn single_qdisc(&self, q: &Queue) -> Option<&aqm::Qdisc> {
        match q.members[..] {
            [m] => self.links[m as usize].qdisc.as_ref(),
            _ => None,
        }
    }

    /// Each queue's probe variable names (none for the access family).
    pub(crate) fn queue_probe_names(&self) -> Vec<Vec<&'static str>> {
        self.queues.iter().map(|q| self.single_qdisc(q).map_or(vec![], |d| d.probe_names())).collect()
    }

    /// Samples every queue's discipline variables into the `link_probe` trace.
    pub(crate) fn probe_queues(&mut self) {
        let mut row = std::mem::take(&mut self.probe_buf);
        row.clear();
        for q in &self.queues {
            if let Some(d) = self.single_qdisc(q) {
                d.probe(&mut row);
            }
        }
        self.traces.link_probe.extend_from_slice(&row);
        self.probe_buf = row;
    }

    /// Records the departure of `pkt` from link `l`'s queue (slot `slot`) at `now`, having
    /// left the discipline at `left_qdisc`: histograms in the measured window, the periodic
    /// trace's last sojourn, and the per-packet traces (`sojourn` for the bottleneck, whose
    /// columns predate the others, `link_sojourn_*` for every other queue).
    #[inline(always)]
    pub(crate) fn record_departure(&mut self, slot: u32, now: Nanos, pkt: &aqm::Pkt, left_qdisc: Nanos) {
        let sojourn = now - pkt.enqueued_at;
        let q = &mut self.queues[slot as usize];
        q.last_sojourn_ns = sojourn;
        q.interval_sojourn.0 += sojourn;
        q.interval_sojourn.1 += 1;
        if now >= self.cfg.warmup_ns {
            q.delay.record(sojourn);
        }
        if !self.cfg.traces.sojourn {
            return;
        }
        let keep = q.traced.is_multiple_of(self.cfg.traces.sojourn_every as u64);
        q.traced += 1;
        if !keep {
            return;
        }
        let t = &mut self.traces;
        if slot == BOTTLENECK {
            t.sojourn_t.push(now);
            t.sojourn_ns.push(sojourn);
            t.sojourn_qdisc_ns.push(left_qdisc - pkt.enqueued_at);
            t.sojourn_flow.push(pkt.flow);
        } else {
            t.link_sojourn_t.push(now);
            t.link_sojourn_queue.push(slot);
            t.link_sojourn_ns.push(sojourn);
            t.link_sojourn_qdisc_ns.push(left_qdisc - pkt.enqueued_at);
            t.link_sojourn_flow.push(pkt.flow);
        }
    }
}
