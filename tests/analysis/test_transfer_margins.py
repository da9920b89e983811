"""FactoredTF evaluation, the root-finder, and the margins against theory and python-control."""

import math

import numpy as np
import pytest

from aqmlab.analysis import (
    FactoredTF,
    TcpPlant,
    p_controller,
    pade_margins,
    pi2_controller,
    pi_controller,
    pie_controller,
    red_controller,
    sampler_delay,
    stability_margins,
)
from aqmlab.analysis.margins import find_root, gain_crossovers, phase_crossovers


@pytest.mark.parametrize(("f", "lo", "hi", "root"), [
    (math.cos, 0.0, 3.0, math.pi / 2),
    (lambda x: x**3 - 2.0, 0.0, 2.0, 2.0 ** (1 / 3)),
    (lambda x: math.exp(x) - 1e6, 0.0, 50.0, math.log(1e6)),       # very skewed
    (lambda x: math.atan(1e4 * (x - 0.3)), -1.0, 1.0, 0.3),          # nearly a step
    (lambda x: x - 1.0, 1.0, 2.0, 1.0),                              # root at an end
])
def test_find_root_known_roots(f, lo, hi, root):
    assert find_root(f, lo, hi) == pytest.approx(root, rel=1e-12, abs=1e-12)


def test_find_root_needs_sign_change():
    with pytest.raises(ValueError, match="sign change"):
        find_root(lambda x: x * x + 1.0, -1.0, 1.0)


def test_analytic_magnitude_and_phase_match_complex_product():
    tf = FactoredTF(3.0, zeros=(0.7,), poles=(0.2, 5.0), integrators=1, delay=0.13)
    w = np.logspace(-2, 1.2, 50)   # ωτ < π so that np.angle does not wrap yet
    h = tf.response(w)
    assert np.allclose(tf.magnitude(w), np.abs(h), rtol=1e-12)
    assert np.allclose(tf.phase_deg(w), np.degrees(np.unwrap(np.angle(h))), atol=1e-9)


def test_phase_is_unwrapped_through_the_delay():
    tf = FactoredTF(1.0, delay=0.1)
    assert float(tf.phase_deg(100.0)) == pytest.approx(-math.degrees(10.0))


def test_product_and_rational_coefficients():
    a = FactoredTF(2.0, zeros=(1.0,), integrators=1)
    b = FactoredTF(3.0, poles=(4.0,), delay=0.5)
    ab = a * b
    assert (ab.gain, ab.zeros, ab.poles, ab.integrators, ab.delay) == (6.0, (1.0,), (4.0,), 1, 0.5)
    num, den = ab.rational_coefficients()
    assert np.allclose(num, [6.0, 6.0]) and np.allclose(den, [0.25, 1.0, 0.0])


@pytest.mark.parametrize(("kwargs", "name"), [
    ({"gain": 0.0}, "gain"), ({"gain": 1.0, "zeros": (-1.0,)}, "zeros"),
    ({"gain": 1.0, "poles": (0.0,)}, "poles"), ({"gain": 1.0, "delay": -0.1}, "delay"),
    ({"gain": 1.0, "integrators": -1}, "integrators"),
])
def test_factored_tf_rejects_bad_arguments(kwargs, name):
    with pytest.raises(ValueError, match=name):
        FactoredTF(**kwargs)


@pytest.mark.parametrize(("k", "tau"), [(1.0, 0.1), (5.0, 0.2), (20.0, 0.1)])
def test_integrator_with_delay_closed_form(k, tau):
    """L = k·e^(−sτ)/s: ω_c = k, PM = 90° − kτ·180/π, ω_180 = π/(2τ), GM = −20·log10(2kτ/π)."""
    m = stability_margins(FactoredTF(k, integrators=1, delay=tau))
    assert m.w_gc == pytest.approx(k, rel=1e-10)
    assert m.pm_deg == pytest.approx(90.0 - math.degrees(k * tau), abs=1e-8)
    assert m.w_pc == pytest.approx(math.pi / (2 * tau), rel=1e-10)
    assert m.gm_db == pytest.approx(-20 * math.log10(2 * k * tau / math.pi), abs=1e-8)
    assert m.stable == (k * tau < math.pi / 2)


