//! CoDel: Controlled Delay (RFC 8289), and the Linux and ns-3 fixed-point laws.
//!
//! Work is done at dequeue. A packet whose sojourn time has stayed at or above `target` for a
//! whole `interval` (while more than one MTU remains queued) starts the dropping state; then
//! packets are dropped at times `drop_next`, spaced `interval/√count` apart, until the sojourn
//! falls below target. On re-entry soon after leaving, the count resumes near its old value.
//!
//! Profiles (spec §6):
//! - `rfc`: RFC 8289 §5 pseudocode in nanoseconds, exact `1/√count`, `now ≥ first_above_time`,
//!   no drop while at most MAXPACKET (the link MTU) bytes remain.
//! - `linux`: `include/net/codel.h` and `codel_impl.h` (shared by sch_codel and sch_fq_codel)
//!   as in mainline Linux from v4.7, when codel_impl.h was split out, to today's v6.x: the
//!   dequeue law below has not changed since; the v5.16 `ce_threshold_selector` of sch_fq_codel
//!   is not modelled (without it every ECN-capable packet is CE-threshold marked, the kernel's
//!   default). Time in u32-style units of 1024 ns, `1/√count` kept as a Q0.16 `rec_inv_sqrt`
//!   refined by one Newton step per count change (so the first step from 1.0 for count 2 gives
//!   0.5, not 0.707), `drop_next = t + (interval·rec_inv_sqrt·2^16) >> 32`, the strict
//!   `now > first_above_time`, no drop while `backlog <= mtu`, and after a mark in the drop loop
//!   the next one scheduled from the previous `drop_next`.
//! - `ns3`: `CoDelQueueDisc` (ns-3.44): the Linux arithmetic, but no drop while the backlog is
//!   *below* `MinBytes` (1500 B, on the queue disc's own bytes) and, after a mark in the drop
//!   loop, the next one scheduled from `now`.
//!
//! All: ECN-capable packets are marked instead of dropped when `ecn` is on (a mark ends the drop
//! loop for this dequeue); optional `ce_threshold` marks any ECT packet whose sojourn exceeds it
//! (Linux `ce_threshold`; ns-3 has it only in L4S mode, not modelled).

use crate::config::QueueLimit;
use crate::packet::Pkt;
use crate::queue::{Aqm, LinkInfo, QueueView, Verdict};
use crate::schema::{choice_enum, Finish, Range};
use crate::time::{Nanos, NS_PER_MS, NS_PER_SEC};

choice_enum! {
    /// Which CoDel a run follows.
    pub profile enum CoDelProfile = Rfc {
        /// RFC 8289 §5 pseudocode in nanoseconds with an exact square root.
        Rfc = "rfc",
        /// Linux codel.h / codel_impl.h (v4.7 to v6.x): 1024-ns clock, Newton-step `1/√count`.
        Linux = "linux",
        /// ns-3 `CoDelQueueDisc`: the Linux arithmetic, `bytes < MinBytes`, marks scheduled from now.
        Ns3 = "ns3",
    }
}

crate::params! {
    /// CoDel (Nichols & Jacobson): drop at dequeue once the sojourn time stayed above target
    /// for an interval, at intervals shrinking as 1/√count.
    config CoDelConfig => CoDelParams, profile CoDelProfile,
    doc "CoDel: once packets have waited longer than target for a whole interval, drop at dequeue at times interval/sqrt(count) apart until the sojourn time falls below target.",
    source "RFC 8289 / Linux include/net/codel.h, codel_impl.h, sch_codel.c";
    fields {
        /// Hard limit of the queue (tail drop).
        limit: QueueLimit [Limit, None, Range::at_least(1.0)] = { Rfc: QueueLimit::Packets(1000), Linux: QueueLimit::Packets(1000), Ns3: QueueLimit::Bytes(1_500_000) };
        /// Acceptable standing sojourn time (TARGET).
        target: Nanos [Duration, None, Range::closed(1e3, 10e9)] = (5 * NS_PER_MS);
        /// Sliding window over which the sojourn must stay above target (INTERVAL).
        interval: Nanos [Duration, None, Range::closed(1e3, 100e9)] = (100 * NS_PER_MS);
        /// Mark ECN-capable packets instead of dropping them.
        ecn: bool [Bool, None, Range::ANY] = (false);
        /// CE-mark every ECN-capable packet whose sojourn exceeds this (Linux ce_threshold); unset: off.
        ce_threshold: Option<Nanos> [Duration, None, Range::closed(0.0, 10e9)] = (None);
        /// The minimum backlog: no drop while at most (rfc MAXPACKET, linux `mtu`) or below (ns3 `MinBytes`) this many bytes remain; unset: the link MTU.
        mtu: Option<u32> [Bytes, None, Range::closed(0.0, 1e9)] = { Rfc: None, Linux: None, Ns3: Some(1500) };
    }
}

