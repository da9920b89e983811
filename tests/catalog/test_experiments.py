"""Every experiment in quick mode: it runs, and every claim gets the verdict the catalog expects of
it (:mod:`aqmlab.catalog.expected`), in both directions: a claim that stops reproducing and one
that starts to both fail here until the table is updated with the reason."""

import pytest

from aqmlab import catalog
from aqmlab.analysis.pie_maps import check_paper_claims
from aqmlab.catalog import expected
from aqmlab.catalog.core import MISSING, NULL_UNAVAILABLE, REPRODUCED
from aqmlab.catalog.runner import CLAIMS_CAPTION

# The quick catalog (every experiment over 5 seeds and 2 null-control seeds, about 7 runs each)
# is built once per session by the first test that needs it, which can take longer than the
# suite's 10-minute default.
pytestmark = pytest.mark.timeout(1800)


IDS = [e.id for e in catalog.experiments()]


@pytest.mark.parametrize("exp_id", IDS)
def test_quick_run_judges_every_claim(quick_outcomes, exp_id):
    exp, out = catalog.get(exp_id), quick_outcomes[exp_id]
    assert [c.expectation for c in out.checks] == list(exp.expectations)
    assert all(c.verdict != MISSING for c in out.checks), [(c.expectation.metric, c.detail) for c in out.checks]
    # Every claim about the AQM is judged on the null control, or says why it cannot be.
    assert not out.null_error
    assert not [c.expectation.metric for c in out.checks if c.null_state == NULL_UNAVAILABLE]
    wanted = [expected.verdict(exp, i, True)[0] for i in range(len(exp.expectations))]
    wrong = [(expected.claim_key(exp, i), f"expected {w}, got {c.verdict}", c.detail)
             for i, (c, w) in enumerate(zip(out.checks, wanted)) if c.verdict != w]
    assert not wrong, wrong
    # The experiment's own figures, then the claims figure of the report.
    own = [png for caption, png in out.figures if caption != CLAIMS_CAPTION]
    assert own and all(png.startswith(b"\x89PNG") for _, png in out.figures)
    assert out.figures[-1][0] == CLAIMS_CAPTION and len(own) == len(out.figures) - 1
    assert set(out.scenarios_toml) == set(exp.scenarios(True))


@pytest.mark.parametrize("exp_id", IDS)
def test_full_length_run_judges_every_claim(full_outcomes, exp_id):
    # The papers' durations, 5 seeds and 5 null-control seeds: what `aqmlab reproduce --all`
    # reports, checked against the full-length expectations in both directions.
    exp, out = catalog.get(exp_id), full_outcomes[exp_id]
    assert not out.null_error
    wanted = [expected.verdict(exp, i, False)[0] for i in range(len(exp.expectations))]
    wrong = [(expected.claim_key(exp, i), f"expected {w}, got {c.verdict}", c.detail)
             for i, (c, w) in enumerate(zip(out.checks, wanted)) if c.verdict != w]
    assert not wrong, wrong


DETERMINISTIC = [e.id for e in catalog.experiments() if e.deterministic]


@pytest.mark.parametrize("exp_id", DETERMINISTIC)
def test_a_deterministic_experiment_gives_the_same_numbers_on_another_seed(quick_outcomes, exp_id):
    from aqmlab.catalog.runner import Task, run_task

    again = run_task(Task(exp_id, True, 1, False))
    assert again.metrics == quick_outcomes[exp_id].metrics


def test_every_expected_verdict_names_a_claim_and_gives_a_reason():
    claims = {(e.id, expected.claim_key(e, i)) for e in catalog.experiments() for i in range(len(e.expectations))}
    for table in (expected.QUICK, expected.FULL):
        for key, (verdict, reason) in table.items():
            assert key in claims, f"stale entry {key}"
            assert reason.strip(), key
    assert all(v != REPRODUCED for v, _ in expected.QUICK.values())
    # A full-length "reproduced" is only written down where it overrides a quick verdict.
    for key, (verdict, _) in expected.FULL.items():
        assert verdict != REPRODUCED or expected.QUICK.get(key, (REPRODUCED, ""))[0] != REPRODUCED, key


def test_section_v_verdicts_are_those_of_pie_maps(quick_outcomes):
    claims = check_paper_claims()
    by_metric = {c.expectation.metric: c.verdict for o in ("pie13-fig13", "pie13-fig14")
                 for c in quick_outcomes[o].checks}
    for gain in ("paper", "mgt"):
        assert (by_metric[f"design_pm_{gain}_deg"] == REPRODUCED) == claims.reproduces_25deg(gain)
    assert (by_metric["pm_50ms_hold_p0_paper_deg"] == REPRODUCED or
            by_metric["pm_50ms_hold_load_paper_deg"] == REPRODUCED) == claims.reproduces_105deg("paper")
    # At p0 = 0.01 % auto-tuning runs the /8 pair, whose margin there is the design point's.
    autotuned = {c.expectation.metric: c for c in quick_outcomes["pie13-fig15-16"].checks}["autotuned_min_pm_deg"]
    assert autotuned.value <= claims.design_pm["paper"] + 1e-9
    assert (autotuned.verdict == REPRODUCED) == (autotuned.value >= 0)


def test_pie_far_below_red_after_the_capacity_drop(quick_outcomes):
    m = quick_outcomes["pie13-fig7"].metrics
    assert m["pie_phase2_s"] < m["red_phase2_s"] / 3
    assert m["red_phase2_s"] > 3 * m["red_phase1_s"]  # RED's queue in packets: latency follows 1/capacity


def test_red_latency_follows_the_load_pie_does_not(quick_outcomes):
    m = quick_outcomes["pie13-fig8"].metrics
    assert m["red_phase3_s"] > m["red_phase1_s"]
    assert m["pie_spread_s"] < m["red_spread_s"]


def test_burst_allowance_delays_the_first_drop(quick_outcomes):
    m = quick_outcomes["pie13-fig6"].metrics
    assert m["drops_b100_mb100"] == 0 < m["drops_b100_mb0"]
    assert m["first_drop_b200_mb0_s"] < m["first_drop_b200_mb100_s"]


def test_codel_loses_control_under_udp_overload_pie_does_not(quick_outcomes):
    m = quick_outcomes["pie13-fig11"].metrics
    for t in (5, 20):
        assert m[f"codel_t{t}_frac_le_100ms"] < m[f"pie_t{t}_frac_le_100ms"]


def test_pie_below_red_in_the_data_centre(quick_outcomes):
    for exp_id in ("pie-slides13-dc-1flow", "pie-slides13-dc-5flows", "pie-slides13-dc-20flows"):
        m = quick_outcomes[exp_id].metrics
        assert m["pie_delay_s"] < m["red_delay_s"], exp_id


def test_voip_in_priority_waits_less_than_the_regular_traffic(quick_outcomes):
    m = quick_outcomes["pie-slides13-fqpie-voip"].metrics
    for run in ("tcp", "tcp_udp"):
        assert m[f"{run}_voip_p99_s"] < m[f"{run}_regular_mean_s"]
