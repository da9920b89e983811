"""The linearised plant (Hollot et al. eq. (1)) and the controller transfer functions."""

import math

import numpy as np
import pytest

from aqmlab.analysis.plant import (
    ScalablePlant,
    TcpPlant,
    autotune_factor,
    delay_pi_zero,
    dualpi2_l_controller,
    pi2_controller,
    pie_controller,
    red_controller,
    red_filter_pole,
)


def test_operating_point_of_the_hollot_example():
    """Spec §3.4 [CALC]: W0 = 15.4, p0 = 0.0084, p_tcp = 0.5259, p_queue = 4.054, G = 54 962."""
    pl = TcpPlant(60, 3750, 0.24667)
    assert pl.w0 == pytest.approx(15.416, abs=1e-3)
    assert pl.p0 == pytest.approx(0.008415, abs=1e-6)
    assert pl.p_tcp == pytest.approx(0.5259, abs=1e-4)
    assert pl.p_queue == pytest.approx(4.054, abs=1e-3)
    assert pl.dc_gain == pytest.approx(54962, rel=1e-4)
    assert pl.p_tcp == pytest.approx(math.sqrt(2 * pl.p0) / pl.rtt, rel=1e-12)


def test_plant_equals_hollot_factored_form():
    """P_tcp·P_queue of eq. (1): (R0C²/2N²)/(s + 2N/R0²C) · (N/R0)/(s + 1/R0), times e^(−sR0)."""
    n, c, r = 40.0, 2000.0, 0.15
    pl = TcpPlant(n, c, r)
    s = 1j * np.logspace(-2, 2, 30)
    ref = (r * c**2 / (2 * n**2)) / (s + 2 * n / (r**2 * c)) * (n / r) / (s + 1 / r) * np.exp(-s * r)
    assert np.allclose(pl.tf().response(s.imag), ref, rtol=1e-12)


def test_from_p0_round_trip():
    pl = TcpPlant.from_p0(0.003, 0.08, capacity=1000.0)
    assert pl.p0 == pytest.approx(0.003, rel=1e-12) and pl.rtt == 0.08


def test_delay_units_dc_gain_is_r0_over_2p0():
    """Spec §3.2: in delay units (τ = q/C) the plant DC gain is R0/(2p0), independent of N and C."""
    for n, c, r in ((5, 1250, 0.12), (50, 1250, 0.12), (60, 3750, 0.2467)):
        pl = TcpPlant(n, c, r)
        assert pl.dc_gain / c == pytest.approx(r / (2 * pl.p0), rel=1e-12)


def test_pie_loop_gain_is_half_the_paper_kappa():
    """HPSR eq. (9): L ≈ κ/s at low ω; the MGT plant gives κ = αR0/(2·p0·T)."""
    alpha, beta, t, c = 0.125, 1.25, 0.03, 1250.0
    pl = TcpPlant(20, c, 0.1)
    loop = pl.tf() * pie_controller(alpha, beta, t, c, pl.p0, autotune="none")
    w = 1e-7
    kappa = float(loop.magnitude(w)) * w
    assert kappa == pytest.approx(alpha * pl.rtt / (2 * pl.p0 * t), rel=1e-9)
    assert loop.zeros == (pytest.approx(alpha / ((beta + alpha / 2) * t)),)
    assert sorted(loop.poles) == pytest.approx([math.sqrt(2 * pl.p0) / pl.rtt, 1 / pl.rtt])


def test_pi2_high_frequency_gain_is_independent_of_p0():
    """Spec §2.1: above s1 the PI² loop is ≈ κ′·s1/s² with κ′·s1 = √2·α/T for every p0."""
    alpha, t, r = 0.16, 0.016, 0.1
    for p0 in (1e-4, 1e-2, 0.2):
        pl = TcpPlant.from_p0(p0, r)
        loop = pl.tf() * pi2_controller(alpha, 0.0, t, pl.capacity, p0)
        kappa = loop.gain
        assert kappa == pytest.approx(alpha * r / (math.sqrt(p0) * t), rel=1e-12)
        assert kappa * pl.p_tcp == pytest.approx(math.sqrt(2) * alpha / t, rel=1e-12)


