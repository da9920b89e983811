"""`aqmlab live` on real packets: physics of the link, TCP against its response function, PIE
against its target (with a DropTail null control), ECN accounting against the receiver's
kernel, and cleanup after Ctrl-C and SIGKILL.

These need root (CAP_NET_ADMIN, CAP_NET_RAW, CAP_SYS_ADMIN), which CI has; without it they are
skipped with that reason. Oracles come from outside the router: the layer-2 ceiling and the
queue's drain time (arithmetic), ping's RTT (the kernel's ICMP), the Mathis and PFTK models,
PIE's design target, the receiver kernel's IpExtInCEPkts. Timing on this shared 2-core machine
is noisy, so each band states its reason; the router runs at SCHED_FIFO as the CLI's default.
"""

from __future__ import annotations

import os
import re
import signal
import subprocess
import sys
import time

import pytest

from aqmlab.analysis.response import pftk, square_root_law
from aqmlab.live import Options, clean, plan, run, system, testbed
from aqmlab.live.plan import goodput_ceiling_bps

pytestmark = pytest.mark.skipif(bool(system.missing_capabilities()),
                                reason="aqmlab live needs root (CAP_NET_ADMIN, CAP_NET_RAW, CAP_SYS_ADMIN)")

OPTS = Options(rt_priority=20)
MS = 1e-3


def scenario(name, *, rate="10Mbps", delay="10ms", queue, flows, duration, warmup, **traces) -> dict:
    return {"name": name, "seed": 1, "duration": duration, "warmup": warmup,
            "bottleneck": {"rate": rate, "delay": delay, "queue": queue}, "flows": flows,
            "traces": {"queue": True, "sojourn": True, "drops": True, **traces}}


def reno(count=1, rtt="40ms", **over) -> dict:
    return {"type": "tcp", "count": count, "rtt": rtt, "profile": "linux", "cc": "newreno", **over}


@pytest.fixture(scope="module")
def fifo():
    """One Reno flow through a 100-packet FIFO at 10 Mb/s, 40 ms base RTT, all of it in the
    bottleneck's 20 ms each way (ping belongs to no flow, so it sees the bottleneck's delay
    only); ping measures the base RTT in the first second, before the flow starts at 1.5 s."""
    pings = {}

    def ping(tb, t0):
        time.sleep(max(0.0, t0 - time.monotonic()))
        pings["out"] = system.in_netns(tb.ns("snd"), ["ping", "-c", "10", "-i", "0.05", "-W", "1", testbed.RECEIVER_IP])

    d = scenario("live-fifo", delay="20ms", queue={"type": "drop_tail", "limit": "100p"}, flows=[reno(start="1.5s")],
                 duration="9s", warmup="4s", flow_bytes=True, tcp=True)
    return run(d, OPTS, progress=False, during=ping), pings["out"]


def test_fifo_goodput_at_the_layer2_ceiling(fifo):
    r, _ = fifo
    # 10 Mb/s × payload/frame = 10 Mb/s × (1000 − 52)/(1000 + 14): full segments carry 948 B of
    # payload (IP, TCP, timestamps) in 1014 B frames. The buffer (100 packets) exceeds the
    # path's 49-packet BDP, so after slow start Reno never drains it: 2 % covers the window
    # edges of the measurement only.
    ceiling = goodput_ceiling_bps(10e6, 1000)
    assert r.summary["goodput_bps"] == pytest.approx(ceiling, rel=0.02)
    assert r.summary["live"]["router"]["kernel_rx_drops"] == 0


def test_fifo_ping_sees_the_base_rtt(fifo):
    _, out = fifo
    m = re.search(r"= ([\d.]+)/([\d.]+)/([\d.]+)", out)
    assert m, out
    # Base RTT 40 ms (2 × 20 ms), plus two 98-byte frames of
    # serialization (0.16 ms) and the hosts' and router's processing: within 1 ms.
    assert abs(float(m.group(1)) - 40.0) < 1.0, out


def test_fifo_max_sojourn_is_limit_times_packet_time(fifo):
    r, _ = fifo
    t = 1014 * 8 / 10e6
    # The last packet admitted to a full 100-packet queue waits for the 99 ahead of it and the
    # rest of the one in service: between 99 and 100 packet times (nominal times: exact).
    worst = r.sojourn()["sojourn_s"].max()
    assert 99 * t <= worst <= 100 * t + 1e-9
    assert (r.drops()["kind"] == "overflow").sum() > 0


