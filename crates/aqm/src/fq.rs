//! Flow queueing: deficit round robin over hashed flow queues with new/old lists (RFC 8290 §4,
//! Linux sch_fq_codel / sch_fq_pie), each queue governed by its own instance of one control law.
//!
//! - Classification: the packet's flow id, salted by a per-instance random value and mixed,
//!   is mapped to one of `n` queues by `(h·n) >> 32` (sch_fq_pie's `reciprocal_scale`).
//! - A queue that becomes active joins the tail of the new list with one quantum of credit.
//! - Dequeue serves the head of the new list, else of the old list; a queue out of credit
//!   gets another quantum and moves to the tail of the old list; an empty queue from the new
//!   list moves to the old list if that is non-empty (so it cannot starve old queues by
//!   re-entering as new), else leaves the lists.
//! - Overlimit: FQ-PIE drops the arriving packet (sch_fq_pie); FQ-CoDel accepts it and drops
//!   from the head of the fattest queue until half its bytes or `drop_batch` packets are gone
//!   (sch_fq_codel `fq_codel_drop`), and in its `linux` profile raises that queue's CoDel
//!   count by the packets dropped.
//! - A periodic law (FQ-PIE's PIE) is updated for every queue by one timer; with a `linux` PIE
//!   at most 2048 queues a run, the rest from the next jiffy on (`fq_pie_timer`).
//!
//! Per-packet paths allocate nothing: queues and lists are sized at construction.

use std::collections::VecDeque;

use crate::config::QueueLimit;
use crate::packet::Pkt;
use crate::queue::{admit, pop_through, Action, ActionKind, Aqm, Backlog, DropReason, Fifo, QueueDisc, QueueView};
use crate::time::Nanos;

/// What happens when the whole discipline is full.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Overlimit {
    /// Drop the arrival (sch_fq_pie).
    DropArrival,
    /// Accept, then drop from the fattest queue's head (sch_fq_codel), at most this many.
    DropFromFattest(u32),
}

#[derive(Clone, Debug)]
struct FlowQueue<A> {
    fifo: Fifo,
    law: A,
    deficit: i64,
    /// On the new or the old list.
    listed: bool,
}

/// A fair queue of `n` flow queues, each with its own law `A`.
#[derive(Clone, Debug)]
pub struct FairQueue<A: Aqm> {
    queues: Vec<FlowQueue<A>>,
    new_flows: VecDeque<u32>,
    old_flows: VecDeque<u32>,
    quantum: i64,
    limit: QueueLimit,
    overlimit: Overlimit,
    /// The law sees the whole discipline's backlog at dequeue (fq_codel's CoDel), not its queue's.
    law_sees_total: bool,
    salt: u64,
    backlog: Backlog,
    next_update: Option<Nanos>,
    /// Overflow drops raise the queue's law's signal ([`FairQueue::with_overflow_feedback`]).
    overflow_feedback: bool,
    /// At most this many laws updated per timer run, the rest that long later
    /// ([`FairQueue::with_timer_chunks`]); and where the next run starts.
    timer_chunk: Option<(usize, Nanos)>,
    cursor: usize,
}

