"""`aqmlab margins dualpi2`'s L4S loop against an oracle written here from first principles:
a scalable fluid model linearised by hand and RFC 9332 Appendix A's sampled PI law evaluated on
the unit circle, with its own crossover search (numpy only, no aqmlab.analysis code).

The oracle's plant: N scalable flows give back W·p/2 per round trip and add one segment,
dW/dt = 1/R − W·p/(2R), so W0 = 2/p0 and δW/δp = −(1/(p0·R))/(s + p0/(2R)); the queue
dq/dt = N·W/R − C, with the round trip's dependence on the queue (Hollot et al.), gives
δq/δW = (N/R)/(s + 1/R); the feedback arrives one round trip late, e^(−sR). The controller:
p′[n] = p′[n−1] + α(τ[n] − τ_ref) + β(τ[n] − τ[n−1]) every T on τ = q/C (RFC 9332 A.1), so per
update C(z) = (α + β(1 − z⁻¹))/(1 − z⁻¹), and p_L = k·p′. The module's continuous form
K(1 + s/z1)/s, K = α/T, z1 = α/((β + α/2)T), is C(e^(jωT)) to first order in ωT (write C with
z^(±1/2): the half-sample lag of 1/(1 − z⁻¹) is what moves the zero from α/(βT) to z1).
"""

import math

import numpy as np
import pytest

from aqmlab.analysis.margins import stability_margins
from aqmlab.analysis.plant import ScalablePlant, dualpi2_l_controller

ALPHA, BETA, T, K = 0.16, 3.2, 0.016, 2.0  # sch_dualpi2's defaults, k = 2


def oracle_loop(w: np.ndarray, p0: float, rtt: float) -> tuple[np.ndarray, np.ndarray]:
    """|L(jω)| and arg L(jω) (rad, unwrapped by construction) of the L4S loop, C = 1 packet/s."""
    c = 1.0
    n = rtt * c * p0 / 2.0
    theta = w * T
    z_inv = np.exp(-1j * theta)
    window = (1.0 / (p0 * rtt)) / (1j * w + p0 / (2.0 * rtt))
    queue = (n / rtt) / (1j * w + 1.0 / rtt)
    numerator = ALPHA + BETA * (1.0 - z_inv)
    # 1/(1 − e^(−jθ)) has phase −(π − θ)/2 exactly.
    mag = np.abs(window) * np.abs(queue) * K * np.abs(numerator) / np.abs(1.0 - z_inv) / c
    phase = np.angle(window) + np.angle(queue) + np.angle(numerator) - (math.pi - theta) / 2.0 - w * rtt
    return mag, phase


def oracle_margin(p0: float, rtt: float) -> tuple[float, float]:
    """(phase margin in degrees, gain crossover in rad/s) at the first |L| = 1 crossing."""
    w = np.logspace(-4, 3, 400_001)
    mag, phase = oracle_loop(w, p0, rtt)
    i = int(np.argmax(mag < 1.0))
    assert i > 0 and mag[0] > 1.0, "one gain crossover inside the scan"
    # Log-linear interpolation between the two grid points around |L| = 1.
    f = math.log(mag[i - 1]) / (math.log(mag[i - 1]) - math.log(mag[i]))
    w_gc = math.exp(math.log(w[i - 1]) + f * (math.log(w[i]) - math.log(w[i - 1])))
    ph = phase[i - 1] + f * (phase[i] - phase[i - 1])
    return 180.0 + math.degrees(ph), w_gc


@pytest.mark.parametrize(("p0", "rtt"), [(0.01, 0.02), (0.1, 0.02), (0.01, 0.1), (0.1, 0.1), (0.3, 0.05)])
def test_l4s_loop_margins_match_the_first_principles_oracle(p0, rtt):
    # Tolerance from the one approximation that separates the two, the continuous law: at the
    # crossover θ = ω_gc·T stays below 0.1 here, where it differs from the sampled law by
    # second-order terms in θ (θ²/12 ≈ 0.05° of phase, under 0.1 % of magnitude). Bands 0.5° and
    # 1 % cover that and the oracle's grid interpolation; a missing half-sample (θ/2 ≈ 1.9°)
    # would fail them.
    plant = ScalablePlant.from_p0(p0, rtt)
    got = stability_margins(plant.tf() * dualpi2_l_controller(ALPHA, BETA, T, plant.capacity, K))
    pm, w_gc = oracle_margin(p0, rtt)
    assert w_gc * T < 0.1
    assert got.w_gc == pytest.approx(w_gc, rel=0.01)
    assert got.pm_deg == pytest.approx(pm, abs=0.5)


def test_the_oracle_discriminates_a_wrong_coupling():
    # The same oracle with k = 1 in the module's loop: the crossover moves (the loop gain
    # halves), so the comparison above would fail by far more than its bands.
    plant = ScalablePlant.from_p0(0.01, 0.02)
    wrong = stability_margins(plant.tf() * dualpi2_l_controller(ALPHA, BETA, T, plant.capacity, 1.0))
    _, w_gc = oracle_margin(0.01, 0.02)
    assert abs(wrong.w_gc / w_gc - 1.0) > 0.1
