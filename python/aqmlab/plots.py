"""Plots of a run, in the style of the AQM papers: queue delay over time, throughput over
time, the AQM's drop probability, the CDF of queue delay, and TCP windows."""

from __future__ import annotations

from pathlib import Path
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
import pandas as pd  # noqa: E402
from matplotlib.axes import Axes  # noqa: E402
from matplotlib.figure import Figure  # noqa: E402

if TYPE_CHECKING:
    from .result import Result


def _target_s(result: Result) -> float | None:
    q = result.scenario.sim_config["bottleneck"]["queue"]
    return float(q["target"]) / 1e9 if "target" in q else None


def _warmup(result: Result, ax: Axes) -> None:
    """Shades the warm-up, which the summary's figures exclude."""
    w = result.scenario.sim_config["warmup_ns"] * 1e-9
    if w > 0:
        ax.axvspan(0, w, color="0.88", lw=0, label="warm-up (not measured)", zorder=0)


def _flow_label(result: Result, flow: int) -> str:
    """A flow's group name and index, as legends show it."""
    names = result.flow_column("name")
    return f"{names[flow]} #{flow}" if flow < len(names) else f"flow {flow}"


def queue_delay(result: Result, ax: Axes | None = None) -> Axes:
    """Queue delay over time: per-packet sojourns if traced, and each interval's mean sojourn."""
    ax = ax or plt.gca()
    _warmup(result, ax)
    soj = result.sojourn()
    if len(soj):
        ax.plot(soj["t_s"], soj["sojourn_s"] * 1e3, lw=0.6, label="sojourn (per packet)")
    q = result.queue()
    if len(q):
        ax.plot(q["t_s"], q["sojourn_mean_s"] * 1e3, lw=0.8, label="sojourn (interval mean)")
    target = _target_s(result)
    if target:
        ax.axhline(target * 1e3, color="k", ls="--", lw=0.8, label=f"target {target * 1e3:g} ms")
    ax.set_xlabel("time (s)")
    ax.set_ylabel("queueing delay (ms)")
    ax.legend(loc="upper right", fontsize="small")
    ax.grid(alpha=0.3)
    return ax


def binned_rates(r: pd.DataFrame, bins: int) -> tuple[np.ndarray, pd.DataFrame]:
    """Per-interval rates (rows: interval ends) averaged into about ``bins`` bins: the bins' end
    times and mean rates."""
    k = max(1, round(len(r) / bins))
    r = r.iloc[: len(r) - len(r) % k] if len(r) >= k else r  # no partial bin at the end
    groups = np.arange(len(r)) // k
    t = r.index.to_series().groupby(groups).max().to_numpy()
    return t, r.groupby(groups).mean()


def throughput(result: Result, ax: Axes | None = None, bins: int = 200) -> Axes:
    """Per-flow and total delivered rate over time, averaged into about ``bins`` intervals
    (a 10 ms sample holds only a dozen packets at 10 Mb/s: too noisy to read)."""
    ax = ax or plt.gca()
    _warmup(result, ax)
    r = result.flow_rates()
    if len(r):
        t, r = binned_rates(r, bins)
        if r.shape[1] <= 10:
            for i, c in enumerate(r.columns):  # "Cn": the default cycle, ten distinct colours
                ax.plot(t, r[c] / 1e6, lw=0.6, color=f"C{i % 10}", label=_flow_label(result, int(c)))
        ax.plot(t, r.sum(axis=1) / 1e6, color="k", lw=1.0, label="total")
    q = result.queue()
    if len(q):
        ax.step(q["t_s"], q["rate_bps"] / 1e6, where="post", color="r", ls=":", lw=1.0, label="capacity")
    ax.set_xlabel("time (s)")
    ax.set_ylabel("throughput (Mb/s)")
    # Headroom above the highest curve (the total or the capacity) holds the legend, so it
    # covers no data wherever the per-flow curves lie.
    top = ax.get_ylim()[1]
    ax.set_ylim(0.0, top * 1.4)
    ax.legend(loc="upper right", fontsize="x-small", ncol=4)
    ax.grid(alpha=0.3)
    return ax


def probe(result: Result, ax: Axes | None = None, var: str | None = None) -> Axes:
    """The AQM's drop/mark probability (or another probed variable) over time."""
    ax = ax or plt.gca()
    _warmup(result, ax)
    df = result.probe()
    if len(df):
        names = [c for c in df.columns if c != "t_s"]
        var = var or next((n for n in names if "prob" in n), names[0])
        ax.plot(df["t_s"], df[var], lw=0.8)
        ax.set_ylabel(f"{var} (probability)" if "prob" in var else var)
    ax.set_xlabel("time (s)")
    ax.grid(alpha=0.3)
    return ax


def delay_cdf(result: Result, ax: Axes | None = None, label: str | None = None) -> Axes:
    """CDF of the bottleneck queue delay over the measured window."""
    ax = ax or plt.gca()
    x, f = result.delay_cdf()
    ax.plot(np.concatenate([[0.0], x * 1e3]), np.concatenate([[0.0], f]), label=label or result.scenario.name)
    ax.set_xlabel("queueing delay (ms)")
    ax.set_ylabel("CDF")
    ax.set_ylim(0, 1.01)
    ax.grid(alpha=0.3)
    return ax


def cwnd(result: Result, ax: Axes | None = None, max_flows: int = 10) -> Axes:
    """Congestion windows of the first few TCP flows."""
    ax = ax or plt.gca()
    _warmup(result, ax)
    df = result.tcp()
    for i, flow in enumerate(sorted(df["flow"].unique())[:max_flows]):
        g = df[df["flow"] == flow]
        ax.plot(g["t_s"], g["cwnd"], lw=0.6, color=f"C{i % 10}", label=_flow_label(result, int(flow)))
    ax.set_xlabel("time (s)")
    ax.set_ylabel("cwnd (segments)")
    ax.legend(loc="upper right", fontsize="x-small", ncol=2)
    ax.grid(alpha=0.3)
    return ax


View = tuple[str, Callable[["Result", Axes], Axes]]


def available_views(result: Result) -> list[View]:
    """The plots the run's traces allow, by name."""
    views = [("queue_delay", queue_delay, len(result.queue()) or len(result.sojourn())),
             ("throughput", throughput, len(result.flow_rates())),
             ("probe", probe, len(result.probe())),
             ("delay_cdf", delay_cdf, True),
             ("cwnd", cwnd, len(result.tcp()))]
    return [(n, f) for n, f, ok in views if ok]


def overview(result: Result, views: list[View]) -> Figure:
    """Every view stacked in one figure."""
    fig, axes = plt.subplots(len(views), 1, figsize=(8, 2.6 * len(views)), squeeze=False)
    for ax, (_, f) in zip(axes[:, 0], views):
        f(result, ax)
    fig.suptitle(result.scenario.name)
    fig.tight_layout()
    return fig


def save_all(result: Result, outdir: Path) -> list[Path]:
    """One PNG per available view, plus an overview; returns the paths."""
    outdir.mkdir(parents=True, exist_ok=True)
    available = available_views(result)
    paths = []
    for name, f in available:
        fig, ax = plt.subplots(figsize=(7, 3.5))
        f(result, ax)
        ax.set_title(f"{result.scenario.name}: {name.replace('_', ' ')}")
        fig.tight_layout()
        p = outdir / f"{name}.png"
        fig.savefig(p, dpi=110)
        plt.close(fig)
        paths.append(p)
    fig = overview(result, available)
    p = outdir / "overview.png"
    fig.savefig(p, dpi=100)
    plt.close(fig)
    paths.append(p)
    return paths
