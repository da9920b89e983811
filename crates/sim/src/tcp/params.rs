//! TCP configuration as the simulator reads it (resolved: the Python front end expands the
//! named profiles `ns2-sack`, `ns3`, `ns3.26` and `linux` into these fields).

use aqm::Nanos;
use serde::{Deserialize, Serialize};

pub use super::cc::{CubicAlpha, DctcpVariant, Growth, ReduceFrom};
pub use super::prague::PragueVariant;
pub use super::recovery::{PrrDelivered, PrrSsrb, RecoverFs};

/// How the receiver echoes congestion marks.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum EcnMode {
    /// Not ECN-capable: data is Not-ECT, so AQMs drop.
    Off,
    /// RFC 3168: ECT(0) data, ECE latched until CWR, one reduction per window.
    Classic,
    /// RFC 8257: ECE echoes each segment's CE exactly.
    Dctcp,
    /// Accurate ECN (RFC 9768): each ACK carries the receiver's count of CE-marked packets
    /// (its 3-bit ACE field), so the sender learns how many of the segments an ACK covers were
    /// marked, whatever the ACK ratio.
    #[serde(rename = "accecn")]
    AccEcn,
}

/// The window during the CWR phase an ECN echo starts (the data outstanding at the echo not yet
/// all acknowledged; see [`super::state::CaState::Cwr`]).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum EcnCwr {
    /// RFC 3168 §6.1.2 as written: cwnd = ssthresh at the echo, and the window grows on the
    /// ACKs that follow.
    #[default]
    Grow,
    /// cwnd = ssthresh at the echo and no growth until the phase ends: ns-3.44's
    /// TcpSocketBase::EnterCwr with TcpClassicRecovery (EnterRecovery sets cwnd = ssthresh;
    /// ProcessAck's CA_CWR branch calls PktsAcked and DoRecovery, never IncreaseWindow).
    Hold,
    /// Proportional Rate Reduction (RFC 6937) over the phase, no growth, cwnd = ssthresh when it
    /// ends: ns-3.44's EnterCwr with TcpPrrRecovery (EnterRecovery with RecoverFS =
    /// BytesInFlight(), DoRecovery on each ACK that advances in CA_CWR, cwnd = ssthresh on the
    /// ACK above m_recover); Linux's tcp_enter_cwr / tcp_cwnd_reduction likewise. Needs `sack`.
    Prr,
}

/// The ECN-capable codepoint a sender's packets carry when ECN is on.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Ect {
    /// ECT(0): classic ECN (RFC 3168); a DualQ AQM puts it in its Classic queue.
    #[default]
    Ect0,
    /// ECT(1): the L4S identifier (RFC 9331 §4.1); a DualQ AQM puts it in its L queue.
    Ect1,
}

impl Ect {
    /// The packet's ECN field.
    pub fn codepoint(self) -> aqm::Ecn {
        match self {
            Ect::Ect0 => aqm::Ecn::Ect0,
            Ect::Ect1 => aqm::Ecn::Ect1,
        }
    }
}

