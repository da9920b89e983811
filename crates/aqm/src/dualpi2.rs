//! DualPI2: the DualQ Coupled AQM of RFC 9332 with a PI² base controller, as Linux
//! `sch_dualpi2` runs it (`linux`) and as RFC 9332 Appendix A writes it (`rfc`).
//!
//! Two FIFOs share one buffer limit. Packets whose ECN field matches the classifier (ECT(1) and
//! CE by default, RFC 9332 §2.3; optionally any DSCP listed in `l_dscp`) join the L queue; the
//! rest join the C queue. One PI controller updates a base probability p′ every T_update from
//! the queueing delay; the C queue drops (or marks ECT packets) with p_C = p′², the L queue marks
//! with p_CL = k·p′ combined with its own shallow native marking on the L sojourn time (a step
//! in `linux`, a ramp in `rfc`). A scheduler picks the queue to serve: the Linux WRR with
//! classic protection, or the time-shifted FIFO that RFC 9332 §2.4 describes.
//!
//! `linux` follows sch_dualpi2 (Linux 6.17) decision by decision, in its integer arithmetic:
//! - p′ is a u32 (`pi2_prob`, 2³² − 1 = 100 %), updated in `calculate_probability` from the
//!   larger of the two head sojourn times, with α, β converted from 1/256 Hz units to
//!   2⁻³²-per-64 ns (`dualpi2_scale_alpha_beta`) and the delta divided by 64 (`__scale_delta`);
//!   saturation on wrap-around as the kernel detects it;
//! - decisions at dequeue (`drop_early` off, the default) in `must_drop`: nothing while the
//!   whole qdisc holds less than 2 MTU; C: two rolls against p′ (`dualpi2_classic_marking`);
//!   L: one roll against k·p′, or on overload (k·p′ > 100 %) classic drop first
//!   (`dualpi2_scalable_marking`); then the L step on the packet's sojourn (`do_step_aqm`),
//!   applied only if the L queue held at least `min_qlen_step` packets at its arrival;
//! - a roll is `u32 ≤ p` (`dualpi2_roll`); the WRR credit is in bytes with weights in percent
//!   (`dequeue_packet`, `dualpi2_calculate_c_protection`).
//!
//! `rfc` follows RFC 9332 Appendix A.1 (Figures 1–4): p′ in floating point from the C queue's
//! head sojourn only, clamped to [0, √p_Cmax] with p_Cmax = min(1/k², 1) (so p_CL ≤ 1); C: one
//! draw against p′²; L: p_L = max(ramp(sojourn), p_CL) applied by the deterministic `recur()`
//! counter; on overload (p′ at its clamp) L packets first meet the classic drop, as §4.2.1
//! asks of an overloaded DualQ. Gains from Figure 1 with RTT_max 100 ms: T_update = 15 ms,
//! α = 0.1·T_update/RTT_max² = 0.15 Hz, β = 0.3/RTT_max = 3 Hz; ramp 800 µs + 400 µs;
//! Th_len = 1 packet.
//!
//! Not modelled: sch_dualpi2's memory limit (skb truesize), GSO splitting, tc filters and the
//! LLLL class, the step threshold in packets.

use std::collections::VecDeque;

use crate::config::QueueLimit;
use crate::packet::{Ecn, Pkt};
use crate::pi2::pi_law;
use crate::queue::{Action, ActionKind, Backlog, DropReason, Fifo, LinkInfo, QueueDisc, QueueView, Verdict};
use crate::rng::Rng;
use crate::schema::{choice_enum, departs, fmt_duration as fmt_ns, Finish, Range};
use crate::time::{to_secs, Nanos, NS_PER_MS, NS_PER_SEC, NS_PER_US};

choice_enum! {
    /// Which DualPI2 a run follows.
    pub profile enum DualPi2Profile = Linux {
        /// Linux sch_dualpi2: integer arithmetic, step marking, WRR.
        Linux = "linux",
        /// RFC 9332 Appendix A: floating point, ramp marking with recur().
        Rfc = "rfc",
    }
}

