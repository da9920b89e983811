//! A packet's way across a rated link: impairment, discipline, device queue, transmitter.
//!
//! Without a device queue the discipline feeds the transmitter directly: it is dequeued when
//! the link goes idle, so its sojourn runs to the start of transmission. With a device queue of
//! N packets (ns-3's TxQueue under a traffic-control queue disc) the discipline is dequeued
//! whenever the device has room, as ns-3's flow control does: `NetDeviceQueue` stops the queue
//! disc once the device queue cannot take another packet and wakes it when one leaves
//! (`PacketEnqueued` / `PacketDequeued`), so up to N packets wait below the discipline while
//! another is on the wire. The sojourn is then reported twice: at the discipline (enqueue to
//! dequeue, ns-3's `QueueDisc::SojournTime`) and at the link (enqueue to transmission start).
//!
//! Every packet the discipline takes, releases or reports dropped is counted per link here
//! ([`QueueCounts`](super::link::QueueCounts)), independently of the discipline's own backlog,
//! which the invariant checks compare against.

use aqm::{ActionKind, DropReason, Ecn, Nanos, Pkt, QueueDisc};

use super::impair::Fate;
use super::link::QueueCounts;
use super::{Kind, LinkId};
use crate::flow::DropCounts;
use crate::pcap::Point;
use crate::trace::{EVENT_DROP_DEQUEUE, EVENT_DROP_EARLY, EVENT_DROP_IMPAIRMENT, EVENT_DROP_OVERFLOW, EVENT_MARK};
use crate::world::{Event, Simulation};

impl Simulation {
    /// Packet `id` reaches rated link `l`.
    pub(crate) fn enqueue(&mut self, l: LinkId, id: u32) {
        let now = self.sched.now();
        if let Some(cap) = self.pcap.as_mut() {
            cap.packet(l, Point::Input, now, self.arena.get(id), &self.arena.sack_blocks(id), &self.flows);
        }
        if let Some(imp) = self.links[l as usize].impairment.as_mut() {
            let p = self.arena.get_mut(id);
            match imp.judge(now, p.ecn) {
                Fate::Pass => {}
                Fate::Mark => p.ecn = Ecn::Ce,
                Fate::Drop => {
                    self.impairment_drop(l, id);
                    return;
                }
            }
        }
        let p = self.arena.get(id);
        let pkt = Pkt { id, len: p.len, flow: p.flow, ecn: p.ecn, pv: p.pv, dscp: p.dscp, enqueued_at: now };
        let link = &mut self.links[l as usize];
        link.counts.arrivals += 1;
        link.counts.resident_packets += 1;
        link.counts.resident_bytes += pkt.len as u64;
        link.qdisc.as_mut().expect("rated link has a queue").enqueue(now, pkt, &mut self.actions);
        self.apply_actions(l);
        let link = &mut self.links[l as usize];
        if !link.capacity.holds(link.counts.resident_packets, link.counts.resident_bytes) {
            let (name, c, cap) = (&link.name, link.counts, link.capacity);
            self.invariants.queue_within_limit.fail(now, || {
                format!("{name}: {} packets / {} bytes exceed the limit of {} packets / {} bytes", c.resident_packets, c.resident_bytes, cap.packets, cap.bytes)
            });
        }
        let link = &mut self.links[l as usize];
        if link.device.is_some() {
            self.fill_device(l);
        } else if !link.txdone_pending {
            if link.busy_until <= now {
                self.start_next(l);
            } else {
                link.txdone_pending = true;
                self.sched.at(link.busy_until, Event::TxDone { link: l });
            }
        }
    }

    /// The transmitter of link `l` finished a packet and one is waiting.
    pub(crate) fn tx_done(&mut self, l: LinkId) {
        self.links[l as usize].txdone_pending = false;
        if self.links[l as usize].device.is_none() {
            self.start_next(l);
            return;
        }
        let dev = self.links[l as usize].device.as_mut().expect("device link");
        let Some((pkt, left_qdisc)) = dev.fifo.pop_front() else { return };
        let arrive = self.transmit(l, pkt, left_qdisc);
        self.forward(pkt.id, arrive);
        // ns-3 wakes the queue disc when a packet leaves a full device queue, at the same
        // instant (`NetDeviceQueue::Wake` defers it with `Simulator::ScheduleNow`); here the
        // refill runs in the same event.
        self.fill_device(l);
    }

    /// Without a device queue: takes the next packet from link `l`'s discipline and starts
    /// serializing it; a `TxDone` follows only when more packets wait.
    fn start_next(&mut self, l: LinkId) {
        let now = self.sched.now();
        let (next, backlogged) = self.dequeue(l);
        let Some(pkt) = next else { return };
        let arrive = self.transmit(l, pkt, now);
        if backlogged {
            let link = &mut self.links[l as usize];
            link.txdone_pending = true;
            self.sched.at(link.busy_until, Event::TxDone { link: l });
        }
        self.forward(pkt.id, arrive);
    }

