//! SACK loss recovery's arithmetic: which segment to send next (RFC 6675 §4 NextSeg), how much
//! Proportional Rate Reduction lets out (RFC 6937 §3), and the bookkeeping of retransmissions
//! that are themselves lost. The sender owns the state and calls these.

use std::collections::{BTreeSet, VecDeque};

use aqm::Nanos;
use serde::{Deserialize, Serialize};

use super::scoreboard::Scoreboard;

/// The retransmissions of one recovery, oldest first, and those found lost again (to be sent
/// again; they are out of the pipe meanwhile).
#[derive(Clone, Debug, Default)]
pub struct Retransmissions {
    /// (segment, snd_max when it was retransmitted, when).
    sent: VecDeque<(u64, u64, Nanos)>,
    relost: BTreeSet<u64>,
}

impl Retransmissions {
    /// Segment `seq` was retransmitted at `now` while `snd_max` was the highest sent.
    pub fn record(&mut self, seq: u64, snd_max: u64, now: Nanos) {
        self.sent.push_back((seq, snd_max, now));
    }

    /// Retransmissions found lost and not yet sent again.
    pub fn relost(&self) -> usize {
        self.relost.len()
    }

    /// The oldest retransmission found lost, taken to be sent again.
    pub fn take_relost(&mut self) -> Option<u64> {
        self.relost.pop_first()
    }

    /// A retransmission is lost when DupThresh segments sent after it have been SACKed while
    /// it has not (the test of Linux's tcp_mark_lost_retrans, before RACK). Returns whether one
    /// was newly found lost.
    pub fn detect_lost_by_dupthresh(&mut self, sb: &Scoreboard, dup_thresh: u64, una: u64) -> bool {
        let mut found = false;
        let highest = sb.highest_sacked_end();
        while let Some(&(seq, sent_after, _)) = self.sent.front() {
            if highest < sent_after + dup_thresh {
                break;
            }
            self.sent.pop_front();
            if seq >= una && !sb.is_sacked(seq) {
                found |= self.relost.insert(seq);
            }
        }
        self.relost.retain(|&s| s >= una);
        found
    }

    /// RACK's test for retransmissions (RFC 8985 §2.2: a lost retransmission is found the same
    /// way as a lost original), oldest first: `verdict(seq, sent_at)` says whether it is
    /// delivered or sent again since (`Gone`), lost (`Lost`), not yet decidable because RACK's
    /// segment was not sent after it (`Stop`) or due at a later time (`Wait(deadline)`).
    /// Returns whether one was marked lost and the latest deadline seen.
    pub fn detect_lost_by_time(&mut self, una: u64, mut verdict: impl FnMut(u64, Nanos) -> Verdict) -> (bool, Nanos) {
        let mut marked = false;
        let mut latest = 0;
        let mut i = 0;
        while let Some(&(seq, _, ts)) = self.sent.get(i) {
            match verdict(seq, ts) {
                Verdict::Gone => {
                    self.sent.remove(i);
                }
                Verdict::Stop => break,
                Verdict::Lost => {
                    self.sent.remove(i);
                    self.relost.insert(seq);
                    marked = true;
                }
                Verdict::Wait(remaining) => {
                    latest = latest.max(remaining);
                    i += 1;
                }
            }
        }
        self.relost.retain(|&s| s >= una);
        (marked, latest)
    }
}

/// The fate of a retransmission as RACK judges it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Verdict {
    Gone,
    Stop,
    Lost,
    /// Lost if not delivered within this much more time.
    Wait(Nanos),
}