choice_enum! {
    /// Which ECN codepoints join the L queue.
    pub enum Classifier {
        /// ECT(1) and CE (the L4S identifier, RFC 9331 §2; sch_dualpi2 `l4s_ect`).
        L4sEct = "l4s_ect",
        /// Any ECN-capable packet (sch_dualpi2 `any_ect`).
        AnyEct = "any_ect",
    }
}

choice_enum! {
    /// How the next queue to serve is chosen.
    pub enum Scheduler {
        /// sch_dualpi2's weighted round robin in bytes (classic protection `c_protection` %).
        Wrr = "wrr",
        /// Time-shifted FIFO (RFC 9332 §2.4): serve the older head, L timestamps moved `tshift` earlier.
        TimeShifted = "time_shifted",
    }
}

/// sch_dualpi2's 100 % probability.
const MAX_PROB: u32 = u32::MAX;

crate::params! {
    /// DualPI2: the DualQ Coupled AQM (RFC 9332) with a PI² base controller.
    config DualPi2Config => DualPi2Params, profile DualPi2Profile,
    doc "DualPI2: an L queue for L4S (ECT(1)/CE) and a C queue share a buffer; a PI controller drives p′; C drops/marks with p′², L marks with k·p′ or its native step/ramp on the L sojourn; WRR or time-shifted FIFO between them.",
    source "RFC 9332 / Linux sch_dualpi2";
    fields {
        /// Hard limit shared by both queues (tail drop).
        limit: QueueLimit [Limit, None, Range::at_least(1.0)] = (QueueLimit::Packets(10_000));
        /// Classic queueing delay target of the PI controller.
        target: Nanos [Duration, None, Range::closed(1e3, 10e9)] = (15 * NS_PER_MS);
        /// Update period of p′.
        tupdate: Nanos [Duration, None, Range::closed(1e3, 10e9)] = { Linux: 16 * NS_PER_MS, Rfc: 15 * NS_PER_MS };
        /// Integral gain (`linux`: in whole 1/256 Hz, truncated as tc sends it).
        alpha: f64 [Float, Some("Hz"), Range::closed(0.0, 1e6)] = { Linux: 41.0 / 256.0, Rfc: 0.15 };
        /// Proportional gain (`linux`: in whole 1/256 Hz, truncated as tc sends it).
        beta: f64 [Float, Some("Hz"), Range::closed(0.0, 1e6)] = { Linux: 819.0 / 256.0, Rfc: 3.0 };
        /// Coupling factor k: p_CL = k·p′ (`linux`: a whole number, sch_dualpi2's u8).
        coupling: f64 [Float, None, Range::above(0.0, 255.0)] = (2.0);
        /// L queue native marking threshold on the sojourn time (the ramp's minTh in `rfc`).
        step_thresh: Nanos [Duration, None, Range::closed(0.0, 10e9)] = { Linux: NS_PER_MS, Rfc: 800 * NS_PER_US };
        /// Width of the native marking ramp above `step_thresh` (`rfc`); 0 is a step (mark when the sojourn exceeds it), the only marking of `linux`.
        ramp_range: Nanos [Duration, None, Range::closed(0.0, 10e9)] = { Linux: 0, Rfc: 400 * NS_PER_US };
        /// Native marking applies only to packets that found at least this many packets in the L queue (RFC Th_len).
        min_qlen_step: u32 [Int, Some("packets"), Range::closed(0.0, 1e9)] = { Linux: 0, Rfc: 1 };
        /// ECN codepoints that join the L queue.
        classifier: Classifier [Choice, None, Range::ANY] = (Classifier::L4sEct);
        /// DSCP values that also join the L queue.
        l_dscp: Vec<u8> [IntList, None, Range::closed(0.0, 63.0)] = (Vec::new());
        /// Scheduler between the two queues.
        scheduler: Scheduler [Choice, None, Range::ANY] = (Scheduler::Wrr);
        /// WRR weight of the C queue in percent (the L queue gets the rest).
        c_protection: u32 [Int, Some("%"), Range::closed(0.0, 100.0)] = (10);
        /// Time shift of the time-shifted FIFO (our default: twice the target; RFC 9332 gives none).
        tshift: Nanos [Duration, None, Range::closed(0.0, 10e9)] = (30 * NS_PER_MS);
        /// On overload (k·p′ ≥ 100 %) drop L packets with the classic p′² before marking (otherwise keep ECN's no-loss and let the limit act).
        drop_overload: bool [Bool, None, Range::ANY] = (true);
        /// Decide the coupled drop/mark at enqueue instead of dequeue (`linux` only).
        drop_early: bool [Bool, None, Range::ANY] = (false);
    }
}

