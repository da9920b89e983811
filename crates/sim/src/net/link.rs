//! Links: rate, propagation delay, the discipline in front of them, and exact serialization.

use aqm::{Nanos, QueueDisc, Qdisc};

use super::impair::Impairment;

/// A one-way link. With a rate, packets queue in its discipline and are serialized one at a
/// time; without one it is a pure propagation delay (an idealised access link).
pub struct Link {
    pub name: String,
    pub rate_bps: Option<u64>,
    pub delay_ns: Nanos,
    pub qdisc: Option<Qdisc>,
    /// Loss or outages in front of the queue, if configured.
    pub impairment: Option<Impairment>,
    /// Time the packet being serialized finishes.
    pub busy_until: Nanos,
    /// A `TxDone` event is pending for `busy_until`.
    pub txdone_pending: bool,
    /// Remainder of (bits · 10⁹) mod rate carried between packets, so that the long-run
    /// serialization rate is exact even when a packet time is not a whole number of ns.
    rem: u64,
    /// Bytes that started transmission at or after the warm-up time.
    pub tx_bytes_measured: u64,
    pub tx_packets: u64,
}

impl Link {
    pub fn new(name: String, rate_bps: Option<u64>, delay_ns: Nanos, qdisc: Option<Qdisc>) -> Self {
        Link { name, rate_bps, delay_ns, qdisc, impairment: None, busy_until: 0, txdone_pending: false, rem: 0, tx_bytes_measured: 0, tx_packets: 0 }
    }

    /// Serialization time of `len` bytes at the current rate, in ns.
    #[inline]
    pub fn serialize(&mut self, len: u32) -> Nanos {
        let rate = self.rate_bps.expect("serialize on a pure-delay link") as u128;
        let num = len as u128 * 8 * 1_000_000_000 + self.rem as u128;
        self.rem = (num % rate) as u64;
        (num / rate) as Nanos
    }

    /// Changes the rate; a packet already being serialized finishes at the old rate.
    pub fn set_rate(&mut self, rate_bps: u64) {
        self.rate_bps = Some(rate_bps);
        self.rem = 0;
        if let Some(q) = self.qdisc.as_mut() {
            q.set_link_rate(rate_bps);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn serialization_is_exact_in_the_long_run() {
        // 500 B at 15 Mb/s is 266 666.67 ns: three packets take exactly 800 000 ns.
        let mut l = Link::new("x".into(), Some(15_000_000), 0, None);
        let t: Vec<Nanos> = (0..3).map(|_| l.serialize(500)).collect();
        assert_eq!(t, vec![266_666, 266_667, 266_667]);
        let mut g = Link::new("g".into(), Some(10_000_000), 0, None);
        assert_eq!(g.serialize(1000), 800_000);
        g.set_rate(1_000_000_000);
        assert_eq!(g.serialize(1500), 12_000);
    }
}