def test_no_crossover_gives_infinite_margins():
    m = stability_margins(FactoredTF(0.5, poles=(1.0,)))
    assert m.pm_deg == math.inf and m.gm_db == math.inf and m.gain_crossovers == ()


def test_wrapped_phase_margin():
    m = stability_margins(FactoredTF(30.0, integrators=1, delay=0.2))  # PM = 90 − 343.8°
    assert m.pm_deg == pytest.approx(90 - math.degrees(6.0))
    assert m.pm_wrapped_deg == pytest.approx(m.pm_deg + 360.0)


HOLLOT = TcpPlant(60, 3750, 0.24667)
PIE_PLANT = TcpPlant.from_p0(0.01, 0.1, capacity=1250.0)
LOOPS = {
    "hollot PI": HOLLOT.tf() * pi_controller(9.6426e-6, 0.53),
    "hollot PI N=30": TcpPlant(30, 3750, 0.24667).tf() * pi_controller(9.6426e-6, 0.53),
    "hollot P": HOLLOT.tf() * p_controller(5.8624e-5),
    "RED": HOLLOT.tf() * red_controller(1.95e-4, 0.005),
    "PIE hpsr p0=1%": PIE_PLANT.tf() * pie_controller(0.125, 1.25, 0.03, 1250.0, 0.01),
    "PIE + sampler": PIE_PLANT.tf() * pie_controller(0.125, 1.25, 0.03, 1250.0, 0.05)
    * sampler_delay(0.03),
    "PI2 p0=1%": PIE_PLANT.tf() * pi2_controller(0.16, 3.2, 0.016, 1250.0, 0.01),
    "PIE unstable": PIE_PLANT.tf() * pie_controller(0.125, 1.25, 0.03, 1250.0, 0.01, "none"),
}


@pytest.mark.parametrize("name", list(LOOPS))
def test_margins_agree_with_python_control_pade(name):
    """Independent check (issue 5 acceptance): python-control on a 12th-order Padé delay, 1°."""
    loop = LOOPS[name]
    ours = stability_margins(loop)
    pm, w_gc, gm_db, w_pc = pade_margins(loop, order=12)
    assert ours.pm_wrapped_deg == pytest.approx(pm, abs=1.0)
    assert ours.w_gc == pytest.approx(w_gc, rel=1e-3)
    assert ours.gm_db == pytest.approx(gm_db, abs=0.1)
    assert ours.w_pc == pytest.approx(w_pc, rel=1e-3)


def test_hollot_pi_example_margins_match_spec():
    """Spec §3.4 [CALC]: with the paper's K and z = 0.53, PM = 75.0°, GM = 18.8 dB, ω_c = 0.524."""
    m = stability_margins(LOOPS["hollot PI"])
    assert m.pm_deg == pytest.approx(75.0, abs=0.05)
    assert m.gm_db == pytest.approx(18.8, abs=0.05)
    assert m.w_gc == pytest.approx(0.524, abs=5e-4)
    assert m.w_pc == pytest.approx(3.49, abs=0.01)


def test_pade_margins_rejects_bad_order():
    with pytest.raises(ValueError, match="order"):
        pade_margins(LOOPS["RED"], order=0)


def test_every_gain_crossover_is_found_and_the_worst_margin_reported():
    """|L| of 0.3·(1 + s)²/(s·(1 + s/100)³) crosses 1 three times (falling, rising, falling)."""
    loop = FactoredTF(0.3, zeros=(1.0, 1.0), poles=(100.0, 100.0, 100.0), integrators=1)
    gcs = gain_crossovers(loop)
    assert len(gcs) == 3
    assert np.allclose(loop.magnitude(np.array(gcs)), 1.0, rtol=1e-10)
    m = stability_margins(loop)
    assert m.gain_crossovers == tuple(gcs)
    assert m.pm_deg == pytest.approx(min(180 + float(loop.phase_deg(w)) for w in gcs))


def test_phase_crossovers_of_every_turn():
    """e^(−sτ)/s reaches −180° − k·360° at ω = (π/2 + 2πk)/τ."""
    tau = 0.05
    pcs = phase_crossovers(FactoredTF(1.0, integrators=1, delay=tau), max_turns=4)
    expected = [(math.pi / 2 + 2 * math.pi * k) / tau for k in range(4)]
    assert pcs == pytest.approx(expected, rel=1e-10)
