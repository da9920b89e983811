"""The compiled fluid integrator (crate ``fluid``) against the numpy reference in
:mod:`aqmlab.analysis.fluid` (issue 22 item 4: same results to 1e-9). The numpy integrator is
the independent oracle here: it advances every configuration together, one vector operation at
a time, while the compiled one runs each configuration's loop on its own, in blocks and threads.
Both evaluate the same expressions in the same order, so the tolerance is 1e-9 absolute and
relative; only RED's exp/log1p come from different math libraries."""

import numpy as np
import pytest

from aqmlab.analysis.fluid import simulate

# Every controller, with capacity and flow-count schedules, batches whose round trips differ
# (so the history ring wraps at different lags), a full buffer (tail-drop loss), and a window cap.
BASE = dict(capacity=1250.0, n_flows=np.array([5.0, 20.0, 60.0, 2.0, 35.0]), tp=np.array([0.1, 0.05, 0.2, 0.02, 0.3]),
            buffer=np.array([1000.0, 300.0, 1000.0, 50.0, 700.0]), t_end=20.0,
            capacity_schedule=[(6.0, 600.0), (13.0, np.array([2000.0, 900.0, 3000.0, 100.0, 1500.0]))],
            flows_schedule=[(9.0, np.array([10.0, 3.0, 80.0, 1.0, 20.0]))], max_window=np.array([1e6, 1e6, 40.0, 1e6, 1e6]))
CASES = {
    "pie-hpsr": dict(aqm="pie"),
    "pie-rfc8033": dict(aqm="pie", aqm_params={"autotune": "rfc8033", "target": 0.015}),
    "pi": dict(aqm="pi", aqm_params={"q_ref": 100.0}),
    "pi2": dict(aqm="pi2"),
    "p": dict(aqm="p", aqm_params={"q_min": 20.0}),
    "red": dict(aqm="red", aqm_params={"min_th": 30.0, "max_th": 200.0, "w_q": 0.002}),
    "red-gentle": dict(aqm="red", aqm_params={"gentle": True, "min_th": 10.0, "max_th": 40.0, "p_max": 0.2}),
    "droptail": dict(aqm="droptail"),
    "odd-grid": dict(aqm="pie", dt=7e-4, record_every=3.3e-3, t_end=5.0),
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_compiled_matches_the_numpy_reference(name):
    args = {**BASE, **CASES[name]}
    compiled, reference = simulate(**args), simulate(**args, reference=True)
    assert compiled.keys() == reference.keys()
    for key in reference:
        assert compiled[key].shape == reference[key].shape, key
        np.testing.assert_allclose(compiled[key], reference[key], rtol=1e-9, atol=1e-9, err_msg=key)
    assert reference["q"].max() > 0  # the queue did build: the comparison covers the loop, not only its start


def test_batch_larger_than_a_block_and_odd():
    """More configurations than one block of lanes (and not a multiple): each gets its own row."""
    n = np.linspace(3, 90, 21)
    args = dict(capacity=1250.0, n_flows=n, tp=0.1, buffer=500.0, t_end=8.0, aqm="pi2")
    compiled, reference = simulate(**args), simulate(**args, reference=True)
    for key in reference:
        np.testing.assert_allclose(compiled[key], reference[key], rtol=1e-9, atol=1e-9, err_msg=key)
