"""The Python API: run a scenario, get a :class:`~aqmlab.result.Result`."""

from __future__ import annotations

import os
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from .errors import ScenarioError
from .progress import Progress
from .result import Result
from .scenario import Scenario

# Speed assumed by the size estimate: the slow end of `aqmlab bench` on a small machine (the
# README's table: 5.4-16 M events/s), so the estimate errs towards long.
EVENTS_PER_S = 5e6
# Events per data packet: about four (arrival at the bottleneck, end of serialization, delivery,
# the ACK's hops; README "Speed"), one more for the margin.
EVENTS_PER_PACKET = 5
# A run estimated to take longer than this, or to record more traces than half the memory,
# needs force=True (--force).
MAX_WALL_S = 3600.0


def as_scenario(s: Scenario | dict[str, Any] | str | Path) -> Scenario:
    """A scenario object, a dict in the file's vocabulary, a TOML path, or a built-in name."""
    if isinstance(s, Scenario):
        return s
    if isinstance(s, dict):
        return Scenario.from_dict(s)
    return Scenario.load(s)


@dataclass(frozen=True)
class Estimate:
    """How big a run is, from the scenario alone (rates times durations): events and the memory
    its traces take. ``terms`` names the field behind each part of the event count."""

    events: float
    trace_bytes: float
    terms: dict[str, float]

    @property
    def wall_s(self) -> float:
        return self.events / EVENTS_PER_S

    def text(self) -> str:
        return (f"about {self.events:.3g} events, {_duration(self.wall_s)} at {EVENTS_PER_S / 1e6:g} M events/s, "
                f"and {self.trace_bytes / 2**20:.3g} MiB of traces")


def _duration(s: float) -> str:
    return f"{s / 3600:.3g} h" if s >= 3600 else f"{s / 60:.3g} min" if s >= 60 else f"{s:.3g} s"


def estimate(scn: Scenario) -> Estimate:
    """Events and trace memory of a run, estimated in Python from the scenario: data packets
    from the bottleneck's capacity (and UDP sources' offered load) over the duration, periodic
    trace samples, Poisson arrivals, and the retransmission timer at its lower bound (a run
    whose RTO can be 1 ns fires a timer every nanosecond). An upper estimate, not a forecast."""
    c = scn.sim_config
    end = c["duration_ns"]
    b = c["bottleneck"]
    bits = _capacity_bits(b, end)
    smallest = min(g["packet_size"] for g in c["flows"])
    terms = {"duration": bits / (8 * smallest) * EVENTS_PER_PACKET}
    n_flows = 0.0
    for i, g in enumerate(c["flows"]):
        start = _min_start(g["start_ns"])
        active = max((g["stop_ns"] if g["stop_ns"] is not None else end) - start, 0) * 1e-9
        t = g["transport"]
        app = g["app"]
        if app["type"] == "poisson":
            arrivals = app["rate_per_s"] * active
            n_flows += arrivals
            terms[f"flows[{i}].arrival_rate"] = arrivals * 2 * EVENTS_PER_PACKET
        else:
            n_flows += g["count"]
        if t["type"] == "udp":
            terms[f"flows[{i}].rate"] = g["count"] * t["rate_bps"] * active / (8 * g["packet_size"]) * EVENTS_PER_PACKET
        else:
            terms[f"flows[{i}].min_rto"] = g["count"] * active * 1e9 / t["min_rto_ns"]
    tr = c["traces"]
    samples = end / tr["interval_ns"] if any(tr[k] for k in ("queue", "flow_bytes", "probe", "tcp")) else 0.0
    terms["traces.interval"] = samples
    # Bytes per sample: the time and queue columns, a column per flow for flow_bytes, three per
    # flow for tcp, a few probe variables; a sojourn record per departure.
    per_sample = 8 + 32 * tr["queue"] + 8 * n_flows * tr["flow_bytes"] + 48 * tr["probe"] + 24 * n_flows * tr["tcp"]
    departures = bits / (8 * smallest)
    trace_bytes = samples * per_sample + tr["sojourn"] * departures / tr["sojourn_every"] * 20
    # A capture keeps a 16-byte record header and up to snaplen bytes of a frame per packet
    # (an MTU-sized frame at most), inside its window.
    window = tr["pcap_window_ns"] or (0, end)
    share = max(min(window[1], end) - window[0], 0) / end
    frame = 16 + min(tr["pcap_snaplen"], b["mtu"] + 14)
    trace_bytes += len(tr["pcap"]) * departures * share / tr["pcap_every"] * frame
    return Estimate(events=sum(terms.values()), trace_bytes=trace_bytes, terms=terms)


def _capacity_bits(b: dict[str, Any], end: int) -> float:
    bits, rate, t = 0.0, b["rate_bps"], 0
    for step in b["rate_schedule"]:
        at = min(step["at_ns"], end)
        bits += rate * (at - t) * 1e-9
        rate, t = step["rate_bps"], max(t, at)
    return float(bits + rate * max(end - t, 0) * 1e-9)


def _min_start(d: dict[str, Any]) -> int:
    ((kind, v),) = d.items()
    return int(v) if kind == "fixed" else int(v["lo"]) if kind == "uniform" else int(min(v))


def _memory_bytes() -> float:
    try:
        return float(os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES"))
    except (ValueError, OSError, AttributeError):  # not POSIX: no limit from memory
        return float("inf")


def check_size(scn: Scenario, *, force: bool = False) -> Estimate:
    """Refuses, unless ``force``, a run estimated to take hours or more memory than the machine
    has to spare: a :class:`ScenarioError` naming the field behind most of it, with the estimate."""
    est = estimate(scn)
    if force:
        return est
    if est.wall_s > MAX_WALL_S:
        field = max(est.terms, key=lambda k: est.terms[k])
        raise ScenarioError(field, f"this run is large: {est.text()}; check the scenario, or pass --force "
                                   f"(force=True) to run it anyway")
    if est.trace_bytes > _memory_bytes() / 2:
        raise ScenarioError("traces", f"the traces would take {est.trace_bytes / 2**30:.3g} GiB, more than half "
                                      f"of this machine's memory ({_memory_bytes() / 2**30:.3g} GiB): record "
                                      f"fewer traces or a longer traces.interval, or pass --force (force=True)")
    return est


def run(scenario: Scenario | dict[str, Any] | str | Path, *, progress: bool | None = None, steps: int = 200,
        force: bool = False) -> Result:
    """Simulates one scenario to its end and returns the result.

    The run advances in ``steps`` chunks of simulated time with the GIL released; between
    chunks a progress bar is drawn (runs over 2 s; ``progress=None`` shows it on a terminal)
    and Ctrl-C is honoured: an interrupted run returns what it has, flagged ``interrupted``.
    A run estimated to take hours (:func:`estimate`) is refused unless ``force``.
    """
    from . import _core

    scn = as_scenario(scenario)
    check_size(scn, force=force)
    sim = _core.Simulation(scn.sim_json())
    duration = sim.duration
    step = max(duration // steps, 1)
    bar = Progress(f"{scn.name}", enabled=progress)
    t0 = time.perf_counter()
    interrupted = False
    try:
        t = 0
        while t < duration:
            t = min(t + step, duration)
            sim.run_until(t)
            bar.update(t / duration, f"({t / 1e9:.1f} of {duration / 1e9:.1f} s simulated)")
    except KeyboardInterrupt:
        interrupted = True
    finally:
        bar.close()
    return Result.from_simulation(scn, sim, wall_s=time.perf_counter() - t0, interrupted=interrupted)
