"""PNG figures for the analysis CLI (matplotlib, Agg backend: no display needed)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path

import numpy as np

from .margins import stability_margins
from .transfer import FactoredTF


def _pyplot():
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    return plt


def bode_png(loops: Mapping[str, FactoredTF], path: Path, w_min: float = 1e-2,
             w_max: float = 1e3) -> Path:
    """Bode magnitude (dB) and unwrapped phase (degrees) of each labelled loop, crossovers marked."""
    plt = _pyplot()
    w = np.logspace(np.log10(w_min), np.log10(w_max), 800)
    fig, (ax_m, ax_p) = plt.subplots(2, 1, sharex=True, figsize=(7, 6))
    for label, loop in loops.items():
        m = stability_margins(loop)
        line, = ax_m.semilogx(w, 20 * np.log10(loop.magnitude(w)),
                              label=f"{label}: PM {m.pm_deg:.1f}°, GM {m.gm_db:.1f} dB")
        ax_p.semilogx(w, loop.phase_deg(w), color=line.get_color())
        if np.isfinite(m.w_gc):
            ax_p.plot([m.w_gc], [loop.phase_deg(m.w_gc)], "o", color=line.get_color())
    ax_m.axhline(0, color="k", lw=0.6)
    ax_p.axhline(-180, color="k", lw=0.6)
    ax_p.set_ylim(-360, 0)
    ax_m.set_ylabel("|L(jω)| (dB)")
    ax_p.set_ylabel("∠L(jω) (deg)")
    ax_p.set_xlabel("ω (rad/s)")
    ax_m.legend(fontsize=7)
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)
    return path


def map_png(x: np.ndarray, y: np.ndarray, values: np.ndarray, path: Path, *, xlabel: str,
            ylabel: str, title: str) -> Path:
    """A log-log contour map of phase margins ``values`` (shape (len(y), len(x))), the 0° contour
    in black; margins below −180° (unwrapped, deeply unstable) are shown as −180°."""
    plt = _pyplot()
    fig, ax = plt.subplots(figsize=(6, 5))
    cs = ax.contourf(x, y, np.clip(values, -180.0, 90.0), levels=np.linspace(-180.0, 90.0, 19),
                     cmap="viridis")
    if values.min() < 0 < values.max():
        ax.contour(x, y, values, levels=[0.0], colors="k")
    fig.colorbar(cs, ax=ax, label="phase margin (deg)")
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xlabel(xlabel)
    ax.set_ylabel(ylabel)
    ax.set_title(title, fontsize=9)
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)
    return path


def curves_png(x: np.ndarray, curves: Mapping[str, np.ndarray], path: Path, *, xlabel: str,
               ylabel: str, title: str, logy: bool = False,
               hlines: Sequence[float] = ()) -> Path:
    """Labelled curves against a shared x axis."""
    plt = _pyplot()
    fig, ax = plt.subplots(figsize=(6, 4))
    for label, y in curves.items():
        ax.plot(x, y, marker=".", label=label)
    for h in hlines:
        ax.axhline(h, color="k", lw=0.6)
    if logy:
        ax.set_yscale("log")
    ax.set_xlabel(xlabel)
    ax.set_ylabel(ylabel)
    ax.set_title(title, fontsize=9)
    ax.legend(fontsize=7)
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)
    return path
