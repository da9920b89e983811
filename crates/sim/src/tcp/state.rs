//! The sender's congestion-avoidance state and its timers, made explicit as Linux does with
//! `tcp_ca_state` (net/ipv4/tcp_input.c: TCP_CA_Open, _CWR, _Recovery, _Loss) and smoltcp with
//! its `State`: the data only one phase needs lives in that phase's variant, so a recovery
//! point without a recovery, or PRR counters outside one, cannot be written.
//!
//! Linux's fifth state, Disorder (duplicate ACKs or SACKed data seen, no loss declared yet),
//! changes nothing in this sender beyond the duplicate-ACK count that the Open state keeps, so
//! it is not a variant of its own.

use aqm::Nanos;

use super::recovery::{Prr, Retransmissions};

/// The congestion-avoidance state (Linux `icsk_ca_state`).
#[derive(Clone, Debug, Default)]
pub enum CaState {
    /// Normal operation: the window grows on new ACKs.
    #[default]
    Open,
    /// The window was reduced (by an ECN echo, or by a recovery or timeout that has just ended)
    /// and the data outstanding at the reduction is not all acknowledged: RFC 3168 §6.1.2 allows
    /// one ECN reaction per window, so an ECE on an ACK up to `until` is ignored. `reducing`:
    /// after an ECN reduction with [`EcnCwr::Hold`](super::params::EcnCwr) or `Prr`, the
    /// window rule until the phase ends (None: the window grows as in Open).
    Cwr { until: u64, reducing: Option<Reducing> },
    /// Fast recovery after a loss (RFC 6582 §3.2, RFC 6675 §5).
    Recovery(Recovery),
    /// After a retransmission timeout, until new data is acknowledged (RFC 6298 §5.5,
    /// RFC 5681 §3.1): `timeouts` in a row so far; an ECE up to `until` (snd_max at the timeout)
    /// is ignored, as in `Cwr`.
    Loss { timeouts: u32, until: u64 },
}

/// The window of an ECN reduction's CWR phase (ns-3.44 CA_CWR, Linux TCP_CA_CWR): held at
/// ssthresh, or brought down to it by PRR; it does not grow.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Reducing {
    Hold,
    Prr(Prr),
}

/// One fast recovery.
#[derive(Clone, Debug)]
pub struct Recovery {
    /// RFC 6675 §5 step 4.1 RecoveryPoint (RFC 6582's "recover"): snd_max when the loss was
    /// detected; an ACK at or above it ends the recovery.
    pub point: u64,
    pub repair: Repair,
}

/// How the holes are repaired.
#[derive(Clone, Debug)]
pub enum Repair {
    /// RFC 6582 (no SACK): one hole per partial ACK. The retransmission timer is reset on the
    /// first partial ACK only (§3.2 step 5, the "Impatient" variant).
    NewReno { partial_seen: bool },
    /// RFC 6675 with the SACK scoreboard.
    Sack(SackRecovery),
}

/// The state of a SACK recovery.
#[derive(Clone, Debug)]
pub struct SackRecovery {
    /// RFC 6675 HighRxt: the highest segment retransmitted in this recovery.
    pub high_rxt: u64,
    /// Retransmissions of this recovery, and those found lost again.
    pub rtx: Retransmissions,
    /// Proportional Rate Reduction (RFC 6937), when configured.
    pub prr: Option<Prr>,
    /// The rescue retransmission of RFC 6675 §4 NextSeg rule 4 was sent.
    pub rescued: bool,
}

impl CaState {
    /// The SACK recovery under way, if any.
    pub fn sack_recovery(&self) -> Option<&SackRecovery> {
        match self {
            CaState::Recovery(Recovery { repair: Repair::Sack(r), .. }) => Some(r),
            _ => None,
        }
    }

    pub fn sack_recovery_mut(&mut self) -> Option<&mut SackRecovery> {
        match self {
            CaState::Recovery(Recovery { repair: Repair::Sack(r), .. }) => Some(r),
            _ => None,
        }
    }

    pub fn in_recovery(&self) -> bool {
        matches!(self, CaState::Recovery(_))
    }

    /// Timeouts in a row without new data acknowledged (0 outside the Loss state).
    pub fn timeouts_in_a_row(&self) -> u32 {
        match self {
            CaState::Loss { timeouts, .. } => *timeouts,
            _ => 0,
        }
    }

    /// Whether an ECE on an ACK of `ack` may reduce the window (RFC 3168 §6.1.2: once per
    /// window, never during loss recovery).
    pub fn ece_allowed(&self, ack: u64) -> bool {
        match self {
            CaState::Open => true,
            CaState::Cwr { until, .. } | CaState::Loss { until, .. } => ack > *until,
            CaState::Recovery(_) => false,
        }
    }
}

/// A timer's deadline, or none: a time with `Nanos::MAX` for "disarmed", 8 bytes where an
/// `Option<Nanos>` takes 16. The four timers are read on every ACK, and at many flows each
/// cache line of the sender an ACK touches is a miss (issue 22). No deadline reaches
/// `Nanos::MAX` (584 years of simulated time).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Deadline(Nanos);

