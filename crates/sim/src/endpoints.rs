//! The hosts' side of the simulation: building the flows of each group, starting and stopping
//! them, TCP connections (ACK clocking, timers, HTTP-like sessions) and CBR sources.

use std::num::NonZeroU64;

use aqm::{Ecn, Nanos, Rng};

use crate::config::{App, Dist, FlowGroup, SimConfig, TcpConfig, Transport};
use crate::flow::{Endpoint, Flow, FlowStats};
use crate::net::dumbbell::{FLOW_STREAM_BASE, GROUP_STREAM_BASE};
use crate::net::{Packet, HEADER_BYTES};
use crate::tcp::receiver::MAX_SACK_BLOCKS;
use crate::tcp::state::Deadline;
use crate::tcp::{AckIn, ReceiverParams, TcpReceiver, TcpSender};
use crate::trace::{TCP_EVENT_ECN, TCP_EVENT_RECOVERY, TCP_EVENT_RETRANSMIT, TCP_EVENT_TIMEOUT};
use crate::udp::UdpSource;
use crate::world::{Event, Simulation};

fn draw(d: &Dist, i: usize, rng: &mut Rng) -> u64 {
    match d {
        Dist::Fixed(v) => *v,
        Dist::Uniform { lo, hi } => *lo + (rng.uniform() * (*hi - *lo) as f64).round() as u64,
        Dist::Each(v) => v[i],
    }
}

fn receiver_params(t: &TcpConfig) -> ReceiverParams {
    ReceiverParams { sack: t.sack, ack_every: t.ack_every, delack_timeout: t.delack_timeout_ns, ecn: t.ecn }
}

/// Header bytes of the group's data packets, and the sizes of its ACKs by number of SACK
/// blocks: TCP's with the options its profile counts.
fn header_bytes(group: &FlowGroup) -> (u16, [u16; MAX_SACK_BLOCKS + 1]) {
    let narrow = |b: u32| u16::try_from(b).expect("headers and options fit in 64 KiB");
    match &group.transport {
        Transport::Tcp(t) => (narrow(t.data_header_bytes()), std::array::from_fn(|n| narrow(t.ack_bytes(n)))),
        Transport::Udp(_) => (narrow(HEADER_BYTES), [narrow(HEADER_BYTES); MAX_SACK_BLOCKS + 1]),
    }
}

fn idle_endpoint(group: &FlowGroup) -> Endpoint {
    match &group.transport {
        Transport::Tcp(t) => Endpoint::Tcp {
            tx: TcpSender::new(t, None, group.packet_size - t.data_header_bytes()),
            rx: TcpReceiver::new(receiver_params(t)),
        },
        Transport::Udp(u) => {
            let ecn = if u.ecn { u.ect.codepoint() } else { Ecn::NotEct };
            Endpoint::Udp(UdpSource::new(u.rate_bps, group.packet_size, ecn))
        }
    }
}

/// The flows of every group, in order. Each flow draws from its own stream keyed by (group,
/// index in group), so changing one group never shifts another's random numbers. A Poisson
/// group becomes one flow per arrival, its arrival times and sizes drawn from the group stream.
pub fn build_flows(cfg: &SimConfig) -> Vec<Flow> {
    let mut flows = Vec::with_capacity(cfg.total_flows());
    for (g, group) in cfg.flows.iter().enumerate() {
        let mut starts: Vec<(Nanos, App)> = Vec::new();
        if let App::Poisson { rate_per_s, size } = &group.app {
            let mut rng = Rng::stream(cfg.seed, GROUP_STREAM_BASE + g as u64);
            let (Dist::Fixed(mut t), Some(stop)) = (&group.start_ns, group.stop_ns) else { unreachable!("validated") };
            loop {
                t += (rng.exponential(1.0 / rate_per_s) * 1e9).round() as Nanos;
                if t >= stop {
                    break;
                }
                starts.push((t, App::Transfer { bytes: size.draw(&mut rng) }));
            }
        }
        let n = if starts.is_empty() && !matches!(group.app, App::Poisson { .. }) { group.count as usize } else { starts.len() };
        for i in 0..n {
            let mut rng = Rng::stream(cfg.seed, FLOW_STREAM_BASE + ((g as u64) << 24) + i as u64);
            let access_delay_ns = draw(&group.access_delay_ns, i.min(group.count as usize - 1), &mut rng);
            let (header_bytes, ack_len) = header_bytes(group);
            let (start_ns, app) = match starts.get(i) {
                Some((t, app)) => (*t, app.clone()),
                None => (draw(&group.start_ns, i, &mut rng), group.app.clone()),
            };
            flows.push(Flow {
                group: g as u32,
                start_ns,
                stop_ns: group.stop_ns,
                access_delay_ns,
                receiver_delay_ns: group.receiver_delay_ns,
                path_delay_ns: 0, // set once the topology is built
                first_steps: [0; 2], // and these once the plan is
                packet_size: group.packet_size,
                header_bytes,
                ack_len,
                dscp: group.dscp,
                app,
                endpoint: idle_endpoint(group),
                stats: FlowStats::default(),
                conn: 0,
                conn_start_ns: 0,
                conn_bytes: None,
                conn_done: false,
                completed_ns: None,
                timer_gen: 0,
                timer_at: Deadline::NONE,
                rng,
            });
        }
    }
    flows
}

