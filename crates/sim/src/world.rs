//! The simulation: state, event dispatch, routing and delivery (the way across a rated link
//! is in [`crate::net`]'s `path` module).
//!
//! A data packet costs at most five events on the dumbbell with ideal access links: arrival
//! at the bottleneck, the end of its serialization (only while a queue is waiting), arrival at
//! the receiver, the ACK's arrival at the reverse bottleneck, and its arrival at the sender.
//! Pure-delay hops are folded into the next arrival (a zero-delay one costs no event: four
//! per packet in the benchmark, whose receivers sit on the routers), and a link schedules
//! `TxDone` only when a packet is waiting behind the one it sends.

use aqm::{Action, Ecn, Nanos, QueueDisc};

use crate::config::SimConfig;
use crate::endpoints::build_flows;
use crate::engine::Scheduler;
use crate::flow::{DropCounts, Endpoint, Flow, FlowStats};
use crate::invariants::{probability_probes, Invariants, PERIODIC_EVENTS};
use crate::net::dumbbell;
use crate::net::plan::Plan;
use crate::net::{Arena, Kind, Link, LinkId, Packet};
use crate::tcp::{AckOut, Segment};
use crate::queues::Queue;
use crate::trace::Traces;

/// Everything that can happen, dispatched by `match`.
#[derive(Clone, Copy, Debug)]
pub enum Event {
    /// Packet `pkt` reaches link `link`'s queue (known when it set off, so that an arrival
    /// reads no route).
    Arrive { pkt: u32, link: LinkId },
    /// Packet `pkt` of flow `flow` reaches its destination (the flow is known without reading
    /// the packet, so that what the delivery reads can be fetched ahead: see `run_until`).
    Deliver { pkt: u32, flow: u32 },
    /// The link finished serializing and a packet is waiting.
    TxDone { link: LinkId },
    /// The periodic update of a link's discipline is due.
    QdiscUpdate { link: LinkId },
    /// Step `step` of the bottleneck's rate schedule takes effect.
    RateChange { step: u32 },
    /// Step `step` of declared network link `link`'s rate schedule takes effect.
    NetworkRateChange { link: u32, step: u32 },
    /// Step `step` of the bottleneck's target schedule takes effect.
    TargetChange { step: u32 },
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
    pub(crate) arena: Arena,
    pub links: Vec<Link>,
    /// What forwarding does with a packet at each hop of each route.
    plan: Plan,
    pub bottleneck: LinkId,
    pub reverse_bottleneck: LinkId,
    /// Forward id of the first declared network link (see [`dumbbell::Topology`]).
    pub network_first_link: LinkId,
    pub flows: Vec<Flow>,
    /// Each flow's drops (see [`DropCounts`]); [`Simulation::flow_counts`] adds them in.
    pub(crate) drops: Vec<DropCounts>,
    /// Scratch buffers reused on the per-packet path (no allocation per packet).
    pub(crate) actions: Vec<Action>,
    pub(crate) segments: Vec<Segment>,
    pub(crate) acks: Vec<AckOut>,
    /// Every completed finite transfer: (flow, start, payload bytes, completion time).
    pub transfers: Vec<(u32, Nanos, u64, Nanos)>,
    /// Every reported queue (the bottleneck first) and its sojourn statistics (see
    /// [`crate::queues`]).
    pub(crate) queues: Vec<Queue>,
    pub traces: Traces,
    /// Packet captures asked for by `traces.pcap` (see [`crate::pcap`]).
    pub pcap: Option<crate::pcap::Pcap>,
    pub(crate) flow_bytes_since_sample: Vec<u64>,
    pub(crate) probe_buf: Vec<f64>,
    /// Data packets delivered to receivers (the benchmark's packet count).
    pub delivered_packets: u64,
    /// Sequence number of the flows' earliest event whose lines were last fetched (see
    /// `run_until`).
    flow_top_fetched: u64,
    /// The counters when the measured window opened (see [`crate::window`]).
    pub(crate) window: crate::window::Window,
    /// Per Packet Value markers of the marked flow groups.
    pub ppv: crate::ppv::PolicyMarkers,
    /// Invariant checks made so far (see [`crate::invariants`]).
    pub(crate) invariants: Invariants,
    /// Where each discipline's probabilities sit in its probe vector.
    pub(crate) prob_probes: Vec<(LinkId, Vec<usize>)>,
    /// Panic at the end of `run_until` if an invariant was violated: on in debug builds and in
    /// the crate's unit tests; the integration tests set it (tests/common).
    pub strict_invariants: bool,
    /// Packets in flight wait in per-link delay lines (see [`crate::engine`]); off, every
    /// arrival goes through the heap: the reference path the lines must match exactly.
    delay_lines: bool,
    #[cfg(test)]
    pub(crate) faults: crate::invariants::Faults,
    /// Cycles by kind of event (see [`crate::cycles`]).
    #[cfg(feature = "event-cycles")]
    pub cycles: crate::cycles::EventCycles,
}

