"""The sweep driver: plan, skip what the store holds, run the rest on a backend, record as runs finish."""

from __future__ import annotations

import sys
from collections.abc import Callable
from contextlib import closing
from dataclasses import dataclass, field
from pathlib import Path

from ..progress import Progress
from .backends import Backend, LocalPool
from .spec import RunSpec, Sweep
from .store import Store
from .worker import Task, execute

@dataclass
class SweepReport:
    """What one invocation did. ``interrupted``: Ctrl-C stopped it; the store keeps every finished run."""

    store: Path
    total: int
    skipped: int = 0
    completed: int = 0
    failed: dict[str, dict] = field(default_factory=dict)   # run key -> error (type, message, traceback)
    interrupted: bool = False

    @property
    def remaining(self) -> int:
        return self.total - self.skipped - self.completed - len(self.failed)

    def text(self) -> str:
        s = (f"sweep: {self.total} runs: {self.skipped} already in the store, {self.completed} completed, "
             f"{len(self.failed)} failed, {self.remaining} not run")
        if self.interrupted:
            s += " (interrupted: run the same command again to resume)"
        return s


def _nothing():
    yield from ()


def _record(spec: RunSpec, outcome: dict, version: str) -> dict:
    return {**outcome, "point": spec.point, "replication": spec.replication, "seed": spec.seed,
            "values": spec.values, "columns": spec.columns, "aqmlab_version": version}


def run_sweep(sweep: Sweep | str | Path, store: str | Path, *, backend: Backend | None = None,
              workers: int | None = None, traces: bool | None = None, progress: bool | None = None,
              task_fn: Callable[[Task], dict] | None = None) -> SweepReport:
    """Runs every run of ``sweep`` that ``store`` does not hold yet, recording each as it finishes.

    ``backend`` defaults to a :class:`LocalPool` of ``workers`` processes (closed at the end; a
    backend passed in is left open for reuse). Runs that failed before are tried again. ``traces``
    overrides the sweep's ``traces`` setting. Ctrl-C stops the sweep with the store consistent and
    returns with ``interrupted`` set; the consolidated summary.parquet is rebuilt either way.
    ``task_fn`` is what each worker runs per run (default :func:`~aqmlab.sweep.worker.execute`);
    it must be importable by the workers and return the same outcome dict.
    """
    from .. import __version__

    if not isinstance(sweep, Sweep):
        sweep = Sweep.load(sweep)
    specs = sweep.runs()
    keep_traces = sweep.traces if traces is None else traces
    st = Store(store)
    st.root.mkdir(parents=True, exist_ok=True)
    st.write_manifest(sweep.describe(), {
        s.key: {"point": s.point, "replication": s.replication, "seed": s.seed, "values": s.values} for s in specs})
    done = st.completed()
    todo = [s for s in specs if s.key not in done]
    report = SweepReport(store=st.root, total=len(specs), skipped=len(specs) - len(todo))
    by_key = {s.key: s for s in todo}
    tasks = [Task(key=s.key, scenario=s.scenario, trace_dir=str(st.trace_dir(s.key).resolve()) if keep_traces else None,
                  force=sweep.force) for s in todo]
    if keep_traces:
        st.runs_dir.mkdir(exist_ok=True)

    bar = Progress(f"sweep {sweep.name}", enabled=progress)
    owned = backend is None
    backend = backend or LocalPool(workers)
    try:
        fn = task_fn if task_fn is not None else execute
        with closing(backend.run(fn, tasks) if tasks else _nothing()) as results:
            for task, outcome in results:
                spec = by_key[task.key]
                if isinstance(outcome, BaseException):
                    outcome = {"run_key": task.key, "status": "error", "wall_s": float("nan"), "error": {
                        "type": type(outcome).__name__, "message": f"the worker failed: {outcome}", "traceback": ""}}
                st.write_record(_record(spec, outcome, __version__))
                if outcome["status"] == "ok":
                    report.completed += 1
                else:
                    report.failed[task.key] = outcome["error"]
                finished = report.completed + len(report.failed)
                bar.update(finished / len(tasks), f"{report.completed} done, {len(report.failed)} failed, "
                                                  f"{report.remaining} left")
    except KeyboardInterrupt:
        report.interrupted = True
    finally:
        bar.close()
        if owned:
            backend.close()
    st.collect()
    return report


def print_failures(report: SweepReport, stream=None) -> None:
    """One line per failed run: its key, the error type and message (tracebacks are in the records)."""
    stream = stream or sys.stderr
    for key, err in sorted(report.failed.items()):
        print(f"run {key[:12]} failed: {err['type']}: {err['message']}", file=stream)
