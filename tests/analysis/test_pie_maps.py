"""PIE HPSR 2013 §V: maps and the check of the paper's claims. The numbers asserted are what the
model gives (see aqmlab.analysis.pie_maps docstring), not the paper's claims."""

import numpy as np
import pytest

from aqmlab.analysis.pie_maps import (
    FIG15_PAIRS,
    alpha_for_phase_margin,
    check_paper_claims,
    margin_vs_rtt,
    margin_vs_sqrt_p,
    p0_for_phase_margin,
    phase_margin_map,
    pie_loop,
    pie_margins,
)


@pytest.fixture(scope="module")
def claims():
    return check_paper_claims()


def test_paper_gain_is_twice_the_fluid_gain():
    paper = pie_loop(0.125, 1.25, 0.03, 0.1, 0.01, gain="paper")
    mgt = pie_loop(0.125, 1.25, 0.03, 0.1, 0.01, gain="mgt")
    assert paper.gain == pytest.approx(2 * mgt.gain)
    assert paper.gain == pytest.approx(0.125 * 0.1 / (0.01 * 0.03))   # κ = αR0/(p0T)


def test_claim_25_degrees_at_p_minus_does_not_reproduce(claims):
    """Claim: α = 0.0156, β = 0.156 give ≈ 25° at p⁻ = 0.01 % (T = 30 ms, R⁺ = 100 ms)."""
    assert claims.design_pm["paper"] == pytest.approx(-56.1, abs=0.1)
    assert claims.design_pm["mgt"] == pytest.approx(-22.7, abs=0.1)
    assert claims.design_wgc["paper"] == pytest.approx(13.9, abs=0.05)
    assert claims.design_wgc["mgt"] == pytest.approx(9.08, abs=0.05)
    assert not claims.reproduces_25deg("paper") and not claims.reproduces_25deg("mgt")
    # Under which assumption it would hold: p⁻ ≈ 0.60 % (paper κ) or 0.31 % (MGT κ) ...
    assert claims.p0_for_25deg["paper"] == pytest.approx(0.00595, rel=2e-3)
    assert claims.p0_for_25deg["mgt"] == pytest.approx(0.00310, rel=2e-3)
    # ... or α about 600× smaller at p⁻ = 0.01 %.
    assert claims.alpha_for_25deg["paper"] == pytest.approx(2.59e-5, rel=2e-3)
    assert 0.0156 / claims.alpha_for_25deg["paper"] == pytest.approx(602, rel=0.01)
    # The solved points really give 25°.
    assert pie_margins(0.0156, 0.156, 0.03, 0.1, claims.p0_for_25deg["mgt"], "mgt").pm_deg == \
        pytest.approx(25.0, abs=1e-6)


def test_claim_29_5_to_105_degrees_does_not_reproduce(claims):
    """Claim: PM improves from 29.5° to 105° when R0 goes from 100 ms to 50 ms."""
    assert claims.design_pm_at_50ms["paper"] == pytest.approx(-11.3, abs=0.1)
    assert claims.design_pm_at_50ms["mgt"] == pytest.approx(16.3, abs=0.1)
    assert claims.p0_for_29_5deg["paper"] == pytest.approx(0.0682, rel=2e-3)
    assert claims.pm_50ms_hold_p0["paper"] == pytest.approx(88.6, abs=0.1)
    assert claims.pm_50ms_hold_load["paper"] == pytest.approx(96.3, abs=0.1)
    assert claims.pm_50ms_hold_p0["mgt"] == pytest.approx(79.8, abs=0.1)
    assert claims.pm_50ms_hold_load["mgt"] == pytest.approx(95.3, abs=0.1)
    assert not claims.reproduces_105deg("paper") and not claims.reproduces_105deg("mgt")
    alpha, p0 = claims.rtt_fit
    assert (alpha, p0) == pytest.approx((0.541, 0.342), rel=3e-3)
    assert pie_margins(alpha, 10 * alpha, 0.03, 0.1, p0).pm_deg == pytest.approx(29.5, abs=1e-3)
    assert pie_margins(alpha, 10 * alpha, 0.03, 0.05, p0).pm_deg == pytest.approx(105.0, abs=1e-3)


