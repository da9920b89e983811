//! The queue-side interface: control laws ([`Aqm`]), disciplines ([`QueueDisc`]) and the FIFO.
//!
//! The simulator (or a live datapath) drives a discipline through four calls, each with the
//! current time: `enqueue` on arrival, `dequeue` when the link can send, `update` when the
//! discipline's periodic timer is due, and `set_link_rate` when the capacity changes.
//! Drops and ECN marks are reported as [`Action`]s so the caller can account for them per flow.

use std::collections::VecDeque;

use crate::codel::CoDel;
use crate::config::QueueLimit;
use crate::droptail::DropTail;
use crate::dualpi2::DualPi2;
use crate::fq::FairQueue;
use crate::pi::Pi;
use crate::pi2::Pi2;
use crate::pie::Pie;
use crate::ppv::PpvQueue;
use crate::pvpie::PvPie;
use crate::proportional::Proportional;
use crate::step::Step;
use crate::red::Red;
use crate::strict_priority::StrictPriority;
use crate::packet::{Ecn, Pkt};
use crate::time::Nanos;

/// What a control law decides about one packet.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Verdict {
    /// Let it through unchanged.
    Accept,
    /// Let it through with CE set (only asked for ECN-capable packets; see [`SingleQueue`]).
    Mark,
    /// Discard it.
    Drop,
}

/// Why a packet was discarded.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum DropReason {
    /// The queue was at its packet or byte limit (tail drop).
    Overflow,
    /// The control law dropped it on arrival (PIE, RED, PI, ...).
    Early,
    /// The control law dropped it at the head of the queue (CoDel).
    Dequeue,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ActionKind {
    Drop(DropReason),
    Mark,
}

/// A drop or a mark, reported to the caller for per-flow accounting.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Action {
    pub pkt: Pkt,
    pub kind: ActionKind,
}

/// Bytes and packets held by a queue.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Backlog {
    pub bytes: u64,
    pub packets: u32,
}

/// What a control law may read of its queue.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct QueueView {
    pub backlog: Backlog,
    pub limit: QueueLimit,
}

impl QueueView {
    /// True when adding `len` bytes would exceed the limit.
    pub fn would_overflow(&self, len: u32) -> bool {
        match self.limit {
            QueueLimit::Packets(n) => self.backlog.packets >= n,
            QueueLimit::Bytes(b) => self.backlog.bytes + len as u64 > b,
        }
    }
}

/// What a discipline knows of the link it feeds, at construction.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct LinkInfo {
    /// Link rate in bits per second (may change later through `set_link_rate`).
    pub rate_bps: u64,
    /// Largest packet the link carries, in bytes (Linux PIE's `psched_mtu`).
    pub mtu: u32,
}

/// A control law for one FIFO: Params / State / Stats, with time passed in.
///
/// The same law serves the single-queue form ([`SingleQueue`]) and, per flow queue, the
/// fair-queue form.
pub trait Aqm {
    /// Decide about `pkt` arriving at `now`; `q` is the queue before the packet joins it.
    fn on_enqueue(&mut self, now: Nanos, pkt: &Pkt, q: &QueueView) -> Verdict;

    /// Called for the packet leaving the head at `now`; `q` is the backlog after its removal.
    /// CoDel drops here; enqueue-side laws use it to measure the departure rate or sojourn time.
    fn on_dequeue(&mut self, _now: Nanos, _pkt: &Pkt, _q: &QueueView) -> Verdict {
        Verdict::Accept
    }

    /// Called when a dequeue finds the queue empty, including right after the law dropped the
    /// last packet (CoDel leaves its dropping state here).
    fn on_empty(&mut self, _now: Nanos) {}

    /// `n` packets of this law's queue were just dropped by the discipline around it, its
    /// buffer full (sch_fq_codel's `fq_codel_drop` raises the flow's CoDel count by them).
    fn on_overflow_drops(&mut self, _n: u32) {}