impl Simulation {
    pub fn new(cfg: SimConfig) -> Result<Self, String> {
        cfg.validate()?;
        let mut flows = build_flows(&cfg);
        let mut topo = dumbbell::build(&cfg, &flows);
        let queues = crate::queues::assign(&cfg, &mut topo.links, topo.network_first_link);
        let plan = Plan::new(&topo.links, &topo.routes);
        for (i, (f, d)) in flows.iter_mut().zip(&topo.path_delay_ns).enumerate() {
            f.path_delay_ns = *d;
            f.first_steps = [plan.first(2 * i), plan.first(2 * i + 1)];
        }
        let mut sim = Simulation {
            sched: Scheduler::default(),
            arena: Arena::default(),
            prob_probes: probability_probes(&topo.links),
            plan,
            links: topo.links,
            bottleneck: topo.bottleneck,
            reverse_bottleneck: topo.reverse_bottleneck,
            network_first_link: topo.network_first_link,
            // Kept only for the per-flow byte trace: an update per delivery is a cache miss at
            // many flows.
            flow_bytes_since_sample: if cfg.traces.flow_bytes { vec![0; flows.len()] } else { Vec::new() },
            ppv: crate::ppv::PolicyMarkers::new(&cfg, &flows),
            drops: vec![DropCounts::default(); flows.len()],
            flows,
            actions: Vec::with_capacity(16),
            segments: Vec::with_capacity(64),
            acks: Vec::with_capacity(4),
            transfers: Vec::new(),
            queues,
            traces: Traces::default(),
            pcap: crate::pcap::Pcap::new(&cfg.traces),
            probe_buf: Vec::new(),
            delivered_packets: 0,
            flow_top_fetched: 0,
            window: crate::window::Window::new(cfg.warmup_ns),
            invariants: Invariants::default(),
            strict_invariants: cfg!(debug_assertions) || cfg!(test),
            delay_lines: true,
            #[cfg(test)]
            faults: Default::default(),
            #[cfg(feature = "event-cycles")]
            cycles: Default::default(),
            cfg,
        };
        sim.sched.add_lines(sim.plan.lines() as usize);
        sim.schedule_initial();
        Ok(sim)
    }

    /// Flow `f`'s counters over all its connections, its drops included.
    pub fn flow_counts(&self, f: usize) -> FlowStats {
        let mut c = self.flows[f].counts();
        c.dropped += self.drops[f].data;
        c.acks_dropped += self.drops[f].acks;
        c
    }

    /// Schedules every arrival on the heap, as the simulator did before delay lines: the
    /// straightforward reference the optimized path is tested against.
    pub fn use_reference_event_path(&mut self) {
        self.delay_lines = false;
    }