/// How the TCP options count in a packet's size (RFC 793 §3.1: the header is padded to a
/// multiple of 4 bytes; RFC 7323 §3: timestamps 10 bytes; RFC 2018 §3: SACK 2 + 8 per block).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum OptionBytes {
    /// Not counted: every IP+TCP header is 40 bytes, data or ACK, whatever the options (ns-2:
    /// tcpip_base_hdr_size_ = 40; its SACK blocks and timestamps take no bytes).
    Uncounted,
    /// ns-3 (TcpHeader::CalculateHeaderLength): the options one after the other, their total
    /// padded to a multiple of 4: timestamps alone 12, SACK with timestamps 12 + 8 per block.
    Ns3,
    /// Linux (tcp_options_write): each option aligned on 4 bytes by NOPs: timestamps 12, SACK
    /// 4 + 8 per block.
    Linux,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TcpConfig {
    /// Congestion control: "newreno", "cubic", "dctcp", "prague" or "ledbat".
    pub cc: String,
    /// SACK loss recovery (RFC 6675); without it, NewReno (RFC 6582).
    pub sack: bool,
    /// Proportional Rate Reduction during SACK recovery (RFC 6937).
    pub prr: bool,
    /// Limited transmit on the first two duplicate ACKs (RFC 3042).
    pub limited_transmit: bool,
    /// Keep the SACK scoreboard across a retransmission timeout and resend only un-SACKed
    /// segments (Linux; allowed by RFC 6675 §5.1 and its erratum), rather than discarding it
    /// as RFC 2018 §8 suggests and ns-2 does.
    pub keep_sack_on_rto: bool,
    pub growth: Growth,
    pub reduce_from: ReduceFrom,
    /// Initial congestion window, in segments.
    pub initial_cwnd: u32,
    /// Receiver window, in segments (caps the flight size; ns-2's `window_`).
    pub rwnd: u32,
    /// The largest window the receiver advertises, in bytes of payload (None: no bound beyond
    /// `rwnd`). The sender keeps snd_max − snd_una within it. See [`TcpConfig::profile`] for
    /// each profile's value. Absent from older scenario files: none.
    #[serde(default)]
    pub rcv_wnd_bytes: Option<u64>,
    /// The send buffer, in bytes of payload: data sent and not yet acknowledged stays within it
    /// (an application that keeps the buffer full, as bulk senders do). None: no bound.
    /// Absent from older scenario files: none.
    #[serde(default)]
    pub snd_buf_bytes: Option<u64>,
    /// How the TCP options count in packet sizes. Absent from older scenario files: uncounted.
    #[serde(default = "uncounted")]
    pub option_bytes: OptionBytes,
    /// RFC 6298 lower bound on the RTO.
    pub min_rto_ns: Nanos,
    /// RTO before the first RTT sample (RFC 6298 §2.1: 1 s; ns-2: 3 s).
    pub initial_rto_ns: Nanos,
    pub max_rto_ns: Nanos,
    /// Clock granularity G of RFC 6298 §2: RTT samples are measured in ticks of this size
    /// (ns-2's tcpTick_ = 10 ms).
    pub clock_granularity_ns: Nanos,
    /// Duplicate ACKs that trigger fast retransmit (RFC 5681: 3).
    pub dupack_threshold: u32,
    pub ecn: EcnMode,
    /// The codepoint of ECN-capable data: ECT(0), or ECT(1) for L4S (Prague's default, see
    /// [`TcpConfig::resolve`]). Absent from older scenario files: ECT(0).
    #[serde(default)]
    pub ect: Ect,
    /// RTT samples from echoed timestamps on every ACK (RFC 7323) instead of one timed
    /// segment per RTT with Karn's rule.
    pub timestamps: bool,
    /// The receiver acknowledges every n-th in-order segment (1, or 2 for delayed ACKs).
    pub ack_every: u32,
    /// The delayed-ACK timer.
    pub delack_timeout_ns: Nanos,
    /// HyStart, the hybrid slow start Linux's tcp_cubic runs by default (net/ipv4/tcp_cubic.c:
    /// hystart = 1, hystart_detect = 3, i.e. the ACK-train and the delay detectors;
    /// hystart_low_window = 16 segments; hystart_ack_delta 2 ms; 8 RTT samples per round; delay
    /// threshold clamp(min RTT/8, 4 ms, 16 ms)): slow start ends (ssthresh = cwnd) when a
    /// round's ACK train outlasts half the minimum RTT or its RTT rises by the threshold, before
    /// the queue overflows. It is a slow-start exit rule, so it applies to every congestion
    /// control (Reno and DCTCP too, as RFC 9406's HyStart++ does; Linux itself runs it only
    /// inside CUBIC). See [`super::hystart`]. Absent from older scenario files: off.
    #[serde(default)]
    pub hystart: bool,
    /// RACK-TLP loss detection (RFC 8985), Linux's default since 4.18 (net.ipv4.tcp_recovery
    /// = 1): a segment is lost when one sent after it has been delivered and a reordering
    /// window has passed, which replaces the DupThresh rule (RFC 6675 IsLost) and Linux's
    /// older lost-retransmission test; a tail loss probe (§7) at about 2·SRTT replaces the
    /// RTO for a lost tail. Needs `sack`: without SACK the flag has no effect. See
    /// [`super::sender`]. Absent from older scenario files: off.
    #[serde(default)]
    pub rack: bool,
    /// CUBIC's Reno-friendly estimate: "fixed" α (ns-3.44 TcpCubic, Linux tcp_cubic) or
    /// "rfc9438" (α = 1 once past the window of the last reduction, RFC 9438 §4.3); see
    /// [`CubicAlpha`]. Other congestion controls ignore it. Absent from older scenario files:
    /// rfc9438.
    #[serde(default)]
    pub cubic_alpha: CubicAlpha,
    /// Without RACK, find a lost retransmission during SACK recovery when DupThresh segments
    /// sent after it are SACKed, and send it again (Linux's tcp_mark_lost_retrans, 2.6.24 to
    /// 4.17, replaced by RACK), instead of waiting for the retransmission timer as ns-2's Sack1
    /// (its scoreboard retransmits a hole once until a timeout clears it), ns-3
    /// (TcpTxBuffer::NextSeg skips a segment already retransmitted until the timeout resets the
    /// flag) and RFC 6675 (no rule finds a retransmission lost) do. RACK, when on, finds
    /// lost retransmissions its own way (RFC 8985 §2.2). Absent from older scenario files: on,
    /// as the simulator did before it became an option.
    #[serde(default = "yes")]
    pub lost_retransmit: bool,
    /// RFC 6675 §4 NextSeg rule 4: when nothing else may be sent in a SACK recovery, retransmit
    /// the highest un-SACKed segment once per recovery (a lost tail then needs no RTO). Off in
    /// every profile: ns-3.44's TcpTxBuffer::NextSeg leaves the SHOULD out, ns-2's Sack1 has no
    /// such rule, and Linux probes a lost tail with TLP instead (RFC 8985 §7, `rack`). Absent
    /// from older scenario files: off.
    #[serde(default)]
    pub rescue_retransmit: bool,
    /// Keep the retransmitted mark of every segment resent since the last retransmission
    /// timeout across SACK recoveries, as ns-3.44 does: TcpTxBuffer flags each retransmitted
    /// segment (TcpTxItem::m_retrans), NextSeg passes over flagged segments and BytesInFlight
    /// counts them in the pipe, and only a timeout (SetSentListLost) clears the flags, or
    /// EnterRecovery's MarkHeadAsLost the head's. A segment resent in one recovery and still
    /// outstanding when the next starts (one lost above the first recovery's point and
    /// repaired within it) stays in that recovery's pipe and is not resent again: the next
    /// recovery's HighRxt starts at the previous one's. Off: RFC 6675's HighRxt, "the highest
    /// sequence number which has been retransmitted during the current loss recovery phase",
    /// so such a segment counts as lost again and is resent. Only the `ns3` profile has it on.
    /// Absent from older scenario files: off.
    #[serde(default)]
    pub keep_high_rxt: bool,
    /// The window while an ECN reduction's CWR phase lasts; see [`EcnCwr`]. The `ns3` and `linux`
    /// profiles resolve it from `prr` (see [`TcpConfig::resolve`]). Absent from older scenario files:
    /// grow.
    #[serde(default)]
    pub ecn_cwr: EcnCwr,
    /// How PRR (loss recovery with `prr`, ECN reductions with `ecn_cwr = "prr"`) counts the data
    /// each ACK delivered: as RFC 6937 §3 does, or as ns-3.44 does; see [`PrrDelivered`]. The
    /// `ns3` profile has `ns3`, the others `rfc6937`. Absent from older scenario files: rfc6937.
    #[serde(default)]
    pub prr_delivered: PrrDelivered,
    /// PRR's RecoverFS: the FlightSize (RFC 6937 §3), the pipe (ns-3.44) or the window before
    /// the reduction (Linux); see [`RecoverFs`]. The `ns3` profile has `pipe`, `linux` has
    /// `cwnd`, the others `flight`. Absent from older scenario files: flight.
    #[serde(default)]
    pub prr_recover_fs: RecoverFs,
    /// When PRR-SSRB sends one segment more than an ACK delivered: on every ACK (RFC 6937) or
    /// on one that advances snd_una without new losses (Linux); see [`PrrSsrb`]. The `linux`
    /// profile has `linux`, the others `rfc6937`. Absent from older scenario files: rfc6937.
    #[serde(default)]
    pub prr_ssrb: PrrSsrb,
    /// Pace data at ratio·max(cwnd, in flight)/srtt (Linux's internal pacing, EDT: each segment
    /// leaves no earlier than one interval after the previous one); the ratio is 2 in slow start
    /// (cwnd < ssthresh/2) and 1.2 after (tcp_update_pacing_rate), Prague's 2 and 1
    /// (prague_update_pacing_rate). No pacing before the first RTT sample. On by default for
    /// Prague (tcp_prague requests it), off otherwise (Linux paces CUBIC only under the fq
    /// qdisc). Absent from older scenario files: off.
    #[serde(default)]
    pub pacing: bool,
    /// Which TCP Prague (see [`PragueVariant`]); other congestion controls ignore it. Absent
    /// from older scenario files: linux.
    #[serde(default)]
    pub prague: PragueVariant,
    /// Whose DCTCP: where its observation window ends, and its arithmetic (see
    /// [`DctcpVariant`]); other congestion controls ignore it. The `linux` profile has `linux`, `ns3` has `ns3`, the others (ns-2 and
    /// ns-3.26 have no DCTCP of their own) `rfc`. Absent from older scenario files: rfc.
    #[serde(default)]
    pub dctcp: DctcpVariant,
}