/// How PRR counts the data an ACK delivered (prr_delivered).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum PrrDelivered {
    /// RFC 6937 §3: each ACK's DeliveredData once (the change in snd_una plus the newly SACKed
    /// data).
    #[default]
    Rfc6937,
    /// ns-3.44's TcpPrrRecovery as TcpSocketBase calls it. DoRecovery adds one segment to the
    /// DeliveredData it is given on every call with isDupAck = true while prr_delivered <
    /// RecoverFS (without SACK, the delivery a duplicate ACK stands for), although with SACK
    /// that DeliveredData (ReceivedAck's currentDelivered, from the rate sampler) already holds
    /// the newly SACKed data. The calls with isDupAck = true: TcpPrrRecovery::EnterRecovery's,
    /// for the ACK that starts a recovery (TcpSocketBase::EnterRecovery, from DupAck) or an
    /// ECN reduction (EnterCwr); and DupAck's in CA_RECOVERY, for every ACK that SACKs new
    /// data (ProcessAck: isDupack = scoreboardUpdated with SACK, whether or not the ACK also
    /// advances). An ACK that also advances snd_una is handed to DoRecovery a second time
    /// with isDupAck = false and the same DeliveredData (ProcessAck's partial-ACK branch in
    /// CA_RECOVERY, its CA_CWR branch), and the window is that call's. ns-3 after 3.44 drops
    /// the segment with SACK (TcpPrrRecovery::DoRecovery checks m_sackEnabled) and keeps the
    /// second call. Its proportional sndcnt is computed in bytes, and the product
    /// prr_delivered · ssthresh in 32 bits (both are uint32_t), which wraps once it passes 2³²:
    /// with 948-byte segments once prr_delivered · ssthresh exceeds 4779 segments² (e.g.
    /// ssthresh 135 and 36 segments delivered), after which sndcnt falls to nothing or a
    /// fraction of its value and the recovery stops sending (fixed after 3.44, ns-3 issue
    /// #1282).
    Ns3,
}

/// PRR's RecoverFS at the start of a reduction.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum RecoverFs {
    /// RFC 6937 §3: the FlightSize, snd.nxt − snd.una, in a loss recovery; the pipe at the
    /// echo in an ECN reduction (ns-3.44's EnterCwr sets m_bytesInFlight by BytesInFlight()
    /// first).
    #[default]
    Flight,
    /// In a loss recovery, the RFC 6675 pipe with the head segment counted lost, before the
    /// fast retransmission: ns-3.44's TcpPrrRecovery::EnterRecovery takes m_bytesInFlight,
    /// which TcpSocketBase::EnterRecovery has just set (BytesInFlight() after MarkHeadAsLost);
    /// ns-3 after 3.44 uses the FlightSize. In an ECN reduction, the pipe at the echo.
    Pipe,
    /// The window before the reduction, whole segments, in a loss recovery and an ECN
    /// reduction alike: Linux's tcp_init_cwnd_reduction keeps it as prior_cwnd, the divisor of
    /// tcp_cwnd_reduction's proportional part. It equals the FlightSize for a flow that fills
    /// its window and exceeds it for one limited by its application or receiver.
    Cwnd,
}

/// When PRR's slow-start reduction bound (PRR-SSRB, once the pipe is at or below ssthresh) lets
/// an ACK send one segment more than it delivered.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum PrrSsrb {
    /// RFC 6937 §3: on every ACK (limit = MAX(prr_delivered − prr_out, DeliveredData) + MSS).
    #[default]
    Rfc6937,
    /// Linux's tcp_cwnd_reduction: only on an ACK that advances snd_una and marks nothing newly
    /// lost (FLAG_SND_UNA_ADVANCED and no rs->losses); otherwise the ACK sends what it
    /// delivered, packet conservation.
    Linux,
}

/// What one ACK delivered, as PRR reads it.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Delivery {
    /// RFC 6937 DeliveredData: segments newly acknowledged, cumulatively or by SACK.
    pub segments: u64,
    /// The ACK advanced snd_una.
    pub advanced: bool,
    /// The ACK SACKed data not SACKed before.
    pub sacked: bool,
    /// Loss detection on this ACK marked a segment lost that was not before (Linux's
    /// rs->losses > 0).
    pub newly_lost: bool,
}

/// Proportional Rate Reduction (RFC 6937 §3).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Prr {
    /// prr_delivered: data delivered to the receiver since the recovery started.
    delivered: u64,
    /// prr_out: data sent since the recovery started.
    out: u64,
    /// RecoverFS: the data in flight when the recovery started (see [`RecoverFs`]).
    recover_fs: u64,
    rule: PrrDelivered,
    ssrb: PrrSsrb,
    /// Bytes per segment (ns-3's arithmetic is in bytes).
    mss: u32,
}

impl Prr {
    /// A recovery starts with `recover_fs` in flight; its fast retransmit is already counted.
    pub fn start(recover_fs: u64, rule: PrrDelivered, mss: u32) -> Self {
        Prr { delivered: 0, out: 1, recover_fs, rule, ssrb: PrrSsrb::Rfc6937, mss }
    }

    /// An ECN reduction's PRR (no retransmission starts it), with RecoverFS as [`RecoverFs`]
    /// gives it for an echo.
    pub fn start_cwr(recover_fs: u64, rule: PrrDelivered, mss: u32) -> Self {
        Prr { delivered: 0, out: 0, recover_fs, rule, ssrb: PrrSsrb::Rfc6937, mss }
    }