impl Simulation {
    pub(crate) fn start_flow(&mut self, f: usize) {
        if self.flows[f].is_tcp() {
            self.open_connection(f);
        } else {
            if let Endpoint::Udp(u) = &mut self.flows[f].endpoint {
                u.active = true;
            }
            self.udp_send(f);
        }
    }

    pub(crate) fn stop_flow(&mut self, f: usize) {
        match &mut self.flows[f].endpoint {
            Endpoint::Tcp { tx, .. } => tx.stop(),
            Endpoint::Udp(u) => u.active = false,
        }
    }

    /// Opens the flow's next TCP connection (the first at its start; for sessions, one per
    /// object) and lets it send.
    pub(crate) fn open_connection(&mut self, f: usize) {
        let now = self.sched.now();
        let flow = &mut self.flows[f];
        if flow.stop_ns.is_some_and(|s| now >= s) {
            return;
        }
        let Transport::Tcp(t) = &self.cfg.flows[flow.group as usize].transport else { unreachable!("TCP group") };
        let bytes = match &flow.app {
            App::Bulk => None,
            App::Transfer { bytes } => Some(*bytes),
            App::Sessions { size, .. } | App::Poisson { size, .. } => Some(size.draw(&mut flow.rng)),
        };
        flow.conn += 1;
        flow.conn_start_ns = now;
        flow.conn_bytes = bytes.map(|b| NonZeroU64::new(b).expect("validated: a transfer is at least a byte"));
        flow.conn_done = false;
        if let Endpoint::Tcp { tx, .. } = &flow.endpoint {
            flow.stats.add_sender(&tx.stats);
        }
        flow.endpoint = Endpoint::Tcp { tx: TcpSender::new(t, flow.segments(bytes), flow.payload()), rx: TcpReceiver::new(receiver_params(t)) };
        // Timer events of the previous connection are stale from now on.
        flow.timer_gen = flow.timer_gen.wrapping_add(1);
        flow.timer_at = Deadline::NONE;
        self.with_sender(f, |tx, now, segs| tx.start(now, segs));
    }

    /// Runs `op` on flow `f`'s sender, then sends what it asked for, keeps the timer in step
    /// and accounts for retransmissions, timeouts and reductions.
    fn with_sender(&mut self, f: usize, op: impl FnOnce(&mut TcpSender, Nanos, &mut Vec<crate::tcp::Segment>)) {
        let now = self.sched.now();
        let mut segs = std::mem::take(&mut self.segments);
        let Endpoint::Tcp { tx, .. } = &mut self.flows[f].endpoint else { unreachable!("TCP flow") };
        // The sender counts its own retransmissions, timeouts and reductions (read through
        // `Flow::counts`); only the event trace needs to know which this call added, and only
        // it reads the counters here: on the per-ACK path they are a cold cache line.
        let before = self.cfg.traces.tcp.then_some(tx.stats);
        op(tx, now, &mut segs);
        let ecn = tx.ecn_field();
        let complete = tx.is_complete();
        if let Some(before) = before {
            let after = tx.stats;
            let deltas = [
                after.retransmits - before.retransmits,
                after.timeouts - before.timeouts,
                after.fast_recoveries - before.fast_recoveries,
                after.ecn_reductions - before.ecn_reductions,
            ];
            for (kind, &n) in [TCP_EVENT_RETRANSMIT, TCP_EVENT_TIMEOUT, TCP_EVENT_RECOVERY, TCP_EVENT_ECN].iter().zip(&deltas) {
                for _ in 0..n {
                    self.traces.tcp_event_t.push(now);
                    self.traces.tcp_event_flow.push(f as u32);
                    self.traces.tcp_event_kind.push(*kind);
                }
            }
        }
        let flow = &mut self.flows[f];
        let conn = flow.conn;
        for s in segs.drain(..) {
            let len = self.flows[f].segment_len(s.seq);
            let pv = self.ppv.mark(f, now, len);
            let dscp = self.flows[f].dscp;
            self.send(Packet { ecn, cwr: s.cwr, conn, pv, dscp, ..Packet::data(f as u32, len, s.seq, now) }, &[]);
        }
        self.segments = segs;
        if complete {
            self.transfer_complete(f);
        }
        self.sync_timer(f);
    }

