//! RACK-TLP (RFC 8985): time-based loss detection from the per-segment transmit times (§6) and
//! the tail loss probe (§7). The sender keeps one [`Rack`] per connection and calls these on
//! every ACK, at its timers and when it sends.

use std::collections::VecDeque;

use aqm::Nanos;

use super::recovery::{Retransmissions, Verdict};
use super::scoreboard::Scoreboard;
use super::sender::AckIn;

/// RFC 8985 §7.2: the worst-case delayed-ACK time added to the PTO when one segment is in
/// flight (WCDelAckT).
pub const WC_DEL_ACK: Nanos = 200_000_000;
/// The PTO before any RTT sample (§7.2: 1 s).
pub const PTO_NO_SAMPLE: Nanos = 1_000_000_000;

/// RACK's state (RFC 8985 §6.1), the per-segment transmit times it reads, and TLP's episode.
#[derive(Clone, Debug)]
pub struct Rack {
    /// Per outstanding segment, indexed by seq − snd_una: the time of its latest transmission
    /// and whether that transmission was a retransmission (§6.1 Segment.xmit_ts and
    /// Segment.retransmitted). A ring, so an ACK costs no allocation once it has grown.
    pub xmit: VecDeque<(Nanos, bool)>,
    /// RACK.xmit_ts and RACK.end_seq (one past the segment; 0: nothing delivered yet).
    pub xmit_ts: Nanos,
    pub end_seq: u64,
    /// RACK.rtt: the RTT of that most recently sent delivered segment.
    pub rtt: Nanos,
    /// RACK.min_RTT: the least unambiguous per-segment RTT seen.
    pub min_rtt: Nanos,
    /// Segments never retransmitted are sent in sequence order, so their transmit times rise
    /// with seq and RACK marks them lost oldest first: the un-SACKed, not retransmitted
    /// segments below this boundary are the lost ones (§6.2 step 5's Segment.lost).
    pub lost_below: u64,
    /// §7.4: snd_max when a probe was sent, until the ACK that covers it (one probe per tail).
    pub probe_high_seq: Option<u64>,
}

/// What a run of the detection found.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Detection {
    /// A segment was newly marked lost.
    pub marked: bool,
    /// The reordering timer to arm (§6.3), if a segment may still turn out lost.
    pub deadline: Option<Nanos>,
}

impl Default for Rack {
    fn default() -> Self {
        Rack {
            xmit: VecDeque::new(),
            xmit_ts: 0,
            end_seq: 0,
            rtt: 0,
            min_rtt: Nanos::MAX,
            lost_below: 0,
            probe_high_seq: None,
        }
    }
}

impl Rack {
    /// A new segment `seq` (snd_una + `offset`) leaves at `now`.
    pub fn sent_new(&mut self, offset: u64, now: Nanos) {
        match self.xmit.get_mut(offset as usize) {
            Some(x) => *x = (now, false),
            None => self.xmit.push_back((now, false)),
        }
    }

    /// The segment at `offset` from snd_una is retransmitted at `now`.
    pub fn retransmitted(&mut self, offset: u64, now: Nanos) {
        self.xmit[offset as usize] = (now, true);
    }

    /// The cumulative ACK moved up by `n` segments.
    pub fn acked(&mut self, n: u64) {
        self.xmit.drain(..n as usize);
    }

    /// RFC 8985 §6.2 steps 1-3 over the segments ACK `a` newly delivers: the un-SACKed ones its
    /// cumulative ACK covers and the not yet SACKed parts of its SACK blocks (read before the
    /// scoreboard takes them). `tsecr`: the ACK's echoed timestamp, when the timestamp option
    /// is in use.
    pub fn on_ack(&mut self, now: Nanos, una: u64, snd_max: u64, a: &AckIn, tsecr: Option<Nanos>, sb: &Scoreboard) {
        let floor = a.ack.max(una);
        sb.for_each_gap(una, a.ack, |x, y| self.delivered(now, una, x, y, tsecr));
        for &(s, e) in a.sack {
            sb.for_each_gap(s.max(floor), e.min(snd_max), |x, y| self.delivered(now, una, x, y, tsecr));
        }
    }

    /// RFC 8985 §6.2 steps 1-3 (RACK_update) for the newly delivered segments [a, b).
    fn delivered(&mut self, now: Nanos, una: u64, a: u64, b: u64, tsecr: Option<Nanos>) {
        for seq in a..b {
            let (ts, rexmit) = self.xmit[(seq - una) as usize];
            let rtt = now.saturating_sub(ts);
            if rexmit {
                // Step 2: a retransmitted segment whose ACK echoes a timestamp older than the
                // retransmission, or comes sooner than the minimum RTT after it, was probably
                // delivered by its original transmission (a spurious retransmission): its sample
                // says nothing about the retransmission's fate.
                if tsecr.is_some_and(|e| e < ts) || rtt < self.min_rtt {
                    continue;
                }
            } else {
                self.min_rtt = self.min_rtt.min(rtt);
            }
            // Step 3: keep the most recently sent delivered segment (RACK_sent_after).
            if ts > self.xmit_ts || (ts == self.xmit_ts && seq + 1 > self.end_seq) {
                self.xmit_ts = ts;
                self.end_seq = seq + 1;
                self.rtt = rtt;
            }
        }
    }

