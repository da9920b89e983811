//! Packet captures in the libpcap format, for Wireshark, tshark and tcptrace.
//!
//! The simulator's packets carry no bytes, only what protocols and queues read; a capture
//! writes each one out as the frame a real host would have sent: Ethernet (link type 1),
//! IPv4 with the DSCP and ECN bits the packet holds (CE marks included), then TCP with byte
//! sequence and acknowledgement numbers derived from the segment numbers, CWR/ECE, the
//! RFC 7323 timestamp option and up to three SACK blocks (RFC 2018), or UDP with the
//! datagram's number in its first payload bytes. Payload bytes are zeros. A capture point is
//! a link's input (every packet offered to it, before impairment and discipline: what the
//! senders put on the wire) or its output (packets as they start transmission, after drops
//! and marks: tcpdump on the router's egress interface).
//!
//! Format (the file header, then per packet a 16-byte record header and the first `snaplen`
//! bytes of the frame), nanosecond-resolution variant: magic 0xa1b23c4d, version 2.4, as
//! documented in the pcap-savefile(5) manual page and IETF draft-ietf-opsawg-pcap.
//!
//! Addresses: flow f's sender is 10.(1 + f/65536).(f/256 % 256).(f % 256) and its receiver
//! the same with 128 added to the second byte; each connection of a flow (one per transfer)
//! uses source port 32768 + conn % 28232, so Wireshark sees a new stream for each; TCP's
//! destination port is 5201, UDP's 5202. Byte numbers start at 1 for the first payload byte
//! (an initial sequence number of 0, as if the SYN had been sent).

use aqm::Nanos;

use crate::config::TraceConfig;
use crate::flow::Flow;
use crate::net::{Kind, LinkId, Packet};
use crate::tcp::receiver::MAX_SACK_BLOCKS;

/// Capture points by the name a scenario gives them: (name, link, point).
pub const POINTS: [(&str, LinkId, Point); 3] =
    [("bottleneck", 0, Point::Output), ("bottleneck_in", 0, Point::Input), ("reverse", 1, Point::Output)];

const LINKTYPE_ETHERNET: u32 = 1;
const MAGIC_NANOSECONDS: u32 = 0xa1b2_3c4d;
const ETH_LEN: usize = 14;
const IP_LEN: usize = 20;
const TCP_LEN: usize = 20;
const UDP_LEN: usize = 8;
pub const TCP_PORT: u16 = 5201;
pub const UDP_PORT: u16 = 5202;
/// Accepted snap lengths: room for the longest headers (94 bytes with 3 SACK blocks would be
/// cut at 64, which still holds the IPv4 header and the TCP ports, sequence and flags) up to
/// libpcap's own maximum.
pub const MIN_SNAPLEN: u32 = 64;
pub const MAX_SNAPLEN: u32 = 262_144;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Point {
    /// Offered to the link, before impairment and discipline.
    Input,
    /// Leaving the discipline, at the start of transmission.
    Output,
}

/// One capture point and its file, built in memory.
pub struct Capture {
    pub name: &'static str,
    link: LinkId,
    point: Point,
    /// Packets seen inside the time window (for the every-n sampling).
    seen: u64,
    pub packets: u64,
    pub bytes: Vec<u8>,
}

/// Every capture of a run, with the shared snap length, time window and sampling.
pub struct Pcap {
    pub captures: Vec<Capture>,
    snaplen: u32,
    window: (Nanos, Nanos),
    every: u64,
    /// Scratch frame, reused for every packet.
    frame: Vec<u8>,
}

impl Pcap {
    /// The captures `cfg` asks for; None when it asks for none (no cost on the packet path).
    pub fn new(cfg: &TraceConfig) -> Option<Pcap> {
        if cfg.pcap.is_empty() {
            return None;
        }
        let captures = cfg
            .pcap
            .iter()
            .map(|name| {
                let &(name, link, point) = POINTS.iter().find(|p| p.0 == name).expect("validated capture point");
                Capture { name, link, point, seen: 0, packets: 0, bytes: file_header(cfg.pcap_snaplen) }
            })
            .collect();
        let window = cfg.pcap_window_ns.map_or((0, Nanos::MAX), |[a, b]| (a, b));
        Some(Pcap { captures, snaplen: cfg.pcap_snaplen, window, every: cfg.pcap_every as u64, frame: Vec::with_capacity(128) })
    }

    /// Checks the capture fields (names, snap length, window, sampling), naming the field.
    pub fn validate(cfg: &TraceConfig) -> Result<(), String> {
        for (i, name) in cfg.pcap.iter().enumerate() {
            if !POINTS.iter().any(|p| p.0 == name) {
                let names: Vec<&str> = POINTS.iter().map(|p| p.0).collect();
                return Err(format!("traces.pcap[{i}]: unknown capture point '{name}' (accepted: {})", names.join(", ")));
            }
        }
        if !(MIN_SNAPLEN..=MAX_SNAPLEN).contains(&cfg.pcap_snaplen) {
            return Err(format!("traces.pcap_snaplen: {} is outside {MIN_SNAPLEN}..={MAX_SNAPLEN} bytes", cfg.pcap_snaplen));
        }
        if let Some([a, b]) = cfg.pcap_window_ns {
            if a >= b {
                return Err(format!("traces.pcap_window_ns: the window must end after it starts, got [{a}, {b}]"));
            }
        }
        if cfg.pcap_every == 0 {
            return Err("traces.pcap_every: must be >= 1".into());
        }
        Ok(())
    }

