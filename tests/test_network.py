"""The network model seen from Python: link devices (overhead, device queue), per-queue drop
counts, and the invariants block of every summary."""

import json
import re

import numpy as np
import pytest

import aqmlab
from aqmlab.errors import ScenarioError
from aqmlab.scenario import Scenario
from support import small_scenario


def _cbr_overload(**bottleneck) -> dict:
    """12 Mb/s of 1000-B datagrams into 10 Mb/s behind a 50-packet DropTail queue."""
    return {
        "name": "cbr", "seed": 1, "duration": "5s", "warmup": "1s",
        "bottleneck": {"rate": "10Mbps", "delay": "10ms", "queue": {"type": "drop_tail", "limit": "50p"}, **bottleneck},
        "flows": [{"type": "udp", "rate": "12Mbps", "rtt": "40ms"}],
        "traces": {"sojourn": True},
    }


def test_device_fields_resolve_and_reach_the_simulator():
    s = Scenario.from_dict(_cbr_overload(overhead="2B", device_queue=1))
    assert s.sim_config["bottleneck"]["device"] == {"overhead_bytes": 2, "queue_packets": 1}
    assert s.sim_config["access"]["device"] == {"overhead_bytes": 0, "queue_packets": 0}
    assert (s.resolved["bottleneck"]["overhead"], s.resolved["bottleneck"]["device_queue"]) == ("2B", 1)
    # The resolved form loads back to the same configuration.
    assert Scenario.from_dict(s.resolved).sim_config == s.sim_config
    # Defaults: no overhead, no device queue (the idealised link of earlier releases).
    plain = Scenario.from_dict(_cbr_overload())
    assert plain.sim_config["bottleneck"]["device"] == {"overhead_bytes": 0, "queue_packets": 0}


@pytest.mark.parametrize("key, value, message", [
    ("overhead", "70000B", "70000B is outside the accepted range [0B, 65535B]"),
    ("overhead", "-1B", "-1B is outside the accepted range [0B, 65535B]"),
    ("device_queue", -1, "expected an integer in [0, 1000000]"),
])
def test_device_fields_are_checked(key, value, message):
    with pytest.raises(ScenarioError, match=re.escape(message)) as e:
        Scenario.from_dict(_cbr_overload(**{key: value}))
    assert e.value.path == f"bottleneck.{key}"


def test_a_device_needs_a_rated_access_link():
    d = small_scenario(access={"overhead": "38B"})
    with pytest.raises(ScenarioError, match="needs access.rate") as e:
        Scenario.from_dict(d)
    assert e.value.path == "access.overhead"
    d["access"]["rate"] = "100Mbps"
    assert Scenario.from_dict(d).sim_config["access"]["device"]["overhead_bytes"] == 38


def test_a_device_queue_takes_its_share_of_the_sojourn():
    # A full 50-packet DropTail above a 3-packet device queue: the qdisc sojourn (ns-3's
    # SojournTime) is shorter than the link's by three packet times of 0.8 ms.
    r = aqmlab.run(_cbr_overload(device_queue=3))
    s = r.summary
    assert s["qdelay_mean_s"] - s["qdisc_delay"]["mean_s"] == pytest.approx(0.0024, abs=1e-6)
    soj = r.sojourn()
    assert np.allclose((soj["sojourn_s"] - soj["qdisc_sojourn_s"]).iloc[100:], 0.0024, rtol=0, atol=1e-9)
    assert s["invariants"]["queue_conservation"]["violations"] == 0


def test_drops_on_every_queue_are_reported():
    # A 1-byte reverse queue drops every ACK: the summary says so, queue by queue.
    d = small_scenario(bottleneck={"rate": "10Mbps", "delay": "10ms", "queue": {"type": "drop_tail", "limit": "50p"},
                                   "reverse_queue": {"type": "drop_tail", "limit": "1B"}})
    d["flows"] = d["flows"][:1]
    s = aqmlab.run(d).summary
    queues = {q["queue"]: q for q in s["queues"]}
    assert s["acks_sent"] > 0
    assert queues["reverse_bottleneck"]["drops"] == queues["reverse_bottleneck"]["acks_dropped"] == s["acks_sent"]
    assert s["acks_dropped"] == s["acks_sent"]
    assert s["utilization"] < 0.01


def test_every_summary_carries_its_invariant_checks(small_result):
    inv = small_result.summary["invariants"]
    assert set(inv) >= {"flow_conservation", "queue_conservation", "network_conservation",
                        "probability_bounds", "queue_within_limit", "time_monotone"}
    for name, check in inv.items():
        assert check["violations"] == 0, name
        assert check["checks"] > 0 or name == "probability_bounds", name  # DropTail has no p


