"""What runs on a worker: one sweep run, from its resolved scenario to a small outcome dict.

This module is imported by pool processes, Dask workers and Ray workers, so it must be importable
there (aqmlab installed on every node). The outcome is a pure function of the task (the simulator
is deterministic), apart from the wall-clock time it reports.
"""

from __future__ import annotations

import shutil
import signal
import time
import traceback
import uuid
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from .store import FLOW_METRICS, METRICS


@dataclass(frozen=True)
class Task:
    key: str
    scenario: dict                 # Scenario.resolved of the run, seed included
    trace_dir: str | None = None   # save Result.save(plots=False) here; must be reachable by the worker
    force: bool = False            # the sweep's force: run even if estimated to take hours


def ignore_sigint() -> None:
    """Pool initializer: Ctrl-C goes to the whole foreground process group, but only the driver
    should act on it (stop submitting, keep the store consistent); a worker that caught it would
    end its run early and report an interrupted, partial result."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)


def metrics(result: Any) -> dict:
    """The scalar metrics of a run's summary, with per-flow throughput aggregated."""
    out = {m: result.summary[m] for m in METRICS}
    # Flows without an active window in the measured period have no throughput (NaN).
    tput = result.flow_column("throughput_bps")
    tput = tput[~np.isnan(tput)]
    agg = (float(tput.mean()), float(tput.min()), float(tput.max())) if len(tput) else (None,) * 3
    out.update(dict(zip(FLOW_METRICS, agg)))
    return out


def execute(task: Task) -> dict:
    """Runs one task; never raises for a failing run: the error (type, message, traceback) is the
    outcome, so one bad run cannot stop a sweep."""
    from ..api import run
    from ..scenario import Scenario

    t0 = time.perf_counter()
    try:
        result = run(Scenario.from_dict(task.scenario), progress=False, force=task.force)
        if result.summary["interrupted"]:
            raise RuntimeError("the run was interrupted (SIGINT reached the worker) before its end")
        if task.trace_dir:
            _save_traces(result, Path(task.trace_dir))
        return {"run_key": task.key, "status": "ok", "metrics": metrics(result),
                "wall_s": time.perf_counter() - t0}
    except Exception as e:
        return {"run_key": task.key, "status": "error", "wall_s": time.perf_counter() - t0,
                "error": {"type": type(e).__name__, "message": str(e), "traceback": traceback.format_exc()}}


def _save_traces(result, final: Path) -> None:
    """Writes into a fresh sibling directory and renames it into place, so ``runs/<key>/`` is
    either complete or absent even if the worker dies while writing."""
    tmp = final.parent / f".{final.name}.{uuid.uuid4().hex}.tmp"
    try:
        result.save(tmp, plots=False, report=False)
        if final.exists():
            shutil.rmtree(final)
        tmp.rename(final)
    finally:
        if tmp.exists():
            shutil.rmtree(tmp)