    /// Packet `p` of `flows[p.flow]`, with its SACK blocks (the first `p.n_sack` of `sack`),
    /// passes capture point (`link`, `point`) at `now`.
    #[inline]
    pub fn packet(&mut self, link: LinkId, point: Point, now: Nanos, p: &Packet, sack: &[(u64, u64); MAX_SACK_BLOCKS], flows: &[Flow]) {
        if now < self.window.0 || now >= self.window.1 {
            return;
        }
        for c in self.captures.iter_mut().filter(|c| c.link == link && c.point == point) {
            c.seen += 1;
            if (c.seen - 1) % self.every != 0 {
                continue;
            }
            self.frame.clear();
            frame(&mut self.frame, p, &sack[..p.n_sack as usize], &flows[p.flow as usize], c.packets as u16);
            let incl = self.frame.len().min(self.snaplen as usize);
            // Record header: seconds, nanoseconds, captured length, length on the wire.
            let out = &mut c.bytes;
            out.extend_from_slice(&((now / 1_000_000_000) as u32).to_le_bytes());
            out.extend_from_slice(&((now % 1_000_000_000) as u32).to_le_bytes());
            out.extend_from_slice(&(incl as u32).to_le_bytes());
            out.extend_from_slice(&(self.frame.len() as u32).to_le_bytes());
            out.extend_from_slice(&self.frame[..incl]);
            c.packets += 1;
        }
    }
}

fn file_header(snaplen: u32) -> Vec<u8> {
    let mut h = Vec::with_capacity(24);
    h.extend_from_slice(&MAGIC_NANOSECONDS.to_le_bytes());
    h.extend_from_slice(&2u16.to_le_bytes());
    h.extend_from_slice(&4u16.to_le_bytes());
    h.extend_from_slice(&0i32.to_le_bytes()); // this zone: UTC
    h.extend_from_slice(&0u32.to_le_bytes()); // accuracy of time stamps
    h.extend_from_slice(&snaplen.to_le_bytes());
    h.extend_from_slice(&LINKTYPE_ETHERNET.to_le_bytes());
    h
}

/// IPv4 address of flow `f`'s sender (`receiver` false) or receiver.
pub fn address(f: u32, receiver: bool) -> [u8; 4] {
    [10, (1 + (f >> 16) + 128 * receiver as u32) as u8, (f >> 8) as u8, f as u8]
}

/// Appends the whole frame of `p` (headers, then zero payload) to `out`.
fn frame(out: &mut Vec<u8>, p: &Packet, sack: &[(u64, u64)], flow: &Flow, ip_id: u16) {
    let forward = p.kind == Kind::Data;
    let (src, dst) = (address(p.flow, !forward), address(p.flow, forward));
    // Ethernet: locally administered addresses, 02:..:01 the sender side, 02:..:02 the receiver's.
    let (mac_s, mac_d) = if forward { (1, 2) } else { (2, 1) };
    out.extend_from_slice(&[2, 0, 0, 0, 0, mac_d, 2, 0, 0, 0, 0, mac_s, 0x08, 0x00]);
    let ip_at = out.len();
    out.extend_from_slice(&[0x45, (p.dscp << 2) | p.ecn.bits(), 0, 0]);
    out.extend_from_slice(&ip_id.to_be_bytes());
    out.extend_from_slice(&[0x40, 0, 64, if flow.is_tcp() { 6 } else { 17 }, 0, 0]);
    out.extend_from_slice(&src);
    out.extend_from_slice(&dst);
    let l4_at = out.len();
    let payload = if flow.is_tcp() { tcp_header(out, p, sack, flow) } else { udp_header(out, p) };
    out.resize(out.len() + payload, 0);
    let total = out.len() - ip_at;
    out[ip_at + 2..ip_at + 4].copy_from_slice(&(total as u16).to_be_bytes());
    let sum = checksum(&out[ip_at..l4_at], 0);
    out[ip_at + 10..ip_at + 12].copy_from_slice(&sum.to_be_bytes());
    // Transport checksum over the pseudo-header (RFC 793 §3.1, RFC 768).
    let l4_len = out.len() - l4_at;
    let pseudo = sum_words(&src, 0) + sum_words(&dst, 0) + out[ip_at + 9] as u32 + l4_len as u32;
    let at = l4_at + if flow.is_tcp() { 16 } else { 6 };
    let sum = checksum(&out[l4_at..], pseudo);
    let sum = if !flow.is_tcp() && sum == 0 { 0xffff } else { sum }; // UDP: 0 means "none"
    out[at..at + 2].copy_from_slice(&sum.to_be_bytes());
    debug_assert_eq!(ETH_LEN + IP_LEN, l4_at);
}