    /// The same with PRR-SSRB's extra segment by `ssrb`'s rule.
    pub fn with_ssrb(self, ssrb: PrrSsrb) -> Self {
        Prr { ssrb, ..self }
    }

    /// One segment sent.
    pub fn sent(&mut self) {
        self.out += 1;
    }

    /// The window for an ACK that delivered `d`, by the configured count (see
    /// [`PrrDelivered`]). `dup_call`: ns-3.44 hands this ACK to DoRecovery with isDupAck =
    /// true (the callers say why); it then also does with isDupAck = false when the ACK
    /// advanced.
    pub fn on_ack(&mut self, d: Delivery, dup_call: bool, pipe: f64, ssthresh: f64) -> f64 {
        let extra = match self.ssrb {
            PrrSsrb::Rfc6937 => true,
            PrrSsrb::Linux => d.advanced && !d.newly_lost,
        };
        if self.rule == PrrDelivered::Ns3 && dup_call {
            let credit = u64::from(self.delivered < self.recover_fs);
            let cwnd = self.on_delivered(d.segments + credit, pipe, ssthresh, extra);
            if !d.advanced {
                return cwnd;
            }
        }
        self.on_delivered(d.segments, pipe, ssthresh, extra)
    }

    /// RFC 6937 §3: `delivered` more segments reached the receiver; returns the window for
    /// this ACK, pipe + sndcnt: proportional while the pipe is above ssthresh, slow-start
    /// reduction bound (PRR-SSRB) once it is below, with its one segment more than delivered
    /// when `extra` (see [`PrrSsrb`]).
    fn on_delivered(&mut self, delivered: u64, pipe: f64, ssthresh: f64, extra: bool) -> f64 {
        self.delivered += delivered;
        let sndcnt = if pipe > ssthresh {
            match self.rule {
                PrrDelivered::Rfc6937 => (self.delivered as f64 * ssthresh / self.recover_fs.max(1) as f64).ceil() - self.out as f64,
                PrrDelivered::Ns3 => self.ns3_proportional(ssthresh),
            }
        } else {
            let limit = (self.delivered.saturating_sub(self.out)).max(delivered) as f64 + f64::from(u8::from(extra));
            (ssthresh - pipe).min(limit)
        };
        pipe + sndcnt.max(0.0)
    }

    /// ns-3.44 TcpPrrRecovery::DoRecovery's proportional sndcnt, in segments: ⌈prr_delivered ·
    /// ssthresh / RecoverFS⌉ − prr_out in bytes, the product wrapped to 32 bits (see
    /// [`PrrDelivered::Ns3`]); ssthresh in whole bytes, as ns-3 keeps it.
    fn ns3_proportional(&self, ssthresh: f64) -> f64 {
        let mss = u64::from(self.mss);
        let product = ((self.delivered * mss) as u32).wrapping_mul((ssthresh * mss as f64) as u32);
        let bytes = (f64::from(product) / (self.recover_fs * mss).max(1) as f64).ceil() - (self.out * mss) as f64;
        bytes / mss as f64
    }
}

/// What RFC 6675 §4 NextSeg() picks, with the first choice given to a retransmission found
/// lost again.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum NextSeg {
    /// A retransmission found lost: send it again.
    Relost,
    /// Rule 1: the first lost segment above HighRxt.
    Lost(u64),
    /// Rule 2: new data.
    New,
    /// Rule 3: an un-SACKed segment above HighRxt below the highest SACKed one.
    Unsacked(u64),
    /// Rule 4: the rescue retransmission of the highest un-SACKed segment, once per recovery.
    Rescue(u64),
}

/// The inputs of NextSeg.
#[derive(Clone, Copy, Debug)]
pub struct NextSegInput {
    pub una: u64,
    pub snd_max: u64,
    pub high_rxt: u64,
    /// Un-SACKed segments below this are lost (DupThresh's rule or RACK's).
    pub lost_end: u64,
    /// Whether new data may be sent (the application has some and the receiver window allows).
    pub new_allowed: bool,
    /// Whether a retransmission found lost waits to be sent again.
    pub relost: bool,
    /// Whether rule 4 may be taken: configured, and not yet used in this recovery (its
    /// RescueRxt is the RecoveryPoint, which no ACK of the recovery passes).
    pub rescue: bool,
}

