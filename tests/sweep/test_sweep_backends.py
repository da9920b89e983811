"""The same sweep on every backend and worker count gives the same results table, to the bit.

Dask and Ray are optional dependencies (extras sweep-dask, sweep-ray): their tests skip without them.
Ray starts once for the module (its start-up takes seconds).
"""

import pandas as pd
import pytest

from aqmlab.sweep import LocalPool, Sweep, load_results, run_sweep
from sweep_cases import SMALL, comparable


@pytest.fixture(scope="module")
def sweep():
    return Sweep.from_dict(SMALL)


@pytest.fixture(scope="module")
def reference(sweep, tmp_path_factory):
    """The sweep on a local pool of one worker process."""
    store = tmp_path_factory.mktemp("local1")
    report = run_sweep(sweep, store, workers=1, progress=False)
    assert report.completed == report.total == 16 and not report.failed
    df = load_results(store)
    assert (df["status"] == "ok").all() and df["utilization"].between(0.1, 1.0).all()
    return comparable(df)


def check_same(sweep, store, reference, backend):
    report = run_sweep(sweep, store, backend=backend, progress=False)
    assert report.completed == 16 and not report.failed
    pd.testing.assert_frame_equal(comparable(load_results(store)), reference, check_exact=True)
    # The consolidated Parquet file holds the same table.
    pd.testing.assert_frame_equal(comparable(pd.read_parquet(store / "summary.parquet")), reference, check_exact=True)


def test_local_pool_with_two_workers(sweep, reference, tmp_path):
    with LocalPool(2) as backend:
        check_same(sweep, tmp_path, reference, backend)


def test_dask_local_cluster_with_two_workers(sweep, reference, tmp_path):
    pytest.importorskip("distributed")
    from aqmlab.sweep import DaskBackend

    with DaskBackend("local:2") as backend:
        assert len(backend._client.scheduler_info()["workers"]) == 2
        check_same(sweep, tmp_path, reference, backend)


def test_ray_started_locally_with_two_cpus(sweep, reference, tmp_path):
    pytest.importorskip("ray")
    import ray

    from aqmlab.sweep import RayBackend

    with RayBackend("local:2") as backend:
        assert ray.cluster_resources()["CPU"] == 2
        check_same(sweep, tmp_path, reference, backend)


@pytest.mark.parametrize("module, name, option", [("distributed", "DaskBackend", "--dask"), ("ray", "RayBackend", "--ray")])
def test_a_malformed_cluster_address_is_named(module, name, option):
    # Once a ValueError traceback from the cluster library.
    pytest.importorskip(module)
    import aqmlab.sweep

    from aqmlab.errors import ScenarioError

    with pytest.raises(ScenarioError) as e:
        getattr(aqmlab.sweep, name)("bogus")
    assert e.value.path == option and "bogus" in str(e.value)


def test_dask_and_ray_together_are_refused():
    from aqmlab.errors import ScenarioError
    from aqmlab.sweep.backends import make_backend

    with pytest.raises(ScenarioError, match=r"^--ray: give --dask or --ray, not both$"):
        make_backend(dask="local", ray="local")
