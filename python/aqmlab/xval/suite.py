"""The built-in cross-validation suite: the scenarios in ``suite/`` (each says in its description
what it exercises), each through :func:`aqmlab.xval.run`, and one table of the verdicts."""

from __future__ import annotations

import datetime
import json
import sys
from pathlib import Path

from ..errors import ScenarioError
from ..outdir import OutputKind, clear_own
from ..scenario import Scenario

SUITE_DIR = Path(__file__).with_name("suite")


def suite_names() -> list[str]:
    return sorted(p.stem for p in SUITE_DIR.glob("*.toml"))


def output_kind() -> OutputKind:
    """What run_suite() puts in OUTDIR: a cross-validation's folder per suite scenario, the table
    and its JSON."""
    from .report import OUTPUT

    return OutputKind("an aqmlab cross-validation suite", ("suite.md", "suite.json"),
                      folders=dict.fromkeys(suite_names(), OUTPUT))


def run_suite(outdir: Path, *, seeds: int = 5, only: list[str] | None = None) -> tuple[str, bool]:
    """Runs the suite (or the scenarios named in `only`); writes one report folder per scenario,
    suite.json and suite.md into `outdir`; returns the Markdown table and whether all agree."""
    from .. import __version__
    from .build import NS3_VERSION
    from .crosscheck import run as xval_run

    names = suite_names()
    for n in only or []:
        if n not in names:
            raise ScenarioError("--only", f"no suite scenario {n!r} (suite: {', '.join(names)})")
    chosen = [n for n in names if not only or n in only]
    results = []
    for name in chosen:
        scn = Scenario.from_toml(SUITE_DIR / f"{name}.toml")
        doc = xval_run(scn, seeds=seeds, outdir=outdir / name)
        differ = [r for r in doc["rows"] if not r["agree"]]
        results.append({"scenario": name, "description": scn.resolved["description"], "agree": doc["agree"],
                        "metrics": len(doc["rows"]), "differ": differ})
        print(f"xval suite: {name}: {'agree' if doc['agree'] else 'DIFFER'}", file=sys.stderr)
    head = (f"aqmlab xval --suite, {datetime.date.today().isoformat()}: aqmlab {__version__} against ns-3 "
            f"{NS3_VERSION} (PyPI ns3 3.44.post0), {seeds} seeds per side\n\n"
            "| scenario | exercises | metrics in band | outside band (ours − ns-3, band) |\n|---|---|---|---|\n")
    lines = []
    for r in results:
        out = "; ".join(f"{d['metric']} {d['diff']:+.3g} ({d['band']:.3g})" for d in r["differ"]) or "—"
        lines.append(f"| {r['scenario']} | {r['description']} | {r['metrics'] - len(r['differ'])}/{r['metrics']} | "
                     f"{out} |")
    table = head + "\n".join(lines) + "\n"
    # An earlier suite's folders of scenarios not run this time (--only) would sit beside the new
    # ones, outside the new table, as if current.
    clear_own(outdir, output_kind(), keep=frozenset(chosen))
    outdir.mkdir(parents=True, exist_ok=True)
    (outdir / "suite.md").write_text(table)
    (outdir / "suite.json").write_text(json.dumps(results, indent=1))
    return table, all(r["agree"] for r in results)
