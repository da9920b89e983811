"""The Python API: run a scenario, get a :class:`~aqmlab.result.Result`."""

from __future__ import annotations

import json
import os
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from .errors import ScenarioError
from .progress import Progress
from .result import Result
from .scenario import Scenario

# Speed assumed by the size estimate: about a third of the slowest `aqmlab bench` scenario on
# the 2-core machine of the README (14.5 M events per wall-second on 2026-11-28), so that the
# estimate errs towards long on slower machines and heavier scenarios.
EVENTS_PER_S = 5e6
# Most chunks a run may be cut into (each returns to Python once: progress, Ctrl-C).
MAX_STEPS = 1_000_000
# A run estimated to take longer than this, or to record more traces than half the memory,
# needs force=True (--force). Runs beyond the simulator's own limits (memory, trace rows,
# flows per group: crates/sim/src/estimate.rs) are refused when the scenario is read.
MAX_WALL_S = 3600.0


def as_scenario(s: Scenario | dict[str, Any] | str | Path) -> Scenario:
    """A scenario object, a dict in the file's vocabulary, a TOML path, or a built-in name."""
    if isinstance(s, Scenario):
        return s
    if isinstance(s, dict):
        return Scenario.from_dict(s)
    return Scenario.load(s)


@dataclass(frozen=True)
class Cost:
    """One part of a run's cost: the scenario field that drives it and what it is, in words."""

    field: str
    what: str
    events: float
    memory_bytes: float


@dataclass(frozen=True)
class Estimate:
    """How big a run is, from the scenario alone: the simulator's own estimate (events, peak
    memory, trace bytes), each part with the field behind it."""

    events: float
    memory_bytes: float
    trace_bytes: float
    costs: tuple[Cost, ...]

    @property
    def wall_s(self) -> float:
        return self.events / EVENTS_PER_S

    def largest(self) -> Cost:
        """The part with the most events: what to change to make the run smaller."""
        return max(self.costs, key=lambda c: c.events)

    def text(self) -> str:
        return (f"about {self.events:.3g} events, {_duration(self.wall_s)} at {EVENTS_PER_S / 1e6:g} M events/s, "
                f"{self.memory_bytes / 2**20:.3g} MiB of memory of which {self.trace_bytes / 2**20:.3g} MiB traces")


def _duration(s: float) -> str:
    return f"{s / 3600:.3g} h" if s >= 3600 else f"{s / 60:.3g} min" if s >= 60 else f"{s:.3g} s"


def estimate(scn: Scenario) -> Estimate:
    """Events and memory of a run, estimated by the simulator from the scenario before any
    work (crates/sim/src/estimate.rs: right within a factor of two on events)."""
    from . import _core
    from .scenario import user_path

    e = json.loads(_core.estimate(scn.sim_json()))
    costs = tuple(Cost(user_path(c["field"]), c["what"], c["events"], c["memory_bytes"]) for c in e["costs"])
    return Estimate(events=e["events"], memory_bytes=e["memory_bytes"], trace_bytes=e["trace_bytes"], costs=costs)


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
        big = est.largest()
        raise ScenarioError(big.field, f"this run is large: {est.text()}, mostly {big.what}; check the "
                                       f"scenario, or pass --force (force=True) to run it anyway")
    if est.memory_bytes > _memory_bytes() / 2:
        big = max(est.costs, key=lambda c: c.memory_bytes)
        raise ScenarioError(big.field, f"this run would take about {est.memory_bytes / 2**30:.3g} GiB, more than "
                                       f"half of this machine's memory ({_memory_bytes() / 2**30:.3g} GiB), mostly "
                                       f"{big.what}; or pass --force (force=True)")
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

    if isinstance(steps, bool) or not isinstance(steps, int) or not 1 <= steps <= MAX_STEPS:
        raise ValueError(f"steps: expected an integer in [1, {MAX_STEPS}], got {steps!r}")
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