/// Source port of a flow's connection `conn`.
pub fn port(conn: u32) -> u16 {
    32768 + (conn % 28232) as u16
}

/// Appends a TCP header with its options; returns the payload length.
fn tcp_header(out: &mut Vec<u8>, p: &Packet, sack: &[(u64, u64)], flow: &Flow) -> usize {
    let mss = flow.payload() as u64;
    let bytes = |seg: u64| (1 + seg.wrapping_mul(mss)) as u32;
    let (sport, dport) = (port(p.conn), TCP_PORT);
    let (ports, seq, ack, payload) = match p.kind {
        Kind::Data => ((sport, dport), bytes(p.seq), 1, (p.len - u32::from(flow.header_bytes)) as usize),
        Kind::Ack => ((dport, sport), 1, bytes(p.seq), 0),
    };
    let n_sack = (p.kind == Kind::Ack) as usize * p.n_sack as usize;
    // Options: NOP NOP TS(10), then NOP NOP SACK(2 + 8n): 12 + 4 + 8n bytes, a multiple of 4.
    let opt_len = 12 + if n_sack > 0 { 4 + 8 * n_sack } else { 0 };
    out.extend_from_slice(&ports.0.to_be_bytes());
    out.extend_from_slice(&ports.1.to_be_bytes());
    out.extend_from_slice(&seq.to_be_bytes());
    out.extend_from_slice(&ack.to_be_bytes());
    // RFC 3168 §6.1: CWR 0x80, ECE 0x40; ACK 0x10, PSH 0x08.
    let bit = |on: bool, b: u8| if on { b } else { 0 };
    let flags = 0x10 | bit(p.kind == Kind::Data, 0x08) | bit(p.cwr, 0x80) | bit(p.ece, 0x40);
    out.extend_from_slice(&[(((TCP_LEN + opt_len) / 4) << 4) as u8, flags, 0xff, 0xff, 0, 0, 0, 0]);
    // RFC 7323 §3: TSval is the sender's clock (ms here), TSecr the echoed one.
    let ms = |t: Nanos| (t / 1_000_000) as u32;
    let (tsval, tsecr) = match p.kind {
        Kind::Data => (ms(p.ts), 0),
        Kind::Ack => (0, ms(p.ts)),
    };
    out.extend_from_slice(&[1, 1, 8, 10]);
    out.extend_from_slice(&tsval.to_be_bytes());
    out.extend_from_slice(&tsecr.to_be_bytes());
    if n_sack > 0 {
        out.extend_from_slice(&[1, 1, 5, (2 + 8 * n_sack) as u8]);
        for &(lo, hi) in &sack[..n_sack] {
            out.extend_from_slice(&bytes(lo).to_be_bytes());
            out.extend_from_slice(&bytes(hi).to_be_bytes());
        }
    }
    payload
}

/// Appends a UDP header and the datagram's number (8 bytes, big-endian); returns the rest of
/// the payload. The IP packet is as long as the simulated one.
fn udp_header(out: &mut Vec<u8>, p: &Packet) -> usize {
    let payload = (p.len as usize).saturating_sub(IP_LEN + UDP_LEN).max(8);
    out.extend_from_slice(&port(p.conn).to_be_bytes());
    out.extend_from_slice(&UDP_PORT.to_be_bytes());
    out.extend_from_slice(&((UDP_LEN + payload) as u16).to_be_bytes());
    out.extend_from_slice(&[0, 0]);
    out.extend_from_slice(&p.seq.to_be_bytes());
    payload - 8
}

fn sum_words(b: &[u8], mut acc: u32) -> u32 {
    for w in b.chunks(2) {
        acc += ((w[0] as u32) << 8) | *w.get(1).unwrap_or(&0) as u32;
    }
    acc
}

/// The Internet checksum (RFC 1071) of `b` with `acc` added; the checksum field must be zero.
fn checksum(b: &[u8], acc: u32) -> u16 {
    let mut s = sum_words(b, acc);
    while s >> 16 != 0 {
        s = (s & 0xffff) + (s >> 16);
    }
    !(s as u16)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn checksum_matches_rfc1071_example() {
        // RFC 1071 §3: the words 0001 f203 f4f5 f6f7 sum (one's complement) to ddf2.
        assert_eq!(checksum(&[0x00, 0x01, 0xf2, 0x03, 0xf4, 0xf5, 0xf6, 0xf7], 0), !0xddf2);
    }

    #[test]
    fn addresses_are_distinct_per_flow_and_side() {
        assert_eq!(address(0, false), [10, 1, 0, 0]);
        assert_eq!(address(0, true), [10, 129, 0, 0]);
        assert_eq!(address(70_000, false), [10, 2, 0x11, 0x70]);
    }

    #[test]
    fn file_header_is_pcap_2_4_nanoseconds_ethernet() {
        let h = file_header(128);
        assert_eq!(h.len(), 24);
        assert_eq!(&h[..4], &[0x4d, 0x3c, 0xb2, 0xa1]);
        assert_eq!(u32::from_le_bytes(h[16..20].try_into().unwrap()), 128);
        assert_eq!(u32::from_le_bytes(h[20..24].try_into().unwrap()), 1);
    }
}
