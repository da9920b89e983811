//! TCP configuration as the simulator reads it (resolved: the Python front end expands the
//! named profiles `ns2-sack`, `ns3`, `ns3.26` and `linux` into these fields).

use aqm::Nanos;
use serde::{Deserialize, Serialize};

pub use super::cc::{Growth, ReduceFrom};

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
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TcpConfig {
    /// Congestion control: "newreno", "cubic" or "dctcp".
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
}

impl TcpConfig {
    pub fn validate(&self) -> Result<(), String> {
        if super::cc::Cc::new(&self.cc).is_none() {
            return Err(format!("cc: unknown congestion control '{}' (accepted: newreno, cubic, dctcp)", self.cc));
        }
        if self.initial_cwnd == 0 || self.rwnd == 0 || self.dupack_threshold == 0 || self.ack_every == 0 {
            return Err("initial_cwnd, rwnd, dupack_threshold and ack_every must be >= 1".into());
        }
        if self.min_rto_ns == 0 || self.min_rto_ns > self.max_rto_ns {
            return Err("min_rto_ns: must be in (0, max_rto_ns]".into());
        }
        if self.prr && !self.sack {
            return Err("prr: needs sack (PRR counts delivered data from the SACK scoreboard)".into());
        }
        if self.cc == "dctcp" && self.ecn != EcnMode::Dctcp {
            return Err("ecn: DCTCP needs ecn = \"dctcp\" (the exact echo of RFC 8257)".into());
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
    ///   windowInit_ 2, an ACK for every segment. Its recovery is modelled by the RFC 6675
    ///   scoreboard, which ns-2's Sack1 approximates with its own pipe counter.
    /// - `ns3`: today's ns-3 TcpSocketBase: NewReno with SACK and PRR, growth per ACK,
    ///   IW 10, MinRto 1 s, DelAckCount 2 with a 200 ms timer, timestamps, limited transmit,
    ///   SACKed data kept across a timeout.
    /// - `ns3.26`: what the PI² paper (WNS3'17) ran: NewReno without SACK, IW 1, MinRto 1 s,
    ///   delayed ACKs 2/200 ms, timestamps, limited transmit.
    /// - `linux`: CUBIC with SACK, PRR, byte counting, β applied to cwnd, IW 10 (RFC 6928),
    ///   RTO_MIN 200 ms, delayed ACKs with the 40 ms minimum ATO, timestamps, SACKed data
    ///   kept across a timeout, HyStart (tcp_cubic's default), RACK-TLP (RFC 8985, the default
    ///   since Linux 4.18). Not modelled: pacing, RACK's adaptive reordering window.
    ///   The scenario front end turns HyStart off when another congestion control is chosen in
    ///   this profile without saying `hystart` (Linux's Reno and DCTCP have none).
    ///
    /// HyStart is off in the other three: the NewReno of ns-2 and ns-3 has none. ns-3's own
    /// TcpCubic does run a HyStart by default (with a looser delay bound), so `ns3` with
    /// `cc = "cubic"` imitates it more closely with `hystart = true`.
    ///
    /// RACK-TLP is off in the other three: ns-2 has none, ns-3 only as an option of recent
    /// versions.
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
            reduce_from: ReduceFrom::Flight,
            initial_cwnd: 10,
            // Large enough never to bind unless asked (ns-2's window_ = 20 is an option).
            rwnd: 1 << 30,
            min_rto_ns: S,
            initial_rto_ns: S,
            max_rto_ns: 60 * S,
            clock_granularity_ns: MS,
            dupack_threshold: 3,
            ecn: EcnMode::Off,
            timestamps: true,
            ack_every: 2,
            delack_timeout_ns: 200 * MS,
            hystart: false,
            rack: false,
        };
        Some(match name {
            "ns2-sack" => TcpConfig {
                keep_sack_on_rto: false,
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
            "ns3" => TcpConfig { prr: true, limited_transmit: true, ..base },
            "ns3.26" => TcpConfig { sack: false, initial_cwnd: 1, limited_transmit: true, ..base },
            "linux" => TcpConfig {
                cc: "cubic".into(),
                prr: true,
                limited_transmit: true,
                growth: Growth::ByteCounting,
                reduce_from: ReduceFrom::Cwnd,
                min_rto_ns: 200 * MS,
                max_rto_ns: 120 * S,
                delack_timeout_ns: 40 * MS,
                hystart: true,
                rack: true,
                ..base
            },
            _ => return None,
        })
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
        assert_eq!(all[2].sack, false);
        assert_eq!(all[3].cc, "cubic");
        assert_eq!(all.iter().map(|c| c.hystart).collect::<Vec<_>>(), vec![false, false, false, true]);
        assert_eq!(all.iter().map(|c| c.rack).collect::<Vec<_>>(), vec![false, false, false, true]);
        assert!(TcpConfig::profile("bsd").is_none());
    }

    #[test]
    fn hystart_defaults_to_off_when_absent() {
        // Resolved configurations written before the field existed still load, with it off.
        let mut v = serde_json::to_value(TcpConfig::profile("linux").unwrap()).unwrap();
        v.as_object_mut().unwrap().remove("hystart");
        v.as_object_mut().unwrap().remove("rack");
        let c: TcpConfig = serde_json::from_value(v).unwrap();
        assert!(!c.hystart);
        assert!(!c.rack);
        c.validate().unwrap();
    }
}
