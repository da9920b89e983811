"""Figures of a sweep's results table (:func:`aqmlab.sweep.load_results`): a heat map over two
axes and curves over one axis with confidence intervals over replications.

Axis values are placed in grid order (the sweep file's order, from the ``point`` column), so
"20p", "50p", "200p" are not sorted as text. Only successful runs are drawn.
"""

from __future__ import annotations

from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
import pandas as pd  # noqa: E402
from scipy import stats  # noqa: E402


def _figure():
    return plt.subplots(figsize=(6.4, 4.4), layout="constrained")


def _ok(df: pd.DataFrame) -> pd.DataFrame:
    return df[df["status"] == "ok"]


def grid_order(df: pd.DataFrame, column: str) -> list:
    """The distinct values of a swept column in the sweep file's order."""
    return list(df.sort_values("point")[column].drop_duplicates())


def heatmap(df: pd.DataFrame, x: str, y: str, metric: str, *, ax=None):
    """Mean of ``metric`` over replications (and over any other axes) for each (x, y) cell."""
    data = _ok(df)
    table = data.pivot_table(index=y, columns=x, values=metric, aggfunc="mean")
    table = table.reindex(index=grid_order(data, y), columns=grid_order(data, x))
    fig, ax = _figure() if ax is None else (ax.figure, ax)
    image = ax.imshow(table.to_numpy(dtype=float), origin="lower", aspect="auto", cmap="viridis")
    ax.set_xticks(range(table.shape[1]), [str(v) for v in table.columns])
    ax.set_yticks(range(table.shape[0]), [str(v) for v in table.index])
    ax.set_xlabel(x)
    ax.set_ylabel(y)
    for (i, j), v in np.ndenumerate(table.to_numpy(dtype=float)):
        if np.isfinite(v):
            # Dark text on the bright end of viridis, light text on the dark end.
            color = "black" if image.norm(v) > 0.6 else "white"
            ax.text(j, i, f"{v:.3g}", ha="center", va="center", color=color, fontsize=8)
    fig.colorbar(image, ax=ax, label=f"{metric} (mean)")
    return fig


def confidence_interval(values: np.ndarray, level: float = 0.95) -> tuple[float, float]:
    """(mean, half-width) of the t-distribution interval over replications; the half-width is NaN
    for a single replication (no spread to estimate)."""
    values = np.asarray(values, dtype=float)
    n = len(values)
    mean = float(values.mean())
    if n < 2:
        return mean, float("nan")
    sem = values.std(ddof=1) / np.sqrt(n)
    return mean, float(stats.t.ppf(0.5 + level / 2, n - 1) * sem)


def curves(df: pd.DataFrame, x: str, metric: str, *, hue: str | None = None, level: float = 0.95, ax=None):
    """``metric`` against ``x``, one curve per value of ``hue``: mean over replications with a
    ``level`` confidence band (t-distribution). Axes other than ``x`` and ``hue`` are pooled."""
    data = _ok(df)
    fig, ax = _figure() if ax is None else (ax.figure, ax)
    xs = grid_order(data, x)
    numeric = all(isinstance(v, (int, float, np.number)) and not isinstance(v, bool) for v in xs)
    pos = {v: (v if numeric else i) for i, v in enumerate(xs)}
    for h in (grid_order(data, hue) if hue else [None]):
        sub = data if h is None else data[data[hue] == h]
        present = [v for v in xs if (sub[x] == v).any()]
        mean, half = (np.array(c) for c in zip(*(confidence_interval(sub.loc[sub[x] == v, metric]) for v in present)))
        at = [pos[v] for v in present]
        line, = ax.plot(at, mean, marker="o", label=None if h is None else f"{hue} = {h}")
        # A metric that cannot be negative (delays, rates, utilization) gets no band below 0.
        low = np.maximum(mean - half, 0.0) if (sub[metric] >= 0).all() else mean - half
        ax.fill_between(at, low, mean + half, color=line.get_color(), alpha=0.2, linewidth=0)
    if not numeric:
        ax.set_xticks(range(len(xs)), [str(v) for v in xs])
    ax.set_xlabel(x)
    ax.set_ylabel(f"{metric} (mean, {level:.0%} CI)")
    if hue:
        ax.legend(fontsize=8)
    ax.grid(alpha=0.3)
    return fig


def save_plots(df: pd.DataFrame, axes: list[str], metric: str, outdir: str | Path) -> list[Path]:
    """Curves of ``metric`` over the first axis (a curve per value of the second), and a heat map
    over the first two axes when there are two; returns the files written."""
    out = Path(outdir)
    out.mkdir(parents=True, exist_ok=True)
    figures = {}
    if axes:
        figures[f"{metric}-vs-{_slug(axes[0])}.png"] = curves(df, axes[0], metric, hue=axes[1] if len(axes) > 1 else None)
    if len(axes) > 1:
        figures[f"{metric}-heatmap-{_slug(axes[0])}-{_slug(axes[1])}.png"] = heatmap(df, axes[0], axes[1], metric)
    written = []
    for name, fig in figures.items():
        fig.savefig(out / name, dpi=120)
        plt.close(fig)
        written.append(out / name)
    return written


def _slug(path: str) -> str:
    return "".join(c if c.isalnum() else "_" for c in path).strip("_")
