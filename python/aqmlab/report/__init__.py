"""One self-contained HTML page per run (``report.html``): the summary, the plots (embedded as
PNG data), the per-flow table and the resolved scenario, in the order a reader checks them.

Nothing is loaded from elsewhere (no script, no style sheet, no font), so the page opens from
a mail attachment or a CI artefact as it does from the run's directory. The same pieces make a
result's Jupyter view (:func:`notebook_html`).
"""

from __future__ import annotations

import base64
import html
import io
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from ..result import Result

_STYLE = """
body { font-family: system-ui, sans-serif; margin: 2em auto; max-width: 60em; color: #222; }
table { border-collapse: collapse; margin: 0.5em 0 1.5em; }
th, td { border: 1px solid #ccc; padding: 0.2em 0.6em; text-align: right; }
th { background: #f3f3f3; } td.l, th.l { text-align: left; }
img { max-width: 100%; display: block; margin: 0.5em 0 1.5em; }
pre { background: #f6f6f6; padding: 1em; overflow-x: auto; }
.warn { color: #a40; }
"""


def _fmt(x: Any, scale: float = 1.0, spec: str = ".4g") -> str:
    if x is None or (isinstance(x, float) and x != x):
        return "n/a"
    if isinstance(x, bool) or not isinstance(x, (int, float)):
        return html.escape(str(x))
    if isinstance(x, int) and scale == 1.0:
        return str(x)  # counts in full
    return format(x * scale, spec)


# (summary key, label with its unit, scale)
_ROWS = [
    ("time_s", "simulated time (s)", 1.0), ("measured_s", "measured window, after the warm-up (s)", 1.0),
    ("utilization", "bottleneck utilization (%)", 100.0),
    ("qdelay_mean_s", "queue delay, mean (ms)", 1e3), ("qdelay_p50_s", "queue delay, median (ms)", 1e3),
    ("qdelay_p95_s", "queue delay, 95th percentile (ms)", 1e3), ("qdelay_p99_s", "queue delay, 99th percentile (ms)", 1e3),
    ("qdelay_max_s", "queue delay, max (ms)", 1e3),
    ("sent", "data packets sent in the window", 1.0), ("dropped", "data packets dropped in the window", 1.0),
    ("marked", "data packets CE-marked in the window", 1.0),
    ("drop_rate", "drop rate (%)", 100.0), ("mark_rate", "mark rate (%)", 100.0), ("jain_index", "Jain's fairness index", 1.0),
    ("transfers", "completed transfers", 1.0), ("fct_mean_s", "flow completion time, mean (s)", 1.0),
    ("events", "events", 1.0), ("wall_s", "wall-clock time (s)", 1.0),
]

_FLOW_COLS = [("name", "group", 1.0), ("start_s", "start (s)", 1.0), ("rtt_base_s", "base RTT (ms)", 1e3),
              ("throughput_bps", "throughput (Mb/s)", 1e-6), ("srtt_s", "smoothed RTT (ms)", 1e3),
              ("sent", "sent (whole run)", 1.0), ("dropped", "dropped (whole run)", 1.0),
              ("marked", "CE-marked (whole run)", 1.0),
              ("retransmits", "retransmissions", 1.0), ("completion_s", "completion (s)", 1.0)]


def summary_table(result: Result) -> str:
    s = result.summary
    rows = "".join(f"<tr><th class=l>{label}</th><td>{_fmt(s.get(key), scale)}</td></tr>"
                   for key, label, scale in _ROWS)
    return f"<table>{rows}</table>"


def flow_table(result: Result, max_rows: int = 200) -> str:
    n = result.summary["n_flows"]
    cols = {k: result.flow_column(k)[:max_rows].tolist() for k, _, _ in _FLOW_COLS}
    head = "<tr><th>flow</th>" + "".join(f"<th>{label}</th>" for _, label, _ in _FLOW_COLS) + "</tr>"
    body = "".join(
        f"<tr><td>{i}</td>" + "".join(f"<td{' class=l' if k == 'name' else ''}>{_fmt(cols[k][i], sc)}</td>"
                                      for k, _, sc in _FLOW_COLS) + "</tr>"
        for i in range(min(n, max_rows)))
    more = f"<p>{n - max_rows} more flows in traces/flows.parquet</p>" if n > max_rows else ""
    return f"<div style='overflow-x:auto'><table>{head}{body}</table></div>{more}"


def _png(fig: Any) -> str:
    buf = io.BytesIO()
    fig.savefig(buf, format="png", dpi=90)
    return "data:image/png;base64," + base64.b64encode(buf.getvalue()).decode()


def plot_images(result: Result, overview_only: bool = False) -> list[tuple[str, str]]:
    """(title, PNG data URI) of each plot the run's traces allow, the overview first."""
    import matplotlib.pyplot as plt

    from .. import plots

    out = []
    views = plots.available_views(result)
    for name, draw in ([("overview", None)] if overview_only else [("overview", None)] + views):
        if draw is None:
            fig = plots.overview(result, views)
        else:
            fig, ax = plt.subplots(figsize=(8, 3.2))
            draw(result, ax)
            fig.tight_layout()
        out.append((name.replace("_", " "), _png(fig)))
        plt.close(fig)
    return out


def render(result: Result) -> str:
    """The whole page."""
    s = result.summary
    name = html.escape(s["scenario"])
    warns = "".join(f"<p class=warn>warning: {html.escape(w)}</p>" for w in s.get("warnings", []))
    status = " (interrupted: the figures cover what was simulated)" if s.get("interrupted") else ""
    imgs = "".join(f"<h3>{t}</h3><img alt='{t}' src='{uri}'>" for t, uri in plot_images(result))
    captures = "".join(f"<li>pcap/{html.escape(n)}.pcap</li>" for n in result.pcaps)
    return (f"<!DOCTYPE html><html lang=en><head><meta charset=utf-8><title>aqmlab: {name}</title>"
            f"<style>{_STYLE}</style></head><body>"
            f"<h1>{name}</h1><p>aqmlab {html.escape(s.get('aqmlab_version', ''))}{status}. The summary covers the "
            f"measured window; the shaded part of the plots is the warm-up it excludes.</p>{warns}"
            f"<h2>Summary</h2>{summary_table(result)}"
            f"<h2>Plots</h2>{imgs}"
            f"<h2>Flows</h2>{flow_table(result)}"
            + (f"<h2>Packet captures</h2><ul>{captures}</ul>" if captures else "")
            + f"<h2>Scenario (resolved)</h2><pre>{html.escape(result.scenario.to_toml())}</pre>"
            "</body></html>")


def write_report(result: Result, path: Path) -> Path:
    path.write_text(render(result), encoding="utf-8")
    return path


def notebook_html(result: Result) -> str:
    """A result in Jupyter: the summary table beside the overview plot."""
    (_, uri), = plot_images(result, overview_only=True)
    return (f"<div><b>{html.escape(result.summary['scenario'])}</b>"
            f"<div style='display:flex;gap:1em;align-items:flex-start'>{summary_table(result)}"
            f"<img style='max-width:60%' src='{uri}'></div></div>")
