//! Constant-bit-rate UDP sources.

use aqm::{Ecn, Nanos};

/// Emits fixed-size datagrams at an exact long-run rate.
#[derive(Clone, Debug)]
pub struct UdpSource {
    rate_bps: u64,
    packet_size: u32,
    /// Remainder of (bits · 10⁹) mod rate, so the spacing never drifts.
    rem: u64,
    pub next_seq: u64,
    pub active: bool,
    /// The ECN field of every datagram.
    pub ecn: Ecn,
}

impl UdpSource {
    /// `ecn`: the datagrams' ECN field (Not-ECT, or the ECT codepoint chosen).
    pub fn new(rate_bps: u64, packet_size: u32, ecn: Ecn) -> Self {
        UdpSource { rate_bps, packet_size, rem: 0, next_seq: 0, active: false, ecn }
    }

    /// Time until the next datagram, in ns.
    pub fn gap(&mut self) -> Nanos {
        let num = self.packet_size as u128 * 8 * 1_000_000_000 + self.rem as u128;
        self.rem = (num % self.rate_bps as u128) as u64;
        (num / self.rate_bps as u128) as Nanos
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn spacing_matches_rate() {
        // 1000 B at 6 Mb/s: 1.333... ms; three gaps add to exactly 4 ms.
        let mut u = UdpSource::new(6_000_000, 1000, Ecn::NotEct);
        let g: Vec<Nanos> = (0..3).map(|_| u.gap()).collect();
        assert_eq!(g.iter().sum::<Nanos>(), 4_000_000);
        assert_eq!(g[0], 1_333_333);
    }
}
