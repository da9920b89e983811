//! A deterministic traffic harness for table-driven AQM tests: a periodic source into the
//! discipline and a periodic sink out of it (the shape of the ns-3 suites' EnqueueWithDelay /
//! DequeueWithDelay, in our own form), with the periodic update run when due.

use crate::packet::{Ecn, Pkt};
use crate::queue::{Action, ActionKind, DropReason, QueueDisc};
use crate::time::{Nanos, NS_PER_MS, NS_PER_SEC};

/// Periodic arrivals and departures.
#[derive(Clone, Copy, Debug)]
pub struct Traffic {
    /// Time of the first arrival; arrivals follow every `enq_every`.
    pub start: Nanos,
    pub enq_every: Nanos,
    pub enq_count: u32,
    pub len: u32,
    pub ecn: Ecn,
    /// Dequeue attempts at `deq_every`, `2·deq_every`, ...
    pub deq_every: Nanos,
    pub until: Nanos,
}

impl Traffic {
    /// The ns-3 PIE suite's traffic: 400 packets of 1000 B every 10 ms from 10 ms, run to 8 s.
    pub fn ns3(deq_every: Nanos) -> Self {
        Traffic { start: 10 * NS_PER_MS, enq_every: 10 * NS_PER_MS, enq_count: 400, len: 1000, ecn: Ecn::NotEct, deq_every, until: 8 * NS_PER_SEC }
    }
}

/// What happened during a run.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Counts {
    pub early: u32,
    pub overflow: u32,
    pub at_dequeue: u32,
    pub marks: u32,
    pub delivered: u32,
    pub first_early: Option<Nanos>,
}

impl Counts {
    fn note(&mut self, now: Nanos, out: &[Action]) {
        for a in out {
            match a.kind {
                ActionKind::Drop(DropReason::Early) => {
                    self.early += 1;
                    self.first_early.get_or_insert(now);
                }
                ActionKind::Drop(DropReason::Overflow) => self.overflow += 1,
                ActionKind::Drop(DropReason::Dequeue) => self.at_dequeue += 1,
                ActionKind::Mark => self.marks += 1,
            }
        }
    }
}

/// Runs `t` through `q`; `watch` sees the discipline and the actions after every enqueue.
pub fn run<Q: QueueDisc>(q: &mut Q, t: &Traffic, mut watch: impl FnMut(Nanos, &Q, &[Action])) -> Counts {
    let mut c = Counts::default();
    let mut out = Vec::new();
    let mut sent = 0u32;
    let mut next_deq = t.deq_every;
    loop {
        let next_enq = if sent < t.enq_count { t.start + sent as Nanos * t.enq_every } else { Nanos::MAX };
        let next_upd = q.next_update_at().unwrap_or(Nanos::MAX);
        let now = next_enq.min(next_deq).min(next_upd);
        if now > t.until {
            return c;
        }
        out.clear();
        if next_upd == now {
            q.update(now);
        } else if next_enq == now {
            let mut pkt = Pkt::new(sent, t.len, 0);
            pkt.ecn = t.ecn;
            q.enqueue(now, pkt, &mut out);
            sent += 1;
            c.note(now, &out);
            watch(now, q, &out);
        } else {
            if q.dequeue(now, &mut out).is_some() {
                c.delivered += 1;
            }
            c.note(now, &out);
            next_deq += t.deq_every;
        }
    }
}

/// The value of probe `name` of `q` now.
pub fn probe<Q: QueueDisc>(q: &Q, name: &str) -> f64 {
    let mut v = Vec::new();
    q.probe(&mut v);
    let i = q.probe_names().iter().position(|n| *n == name).expect("unknown probe");
    v[i]
}