def test_scalable_plant_by_hand():
    """p0 = 0.02, R0 = 0.1 s, C = 1: W0 = 2/p0 = 100, N = R0·C/W0 = 0.001; DC gain N·W0²/2 = 5;
    poles p0/(2R0) = 0.1 rad/s and 1/R0 = 10 rad/s; delay R0."""
    pl = ScalablePlant.from_p0(0.02, 0.1)
    assert pl.n_flows == pytest.approx(0.001, rel=1e-12)
    tf = pl.tf()
    assert tf.gain == pytest.approx(5.0, rel=1e-12)
    assert tf.poles == pytest.approx((0.1, 10.0), rel=1e-12)
    assert tf.delay == 0.1


def test_l4s_loop_gain_is_k_over_p0_where_classic_is_one_over_sqrt_p0():
    """Loop gain at low frequency (× s): L4S k·α/(T·C)·C²R²/(2N) = k·α·R/(p0·T) with N = R·C·p0/2;
    classic α·R/(√p0·T) (the test above). So the L4S loop gain grows as 1/p0, not 1/√p0, and k
    scales it (RFC 9332 §2.4: k trades window balance against this gain)."""
    alpha, t, r = 0.16, 0.016, 0.1
    for p0 in (1e-3, 1e-2, 0.2):
        pl = ScalablePlant.from_p0(p0, r)
        for k in (1.0, 2.0):
            loop = pl.tf() * dualpi2_l_controller(alpha, 0.0, t, pl.capacity, k)
            assert loop.gain == pytest.approx(k * alpha * r / (p0 * t), rel=1e-12)


@pytest.mark.parametrize(("table", "p", "factor"), [
    ("hpsr", 0.001, 1 / 8), ("hpsr", 0.0099, 1 / 8), ("hpsr", 0.01, 1 / 2), ("hpsr", 0.099, 1 / 2),
    ("hpsr", 0.1, 1.0), ("rfc8033", 5e-7, 1 / 2048), ("rfc8033", 5e-5, 1 / 128),
    ("rfc8033", 0.05, 1 / 2), ("rfc8033", 0.5, 1.0), ("ns", 5e-4, 1 / 32), ("none", 1e-5, 1.0),
])
def test_autotune_tables(table, p, factor):
    assert autotune_factor(p, table) == factor


def test_pie_controller_applies_autotune_to_gain_only():
    lo = pie_controller(0.125, 1.25, 0.03, 1000.0, 0.005)
    hi = pie_controller(0.125, 1.25, 0.03, 1000.0, 0.5)
    assert lo.gain * 8 == pytest.approx(hi.gain) and lo.zeros == hi.zeros


def test_red_filter_pole_per_packet_sampling():
    """INFOCOM 2001 §II: K = −ln(1 − w_q)/δ, δ = 1/C; w_q = 1.33e-6 at 3750 packets/s → 0.005."""
    assert red_filter_pole(1.33e-6, 1 / 3750) == pytest.approx(0.0049875, rel=1e-4)
    red = red_controller(1e-4, 0.005)
    assert float(red.magnitude(0.005)) == pytest.approx(1e-4 / math.sqrt(2))


@pytest.mark.parametrize(("call", "name"), [
    (lambda: TcpPlant(0, 1, 1), "n_flows"),
    (lambda: TcpPlant(1, -5, 1), "capacity"),
    (lambda: TcpPlant(1, 1, float("nan")), "rtt"),
    (lambda: TcpPlant.from_p0(1.0, 0.1), "p0"),
    (lambda: autotune_factor(0.1, "linux"), "autotune"),
    (lambda: autotune_factor(1.5), "p must be in"),
    (lambda: delay_pi_zero(0.1, -1.0, 0.03), "beta"),
    (lambda: red_filter_pole(1.0, 0.001), "w_q"),
    (lambda: pi2_controller(0.1, 1.0, 0.03, 100.0, 0.0), "p0"),
])
def test_bad_arguments_name_the_argument(call, name):
    with pytest.raises(ValueError, match=name):
        call()
