"""The per-flow table (issue 22): each flow's figures go to ``traces/flows.parquet`` and the
summary keeps aggregates only, so that a run of many flows writes a small ``summary.json``.

Oracles: the flow count, names, types and base RTTs from the scenario's definition; packet
conservation per flow (sent = delivered + dropped + in flight); the summary's totals as sums
of the table's columns; a throughput as the bytes delivered in the measured window over the
flow's active part of it (the definition in docs/outputs.md)."""

import json

import numpy as np
import pandas as pd
import pytest

import aqmlab
from support import small_scenario

# The figures the summary's per-flow rows carried before the table took them over
# (crates/sim/src/summary.rs FlowSummary), and the group name.
COLUMNS = ["group", "tcp", "start_s", "rtt_base_s", "throughput_bps", "completion_s", "srtt_s", "rto_s", "sent",
           "delivered", "dropped", "marked", "acks_sent", "acks_delivered", "acks_dropped", "bytes_delivered",
           "bytes_measured", "goodput_bytes", "retransmits", "timeouts", "fast_recoveries", "ecn_reductions",
           "window_raising_responses", "transfers", "sent_measured", "dropped_measured", "marked_measured",
           "acks_sent_measured", "acks_dropped_measured", "in_flight", "acks_in_flight", "name"]


def test_flow_table_has_a_row_per_flow_of_the_scenario(small_result, tmp_path):
    # small_scenario: 3 TCP flows (group 0, named "tcp0" by default) and one CBR source "cbr".
    small_result.save(tmp_path, plots=False, report=False)
    table = pd.read_parquet(tmp_path / "traces" / "flows.parquet")
    assert list(table.columns) == COLUMNS
    assert len(table) == small_result.summary["n_flows"] == 3 + 1
    assert list(table["name"]) == ["tcp0"] * 3 + ["cbr"]
    assert list(table["group"]) == [0, 0, 0, 1]
    assert list(table["tcp"]) == [True, True, True, False]
    # RTTs drawn from [40, 80] ms for the TCP group; the CBR source's is 20 ms.
    assert all(0.040 <= r <= 0.080 for r in table["rtt_base_s"][:3])
    assert table["rtt_base_s"][3] == pytest.approx(0.020, abs=1e-12)
    # The CBR source has no RTT estimate nor RTO: absent, not zero.
    assert np.isnan(table["srtt_s"][3]) and np.isnan(table["rto_s"][3])
    pd.testing.assert_frame_equal(table, small_result.flows())


def test_flow_table_conserves_packets_and_sums_to_the_summary(small_result):
    r, s = small_result, small_result.summary
    sent, delivered, dropped = (r.flow_column(k) for k in ("sent", "delivered", "dropped"))
    assert np.array_equal(sent, delivered + dropped + r.flow_column("in_flight"))
    acks = r.flow_column("acks_sent")
    assert np.array_equal(acks, r.flow_column("acks_delivered") + r.flow_column("acks_dropped")
                          + r.flow_column("acks_in_flight"))
    # The summary's packet counts are the measured window's [1 s, 4 s]: the sums of the
    # table's window columns, each at most the whole run's count.
    for key in ("sent", "dropped", "marked", "acks_sent", "acks_dropped"):
        window = r.flow_column(f"{key}_measured")
        assert s[key] == window.sum(), key
        assert (window <= r.flow_column(key)).all(), key
    assert s["delivered_packets"] == delivered.sum()
    # The CBR source runs from 1 s to 3 s, inside the measured window [1 s, 4 s]: every packet
    # it sends is sent in the window, and its throughput is its bytes over those 2 s. The TCP
    # flows start in the warm-up, so the window misses some of what they sent.
    cbr = 3
    assert r.flow_column("sent_measured")[cbr] == r.flow_column("sent")[cbr] > 0
    assert (r.flow_column("sent_measured")[:3] < r.flow_column("sent")[:3]).all()
    assert r.flow_column("throughput_bps")[cbr] == pytest.approx(r.flow_column("bytes_measured")[cbr] * 8 / 2.0,
                                                                 rel=1e-12)


def test_a_flow_without_active_time_has_no_throughput():
    # The second group stops before it starts (a warning, not an error): no active time.
    d = small_scenario(duration="2s", warmup="0s")
    d["flows"][1].update(start="1500ms", stop="1s")
    with pytest.warns(aqmlab.AqmlabWarning):
        r = aqmlab.run(d, progress=False)
    tput = r.flow_column("throughput_bps")
    assert np.isnan(tput[3]) and not np.isnan(tput[:3]).any()
    assert r.flow_rows()[3]["throughput_bps"] is None


def test_summary_stays_small_whatever_the_flow_count(tmp_path):
    """The summary's size does not grow with the flows: 300 flows write the same keys, and a
    summary.json within a few bytes (digits) of 3 flows' one."""
    sizes = {}
    for n in (3, 300):
        d = small_scenario(duration="1s", warmup="0s", traces={})
        d["flows"] = [{**d["flows"][0], "count": n}]
        r = aqmlab.run(d, progress=False)
        r.save(tmp_path / str(n), plots=False, report=False)
        text = (tmp_path / str(n) / "summary.json").read_text()
        sizes[n] = len(text)
        assert json.loads(text)["n_flows"] == n
        assert len(pd.read_parquet(tmp_path / str(n) / "traces" / "flows.parquet")) == n
    assert abs(sizes[300] - sizes[3]) < 200, sizes