    /// With a device queue: moves packets from the discipline to the device while it has
    /// room, sending the first at once if the transmitter is idle.
    fn fill_device(&mut self, l: LinkId) {
        let now = self.sched.now();
        loop {
            let link = &self.links[l as usize];
            let dev = link.device.as_ref().expect("device link");
            let idle = dev.fifo.is_empty() && link.busy_until <= now;
            if !idle && !dev.has_room() {
                break;
            }
            let (next, _) = self.dequeue(l);
            let Some(pkt) = next else { break };
            if now >= self.cfg.warmup_ns {
                let slot = self.links[l as usize].report as usize;
                if let Some(h) = self.queues[slot].qdisc_delay.as_mut() {
                    h.record(now - pkt.enqueued_at);
                }
            }
            if idle {
                let arrive = self.transmit(l, pkt, now);
                self.forward(pkt.id, arrive);
            } else {
                self.links[l as usize].device.as_mut().expect("device link").fifo.push_back((pkt, now));
            }
        }
        let link = &mut self.links[l as usize];
        if link.device_backlog() > 0 && !link.txdone_pending {
            link.txdone_pending = true;
            self.sched.at(link.busy_until, Event::TxDone { link: l });
        }
    }

    /// Dequeues from link `l`'s discipline; also says whether packets remain in it. (The
    /// departures are counted by the transmitter and the device queue: see
    /// [`Link::queue_counts`](super::Link::queue_counts).)
    #[inline(always)]
    fn dequeue(&mut self, l: LinkId) -> (Option<Pkt>, bool) {
        let now = self.sched.now();
        let q = self.links[l as usize].qdisc.as_mut().expect("rated link has a queue");
        let next = q.dequeue(now, &mut self.actions);
        let backlogged = q.backlog().packets > 0;
        if let Some(id) = q.next_hint() {
            self.arena.prefetch(id, false);
        }
        self.apply_actions(l);
        if let Some(pkt) = &next {
            let c = &mut self.links[l as usize].counts;
            c.resident_packets = c.resident_packets.wrapping_sub(1);
            c.resident_bytes = c.resident_bytes.wrapping_sub(pkt.len as u64);
        }
        (next, backlogged)
    }

    /// Starts serializing `pkt`, which left the discipline at `left_qdisc`, on link `l`;
    /// returns the time it reaches the next hop.
    #[inline(always)]
    fn transmit(&mut self, l: LinkId, pkt: Pkt, left_qdisc: Nanos) -> Nanos {
        let now = self.sched.now();
        // Every link that transmits has a discipline, hence a reported queue.
        self.record_departure(self.links[l as usize].report, now, &pkt, left_qdisc);
        let link = &mut self.links[l as usize];
        let tx = link.serialize(pkt.len);
        link.busy_until = now + tx;
        link.tx_packets += 1;
        if now >= self.cfg.warmup_ns {
            link.tx_bytes_measured += pkt.len as u64;
            link.tx_packets_measured += 1;
        }
        let arrive = now + tx + link.delay_ns;
        let p = self.arena.get_mut(pkt.id);
        p.ecn = pkt.ecn;
        // Across the rated link: the next place on the same route.
        p.step += 1;
        if let Some(cap) = self.pcap.as_mut() {
            cap.packet(l, Point::Output, now, self.arena.get(pkt.id), &self.arena.sack_blocks(pkt.id), &self.flows);
        }
        arrive
    }

    fn impairment_drop(&mut self, l: LinkId, id: u32) {
        let p = *self.arena.get(id);
        let c = &mut self.links[l as usize].counts;
        c.drops_impairment += 1;
        count_drop(&mut self.drops[p.flow as usize], c, p.kind);
        self.arena.free(id);
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

    /// Accounts for the drops and marks a discipline reported, per flow and per link.
    fn apply_actions(&mut self, l: LinkId) {
        if self.actions.is_empty() {
            return;
        }
        let mut actions = std::mem::take(&mut self.actions);
        for a in actions.drain(..) {
            let p = *self.arena.get(a.pkt.id);
            let c = &mut self.links[l as usize].counts;
            let code = match a.kind {
                ActionKind::Drop(reason) => {
                    count_drop(&mut self.drops[p.flow as usize], c, p.kind);
                    // Wrapping: a discipline reporting a packet it does not hold shows up as a
                    // queue-conservation violation, not as a panic.
                    c.resident_packets = c.resident_packets.wrapping_sub(1);
                    c.resident_bytes = c.resident_bytes.wrapping_sub(a.pkt.len as u64);
                    self.arena.free(a.pkt.id);
                    match reason {
                        DropReason::Overflow => {
                            c.drops_overflow += 1;
                            EVENT_DROP_OVERFLOW
                        }
                        DropReason::Early => {
                            c.drops_early += 1;
                            EVENT_DROP_EARLY
                        }
                        DropReason::Dequeue => {
                            c.drops_dequeue += 1;
                            EVENT_DROP_DEQUEUE
                        }
                    }
                }
                ActionKind::Mark => {
                    c.marks += 1;
                    self.arena.get_mut(a.pkt.id).ecn = Ecn::Ce;
                    EVENT_MARK
                }
            };
            self.record_drop(l, p.flow, code);
        }
        self.actions = actions;
    }
}

/// Counts a dropped packet of kind `kind` for its flow and, an ACK, for its link.
fn count_drop(flow: &mut DropCounts, link: &mut QueueCounts, kind: Kind) {
    match kind {
        Kind::Data => flow.data += 1,
        Kind::Ack => {
            flow.acks += 1;
            link.acks_dropped += 1;
        }
    }
}