    /// Whether segment `seq`, sent at `ts`, was sent before RACK's segment
    /// (RACK_sent_after(RACK.xmit_ts, RACK.end_seq, ts, seq + 1)).
    pub fn sent_before(&self, ts: Nanos, seq: u64) -> bool {
        ts < self.xmit_ts || (ts == self.xmit_ts && seq + 1 < self.end_seq)
    }

    /// RFC 8985 §6.2 step 4 (RACK_update_reo_wnd without reordering seen: RACK.reord stays
    /// false, as the simulated paths never reorder): no window in recovery or once DupThresh
    /// segments are SACKed (`none`), else min(min_RTT/4, SRTT), or min_RTT/4 alone before any
    /// SRTT (there is no handshake here to give one).
    pub fn reo_wnd(&self, none: bool, srtt: Nanos) -> Nanos {
        if none {
            0
        } else if srtt > 0 {
            (self.min_rtt / 4).min(srtt)
        } else {
            self.min_rtt / 4
        }
    }

    /// RFC 8985 §6.2 step 5 (RACK_detect_loss): every un-SACKed segment not yet lost and sent
    /// before RACK's segment is lost once RACK.rtt + `reo_wnd` has passed since it was sent;
    /// for the others the reordering timer is due at the latest such deadline (§6.2: `timeout
    /// = max(remaining, timeout)`). Retransmissions of the recovery under way, `rtx`, are judged
    /// the same way (§2.2: a lost retransmission is found without waiting for the RTO).
    pub fn detect(
        &mut self,
        now: Nanos,
        una: u64,
        snd_max: u64,
        sb: &Scoreboard,
        reo_wnd: Nanos,
        rtx: Option<&mut Retransmissions>,
    ) -> Detection {
        if self.end_seq == 0 {
            return Detection { marked: false, deadline: None };
        }
        let mut marked = false;
        let mut timeout: Nanos = 0;
        // Segments sent once: in sequence order, so in transmit order; the due ones are a prefix.
        let mut pos = self.lost_below.max(una);
        let mut prefix = true;
        while let Some(seq) = sb.next_unsacked(pos, snd_max) {
            let (ts, rexmit) = self.xmit[(seq - una) as usize];
            pos = seq + 1;
            if rexmit {
                // Retransmissions are judged below, in the order they were sent.
                if prefix {
                    self.lost_below = pos;
                }
                continue;
            }
            if !self.sent_before(ts, seq) {
                break;
            }
            let due = ts + self.rtt + reo_wnd;
            if due <= now && prefix {
                self.lost_below = pos;
                marked = true;
            } else {
                prefix = false;
                timeout = timeout.max(due.saturating_sub(now));
            }
        }
        if let Some(rtx) = rtx {
            let (lost, latest) = rtx.detect_lost_by_time(una, |seq, ts| {
                if seq < una || sb.is_sacked(seq) || self.xmit[(seq - una) as usize] != (ts, true) {
                    // Delivered, or sent again since.
                    Verdict::Gone
                } else if !self.sent_before(ts, seq) {
                    Verdict::Stop
                } else if ts + self.rtt + reo_wnd <= now {
                    Verdict::Lost
                } else {
                    Verdict::Wait(ts + self.rtt + reo_wnd - now)
                }
            });
            marked |= lost;
            timeout = timeout.max(latest);
        }
        Detection { marked, deadline: (timeout > 0).then_some(now + timeout) }
    }
}

/// RFC 8985 §7.2: the probe timeout, 2·SRTT, plus WCDelAckT when one segment is in flight (its
/// ACK may be delayed); 1 s before any RTT sample. The caller keeps it no later than the RTO.
pub fn probe_timeout(srtt: f64, flight: u64) -> Nanos {
    if srtt <= 0.0 {
        return PTO_NO_SAMPLE;
    }
    let pto = (2.0 * srtt).round() as Nanos;
    if flight == 1 {
        pto + WC_DEL_ACK
    } else {
        pto
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    const MS: Nanos = 1_000_000;

    #[test]
    fn pto_is_two_srtt_plus_the_delayed_ack_allowance_for_one_segment() {
        assert_eq!(probe_timeout(0.0, 5), PTO_NO_SAMPLE);
        assert_eq!(probe_timeout(50e6, 5), 100 * MS);
        assert_eq!(probe_timeout(50e6, 1), 300 * MS);
    }

    #[test]
    fn reordering_window_is_a_quarter_min_rtt_capped_by_srtt() {
        let r = Rack { min_rtt: 100 * MS, ..Rack::default() };
        assert_eq!(r.reo_wnd(false, 0), 25 * MS);
        assert_eq!(r.reo_wnd(false, 20 * MS), 20 * MS);
        assert_eq!(r.reo_wnd(true, 20 * MS), 0);
    }
}
