//! The sampled controllers of the fluid model, one update per sampling period (the equations
//! are in `aqmlab.analysis.fluid`'s docstring, with their sources). Each parameter has a value
//! per configuration.

use crate::clip;

/// The controller laws.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    /// PIE (HPSR 2013 §III-B): p += f(p)·(α(τ − target) + β(τ − τ_old)).
    Pie,
    /// PI² (RFC 9332 classic queue): p′ += α(τ − target) + β(τ − τ_old), p = p′².
    Pi2,
    /// PI (INFOCOM 2001 eq. (8)): p += a(q − q_ref) − b(q_old − q_ref) every 1/fs.
    Pi,
    /// Proportional (Proposition 1): p = min(p_max, gain·(q − q_min)) ≥ 0.
    P,
    /// RED: the EWMA of q as a low-pass filter applied exactly over each period, then the
    /// (gentle) drop profile.
    Red,
    /// No controller: only the buffer drops.
    DropTail,
}

impl Kind {
    /// The law `aqmlab.analysis.fluid` calls `name`.
    pub fn from_name(name: &str) -> Option<Kind> {
        Some(match name {
            "pie" => Kind::Pie,
            "pi2" => Kind::Pi2,
            "pi" => Kind::Pi,
            "p" => Kind::P,
            "red" => Kind::Red,
            "droptail" => Kind::DropTail,
            _ => return None,
        })
    }

    /// The names `aqmlab.analysis.fluid` gives the law's parameters, in the order of
    /// [`Aqm::params`].
    pub fn parameters(self) -> &'static [&'static str] {
        match self {
            Kind::Pie | Kind::Pi2 => &["alpha", "beta", "target", "t_update"],
            Kind::Pi => &["a", "b", "q_ref", "fs"],
            Kind::P => &["gain", "q_min", "p_max", "t_update"],
            Kind::Red => &["min_th", "max_th", "p_max", "w_q", "t_update"],
            Kind::DropTail => &[],
        }
    }
}

/// A controller: its law and parameters (one vector per name of [`Kind::parameters`], in that
/// order, each with a value per configuration).
#[derive(Clone, Debug)]
pub struct Aqm {
    pub kind: Kind,
    pub params: Vec<Vec<f64>>,
    /// PIE's auto-tuning: (bound, factor), the first bound above p gives the factor, else 1.
    pub autotune: Vec<(f64, f64)>,
    /// RED's gentle mode: p_max → 1 on [max_th, 2·max_th] instead of 1 above max_th.
    pub gentle: bool,
}

/// One configuration's controller state.
#[derive(Clone, Copy, Debug, Default)]
pub struct State {
    /// The probability applied.
    pub p: f64,
    /// PI²'s p′, RED's average queue.
    pub inner: f64,
    /// τ_old (PIE, PI²) or q_old (PI).
    pub prev: f64,
}

impl Aqm {
    pub fn is_droptail(&self) -> bool {
        self.kind == Kind::DropTail
    }

    /// Parameter `i` of [`Kind::parameters`] for configuration `j`.
    fn v(&self, i: usize, j: usize) -> f64 {
        self.params[i][j]
    }

    /// The sampling period of configuration `j`, s.
    pub fn period(&self, j: usize) -> f64 {
        match self.kind {
            Kind::Pie | Kind::Pi2 | Kind::P => self.v(3, j),
            Kind::Red => self.v(4, j),
            Kind::Pi => 1.0 / self.v(3, j),
            Kind::DropTail => f64::INFINITY,
        }
    }

    /// PIE's and PI²'s common term for configuration `j`: (τ, α(τ − target) + β(τ − τ_old)).
    fn delay_step(&self, j: usize, q: f64, c: f64, prev: f64) -> (f64, f64) {
        let tau = q / c;
        (
            tau,
            self.v(0, j) * (tau - self.v(2, j)) + self.v(1, j) * (tau - prev),
        )
    }

    /// One update of configuration `j` from the instantaneous queue `q` (packets) at capacity
    /// `c` (packets/s).
    pub fn sample(&self, j: usize, q: f64, c: f64, s: &mut State) {
        match self.kind {
            Kind::Pie => {
                let (tau, step) = self.delay_step(j, q, c, s.prev);
                let factor = self
                    .autotune
                    .iter()
                    .find(|(bound, _)| s.p < *bound)
                    .map_or(1.0, |(_, f)| *f);
                s.p = clip(s.p + factor * step, 0.0, 1.0);
                s.prev = tau;
            }
            Kind::Pi2 => {
                let (tau, step) = self.delay_step(j, q, c, s.prev);
                s.inner = clip(s.inner + step, 0.0, 1.0);
                s.p = s.inner * s.inner;
                s.prev = tau;
            }
            Kind::Pi => {
                let (a, b, q_ref) = (self.v(0, j), self.v(1, j), self.v(2, j));
                s.p = clip(s.p + a * (q - q_ref) - b * (s.prev - q_ref), 0.0, 1.0);
                s.prev = q;
            }
            Kind::P => s.p = clip(self.v(0, j) * (q - self.v(1, j)), 0.0, self.v(2, j)),
            Kind::Red => {
                let (lo, hi, pmax, w_q, t_update) = (
                    self.v(0, j),
                    self.v(1, j),
                    self.v(2, j),
                    self.v(3, j),
                    self.v(4, j),
                );
                // K = −ln(1 − w_q)·C (per-packet sampling δ = 1/C), exact over one period.
                let keep = ((-w_q).ln_1p() * c * t_update).exp();
                s.inner = q + keep * (s.inner - q);
                let avg = s.inner;
                let p = if avg < hi {
                    pmax * (avg - lo) / (hi - lo)
                } else if self.gentle {
                    pmax + (1.0 - pmax) * (avg - hi) / hi
                } else {
                    1.0
                };
                s.p = clip(p, 0.0, 1.0);
            }
            Kind::DropTail => {}
        }
    }
}
