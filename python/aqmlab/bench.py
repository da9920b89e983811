"""`aqmlab bench`: simulator speed and memory on named scenarios.

Each scenario runs in a fresh child process so its peak memory is its own; it runs at half
and at full length, and the two peaks should match (memory must not grow with simulated time
when traces are off). Speed is compared with ns-3.44's ~20 k delivered packets per
wall-second on this class of machine: a constant quoted in the foundation issue, not a
measurement of this run, which the table's footnote says (issue 22).

``aqmlab bench flows-1M`` (not among the defaults: a few minutes) runs a million bulk TCP flows
through the whole of ``aqmlab run -o`` (:data:`SAVED`): engine, result and the files it writes
(plots and report aside), and prints the peak memory, times and file sizes (issue 22: under
2 GB, with a small summary.json).

``aqmlab bench --vs-ns3`` measures instead (:func:`vs_ns3`): scenarios of the cross-validation
suite through aqmlab's engine and through the ns-3 program :mod:`aqmlab.xval` builds for them
(the ``ns3`` wheel), in interleaved pairs, each side timed by its own run-loop timer.
"""

from __future__ import annotations

import json
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

NS3_PACKETS_PER_S = 20_000
NS3_SOURCE = "ns-3.44, ~20 k packets/wall-s: the foundation issue's figure (2026-11-22), not measured here"


def _rss_mib(field: str) -> float:
    with open("/proc/self/status") as f:
        for line in f:
            if line.startswith(field + ":"):
                return int(line.split()[1]) / 1024
    return 0.0


# Scenarios run end to end, as `aqmlab run -o` runs them: a million flows of the flow-count
# sweep's kind (bulk TCP, one BDP of DropTail buffer at 100 ms, starts over the first second),
# at 10 Gb/s (10 kb/s a flow: the run measures the cost of the flows, not their physics).
SAVED: dict[str, dict[str, Any]] = {
    "flows-1M": {
        "name": "flows-1M", "seed": 1, "duration": "2s",
        "bottleneck": {"rate": "10Gbps", "delay": "25ms", "queue": {"type": "drop_tail", "limit": "125000p"}},
        "flows": [{"name": "bulk", "type": "tcp", "count": 1_000_000, "rtt": "100ms",
                   "start": {"uniform": ["0s", "1s"]}}],
    },
}


def saved(name: str) -> dict:
    """Runs a :data:`SAVED` scenario in this process and writes its files (no plots, no report)
    into a temporary directory; returns its figures."""
    from .api import run

    baseline = _rss_mib("VmRSS")
    wall0, cpu0 = time.perf_counter(), time.process_time()
    result = run(SAVED[name], progress=False, force=True)
    wall1, cpu1 = time.perf_counter(), time.process_time()
    with tempfile.TemporaryDirectory(prefix="aqmlab-bench-") as d:
        files = result.save(d, plots=False, report=False)
        sizes = {p.relative_to(d).as_posix(): p.stat().st_size for p in files}
    return {"scenario": name, "flows": result.summary["n_flows"], "delivered_packets": result.summary["delivered_packets"],
            "run_wall_s": wall1 - wall0, "run_cpu_s": cpu1 - cpu0, "save_wall_s": time.perf_counter() - wall1,
            "save_cpu_s": time.process_time() - cpu1, "peak_rss_mib": _rss_mib("VmHWM"), "baseline_rss_mib": baseline,
            "summary_bytes": sizes["summary.json"], "flows_parquet_bytes": sizes["traces/flows.parquet"]}


def run_saved(name: str, stream=sys.stdout) -> dict:
    """Prints the figures of a :data:`SAVED` scenario, run in a fresh process."""
    r = child(name, 1.0)
    print(f"{name}: {r['flows']:,} flows, {r['delivered_packets']:,} packets delivered\n"
          f"  run   {r['run_wall_s']:.1f} s wall, {r['run_cpu_s']:.1f} s CPU (engine and result)\n"
          f"  save  {r['save_wall_s']:.1f} s wall, {r['save_cpu_s']:.1f} s CPU (summary.json, Parquet)\n"
          f"  peak memory {r['peak_rss_mib']:.0f} MiB (the interpreter alone: {r['baseline_rss_mib']:.0f} MiB)\n"
          f"  summary.json {r['summary_bytes'] / 1024:.1f} KiB, traces/flows.parquet {r['flows_parquet_bytes'] / 2**20:.1f} MiB",
          file=stream)
    return r


def one(name: str, fraction: float) -> dict:
    """Runs one scenario in this process; returns its figures."""
    from . import _core

    if name in SAVED:
        return saved(name)
    baseline = _rss_mib("VmRSS")
    r = json.loads(_core.bench(name, fraction))
    r["baseline_rss_mib"] = baseline
    return r


def child(name: str, fraction: float) -> dict:
    out = subprocess.run(
        [sys.executable, "-m", "aqmlab.bench", name, str(fraction)], capture_output=True, text=True, check=False
    )
    if out.returncode != 0:
        raise RuntimeError(f"benchmark {name} failed: {out.stderr.strip()}")
    return json.loads(out.stdout)


