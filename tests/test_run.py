"""Running scenarios from Python: summary, traces as DataFrames, determinism, saving."""

import json

import numpy as np
import pandas as pd
import pytest

import aqmlab
from support import small_scenario


def test_summary_is_consistent(small_result):
    s, flows = small_result.summary, small_result.flow_rows()
    assert s["time_s"] == 4.0 and s["measured_s"] == 3.0 and not s["interrupted"]
    assert len(flows) == 4
    assert [f["name"] for f in flows] == ["tcp0", "tcp0", "tcp0", "cbr"]
    assert 0.9 < s["utilization"] <= 1.0
    # The summary counts the measured window [1 s, 4 s]; each flow has its window's counts and
    # its whole run's, and only the latter balance.
    assert s["dropped"] > 0 and s["dropped"] == sum(f["dropped_measured"] for f in flows)
    assert s["sent"] == sum(f["sent_measured"] for f in flows) < sum(f["sent"] for f in flows)
    for f in flows:
        assert f["sent"] == f["delivered"] + f["dropped"] + f["in_flight"]
    # 50-packet DropTail at 10 Mb/s holds at most 50 packet times: 40 ms.
    assert s["qdelay_max_s"] <= 0.040 + 1e-9
    assert s["qdelay_p50_s"] <= s["qdelay_p95_s"] <= s["qdelay_p99_s"] <= s["qdelay_max_s"]
    # The CBR source ran 2 s at 2 Mb/s, the measured window covering all of it.
    cbr = flows[3]
    assert cbr["sent"] == cbr["sent_measured"] == 500
    assert s["aqmlab_version"] == aqmlab.__version__


def test_traces_are_dataframes(small_result):
    r = small_result
    q = r.queue()
    assert list(q.columns) == ["t_s", "backlog_bytes", "backlog_packets", "sojourn_mean_s", "last_sojourn_s", "rate_bps"]
    assert len(q) == 401  # every 10 ms from 0 to 4 s inclusive
    assert (q["rate_bps"] == 10_000_000).all()
    assert q["backlog_packets"].max() <= 50
    soj = r.sojourn()
    assert len(soj) > 1000 and soj["sojourn_s"].max() <= 0.040 + 1e-9
    # The queue trace's interval mean sojourn is the mean of the per-packet sojourns of the
    # departures since the previous sample (an interval without any gives NaN); the last
    # departure's sojourn is 0 exactly while the queue is empty.
    t_s, soj_t = q["t_s"].to_numpy(), soj["t_s"].to_numpy()
    edge = np.isin(soj_t, t_s)  # a departure at a sample's own instant: ordering-dependent, left out
    bins = np.searchsorted(t_s, soj_t, side="left")
    checked = 0
    for i in range(1, len(t_s)):
        mine = bins == i
        if edge[mine | (bins == i + 1)].any():
            continue
        want = soj["sojourn_s"].to_numpy()[mine].mean() if mine.any() else np.nan
        assert q["sojourn_mean_s"].iloc[i] == pytest.approx(want, rel=1e-9, nan_ok=True)
        checked += 1
    assert checked > 300
    assert (q.loc[q["backlog_packets"] == 0, "last_sojourn_s"] == 0).all()
    rates = r.flow_rates()
    assert rates.shape == (401, 4)
    # Delivered bits per interval add up to what the summary counts.
    total = rates.mul(np.diff(rates.index.values, prepend=0.0), axis=0).sum().sum() / 8
    assert total == pytest.approx(sum(f["bytes_delivered"] for f in r.flow_rows()))
    d = r.drops()
    # The drop trace keeps the whole run, the summary the measured window from 1 s.
    assert (d["t_s"] >= 1.0).sum() == r.summary["dropped"] < len(d) and set(d["kind"]) == {"overflow"}
    tcp = r.tcp()
    assert set(tcp["flow"]) == {0, 1, 2} and (tcp["cwnd"] >= 1).all()
    x, f = r.delay_cdf()
    assert f[-1] == pytest.approx(1.0) and np.all(np.diff(f) >= 0)


def test_same_seed_same_traces_different_seed_differs():
    a = aqmlab.run(small_scenario(), progress=False)
    b = aqmlab.run(small_scenario(), progress=False)
    for k, v in a.traces.items():
        if isinstance(v, np.ndarray):
            np.testing.assert_array_equal(v, b.traces[k], err_msg=k)
    strip = lambda s: {k: v for k, v in s.items() if k not in ("wall_s", "events_per_s")}
    assert strip(a.summary) == strip(b.summary)
    c = aqmlab.run(small_scenario(seed=4), progress=False)
    assert not np.array_equal(a.traces["sojourn_ns"], c.traces["sojourn_ns"])


def test_save_writes_everything(small_result, tmp_path):
    files = small_result.save(tmp_path)
    names = {p.relative_to(tmp_path).as_posix() for p in files}
    assert {"summary.json", "scenario.toml", "sim_config.json", "traces/queue.parquet", "traces/sojourn.parquet",
            "traces/flow_rates.parquet", "traces/drops.parquet", "traces/tcp.parquet", "traces/flows.parquet",
            "plots/overview.png", "plots/queue_delay.png", "plots/throughput.png", "plots/delay_cdf.png"} <= names
    summary = json.loads((tmp_path / "summary.json").read_text())
    assert summary["qdelay_mean_s"] == small_result.summary["qdelay_mean_s"]
    q = pd.read_parquet(tmp_path / "traces" / "queue.parquet")
    pd.testing.assert_frame_equal(q, small_result.queue())
    # The saved scenario reproduces the run.
    again = aqmlab.run(tmp_path / "scenario.toml", progress=False)
    assert again.summary["sent"] == small_result.summary["sent"]
    assert (tmp_path / "plots" / "overview.png").read_bytes()[:4] == b"\x89PNG"


def test_capacity_change_through_the_api():
    d = small_scenario(duration="3s", warmup="0s")
    d["flows"] = [{"type": "udp", "rate": "20Mbps", "rtt": "20ms"}]
    d["bottleneck"]["rate_schedule"] = [{"at": "1s", "rate": "5Mbps"}, {"at": "2s", "rate": "10Mbps"}]
    r = aqmlab.run(d, progress=False)
    q = r.queue().set_index("t_s")["rate_bps"]
    assert q.loc[0.5] == 10_000_000 and q.loc[1.5] == 5_000_000 and q.loc[2.5] == 10_000_000
    # Saturated throughout: capacity integral 10 + 5 + 10 Mb over the 3 s.
    assert r.summary["utilization"] == pytest.approx(1.0, abs=0.01)


@pytest.mark.parametrize("steps", [0, -1, 2.5, True, 10**7])
def test_run_refuses_a_step_count_out_of_range(steps):
    # 0 was a ZeroDivisionError; -1 ran in 1-ns chunks, a hang in effect.
    with pytest.raises(ValueError, match=r"steps: expected an integer in \[1, 1000000\]"):
        aqmlab.run(small_scenario(), steps=steps)
