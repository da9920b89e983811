"""Saved runs loaded for comparison, the three views, and the headline table (the package's
docstring describes the views)."""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from ..errors import ScenarioError
from ..outdir import OutputKind


@dataclass
class SavedRun:
    """What ``aqmlab run -o DIR`` wrote, as far as the comparison needs it."""

    label: str
    summary: dict[str, Any]
    warmup_s: float
    frames: dict[str, pd.DataFrame]

    @classmethod
    def load(cls, path: Path, label: str | None = None) -> SavedRun:
        if not (path / "summary.json").is_file():
            raise ScenarioError("RUN_DIR", f"{path} holds no run (no summary.json): give directories written by "
                                           "'aqmlab run -o'")
        try:
            summary = json.loads((path / "summary.json").read_text())
            cfg = json.loads((path / "sim_config.json").read_text())
            frames = {p.stem: pd.read_parquet(p) for p in sorted((path / "traces").glob("*.parquet"))}
            return cls(label or summary["scenario"], summary, cfg["warmup_ns"] * 1e-9, frames)
        except (OSError, ValueError, TypeError, KeyError) as e:
            # A missing, truncated or edited file (JSON and Parquet readers raise ValueError
            # subclasses: JSONDecodeError, ArrowInvalid): the run directory is not as written.
            raise ScenarioError("RUN_DIR", f"{path} is not a run as 'aqmlab run -o' writes it: "
                                           f"{type(e).__name__}: {e}") from None

    @property
    def no_delay_cdf(self) -> str | None:
        """Why the run has no delay CDF to draw (None: it has one)."""
        h = self.frames.get("delay_histogram")
        if h is None:
            return "no delay_histogram trace in this run"
        if h["count"].sum() == 0:
            return "no departure in its measured window"
        return None

    def delay_cdf(self) -> tuple[np.ndarray, np.ndarray] | None:
        """The measured sojourns' CDF, (delay s, fraction), or None (:attr:`no_delay_cdf` says why)."""
        if self.no_delay_cdf is not None:
            return None
        h = self.frames["delay_histogram"]
        x = (h["lower_ns"] + h["width_ns"]).to_numpy() * 1e-9
        c = h["count"].to_numpy(dtype=float)
        return x, np.cumsum(c) / c.sum()

    def delay_throughput(self) -> pd.DataFrame:
        """Per measured interval: the mean sojourn of its departures (s; intervals without any
        are left out) and the total delivered rate (b/s)."""
        q, r = self.frames.get("queue"), self.frames.get("flow_rates")
        if q is None or r is None or not len(q) or not len(r):
            s = self.summary
            flows = self.frames.get("flows")
            rate = float(flows["throughput_bps"].sum()) if flows is not None else 0.0  # NaN: absent
            return pd.DataFrame({"sojourn_mean_s": [s["qdelay_mean_s"] or 0.0], "rate_bps": [rate]})
        total = r.sum(axis=1).to_numpy()
        n = min(len(q), len(total))
        df = pd.DataFrame({"t_s": q["t_s"].to_numpy()[:n], "sojourn_mean_s": q["sojourn_mean_s"].to_numpy()[:n],
                           "rate_bps": total[:n]})
        return df[(df["t_s"] > self.warmup_s) & df["sojourn_mean_s"].notna()]


def load_runs(dirs: list[Path], labels: list[str] | None = None) -> list[SavedRun]:
    if labels and len(labels) != len(dirs):
        raise ScenarioError("--label", f"{len(labels)} labels for {len(dirs)} runs: give one per run or none")
    runs = [SavedRun.load(d, labels[i] if labels else None) for i, d in enumerate(dirs)]
    names = [r.label for r in runs]
    for r, d in zip(runs, dirs):  # two runs of one scenario: tell them apart by directory
        if names.count(r.label) > 1 and not labels:
            r.label = f"{r.label} ({d.name})"
    return runs


def _ellipse(ax: Any, x: np.ndarray, y: np.ndarray, color: Any) -> None:
    """The one-standard-deviation ellipse of the points' covariance."""
    from matplotlib.patches import Polygon

    if len(x) < 3:
        return
    cov = np.cov(x, y)
    vals, vecs = np.linalg.eigh(cov)
    t = np.linspace(0, 2 * np.pi, 100)
    pts = (vecs @ (np.sqrt(np.maximum(vals, 0))[:, None] * np.array([np.cos(t), np.sin(t)]))).T
    pts += [x.mean(), y.mean()]
    ax.add_patch(Polygon(np.maximum(pts, 0.0), closed=True, fill=False, color=color, lw=1.0))


def plot_delay_cdf(runs: list[SavedRun], ax: Any) -> None:
    """Each run's CDF in its colour; a run without one is named in a note on the axes, as the
    flow panels say 'no flow_bytes trace in this run', rather than left out of the figure."""
    notes = []
    for r, c in zip(runs, _colors(len(runs))):
        cdf = r.delay_cdf()
        if cdf is None:
            notes.append(f"{r.label}: {r.no_delay_cdf}")
            continue
        x, f = cdf
        ax.plot(np.concatenate([[0.0], x * 1e3]), np.concatenate([[0.0], f]), color=c, label=r.label)
    if notes:
        ax.text(0.98, 0.04, "\n".join(notes), ha="right", va="bottom", fontsize="small", transform=ax.transAxes)
    ax.set_xlabel("queueing delay (ms)")
    ax.set_ylabel("CDF")
    ax.set_ylim(0, 1.01)
    ax.set_xlim(left=0)
    ax.grid(alpha=0.3)
    if len(notes) < len(runs):
        ax.legend(fontsize="small")