    fn schedule_initial(&mut self) {
        for f in 0..self.flows.len() {
            let flow = &self.flows[f];
            self.sched.at_flow(flow.start_ns, Event::FlowStart { flow: f as u32 });
            if let Some(stop) = flow.stop_ns {
                self.sched.at_flow(stop, Event::FlowStop { flow: f as u32 });
            }
        }
        for (i, step) in self.cfg.bottleneck.rate_schedule.iter().enumerate() {
            self.sched.at(step.at_ns, Event::RateChange { step: i as u32 });
        }
        for (k, l) in self.cfg.network.iter().flat_map(|n| &n.links).enumerate() {
            for (i, step) in l.rate_schedule.iter().enumerate() {
                self.sched.at(step.at_ns, Event::NetworkRateChange { link: k as u32, step: i as u32 });
            }
        }
        for (i, step) in self.cfg.bottleneck.target_schedule.iter().enumerate() {
            self.sched.at(step.at_ns, Event::TargetChange { step: i as u32 });
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
            self.traces.link_probe_names = self.queue_probe_names();
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

    /// Runs every event up to `t` (capped at the duration) and moves the clock there, then
    /// checks the invariants.
    pub fn run_until(&mut self, t: Nanos) {
        let t = t.min(self.cfg.duration_ns);
        #[cfg(feature = "event-cycles")]
        self.cycles.start();
        let warm = self.cfg.warmup_ns;
        if self.window.opens_at(t, warm) {
            // The events before the window's first nanosecond, then the counters as the window
            // opens: an event at the warm-up time itself counts in the window. (A call of this
            // function, not of a loop of its own: the loop compiled in one place ran 1-3 %
            // faster than called from two.)
            self.run_until(warm - 1);
            self.open_window();
        }
        while let Some(ev) = self.sched.pop_until(t) {
            // What the coming events read, fetched ahead: at high rates and many flows the
            // packet records and flow state are cold, and fetching them early hides most of the
            // latency (issue 22). The next event's packet; on the line just popped, the packet
            // of the arrival waiting second, and for deliveries the steps below.
            match self.sched.peek() {
                Some(&Event::Arrive { pkt, .. }) => self.arena.prefetch(pkt, false),
                Some(&Event::Deliver { pkt, .. }) => self.arena.prefetch(pkt, true),
                _ => {}
            }
            // A delivery is fetched in two steps: its packet and its flow's first lines when it
            // waits third in its line; for an ACK, the sender's lines when it waits second (the
            // packet's kind and the flow's endpoint are read from what the first step fetched).
            if let Some(&Event::Deliver { pkt, flow }) = self.sched.line_third() {
                self.arena.prefetch(pkt, true);
                self.flows[flow as usize].prefetch();
            }
            match self.sched.line_follower() {
                Some(&Event::Arrive { pkt, .. }) => self.arena.prefetch(pkt, false),
                Some(&Event::Deliver { pkt, flow }) if self.arena.get(pkt).kind == Kind::Ack => self.flows[flow as usize].prefetch_sender(),
                _ => {}
            }
            // A flow's own events read the flow where no packet's delivery fetched it: a
            // retransmission timer (at 10,000 flows about one event in twenty, most of them
            // re-arming a timer that ACKs moved), a delayed ACK or a CBR source's next packet;
            // a start or a session's next object writes the whole record. Their lines are
            // fetched as soon as the event becomes the earliest of the flows' events, usually
            // many events before it runs (issue 22).
            if let Some((seq, ev)) = self.sched.new_flow_top() {
                if seq != self.flow_top_fetched {
                    self.flow_top_fetched = seq;
                    match *ev {
                        Event::Rto { flow, .. } => self.flows[flow as usize].prefetch_timer(),
                        Event::FlowStart { flow } | Event::NextObject { flow } => crate::prefetch::record(&self.flows[flow as usize]),
                        Event::DelAck { flow, .. } | Event::UdpSend { flow } => self.flows[flow as usize].prefetch(),
                        _ => {}
                    }
                }
            }
            #[cfg(feature = "event-cycles")]
            let (kind, dispatched) = (self.event_kind(&ev), crate::cycles::stamp());
            self.handle(ev);
            #[cfg(feature = "event-cycles")]
            self.cycles.record(kind, dispatched);
            if self.sched.executed() & (PERIODIC_EVENTS - 1) == 0 {
                self.check_probabilities();
            }
        }
        self.sched.advance_to(t);
        self.check_invariants();
        self.enforce_invariants();
    }

    /// Runs to the end.
    pub fn run(&mut self) {
        self.run_until(self.cfg.duration_ns);
    }

    /// The index in [`crate::cycles::KINDS`] of `ev`'s kind.
    #[cfg(feature = "event-cycles")]
    fn event_kind(&self, ev: &Event) -> usize {
        match *ev {
            Event::Arrive { .. } => 0,
            Event::Deliver { pkt, .. } if self.arena.get(pkt).kind == Kind::Data => 1,
            Event::Deliver { .. } => 2,
            Event::TxDone { .. } => 3,
            Event::Rto { .. } => 4,
            Event::DelAck { .. } => 5,
            Event::FlowStart { .. } => 6,
            _ => 7,
        }
    }

    fn handle(&mut self, ev: Event) {
        let now = self.sched.now();
        match ev {
            Event::Arrive { pkt, link } => self.enqueue(link, pkt),
            Event::Deliver { pkt, .. } => self.deliver(pkt),
            Event::TxDone { link } => self.tx_done(link),
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
            Event::NetworkRateChange { link, step } => {
                let net = self.cfg.network.as_ref().expect("scheduled from the network");
                let rate = net.links[link as usize].rate_schedule[step as usize].rate_bps;
                let fwd = (self.network_first_link + 2 * link) as usize;
                self.links[fwd].set_rate(rate);
                self.links[fwd + 1].set_rate(rate);
            }
            Event::TargetChange { step } => {
                let target = self.cfg.bottleneck.target_schedule[step as usize].target_ns;
                let q = self.links[self.bottleneck as usize].qdisc.as_mut().expect("the bottleneck has a queue");
                // Accepted on a copy of this discipline when the configuration was validated.
                q.set_param(now, "target", &serde_json::json!(target)).expect("a validated target change");
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

    /// Injects a new packet, with the SACK blocks it carries, at its first hop.
    pub(crate) fn send(&mut self, p: Packet, sack: &[(u64, u64)]) {
        let flow = &mut self.flows[p.flow as usize];
        let step = match p.kind {
            Kind::Data => {
                flow.stats.sent += 1;
                flow.first_steps[0]
            }
            Kind::Ack => {
                flow.stats.acks_sent += 1;
                flow.first_steps[1]
            }
        };
        let id = self.arena.alloc(Packet { step, ..p }, sack);
        self.forward(id, self.sched.now());
    }

    /// Moves packet `id` on from its current hop, which it reaches at time `t`: pure-delay
    /// hops are crossed at once, then the packet is queued, delivered, or scheduled to arrive.
    pub(crate) fn forward(&mut self, id: u32, t: Nanos) {
        let p = self.arena.get(id);
        let flow = p.flow;
        let step = *self.plan.step(p.step);
        let t = t + step.delay;
        self.arena.get_mut(id).step = step.next;
        if t > self.sched.now() {
            let ev = match step.link {
                Some(link) => Event::Arrive { pkt: id, link },
                None => Event::Deliver { pkt: id, flow },
            };
            if self.delay_lines {
                // The delay line of the link the packet crossed last (a packet only travels
                // once it has crossed one), where arrivals come in time order.
                self.sched.at_line(step.line, t, ev);
            } else {
                self.sched.at(t, ev);
            }
            return;
        }
        match step.link {
            Some(link) => self.enqueue(link, id),
            None => self.deliver(id),
        }
    }

    fn deliver(&mut self, id: u32) {
        let now = self.sched.now();
        let p = *self.arena.get(id);
        let sack = self.arena.sack_blocks(id);
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
                if let Some(b) = self.flow_bytes_since_sample.get_mut(f) {
                    *b += p.len as u64;
                }
                if self.flows[f].is_tcp() {
                    self.tcp_data_arrived(f, &p);
                } else {
                    self.flows[f].stats.goodput_bytes += (p.len - crate::net::HEADER_BYTES) as u64;
                }
            }
            Kind::Ack => {
                self.flows[f].stats.acks_delivered += 1;
                self.tcp_ack_arrived(f, &p, &sack[..p.n_sack as usize]);
            }
        }
    }

    fn sample(&mut self) {
        let now = self.sched.now();
        // Every queue's row first: the bottleneck's own columns repeat its first column.
        let row = if self.cfg.traces.queue { self.sample_queues() } else { 0 };
        let tc = &self.cfg.traces;
        let t = &mut self.traces;
        t.sample_t.push(now);
        let link = &self.links[self.bottleneck as usize];
        let q = link.qdisc.as_ref().expect("bottleneck has a queue");
        if tc.queue {
            let b = q.backlog();
            t.queue_bytes.push(b.bytes);
            t.queue_packets.push(b.packets);
            t.last_sojourn_ns.push(t.link_queue_last_sojourn_ns[row]);
            t.sojourn_mean_ns.push(t.link_queue_sojourn_mean_ns[row]);
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
        if self.cfg.traces.probe {
            self.probe_queues();
        }
        if next <= self.cfg.duration_ns {
            self.sched.at(next, Event::Sample);
        }
    }
}
