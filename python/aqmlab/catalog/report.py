"""The paper-vs-ours report: one self-contained HTML file (PNGs inlined as data URIs, inline
CSS, no scripts, no external links to load), plus results.json beside it."""

from __future__ import annotations

import base64
import datetime as _dt
import html
import json
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from ..outdir import OutputKind, json_holding
from .core import (DEVIATES, MISSING, NOT_DISCRIMINATING, NULL_IMPOSSIBLE, NULL_UNAVAILABLE, REPRODUCED, Check,
                   Experiment, Paper)
from . import expected
from .runner import Outcome

_CSS = """
body{font-family:system-ui,sans-serif;max-width:1100px;margin:2em auto;padding:0 1em;color:#222}
h1{font-size:1.6em}h2{border-bottom:1px solid #ccc;padding-bottom:.2em;margin-top:2em}
table{border-collapse:collapse;margin:.6em 0;font-size:.9em}
td,th{border:1px solid #ccc;padding:.25em .5em;vertical-align:top;text-align:left}
th{background:#f3f3f3}.reproduced{background:#dff3df}.deviates{background:#f8dcdc}
.not.discriminating{background:#fdf3d0}.missing{background:#eee}
figure{margin:1em 0}figure img{max-width:100%;border:1px solid #ddd}
figcaption{font-size:.85em;color:#555}pre{background:#f7f7f7;padding:.6em;overflow-x:auto;font-size:.8em}
.note{font-size:.9em;color:#444}blockquote{border-left:3px solid #aaa;margin:.5em 0;padding-left:.8em}
"""


def _e(text: object) -> str:
    return html.escape(str(text))


def _badge(verdict: str) -> str:
    return f'<span class="{_e(verdict)}">{_e(verdict)}</span>'


def _summary_table(pairs: Sequence[tuple[Experiment, Outcome]]) -> str:
    rows = "".join(
        f'<tr><td><a href="#{_e(e.id)}">{_e(e.id)}</a></td><td>{_e(e.title)}</td><td>{_e(e.figure)}</td>'
        f'<td class="{_e(o.verdict)}">{_e(o.verdict)}</td>'
        f"<td>{sum(c.verdict == REPRODUCED for c in o.checks)}/{len(o.checks)}</td><td>{o.wall_s:.1f} s</td></tr>"
        for e, o in pairs)
    return ("<table><tr><th>id</th><th>experiment</th><th>paper reference</th><th>verdict</th>"
            f"<th>claims reproduced</th><th>wall time</th></tr>{rows}</table>")


def _paper_summary(pairs: Sequence[tuple[Experiment, Outcome]]) -> str:
    """The one-minute page: per paper, how many claims are reproduced (and how robustly over the
    seeds), deviate (and how many of those hold on some seeds), are not discriminating or missing."""
    papers: dict[str, list[Check]] = {}
    single: dict[str, int] = {}
    for e, o in pairs:
        papers.setdefault(e.paper.key, []).extend(o.checks)
        single[e.paper.key] = single.get(e.paper.key, 0) + sum(c.seeds is not None and c.seeds.n == 1 for c in o.checks)
    rows = []
    for key, checks in papers.items():
        count = {v: sum(c.verdict == v for c in checks) for v in (REPRODUCED, DEVIATES, NOT_DISCRIMINATING, MISSING)}
        every_seed = sum(c.verdict == REPRODUCED and c.seeds is not None and c.seeds.passing == c.seeds.n for c in checks)
        no_null = sum(c.verdict == REPRODUCED and c.null_state in (NULL_IMPOSSIBLE, NULL_UNAVAILABLE) for c in checks)
        near = sum(c.verdict == DEVIATES and c.seeds is not None and c.seeds.passing > 0 for c in checks)
        rows.append(f"<tr><td>{_e(key)}</td><td>{len(checks)} ({single[key]} on one run)</td>"
                    f'<td class="{REPRODUCED}">{count[REPRODUCED]} ({every_seed} on every seed; {no_null} without '
                    "a possible null control)</td>"
                    f'<td class="{DEVIATES}">{count[DEVIATES]} ({near} in the band on some seeds)</td>'
                    f'<td class="{NOT_DISCRIMINATING}">{count[NOT_DISCRIMINATING]}</td><td>{count[MISSING]}</td></tr>')
    return ("<h2>Summary by paper</h2><p>Each claim is judged over several seeds: <i>reproduced</i> when the one-sided "
            "95 % bounds of its mean lie inside the band and at least 4 of 5 seeds do; <i>not discriminating</i> when "
            "it holds but the same scenarios with every AQM replaced by DropTail of the same buffer (the null "
            "control) meet it too, so it does not test the AQM. Claims 'on one run' come from deterministic "
            "experiments (no random element: every seed gives the same run) or analysis-only ones.</p>"
            "<table><tr><th>paper</th><th>claims</th><th>reproduced</th><th>deviates</th><th>not discriminating</th>"
            f"<th>missing</th></tr>{''.join(rows)}</table>")