    /// Period of the background update, if the law has one (PIE's T_update, PI's 1/f_s).
    fn update_interval(&self) -> Option<Nanos> {
        None
    }

    /// Time of the first update after creation (Linux PIE first fires after HZ/2).
    fn first_update_at(&self) -> Option<Nanos> {
        self.update_interval()
    }

    /// The periodic update.
    fn on_update(&mut self, _now: Nanos, _q: &QueueView) {}

    /// The link rate changed (for laws that use it).
    fn set_link_rate(&mut self, _rate_bps: u64) {}

    /// A run-time change of parameter `name` to `value`, in the schema's canonical units (see
    /// [`crate::schema`]): `("target", 20_000_000)`. Laws accept the few they can change safely.
    fn set_param(&mut self, _now: Nanos, name: &str, _value: &serde_json::Value) -> Result<(), String> {
        Err(format!("{name}: not changeable at run time"))
    }

    /// Names of the internal variables [`Aqm::probe`] reports, in order.
    fn probe_names(&self) -> Vec<&'static str> {
        Vec::new()
    }

    /// Current values of the internal variables (drop probability, delay estimate, ...).
    fn probe(&self, _out: &mut Vec<f64>) {}
}

/// A whole queueing discipline, owning the packets it holds.
pub trait QueueDisc {
    /// Offers `pkt` at `now`. Returns true if it was queued (possibly CE-marked); drops and marks
    /// of this or other packets are appended to `out`.
    fn enqueue(&mut self, now: Nanos, pkt: Pkt, out: &mut Vec<Action>) -> bool;
    /// Removes the next packet to send, if any; drops at dequeue are appended to `out`.
    fn dequeue(&mut self, now: Nanos, out: &mut Vec<Action>) -> Option<Pkt>;
    /// Absolute time of the next periodic update, if any.
    fn next_update_at(&self) -> Option<Nanos>;
    /// Runs the periodic update due at `now` and schedules the next one.
    fn update(&mut self, now: Nanos);
    fn backlog(&self) -> Backlog;
    fn set_link_rate(&mut self, rate_bps: u64);
    /// A run-time change of parameter `name` of the control law(s), at `now`, in the schema's
    /// canonical units; an error names the field and why.
    fn set_param(&mut self, _now: Nanos, name: &str, _value: &serde_json::Value) -> Result<(), String> {
        Err(format!("{name}: not changeable at run time"))
    }
    fn probe_names(&self) -> Vec<&'static str>;
    fn probe(&self, out: &mut Vec<f64>);
    /// The owner's handle of the packet most likely to leave next, if the discipline can tell
    /// cheaply: a hint, so that a simulator can fetch that packet's record while the one just
    /// dequeued is sent (a packet that waited in a long queue is cold). It changes nothing.
    fn next_hint(&self) -> Option<u32> {
        None
    }
}

/// A FIFO of packets with a byte count.
#[derive(Clone, Debug, Default)]
pub struct Fifo {
    pkts: VecDeque<Pkt>,
    bytes: u64,
}

impl Fifo {
    pub fn push(&mut self, pkt: Pkt) {
        self.bytes += pkt.len as u64;
        self.pkts.push_back(pkt);
    }

    pub fn pop(&mut self) -> Option<Pkt> {
        let p = self.pkts.pop_front()?;
        self.bytes -= p.len as u64;
        Some(p)
    }

    pub fn head(&self) -> Option<&Pkt> {
        self.pkts.front()
    }

    pub fn backlog(&self) -> Backlog {
        Backlog { bytes: self.bytes, packets: self.pkts.len() as u32 }
    }
}

/// One FIFO governed by one control law, with a hard packet or byte limit.
#[derive(Clone, Debug)]
pub struct SingleQueue<A: Aqm> {
    pub aqm: A,
    fifo: Fifo,
    limit: QueueLimit,
    next_update: Option<Nanos>,
}

