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

    /// An ACK with cumulative point `ack` and SACK blocks `sack`, no ECN.
    fn ack_in(ack: u64, sack: &[(u64, u64)]) -> AckIn<'_> {
        AckIn { ack, sack, ece: false, ace: 0, echo: 0 }
    }

    /// RACK.xmit_ts, RACK.end_seq and RACK.rtt.
    fn state(r: &Rack) -> (Nanos, u64, Nanos) {
        (r.xmit_ts, r.end_seq, r.rtt)
    }

    #[test]
    fn transmit_times_follow_the_cumulative_ack() {
        // §6.1 Segment.xmit_ts, kept per segment at seq − snd_una: once segment 0 is
        // cumulatively acknowledged, segment 1's time is the first. Segments 0, 1, 2 leave at
        // 0, 10, 20 ms; the ACK of segment 1 at 110 ms: RACK's segment is 1, sent at 10 ms,
        // RTT 100 ms.
        let mut r = Rack::default();
        for k in 0..3 {
            r.sent_new(k, 10 * MS * k);
        }
        r.acked(1);
        r.on_ack(110 * MS, 1, 3, &ack_in(2, &[]), None, &Scoreboard::default());
        assert_eq!(state(&r), (10 * MS, 2, 100 * MS));
    }

    #[test]
    fn a_retransmission_acknowledged_sooner_than_min_rtt_is_not_sampled() {
        // §6.2 step 2: a retransmitted segment ACKed less than RACK.min_RTT after its
        // retransmission was probably delivered by its original: RACK is not updated; at or
        // past min_RTT it is. Segments 0 and 1 leave at 0; the ACK of 0 at 100 ms sets
        // min_RTT = RACK.rtt = 100 ms; 1 is retransmitted at 150 ms.
        let sb = Scoreboard::default();
        let mut r = Rack::default();
        r.sent_new(0, 0);
        r.sent_new(1, 0);
        r.on_ack(100 * MS, 0, 2, &ack_in(1, &[]), None, &sb);
        assert_eq!((state(&r), r.min_rtt), ((0, 1, 100 * MS), 100 * MS));
        r.acked(1);
        r.retransmitted(0, 150 * MS);
        // Its ACK at 200 ms, 50 ms after the retransmission: ignored.
        let mut early = r.clone();
        early.on_ack(200 * MS, 1, 2, &ack_in(2, &[]), None, &sb);
        assert_eq!(state(&early), (0, 1, 100 * MS));
        // At 260 ms, 110 ms after it: RACK's segment is the retransmission, RTT 110 ms.
        r.on_ack(260 * MS, 1, 2, &ack_in(2, &[]), None, &sb);
        assert_eq!(state(&r), (150 * MS, 2, 110 * MS));
    }

    #[test]
    fn among_segments_sent_at_once_the_highest_delivered_stays_racks() {
        // §6.2 step 3, RACK_sent_after(t1, seq1, t2, seq2): t1 > t2, or t1 = t2 and seq1 beyond
        // seq2. Segments 0..6 leave together at 0. The ACK at 100 ms SACKs 5: RACK's segment is
        // 5 (end 6), RTT 100 ms. The ACK at 120 ms cumulatively acknowledges 0..3, sent at the
        // same time but lower: none of them was sent after 5, so RACK stays.
        let mut r = Rack::default();
        for k in 0..6 {
            r.sent_new(k, 0);
        }
        let mut sb = Scoreboard::default();
        r.on_ack(100 * MS, 0, 6, &ack_in(0, &[(5, 6)]), None, &sb);
        assert_eq!(state(&r), (0, 6, 100 * MS));
        sb.add(5, 6);
        r.on_ack(120 * MS, 0, 6, &ack_in(3, &[(5, 6)]), None, &sb);
        assert_eq!(state(&r), (0, 6, 100 * MS));
    }

    #[test]
    fn racks_own_segment_delivered_again_is_not_sent_after_itself() {
        // §6.2 step 3 is strict: the same transmission (same time, same end) is not sent after
        // RACK's segment. After a timeout the scoreboard may be cleared (RFC 6675 §5.1,
        // RFC 2018 §8) while the receiver still holds segment 5, so a later ACK reports it
        // newly SACKed again; RACK.rtt keeps the 100 ms of its first delivery, not 300 ms.
        let mut r = Rack::default();
        for k in 0..6 {
            r.sent_new(k, 0);
        }
        let cleared = Scoreboard::default();
        r.on_ack(100 * MS, 0, 6, &ack_in(0, &[(5, 6)]), None, &cleared);
        r.on_ack(300 * MS, 0, 6, &ack_in(0, &[(5, 6)]), None, &cleared);
        assert_eq!(state(&r), (0, 6, 100 * MS));
    }

    #[test]
    fn racks_own_segment_is_not_sent_before_itself() {
        // RACK_sent_after (§6.2 step 3) is strict in the sequence: RACK's segment (sent at 0,
        // ending at 6, so segment 5) was not sent before itself; segment 4 at the same time was.
        let r = Rack { xmit_ts: 0, end_seq: 6, ..Rack::default() };
        assert!(!r.sent_before(0, 5));
        assert!(r.sent_before(0, 4));
    }

    #[test]
    fn a_lost_retransmission_is_found_by_time_and_a_delivered_one_is_not() {
        // §2.2 and §6.2 step 5 on retransmissions: one sent before RACK's segment is lost once
        // now ≥ xmit_ts + RACK.rtt + reo_wnd (remaining ≤ 0), else the timer is due at that
        // time. snd_una 2, snd_max 10: segments 2 and 3 retransmitted at 100 ms, 3's
        // retransmission SACKed, 4..8 SACKed (sent at 0), 9 sent at 150 ms and SACKed, RACK's
        // segment, RTT 50 ms. reo_wnd 10 ms: 2's retransmission is due at 100 + 50 + 10 = 160 ms.
        let mut r = Rack { xmit_ts: 150 * MS, end_seq: 10, rtt: 50 * MS, min_rtt: 50 * MS, ..Rack::default() };
        r.xmit = [(100 * MS, true), (100 * MS, true)].into_iter().chain([(0, false); 5]).chain([(150 * MS, false)]).collect();
        let mut sb = Scoreboard::default();
        sb.add(3, 10);
        let mut rtx = Retransmissions::default();
        rtx.record(2, 10, 100 * MS);
        rtx.record(3, 10, 100 * MS);
        // At 159 ms: nothing lost (the originals are all SACKed), the timer due at 160 ms.
        let d = r.detect(159 * MS, 2, 10, &sb, 10 * MS, Some(&mut rtx));
        assert_eq!(d, Detection { marked: false, deadline: Some(160 * MS) });
        assert_eq!(rtx.relost(), 0);
        // At 160 ms: 2's retransmission is lost, and only it (3's was delivered); no timer left.
        let d = r.detect(160 * MS, 2, 10, &sb, 10 * MS, Some(&mut rtx));
        assert_eq!(d, Detection { marked: true, deadline: None });
        assert_eq!((rtx.relost(), rtx.take_relost()), (1, Some(2)));
    }

    #[test]
    fn reordering_window_is_a_quarter_min_rtt_capped_by_srtt() {
        let r = Rack { min_rtt: 100 * MS, ..Rack::default() };
        assert_eq!(r.reo_wnd(false, 0), 25 * MS);
        assert_eq!(r.reo_wnd(false, 20 * MS), 20 * MS);
        assert_eq!(r.reo_wnd(true, 20 * MS), 0);
    }
}
