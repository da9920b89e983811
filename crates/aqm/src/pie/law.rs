//! The floating-point PIE control law of the `paper`, `rfc` and `ns3` profiles.

use super::AutoTune;

/// The knobs of one floating-point update.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct FloatLaw {
    pub alpha: f64,
    pub beta: f64,
    pub target_s: f64,
    pub autotune: AutoTune,
    /// RFC 8033 §5.5 cap: at most +0.02 per update once p ≥ 0.1.
    pub cap: bool,
    /// RFC 8033 §4.2 decay `p *= 0.98` after two zero delays (not in HPSR'13).
    pub decay: bool,
}

/// The divisor of the gains at probability `p`.
pub fn autotune_divisor(kind: AutoTune, p: f64) -> f64 {
    match kind {
        // HPSR'13 §III-B.
        AutoTune::ThreeStep => {
            if p < 0.01 {
                8.0
            } else if p < 0.1 {
                2.0
            } else {
                1.0
            }
        }
        // RFC 8033 §4.2: the first row p is below wins.
        AutoTune::SixLevel => {
            const TABLE: [(f64, f64); 6] = [(1e-6, 2048.0), (1e-5, 512.0), (1e-4, 128.0), (1e-3, 32.0), (1e-2, 8.0), (1e-1, 2.0)];
            TABLE.iter().find(|&&(below, _)| p < below).map_or(1.0, |&(_, div)| div)
        }
    }
}

impl FloatLaw {
    /// One update: returns the new probability (RFC 8033 §4.2 steps 1–6, HPSR'13 §III-B).
    pub fn update(&self, p: f64, qdelay_s: f64, qdelay_old_s: f64) -> f64 {
        let mut d = self.alpha * (qdelay_s - self.target_s) + self.beta * (qdelay_s - qdelay_old_s);
        d /= autotune_divisor(self.autotune, p);
        if self.cap && p >= 0.1 && d > 0.02 {
            d = 0.02;
        }
        let mut next = p + d;
        if self.decay && qdelay_s == 0.0 && qdelay_old_s == 0.0 {
            next *= 0.98;
        }
        next.clamp(0.0, 1.0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const RFC: FloatLaw = FloatLaw { alpha: 0.125, beta: 1.25, target_s: 0.015, autotune: AutoTune::SixLevel, cap: true, decay: true };

    #[test]
    fn spec_2_4_vectors_rfc_float() {
        // (p, qdelay, qdelay_old) → p' from spec §2.4 (hand-worked there).
        let cases = [
            (0.0, 0.020, 0.010, 6.40869140625e-6), // (0.000625 + 0.0125) / 2048
            (0.005, 0.030, 0.025, 0.006015625),    // (0.001875 + 0.00625) / 8
            (0.05, 0.040, 0.030, 0.0578125),       // (0.003125 + 0.0125) / 2
            (0.2, 0.100, 0.050, 0.22),             // 0.073125 capped to 0.02
            (0.3, 0.300, 0.280, 0.32),             // capped; no 250 ms boost in the RFC
            (0.5, 0.0, 0.0, 0.4881625),            // (0.5 − 0.001875) · 0.98
            (1e-5, 0.016, 0.015, 2.07421875e-5),   // p is not < 1e-5: /128
        ];
        for (p, q, qo, want) in cases {
            let got = RFC.update(p, q, qo);
            assert!((got - want).abs() <= 1e-15, "p={p}: {got} vs {want}");
        }
    }

    #[test]
    fn paper_three_step_and_no_heuristics() {
        let paper = FloatLaw { target_s: 0.020, autotune: AutoTune::ThreeStep, cap: false, decay: false, ..RFC };
        assert_eq!(autotune_divisor(AutoTune::ThreeStep, 0.0099), 8.0);
        assert_eq!(autotune_divisor(AutoTune::ThreeStep, 0.01), 2.0);
        assert_eq!(autotune_divisor(AutoTune::ThreeStep, 0.1), 1.0);
        // p = 0.2, 100/50 ms: 0.125·0.08 + 1.25·0.05 = 0.0725, uncapped.
        assert!((paper.update(0.2, 0.100, 0.050) - 0.2725).abs() < 1e-15);
        // No decay: p = 0.5 at 0/0 only moves by alpha·(−ref) = −0.0025.
        assert!((paper.update(0.5, 0.0, 0.0) - 0.4975).abs() < 1e-15);
        // Clamped to [0, 1].
        assert_eq!(paper.update(0.99, 2.0, 0.0), 1.0);
        assert_eq!(paper.update(0.0, 0.0, 0.5), 0.0);
    }
}