def plot_throughput_delay(runs: list[SavedRun], ax: Any) -> None:
    colors = _colors(len(runs))
    for r, c in zip(runs, colors):
        df = r.delay_throughput()
        x, y = df["sojourn_mean_s"].to_numpy() * 1e3, df["rate_bps"].to_numpy() / 1e6
        (x25, x50, x75), (y25, y50, y75) = np.percentile(x, [25, 50, 75]), np.percentile(y, [25, 50, 75])
        ax.errorbar([x50], [y50], xerr=[[x50 - x25], [x75 - x50]], yerr=[[y50 - y25], [y75 - y50]], fmt="o",
                    color=c, capsize=3, label=r.label)
        _ellipse(ax, x, y, c)
    ax.set_xlabel("queueing delay (ms)")
    ax.set_ylabel("total throughput (Mb/s)")
    ax.set_xlim(left=0)
    ax.set_ylim(bottom=0)
    ax.invert_xaxis()  # flent's convention: better (lower delay, higher throughput) is up and right
    ax.grid(alpha=0.3)
    ax.legend(fontsize="small")


def plot_flow_throughput(runs: list[SavedRun], axes: Any, max_flows: int = 10, bins: int = 100) -> None:
    for r, ax in zip(runs, axes):
        rates = r.frames.get("flow_rates")
        if rates is not None and len(rates):
            if r.warmup_s > 0:
                ax.axvspan(0, r.warmup_s, color="0.88", lw=0, label="warm-up (not measured)", zorder=0)
            from ..plots import binned_rates

            t, rates = binned_rates(rates, bins)
            names = list(r.frames["flows"]["name"])
            colors = _colors(min(rates.shape[1], max_flows))
            for i, col in enumerate(list(rates.columns)[:max_flows]):
                ax.plot(t, rates[col] / 1e6, lw=0.6, color=colors[i], label=f"{names[int(col)]} #{col}")
            ax.legend(fontsize="x-small", ncol=4, loc="upper right")
        else:
            ax.text(0.5, 0.5, "no flow_bytes trace in this run", ha="center", transform=ax.transAxes)
        ax.set_title(r.label, fontsize="small")
        ax.set_ylabel("throughput (Mb/s)")
        ax.grid(alpha=0.3)
    for ax in axes:  # after every panel is drawn, so the shared axis holds them all
        ax.set_ylim(bottom=0)
    axes[-1].set_xlabel("time (s)")


def _colors(n: int) -> list[str]:
    return [f"C{i % 10}" for i in range(n)]  # matplotlib's default cycle: ten distinct colours


# What compare() writes into OUTDIR (the three views, then all three on one figure).
OUTPUT = OutputKind("an aqmlab comparison", ("delay_cdf.png", "throughput_delay.png", "flow_throughput.png",
                                             "compare.png"))


def compare(dirs: list[Path], outdir: Path, labels: list[str] | None = None) -> list[Path]:
    """Writes delay_cdf.png, throughput_delay.png, flow_throughput.png and compare.png (all three)
    into ``outdir``; returns the paths."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    runs = load_runs(dirs, labels)
    outdir.mkdir(parents=True, exist_ok=True)
    paths = []
    for name, draw in (("delay_cdf", plot_delay_cdf), ("throughput_delay", plot_throughput_delay)):
        fig, ax = plt.subplots(figsize=(7, 4))
        draw(runs, ax)
        fig.tight_layout()
        paths.append(_save(fig, outdir / f"{name}.png"))
    fig, axes = plt.subplots(len(runs), 1, figsize=(8, 2.4 * len(runs)), sharex=True, sharey=True, squeeze=False)
    plot_flow_throughput(runs, axes[:, 0])
    fig.tight_layout()
    paths.append(_save(fig, outdir / "flow_throughput.png"))
    fig = plt.figure(figsize=(12, 4 + 2.2 * len(runs)))
    grid = fig.add_gridspec(1 + len(runs), 2, height_ratios=[2.0] + [1.0] * len(runs))
    plot_delay_cdf(runs, fig.add_subplot(grid[0, 0]))
    plot_throughput_delay(runs, fig.add_subplot(grid[0, 1]))
    first = fig.add_subplot(grid[1, :])
    rest = [fig.add_subplot(grid[1 + i, :], sharex=first, sharey=first) for i in range(1, len(runs))]
    plot_flow_throughput(runs, [first, *rest])
    fig.tight_layout()
    paths.append(_save(fig, outdir / "compare.png"))
    return paths


def _save(fig: Any, path: Path) -> Path:
    import matplotlib.pyplot as plt

    fig.savefig(path, dpi=100)
    plt.close(fig)
    return path


def table(runs: list[SavedRun]) -> str:
    """The runs' headline figures, one line each."""
    def ms(x: float | None) -> str:
        return "n/a" if x is None else f"{x * 1e3:.2f}"

    lines = [f"{'run':<28} {'util %':>7} {'delay mean ms':>14} {'p99 ms':>8} {'drop %':>7} {'mark %':>7}"]
    for r in runs:
        s = r.summary
        pct = [("n/a" if v is None else f"{v * 100:.2f}") for v in (s["utilization"], s["drop_rate"], s["mark_rate"])]
        lines.append(f"{r.label[:28]:<28} {pct[0]:>7} {ms(s['qdelay_mean_s']):>14} {ms(s['qdelay_p99_s']):>8} "
                     f"{pct[1]:>7} {pct[2]:>7}")
    return "\n".join(lines)
