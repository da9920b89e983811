"""A packet scenario as a fluid-model problem: the same TOML file runs both ways.

The MGT fluid model describes long-lived Reno-like flows over one bottleneck, so a scenario
maps onto it when every flow group is bulk TCP; anything else (UDP, finite transfers,
sessions) is an error naming the group. The mapping:

* capacity and its schedule: the bottleneck's; packet size: the flows' (one size for all);
* N(t): a step at each flow's start and stop. Random starts count at the middle of their
  window, and flows starting within the first second are present from t = 0 (the fluid
  model does not resolve a start-up ramp); a flow that stops at or before its start never
  sends and does not count. N must stay above 0 until the end of the run: stops that leave
  no flow are an error naming the stop;
* round trip: the one base RTT of all flows (the model's flows are alike). A random range
  counts as its mean, the RTT of the flows drawn from it on average; different RTTs (between
  groups, or in a per-flow list) are an error naming the group's `rtt` (or `access_delay`);
* buffer: the queue limit in packets (a byte limit divided by the packet size);
* the AQM: PIE (its profile's auto-tune table), PI, PI², P, RED and DropTail map onto the
  sampled controllers of :mod:`aqmlab.analysis.fluid`; CoDel and the fair queues have no
  fluid counterpart here and are rejected;
* the window cap: the flows' ``rwnd`` (in segments; one value for all flows).

The model's flows are Reno, growing their window by one segment per round trip and halving it
for a drop or a classic ECN mark alike (its p is either), over one link. A scenario feature
outside that is an error naming the field, rather than dropped: link loss and outages, a
delay reference changed during the run, link-layer overhead and device queues, rate-limited
access links, a network of links, another congestion control, ECN other than RFC 3168's,
ECT(1), delayed ACKs with per-ACK growth (the window grows by 1/ack_every per round trip), and
windows set in bytes.
"""

from __future__ import annotations

from collections.abc import Iterator

from .. import units
from ..errors import ScenarioError
from ..scenario import Scenario

_PIE_AUTOTUNE = {"paper": "hpsr", "rfc": "rfc8033", "linux": "rfc8033", "ns3": "rfc8033"}


def _mean_of(dist: dict) -> float:
    (kind, val), = dist.items()
    if kind == "fixed":
        return float(val)
    if kind == "uniform":
        return (val["lo"] + val["hi"]) / 2.0
    return sum(val) / len(val)


def _starts(dist: dict, count: int) -> list[float]:
    (kind, val), = dist.items()
    if kind == "each":
        return [float(v) for v in val]
    return [_mean_of(dist)] * count


def _aqm(q: dict, packet_bytes: int) -> dict:
    kind = q["type"]
    if kind == "drop_tail":
        return {"type": "droptail"}
    if kind == "pie":
        return {"type": "pie", "alpha": q["alpha"], "beta": q["beta"], "t_update": q["tupdate"] / 1e9,
                "target": q["target"] / 1e9, "autotune": _PIE_AUTOTUNE[q["profile"]]}
    if kind == "pi2":
        return {"type": "pi2", "alpha": q["alpha"], "beta": q["beta"], "t_update": q["tupdate"] / 1e9, "target": q["target"] / 1e9}
    if kind in ("pi", "p", "red"):
        if q["queue_unit"] != "packets":
            raise ScenarioError("bottleneck.queue.queue_unit", "the fluid model counts the queue in packets")
        if kind == "pi":
            return {"type": "pi", "a": q["a"], "b": q["b"], "fs": q["sample_freq"], "q_ref": q["q_ref"]}
        if kind == "p":
            return {"type": "p", "gain": q["slope"], "q_min": q["q_min"], "p_max": q["p_max"]}
        return {"type": "red", "min_th": q["min_th"], "max_th": q["max_th"], "p_max": q["max_p"], "w_q": q["w_q"], "gentle": q["gentle"]}
    raise ScenarioError("bottleneck.queue.type", f"'{kind}' has no fluid counterpart (accepted: drop_tail, pie, pi2, pi, p, red)")


