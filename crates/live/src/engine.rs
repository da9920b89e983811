//! The router's model, free of sockets and clocks: two directions of a bottleneck, each
//! impairment → AQM (any [`aqm::Qdisc`]) → queue → serialization → propagation delay, driven by
//! `(now, event)` exactly as the simulator drives its links.
//!
//! Time is the experiment's (ns since its time 0). Every event has a *nominal* time: a link
//! that finishes a frame at T starts the next at T, and a frame due out at T is stamped T,
//! however late the router wakes up; wake-up lateness delays a send but never stretches the
//! link. The I/O loop ([`crate::router`]) feeds arrivals with the time it read them, and first
//! runs every event due before that time, so the discipline sees one monotone clock.
//!
//! The link is the simulator's own [`Link`] (exact integer serialization with the remainder
//! carried) and carries whole Ethernet frames: serialization, byte limits and utilization
//! count the 14-byte header; per-flow byte counters count IP bytes, as the simulator's do.

use std::cmp::Reverse;
use std::collections::BinaryHeap;

use aqm::{Action, ActionKind, DropReason, LinkInfo, Nanos, Pkt, QueueDisc, Rng};
use sim::net::dumbbell::{STREAM_BOTTLENECK_QUEUE, STREAM_IMPAIRMENT, STREAM_REVERSE_QUEUE};
use sim::net::impair::{Fate, Impairment};
use sim::net::Link;
use sim::summary::Summary;
use sim::trace::{EVENT_DROP_DEQUEUE, EVENT_DROP_EARLY, EVENT_DROP_IMPAIRMENT, EVENT_DROP_OVERFLOW, EVENT_MARK};

use crate::config::{FlowPlan, LiveConfig};
use crate::frames::{Frames, Meta};
use crate::record::Recorder;
use crate::wire::{self, ETH_HLEN};

/// Direction 0 carries data from the senders to the receivers (the bottleneck the simulator
/// traces); direction 1 carries the ACKs back.
pub const FORWARD: usize = 0;
pub const REVERSE: usize = 1;

/// One direction: the link (with its discipline and impairment) and the delay line behind it.
struct Direction {
    link: Link,
    /// Frames in propagation, by (send time, arrival order, slot).
    line: BinaryHeap<Reverse<(Nanos, u64, u32)>>,
    seq: u64,
}

impl Direction {
    fn queue(&self) -> &aqm::Qdisc {
        self.link.qdisc.as_ref().expect("router links have a discipline")
    }

    fn queue_mut(&mut self) -> &mut aqm::Qdisc {
        self.link.qdisc.as_mut().expect("router links have a discipline")
    }

