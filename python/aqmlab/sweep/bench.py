"""Sweep throughput of the local process pool on this machine: runs per minute, 1 versus 2 workers.

    python -m aqmlab.sweep.bench [--runs N]

The workload (:data:`BENCH_SWEEP`) is a 1 Gb/s dumbbell with 20 NewReno flows (40 ms RTT) and a
DropTail buffer swept over 4 sizes, 5 simulated seconds per run, about 0.1 s of simulation each:
long enough that the pool's own overhead (start-up, pickling, one record file per run) shows
in the figure without dominating it. Times are end to end, as a user sees them: pool start-up,
every run, the records and the final summary.parquet, into a fresh store each time.
"""

from __future__ import annotations

import argparse
import os
import tempfile
import time

from .runner import run_sweep
from .spec import Sweep

BENCH_SWEEP = {
    "name": "bench-1g-droptail",
    "base": {
        "name": "bench-1g-droptail", "seed": 1, "duration": "5s", "warmup": "1s",
        "bottleneck": {"rate": "1Gbps", "delay": "10ms", "queue": {"type": "drop_tail", "limit": "1000p"}},
        "flows": [{"type": "tcp", "count": 20, "rtt": "40ms", "start": {"uniform": ["0s", "0.5s"]}}],
    },
    "axes": {"bottleneck.queue.limit": ["250p", "500p", "1000p", "2000p"]},
}


def throughput(workers: int, replications: int) -> tuple[int, float]:
    """(runs, wall seconds) of the benchmark sweep with ``replications`` per buffer size."""
    sweep = Sweep.from_dict({**BENCH_SWEEP, "replications": replications})
    with tempfile.TemporaryDirectory(prefix="aqmlab-sweep-bench-") as store:
        t0 = time.perf_counter()
        report = run_sweep(sweep, store, workers=workers, progress=False)
        wall = time.perf_counter() - t0
    if report.failed or report.completed != report.total:
        raise RuntimeError(f"benchmark sweep did not complete: {report.text()}")
    return report.total, wall


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="python -m aqmlab.sweep.bench", description=__doc__,
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--runs", type=int, default=48, help="runs per measurement, a multiple of 4 (default 48)")
    args = p.parse_args(argv)
    replications = max(args.runs // 4, 1)
    print(f"sweep throughput, local pool, {os.cpu_count()} CPUs: {BENCH_SWEEP['name']} "
          f"(1 Gb/s, 20 TCP flows, 5 s simulated per run), {replications * 4} runs")
    rates = {}
    for workers in (1, 2):
        runs, wall = throughput(workers, replications)
        rates[workers] = runs / wall * 60
        print(f"  {workers} worker{'s' if workers > 1 else ' '}  {wall:6.2f} s  {rates[workers]:7.0f} runs/min")
    print(f"  speed-up with 2 workers: {rates[2] / rates[1]:.2f}x")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