impl Finish<CoDelConfig> for CoDelParams {}

impl CoDelParams {
    pub fn build(&self, link: LinkInfo) -> CoDel {
        let linux = self.profile != CoDelProfile::Rfc;
        let clock = |ns: Nanos| if linux { ns >> CODEL_SHIFT } else { ns };
        CoDel {
            linux,
            ns3: self.profile == CoDelProfile::Ns3,
            target: clock(self.target),
            interval: clock(self.interval),
            ce_threshold: self.ce_threshold.map(clock),
            maxpacket: self.mtu.unwrap_or(link.mtu) as u64,
            ecn: self.ecn,
            count: 0,
            lastcount: 0,
            dropping: false,
            rec_inv_sqrt: 0,
            first_above_time: 0,
            drop_next: 0,
            ldelay: 0,
            phase: Phase::Normal,
        }
    }
}

/// codel.h: time is kept in units of 2^10 ns.
const CODEL_SHIFT: u32 = 10;

/// One Newton step for `1/√count` in Q0.16 (codel.h `codel_Newton_step`):
/// `x' = x·(3 − count·x²)/2`, in 32-bit fixed point.
pub fn newton_step(rec_inv_sqrt: u16, count: u32) -> u16 {
    let x = (rec_inv_sqrt as u64) << 16;
    let x2 = (x * x) >> 32;
    let val = ((3u64 << 32).wrapping_sub(count as u64 * x2)) >> 2;
    // u64 arithmetic as the kernel's: after a jump of the count (`on_overflow_drops`) `val`
    // has wrapped and the product wraps too.
    ((val.wrapping_mul(x) >> 31) >> 16) as u16
}

/// codel.h `codel_control_law`: `t + reciprocal_scale(interval, rec_inv_sqrt << 16)`.
pub fn linux_control_law(t: u64, interval: u64, rec_inv_sqrt: u16) -> u64 {
    t + ((interval * ((rec_inv_sqrt as u64) << 16)) >> 32)
}

/// Where the previous call left the dequeue loop.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Phase {
    Normal,
    /// The previous packet was dropped on entering the dropping state: deliver this one.
    AfterEntryDrop,
    /// The previous packet was dropped inside the drop loop: re-evaluate with this one.
    InDropLoop,
}

/// One CoDel instance. Times are in the profile's clock units (ns, or 1024 ns for `linux` and
/// `ns3`).
#[derive(Clone, Debug)]
pub struct CoDel {
    /// The Linux arithmetic (`linux` and `ns3`).
    linux: bool,
    /// ns-3's minimum-backlog test and mark scheduling.
    ns3: bool,
    target: u64,
    interval: u64,
    ce_threshold: Option<u64>,
    maxpacket: u64,
    ecn: bool,
    count: u32,
    lastcount: u32,
    dropping: bool,
    rec_inv_sqrt: u16,
    /// 0 = unset.
    first_above_time: u64,
    drop_next: u64,
    /// Sojourn time of the last packet looked at.
    ldelay: u64,
    phase: Phase,
}

impl CoDel {
    fn clock(&self, ns: Nanos) -> u64 {
        if self.linux {
            ns >> CODEL_SHIFT
        } else {
            ns
        }
    }

    fn to_secs(&self, t: u64) -> f64 {
        let ns = if self.linux { t << CODEL_SHIFT } else { t };
        ns as f64 / NS_PER_SEC as f64
    }

    pub fn dropping(&self) -> bool {
        self.dropping
    }

    pub fn count(&self) -> u32 {
        self.count
    }

    /// The next scheduled drop, seconds.
    pub fn drop_next_s(&self) -> f64 {
        self.to_secs(self.drop_next)
    }