/// A gain in Hz as tc sends it (iproute2 `parse_alpha_beta`): the value as a C float times 256,
/// truncated to a whole number of 1/256 Hz; sch_dualpi2's policy refuses 0 and takes at most
/// 2³¹ − 1.
fn gain_256(name: &str, hz: f64) -> Result<u32, String> {
    let v = ((hz as f32) * 256.0f32).trunc();
    if !(1.0..=(i32::MAX as f32)).contains(&v) {
        return Err(format!("{name}: {hz} Hz is outside the linux profile's range [1/256 Hz, 8388607 Hz] (sch_dualpi2 takes whole 1/256 Hz)"));
    }
    Ok(v as u32)
}

/// sch_dualpi2 keeps tupdate and the step threshold as u32 nanoseconds (`convert_us_to_nsec`
/// caps larger values there without a word): a longer time is refused instead.
fn u32_ns(name: &str, ns: Nanos) -> Result<(), String> {
    if ns > u32::MAX as Nanos {
        return Err(format!("{name}: {} is outside the linux profile's range (at most 4.294967295s: sch_dualpi2 keeps it in u32 nanoseconds)", fmt_ns(ns)));
    }
    Ok(())
}

impl Finish<DualPi2Config> for DualPi2Params {
    fn finish(&mut self, given: &DualPi2Config) -> Result<(), String> {
        // Each scheduler reads only its own parameter: the other's, given, would do nothing
        // (at its default it is accepted, as a resolved record holds every field).
        let d = DualPi2Config::defaults(self.profile);
        match self.scheduler {
            Scheduler::Wrr if departs(&given.tshift, &d.tshift) => {
                return Err("tshift: applies only with scheduler = \"time_shifted\" (the WRR serves by c_protection)".into());
            }
            Scheduler::TimeShifted if departs(&given.c_protection, &d.c_protection) => {
                return Err("c_protection: applies only with scheduler = \"wrr\" (the time-shifted FIFO serves by tshift)".into());
            }
            _ => {}
        }
        match self.profile {
            DualPi2Profile::Linux => {
                // sch_dualpi2 relates none of its times to one another (`dualpi2_change`): a
                // target at or below the step threshold is the user's to choose.
                if self.coupling.fract() != 0.0 || self.coupling < 1.0 {
                    return Err(format!("coupling: {} is not a whole number in [1, 255] (sch_dualpi2 keeps k in a u8)", self.coupling));
                }
                gain_256("alpha", self.alpha)?;
                gain_256("beta", self.beta)?;
                u32_ns("tupdate", self.tupdate)?;
                u32_ns("step_thresh", self.step_thresh)?;
                if self.ramp_range != 0 {
                    return Err(format!("ramp_range: {} is a ramp, and the linux profile marks on a step (sch_dualpi2 has no ramp): give 0s, or the rfc profile", fmt_ns(self.ramp_range)));
                }
            }
            DualPi2Profile::Rfc => {
                // Appendix A's L ramp (800 µs + 400 µs) sits well below the classic target
                // (15 ms); one reaching it would make the L queue's own marking no shallower.
                if self.step_thresh + self.ramp_range >= self.target {
                    return Err(format!(
                        "step_thresh: the L queue's marking threshold {} (+ ramp_range {}) must be below the classic target {}",
                        fmt_ns(self.step_thresh),
                        fmt_ns(self.ramp_range),
                        fmt_ns(self.target)
                    ));
                }
                if self.drop_early {
                    return Err("drop_early: the rfc profile decides at dequeue (Appendix A); drop_early is a linux option".into());
                }
            }
        }
        Ok(())
    }
}

