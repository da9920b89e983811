//! Hand-worked ACK traces of the TCP sender: each test drives it through a sequence of ACKs
//! and timers worked out from the RFC or stack it follows, and checks what it sends and sets.

use super::*;
use crate::tcp::params::TcpConfig;

const MS: Nanos = 1_000_000;
/// Payload of a test segment (the window bounds in bytes are far from binding here).
const MSS: u32 = 948;

/// ns-2 Sack1 without SACK: plain NewReno, per-ACK growth, 1 ms tick.
fn newreno() -> TcpConfig {
    TcpConfig { sack: false, clock_granularity_ns: MS, initial_rto_ns: 1000 * MS, ..TcpConfig::profile("ns2-sack").unwrap() }
}

fn ack(a: u64) -> AckIn<'static> {
    AckIn { ack: a, sack: &[], ece: false, ace: 0, echo: 0 }
}

fn seqs(v: &[Segment]) -> Vec<u64> {
    v.iter().map(|s| s.seq).collect()
}

/// A sender that has sent segments 0..w at time 0 with cwnd = ssthresh = w.
fn with_window(cfg: &TcpConfig, w: u64) -> (TcpSender, Vec<Segment>) {
    started(cfg, None, w, w as usize)
}

/// A sender of `data` segments (None: unlimited) started with cwnd = ssthresh = `w`, which
/// sends `sent` segments at once.
fn started(cfg: &TcpConfig, data: Option<u64>, w: u64, sent: usize) -> (TcpSender, Vec<Segment>) {
    let mut s = TcpSender::new(cfg, data, MSS);
    s.cwnd = w as f64;
    s.ssthresh = w as f64;
    let mut out = Vec::new();
    s.start(0, &mut out);
    assert_eq!(out.len(), sent);
    out.clear();
    (s, out)
}

#[test]
fn slow_start_doubles_per_round() {
    let mut s = TcpSender::new(&newreno(), None, MSS);
    let mut out = Vec::new();
    s.start(0, &mut out);
    assert_eq!(seqs(&out), vec![0, 1]);
    out.clear();
    s.on_ack(100 * MS, &ack(1), &mut out);
    assert_eq!(seqs(&out), vec![2, 3]);
    out.clear();
    s.on_ack(100 * MS, &ack(2), &mut out);
    assert_eq!(seqs(&out), vec![4, 5]);
    assert_eq!(s.cwnd, 4.0);
    // First RTT sample (segment 0, 100 ms) gives RTO = 100 + 4·50 = 300 ms.
    assert_eq!(s.rtt.rto(), 300 * MS);
    assert_eq!(s.timers.rto.get(), Some(400 * MS));
}

#[test]
fn newreno_fast_retransmit_and_partial_ack() {
    let cfg = TcpConfig { reduce_from: ReduceFrom::Flight, ..newreno() };
    let (mut s, mut out) = with_window(&cfg, 10);
    // Segments 0 and 3 are lost: 1, 2 arrive and produce duplicate ACKs for 0, then 4..9.
    s.on_ack(MS, &ack(0), &mut out);
    s.on_ack(MS, &ack(0), &mut out);
    assert!(out.is_empty());
    s.on_ack(MS, &ack(0), &mut out);
    // Third dup ACK: ssthresh = flight 10 / 2 = 5, retransmit 0, cwnd = 5 + 3 = 8.
    assert_eq!(out, vec![Segment { seq: 0, retransmit: true, cwr: false }]);
    assert_eq!((s.ssthresh, s.cwnd), (5.0, 8.0));
    out.clear();
    // Three more dups inflate to 11 > flight 10: segment 10 goes out.
    for _ in 0..3 {
        s.on_ack(MS, &ack(0), &mut out);
    }
    assert_eq!(seqs(&out), vec![10]);
    out.clear();
    // Partial ACK up to 3: retransmit 3; cwnd = 11 − 3 + 1 = 9, which with a flight of
    // 11 − 3 = 8 also lets new segment 11 out.
    s.on_ack(2 * MS, &ack(3), &mut out);
    assert_eq!(seqs(&out), vec![3, 11]);
    assert!(out[0].retransmit && !out[1].retransmit);
    assert_eq!(s.cwnd, 9.0);
    out.clear();
    // Full ACK (covers snd_max at detection, 10): exit with min(ssthresh 5, flight 2 + 1).
    s.on_ack(3 * MS, &ack(10), &mut out);
    assert!(!s.in_recovery());
    assert_eq!(s.cwnd, 3.0);
    assert_eq!((s.stats.fast_recoveries, s.stats.retransmits), (1, 2));
}

#[test]
fn newreno_restarts_the_timer_on_the_first_partial_ack_only() {
    // RFC 6582 §3.2 step 3: the first partial ACK of a recovery resets the retransmission
    // timer, later ones do not (the "Impatient" variant: a recovery with many holes falls to the
    // timeout instead of repairing one hole per round trip). Segments 0, 3 and 6 of 0..10 lost;
    // no RTT sample (0 was retransmitted, Karn), so the RTO stays at its initial 1 s.
    let (mut s, mut out) = with_window(&newreno(), 10);
    for _ in 0..3 {
        s.on_ack(MS, &ack(0), &mut out);
    }
    assert_eq!(s.timers.rto.get(), Some(1001 * MS));
    s.on_ack(2 * MS, &ack(3), &mut out);
    assert_eq!(s.timers.rto.get(), Some(1002 * MS));
    s.on_ack(3 * MS, &ack(6), &mut out);
    assert!(s.in_recovery());
    assert_eq!(s.timers.rto.get(), Some(1002 * MS));
}

#[test]
fn ns2_halves_the_window_not_the_flight() {
    let (mut s, mut out) = with_window(&newreno(), 10);
    s.cwnd = 16.0; // window larger than the flight of 10
    for _ in 0..3 {
        s.on_ack(MS, &ack(0), &mut out);
    }
    assert_eq!(s.ssthresh, 8.0);
}

#[test]
fn timeout_goes_back_n_with_loss_window() {
    let mut s = TcpSender::new(&newreno(), Some(4), MSS);
    let mut out = Vec::new();
    s.start(0, &mut out);
    out.clear();
    let d = s.timers.rto.get().unwrap();
    assert_eq!(d, 1000 * MS);
    s.on_timeout(d, &mut out);
    assert_eq!(out, vec![Segment { seq: 0, retransmit: true, cwr: false }]);
    assert_eq!((s.cwnd, s.ssthresh, s.stats.timeouts), (1.0, 2.0, 1));
    // Backed off to 2 s.
    assert_eq!(s.timers.rto.get(), Some(d + 2000 * MS));
    // The retransmission is lost too: back off again, ssthresh held (RFC 5681 §3.1).
    s.on_timeout(d + 2000 * MS, &mut out);
    assert_eq!((s.cwnd, s.ssthresh, s.stats.timeouts), (1.0, 2.0, 2));
    assert_eq!(s.timers.rto.get(), Some(d + 6000 * MS));
    out.clear();
    s.on_ack(d + 2010 * MS, &ack(2), &mut out);
    s.on_ack(d + 2020 * MS, &ack(4), &mut out);
    assert!(s.is_complete());
    assert_eq!(s.timers.rto.get(), None);
}

#[test]
fn duplicate_acks_for_data_sent_before_a_timeout_start_no_fast_retransmit() {
    // RFC 6582 §4 (and §3.2 step 2): after a timeout, recover is the highest segment sent, and
    // duplicate ACKs that do not cover it start no fast retransmit: the window was already
    // reduced for those losses. 0..10 sent, the timer fires (ssthresh = 10/2 = 5, cwnd 1,
    // 0 resent); three duplicate ACKs of 0 then change nothing.
    let (mut s, mut out) = with_window(&newreno(), 10);
    let d = s.timers.rto.get().unwrap();
    s.on_timeout(d, &mut out);
    out.clear();
    for _ in 0..3 {
        s.on_ack(d + MS, &ack(0), &mut out);
    }
    assert!(out.is_empty(), "{out:?}");
    assert!(!s.in_recovery());
    assert_eq!((s.ssthresh, s.cwnd, s.stats.fast_recoveries), (5.0, 1.0, 0));
}

#[test]
fn a_repeated_timeout_holds_ssthresh() {
    // RFC 5681 §3.1: when the timer expires again for a segment it already retransmitted,
    // ssthresh is held and cwnd is the loss window. 0..10 sent: the first timeout sets
    // ssthresh = 10/2 = 5; the second (no ACK between) keeps 5 where halving the loss window
    // would give the floor of 2.
    let (mut s, mut out) = with_window(&newreno(), 10);
    s.on_timeout(s.timers.rto.get().unwrap(), &mut out);
    assert_eq!((s.ssthresh, s.cwnd), (5.0, 1.0));
    s.on_timeout(s.timers.rto.get().unwrap(), &mut out);
    assert_eq!((s.ssthresh, s.cwnd, s.stats.timeouts), (5.0, 1.0, 2));
    assert_eq!(seqs(&out), vec![0, 0]);
}

#[test]
fn a_timeout_with_nothing_outstanding_changes_nothing() {
    // RFC 6298 §5.2 turns the timer off once everything sent is acknowledged; a timeout then
    // (a stale deadline) has no lost segment to answer: no reduction, nothing resent. A
    // transfer of 10 segments, all acknowledged.
    let (mut s, mut out) = started(&newreno(), Some(10), 10, 10);
    s.on_ack(MS, &ack(10), &mut out);
    assert!(out.is_empty() && s.is_complete());
    let (cwnd, ssthresh) = (s.cwnd, s.ssthresh);
    s.on_timeout(2 * MS, &mut out);
    assert!(out.is_empty());
    assert_eq!((s.cwnd, s.ssthresh, s.stats.timeouts), (cwnd, ssthresh, 0));
}

#[test]
fn the_invariant_counts_a_response_that_raises_the_window() {
    // A congestion response never leaves cwnd, nor ssthresh when it sets one, above the window
    // in force before it (floored at RFC 5681's 2 segments), windows taken as they act, capped
    // by the receiver window. Checked by hand against the audit.
    let (mut s, _) = with_window(&TcpConfig { rwnd: 20, ..newreno() }, 10);
    let raised = |s: &mut TcpSender, before: f64, ssthresh: Option<f64>, after: f64| {
        let n = s.stats.window_raising_responses;
        if let Some(t) = ssthresh {
            s.ssthresh = t;
        }
        s.audit_response(before, ssthresh.is_some(), after);
        s.stats.window_raising_responses - n
    };
    assert_eq!(raised(&mut s, 10.0, None, 10.0), 0);
    assert_eq!(raised(&mut s, 10.0, None, 11.0), 1, "cwnd above the window before");
    assert_eq!(raised(&mut s, 10.0, Some(11.0), 5.0), 1, "ssthresh above it");
    assert_eq!(raised(&mut s, 1.0, Some(2.0), 2.0), 0, "the floor of 2");
    assert_eq!(raised(&mut s, 30.0, None, 25.0), 0, "both above the receiver window of 20");
}

fn sacks(s: &mut TcpSender, now: Nanos, ks: std::ops::RangeInclusive<u64>, out: &mut Vec<Segment>) {
    for k in ks {
        s.on_ack(now, &AckIn { ack: 0, sack: &[(1, 1 + k)], ece: false, ace: 0, echo: 0 }, out);
    }
}

/// `cfg` without PRR (ns-3: SACK, limited transmit): segments 0..10 sent with cwnd 10; 0 is
/// lost and 1..=11 are SACKed one per ACK; returns the sender after those ACKs and what it
/// sent.
fn ns3_head_loss(cfg: TcpConfig) -> (TcpSender, Vec<Segment>) {
    let cfg = TcpConfig { prr: false, ..cfg };
    let (mut s, mut out) = with_window(&cfg, 10);
    sacks(&mut s, MS, 1..=3, &mut out);
    assert!(s.in_recovery());
    let sent = out.clone();
    out.clear();
    sacks(&mut s, 2 * MS, 4..=11, &mut out);
    (s, [sent, out].concat())
}

#[test]
fn ns3_halves_the_sack_pipe_on_fast_retransmit_and_timeout() {
    // ns-3.44 TcpSocketBase::EnterRecovery and ReTxTimeout pass BytesInFlight() (sent −
    // SACKed − lost + retransmitted) to TcpNewReno::GetSsThresh = max(2, in flight / 2).
    // By hand: the first two duplicate ACKs let 10 and 11 out (limited transmit); the third
    // SACKs 1..=3, so 0 is lost: 12 sent − 3 SACKed − 1 lost = 8 in flight, ssthresh = cwnd =
    // 4 (FlightSize would give 6).
    let (mut s, out) = ns3_head_loss(TcpConfig::profile("ns3").unwrap());
    assert_eq!(seqs(&out), vec![10, 11, 0, 12, 13, 14]);
    // The pipe after the fast retransmit is 9 and falls by one per SACK; from the SACK of 9
    // it is 3 < cwnd, and each of the last three SACKs lets one new segment out (12, 13, 14).
    assert_eq!((s.ssthresh, s.cwnd), (4.0, 4.0));
    // The retransmission of 0 is lost and no more ACKs come: at the timeout 12, 13, 14 and
    // the retransmission are in flight (1..=11 SACKed, 0 retransmitted): ssthresh = 4 / 2.
    let d = s.timers.rto.get().unwrap();
    let mut out = Vec::new();
    s.on_timeout(d, &mut out);
    assert_eq!((s.ssthresh, s.cwnd, s.stats.window_raising_responses), (2.0, 1.0, 0));
}

#[test]
fn ns3_timeout_while_resending_halves_what_was_sent_again() {
    // ns-3.44 ReTxTimeout halves BytesInFlight(), and after a timeout everything sent before it
    // is marked lost (SetSentListLost): what counts is what was sent again. 0..10 sent; the
    // first timeout halves the 10 in flight, ssthresh 5, and resends 0. Its ACK ends the
    // timeout phase and grows cwnd to 2 (slow start, per ACK): 1 and 2 are resent. The timer
    // fires again: a new loss (new data was acknowledged in between), with 2 in the network:
    // ssthresh max(2/2, 2) = 2, never above the window of 2 in force (the SACK pipe of the
    // segments sent before the timeout, 9 + 2 resent, would give 5.5).
    let (mut s, mut out) = with_window(&TcpConfig::profile("ns3").unwrap(), 10);
    let d = s.timers.rto.get().unwrap();
    s.on_timeout(d, &mut out);
    assert_eq!((s.ssthresh, seqs(&out)), (5.0, vec![0]));
    out.clear();
    s.on_ack(d + MS, &ack(1), &mut out);
    assert_eq!((s.cwnd, seqs(&out)), (2.0, vec![1, 2]));
    let d = s.timers.rto.get().unwrap();
    s.on_timeout(d, &mut out);
    assert_eq!((s.ssthresh, s.cwnd, s.stats.window_raising_responses), (2.0, 1.0, 0));
}

