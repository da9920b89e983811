//! The simulation: state, event dispatch and the packet path.
//!
//! A data packet costs about five events on the dumbbell with ideal access links: arrival at
//! the bottleneck, the end of its serialization (only while a queue is waiting), arrival at
//! the receiver, the ACK's arrival at the reverse bottleneck, and its arrival at the sender.
//! Pure-delay hops are folded into the next arrival, and a link schedules `TxDone` only when a
//! packet is waiting behind the one it sends.

use aqm::{Action, ActionKind, DropReason, Ecn, Nanos, Pkt, QueueDisc};

use crate::config::SimConfig;
use crate::endpoints::build_flows;
use crate::engine::Scheduler;
use crate::flow::{Endpoint, Flow};
use crate::net::dumbbell;
use crate::net::{Arena, Dir, Kind, Link, LinkId, Packet};
use crate::tcp::{AckOut, Segment};
use crate::net::impair::Fate;
use crate::trace::{DelayHistogram, Traces, EVENT_DROP_DEQUEUE, EVENT_DROP_EARLY, EVENT_DROP_IMPAIRMENT, EVENT_DROP_OVERFLOW, EVENT_MARK};

/// Everything that can happen, dispatched by `match`.
#[derive(Clone, Copy, Debug)]
pub enum Event {
    /// Packet `pkt` reaches hop `hop` of its route (or its destination).
    Arrive { pkt: u32 },
    /// The link finished serializing and a packet is waiting.
    TxDone { link: LinkId },
    /// The periodic update of a link's discipline is due.
    QdiscUpdate { link: LinkId },
    /// Step `step` of the bottleneck's rate schedule takes effect.
    RateChange { step: u32 },
    FlowStart { flow: u32 },
    FlowStop { flow: u32 },
    /// A flow's retransmission timer; stale when `gen` is not the flow's current one.
    Rto { flow: u32, gen: u32 },
    /// A receiver's delayed-ACK timer for connection `conn`.
    DelAck { flow: u32, conn: u32 },
    /// The think time of an HTTP-like session is over: open the next connection.
    NextObject { flow: u32 },
    UdpSend { flow: u32 },
    /// Record the periodic traces.
    Sample,
}

pub struct Simulation {
    pub cfg: SimConfig,
    pub(crate) sched: Scheduler<Event>,
    arena: Arena,
    pub links: Vec<Link>,
    routes: Vec<Vec<LinkId>>,
    pub bottleneck: LinkId,
    reverse_bottleneck: LinkId,
    pub flows: Vec<Flow>,
    /// Scratch buffers reused on the per-packet path (no allocation per packet).
    actions: Vec<Action>,
    pub(crate) segments: Vec<Segment>,
    pub(crate) acks: Vec<AckOut>,
    /// Every completed finite transfer: (flow, start, payload bytes, completion time).
    pub transfers: Vec<(u32, Nanos, u64, Nanos)>,
    /// Bottleneck sojourn times of departures at or after the warm-up.
    pub delay_hist: DelayHistogram,
    last_sojourn_ns: u64,
    departures: u64,
    pub traces: Traces,
    pub(crate) flow_bytes_since_sample: Vec<u64>,
    probe_buf: Vec<f64>,
    /// Data packets delivered to receivers (the benchmark's packet count).
    pub delivered_packets: u64,
    /// Per Packet Value markers of the marked flow groups.
    pub ppv: crate::ppv::PolicyMarkers,
}

impl Simulation {
    pub fn new(cfg: SimConfig) -> Result<Self, String> {
        cfg.validate()?;
        let flows = build_flows(&cfg);
        let delays: Vec<u64> = flows.iter().map(|f| f.access_delay_ns).collect();
        let rdelays: Vec<u64> = flows.iter().map(|f| f.receiver_delay_ns).collect();
        let topo = dumbbell::build(&cfg, &delays, &rdelays);
        let mut sim = Simulation {
            sched: Scheduler::default(),
            arena: Arena::default(),
            links: topo.links,
            routes: topo.routes,
            bottleneck: topo.bottleneck,
            reverse_bottleneck: topo.reverse_bottleneck,
            flow_bytes_since_sample: vec![0; flows.len()],
            ppv: crate::ppv::PolicyMarkers::new(&cfg, &flows),
            flows,
            actions: Vec::with_capacity(16),
            segments: Vec::with_capacity(64),
            acks: Vec::with_capacity(4),
            transfers: Vec::new(),
            delay_hist: DelayHistogram::default(),
            last_sojourn_ns: 0,
            departures: 0,
            traces: Traces::default(),
            probe_buf: Vec::new(),
            delivered_packets: 0,
            cfg,
        };
        sim.schedule_initial();
        Ok(sim)
    }

