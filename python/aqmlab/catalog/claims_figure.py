"""The claims figure of the reproduction report: every claim of an experiment against its band,
beside the paper's number, our seeds and the null control."""

from __future__ import annotations

from collections.abc import Sequence

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt
import numpy as np
from matplotlib.axes import Axes
from matplotlib.figure import Figure

from .core import Check


def claims_figure(checks: Sequence[Check]) -> Figure | None:
    """Every judged claim of an experiment on its own row, in its display units: the band (green;
    an open side runs to the edge), the paper's number (red diamond) where it prints one, each of
    our seeds (dots) with their mean (black bar), and the null control's runs (orange crosses).
    So a reader sees the paper's numbers next to ours for every claim, whatever the figures of
    the experiment draw. None when no claim has a number to show."""
    rows = [c for c in checks if c.seeds is not None or (c.value is not None and np.isfinite(c.value))]
    if not rows:
        return None
    fig, axes = plt.subplots(len(rows), 1, figsize=(7.5, 0.62 * len(rows) + 0.5), squeeze=False)
    for ax, c in zip(axes[:, 0], rows):
        _claim_row(ax, c)
    fig.tight_layout(h_pad=0.3)
    return fig


def _claim_row(ax: Axes, c: Check) -> None:
    x = c.expectation
    s = x.scale
    values = c.seeds.values if c.seeds is not None else () if c.value is None else (c.value,)
    ours = [v * s for v in values if np.isfinite(v)]
    null = [v * s for v in (c.null.values if c.null is not None else ()) if np.isfinite(v)]
    bounds = [b * s for b in (x.lo, x.hi) if b is not None]
    paper = [] if x.paper is None else [x.paper * s]
    core = ours + bounds + paper or null
    lo, hi = min(core), max(core)
    span = hi - lo or abs(hi) * 0.2 or 1.0
    # A null control far off the claim's scale (a DropTail queue of seconds against an AQM's
    # milliseconds) would squash it: such runs sit at the edge, their mean written beside them.
    near = [v for v in null if lo - 2 * span <= v <= hi + 2 * span]
    far = [v for v in null if v not in near]
    lo, hi = min([lo] + near), max([hi] + near)
    pad = (hi - lo) * 0.08 or abs(hi) * 0.1 or 1.0
    left, right = lo - pad, hi + pad
    band_lo = x.lo * s if x.lo is not None else left
    band_hi = x.hi * s if x.hi is not None else right
    ax.axvspan(band_lo, band_hi, color="tab:green", alpha=0.18, lw=0)
    if near:
        ax.plot(near, [0.0] * len(near), "x", color="tab:orange", ms=6, label="null control")
    for side, edge, marker, align in ((-1, left, "<", "left"), (1, right, ">", "right")):
        off = [v for v in far if (v - hi) * side > 0]
        if off:
            ax.plot([edge], [0.0], marker, color="tab:orange", ms=7)
            ax.annotate(f"null control {np.mean(off):.4g}", (edge, 0.0), xytext=(-10 * side, 0),
                        textcoords="offset points", ha=align, va="center", fontsize="x-small",
                        color="tab:orange")
    if ours:
        ax.plot(ours, [0.0] * len(ours), "o", color="0.35", ms=4, alpha=0.8, label="our seeds")
        ax.plot([float(np.mean(ours))] * 2, [-0.4, 0.4], color="k", lw=2, label="our mean")
    if paper:
        ax.plot(paper, [0.0], "D", color="tab:red", ms=7, mfc="none", mew=1.5, label="paper")
    ax.set_xlim(left, right)
    ax.set_ylim(-0.6, 0.6)
    ax.set_yticks([])
    unit = f" ({x.unit})" if x.unit else ""
    ax.set_ylabel(f"{x.metric}{unit}", rotation=0, ha="right", va="center", fontsize="x-small")
    ax.tick_params(axis="x", labelsize="x-small")
    ax.set_title(f"{c.verdict}: band {x.band_text()}", fontsize="x-small", loc="right", pad=2)
