"""PIE HPSR 2013 §V: margin maps (Figs. 13–16) and a check of the paper's numerical claims.

The PIE loop of eq. (9) is

    L(s) = κ·(1 + s/z1)·e^(−sR0) / (s·(1 + s/s1)·(1 + s/s2)),
    z1 = α/((β + α/2)T),  s1 = √(2p0)/R0,  s2 = 1/R0,

and two loop gains are computed everywhere (``gain=``):

* ``"paper"``: κ = α·R0/(p0·T), as printed in eq. (9);
* ``"mgt"``: κ = α·R0/(2·p0·T), what the Misra–Gong–Towsley plant of eq. (1)–(2) gives
  (δτ/δp at DC is −R0/(2p0): τ = (N·W − C·Tp)/C with W = √(2/p), spec ppv-pi2-fluid-tcp.md §3.2,
  §3.5). This is the loop of :func:`aqmlab.analysis.plant.pie_controller` on
  :class:`~aqmlab.analysis.plant.TcpPlant`.

α and β in the maps are the *effective* gains (the paper's pairs 0.125:1.25, 0.0625:0.625,
0.0156:0.156 are α̃ and its auto-tuned /2 and /8), so no auto-tune table is applied unless asked.

What reproduces (numbers from :func:`check_paper_claims`, asserted in tests/analysis/test_pie_maps.py):

1. "α = 0.0156, β = 0.156 give ≈ 25° of phase margin at p⁻ = 0.01 %, T = 30 ms, R⁺ = 100 ms":
   does NOT reproduce with either gain. The loop is unstable there: PM = −56° (paper κ) or −23°
   (MGT κ). The TCP pole s1 = 0.14 rad/s and the integrator give almost −180° of lag well below the
   crossover. The same (α, β) give 25° only at p0 ≈ 0.60 % (paper κ) or ≈ 0.31 % (MGT κ); at
   p0 = 10⁻⁴ a 25° margin needs α ≈ 2.6·10⁻⁵ (β = 10α) with the paper's κ, about 600 times smaller.
   The claim would hold if the figure's p⁻ were about 0.6 % (or 0.3 % with the MGT gain).
2. "The phase margin improves from 29.5° to 105° when R0 goes from 100 ms to 50 ms": does NOT
   reproduce as a general property. For the design pair 0.0156:0.156 at p⁻ = 10⁻⁴ the margin goes
   from −56° to −11° (paper κ) or from −23° to +16° (MGT κ). Fixing the default pair 0.125:1.25 at
   the p0 where PM(100 ms) = 29.5° (6.8 % with the paper's κ, 3.2 % with the MGT κ), halving R0
   gives 89° / 80° with p0 held and 96° / 95° with N and C held (p0 × 4): the direction is right,
   105° is not reached. With p0 held and β = 10α, the pair (α, p0) that makes both numbers come out
   (found by :func:`fit_rtt_claim`) is α ≈ 0.54 at p0 ≈ 0.34 with the paper's κ: a fit of two free
   numbers to two targets, not evidence of what the figure used.
3. Figs. 15–16 qualitatively reproduce: lower (α, β) give more phase margin and a lower crossover,
   and the two larger pairs lose their margin as √p0 falls below 0.1. But with either κ even the
   smallest pair is unstable at √p0 = 0.01 (claim 1), so HPSR auto-tune (÷8 below 1 %) does not make
   the loop stable at 100 ms for every p0 ≥ 10⁻⁴.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field

import numpy as np

from ._checks import require_positive, require_positive_array, require_range
from .margins import Margins, find_root, stability_margins
from .plant import TcpPlant, pie_controller
from .transfer import FactoredTF

GAINS = ("paper", "mgt")
# The three α:β pairs of Figs. 15–16 (α̃ = 0.125, β̃ = 1.25 and their /2, /8).
FIG15_PAIRS: tuple[tuple[float, float], ...] = ((0.125, 1.25), (0.0625, 0.625), (0.0156, 0.156))


def pie_loop(alpha: float, beta: float, t_update: float, rtt: float, p0: float,
             gain: str = "paper", autotune: str = "none") -> FactoredTF:
    """The PIE loop of HPSR 2013 eq. (9) with loop gain convention ``gain`` ("paper" or "mgt")."""
    if gain not in GAINS:
        raise ValueError(f"gain must be one of {GAINS}, got {gain!r}")
    plant = TcpPlant.from_p0(p0, rtt)
    loop = plant.tf() * pie_controller(alpha, beta, t_update, plant.capacity, p0, autotune)
    return loop.scaled(2.0) if gain == "paper" else loop


def pie_margins(alpha: float, beta: float, t_update: float, rtt: float, p0: float,
                gain: str = "paper", autotune: str = "none") -> Margins:
    """Stability margins of :func:`pie_loop`."""
    return stability_margins(pie_loop(alpha, beta, t_update, rtt, p0, gain, autotune))


def phase_margin_map(alphas: Iterable[float], betas: Iterable[float], t_update: float = 0.03,
                     rtt: float = 0.1, p0: float = 1e-4, gain: str = "paper") -> np.ndarray:
    """Fig. 13: PM in degrees over (α, β); shape (len(betas), len(alphas))."""
    a = require_positive_array("alphas", list(alphas))
    b = np.asarray(list(betas), dtype=float)
    if b.size == 0 or not np.all(np.isfinite(b)) or np.any(b < 0):
        raise ValueError(f"betas must contain finite numbers >= 0, got {b!r}")
    return np.array([[pie_margins(al, be, t_update, rtt, p0, gain).pm_deg for al in a] for be in b])


def margin_vs_rtt(rtts: Iterable[float], alpha: float, beta: float, t_update: float = 0.03,
                  p0: float = 1e-4, gain: str = "paper", hold: str = "p0",
                  rtt_ref: float = 0.1) -> np.ndarray:
    """Fig. 14: PM (degrees) for each R0 in ``rtts``.

    hold="p0": p0 fixed (the paper's argument: the gain αR0/(p0T) falls with R0).
    hold="load": N and C fixed, so W0 ∝ R0 and p0(R0) = p0·(rtt_ref/R0)² (p0 is the value at rtt_ref)."""
    if hold not in ("p0", "load"):
        raise ValueError(f"hold must be 'p0' or 'load', got {hold!r}")
    r = require_positive_array("rtts", list(rtts))
    require_positive("rtt_ref", rtt_ref, "s")
    p = np.full_like(r, p0) if hold == "p0" else p0 * (rtt_ref / r) ** 2
    if np.any(p >= 1):
        raise ValueError(f"p0 scaled to the shortest rtt must stay < 1, got {p.max():.3g}")
    return np.array([pie_margins(alpha, beta, t_update, ri, pi, gain).pm_deg
                     for ri, pi in zip(r, p, strict=True)])


@dataclass(frozen=True)
class SqrtPCurves:
    """Figs. 15–16: for each (α, β) pair, PM (degrees) and gain crossover (rad/s) against √p0."""

    sqrt_p: np.ndarray
    pairs: tuple[tuple[float, float], ...]
    pm_deg: np.ndarray = field(repr=False)   # shape (len(pairs), len(sqrt_p))
    w_gc: np.ndarray = field(repr=False)     # same shape


def margin_vs_sqrt_p(sqrt_p: Iterable[float], pairs: Sequence[tuple[float, float]] = FIG15_PAIRS,
                     t_update: float = 0.03, rtt: float = 0.1, gain: str = "paper") -> SqrtPCurves:
    """Figs. 15 and 16: phase margin and loop bandwidth (gain crossover) versus √p0."""
    x = require_positive_array("sqrt_p", list(sqrt_p))
    if np.any(x >= 1):
        raise ValueError(f"sqrt_p must be in (0, 1), got max {x.max()}")
    ms = [[pie_margins(a, b, t_update, rtt, s * s, gain) for s in x] for a, b in pairs]
    return SqrtPCurves(x, tuple(pairs), np.array([[m.pm_deg for m in row] for row in ms]),
                       np.array([[m.w_gc for m in row] for row in ms]))


def p0_for_phase_margin(target_deg: float, alpha: float, beta: float, t_update: float = 0.03,
                        rtt: float = 0.1, gain: str = "paper", p_lo: float = 1e-6,
                        p_hi: float = 0.5) -> float:
    """The p0 in [p_lo, p_hi] at which the PIE loop has phase margin ``target_deg``."""
    require_range("p_lo", p_lo, 0.0, p_hi, low_open=True, high_open=True)
    require_range("p_hi", p_hi, p_lo, 1.0, high_open=True)

    def excess(log_p: float) -> float:
        return pie_margins(alpha, beta, t_update, rtt, math.exp(log_p), gain).pm_deg - target_deg

    return math.exp(find_root(excess, math.log(p_lo), math.log(p_hi), xtol=1e-10))


def alpha_for_phase_margin(target_deg: float, p0: float, beta_over_alpha: float = 10.0,
                           t_update: float = 0.03, rtt: float = 0.1, gain: str = "paper",
                           alpha_lo: float = 1e-8, alpha_hi: float = 1.0) -> float:
    """The α (with β = beta_over_alpha·α) in [alpha_lo, alpha_hi] giving ``target_deg`` of PM."""
    require_range("alpha_lo", alpha_lo, 0.0, alpha_hi, low_open=True, high_open=True)

    def excess(log_a: float) -> float:
        a = math.exp(log_a)
        return pie_margins(a, beta_over_alpha * a, t_update, rtt, p0, gain).pm_deg - target_deg

    return math.exp(find_root(excess, math.log(alpha_lo), math.log(alpha_hi), xtol=1e-10))


def fit_rtt_claim(pm_long: float = 29.5, pm_short: float = 105.0, rtt_long: float = 0.1,
                  rtt_short: float = 0.05, beta_over_alpha: float = 10.0, t_update: float = 0.03,
                  gain: str = "paper", alpha_lo: float = 0.1, alpha_hi: float = 1.0) -> tuple[float, float]:
    """(α, p0) with β = beta_over_alpha·α and p0 held, such that PM(rtt_long) = pm_long and
    PM(rtt_short) = pm_short: for each α the p0 matching the first target is solved, then α is
    solved so the second matches. Raises ValueError when no α in [alpha_lo, alpha_hi] fits."""

    def p0_of(alpha: float) -> float:
        return p0_for_phase_margin(pm_long, alpha, beta_over_alpha * alpha, t_update, rtt_long,
                                   gain, 1e-6, 0.99)

    def excess(log_a: float) -> float:
        a = math.exp(log_a)
        m = pie_margins(a, beta_over_alpha * a, t_update, rtt_short, p0_of(a), gain)
        return m.pm_deg - pm_short

    alpha = math.exp(find_root(excess, math.log(alpha_lo), math.log(alpha_hi), xtol=1e-8))
    return alpha, p0_of(alpha)


@dataclass(frozen=True)
class ClaimsCheck:
    """The numbers behind the module docstring's verdicts (all PM in degrees, ω in rad/s).

    Keys of each dict are the gain conventions "paper" and "mgt"."""

    design_pm: dict[str, float]          # α=0.0156, β=0.156, p0=1e-4, T=30 ms, R0=100 ms
    design_wgc: dict[str, float]
    p0_for_25deg: dict[str, float]       # same α, β: the p0 giving 25°
    alpha_for_25deg: dict[str, float]    # at p0=1e-4, β=10α: the α giving 25°
    design_pm_at_50ms: dict[str, float]  # α=0.0156, β=0.156, p0=1e-4, R0=50 ms
    p0_for_29_5deg: dict[str, float]     # α=0.125, β=1.25 at 100 ms: the p0 giving 29.5°
    pm_50ms_hold_p0: dict[str, float]    # ... then R0=50 ms with that p0
    pm_50ms_hold_load: dict[str, float]  # ... then R0=50 ms with N, C fixed (p0 × 4)
    rtt_fit: tuple[float, float]         # (α, p0) of fit_rtt_claim with the paper's κ

    def reproduces_25deg(self, gain: str, tolerance_deg: float = 5.0) -> bool:
        """Whether the 25° claim holds within ``tolerance_deg`` under gain convention ``gain``."""
        return abs(self.design_pm[gain] - 25.0) <= tolerance_deg

    def reproduces_105deg(self, gain: str, tolerance_deg: float = 5.0) -> bool:
        """Whether 29.5° at 100 ms becomes 105° ± ``tolerance_deg`` at 50 ms for the default pair,
        with p0 held or with N and C held."""
        return any(abs(d[gain] - 105.0) <= tolerance_deg
                   for d in (self.pm_50ms_hold_p0, self.pm_50ms_hold_load))

    def report(self) -> str:
        """Printable verdicts with the numbers."""
        lines = ["PIE HPSR 2013 §V claims (T = 30 ms, R+ = 100 ms unless stated):"]
        for g in GAINS:
            kappa = "alpha*R0/(p0*T)" if g == "paper" else "alpha*R0/(2*p0*T)"
            lines += [
                f"[{g} gain, kappa = {kappa}]",
                f"  alpha=0.0156, beta=0.156, p0=1e-4: PM {self.design_pm[g]:.1f} deg at "
                f"{self.design_wgc[g]:.3g} rad/s (paper: 25 deg) -> "
                + _verdict(self.reproduces_25deg(g)),
                f"  25 deg with that pair needs p0 = {100 * self.p0_for_25deg[g]:.2f} %; at p0 = 1e-4 "
                f"it needs alpha = {self.alpha_for_25deg[g]:.3g} (beta = 10 alpha)",
                f"  that pair at R0 = 50 ms: PM {self.design_pm_at_50ms[g]:.1f} deg",
                f"  alpha=0.125, beta=1.25: PM 29.5 deg at 100 ms needs p0 = "
                f"{100 * self.p0_for_29_5deg[g]:.2f} %; at 50 ms PM {self.pm_50ms_hold_p0[g]:.1f} deg "
                f"(p0 held) or {self.pm_50ms_hold_load[g]:.1f} deg (N, C held) (paper: 105 deg) -> "
                + _verdict(self.reproduces_105deg(g)),
            ]
        a, p = self.rtt_fit
        lines.append(f"29.5 -> 105 deg fits only with alpha = {a:.3g}, beta = {10 * a:.3g}, "
                     f"p0 = {p:.3g} held (paper gain): a two-parameter fit, not evidence")
        return "\n".join(lines)


def _verdict(ok: bool) -> str:
    return "reproduced (within 5 deg)" if ok else "NOT reproduced"


def check_paper_claims() -> ClaimsCheck:
    """Compute every number of :class:`ClaimsCheck` (a few seconds)."""
    a_d, b_d, t, r_plus, p_minus = 0.0156, 0.156, 0.03, 0.1, 1e-4
    fields: dict[str, dict[str, float]] = {k: {} for k in (
        "design_pm", "design_wgc", "p0_for_25deg", "alpha_for_25deg", "design_pm_at_50ms",
        "p0_for_29_5deg", "pm_50ms_hold_p0", "pm_50ms_hold_load")}
    for g in GAINS:
        m = pie_margins(a_d, b_d, t, r_plus, p_minus, g)
        fields["design_pm"][g] = m.pm_deg
        fields["design_wgc"][g] = m.w_gc
        fields["p0_for_25deg"][g] = p0_for_phase_margin(25.0, a_d, b_d, t, r_plus, g)
        fields["alpha_for_25deg"][g] = alpha_for_phase_margin(25.0, p_minus, 10.0, t, r_plus, g)
        fields["design_pm_at_50ms"][g] = pie_margins(a_d, b_d, t, 0.05, p_minus, g).pm_deg
        p295 = p0_for_phase_margin(29.5, 0.125, 1.25, t, r_plus, g)
        fields["p0_for_29_5deg"][g] = p295
        fields["pm_50ms_hold_p0"][g] = pie_margins(0.125, 1.25, t, 0.05, p295, g).pm_deg
        fields["pm_50ms_hold_load"][g] = pie_margins(0.125, 1.25, t, 0.05, 4 * p295, g).pm_deg
    return ClaimsCheck(**fields, rtt_fit=fit_rtt_claim())