fn yes() -> bool {
    true
}

fn uncounted() -> OptionBytes {
    OptionBytes::Uncounted
}

/// Bytes of the IPv4 and TCP headers without options (RFC 791, RFC 793).
pub const BASE_HEADER_BYTES: u32 = 40;

/// Pads a TCP option length to a multiple of 4 (RFC 793 §3.1).
fn padded(n: u32) -> u32 {
    n.div_ceil(4) * 4
}

impl TcpConfig {
    /// IP + TCP header bytes of a data segment: 40, plus the timestamp option where counted
    /// (52 in ns-3 and Linux: a 1000-byte packet carries 948 bytes of payload).
    pub fn data_header_bytes(&self) -> u32 {
        BASE_HEADER_BYTES
            + match self.option_bytes {
                OptionBytes::Uncounted => 0,
                OptionBytes::Ns3 | OptionBytes::Linux => padded(if self.timestamps { 10 } else { 0 }),
            }
    }

    /// IP + TCP header bytes of an ACK carrying `sack_blocks` SACK blocks.
    pub fn ack_bytes(&self, sack_blocks: usize) -> u32 {
        let ts = if self.timestamps { 10 } else { 0 };
        let blocks = sack_blocks as u32;
        BASE_HEADER_BYTES
            + match self.option_bytes {
                OptionBytes::Uncounted => 0,
                OptionBytes::Ns3 => padded(ts + if blocks > 0 { 2 + 8 * blocks } else { 0 }),
                OptionBytes::Linux => padded(ts) + if blocks > 0 { 4 + 8 * blocks } else { 0 },
            }
    }

    /// The most segments of `payload` bytes the sender may have outstanding: `rwnd`, the
    /// receive window and the send buffer, whichever is smallest (at least one).
    pub fn window_segments(&self, payload: u32) -> u64 {
        let bytes = |b: Option<u64>| b.map_or(u64::MAX, |b| b / payload.max(1) as u64);
        (self.rwnd as u64).min(bytes(self.rcv_wnd_bytes)).min(bytes(self.snd_buf_bytes)).max(1)
    }
}

