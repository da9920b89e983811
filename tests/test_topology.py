"""General topologies in scenario files (issue 20): the network table, routes, the parking lot
and bidirectional builders, and their errors."""

import pandas as pd
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


def test_every_queue_has_its_metrics_and_traces_by_name(tmp_path):
    # Two hops, the second at half the rate with a 50-packet DropTail queue and a 3-packet
    # device queue, fed 10 Mb/s of 1000 B datagrams: hop 1 never queues (a packet every 0.8 ms,
    # sent in 0.4 ms); hop 2 stays full, drops half the arrivals, and its discipline sojourn is
    # shorter than its link sojourn by the three device-queue packet times of 1.6 ms (4.8 ms).
    d = {
        "name": "two-hops", "duration": "6s", "warmup": "1s",
        "bottleneck": {"rate": "20Mbps", "delay": "5ms", "queue": DROPTAIL},
        "network": {"nodes": ["R0", "R1", "R2"], "bottleneck": ["R0", "R1"],
                    "links": [{"ends": ["R1", "R2"], "rate": "5Mbps", "delay": "5ms", "device_queue": 3,
                               "queue": {"type": "drop_tail", "limit": "50p"}}]},
        "flows": [{"type": "udp", "rate": "10Mbps", "rtt": "60ms", "route": ["R0", "R2"]}],
        "traces": {"queue": True, "sojourn": True, "drops": True},
    }
    r = aqmlab.run(d, progress=False)
    links = {q["queue"]: q for q in r.summary["links"]}
    assert list(links) == ["bottleneck", "reverse_bottleneck", "R1->R2", "R2->R1"]
    assert links["bottleneck"]["ends"] == "R0->R1" and links["bottleneck"]["delay"]["max_s"] == 0.0
    hop2 = links["R1->R2"]
    assert hop2["drop_rate"] == pytest.approx(0.5, abs=0.01)
    assert hop2["delay"]["mean_s"] - hop2["qdisc_delay"]["mean_s"] == pytest.approx(0.0048, abs=1e-6)
    r.save(tmp_path, plots=False, report=False)
    read = lambda name: pd.read_parquet(tmp_path / "traces" / f"{name}.parquet")  # noqa: E731
    q = read("link_queue")
    assert set(q["queue"]) == set(links)
    assert q[(q["queue"] == "R1->R2") & (q["t_s"] >= 1)]["backlog_packets"].min() >= 49
    soj = read("link_sojourn")
    # A packet's link sojourn is recorded as its transmission starts; the queue's departures also
    # count the three waiting in the (full) device queue at the end.
    departures = next(x for x in r.summary["queues"] if x["queue"] == "R1->R2")["departures"]
    assert (soj["queue"] == "R1->R2").sum() == departures - 3
    drops = read("drops")
    assert set(drops["queue"]) == {"R1->R2"}
    hist = read("link_delay_histogram")
    assert hist[hist["queue"] == "R1->R2"]["count"].sum() == hop2["delay"]["n"]