    fn control_law(&self, t: u64) -> u64 {
        if self.linux {
            linux_control_law(t, self.interval, self.rec_inv_sqrt)
        } else {
            // RFC 8289 §5.5: t + INTERVAL/√count (not (t + INTERVAL)/√count: spec §9.13).
            t + (self.interval as f64 / (self.count as f64).sqrt()).round() as u64
        }
    }

    fn count_changed(&mut self) {
        if self.linux {
            self.rec_inv_sqrt = newton_step(self.rec_inv_sqrt, self.count);
        }
    }

    /// RFC 8289 §5.3 dodequeue / codel_should_drop: is this packet's sojourn above target for
    /// long enough? `backlog` is what stays queued.
    fn should_drop(&mut self, now: u64, sojourn: u64, backlog: u64) -> bool {
        self.ldelay = sojourn;
        // codel_should_drop: `*backlog <= params->mtu`; ns-3 OkToDrop: `bytes < m_minBytes`.
        let little_left = if self.ns3 { backlog < self.maxpacket } else { backlog <= self.maxpacket };
        if sojourn < self.target || little_left {
            self.first_above_time = 0;
            return false;
        }
        if self.first_above_time == 0 {
            self.first_above_time = now + self.interval;
            return false;
        }
        if self.linux {
            now > self.first_above_time
        } else {
            now >= self.first_above_time
        }
    }

    /// Entering the dropping state (RFC 8289 §5.4): resume near the previous rate if the last
    /// dropping state ended less than 16 intervals ago.
    fn enter(&mut self, now: u64) {
        self.dropping = true;
        let delta = self.count.wrapping_sub(self.lastcount);
        let recent = (now as i64 - self.drop_next as i64) < 16 * self.interval as i64;
        if delta > 1 && recent {
            self.count = delta;
            self.count_changed();
        } else {
            self.count = 1;
            self.rec_inv_sqrt = u16::MAX;
        }
        self.lastcount = self.count;
        self.drop_next = self.control_law(now);
    }

    /// The drop loop's test for the packet at hand (codel_dequeue's `while` body).
    fn drop_if_due(&mut self, now: u64, pkt: &Pkt) -> Verdict {
        self.phase = Phase::Normal;
        if now < self.drop_next {
            return Verdict::Accept;
        }
        self.count += 1;
        self.count_changed();
        if self.ecn && pkt.ecn.is_capable() {
            // codel_dequeue: from drop_next; ns-3 DoDequeue: ControlLaw(now, …).
            let from = if self.ns3 { now } else { self.drop_next };
            self.drop_next = self.control_law(from);
            return Verdict::Mark;
        }
        self.phase = Phase::InDropLoop;
        Verdict::Drop
    }
}

impl Aqm for CoDel {
    fn on_enqueue(&mut self, _now: Nanos, _pkt: &Pkt, _q: &QueueView) -> Verdict {
        // CoDel does nothing at enqueue; the queue's limit is its only arrival-side drop.
        Verdict::Accept
    }

    /// `fq_codel_drop`: `cvars.count += i` (a u32), so that the flow's next CoDel drop comes
    /// sooner; `rec_inv_sqrt` is left to the next Newton step.
    fn on_overflow_drops(&mut self, n: u32) {
        self.count = self.count.wrapping_add(n);
    }

    fn on_dequeue(&mut self, now: Nanos, pkt: &Pkt, q: &QueueView) -> Verdict {
        let now = self.clock(now);
        let sojourn = now - self.clock(pkt.enqueued_at);
        let ok = self.should_drop(now, sojourn, q.backlog.bytes);
        let verdict = match self.phase {
            Phase::AfterEntryDrop => {
                self.phase = Phase::Normal;
                Verdict::Accept
            }
            Phase::InDropLoop if !ok => {
                self.phase = Phase::Normal;
                self.dropping = false;
                Verdict::Accept
            }
            Phase::InDropLoop => {
                self.drop_next = self.control_law(self.drop_next);
                self.drop_if_due(now, pkt)
            }
            Phase::Normal if self.dropping && !ok => {
                self.dropping = false;
                Verdict::Accept
            }
            Phase::Normal if self.dropping => self.drop_if_due(now, pkt),
            Phase::Normal if ok => {
                self.enter(now);
                if self.ecn && pkt.ecn.is_capable() {
                    Verdict::Mark
                } else {
                    self.phase = Phase::AfterEntryDrop;
                    Verdict::Drop
                }
            }
            Phase::Normal => Verdict::Accept,
        };
        let over_ce = self.ce_threshold.is_some_and(|th| self.ldelay > th);
        if verdict == Verdict::Accept && over_ce && pkt.ecn.is_capable() {
            return Verdict::Mark;
        }
        verdict
    }

