"""Issue 8: the PI controller (INFOCOM 2001) and PI² in ns-3 (WNS3 2017) in the catalog.

The quick runs come from the catalog suite's session fixture (every experiment once); these tests
check the issue's acceptance criteria on them directly, and the scenarios against the papers' setups.
"""

import json

import pytest

from aqmlab import Scenario, catalog
from aqmlab.analysis.design import design_p, design_pi, pi_to_digital
from aqmlab.catalog import pi2_wns3_2017 as pi2
from aqmlab.catalog import pi_infocom2001 as pi
from aqmlab.catalog.runner import CLAIMS_CAPTION

PI_IDS = {f"pi01-exp{n}" for n in range(1, 9)} | {"pi01-fig7", "pi01-fig16-20", "pi01-design"}
PI2_IDS = {"pi2wns3-s1", "pi2wns3-s2", "pi2wns3-s3", "pi2wns3-s4-20tcp", "pi2wns3-s4-mix"}


def test_every_experiment_of_issue_8_is_registered():
    ids = {e.id for e in catalog.experiments()}
    assert PI_IDS | PI2_IDS <= ids, (PI_IDS | PI2_IDS) - ids
    assert {e.id for e in catalog.select(["pi01-"])} == PI_IDS
    assert {e.id for e in catalog.select(["pi2wns3-"])} == PI2_IDS


def _resolved(d: dict) -> dict:
    return Scenario.from_dict(d).resolved


@pytest.mark.parametrize("quick", [True, False])
def test_pi_scenarios_follow_the_paper(quick):
    """§IV/§VI: 15 Mb/s, 500 B, 800-packet buffer, RTT 160–240 ms, ns-2 Sack1; the printed gains."""
    s = _resolved(pi.EXP3.scenarios(quick)["pi"])
    assert s["bottleneck"]["rate"] == "15Mbps"
    q = s["bottleneck"]["queue"]
    assert (q["type"], q["limit"], q["a"], q["b"], q["sample_freq"], q["q_ref"]) == \
        ("pi", "800p", 1.822e-5, 1.816e-5, 160.0, 200.0)
    groups = {f["name"]: f for f in s["flows"]}
    assert groups["ftp"]["count"] + groups["ftp-leaving"]["count"] == 60 and groups["http"]["count"] == 180
    assert groups["ftp-leaving"]["stop"] == "100s"
    assert all(f["profile"] == "ns2-sack" and f["packet_size"] == "500B" for f in s["flows"])
    # base RTT = 2 (access + bottleneck): uniform 160–240 ms
    assert groups["ftp"]["access_delay"] == {"uniform": ["70ms", "110ms"]}
    red = _resolved(pi.EXP3.scenarios(quick)["red"])["bottleneck"]["queue"]
    assert (red["min_th"], red["max_th"], red["max_p"], red["w_q"]) == (150.0, 700.0, 0.1, 1.33e-6)
    p7 = _resolved(pi.FIG7.scenarios(quick)["p1"])["bottleneck"]["queue"]
    assert p7["slope"] * (800 - p7["q_min"]) == pytest.approx(1.0)


def test_pi2_scenarios_follow_table_3():
    for aqm, (alpha, beta) in (("pi2", (0.125, 1.25)), ("pi2final", (0.3125, 3.125))):
        s = _resolved(pi2.S1.scenarios(False)[aqm])
        q = s["bottleneck"]["queue"]
        assert (q["alpha"], q["beta"], q["target"], q["tupdate"], q["limit"], q["dq_threshold"]) == \
            (alpha, beta, "20ms", "30ms", "200000B", "10000B")
        assert s["bottleneck"]["rate"] == "10Mbps" and s["access"]["rate"] == "10Mbps"
        assert s["duration"] == "100s"
        assert all(f["profile"] == "ns3.26" and f["packet_size"] == "1000B" and f["access_delay"] == "5ms"
                   for f in s["flows"])
        assert s["bottleneck"]["delay"] == "50ms"   # 100 ms bottleneck round trip + 10 ms on the access links
    pie = _resolved(pi2.S1.scenarios(False)["pie"])["bottleneck"]["queue"]
    assert (pie["target"], pie["tupdate"], pie["alpha"], pie["beta"]) == ("20ms", "30ms", 0.125, 1.25)
    mix = _resolved(pi2.S4_MIX.scenarios(True)["pi2-5ms"])
    assert mix["bottleneck"]["queue"]["target"] == "5ms"
    assert [(f["type"], f["count"]) for f in mix["flows"]] == [("tcp", 5), ("udp", 2)]


def _m(outcomes, exp_id: str) -> dict:
    return outcomes[exp_id].metrics