def test_live_result_has_the_simulators_shape(fifo):
    import aqmlab

    r, _ = fifo
    sim = aqmlab.run(aqmlab.Scenario.from_dict(scenario("shape", queue={"type": "drop_tail", "limit": "100p"},
                                                        flows=[reno()], duration="1s", warmup="0s", flow_bytes=True,
                                                        tcp=True)), progress=False)
    assert set(sim.summary) <= set(r.summary)
    assert set(sim.flow_rows()[0]) <= set(r.flow_rows()[0])
    assert set(sim.traces) == set(r.traces)
    for view in ("queue", "sojourn", "drops", "flow_rates", "tcp"):
        assert list(getattr(sim, view)().columns) == list(getattr(r, view)().columns), view
        assert len(getattr(r, view)()) > 0, view


def test_fixed_loss_throughput_within_mathis_pftk_band():
    # One Reno flow, 10 ms base RTT, over a 100 Mb/s link that drops 2 % of packets at random
    # (the simulator's Bernoulli impairment, in front of the queue).
    p = 0.02
    d = scenario("live-loss", rate="100Mbps", delay="2ms", queue={"type": "drop_tail", "limit": "1000p"},
                 flows=[reno(rtt="10ms")], duration="12s", warmup="2s")
    d["bottleneck"]["impairment"] = {"loss": {"bernoulli": p}}
    r = run(d, OPTS, progress=False)
    rtt = 0.010 + r.summary["qdelay_mean_s"]
    drops = r.drops()
    drops = drops[(drops["kind"] == "impairment") & (drops["t_s"] >= 2.0)]["t_s"].to_numpy()
    # Loss events: drops more than one RTT after the previous one start a new window.
    events = 1 + int((drops[1:] - drops[:-1] > rtt).sum()) if len(drops) else 0
    assert events >= 100, events
    mss_bits = (1000 - 52) * 8
    rate = r.summary["goodput_bps"]
    # Lower edge: PFTK with Linux's 200 ms minimum RTO counts timeouts a SACK/RACK sender
    # mostly avoids; upper edge: the square-root law with the random-loss constant 1.31
    # (Mathis et al. 1997), which ignores recovery time. 15 % either side for the models'
    # approximations; Linux Reno grows by one segment per window with delayed ACKs too (it
    # counts acked segments), so b = 1.
    lo = 0.85 * mss_bits * pftk(p, rtt, 0.2 + rtt)
    hi = 1.15 * mss_bits * square_root_law(p, rtt) * 1.31 / 1.2247
    assert lo <= rate <= hi, (lo, rate, hi, events)


PIE_TARGET = 0.020


def _pie_or_droptail(queue: dict) -> dict:
    return scenario(f"live-{queue['type']}", queue=queue, flows=[{"type": "tcp", "count": 5, "rtt": "40ms", "profile": "linux"}],
                    duration="14s", warmup="6s")


def test_pie_holds_its_target_and_droptail_does_not():
    # PIE (RFC 8033 profile) at 20 ms with five CUBIC flows: the mean sojourn over the
    # measured window is the quantity PIE controls; ±5 ms is the acceptance band
    # (PIE integrates the error to zero; the band covers its oscillation and the window).
    pie = run(_pie_or_droptail({"type": "pie", "profile": "rfc", "target": "20ms", "limit": "200p"}), OPTS, progress=False)
    assert abs(pie.summary["qdelay_mean_s"] - PIE_TARGET) <= 0.005, pie.summary["qdelay_mean_s"]
    # Null control: DropTail with the same 200-packet buffer (162 ms) holds no target: five
    # CUBIC flows keep it far above 25 ms.
    dt = run(_pie_or_droptail({"type": "drop_tail", "limit": "200p"}), OPTS, progress=False)
    assert dt.summary["qdelay_mean_s"] > PIE_TARGET + 0.005, dt.summary["qdelay_mean_s"]


