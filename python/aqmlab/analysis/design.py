"""Hollot et al. design rules (INFOCOM 2001) and the bilinear map to digital PI coefficients.

* :func:`design_red`: the RED rule of the companion paper, as restated in INFOCOM 2001 eq. (3)
  (ω_g = 0.1·min{p_tcp, p_queue}) with the gain bound of spec ppv-pi2-fluid-tcp.md §3.4.
* :func:`design_p`: Proposition 1 (ω_g = √(p_tcp·p_queue), eq. (4)–(5)), guaranteed PM > 33°.
* :func:`design_pi`: Proposition 2 (zero on the TCP pole, ω_g = 2N⁻/(R⁺²C), eq. (6)–(7)).
* :func:`pi_to_digital` / :func:`digital_to_pi`: Tustin s = (2/T)(1 − z⁻¹)/(1 + z⁻¹) applied to
  K·(1 + s/z)/s gives p[k] = p[k−1] + a·e[k] − b·e[k−1] with a = K(1/z + T/2), b = K(1/z − T/2)
  (spec aqm.md §7.3), and back: K = (a − b)/T, 1/z = (a + b)/(2K).
* :func:`pie_digital` / :func:`pi2_digital`: PIE's and PI²'s update p += α·e[k] + β·(e[k] − e[k−1])
  is the same difference equation with a = α + β, b = β (spec aqm.md §7.4).

What the paper's worked numbers need (tests/analysis/test_design.py): Example 1 and Example 2 are
reproduced to 5·10⁻⁶ relative with R⁺ = 0.2467 s, the value the paper substitutes (0.2 + 175/3750
rounded), ω_g rounded to 1.5 rad/s in Example 1 and the unrounded ω_g = 0.52579 rad/s in Example 2
(the paper prints it as 0.53 but evaluates eq. (7) with the unrounded value, including the
|1 + jω_g/p_queue| factor). The printed a, b are the Tustin map of K_PI = 9.6426e-6 with the
rounded zero z = 0.53 rad/s at 160 Hz.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from ._checks import require_positive, require_range
from .margins import Margins, stability_margins
from .plant import (
    TcpPlant,
    autotune_factor,
    delay_pi_zero,
    p_controller,
    pi_controller,
    red_controller,
)


@dataclass(frozen=True)
class DigitalPI:
    """p[k] = p[k−1] + a·e[k] − b·e[k−1], run every 1/fs seconds.

    error_unit names what e is measured in ("packets" of queue, "s" of queueing delay)."""

    a: float
    b: float
    fs: float
    error_unit: str = "packets"

    def continuous(self) -> tuple[float, float]:
        """(K, z) of the continuous K·(1 + s/z)/s this is the Tustin image of."""
        return digital_to_pi(self.a, self.b, self.fs)


def pi_to_digital(k_pi: float, z: float, fs: float, error_unit: str = "packets") -> DigitalPI:
    """Tustin map of K·(1 + s/z)/s at sampling frequency fs (Hz): a = K(1/z + T/2),
    b = K(1/z − T/2), T = 1/fs (spec aqm.md §7.3)."""
    require_positive("k_pi", k_pi)
    require_positive("z", z, "rad/s")
    require_positive("fs", fs, "Hz")
    half_t = 0.5 / fs
    return DigitalPI(k_pi * (1.0 / z + half_t), k_pi * (1.0 / z - half_t), fs, error_unit)


def digital_to_pi(a: float, b: float, fs: float) -> tuple[float, float]:
    """Inverse Tustin map: (K, z) with K = (a − b)·fs and 1/z = (a + b)/(2K).

    Needs a > b (a positive integral gain) and a + b > 0 (a zero in the left half-plane)."""
    require_positive("fs", fs, "Hz")
    if not (math.isfinite(a) and math.isfinite(b)) or a <= b:
        raise ValueError(f"a must be finite and > b (integral gain (a - b)*fs > 0), got a={a}, b={b}")
    if a + b <= 0:
        raise ValueError(f"a + b must be > 0 (zero z > 0), got a={a}, b={b}")
    k = (a - b) * fs
    return k, 2.0 * k / (a + b)


def pie_digital(alpha: float, beta: float, t_update: float, p0: float | None = None,
                autotune: str = "hpsr") -> DigitalPI:
    """PIE's update as (a, b) on the delay error in seconds: a = f·(α + β), b = f·β, where f is the
    auto-tune factor at ``p0`` (1 when p0 is None)."""
    require_positive("alpha", alpha, "Hz")
    require_range("beta", beta, 0.0, math.inf)
    require_positive("t_update", t_update, "s")
    f = 1.0 if p0 is None else autotune_factor(p0, autotune)
    return DigitalPI(f * (alpha + beta), f * beta, 1.0 / t_update, "s")


def pi2_digital(alpha: float, beta: float, t_update: float) -> DigitalPI:
    """PI²'s update of p′ as (a, b) on the delay error in seconds: a = α + β, b = β (no auto-tune)."""
    return pie_digital(alpha, beta, t_update)


