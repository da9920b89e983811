"""General topologies in scenario files (issue 20): the network table, routes, the parking lot
and bidirectional builders, and their errors."""

import pytest

import aqmlab
from aqmlab import Scenario, ScenarioError, topology

DROPTAIL = {"type": "drop_tail", "limit": "200p"}


def parking(hops=3, **flows_kw):
    return {
        "duration": "6s",
        **topology.parking_lot(hops, rate="10Mbps", delay="10ms", queue=DROPTAIL),
        "flows": [
            {"type": "tcp", "name": "long", "rtt": "120ms", "route": topology.long_route(hops), **flows_kw},
            *[{"type": "tcp", "name": f"cross{i}", "rtt": "60ms", "route": topology.hop_route(i)} for i in range(hops)],
        ],
    }


def test_rtt_over_a_route_leaves_the_access_links_the_rest():
    # 3 hops of 10 ms: a 120 ms RTT leaves 60 - 30 = 30 ms for the sender's access link.
    s = Scenario.from_dict(parking())
    assert s.sim_config["flows"][0]["access_delay_ns"] == {"fixed": 30_000_000}
    assert s.sim_config["flows"][1]["access_delay_ns"] == {"fixed": 20_000_000}
    # The simulator's base RTT agrees.
    r = aqmlab.run(s, progress=False)
    assert r.summary["flows"][0]["rtt_base_s"] == pytest.approx(0.120, abs=1e-12)
    names = [q["queue"] for q in r.summary["queues"]]
    assert names[:2] == ["bottleneck", "reverse_bottleneck"] and {"R1->R2", "R2->R1", "R2->R3", "R3->R2"} <= set(names)
    hop2 = next(q for q in r.summary["queues"] if q["queue"] == "R1->R2")
    assert hop2["arrivals"] > 0


def test_the_resolved_form_loads_again():
    s = Scenario.from_dict(parking())
    assert Scenario.from_dict(s.resolved).sim_config == s.sim_config


@pytest.mark.parametrize("change, message", [
    (lambda d: d["flows"][0].update(route=["R0", "R9"]), "flows[0].route: no router named 'R9'"),
    (lambda d: d.pop("network"), "flows[0].route: routes need a [network]"),
    (lambda d: d["network"]["links"][0].update(ends=["R1", "R2", "R3"]), "network.links[0].ends: expected two"),
    (lambda d: d["network"]["links"][0].update(rate="0bps"), "network.links[0].rate"),
    (lambda d: d["network"].update(bottleneck=["R0", "nowhere"]), "network.bottleneck: no router named 'nowhere'"),
    (lambda d: d["flows"][0].update(rtt="20ms"), "flows[0].rtt: 20ms is below twice the route's"),
])
def test_errors_name_the_field(change, message):
    d = parking()
    change(d)
    with pytest.raises(ScenarioError) as e:
        Scenario.from_dict(d)
    assert message in str(e.value)


def test_bidirectional_data_queues_with_the_acks():
    # Three flows each way over a 10 Mb/s bottleneck. Data runs on both directions at once, so
    # the two groups together carry more than one direction's capacity (impossible if both
    # shared one direction), each direction's queue holds one group's data and the other's
    # ACKs, and each group keeps a share. How much two-way traffic loses to ACK compression
    # (Zhang, Shenker and Clark, SIGCOMM 1991) has no closed form here: the bound per group is
    # only a quarter of C.
    d = {"duration": "20s", "warmup": "5s", **topology.bidirectional(),
         "bottleneck": {"rate": "10Mbps", "delay": "10ms", "queue": {"type": "drop_tail", "limit": "100p"},
                        "reverse_queue": {"type": "drop_tail", "limit": "100p"}},
         "flows": [{"type": "tcp", "name": "fwd", "count": 3, "rtt": "80ms", "start": {"uniform": ["0s", "1s"]}},
                   {"type": "tcp", "name": "back", "count": 3, "rtt": "80ms", "start": {"uniform": ["0s", "1s"]},
                    "route": topology.reverse_route()}]}
    r = aqmlab.run(d, progress=False)
    by = {}
    for f in r.summary["flows"]:
        by[f["name"]] = by.get(f["name"], 0) + f["throughput_bps"]
    assert by["fwd"] + by["back"] > 10e6 and min(by.values()) > 2.5e6, by
    queues = {q["queue"]: q for q in r.summary["queues"]}
    for q, data, acks in (("bottleneck", "fwd", "back"), ("reverse_bottleneck", "back", "fwd")):
        sent = sum(f["sent"] for f in r.summary["flows"] if f["name"] == data)
        acked = sum(f["acks_sent"] for f in r.summary["flows"] if f["name"] == acks)
        # All of both reach the queue but those still on their access links at the end.
        assert 0.99 * (sent + acked) < queues[q]["arrivals"] <= sent + acked, (q, queues[q], sent, acked)