    fn schedule_initial(&mut self) {
        for f in 0..self.flows.len() {
            let flow = &self.flows[f];
            self.sched.at(flow.start_ns, Event::FlowStart { flow: f as u32 });
            if let Some(stop) = flow.stop_ns {
                self.sched.at(stop, Event::FlowStop { flow: f as u32 });
            }
        }
        for (i, step) in self.cfg.bottleneck.rate_schedule.iter().enumerate() {
            self.sched.at(step.at_ns, Event::RateChange { step: i as u32 });
        }
        for l in 0..self.links.len() {
            if let Some(t) = self.links[l].qdisc.as_ref().and_then(|q| q.next_update_at()) {
                self.sched.at(t, Event::QdiscUpdate { link: l as LinkId });
            }
        }
        if self.cfg.traces.any_periodic() || self.cfg.traces.sojourn || self.cfg.traces.drops {
            self.traces.cfg = Some(self.cfg.traces.clone());
            if let Some(q) = self.links[self.bottleneck as usize].qdisc.as_ref() {
                self.traces.probe_names = q.probe_names();
                self.traces.probe_names.extend(self.ppv.probe_names());
            }
        }
        if self.cfg.traces.any_periodic() {
            self.sched.at(0, Event::Sample);
        }
    }

    /// Current simulated time.
    pub fn now(&self) -> Nanos {
        self.sched.now()
    }

    /// Events executed so far.
    pub fn events(&self) -> u64 {
        self.sched.executed()
    }

    /// Packets currently in the network.
    pub fn packets_in_flight(&self) -> usize {
        self.arena.live()
    }

    /// High-water mark of packets in the network.
    pub fn arena_capacity(&self) -> usize {
        self.arena.capacity()
    }

    pub fn is_done(&self) -> bool {
        self.sched.now() >= self.cfg.duration_ns
    }

    /// Runs every event up to `t` (capped at the duration) and moves the clock there.
    pub fn run_until(&mut self, t: Nanos) {
        let t = t.min(self.cfg.duration_ns);
        while let Some(ev) = self.sched.pop_until(t) {
            self.handle(ev);
        }
        self.sched.advance_to(t);
    }

    /// Runs to the end.
    pub fn run(&mut self) {
        self.run_until(self.cfg.duration_ns);
    }

    fn handle(&mut self, ev: Event) {
        let now = self.sched.now();
        match ev {
            Event::Arrive { pkt } => self.forward(pkt, now),
            Event::TxDone { link } => {
                self.links[link as usize].txdone_pending = false;
                self.start_next(link);
            }
            Event::QdiscUpdate { link } => {
                let q = self.links[link as usize].qdisc.as_mut().expect("update on a link without a queue");
                q.update(now);
                if let Some(t) = q.next_update_at() {
                    // A discipline must move its timer forward; one ns guards a stuck clock.
                    self.sched.at(t.max(now + 1), Event::QdiscUpdate { link });
                }
            }
            Event::RateChange { step } => {
                let rate = self.cfg.bottleneck.rate_schedule[step as usize].rate_bps;
                self.links[self.bottleneck as usize].set_rate(rate);
                self.links[self.reverse_bottleneck as usize].set_rate(rate);
            }
            Event::FlowStart { flow } => self.start_flow(flow as usize),
            Event::FlowStop { flow } => self.stop_flow(flow as usize),
            Event::Rto { flow, gen } => self.on_rto(flow as usize, gen),
            Event::DelAck { flow, conn } => self.on_delack(flow as usize, conn),
            Event::NextObject { flow } => self.open_connection(flow as usize),
            Event::UdpSend { flow } => self.udp_send(flow as usize),
            Event::Sample => self.sample(),
        }
    }

    /// Injects a new packet at its first hop.
    pub(crate) fn send(&mut self, p: Packet) {
        let flow = &mut self.flows[p.flow as usize];
        match p.kind {
            Kind::Data => flow.stats.sent += 1,
            Kind::Ack => flow.stats.acks_sent += 1,
        }
        let id = self.arena.alloc(p);
        self.forward(id, self.sched.now());
    }