def test_claims_report_states_verdicts(claims):
    text = claims.report()
    assert text.count("NOT reproduced") == 4
    assert "-56.1 deg" in text and "0.60 %" in text and "alpha = 0.541" in text


def test_fig13_map_shape_and_trend():
    alphas, betas = [0.001, 0.0156, 0.125], [0.01, 0.156, 1.25]
    pm = phase_margin_map(alphas, betas)
    assert pm.shape == (3, 3)
    assert pm[1, 1] == pytest.approx(-56.1, abs=0.1)
    assert np.all(np.diff(pm, axis=1) < 0)          # more α (integral gain): less PM, every β
    # β is not monotone: a little β adds lead (z1 falls towards the crossover), much β adds gain.
    assert pm[1, 1] > pm[0, 1] and pm[2, 1] < pm[1, 1]
    assert pm[0, 0] == pytest.approx(13.2, abs=0.1) and pm[2, 2] == pytest.approx(-234.7, abs=0.1)


def test_fig14_margin_rises_as_rtt_falls():
    rtts = [0.1, 0.075, 0.05]
    held = margin_vs_rtt(rtts, 0.125, 1.25, p0=0.0682)
    load = margin_vs_rtt(rtts, 0.125, 1.25, p0=0.0682, hold="load", rtt_ref=0.1)
    assert held[0] == pytest.approx(29.5, abs=0.05) and load[0] == pytest.approx(held[0])
    assert np.all(np.diff(held) > 0) and np.all(np.diff(load) > 0)
    assert held[-1] == pytest.approx(88.6, abs=0.1) and load[-1] == pytest.approx(96.3, abs=0.1)


def test_figs15_16_ordering():
    """Lower (α, β): more phase margin and a lower crossover, at every √p0; the two larger pairs
    are unstable below √p0 = 0.1 with the paper's gain."""
    x = [0.01, 0.05, 0.1, 0.3]
    cur = margin_vs_sqrt_p(x)
    assert cur.pairs == FIG15_PAIRS and cur.pm_deg.shape == (3, 4)
    assert np.all(np.diff(cur.pm_deg, axis=0) > 0)
    assert np.all(np.diff(cur.w_gc, axis=0) < 0)
    assert np.all(cur.pm_deg[:2, :2] < 0)
    assert cur.pm_deg[2, 0] == pytest.approx(-56.1, abs=0.1)   # even the /8 pair at p0 = 1e-4
    mgt = margin_vs_sqrt_p(x, gain="mgt")
    assert np.all(mgt.pm_deg > cur.pm_deg)


def test_spec_pie_table_hpsr_row():
    """Spec §3.5 table, HPSR auto-tune, T = 30 ms, R0 = 100 ms: paper κ | MGT κ."""
    expected = {1e-4: (-56, -23), 1e-3: (-4, 12), 1e-2: (-4, 20), 0.05: (47, 67), 0.1: (48, 73),
                0.2: (79, 87)}
    for p0, (paper, mgt) in expected.items():
        got = [pie_margins(0.125, 1.25, 0.03, 0.1, p0, g, "hpsr").pm_deg for g in ("paper", "mgt")]
        assert got == pytest.approx([paper, mgt], abs=0.6)


def test_solvers_validate_and_bracket():
    assert alpha_for_phase_margin(25.0, 1e-4) == pytest.approx(2.59e-5, rel=2e-3)
    with pytest.raises(ValueError, match="sign change"):
        p0_for_phase_margin(150.0, 0.125, 1.25)
    with pytest.raises(ValueError, match="gain"):
        pie_loop(0.125, 1.25, 0.03, 0.1, 0.01, gain="linux")
    with pytest.raises(ValueError, match="hold"):
        margin_vs_rtt([0.1], 0.1, 1.0, hold="n")
    with pytest.raises(ValueError, match="sqrt_p"):
        margin_vs_sqrt_p([1.2])
    with pytest.raises(ValueError, match="betas"):
        phase_margin_map([0.1], [-1.0])
