"""mkdocs hooks: pages generated from the code at build time.

- ``aqms/<type>.md``, one page per queueing discipline, from ``aqmlab._core.qdisc_schema()``
  (the parameter tables the Rust library declares with ``params!``): what it is, the source it
  follows, its profiles, and every parameter with its range and its default under each
  profile, the profiles' differences marked;
- ``catalog.md``, from the reproduction catalog's registry: the current verdict table (the
  verdicts ``catalog/expected.py`` records, which the test suite checks against quick runs of
  every experiment), every experiment and claim with its band and the reason for it, and also
  the verdicts of a reproduction when its ``results.json`` is at hand
  (``$AQMLAB_CATALOG_RESULTS``, else ``out/reproduce/results.json`` as ``aqmlab reproduce
  --all`` writes it).
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

from mkdocs.structure.files import File, Files


def _value(v: Any, kind: str) -> str:
    if v is None:
        return "unset"
    if kind == "duration" and isinstance(v, int):
        from aqmlab import units

        return units.fmt_duration(v)
    if kind == "limit" and isinstance(v, dict):
        ((k, n),) = v.items()
        return f"{n} {k}"
    return json.dumps(v) if not isinstance(v, str) else v


def _range(p: dict[str, Any]) -> str:
    if p.get("choices"):
        return ", ".join(f"`{c}`" for c in p["choices"])
    lo, hi = p.get("min"), p.get("max")
    if lo is None and hi is None:
        return ""
    left = "(" if p.get("min_open") else "["
    right = ")" if p.get("max_open") else "]"
    fmt = (lambda x: _value(int(x), "duration")) if p["kind"] == "duration" else (lambda x: f"{x:g}")
    return f"{left}{'-∞' if lo is None else fmt(lo)}, {'∞' if hi is None else fmt(hi)}{right}"


def aqm_page(name: str, d: dict[str, Any]) -> str:
    profiles = d["profiles"]
    lines = [f"# `{name}`", "", d["doc"], "", f"**Follows:** {d['source']}", ""]
    if len(profiles) > 1:
        lines += [f"**Profiles:** {', '.join(f'`{p}`' for p in profiles)} (default `{d['default_profile']}`). "
                  "A profile sets every default below at once; a parameter given in the scenario overrides it. "
                  "Rows where the profiles differ are marked ◆.", ""]
    head = "| parameter | kind | range | " + " | ".join(f"`{p}`" for p in profiles) + " | description |"
    lines += [head, "|" + "---|" * (4 + len(profiles))]
    for p in d["params"]:
        vals = [_value(p["defaults"].get(pr), p["kind"]) for pr in profiles]
        mark = " ◆" if len(set(vals)) > 1 else ""
        unit = f" ({p['unit']})" if p.get("unit") else ""
        doc = p["doc"].replace("|", "\\|")
        lines.append(f"| `{p['name']}`{mark} | {p['kind']}{unit} | {_range(p)} | "
                     + " | ".join(v.replace("|", "\\|") for v in vals) + f" | {doc} |")
    lines += ["", "In a scenario: `[bottleneck] queue = { type = \"" + name + "\", ... }`; see "
              "[the scenario reference](../scenario-reference.md) and [AQM profiles](../aqm.md)."]
    return "\n".join(lines) + "\n"


def results_path() -> Path:
    return Path(os.environ.get("AQMLAB_CATALOG_RESULTS", Path(__file__).parents[1] / "out/reproduce/results.json"))


def expected_table() -> list[str]:
    """The current verdicts, one row per experiment: those ``catalog/expected.py`` records for
    the quick runs, which tests/catalog/test_experiments.py checks claim by claim in both
    directions (so this table is what the code gives today), and the full-length ones it
    records where they have been established."""
    from types import SimpleNamespace

    from aqmlab.catalog import expected, registry
    from aqmlab.catalog.core import DEVIATES, NOT_DISCRIMINATING, REPRODUCED, overall

    lines = ["## Current verdicts", "",
             "Each experiment's verdicts in `--quick` mode, as `aqmlab/catalog/expected.py` records them and the "
             "test suite checks them on every run (a claim that changes its verdict fails the suite until the "
             "table is updated with the reason). The sections below give each claim's verdict and reason.", "",
             "| experiment | claims | reproduced | not discriminating | deviates | overall (quick) |",
             "|---|---|---|---|---|---|"]
    for exp in registry.experiments():
        quick = [expected.verdict(exp, i, True)[0] for i in range(len(exp.expectations))]
        # overall() reads only each check's verdict: the catalog's own rule, applied to the table.
        word = overall([SimpleNamespace(verdict=v) for v in quick])
        counts = " | ".join(str(quick.count(v)) for v in (REPRODUCED, NOT_DISCRIMINATING, DEVIATES))
        lines.append(f"| `{exp.id}` | {len(quick)} | {counts} | **{word}** |")
    full = sorted(expected.FULL.items())
    if full:
        lines += ["", "## Full-length verdicts", "",
                  "At full length (`aqmlab reproduce --all`; the test suite runs it too), recorded where it "
                  "differs from the quick verdict or the reason gives full-length numbers; every other claim "
                  "gets its quick verdict:", "", "| experiment | claim | verdict | reason |", "|---|---|---|---|"]
        lines += [f"| `{e}` | {c} | {v} | {why.replace('|', '/')} |" for (e, c), (v, why) in full]
    else:
        lines += ["", "Every claim gets its quick verdict at full length too (`aqmlab reproduce --all`)."]
    return lines + [""]


def verdict_table(results: list[dict[str, Any]]) -> list[str]:
    """The verdicts of a reproduction, one row per experiment."""
    versions = sorted({r["aqmlab_version"] for r in results})
    lines = ["## Verdicts of the reproduction at hand", "",
             f"From `aqmlab reproduce` with aqmlab {', '.join(versions)} : each experiment's "
             "overall verdict and its claims' verdicts.", "", "| experiment | length | verdict | claims reproduced | deviating claims |",
             "|---|---|---|---|---|"]
    for r in results:
        checks = r["checks"]
        ok = sum(c["verdict"] == "reproduced" for c in checks)
        dev = "; ".join(f"{c['claim']} ({c['detail']})".replace("|", "/") for c in checks
                        if c["verdict"] in ("deviates", "missing", "not discriminating"))
        lines.append(f"| `{r['id']}` | {'quick' if r['quick'] else 'full'} | **{r['verdict']}** | "
                     f"{ok}/{len(checks)} | {dev or '—'} |")
    return lines + [""]


def catalog_page() -> str:
    from aqmlab.catalog import expected, registry

    lines = ["# Reproduction catalog", "",
             "Every experiment `aqmlab reproduce` rebuilds, with the claims it judges over 5 seeds and against a "
             "null control (every AQM replaced by DropTail of the same buffer). A claim is *reproduced* when the "
             "one-sided 95 % bounds of its mean lie in its band and 4 of 5 seeds do, *not discriminating* when "
             "the null control meets it too, else it *deviates*; the band's reason was fixed before looking at "
             "results. `aqmlab reproduce --all -o out/reproduce` runs them at full length and writes the current "
             "verdicts to `out/reproduce/report.html`; the test suite runs every experiment in `--quick` mode and "
             "checks every claim against its expected quick verdict (column *quick*, with the reason when it is "
             "not reproduced).", ""]
    lines += expected_table()
    path = results_path()
    if path.is_file():
        lines += verdict_table(json.loads(path.read_text()))
    for exp in registry.experiments():
        lines += [f"## `{exp.id}`: {exp.title}", "", f"{exp.paper.citation}, {exp.figure}. {exp.statement}", "",
                  "| claim | band | quick | reason |", "|---|---|---|---|"]
        for i, e in enumerate(exp.expectations):
            verdict, why = expected.verdict(exp, i, True)
            quick = f"{verdict}: {why}" if why else verdict
            lines.append(f"| {e.claim} | {e.band_text()} | {quick.replace('|', '/')} | "
                         f"{e.reason.replace('|', '/')} |")
        lines.append("")
    return "\n".join(lines)


def on_files(files: Files, config: Any) -> Files:
    from aqmlab import _core

    for name, d in json.loads(_core.qdisc_schema()).items():
        files.append(File.generated(config, f"aqms/{name}.md", content=aqm_page(name, d)))
    files.append(File.generated(config, "catalog.md", content=catalog_page()))
    return files
