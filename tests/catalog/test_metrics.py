"""The catalog's metrics on hand-made traces, where the answers are known exactly."""

import math
from types import SimpleNamespace

import numpy as np
import pandas as pd
import pytest

from aqmlab.catalog import metrics


def fake_result(t, delay_s, rate_bps=8e6, sojourn_s=None):
    """A stand-in for a Result whose queue samples give the delay series exactly: the backlog
    is delay·rate/8, and the interval mean sojourn is ``sojourn_s`` (default: the same delay)."""
    t = np.asarray(t, dtype=float)
    backlog = np.asarray(delay_s, dtype=float) * rate_bps / 8
    soj = np.asarray(delay_s if sojourn_s is None else sojourn_s, dtype=float)
    q = pd.DataFrame({"t_s": t, "backlog_bytes": backlog, "sojourn_mean_s": soj, "rate_bps": np.full_like(t, rate_bps)})
    return SimpleNamespace(queue=lambda: q, scenario=SimpleNamespace(name="fake"))


def test_backlog_delay_is_backlog_over_rate_and_windows_are_half_open():
    r = fake_result([0, 1, 2, 3], [0.01, 0.02, 0.03, 0.04])
    assert np.allclose(metrics.delay_series(r, metrics.BACKLOG)["delay_s"], [0.01, 0.02, 0.03, 0.04])
    assert math.isclose(metrics.delay_mean(r, 1, 3, metrics.BACKLOG), 0.025)
    assert math.isnan(metrics.delay_mean(r, 10, 20))


def test_the_two_delays_are_kept_apart_and_sojourn_is_the_default():
    # A queue that drains: 100 ms of backlog ahead, while the packets leaving waited 20 ms.
    r = fake_result([0, 1], [0.1, 0.1], sojourn_s=[0.02, 0.02])
    assert math.isclose(metrics.delay_mean(r, 0, 2), 0.02)
    assert math.isclose(metrics.delay_mean(r, 0, 2, metrics.BACKLOG), 0.1)
    with pytest.raises(ValueError, match="delay quantity 'latency'"):
        metrics.delay_series(r, "latency")


def test_intervals_without_departures_leave_the_mean_and_break_settling():
    # Sojourns: 20 ms, then 1 s with no packet leaving (NaN), then 20 ms again.
    t = np.arange(0, 4, 0.1)
    soj = np.where((t >= 1) & (t < 2), np.nan, 0.02)
    r = fake_result(t, soj, sojourn_s=soj)
    assert math.isclose(metrics.delay_mean(r, 0, 4), 0.02)
    # In band from 0 but the gap breaks the hold: settled only from t = 2.
    assert math.isclose(metrics.settle_time(r, 0, (0.01, 0.03), 1.5, 4), 2.0, abs_tol=1e-9)


def test_phase_delays_skip_the_start_of_each_phase():
    t = np.arange(0, 30, 0.5)
    lat = np.where(t < 10, 0.01, np.where(t < 20, 0.05, 0.02))
    lat[(t >= 10) & (t < 12)] = 1.0  # a transient the skip must hide
    m = metrics.phase_delays({"x": fake_result(t, lat)}, [0, 10, 20, 30], skip=2)
    assert np.allclose([m["x_phase1_s"], m["x_phase2_s"], m["x_phase3_s"]], [0.01, 0.05, 0.02])
    assert math.isclose(m["x_spread_s"], 0.04)


def test_within_phase_sd_ignores_the_change_of_level_between_phases():
    t = np.arange(0, 4, 0.5)
    # Phase [0, 2): 10 and 30 ms alternating (spread 10 ms); phase [2, 4): a flat 100 ms.
    d = np.array([0.01, 0.03, 0.01, 0.03, 0.1, 0.1, 0.1, 0.1])
    assert math.isclose(metrics.within_phase_sd(fake_result(t, d), [0, 2, 4], skip=0), math.sqrt(0.5) * 0.01)


def test_settle_time_needs_the_level_held():
    t = np.arange(0, 20, 0.1)
    lat = np.where(t < 13, 0.1, 0.01)
    lat[(t >= 11) & (t < 11.5)] = 0.01  # a dip too short to count
    r = fake_result(t, lat)
    assert math.isclose(metrics.settle_time(r, 10, (0.0, 0.03), 2.0, 20), 3.0, abs_tol=1e-9)
    assert metrics.settle_time(r, 10, (0.0, 0.03), 2.0, 14) == math.inf
    # Smoothing over 1 s delays entry by the time the trailing mean needs to fall below the level.
    smoothed = metrics.settle_time(r, 10, (0.0, 0.03), 2.0, 20, smooth_s=1.0)
    assert 3.0 < smoothed < 4.0


def test_cdf_at_interpolates_the_histogram():
    r = SimpleNamespace(delay_cdf=lambda: (np.array([0.001, 0.002, 0.004]), np.array([0.25, 0.5, 1.0])))
    assert metrics.cdf_at(r, 0.0005) == 0.0
    assert math.isclose(metrics.cdf_at(r, 0.003), 0.75)
    assert metrics.cdf_at(r, 1.0) == 1.0