/// `dualpi2_scale_alpha_beta`: a gain in 1/256 Hz as the probability step (2⁻³² units) per
/// 64 ns of delay error.
pub fn linux_scale_gain(gain_256: u32) -> u32 {
    (((gain_256 as u64 * MAX_PROB as u64) >> 2) / NS_PER_SEC) as u32
}

impl DualPi2Params {
    pub fn build(&self, link: LinkInfo, rng: Rng) -> DualPi2 {
        let mut l_dscp = [false; 64];
        for &d in &self.l_dscp {
            l_dscp[d as usize] = true;
        }
        let linux = self.profile == DualPi2Profile::Linux;
        let scaled = |hz: f64| if linux { gain_256("", hz).map(linux_scale_gain).expect("a resolved gain") } else { 0 };
        let wc = self.c_protection as i64;
        let credit_init = link.mtu as i64 * (wc - (100 - wc));
        DualPi2 {
            profile: self.profile,
            limit: self.limit,
            target: self.target,
            tupdate: self.tupdate,
            alpha: self.alpha,
            beta: self.beta,
            alpha_fp: scaled(self.alpha),
            beta_fp: scaled(self.beta),
            k: self.coupling,
            step_thresh: self.step_thresh,
            ramp_range: self.ramp_range,
            min_qlen_step: self.min_qlen_step,
            ecn_mask: match self.classifier {
                Classifier::L4sEct => 1,
                Classifier::AnyEct => 3,
            },
            l_dscp,
            scheduler: self.scheduler,
            wc,
            credit_init,
            credit: credit_init,
            tshift: self.tshift,
            drop_overload: self.drop_overload,
            drop_early: self.drop_early,
            mtu: link.mtu,
            rng,
            l: Fifo::default(),
            l_step: VecDeque::new(),
            c: Fifo::default(),
            prob: 0,
            p_prime: 0.0,
            last_qdelay: 0,
            l_count: 0.0,
            p_l: 0.0,
            sojourn_l: 0,
            sojourn_c: 0,
            next_update: self.tupdate,
        }
    }
}

/// One DualPI2 instance.
#[derive(Clone, Debug)]
pub struct DualPi2 {
    profile: DualPi2Profile,
    limit: QueueLimit,
    target: Nanos,
    tupdate: Nanos,
    alpha: f64,
    beta: f64,
    /// `linux`: the gains in 2⁻³² per 64 ns.
    alpha_fp: u32,
    beta_fp: u32,
    k: f64,
    step_thresh: Nanos,
    ramp_range: Nanos,
    min_qlen_step: u32,
    ecn_mask: u8,
    l_dscp: [bool; 64],
    scheduler: Scheduler,
    wc: i64,
    credit_init: i64,
    /// WRR credit in bytes: L is served while it is ≤ 0 (or C is empty).
    credit: i64,
    tshift: Nanos,
    drop_overload: bool,
    drop_early: bool,
    mtu: u32,
    rng: Rng,
    l: Fifo,
    /// Per L packet, in queue order: whether the native marking applies to it.
    l_step: VecDeque<bool>,
    c: Fifo,
    /// `linux`: p′ as a u32.
    prob: u32,
    /// `rfc`: p′.
    p_prime: f64,
    last_qdelay: Nanos,
    /// `rfc`: recur()'s counter for the L queue.
    l_count: f64,
    /// The last L marking probability applied (p_L).
    p_l: f64,
    sojourn_l: Nanos,
    sojourn_c: Nanos,
    next_update: Nanos,
}

