"""The MGT fluid model with sampled AQMs against equilibrium theory and the linear margins."""

import math

import numpy as np
import pytest

from aqmlab.analysis.fluid import bench_fluid, fluid_run, simulate, to_dataframe
from aqmlab.analysis.margins import find_root, stability_margins
from aqmlab.analysis.plant import TcpPlant, pi2_controller, pie_controller

HOLLOT = {"capacity": 3750.0, "tp": 0.2, "buffer": 800.0}
PIE_BASE = {"tp": 0.1, "buffer": 1000.0}       # 10 Mb/s of 1000 B packets: C = 1250 packets/s


def tail(run, key, seconds):
    """The last ``seconds`` of a recorded series (rows: time)."""
    return run[key][run["t"] >= run["t"][-1] - seconds]


def p_equilibrium(q, n, c, tp):
    """MGT equilibrium drop probability for queue q: W0 = R0·C/N, p0 = 2/W0², R0 = q/C + Tp."""
    return 2.0 / ((q / c + tp) * c / n) ** 2


@pytest.fixture(scope="module")
def pi_runs():
    """Hollot PI example (INFOCOM 2001 §VI a, b at 160 Hz, q_ref 175); config 1 loses 20 of its
    60 flows at t = 30 s."""
    return simulate(n_flows=60, t_end=60.0, aqm="pi", flows_schedule=[(30.0, np.array([60, 40]))],
                    **HOLLOT)


@pytest.fixture(scope="module")
def pie_runs():
    """PIE HPSR defaults: N = 5 and 50 at Tp = 100 ms (the PIE base scenario), N = 5 at 200 ms, and
    N = 20 whose capacity halves at t = 30 s."""
    c = 1250.0
    return simulate(capacity=c, n_flows=np.array([5, 50, 5, 20]), tp=np.array([0.1, 0.1, 0.2, 0.1]),
                    buffer=1000.0, t_end=60.0, aqm="pie",
                    capacity_schedule=[(30.0, np.array([c, c, c, c / 2]))])


def test_pi_example_converges_to_q_ref(pi_runs):
    """Issue 5 acceptance: q → 175 packets (±0.5) and p → 2/W0² (spec §3.8: 190 at t = 10 s)."""
    q = tail(pi_runs, "q", 5.0)[:, 0]
    p = tail(pi_runs, "p", 5.0)[:, 0]
    assert np.all(np.abs(q - 175.0) < 0.5)
    assert q.mean() == pytest.approx(175.0, abs=0.01)
    assert p.mean() == pytest.approx(p_equilibrium(175.0, 60, 3750.0, 0.2), rel=1e-4)
    assert p.mean() == pytest.approx(0.008415, abs=1e-6)
    assert tail(pi_runs, "W", 5.0)[:, 0].mean() == pytest.approx(15.4167, abs=1e-3)
    at10 = pi_runs["q"][np.searchsorted(pi_runs["t"], 10.0), 0]
    assert 185.0 < at10 < 195.0


def test_pi_recovers_after_flows_leave(pi_runs):
    q = tail(pi_runs, "q", 5.0)[:, 1]
    assert np.all(np.abs(q - 175.0) < 0.5)
    assert tail(pi_runs, "p", 5.0)[:, 1].mean() == pytest.approx(
        p_equilibrium(175.0, 40, 3750.0, 0.2), rel=1e-3)
    assert tail(pi_runs, "n_flows", 1.0)[0, 1] == 40.0


def test_pie_settles_at_its_delay_reference(pie_runs):
    """PIE base scenario (5 and 50 flows, 10 Mb/s, 100 ms): queue delay → 20 ms, p → 2/W0²."""
    for col, n in ((0, 5), (1, 50)):
        d = tail(pie_runs, "queue_delay", 10.0)[:, col]
        assert np.all(np.abs(d - 0.02) < 1e-4)
        assert tail(pie_runs, "p", 10.0)[:, col].mean() == pytest.approx(
            p_equilibrium(0.02 * 1250.0, n, 1250.0, 0.1), rel=1e-3)


def test_pie_settles_again_after_capacity_halves(pie_runs):
    d = tail(pie_runs, "queue_delay", 5.0)[:, 3]
    assert np.all(np.abs(d - 0.02) < 1e-3)
    assert tail(pie_runs, "capacity", 1.0)[0, 3] == 625.0
    assert tail(pie_runs, "p", 5.0)[:, 3].mean() == pytest.approx(
        p_equilibrium(0.02 * 625.0, 20, 625.0, 0.1), rel=1e-2)