impl<A: Aqm> SingleQueue<A> {
    pub fn new(aqm: A, limit: QueueLimit) -> Self {
        let next_update = aqm.first_update_at();
        SingleQueue { aqm, fifo: Fifo::default(), limit, next_update }
    }

    fn view(&self) -> QueueView {
        QueueView { backlog: self.fifo.backlog(), limit: self.limit }
    }
}

/// Applies the law's verdict on an arrival: returns the packet, stamped and possibly CE-marked,
/// if it joins the queue; drops and marks are reported in `out`. `overflow` is the hard limit's
/// answer, which wins over any verdict so that no law can overfill the buffer.
pub fn admit(now: Nanos, mut pkt: Pkt, verdict: Verdict, overflow: bool, out: &mut Vec<Action>) -> Option<Pkt> {
    if overflow {
        out.push(Action { pkt, kind: ActionKind::Drop(DropReason::Overflow) });
        return None;
    }
    match verdict {
        Verdict::Drop => {
            out.push(Action { pkt, kind: ActionKind::Drop(DropReason::Early) });
            return None;
        }
        Verdict::Mark if pkt.ecn.is_capable() => {
            pkt.ecn = Ecn::Ce;
            out.push(Action { pkt, kind: ActionKind::Mark });
        }
        // A law asked to mark a packet that cannot carry CE: RFC 3168 §5 says drop instead.
        Verdict::Mark => {
            out.push(Action { pkt, kind: ActionKind::Drop(DropReason::Early) });
            return None;
        }
        Verdict::Accept => {}
    }
    pkt.enqueued_at = now;
    Some(pkt)
}

/// Pops packets from `fifo` through the law's dequeue test until one is let through. The law
/// sees the backlog left behind plus `others` (what the rest of the discipline holds, for laws
/// that look at the whole qdisc, as fq_codel's CoDel does).
pub fn pop_through<A: Aqm>(fifo: &mut Fifo, aqm: &mut A, limit: QueueLimit, others: Backlog, now: Nanos, out: &mut Vec<Action>) -> Option<Pkt> {
    while let Some(mut pkt) = fifo.pop() {
        let b = fifo.backlog();
        let view = QueueView { backlog: Backlog { bytes: b.bytes + others.bytes, packets: b.packets + others.packets }, limit };
        match aqm.on_dequeue(now, &pkt, &view) {
            Verdict::Accept => return Some(pkt),
            Verdict::Mark if pkt.ecn.is_capable() => {
                pkt.ecn = Ecn::Ce;
                out.push(Action { pkt, kind: ActionKind::Mark });
                return Some(pkt);
            }
            Verdict::Mark | Verdict::Drop => {
                out.push(Action { pkt, kind: ActionKind::Drop(DropReason::Dequeue) });
            }
        }
    }
    aqm.on_empty(now);
    None
}

impl<A: Aqm> QueueDisc for SingleQueue<A> {
    fn enqueue(&mut self, now: Nanos, pkt: Pkt, out: &mut Vec<Action>) -> bool {
        let view = self.view();
        let verdict = self.aqm.on_enqueue(now, &pkt, &view);
        // Laws that count overflow themselves (Linux PIE) see it through `view`.
        match admit(now, pkt, verdict, view.would_overflow(pkt.len), out) {
            Some(p) => {
                self.fifo.push(p);
                true
            }
            None => false,
        }
    }

    fn dequeue(&mut self, now: Nanos, out: &mut Vec<Action>) -> Option<Pkt> {
        pop_through(&mut self.fifo, &mut self.aqm, self.limit, Backlog::default(), now, out)
    }

    fn next_update_at(&self) -> Option<Nanos> {
        self.next_update
    }

    fn update(&mut self, now: Nanos) {
        let view = self.view();
        self.aqm.on_update(now, &view);
        self.next_update = self.aqm.update_interval().map(|dt| now + dt);
    }

    fn backlog(&self) -> Backlog {
        self.fifo.backlog()
    }

