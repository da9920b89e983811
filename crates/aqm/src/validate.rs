//! Range checks shared by the configurations: every error names the field and the accepted range.

use crate::config::QueueLimit;

/// `lo <= v <= hi`, and finite.
pub fn check_range(name: &str, v: f64, lo: f64, hi: f64) -> Result<(), String> {
    if v.is_finite() && (lo..=hi).contains(&v) {
        Ok(())
    } else {
        Err(format!("{name}: {v} is outside the accepted range [{lo}, {hi}]"))
    }
}

/// [`check_range`] for an optional override; absent is fine.
pub fn check_opt(name: &str, v: Option<f64>, lo: f64, hi: f64) -> Result<(), String> {
    v.map_or(Ok(()), |v| check_range(name, v, lo, hi))
}

/// A probability-valued override must lie in [0, 1].
pub fn check_prob(name: &str, v: Option<f64>) -> Result<(), String> {
    check_opt(name, v, 0.0, 1.0)
}

/// A hard limit must hold at least one packet or byte.
pub fn check_limit(name: &str, limit: QueueLimit) -> Result<(), String> {
    match limit {
        QueueLimit::Packets(0) | QueueLimit::Bytes(0) => Err(format!("{name}: must be at least 1 (packets or bytes)")),
        _ => Ok(()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ranges_are_inclusive_and_reject_nan() {
        assert_eq!(check_range("x", 1.0, 1.0, 2.0), Ok(()));
        assert_eq!(check_range("x", 2.5, 1.0, 2.0), Err("x: 2.5 is outside the accepted range [1, 2]".into()));
        assert!(check_range("x", f64::NAN, 0.0, 1.0).is_err());
        assert!(check_limit("limit", QueueLimit::Packets(0)).is_err());
        assert_eq!(check_opt("x", None, 0.0, 1.0), Ok(()));
    }
}