impl TcpConfig {
    pub fn validate(&self) -> Result<(), String> {
        if super::cc::Cc::new(&self.cc).is_none() {
            return Err(format!("cc: unknown congestion control '{}' (accepted: newreno, cubic, dctcp, prague, ledbat)", self.cc));
        }
        if self.initial_cwnd == 0 || self.rwnd == 0 || self.dupack_threshold == 0 || self.ack_every == 0 {
            return Err("initial_cwnd, rwnd, dupack_threshold and ack_every must be >= 1".into());
        }
        if self.min_rto_ns == 0 || self.min_rto_ns > self.max_rto_ns {
            return Err("min_rto_ns: must be in (0, max_rto_ns]".into());
        }
        if self.rcv_wnd_bytes == Some(0) || self.snd_buf_bytes == Some(0) {
            return Err("rcv_wnd_bytes, snd_buf_bytes: must be >= 1 byte (or absent for no bound)".into());
        }
        if self.ecn_cwr == EcnCwr::Prr && !self.sack {
            return Err("ecn_cwr: 'prr' needs sack (PRR counts delivered data from the SACK scoreboard)".into());
        }
        if self.prr && !self.sack {
            return Err("prr: needs sack (PRR counts delivered data from the SACK scoreboard)".into());
        }
        if self.cc == "dctcp" && self.ecn != EcnMode::Dctcp {
            return Err("ecn: DCTCP needs ecn = \"dctcp\" (the exact echo of RFC 8257)".into());
        }
        if self.cc == "prague" && !matches!(self.ecn, EcnMode::Dctcp | EcnMode::AccEcn) {
            return Err("ecn: Prague needs per-segment CE feedback: ecn = \"accecn\" (RFC 9768) or \"dctcp\" (RFC 8257's echo)".into());
        }
        // `hystart` needs no check: every congestion control here has a slow start to end.
        Ok(())
    }
}

const MS: Nanos = 1_000_000;
const S: Nanos = 1_000_000_000;

/// Profile names accepted by [`TcpConfig::profile`].
pub const PROFILES: [&str; 4] = ["ns2-sack", "ns3", "ns3.26", "linux"];