def test_ce_marks_counted_by_the_router_equal_the_receivers_kernel():
    # Step marking at K = 5 packets with classic ECN: every mark the router sets must arrive as
    # one CE packet at the receiver's IP layer (a wrong checksum would make it drop them).
    d = scenario("live-ecn", queue={"type": "step", "k": 5, "limit": "200p"},
                 flows=[reno(count=2, ecn=True)], duration="5s", warmup="1s")
    r = run(d, OPTS, progress=False)
    router_ce = r.summary["live"]["router"]["ce_delivered"]
    assert router_ce >= 100
    assert router_ce == r.summary["live"]["receiver_kernel"]["IpExtInCEPkts"]
    # The router's and the kernel's counts run over the whole run, as the flows' own counts do;
    # the summary's cover the measured window after the 1 s warm-up, a part of them.
    flows = r.flow_rows()
    assert sum(f["marked"] for f in flows) == router_ce
    assert 0 < r.summary["marked"] == sum(f["marked_measured"] for f in flows) < router_ce
    assert r.summary["dropped"] == sum(f["dropped"] for f in flows) == 0


# ---- safety: only our namespaces, nothing left behind ---------------------------------------

LONG = ("name = 'live-long'\nduration = '30s'\n[bottleneck]\nrate = '10Mbps'\ndelay = '5ms'\n"
        "queue = {type = 'drop_tail', limit = '50p'}\n[[flows]]\ntype = 'tcp'\nrtt = '20ms'\n")


def _start_driver(tmp_path):
    f = tmp_path / "long.toml"
    f.write_text(LONG)
    before = set(testbed.ours())
    p = subprocess.Popen([sys.executable, "-m", "aqmlab.cli", "live", str(f), "-q"], stdout=subprocess.DEVNULL,
                         stderr=subprocess.PIPE, text=True)
    deadline = time.monotonic() + 20
    while time.monotonic() < deadline:
        new = sorted(set(testbed.ours()) - before)
        if len(new) == 3 and all(system.run(["ip", "netns", "pids", n], check=False).split() for n in new):
            return p, new
        time.sleep(0.1)
    p.kill()
    pytest.fail("the live run did not start its namespaces and router")


def _pids(names):
    return [pid for n in names for pid in system.run(["ip", "netns", "pids", n], check=False).split()]


def test_ctrl_c_removes_everything(tmp_path):
    p, names = _start_driver(tmp_path)
    p.send_signal(signal.SIGINT)
    _, err = p.communicate(timeout=20)
    assert p.returncode == 130, err
    assert not set(names) & set(testbed.namespaces())
    assert not any((testbed.LOCK_DIR / f"{n.split('-')[1]}.lock").exists() for n in names)


def test_sigkill_leaves_no_process_and_the_next_start_cleans(tmp_path):
    p, names = _start_driver(tmp_path)
    agents = _pids(names)
    assert agents
    p.kill()
    p.communicate(timeout=5)
    # The agents die with the driver (PR_SET_PDEATHSIG), within a second.
    deadline = time.monotonic() + 2
    while any(os.path.exists(f"/proc/{a}") for a in agents) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert not [a for a in agents if os.path.exists(f"/proc/{a}")]
    # The namespaces stay (nothing ran to remove them) until the next start cleans them.
    assert set(names) <= set(testbed.namespaces())
    removed = clean()
    assert set(names) <= set(removed)
    assert not set(names) & set(testbed.namespaces())


def test_without_privileges_exit_2_naming_what_is_missing(tmp_path):
    # Root without any capability (an empty bounding set leaves the exec'd process none): what
    # `aqmlab live` checks is the capabilities, and staying uid 0 keeps a checkout in a private
    # (0700) directory, such as CI's fresh clone, readable.
    setpriv = ["setpriv", "--inh-caps=-all", "--bounding-set=-all"]
    p = subprocess.run([*setpriv, sys.executable, "-m", "aqmlab.cli", "live", "pie-base"], capture_output=True, text=True,
                       timeout=60, env={**os.environ, "HOME": str(tmp_path)})
    assert p.returncode == 2, p.stderr
    assert "CAP_NET_ADMIN" in p.stderr and "root" in p.stderr


def test_plan_is_checked_before_anything_is_built():
    assert plan(scenario("ok", queue={"type": "pie"}, flows=[reno()], duration="1s", warmup="0s")).mtu == 1000