    /// A finite transfer's last byte is acknowledged: record it; a session thinks, then asks
    /// for the next object.
    fn transfer_complete(&mut self, f: usize) {
        let now = self.sched.now();
        let flow = &mut self.flows[f];
        if flow.conn_done {
            return;
        }
        flow.conn_done = true;
        flow.stats.transfers += 1;
        flow.completed_ns.get_or_insert(now);
        self.transfers.push((f as u32, flow.conn_start_ns, flow.conn_bytes.map_or(0, NonZeroU64::get), now - flow.conn_start_ns));
        if let Endpoint::Tcp { tx, .. } = &mut flow.endpoint {
            tx.stop();
        }
        if let App::Sessions { think_mean_ns, .. } = flow.app {
            let think = flow.rng.exponential(think_mean_ns as f64).round() as Nanos;
            self.sched.at_flow(now + think, Event::NextObject { flow: f as u32 });
        }
    }

    /// Keeps one live timer event no later than the sender's earliest deadline (the RTO, and
    /// with RACK-TLP the reordering timer and the probe timeout, RFC 8985 §6.3, §7.2: one timer
    /// per connection, as in Linux). A deadline that moved later needs no new event: the live
    /// one fires early and re-arms (lazy cancellation).
    fn sync_timer(&mut self, f: usize) {
        let flow = &mut self.flows[f];
        let Endpoint::Tcp { tx, .. } = &flow.endpoint else { return };
        if let Some(d) = tx.next_timer() {
            if flow.timer_at.get().is_none_or(|t| d < t) {
                flow.timer_gen = flow.timer_gen.wrapping_add(1);
                flow.timer_at = Deadline::at(d);
                self.sched.at_flow(d, Event::Rto { flow: f as u32, gen: flow.timer_gen });
            }
        }
    }

    pub(crate) fn on_rto(&mut self, f: usize, gen: u32) {
        let now = self.sched.now();
        let flow = &mut self.flows[f];
        if gen != flow.timer_gen {
            return;
        }
        flow.timer_at = Deadline::NONE;
        let Endpoint::Tcp { tx, .. } = &flow.endpoint else { return };
        if tx.next_timer().is_some_and(|d| d <= now) {
            self.with_sender(f, |tx, now, segs| tx.on_timer(now, segs));
        } else {
            self.sync_timer(f);
        }
    }

    pub(crate) fn on_delack(&mut self, f: usize, conn: u32) {
        let now = self.sched.now();
        if self.flows[f].conn != conn {
            return;
        }
        let mut acks = std::mem::take(&mut self.acks);
        if let Endpoint::Tcp { rx, .. } = &mut self.flows[f].endpoint {
            rx.on_delack_timer(now, &mut acks);
        }
        self.send_acks(f, &mut acks);
        self.acks = acks;
    }

    fn send_acks(&mut self, f: usize, acks: &mut Vec<crate::tcp::AckOut>) {
        let conn = self.flows[f].conn;
        let ack_len = self.flows[f].ack_len;
        for a in acks.drain(..) {
            // The ACK's size counts its options (timestamps, SACK blocks) as the profile does.
            self.send(Packet { len: ack_len[a.n_sack as usize].into(), ..Packet::ack(f as u32, conn, &a) }, &a.sack[..a.n_sack as usize]);
        }
    }

    /// A data segment reached the receiver of TCP flow `f`.
    pub(crate) fn tcp_data_arrived(&mut self, f: usize, p: &Packet) {
        let now = self.sched.now();
        let flow = &mut self.flows[f];
        if p.conn != flow.conn {
            return; // a straggler of an earlier connection
        }
        let Endpoint::Tcp { rx, .. } = &mut flow.endpoint else { unreachable!("TCP flow") };
        let mut acks = std::mem::take(&mut self.acks);
        let had_deadline = rx.delack_deadline.is_some();
        let first = rx.rcv_nxt;
        let n = rx.on_segment(now, p.seq, p.ts, p.ecn == Ecn::Ce, p.cwr, &mut acks);
        if let (false, Some(d)) = (had_deadline, rx.delack_deadline) {
            self.sched.at_flow(d, Event::DelAck { flow: f as u32, conn: flow.conn });
        }
        flow.stats.goodput_bytes += flow.payload_of(first, n);
        self.send_acks(f, &mut acks);
        self.acks = acks;
    }