#[test]
fn flightsize_rule_raises_the_window_and_the_invariant_counts_it() {
    // The same losses halving FlightSize (snd_max − snd_una): ssthresh = cwnd = 12 / 2 = 6 at
    // the fast retransmit; the pipe falls by one per SACK and from the SACK of 7 each one
    // lets a new segment out (12..=16). At the timeout FlightSize is 17: ssthresh 8.5, above
    // the window of 6 in force: a "reduction" that raises the window, counted.
    let (mut s, out) = ns3_head_loss(TcpConfig { reduce_from: ReduceFrom::Flight, ..TcpConfig::profile("ns3").unwrap() });
    assert_eq!(seqs(&out), vec![10, 11, 0, 12, 13, 14, 15, 16]);
    assert_eq!(s.cwnd, 6.0);
    let d = s.timers.rto.get().unwrap();
    s.on_timeout(d, &mut Vec::new());
    assert_eq!((s.ssthresh, s.stats.window_raising_responses), (8.5, 1));
}

#[test]
fn ns3_ece_halves_the_sack_pipe() {
    // ns-3.44 EnterCwr: GetSsThresh(BytesInFlight()). An ECE on the ACK that SACKs 1 and 2 of
    // 0..10: 8 in flight (nothing lost yet), ssthresh 4 (FlightSize would give 5).
    let cfg = TcpConfig { ecn: EcnMode::Classic, ..TcpConfig::profile("ns3").unwrap() };
    let (mut s, mut out) = with_window(&cfg, 10);
    s.on_ack(MS, &AckIn { ack: 0, sack: &[(1, 3)], ece: true, ace: 0, echo: 0 }, &mut out);
    assert_eq!((s.ssthresh, s.cwnd, s.stats.ecn_reductions), (4.0, 4.0, 1));
}

/// ACKs 1, 2, … of a window of 10 (0..10 sent, ssthresh = cwnd = 10) with classic ECN in the
/// `ns3` profile with the given CWR rule and PRR count, ECE on the first: (cwnd after each ACK,
/// segments sent after each ACK), until the ACK that covers the data outstanding at the echo.
fn ecn_cwr_trace(rule: EcnCwr, prr_delivered: PrrDelivered) -> Vec<(f64, usize)> {
    let cfg = TcpConfig { ecn: EcnMode::Classic, ecn_cwr: rule, prr_delivered, ..TcpConfig::profile("ns3").unwrap() };
    let (mut s, mut out) = with_window(&cfg, 10);
    let mut trace = Vec::new();
    for a in 1..=11 {
        s.on_ack(a * MS, &AckIn { ack: a, sack: &[], ece: a == 1, ace: 0, echo: 0 }, &mut out);
        trace.push((s.cwnd, out.len()));
        out.clear();
    }
    assert_eq!((s.ssthresh, s.stats.ecn_reductions), (4.5, 1));
    trace
}

#[test]
fn ns3_ecn_reduction_runs_prr_without_growth_then_sets_ssthresh() {
    // EnterCwr with PRR, worked by hand from RFC 6937 §3: ECE on the ACK of 0 leaves pipe 9,
    // ssthresh = 9/2 = 4.5 (TcpNewReno halves BytesInFlight), RecoverFS 9. While pipe >
    // ssthresh, sndcnt = ceil(prr_delivered · 4.5 / 9) − prr_out: one segment on every other
    // ACK (cwnd = pipe + sndcnt), nothing grows; pipe stays 9 until the ACKs of the segments
    // sent at the echo... the ACK of 10 (above snd_max 10 at the echo) ends the phase with
    // cwnd = ssthresh.
    let t = ecn_cwr_trace(EcnCwr::Prr, PrrDelivered::Rfc6937);
    let sent: Vec<usize> = t.iter().map(|&(_, n)| n).collect();
    assert_eq!(&sent[..6], &[1, 0, 1, 0, 1, 0]);
    assert_eq!(t[0].0, 10.0); // pipe 9 + sndcnt ceil(4.5/9) = 1
    assert_eq!(t[1].0, 9.0); // pipe 9 + ceil(2 · 0.5) − 1 = 0
    // The ACK up to 10 reaches snd_max at the echo without passing it: still PRR (ns-3.44
    // ReceivedAck leaves CA_CWR only for ackNumber > m_recover, snd_max at EnterCwr). Five
    // segments sent since the echo, pipe 15 − 10 = 5 above ssthresh: ceil(10 · 0.5) − 5 = 0.
    assert_eq!(t[9].0, 5.0);
    assert_eq!(t[10].0, 4.5);
    // ns-3.44's count (the profile's): TcpPrrRecovery::EnterRecovery's DoRecovery (isDupAck)
    // adds the echoing ACK's segment and one more, ProcessAck's CA_CWR branch the segment
    // again: prr_delivered 3, sndcnt 1.5 − 0 (ns-3's ceiling is over bytes: 1422 B), one
    // segment sent; then one delivered segment per ACK (isDupAck calls only at entry): 4, 5, 6,
    // 7 give 2 − 1 = 1, 2.5 − 2 = 0.5, 3 − 2 = 1, 3.5 − 3 = 0.5 segments, whole ones sent.
    let t = ecn_cwr_trace(EcnCwr::Prr, PrrDelivered::Ns3);
    let sent: Vec<usize> = t.iter().map(|&(_, n)| n).collect();
    assert_eq!(&sent[..5], &[1, 1, 0, 1, 0]);
    assert_eq!(t[0].0, 10.5);
    assert_eq!(t[10].0, 4.5);
}

#[test]
fn ns3_ecn_reduction_without_prr_holds_the_window() {
    // TcpClassicRecovery: cwnd = ssthresh at the echo, no IncreaseWindow in CA_CWR; the
    // RFC 3168 rule as written grows in congestion avoidance (1/cwnd per ACK) meanwhile.
    let hold = ecn_cwr_trace(EcnCwr::Hold, PrrDelivered::Ns3);
    assert!(hold.iter().all(|&(w, _)| w == 4.5));
    let grow = ecn_cwr_trace(EcnCwr::Grow, PrrDelivered::Ns3);
    assert_eq!(grow[0].0, 4.5);
    assert!(grow[9].0 > 4.5 + 1.0);
}

#[test]
fn ns3_26_halves_rfc4898_pipe_without_sack() {
    // ns-3.26 FastRetransmit: GetSsThresh(BytesInFlight()) with BytesInFlight = (nextTx −
    // una) + (retransmissions − duplicate ACKs) = 12 + 0 − 3 = 9 after limited transmit sent
    // 10 and 11: ssthresh 4.5, cwnd = ssthresh + 3 = 7.5 (FlightSize: 6 and 9).
    let (mut s, mut out) = with_window(&TcpConfig::profile("ns3.26").unwrap(), 10);
    for _ in 0..3 {
        s.on_ack(MS, &ack(0), &mut out);
    }
    assert_eq!(seqs(&out), vec![10, 11, 0]);
    assert_eq!((s.ssthresh, s.cwnd), (4.5, 7.5));
}

#[test]
fn ns3_26_timeout_in_recovery_halves_rfc4898_pipe() {
    // ns-3.26's BytesInFlight without SACK: snd_nxt − snd_una + retransmissions out − duplicate
    // ACKs, halved at ReTxTimeout too. 0 and 5 of 0..10 lost: limited transmit sends 10 and 11
    // on the first two duplicate ACKs, the third starts recovery (ssthresh 9/2 = 4.5, cwnd 7.5,
    // 0 resent), a fourth inflates to 8.5. The ACK of 0's copy (up to 5) is partial: 5 resent,
    // cwnd 8.5 − 5 + 1 = 4.5, the duplicate ACKs reset. Then the timer fires: 12 − 5 sent and
    // unacknowledged, one retransmission out: 8, ssthresh 4, below the window of 4.5.
    let (mut s, mut out) = with_window(&TcpConfig::profile("ns3.26").unwrap(), 10);
    for _ in 0..4 {
        s.on_ack(MS, &ack(0), &mut out);
    }
    assert_eq!(seqs(&out), vec![10, 11, 0]);
    assert_eq!((s.ssthresh, s.cwnd), (4.5, 8.5));
    out.clear();
    s.on_ack(2 * MS, &ack(5), &mut out);
    assert_eq!((s.cwnd, seqs(&out)), (4.5, vec![5]));
    let d = s.timers.rto.get().unwrap();
    s.on_timeout(d, &mut out);
    assert_eq!((s.ssthresh, s.stats.window_raising_responses), (4.0, 0));
}

#[test]
fn after_a_timeout_sacked_segments_are_not_resent_when_kept() {
    for keep in [true, false] {
        let cfg = TcpConfig { keep_sack_on_rto: keep, reduce_from: ReduceFrom::Flight, ..newreno() };
        let cfg = TcpConfig { sack: true, ..cfg };
        let (mut s, mut out) = with_window(&cfg, 6);
        // 0 and 1 lost; 2..=5 SACKed (too few dup ACKs to recover: the timer fires).
        s.on_ack(MS, &AckIn { ack: 0, sack: &[(2, 4)], ece: false, ace: 0, echo: 0 }, &mut out);
        s.on_ack(MS, &AckIn { ack: 0, sack: &[(2, 6)], ece: false, ace: 0, echo: 0 }, &mut out);
        out.clear();
        s.cwnd = 1.0; // as the timeout leaves it; then the loss window grows per ACK
        let d = s.timers.rto.get().unwrap();
        s.on_timeout(d, &mut out);
        assert_eq!(seqs(&out), vec![0]);
        out.clear();
        s.on_ack(d + MS, &ack(1), &mut out);
        // Slow start: cwnd 2. Kept scoreboard: only 1 is missing below snd_max, then new data.
        let want: Vec<u64> = if keep { vec![1, 6] } else { vec![1, 2] };
        assert_eq!(seqs(&out), want, "keep_sack_on_rto = {keep}");
    }
}

fn sack_cfg(prr: bool) -> TcpConfig {
    TcpConfig { prr, reduce_from: ReduceFrom::Flight, clock_granularity_ns: MS, ..TcpConfig::profile("ns2-sack").unwrap() }
}

#[test]
fn sack_recovers_two_holes_in_one_round_trip() {
    let (mut s, mut out) = with_window(&sack_cfg(false), 10);
    // Segments 2 and 5 are lost. ACKs: 1, 2, then dup ACKs SACKing 3, 4, 6, 7, 8, 9.
    s.on_ack(MS, &ack(1), &mut out);
    s.on_ack(MS, &ack(2), &mut out);
    out.clear();
    let blocks = [(3, 4), (3, 5), (3, 5)];
    s.on_ack(2 * MS, &AckIn { ack: 2, sack: &[blocks[0]], ece: false, ace: 0, echo: 0 }, &mut out);
    s.on_ack(2 * MS, &AckIn { ack: 2, sack: &[blocks[1]], ece: false, ace: 0, echo: 0 }, &mut out);
    assert!(!s.in_recovery());
    s.on_ack(2 * MS, &AckIn { ack: 2, sack: &[(6, 7), (3, 5)], ece: false, ace: 0, echo: 0 }, &mut out);
    // Third dup ACK with 3 SACKed above 2: recovery. The two new ACKs grew cwnd past 10 and
    // let segments 10 and 11 out, so the flight is 12 − 2 = 10: ssthresh = cwnd = 5, and
    // the fast retransmit of 2.
    assert!(s.in_recovery());
    assert_eq!(s.ssthresh, 5.0);
    assert_eq!(out[0], Segment { seq: 2, retransmit: true, cwr: false });
    out.clear();
    // SACK of 7: only 6 and 7 lie above 5, so it is not yet lost (pipe 6 > cwnd 5).
    s.on_ack(3 * MS, &AckIn { ack: 2, sack: &[(6, 8), (3, 5)], ece: false, ace: 0, echo: 0 }, &mut out);
    // SACK of 8: 5 is lost; pipe = 5 un-SACKed − 2 lost + 1 retransmitted = 4 < cwnd 5,
    // so NextSeg rule 1 retransmits 5.
    s.on_ack(3 * MS, &AckIn { ack: 2, sack: &[(6, 9), (3, 5)], ece: false, ace: 0, echo: 0 }, &mut out);
    let all: Vec<u64> = out.iter().filter(|s| s.retransmit).map(|s| s.seq).collect();
    assert_eq!(all, vec![5]);
    out.clear();
    // A cumulative ACK to 10 is partial (the recovery point is 12) ...
    s.on_ack(5 * MS, &ack(10), &mut out);
    assert!(s.in_recovery());
    // ... and one to 12 ends recovery with cwnd = ssthresh.
    s.on_ack(5 * MS, &ack(12), &mut out);
    assert!(!s.in_recovery());
    assert_eq!(s.cwnd, 5.0);
    assert_eq!((s.stats.timeouts, s.stats.fast_recoveries, s.stats.retransmits), (0, 1, 2));
}

#[test]
fn new_data_in_a_sack_recovery_stays_within_the_receiver_window() {
    // RFC 6675 §4 NextSeg rule 2: unsent data only "if the receiver's advertised window
    // allows": here while snd_max − snd_una < rwnd = 10 segments. Segments 0..8 out (cwnd 9);
    // the ACK of 2 lets 9 and 10 out (flight 9). Segment 2 is lost: SACKs of 3.. start a
    // recovery at the third (RFC 6675 §5: retransmit 2; ssthresh = cwnd = FlightSize/2 = 4.5).
    // As 3..10 are SACKed the pipe falls to the retransmission alone, 1: new data fits the
    // window (1 < 4.5 − 1) but the receiver's window takes one segment only, 11 (flight 9 → 10);
    // rule 3 finds nothing un-SACKed below the highest SACK, so nothing else goes out.
    let cfg = TcpConfig { rwnd: 10, ..sack_cfg(false) };
    let (mut s, mut out) = with_window(&cfg, 9);
    s.on_ack(MS, &ack(2), &mut out);
    assert_eq!(seqs(&out), vec![9, 10]);
    out.clear();
    for k in 1..=8u64 {
        s.on_ack(2 * MS, &AckIn { ack: 2, sack: &[(3, 3 + k)], ece: false, ace: 0, echo: 0 }, &mut out);
    }
    assert!(s.in_recovery());
    assert_eq!(s.cwnd, 4.5);
    let rtx: Vec<u64> = out.iter().filter(|s| s.retransmit).map(|s| s.seq).collect();
    let new: Vec<u64> = out.iter().filter(|s| !s.retransmit).map(|s| s.seq).collect();
    assert_eq!((rtx, new), (vec![2], vec![11]));
}