impl TcpConfig {
    /// The TCP a simulator or stack runs, by name (every field can still be overridden).
    ///
    /// - `ns2-sack`: ns-2.35 Agent/TCP/Sack1 with Agent/TCPSink, the TCP of the PIE (HPSR'13)
    ///   and PI (INFOCOM'01) studies: the window (not the flight) is halved, growth per ACK
    ///   without byte counting, tcpTick_ 10 ms, minrto_ 0.2 s, rtxcur_init_ 3 s,
    ///   windowInit_ 2, an ACK for every segment, 40-byte headers whatever the options, a lost
    ///   retransmission left to the RTO, no receive-window bound (see below). Its recovery is
    ///   modelled by the RFC 6675 scoreboard, which ns-2's Sack1 approximates with its own pipe
    ///   counter. Not modelled: ns-2 truncates ssthresh to an integer (TcpAgent::slowdown),
    ///   and with useHeaders_ (its default) adds 40 header bytes to packetSize_: a study's
    ///   "1000-byte packets" may be 1040 bytes on ns-2's wire.
    /// - `ns3`: ns-3.44's TcpSocketBase with TcpNewReno (ns-3's default congestion control is
    ///   TcpCubic since ns-3.34; the AQM studies we follow set NewReno): SACK and PRR, growth
    ///   per ACK, IW 10, MinRto 1 s, DelAckCount 2 with a 200 ms timer, timestamps, limited
    ///   transmit, SACKed data kept across a timeout, ssthresh from BytesInFlight (the SACK
    ///   pipe; from cwnd for TcpCubic and TcpDctcp, see [`TcpConfig::resolve`]), 128 KiB send
    ///   and receive buffers, option bytes as ns-3's TcpHeader counts them, a lost retransmission
    ///   left to the RTO, an ECN reduction through PRR without growth until the window of the
    ///   echo is acknowledged ([`EcnCwr::Prr`]; [`EcnCwr::Hold`] with `prr = false`), PRR's
    ///   delivered data counted as TcpPrrRecovery counts it ([`PrrDelivered::Ns3`]) and its
    ///   RecoverFS the pipe ([`RecoverFs::Pipe`]).
    /// - `ns3.26`: what the PI² paper (WNS3'17) ran: NewReno without SACK, IW 1, MinRto 1 s,
    ///   delayed ACKs 2/200 ms, timestamps, limited transmit, ssthresh from ns-3.26's RFC 4898
    ///   BytesInFlight, 128 KiB buffers.
    /// - `linux`: CUBIC with SACK, PRR, byte counting, β applied to cwnd, IW 10 (RFC 6928),
    ///   RTO_MIN 200 ms, delayed ACKs with the 40 ms minimum ATO, timestamps, SACKed data
    ///   kept across a timeout, HyStart (tcp_cubic's default), RACK-TLP (RFC 8985, the default
    ///   since Linux 4.18), the pre-RACK lost-retransmission test when RACK is off, CUBIC's
    ///   fixed α_cubic, a 3 MiB receive window and a 4 MiB send buffer, option bytes as Linux
    ///   aligns them, an ECN reduction through PRR without growth until the window of the echo
    ///   is acknowledged ([`EcnCwr::Prr`]; Prague reduces at once and keeps `grow`), PRR's
    ///   RecoverFS the window before the reduction ([`RecoverFs::Cwnd`], tcp_init_cwnd_reduction's
    ///   prior_cwnd) and PRR-SSRB's extra segment only on an ACK that advances snd_una and marks
    ///   nothing newly lost ([`PrrSsrb::Linux`], tcp_cwnd_reduction). Not modelled: pacing,
    ///   RACK's adaptive reordering window, receive-buffer autotuning, integer cwnd arithmetic
    ///   (β = 717/1024). HyStart is turned off when another
    ///   congestion control is chosen in this profile without saying `hystart` (Linux's Reno
    ///   and DCTCP have none; see [`TcpConfig::resolve`]).
    ///
    /// HyStart is off in the other three: the NewReno of ns-2 and ns-3 has none. ns-3's own
    /// TcpCubic does run a HyStart by default (with a looser delay bound), so `ns3` with
    /// `cc = "cubic"` imitates it more closely with `hystart = true`.
    ///
    /// RACK-TLP is off in the other three: ns-2 has none, ns-3 only as an option of recent
    /// versions. The rescue retransmission of RFC 6675 is off everywhere (`rescue_retransmit`).
    ///
    /// ECN is off in all of them (ns-2's ecn_ = 0; Linux only accepts it by default).
    pub fn profile(name: &str) -> Option<TcpConfig> {
        let base = TcpConfig {
            cc: "newreno".into(),
            sack: true,
            prr: false,
            limited_transmit: false,
            keep_sack_on_rto: true,
            growth: Growth::PerAck,
            // ns-3 halves BytesInFlight() (see ReduceFrom::Pipe); the others are set below.
            reduce_from: ReduceFrom::Pipe,
            initial_cwnd: 10,
            // No bound in segments; the ns-3 buffers below bound the window in bytes.
            rwnd: 1 << 30,
            // ns-3 TcpSocket RcvBufSize and SndBufSize: 131072 bytes (ns-3.26 and 3.44 alike).
            // The receiver reads at once, so it advertises the whole buffer
            // (TcpSocketBase::AdvertisedWindowSize), with window scaling on by default.
            rcv_wnd_bytes: Some(131_072),
            snd_buf_bytes: Some(131_072),
            option_bytes: OptionBytes::Ns3,
            min_rto_ns: S,
            initial_rto_ns: S,
            max_rto_ns: 60 * S,
            clock_granularity_ns: MS,
            dupack_threshold: 3,
            ecn: EcnMode::Off,
            ect: Ect::Ect0,
            timestamps: true,
            ack_every: 2,
            delack_timeout_ns: 200 * MS,
            hystart: false,
            rack: false,
            cubic_alpha: CubicAlpha::Fixed,
            lost_retransmit: false,
            rescue_retransmit: false,
            keep_high_rxt: false,
            ecn_cwr: EcnCwr::Grow,
            prr_delivered: PrrDelivered::Rfc6937,
            prr_recover_fs: RecoverFs::Flight,
            prr_ssrb: PrrSsrb::Rfc6937,
            pacing: false,
            prague: PragueVariant::Linux,
            dctcp: DctcpVariant::Rfc,
        };
        Some(match name {
            "ns2-sack" => TcpConfig {
                keep_sack_on_rto: false,
                // ns-2's window_ defaults to 20 packets, and every study we reproduce must have
                // raised it: at 20, HPSR'13 Fig. 4's five flows would offer at most 100 packets
                // per 100 ms round trip, below the 125-packet BDP of its 10 Mb/s link, where the
                // paper shows the queue held at its 20 ms target. So no bound here; `rwnd = 20`
                // gives ns-2's default. ns-2 has no send buffer (the application is infinite).
                rcv_wnd_bytes: None,
                snd_buf_bytes: None,
                option_bytes: OptionBytes::Uncounted,
                reduce_from: ReduceFrom::Cwnd,
                initial_cwnd: 2,
                min_rto_ns: 200 * MS,
                initial_rto_ns: 3 * S,
                clock_granularity_ns: 10 * MS,
                timestamps: false,
                ack_every: 1,
                delack_timeout_ns: 100 * MS,
                ..base
            },
            "ns3" => TcpConfig {
                prr: true,
                limited_transmit: true,
                prr_delivered: PrrDelivered::Ns3,
                prr_recover_fs: RecoverFs::Pipe,
                keep_high_rxt: true,
                dctcp: DctcpVariant::Ns3,
                ..base
            },
            "ns3.26" => TcpConfig { sack: false, initial_cwnd: 1, limited_transmit: true, ..base },
            "linux" => TcpConfig {
                cc: "cubic".into(),
                prr: true,
                prr_recover_fs: RecoverFs::Cwnd,
                prr_ssrb: PrrSsrb::Linux,
                dctcp: DctcpVariant::Linux,
                limited_transmit: true,
                growth: Growth::ByteCounting,
                reduce_from: ReduceFrom::Cwnd,
                min_rto_ns: 200 * MS,
                max_rto_ns: 120 * S,
                delack_timeout_ns: 40 * MS,
                hystart: true,
                rack: true,
                lost_retransmit: true,
                // tcp_rmem[2] = 6 MiB with tcp_adv_win_scale = 1 (both since Linux 3.4, commit
                // b49960a05e32): half the buffer is window; tcp_wmem[2] = 4 MiB. Receive-buffer
                // autotuning (tcp_moderate_rcvbuf) is not modelled: the window is its ceiling.
                rcv_wnd_bytes: Some(3 << 20),
                snd_buf_bytes: Some(4 << 20),
                option_bytes: OptionBytes::Linux,
                ..base
            },
            _ => return None,
        })
    }

