"""Gain and phase margins of a delayed loop by root-finding on its exact frequency response.

Recipe of spec ppv-pi2-fluid-tcp.md §3.7: scan log|L| and ∠L + 180° (both analytic, the phase
unwrapped) on a logarithmic grid for sign changes, refine every bracket with a safeguarded
root-finder in log ω, then PM = 180° + ∠L(jω_c) at each gain crossover and
GM = −20·log10|L(jω_180)| at each phase crossover (∠L = −180° − k·360°). The margins reported
are the worst over all crossovers.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from .transfer import FactoredTF

# Default scan range and density (rad/s); the scan is cheap, so it is dense.
W_MIN = 1e-6
W_MAX = 1e5
SCAN_POINTS = 6000


def find_root(f: Callable[[float], float], lo: float, hi: float, *, xtol: float = 1e-13,
              max_iter: int = 200) -> float:
    """A root of ``f`` in [lo, hi], where f(lo) and f(hi) differ in sign (or one is 0).

    Regula falsi with the Illinois modification, falling back to bisection whenever the
    interpolated point would shrink the bracket by less than half; converges superlinearly on
    smooth functions and never leaves the bracket."""
    flo, fhi = f(lo), f(hi)
    if flo == 0.0:
        return lo
    if fhi == 0.0:
        return hi
    if (flo > 0) == (fhi > 0):
        raise ValueError(f"find_root needs a sign change on [lo, hi] = [{lo}, {hi}], "
                         f"got f(lo) = {flo}, f(hi) = {fhi}")
    side = 0
    for _ in range(max_iter):
        width = hi - lo
        x = (lo * fhi - hi * flo) / (fhi - flo)
        if not (lo < x < hi) or min(x - lo, hi - x) < 1e-3 * width:
            x = 0.5 * (lo + hi)
        fx = f(x)
        if fx == 0.0:
            return x
        if (fx > 0) == (fhi > 0):
            hi, fhi = x, fx
            if side == 1:
                flo *= 0.5
            side = 1
        else:
            lo, flo = x, fx
            if side == -1:
                fhi *= 0.5
            side = -1
        if hi - lo <= xtol * max(1.0, abs(lo), abs(hi)):
            break
    return 0.5 * (lo + hi)


def _roots_on_grid(g: Callable[[np.ndarray], np.ndarray], w_min: float, w_max: float,
                   n: int) -> list[float]:
    """All ω in [w_min, w_max] where the continuous function g(ω) changes sign or is 0 on the grid."""
    u = np.linspace(math.log(w_min), math.log(w_max), n)
    sign = np.sign(g(np.exp(u)))
    roots = [math.exp(x) for x in u[sign == 0]]
    for i in np.nonzero(sign[:-1] * sign[1:] < 0)[0]:
        root_u = find_root(lambda x: float(g(np.exp(x))), float(u[i]), float(u[i + 1]))
        roots.append(math.exp(root_u))
    return sorted(roots)


def gain_crossovers(loop: FactoredTF, w_min: float = W_MIN, w_max: float = W_MAX,
                    n: int = SCAN_POINTS) -> list[float]:
    """Every ω (rad/s) in the scan range where |L(jω)| = 1."""
    return _roots_on_grid(loop.log_magnitude, w_min, w_max, n)


def phase_crossovers(loop: FactoredTF, w_min: float = W_MIN, w_max: float = W_MAX,
                     n: int = SCAN_POINTS, max_turns: int = 4) -> list[float]:
    """Every ω where ∠L(jω) = −180° − k·360° for k = 0 … max_turns − 1."""
    found: list[float] = []
    for k in range(max_turns):
        target = -180.0 - 360.0 * k
        found.extend(_roots_on_grid(lambda w, t=target: loop.phase_deg(w) - t, w_min, w_max, n))
    return sorted(found)


@dataclass(frozen=True)
class Margins:
    """Stability margins of a loop.

    pm_deg: phase margin (worst over gain crossovers; unwrapped, so it may be below −180°);
    w_gc: the gain crossover that gives it (rad/s); gm_db: gain margin in dB (worst over phase
    crossovers, +inf without one); w_pc: its phase crossover; gain_crossovers /
    phase_crossovers: all found."""

    pm_deg: float
    w_gc: float
    gm_db: float
    w_pc: float
    gain_crossovers: tuple[float, ...]
    phase_crossovers: tuple[float, ...]

    @property
    def pm_wrapped_deg(self) -> float:
        """The phase margin folded into (−180°, 180°], as python-control reports it."""
        return 180.0 - (180.0 - self.pm_deg) % 360.0

    @property
    def stable(self) -> bool:
        """Nyquist-stable by the margins: positive phase and gain margins (single crossover)."""
        return self.pm_deg > 0 and self.gm_db > 0

    def row(self) -> str:
        """A one-line human summary."""
        return (f"PM {self.pm_deg:7.2f} deg at {self.w_gc:8.4g} rad/s, "
                f"GM {self.gm_db:7.2f} dB at {self.w_pc:8.4g} rad/s")


def stability_margins(loop: FactoredTF, w_min: float = W_MIN, w_max: float = W_MAX,
                      n: int = SCAN_POINTS) -> Margins:
    """Phase and gain margins of the open loop ``loop`` (spec §3.7)."""
    gcs = gain_crossovers(loop, w_min, w_max, n)
    pcs = phase_crossovers(loop, w_min, w_max, n)
    if gcs:
        pms = [180.0 + float(loop.phase_deg(w)) for w in gcs]
        i = int(np.argmin(pms))
        pm, w_gc = pms[i], gcs[i]
    else:
        pm, w_gc = math.inf, math.nan
    if pcs:
        gms = [-20.0 * float(loop.log_magnitude(w)) / math.log(10.0) for w in pcs]
        j = int(np.argmin(gms))
        gm, w_pc = gms[j], pcs[j]
    else:
        gm, w_pc = math.inf, math.nan
    return Margins(pm, w_gc, gm, w_pc, tuple(gcs), tuple(pcs))


def pade_margins(loop: FactoredTF, order: int = 12) -> tuple[float, float, float, float]:
    """Independent check: python-control's margins of the loop with the delay replaced by a
    Padé approximant of ``order`` (1 … 20). Returns (pm_deg, w_gc, gm_db, w_pc) with python-control's
    conventions (PM folded into (−180°, 180°], GM +inf when there is no phase crossover)."""
    import control

    if not 1 <= order <= 20:
        raise ValueError(f"order must be in [1, 20], got {order}")
    num, den = loop.rational_coefficients()
    sys = control.tf(num, den)
    if loop.delay > 0:
        pnum, pden = control.pade(loop.delay, order)
        sys = sys * control.tf(pnum, pden)
    gm, pm, _sm, w_pc, w_gc, _wms = control.stability_margins(sys)
    gm_db = 20.0 * math.log10(gm) if np.isfinite(gm) else math.inf
    return float(pm), float(w_gc), gm_db, float(w_pc)
