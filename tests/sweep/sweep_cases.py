"""Sweeps and helpers shared by the sweep tests (imported by name: pytest puts this folder on sys.path)."""

from __future__ import annotations

import copy
import os
import subprocess
import sys
from pathlib import Path

import tomli_w
from support import small_scenario

from aqmlab.sweep.store import WALL_CLOCK

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