    /// An ACK reached the sender of TCP flow `f`.
    pub(crate) fn tcp_ack_arrived(&mut self, f: usize, p: &Packet, sack: &[(u64, u64)]) {
        if p.conn != self.flows[f].conn {
            return;
        }
        let ack = AckIn { ack: p.seq, sack, ece: p.ece, ace: p.ace, echo: p.ts };
        self.with_sender(f, |tx, now, segs| tx.on_ack(now, &ack, segs));
    }

    pub(crate) fn udp_send(&mut self, f: usize) {
        let now = self.sched.now();
        let flow = &mut self.flows[f];
        let Endpoint::Udp(u) = &mut flow.endpoint else { unreachable!("UdpSend for a TCP flow") };
        if !u.active {
            return;
        }
        let seq = u.next_seq;
        u.next_seq += 1;
        let gap = u.gap();
        let ecn = u.ecn;
        let len = flow.packet_size;
        self.sched.at_flow(now + gap, Event::UdpSend { flow: f as u32 });
        let pv = self.ppv.mark(f, now, len);
        let dscp = flow.dscp;
        self.send(Packet { ecn, pv, dscp, ..Packet::data(f as u32, len, seq, now) }, &[]);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::SizeDist;

    /// A uniform draw is lo + u (hi - lo) rounded, u in [0, 1): every value within [lo, hi],
    /// both ends reached (each has probability 1/200 here), mean (lo + hi) / 2 (the standard
    /// error of 4000 draws from a range of 100 is 100 / sqrt(12 · 4000) = 0.46, so 150 ± 3 is
    /// more than 6 of them); a fixed value is itself, and `Each` gives the flow's own.
    #[test]
    fn draws_follow_their_distribution() {
        let mut rng = Rng::from_seed(7);
        let d: Vec<u64> = (0..4000).map(|i| draw(&Dist::Uniform { lo: 100, hi: 200 }, i, &mut rng)).collect();
        assert_eq!((d.iter().min(), d.iter().max()), (Some(&100), Some(&200)));
        let mean = d.iter().sum::<u64>() as f64 / d.len() as f64;
        assert!((mean - 150.0).abs() < 3.0, "mean {mean}");
        assert_eq!(draw(&Dist::Fixed(7), 3, &mut rng), 7);
        assert_eq!(draw(&Dist::Each(vec![3, 5, 9]), 1, &mut rng), 5);
    }

    fn poisson(rate_per_s: f64, start_ns: u64, stop_ns: u64) -> SimConfig {
        let mut c = crate::bench::tcp_dumbbell(1, 10_000_000, 20_000_000, aqm::QueueLimit::Packets(100), 20_000_000_000);
        let g = &mut c.flows[0];
        g.app = App::Poisson { rate_per_s, size: SizeDist::Fixed(10_000) };
        (g.start_ns, g.stop_ns) = (Dist::Fixed(start_ns), Some(stop_ns));
        g.access_delay_ns = Dist::Each(vec![3_000_000]);
        c
    }

    /// Poisson arrivals at 1000 a second from 2 s to 12 s: a flow per arrival, about 10⁴ of
    /// them (a Poisson count of mean 10⁴ and standard deviation 100: ±500 is 5 of them), in
    /// time order within (2 s, 12 s), each with the transfer size of the group and the one
    /// access delay the group lists (the single `Each` value serves every arrival).
    #[test]
    fn a_poisson_group_is_a_flow_per_arrival() {
        let flows = build_flows(&poisson(1000.0, 2_000_000_000, 12_000_000_000));
        assert!(flows.len().abs_diff(10_000) < 500, "{} arrivals", flows.len());
        assert!(flows.windows(2).all(|w| w[0].start_ns <= w[1].start_ns));
        assert!(flows.iter().all(|f| f.start_ns > 2_000_000_000 && f.start_ns < 12_000_000_000));
        // The mean gap is 1 / rate, 1 ms (its standard error 10 µs).
        let span = flows.last().unwrap().start_ns - flows[0].start_ns;
        let gap = span as f64 / (flows.len() - 1) as f64;
        assert!((gap - 1e6).abs() < 5e4, "mean gap {gap} ns");
        assert!(flows.iter().all(|f| f.access_delay_ns == 3_000_000 && matches!(f.app, App::Transfer { bytes: 10_000 })));
    }

    /// A Poisson group whose first arrival would come after its stop has no flow at all (not
    /// the `count` of a group of fixed flows): at one arrival in 10⁹ s, within 1 s, that is
    /// all but certain (probability 1 - 10⁻⁹).
    #[test]
    fn a_poisson_group_without_arrivals_has_no_flows() {
        assert_eq!(build_flows(&poisson(1e-9, 0, 1_000_000_000)).len(), 0);
    }
}