def pie_linear_pm(n, c, tp, target=0.02):
    plant = TcpPlant(n, c, tp + target)
    return stability_margins(plant.tf() * pie_controller(0.125, 1.25, 0.03, c, plant.p0)).pm_deg


def test_linear_instability_shows_as_oscillation(pie_runs):
    """Issue 5 acceptance: a loop the linear model calls unstable oscillates in the fluid model.
    PIE (HPSR auto-tune) with 5 flows: PM +12° at Tp = 100 ms, −40° at Tp = 200 ms."""
    assert pie_linear_pm(5, 1250.0, 0.1) == pytest.approx(12.1, abs=0.1)
    assert pie_linear_pm(5, 1250.0, 0.2) == pytest.approx(-40.2, abs=0.1)
    swing = np.ptp(tail(pie_runs, "queue_delay", 20.0), axis=0)
    assert swing[0] < 1e-4
    assert swing[2] > 0.015          # sustained: 20 ms peak to peak over the last 20 s
    assert np.ptp(tail(pie_runs, "queue_delay", 5.0)[:, 2]) > 0.015


def test_pi2_settles_or_cycles_as_the_margins_say():
    """RFC 9332 classic defaults; p = p′² → 2/W0² at 15 ms; spec §3.6: unstable at R0 ≈ 200 ms."""
    run = simulate(capacity=1250.0, n_flows=np.array([5, 50, 5]), tp=np.array([0.1, 0.1, 0.2]),
                   buffer=1000.0, t_end=60.0, aqm="pi2")
    d = tail(run, "queue_delay", 10.0)
    for col, n in ((0, 5), (1, 50)):
        assert np.all(np.abs(d[:, col] - 0.015) < 5e-4)
        assert tail(run, "p", 10.0)[:, col].mean() == pytest.approx(
            p_equilibrium(0.015 * 1250.0, n, 1250.0, 0.1), rel=1e-2)
    margins = []
    for tp in (0.1, 0.2):
        plant = TcpPlant(5, 1250.0, tp + 0.015)
        margins.append(stability_margins(
            plant.tf() * pi2_controller(0.16, 3.2, 0.016, 1250.0, plant.p0)).pm_deg)
    assert margins[0] > 0 > margins[1]
    assert np.ptp(d[:, 2]) > 0.01


def test_proportional_and_red_reach_the_fluid_equilibrium():
    """P (Example 1 slope from q = 100) and RED: the queue settles where the controller's static
    map p(q) meets the TCP equilibrium p0 = 2N²/(R0·C)², solved here by root-finding."""
    n, c, tp = 60, 3750.0, 0.2
    q_p = find_root(lambda q: 5.8624e-5 * (q - 100.0) - p_equilibrium(q, n, c, tp), 100.0, 800.0)
    q_red = find_root(lambda q: 0.1 * (q - 150.0) / 550.0 - p_equilibrium(q, n, c, tp), 150.0, 700.0)
    run_p = simulate(n_flows=n, t_end=40.0, aqm="p", **HOLLOT)
    run_red = simulate(n_flows=n, t_end=60.0, aqm="red", aqm_params={"w_q": 1e-5}, **HOLLOT)
    assert tail(run_p, "q", 5.0).mean() == pytest.approx(q_p, abs=0.5)
    assert tail(run_red, "q", 5.0).mean() == pytest.approx(q_red, abs=1.0)
    assert q_p == pytest.approx(228.3, abs=0.1) and q_red == pytest.approx(194.35, abs=0.1)


def test_droptail_fills_the_buffer_and_saw_tooths():
    run = simulate(capacity=1250.0, n_flows=5, tp=0.1, buffer=200.0, t_end=30.0, aqm="droptail")
    q = tail(run, "q", 15.0)
    assert q.max() == 200.0 and np.ptp(q) > 30.0 and np.all(run["p"] == 0.0)