def _checks_table(e: Experiment, o: Outcome) -> str:
    rows = []
    for i, c in enumerate(o.checks):
        x = c.expectation
        paper = "" if x.paper is None else f"{x.paper * x.scale:.4g}{' ' + x.unit if x.unit else ''}"
        rows.append(
            f"<tr><td>{_e(x.claim)}</td><td>{_e(x.source)}</td><td>{_e(paper)}</td><td>{_e(x.band_text())}</td>"
            f'<td>{_e(c.value_text())}</td><td class="{_e(c.verdict)}">{_e(c.verdict)}{_null_label(c)}</td>'
            f"<td>{_e(c.detail)}{_why(e, i, o, c)}</td><td class=note>{_e(x.reason)}</td></tr>")
    return ("<table><tr><th>paper's claim (our words)</th><th>where</th><th>paper's value</th><th>band</th>"
            "<th>ours</th><th>verdict</th><th>by how much</th><th>why this band</th></tr>"
            + "".join(rows) + "</table>")


def _null_label(c: Check) -> str:
    """Under the verdict: a claim the null control could not be judged on, said where it is read."""
    if c.null_state == NULL_IMPOSSIBLE:
        return "<br><small>no null control possible</small>"
    if c.null_state == NULL_UNAVAILABLE:
        return "<br><small>null control not judged</small>"
    return ""


def _why(e: Experiment, i: int, o: Outcome, c: Check) -> str:
    """The catalog's reason for a verdict other than reproduced, when it is the expected one."""
    verdict, reason = expected.verdict(e, i, o.quick)
    if c.verdict == REPRODUCED or verdict != c.verdict or not reason:
        return ""
    return f"<br><i>Why: {_e(reason)}</i>"


def _metrics_table(o: Outcome) -> str:
    rows = "".join(f"<tr><td><code>{_e(k)}</code></td><td>{v:.6g}</td></tr>" for k, v in sorted(o.metrics.items()))
    return f"<details><summary>all metrics ({len(o.metrics)})</summary><table>{rows}</table></details>"


def _experiment_section(e: Experiment, o: Outcome) -> str:
    parts = [f'<h3 id="{_e(e.id)}">{_e(e.id)}: {_e(e.title)} {_badge(o.verdict)}</h3>',
             f"<p><b>{_e(e.paper.key)}, {_e(e.figure)}.</b></p>",
             f"<blockquote>The paper: {_e(e.statement)}</blockquote>"]
    for caption, png in o.figures:
        data = base64.b64encode(png).decode("ascii")
        parts.append(f'<figure><img alt="{_e(caption)}" src="data:image/png;base64,{data}">'
                     f"<figcaption>{_e(caption)}</figcaption></figure>")
    parts.append(_checks_table(e, o))
    if o.null_error:
        parts.append(f"<p class=note><b>Null control not judged:</b> the analysis failed on the DropTail runs "
                     f"({_e(o.null_error)}); the verdicts above are not checked against it.</p>")
    if e.notes:
        parts.append("<p><b>Differences from the paper's setup and where we cannot match it:</b></p><ul>"
                     + "".join(f"<li class=note>{_e(n)}</li>" for n in e.notes) + "</ul>")
    if o.text:
        parts.append(f"<pre>{_e(o.text)}</pre>")
    parts.append(_metrics_table(o))
    for label, toml in o.scenarios_toml.items():
        parts.append(f"<details><summary>resolved scenario <code>{_e(label)}</code> (TOML)</summary>"
                     f"<pre>{_e(toml)}</pre></details>")
    parts.append(f"<p class=note>Run in {o.wall_s:.1f} s ({'quick' if o.quick else 'full length'}).</p>")
    return "\n".join(parts)