impl DualPi2 {
    /// The base probability p′.
    pub fn p_prime(&self) -> f64 {
        match self.profile {
            DualPi2Profile::Linux => self.prob as f64 / MAX_PROB as f64,
            DualPi2Profile::Rfc => self.p_prime,
        }
    }

    /// `linux`: p′ as sch_dualpi2 holds it.
    pub fn prob_u32(&self) -> u32 {
        self.prob
    }

    fn to_l(&self, pkt: &Pkt) -> bool {
        pkt.ecn.bits() & self.ecn_mask != 0 || self.l_dscp[(pkt.dscp & 63) as usize]
    }

    fn backlog_all(&self) -> Backlog {
        let (l, c) = (self.l.backlog(), self.c.backlog());
        Backlog { bytes: l.bytes + c.bytes, packets: l.packets + c.packets }
    }

    /// `dualpi2_roll`: true with probability (p + 1)/2³².
    fn roll(&mut self, p: u32) -> bool {
        ((self.rng.next_u64() >> 32) as u32) <= p
    }

    fn roll_squared(&mut self, p: u32) -> bool {
        self.roll(p) && self.roll(p)
    }

    /// sch_dualpi2 `must_drop` (with the classic and scalable marking it calls); `backlog` is
    /// the whole qdisc's, without the packet.
    fn coupled_linux(&mut self, pkt: &Pkt, in_l: bool, backlog: Backlog) -> Verdict {
        if backlog.bytes < 2 * self.mtu as u64 {
            return Verdict::Accept;
        }
        let prob = self.prob;
        let local_l = prob as u64 * self.k as u64;
        let overload = local_l > MAX_PROB as u64;
        let not_ect = pkt.ecn == Ecn::NotEct;
        if !in_l {
            return match self.roll_squared(prob) {
                true if overload || not_ect => Verdict::Drop,
                true => Verdict::Mark,
                false => Verdict::Accept,
            };
        }
        if overload {
            // Classic drop first when trading loss for delay, otherwise mark (ECN's no-loss).
            return if self.drop_overload && self.roll_squared(prob) { Verdict::Drop } else { Verdict::Mark };
        }
        match self.roll(local_l as u32) {
            true if not_ect => Verdict::Drop,
            true => Verdict::Mark,
            false => Verdict::Accept,
        }
    }

    /// RFC 9332 Figure 3 `recur()`: true once the accumulated likelihood exceeds 1.
    fn recur(&mut self, likelihood: f64) -> bool {
        self.l_count += likelihood;
        if self.l_count > 1.0 {
            self.l_count -= 1.0;
            return true;
        }
        false
    }

    /// The native L marking probability for a sojourn (RFC 9332 Figure 4 `laqm`; a step when
    /// the ramp has no width).
    fn native(&self, sojourn: Nanos) -> f64 {
        if sojourn <= self.step_thresh {
            0.0
        } else if sojourn >= self.step_thresh + self.ramp_range {
            1.0
        } else {
            (sojourn - self.step_thresh) as f64 / self.ramp_range as f64
        }
    }

    fn p_cl(&self) -> f64 {
        (self.k * self.p_prime()).min(1.0)
    }

