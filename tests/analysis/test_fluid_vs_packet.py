"""The fluid model against the packet simulator on the PIE base scenario (HPSR'13 §IV:
10 Mb/s, 100 ms, PIE paper defaults), with 5 and 50 flows, and the `aqmlab fluid` command."""

import statistics
import subprocess
import sys
import tomllib

import pytest
from scipy.optimize import brentq

import aqmlab
from aqmlab.analysis.fluid import fluid_run
from aqmlab.analysis.from_scenario import fluid_params, fluid_summary
from aqmlab.errors import ScenarioError
from aqmlab.scenario import BUILTIN_DIR
from aqmlab.topology import long_route, parking_lot

C_PKTS = 1250.0  # 10 Mb/s of 1000 B packets


def both(n: int):
    scn = aqmlab.Scenario.load("pie-base").with_values({"flows[0].count": n})
    fluid = fluid_summary(fluid_run(fluid_params(scn)), 10.0)
    r = aqmlab.run(scn, progress=False)
    p = r.probe()
    return fluid, {**r.summary, "rto_s": r.flow_column("rto_s")}, float(p[p["t_s"] >= 10]["prob"].mean())


def test_five_flows_agree():
    # W0 = 30 packets: the AIMD regime the fluid model describes. The packet queue sits a
    # little below the reference (PIE's sawtooth with 5 flows is skewed by the 2-packet
    # bypass and the burst allowance the fluid model omits): delay and p within 20 %.
    fluid, s, p = both(5)
    assert fluid["qdelay_mean_s"] == pytest.approx(0.020, rel=0.02)
    assert abs(s["qdelay_mean_s"] / fluid["qdelay_mean_s"] - 1) < 0.20, s["qdelay_mean_s"]
    assert abs(p / fluid["p_mean"] - 1) < 0.20, (p, fluid["p_mean"])


def pftk_loss_for_rate(rate: float, rtt: float, t0: float) -> float:
    """The loss rate at which the PFTK formula (b = 1) gives `rate` packets/s."""
    def b(p):
        return 1 / (rtt * (2 * p / 3) ** 0.5 + t0 * min(1.0, 3 * (3 * p / 8) ** 0.5) * p * (1 + 32 * p * p)) - rate
    return brentq(b, 1e-6, 0.5)


def test_fifty_flows_delay_agrees_and_timeouts_explain_p():
    # W0 = 3 packets: windows too small for fast retransmit to cover every loss, so flows
    # spend time in timeouts the fluid model (W0²p0 = 2) does not have. The delay is still
    # held at the reference by both; the fluid p is then an upper bound, and the packet p is
    # the one PFTK's timeout-aware law gives for the 25 packets/s each flow gets.
    fluid, s, p = both(50)
    assert abs(s["qdelay_mean_s"] / fluid["qdelay_mean_s"] - 1) < 0.20
    assert fluid["p_mean"] == pytest.approx(2 / 9, rel=0.02)
    assert p < fluid["p_mean"]
    # PFTK's T0 is the timeout before back-off (its (1 + 32p²) term models the doubling): the
    # median RTO at the end, which a few flows caught deep in back-off (12.8 s) do not move.
    t0 = statistics.median(s["rto_s"])
    want = pftk_loss_for_rate(C_PKTS / 50, 0.1 + fluid["qdelay_mean_s"], t0)
    assert abs(p / want - 1) < 0.20, (p, want, t0)


def test_scenarios_the_fluid_model_cannot_express_are_errors():
    d = aqmlab.Scenario.load("pie-base").resolved
    d["flows"].append({"type": "udp", "rate": "1Mbps", "rtt": "100ms"})
    with pytest.raises(ScenarioError, match=r"flows\[1\]: the fluid model covers long-lived TCP flows; this group is a UDP source"):
        fluid_params(aqmlab.Scenario.from_dict(d))
    codel = aqmlab.Scenario.load("pie-base").with_values({"bottleneck.queue": {"type": "codel"}})
    with pytest.raises(ScenarioError, match="bottleneck.queue.type: 'codel' has no fluid counterpart"):
        fluid_params(codel)


@pytest.mark.parametrize("values, field", [
    # Each was dropped without a word: the fluid model ran the scenario as if it were not there.
    ({"bottleneck.impairment": {"loss": {"bernoulli": 0.01}}}, "bottleneck.impairment.loss"),
    ({"bottleneck.impairment": {"outages": [["10s", "11s"]]}}, "bottleneck.impairment.outages"),
    ({"bottleneck.target_schedule": [{"at": "50s", "target": "10ms"}]}, "bottleneck.target_schedule"),
    ({"bottleneck.overhead": "38B"}, "bottleneck.overhead"),
    ({"bottleneck.device_queue": 10}, "bottleneck.device_queue"),
    ({"access.rate": "100Mbps"}, "access.rate"),
    ({"flows[0].cc": "cubic"}, "flows[0].cc"),
    ({"flows[0].ecn": "accecn"}, "flows[0].ecn"),
    ({"flows[0].ecn": "classic", "flows[0].ect": "ect1"}, "flows[0].ect"),
    ({"flows[0].ack_every": 2}, "flows[0].ack_every"),
    ({"flows[0].rcv_wnd": "64KiB"}, "flows[0].rcv_wnd"),
    ({"flows[0].snd_buf": "64KiB"}, "flows[0].snd_buf"),
])
def test_features_the_fluid_model_does_not_model_are_refused(values, field):
    scn = aqmlab.Scenario.load("pie-base").with_values(values)
    with pytest.raises(ScenarioError) as e:
        fluid_params(scn)
    assert e.value.path == field and e.value.reason.startswith("the fluid model does not model ")


