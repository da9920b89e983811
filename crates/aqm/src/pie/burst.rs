//! PIE's burst allowance: no random drop while it lasts (HPSR'13 §III-D, RFC 8033 §4.4). Each
//! profile spends and re-arms it its own way; each way is one variant here.

use super::linux::{ticks, TICK_SHIFT};
use crate::time::{Nanos, NS_PER_SEC};

/// ns-3's BURST_RESET_TIMEOUT (`pie-queue-disc.h`).
pub const NS3_BURST_RESET: Nanos = 3 * NS_PER_SEC / 2;

/// `burstResetLimit` of ns-3's `CalculateP`: `static_cast<uint32_t>(BURST_RESET_TIMEOUT /
/// m_tUpdate.GetSeconds())`, the same double division and truncation.
pub fn ns3_burst_reset_limit(tupdate: Nanos) -> u32 {
    (NS3_BURST_RESET as f64 / 1e9 / (tupdate as f64 / 1e9)) as u32
}

/// ns-3's DOCSIS-like burst protection states (`PieQueueDisc::BurstStateT`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Ns3State {
    NoBurst,
    /// Armed by `DropEarly`, allowance running.
    Protecting,
    /// Quiet updates counted towards BURST_RESET_TIMEOUT.
    InBurst(u32),
}

/// The allowance left and the rule that spends and re-arms it.
#[derive(Clone, Debug, PartialEq)]
pub enum Burst {
    /// RFC 8033: minus T_UPDATE at every update (§4.2 step 8), re-armed at enqueue once p = 0
    /// and both delay samples are below half the target (App. A).
    Rfc { left: Nanos },
    /// HPSR'13 §III-D: minus `dq_int` at every departure-rate sample, re-armed at a sample once
    /// congestion is gone.
    Paper { left: Nanos },
    /// sch_pie `pie_process_dequeue`: minus the time since the previous dequeue (timestamp
    /// mode) or the measurement cycle's duration (rate mode); re-armed by `pie_vars_init`.
    Linux { left: Nanos, last_dequeue: Option<u64> },
    /// ns-3 `PieQueueDisc`: armed by `DropEarly`, minus T_update at every update, p forced to 0
    /// while it lasts, and a state machine deciding when it may be armed again.
    Ns3 { left: Nanos, state: Ns3State },
}

impl Burst {
    pub fn left(&self) -> Nanos {
        match *self {
            Burst::Rfc { left } | Burst::Paper { left } | Burst::Linux { left, .. } | Burst::Ns3 { left, .. } => left,
        }
    }

    fn left_mut(&mut self) -> &mut Nanos {
        match self {
            Burst::Rfc { left } | Burst::Paper { left } | Burst::Linux { left, .. } | Burst::Ns3 { left, .. } => left,
        }
    }

    /// A full allowance (RFC 8033 §5.3 activation).
    pub fn arm(&mut self, max: Nanos) {
        *self.left_mut() = max;
    }

    /// sch_pie `pie_vars_init`: a full allowance and no previous dequeue.
    pub fn restart(&mut self, max: Nanos) {
        if let Burst::Linux { left, last_dequeue } = self {
            *left = max;
            *last_dequeue = None;
        }
    }

    /// At an arrival, before the drop test: RFC 8033 App. A re-arms when congestion is gone.
    pub fn at_enqueue(&mut self, quiet: bool, max: Nanos) {
        if let Burst::Rfc { left } = self {
            if quiet {
                *left = max;
            }
        }
    }

    /// The start of the early-drop test: true while an allowance is left (no random drop).
    /// ns-3's `DropEarly` arms the allowance here when no burst was seen yet; the packet is
    /// still judged.
    pub fn skips_drop_test(&mut self, max: Nanos) -> bool {
        if self.left() > 0 {
            return true;
        }
        if let Burst::Ns3 { left, state: state @ Ns3State::NoBurst } = self {
            *state = Ns3State::Protecting;
            *left = max;
        }
        false
    }