    /// The verdict on a packet leaving queue L (`in_l`) or C at `now`.
    fn judge(&mut self, now: Nanos, pkt: &Pkt, in_l: bool, apply_step: bool) -> Verdict {
        let sojourn = now - pkt.enqueued_at;
        let not_ect = pkt.ecn == Ecn::NotEct;
        match self.profile {
            DualPi2Profile::Linux => {
                let mut v = Verdict::Accept;
                if !self.drop_early {
                    v = self.coupled_linux(pkt, in_l, self.backlog_all());
                    if v == Verdict::Drop {
                        return v;
                    }
                }
                if in_l {
                    // do_step_aqm: the step on this packet's sojourn.
                    let step = apply_step && sojourn > self.step_thresh;
                    self.p_l = if step { 1.0 } else { self.p_cl() };
                    if step {
                        v = if not_ect { Verdict::Drop } else { Verdict::Mark };
                    }
                }
                v
            }
            DualPi2Profile::Rfc => {
                let p_c = self.p_prime * self.p_prime;
                if !in_l {
                    return match self.rng.uniform() < p_c {
                        true if not_ect => Verdict::Drop,
                        true => Verdict::Mark,
                        false => Verdict::Accept,
                    };
                }
                let p_cl = self.p_cl();
                if p_cl >= 1.0 && self.drop_overload && self.rng.uniform() < p_c {
                    return Verdict::Drop;
                }
                let native = if apply_step { self.native(sojourn) } else { 0.0 };
                self.p_l = native.max(p_cl);
                match self.recur(self.p_l) {
                    true if not_ect => Verdict::Drop,
                    true => Verdict::Mark,
                    false => Verdict::Accept,
                }
            }
        }
    }

    /// Which queue to serve next (true: L), if any holds a packet.
    fn pick(&self) -> Option<bool> {
        match (self.l.head(), self.c.head()) {
            (None, None) => None,
            (l, None) => Some(l.is_some()),
            (None, Some(_)) => Some(false),
            (Some(l), Some(c)) => Some(match self.scheduler {
                Scheduler::Wrr => self.credit <= 0,
                Scheduler::TimeShifted => l.enqueued_at <= c.enqueued_at + self.tshift,
            }),
        }
    }

    /// `calculate_probability` in sch_dualpi2's integers: the delta in 2⁻³²·64 ns units, divided
    /// by 64, added with the kernel's wrap-around saturation. The delta is an s64 that wraps on
    /// overflow as the kernel's does (it is built with -fno-strict-overflow), which a long
    /// enough queue delay times the gain reaches (found by fuzzing); as `pie::linux` does.
    fn update_linux(&mut self, qdelay: Nanos) {
        let err = (qdelay as i64).wrapping_sub(self.target as i64);
        let trend = (qdelay as i64).wrapping_sub(self.last_qdelay as i64);
        let delta = err.wrapping_mul(self.alpha_fp as i64).wrapping_add(trend.wrapping_mul(self.beta_fp as i64));
        self.last_qdelay = qdelay;
        let p = self.prob;
        let mut new = if delta > 0 {
            let n = p.wrapping_add(((delta as u64) >> 6) as u32);
            if n < p {
                MAX_PROB
            } else {
                n
            }
        } else {
            let n = p.wrapping_sub((delta.unsigned_abs() >> 6) as u32);
            if n > p {
                0
            } else {
                n
            }
        };
        if !self.drop_overload {
            // Keep k·p′ at most 100 % so the L queue keeps window fairness when overflowing.
            new = new.min(MAX_PROB / self.k as u32);
        }
        self.prob = new;
    }

    /// RFC 9332 Figure 4 `dualpi2_update`, p′ clamped to √p_Cmax = min(1/k, 1).
    fn update_rfc(&mut self, curq: Nanos) {
        let p = pi_law(self.p_prime, self.alpha, self.beta, to_secs(self.target), to_secs(curq), to_secs(self.last_qdelay));
        self.p_prime = p.clamp(0.0, (1.0 / self.k).min(1.0));
        self.last_qdelay = curq;
    }
}