/// Segment 0 and its retransmission lost, three later segments SACKed: the retransmission
/// is sent again at once (Linux's tcp_mark_lost_retrans) or not (ns-2, ns-3, RFC 6675).
fn lost_retransmission(cfg: &TcpConfig) -> (TcpSender, Vec<Segment>) {
    let (mut s, mut out) = with_window(cfg, 10);
    // Segment 0 lost: dup ACKs SACK 1, 2, 3 and recovery retransmits 0 (snd_max 10).
    for k in 1..=3u64 {
        s.on_ack(MS, &AckIn { ack: 0, sack: &[(1, 1 + k)], ece: false, ace: 0, echo: 0 }, &mut out);
    }
    assert_eq!(out.iter().filter(|s| s.retransmit).map(|s| s.seq).collect::<Vec<_>>(), vec![0]);
    out.clear();
    // The rest of the window is SACKed and the pipe lets new segments 10.. out.
    for k in 4..=9u64 {
        s.on_ack(2 * MS, &AckIn { ack: 0, sack: &[(1, 1 + k)], ece: false, ace: 0, echo: 0 }, &mut out);
    }
    let new: Vec<u64> = out.iter().filter(|s| !s.retransmit).map(|s| s.seq).collect();
    assert!(new.len() >= 3, "{new:?}");
    out.clear();
    // The retransmission of 0 is lost too; three segments sent after it (10, 11, 12) are
    // SACKed while 0 is not.
    s.on_ack(3 * MS, &AckIn { ack: 0, sack: &[(1, 13)], ece: false, ace: 0, echo: 0 }, &mut out);
    (s, out)
}

#[test]
fn a_lost_retransmission_is_sent_again_without_a_timeout() {
    // With the test of Linux's tcp_mark_lost_retrans: 0 is sent again at once, no timeout.
    let (s, out) = lost_retransmission(&TcpConfig { lost_retransmit: true, ..sack_cfg(false) });
    assert_eq!(out.iter().filter(|s| s.retransmit).map(|s| s.seq).collect::<Vec<_>>(), vec![0]);
    assert_eq!(s.stats.timeouts, 0);
    assert!(s.in_recovery());
}

#[test]
fn ns2_sack1_leaves_a_lost_retransmission_to_the_timeout() {
    // ns-2's Sack1 retransmits a hole once per recovery (its scoreboard's retran flag stays
    // set) and RFC 6675 §5 has no rule to find the retransmission lost: nothing is resent,
    // the RTO repairs it.
    let (mut s, out) = lost_retransmission(&sack_cfg(false));
    assert!(out.iter().all(|g| !g.retransmit), "{out:?}");
    let d = s.timers.rto.get().unwrap();
    let mut out = Vec::new();
    s.on_timer(d, &mut out);
    assert_eq!((out[0], s.stats.timeouts), (Segment { seq: 0, retransmit: true, cwr: false }, 1));
}

/// Segment 0 of 0..10 lost (cwnd = ssthresh = 10) and nine duplicate ACKs: NewReno recovery
/// with ssthresh 5 (the window or the flight halved), inflated to 5 + 3 + 6 = 14, which lets
/// 10..13 out. Returns the sender with recover = 10.
fn newreno_head_loss_inflated(cfg: &TcpConfig) -> (TcpSender, Vec<Segment>) {
    let (mut s, mut out) = with_window(cfg, 10);
    for _ in 0..9 {
        s.on_ack(MS, &ack(0), &mut out);
    }
    assert_eq!(seqs(&out), vec![0, 10, 11, 12, 13]);
    assert_eq!((s.ssthresh, s.cwnd), (5.0, 14.0));
    out.clear();
    (s, out)
}

#[test]
fn newreno_full_ack_of_everything_leaves_two_segments() {
    // RFC 6582 §3.2 step 3: cwnd = min(ssthresh, max(FlightSize, SMSS) + SMSS). After the
    // nine duplicate ACKs, the ACK of the retransmission covers everything sent before the
    // recovery and the four new segments, when their ACKs come together: FlightSize 0, cwnd =
    // min(5, 1 + 1) = 2.
    let cfg = TcpConfig { reduce_from: ReduceFrom::Flight, ..newreno() };
    let (mut s, mut out) = newreno_head_loss_inflated(&cfg);
    s.on_ack(2 * MS, &ack(14), &mut out);
    assert!(!s.in_recovery());
    assert_eq!((s.ssthresh, s.cwnd), (5.0, 2.0));
}

#[test]
fn newreno_starts_a_new_recovery_once_the_ack_covers_recover() {
    // RFC 6582 §3.2 step 2: three duplicate ACKs start a fast retransmit when the cumulative
    // ACK covers more than recover, the highest segment sent when the last recovery began (9:
    // recover = snd_max 10 here, as ns-3's m_highRxAckMark ≥ m_recover). After the recovery
    // for 0, the ACK of 10 ends it with cwnd = min(5, FlightSize 4 + 1) = 5, which lets 14
    // out; segment 10, sent during the recovery, is lost, and 11, 12, 13 bring three
    // duplicate ACKs of 10: a new loss, a new recovery, ssthresh = 5 · ½.
    let (mut s, mut out) = newreno_head_loss_inflated(&newreno());
    s.on_ack(2 * MS, &ack(10), &mut out);
    assert!(!s.in_recovery());
    assert_eq!((s.cwnd, seqs(&out)), (5.0, vec![14]));
    out.clear();
    for _ in 0..3 {
        s.on_ack(3 * MS, &ack(10), &mut out);
    }
    assert_eq!(out, vec![Segment { seq: 10, retransmit: true, cwr: false }]);
    assert_eq!((s.ssthresh, s.stats.fast_recoveries), (2.5, 2));
    assert!(s.ssthresh <= 5.0);
}

#[test]
fn rescue_retransmission_repairs_a_lost_tail_once_per_recovery() {
    // A 10-segment transfer (no new data to send), 0 and 9 lost, 1..=8 SACKed one per ACK;
    // ssthresh = cwnd = 5 at the fast retransmit of 0 (SACK of 3). By hand, the pipe is 7
    // then falls by one per SACK; at the SACK of 6 it is 4 (7, 8, 9 and the retransmission):
    // rule 1 has no lost segment above HighRxt (the DupThresh boundary is 4), rule 2 no new
    // data, rule 3 no hole below the highest SACKed segment, so RFC 6675 rule 4 retransmits
    // the highest un-SACKed segment, 9, once. Off (every profile): 9 waits for the RTO.
    for rescue in [true, false] {
        let cfg = TcpConfig { rescue_retransmit: rescue, ..sack_cfg(false) };
        let (mut s, mut out) = started(&cfg, Some(10), 10, 10);
        let mut resent = Vec::new();
        for k in 1..=8u64 {
            s.on_ack(MS * k, &AckIn { ack: 0, sack: &[(1, 1 + k)], ece: false, ace: 0, echo: 0 }, &mut out);
            resent.extend(out.drain(..).map(|g| (k, g.seq, g.retransmit)));
        }
        let want = if rescue { vec![(3, 0, true), (6, 9, true)] } else { vec![(3, 0, true)] };
        assert_eq!(resent, want, "rescue {rescue}");
        assert_eq!(s.ssthresh, 5.0);
    }
}

/// 20 segments in flight, segment 0 lost, and 19 ACKs that each SACK one more segment: the
/// sender after them, and how many new (not retransmitted) segments each ACK released.
fn new_segments_per_sacking_ack(cfg: &TcpConfig) -> (TcpSender, Vec<usize>) {
    let (mut s, mut out) = with_window(cfg, 20);
    let mut sent_per_ack = Vec::new();
    for k in 1..=19u64 {
        s.on_ack(MS, &AckIn { ack: 0, sack: &[(1, 1 + k)], ece: false, ace: 0, echo: 0 }, &mut out);
        sent_per_ack.push(out.iter().filter(|s| !s.retransmit).count());
        out.clear();
    }
    (s, sent_per_ack)
}

#[test]
fn prr_spreads_the_reduction_over_the_round_trip() {
    // 20 in flight, segment 0 lost, every later ACK SACKs one more segment.
    let (s, sent_per_ack) = new_segments_per_sacking_ack(&sack_cfg(true));
    // RFC 6937 by hand: recovery starts at the 3rd ACK (ssthresh 10, RecoverFS 20, the fast
    // retransmit counted in prr_out, pipe 17). While pipe > ssthresh a new segment goes out
    // when ceil(prr_delivered·10/20) − prr_out turns positive, i.e. for every second
    // delivery (ACKs 5, 7, 9, 11, 13); the pipe reaches ssthresh at ACK 15, after which
    // PRR-SSRB sends one segment per delivery to hold it there.
    assert_eq!(s.ssthresh, 10.0);
    assert_eq!(sent_per_ack, vec![0, 0, 0, 0, 1, 0, 1, 0, 1, 0, 1, 0, 1, 0, 0, 1, 1, 1, 1]);
}

#[test]
fn ns3_prr_counts_a_segment_per_duplicate_ack_from_the_pipe() {
    // The same losses in the `ns3` profile (limited transmit off), by hand from ns-3.44's
    // TcpSocketBase and TcpPrrRecovery: at the 3rd ACK EnterRecovery finds the head lost, pipe
    // 20 − 3 SACKed − 1 lost = 16, ssthresh 8 (TcpNewReno halves it), RecoverFS 16; DoRecovery
    // (isDupAck) counts 1 + 1: ⌈2·8/16⌉ = 1 forced segment, the fast retransmission. Each later
    // duplicate ACK adds 1 + 1 while prr_delivered < 16: 4, 6, …, 16 at ACKs 4 to 10, and
    // prr_delivered/2 − prr_out = 1 sends a segment on each; then 17, 18, … leave half a
    // segment (not sent: ns-3's ceiling is over bytes) and one on alternate ACKs (12, 14, 16,
    // 18). The pipe stays above ssthresh throughout.
    let cfg = TcpConfig { limited_transmit: false, ..TcpConfig::profile("ns3").unwrap() };
    let (s, sent_per_ack) = new_segments_per_sacking_ack(&cfg);
    assert_eq!(s.ssthresh, 8.0);
    assert_eq!(sent_per_ack, vec![0, 0, 0, 1, 1, 1, 1, 1, 1, 1, 0, 1, 0, 1, 0, 1, 0, 1, 0]);
}

#[test]
fn ns3_prr_counts_a_partial_ack_twice_only_when_it_sacks_new_data() {
    // ns-3.44 ProcessAck in CA_RECOVERY: an ACK that SACKs new data goes through DupAck's
    // DoRecovery (isDupAck: DeliveredData + 1 while prr_delivered < RecoverFS), and one that
    // advances snd_una then through the partial-ACK branch's DoRecovery (DeliveredData
    // again); the window is the last call's. Segments 0 and 4 of 20 lost; the first three
    // ACKs SACK 1..3 and start the recovery as in the test above (ssthresh 8, RecoverFS 16,
    // prr_delivered 2, prr_out 1: the fast retransmission). Then the retransmitted 0 arrives:
    // snd_una moves to 4, DeliveredData is that one segment, plus 5 when the ACK also SACKs it.
    // - Without a new SACK block: partial branch only, prr_delivered 3, ⌈3·8/16⌉ = 1.5
    //   segments in bytes, less prr_out 1: half a segment, nothing sent.
    // - With (5, 6): DupAck's call 2 + 2 + 1 = 5, the partial branch's 5 + 2 = 7: 3.5 − 1 =
    //   2.5, two segments sent. The pipe (15 or 16) stays above ssthresh: proportional.
    let cfg = TcpConfig { limited_transmit: false, ..TcpConfig::profile("ns3").unwrap() };
    for (sack, sent) in [(&[][..], 0), (&[(5, 6)][..], 2)] {
        let (mut s, mut out) = with_window(&cfg, 20);
        sacks(&mut s, MS, 1..=3, &mut out);
        assert!(s.in_recovery());
        out.clear();
        s.on_ack(2 * MS, &sack_ack(4, sack, 0), &mut out);
        assert!(s.in_recovery() && s.pipe() > 8, "proportional part: pipe {}", s.pipe());
        assert_eq!(out.len(), sent, "SACK blocks {sack:?}: {out:?}");
    }
}

#[test]
fn limited_transmit_sends_on_the_first_two_dupacks() {
    let cfg = TcpConfig { limited_transmit: true, ..newreno() };
    let (mut s, mut out) = with_window(&cfg, 4);
    s.on_ack(MS, &ack(0), &mut out);
    assert_eq!(seqs(&out), vec![4]);
    s.on_ack(MS, &ack(0), &mut out);
    assert_eq!(seqs(&out), vec![4, 5]);
    s.on_ack(MS, &ack(0), &mut out);
    // The third enters recovery: retransmission, no further limited transmit.
    assert_eq!(out.last().unwrap(), &Segment { seq: 0, retransmit: true, cwr: false });
}

#[test]
fn ece_reduces_once_per_window_without_retransmitting() {
    let cfg = TcpConfig { ecn: EcnMode::Classic, reduce_from: ReduceFrom::Flight, ..newreno() };
    let (mut s, mut out) = with_window(&cfg, 10);
    s.on_ack(MS, &AckIn { ack: 1, sack: &[], ece: true, ace: 0, echo: 0 }, &mut out);
    // Halved from the flight of 9 (the cut follows the ACK's cumulative advance, as ns-3.44's
    // ReceivedAck discards acknowledged data before EnterCwr), no retransmission; the first
    // new segment carries CWR.
    assert_eq!((s.ssthresh, s.cwnd, s.stats.ecn_reductions, s.stats.retransmits), (4.5, 4.5, 1, 0));
    out.clear();
    s.on_ack(2 * MS, &AckIn { ack: 7, sack: &[], ece: true, ace: 0, echo: 0 }, &mut out);
    assert_eq!(s.stats.ecn_reductions, 1, "a second ECE in the same window is ignored");
    assert!(out[0].cwr && out.iter().skip(1).all(|s| !s.cwr));
    // Past the window (snd_max was 10 at the cut), ECE reduces again.
    s.on_ack(3 * MS, &AckIn { ack: 11, sack: &[], ece: true, ace: 0, echo: 0 }, &mut out);
    assert_eq!(s.stats.ecn_reductions, 2);
}

#[test]
fn an_ack_without_ece_leaves_the_next_echo_its_reduction() {
    // RFC 3168 §6.1.2: the window is reduced on the first ECE, at most once per window; an
    // ACK without ECE starts no CWR phase. ACK 1 without ECE (cwnd 10.1: segment 10 goes,
    // without CWR), then ACK 2 with it: halved from the flight of 11 − 2 = 9.
    let cfg = TcpConfig { ecn: EcnMode::Classic, reduce_from: ReduceFrom::Flight, ..newreno() };
    let (mut s, mut out) = with_window(&cfg, 10);
    s.on_ack(MS, &AckIn { ack: 1, sack: &[], ece: false, ace: 0, echo: 0 }, &mut out);
    assert_eq!((seqs(&out), out[0].cwr), (vec![10], false));
    out.clear();
    s.on_ack(2 * MS, &AckIn { ack: 2, sack: &[], ece: true, ace: 0, echo: 0 }, &mut out);
    assert_eq!((s.stats.ecn_reductions, s.ssthresh, out.len()), (1, 4.5, 0));
    // ACK 8 leaves 3 in flight under cwnd 4.5: new data, the first segment with CWR.
    s.on_ack(3 * MS, &AckIn { ack: 8, sack: &[], ece: false, ace: 0, echo: 0 }, &mut out);
    assert!(!out.is_empty() && out[0].cwr && out.iter().skip(1).all(|s| !s.cwr), "{out:?}");
}

