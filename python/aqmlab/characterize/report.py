"""The report card: criteria with stated thresholds, a verdict per criterion and discipline,
then a section per experiment with its delay-goodput trade-off plot (RFC 7928 §2.7) and
table; written as one self-contained HTML page (images inlined), results.json and Parquet.

A verdict compares the mean over seeds with the threshold: ``pass`` or ``fail``, ``n/a`` when
the experiment did not apply to the discipline (no FQ form, no time parameter) or its runs
failed. The thresholds are this page's choice, not RFC 7928's (which sets none); the page
states each, and ``--threshold KEY=VALUE`` overrides it.
"""

from __future__ import annotations

import base64
import html
import io
import json
import math
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..outdir import OutputKind, json_holding
from .runner import Characterization, Stat


@dataclass(frozen=True)
class Criterion:
    key: str
    title: str
    experiment: str
    variant: str | None     # None: every variant of the experiment, the worst one counts
    metric: str
    op: str                 # "<=" or ">="
    threshold: float
    unit: str
    why: str


CRITERIA = [
    Criterion("latency", "Queue delay, TCP-friendly load (p99)", "transports", "tcp-friendly", "qdelay_p99_ms",
              "<=", 50.0, "ms", "an AQM should keep the standing queue well below the 4-BDP buffer (400 ms)"),
    Criterion("goodput", "Utilization, TCP-friendly load", "transports", "tcp-friendly", "utilization", ">=", 0.9,
              "", "low delay must not cost capacity (§2.7)"),
    Criterion("aggressive", "Share of the aggressive senders", "transports", "aggressive", "share:cubic-iw10", "<=",
              0.75, "", "CUBIC with IW10 should not starve Reno with IW3 (§5.2)"),
    Criterion("unresponsive", "Queue delay under UDP overload (p99)", "transports", "unresponsive", "qdelay_p99_ms",
              "<=", 100.0, "ms", "an unresponsive flow must not fill the buffer (§5.3)"),
    Criterion("lbe", "Share of the LEDBAT senders beside Reno", "transports", "less-than-best-effort",
              "share:ledbat", "<=", 0.5, "", "a less-than-best-effort sender takes no more than an equal share (§5.4)"),
    Criterion("rtt_fairness", "Jain index, RTTs 5-560 ms", "rtt_fairness", None, "jain", ">=", 0.3, "",
              "long-RTT flows keep a share (§6)"),
    Criterion("web_burst", "Web page completion (slowest object)", "bursts", "web-page", "fct_max_s:page", "<=", 3.0,
              "s", "a page of 30 objects of 20 KB (0.5 s at line rate) is absorbed (§7)"),
    Criterion("udp_burst", "Queue delay around a UDP burst (p99)", "bursts", "udp-burst", "qdelay_p99_ms", "<=",
              150.0, "ms", "a short burst passes without a lasting queue (§7)"),
    Criterion("congestion", "Queue delay, flows arriving and leaving (p99)", "stability", "varying-congestion",
              "qdelay_p99_ms", "<=", 100.0, "ms", "the control law follows the load (§8.2.5)"),
    Criterion("capacity", "Queue delay, capacity halved (p99)", "stability", "varying-capacity", "qdelay_p99_ms",
              "<=", 100.0, "ms", "the control law follows the capacity (§8.2.6)"),
    Criterion("voip_loss", "VoIP loss in the traffic mix", "traffic", "mix", "loss:voip", "<=", 0.02, "",
              "real-time traffic beside bulk and web flows (§9.1)"),
    Criterion("bidirectional", "Goodput, both directions together", "traffic", "bidirectional", "goodput", ">=",
              1.5, "x C", "ACKs queued behind data must not cripple either direction (§9.2)"),
    Criterion("multi_aqm", "Long flows' share over 3 AQM hops", "multi_aqm", "aqm-every-hop", "share:long", ">=",
              0.125, "", "half of their max-min share of the total (0.25) (§10)"),
    Criterion("ecn_overload", "Queue delay under ECN-capable overload (p99)", "ecn", "overload", "qdelay_p99_ms",
              "<=", 100.0, "ms", "marking must give way to dropping under overload (§4.5)"),
    Criterion("fq_voip", "VoIP loss under flow queueing", "scheduling", None, "loss:voip", "<=", 0.01, "",
              "the AQM inside FQ protects sparse flows (§4.6)"),
    Criterion("sensitivity", "Worst p99 delay over the parameter sweep", "sensitivity", None, "qdelay_p99_ms", "<=",
              100.0, "ms", "no setting within x0.5-x2 of the defaults breaks the delay (§12)"),
]


