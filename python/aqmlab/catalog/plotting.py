"""Figures in the style of the AQM papers of the catalog: queueing latency and throughput over
time, cumulative drops, CDFs of queueing delay, margin curves. Each helper draws on an axis."""

from __future__ import annotations

from collections.abc import Sequence

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt
import numpy as np

from . import metrics


def figure(rows: int = 1, cols: int = 1, width: float = 7.5, height: float = 2.8):
    """A figure with a grid of axes (always a 2-D array) sized for the report."""
    fig, axes = plt.subplots(rows, cols, figsize=(width, height * rows), squeeze=False)
    return fig, axes


def delay_over_time(ax, runs: Sequence[tuple[str, object]], *, unit: str = "ms",
                      reference_s: float | None = None, title: str = ""):
    """Queueing delay (mean sojourn per trace interval) of each (label, result) against time."""
    scale = {"ms": 1e3, "us": 1e6}[unit]
    shown = "µs" if unit == "us" else unit
    for label, r in runs:
        d = metrics.delay_series(r)
        ax.plot(d["t_s"], d["delay_s"] * scale, lw=0.7, label=label)
    if reference_s is not None:
        ax.axhline(reference_s * scale, color="k", ls="--", lw=0.8, label=f"reference {reference_s * scale:g} {shown}")
    ax.set_xlabel("time (s)")
    ax.set_ylabel(f"queueing delay, sojourn ({shown})")
    ax.set_title(title, fontsize="medium")
    ax.grid(alpha=0.3)
    ax.legend(fontsize="small", loc="upper right")


def throughput_over_time(ax, runs: Sequence[tuple[str, object]], *, bin_s: float, unit: str = "Mb/s",
                         per_flow: bool = False, title: str = ""):
    """Link throughput (all flows) of each run averaged over ``bin_s`` bins, and optionally each
    flow's (for a single run with few flows, as in HPSR'13 Fig. 5a)."""
    scale = {"Mb/s": 1e-6, "Gb/s": 1e-9}[unit]
    for label, r in runs:
        rates = r.flow_rates()
        t = rates.index.to_numpy()
        dt = float(np.median(np.diff(t))) if len(t) > 1 else bin_s
        k = max(1, round(bin_s / dt))
        n = len(t) - len(t) % k
        tb = t[:n].reshape(-1, k)[:, -1]
        binned = rates.to_numpy()[:n].reshape(-1, k, rates.shape[1]).mean(axis=1)
        if per_flow:
            for c in range(binned.shape[1]):
                ax.plot(tb, binned[:, c] * scale, lw=0.6)
        ax.plot(tb, binned.sum(axis=1) * scale, lw=1.0, label=f"{label} total")
        q = r.queue()
        ax.step(q["t_s"], q["rate_bps"] * scale, where="post", color="grey", ls=":", lw=0.8)
    ax.set_xlabel("time (s)")
    ax.set_ylabel(f"throughput ({unit})")
    ax.set_title(title, fontsize="medium")
    ax.grid(alpha=0.3)
    ax.legend(fontsize="small", loc="lower right")


def delay_cdfs(ax, runs: Sequence[tuple[str, object]], *, xmax_ms: float, title: str = ""):
    """CDF of the per-packet queueing delay of each run (HPSR'13 Figs. 10–11). Each run its own
    line style, the first widest, so that runs with nearly equal CDFs do not hide each other."""
    for i, (label, r) in enumerate(runs):
        x, f = r.delay_cdf()
        ax.plot(np.concatenate([[0.0], x * 1e3]), np.concatenate([[0.0], f]), label=label,
                ls=("-", "--", ":", "-.")[i % 4], lw=max(1.0, 2.6 - 0.7 * i))
    ax.set_xlim(0, xmax_ms)
    ax.set_ylim(0, 1.01)
    ax.set_xlabel("queueing delay (ms)")
    ax.set_ylabel("CDF")
    ax.set_title(title, fontsize="medium")
    ax.grid(alpha=0.3)
    ax.legend(fontsize="small", loc="lower right")


def paper_points(ax, points: Sequence[tuple[float, float, str]], *, loc: str = "lower right"):
    """The paper's own numbers as open markers at (x, y) in the axis' units, each with its label
    (e.g. "paper: PIE, 70 % under 5 ms"), so our curves are read against them."""
    for i, (x, y, label) in enumerate(points):
        ax.plot([x], [y], marker="os^vD"[i % 5], ms=7, mfc="none", mew=1.5, color="k", ls="none", label=label)
    ax.legend(fontsize="small", loc=loc)


def mark_changes(ax, times: Sequence[float]):
    """Dotted vertical lines at the scenario's change points."""
    for t in times:
        ax.axvline(t, color="grey", ls=":", lw=0.8)