#[test]
fn each_profile_ends_dctcp_windows_as_its_stack_does() {
    // Ten segments out (0..9); the ACK of 1 is unmarked, the ACK of 10 echoes CE for its 9.
    // RFC 8257 §3.3 (ns-2's profile): the first ACK ends the first window (α = 15/16), the
    // next ends only past 10, so α stays 15/16. Linux: the ACK of 10 reaches 10 and ends it,
    // α = (15/16)² + 1/16 = 241/256. ns-3: the first window's end is set at the first ACK (10)
    // and reached by the second, α = 15/16 + (9/10)/16.
    let alpha_after = |profile: &str| {
        let dctcp = serde_json::json!({"cc": "dctcp", "ecn": "dctcp"});
        let cfg = TcpConfig::resolve(profile, dctcp.as_object().unwrap()).unwrap();
        let (mut s, mut out) = with_window(&cfg, 10);
        s.on_ack(MS, &ack(1), &mut out);
        s.on_ack(2 * MS, &AckIn { ack: 10, sack: &[], ece: true, ace: 0, echo: 0 }, &mut out);
        match &s.cc {
            Cc::Dctcp(d) => d.alpha,
            _ => unreachable!("DCTCP asked for"),
        }
    };
    assert_eq!(alpha_after("ns2-sack"), 15.0 / 16.0);
    assert_eq!(alpha_after("linux"), 241.0 / 256.0);
    assert_eq!(alpha_after("ns3"), 15.0 / 16.0 + 0.9 / 16.0);
}

#[test]
fn the_ack_that_brings_an_ecn_reduction_grows_nothing() {
    // ns-2 (per-ACK growth, the window halved): TcpAgent opens the window only on an ACK
    // without ECN-Echo, so the echo halves the window as it stood, 10 (congestion avoidance,
    // cwnd = ssthresh = 10): ssthresh = cwnd = 5, not half of a window grown by 1/10 first.
    let cfg = TcpConfig { ecn: EcnMode::Classic, ..newreno() };
    let (mut s, mut out) = with_window(&cfg, 10);
    s.on_ack(MS, &AckIn { ack: 1, sack: &[], ece: true, ace: 0, echo: 0 }, &mut out);
    assert_eq!((s.ssthresh, s.cwnd, s.stats.ecn_reductions), (5.0, 5.0, 1));
    assert!(s.ssthresh <= 10.0 && s.cwnd <= 10.0);
}

/// An ideal path for HyStart: one ACK per segment, the ACK of segment `s` sent at `sent`
/// arriving at `arrive(s, sent, arrival of the previous ACK)`. The sender starts at 0 and
/// the first `n` ACKs are taken in order; returns the sender and, per ACK, (arrival,
/// cwnd before it, ssthresh after it).
fn drive(cfg: &TcpConfig, n: usize, arrive: impl Fn(u64, Nanos, Nanos) -> Nanos) -> (TcpSender, Vec<(Nanos, f64, f64)>) {
    drive_sender(TcpSender::new(cfg, None, MSS), n, arrive)
}

/// `drive` for a sender made by the caller (a set ssthresh, say).
fn drive_sender(mut s: TcpSender, n: usize, arrive: impl Fn(u64, Nanos, Nanos) -> Nanos) -> (TcpSender, Vec<(Nanos, f64, f64)>) {
    let mut out = Vec::new();
    let (mut sent, mut arrival): (Vec<Nanos>, Vec<Nanos>) = (Vec::new(), Vec::new());
    let mut log = Vec::new();
    let mut now = 0;
    s.start(now, &mut out);
    for k in 0..=n {
        for seg in out.drain(..) {
            assert!(!seg.retransmit && seg.seq as usize == sent.len());
            let prev = arrival.last().copied().unwrap_or(0);
            sent.push(now);
            arrival.push(arrive(seg.seq, now, prev).max(prev));
        }
        if k == n {
            break;
        }
        now = arrival[k];
        let cwnd = s.cwnd;
        s.on_ack(now, &AckIn { ack: k as u64 + 1, sack: &[], ece: false, ace: 0, echo: sent[k] }, &mut out);
        log.push((now, cwnd, s.ssthresh));
    }
    (s, log)
}

/// Linux's TCP with HyStart on or off and an initial window `iw`.
fn hystart_cfg(on: bool, iw: u32) -> TcpConfig {
    TcpConfig { hystart: on, initial_cwnd: iw, ..TcpConfig::profile("linux").unwrap() }
}

/// The first ACK (1-based) after which ssthresh is finite, with that ssthresh.
fn first_exit(log: &[(Nanos, f64, f64)]) -> Option<(usize, f64)> {
    log.iter().position(|l| l.2.is_finite()).map(|i| (i + 1, log[i].2))
}

#[test]
fn hystart_delay_exit_in_the_round_whose_rtt_rises() {
    // IW 16, 100 ms RTT, every burst's ACKs arriving together (no train). With one
    // segment per ACK and +1 per ACK the rounds are: ACKs 1-16 (segments 0-15, end_seq
    // 16), ACKs 17-48 (end_seq 48), ACKs 49-112. From segment 48 on, the RTT is 100 ms +
    // η (12.5 ms) + 1 ns: the third round's ninth ACK, ACK 57, exits, with ssthresh = cwnd
    // = 16 + 56 = 72 before that ACK grows it.
    let eta = 12_500_000;
    let path = |rise: Nanos| move |s: u64, sent: Nanos, _: Nanos| sent + 100 * MS + if s >= 48 { rise } else { 0 };
    let (s, log) = drive(&hystart_cfg(true, 16), 300, path(eta + 1));
    assert_eq!(first_exit(&log), Some((57, 72.0)));
    assert_eq!(log[56].1, 72.0, "ssthresh is the window before the exit ACK");
    assert_eq!((s.stats.hystart_exits, s.hystart_exit()), (1, Some(Exit::Delay)));
    assert_eq!(s.stats.timeouts + s.stats.fast_recoveries, 0);
    // A rise of exactly η is not enough (Linux compares strictly): slow start goes on.
    let (s, log) = drive(&hystart_cfg(true, 16), 300, path(eta));
    assert_eq!((first_exit(&log), s.stats.hystart_exits), (None, 0));
    assert_eq!(s.cwnd, 16.0 + 300.0);
    // Off: the same path never leaves slow start.
    let (s, log) = drive(&hystart_cfg(false, 16), 300, path(eta + 1));
    assert_eq!((first_exit(&log), s.hystart_exit()), (None, None));
}

#[test]
fn hystart_is_quiet_once_the_window_reaches_ssthresh() {
    // Linux calls hystart_update only in slow start, tcp_in_slow_start: cwnd < ssthresh
    // (cubictcp_acked). The delay path of the test above, with ssthresh set to 40 first:
    // the second round opens at ACK 17 (cwnd 32), its eighth sample is ACK 24 (cwnd 39),
    // and ACK 25, the first that may test the delay, finds cwnd = 16 + 24 = 40 = ssthresh:
    // congestion avoidance, so no exit there or later, though every RTT from ACK 17 on is
    // 20 ms above the first round's (η = 12.5 ms).
    let path = |s: u64, sent: Nanos, _: Nanos| sent + 100 * MS + if s >= 16 { 20 * MS } else { 0 };
    let mut s = TcpSender::new(&hystart_cfg(true, 16), None, MSS);
    s.ssthresh = 40.0;
    let (s, log) = drive_sender(s, 100, path);
    assert_eq!((log[23].1, log[24].1), (39.0, 40.0), "ACK 24 in slow start, ACK 25 at ssthresh");
    assert_eq!((s.stats.hystart_exits, s.hystart_exit()), (0, None));
    assert!(log.iter().all(|l| l.2 == 40.0), "ssthresh stays as set");
    // The control: with ssthresh one segment higher, ACK 25 is still in slow start and exits.
    let mut s = TcpSender::new(&hystart_cfg(true, 16), None, MSS);
    s.ssthresh = 41.0;
    let (s, log) = drive_sender(s, 100, path);
    assert_eq!((s.stats.hystart_exits, s.hystart_exit()), (1, Some(Exit::Delay)));
    assert_eq!(log[24].2, 40.0, "the exit at ACK 25 sets ssthresh = cwnd = 40");
}

#[test]
fn hystart_ack_train_exit_past_half_the_min_rtt() {
    // A bottleneck of one segment per ms and 100 ms base RTT: each ACK comes 1 ms after the
    // previous one or 100 ms after its segment left. Rounds as above; the third (ACKs
    // 49-112) starts at 300 ms with a continuous train, and its ACK at 351 ms, the first
    // past delay_min/2 = 50 ms, exits: ACK 100, cwnd 16 + 99 = 115. The round minimum
    // stays at the 100 ms base, so the delay detector is quiet.
    let path = |_: u64, sent: Nanos, prev: Nanos| (sent + 100 * MS).max(prev + MS);
    let (s, log) = drive(&hystart_cfg(true, 16), 300, path);
    assert_eq!(first_exit(&log), Some((100, 115.0)));
    assert_eq!(log[99].0, 351 * MS);
    assert_eq!(s.hystart_exit(), Some(Exit::AckTrain));
    let (_, log) = drive(&hystart_cfg(false, 16), 300, path);
    assert_eq!(first_exit(&log), None);
}

#[test]
fn hystart_waits_for_sixteen_segments() {
    // IW 2 over a 10 ms path with a bottleneck of one segment per ms: delay_min/2 = 5 ms,
    // and the third round's ACKs (7-14, at 30-37 ms) already form a 7 ms train, which
    // would end slow start at ACK 13 with cwnd 14. HyStart waits for cwnd 16 (ACK 15, at
    // 40 ms, opens its first round) and exits on that round's train at 46 ms: ACK 21,
    // cwnd 1 + 21 = 22.
    let path = |_: u64, sent: Nanos, prev: Nanos| (sent + 10 * MS).max(prev + MS);
    let (s, log) = drive(&hystart_cfg(true, 2), 100, path);
    assert_eq!(log[6..14].iter().map(|l| l.0 / MS).collect::<Vec<_>>(), (30..38).collect::<Vec<_>>());
    assert_eq!((log[12].1, log[14].1), (14.0, 16.0));
    assert_eq!(first_exit(&log), Some((21, 22.0)));
    assert_eq!(log[20].0, 46 * MS);
    assert_eq!(s.hystart_exit(), Some(Exit::AckTrain));
}

#[test]
fn a_timeout_rearms_hystart() {
    let path = |s: u64, sent: Nanos, _: Nanos| sent + 100 * MS + if s >= 48 { 20 * MS } else { 0 };
    let (mut s, log) = drive(&hystart_cfg(true, 16), 100, path);
    assert_eq!(first_exit(&log), Some((57, 72.0)));
    let mut out = Vec::new();
    let t = log.last().unwrap().0 + s.rtt.rto();
    s.on_timeout(t, &mut out);
    assert_eq!((s.cwnd, s.hystart_exit(), s.stats.hystart_exits), (1.0, None, 1));
    let h = s.hystart.as_ref().unwrap();
    assert_eq!((h.delay_min(), h.round_end()), (0, s.snd_max));
}

/// Linux's TCP (CUBIC, SACK, PRR, limited transmit, timestamps) with RACK-TLP on or off.
fn rack_cfg(on: bool) -> TcpConfig {
    TcpConfig { rack: on, hystart: false, ..TcpConfig::profile("linux").unwrap() }
}

fn sack_ack(a: u64, sack: &[(u64, u64)], echo: Nanos) -> AckIn<'_> {
    AckIn { ack: a, sack, ece: false, ace: 0, echo }
}

/// Segments 0..10 sent at 0 over a 100 ms path, one ACK per ms from 100 ms; segment 8,
/// the second-to-last of the burst, is lost. Returns the sender after the ACKs of 0..=7
/// and the first SACK (of 9, at 109 ms), with the new segments sent meanwhile and when.
fn loss_among_the_last_two(rack: bool) -> (TcpSender, Vec<(u64, Nanos)>) {
    let (mut s, mut out) = with_window(&rack_cfg(rack), 10);
    let mut sent = Vec::new();
    for k in 0..8u64 {
        s.on_ack((100 + k) * MS, &sack_ack(k + 1, &[], 0), &mut out);
        sent.extend(out.drain(..).map(|seg| (seg.seq, (100 + k) * MS)));
    }
    s.on_ack(109 * MS, &sack_ack(8, &[(9, 10)], 0), &mut out);
    sent.extend(out.drain(..).map(|seg| (seg.seq, 109 * MS)));
    assert!(sent.iter().all(|&(q, _)| q >= 10), "only new data so far: {sent:?}");
    assert!(!s.in_recovery());
    (s, sent)
}

#[test]
fn rack_starts_recovery_a_quarter_min_rtt_after_the_first_sack() {
    // RFC 8985 §6.2: segment 9 (sent at 0, like 8 but later in sequence) is delivered at
    // 109 ms, so RACK.rtt = 109 ms; one SACKed segment is below DupThresh, so reo_wnd =
    // min_RTT/4 = 25 ms (min_RTT 100 ms from segment 0). Segment 8 is lost at 0 + 109 +
    // 25 = 134 ms, the first SACK's arrival + min_RTT/4: the reordering timer.
    let (mut s, _) = loss_among_the_last_two(true);
    assert_eq!(s.next_timer(), Some(134 * MS));
    assert!(s.timers.rto.get().unwrap() > 134 * MS && s.timers.probe.get().is_none());
    let mut out = Vec::new();
    s.on_timer(134 * MS, &mut out);
    assert!(s.in_recovery());
    assert_eq!(out[0], Segment { seq: 8, retransmit: true, cwr: false });
    assert_eq!((s.stats.fast_recoveries, s.stats.timeouts), (1, 0));
}

#[test]
fn dupthresh_starts_that_recovery_a_round_trip_later() {
    // Without RACK the burst yields a single duplicate ACK (109 ms); the next two come
    // from the new segments the ACKs of 0..=7 let out (at 100 and 101 ms, ACKed at 200 and
    // 201 ms): recovery at 201 ms, 67 ms after RACK's 134 ms.
    let (mut s, sent) = loss_among_the_last_two(false);
    assert_eq!(s.next_timer(), s.timers.rto.get());
    let mut out = Vec::new();
    let mut start = None;
    assert_eq!(sent[..3], [(10, 100 * MS), (11, 101 * MS), (12, 102 * MS)]);
    for &(q, t) in &sent {
        s.on_ack(t + 100 * MS, &sack_ack(8, &[(9, 10), (10, q + 1)], t), &mut out);
        if s.in_recovery() {
            start = Some((q, t + 100 * MS));
            break;
        }
    }
    assert_eq!(start, Some((11, 201 * MS)));
    assert_eq!(out.iter().find(|g| g.retransmit).map(|g| g.seq), Some(8));
}