    fn route_of(p: &Packet) -> usize {
        2 * p.flow as usize + (p.dir == Dir::Reverse) as usize
    }

    /// Moves packet `id` on from its current hop, which it reaches at time `t`: pure-delay
    /// hops are crossed at once, then the packet is queued, delivered, or scheduled to arrive.
    fn forward(&mut self, id: u32, mut t: Nanos) {
        let p = self.arena.get(id);
        let route = &self.routes[Self::route_of(p)];
        let mut hop = p.hop as usize;
        while hop < route.len() {
            let link = &self.links[route[hop] as usize];
            if link.rate_bps.is_some() {
                break;
            }
            t += link.delay_ns;
            hop += 1;
        }
        let next = route.get(hop).copied();
        self.arena.get_mut(id).hop = hop as u16;
        if t > self.sched.now() {
            self.sched.at(t, Event::Arrive { pkt: id });
            return;
        }
        match next {
            Some(link) => self.enqueue(link, id),
            None => self.deliver(id),
        }
    }

    fn enqueue(&mut self, l: LinkId, id: u32) {
        let now = self.sched.now();
        if let Some(imp) = self.links[l as usize].impairment.as_mut() {
            let p = self.arena.get_mut(id);
            match imp.judge(now, p.ecn) {
                Fate::Pass => {}
                Fate::Mark => p.ecn = Ecn::Ce,
                Fate::Drop => {
                    let pkt = Pkt { id, len: p.len, flow: p.flow, ecn: p.ecn, pv: p.pv, dscp: p.dscp, enqueued_at: now };
                    self.impairment_drop(l, pkt);
                    return;
                }
            }
        }
        let p = self.arena.get(id);
        let pkt = Pkt { id, len: p.len, flow: p.flow, ecn: p.ecn, pv: p.pv, dscp: p.dscp, enqueued_at: now };
        let link = &mut self.links[l as usize];
        link.qdisc.as_mut().expect("rated link has a queue").enqueue(now, pkt, &mut self.actions);
        self.apply_actions(l);
        let link = &mut self.links[l as usize];
        if !link.txdone_pending {
            if link.busy_until <= now {
                self.start_next(l);
            } else {
                link.txdone_pending = true;
                self.sched.at(link.busy_until, Event::TxDone { link: l });
            }
        }
    }

    /// Takes the next packet from link `l`'s discipline and starts serializing it.
    fn start_next(&mut self, l: LinkId) {
        let now = self.sched.now();
        let q = self.links[l as usize].qdisc.as_mut().expect("rated link has a queue");
        let next = q.dequeue(now, &mut self.actions);
        let backlogged = q.backlog().packets > 0;
        self.apply_actions(l);
        let Some(pkt) = next else { return };
        if l == self.bottleneck {
            self.record_departure(now, &pkt);
        }
        let link = &mut self.links[l as usize];
        let tx = link.serialize(pkt.len);
        link.busy_until = now + tx;
        link.tx_packets += 1;
        if now >= self.cfg.warmup_ns {
            link.tx_bytes_measured += pkt.len as u64;
        }
        let arrive = now + tx + link.delay_ns;
        if backlogged {
            link.txdone_pending = true;
            self.sched.at(link.busy_until, Event::TxDone { link: l });
        }
        let p = self.arena.get_mut(pkt.id);
        p.ecn = pkt.ecn;
        p.hop += 1;
        self.forward(pkt.id, arrive);
    }

    fn record_departure(&mut self, now: Nanos, pkt: &Pkt) {
        let sojourn = now - pkt.enqueued_at;
        self.last_sojourn_ns = sojourn;
        if now >= self.cfg.warmup_ns {
            self.delay_hist.record(sojourn);
        }
        if self.cfg.traces.sojourn {
            if self.departures % self.cfg.traces.sojourn_every as u64 == 0 {
                self.traces.sojourn_t.push(now);
                self.traces.sojourn_ns.push(sojourn);
                self.traces.sojourn_flow.push(pkt.flow);
            }
            self.departures += 1;
        }
    }

    fn impairment_drop(&mut self, l: LinkId, pkt: Pkt) {
        let p = *self.arena.get(pkt.id);
        let stats = &mut self.flows[p.flow as usize].stats;
        match p.kind {
            Kind::Data => stats.dropped += 1,
            Kind::Ack => stats.acks_dropped += 1,
        }
        self.arena.free(pkt.id);
        self.record_drop(l, p.flow, EVENT_DROP_IMPAIRMENT);
    }

