"""Run-time changes of the bottleneck queue's delay reference (``bottleneck.target_schedule``)."""

import pytest

import aqmlab
from aqmlab.errors import ScenarioError


def _scenario(queue: dict, schedule: list[dict]) -> dict:
    return {"name": "target-schedule", "duration": "40s", "warmup": "5s",
            "bottleneck": {"rate": "10Mbps", "delay": "10ms", "queue": queue, "target_schedule": schedule},
            "flows": [{"type": "tcp", "count": 20, "rtt": "100ms"}], "traces": {"queue": True}}


def test_pie_follows_a_lower_reference_set_during_the_run():
    # PIE's reference is its operating point (RFC 8033 §4.2): the queueing latency settles near
    # 20 ms before the change and near 5 ms after it. Bands: ±50 % of each reference, a few
    # packets of sawtooth at 10 Mb/s (5 ms is about 4 packets).
    s = _scenario({"type": "pie", "profile": "rfc", "limit": "1000p", "target": "20ms"}, [{"at": "20s", "target": "5ms"}])
    q = aqmlab.run(s, progress=False).queue()
    lat = q["backlog_bytes"] * 8 / q["rate_bps"]
    before = lat[(q["t_s"] >= 10) & (q["t_s"] < 20)].mean()
    after = lat[(q["t_s"] >= 28) & (q["t_s"] < 40)].mean()
    assert 0.010 <= before <= 0.030, before
    assert 0.0025 <= after <= 0.0075, after


def test_a_queue_without_a_run_time_reference_is_refused_before_the_run():
    s = _scenario({"type": "drop_tail", "limit": "100p"}, [{"at": "20s", "target": "5ms"}])
    with pytest.raises((ScenarioError, ValueError), match=r"target_schedule\[0\]"):
        aqmlab.run(s, progress=False)


def test_changes_must_be_in_time_order():
    s = _scenario({"type": "pie", "target": "20ms", "limit": "100p"},
                  [{"at": "20s", "target": "5ms"}, {"at": "10s", "target": "10ms"}])
    with pytest.raises(ScenarioError, match=r"bottleneck\.target_schedule\[1\]\.at"):
        aqmlab.Scenario.from_dict(s)


def test_a_change_at_or_after_the_end_is_refused():
    # Once accepted without a word: the run ended before the change could apply.
    s = _scenario({"type": "pie", "target": "20ms", "limit": "100p"},
                  [{"at": "20s", "target": "5ms"}, {"at": "40s", "target": "10ms"}])
    with pytest.raises(ScenarioError) as e:
        aqmlab.Scenario.from_dict(s)
    assert str(e.value) == ("bottleneck.target_schedule[1].at: 40s is at or after the end of the run (40s): "
                            "the change would never apply")


def test_a_capture_window_past_the_end_is_refused():
    s = _scenario({"type": "pie", "target": "20ms", "limit": "100p"}, [])
    s["traces"] = {"pcap": ["bottleneck"], "pcap_window": ["30s", "50s"]}
    with pytest.raises(ScenarioError) as e:
        aqmlab.Scenario.from_dict(s)
    assert str(e.value) == ("traces.pcap_window: ends at 50s, after the end of the run (40s): "
                            "give a window within the run")
    s["traces"]["pcap_window"] = ["30s", "40s"]  # up to the end is within the run
    aqmlab.Scenario.from_dict(s)
