//! Simulated time: integer nanoseconds, as the Linux qdiscs use.
//!
//! u64 nanoseconds cover 584 years, so overflow is not a concern for any experiment.

/// A point in time or a duration, in nanoseconds.
pub type Nanos = u64;

pub const NS_PER_US: Nanos = 1_000;
pub const NS_PER_MS: Nanos = 1_000_000;
pub const NS_PER_SEC: Nanos = 1_000_000_000;

/// Converts seconds (as written in configs and papers) to nanoseconds, rounding to nearest.
pub fn secs(s: f64) -> Nanos {
    (s * NS_PER_SEC as f64).round() as Nanos
}

/// Converts nanoseconds to seconds, for reporting.
pub fn to_secs(ns: Nanos) -> f64 {
    ns as f64 / NS_PER_SEC as f64
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn conversions_round_trip() {
        assert_eq!(secs(0.02), 20 * NS_PER_MS);
        assert_eq!(secs(1.5e-9), 2);
        assert_eq!(to_secs(150 * NS_PER_MS), 0.15);
    }
}