    /// A departure at `now` in sch_pie's timestamp mode: the time since the previous dequeue,
    /// in 64-ns ticks, is spent.
    pub fn at_timestamped_dequeue(&mut self, now: Nanos) {
        if let Burst::Linux { left, last_dequeue } = self {
            let t = ticks(now);
            let dtime = last_dequeue.map_or(0, |last| t - last);
            *last_dequeue = Some(t);
            *left = left.saturating_sub(dtime << TICK_SHIFT);
        }
    }

    /// Whether this policy needs the departure-rate cycles even when the delay is measured by
    /// timestamps (HPSR'13 spends the allowance per rate sample).
    pub fn needs_rate_samples(&self) -> bool {
        matches!(self, Burst::Paper { .. })
    }

    /// A departure-rate sample of a cycle lasting `dq_int`; `quiet` is "p = 0 and both delay
    /// samples below half the target". sch_pie spends the cycle only in rate mode.
    pub fn at_rate_sample(&mut self, dq_int: Nanos, quiet: bool, max: Nanos, rate_mode: bool) {
        match self {
            Burst::Paper { left } => {
                *left = left.saturating_sub(dq_int);
                // HPSR'13 §III-D step 3, at each rate update: re-arm once congestion is gone.
                if quiet {
                    *left = max;
                }
            }
            Burst::Linux { left, .. } if rate_mode => *left = left.saturating_sub(dq_int),
            _ => {}
        }
    }

    /// ns-3 `CalculateP`: no probability while the allowance lasts.
    pub fn forces_zero_prob(&self) -> bool {
        matches!(self, Burst::Ns3 { left, .. } if *left > 0)
    }

    /// The periodic update: RFC 8033 §4.2 step 8 and ns-3 spend T_update.
    pub fn at_update(&mut self, tupdate: Nanos) {
        if let Burst::Rfc { left } | Burst::Ns3 { left, .. } = self {
            *left = left.saturating_sub(tupdate);
        }
    }

