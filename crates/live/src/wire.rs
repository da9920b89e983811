//! Ethernet frames as the router reads them: the few IPv4 header fields a queue needs, and CE
//! marking with the header checksum updated incrementally (RFC 1624).
//!
//! Only untagged Ethernet II frames carrying IPv4 are parsed; everything else (ARP above all)
//! is "not IP" and bypasses the AQM.

use aqm::Ecn;

/// Ethernet II header: destination, source, EtherType.
pub const ETH_HLEN: usize = 14;
const ETHERTYPE_IPV4: u16 = 0x0800;
const IP_MIN_HLEN: usize = 20;
pub const PROTO_TCP: u8 = 6;
pub const PROTO_UDP: u8 = 17;

/// The IPv4 fields the router uses.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct IpInfo {
    /// IP total length (header and payload), bytes.
    pub total_len: u16,
    pub ecn: Ecn,
    pub dscp: u8,
    pub proto: u8,
    /// Transport ports of the first (or only) fragment of TCP and UDP packets.
    pub ports: Option<(u16, u16)>,
}

fn be16(b: &[u8], at: usize) -> u16 {
    u16::from_be_bytes([b[at], b[at + 1]])
}

/// The ECN codepoint of the TOS byte's two low bits (RFC 3168 §5).
pub fn ecn_of(tos: u8) -> Ecn {
    match tos & 0b11 {
        0b00 => Ecn::NotEct,
        0b01 => Ecn::Ect1,
        0b10 => Ecn::Ect0,
        _ => Ecn::Ce,
    }
}

/// Parses an Ethernet frame; `None` when it is not a well-formed IPv4 packet.
pub fn parse(frame: &[u8]) -> Option<IpInfo> {
    if frame.len() < ETH_HLEN + IP_MIN_HLEN || be16(frame, 12) != ETHERTYPE_IPV4 {
        return None;
    }
    let ip = &frame[ETH_HLEN..];
    let (version, ihl) = (ip[0] >> 4, (ip[0] & 0x0f) as usize * 4);
    if version != 4 || ihl < IP_MIN_HLEN || ip.len() < ihl {
        return None;
    }
    let proto = ip[9];
    // The fragment offset (low 13 bits of bytes 6-7) is 0 only in a packet's first fragment,
    // the only one carrying the transport header.
    let first_fragment = be16(ip, 6) & 0x1fff == 0;
    let ports = (first_fragment && matches!(proto, PROTO_TCP | PROTO_UDP) && ip.len() >= ihl + 4)
        .then(|| (be16(ip, ihl), be16(ip, ihl + 2)));
    Some(IpInfo { total_len: be16(ip, 2), ecn: ecn_of(ip[1]), dscp: ip[1] >> 2, proto, ports })
}

/// One's-complement sum of 16-bit words, folded (RFC 1071 §4.1 arithmetic).
fn ones_add(a: u16, b: u16) -> u16 {
    let s = a as u32 + b as u32;
    ((s & 0xffff) + (s >> 16)) as u16
}