def _not_modelled(paper: Paper) -> str:
    if not paper.not_modelled:
        return ""
    rows = "".join(f"<tr><td>{_e(c)}</td><td>{_e(r)}</td></tr>" for c, r in paper.not_modelled)
    return ("<p><b>Results of this paper we cannot model:</b></p><table><tr><th>result</th>"
            f"<th>why not</th></tr>{rows}</table>")


def render(pairs: Sequence[tuple[Experiment, Outcome]], *, total_wall_s: float | None = None) -> str:
    """The HTML text of the report for (experiment, outcome) pairs in catalog order."""
    from .. import __version__

    quick = any(o.quick for _, o in pairs)
    counts = {v: sum(o.verdict == v for _, o in pairs) for v in (REPRODUCED, NOT_DISCRIMINATING, DEVIATES, MISSING)}
    head = [
        "<!DOCTYPE html><html><head><meta charset='utf-8'><title>aqmlab: paper reproduction report</title>",
        f"<style>{_CSS}</style></head><body>",
        "<h1>Paper reproduction report</h1>",
        f"<p>aqmlab {_e(__version__)}; generated {_dt.datetime.now(_dt.UTC):%Y-%m-%d %H:%M} UTC; "
        f"{'QUICK (shortened) runs: the verdicts are those of the shortened runs the test suite checks' if quick else 'full-length runs'}; "
        f"{len(pairs)} experiments"
        + (f", {total_wall_s:.0f} s wall time" if total_wall_s is not None else "") + ".</p>",
        "<p>Experiments: " + ", ".join(f"{n} {v}" for v, n in counts.items() if n) + ". Each band's reason is "
        "given next to it; where a claim is expected not to reproduce, why.</p>",
        _paper_summary(pairs),
        _summary_table(pairs),
    ]
    body = []
    papers: list[Paper] = []
    for e, _ in pairs:
        if e.paper not in papers:
            papers.append(e.paper)
    for paper in papers:
        body.append(f"<h2>{_e(paper.title)}</h2><p class=note>{_e(paper.citation)}</p>")
        body.append(_not_modelled(paper))
        body += [_experiment_section(e, o) for e, o in pairs if e.paper == paper]
    return "\n".join(head + body + ["</body></html>"])


def _outcomes_with(key: str) -> Callable[[Any], bool]:
    """Whether a JSON document is a list of experiments' outcomes, each with its id and ``key``."""
    return lambda doc: isinstance(doc, list) and all(isinstance(o, dict) and {"id", key} <= o.keys() for o in doc)


# What `aqmlab reproduce` puts in OUTDIR: write()'s files, and `--live`'s beside them (the two
# share a directory, out/reproduce by default). results.json is told from characterize's (a
# table) by its content.
OUTPUT = OutputKind("an aqmlab reproduction", ("report.html", "results.json", "live-report.html", "live-results.json"),
                    recognise={"results.json": json_holding(_outcomes_with("checks")),
                               "live-results.json": json_holding(_outcomes_with("claims"))})


def write(pairs: Sequence[tuple[Experiment, Outcome]], outdir: str | Path, *,
          total_wall_s: float | None = None) -> Path:
    """Writes report.html and results.json into ``outdir``; returns the report's path."""
    out = Path(outdir)
    out.mkdir(parents=True, exist_ok=True)
    path = out / "report.html"
    path.write_text(render(pairs, total_wall_s=total_wall_s), encoding="utf-8")
    (out / "results.json").write_text(json.dumps([o.to_json() for _, o in pairs], indent=2, allow_nan=False))
    return path
