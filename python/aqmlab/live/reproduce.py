"""`aqmlab reproduce --live`: the PIE paper's Linux testbed (HPSR'13 §IV-B, Figs. 10–11),
rebuilt live, judged next to the simulated reproduction.

The experiments are the catalog's own (`pie13-fig10`, `pie13-fig11`): the same scenarios, the
same analysis, the same claims and bands. Here each scenario also runs live (kernel TCP
through the router running the catalog's PIE and CoDel), so every claim gets three columns:
what the paper printed, what the live testbed measured, what the simulator computed.
"""

from __future__ import annotations

import base64
import html
import io
import json
import time
from pathlib import Path

from ..errors import ScenarioError

LIVE_EXPERIMENTS = ("pie13-fig10", "pie13-fig11")


def _select(ids: list[str], every: bool) -> list[str]:
    """The live experiments of --all, of --list alone, or that the ids match as the catalog's do
    (ids, prefixes, shell globs)."""
    from ..catalog.registry import matching

    if every or not ids:
        return list(LIVE_EXPERIMENTS)
    try:
        return matching(ids, LIVE_EXPERIMENTS, "live experiment", "aqmlab reproduce --live --list")
    except KeyError as e:
        raise ScenarioError("ID", e.args[0]) from None


def run_live_experiment(exp_id: str, *, quick: bool, opts=None) -> dict:
    """Runs one catalog experiment live and simulated; returns both sets of metrics and checks."""
    from ..catalog.registry import get
    from ..catalog.runner import run_experiment
    from . import run

    exp = get(exp_id)
    t0 = time.perf_counter()
    live_results = {label: run(d, opts, progress=False) for label, d in exp.scenarios(quick).items()}
    analysis = exp.analyse(live_results, quick)
    live_checks = exp.judge(analysis.metrics, quick)
    sim = run_experiment(exp, quick=quick)
    return {
        "id": exp.id, "title": exp.title, "figure": exp.figure, "quick": quick,
        "live_metrics": {k: float(v) for k, v in analysis.metrics.items()},
        "live_checks": live_checks, "sim_checks": sim.checks,
        "figures": [(caption, _png(fig)) for caption, fig in analysis.figures],
        "router": {label: r.summary["live"]["router"]["send_lateness"] for label, r in live_results.items()},
        "wall_s": time.perf_counter() - t0,
    }


def _png(fig) -> bytes:
    import matplotlib.pyplot as plt

    buf = io.BytesIO()
    fig.savefig(buf, format="png", dpi=100)
    plt.close(fig)
    return buf.getvalue()


def rows(outcome: dict) -> list[dict]:
    """One row per claim: paper, live and simulated values with their verdicts."""
    out = []
    for lc, sc in zip(outcome["live_checks"], outcome["sim_checks"]):
        e = lc.expectation
        paper = "" if e.paper is None else f"{e.paper * e.scale:.3g}{' ' + e.unit if e.unit else ''}"
        out.append({"metric": e.metric, "claim": e.claim, "band": e.band_text(), "paper": paper,
                    "live": lc.value_text(), "live_verdict": lc.verdict, "sim": sc.value_text(),
                    "sim_verdict": sc.verdict})
    return out


def _html(outcomes: list[dict]) -> str:
    parts = ["<html><head><meta charset='utf-8'><title>aqmlab reproduce --live</title>"
             "<style>body{font-family:sans-serif;max-width:1100px;margin:auto}td,th{padding:3px 8px;"
             "border-bottom:1px solid #ddd}.reproduced{color:#070}.deviates{color:#b00}.indicative{color:#888}</style>"
             "</head><body><h1>PIE testbed (HPSR'13 §IV-B): paper vs live vs simulated</h1>"]
    for o in outcomes:
        parts.append(f"<h2>{html.escape(o['id'])}: {html.escape(o['title'])} ({html.escape(o['figure'])})</h2>")
        parts.append("<table><tr><th>claim</th><th>band</th><th>paper</th><th>live</th><th>simulated</th></tr>")
        for r in rows(o):
            parts.append(f"<tr><td>{html.escape(r['claim'])}</td><td>{html.escape(r['band'])}</td><td>{html.escape(r['paper'])}</td>"
                         f"<td class='{r['live_verdict']}'>{html.escape(r['live'])} ({r['live_verdict']})</td>"
                         f"<td class='{r['sim_verdict']}'>{html.escape(r['sim'])} ({r['sim_verdict']})</td></tr>")
        parts.append("</table>")
        for caption, png in o["figures"]:
            parts.append(f"<p>{html.escape(caption)} (live)</p><img src='data:image/png;base64,{base64.b64encode(png).decode()}'>")
    parts.append("</body></html>")
    return "\n".join(parts)


def _reproduce_live(args) -> int:
    from . import Options
    from .cli import DEFAULT_RT_PRIORITY
    from .system import require_privileges

    ids = _select(args.ids, args.all)
    if args.list:
        print("\n".join(ids))
        return 0
    require_privileges()
    out = Path(args.output)
    out.mkdir(parents=True, exist_ok=True)
    outcomes = []
    for exp_id in ids:
        print(f"{exp_id}: 4 live runs and their simulated twins ({'quick' if args.quick else 'full length'})", flush=True)
        o = run_live_experiment(exp_id, quick=args.quick, opts=Options(rt_priority=DEFAULT_RT_PRIORITY))
        outcomes.append(o)
        print(f"  {'claim':<34} {'paper':>10} {'live':>22} {'simulated':>22}")
        for r in rows(o):
            print(f"  {r['metric']:<34} {r['paper']:>10} {r['live'] + ' ' + r['live_verdict']:>22} "
                  f"{r['sim'] + ' ' + r['sim_verdict']:>22}")
    (out / "live-report.html").write_text(_html(outcomes))
    (out / "live-results.json").write_text(json.dumps(
        [{"id": o["id"], "quick": o["quick"], "wall_s": o["wall_s"], "live_metrics": o["live_metrics"],
          "router_send_lateness": o["router"], "claims": rows(o)} for o in outcomes], indent=2))
    print(f"wrote {out}/live-report.html and live-results.json")
    return 0


def cmd_reproduce_live(args) -> int:
    from .cli import guarded

    return guarded(lambda: _reproduce_live(args))
