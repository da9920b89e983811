//! LEDBAT, the less-than-best-effort controller of RFC 6817: it aims at a fixed queueing delay
//! TARGET and backs off as soon as others build a longer queue.
//!
//! RFC 6817 §2.4.2, per ACK: a delay sample updates the current delay (the smallest of the
//! last CURRENT_FILTER samples) and the base delay (the smallest per minute over the last
//! BASE_HISTORY minutes); queuing_delay = current − base, off_target = (TARGET −
//! queuing_delay)/TARGET, and cwnd += GAIN · off_target · bytes_acked · MSS / cwnd (here in
//! segments: GAIN · off_target · acked / cwnd), never below MIN_CWND. On loss the window halves
//! (as Reno, at most once per window: the sender's recovery does that).
//!
//! Deviations, both stated: the delay samples are round trips (the echoed send time of the
//! segment an ACK acknowledges) rather than one-way delays, which is the same signal while the
//! reverse path does not queue (the dumbbell's ACK direction); and LEDBAT runs its law from
//! the first ACK, without slow start (RFC 6817 §2.4.2 leaves slow start out of the controller
//! and asks that LEDBAT never ramp up faster than TCP). The `max_allowed_cwnd` bound of
//! §2.4.2 (flight size + ALLOWED_INCREASE) only binds for an application-limited sender, which
//! no LEDBAT application here is.

/// TARGET: the queueing delay LEDBAT aims at (RFC 6817 §3.2.2: at most 100 ms).
pub const TARGET_S: f64 = 0.100;
/// GAIN (§3.2.3: at most 1).
pub const GAIN: f64 = 1.0;
/// Samples the current delay is the minimum of (§3.3.1 suggests a few).
pub const CURRENT_FILTER: usize = 4;
/// Minutes of base-delay history (§3.3.2 suggests 10).
pub const BASE_HISTORY: usize = 10;
/// The smallest window, in segments (§2.4.2's MIN_CWND).
pub const MIN_CWND: f64 = 2.0;

#[derive(Clone, Debug, Default)]
pub struct LedbatState {
    /// The last CURRENT_FILTER delay samples (s), oldest first.
    current: Vec<f64>,
    /// (minute, smallest sample in it) for the last BASE_HISTORY minutes, oldest first.
    base: Vec<(u64, f64)>,
}

impl LedbatState {
    /// A delay sample of `delay_s` taken at `now_s` (RFC 6817 §2.4.2 update_current_delay and
    /// update_base_delay).
    pub fn sample(&mut self, now_s: f64, delay_s: f64) {
        if self.current.len() == CURRENT_FILTER {
            self.current.remove(0);
        }
        self.current.push(delay_s);
        let minute = (now_s / 60.0) as u64;
        match self.base.last_mut() {
            Some((m, d)) if *m == minute => *d = d.min(delay_s),
            _ => {
                if self.base.len() == BASE_HISTORY {
                    self.base.remove(0);
                }
                self.base.push((minute, delay_s));
            }
        }
    }

    /// current_delay − base_delay, once a sample has been taken.
    pub fn queuing_delay(&self) -> Option<f64> {
        let current = self.current.iter().copied().reduce(f64::min)?;
        let base = self.base.iter().map(|&(_, d)| d).reduce(f64::min)?;
        Some(current - base)
    }

    /// The window after `acked` segments are acknowledged (§2.4.2); unchanged before the
    /// first delay sample.
    pub fn grow(&self, cwnd: &mut f64, acked: f64) {
        if let Some(q) = self.queuing_delay() {
            let off_target = (TARGET_S - q) / TARGET_S;
            *cwnd = (*cwnd + GAIN * off_target * acked / *cwnd).max(MIN_CWND);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn filters_follow_rfc6817() {
        let mut l = LedbatState::default();
        assert_eq!(l.queuing_delay(), None);
        // Base 40 ms; then four samples around 90 ms: the current delay is their minimum.
        for (t, d) in [(0.0, 0.040), (1.0, 0.095), (2.0, 0.090), (3.0, 0.092), (4.0, 0.097)] {
            l.sample(t, d);
        }
        assert!((l.queuing_delay().unwrap() - 0.050).abs() < 1e-12);
        // 50 ms below a 100 ms target: off_target 1/2, so 10 segments acked at cwnd 10 add 0.5.
        let mut w = 10.0;
        l.grow(&mut w, 10.0);
        assert!((w - 10.5).abs() < 1e-12);
        // Above target the window shrinks, never below MIN_CWND.
        l.sample(5.0, 0.300);
        l.sample(6.0, 0.300);
        l.sample(7.0, 0.300);
        l.sample(8.0, 0.300);
        let mut w = 2.5;
        l.grow(&mut w, 10.0);
        assert_eq!(w, MIN_CWND);
        // The 40 ms base is forgotten after BASE_HISTORY minutes of larger samples.
        for minute in 1..=BASE_HISTORY as u64 {
            l.sample(60.0 * minute as f64, 0.060);
        }
        assert!((l.queuing_delay().unwrap() - 0.0).abs() < 1e-12);
    }

    #[test]
    fn base_delay_history_is_kept_per_minute_not_per_sample() {
        // RFC 6817 §2.4.2 update_base_delay: within one minute a sample only lowers that
        // minute's entry; a new entry (and the drop of the oldest past BASE_HISTORY) comes with
        // a new minute. 40 ms at t = 0, then 20 samples of 60 ms at t = 1..20 s, all in minute 0:
        // the base stays 40 ms, so the queuing delay is 60 − 40 = 20 ms.
        let mut l = LedbatState::default();
        l.sample(0.0, 0.040);
        for t in 1..=20 {
            l.sample(t as f64, 0.060);
        }
        assert!((l.queuing_delay().unwrap() - 0.020).abs() < 1e-12);
    }
}
