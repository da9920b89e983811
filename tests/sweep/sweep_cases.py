"""Sweeps and helpers shared by the sweep tests (imported by name: pytest puts this folder on sys.path)."""

from __future__ import annotations

import copy
import dataclasses
import os
import subprocess
import sys
import time
from pathlib import Path

import tomli_w
from support import small_scenario

from aqmlab.sweep.spec import derive_seed
from aqmlab.sweep.store import WALL_CLOCK
from aqmlab.sweep.worker import Task, execute

# conftest's small scenario (3 TCP flows and a CBR source) cut to 3 s without traces: a few
# milliseconds of wall time per run.
SMALL_BASE = small_scenario(name="small-sweep-base", seed=7, duration="3s", traces={})

# 2 buffers x 2 flow counts (Cartesian) x 2 (rate, rtt) pairs (zipped) x 2 replications = 16 runs.
SMALL = {
    "name": "small",
    "base": SMALL_BASE,
    "replications": 2,
    "axes": {"bottleneck.queue.limit": ["20p", "100p"], "flows[0].count": [1, 3]},
    "zip": [{"bottleneck.rate": ["10Mbps", "20Mbps"], "flows[0].rtt": ["60ms", "30ms"]}],
}

# About 0.1-0.2 s of wall time per run (1 Gb/s, 20 flows, 5 s), so a sweep is still running when a
# test kills or interrupts it.
SLOW = {
    "name": "slow",
    "base": {
        **SMALL_BASE, "name": "slow-sweep-base", "duration": "5s",
        "bottleneck": {"rate": "1Gbps", "delay": "10ms", "queue": {"type": "drop_tail", "limit": "1000p"}},
        "flows": [{"type": "tcp", "count": 20, "rtt": "40ms", "start": {"uniform": ["0s", "0.5s"]}}],
    },
    "replications": 3,
    "axes": {"bottleneck.queue.limit": ["500p", "1000p", "2000p", "4000p"]},
}


def sweep_dict(template: dict = SMALL, **over) -> dict:
    d = copy.deepcopy(template)
    d.update(over)
    return d


def write_sweep(path: Path, data: dict) -> Path:
    path.write_text(tomli_w.dumps(data))
    return path


def comparable(df):
    """A results table without wall-clock columns, in run-key order, for exact comparison."""
    return df.drop(columns=list(WALL_CLOCK)).sort_values("run_key").reset_index(drop=True)


def sweep_cli(*args, env_extra: dict | None = None, popen: bool = False, **kw):
    """`python -m aqmlab.sweep ARGS` (= `aqmlab sweep ARGS`) in a subprocess with this PYTHONPATH."""
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(p for p in sys.path if p)}
    env.update(env_extra or {})
    cmd = [sys.executable, "-m", "aqmlab.sweep", *map(str, args)]
    if popen:
        return subprocess.Popen(cmd, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, **kw)
    return subprocess.run(cmd, env=env, capture_output=True, text=True, **kw)


@dataclasses.dataclass(frozen=True)
class FailIf:
    """A sweep task function (``run_sweep(task_fn=...)``) that makes the runs matching every
    condition fail through the worker's own error path: their scenario gets an unknown key.
    Conditions are resolved-scenario dotted paths and values, plus ``replication`` (of
    ``base_seed``). Importable by pool workers (this module is on their sys.path)."""

    conditions: tuple[tuple[str, object], ...]
    base_seed: int

    def __call__(self, task: Task) -> dict:
        if all(_resolved_value(task.scenario, p, self.base_seed) == v for p, v in self.conditions):
            task = dataclasses.replace(task, scenario={**task.scenario, "injected_failure": True})
        return execute(task)


def _resolved_value(scenario: dict, path: str, base_seed: int):
    if path == "replication":
        return next(r for r in range(100) if derive_seed(base_seed, r) == scenario["seed"])
    node = scenario
    for part in path.replace("[", ".").replace("]", "").split("."):
        node = node[int(part)] if isinstance(node, list) else node[part]
    return node


@dataclasses.dataclass(frozen=True)
class SlowFirst:
    """Runs ``execute`` after a pause, so a test can find the worker busy with its run."""

    pause_s: float

    def __call__(self, task: Task) -> dict:
        time.sleep(self.pause_s)
        return execute(task)


def descendants(pid: int) -> dict[int, int]:
    """{descendant pid: depth below pid}, from /proc (Linux)."""
    parent = {}
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = stat.read_text().rsplit(")", 1)[1].split()
        except OSError:  # the process ended while we looked
            continue
        parent[int(stat.parent.name)] = int(fields[1])
    depth = {pid: 0}
    changed = True
    while changed:
        changed = False
        for child, ppid in parent.items():
            if ppid in depth and child not in depth:
                depth[child] = depth[ppid] + 1
                changed = True
    del depth[pid]
    return depth


def alive(pid: int) -> bool:
    """A process that exists and is not a zombie."""
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except OSError:
        return False
    return state != "Z"


def die_on_attempts(item: tuple[str, str, int]) -> str:
    """A pool task (name, folder, deaths): its worker process kills itself on the first
    ``deaths`` attempts (counted in files in ``folder``), then the task returns its name."""
    name, folder, deaths = item
    attempts = len(list(Path(folder).glob(f"{name}.*")))
    (Path(folder) / f"{name}.{attempts}").touch()
    if attempts < deaths:
        os.kill(os.getpid(), 9)
    return name