/// SplitMix64's output mix: spreads neighbouring flow ids over the whole 64-bit range.
fn mix(mut z: u64) -> u64 {
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

fn add(a: Backlog, b: Backlog) -> Backlog {
    Backlog { bytes: a.bytes + b.bytes, packets: a.packets + b.packets }
}

fn sub(a: Backlog, b: Backlog) -> Backlog {
    Backlog { bytes: a.bytes - b.bytes, packets: a.packets - b.packets }
}

impl<A: Aqm> FairQueue<A> {
    /// `n` queues, queue `k` governed by `law(k)` (each law needs its own random stream);
    /// `salt` perturbs the hash.
    pub fn new(n: u32, mut law: impl FnMut(u32) -> A, quantum: u32, limit: QueueLimit, overlimit: Overlimit, law_sees_total: bool, salt: u64) -> Self {
        let queues: Vec<FlowQueue<A>> = (0..n).map(|k| FlowQueue { fifo: Fifo::default(), law: law(k), deficit: 0, listed: false }).collect();
        let next_update = queues.first().and_then(|q| q.law.first_update_at());
        FairQueue {
            queues,
            new_flows: VecDeque::with_capacity(n as usize),
            old_flows: VecDeque::with_capacity(n as usize),
            quantum: quantum as i64,
            limit,
            overlimit,
            law_sees_total,
            salt,
            backlog: Backlog::default(),
            next_update,
            overflow_feedback: false,
            timer_chunk: None,
            cursor: 0,
        }
    }

    /// Tells a queue's law how many of its packets an overflow dropped (sch_fq_codel, v4.7 on).
    pub fn with_overflow_feedback(mut self) -> Self {
        self.overflow_feedback = true;
        self
    }

    /// Updates at most `size` laws per timer run and runs again `tick` later while some remain
    /// (sch_fq_pie's `fq_pie_timer`: 2048 flows a run, the rest from the next jiffy on).
    pub fn with_timer_chunks(mut self, size: usize, tick: Nanos) -> Self {
        self.timer_chunk = Some((size, tick));
        self
    }

    /// The queue index of flow `flow`.
    pub fn bucket(&self, flow: u32) -> usize {
        let h = mix(flow as u64 ^ self.salt) as u32 as u64;
        ((h * self.queues.len() as u64) >> 32) as usize
    }

    /// The law governing flow `flow`'s queue.
    pub fn law_of(&self, flow: u32) -> &A {
        &self.queues[self.bucket(flow)].law
    }

    /// DRR credit of flow `flow`'s queue, bytes.
    pub fn deficit_of(&self, flow: u32) -> i64 {
        self.queues[self.bucket(flow)].deficit
    }

    /// Backlog of flow `flow`'s queue.
    pub fn backlog_of(&self, flow: u32) -> Backlog {
        self.queues[self.bucket(flow)].fifo.backlog()
    }

    /// The view a queue's law gets at enqueue: its own backlog, with the limit shifted so that
    /// `would_overflow` answers for the whole discipline.
    fn arrival_view(&self, i: usize) -> QueueView {
        let own = self.queues[i].fifo.backlog();
        let limit = match self.limit {
            QueueLimit::Packets(n) => QueueLimit::Packets(own.packets + n.saturating_sub(self.backlog.packets)),
            QueueLimit::Bytes(n) => QueueLimit::Bytes(own.bytes + n.saturating_sub(self.backlog.bytes)),
        };
        QueueView { backlog: own, limit }
    }

    fn pop_list_head(&mut self, from_new: bool) {
        if from_new {
            self.new_flows.pop_front();
        } else {
            self.old_flows.pop_front();
        }
    }

    fn over_limit(&self) -> bool {
        match self.limit {
            QueueLimit::Packets(n) => self.backlog.packets > n,
            QueueLimit::Bytes(n) => self.backlog.bytes > n,
        }
    }

    /// fq_codel_drop: from the fattest queue's head until half its bytes or `batch` packets,
    /// and at least one packet (the kernel's loop tests after each drop), so that every call
    /// makes progress: a queue of one byte has no half to reach, and its caller loops until
    /// the queue is back within its limit.
    fn drop_from_fattest(&mut self, batch: u32, out: &mut Vec<Action>) {
        let Some(i) = (0..self.queues.len()).max_by_key(|&i| (self.queues[i].fifo.backlog().bytes, std::cmp::Reverse(i))) else {
            return;
        };
        let q = &mut self.queues[i];
        let threshold = q.fifo.backlog().bytes / 2;
        let (mut dropped, mut n) = (0u64, 0u32);
        while let Some(pkt) = q.fifo.pop() {
            dropped += pkt.len as u64;
            n += 1;
            self.backlog = sub(self.backlog, Backlog { bytes: pkt.len as u64, packets: 1 });
            out.push(Action { pkt, kind: ActionKind::Drop(DropReason::Overflow) });
            if n >= batch || dropped >= threshold {
                break;
            }
        }
        if self.overflow_feedback {
            q.law.on_overflow_drops(n);
        }
    }
}

impl<A: Aqm> QueueDisc for FairQueue<A> {
    fn enqueue(&mut self, now: Nanos, pkt: Pkt, out: &mut Vec<Action>) -> bool {
        let i = self.bucket(pkt.flow);
        let view = self.arrival_view(i);
        let overflow = self.overlimit == Overlimit::DropArrival && view.would_overflow(pkt.len);
        let q = &mut self.queues[i];
        let verdict = q.law.on_enqueue(now, &pkt, &view);
        let Some(p) = admit(now, pkt, verdict, overflow, out) else { return false };
        q.fifo.push(p);
        self.backlog = add(self.backlog, Backlog { bytes: p.len as u64, packets: 1 });
        if !q.listed {
            q.listed = true;
            q.deficit = self.quantum;
            self.new_flows.push_back(i as u32);
        }
        if let Overlimit::DropFromFattest(batch) = self.overlimit {
            if self.over_limit() {
                let start = out.len();
                // sch_fq_codel drops one batch per arrival, which always suffices for its packet
                // limit; a byte limit may need more than one batch after a large arrival, and the
                // queue must never stay above its limit.
                while self.over_limit() {
                    self.drop_from_fattest(batch, out);
                }
                // The arrival itself goes when its queue is the fattest and holds little else.
                return !out[start..].iter().any(|a| a.pkt.id == p.id);
            }
        }
        true
    }

    fn dequeue(&mut self, now: Nanos, out: &mut Vec<Action>) -> Option<Pkt> {
        loop {
            let (from_new, i) = match (self.new_flows.front(), self.old_flows.front()) {
                (Some(&i), _) => (true, i as usize),
                (None, Some(&i)) => (false, i as usize),
                (None, None) => return None,
            };
            if self.queues[i].deficit <= 0 {
                self.queues[i].deficit += self.quantum;
                self.pop_list_head(from_new);
                self.old_flows.push_back(i as u32);
                continue;
            }
            let before = self.queues[i].fifo.backlog();
            let others = if self.law_sees_total { sub(self.backlog, before) } else { Backlog::default() };
            let q = &mut self.queues[i];
            let got = pop_through(&mut q.fifo, &mut q.law, self.limit, others, now, out);
            let after = q.fifo.backlog();
            self.backlog = sub(self.backlog, sub(before, after));
            if let Some(pkt) = got {
                self.queues[i].deficit -= pkt.len as i64;
                return Some(pkt);
            }
            self.pop_list_head(from_new);
            if from_new && !self.old_flows.is_empty() {
                self.old_flows.push_back(i as u32);
            } else {
                self.queues[i].listed = false;
            }
        }
    }

    fn next_update_at(&self) -> Option<Nanos> {
        self.next_update
    }

    fn update(&mut self, now: Nanos) {
        // sch_fq_pie's timer: every queue's law, idle ones too, with that queue's backlog; with
        // chunks, from the cursor on, and the next chunk a tick later.
        let n = self.queues.len();
        let end = self.timer_chunk.map_or(n, |(size, _)| (self.cursor + size).min(n));
        for q in &mut self.queues[self.cursor..end] {
            let view = QueueView { backlog: q.fifo.backlog(), limit: self.limit };
            q.law.on_update(now, &view);
        }
        self.next_update = match self.timer_chunk {
            Some((_, tick)) if end < n => {
                self.cursor = end;
                Some(now + tick)
            }
            _ => {
                self.cursor = 0;
                self.queues.first().and_then(|q| q.law.update_interval()).map(|dt| now + dt)
            }
        };
    }

    fn backlog(&self) -> Backlog {
        self.backlog
    }

    fn set_link_rate(&mut self, rate_bps: u64) {
        for q in &mut self.queues {
            q.law.set_link_rate(rate_bps);
        }
    }

    /// The change applies to every queue's law (they share their parameters).
    fn set_param(&mut self, now: Nanos, name: &str, value: &serde_json::Value) -> Result<(), String> {
        self.queues.iter_mut().try_for_each(|q| q.law.set_param(now, name, value))
    }

    /// The list lengths, then the probes of the law of the queue holding the most bytes.
    fn probe_names(&self) -> Vec<&'static str> {
        let mut names = vec!["new_flows", "old_flows"];
        if let Some(q) = self.queues.first() {
            names.extend(q.law.probe_names());
        }
        names
    }

    fn probe(&self, out: &mut Vec<f64>) {
        out.extend_from_slice(&[self.new_flows.len() as f64, self.old_flows.len() as f64]);
        if let Some(q) = self.queues.iter().max_by_key(|q| q.fifo.backlog().bytes) {
            q.law.probe(out);
        }
    }
}

#[cfg(test)]
#[path = "fq_kernel_tests.rs"]
mod kernel_tests;

#[cfg(test)]
mod tests {
    use super::*;
    use crate::droptail::DropTail;

    #[test]
    fn consecutive_flow_ids_spread_evenly_over_the_queues() {
        // RFC 8290 §4.1 classifies by a hash perturbed with a random value, so that flows share
        // a queue only by chance: a uniform map. 64 000 consecutive ids into 64 queues: each
        // queue's share is Binomial(64 000, 1/64), mean 1000, sd = sqrt(64 000·(1/64)·(63/64))
        // = 31.4; every queue within 5 sd.
        let fq = FairQueue::new(64, |_| DropTail, 1500, QueueLimit::Packets(1000), Overlimit::DropArrival, false, 0x9E37_79B9_7F4A_7C15);
        let mut per_queue = [0u32; 64];
        for flow in 0..64_000 {
            per_queue[fq.bucket(flow)] += 1;
        }
        assert!(per_queue.iter().all(|&n| n.abs_diff(1000) <= 157), "{per_queue:?}");
    }
}