def _unmodelled(sc: dict) -> Iterator[tuple[str, str]]:
    """The scenario's features the fluid model does not describe, as (field, what it is), in
    the user's field names; only values other than the ones the model assumes count."""
    b = sc["bottleneck"]
    imp = b["impairment"] or {"loss": "none", "outages": []}
    if imp["loss"] != "none":
        yield "bottleneck.impairment.loss", "link loss (its losses are the AQM's and a full buffer's)"
    if imp["outages"]:
        yield "bottleneck.impairment.outages", "outages"
    if b["target_schedule"]:
        yield "bottleneck.target_schedule", "changes of the delay reference (its AQM keeps bottleneck.queue.target)"
    if b["device"]["overhead_bytes"]:
        yield "bottleneck.overhead", "link-layer overhead (its packets are the flows' packet_size on the wire)"
    if b["device"]["queue_packets"]:
        yield "bottleneck.device_queue", "a device queue under the discipline"
    if sc["access"]["rate_bps"] is not None:
        yield "access.rate", "rate-limited access links (its only link is the bottleneck)"
    if sc["network"] is not None:
        yield "network", "a network of links (its only link is the bottleneck)"
    for i, g in enumerate(sc["flows"]):
        t = g["transport"]
        if t["type"] != "tcp":
            continue  # refused with the flows' own check
        if t["cc"] != "newreno":
            yield f"flows[{i}].cc", f"'{t['cc']}' (its flows are Reno: cc = \"newreno\")"
        if t["ecn"] not in ("off", "classic"):
            yield f"flows[{i}].ecn", f"'{t['ecn']}' ECN (only RFC 3168's, ecn = \"classic\", or none)"
        if t["ecn"] != "off" and t["ect"] != "ect0":
            yield f"flows[{i}].ect", "ECT(1), the L4S identifier"
        n = t["ack_every"]
        if t["growth"] == "per_ack" and n != 1:
            yield (f"flows[{i}].ack_every", f"delayed ACKs with per-ACK growth (ack_every = {n} grows the window by "
                                           f"1/{n} segment per round trip, the model by one: give ack_every = 1 or "
                                           "growth = \"byte_counting\")")
        for field in ("rcv_wnd", "snd_buf"):
            if t[f"{field}_bytes"] is not None:
                yield (f"flows[{i}].{field}", f"a window in bytes (give {field} = \"unlimited\"; rwnd, in segments, "
                                              "caps its window)")


def _one_for_all(values: list[int], name: str) -> int:
    """The value every flow group shares (the fluid model's flows are alike), else an error."""
    distinct = set(values)
    if len(distinct) != 1:
        raise ScenarioError("flows", f"the fluid model needs one {name} for all flows, got {sorted(distinct)}")
    return distinct.pop()


def _round_trip(scn: Scenario) -> float:
    """The base RTT (s) that every flow shares: a group's random range counts as its mean;
    groups, or a per-flow list, with different RTTs are refused by name."""
    sc = scn.sim_config
    first: tuple[float, str] | None = None
    for i, g in enumerate(sc["flows"]):
        field = f"flows[{i}].{'rtt' if 'rtt' in scn.given['flows'][i] else 'access_delay'}"
        fixed = sc["bottleneck"]["delay_ns"] + g["receiver_delay_ns"]
        each = g["access_delay_ns"].get("each")
        if each is not None and len(set(each)) > 1:
            raise ScenarioError(field, f"the fluid model has one round trip for all flows (its flows are alike); "
                                       f"this group's RTTs range from {_fmt_rtt(min(each), fixed)} to "
                                       f"{_fmt_rtt(max(each), fixed)}")
        rtt = 2 * (_mean_of(g["access_delay_ns"]) + fixed)
        if first is None:
            first = (rtt, field)
        elif rtt != first[0]:
            raise ScenarioError(field, f"the fluid model has one round trip for all flows (its flows are alike); "
                                       f"this group's base RTT is {units.fmt_duration(round(rtt))}, "
                                       f"{first[1]}'s {units.fmt_duration(round(first[0]))}: run the groups as "
                                       "separate scenarios, or give them one RTT")
    assert first is not None   # a scenario has at least one flow group
    return first[0] * 1e-9