    fn record_drop(&mut self, l: LinkId, flow: u32, code: u8) {
        if self.cfg.traces.drops {
            self.traces.drop_t.push(self.sched.now());
            self.traces.drop_flow.push(flow);
            self.traces.drop_kind.push(code);
            self.traces.drop_link.push(l);
        }
    }

    /// Accounts for the drops and marks a discipline reported.
    fn apply_actions(&mut self, l: LinkId) {
        if self.actions.is_empty() {
            return;
        }
        let mut actions = std::mem::take(&mut self.actions);
        for a in actions.drain(..) {
            let p = *self.arena.get(a.pkt.id);
            let stats = &mut self.flows[p.flow as usize].stats;
            let code = match a.kind {
                ActionKind::Drop(reason) => {
                    match p.kind {
                        Kind::Data => stats.dropped += 1,
                        Kind::Ack => stats.acks_dropped += 1,
                    }
                    self.arena.free(a.pkt.id);
                    match reason {
                        DropReason::Overflow => EVENT_DROP_OVERFLOW,
                        DropReason::Early => EVENT_DROP_EARLY,
                        DropReason::Dequeue => EVENT_DROP_DEQUEUE,
                    }
                }
                ActionKind::Mark => {
                    self.arena.get_mut(a.pkt.id).ecn = Ecn::Ce;
                    EVENT_MARK
                }
            };
            self.record_drop(l, p.flow, code);
        }
        self.actions = actions;
    }

    fn deliver(&mut self, id: u32) {
        let now = self.sched.now();
        let p = *self.arena.get(id);
        self.arena.free(id);
        let f = p.flow as usize;
        match p.kind {
            Kind::Data => {
                self.delivered_packets += 1;
                let st = &mut self.flows[f].stats;
                st.delivered += 1;
                st.marked += (p.ecn == Ecn::Ce) as u64;
                st.bytes_delivered += p.len as u64;
                if now >= self.cfg.warmup_ns {
                    st.bytes_measured += p.len as u64;
                }
                self.flow_bytes_since_sample[f] += p.len as u64;
                if self.flows[f].is_tcp() {
                    self.tcp_data_arrived(f, &p);
                } else {
                    self.flows[f].stats.goodput_bytes += (p.len - crate::net::HEADER_BYTES) as u64;
                }
            }
            Kind::Ack => {
                self.flows[f].stats.acks_delivered += 1;
                self.tcp_ack_arrived(f, &p);
            }
        }
    }

    fn sample(&mut self) {
        let now = self.sched.now();
        let tc = &self.cfg.traces;
        let t = &mut self.traces;
        t.sample_t.push(now);
        let link = &self.links[self.bottleneck as usize];
        let q = link.qdisc.as_ref().expect("bottleneck has a queue");
        if tc.queue {
            let b = q.backlog();
            t.queue_bytes.push(b.bytes);
            t.queue_packets.push(b.packets);
            t.queue_delay_ns.push(if b.packets == 0 { 0 } else { self.last_sojourn_ns });
            t.link_rate_bps.push(link.rate_bps.unwrap_or(0));
        }
        if tc.probe {
            self.probe_buf.clear();
            q.probe(&mut self.probe_buf);
            self.ppv.probe(now, link.rate_bps.unwrap_or(0) as f64, &mut self.probe_buf);
            t.probe.extend_from_slice(&self.probe_buf);
        }
        if tc.flow_bytes {
            t.flow_bytes.extend_from_slice(&self.flow_bytes_since_sample);
            self.flow_bytes_since_sample.iter_mut().for_each(|b| *b = 0);
        }
        if tc.tcp {
            for flow in &self.flows {
                let (c, s, r) = match &flow.endpoint {
                    Endpoint::Tcp { tx, .. } => (tx.cwnd, tx.ssthresh, tx.rtt.srtt()),
                    Endpoint::Udp(_) => (f64::NAN, f64::NAN, f64::NAN),
                };
                t.tcp_cwnd.push(c);
                t.tcp_ssthresh.push(s);
                t.tcp_srtt_ns.push(r);
            }
        }
        let next = now + tc.interval_ns;
        if next <= self.cfg.duration_ns {
            self.sched.at(next, Event::Sample);
        }
    }
}