impl QueueDisc for DualPi2 {
    fn enqueue(&mut self, now: Nanos, mut pkt: Pkt, out: &mut Vec<Action>) -> bool {
        let in_l = self.to_l(&pkt);
        let all = self.backlog_all();
        if (QueueView { backlog: all, limit: self.limit }).would_overflow(pkt.len) {
            out.push(Action { pkt, kind: ActionKind::Drop(DropReason::Overflow) });
            return false;
        }
        if self.drop_early {
            match self.coupled_linux(&pkt, in_l, all) {
                Verdict::Drop => {
                    out.push(Action { pkt, kind: ActionKind::Drop(DropReason::Early) });
                    return false;
                }
                Verdict::Mark if pkt.ecn.is_capable() => {
                    pkt.ecn = Ecn::Ce;
                    out.push(Action { pkt, kind: ActionKind::Mark });
                }
                _ => {}
            }
        }
        pkt.enqueued_at = now;
        if in_l {
            self.l_step.push_back(self.l.backlog().packets >= self.min_qlen_step);
            self.l.push(pkt);
        } else {
            self.c.push(pkt);
        }
        true
    }

    fn dequeue(&mut self, now: Nanos, out: &mut Vec<Action>) -> Option<Pkt> {
        loop {
            let Some(in_l) = self.pick() else {
                self.credit = self.credit_init;
                return None;
            };
            let other_waiting = if in_l { self.c.head().is_some() } else { self.l.head().is_some() };
            let (mut pkt, apply_step) = if in_l {
                (self.l.pop().expect("picked"), self.l_step.pop_front().expect("one flag per L packet"))
            } else {
                (self.c.pop().expect("picked"), false)
            };
            // The credit moves only while the other queue waits, by the packet's size times
            // the weight of the queue not served.
            let credit_change = match (other_waiting, in_l) {
                (false, _) => 0,
                (true, true) => self.wc * pkt.len as i64,
                (true, false) => -(100 - self.wc) * pkt.len as i64,
            };
            let sojourn = now - pkt.enqueued_at;
            if in_l {
                self.sojourn_l = sojourn;
            } else {
                self.sojourn_c = sojourn;
            }
            match self.judge(now, &pkt, in_l, apply_step) {
                Verdict::Drop => {
                    out.push(Action { pkt, kind: ActionKind::Drop(DropReason::Dequeue) });
                    continue;
                }
                // A not-ECT packet asked to be marked passes unmarked (INET_ECN_set_ce fails).
                Verdict::Mark if pkt.ecn.is_capable() => {
                    pkt.ecn = Ecn::Ce;
                    out.push(Action { pkt, kind: ActionKind::Mark });
                }
                _ => {}
            }
            self.credit += credit_change;
            return Some(pkt);
        }
    }

    fn next_update_at(&self) -> Option<Nanos> {
        Some(self.next_update)
    }

    fn update(&mut self, now: Nanos) {
        let head_delay = |f: &Fifo| f.head().map_or(0, |p| now - p.enqueued_at);
        let (qc, ql) = (head_delay(&self.c), head_delay(&self.l));
        match self.profile {
            DualPi2Profile::Linux => self.update_linux(qc.max(ql)),
            DualPi2Profile::Rfc => self.update_rfc(qc),
        }
        self.next_update = now + self.tupdate;
    }

    fn backlog(&self) -> Backlog {
        self.backlog_all()
    }

    fn set_link_rate(&mut self, _rate_bps: u64) {}

    fn probe_names(&self) -> Vec<&'static str> {
        vec!["p_prime", "p_c", "p_cl", "p_l", "qdelay_c_s", "qdelay_l_s", "l_packets", "c_packets"]
    }

    fn probe(&self, out: &mut Vec<f64>) {
        let p = self.p_prime();
        out.extend_from_slice(&[
            p,
            p * p,
            self.p_cl(),
            self.p_l,
            to_secs(self.sojourn_c),
            to_secs(self.sojourn_l),
            self.l.backlog().packets as f64,
            self.c.backlog().packets as f64,
        ]);
    }
}

#[cfg(test)]
#[path = "dualpi2_tests.rs"]
mod tests;