# The largest threshold each unit allows: fractions (utilization, shares, Jain's index, loss)
# reach 1, the goodput of both directions together 2 x C; delays and times are unbounded.
_THRESHOLD_MAX = {"": 1.0, "x C": 2.0}


def override(thresholds: list[str] | None) -> list[Criterion]:
    """The criteria with ``KEY=VALUE`` thresholds replaced; an unknown key, or a value its
    metric cannot take (negative, not finite, a fraction above 1), is an error naming the
    accepted ones."""
    from dataclasses import replace

    from ..errors import ScenarioError

    by_key = {c.key: c for c in CRITERIA}
    for item in thresholds or []:
        key, sep, value = item.partition("=")
        if not sep or key not in by_key:
            raise ScenarioError("--threshold", f"expected KEY=VALUE with KEY one of {', '.join(by_key)}, got {item!r}")
        unit = by_key[key].unit
        hi = _THRESHOLD_MAX.get(unit, math.inf)
        accepted = f"a number in [0, {hi:g}]" if math.isfinite(hi) else "a number in [0, inf)"
        if unit:
            accepted += f" ({unit})"
        try:
            number = float(value)
        except ValueError:
            raise ScenarioError(f"--threshold {key}", f"expected {accepted}, got {value!r}") from None
        if not (math.isfinite(number) and 0 <= number <= hi):
            raise ScenarioError(f"--threshold {key}", f"expected {accepted}, got {value!r}")
        by_key[key] = replace(by_key[key], threshold=number)
    return list(by_key.values())


def judge(c: Characterization, crit: Criterion, aqm: str) -> tuple[str, Stat | None]:
    variants = [crit.variant] if crit.variant else c.variants(crit.experiment)
    stats = [s for v in variants if (s := c.stat(aqm, crit.experiment, v, crit.metric)) is not None]
    if not stats:
        return "n/a", None
    worst = max(stats, key=lambda s: s.mean) if crit.op == "<=" else min(stats, key=lambda s: s.mean)
    ok = worst.mean <= crit.threshold if crit.op == "<=" else worst.mean >= crit.threshold
    return ("pass" if ok else "fail"), worst


def _fmt(s: Stat | None) -> str:
    if s is None:
        return "–"
    ci = "" if math.isnan(s.ci95) else f" ± {s.ci95:.3g}"
    return f"{s.mean:.3g}{ci}"


def _png(fig: Any) -> str:
    buf = io.BytesIO()
    fig.savefig(buf, format="png", dpi=90, bbox_inches="tight")
    import matplotlib.pyplot as plt

    plt.close(fig)
    return "data:image/png;base64," + base64.b64encode(buf.getvalue()).decode()


