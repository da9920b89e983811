"""Draws the scaling curves of issue 22 from saved runs of `cargo bench -p aqmlab-sim -- scaling`.

    for i in 1 2 3; do cargo bench -q -p aqmlab-sim --bench scenarios -- scaling; done > scaling.txt
    python scripts/scaling-plot.py scaling.txt docs/img/scaling.png

Each run prints one table row per scenario (rate-*: one flow per 2 Mb/s; flows-*: at 1 Gb/s).
The plot shows delivered packets per CPU-second against the link rate and against the flow
count, the range over the runs as a bar and its middle as a point, with the issue's targets.
"""

from __future__ import annotations

import sys
from collections import defaultdict
from pathlib import Path

RATES = {"rate-10M": 10e6, "rate-100M": 100e6, "rate-1G": 1e9, "rate-10G": 10e9}
FLOWS = {"flows-10": 10, "flows-100": 100, "flows-1000": 1000, "flows-10000": 10000}


def read(path: Path) -> dict[str, list[float]]:
    """Packets per CPU-second of every row, by scenario name, over all runs in the file."""
    out: dict[str, list[float]] = defaultdict(list)
    for line in path.read_text().splitlines():
        cols = line.split()
        if cols and (cols[0] in RATES or cols[0] in FLOWS):
            out[cols[0]].append(float(cols[4]))
    return out


def main(src: Path, dest: Path) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    rates = read(src)
    fig, axes = plt.subplots(1, 2, figsize=(9, 3.6), sharey=True)
    for ax, table, label in ((axes[0], RATES, "bottleneck rate (b/s), one flow per 2 Mb/s"),
                             (axes[1], FLOWS, "flows at 1 Gb/s")):
        xs = [x for name, x in table.items() if rates.get(name)]
        lo = [min(rates[name]) / 1e6 for name in table if rates.get(name)]
        hi = [max(rates[name]) / 1e6 for name in table if rates.get(name)]
        mid = [(a + b) / 2 for a, b in zip(lo, hi)]
        ax.errorbar(xs, mid, yerr=[[m - a for m, a in zip(mid, lo)], [b - m for m, b in zip(mid, hi)]],
                    fmt="o-", capsize=3, label=f"aqmlab ({max(len(v) for v in rates.values())} runs)")
        ax.set_xscale("log")
        ax.set_xlabel(label)
        ax.grid(True, which="both", alpha=0.3)
    axes[0].set_ylabel("delivered packets per CPU-second (M)")
    axes[0].axhline(1.5, color="0.5", ls="--", lw=0.8, label="target at 10 Gb/s, 5,000 flows: 1.5 M")
    axes[0].legend(fontsize="small")
    axes[1].legend(fontsize="small")
    axes[0].set_ylim(bottom=0)
    fig.suptitle("Cost per packet against link rate and flow count (DropTail, one BDP of buffer, 100 ms)",
                 fontsize="medium")
    fig.tight_layout()
    dest.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(dest, dpi=100)


if __name__ == "__main__":
    if len(sys.argv) != 3:
        sys.exit("usage: python scripts/scaling-plot.py SCALING_OUTPUT.txt PLOT.png")
    main(Path(sys.argv[1]), Path(sys.argv[2]))