impl Deadline {
    pub const NONE: Deadline = Deadline(Nanos::MAX);

    #[inline]
    pub fn at(t: Nanos) -> Self {
        debug_assert!(t < Nanos::MAX, "a deadline at the end of time");
        Deadline(t)
    }

    #[inline]
    pub fn get(self) -> Option<Nanos> {
        (self.0 != Nanos::MAX).then_some(self.0)
    }

    #[inline]
    pub fn is_set(self) -> bool {
        self.0 != Nanos::MAX
    }

    /// Whether the deadline is set and no later than `now`.
    #[inline]
    fn due(self, now: Nanos) -> bool {
        self.0 <= now && self.is_set()
    }
}

impl Default for Deadline {
    fn default() -> Self {
        Deadline::NONE
    }
}

impl From<Option<Nanos>> for Deadline {
    fn from(t: Option<Nanos>) -> Self {
        t.map_or(Deadline::NONE, Deadline::at)
    }
}

/// The sender's timers. Like Linux, the simulator runs them as one timer per connection: the
/// earliest deadline.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Timers {
    /// The retransmission timer (RFC 6298).
    pub rto: Deadline,
    /// RACK's reordering timer (RFC 8985 §6.3).
    pub reorder: Deadline,
    /// The tail loss probe timer (RFC 8985 §7.2).
    pub probe: Deadline,
    /// The pacing timer: data waits for its departure time.
    pub pace: Deadline,
}

/// Which timer fired.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Timer {
    Reorder,
    Probe,
    Rto,
    Pace,
}

impl Timers {
    /// The earliest deadline: a disarmed timer's sentinel is the greatest time, so the least
    /// of the four is the answer unless all are disarmed.
    #[inline]
    pub fn next(&self) -> Option<Nanos> {
        Deadline(self.rto.0.min(self.reorder.0).min(self.probe.0.min(self.pace.0))).get()
    }

    /// The timer due at `now`, the reordering timer first, then the probe, then the RTO, then
    /// pacing (a loss found first changes what is sent).
    pub fn due(&self, now: Nanos) -> Option<Timer> {
        if self.reorder.due(now) {
            Some(Timer::Reorder)
        } else if self.probe.due(now) {
            Some(Timer::Probe)
        } else if self.rto.due(now) {
            Some(Timer::Rto)
        } else if self.pace.due(now) {
            Some(Timer::Pace)
        } else {
            None
        }
    }

    pub fn clear(&mut self) {
        *self = Timers::default();
    }
}

/// What a sender counts.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct SenderStats {
    pub retransmits: u64,
    pub timeouts: u64,
    pub fast_recoveries: u64,
    pub ecn_reductions: u64,
    /// Slow starts ended by HyStart.
    pub hystart_exits: u64,
    /// Tail loss probes sent (RFC 8985 §7).
    pub tlp_probes: u64,
    /// Congestion responses (fast retransmits, timeouts, ECN reductions) that left ssthresh or
    /// cwnd above the window in force before them: 0 with the window and SACK-pipe rules (see
    /// `TcpSender::audit_response`).
    pub window_raising_responses: u64,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn timers_fire_earliest_first_reordering_before_probe_before_rto() {
        let t = Timers { rto: Deadline::at(30), reorder: Deadline::at(20), probe: Deadline::at(10), pace: Deadline::NONE };
        assert_eq!(t.next(), Some(10));
        assert_eq!(t.due(9), None);
        assert_eq!(t.due(10), Some(Timer::Probe));
        // Two due at once: the reordering timer is run first (its detection may start a
        // recovery, which disarms the probe).
        assert_eq!(t.due(25), Some(Timer::Reorder));
        let only_rto = Timers { rto: Deadline::at(30), ..Timers::default() };
        assert_eq!(only_rto.due(30), Some(Timer::Rto));
        // None armed: no deadline, nothing due even at the end of time (the sentinel is not a
        // deadline).
        assert_eq!((Timers::default().next(), Timers::default().due(Nanos::MAX)), (None, None));
    }

    #[test]
    fn ece_is_ignored_in_recovery_and_until_the_reduced_window_is_acknowledged() {
        assert!(CaState::Open.ece_allowed(5));
        assert!(!CaState::Cwr { until: 10, reducing: None }.ece_allowed(10));
        assert!(CaState::Cwr { until: 10, reducing: None }.ece_allowed(11));
        assert!(!CaState::Loss { timeouts: 1, until: 10 }.ece_allowed(10));
        let r = CaState::Recovery(Recovery { point: 10, repair: Repair::NewReno { partial_seen: false } });
        assert!(!r.ece_allowed(100));
        assert_eq!((r.timeouts_in_a_row(), CaState::Loss { timeouts: 3, until: 0 }.timeouts_in_a_row()), (0, 3));
    }
}
