"""Hollot design rules (INFOCOM 2001 Propositions 1, 2 and Examples 1, 2) and the bilinear map."""

import itertools

import pytest

from aqmlab.analysis.design import (
    DigitalPI,
    design_p,
    design_pi,
    design_red,
    digital_to_pi,
    pi2_digital,
    pi_to_digital,
    pie_continuous,
    pie_digital,
)
from aqmlab.analysis.margins import stability_margins
from aqmlab.analysis.plant import TcpPlant, p_controller, pi_controller

# The paper substitutes R+ = 0.2467 s (0.2 + 175/3750 rounded to 4 digits) in Examples 1 and 2.
N_MIN, R_PLUS, C = 60, 0.2467, 3750


def test_example1_proportional_design():
    """Example 1: ω_g = √(0.5259·4.0541) ≈ 1.5 rad/s; eq. (4) at the rounded ω_g = 1.5 gives
    L_red = 5.8624e-5. Tolerance 1e-5 relative: we reproduce 5.86237e-5, the paper prints 5 digits."""
    exact = design_p(N_MIN, R_PLUS, C)
    assert exact.plant.p_tcp == pytest.approx(0.5258, abs=1e-4)
    assert exact.plant.p_queue == pytest.approx(4.0535, abs=1e-4)
    assert exact.omega_g == pytest.approx(1.46, abs=0.005)       # "≈ 1.5 rad/sec"
    rounded = design_p(N_MIN, R_PLUS, C, omega_g=1.5)
    assert rounded.gain == pytest.approx(5.8624e-5, rel=1e-5)
    # With the unrounded ω_g the same equation gives 2.7 % less.
    assert exact.gain == pytest.approx(5.7048e-5, rel=1e-4)


def test_example2_pi_design():
    """Example 2: eq. (6)–(7) with the unrounded ω_g = 2N⁻/(R⁺²C) = 0.5258 (printed "0.53") give
    K_PI = 9.6426e-6. Tolerance 1e-5 relative (we get 9.64264e-6; the paper prints 5 digits).
    Evaluating eq. (7) at the printed ω_g = 0.53 instead gives 9.7212e-6 (0.8 % more)."""
    d = design_pi(N_MIN, R_PLUS, C)
    assert d.omega_g == pytest.approx(0.53, abs=0.005)
    assert d.zero == d.omega_g
    assert d.gain == pytest.approx(9.6426e-6, rel=1e-5)
    assert design_pi(N_MIN, R_PLUS, C, omega_g=0.53).gain == pytest.approx(9.7212e-6, rel=1e-4)


def test_example2_digital_coefficients_at_160hz():
    """§VI: a = 1.822e-5, b = 1.816e-5 at 160 Hz: the Tustin map of K_PI = 9.6426e-6 with the
    printed zero 0.53 rad/s. Tolerance: half a unit in the 4th printed digit (footnote 4: the paper
    keeps four significant digits)."""
    d = pi_to_digital(9.6426e-6, 0.53, 160.0)
    assert d.a == pytest.approx(1.822e-5, abs=0.0005e-5)
    assert d.b == pytest.approx(1.816e-5, abs=0.0005e-5)
    assert (d.a, d.b) == pytest.approx((1.82237e-5, 1.81635e-5), rel=1e-5)   # spec aqm.md §7.3
    assert d.a - d.b == pytest.approx(9.6426e-6 / 160.0, rel=1e-12)


def test_bilinear_map_round_trip():
    for k, z, fs in ((9.6426e-6, 0.53, 160.0), (8.3333, 6.349, 66.7), (1e-3, 50.0, 10.0)):
        k2, z2 = digital_to_pi(*(lambda d: (d.a, d.b))(pi_to_digital(k, z, fs)), fs)
        assert (k2, z2) == pytest.approx((k, z), rel=1e-12)
    assert DigitalPI(1.822e-5, 1.816e-5, 160.0).continuous() == pytest.approx((9.6e-6, 0.52779),
                                                                              rel=1e-4)


def test_bilinear_map_equals_difference_equation():
    """Tustin check in the time domain: the ramp response of a·e[k] − b·e[k−1] + p[k−1] to a unit
    step equals the exact response K(1/z + t) of K(1 + s/z)/s sampled at the midpoint rule."""
    k, z, fs = 2.0, 3.0, 50.0
    d = pi_to_digital(k, z, fs)
    p, e_old = 0.0, 0.0
    for n in range(1, 40):
        p = p + d.a * 1.0 - d.b * e_old
        e_old = 1.0
        assert p == pytest.approx(k * (1 / z + (n - 0.5) / fs), rel=1e-12)