#[test]
fn rack_marks_a_hole_lost_at_once_below_dupthresh_sacked_segments() {
    // Segment 0 is delivered at 100 ms (min_RTT = SRTT = 100 ms), segment 1 is lost and
    // 2, 3, 4 are SACKed at 102, 103, 104 ms. The first two SACKs arm the reordering timer
    // (0 + 102 + 25, then 0 + 103 + 25 ms); with the third, three SACKed segments reach
    // DupThresh, reo_wnd is 0 (§6.2 step 4) and 1 is lost at once.
    let (mut s, mut out) = with_window(&rack_cfg(true), 10);
    s.on_ack(100 * MS, &sack_ack(1, &[], 0), &mut out);
    s.on_ack(102 * MS, &sack_ack(1, &[(2, 3)], 0), &mut out);
    assert_eq!(s.next_timer(), Some(127 * MS));
    s.on_ack(103 * MS, &sack_ack(1, &[(2, 4)], 0), &mut out);
    assert_eq!(s.next_timer(), Some(128 * MS));
    assert!(!s.in_recovery());
    out.clear();
    s.on_ack(104 * MS, &sack_ack(1, &[(2, 5)], 0), &mut out);
    assert!(s.in_recovery());
    assert_eq!(out[0], Segment { seq: 1, retransmit: true, cwr: false });
    // Only 1 is lost: segments 5..9, sent at 0 like 4 but later in sequence, are not before
    // RACK's segment (4), so they stay in flight and the timer is off.
    assert_eq!(s.rack.as_ref().unwrap().lost_below, 2);
    assert_eq!(s.next_timer(), s.timers.rto.get());
}

#[test]
fn rack_finds_a_lost_retransmission_without_a_timeout() {
    for rack in [true, false] {
        let (mut s, mut out) = with_window(&rack_cfg(rack), 10);
        // Segment 0 lost: recovery on the third SACK (103 ms) retransmits it.
        for k in 1..=3u64 {
            s.on_ack((100 + k) * MS, &sack_ack(0, &[(1, 1 + k)], 0), &mut out);
        }
        assert_eq!(out.iter().filter(|g| g.retransmit).map(|g| g.seq).collect::<Vec<_>>(), vec![0]);
        out.clear();
        // The rest of the window is SACKed; PRR lets new segments out from 104 ms on.
        let mut sent = Vec::new();
        for k in 4..=9u64 {
            s.on_ack((100 + k) * MS, &sack_ack(0, &[(1, 1 + k)], 0), &mut out);
            sent.extend(out.drain(..).map(|g| (g.seq, (100 + k) * MS)));
        }
        assert!(sent.iter().all(|&(q, _)| q >= 10) && sent.len() >= 3, "{sent:?}");
        // The retransmission of 0 (sent at 103 ms) is lost too. The ACK of the first new
        // segment (sent at 104 ms or later) arrives 100 ms after it: RACK.rtt = 100 ms,
        // reo_wnd = 0 in recovery, and 103 + 100 <= now, so 0 is lost again (RFC 8985
        // §2.2) and resent on this very ACK. The pre-RACK rule needs three such SACKs.
        let (q, t) = sent[0];
        s.on_ack(t + 100 * MS, &sack_ack(0, &[(1, q + 1)], t), &mut out);
        let resent: Vec<u64> = out.iter().filter(|g| g.retransmit).map(|g| g.seq).collect();
        assert_eq!(resent, if rack { vec![0] } else { vec![] }, "rack {rack}");
        assert_eq!(s.stats.timeouts, 0);
        assert!(s.in_recovery());
    }
}

#[test]
fn tlp_probes_a_lost_tail_at_two_srtt_instead_of_the_rto() {
    // A 10-segment transfer over a 50 ms path; the last two segments are lost. The ACKs
    // of 0..=7 arrive at 50..57 ms; then two segments are in flight and nothing is SACKed:
    // the probe timeout is 2·SRTT after the last ACK (RFC 8985 §7.2), well before the RTO
    // (at least the 200 ms RTO_MIN).
    let mut s = TcpSender::new(&rack_cfg(true), Some(10), MSS);
    let mut out = Vec::new();
    s.start(0, &mut out);
    assert_eq!(out.len(), 10);
    out.clear();
    for k in 0..8u64 {
        s.on_ack((50 + k) * MS, &sack_ack(k + 1, &[], 0), &mut out);
    }
    assert!(out.is_empty());
    let pto = 57 * MS + (2.0 * s.rtt.srtt()).round() as Nanos;
    assert!(pto < 57 * MS + 120 * MS, "2·SRTT is about 107 ms: {pto}");
    assert_eq!(s.timers.probe.get(), Some(pto));
    assert_eq!(s.next_timer(), Some(pto));
    assert!(s.timers.rto.get().unwrap() >= 57 * MS + 200 * MS);
    // No new data: the probe resends the highest segment, 9; cwnd is untouched.
    let cwnd = s.cwnd;
    s.on_timer(pto, &mut out);
    assert_eq!(out, vec![Segment { seq: 9, retransmit: true, cwr: false }]);
    assert_eq!((s.stats.tlp_probes, s.stats.timeouts, s.cwnd), (1, 0, cwnd));
    assert_eq!(s.timers.probe.get(), None, "one probe per tail");
    out.clear();
    // Its SACK shows 8, sent before it, lost: recovery resends 8 at once (reo_wnd is
    // min_RTT/4 = 12.5 ms, long passed since 8 was sent).
    // §7.4: the probe's episode lasts until an ACK covers what was sent up to the probe
    // (snd_max then, 10); the ACK of 8 does not.
    let episode = |s: &TcpSender| s.rack.as_ref().unwrap().probe_high_seq;
    assert_eq!(episode(&s), Some(10));
    s.on_ack(pto + 50 * MS, &sack_ack(8, &[(9, 10)], pto), &mut out);
    assert!(s.in_recovery());
    assert_eq!(out, vec![Segment { seq: 8, retransmit: true, cwr: false }]);
    assert_eq!(episode(&s), Some(10));
    s.on_ack(pto + 100 * MS, &sack_ack(10, &[], pto + 50 * MS), &mut out);
    assert_eq!(episode(&s), None);
    assert!(s.is_complete());
    assert_eq!((s.stats.timeouts, s.stats.fast_recoveries, s.stats.retransmits), (0, 1, 2));
    // Without RACK-TLP the tail waits for the RTO.
    let mut s = TcpSender::new(&rack_cfg(false), Some(10), MSS);
    s.start(0, &mut out);
    for k in 0..8u64 {
        s.on_ack((50 + k) * MS, &sack_ack(k + 1, &[], 0), &mut out);
    }
    assert_eq!(s.next_timer(), s.timers.rto.get());
    assert_eq!(s.timers.probe.get(), None);
}

#[test]
fn the_probe_sends_new_data_when_the_receiver_window_allows_it() {
    // RFC 8985 §7.3: a probe is one new segment if there is unsent data and the receiver
    // window has room for it, otherwise the highest segment sent again. 10 segments sent at
    // 0; the ACK of 0 and 1 at 50 ms sends 10 and 11 (cwnd 10.2), leaving 12 − 2 = 10
    // outstanding. With a receiver window of 12 the probe is segment 12; with one of 10 the
    // window is full, and the probe resends 11.
    for (rwnd, probe) in [(12, Segment { seq: 12, retransmit: false, cwr: false }), (10, Segment { seq: 11, retransmit: true, cwr: false })] {
        let cfg = TcpConfig { rwnd, rcv_wnd_bytes: None, snd_buf_bytes: None, ..rack_cfg(true) };
        let (mut s, mut out) = with_window(&cfg, 10);
        s.on_ack(50 * MS, &sack_ack(2, &[], 0), &mut out);
        assert_eq!(seqs(&out), vec![10, 11]);
        out.clear();
        let pto = s.timers.probe.get().unwrap();
        s.on_timer(pto, &mut out);
        assert_eq!((out, s.stats.tlp_probes), (vec![probe], 1), "receiver window {rwnd}");
    }
}

#[test]
fn no_timer_stays_armed_once_everything_is_acknowledged() {
    // RFC 6298 §5.2 (the RTO off when all data is acknowledged) and RFC 8985 §7.2 (a probe
    // only with data in flight): a 10-segment transfer acknowledged in full leaves the sender
    // no timer at all.
    let mut s = TcpSender::new(&rack_cfg(true), Some(10), MSS);
    let mut out = Vec::new();
    s.start(0, &mut out);
    s.on_ack(50 * MS, &sack_ack(5, &[], 0), &mut out);
    assert!(s.timers.probe.is_set());
    s.on_ack(51 * MS, &sack_ack(10, &[], 0), &mut out);
    assert!(s.is_complete());
    assert_eq!(s.next_timer(), None);
}

#[test]
fn an_ack_without_progress_leaves_the_probe_timeout_where_it_was() {
    // RFC 8985 §7.2: the PTO is (re)started when new data is sent or an ACK cumulatively
    // acknowledges new data. 10 segments sent at 0 with cwnd 10; the ACK of 0 at 50 ms sends
    // segment 10 and arms the PTO. A repeat of that ACK at 60 ms (a window update: no SACK
    // block, so no duplicate in RFC 6675's sense, and the window allows nothing new) is no
    // progress: the deadline stays.
    let (mut s, mut out) = with_window(&rack_cfg(true), 10);
    s.on_ack(50 * MS, &sack_ack(1, &[], 0), &mut out);
    let armed = s.timers.probe.get();
    assert!(armed.is_some_and(|t| t > 50 * MS));
    out.clear();
    s.on_ack(60 * MS, &sack_ack(1, &[], 0), &mut out);
    assert!(out.is_empty() && !s.in_recovery());
    assert_eq!(s.timers.probe.get(), armed);
    // The next ACK of new data restarts it from its own time.
    s.on_ack(70 * MS, &sack_ack(2, &[], 0), &mut out);
    assert!(s.timers.probe.get().is_some_and(|t| t > armed.unwrap()));
}

#[test]
fn pacing_takes_the_slow_start_ratio_only_below_half_ssthresh() {
    // Linux tcp_update_pacing_rate: rate = ratio · max(cwnd, in flight) / srtt, with
    // tcp_pacing_ss_ratio (200 %) while cwnd < ssthresh / 2 and tcp_pacing_ca_ratio (120 %)
    // from there on: at cwnd = ssthresh / 2 exactly, the 120 %.
    let cfg = TcpConfig { pacing: true, ..rack_cfg(true) };
    let (mut s, mut out) = with_window(&cfg, 10);
    s.on_ack(100 * MS, &sack_ack(1, &[], 0), &mut out);
    let ratio = |s: &TcpSender| s.rtt.srtt() / (s.pacing_interval().unwrap() * s.cwnd.max(s.flight() as f64));
    s.ssthresh = 40.0;
    for (cwnd, want) in [(19.5, 2.0), (20.0, 1.2), (20.5, 1.2)] {
        s.cwnd = cwnd;
        assert!((ratio(&s) - want).abs() < 1e-9, "cwnd {cwnd}: {}", ratio(&s));
    }
}

#[test]
fn new_data_sent_on_an_ack_without_progress_restarts_the_probe_timeout() {
    // RFC 8985 §7.2's other trigger: transmitting new data. With pacing, the ACK of 0 and 1
    // at 50 ms (srtt 50 ms) lets two segments go: one at once, the other at the pacing
    // deadline. A window update that arrives at that deadline, before the pacing timer runs,
    // sends it: the PTO then restarts from the update's time.
    let cfg = TcpConfig { pacing: true, ..rack_cfg(true) };
    let (mut s, mut out) = with_window(&cfg, 10);
    s.on_ack(50 * MS, &sack_ack(2, &[], 0), &mut out);
    assert_eq!(seqs(&out), vec![10]);
    let (armed, paced) = (s.timers.probe.get().unwrap(), s.timers.pace.get().unwrap());
    assert!(paced > 50 * MS && paced < armed);
    out.clear();
    s.on_ack(paced, &sack_ack(2, &[], 0), &mut out);
    assert_eq!(seqs(&out), vec![11]);
    assert!(s.timers.probe.get().is_some_and(|t| t > armed), "{:?} against {armed}", s.timers.probe.get());
}

#[test]
fn a_repeated_ack_is_a_duplicate_only_with_data_outstanding_and_new_sack_information() {
    // RFC 5681 §2 DUPLICATE ACKNOWLEDGMENT (a): the sender has outstanding data. A 4-segment
    // transfer without SACK, all acknowledged, then three repeats of that ACK (window
    // updates): no duplicates, no recovery, nothing sent.
    let (mut s, mut out) = started(&newreno(), Some(4), 4, 4);
    s.on_ack(MS, &ack(4), &mut out);
    assert!(s.is_complete());
    for _ in 0..3 {
        s.on_ack(2 * MS, &ack(4), &mut out);
    }
    assert_eq!((out.len(), s.in_recovery(), s.stats.fast_recoveries, s.stats.retransmits), (0, false, 0, 0));
    // RFC 6675 §2: with SACK a duplicate must also SACK data not SACKed before. Three repeats
    // of ACK 0 without blocks, segments 0..10 outstanding: no recovery; three with new
    // blocks: fast retransmission of 0.
    for (blocks, recovers) in [([(0, 0); 3], false), ([(1, 2), (1, 3), (1, 4)], true)] {
        let (mut s, mut out) = with_window(&sack_cfg(false), 10);
        for b in blocks {
            let sack = if b.1 > b.0 { vec![b] } else { vec![] };
            s.on_ack(MS, &sack_ack(0, &sack, 0), &mut out);
        }
        assert_eq!((s.in_recovery(), s.stats.retransmits), (recovers, u64::from(recovers)), "{blocks:?}");
    }
}

#[test]
fn rack_starts_no_recovery_for_losses_below_the_timeouts_recover_point() {
    // RFC 6582 §4 with RACK's trigger (RFC 8985 §6.2 in place of DupThresh): after a timeout
    // with 0..10 outstanding, recover = 10, and losses among data sent before it start no fast
    // recovery. An ACK of 0 SACKing 5..8 right after the timeout: three SACKed (reo_wnd 0),
    // so RACK would find 1..4, sent with them, lost; no recovery.
    let (mut s, mut out) = with_window(&rack_cfg(true), 10);
    let d = s.timers.rto.get().unwrap();
    s.on_timeout(d, &mut out);
    assert_eq!(seqs(&out), vec![0]);
    out.clear();
    s.on_ack(d + MS, &sack_ack(0, &[(5, 8)], 0), &mut out);
    assert_eq!((s.in_recovery(), s.stats.fast_recoveries), (false, 0));
    out.clear();
    // Once snd_una reaches 10 (the resent 0 fills the hole), a new loss starts one: the ACK
    // of 10 sends new segments from 10 on, together; the SACK of the last of them alone arms
    // RACK's reordering timer for 10, sent with it, and when that fires 10 is lost and
    // recovery starts with its fast retransmission.
    s.on_ack(d + 100 * MS, &sack_ack(10, &[], d), &mut out);
    let last = out.last().map_or(0, |g| g.seq);
    assert!(seqs(&out) == (10..=last).collect::<Vec<_>>() && last > 10, "{out:?}");
    out.clear();
    s.on_ack(d + 150 * MS, &sack_ack(10, &[(last, last + 1)], d + 100 * MS), &mut out);
    assert!(!s.in_recovery());
    out.clear();
    let reorder = s.timers.reorder.get().expect("RACK waits out the reordering window");
    s.on_timer(reorder, &mut out);
    assert_eq!((s.in_recovery(), s.stats.fast_recoveries), (true, 1));
    assert_eq!(out[0], Segment { seq: 10, retransmit: true, cwr: false });
}