def test_pi_holds_its_reference_under_every_load(quick_outcomes):
    """Acceptance: PI's mean queue within ±15 % of 200 packets under every load of Exps. 3–7."""
    for exp_id, phases in (("pi01-exp3", 3), ("pi01-exp4", 1), ("pi01-exp5", 1), ("pi01-exp6", 1), ("pi01-exp7", 1)):
        m = _m(quick_outcomes, exp_id)
        for i in range(1, phases + 1):
            assert 170 <= m[f"pi_phase{i}_pk"] <= 230, (exp_id, i, m[f"pi_phase{i}_pk"])


def test_red_equilibrium_depends_on_the_load(quick_outcomes):
    """Acceptance: RED's mean queue in Exp. 5 at least 50 % above Exp. 4's; PI's is not."""
    exp5, exp4 = _m(quick_outcomes, "pi01-exp5"), _m(quick_outcomes, "pi01-exp4")
    assert exp5["red_phase1_pk"] >= 1.5 * exp5["red_exp4_phase1_pk"]
    # the Exp. 4 runs repeated inside Exp. 5 are the same runs
    assert (exp5["red_exp4_phase1_pk"], exp5["pi_exp4_phase1_pk"]) == (exp4["red_phase1_pk"], exp4["pi_phase1_pk"])
    assert abs(exp5["pi_phase1_pk"] - exp5["pi_exp4_phase1_pk"]) < 0.15 * pi.Q_REF


def test_red_and_p_hit_the_roof_pi_holds(quick_outcomes):
    """Acceptance: in Exp. 7 RED and P reach the buffer limit while PI holds."""
    m = _m(quick_outcomes, "pi01-exp7")
    assert m["red_phase1_pk"] > 0.9 * pi.BUFFER and m["p_phase1_pk"] > 0.9 * pi.BUFFER
    assert m["pi_phase1_pk"] < 0.5 * pi.BUFFER and m["pi_full_fraction"] == 0.0


def test_p_and_pi_respond_faster_than_red(quick_outcomes):
    assert _m(quick_outcomes, "pi01-exp1")["p_settle_s"] < _m(quick_outcomes, "pi01-exp1")["red_settle_s"]
    # PI against RED in Exps. 3-4 is not asserted on seed 1 here: with two-sided settling the
    # claim deviates over the seeds (aqmlab.catalog.expected says why), which the catalog test checks.
    m3 = _m(quick_outcomes, "pi01-exp3")
    assert m3["pi_spread_pk"] < m3["red_spread_pk"]


def test_design_metrics_are_the_analysis_modules(quick_outcomes):
    m = _m(quick_outcomes, "pi01-design")
    assert m["ex1_l_red"] == design_p(60, 0.2467, 3750, omega_g=1.5).gain
    assert m["ex2_k_pi"] == design_pi(60, 0.2467, 3750).gain
    d = pi_to_digital(9.6426e-6, 0.53, 160.0)
    assert (m["ex2_a"], m["ex2_b"]) == pytest.approx((d.a, d.b), rel=1e-5)
    assert all(c.verdict == catalog.REPRODUCED for c in quick_outcomes["pi01-design"].checks if
               c.expectation.metric.startswith(("ex1_l_red", "ex2_k_pi", "ex2_a", "ex2_b")))


def test_tradeoff_curves_come_from_sweeps(quick_outcomes):
    out = quick_outcomes["pi01-fig16-20"]
    assert out.text.count("sweep ") == 4 and "bottleneck.queue.q_ref" in out.text
    m = out.metrics
    for mix in ("ftp", "mix"):
        assert m[f"{mix}_delay_slope_x_c"] > 0
    # The experiment's two figures, then the report's claims figure.
    assert [c == CLAIMS_CAPTION for c, _ in out.figures] == [False, False, True]


def test_pi2_no_worse_than_pie(quick_outcomes):
    """Acceptance: PI²'s 90th-percentile queueing delay not above PIE's by more than 20 %, for both
    gain sets, both loads and both targets."""
    for exp_id in ("pi2wns3-s4-20tcp", "pi2wns3-s4-mix"):
        m = _m(quick_outcomes, exp_id)
        for t in pi2.TARGETS_MS:
            for run in pi2.PI2_RUNS:
                assert m[f"{run}_t{t}_p90_s"] <= 1.2 * m[f"pie_t{t}_p90_s"], (exp_id, run, t)


def test_pi2_and_pie_control_the_delay_under_udp_overload(quick_outcomes):
    m = _m(quick_outcomes, "pi2wns3-s3")
    for aqm in pi2.AQMS:
        assert 0.010 <= m[f"{aqm}_delay_s"] <= 0.030 and m[f"{aqm}_utilization"] > 0.99, aqm


def test_outcomes_serialise(quick_outcomes):
    for exp_id in sorted(PI_IDS | PI2_IDS):
        json.dumps(quick_outcomes[exp_id].to_json(), allow_nan=False)