def test_pie_and_pi2_in_the_same_form():
    """Spec aqm.md §7.4: a = α + β, b = β; K = α/T, z = α/((β + α/2)T). PIE RFC defaults
    (0.125, 1.25, 15 ms): K = 8.333, z = 6.35 rad/s; DualPI2 (0.16, 3.2, 16 ms): K = 10, z = 3.05."""
    pie = pie_digital(0.125, 1.25, 0.015)
    assert (pie.a, pie.b, pie.fs, pie.error_unit) == pytest.approx((1.375, 1.25, 1 / 0.015, "s"))
    assert pie.continuous() == pytest.approx((8.3333, 6.3492), rel=1e-4)
    assert pie_continuous(0.125, 1.25, 0.015) == pytest.approx(pie.continuous(), rel=1e-12)
    assert pi2_digital(0.16, 3.2, 0.016).continuous() == pytest.approx((10.0, 3.0488), rel=1e-4)
    # RFC 8033: halving T with α/2 and β + α/4 keeps K and z.
    half = pie_digital(0.0625, 1.25 + 0.125 / 4, 0.0075)
    assert half.continuous() == pytest.approx(pie.continuous(), rel=1e-12)
    # auto-tune at p0 scales a and b (and K), not z.
    tuned = pie_digital(0.125, 1.25, 0.015, p0=0.005)
    assert (tuned.a, tuned.b) == pytest.approx((1.375 / 8, 1.25 / 8))
    assert tuned.continuous()[1] == pytest.approx(pie.continuous()[1])


def test_red_rule_numbers():
    """Spec §3.4 [CALC] (R⁺ = 0.246, K = 0.005): ω_g = 0.0529, L_red ≤ 1.95e-4, crossover 0.053,
    PM ≈ 88°, GM ≈ 32 dB."""
    d = design_red(N_MIN, 0.246, C, 0.005)
    assert d.omega_g == pytest.approx(0.0529, abs=1e-4)
    assert d.gain == pytest.approx(1.95e-4, rel=2e-3)
    assert d.margins.w_gc == pytest.approx(0.053, abs=1e-3)
    assert d.margins.pm_deg == pytest.approx(88.3, abs=0.1)
    assert d.margins.gm_db == pytest.approx(32.4, abs=0.1)


P_GRID = list(itertools.product((60, 90, 240, 1000), (0.05, 0.15, 0.2467)))
PI_GRID = list(itertools.product((60, 120, 600), (0.05, 0.15, 0.2467)))


@pytest.mark.parametrize(("n", "r"), P_GRID)
def test_proposition1_guarantees_33_degrees(n, r):
    """Prop. 1: stable with PM > 33° for every N ≥ N⁻ and R0 ≤ R⁺."""
    gain = design_p(N_MIN, R_PLUS, C).gain
    m = stability_margins(TcpPlant(n, C, r).tf() * p_controller(gain))
    assert m.stable and m.pm_deg > 33.0


@pytest.mark.parametrize(("n", "r"), PI_GRID)
def test_proposition2_is_stabilising(n, r):
    d = design_pi(N_MIN, R_PLUS, C)
    m = stability_margins(TcpPlant(n, C, r).tf() * pi_controller(d.gain, d.zero))
    assert m.stable


def test_pi_robustness_table_of_the_spec():
    """Spec §3.4 [CALC] with the paper's K_PI and z = 0.53 at R = 0.24667: PM/GM."""
    cases = {(120, 0.24667): (93, 26), (30, 0.24667): (47, 12), (60, 0.30): (56, 15),
             (60, 0.15): (96, 29)}
    for (n, r), (pm, gm) in cases.items():
        m = stability_margins(TcpPlant(n, C, r).tf() * pi_controller(9.6426e-6, 0.53))
        assert m.pm_deg == pytest.approx(pm, abs=0.6) and m.gm_db == pytest.approx(gm, abs=0.6)


def test_design_summary_and_digital():
    d = design_pi(N_MIN, R_PLUS, C)
    text = d.summary()
    assert "K_PI = 9.6426e-06" in text and "PM" in text
    assert d.digital(160.0).a == pytest.approx(d.gain * (1 / d.zero + 1 / 320))
    with pytest.raises(ValueError, match="PI design"):
        design_p(N_MIN, R_PLUS, C).digital(160.0)


@pytest.mark.parametrize(("call", "name"), [
    (lambda: design_pi(0, R_PLUS, C), "n_min"),
    (lambda: design_p(N_MIN, -1, C), "rtt_max"),
    (lambda: design_red(N_MIN, R_PLUS, 0, 0.005), "capacity"),
    (lambda: design_red(N_MIN, R_PLUS, C, 0), "k must"),
    (lambda: design_pi(N_MIN, R_PLUS, C, omega_g=-1), "omega_g"),
    (lambda: pi_to_digital(1e-5, 0.5, 0), "fs"),
    (lambda: digital_to_pi(1e-5, 2e-5, 160), "a must be finite and > b"),
    (lambda: digital_to_pi(1e-5, -2e-5, 160), "a \\+ b"),
    (lambda: pie_digital(0.0, 1.0, 0.03), "alpha"),
])
def test_design_errors_name_the_argument(call, name):
    with pytest.raises(ValueError, match=name):
        call()


def test_a_design_that_destabilizes_its_loop_says_so():
    # omega_g = 100 rad/s, far above the plant's poles (0.53 and 4.1 rad/s) with R+ = 0.2467 s:
    # the gain margin is negative (GM < 0 dB), so the summary must say UNSTABLE; the paper's own
    # example 2 design (omega_g = 0.53 rad/s) keeps both margins positive and says nothing.
    bad = design_pi(N_MIN, R_PLUS, C, omega_g=100.0)
    assert bad.margins.gm_db < 0 and "UNSTABLE" in bad.summary()
    good = design_pi(N_MIN, R_PLUS, C)
    assert good.margins.stable and "UNSTABLE" not in good.summary()
