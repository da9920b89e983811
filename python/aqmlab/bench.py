"""`aqmlab bench`: simulator speed and memory on named scenarios.

Each scenario runs in a fresh child process so its peak memory is its own; it runs at half
and at full length, and the two peaks should match (memory must not grow with simulated time
when traces are off). Speed is compared with ns-3.44's ~20 k delivered packets per
wall-second on this class of machine: a constant quoted in the foundation issue, not a
measurement of this run, which the table's footnote says (issue 22).
"""

from __future__ import annotations

import json
import subprocess
import sys

NS3_PACKETS_PER_S = 20_000
NS3_SOURCE = "ns-3.44, ~20 k packets/wall-s: the foundation issue's figure (2026-11-22), not measured here"


def _rss_mib(field: str) -> float:
    with open("/proc/self/status") as f:
        for line in f:
            if line.startswith(field + ":"):
                return int(line.split()[1]) / 1024
    return 0.0


def one(name: str, fraction: float) -> dict:
    """Runs one scenario in this process; returns its figures."""
    from . import _core

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


if __name__ == "__main__":
    print(json.dumps(one(sys.argv[1], float(sys.argv[2]))))