    /// ns-3's state machine at the end of `CalculateP`. `quiet` is "p = 0 (after this update)
    /// and both delay samples below half the target"; an update counts as quiet for the state
    /// machine only with the allowance spent as well. IN_BURST_PROTECTING moves to IN_BURST at
    /// the first quiet update; IN_BURST counts quiet updates, starts again from 0 at any other,
    /// and returns to NO_BURST once more than ⌊BURST_RESET_TIMEOUT / T_update⌋ have been counted.
    pub fn ns3_after_update(&mut self, quiet: bool, tupdate: Nanos) {
        if let Burst::Ns3 { left, state } = self {
            let quiet = quiet && *left == 0;
            *state = match *state {
                Ns3State::Protecting if quiet => Ns3State::InBurst(0),
                Ns3State::InBurst(n) if quiet && n + 1 > ns3_burst_reset_limit(tupdate) => Ns3State::NoBurst,
                Ns3State::InBurst(n) if quiet => Ns3State::InBurst(n + 1),
                Ns3State::InBurst(_) => Ns3State::InBurst(0),
                s => s,
            };
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::time::NS_PER_MS;

    const MS: Nanos = NS_PER_MS;

    #[test]
    fn rfc_spends_t_update_and_rearms_at_a_quiet_enqueue() {
        // RFC 8033 §4.2 step 8: 150 − 3·15 = 105 ms; App. A: quiet enqueue re-arms to 150 ms.
        let mut b = Burst::Rfc { left: 150 * MS };
        (0..3).for_each(|_| b.at_update(15 * MS));
        assert_eq!(b.left(), 105 * MS);
        b.at_enqueue(false, 150 * MS);
        assert_eq!(b.left(), 105 * MS);
        b.at_enqueue(true, 150 * MS);
        assert_eq!(b.left(), 150 * MS);
        assert!(b.skips_drop_test(150 * MS));
    }

    #[test]
    fn linux_spends_dequeue_time_in_ticks() {
        // pie_process_dequeue: dtime is 0 at the first dequeue, then the ticks since the last one.
        let mut b = Burst::Linux { left: 150 * MS, last_dequeue: None };
        b.at_timestamped_dequeue(20 * MS);
        assert_eq!(b.left(), 150 * MS);
        b.at_timestamped_dequeue(30 * MS);
        // 30 ms → 468 750 ticks, 20 ms → 312 500: 156 250 ticks = 10 ms exactly.
        assert_eq!(b.left(), 140 * MS);
        // 100 ns later: 1 tick (64 ns) is spent, not 100 ns.
        b.at_timestamped_dequeue(30 * MS + 100);
        assert_eq!(b.left(), 140 * MS - 64);
        b.restart(150 * MS);
        assert_eq!(b, Burst::Linux { left: 150 * MS, last_dequeue: None });
    }

    #[test]
    fn linux_spends_rate_cycles_only_in_rate_mode() {
        // sch_pie `pie_process_dequeue` takes the measurement cycle's duration off the burst
        // allowance only with the rate estimator on; with timestamps the time between dequeues
        // is spent instead, and a cycle's end spends nothing.
        let mut b = Burst::Linux { left: 100 * MS, last_dequeue: None };
        b.at_rate_sample(9 * MS, false, 100 * MS, false);
        assert_eq!(b.left(), 100 * MS);
        b.at_rate_sample(9 * MS, false, 100 * MS, true);
        assert_eq!(b.left(), 91 * MS);
    }

    #[test]
    fn paper_spends_per_rate_sample_and_rearms_when_quiet() {
        let mut b = Burst::Paper { left: 100 * MS };
        b.at_rate_sample(9 * MS, false, 100 * MS, false);
        assert_eq!(b.left(), 91 * MS);
        b.at_rate_sample(9 * MS, true, 100 * MS, false);
        assert_eq!(b.left(), 100 * MS);
        assert!(b.needs_rate_samples());
    }

    #[test]
    fn ns3_arms_at_the_first_drop_test_and_forces_p_to_zero_while_it_lasts() {
        let mut b = Burst::Ns3 { left: 0, state: Ns3State::NoBurst };
        assert!(!b.skips_drop_test(150 * MS), "the arming packet is still judged");
        assert_eq!(b, Burst::Ns3 { left: 150 * MS, state: Ns3State::Protecting });
        assert!(b.forces_zero_prob() && b.skips_drop_test(150 * MS));
        (0..10).for_each(|_| b.at_update(15 * MS));
        assert!(!b.forces_zero_prob());
    }

    #[test]
    fn ns3_reset_limit_is_the_truncated_double_division() {
        // 1.5 / 0.015 = 100, 1.5 / 0.016 = 93.75 → 93, 1.5 / 0.03 = 50, 1.5 / 0.007 = 214.28 → 214.
        let limits: Vec<u32> = [15, 16, 30, 7].iter().map(|&ms| ns3_burst_reset_limit(ms * MS)).collect();
        assert_eq!(limits, vec![100, 93, 50, 214]);
    }

    #[test]
    fn ns3_state_machine_counts_only_quiet_updates() {
        // Hand-worked from PieQueueDisc::CalculateP, T = 15 ms (limit 100).
        let step = |b: &mut Burst, quiet: bool| {
            b.ns3_after_update(quiet, 15 * MS);
            match b {
                Burst::Ns3 { state, .. } => *state,
                _ => unreachable!(),
            }
        };
        let mut b = Burst::Ns3 { left: 15 * MS, state: Ns3State::Protecting };
        // A quiet update with allowance left is not quiet for the state machine.
        assert_eq!(step(&mut b, true), Ns3State::Protecting);
        b.at_update(15 * MS);
        assert_eq!(step(&mut b, false), Ns3State::Protecting);
        assert_eq!(step(&mut b, true), Ns3State::InBurst(0));
        for n in 1..=60 {
            assert_eq!(step(&mut b, true), Ns3State::InBurst(n));
        }
        // Any other update starts the count again.
        assert_eq!(step(&mut b, false), Ns3State::InBurst(0));
        for n in 1..=100 {
            assert_eq!(step(&mut b, true), Ns3State::InBurst(n));
        }
        // The 101st quiet update in a row is more than 100: back to NO_BURST.
        assert_eq!(step(&mut b, true), Ns3State::NoBurst);
        assert_eq!(step(&mut b, true), Ns3State::NoBurst);
    }
}