def _fmt_rtt(access_ns: int, fixed_ns: int) -> str:
    """A flow's base RTT from its access delay and the delays on the rest of its path."""
    return units.fmt_duration(2 * (access_ns + fixed_ns))


def _flow_steps(sc: dict) -> tuple[int, list[tuple[float, int]]]:
    """N at t = 0 and the steps of N after it, (time s, N); refuses stops that leave no flow
    before the end of the run (the model divides by N), naming the stop."""
    end = sc["duration_ns"]
    events: list[tuple[int, int, int]] = []   # (time ns, +1 or -1, group)
    for i, g in enumerate(sc["flows"]):
        stop = g["stop_ns"]
        for start in _starts(g["start_ns"], g["count"]):
            if stop is not None and stop <= start:
                continue   # never sends (validation warns)
            events.append((0 if start < 1e9 else round(start), +1, i))
            if stop is not None and stop < end:
                events.append((stop, -1, i))
    events.sort()
    n0 = sum(d for t, d, _ in events if t == 0)
    if n0 == 0:
        raise ScenarioError("flows", "the fluid model needs flows present from the start (a start within the "
                                     "first second)")
    steps, n = [], n0
    for t, d, i in events:
        if t == 0:
            continue
        n += d
        if n == 0:
            raise ScenarioError(f"flows[{i}].stop", f"every flow has stopped at {units.fmt_duration(t)}, before the "
                                                    f"end of the run ({units.fmt_duration(end)}); the fluid model "
                                                    "needs at least one flow until the end: stop later, or shorten "
                                                    "duration")
        steps.append((t * 1e-9, n))
    return n0, steps


def fluid_params(scn: Scenario) -> dict:
    """The :func:`aqmlab.analysis.fluid.fluid_run` parameters for a packet scenario."""
    sc = scn.sim_config
    unmodelled = next(_unmodelled(sc), None)
    if unmodelled is not None:
        field, what = unmodelled
        raise ScenarioError(field, f"the fluid model does not model {what}")
    b = sc["bottleneck"]
    packet = _one_for_all([g["packet_size"] for g in sc["flows"]], "packet size")
    for i, g in enumerate(sc["flows"]):
        t = g["transport"]
        if t["type"] != "tcp" or g["app"]["type"] != "bulk":
            what = "a UDP source" if t["type"] != "tcp" else f"a '{g['app']['type']}' application"
            raise ScenarioError(f"flows[{i}]", f"the fluid model covers long-lived TCP flows; this group is {what}")
    rtt = _round_trip(scn)
    n0, schedule = _flow_steps(sc)
    q = b["queue"]
    (unit, limit), = q["limit"].items()
    params = {
        "capacity_bps": b["rate_bps"],
        "packet_bytes": packet,
        "n_flows": n0,
        "rtt_s": rtt,
        "buffer_packets": limit if unit == "packets" else limit / packet,
        "t_end_s": sc["duration_ns"] * 1e-9,
        "aqm": _aqm(q, packet),
        # UDP groups were refused above, so every group has a TCP window.
        "max_window_packets": _one_for_all([g["transport"]["rwnd"] for g in sc["flows"]], "rwnd"),
    }
    if b["rate_schedule"]:
        params["capacity_schedule_bps"] = [(s["at_ns"] * 1e-9, s["rate_bps"]) for s in b["rate_schedule"]]
    if schedule:
        params["flows_schedule"] = schedule
    return params


def fluid_summary(series: dict, warmup_s: float) -> dict:
    """Means over the measured window: queue delay, p, queue, and the link use (the flows'
    sending rate N·W/R against C, capped at 1)."""
    t = series["t"]
    m = t >= warmup_s
    rate = series["n_flows"][m] * series["W"][m] / series["rtt"][m]
    return {
        "qdelay_mean_s": float(series["queue_delay"][m].mean()),
        "p_mean": float(series["p"][m].mean()),
        "queue_mean_packets": float(series["q"][m].mean()),
        "utilization": float((rate / series["capacity"][m]).clip(max=1.0).mean()),
    }
