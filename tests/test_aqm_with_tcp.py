"""The AQM library under real TCP (issue 4 acceptance): 5 bulk flows, 10 Mb/s, 100 ms RTT,
the ns-2 Sack1 TCP of the PIE paper. Each run is 100 s (20 s warm-up): a single seed, so the
bands are wide enough for the run-to-run spread of a 80 s average and tight enough to fail
a law that does not regulate (DropTail sits near 160 ms, far outside every band)."""

import pytest

import aqmlab
from aqmlab.analysis.design import design_pi

C_PKTS = 10e6 / 8000  # 1250 packets/s


def scenario(queue: dict, **traces) -> dict:
    return {
        "name": f"aqm-{queue['type']}",
        "seed": 2,
        "duration": "100s",
        "warmup": "20s",
        "bottleneck": {"rate": "10Mbps", "delay": "25ms", "queue": queue},
        "flows": [{"type": "tcp", "count": 5, "rtt": "100ms", "start": {"uniform": ["0s", "1s"]}}],
        "traces": {"queue": True, "interval": "10ms", **traces},
    }


@pytest.mark.parametrize("queue, target, min_util", [
    ({"type": "pie", "profile": "paper", "limit": "1000p"}, 0.020, 0.95),
    ({"type": "pie", "profile": "rfc", "limit": "1000p"}, 0.015, 0.95),
    ({"type": "pie", "profile": "linux", "limit": "1000p"}, 0.015, 0.95),
    ({"type": "pie", "profile": "ns3", "limit": "1000p"}, 0.015, 0.95),
    ({"type": "pi2", "profile": "paper", "limit": "1000p"}, 0.020, 0.95),
    ({"type": "pi2", "profile": "final_code", "limit": "1000p"}, 0.020, 0.95),
    # CoDel's 5 ms target costs throughput at low multiplexing.
    ({"type": "codel", "profile": "rfc", "limit": "1000p"}, 0.005, 0.90),
])
def test_delay_held_near_target_with_full_link(queue, target, min_util):
    s = aqmlab.run(scenario(queue), progress=False).summary
    assert abs(s["qdelay_mean_s"] / target - 1) <= 0.5, f"mean delay {s['qdelay_mean_s'] * 1e3:.1f} ms vs {target * 1e3:g} ms"
    assert s["utilization"] >= min_util, s["utilization"]


def test_pi_designed_by_proposition_2_holds_q_ref():
    # Design for N- = 5 flows and R+ = 100 ms + q_ref/C of queueing, mapped to 160 Hz by Tustin.
    q_ref = 100
    d = design_pi(n_min=5, rtt_max=0.1 + q_ref / C_PKTS, capacity=C_PKTS)
    g = d.digital(160.0)
    r = aqmlab.run(scenario({"type": "pi", "a": g.a, "b": g.b, "sample_freq": 160.0, "q_ref": q_ref, "limit": "1000p"}), progress=False)
    q = r.queue()
    mean_q = q[q["t_s"] >= 20]["backlog_packets"].mean()
    assert abs(mean_q / q_ref - 1) <= 0.2, f"mean queue {mean_q:.1f} packets vs q_ref {q_ref}"
    assert r.summary["utilization"] >= 0.95


def test_droptail_shows_bufferbloat():
    # 200 KB at 10 Mb/s is 160 ms of buffer; five NewReno flows keep it mostly full.
    s = aqmlab.run(scenario({"type": "drop_tail", "limit": "200KB"}), progress=False).summary
    assert 0.09 <= s["qdelay_mean_s"] <= 0.16 and s["qdelay_p99_s"] >= 0.15, s["qdelay_mean_s"]
    assert s["utilization"] >= 0.99


def test_pie_beats_droptail_on_delay_at_equal_throughput():
    pie = aqmlab.run(scenario({"type": "pie", "profile": "paper", "limit": "200KB"}), progress=False).summary
    dt = aqmlab.run(scenario({"type": "drop_tail", "limit": "200KB"}), progress=False).summary
    assert pie["qdelay_mean_s"] < dt["qdelay_mean_s"] / 3
    assert pie["utilization"] >= dt["utilization"] - 0.05


def test_probe_exposes_the_drop_probability():
    r = aqmlab.run(scenario({"type": "pie", "profile": "paper", "limit": "1000p"}, probe=True), progress=False)
    p = r.probe()
    assert "prob" in p.columns
    late = p[p["t_s"] >= 20]["prob"]
    assert 0 < late.mean() < 0.1