#[test]
fn rack_skips_a_retransmission_acknowledged_faster_than_the_min_rtt() {
    // RFC 8985 §6.2 step 2: in the lost-retransmission case above, an ACK of the
    // retransmission of 0 sooner than min_RTT after it was sent is taken as the original's
    // (spurious retransmission): it does not move RACK to 103 ms.
    let (mut s, mut out) = with_window(&rack_cfg(true), 10);
    for k in 1..=3u64 {
        s.on_ack((100 + k) * MS, &sack_ack(0, &[(1, 1 + k)], 0), &mut out);
    }
    let r = s.rack.as_ref().unwrap();
    assert_eq!((r.xmit_ts, r.end_seq, r.min_rtt), (0, 4, 101 * MS));
    s.on_ack(110 * MS, &sack_ack(10, &[], 0), &mut out);
    let r = s.rack.as_ref().unwrap();
    assert_eq!((r.xmit_ts, r.end_seq), (0, 10), "the 7 ms sample of the retransmission is skipped");
}

#[test]
fn rack_skips_a_retransmission_whose_ack_echoes_the_original() {
    // RFC 8985 §6.2 step 2: the same retransmission of 0 (sent at 103 ms), acknowledged 147 ms
    // later (more than min_RTT) by an ACK whose TSecr, 0, is older than the retransmission:
    // the original was delivered, so the sample is skipped and RACK keeps segment 9.
    let (mut s, mut out) = with_window(&rack_cfg(true), 10);
    for k in 1..=3u64 {
        s.on_ack((100 + k) * MS, &sack_ack(0, &[(1, 1 + k)], 0), &mut out);
    }
    s.on_ack(250 * MS, &sack_ack(10, &[], 0), &mut out);
    let r = s.rack.as_ref().unwrap();
    assert_eq!((r.xmit_ts, r.end_seq, r.rtt), (0, 10, 250 * MS));
}

#[test]
fn timestamps_sample_every_ack_and_ticks_quantize() {
    let cfg = TcpConfig { timestamps: true, clock_granularity_ns: 10 * MS, ..newreno() };
    let mut s = TcpSender::new(&cfg, None, MSS);
    let mut out = Vec::new();
    s.start(0, &mut out);
    // Sent at 0, acknowledged at 104 ms: 10 ticks of 10 ms = 100 ms; RTO = 100 + 200 = 300.
    s.on_ack(104 * MS, &AckIn { ack: 1, sack: &[], ece: false, ace: 0, echo: 0 }, &mut out);
    assert_eq!(s.rtt.rto(), 300 * MS);
    assert_eq!(s.rtt.srtt(), 100e6);
}


#[test]
fn prr_after_an_ecn_reduction_does_not_count_as_raising_the_window() {
    // Linux-like: Reno with SACK, PRR, reductions from cwnd, classic ECN. Segments 0..20 are
    // in flight with cwnd 20. The ACK of 0 echoes CE: cwnd = ssthresh = 10 while 19 segments
    // are still in flight. Segment 1 is lost; SACKs of 2, 3, 4 start recovery: ssthresh =
    // 10 / 2 = 5 (RFC 6937 §3: RecoverFS = 19, pipe = 19 − 3 SACKed − 1 lost = 15). PRR's
    // proportional part sends ceil(1·5/19) − 0 = 1 segment: cwnd = pipe + 1 = 16, above the
    // window of 10 in force, but only as a count of what is in flight; the window the
    // response sets, 5, is below 10 and the invariant stays at zero.
    let cfg = TcpConfig { cc: "newreno".into(), sack: true, prr: true, reduce_from: ReduceFrom::Cwnd, ecn: EcnMode::Classic, ..TcpConfig::profile("linux").unwrap() };
    let (mut s, mut out) = with_window(&cfg, 20);
    s.on_ack(MS, &AckIn { ack: 1, sack: &[], ece: true, ace: 0, echo: 0 }, &mut out);
    assert_eq!((s.cwnd, s.ssthresh), (10.0, 10.0));
    for k in 2..=4 {
        s.on_ack(2 * MS, &AckIn { ack: 1, sack: &[(2, k + 1)], ece: false, ace: 0, echo: 0 }, &mut out);
    }
    assert!(s.in_recovery());
    assert_eq!(s.ssthresh, 5.0);
    assert!(s.cwnd > 10.0, "PRR's pipe + sndcnt exceeds the old window here: {}", s.cwnd);
    assert_eq!(s.stats.window_raising_responses, 0);
}

