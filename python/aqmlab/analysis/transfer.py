"""Factored transfer functions with a pure delay, evaluated exactly.

Every loop in this package (Hollot et al. INFOCOM 2001 eq. (1)-(2), PIE HPSR 2013 eq. (9),
PI² per spec §3.6) is a gain times real first-order factors times integrators times a delay:

    F(s) = k · Π(1 + s/z_i) / (s^m · Π(1 + s/p_i)) · e^(−sτ)

with all corner frequencies z_i, p_i > 0 (left half-plane, minimum phase). Magnitude and phase
are evaluated analytically (spec ppv-pi2-fluid-tcp.md §3.7 step 2), so the phase is unwrapped:
the delay contributes −ωτ radians without ever wrapping.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from ._checks import require_finite, require_positive


@dataclass(frozen=True)
class FactoredTF:
    """k · Π(1 + s/z) / (s^m · Π(1 + s/p)) · e^(−s·delay).

    gain: k (> 0); zeros / poles: corner frequencies in rad/s (> 0); integrators: m (≥ 0);
    delay: pure delay τ in seconds (≥ 0).
    """

    gain: float
    zeros: tuple[float, ...] = ()
    poles: tuple[float, ...] = ()
    integrators: int = 0
    delay: float = 0.0

    def __post_init__(self) -> None:
        require_positive("gain", self.gain)
        for z in self.zeros:
            require_positive("zeros", z)
        for p in self.poles:
            require_positive("poles", p)
        if self.integrators < 0:
            raise ValueError(f"integrators must be >= 0, got {self.integrators}")
        require_finite("delay", self.delay)
        if self.delay < 0:
            raise ValueError(f"delay must be >= 0 s, got {self.delay}")

    def __mul__(self, other: FactoredTF) -> FactoredTF:
        return FactoredTF(
            gain=self.gain * other.gain,
            zeros=self.zeros + other.zeros,
            poles=self.poles + other.poles,
            integrators=self.integrators + other.integrators,
            delay=self.delay + other.delay,
        )

    def scaled(self, factor: float) -> FactoredTF:
        """The same transfer function with its gain multiplied by ``factor``."""
        return FactoredTF(self.gain * factor, self.zeros, self.poles, self.integrators, self.delay)

    def log_magnitude(self, w: np.ndarray | float) -> np.ndarray:
        """Natural log of |F(jω)| for ω > 0 (rad/s)."""
        w = np.asarray(w, dtype=float)
        out = math.log(self.gain) - self.integrators * np.log(w)
        for z in self.zeros:
            out = out + 0.5 * np.log1p((w / z) ** 2)
        for p in self.poles:
            out = out - 0.5 * np.log1p((w / p) ** 2)
        return out

    def magnitude(self, w: np.ndarray | float) -> np.ndarray:
        """|F(jω)|."""
        return np.exp(self.log_magnitude(w))

    def phase_deg(self, w: np.ndarray | float) -> np.ndarray:
        """Unwrapped phase of F(jω) in degrees (spec §3.7 step 2)."""
        w = np.asarray(w, dtype=float)
        rad = -0.5 * math.pi * self.integrators - w * self.delay
        for z in self.zeros:
            rad = rad + np.arctan(w / z)
        for p in self.poles:
            rad = rad - np.arctan(w / p)
        return np.degrees(rad)

    def response(self, w: np.ndarray | float) -> np.ndarray:
        """Complex F(jω), computed directly from the factors (the check on the analytic forms)."""
        s = 1j * np.asarray(w, dtype=float)
        out = self.gain * np.exp(-s * self.delay) / s**self.integrators
        for z in self.zeros:
            out = out * (1 + s / z)
        for p in self.poles:
            out = out / (1 + s / p)
        return out

    def rational_coefficients(self) -> tuple[np.ndarray, np.ndarray]:
        """Numerator and denominator polynomials (highest power first) without the delay."""
        num = np.array([self.gain])
        den = np.array([1.0])
        for z in self.zeros:
            num = np.polymul(num, [1.0 / z, 1.0])
        for p in self.poles:
            den = np.polymul(den, [1.0 / p, 1.0])
        den = np.polymul(den, np.r_[1.0, np.zeros(self.integrators)])
        return num, den