    fn on_empty(&mut self, _now: Nanos) {
        match self.phase {
            // The loop dequeued nothing after a drop: should_drop(NULL) clears first_above_time,
            // which ends the loop's dropping state but not a state just entered (codel_impl.h).
            Phase::InDropLoop => {
                self.first_above_time = 0;
                self.dropping = false;
            }
            Phase::AfterEntryDrop => self.first_above_time = 0,
            // A dequeue on an empty queue leaves the dropping state (RFC 8289 also forgets
            // first_above_time; Linux does not).
            Phase::Normal => {
                self.dropping = false;
                if !self.linux {
                    self.first_above_time = 0;
                }
            }
        }
        self.phase = Phase::Normal;
    }

    fn probe_names(&self) -> Vec<&'static str> {
        vec!["dropping", "count", "drop_next_s", "sojourn_s"]
    }

    fn probe(&self, out: &mut Vec<f64>) {
        out.extend_from_slice(&[self.dropping as u8 as f64, self.count as f64, self.drop_next_s(), self.to_secs(self.ldelay)]);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::QdiscConfig;
    use crate::packet::Ecn;
    use crate::queue::{Action, ActionKind, DropReason, Qdisc, QueueDisc};
    use crate::rng::Rng;
    use crate::time::NS_PER_MS;

    const LINK: LinkInfo = LinkInfo { rate_bps: 10_000_000, mtu: 1500 };

    #[test]
    fn newton_steps_and_control_law_of_spec_8_3() {
        // From 1.0 (0xFFFF): count 2 → 32769 (0.500), count 3 → 36864 (0.5625), count 4 → 31968.
        assert_eq!(newton_step(u16::MAX, 2), 32_769);
        assert_eq!(newton_step(32_769, 3), 36_864);
        assert_eq!(newton_step(36_864, 4), 31_968);
        // interval 100 ms = 97 656 units; ·0xFFFF/2^16 → 97 654; ·32769/2^16 → 48 829.
        assert_eq!(linux_control_law(0, 97_656, u16::MAX), 97_654);
        assert_eq!(linux_control_law(1000, 97_656, 32_769), 1000 + 48_829);
    }

    /// 20 packets of 1000 B queued at t = 0 (spec §8.3 case 5 / 6).
    fn loaded(profile: CoDelProfile, ecn: bool, ect: bool) -> Qdisc {
        let cfg = QdiscConfig::CoDel(CoDelConfig { profile: Some(profile), ecn: Some(ecn), ..Default::default() });
        cfg.validate().unwrap();
        let mut q = cfg.build(LINK, Rng::from_seed(1));
        let mut out = Vec::new();
        for i in 0..20 {
            let mut p = Pkt::new(i, 1000, 0);
            p.ecn = if ect { Ecn::Ect0 } else { Ecn::NotEct };
            assert!(q.enqueue(0, p, &mut out));
        }
        q
    }

    fn deq(q: &mut Qdisc, ms: u64, out: &mut Vec<Action>) -> bool {
        q.dequeue(ms * NS_PER_MS, out).is_some()
    }

    fn count(out: &[Action], kind: ActionKind) -> usize {
        out.iter().filter(|a| a.kind == kind).count()
    }

    #[test]
    fn basic_drop_schedule_rfc_and_linux() {
        // (profile, drops after the 420 ms dequeue, queue then, drop_next then in ms).
        for (profile, drops, left, next_ms) in [(CoDelProfile::Rfc, 3, 13, 438.446), (CoDelProfile::Linux, 4, 12, 465.03)] {
            let mut q = loaded(profile, false, false);
            let mut out = Vec::new();
            // 10 ms: sojourn above target, first_above_time = 110 ms; delivered.
            assert!(deq(&mut q, 10, &mut out) && out.is_empty());
            // 210 ms: enter dropping: one drop and the next packet delivered.
            assert!(deq(&mut q, 210, &mut out));
            assert_eq!((out.len(), q.backlog().packets), (1, 17));
            assert!(deq(&mut q, 210, &mut out));
            assert_eq!((out.len(), q.backlog().packets), (1, 16));
            // 420 ms: drop_next 310 ms (Linux 309.998) has passed: the drop loop runs.
            assert!(deq(&mut q, 420, &mut out));
            assert_eq!(count(&out, ActionKind::Drop(DropReason::Dequeue)), drops, "{profile:?}");
            assert_eq!(q.backlog().packets, left, "{profile:?}");
            let Qdisc::CoDel(sq) = &q else { unreachable!() };
            assert!((sq.aqm.drop_next_s() * 1e3 - next_ms).abs() < 0.01, "{profile:?}: {}", sq.aqm.drop_next_s());
        }
    }

    #[test]
    fn ecn_marks_instead_of_drops() {
        // spec §8.3 case 6(2): marks where case 5 dropped, 2 marks after the 420 ms dequeue.
        let mut q = loaded(CoDelProfile::Linux, true, true);
        let mut out = Vec::new();
        deq(&mut q, 10, &mut out);
        assert!(deq(&mut q, 210, &mut out));
        assert_eq!((count(&out, ActionKind::Mark), q.backlog().packets), (1, 18));
        deq(&mut q, 210, &mut out);
        deq(&mut q, 420, &mut out);
        assert_eq!((count(&out, ActionKind::Mark), out.len()), (2, 2));
        // ECN off, the same ECN-capable packets are dropped, at entry and in the drop loop: the
        // four drops of the Not-ECT schedule (basic_drop_schedule_rfc_and_linux, Linux).
        let mut q = loaded(CoDelProfile::Linux, false, true);
        out.clear();
        deq(&mut q, 10, &mut out);
        deq(&mut q, 210, &mut out);
        deq(&mut q, 210, &mut out);
        deq(&mut q, 420, &mut out);
        assert_eq!((count(&out, ActionKind::Mark), count(&out, ActionKind::Drop(DropReason::Dequeue))), (0, 4));
        // Not-ECT packets with ECN on are dropped as usual.
        let mut q = loaded(CoDelProfile::Linux, true, false);
        out.clear();
        deq(&mut q, 10, &mut out);
        deq(&mut q, 210, &mut out);
        assert_eq!(count(&out, ActionKind::Drop(DropReason::Dequeue)), 1);
    }

    #[test]
    fn interval_over_sqrt_count_schedule() {
        // RFC profile, a standing queue of 1000 packets, a dequeue every ms: first_above_time is
        // 110 ms, so the entry drop comes at 110 ms, then drop_next = 210, 210 + 100/√2 = 280.71,
        // + 100/√3 = 338.45, + 100/√4 = 388.45, + 100/√5 = 433.17, + 100/√6 = 473.99 ms.
        let mut q = QdiscConfig::CoDel(CoDelConfig::default()).build(LINK, Rng::from_seed(1));
        let mut out = Vec::new();
        fill(&mut q, 0, &mut out);
        let mut drop_times = Vec::new();
        for ms in 10..=480 {
            if ms > 10 && ms < 100 {
                continue;
            }
            out.clear();
            deq(&mut q, ms, &mut out);
            drop_times.extend(out.iter().map(|_| ms));
        }
        assert_eq!(drop_times, vec![110, 210, 281, 339, 389, 434, 474]);
    }

    #[test]
    fn overflow_and_ce_threshold() {
        // spec §8.3 case 2: 503 arrivals into 500 packets: 3 tail drops.
        let mut q = QdiscConfig::CoDel(CoDelConfig { limit: Some(QueueLimit::Packets(500)), ..Default::default() }).build(LINK, Rng::from_seed(1));
        let mut out = Vec::new();
        let accepted = (0..503).filter(|&i| q.enqueue(0, Pkt::new(i, 1000, 0), &mut out)).count();
        assert_eq!((accepted, count(&out, ActionKind::Drop(DropReason::Overflow))), (500, 3));
        // case 6(4): ce_threshold 2 ms marks an ECT packet after 3 ms, not after 1 ms.
        let cfg = CoDelConfig { profile: Some(CoDelProfile::Linux), ecn: Some(true), ce_threshold: Some(2 * NS_PER_MS), ..Default::default() };
        let mut q = QdiscConfig::CoDel(cfg).build(LINK, Rng::from_seed(1));
        out.clear();
        for i in 0..5 {
            let mut p = Pkt::new(i, 1000, 0);
            p.ecn = Ecn::Ect0;
            q.enqueue(0, p, &mut out);
        }
        deq(&mut q, 1, &mut out);
        assert!(out.is_empty());
        // At exactly the threshold, no mark (Linux: `codel_time_after(ldelay, ce_threshold)`).
        deq(&mut q, 2, &mut out);
        assert!(out.is_empty());
        deq(&mut q, 3, &mut out);
        assert_eq!(count(&out, ActionKind::Mark), 1);
    }

    #[test]
    fn empty_queue_ends_the_dropping_state() {
        let mut q = loaded(CoDelProfile::Rfc, false, false);
        let mut out = Vec::new();
        deq(&mut q, 10, &mut out);
        deq(&mut q, 210, &mut out);
        let Qdisc::CoDel(sq) = &q else { unreachable!() };
        assert!(sq.aqm.dropping());
        while deq(&mut q, 211, &mut out) {}
        let Qdisc::CoDel(sq) = &q else { unreachable!() };
        assert!(!sq.aqm.dropping());
        // So does a dequeue that leaves at most an MTU queued (RFC 8289 §5.3, `bytes <=
        // MAXPACKET`), the queue not yet empty: the state ends at the dequeue itself.
        let mut q = loaded(CoDelProfile::Rfc, false, false);
        deq(&mut q, 10, &mut out);
        deq(&mut q, 210, &mut out);
        while q.backlog().packets > 1 {
            deq(&mut q, 211, &mut out);
        }
        let Qdisc::CoDel(sq) = &q else { unreachable!() };
        assert!(!sq.aqm.dropping() && q.backlog().packets == 1);
    }

    /// 1000 packets of 1000 B enqueued at `at_ns`.
    fn fill(q: &mut Qdisc, at_ns: Nanos, out: &mut Vec<Action>) {
        for i in 0..1000 {
            q.enqueue(at_ns, Pkt::new(i, 1000, 0), out);
        }
    }

    /// An RFC CoDel through the schedule of interval_over_sqrt_count_schedule up to its fifth
    /// drop (110 ms at entry, count 1, then 210, 281, 339 and 389 ms, count 5; drop_next then
    /// 433.17 ms), its queue then drained at 390 ms, which ends the dropping state with count 5
    /// and lastcount 1; with the actions so far.
    fn after_five_drops() -> (Qdisc, Vec<Action>) {
        let mut q = QdiscConfig::CoDel(CoDelConfig::default()).build(LINK, Rng::from_seed(1));
        let mut out = Vec::new();
        fill(&mut q, 0, &mut out);
        for ms in (10..=10).chain(100..=389) {
            deq(&mut q, ms, &mut out);
        }
        while deq(&mut q, 390, &mut out) {}
        (q, out)
    }

    #[test]
    fn a_dropping_state_resumes_its_rate_only_within_16_intervals() {
        // RFC 8289 §5.4 (codel_dequeue in Linux): entering the dropping state less than 16
        // intervals after the last drop_next, with count - lastcount > 1, resumes at that
        // difference; later, it starts again from 1. Refilled at `refill` ms after five drops,
        // the state is entered again 210 ms later. (A third case, 876 ms after: still recent,
        // and a sum in place of the difference would have made it 1,744 ms, not recent.)
        for (refill, resumed, next_in_ms) in [(400, 4, 50.0), (2_000, 1, 100.0), (1_100, 4, 50.0)] {
            let (mut q, mut out) = after_five_drops();
            assert_eq!(count(&out, ActionKind::Drop(DropReason::Dequeue)), 5);
            let Qdisc::CoDel(sq) = &q else { unreachable!() };
            assert!(!sq.aqm.dropping() && (sq.aqm.count, sq.aqm.lastcount) == (5, 1));
            assert!((sq.aqm.drop_next_s() * 1e3 - 433.17).abs() < 0.01);
            fill(&mut q, refill * NS_PER_MS, &mut out);
            deq(&mut q, refill + 10, &mut out);
            deq(&mut q, refill + 210, &mut out);
            let Qdisc::CoDel(sq) = &q else { unreachable!() };
            // Entered at refill + 210 ms: 176 ms after drop_next in the first case (recent),
            // 1,777 ms in the second (beyond 16 x 100 ms). drop_next = now + 100 ms / sqrt(count).
            assert!(sq.aqm.dropping() && sq.aqm.count == resumed, "refill at {refill} ms: count {}", sq.aqm.count);
            let want = (refill + 210) as f64 + next_in_ms;
            assert!((sq.aqm.drop_next_s() * 1e3 - want).abs() < 1e-3, "refill at {refill} ms: {}", sq.aqm.drop_next_s());
        }
    }

    #[test]
    fn exactly_16_intervals_after_drop_next_is_not_recent() {
        // RFC 8289 §5.4: `now - drop_next < 16 * interval`, strict. After five drops (drop_next
        // 433.17 ms), refilled so that the state is entered again at drop_next + 1.6 s to the
        // nanosecond, it starts from 1.
        let (mut q, mut out) = after_five_drops();
        let Qdisc::CoDel(sq) = &q else { unreachable!() };
        let enter = sq.aqm.drop_next + 1_600 * NS_PER_MS;
        fill(&mut q, enter - 210 * NS_PER_MS, &mut out);
        q.dequeue(enter - 200 * NS_PER_MS, &mut out);
        q.dequeue(enter, &mut out);
        let Qdisc::CoDel(sq) = &q else { unreachable!() };
        assert!(sq.aqm.dropping() && sq.aqm.count == 1, "count {}", sq.aqm.count);
    }

    #[test]
    fn the_sojourn_test_and_the_interval_boundaries() {
        // RFC 8289 §5.3 (and codel_should_drop): a sojourn below target resets the interval, one
        // at target does not; the RFC drops once now reaches first_above_time, Linux only once
        // it is past it (`codel_time_after`). Times in each profile's own clock units; 10 kB of
        // backlog, well above the MTU test.
        for (profile, drops_at_first_above) in [(CoDelProfile::Rfc, true), (CoDelProfile::Linux, false)] {
            let cfg = CoDelConfig { profile: Some(profile), ..Default::default() };
            let Qdisc::CoDel(mut sq) = QdiscConfig::CoDel(cfg).build(LINK, Rng::from_seed(1)) else { unreachable!() };
            let c = &mut sq.aqm;
            let (target, interval) = (c.target, c.interval);
            assert!(!c.should_drop(1_000, target, 10_000));
            assert_eq!(c.first_above_time, 1_000 + interval, "{profile:?}: at target counts as above");
            assert!(!c.should_drop(2_000, target - 1, 10_000));
            assert_eq!(c.first_above_time, 0, "{profile:?}: below target resets");
            assert!(!c.should_drop(3_000, target, 10_000));
            let first_above = c.first_above_time;
            assert_eq!(c.should_drop(first_above, target, 10_000), drops_at_first_above, "{profile:?}");
            assert!(c.should_drop(first_above + 1, target, 10_000), "{profile:?}");
        }
        // Through the queue: the sojourn is the dequeue time less the enqueue time. Twenty
        // packets enqueued at 100 ms and dequeued at 102 ms waited 2 ms, below the 5 ms target.
        let mut q = QdiscConfig::CoDel(CoDelConfig::default()).build(LINK, Rng::from_seed(1));
        let mut out = Vec::new();
        for i in 0..20 {
            q.enqueue(100 * NS_PER_MS, Pkt::new(i, 1000, 0), &mut out);
        }
        assert!(deq(&mut q, 102, &mut out));
        let Qdisc::CoDel(sq) = &q else { unreachable!() };
        assert_eq!((sq.aqm.ldelay, sq.aqm.first_above_time), (2 * NS_PER_MS, 0));
    }

    #[test]
    fn an_empty_queue_ends_or_keeps_the_state_by_phase() {
        // codel_dequeue (codel_impl.h) and RFC 8289 §5.5 on finding the queue empty: after the
        // drop loop emptied it, the dropping state ends; after the entry drop emptied it, the
        // state stays (only first_above_time is forgotten); on a plain dequeue it ends, and the
        // RFC forgets first_above_time where Linux keeps it.
        for (profile, phase, dropping, first_above) in [
            (CoDelProfile::Rfc, Phase::InDropLoop, false, 0),
            (CoDelProfile::Rfc, Phase::AfterEntryDrop, true, 0),
            (CoDelProfile::Rfc, Phase::Normal, false, 0),
            (CoDelProfile::Linux, Phase::Normal, false, 777),
        ] {
            let cfg = CoDelConfig { profile: Some(profile), ..Default::default() };
            let Qdisc::CoDel(mut sq) = QdiscConfig::CoDel(cfg).build(LINK, Rng::from_seed(1)) else { unreachable!() };
            let c = &mut sq.aqm;
            (c.dropping, c.phase, c.first_above_time) = (true, phase, 777);
            c.on_empty(0);
            assert_eq!((c.dropping, c.first_above_time, c.phase), (dropping, first_above, Phase::Normal), "{profile:?} {phase:?}");
        }
    }

    /// A CoDel table from JSON, 20 packets of `len` bytes queued at t = 0.
    fn loaded_json(json: &str, len: u32, ect: bool) -> Qdisc {
        let cfg: QdiscConfig = serde_json::from_str(json).unwrap();
        let mut q = cfg.build(LINK, Rng::from_seed(1));
        let mut out = Vec::new();
        for i in 0..20 {
            let p = Pkt { ecn: if ect { Ecn::Ect0 } else { Ecn::NotEct }, ..Pkt::new(i, len, 0) };
            assert!(q.enqueue(0, p, &mut out));
        }
        q
    }

    #[test]
    fn minimum_backlog_test_per_source() {
        // Linux codel_should_drop: no drop while `backlog <= mtu`; ns-3 OkToDrop: while
        // `bytes < MinBytes` (1500). 20 packets of 500 B; 16 leave at 10 ms (first_above_time
        // 110 ms), the 17th at 210 ms leaves exactly 1500 B: Linux delivers it, ns-3 drops it
        // (entering the dropping state) and delivers the 18th, which leaves 1000 B.
        for (profile, drops) in [("linux", 0), ("ns3", 1)] {
            let mut q = loaded_json(&format!(r#"{{"type":"codel","profile":"{profile}"}}"#), 500, false);
            let mut out = Vec::new();
            for _ in 0..16 {
                assert!(deq(&mut q, 10, &mut out));
            }
            assert!(out.is_empty() && q.backlog().bytes == 2000);
            assert!(deq(&mut q, 210, &mut out));
            assert_eq!(count(&out, ActionKind::Drop(DropReason::Dequeue)), drops, "{profile}");
        }
    }

    #[test]
    fn ns3_schedules_the_next_mark_from_now() {
        // ns-3 CoDelQueueDisc::DoDequeue, ECN branch of the drop loop: drop_next =
        // ControlLaw(now, …); codel_impl.h: control_law(drop_next, …). Entry mark at 210 ms
        // (drop_next 302 732 units = 309.998 ms), mark at 420 ms with count 2 (rec_inv_sqrt
        // 32 769, interval·x = 48 829 units): Linux 302 732 + 48 829 = 351 561 units
        // (359.998 ms), ns-3 410 156 + 48 829 = 458 985 units (470.001 ms). A second dequeue at
        // 420 ms is due for Linux (a third mark) and not for ns-3.
        // Linux's third mark (count 3, rec_inv_sqrt 36 864) moves drop_next by 54 931 units to
        // 406 492 units (416.248 ms).
        for (profile, marks, next_ms) in [("linux", 3, 416.248), ("ns3", 2, 470.001)] {
            let mut q = loaded_json(&format!(r#"{{"type":"codel","profile":"{profile}","ecn":true}}"#), 1000, true);
            let mut out = Vec::new();
            for ms in [10, 210, 210, 420, 420] {
                deq(&mut q, ms, &mut out);
            }
            assert_eq!(count(&out, ActionKind::Mark), marks, "{profile}");
            let Qdisc::CoDel(sq) = &q else { unreachable!() };
            assert!((sq.aqm.drop_next_s() * 1e3 - next_ms).abs() < 0.001, "{profile}: {}", sq.aqm.drop_next_s());
        }
    }
}
