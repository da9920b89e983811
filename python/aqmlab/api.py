"""The Python API: run a scenario, get a :class:`~aqmlab.result.Result`."""

from __future__ import annotations

import time
from pathlib import Path

from .progress import Progress
from .result import Result
from .scenario import Scenario


def as_scenario(s: Scenario | dict | str | Path) -> Scenario:
    """A scenario object, a dict in the file's vocabulary, a TOML path, or a built-in name."""
    if isinstance(s, Scenario):
        return s
    if isinstance(s, dict):
        return Scenario.from_dict(s)
    return Scenario.load(s)


def run(scenario: Scenario | dict | str | Path, *, progress: bool | None = None, steps: int = 200) -> Result:
    """Simulates one scenario to its end and returns the result.

    The run advances in ``steps`` chunks of simulated time with the GIL released; between
    chunks a progress bar is drawn (runs over 2 s; ``progress=None`` shows it on a terminal)
    and Ctrl-C is honoured: an interrupted run returns what it has, flagged ``interrupted``.
    """
    from . import _core

    scn = as_scenario(scenario)
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