@dataclass(frozen=True)
class Design:
    """A controller designed for the worst case N = N⁻, R0 = R⁺ of capacity C.

    kind: "red", "p" or "pi"; omega_g: the design crossover (rad/s); gain: L_red, K_P or K_PI;
    zero: the PI zero z (rad/s) or the RED filter pole K (rad/s), NaN for P; margins: the exact
    margins of the worst-case loop; plant: that worst-case plant."""

    kind: str
    omega_g: float
    gain: float
    zero: float
    plant: TcpPlant
    margins: Margins

    def digital(self, fs: float) -> DigitalPI:
        """The PI design as digital (a, b) at fs Hz (only for kind == "pi")."""
        if self.kind != "pi":
            raise ValueError(f"digital() applies to a PI design, this design is {self.kind!r}")
        return pi_to_digital(self.gain, self.zero, fs)

    def summary(self) -> str:
        """Printable multi-line description."""
        pl = self.plant
        lines = [
            f"{self.kind.upper()} design for N- = {pl.n_flows:g}, R+ = {pl.rtt:g} s, "
            f"C = {pl.capacity:g} packets/s",
            f"  operating point: W0 = {pl.w0:.4g} packets, p0 = {pl.p0:.4g}",
            f"  poles: p_tcp = {pl.p_tcp:.4g} rad/s, p_queue = {pl.p_queue:.4g} rad/s",
            f"  omega_g = {self.omega_g:.4g} rad/s",
        ]
        if self.kind == "red":
            lines.append(f"  L_red <= {self.gain:.5g} per packet with filter pole K = {self.zero:.4g} rad/s")
        elif self.kind == "p":
            lines.append(f"  L_red (K_P) = {self.gain:.5g} per packet")
        else:
            lines.append(f"  K_PI = {self.gain:.5g}, z = {self.zero:.4g} rad/s")
        lines.append("  worst-case loop: " + self.margins.row())
        if not self.margins.stable:
            # A margin at or below zero: the loop this design was made for would oscillate or
            # diverge, which the bare numbers (an unwrapped PM of -310 deg) do not say plainly.
            lines.append("  the worst-case loop is UNSTABLE (a margin at or below zero): choose a lower omega_g")
        return "\n".join(lines)


def _plant(n_min: float, rtt_max: float, capacity: float) -> TcpPlant:
    return TcpPlant(n_flows=require_positive("n_min", n_min),
                    capacity=require_positive("capacity", capacity, "packets/s"),
                    rtt=require_positive("rtt_max", rtt_max, "s"))


def design_red(n_min: float, rtt_max: float, capacity: float, k: float) -> Design:
    """RED: ω_g = 0.1·min{p_tcp, p_queue} (INFOCOM 2001 eq. (3)) and the largest slope
    L_red = √(ω_g²/K² + 1)·(2N⁻)²/(R⁺C)³ (spec §3.4) for the filter pole ``k`` (rad/s)."""
    plant = _plant(n_min, rtt_max, capacity)
    require_positive("k", k, "rad/s")
    w_g = 0.1 * min(plant.p_tcp, plant.p_queue)
    l_red = math.hypot(w_g / k, 1.0) / plant.dc_gain
    return Design("red", w_g, l_red, k, plant, stability_margins(plant.tf() * red_controller(l_red, k)))


def design_p(n_min: float, rtt_max: float, capacity: float,
             omega_g: float | None = None) -> Design:
    """Proposition 1: ω_g = √(p_tcp·p_queue) (eq. (5)) and
    L_red = |(jω_g/p_tcp + 1)(jω_g/p_queue + 1)|·(2N⁻)²/(R⁺C)³ (eq. (4)).
    ``omega_g`` overrides the crossover (Example 1 evaluates eq. (4) at the rounded 1.5 rad/s)."""
    plant = _plant(n_min, rtt_max, capacity)
    w_g = math.sqrt(plant.p_tcp * plant.p_queue) if omega_g is None else \
        require_positive("omega_g", omega_g, "rad/s")
    l_red = math.hypot(1.0, w_g / plant.p_tcp) * math.hypot(1.0, w_g / plant.p_queue) / plant.dc_gain
    return Design("p", w_g, l_red, math.nan, plant, stability_margins(plant.tf() * p_controller(l_red)))


def design_pi(n_min: float, rtt_max: float, capacity: float,
              omega_g: float | None = None) -> Design:
    """Proposition 2: ω_g = z = 2N⁻/(R⁺²C) (eq. (6)) and
    K_PI = ω_g·|jω_g/p_queue + 1|·(2N⁻)²/(R⁺C)³ (eq. (7)). The proposition assumes
    p_tcp ≪ p_queue; ``omega_g`` overrides the crossover (and zero)."""
    plant = _plant(n_min, rtt_max, capacity)
    w_g = plant.p_tcp if omega_g is None else require_positive("omega_g", omega_g, "rad/s")
    k_pi = w_g * math.hypot(1.0, w_g / plant.p_queue) / plant.dc_gain
    return Design("pi", w_g, k_pi, w_g, plant,
                  stability_margins(plant.tf() * pi_controller(k_pi, w_g)))


def pie_continuous(alpha: float, beta: float, t_update: float) -> tuple[float, float]:
    """(K, z) on the delay error: K = α/T, z = α/((β + α/2)T) (HPSR 2013 eq. (4), (9))."""
    return alpha / require_positive("t_update", t_update, "s"), delay_pi_zero(alpha, beta, t_update)