    /// A profile with `overrides` (a JSON object of fields) applied, then the profile's
    /// defaults that depend on another field, for the fields the overrides leave out:
    /// - ns-3's TcpCubic and TcpDctcp (via TcpLinuxReno) compute ssthresh from cwnd, ignoring
    ///   the bytes in flight TcpSocketBase passes (TcpCubic::GetSsThresh,
    ///   TcpLinuxReno::GetSsThresh): `reduce_from = "cwnd"` in the ns-3 profiles unless the
    ///   congestion control is NewReno;
    /// - they also count the segments an ACK acknowledges (TcpCubic::IncreaseWindow grows slow
    ///   start by segmentsAcked and adds segmentsAcked to m_cWndCnt; TcpLinuxReno::SlowStart
    ///   and CongestionAvoidance likewise), where TcpNewReno grows per ACK: `growth =
    ///   "byte_counting"` in the ns-3 profiles unless the congestion control is NewReno (found
    ///   by `aqmlab xval`: with `per_ack`, a CUBIC flow's cycles were 14 % longer than ns-3's);
    /// - Linux runs HyStart inside tcp_cubic only: its Reno and DCTCP have none;
    /// - Linux and ns-3 hand an ECN reduction to the loss-recovery machinery: `ecn_cwr = "prr"`
    ///   with PRR (`"hold"` without), except tcp_prague, whose own cong_control replaces it;
    /// - Prague sends ECT(1) (RFC 9331 §4.1), reads Accurate ECN feedback (`ecn = "accecn"`;
    ///   tcp_prague needs AccECN) and paces.
    ///
    /// Returns the validated configuration, or an error naming the field.
    pub fn resolve(profile: &str, overrides: &serde_json::Map<String, serde_json::Value>) -> Result<TcpConfig, String> {
        let base = TcpConfig::profile(profile)
            .ok_or_else(|| format!("profile: unknown TCP profile '{profile}' (accepted: {})", PROFILES.join(", ")))?;
        let mut v = serde_json::to_value(&base).map_err(|e| e.to_string())?;
        let obj = v.as_object_mut().expect("TcpConfig is an object");
        for (k, val) in overrides {
            if !obj.contains_key(k) {
                return Err(format!("{k}: unknown TCP setting (accepted: {})", obj.keys().cloned().collect::<Vec<_>>().join(", ")));
            }
            obj.insert(k.clone(), val.clone());
        }
        let mut cfg: TcpConfig = serde_json::from_value(v).map_err(|e| e.to_string())?;
        let given = |k: &str| overrides.contains_key(k);
        if profile.starts_with("ns3") && cfg.cc != "newreno" && !given("reduce_from") {
            cfg.reduce_from = ReduceFrom::Cwnd;
        }
        if profile.starts_with("ns3") && cfg.cc != "newreno" && !given("growth") {
            cfg.growth = Growth::ByteCounting;
        }
        if profile == "ns3" && !given("ecn_cwr") {
            // EnterCwr hands the reduction to the recovery algorithm ns-3 runs for losses.
            cfg.ecn_cwr = if cfg.prr { EcnCwr::Prr } else { EcnCwr::Hold };
        }
        if profile == "linux" && cfg.cc != "prague" && !given("ecn_cwr") {
            // tcp_enter_cwr starts a reduction (tcp_init_cwnd_reduction) and tcp_cong_control
            // calls tcp_cwnd_reduction instead of cong_avoid while it lasts: PRR, no growth.
            // tcp_prague brings its own cong_control, which tcp_cong_control then calls instead,
            // so its immediate reduction keeps `grow`. With prr or sack off the rule of PRR's
            // absence is ns-3's, `hold`.
            cfg.ecn_cwr = if cfg.prr && cfg.sack { EcnCwr::Prr } else { EcnCwr::Hold };
        }
        if profile == "linux" && cfg.cc != "cubic" && !given("hystart") {
            cfg.hystart = false;
        }
        if cfg.cc == "prague" {
            if !given("ect") {
                cfg.ect = Ect::Ect1;
            }
            if !given("ecn") {
                cfg.ecn = EcnMode::AccEcn;
            }
            if !given("pacing") {
                cfg.pacing = true;
            }
        }
        cfg.validate()?;
        Ok(cfg)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn profiles_are_valid_and_distinct() {
        let all: Vec<TcpConfig> = PROFILES.iter().map(|p| TcpConfig::profile(p).unwrap()).collect();
        for c in &all {
            c.validate().unwrap();
        }
        let ns2 = &all[0];
        assert_eq!((ns2.initial_cwnd, ns2.min_rto_ns, ns2.clock_granularity_ns, ns2.ack_every), (2, 200 * MS, 10 * MS, 1));
        assert!(!all[2].sack);
        assert_eq!(all[3].cc, "cubic");
        assert_eq!(all.iter().map(|c| c.hystart).collect::<Vec<_>>(), vec![false, false, false, true]);
        assert_eq!(all.iter().map(|c| c.rack).collect::<Vec<_>>(), vec![false, false, false, true]);
        // ns-3.44's TcpCubic and Linux's tcp_cubic keep α_cubic (CubicAlpha::Fixed).
        assert!(all.iter().all(|c| c.cubic_alpha == CubicAlpha::Fixed));
        assert_eq!(all.iter().map(|c| c.lost_retransmit).collect::<Vec<_>>(), vec![false, false, false, true]);
        // ns-3.44's TcpPrrRecovery counts PRR's deliveries its own way; the others follow RFC 6937.
        let rule = |c: &TcpConfig| c.prr_delivered;
        assert_eq!(all.iter().map(rule).collect::<Vec<_>>(), [PrrDelivered::Rfc6937, PrrDelivered::Ns3, PrrDelivered::Rfc6937, PrrDelivered::Rfc6937]);
        let fs = |c: &TcpConfig| c.prr_recover_fs;
        assert_eq!(all.iter().map(fs).collect::<Vec<_>>(), [RecoverFs::Flight, RecoverFs::Pipe, RecoverFs::Flight, RecoverFs::Cwnd]);
        let ssrb = |c: &TcpConfig| c.prr_ssrb;
        assert_eq!(all.iter().map(ssrb).collect::<Vec<_>>(), [PrrSsrb::Rfc6937, PrrSsrb::Rfc6937, PrrSsrb::Rfc6937, PrrSsrb::Linux]);
        // ns-3.44's TcpTxBuffer keeps its retransmitted flags until a timeout.
        assert_eq!(all.iter().map(|c| c.keep_high_rxt).collect::<Vec<_>>(), [false, true, false, false]);
        // DCTCP's window ends as each stack's own DCTCP ends it; ns-2 and ns-3.26 have none.
        let dw = |c: &TcpConfig| c.dctcp;
        assert_eq!(all.iter().map(dw).collect::<Vec<_>>(), [DctcpVariant::Rfc, DctcpVariant::Ns3, DctcpVariant::Rfc, DctcpVariant::Linux]);
        assert!(TcpConfig::profile("bsd").is_none());
    }

    #[test]
    fn header_and_ack_sizes_count_the_options_as_each_stack_lays_them_out() {
        // RFC 7323 §3 timestamps: 10 bytes; RFC 2018 §3 SACK: 2 + 8 per block; RFC 793 §3.1:
        // the header is a whole number of 32-bit words.
        let [ns2, ns3, _, linux] = PROFILES.map(|p| TcpConfig::profile(p).unwrap());
        // ns-2 counts no option bytes.
        assert_eq!((ns2.data_header_bytes(), ns2.ack_bytes(0), ns2.ack_bytes(3)), (40, 40, 40));
        // ns-3: 40 + 10 padded to 52 (a 1000-byte packet carries 948 bytes); ACKs 40 + (10 + 2 +
        // 8n padded): 60, 68, 76 with 1, 2, 3 blocks.
        assert_eq!(ns3.data_header_bytes(), 52);
        assert_eq!((0..=3).map(|n| ns3.ack_bytes(n)).collect::<Vec<_>>(), vec![52, 60, 68, 76]);
        // Without timestamps ns-3 pads 2 + 8n alone: 52, 60 with 1, 2 blocks; data 40.
        let no_ts = TcpConfig { timestamps: false, ..ns3 };
        assert_eq!((no_ts.data_header_bytes(), no_ts.ack_bytes(1), no_ts.ack_bytes(2)), (40, 52, 60));
        // Linux: NOP, NOP, timestamps (12); NOP, NOP, SACK (4 + 8n): 64, 72, 80.
        assert_eq!(linux.data_header_bytes(), 52);
        assert_eq!((0..=3).map(|n| linux.ack_bytes(n)).collect::<Vec<_>>(), vec![52, 64, 72, 80]);
    }

    #[test]
    fn windows_in_bytes_become_whole_segments() {
        let [ns2, ns3, ns326, linux] = PROFILES.map(|p| TcpConfig::profile(p).unwrap());
        // ns-3: 131072-byte buffers over 948-byte segments hold 138 of them (ns-3.26 alike).
        assert_eq!((ns3.window_segments(948), ns326.window_segments(948)), (138, 138));
        // Linux: the 3 MiB window (6 MiB tcp_rmem[2], half of it window) over 1448-byte
        // segments: 2172; the 4 MiB send buffer does not bind first.
        assert_eq!(linux.window_segments(1448), 3_145_728 / 1448);
        // ns-2: window_ alone, unbounded unless set.
        assert_eq!((ns2.window_segments(960), TcpConfig { rwnd: 20, ..ns2 }.window_segments(960)), (1 << 30, 20));
        // The smallest bound wins, and a window below one segment still lets one out.
        let small = TcpConfig { snd_buf_bytes: Some(10_000), ..TcpConfig::profile("ns3").unwrap() };
        assert_eq!((small.window_segments(948), TcpConfig { rcv_wnd_bytes: Some(100), ..small }.window_segments(948)), (10, 1));
    }

    #[test]
    fn resolve_applies_overrides_then_the_defaults_that_depend_on_them() {
        let r = |profile: &str, json: &str| TcpConfig::resolve(profile, &serde_json::from_str(json).unwrap());
        // ns-3: TcpNewReno halves BytesInFlight; TcpCubic and TcpDctcp use cwnd.
        assert_eq!(r("ns3", "{}").unwrap().reduce_from, ReduceFrom::Pipe);
        assert_eq!(r("ns3", r#"{"cc": "cubic"}"#).unwrap().reduce_from, ReduceFrom::Cwnd);
        assert_eq!(r("ns3", r#"{"cc": "cubic", "reduce_from": "flight"}"#).unwrap().reduce_from, ReduceFrom::Flight);
        assert_eq!(r("ns3", "{}").unwrap().growth, Growth::PerAck);
        assert_eq!(r("ns3", r#"{"cc": "dctcp", "ecn": "dctcp"}"#).unwrap().growth, Growth::ByteCounting);
        assert_eq!(r("ns3", r#"{"cc": "cubic", "growth": "per_ack"}"#).unwrap().growth, Growth::PerAck);
        assert_eq!(r("ns3.26", "{}").unwrap().reduce_from, ReduceFrom::Pipe);
        assert_eq!((r("ns2-sack", "{}").unwrap().reduce_from, r("linux", "{}").unwrap().reduce_from), (ReduceFrom::Cwnd, ReduceFrom::Cwnd));
        // Linux: HyStart lives in tcp_cubic only.
        assert!(!r("linux", r#"{"cc": "newreno"}"#).unwrap().hystart);
        assert!(r("linux", r#"{"cc": "newreno", "hystart": true}"#).unwrap().hystart);
        // ns-3: the ECN reduction runs the recovery algorithm of losses (EnterCwr).
        assert_eq!(r("ns3", "{}").unwrap().ecn_cwr, EcnCwr::Prr);
        assert_eq!(r("ns3", r#"{"prr": false}"#).unwrap().ecn_cwr, EcnCwr::Hold);
        assert_eq!(r("ns3", r#"{"prr": false, "ecn_cwr": "grow"}"#).unwrap().ecn_cwr, EcnCwr::Grow);
        assert_eq!(r("linux", "{}").unwrap().ecn_cwr, EcnCwr::Prr);
        assert_eq!(r("linux", r#"{"cc": "dctcp", "ecn": "dctcp"}"#).unwrap().ecn_cwr, EcnCwr::Prr);
        assert_eq!(r("linux", r#"{"sack": false, "prr": false}"#).unwrap().ecn_cwr, EcnCwr::Hold);
        assert_eq!(r("linux", r#"{"cc": "prague"}"#).unwrap().ecn_cwr, EcnCwr::Grow);
        assert!(r("ns3", r#"{"sack": false, "prr": false, "ecn_cwr": "prr"}"#).unwrap_err().starts_with("ecn_cwr:"));
        assert!(r("bsd", "{}").unwrap_err().starts_with("profile: unknown TCP profile 'bsd'"));
        assert!(r("ns3", r#"{"window": 3}"#).unwrap_err().starts_with("window: unknown TCP setting"));
        // Prague: ECT(1), AccECN and pacing unless told otherwise; classic ECN is refused.
        let p = r("linux", r#"{"cc": "prague"}"#).unwrap();
        assert_eq!((p.ect, p.ecn, p.hystart, p.pacing), (Ect::Ect1, EcnMode::AccEcn, false, true));
        assert_eq!(r("linux", r#"{"cc": "prague", "ecn": "dctcp", "pacing": false}"#).map(|c| (c.ecn, c.pacing)), Ok((EcnMode::Dctcp, false)));
        assert_eq!(r("linux", r#"{"cc": "prague", "ect": "ect0"}"#).unwrap().ect, Ect::Ect0);
        assert!(r("linux", r#"{"cc": "prague", "ecn": "classic"}"#).unwrap_err().starts_with("ecn: Prague needs"));
    }

    #[test]
    fn hystart_defaults_to_off_when_absent() {
        // Resolved configurations written before the field existed still load, with it off.
        let mut v = serde_json::to_value(TcpConfig::profile("linux").unwrap()).unwrap();
        v.as_object_mut().unwrap().remove("hystart");
        v.as_object_mut().unwrap().remove("rack");
        v.as_object_mut().unwrap().remove("cubic_alpha");
        v.as_object_mut().unwrap().remove("lost_retransmit");
        for k in ["rcv_wnd_bytes", "snd_buf_bytes", "option_bytes", "rescue_retransmit", "prr_delivered", "prr_recover_fs", "prr_ssrb", "keep_high_rxt"] {
            v.as_object_mut().unwrap().remove(k);
        }
        let c: TcpConfig = serde_json::from_value(v).unwrap();
        assert!(!c.hystart);
        assert!(!c.rack);
        assert_eq!(c.cubic_alpha, CubicAlpha::Rfc9438);
        assert!(c.lost_retransmit);
        assert_eq!((c.rcv_wnd_bytes, c.snd_buf_bytes, c.option_bytes, c.rescue_retransmit), (None, None, OptionBytes::Uncounted, false));
        assert_eq!((c.prr_delivered, c.prr_recover_fs, c.prr_ssrb, c.keep_high_rxt), (PrrDelivered::Rfc6937, RecoverFs::Flight, PrrSsrb::Rfc6937, false));
        c.validate().unwrap();
    }
}