def run(names: list[str] | None = None, stream=sys.stdout) -> list[dict]:
    from . import _core

    names = names or list(_core.BENCH_SCENARIOS)
    header = (f"{'scenario':<26} {'sim s':>6} {'wall s':>7} {'events/s':>10} {'pkts/s':>10} {'pkts/CPU-s':>10} "
              f"{'ev/pkt':>6} {'x ns-3*':>7} {'sim MiB':>8} {'half MiB':>8}")
    print(header, file=stream)
    rows = []
    for name in names:
        half = child(name, 0.5)
        full = child(name, 1.0)
        full["sim_mib"] = full["peak_rss_mib"] - full["baseline_rss_mib"]
        full["sim_mib_at_half"] = half["peak_rss_mib"] - half["baseline_rss_mib"]
        rows.append(full)
        print(
            f"{name:<26} {full['simulated_s']:>6.0f} {full['wall_s']:>7.3f} {full['events_per_s']:>10.3e} "
            f"{full['packets_per_s']:>10.3e} {full['packets_per_cpu_s']:>10.3e} "
            f"{full['events'] / max(full['delivered_packets'], 1):>6.2f} "
            f"{full['packets_per_s'] / NS3_PACKETS_PER_S:>7.0f} {full['sim_mib']:>8.1f} {full['sim_mib_at_half']:>8.1f}",
            file=stream,
        )
    print("pkts/s: data packets delivered per wall-second; sim MiB: peak RSS above the interpreter's "
          "baseline, at full and at half the simulated time (equal when memory does not grow).", file=stream)
    print(f"* x ns-3: pkts/s over {NS3_SOURCE}.", file=stream)
    return rows


# `--vs-ns3`: scenarios of the xval suite (their mapping to ns-3 is checked there): the PIE
# paper's small dumbbell with a tail-drop queue, and 100 flows through PIE at 100 Mb/s.
VS_NS3 = ("pfifo-newreno", "pie-100-flows")


def _engine_run(scn: Any) -> dict[str, float]:
    """aqmlab's engine on the scenario (traces off, as the suite's scenarios are): its run loop
    timed, set-up excluded, as the ns-3 program times Simulator::Run."""
    from . import _core

    sim = _core.Simulation(scn.sim_json())
    wall0, cpu0 = time.perf_counter(), time.process_time()
    sim.run_until(scn.sim_config["duration_ns"])
    return {"wall_s": time.perf_counter() - wall0, "cpu_s": time.process_time() - cpu0,
            "packets": sim.delivered_packets}


def vs_ns3(names: list[str] | None = None, pairs: int = 3, stream: Any = None) -> list[dict]:
    """Each scenario `pairs` times through aqmlab and through ns-3.44, alternating, so that the
    load of a shared machine falls on both alike; prints packets per CPU-second of each (the
    same packet count, aqmlab's delivered data packets, over each side's run-loop CPU time) and
    the range of the pairs' ratios, CPU and wall. Raises xval.Ns3Unavailable without the wheel."""
    from .scenario import Scenario
    from .xval import measure, prepare
    from .xval.suite import SUITE_DIR

    stream = stream or sys.stdout
    print(f"{'scenario':<16} {'pairs':>5} {'aqmlab pkts/CPU-s':>17} {'ns-3 pkts/CPU-s':>15} "
          f"{'x ns-3 (CPU)':>13} {'x ns-3 (wall)':>13}", file=stream)
    rows = []
    for name in names or VS_NS3:
        scn = Scenario.from_toml(SUITE_DIR / f"{name}.toml")
        model, binary = prepare(scn)
        _, draws = measure.aqmlab_run(scn, 1)  # ns-3 gets aqmlab's per-flow draws, as in xval
        ours, theirs = [], []
        for _ in range(pairs):
            ours.append(_engine_run(scn))
            raw = measure.ns3_run(binary, scn, 1, draws, model.forward)
            theirs.append({"wall_s": raw.run_wall_s, "cpu_s": raw.run_cpu_s})
        packets = ours[0]["packets"]
        cpu = [t["cpu_s"] / o["cpu_s"] for o, t in zip(ours, theirs)]
        wall = [t["wall_s"] / o["wall_s"] for o, t in zip(ours, theirs)]
        row = {"scenario": name, "pairs": pairs, "packets": packets, "aqmlab": ours, "ns3": theirs,
               "ratio_cpu": [min(cpu), max(cpu)], "ratio_wall": [min(wall), max(wall)]}
        rows.append(row)
        print(f"{name:<16} {pairs:>5} {packets / statistics.median(o['cpu_s'] for o in ours):>17.3e} "
              f"{packets / statistics.median(t['cpu_s'] for t in theirs):>15.3e} "
              f"{min(cpu):>6.0f}-{max(cpu):<6.0f} {min(wall):>6.0f}-{max(wall):<6.0f}", file=stream)
    print("Same scenario and seed on both sides (ns-3.44 from the ns3 wheel, built by aqmlab xval); each "
          "side's run loop timed by itself, set-up excluded; x ns-3: ns-3's time over aqmlab's, per pair "
          "(min-max).", file=stream)
    return rows


if __name__ == "__main__":
    print(json.dumps(one(sys.argv[1], float(sys.argv[2]))))
