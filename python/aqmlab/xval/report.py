"""The xval report: JSON with every figure, and an HTML page with the verdict table and the
plots (sojourn CDF, per-flow goodput, queue delay over time; aqmlab and ns-3 on each)."""

from __future__ import annotations

import base64
import html
import io
import json
import math
from pathlib import Path
from typing import Any

import numpy as np

from ..outdir import OutputKind
from .measure import Raw, delay_series
from .verdict import Row


def _fmt(x: float) -> str:
    if x is None or (isinstance(x, float) and math.isnan(x)):
        return "n/a"
    return f"{x:.4g}"


def _png(fig: Any) -> bytes:
    buf = io.BytesIO()
    fig.savefig(buf, format="png", dpi=90, bbox_inches="tight")
    return buf.getvalue()


def plots(ours: list[Raw], ns3: list[Raw]) -> dict[str, bytes]:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    out = {}
    sides = (("aqmlab", ours, "C0"), ("ns-3", ns3, "C3"))
    fig, ax = plt.subplots(figsize=(6, 3.5))
    for label, runs, color in sides:
        s = np.sort(np.concatenate([r.sojourn_s for r in runs]) * 1e3)
        if len(s):
            ax.plot(s, np.arange(1, len(s) + 1) / len(s), color=color, label=label)
    ax.set(xlabel="sojourn in the discipline (ms)", ylabel="CDF", title="Sojourn, all seeds")
    ax.legend()
    out["sojourn_cdf"] = _png(fig)
    plt.close(fig)

    fig, ax = plt.subplots(figsize=(6, 3.5))
    for k, (label, runs, color) in enumerate(sides):
        gp = np.mean([r.goodput_bytes * 8 / r.window_s / 1e6 for r in runs], axis=0)
        x = np.arange(len(gp))
        ax.bar(x + (k - 0.5) * 0.4, gp, width=0.4, color=color, label=label)
    ax.set(xlabel="flow", ylabel="goodput (Mb/s), mean over seeds", title="Per-flow goodput")
    ax.legend()
    out["goodput"] = _png(fig)
    plt.close(fig)

    fig, ax = plt.subplots(figsize=(6, 3.5))
    for label, runs, color in sides:
        t, d = delay_series(runs[0])
        ax.plot(t, d, color=color, label=f"{label} (first seed)", lw=0.8)
    ax.set(xlabel="time (s)", ylabel="mean sojourn per 100 ms (ms)", title="Queue delay over time")
    ax.legend()
    out["delay_time"] = _png(fig)
    plt.close(fig)
    return out


# What write() puts in OUTDIR: the document, the page and plots()'s figures as PNG.
OUTPUT = OutputKind("an aqmlab cross-validation", ("xval.json", "xval.html", "sojourn_cdf.png", "goodput.png",
                                                   "delay_time.png"))


def write(outdir: Path, info: dict[str, Any], rows: list[Row], ours: list[Raw], ns3: list[Raw],
          per_seed: dict[str, list[dict[str, float]]]) -> dict[str, Any]:
    """Writes xval.json, xval.html and the plots; returns the JSON document."""
    outdir.mkdir(parents=True, exist_ok=True)
    doc = {**info, "agree": all(r.agree for r in rows), "rows": [r.as_dict() for r in rows], "per_seed": per_seed,
           "goodput_per_flow_mbps": {"aqmlab": [list(r.goodput_bytes * 8 / r.window_s / 1e6) for r in ours],
                                     "ns3": [list(r.goodput_bytes * 8 / r.window_s / 1e6) for r in ns3]}}
    (outdir / "xval.json").write_text(json.dumps(doc, indent=1, default=float))
    images = plots(ours, ns3)
    for name, png in images.items():
        (outdir / f"{name}.png").write_bytes(png)
    table = "".join(
        f"<tr class={'ok' if r.agree else 'bad'}><td>{html.escape(r.metric)}</td><td>{_fmt(r.ours_mean)} ± "
        f"{_fmt(r.ours_std)}</td><td>{_fmt(r.ns3_mean)} ± {_fmt(r.ns3_std)}</td><td>{_fmt(r.diff)}</td>"
        f"<td>{_fmt(r.band)}</td><td>{_fmt(r.floor)}</td><td>{'agree' if r.agree else 'DIFFER'}</td></tr>"
        for r in rows)
    figs = "".join(f'<img alt="{n}" src="data:image/png;base64,{base64.b64encode(p).decode()}">' for n, p in images.items())
    verdict = "agree within band on every metric" if doc["agree"] else \
        f"differ outside band on {sum(not r.agree for r in rows)} metric(s)"
    page = f"""<!doctype html><html><head><meta charset="utf-8"><title>xval {html.escape(info['scenario'])}</title>
<style>body{{font-family:sans-serif;margin:2em}}td,th{{padding:2px 8px;text-align:right}}td:first-child{{text-align:left}}
tr.bad{{background:#fdd}}img{{margin:4px}}</style></head><body>
<h1>aqmlab vs ns-3: {html.escape(info['scenario'])}</h1>
<p>{len(ours)} seeds ({', '.join(map(str, info['seeds']))}); aqmlab {html.escape(info['aqmlab_version'])},
ns-3 {html.escape(info['ns3_version'])}; measured window {info['window_s']:.3g} s after a warm-up of {info['warmup_s']:.3g} s.
<b>Verdict: the two {verdict}.</b></p>
<p>band = max(3 × combined standard error, floor); means ± standard deviations over seeds; measurement
definitions in docs/xval.md.</p>
<table><tr><th>metric</th><th>aqmlab</th><th>ns-3</th><th>difference</th><th>band</th><th>floor</th><th>verdict</th></tr>
{table}</table>{figs}</body></html>"""
    (outdir / "xval.html").write_text(page)
    return doc