def test_a_profiles_delayed_acks_are_refused_by_the_fluid_model():
    # ns-3's TCP acknowledges every second segment and grows per ACK (scenario-reference.md).
    d = tomllib.loads((BUILTIN_DIR / "pie-base.toml").read_text())
    d["flows"][0]["profile"] = "ns3"
    with pytest.raises(ScenarioError, match=r"^flows\[0\]\.ack_every: the fluid model does not model delayed ACKs"):
        fluid_params(aqmlab.Scenario.from_dict(d))


def test_a_network_of_links_is_refused_by_the_fluid_model():
    d = {"name": "lot", "duration": "20s", **parking_lot(2, rate="10Mbps", delay="5ms", queue={"type": "pie"}),
         "flows": [{"type": "tcp", "count": 2, "rtt": "100ms", "route": long_route(2)}]}
    with pytest.raises(ScenarioError, match="^network: the fluid model does not model a network of links"):
        fluid_params(aqmlab.Scenario.from_dict(d))


def test_what_the_fluid_model_describes_is_accepted():
    base = aqmlab.Scenario.load("pie-base")
    plain = fluid_params(base)
    # MGT's p is the probability of a mark or a drop: Reno halves its window for either (RFC 3168 §6.1.2).
    assert fluid_params(base.with_values({"flows[0].ecn": "classic", "bottleneck.queue.ecn": True})) == plain
    # Delayed ACKs with byte counting still grow the window by one segment per round trip.
    assert fluid_params(base.with_values({"flows[0].ack_every": 2, "flows[0].growth": "byte_counting"})) == plain
    # A receive window in segments is the model's window cap.
    assert fluid_params(base.with_values({"flows[0].rwnd": 20}))["max_window_packets"] == 20
    two = base.resolved
    two["flows"].append({"type": "tcp", "count": 2, "rtt": "100ms", "rwnd": 20})
    with pytest.raises(ScenarioError, match=r"^flows: the fluid model needs one rwnd for all flows, "
                                            r"got \[20, 1073741824\]"):
        fluid_params(aqmlab.Scenario.from_dict(two))


def with_group(**group) -> aqmlab.Scenario:
    """pie-base (5 flows at a 100 ms RTT over a 25 ms bottleneck, 100 s) with a second TCP group."""
    d = tomllib.loads((BUILTIN_DIR / "pie-base.toml").read_text())
    d["flows"].append({"type": "tcp", "profile": "ns2-sack", **group})
    return aqmlab.Scenario.from_dict(d)


@pytest.mark.parametrize("scn, field, says", [
    # Each was averaged into one R0 without a word (40 and 400 ms gave 220 ms).
    (lambda: with_group(count=4, rtt="400ms"), "flows[1].rtt", "this group's base RTT is 400ms, flows[0].rtt's 100ms"),
    (lambda: with_group(count=2, rtt=["100ms", "400ms"]), "flows[1].rtt", "this group's RTTs range from 100ms to 400ms"),
    # 2 (20 + 25) ms = 90 ms: the field the group gives is the one named.
    (lambda: with_group(access_delay="20ms"), "flows[1].access_delay", "this group's base RTT is 90ms"),
])
def test_different_round_trips_are_refused_by_the_fluid_model(scn, field, says):
    with pytest.raises(ScenarioError) as e:
        fluid_params(scn())
    assert e.value.path == field and "one round trip for all flows" in e.value.reason and says in e.value.reason


def test_one_round_trip_given_in_any_form_is_the_models():
    # The same 100 ms as an access delay (2 (25 + 25) ms), as a per-flow list, and as a range
    # centred on it: R0 is 100 ms each time, and N counts both groups.
    for group in ({"access_delay": "25ms"}, {"count": 2, "rtt": ["100ms", "100ms"]},
                  {"rtt": {"uniform": ["60ms", "140ms"]}}):
        p = fluid_params(with_group(**group))
        assert p["rtt_s"] == pytest.approx(0.100) and p["n_flows"] == 5 + group.get("count", 1), group


def test_the_fluid_command_says_a_range_counts_as_its_mean(capsys):
    from aqmlab.cli import main

    assert main(["fluid", "pie-base", "--set", "duration=5s", "--set", "warmup=0s",
                 "--set", 'flows[0].rtt={uniform=["60ms", "140ms"]}']) == 0
    assert "R0 = 100.0 ms (the mean of the random RTT range)," in capsys.readouterr().out


def test_the_flow_schedule_follows_stops_and_refuses_an_empty_network():
    # One of six flows stops at 50 s: N steps from 6 to 5 there.
    assert fluid_params(with_group(rtt="100ms", stop="50s"))["flows_schedule"] == [(50.0, 5)]
    # A flow stopping before its start never sends (the simulator's warning): it never counts
    # (it was once removed at its stop and added at its start, leaving 6 flows from 80 s).
    with pytest.warns(aqmlab.AqmlabWarning):
        p = fluid_params(with_group(rtt="100ms", start="80s", stop="50s"))
    assert p["n_flows"] == 5 and "flows_schedule" not in p
    # Every flow gone before the end: once "flows_schedule must be finite and > 0, got 0".
    scn = aqmlab.Scenario.load("pie-base").with_values({"flows[0].stop": "40s"})
    with pytest.raises(ScenarioError) as e:
        fluid_params(scn)
    assert e.value.path == "flows[0].stop" and e.value.reason.startswith("every flow has stopped at 40s, before the end")


def test_fluid_command(tmp_path):
    out = subprocess.run([sys.executable, "-m", "aqmlab.cli", "fluid", "pie-base", "-o", str(tmp_path)],
                         capture_output=True, text=True, check=False)
    assert out.returncode == 0, out.stderr
    assert "queue delay mean 20.00 ms" in out.stdout
    assert (tmp_path / "fluid.png").exists() and (tmp_path / "fluid.parquet").exists()