/// RFC 6675 §4 NextSeg().
pub fn next_seg(sb: &Scoreboard, i: &NextSegInput) -> Option<NextSeg> {
    let hole = sb.next_unsacked(i.una.max(i.high_rxt + 1), i.snd_max);
    match hole {
        _ if i.relost => Some(NextSeg::Relost),
        Some(h) if h < i.lost_end => Some(NextSeg::Lost(h)),
        _ if i.new_allowed => Some(NextSeg::New),
        Some(h) if h < sb.highest_sacked_end() => Some(NextSeg::Unsacked(h)),
        _ if i.rescue => sb.highest_unsacked(i.una, i.snd_max).map(NextSeg::Rescue),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn prr_proportional_then_slow_start_bound() {
        // RFC 6937 §3 by hand: RecoverFS 20, ssthresh 10. With the pipe at 17 (above
        // ssthresh), the first delivery allows ceil(1·10/20) − 1 = 0 more; the second,
        // ceil(2·10/20) − 1 = 0; the third ceil(1.5) − 1 = 1.
        let mut p = Prr::start(20, PrrDelivered::Rfc6937, 948);
        assert_eq!(p.on_delivered(1, 17.0, 10.0, true), 17.0);
        assert_eq!(p.on_delivered(1, 16.0, 10.0, true), 16.0);
        assert_eq!(p.on_delivered(1, 15.0, 10.0, true), 16.0);
        // Below ssthresh: PRR-SSRB, min(ssthresh − pipe, max(prr_delivered − prr_out,
        // DeliveredData) + 1) = min(10 − 8, max(3 − 1, 0) + 1) = 2.
        assert_eq!(p.on_delivered(0, 8.0, 10.0, true), 10.0);
    }

    #[test]
    fn linux_ssrb_sends_one_more_only_on_an_advance_without_new_losses() {
        // Linux tcp_cwnd_reduction by hand: RecoverFS 20, ssthresh 10; one delivery at pipe 17
        // (proportional: ⌈10/20⌉ − 1 = 0), then an ACK delivering one segment at pipe 8, below
        // ssthresh: sndcnt = min(10 − 8, max(2 − 1, 1) + extra), extra = 1 only when the ACK
        // advanced snd_una and marked nothing newly lost. RFC 6937 adds it always.
        let second = |ssrb: PrrSsrb, advanced: bool, newly_lost: bool| {
            let mut p = Prr::start(20, PrrDelivered::Rfc6937, 948).with_ssrb(ssrb);
            assert_eq!(p.on_ack(dup(1), false, 17.0, 10.0), 17.0);
            p.on_ack(Delivery { segments: 1, advanced, sacked: !advanced, newly_lost }, false, 8.0, 10.0)
        };
        assert_eq!(second(PrrSsrb::Linux, false, false), 9.0);
        assert_eq!(second(PrrSsrb::Linux, true, false), 10.0);
        assert_eq!(second(PrrSsrb::Linux, true, true), 9.0);
        assert_eq!(second(PrrSsrb::Rfc6937, false, false), 10.0);
        assert_eq!(second(PrrSsrb::Rfc6937, true, true), 10.0);
    }

    /// A duplicate ACK that SACKs `n` segments.
    fn dup(n: u64) -> Delivery {
        Delivery { segments: n, advanced: false, sacked: true, newly_lost: false }
    }
    /// An ACK that advances snd_una, delivering `n` segments, SACKing some of them or not.
    fn partial(n: u64, sacked: bool) -> Delivery {
        Delivery { segments: n, advanced: true, sacked, newly_lost: false }
    }

    #[test]
    fn ns3_counts_a_segment_per_duplicate_ack_and_an_advancing_sack_twice() {
        // ns-3.44's TcpPrrRecovery and TcpSocketBase::ProcessAck worked by hand, in segments of
        // 948 bytes: RecoverFS 10, ssthresh 5, the pipe held at 7 then 6 (above ssthresh: the
        // proportional rule, sndcnt = ⌈prr_delivered · 5 / 10⌉ − prr_out, the ceiling taken
        // in bytes, so half segments stay). ns-3 computes the entering ACK's
        // window before its fast retransmission (prr_out 0, pipe 6, sndcnt 1 forced and
        // proportional alike: cwnd 7); here the retransmission is already counted (prr_out 1,
        // pipe 7), which gives the same cwnd.
        let ns3 = |d: Delivery, dup_call: bool, p: &mut Prr, pipe: f64| p.on_ack(d, dup_call, pipe, 5.0);
        let mut p = Prr::start(10, PrrDelivered::Ns3, 948);
        // Entry (EnterRecovery's DoRecovery with isDupAck): prr_delivered 0 < 10, 1 + 1 = 2;
        // ⌈2 · 0.5⌉ − 1 = 0.
        assert_eq!(ns3(dup(1), true, &mut p, 7.0), 7.0);
        assert_eq!((p.delivered, p.out), (2, 1));
        // A duplicate ACK (DupAck's DoRecovery): 2 < 10, prr_delivered 4, ⌈2⌉ − 1 = 1: one
        // segment per duplicate ACK, where RFC 6937 sends one per two.
        assert_eq!(ns3(dup(1), true, &mut p, 6.0), 7.0);
        p.sent();
        // An ACK that SACKs one segment and advances snd_una by one (DeliveredData 2): DupAck's
        // call, 4 < 10, adds 2 + 1 = 7; the partial-ACK branch's adds 2 more: 9; the window is
        // the second call's, 4.5 − 2 = 2.5.
        assert_eq!(ns3(partial(2, true), true, &mut p, 6.0), 8.5);
        assert_eq!(p.delivered, 9);
        for _ in 0..3 {
            p.sent();
        }
        // A partial ACK without new SACK information: the partial-ACK branch alone, 9 + 1 = 10,
        // 5 − 5 = 0.
        assert_eq!(ns3(partial(1, false), false, &mut p, 6.0), 6.0);
        // prr_delivered has reached RecoverFS: no more credit, 10 + 1 = 11, 5.5 − 5 = 0.5.
        assert_eq!(ns3(dup(1), true, &mut p, 6.0), 6.5);
        assert_eq!(p.delivered, 11);

        // RFC 6937 §3 on the same ACKs, sending what it allows: prr_delivered 1, 2, 4, 5, 6;
        // sndcnt ⌈0.5⌉ − 1 = 0, ⌈1⌉ − 1 = 0, ⌈2⌉ − 1 = 1 (sent), ⌈2.5⌉ − 2 = 1 (sent), ⌈3⌉ − 3 = 0.
        let mut r = Prr::start(10, PrrDelivered::Rfc6937, 948);
        let acks = [(dup(1), 7.0, 7.0), (dup(1), 6.0, 6.0), (partial(2, true), 6.0, 7.0), (partial(1, false), 6.0, 7.0), (dup(1), 6.0, 6.0)];
        for (d, pipe, cwnd) in acks {
            assert_eq!(r.on_ack(d, true, pipe, 5.0), cwnd);
            if cwnd > pipe {
                r.sent();
            }
        }
        assert_eq!(r.delivered, 6);
    }

    #[test]
    fn ns3_ecn_reduction_counts_the_echoing_ack_twice_and_the_rest_once() {
        // ns-3.44 EnterCwr → TcpPrrRecovery::EnterRecovery (RecoverFS 8, prr_out 0) then
        // ProcessAck's CA_CWR branch, for an echo acknowledging 2 segments: 2 + 1 = 3, then
        // 3 + 2 = 5; ssthresh 4, pipe 6: 5 · 4 / 8 − 0 = 2.5 (exact in bytes), cwnd 8.5 (RFC
        // 6937: 2, ⌈1⌉, cwnd 7).
        let echo = partial(2, false);
        let mut p = Prr::start_cwr(8, PrrDelivered::Ns3, 948);
        assert_eq!(p.on_ack(echo, true, 6.0, 4.0), 8.5);
        assert_eq!(p.delivered, 5);
        assert_eq!(Prr::start_cwr(8, PrrDelivered::Rfc6937, 948).on_ack(echo, true, 6.0, 4.0), 7.0);
        (0..3).for_each(|_| p.sent());
        // Later ACKs in CA_CWR: DupAck makes no call there, the CA_CWR branch one without
        // isDupAck, even for an ACK that SACKs new data: 5 + 1 = 6, ⌈3⌉ − 3 = 0.
        assert_eq!(p.on_ack(partial(1, true), false, 6.0, 4.0), 6.0);
        assert_eq!(p.delivered, 6);
    }

    #[test]
    fn ns3_product_wraps_at_32_bits() {
        // ns-3.44 DoRecovery multiplies prr_delivered by ssthresh as uint32_t, in bytes: with
        // 948-byte segments, ssthresh 135 (127 980 B) and RecoverFS 191 (181 068 B), 35
        // segments delivered give 33 180 · 127 980 = 4 246 376 400 < 2³², ⌈/181 068⌉ = 23 452 B,
        // less prr_out 948: 22 504 B; 36 give 4 367 701 440, wrapped 72 734 144, ⌈/181 068⌉ =
        // 402 B, less 948: nothing (unwrapped it would be 24 122 − 948 B).
        let mut p = Prr::start(191, PrrDelivered::Ns3, 948);
        let w = p.on_ack(partial(35, false), false, 180.0, 135.0);
        assert!((w - 180.0 - 22_504.0 / 948.0).abs() < 1e-9, "{w}");
        assert_eq!(p.on_ack(partial(1, false), false, 180.0, 135.0), 180.0);
    }

    /// Retransmissions of `seqs`, each sent while snd_max was 10.
    fn retransmitted(seqs: &[u64]) -> Retransmissions {
        let mut r = Retransmissions::default();
        for &q in seqs {
            r.record(q, 10, 0);
        }
        r
    }

    #[test]
    fn a_retransmission_is_lost_once_dupthresh_later_segments_are_sacked_and_it_is_not() {
        // Linux's tcp_mark_lost_retrans test: 10, 11 and 12, sent after the retransmissions,
        // SACKed. Of 1, 2 and 3 (snd_una 2): 1 is cumulatively acknowledged and 2 SACKed, both
        // delivered; only 3 is lost, news on this call and not on the next.
        let mut sb = Scoreboard::default();
        sb.add(2, 3);
        sb.add(10, 13);
        let mut r = retransmitted(&[1, 2, 3]);
        assert!(r.detect_lost_by_dupthresh(&sb, 3, 2));
        assert_eq!((r.relost(), r.take_relost()), (1, Some(3)));
        assert!(!r.detect_lost_by_dupthresh(&sb, 3, 2));
        // Delivered retransmissions alone are no news.
        let mut r = retransmitted(&[1, 2]);
        assert!(!r.detect_lost_by_dupthresh(&sb, 3, 2));
        assert_eq!(r.relost(), 0);
    }

    #[test]
    fn rack_passes_over_a_retransmission_not_yet_due() {
        // RFC 8985 §6.2 step 5: a retransmission whose deadline is still ahead is skipped, the
        // ones after it are still judged, and the reordering timer takes the latest deadline.
        let mut r = retransmitted(&[3, 5, 7]);
        let verdicts = |seq: u64, _: Nanos| match seq {
            3 => Verdict::Wait(4),
            5 => Verdict::Lost,
            _ => Verdict::Wait(9),
        };
        assert_eq!(r.detect_lost_by_time(0, verdicts), (true, 9));
        assert_eq!((r.relost(), r.take_relost()), (1, Some(5)));
    }

    #[test]
    fn next_seg_rules_in_order() {
        // 0..10 sent, 1 and 2 lost, 3..=9 SACKed but 6: DupThresh's boundary is 7.
        let mut sb = Scoreboard::default();
        sb.add(3, 6);
        sb.add(7, 10);
        let base = NextSegInput { una: 0, snd_max: 10, high_rxt: 0, lost_end: 7, new_allowed: true, relost: false, rescue: false };
        // HighRxt = 0 (the fast retransmit): rule 1 gives 1.
        assert_eq!(next_seg(&sb, &base), Some(NextSeg::Lost(1)));
        assert_eq!(next_seg(&sb, &NextSegInput { relost: true, ..base }), Some(NextSeg::Relost));
        // Every hole retransmitted: new data (rule 2), else the hole at 6 is below the highest
        // SACKed segment (rule 3) only if it is above HighRxt, which it is not here.
        let done = NextSegInput { high_rxt: 6, ..base };
        assert_eq!(next_seg(&sb, &done), Some(NextSeg::New));
        assert_eq!(next_seg(&sb, &NextSegInput { new_allowed: false, ..done }), None);
        let rule3 = NextSegInput { lost_end: 0, new_allowed: false, high_rxt: 2, ..base };
        assert_eq!(next_seg(&sb, &rule3), Some(NextSeg::Unsacked(6)));
        // The boundary is exclusive: with RACK's at 6 (6 not yet due), the hole at 6 above
        // HighRxt 2 is not lost: rule 2 sends new data where rule 1 would resend 6.
        let at_boundary = NextSegInput { lost_end: 6, high_rxt: 2, ..base };
        assert_eq!(next_seg(&sb, &at_boundary), Some(NextSeg::New));
        // Rule 4 when 1-3 fail: the highest un-SACKed segment (6: 7..10 are SACKed).
        assert_eq!(next_seg(&sb, &NextSegInput { new_allowed: false, rescue: true, ..done }), Some(NextSeg::Rescue(6)));
    }
}
