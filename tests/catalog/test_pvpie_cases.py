"""The PVPIE case metrics (aqmlab.catalog.pvpie_anrw2017_cases) on hand-made series whose answers
are known."""

import math
from types import SimpleNamespace

import numpy as np
import pandas as pd

from aqmlab.catalog import pvpie_anrw2017 as pv
from aqmlab.catalog import pvpie_anrw2017_cases as cases


def _probe(t, ctv, desired):
    df = pd.DataFrame({"t_s": t, "ctv": ctv, "desired_ctv": desired})
    return SimpleNamespace(probe=lambda: df)


def test_filter_stats_measure_distance_spread_bias_and_how_often_it_is_set():
    r = _probe([1.0, 2.0, 3.0, 4.0, 5.0], [0, 0, 10, 10, 99], [10, 10, 10, 10, 10])
    s = cases.filter_stats(r, [(0.0, 4.0)])  # the sample at 5 s lies outside the window
    assert s == {"filter_dev": 5.0, "filter_sd": 5.0, "filter_minus_desired": -5.0, "filter_set": 0.5}


def test_filter_stats_are_undefined_without_pvpie_probe():
    droptail = SimpleNamespace(probe=lambda: pd.DataFrame({"t_s": [1.0], "desired_ctv": [10.0]}))
    assert all(math.isnan(v) for v in cases.filter_stats(droptail, [(0.0, 2.0)]).values())


def _series(t, flows, per_flow, desired):
    t = np.asarray(t, dtype=float)
    return {"t_s": t, "flows": np.asarray(flows, float), "per_flow_bps": np.asarray(per_flow, float),
            "desired_bps": np.asarray(desired, float)}


def test_ratio_errors_per_window_skip_windows_without_both_classes():
    t = [1, 2, 3, 4]
    # Window (0, 2]: Gold 3 Mb/s against Silver 1 where 4 is desired (error 0.25); window (2, 4]:
    # no Silver flow yet, so no ratio.
    series = {"gold": _series(t, [1, 1, 1, 1], [3e6, 3e6, 5e6, 5e6], [4e6] * 4),
              "silver": _series(t, [1, 1, 0, 0], [1e6, 1e6, 0, 0], [1e6] * 4)}
    assert np.allclose(pv.ratio_errors(series, "gold", "silver", [(0, 2), (2, 4)]), [0.25])


def test_transient_windows_are_the_five_seconds_after_each_change():
    assert pv.transient_windows(4) == [(30.0, 35.0), (60.0, 65.0), (90.0, 95.0)]
    # ... which the steady windows leave out.
    assert pv._windows(2) == [(5.0, 30.0), (35.0, 60.0)]