    fn push_line(&mut self, at: Nanos, id: u32) {
        self.line.push(Reverse((at, self.seq, id)));
        self.seq += 1;
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Event {
    RateStep(usize),
    Update(usize),
    TxDone(usize),
    Send(usize),
    Sample,
}

pub struct Engine {
    cfg: LiveConfig,
    plans: Vec<FlowPlan>,
    dirs: [Direction; 2],
    pub frames: Frames,
    pub rec: Recorder,
    actions: Vec<Action>,
    next_sample: Option<Nanos>,
    next_step: usize,
    events: u64,
    now: Nanos,
}

impl Engine {
    pub fn new(cfg: LiveConfig) -> Self {
        let sim = &cfg.sim;
        let b = &sim.bottleneck;
        // The AQM's idea of the MTU is the largest frame, as Linux's psched_mtu counts the
        // link-layer header.
        let info = LinkInfo { rate_bps: b.rate_bps, mtu: b.mtu + ETH_HLEN as u32 };
        let fwd_q = b.queue.build(info, Rng::stream(sim.seed, STREAM_BOTTLENECK_QUEUE));
        let rev_q = b.reverse_queue.build(info, Rng::stream(sim.seed, STREAM_REVERSE_QUEUE));
        let mut fwd = Link::new("bottleneck L->R".into(), Some(b.rate_bps), b.delay_ns, Some(fwd_q));
        fwd.impairment = b.impairment.clone().map(|c| Impairment::new(c, Rng::stream(sim.seed, STREAM_IMPAIRMENT)));
        let rev = Link::new("bottleneck R->L".into(), Some(b.rate_bps), b.delay_ns, Some(rev_q));
        let plans = cfg.flows();
        let probe_names = fwd.qdisc.as_ref().map(|q| q.probe_names()).unwrap_or_default();
        let rec = Recorder::new(sim, plans.len(), probe_names);
        let any_periodic = sim.traces.any_periodic();
        let new_dir = |link| Direction { link, line: BinaryHeap::new(), seq: 0 };
        Engine {
            plans,
            dirs: [new_dir(fwd), new_dir(rev)],
            frames: Frames::default(),
            rec,
            actions: Vec::with_capacity(16),
            next_sample: any_periodic.then_some(0),
            next_step: 0,
            events: 0,
            now: 0,
            cfg,
        }
    }

    pub fn plans(&self) -> &[FlowPlan] {
        &self.plans
    }

    /// The configured flow a frame belongs to: flow i's sender uses source port
    /// `base_port + i`, so its data carries that source port and its ACKs that destination.
    fn classify(&self, dir: usize, ip: &wire::IpInfo) -> u32 {
        let n = self.plans.len() as u32;
        let port = match ip.ports {
            Some((src, dst)) => if dir == FORWARD { src } else { dst },
            None => return n,
        };
        let i = (port as u32).wrapping_sub(self.cfg.net.base_port as u32);
        if i < n { i } else { n }
    }

    fn extra_delay(&self, flow: u32) -> Nanos {
        self.plans.get(flow as usize).map_or(0, |p| p.extra_delay_ns)
    }

    /// A frame read from the port feeding direction `dir`, held in slot `id`, at `now`.
    /// Events due before `now` must have been run ([`Engine::advance`]).
    pub fn arrive(&mut self, dir: usize, now: Nanos, id: u32) {
        debug_assert!(now >= self.now, "arrival at {now} before the engine's clock {}", self.now);
        self.open_window_at(now);
        self.now = now;
        self.events += 1;
        let Some(ip) = wire::parse(self.frames.data(id)) else {
            // Not IPv4 (ARP): never queued, never dropped; it crosses the link's propagation
            // delay only (it is tiny and rare, and hosts must resolve addresses whatever the load).
            self.frames.set_meta(id, Meta { flow: self.plans.len() as u32, ip: false });
            self.rec.bypassed += 1;
            let at = now + self.dirs[dir].link.delay_ns;
            self.dirs[dir].push_line(at, id);
            return;
        };
        let flow = self.classify(dir, &ip);
        self.frames.set_meta(id, Meta { flow, ip: true });
        let st = &mut self.rec.stats[flow as usize];
        if dir == FORWARD { st.sent += 1 } else { st.acks_sent += 1 }
        let mut pkt = Pkt { id, len: self.frames.data(id).len() as u32, flow, ecn: ip.ecn, pv: 0, dscp: ip.dscp, enqueued_at: now };
        let d = &mut self.dirs[dir];
        if let Some(imp) = d.link.impairment.as_mut() {
            match imp.judge(now, pkt.ecn) {
                Fate::Pass => {}
                Fate::Mark => {
                    wire::set_ce(self.frames.data_mut(id));
                    pkt.ecn = aqm::Ecn::Ce;
                }
                Fate::Drop => {
                    self.drop_frame(dir, id, EVENT_DROP_IMPAIRMENT);
                    return;
                }
            }
        }
        let d = &mut self.dirs[dir];
        // Per-queue counts as the simulator keeps them (`net/path.rs`, `enqueue`).
        d.link.counts.arrivals += 1;
        d.link.counts.resident_packets += 1;
        d.link.counts.resident_bytes += pkt.len as u64;
        d.link.qdisc.as_mut().expect("router links have a discipline").enqueue(now, pkt, &mut self.actions);
        self.apply_actions(dir);
        let link = &mut self.dirs[dir].link;
        if !link.txdone_pending {
            if link.busy_until <= now {
                self.start_next(dir, now);
            } else {
                link.txdone_pending = true;
            }
        }
    }

    fn drop_frame(&mut self, dir: usize, id: u32, code: u8) {
        let flow = self.frames.meta(id).flow;
        let st = &mut self.rec.stats[flow as usize];
        if dir == FORWARD { st.dropped += 1 } else { st.acks_dropped += 1 }
        let c = &mut self.dirs[dir].link.counts;
        c.acks_dropped += (dir != FORWARD) as u64;
        if code != EVENT_DROP_IMPAIRMENT {
            let len = self.frames.data(id).len() as u64;
            c.resident_packets = c.resident_packets.wrapping_sub(1);
            c.resident_bytes = c.resident_bytes.wrapping_sub(len);
        }
        match code {
            EVENT_DROP_OVERFLOW => c.drops_overflow += 1,
            EVENT_DROP_EARLY => c.drops_early += 1,
            EVENT_DROP_DEQUEUE => c.drops_dequeue += 1,
            _ => c.drops_impairment += 1,
        }
        self.frames.release(id);
        self.rec.event(self.now, dir as u32, flow, code);
    }

    /// Drops and marks the discipline reported: marks set CE in the frame itself.
    fn apply_actions(&mut self, dir: usize) {
        let mut actions = std::mem::take(&mut self.actions);
        for a in actions.drain(..) {
            match a.kind {
                ActionKind::Drop(reason) => {
                    let code = match reason {
                        DropReason::Overflow => EVENT_DROP_OVERFLOW,
                        DropReason::Early => EVENT_DROP_EARLY,
                        DropReason::Dequeue => EVENT_DROP_DEQUEUE,
                    };
                    self.drop_frame(dir, a.pkt.id, code);
                }
                ActionKind::Mark => {
                    self.dirs[dir].link.counts.marks += 1;
                    wire::set_ce(self.frames.data_mut(a.pkt.id));
                    self.rec.event(self.now, dir as u32, a.pkt.flow, EVENT_MARK);
                }
            }
        }
        self.actions = actions;
    }

    /// The link is free at `now`: the next frame starts serializing (`world.rs`, `start_next`).
    fn start_next(&mut self, dir: usize, now: Nanos) {
        let d = &mut self.dirs[dir];
        let next = d.queue_mut().dequeue(now, &mut self.actions);
        let backlogged = d.queue().backlog().packets > 0;
        self.apply_actions(dir);
        let Some(pkt) = next else { return };
        let c = &mut self.dirs[dir].link.counts;
        c.resident_packets = c.resident_packets.wrapping_sub(1);
        c.resident_bytes = c.resident_bytes.wrapping_sub(pkt.len as u64);
        if dir == FORWARD {
            self.rec.departure(now, pkt.enqueued_at, pkt.flow);
        }
        let extra = self.extra_delay(pkt.flow);
        let warmup = self.cfg.sim.warmup_ns;
        let d = &mut self.dirs[dir];
        let tx = d.link.serialize(pkt.len);
        d.link.busy_until = now + tx;
        d.link.tx_packets += 1;
        if now >= warmup {
            d.link.tx_bytes_measured += pkt.len as u64;
        }
        d.link.txdone_pending = backlogged;
        let at = now + tx + d.link.delay_ns + extra;
        d.push_line(at, pkt.id);
    }

    fn next(&self) -> Option<(Nanos, Event)> {
        let mut best: Option<(Nanos, Event)> = None;
        let mut offer = |t: Option<Nanos>, e: Event| {
            if let Some(t) = t {
                if best.is_none_or(|(b, _)| t < b) {
                    best = Some((t, e));
                }
            }
        };
        offer(self.cfg.sim.bottleneck.rate_schedule.get(self.next_step).map(|s| s.at_ns), Event::RateStep(self.next_step));
        for (i, d) in self.dirs.iter().enumerate() {
            offer(d.queue().next_update_at(), Event::Update(i));
            offer(d.link.txdone_pending.then_some(d.link.busy_until), Event::TxDone(i));
            offer(d.line.peek().map(|Reverse((t, _, _))| *t), Event::Send(i));
        }
        offer(self.next_sample.filter(|&t| t <= self.cfg.sim.duration_ns), Event::Sample);
        best
    }

    /// Time of the next event, if any.
    pub fn next_event_at(&self) -> Option<Nanos> {
        self.next().map(|(t, _)| t)
    }

    /// Runs every event due at or before `until`, in time order. `send(dir, frame, nominal)`
    /// is called for each frame leaving direction `dir`, at its nominal time.
    pub fn advance(&mut self, until: Nanos, send: &mut impl FnMut(usize, &[u8], Nanos)) {
        while let Some((t, ev)) = self.next().filter(|&(t, _)| t <= until) {
            self.open_window_at(t);
            self.now = self.now.max(t);
            self.events += 1;
            match ev {
                Event::RateStep(i) => {
                    let rate = self.cfg.sim.bottleneck.rate_schedule[i].rate_bps;
                    self.dirs.iter_mut().for_each(|d| d.link.set_rate(rate));
                    self.next_step += 1;
                }
                Event::Update(i) => {
                    let q = self.dirs[i].queue_mut();
                    q.update(t);
                    // A discipline must move its timer on; the simulator guards the same way.
                    debug_assert!(q.next_update_at().is_none_or(|n| n > t));
                }
                Event::TxDone(i) => {
                    self.dirs[i].link.txdone_pending = false;
                    self.start_next(i, t);
                }
                Event::Send(i) => {
                    let Some(Reverse((_, _, id))) = self.dirs[i].line.pop() else { unreachable!("peeked") };
                    let meta = self.frames.meta(id);
                    let frame = self.frames.data(id);
                    if meta.ip {
                        let ip_bytes = (frame.len() - ETH_HLEN) as u64;
                        if i == FORWARD {
                            let ce = wire::parse(frame).is_some_and(|p| p.ecn == aqm::Ecn::Ce);
                            self.rec.delivered(t, meta.flow, ip_bytes, ce);
                        } else {
                            self.rec.stats[meta.flow as usize].acks_delivered += 1;
                        }
                    }
                    send(i, frame, t);
                    self.frames.release(id);
                }
                Event::Sample => {
                    let link = &self.dirs[FORWARD].link;
                    let q = link.qdisc.as_ref().expect("router links have a discipline");
                    self.rec.sample(t, q.backlog(), link.rate_bps.unwrap_or(0), |out| q.probe(out));
                    self.next_sample = Some(t + self.cfg.sim.traces.interval_ns);
                }
            }
        }
        self.now = self.now.max(until);
    }

    /// Copies the counters if the measured window opens at `now` (see `Recorder::window`).
    fn open_window_at(&mut self, now: Nanos) {
        let dirs = &self.dirs;
        self.rec.open_window_at(now, || [FORWARD, REVERSE].map(|d| dirs[d].link.queue_counts()).to_vec());
    }

    /// Frames held (queued or in propagation), both directions.
    pub fn frames_held(&self) -> usize {
        self.frames.live()
    }

    /// The summary of the run, ended at `end`.
    pub fn summary(&self, end: Nanos) -> Summary {
        let [fwd, rev] = [FORWARD, REVERSE].map(|d| &self.dirs[d].link);
        self.rec.summary(&self.cfg.sim, &self.plans, end, [fwd, rev], self.events)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::{NetConfig, RouterOptions};
    use aqm::{QdiscConfig, QueueLimit};
    use sim::config::*;

    pub const BASE_PORT: u16 = 20000;

    /// A live configuration around a scenario: one bulk flow group of `n` flows.
    pub fn config(rate_bps: u64, delay_ns: Nanos, queue: QdiscConfig, n: u32) -> LiveConfig {
        // The benchmark's dumbbell with this test's link, discipline, Linux TCP, flows 1 ms
        // apart in base RTT, all starting at once, and the traces the engine records.
        let mut sim = sim::bench::tcp_dumbbell(n, rate_bps, 0, QueueLimit::Packets(1000), 10_000_000_000);
        sim.bottleneck.delay_ns = delay_ns;
        sim.bottleneck.queue = queue;
        sim.bottleneck.reverse_queue = QdiscConfig::drop_tail(QueueLimit::Packets(1000));
        let g = &mut sim.flows[0];
        g.name = "f".into();
        g.transport = Transport::Tcp(TcpConfig::profile("linux").unwrap());
        g.access_delay_ns = Dist::Each((0..n as u64).map(|i| i * 1_000_000).collect());
        g.start_ns = Dist::Fixed(0);
        sim.traces = TraceConfig { interval_ns: 1_000_000, queue: true, sojourn: true, flow_bytes: true, drops: true, ..sim::bench::no_traces() };
        LiveConfig {
            sim,
            t0_ns: 0,
            net: NetConfig { sender_ip: [192, 0, 2, 1].into(), receiver_ip: [192, 0, 2, 2].into(), base_port: BASE_PORT, tcp_port: 5201, udp_port: 5202 },
            router: RouterOptions { sender_port: "a".into(), receiver_port: "b".into(), rt_priority: None, spin_ns: 0 },
            grace_ns: 0,
        }
    }

    /// An IPv4/UDP frame of `ip_len` bytes from source port `sport`, with TOS `tos`.
    pub fn udp_frame(ip_len: usize, sport: u16, tos: u8) -> Vec<u8> {
        let mut f = vec![0u8; ETH_HLEN + ip_len];
        f[12..14].copy_from_slice(&0x0800u16.to_be_bytes());
        let ip = &mut f[ETH_HLEN..];
        ip[0] = 0x45;
        ip[1] = tos;
        ip[2..4].copy_from_slice(&(ip_len as u16).to_be_bytes());
        ip[9] = wire::PROTO_UDP;
        ip[20..22].copy_from_slice(&sport.to_be_bytes());
        ip[22..24].copy_from_slice(&5202u16.to_be_bytes());
        f
    }

    fn offer(e: &mut Engine, dir: usize, now: Nanos, frame: &[u8], sent: &mut Vec<(usize, Nanos, usize)>) {
        e.advance(now, &mut |d, f, t| sent.push((d, t, f.len())));
        let id = e.frames.alloc();
        e.frames.data_mut(id).extend_from_slice(frame);
        e.arrive(dir, now, id);
    }

    const MS: Nanos = 1_000_000;

    #[test]
    fn exact_serialization_and_nominal_departures() {
        // 10 Mb/s, 5 ms: a 1014-byte frame takes 811.2 µs. Three frames arrive together at
        // t = 1 ms; they leave the link at 1 ms + k·811.2 µs (remainder carried) and are sent
        // 5 ms later, flow 1 with 1 ms more (its access delay). The engine is advanced only
        // once, 30 ms late: the departure times are still the nominal ones.
        let mut e = Engine::new(config(10_000_000, 5 * MS, QdiscConfig::drop_tail(QueueLimit::Packets(10)), 2));
        let mut sent = Vec::new();
        offer(&mut e, FORWARD, MS, &udp_frame(1000, BASE_PORT, 0), &mut sent);
        offer(&mut e, FORWARD, MS, &udp_frame(1000, BASE_PORT + 1, 0), &mut sent);
        offer(&mut e, FORWARD, MS, &udp_frame(1000, BASE_PORT, 0), &mut sent);
        e.advance(40 * MS, &mut |d, f, t| sent.push((d, t, f.len())));
        // Three frames of 8112 bits at 10^7 b/s: 811 200 ns each, exactly.
        let t = [MS + 811_200 + 5 * MS, MS + 2 * 811_200 + 5 * MS + MS, MS + 3 * 811_200 + 5 * MS];
        let mut want = vec![(FORWARD, t[0], 1014), (FORWARD, t[2], 1014), (FORWARD, t[1], 1014)];
        want.sort_by_key(|w| w.1);
        assert_eq!(sent, want);
        // Sojourns: 0, one and two frame times, measured where the simulator measures them.
        assert_eq!(e.rec.traces.sojourn_ns, vec![0, 811_200, 1_622_400]);
        assert_eq!(e.rec.traces.sojourn_flow, vec![0, 1, 0]);
        let s = e.summary(40 * MS);
        assert_eq!((s.sent, s.flows[0].counts.delivered, s.flows[1].counts.bytes_delivered), (3, 2, 1000));
        assert_eq!(e.frames_held(), 0);
    }

    #[test]
    fn limit_drops_and_max_sojourn_is_limit_times_packet_time() {
        // A burst of 20 frames into a 5-packet DropTail: one in service, five queued, 14
        // dropped; the last admitted waits five packet times (limit × packet time).
        let mut e = Engine::new(config(10_000_000, 0, QdiscConfig::drop_tail(QueueLimit::Packets(5)), 1));
        let mut sent = Vec::new();
        for _ in 0..20 {
            offer(&mut e, FORWARD, 0, &udp_frame(1000, BASE_PORT, 0), &mut sent);
        }
        e.advance(100 * MS, &mut |d, f, t| sent.push((d, t, f.len())));
        assert_eq!(sent.len(), 6);
        let s = e.summary(100 * MS);
        assert_eq!((s.dropped, s.flows[0].counts.dropped), (14, 14));
        assert_eq!(*e.rec.traces.sojourn_ns.iter().max().unwrap(), 5 * 811_200);
        assert_eq!(e.rec.traces.drop_kind.iter().filter(|&&k| k == EVENT_DROP_OVERFLOW).count(), 14);
    }

    #[test]
    fn arp_bypasses_a_full_queue_and_ce_marks_fix_the_checksum() {
        // A queue that is full (limit 1, one queued behind one in service) drops IP frames but
        // lets ARP through after the propagation delay only.
        let mut e = Engine::new(config(1_000_000, 2 * MS, QdiscConfig::drop_tail(QueueLimit::Packets(1)), 1));
        let mut sent = Vec::new();
        for _ in 0..3 {
            offer(&mut e, FORWARD, 0, &udp_frame(1000, BASE_PORT, 0), &mut sent);
        }
        let mut arp = vec![0u8; 42];
        arp[12..14].copy_from_slice(&0x0806u16.to_be_bytes());
        offer(&mut e, FORWARD, 0, &arp, &mut sent);
        offer(&mut e, REVERSE, 0, &arp, &mut sent);
        e.advance(3 * MS, &mut |d, f, t| sent.push((d, t, f.len())));
        assert_eq!(sent, vec![(FORWARD, 2 * MS, 42), (REVERSE, 2 * MS, 42)]);
        assert_eq!((e.summary(3 * MS).dropped, e.rec.bypassed), (1, 2));

        // Step marking at K = 0 marks an ECT arrival that finds a packet queued (RFC 8257
        // §3.1: "more than K"): of four frames arriving together the first goes straight into
        // service, the second finds the queue empty, the last two are marked. CE is set in the
        // frame itself and the header checksum still verifies.
        let step = QdiscConfig::Step(serde_json::from_str(r#"{"k":0}"#).unwrap());
        let mut e = Engine::new(config(10_000_000, 0, step, 1));
        let mut out = Vec::new();
        let mut f = udp_frame(1000, BASE_PORT, 0b10);
        let c = checksum(&f[ETH_HLEN..ETH_HLEN + 20]);
        f[ETH_HLEN + 10..ETH_HLEN + 12].copy_from_slice(&c.to_be_bytes());
        for _ in 0..4 {
            offer(&mut e, FORWARD, 0, &f, &mut Vec::new());
        }
        e.advance(10 * MS, &mut |_, f, _| out.push(f.to_vec()));
        assert_eq!(out.iter().map(|o| o[ETH_HLEN + 1] & 3).collect::<Vec<_>>(), vec![0b10, 0b10, 0b11, 0b11]);
        for o in &out {
            assert_eq!(checksum(&o[ETH_HLEN..ETH_HLEN + 20]), 0, "a valid header sums to 0xffff");
        }
        assert_eq!(e.rec.ce_delivered, 2);
        assert_eq!(e.summary(10 * MS).marked, 2);
        assert_eq!(e.rec.traces.drop_kind, vec![EVENT_MARK, EVENT_MARK]);
    }

    #[test]
    fn the_summary_counts_the_measured_window_as_the_simulator_does() {
        // A 5-packet DropTail, a warm-up of 10 ms. Ten frames at 0 (one in service, five
        // queued, four dropped) fall before the window; eight at 20 ms, when the queue has long
        // drained (six at 811.2 µs each leave by 4.9 ms), give one in service, five queued and
        // two dropped, in the window. The flow's whole-run counts keep all eighteen.
        let mut cfg = config(10_000_000, 0, QdiscConfig::drop_tail(QueueLimit::Packets(5)), 1);
        cfg.sim.warmup_ns = 10 * MS;
        let mut e = Engine::new(cfg);
        let mut sent = Vec::new();
        for (t, n) in [(0, 10), (20 * MS, 8)] {
            for _ in 0..n {
                offer(&mut e, FORWARD, t, &udp_frame(1000, BASE_PORT, 0), &mut sent);
            }
        }
        e.advance(100 * MS, &mut |d, f, t| sent.push((d, t, f.len())));
        let s = e.summary(100 * MS);
        // The queue's arrivals are what was offered to it, the dropped included.
        assert_eq!((s.sent, s.dropped, s.queues[0].counts.arrivals, s.queues[0].counts.departures), (8, 2, 8, 6));
        assert_eq!((s.flows[0].counts.sent, s.flows[0].counts.dropped), (18, 6));
        // Stopped before the warm-up ends, the window holds nothing.
        let mut cfg = config(10_000_000, 0, QdiscConfig::drop_tail(QueueLimit::Packets(5)), 1);
        cfg.sim.warmup_ns = 10 * MS;
        let mut e = Engine::new(cfg);
        offer(&mut e, FORWARD, 0, &udp_frame(1000, BASE_PORT, 0), &mut Vec::new());
        e.advance(5 * MS, &mut |_, _, _| {});
        assert_eq!((e.summary(5 * MS).sent, e.summary(5 * MS).flows[0].counts.sent), (0, 1));
    }

    #[test]
    fn rate_steps_and_impairments_follow_the_simulators_link() {
        // The rate drops from 10 to 1 Mb/s at 2 ms: a frame starting at 1 ms takes 811.2 µs,
        // one starting at 3 ms takes 8.112 ms. Periodic loss of every 3rd packet drops the
        // third arrival in front of the queue, as the simulator's impairment does.
        let mut cfg = config(10_000_000, 0, QdiscConfig::drop_tail(QueueLimit::Packets(10)), 1);
        cfg.sim.bottleneck.rate_schedule = vec![RateStep { at_ns: 2 * MS, rate_bps: 1_000_000 }];
        cfg.sim.bottleneck.impairment = Some(ImpairConfig { loss: LossModel::Periodic { every: 3 }, mark_instead: false, outages: vec![] });
        let mut e = Engine::new(cfg);
        let mut sent = Vec::new();
        for t in [MS, 3 * MS, 4 * MS] {
            offer(&mut e, FORWARD, t, &udp_frame(1000, BASE_PORT, 0), &mut sent);
        }
        e.advance(30 * MS, &mut |d, f, t| sent.push((d, t, f.len())));
        assert_eq!(sent, vec![(FORWARD, MS + 811_200, 1014), (FORWARD, 3 * MS + 8_112_000, 1014)]);
        assert_eq!(e.rec.traces.drop_kind, vec![EVENT_DROP_IMPAIRMENT]);
        assert_eq!(e.summary(30 * MS).dropped, 1);
    }

    /// RFC 1071 sum over a whole header, complemented: 0 when the checksum field is right.
    fn checksum(h: &[u8]) -> u16 {
        let mut s: u32 = h.chunks(2).map(|p| u16::from_be_bytes([p[0], p[1]]) as u32).sum();
        while s > 0xffff {
            s = (s & 0xffff) + (s >> 16);
        }
        !(s as u16)
    }
}