    fn set_link_rate(&mut self, rate_bps: u64) {
        self.aqm.set_link_rate(rate_bps);
    }

    fn set_param(&mut self, now: Nanos, name: &str, value: &serde_json::Value) -> Result<(), String> {
        self.aqm.set_param(now, name, value)
    }

    fn probe_names(&self) -> Vec<&'static str> {
        self.aqm.probe_names()
    }

    fn probe(&self, out: &mut Vec<f64>) {
        self.aqm.probe(out)
    }

    #[inline]
    fn next_hint(&self) -> Option<u32> {
        self.fifo.head().map(|p| p.id)
    }
}

/// The closed set of disciplines, dispatched by `match` on the per-packet path.
// One Qdisc exists per link, so its size is irrelevant; boxing the larger laws would put a
// pointer chase on the per-packet path instead.
#[allow(clippy::large_enum_variant)]
#[derive(Clone, Debug)]
pub enum Qdisc {
    DropTail(SingleQueue<DropTail>),
    Pie(SingleQueue<Pie>),
    Pi(SingleQueue<Pi>),
    P(SingleQueue<Proportional>),
    Step(SingleQueue<Step>),
    Pi2(SingleQueue<Pi2>),
    DualPi2(DualPi2),
    Red(SingleQueue<Red>),
    CoDel(SingleQueue<CoDel>),
    FqPie(FairQueue<Pie>),
    FqCoDel(FairQueue<CoDel>),
    StrictPriority(Box<StrictPriority>),
    PvPie(SingleQueue<PvPie>),
    Ppv(PpvQueue),
}

/// Applies one expression to whichever discipline `self` holds.
macro_rules! each_qdisc {
    ($self:expr, $q:ident => $body:expr) => {
        match $self {
            Qdisc::DropTail($q) => $body,
            Qdisc::Pie($q) => $body,
            Qdisc::Pi($q) => $body,
            Qdisc::P($q) => $body,
            Qdisc::Step($q) => $body,
            Qdisc::Pi2($q) => $body,
            Qdisc::DualPi2($q) => $body,
            Qdisc::Red($q) => $body,
            Qdisc::CoDel($q) => $body,
            Qdisc::FqPie($q) => $body,
            Qdisc::FqCoDel($q) => $body,
            Qdisc::StrictPriority($q) => $body,
            Qdisc::PvPie($q) => $body,
            Qdisc::Ppv($q) => $body,
        }
    };
}

impl QueueDisc for Qdisc {
    #[inline]
    fn enqueue(&mut self, now: Nanos, pkt: Pkt, out: &mut Vec<Action>) -> bool {
        each_qdisc!(self, q => q.enqueue(now, pkt, out))
    }
    #[inline]
    fn dequeue(&mut self, now: Nanos, out: &mut Vec<Action>) -> Option<Pkt> {
        each_qdisc!(self, q => q.dequeue(now, out))
    }
    fn next_update_at(&self) -> Option<Nanos> {
        each_qdisc!(self, q => q.next_update_at())
    }
    fn update(&mut self, now: Nanos) {
        each_qdisc!(self, q => q.update(now))
    }
    #[inline]
    fn backlog(&self) -> Backlog {
        each_qdisc!(self, q => q.backlog())
    }
    fn set_link_rate(&mut self, rate_bps: u64) {
        each_qdisc!(self, q => q.set_link_rate(rate_bps))
    }
    fn set_param(&mut self, now: Nanos, name: &str, value: &serde_json::Value) -> Result<(), String> {
        each_qdisc!(self, q => q.set_param(now, name, value))
    }
    fn probe_names(&self) -> Vec<&'static str> {
        each_qdisc!(self, q => q.probe_names())
    }
    fn probe(&self, out: &mut Vec<f64>) {
        each_qdisc!(self, q => q.probe(out))
    }
    #[inline]
    fn next_hint(&self) -> Option<u32> {
        each_qdisc!(self, q => q.next_hint())
    }
}