def test_fluid_run_matches_the_batch(pie_runs):
    single = fluid_run({"capacity_bps": 10e6, "packet_bytes": 1000, "n_flows": 5, "rtt_s": 0.1,
                        "buffer_packets": 1000, "t_end_s": 60.0,
                        "aqm": {"type": "pie", "alpha": 0.125, "beta": 1.25, "autotune": "hpsr"}})
    assert set(single) == {"t", "W", "q", "p", "queue_delay", "rtt", "capacity", "n_flows"}
    assert single["q"].shape == single["t"].shape == (6001,)
    np.testing.assert_allclose(single["q"], pie_runs["q"][:, 0], rtol=0, atol=1e-9)
    frame = to_dataframe(pie_runs, config=1)
    assert frame.index.name == "t_s" and list(frame.columns)[:3] == ["W", "q", "p"]
    np.testing.assert_array_equal(frame["queue_delay"].to_numpy(), pie_runs["queue_delay"][:, 1])
    assert to_dataframe(single)["q"].iloc[-1] == single["q"][-1]
    with pytest.raises(ValueError, match="config must be in"):
        to_dataframe(pie_runs, config=4)


def test_fluid_run_schedules_in_bps():
    out = fluid_run({"capacity_bps": 15e6, "packet_bytes": 500, "n_flows": 60, "tp_s": 0.2,
                     "buffer_packets": 800, "t_end_s": 2.0, "aqm": {"type": "pi"},
                     "capacity_schedule_bps": [(1.0, 7.5e6)], "flows_schedule": [(0.5, 30)],
                     "record_every_s": 0.5})
    assert out["capacity"].tolist() == [3750.0, 3750.0, 1875.0, 1875.0, 1875.0]
    assert out["n_flows"].tolist() == [60.0, 30.0, 30.0, 30.0, 30.0]   # in force from t = 0.5


@pytest.mark.parametrize(("params", "message"), [
    ({"n_flows": 1, "rtt_s": 0.1, "buffer_packets": 10, "t_end_s": 1}, "capacity_bps"),
    ({"capacity_bps": -1, "n_flows": 1, "rtt_s": 0.1, "buffer_packets": 10, "t_end_s": 1},
     "capacity_bps must be > 0"),
    ({"capacity_bps": 1e6, "n_flows": 1, "rtt_s": 0.1, "tp_s": 0.1, "buffer_packets": 10,
      "t_end_s": 1}, "exactly one of rtt_s or tp_s"),
    ({"capacity_bps": 1e6, "n_flows": 1, "rtt_s": 0.1, "buffer_packets": 10, "t_end_s": 1,
      "speed": 2}, "unknown fluid_run keys"),
    ({"capacity_bps": 1e6, "n_flows": 1, "rtt_s": 0.1, "buffer_packets": 10, "t_end_s": 1,
      "aqm": {"type": "codel"}}, "aqm must be one of"),
    ({"capacity_bps": 1e6, "n_flows": 1, "rtt_s": 0.1, "buffer_packets": 10, "t_end_s": 1,
      "aqm": {"type": "pie", "gamma": 1}}, "unknown parameters for aqm 'pie'"),
    ({"capacity_bps": 1e6, "n_flows": 1, "rtt_s": 0.1, "buffer_packets": 10, "t_end_s": 1,
      "aqm": {"type": "pie", "autotune": "fast"}}, "autotune must be one of"),
    ({"capacity_bps": 1e6, "n_flows": 1, "rtt_s": 0.1, "buffer_packets": 10, "t_end_s": 1,
      "aqm": {"type": "red", "min_th": 50, "max_th": 20}}, "max_th must be > min_th"),
    ({"capacity_bps": 1e6, "n_flows": 1, "rtt_s": 0.1, "buffer_packets": 10, "t_end_s": 1,
      "aqm": {"type": "pi", "a": -1}}, "a must be finite and > 0"),
    ({"capacity_bps": 1e6, "n_flows": 1, "rtt_s": 0.1, "buffer_packets": 10, "t_end_s": 1,
      "aqm": {"type": "red", "w_q": 1.0}}, "w_q must be in"),
    ({"capacity_bps": 1e6, "n_flows": 1, "rtt_s": 0.1, "buffer_packets": 10, "t_end_s": 1,
      "dt_s": 0.05}, "dt must be in"),
])
def test_fluid_run_rejects_bad_input(params, message):
    with pytest.raises(ValueError, match=message):
        fluid_run(params)


def test_simulate_rejects_mismatched_batches():
    with pytest.raises(ValueError, match="disagree in length"):
        simulate(capacity=np.ones(3) * 100, n_flows=np.ones(2), tp=0.1, buffer=10, t_end=1.0)


def test_bench_fluid_reports_a_rate():
    rate = bench_fluid(n_configs=20, t_end=0.5)
    assert math.isfinite(rate) and rate > 0