def tradeoff_plot(c: Characterization, experiment: str) -> str:
    """RFC 7928 §2.7: goodput against delay, one point per discipline and variant, with the
    95 % intervals over seeds."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(6, 3.6))
    markers = "osD^v<>P*X"
    for i, aqm in enumerate(c.aqms):
        for v in c.variants(experiment):
            d, g = c.stat(aqm, experiment, v, "qdelay_p99_ms"), c.stat(aqm, experiment, v, "goodput")
            if d is None or g is None:
                continue
            ax.errorbar(d.mean, g.mean, xerr=0 if math.isnan(d.ci95) else d.ci95,
                        yerr=0 if math.isnan(g.ci95) else g.ci95, marker=markers[i % len(markers)],
                        color=f"C{i}", label=aqm, capsize=2)
            ax.annotate(v, (d.mean, g.mean), fontsize=7, xytext=(3, 3), textcoords="offset points")
    handles, labels = ax.get_legend_handles_labels()
    uniq = dict(zip(labels, handles))
    ax.legend(uniq.values(), uniq.keys(), fontsize=8)
    ax.set_xlabel("bottleneck queue delay, p99 (ms)")
    ax.set_ylabel("goodput / capacity")
    ax.grid(alpha=0.3)
    return _png(fig)


def sensitivity_map(c: Characterization, aqm: str) -> str | None:
    """A heat map of the p99 delay over the one-at-a-time parameter sweep of ``aqm``."""
    variants = [v for v in c.variants("sensitivity") if c.stat(aqm, "sensitivity", v, "qdelay_p99_ms")]
    if not variants:
        return None
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    params = list(dict.fromkeys(v.split(" x")[0] for v in variants))
    factors = list(dict.fromkeys(v.split(" x")[1] for v in variants))
    grid = [[(s.mean if (s := c.stat(aqm, "sensitivity", f"{p} x{f}", "qdelay_p99_ms")) else math.nan)
             for f in factors] for p in params]
    fig, ax = plt.subplots(figsize=(1.6 + 1.2 * len(factors), 0.8 + 0.6 * len(params)))
    im = ax.imshow(grid, cmap="viridis", aspect="auto")
    ax.set_xticks(range(len(factors)), [f"x{f}" for f in factors])
    ax.set_yticks(range(len(params)), params)
    for r, row in enumerate(grid):
        for k, val in enumerate(row):
            ax.text(k, r, f"{val:.3g}", ha="center", va="center", color="w", fontsize=8)
    fig.colorbar(im, ax=ax, label="p99 delay (ms)")
    ax.set_title(aqm, fontsize=9)
    return _png(fig)


_CSS = """body{font-family:sans-serif;max-width:1100px;margin:auto;padding:1em}
table{border-collapse:collapse;margin:0.5em 0}td,th{border:1px solid #ccc;padding:3px 6px;font-size:90%}
td.pass{background:#c8f0c8}td.fail{background:#f5c0c0}td.na{background:#eee;color:#777}"""

_COLUMNS = ("goodput", "utilization", "qdelay_p50_ms", "qdelay_p99_ms", "jitter_ms", "loss", "marks", "jain",
            "fct_p50_s", "fct_p99_s")


def html_page(c: Characterization, criteria: list[Criterion], title: str, not_run: dict[str, str],
              repeats: dict[str, str] | None = None) -> str:
    e = html.escape
    out = [f"<!doctype html><html><head><meta charset='utf-8'><title>{e(title)}</title><style>{_CSS}</style>"
           f"</head><body><h1>{e(title)}</h1>"]
    out.append(f"<p>RFC 7928 characterization: {len(c.runs)} runs, {c.scale.seeds} seeds per variant, "
               f"{c.scale.duration_s:g} s each ({c.scale.warmup_s:g} s warm-up). Cells: mean ± 95 % confidence "
               "half-width over seeds; the verdict compares the mean with the threshold.</p>")
    out.append("<table id='summary'><tr><th>criterion</th><th>threshold</th>"
               + "".join(f"<th>{e(a)}</th>" for a in c.aqms) + "</tr>")
    for crit in criteria:
        cells = []
        for aqm in c.aqms:
            verdict, s = judge(c, crit, aqm)
            cls = "na" if verdict == "n/a" else verdict
            cells.append(f"<td class='{cls}'>{verdict}<br><small>{_fmt(s)}</small></td>")
        out.append(f"<tr><td title='{e(crit.why)}'>{e(crit.title)}<br><small>{e(crit.why)}</small></td>"
                   f"<td>{e(crit.metric)} {e(crit.op)} {crit.threshold:g} {e(crit.unit)}<br><small>--threshold "
                   f"{e(crit.key)}=…</small></td>{''.join(cells)}</tr>")
    out.append("</table>")
    for baseline, tested in (repeats or {}).items():
        out.append(f"<p class='repeat'>Baseline {e(baseline)} has the same configuration as {e(tested)} (every "
                   f"default resolved alike): it was run once, its column is {e(tested)}'s.</p>")
    if not_run:
        out.append("<p>Not run: " + "; ".join(f"{e(k)}: {e(v)}" for k, v in not_run.items()) + "</p>")
    for ex in c.experiments:
        out.append(f"<h2 id='{e(ex.key)}'>{e(ex.title)} (RFC 7928 {e(ex.section)})</h2><p>{e(ex.what)}</p>")
        if not c.variants(ex.key):
            out.append("<p>Not applicable to the disciplines compared.</p>")
            continue
        out.append(f"<img alt='{e(ex.title)}: delay against goodput' src='{tradeoff_plot(c, ex.key)}'>")
        if ex.key == "sensitivity":
            out += [f"<img alt='sensitivity of {e(a)}' src='{m}'>" for a in c.aqms if (m := sensitivity_map(c, a))]
        out.append("<table><tr><th>discipline</th><th>variant</th>" + "".join(f"<th>{k}</th>" for k in _COLUMNS)
                   + "</tr>")
        for aqm in c.aqms:
            for v in c.variants(ex.key):
                row = [_fmt(c.stat(aqm, ex.key, v, k)) for k in _COLUMNS]
                out.append(f"<tr><td>{e(aqm)}</td><td>{e(v)}</td>" + "".join(f"<td>{x}</td>" for x in row) + "</tr>")
        out.append("</table>")
        errs = [(k, msg) for k, msg in c.errors.items() if k[1] == ex.key]
        if errs:
            out.append("<p>Runs that could not start: " + "; ".join(f"{e(a)} {e(v)}: {e(m)}" for (a, _, v), m in errs)
                       + "</p>")
    # Once loaded, the page records whether every image decoded (checked in a headless browser).
    out.append("<script>addEventListener('load',()=>{const i=[...document.images];document.body.dataset.images="
               "i.every(x=>x.complete&&x.naturalWidth>0)?'ok:'+i.length:'broken'})</script>")
    out.append("</body></html>")
    return "\n".join(out)


# What write() puts in OUTDIR; results.json is told from reproduce's (a list) by its criteria.
OUTPUT = OutputKind("an aqmlab characterization", ("report.html", "results.json", "runs.parquet"), recognise={
    "results.json": json_holding(lambda doc: isinstance(doc, dict) and {"aqms", "criteria", "summary"} <= doc.keys())})


def write(c: Characterization, outdir: Path, criteria: list[Criterion], title: str, not_run: dict[str, str],
          repeats: dict[str, str] | None = None) -> Path:
    """Writes report.html, results.json and runs.parquet into ``outdir``; returns the page.
    ``repeats`` names the baselines left out as the same as the discipline under test."""
    import pandas as pd

    outdir.mkdir(parents=True, exist_ok=True)
    page = outdir / "report.html"
    page.write_text(html_page(c, criteria, title, not_run, repeats))
    summary = {
        crit.key: {aqm: dict(zip(("verdict", "stat"), _verdict_json(judge(c, crit, aqm)))) for aqm in c.aqms}
        for crit in criteria
    }
    doc = {
        "title": title,
        "aqms": c.aqms,
        "scale": c.scale.__dict__,
        "criteria": [{**crit.__dict__} for crit in criteria],
        "summary": summary,
        "not_run": not_run,
        "repeats": repeats or {},
        "errors": [{"aqm": a, "experiment": x, "variant": v, "error": m} for (a, x, v), m in c.errors.items()],
        "runs": c.runs,
    }
    (outdir / "results.json").write_text(json.dumps(doc, indent=1))
    pd.DataFrame(c.runs).to_parquet(outdir / "runs.parquet")
    return page


def _verdict_json(v: tuple[str, Stat | None]) -> tuple[str, dict[str, Any] | None]:
    verdict, s = v
    return verdict, None if s is None else {"mean": s.mean, "ci95": None if math.isnan(s.ci95) else s.ci95, "n": s.n}