def _long(**over) -> dict:
    d = small_scenario(duration="100s", **over)
    d["flows"] = d["flows"][:1]
    return d


@pytest.mark.parametrize("change, message", [
    # Each of these used to abort the process (exit 134) by running out of memory. The limits
    # are the simulator's (crates/sim/src/estimate.rs); the message names the scenario's field.
    (lambda d: d["traces"].update(interval="1ns"),
     "traces.interval: 1 ns over 100 s would record 1.0e11 samples"),
    (lambda d: d["flows"][0].update(count=1, min_rto="1ns", initial_rto="1ns", max_rto="1ns"),
     "flows[0].max_rto: a retransmission timer as short as 1 ns"),
    (lambda d: d["flows"][0].update(count=1, arrival_rate=1e9, size="10KB", start="0s", stop="100s"),
     "flows[0].arrival_rate: 1000000000 arrivals per second over 100 s would create ≈1.0e11 flows"),
])
def test_runs_that_would_exhaust_memory_are_refused_before_they_start(change, message):
    d = _long()
    change(d)
    with pytest.raises(ScenarioError, match="^" + re.escape(message)):
        Scenario.from_dict(d)
    with pytest.raises(ScenarioError, match="^" + re.escape(message)):
        aqmlab.run(d)


def test_the_estimate_says_what_a_run_costs(small_result):
    from aqmlab import _core

    e = json.loads(_core.estimate(small_result.scenario.sim_json()))
    # The estimate is meant to be right within a factor of two on events.
    assert 0.5 <= e["events"] / small_result.summary["events"] <= 2.0
    assert e["trace_samples"] == 401 and e["flows"] == 4
    assert {c["field"] for c in e["costs"]} >= {"flows[0].count", "bottleneck.rate_bps", "traces.interval_ns"}
    _core.validate(small_result.scenario.sim_json())


def _chain(*routes: list[str]) -> dict:
    """A -> B the bottleneck, then B - C and C - D; one TCP group per route."""
    link = {"rate": "10Mbps", "delay": "5ms", "queue": {"type": "drop_tail", "limit": "100p"}}
    return {"name": "chain", "duration": "2s",
            "bottleneck": {"rate": "10Mbps", "delay": "5ms", "queue": {"type": "pie"}},
            "network": {"nodes": ["A", "B", "C", "D"], "bottleneck": ["A", "B"],
                        "links": [{"ends": ["B", "C"], **link}, {"ends": ["C", "D"], **link}]},
            "flows": [{"type": "tcp", "name": f"g{i}", "rtt": "100ms", "route": r} for i, r in enumerate(routes)]}


@pytest.mark.parametrize("routes, backwards", [
    # C -> A runs C -> B -> A: over the bottleneck backwards, and nothing forwards.
    ([["C", "A"]], "flows[0] ('g0') crosses it backwards (B -> A)"),
    ([["D", "B", "A"], ["C", "A"]], "flows[0] ('g0'), flows[1] ('g1') cross it backwards (B -> A)"),
    # C -> D never reaches the bottleneck.
    ([["C", "D"]], None),
])
def test_no_data_over_the_bottleneck_forward_is_warned(routes, backwards):
    # Once silent: the headline showed the idle forward direction (~2 % utilization, 0 ms) while
    # the data queued elsewhere (94 %, 656 ms).
    crossed = f"; {backwards}, the queue 'reverse_bottleneck'" if backwards else ""
    with pytest.warns(aqmlab.AqmlabWarning) as caught:
        Scenario.from_dict(_chain(*routes))
    assert [str(w.message) for w in caught] == [
        "network.bottleneck: no flow group's data crosses the bottleneck forward (A -> B): the headline figures "
        f"(utilization, queue delay, drops) are that direction's{crossed}; summary['links'] has every queue's "
        "figures, or make the link the data crosses the bottleneck"]


@pytest.mark.parametrize("routes", [
    [["A", "C"]],                  # A -> B -> C: forwards
    [["B", "A", "D"]],             # backwards, then forwards again
    [["A", "D"], ["C", "A"]],      # bidirectional traffic, as aqmlab.topology builds it: meant
])
def test_data_over_the_bottleneck_forward_is_not_warned(routes):
    Scenario.from_dict(_chain(*routes))   # pytest turns warnings into errors (pyproject.toml)