/// Sets CE in an IPv4 frame's ECN field and updates the header checksum. The checksum follows
/// RFC 1624 eqn. 3, HC' = ~(~HC + ~m + m'), where m is the 16-bit word holding version, IHL
/// and TOS; it never recomputes the whole header, as a router must not "fix" a checksum that
/// was wrong on arrival. Returns false (and leaves the frame) for anything but IPv4.
pub fn set_ce(frame: &mut [u8]) -> bool {
    if parse(frame).is_none() {
        return false;
    }
    let ip = &mut frame[ETH_HLEN..];
    let old = be16(ip, 0);
    ip[1] |= 0b11;
    let new = be16(ip, 0);
    let hc = be16(ip, 10);
    let sum = ones_add(ones_add(!hc, !old), new);
    ip[10..12].copy_from_slice(&(!sum).to_be_bytes());
    true
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The RFC 1071 checksum of a header whose checksum field is zeroed: the independent
    /// oracle for the incremental update (a full recomputation, not the code under test).
    fn full_checksum(hdr: &[u8]) -> u16 {
        let mut sum: u32 = 0;
        for (i, pair) in hdr.chunks(2).enumerate() {
            if i == 5 {
                continue; // the checksum field itself
            }
            sum += u16::from_be_bytes([pair[0], pair[1]]) as u32;
        }
        while sum > 0xffff {
            sum = (sum & 0xffff) + (sum >> 16);
        }
        !(sum as u16)
    }

    fn frame(tos: u8, proto: u8, seed: u64) -> Vec<u8> {
        let mut f = vec![0u8; ETH_HLEN + 40];
        f[12..14].copy_from_slice(&ETHERTYPE_IPV4.to_be_bytes());
        let mut x = seed;
        for b in f[ETH_HLEN..].iter_mut() {
            // A 64-bit LCG (Knuth's MMIX constants) for varied header bytes.
            x = x.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
            *b = (x >> 56) as u8;
        }
        let ip = &mut f[ETH_HLEN..];
        ip[0] = 0x45;
        ip[1] = tos;
        ip[2..4].copy_from_slice(&40u16.to_be_bytes());
        ip[6] = 0x40; // DF, offset 0
        ip[7] = 0;
        ip[9] = proto;
        let c = full_checksum(&ip[..20]);
        ip[10..12].copy_from_slice(&c.to_be_bytes());
        f
    }

    #[test]
    fn parses_ecn_dscp_and_ports() {
        let mut f = frame((46 << 2) | 0b10, PROTO_TCP, 1);
        f[ETH_HLEN + 20..ETH_HLEN + 24].copy_from_slice(&[0x4e, 0x20, 0x14, 0x51]);
        let p = parse(&f).unwrap();
        assert_eq!((p.ecn, p.dscp, p.proto, p.total_len, p.ports), (Ecn::Ect0, 46, PROTO_TCP, 40, Some((20000, 5201))));
        // A later fragment carries no ports; ICMP has none either.
        f[ETH_HLEN + 7] = 1;
        assert_eq!(parse(&f).unwrap().ports, None);
        assert_eq!(parse(&frame(0, 1, 2)).unwrap().ports, None);
        // ARP, IPv6 and runts are not IPv4.
        let mut arp = frame(0, 0, 3);
        arp[12..14].copy_from_slice(&0x0806u16.to_be_bytes());
        assert_eq!(parse(&arp), None);
        let mut v6 = frame(0, 0, 3);
        v6[ETH_HLEN] = 0x60;
        assert_eq!(parse(&v6), None);
        assert_eq!(parse(&f[..30]), None);
        assert_eq!([0b00, 0b01, 0b10, 0b11].map(ecn_of), [Ecn::NotEct, Ecn::Ect1, Ecn::Ect0, Ecn::Ce]);
    }

    #[test]
    fn ce_mark_keeps_the_checksum_valid() {
        // Every TOS value on many random headers: the incremental update equals the full
        // RFC 1071 recomputation, and only the ECN bits change.
        for seed in 0..2000u64 {
            let tos = (seed % 256) as u8;
            let mut f = frame(tos, PROTO_UDP, seed);
            let before = f.clone();
            assert!(set_ce(&mut f));
            let ip = &f[ETH_HLEN..ETH_HLEN + 20];
            assert_eq!(ip[1], tos | 0b11, "seed {seed}");
            assert_eq!(be16(ip, 10), full_checksum(ip), "seed {seed}");
            let changed: Vec<usize> = (0..f.len()).filter(|&i| f[i] != before[i]).collect();
            assert!(changed.iter().all(|&i| [ETH_HLEN + 1, ETH_HLEN + 10, ETH_HLEN + 11].contains(&i)), "{changed:?}");
        }
        let mut arp = frame(0, 0, 9);
        arp[12] = 0x08;
        arp[13] = 0x06;
        let copy = arp.clone();
        assert!(!set_ce(&mut arp));
        assert_eq!(arp, copy);
    }
}
