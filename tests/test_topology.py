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
    assert r.flow_rows()[0]["rtt_base_s"] == pytest.approx(0.120, abs=1e-12)
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
    # A link's schedules as the bottleneck's: once accepted without a word (the bottleneck's warned).
    (lambda d: d["network"]["links"][1].update(rate_schedule=[{"at": "6s", "rate": "1Mbps"}]),
     "network.links[1].rate_schedule[0].at: 6s is at or after the end of the run (6s): the change would never apply"),
    (lambda d: d["network"]["links"][0].update(impairment={"outages": [["1s", "2s"], ["7s", "8s"]]}),
     "network.links[0].impairment.outages[1]: 7s is at or after the end of the run (6s): the outage would never "
     "happen"),
    (lambda d: d["network"]["links"][0].update(impairment={"outages": [["1s", "3s"], ["2s", "4s"]]}),
     "network.links[0].impairment.outages[1]: outages must be in time order and must not overlap"),
    (lambda d: d["network"]["links"][0].update(rate_schedule=[{"at": "1s", "rate": "5Mbps"},
                                                               {"at": "1s", "rate": "1Mbps"}]),
     "network.links[0].rate_schedule[1].at: two steps at 1s: which rate applies is ambiguous"),
])
def test_errors_name_the_field(change, message):
    d = parking()
    change(d)
    with pytest.raises(ScenarioError) as e:
        Scenario.from_dict(d)
    assert message in str(e.value)


# Three Reno flows each way over a 10 Mb/s bottleneck, 80 ms base RTT (a BDP of 100 packets of
# 1000 B), 100-packet DropTail queues both ways. Each direction carries one group's data and the
# other's ACKs (40 B, one per data packet in the ns2-sack profile).
BIDIRECTIONAL = {
    "duration": "20s", "warmup": "5s", **topology.bidirectional(),
    "bottleneck": {"rate": "10Mbps", "delay": "10ms", "queue": {"type": "drop_tail", "limit": "100p"},
                   "reverse_queue": {"type": "drop_tail", "limit": "100p"}},
    "flows": [{"type": "tcp", "name": "fwd", "count": 3, "rtt": "80ms", "start": {"uniform": ["0s", "1s"]}},
              {"type": "tcp", "name": "back", "count": 3, "rtt": "80ms", "start": {"uniform": ["0s", "1s"]},
               "route": topology.reverse_route()}],
}
DATA_SHARE = 1000 / (1000 + 40)   # of a direction's capacity, beside the other group's ACKs


def _bidirectional(seed):
    r = aqmlab.run({**BIDIRECTIONAL, "seed": seed}, progress=False)
    by = {}
    for f in r.flow_rows():
        by[f["name"]] = by.get(f["name"], 0) + f["throughput_bps"]
    return r, by


def test_bidirectional_data_queues_with_the_acks():
    # Data runs on both directions at once: together the groups carry more than one
    # direction's capacity (impossible if they shared one), each at most C·1000/1040; each
    # direction's queue holds one group's data and the other's ACKs. Three seeds.
    for seed in (1, 2, 3):
        r, by = _bidirectional(seed)
        assert sum(by.values()) > 10e6 and max(by.values()) <= DATA_SHARE * 10e6, (seed, by)
        queues = {q["queue"]: q for q in r.summary["queues"]}
        for q, data, acks in (("bottleneck", "fwd", "back"), ("reverse_bottleneck", "back", "fwd")):
            # Counted in the measured window, as the queue's arrivals are.
            sent = sum(f["sent_measured"] for f in r.flow_rows() if f["name"] == data)
            acked = sum(f["acks_sent_measured"] for f in r.flow_rows() if f["name"] == acks)
            # Both reach the queue, but for those on their access links at either end of the
            # window (sent before it and arriving in it, or sent in it and still travelling).
            assert abs(queues[q]["arrivals"] - (sent + acked)) < 0.01 * (sent + acked), (seed, q, queues[q], sent, acked)


@pytest.mark.xfail(strict=True, reason="finding: with seed 3 the forward group gets 8.90 Mb/s, below the sawtooth "
                                       "bound of 8.98 Mb/s (seeds 1 and 2: 9.16-9.28 Mb/s); the bound leaves out "
                                       "ACK compression, the likely cause (not isolated)")
def test_bidirectional_groups_keep_renos_sawtooth_share():
    # Lower bound, from Reno's sawtooth: a group's ACKs wait behind up to 100 packets of the
    # other group's data (80 ms), so its pipe P is 100 to 200 packets beside its own buffer
    # B = 100. In the worst case (P = 200, losses synchronized) the total window saws from
    # (P + B)/2 = 150 to 300: below P for 50 base round trips at 87.5 % of C on average, then
    # full for 100, 96.4 % over a cycle of ≈10 s; the 15 s measured window, a cycle and the
    # worst half cycle, keeps (10·0.964 + 5·0.875)/15 = 93.4 %. Each group: at least
    # 0.934·9.62 = 8.98 Mb/s. This fluid bound ignores ACK compression (Zhang, Shenker and
    # Clark, SIGCOMM 1991): ACKs leaving a queue back to back release data in bursts, which a
    # 100-packet buffer may drop; if that costs more than the sawtooth, the bound fails, and
    # that is the finding (see the mark).
    for seed in (1, 2, 3):
        _, by = _bidirectional(seed)
        assert all(x >= 0.934 * DATA_SHARE * 10e6 for x in by.values()), (seed, by)


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
        "traces": {"queue": True, "sojourn": True, "drops": True, "probe": True},
    }
    d["network"]["links"][0]["reverse_queue"] = {"type": "pie"}
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
    # A packet's link sojourn is recorded as its transmission starts; the queue's departures
    # also count those waiting in the device queue, which holds three (it is full) both when
    # the measured window opens at 1 s and at the end: the window's departures are the
    # transmissions it saw start.
    departures = next(x for x in r.summary["queues"] if x["queue"] == "R1->R2")["departures"]
    assert ((soj["queue"] == "R1->R2") & (soj["t_s"] >= 1.0)).sum() == departures
    drops = read("drops")
    assert set(drops["queue"]) == {"R1->R2"}
    # Each queue's discipline variables, by name: the PIE queue's, not the DropTail ones'.
    probe = read("link_probe")
    assert set(probe["queue"]) == {"R2->R1"} and "prob" in set(probe["variable"])
    hist = read("link_delay_histogram")
    assert hist[hist["queue"] == "R1->R2"]["count"].sum() == hop2["delay"]["n"]
    # The files are the Result's own views, written without pandas (issue 22).
    for name in ("drops", "link_queue", "link_sojourn", "link_probe", "link_delay_histogram"):
        pd.testing.assert_frame_equal(read(name), r.table(name).frame(), check_exact=True)