/// Linux's TCP with TCP Prague as `resolve` makes it: AccECN, ECT(1), pacing, the Linux variant.
fn prague() -> TcpConfig {
    TcpConfig::resolve("linux", &serde_json::from_str(r#"{"cc": "prague", "rack": false}"#).unwrap()).unwrap()
}

fn accecn(a: u64, ace: u8, echo: Nanos) -> AckIn<'static> {
    AckIn { ack: a, sack: &[], ece: false, ace, echo }
}

#[test]
fn prague_per_ack_trace_with_accecn_counts_and_pacing() {
    // tcp_prague v0.7 with AccECN feedback (RFC 9768: the ACE counter starts at 5), worked by
    // hand from prague_update_cwnd in the order of tcp_ack (see `TcpSender::prague_ack`).
    let mut s = TcpSender::new(&prague(), None, MSS);
    let mut out = Vec::new();
    // IW 10 at t = 0, unpaced: no RTT sample yet (Linux's rate is unbounded without srtt).
    s.start(0, &mut out);
    assert_eq!(out.len(), 10);
    out.clear();
    // 10 ms: 2 segments acknowledged, counter unchanged. Slow start: cwnd 12; srtt = 10 ms.
    // Pacing at 200 % (cwnd < ssthresh/2): 10 ms / (2 · max(12, 8 in flight)) = 416 667 ns. The
    // window lets 4 out; one leaves now, the next waits for the pacing timer.
    s.on_ack(10 * MS, &accecn(2, 5, 0), &mut out);
    assert_eq!((s.cwnd, seqs(&out)), (12.0, vec![10]));
    assert_eq!(s.timers.pace.get(), Some(10 * MS + 416_667));
    out.clear();
    s.on_timer(10 * MS + 416_667, &mut out);
    assert_eq!(seqs(&out), vec![11]);
    out.clear();
    // 11 ms: counter 5 → 6, one segment of the two marked. tcp_enter_cwr: CWR, and
    // prague_enter_cwr reduces by α = 0 (Linux starts α at 0): nothing. prague_update_cwnd:
    // the first mark halves frac_cwnd (12 → 6), but the unmarked segment grows in slow start
    // (ssthresh still infinite): tcp_slow_start takes snd_cwnd, untouched, 12 → 13 and resets
    // frac_cwnd to it. cwnd 13, ssthresh infinite, no reduction. (Before the kernel's order
    // was followed: halved to 6 = ssthresh, nothing grown, nothing sent.) 8 in flight: room
    // for 5; the pacing stamp (10.833 ms) has passed, so one leaves, the next 10 ms /
    // (2 · 13) = 384 615 ns later.
    s.on_ack(11 * MS, &accecn(4, 6, MS), &mut out);
    assert_eq!((s.cwnd, s.ssthresh, s.stats.ecn_reductions), (13.0, f64::INFINITY, 0));
    assert_eq!(seqs(&out), vec![12]);
    assert_eq!(s.timers.pace.get(), Some(11 * MS + 384_615));
    // 12 ms: 2 more, no new mark: slow start on, 15. The CWR phase lasts until snd_max at the
    // echo (12) is passed; it does not stop the growth (prague_update_cwnd ignores the state).
    s.on_ack(12 * MS, &accecn(6, 6, 2 * MS), &mut out);
    assert_eq!(s.cwnd, 15.0);
    // 13 ms: 2 acknowledged, 1 marked (6 → 7). Still in CWR: no reduction; only the unmarked
    // segment grows the window, 16.
    s.on_ack(13 * MS, &accecn(8, 7, 3 * MS), &mut out);
    assert_eq!((s.cwnd, s.stats.ecn_reductions), (16.0, 0));
    // 14 ms: the counter wraps: 7 → 1 is 2 marks (mod 8), both segments of this ACK: no
    // growth. snd_una reaches next_seq (10, snd_nxt when the 10 ms ACK closed the first round):
    // prague_update_alpha, the first since saw_ce, over the round's 8 segments, 4 of them
    // marked: α = 0 + (4/8)/16 = 1/32.
    s.on_ack(14 * MS, &accecn(10, 1, 4 * MS), &mut out);
    assert_eq!(s.cwnd, 16.0);
    let Cc::Prague(p) = &s.cc else { unreachable!() };
    assert_eq!(p.alpha, 1.0 / 32.0);
    // 15 ms: segments 10 to 12, all three marked (1 → 4), pass the CWR phase's end: a new
    // episode, and prague_enter_cwr reduces frac_cwnd by α/2: 16 · (1 − 1/64) = 15.75. Nothing
    // grows, but rounded up that is still snd_cwnd's 16: the adjust step lowers nothing and
    // sets no ssthresh, and the next slow-start ACK resets frac_cwnd. Still slow start.
    s.on_ack(15 * MS, &accecn(13, 4, 5 * MS), &mut out);
    assert_eq!((s.snd_una, s.cwnd, s.ssthresh, s.stats.ecn_reductions), (13, 16.0, f64::INFINITY, 0));
    assert!(matches!(s.ca, CaState::Cwr { .. }));
}

/// Prague as `prague()` makes it, unpaced, sending `payload`-byte segments (1448: a 1500-byte
/// packet, where v0.7's MTU_SYS/mtu factor is 1), with segments 0..w sent at t = 0 and
/// cwnd = ssthresh = w (congestion avoidance: tcp_in_slow_start is cwnd < ssthresh).
fn prague_in_ca(payload: u32, w: u64) -> (TcpSender, Vec<Segment>) {
    let mut s = TcpSender::new(&TcpConfig { pacing: false, ..prague() }, None, payload);
    s.cwnd = w as f64;
    s.ssthresh = w as f64;
    let mut out = Vec::new();
    s.start(0, &mut out);
    assert_eq!(out.len(), w as usize);
    out.clear();
    (s, out)
}

/// A first mark in slow start on an ACK whose segments are all marked: prague_enter_cwr reduces
/// by α = 0, the halving takes frac_cwnd 10 → 5, nothing grows (acked − ece_delta = 0), so the
/// adjust step lowers snd_cwnd below its ssthresh and sets ssthresh: slow start ends. The
/// kernel steps snd_cwnd down one segment per ACK (9, 8, ... 5, ssthresh following); the model
/// goes to 5 at once.
#[test]
fn prague_first_mark_on_a_wholly_marked_ack_ends_slow_start() {
    let mut s = TcpSender::new(&TcpConfig { pacing: false, ..prague() }, None, MSS);
    let mut out = Vec::new();
    s.start(0, &mut out);
    out.clear();
    // 10 ms: segments 0, 1, both marked (ACE 5 → 7).
    s.on_ack(10 * MS, &accecn(2, 7, 0), &mut out);
    assert_eq!((s.cwnd, s.ssthresh, s.stats.ecn_reductions), (5.0, 5.0, 1));
    // The same ACK closes the first round (snd_una 2 ≥ next_seq 0), and prague_new_round
    // reads tcp_in_slow_start as this ACK left the window (at the end of prague_cong_control):
    // out of slow start, so the round counts toward RTT_TRANSITION.
    let Cc::Prague(p) = &s.cc else { unreachable!() };
    assert_eq!(p.round, 1);
}

/// The reduction reads α as it was before this ACK's EWMA update: prague_enter_cwr runs from
/// tcp_fastretrans_alert, before tcp_cong_control → prague_cong_control → prague_update_alpha.
/// Segment 0 acknowledged and CE-marked (ACE 5 → 6) at 10 ms, in congestion avoidance at 10:
/// prague_enter_cwr with α = 0 reduces nothing; prague_update_cwnd halves on the first mark,
/// 10 → 5, and grows nothing (acked − ece_delta = 0); then prague_update_alpha (snd_una 1 ≥
/// next_seq 0) makes α 1/16, too late for this ACK: 5, not 5·(1 − (1/16)/2) = 4.84375.
#[test]
fn prague_reduction_uses_alpha_from_before_the_acks_update() {
    let (mut s, mut out) = prague_in_ca(1448, 10);
    s.on_ack(10 * MS, &accecn(1, 6, 0), &mut out);
    assert_eq!(s.cwnd, 5.0);
    let Cc::Prague(p) = &s.cc else { unreachable!() };
    assert_eq!(p.alpha, 1.0 / 16.0);
}

/// prague_update_cwnd runs on every ACK whatever the CA state: the ACK that brings a reduction
/// still grows by its unmarked segments, after prague_enter_cwr (and here the first-mark
/// halving) has reduced the window.
#[test]
fn prague_reducing_ack_grows_on_its_unmarked_segments() {
    let (mut s, mut out) = prague_in_ca(1448, 10);
    // 10 ms: segment 0, unmarked: 1/10 segment (ONE_CWND << 20 / frac_cwnd, × 1500/1500): 10.1.
    // The round closes at once (next_seq 0): round 1, α stays 0 (no mark yet).
    s.on_ack(10 * MS, &accecn(1, 5, 0), &mut out);
    assert!((s.cwnd - 10.1).abs() < 1e-12, "{}", s.cwnd);
    out.clear();
    // 11 ms: segments 1, 2, one marked (ACE 5 → 6); snd_una 3 < next_seq 10: no α update.
    // prague_enter_cwr with α = 0: nothing; the first mark halves: 5.05; acked − ece_delta = 1
    // grows by 1/5.05 (the increase is divided by frac_cwnd, as reduced).
    s.on_ack(11 * MS, &accecn(3, 6, MS), &mut out);
    let want = 5.05 + 1.0 / 5.05;
    assert!((s.cwnd - want).abs() < 1e-12, "{} vs {want}", s.cwnd);
    assert_eq!((s.ssthresh, s.stats.ecn_reductions), (5.05, 1));
}

/// The same two ACKs with `ecn_cwr = "hold"` (not tcp_prague's own rule): the CWR phase
/// grows nothing, so the reducing ACK leaves the halved 5.05, while the unmarked ACK before it
/// grows as under tcp_prague's rule (10.1).
#[test]
fn prague_with_a_holding_cwr_phase_grows_only_outside_it() {
    let (mut s, mut out) = prague_in_ca(1448, 10);
    s.p.ecn_cwr = EcnCwr::Hold;
    s.on_ack(10 * MS, &accecn(1, 5, 0), &mut out);
    assert!((s.cwnd - 10.1).abs() < 1e-12, "{}", s.cwnd);
    s.on_ack(11 * MS, &accecn(3, 6, MS), &mut out);
    assert!((s.cwnd - 5.05).abs() < 1e-12, "{}", s.cwnd);
    assert_eq!(s.stats.ecn_reductions, 1);
}

/// prague_new_round counts a round only out of slow start, reading tcp_in_slow_start at the end
/// of prague_cong_control, after this ACK's growth. At cwnd 9 below ssthresh 10, the ACK of
/// segments 0 and 1 (unmarked) closes the first round (next_seq 0) and slow start takes cwnd
/// to ssthresh (tcp_slow_start's min(9 + 2, 10)), the rest going to congestion avoidance: the
/// round it closes is the first one counted.
#[test]
fn prague_round_closed_by_the_ack_that_leaves_slow_start_counts() {
    let (mut s, mut out) = prague_in_ca(1448, 9);
    s.ssthresh = 10.0;
    s.on_ack(10 * MS, &accecn(2, 5, 0), &mut out);
    assert!(s.cwnd >= s.ssthresh, "{}", s.cwnd);
    let Cc::Prague(p) = &s.cc else { unreachable!() };
    assert_eq!(p.round, 1);
}

/// tcp_ack runs tcp_fastretrans_alert before prague_cong_control: on the ACK that ends a loss
/// recovery, the first-mark halving of prague_update_cwnd halves the window the recovery's end
/// left, ssthresh (RFC 6675 §5, RFC 6937), not the PRR window the ACK found. Segment 0 of
/// 0..10 lost at cwnd = ssthresh = 10 (congestion avoidance): limited transmit sends 10 and 11
/// on the first two SACKs, the third starts recovery with ssthresh 10 · ½ = 5 (Prague loses
/// like Reno), and PRR's first window is the pipe, 9 (RFC 6937 §3: ⌈1 · 5/10⌉ − 1 = 0 more).
/// Then one ACK of everything, its counter moved by one mark (ACE 5 → 6): recovery ends at
/// cwnd 5, which the first mark halves to 2.5, and ssthresh with it; no CWR phase starts (the
/// echo arrived in recovery, RFC 3168 §6.1.2).
#[test]
fn prague_first_mark_on_the_ack_that_ends_recovery_halves_the_window_after_it() {
    let (mut s, mut out) = prague_in_ca(1448, 10);
    for k in 1..=3 {
        s.on_ack(MS, &AckIn { ack: 0, sack: &[(1, 1 + k)], ece: false, ace: 5, echo: 0 }, &mut out);
    }
    assert_eq!(seqs(&out), vec![10, 11, 0]);
    assert_eq!((s.ssthresh, s.cwnd), (5.0, 9.0));
    s.on_ack(2 * MS, &accecn(12, 6, MS), &mut out);
    assert!(!s.in_recovery());
    assert_eq!((s.cwnd, s.ssthresh), (2.5, 2.5));
    assert_eq!((s.stats.ecn_reductions, s.stats.window_raising_responses), (0, 0));
}

/// v0.7 prague_update_cwnd: `increase = div_u64(increase * MTU_SYS, tcp_mss_to_mtu(sk,
/// tp->mss_cache))`, MTU_SYS = 1500: the additive increase is 1500 bytes per round trip.
/// 1000-byte packets (948 bytes of payload + 52 of headers): 1.5 segments.
#[test]
fn prague_additive_increase_is_mtu_sys_bytes_per_round_trip() {
    let (mut s, mut out) = prague_in_ca(948, 10);
    // 10 ms: 2 unmarked segments, round 1 (< 4: unscaled): 2/10 × 1500/1000 = 0.3 → 10.3.
    s.on_ack(10 * MS, &accecn(2, 5, 0), &mut out);
    assert!((s.cwnd - 10.3).abs() < 1e-12, "{}", s.cwnd);
    // The draft's Prague (and v0.6) adds one segment: 2/10.
    let cfg = TcpConfig { prague: crate::tcp::params::PragueVariant::Draft, pacing: false, ..prague() };
    let (mut s, mut out) = with_window(&cfg, 10);
    s.on_ack(10 * MS, &accecn(2, 5, 0), &mut out);
    assert!((s.cwnd - 10.2).abs() < 1e-12, "{}", s.cwnd);
}

/// prague_enter_cwr and the first-mark halving have no floor: the window may fall below 2
/// (header point 6, "Pacing below minimum congestion window of 2"), while the window that
/// limits the data in flight stays at 2 (prague_frac_cwnd_to_snd_cwnd: MIN_CWND_RTT). A first
/// mark at 3, congestion avoidance, on a wholly marked ACK: 1.5, and 2 segments may be out.
#[test]
fn prague_window_falls_below_two_and_two_segments_stay_in_flight() {
    let (mut s, mut out) = prague_in_ca(1448, 3);
    s.on_ack(10 * MS, &accecn(1, 6, 0), &mut out);
    assert_eq!(s.cwnd, 1.5);
    // 2 in flight (1, 2): the floor of 2 holds segment 3 back. The next ACK, marked too (in
    // CWR: no reduction, no growth), leaves 1.5 and 1 in flight: segment 3 goes.
    assert!(out.is_empty());
    s.on_ack(11 * MS, &accecn(2, 7, MS), &mut out);
    assert_eq!((s.cwnd, seqs(&out)), (1.5, vec![3]));
}

#[test]
fn prague_echo_inside_its_25_ms_starts_cwr_without_reduction_and_delays_the_next() {
    // The mechanism behind Prague's approximate RTT-independence (crates/sim/tests/sim/prague.rs):
    // tcp_enter_cwr enters CWR on every echo, prague_enter_cwr skips the reduction within 25 ms
    // of the last. The draft variant (no first-mark halving), unpaced, R = 10 ms.
    let cfg = TcpConfig { prague: crate::tcp::params::PragueVariant::Draft, pacing: false, ..prague() };
    let (mut s, mut out) = with_window(&cfg, 10);
    // Four whole windows acknowledged without a mark, 10 ms apart: four rounds out of slow start,
    // so the flow is RTT-independent.
    for k in 1..=4 {
        let top = s.snd_max;
        s.on_ack(10 * MS * k, &accecn(top, 5, 10 * MS * (k - 1)), &mut out);
    }
    // 50 ms: a mark (5 → 6) on a whole window: CWR and a reduction.
    let top = s.snd_max;
    s.on_ack(50 * MS, &accecn(top, 6, 40 * MS), &mut out);
    assert_eq!(s.stats.ecn_reductions, 1);
    // 60 ms: the episode is over (the ACK passes snd_max at the reduction); a mark on a partial
    // ACK enters CWR again, until the data now outstanding is acknowledged, but 10 ms < 25 ms:
    // no reduction.
    let until = s.snd_max;
    let w = s.cwnd;
    s.on_ack(60 * MS, &accecn(s.snd_una + 2, 7, 50 * MS), &mut out);
    assert_eq!(s.stats.ecn_reductions, 1);
    assert!(s.cwnd < w + 1.0, "no reduction, and the marked ACK grows little");
    // 76 ms, 26 ms after the reduction: a mark on an ACK inside that second episode is ignored
    // by CWR (RFC 3168 §6.1.2's once per window), although 25 ms have passed.
    s.on_ack(76 * MS, &accecn(until - 1, 0, 60 * MS), &mut out);
    assert_eq!(s.stats.ecn_reductions, 1);
    // 80 ms: the ACK passes the episode's end; its mark reduces.
    s.on_ack(80 * MS, &accecn(until + 1, 1, 70 * MS), &mut out);
    assert_eq!(s.stats.ecn_reductions, 2);
}

#[test]
fn pacing_of_other_controllers_runs_at_120_percent_in_congestion_avoidance() {
    // Linux's tcp_update_pacing_rate: tcp_pacing_ca_ratio = 120 once cwnd ≥ ssthresh/2.
    let cfg = TcpConfig { cc: "newreno".into(), pacing: true, rack: false, ..TcpConfig::profile("linux").unwrap() };
    let (mut s, mut out) = with_window(&cfg, 10);
    // 10 ms: 2 acknowledged (srtt 10 ms), byte counting: cwnd 10.2; 8 in flight, room for 2.
    // The first leaves now; then 9 are in flight and the interval is 10 ms / (1.2 · 10.2) =
    // 816 993.46 ns, so the second waits for the pacing timer.
    s.on_ack(10 * MS, &AckIn { ack: 2, sack: &[], ece: false, ace: 0, echo: 0 }, &mut out);
    assert_eq!(seqs(&out), vec![10]);
    assert_eq!(s.timers.pace.get(), Some(10 * MS + 816_993));
}

/// Segments sent after each of the ACKs 1 to 9 of a window of 10 in the `linux` profile with
/// Reno and classic ECN, ECE on the first, PRR's RecoverFS by `recover_fs`.
fn linux_ecn_reduction_sends(recover_fs: RecoverFs) -> Vec<usize> {
    let cfg = TcpConfig { cc: "reno".into(), hystart: false, ecn: EcnMode::Classic, ecn_cwr: EcnCwr::Prr, prr_recover_fs: recover_fs, ..TcpConfig::profile("linux").unwrap() };
    let (mut s, mut out) = with_window(&cfg, 10);
    let mut sent = Vec::new();
    for a in 1..=9 {
        s.on_ack(a * MS, &AckIn { ack: a, sack: &[], ece: a == 1, ace: 0, echo: 0 }, &mut out);
        sent.push(out.len());
        out.clear();
    }
    assert_eq!(s.ssthresh, 5.0);
    sent
}

#[test]
fn linux_prr_divides_by_the_window_before_the_reduction() {
    // Linux's tcp_enter_cwr → tcp_init_cwnd_reduction keeps prior_cwnd = 10; tcp_reno_ssthresh
    // halves it to 5; tcp_cwnd_reduction sends ⌈5·prr_delivered/10⌉ − prr_out while the flight
    // is above 5. Worked by hand: the echo ACK leaves 9 in flight, delivered 1, 2, 3, … give
    // 1, 0, 1, 0, 1, 0, 1, 0 new segments (the flight 10, 9, 9, 8, 8, 7, 7, 6 after them); at the
    // 9th the flight is 5, not above ssthresh, and PRR-SSRB has ssthresh − flight = 0 to send.
    assert_eq!(linux_ecn_reduction_sends(RecoverFs::Cwnd), [1, 0, 1, 0, 1, 0, 1, 0, 0]);
    // Dividing by the pipe at the echo (9), as ns-3.44 does, sends earlier: ⌈5·2/9⌉ − 1 = 1 at
    // the 2nd ACK, and the segments fall on the even ACKs.
    assert_eq!(linux_ecn_reduction_sends(RecoverFs::Pipe), [1, 1, 0, 1, 0, 1, 0, 1, 0]);
}

#[test]
fn prr_recover_fs_of_a_loss_recovery_follows_the_rule() {
    // All 20 segments of a transfer sent with a window of 30, segment 0 lost, ACKs k = 1, 2, …
    // SACK 1..=k. By hand (RFC 6937 §3): recovery at k = 3, ssthresh 20/2 = 10, the fast
    // retransmit counted in prr_out; at k = 5 prr_delivered is 3 and the pipe 20 − 5 SACKed −
    // 1 lost + 1 resent = 15, so cwnd = 15 + ⌈3·10/RecoverFS⌉ − 1: RecoverFS = FlightSize 20
    // gives 16, the window before the reduction (Linux's prior_cwnd) 30 gives 15.
    for (recover_fs, want) in [(RecoverFs::Flight, 16.0), (RecoverFs::Cwnd, 15.0)] {
        let cfg = TcpConfig { prr_recover_fs: recover_fs, ..sack_cfg(true) };
        let (mut s, mut out) = started(&cfg, Some(20), 30, 20);
        for k in 1..=5u64 {
            s.on_ack(MS * k, &AckIn { ack: 0, sack: &[(1, 1 + k)], ece: false, ace: 0, echo: 0 }, &mut out);
        }
        assert_eq!((s.ssthresh, s.cwnd), (10.0, want), "{recover_fs:?}");
    }
}

/// Segments 0..20 of a 36-segment transfer sent with cwnd 20 in the `ns3` profile without PRR
/// (ns-3's TcpClassicRecovery) and ssthresh = cwnd/2 (TcpLinuxReno), `keep_high_rxt` as given,
/// over a FIFO path: the first copies of 0, 18, 24 and 25 are lost, and each arrival is
/// acknowledged at once (cumulative ACK and every SACKed range). Runs until the cumulative ACK
/// reaches 25 and returns each retransmission as (the arrival whose ACK sent it, the segment),
/// and the pipe after each ACK that ended or started a recovery.
fn two_recoveries(keep_high_rxt: bool) -> (Vec<(u64, u64)>, Vec<u64>) {
    let cfg = TcpConfig { prr: false, reduce_from: ReduceFrom::Cwnd, keep_high_rxt, ..TcpConfig::profile("ns3").unwrap() };
    let (mut s, mut out) = started(&cfg, Some(36), 20, 20);
    let mut path: std::collections::VecDeque<(u64, bool)> = (0..20).map(|q| (q, false)).collect();
    let mut got = std::collections::BTreeSet::new();
    let (mut resent, mut pipes) = (Vec::new(), Vec::new());
    let mut now = 0;
    while s.snd_una < 25 {
        let (q, again) = path.pop_front().expect("the transfer is not over");
        if !again && [0, 18, 24, 25].contains(&q) {
            continue;
        }
        got.insert(q);
        let cum = (0..).find(|k| !got.contains(k)).unwrap();
        let mut sack: Vec<(u64, u64)> = Vec::new();
        for &g in got.range(cum..) {
            match sack.last_mut() {
                Some((_, e)) if *e == g => *e += 1,
                _ => sack.push((g, g + 1)),
            }
        }
        now += MS;
        let phase = |s: &TcpSender| (s.in_recovery(), s.stats.fast_recoveries);
        let before = phase(&s);
        s.on_ack(now, &AckIn { ack: cum, sack: &sack, ece: false, ace: 0, echo: 0 }, &mut out);
        if phase(&s) != before {
            pipes.push(s.pipe());
        }
        resent.extend(out.iter().filter(|g| g.retransmit).map(|g| (q, g.seq)));
        path.extend(out.drain(..).map(|g| (g.seq, g.retransmit)));
    }
    (resent, pipes)
}

#[test]
fn ns3_keeps_a_retransmission_of_the_last_recovery_in_the_next_ones_pipe() {
    // By hand from ns-3.44's TcpSocketBase and TcpTxBuffer: BytesInFlight = sent − SACKed −
    // lost + retransmitted, a segment lost once 3 SACKed segments lie above it, NextSeg rule 1
    // the first lost segment below the highest SACK without the retransmitted flag. The
    // SACKs of 1 and 2 let 20 and 21 out (pipe 19 < cwnd 20); the SACK of 3 marks 0 lost:
    // EnterRecovery, ssthresh = cwnd = 20/2 = 10, RecoveryPoint 22, 0 resent. Each further SACK
    // frees one segment, new ones 22 to 28 from the SACK of 13 on; the SACK of 21 marks 18
    // lost (19, 20, 21 above): 18 is resent with 29, so the ACK of 0's copy (up to 18, whose
    // copy is out) resends nothing. The SACK of 28 marks 24 and 25 lost (26, 27, 28 above):
    // pipe 17 items − 8 SACKed − 3 lost + 1 flagged = 7, so 24, 25 and new 35 go. The ACK of
    // 18's copy (24) ends the recovery; 24 and 25 keep their flags: pipe 12 − 3 − 2 + 2 = 9.
    // The SACK of 29 finds 24 lost (IsLost by its flag): EnterRecovery resends the head 24,
    // ssthresh = cwnd = 5, pipe 12 − 4 − 2 + 2 = 8; later SACKs bring the pipe to 5 (SACK of
    // 32), 4, 3, and the ACK of 24's first copy to 2, but NextSeg has nothing: 24 and 25 are
    // flagged and 35 lies above the highest SACK. Five retransmissions.
    let (resent, pipes) = two_recoveries(true);
    assert_eq!(resent, [(3, 0), (21, 18), (28, 24), (28, 25), (29, 24)]);
    assert_eq!(pipes, [19, 9, 8]);
    // RFC 6675's HighRxt per recovery: 24 and 25 count lost again once the first recovery
    // ends (pipe 12 − 3 − 2 = 7; 7 again after the second's fast retransmission of 24), and 25
    // is resent at the SACK of 32, when the pipe (24, 33, 34, 35) is 4 under cwnd 5, while its
    // first copy is in flight.
    let (resent, pipes) = two_recoveries(false);
    assert_eq!(resent, [(3, 0), (21, 18), (28, 24), (28, 25), (29, 24), (32, 25)]);
    assert_eq!(pipes, [19, 7, 7]);
}

#[test]
fn losses_are_news_once_when_the_dupthresh_boundary_passes_them() {
    // The `linux` profile without RACK (DupThresh 3, RFC 6675 IsLost: a segment is lost once
    // three segments above it are SACKed). 20 in flight, 0 and 5 lost. ACKs SACK 1, 1–2, 1–3:
    // the third starts recovery (0 lost then, not news later). Then SACKs of 4, 6, 7: 5 has two
    // SACKed segments above it, not lost. The SACK of 8 makes it the third: 5 is newly lost on
    // that ACK alone; a SACK of 9 after it finds nothing new.
    let cfg = TcpConfig { rack: false, cc: "reno".into(), hystart: false, ..TcpConfig::profile("linux").unwrap() };
    let (mut s, mut out) = with_window(&cfg, 20);
    for (k, sack) in [[(1, 2), (0, 0)], [(1, 3), (0, 0)], [(1, 4), (0, 0)], [(1, 5), (0, 0)], [(1, 5), (6, 7)], [(1, 5), (6, 8)]].iter().enumerate() {
        let blocks: Vec<(u64, u64)> = sack.iter().copied().filter(|b| b.1 > 0).collect();
        s.on_ack(MS * (k as u64 + 1), &AckIn { ack: 0, sack: &blocks, ece: false, ace: 0, echo: 0 }, &mut out);
    }
    assert!(s.in_recovery());
    assert!(!s.detect_losses(7 * MS), "nothing new since the last ACK");
    s.sb.add(8, 9);
    assert!(s.detect_losses(8 * MS), "the SACK of 8 makes 5 lost");
    s.sb.add(9, 10);
    assert!(!s.detect_losses(9 * MS), "5 was already lost");
}

/// The `linux` profile with Reno and the DupThresh rule (no RACK), without limited transmit.
fn linux_reno_dupthresh() -> TcpConfig {
    TcpConfig { rack: false, cc: "reno".into(), hystart: false, limited_transmit: false, ..TcpConfig::profile("linux").unwrap() }
}

#[test]
fn linux_ssrb_adds_no_segment_on_a_partial_ack_that_finds_new_losses() {
    // Linux's tcp_cwnd_reduction below ssthresh sends max(prr_delivered − prr_out, delivered),
    // one more only on an ACK that advances snd_una and marks nothing newly lost. The `linux`
    // profile with Reno, without RACK or limited transmit: 0..20 sent at cwnd 20, segments 0
    // and 4..=13 lost. By hand (RFC 6675 pipe, RFC 6937 §3):
    // - SACKs of 1, 2, 3: the third starts recovery, ssthresh 10, RecoverFS 20 (the window),
    //   0 resent (prr_out 1); pipe 17 (0 resent, 4..20 not lost), ⌈1·10/20⌉ − 1 = 0: cwnd 17;
    // - SACK of 14: pipe 16, ⌈2·10/20⌉ − 1 = 0; SACK of 15: pipe 15, ⌈3·10/20⌉ − 1 = 1, so
    //   new segment 20 goes (prr_out 2); 13 has only two SACKed segments above it;
    // - the ACK of 0's copy (up to 4) SACKing 16 delivers 2 (0 and 16) and makes 4..=13 lost
    //   at once: pipe 4 (17..=20), below ssthresh; prr_delivered 5: sndcnt = min(10 − 4,
    //   max(5 − 2, 2)) = 3 with no extra segment, cwnd 7, and 4, 5, 6 are resent.
    let (mut s, mut out) = with_window(&linux_reno_dupthresh(), 20);
    let sacks: [&[(u64, u64)]; 5] = [&[(1, 2)], &[(1, 3)], &[(1, 4)], &[(14, 15), (1, 4)], &[(14, 16), (1, 4)]];
    for (k, blocks) in (1..).zip(sacks) {
        s.on_ack(MS * k, &sack_ack(0, blocks, 0), &mut out);
    }
    assert_eq!((s.ssthresh, s.cwnd), (10.0, 16.0));
    assert_eq!(seqs(&out), vec![0, 20]);
    out.clear();
    s.on_ack(6 * MS, &sack_ack(4, &[(14, 17)], 0), &mut out);
    assert_eq!((s.pipe(), s.cwnd), (7, 7.0));
    assert_eq!(seqs(&out), vec![4, 5, 6]);
    assert!(s.cwnd <= 20.0 && s.ssthresh <= 20.0);
}

#[test]
fn linux_ssrb_takes_the_losses_found_at_the_recovery_start_as_old_news() {
    // The segments marked lost when a recovery starts are not news to the ACKs after it, so
    // the first partial ACK still earns Linux's extra segment. 0..20 sent at cwnd 20, 0..=12
    // lost. By hand (RFC 6675 pipe, RFC 6937 §3):
    // - SACKs of 13, 14, 15: the third starts recovery with 0..=12 lost, ssthresh 10,
    //   RecoverFS 20, 0 resent; pipe 5 (0 resent, 16..20), below ssthresh: PRR-SSRB sends
    //   min(10 − 5, max(1 − 1, 1)) = 1 (a duplicate ACK: no extra), 1 is resent (prr_out 2);
    // - the ACK of 0's copy (up to 1) delivers 1, marks nothing newly lost: pipe 5 (1 resent,
    //   16..20), prr_delivered 2: min(5, max(2 − 2, 1) + 1) = 2, cwnd 7: 2 and 3 are resent.
    let (mut s, mut out) = with_window(&linux_reno_dupthresh(), 20);
    for k in 1..=3 {
        s.on_ack(k * MS, &sack_ack(0, &[(13, 13 + k)], 0), &mut out);
    }
    assert_eq!((s.ssthresh, s.cwnd), (10.0, 6.0));
    assert_eq!(seqs(&out), vec![0, 1]);
    out.clear();
    s.on_ack(4 * MS, &sack_ack(1, &[(13, 16)], 0), &mut out);
    assert_eq!(s.cwnd, 7.0);
    assert_eq!(seqs(&out), vec![2, 3]);
}

#[test]
fn an_ack_for_data_never_sent_is_ignored() {
    // RFC 9293 §3.10.7.4: an ACK above SND.NXT acknowledges something not yet sent and is
    // dropped: nothing is acknowledged, the window does not grow, nothing is sent. A valid ACK
    // after it is taken as usual.
    let (mut s, mut out) = with_window(&newreno(), 4);
    s.on_ack(100 * MS, &ack(9), &mut out);
    assert_eq!((s.snd_una, s.cwnd, out.len()), (0, 4.0, 0));
    s.on_ack(100 * MS, &ack(4), &mut out);
    assert_eq!(s.snd_una, 4);
}

#[test]
fn an_ack_gives_the_controller_its_delay_in_seconds() {
    // LEDBAT (RFC 6817 §2.4.2) takes one delay sample per ACK that acknowledges data: now less
    // the echoed send time. A base of 100 ms in the first minute, then four samples of 130 ms a
    // minute later: the queuing delay is 130 − 100 = 30 ms.
    let cfg = TcpConfig { cc: "ledbat".into(), ..newreno() };
    let (mut s, mut out) = with_window(&cfg, 8);
    let at = |k: u64, now: Nanos, delay: Nanos| AckIn { ack: k, sack: &[], ece: false, ace: 0, echo: now - delay };
    s.on_ack(1000 * MS, &at(1, 1000 * MS, 100 * MS), &mut out);
    for k in 2..=5 {
        let now = 61_000 * MS + k * MS;
        s.on_ack(now, &at(k, now, 130 * MS), &mut out);
    }
    let Cc::Ledbat(l) = &s.cc else { panic!("a LEDBAT sender") };
    assert!((l.queuing_delay().unwrap() - 0.030).abs() < 1e-9, "{:?}", l.queuing_delay());
}

#[test]
fn cubic_runs_its_curve_on_seconds() {
    // RFC 9438 §4.2 eq. 1 and §4.4: W_cubic(t) = C·(t − K)³ + W_max with t and K in seconds
    // (C = 0.4), and each ACK in the concave region aims at W_cubic(t + RTT). A CUBIC sender
    // (no HyStart, no RACK) at cwnd ≈ 100 with a 100 ms RTT loses segment 1: fast recovery
    // (W_max = the window then, ssthresh 0.7 of it), left with cwnd = ssthresh. The next ACK
    // starts the epoch (t = 0, Reno-friendly region: W_cubic(0) is the window itself); one
    // 2 s later is in the concave region: cwnd + (W_cubic(2.1) − cwnd)/cwnd.
    let cfg = TcpConfig { hystart: false, rack: false, ..TcpConfig::profile("linux").unwrap() };
    let (mut s, mut out) = with_window(&cfg, 100);
    let rtt = 100 * MS;
    let at = |k: u64, sack: &'static [(u64, u64)], now: Nanos| (now, AckIn { ack: k, sack, ece: false, ace: 0, echo: now - rtt });
    let mut take = |s: &mut TcpSender, (now, a): (Nanos, AckIn)| s.on_ack(now, &a, &mut out);
    take(&mut s, at(1, &[], rtt));
    let w_max = s.cwnd;
    for sack in [&[(2, 3)][..], &[(2, 4)], &[(2, 5)]] {
        take(&mut s, at(1, sack, rtt + MS));
    }
    assert!(s.in_recovery() && s.ssthresh < w_max);
    let end = s.snd_max;
    take(&mut s, at(end, &[], 2 * rtt));
    assert!(!s.in_recovery());
    assert_eq!(s.rtt.srtt(), rtt as f64, "every sample 100 ms");
    let t0 = 3 * rtt;
    take(&mut s, at(end + 1, &[], t0));
    let (w0, w1) = (s.ssthresh, s.cwnd);
    let k = ((w_max - w0) / 0.4).cbrt();
    assert!(w1 > w0 && w1 < w0 + 1.0 / w0, "Reno-friendly first step: {w0} -> {w1}");
    take(&mut s, at(end + 2, &[], t0 + 2000 * MS));
    let target = 0.4 * (2.1 - k).powi(3) + w_max;
    assert!(target > w1 && target < 1.5 * w1, "inside the §4.4 clamp: {target}");
    let want = w1 + (target - w1) / w1;
    assert!((s.cwnd - want).abs() < 1e-9, "cwnd {} against {want} (K = {k} s, W_max {w_max})", s.cwnd);
}

#[test]
fn a_duplicate_ack_gives_no_rtt_or_delay_sample() {
    // RFC 7323 §4.2: an echoed timestamp updates the RTT estimate only on an ACK that
    // advances snd_una; a duplicate's echo may be of an old segment (TS.Recent stays that of
    // the last in-order one). LEDBAT here takes its samples from the same ACKs. One sample
    // of 100 ms (srtt 100 ms, LEDBAT's queuing delay 0), then six SACKed duplicates echoing
    // the time 0 at 700 ms: as samples they would move srtt to 175 ms after the first
    // (7/8·100 + 1/8·700) and fill LEDBAT's 4-sample current filter with 700 ms (queuing
    // delay 600 ms).
    for cc in ["cubic", "ledbat"] {
        let cfg = TcpConfig { cc: cc.into(), ..TcpConfig::profile("linux").unwrap() };
        let (mut s, mut out) = with_window(&cfg, 10);
        s.on_ack(100 * MS, &sack_ack(1, &[], 0), &mut out);
        assert_eq!(s.rtt.srtt(), (100 * MS) as f64);
        for k in 3..9 {
            s.on_ack(700 * MS, &sack_ack(1, &[(2, k)], 0), &mut out);
        }
        assert_eq!((s.snd_una, s.rtt.srtt()), (1, (100 * MS) as f64), "{cc}: no RTT sample from a duplicate");
        if let Cc::Ledbat(l) = &s.cc {
            assert_eq!(l.queuing_delay(), Some(0.0), "no LEDBAT delay sample from a duplicate");
        }
    }
}

#[test]
fn an_ack_dates_the_controllers_delay_sample_in_seconds() {
    // The sample's time picks LEDBAT's base-delay minute (RFC 6817 §2.4.2). A base of 100 ms
    // at 1 s, then 12 samples of 130 ms at 2..13 s: all in minute 0, so the base stays
    // 100 ms and the queuing delay is 30 ms. Dated in another unit, each sample would open a
    // minute of its own, and after BASE_HISTORY (10) of them the 100 ms would be forgotten.
    let cfg = TcpConfig { cc: "ledbat".into(), ..newreno() };
    let (mut s, mut out) = with_window(&cfg, 16);
    let at = |k: u64, now: Nanos, delay: Nanos| AckIn { ack: k, sack: &[], ece: false, ace: 0, echo: now - delay };
    s.on_ack(1000 * MS, &at(1, 1000 * MS, 100 * MS), &mut out);
    for k in 2..=13 {
        s.on_ack(k * 1000 * MS, &at(k, k * 1000 * MS, 130 * MS), &mut out);
    }
    let Cc::Ledbat(l) = &s.cc else { panic!("a LEDBAT sender") };
    assert!((l.queuing_delay().unwrap() - 0.030).abs() < 1e-9, "{:?}", l.queuing_delay());
}
