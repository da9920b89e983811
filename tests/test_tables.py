"""Traces are written to Parquet by pyarrow alone (no pandas: issue 22), and read back by pandas
as exactly the DataFrames the Result's views return: the index (flow_rates' time), categorical
kinds, absent figures in the per-flow table."""

import subprocess
import sys

import pandas as pd
import pytest

import aqmlab
from support import short_scenario, small_scenario


@pytest.fixture(scope="module")
def saved(tmp_path_factory):
    r = aqmlab.run(small_scenario(), progress=False)
    out = tmp_path_factory.mktemp("run")
    r.save(out, plots=False, report=False)
    return r, out


def test_parquet_reads_back_as_the_views(saved):
    r, out = saved
    written = 0
    for name in r.TABLES:
        path = out / "traces" / f"{name}.parquet"
        assert path.exists() == (len(r.table(name)) > 0), name
        if path.exists():
            pd.testing.assert_frame_equal(pd.read_parquet(path), r.table(name).frame(), check_exact=True)
            written += 1
    assert written >= 6  # queue, sojourn, flow_rates, drops, tcp, flows at least


def test_views_keep_their_shape(saved):
    r, _ = saved
    rates = r.flow_rates()
    assert rates.index.name == "t_s" and list(rates.columns) == list(range(r.traces["n_flows"]))
    assert str(r.drops()["kind"].dtype) == "category"
    assert not r.tcp()["cwnd"].isna().any()


def test_run_without_plots_imports_no_pandas(tmp_path):
    probe = ("import sys; from aqmlab import cli; "
             f"cli.main(['run', {str(tmp_path / 's.toml')!r}, '-q', '-o', {str(tmp_path / 'out')!r}, "
             "'--no-plots', '--no-report']); print(sorted(sys.modules), file=sys.stderr)")
    import tomli_w

    (tmp_path / "s.toml").write_text(tomli_w.dumps(short_scenario()))
    out = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True)
    assert out.returncode == 0, out.stderr
    loaded = out.stderr.strip().splitlines()[-1]
    assert "'pandas'" not in loaded and "'matplotlib'" not in loaded
    assert (tmp_path / "out" / "traces" / "queue.parquet").exists()
    # The listing names what is there: once "traces/, plots/" with no plots/ written.
    out_dir = tmp_path / "out"
    listed = out.stdout.strip().splitlines()[-1].partition(" (")[2].rstrip(")").split(", ")
    assert sorted(listed) == sorted(p.name + "/" * p.is_dir() for p in out_dir.iterdir()), out.stdout
