"""The documentation: the site builds without a warning, its code examples run, and the example
notebook runs from top to bottom."""

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
PAGES = sorted((ROOT / "docs").glob("*.md"))


def python_blocks(path: Path) -> list[str]:
    return re.findall(r"^```python\n(.*?)^```", path.read_text(), flags=re.S | re.M)


@pytest.mark.parametrize("page", [p for p in [*PAGES, ROOT / "README.md"] if python_blocks(p)], ids=lambda p: p.name)
def test_code_examples_run(page, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)  # examples may write files
    namespace: dict = {}
    for block in python_blocks(page):  # one namespace per page: later blocks build on earlier ones
        exec(compile(block, f"{page.name}", "exec"), namespace)


def toml_blocks(path: Path) -> list[str]:
    return re.findall(r"^```toml\n(.*?)^```", path.read_text(), flags=re.S | re.M)


# Where a TOML example is a fragment, it is placed into this scenario: tables merge, and each
# table of an array of tables (`[[flows]]`) is merged into the first one here.
MINIMAL = {"name": "docs-example", "duration": "2s",
           "bottleneck": {"rate": "10Mbps", "delay": "10ms", "queue": {"type": "drop_tail"}}, "flows": [{"type": "tcp", "rtt": "100ms"}]}


def merged(base: dict, over: dict) -> dict:
    out = dict(base)
    for k, v in over.items():
        if isinstance(v, dict) and isinstance(out.get(k), dict):
            out[k] = merged(out[k], v)
        elif isinstance(v, list) and v and isinstance(v[0], dict) and isinstance(out.get(k), list):
            out[k] = [merged(out[k][0], item) for item in v]
        else:
            out[k] = v
    return out


@pytest.mark.parametrize("page", [p for p in [*PAGES, ROOT / "README.md"] if toml_blocks(p)], ids=lambda p: p.name)
def test_toml_examples_are_valid(page, tmp_path):
    # Every TOML example is checked by what reads it: a sweep file (`base` and `axes`) by the
    # sweep loader, a lone queue table (characterize's input) as the bottleneck's queue, any
    # other as a scenario or a fragment of one.
    import tomllib

    import aqmlab
    from aqmlab.sweep.spec import Sweep

    for block in toml_blocks(page):
        data = tomllib.loads(block)
        if "axes" in data:
            Sweep.from_dict(data, base_dir=tmp_path)
        elif "type" in data:
            aqmlab.Scenario.from_dict(merged(MINIMAL, {"bottleneck": {"queue": data}}))
        else:
            aqmlab.Scenario.from_dict(merged(MINIMAL, data))


def table_shape_errors(text: str) -> list[str]:
    """Rows of a Markdown table (outside code blocks) whose cell count is not the header's."""
    errors, header, in_code = [], None, False
    for n, line in enumerate(text.splitlines(), 1):
        if line.startswith("```"):
            in_code = not in_code
        if in_code or not line.startswith("|"):
            header = None
            continue
        cells = len(re.split(r"(?<!\\)\|", line.strip().strip("|")))
        if header is None:
            header = (n, cells)
        elif cells != header[1]:
            errors.append(f"line {n}: {cells} cells, the header (line {header[0]}) has {header[1]}")
    return errors


def test_table_shape_errors_are_found():
    # The checker itself, on a table with a row one cell too long and an escaped bar.
    text = "| a | b |\n|---|---|\n| 1 | 2 |\n| 1 | 2 | 3 |\n| x \\| y | 2 |\n"
    assert table_shape_errors(text) == ["line 4: 3 cells, the header (line 1) has 2"]


@pytest.mark.parametrize("page", [*PAGES, ROOT / "README.md"], ids=lambda p: p.name)
def test_tables_keep_their_shape(page):
    # A figure pasted into the wrong table shows as a row with a cell too many (README's
    # before/after table carried the scaling table's figures for a day).
    assert table_shape_errors(page.read_text()) == []


@pytest.mark.skipif(shutil.which("mkdocs") is None and not (Path(sys.executable).parent / "mkdocs").exists(),
                    reason="mkdocs is not installed (pip install 'aqmlab[docs]')")
@pytest.mark.parametrize("argv", [["bench", "--pairs", "3"], ["live", "--bench", "pie-base"],
                                  ["reproduce", "--all", "pie13-fig6"]])
def test_robustness_page_quotes_refusals_as_printed(argv, capsys):
    # Once a prefix of the --pairs message, and `live` shown as printing `aqmlab: error:` when it
    # printed `aqmlab live:`.
    from aqmlab.cli import main

    assert main(argv) == 2
    printed = capsys.readouterr().err.strip()
    assert f"`{printed}`" in " ".join((ROOT / "docs" / "robustness.md").read_text().split())


def test_site_builds_without_warnings(tmp_path):
    mkdocs = Path(sys.executable).parent / "mkdocs"
    out = subprocess.run([str(mkdocs) if mkdocs.exists() else "mkdocs", "build", "--strict", "-d", str(tmp_path / "site")],
                         cwd=ROOT, capture_output=True, text=True, env={**os.environ, "NO_MKDOCS_2_WARNING": "1"})
    assert out.returncode == 0, out.stderr
    from aqmlab import _core
    import json

    for name in json.loads(_core.qdisc_schema()):  # a page per AQM, each in the navigation
        assert (tmp_path / "site" / "aqms" / name / "index.html").exists()
        assert f"aqms/{name}.md" in (ROOT / "mkdocs.yml").read_text()
    assert (tmp_path / "site" / "catalog" / "index.html").exists()


def test_quickstart_notebook_runs():
    nbformat = pytest.importorskip("nbformat")
    nbclient = pytest.importorskip("nbclient")
    nb = nbformat.read(ROOT / "notebooks" / "quickstart.ipynb", as_version=4)
    nbclient.NotebookClient(nb, timeout=300, kernel_name="python3",
                            resources={"metadata": {"path": str(ROOT / "notebooks")}}).execute()
    html = [o["data"]["text/html"] for o in nb.cells[1].outputs if "text/html" in o.get("data", {})]
    assert html and "bottleneck utilization (%)" in html[0]  # the Result's own view


def docs_hooks():
    sys.path.insert(0, str(ROOT / "docs"))
    try:
        import hooks
    finally:
        sys.path.pop(0)
    return hooks


def section(page: str, heading: str) -> list[str]:
    """The lines of a page's level-2 section."""
    lines = page.splitlines()
    start = lines.index(heading)
    end = next((i for i in range(start + 1, len(lines)) if lines[i].startswith("## ")), len(lines))
    return lines[start:end]


def test_catalog_page_always_shows_the_current_verdicts(tmp_path, monkeypatch):
    # Without any reproduction at hand, the table still has a row per experiment with the quick
    # verdicts the suite checks (tests/catalog/test_experiments.py); counted here from the
    # registry's claims, one row at a time.
    from aqmlab.catalog import expected, registry

    monkeypatch.setenv("AQMLAB_CATALOG_RESULTS", str(tmp_path / "absent.json"))
    page = docs_hooks().catalog_page()
    rows = [line for line in section(page, "## Current verdicts") if line.startswith("| `")]
    assert [r.split("`")[1] for r in rows] == [e.id for e in registry.experiments()]
    assert "## Verdicts of the reproduction at hand" not in page
    for exp, row in zip(registry.experiments(), rows):
        quick = [expected.verdict(exp, i, True)[0] for i in range(len(exp.expectations))]
        assert sum(quick.count(v) for v in ("reproduced", "not discriminating", "deviates")) == len(quick), \
            f"{exp.id}: a verdict the table has no column for"
        cells = [c.strip() for c in row.split("|")[2:6]]
        assert cells == [str(len(quick)), str(quick.count("reproduced")), str(quick.count("not discriminating")),
                         str(quick.count("deviates"))], exp.id
        worst = "deviates" if "deviates" in quick else "not discriminating" if "not discriminating" in quick else "reproduced"
        assert f"**{worst}**" in row, exp.id


def test_catalog_page_shows_the_verdicts_of_a_reproduction(tmp_path, monkeypatch):
    # A real reproduction (the PI design example: analysis only, about a second), its verdict
    # taken from results.json as the report writes it.
    out = subprocess.run([sys.executable, "-m", "aqmlab.cli", "reproduce", "pi01-design", "-o", str(tmp_path)],
                         capture_output=True, text=True)
    assert out.returncode == 0, out.stderr
    monkeypatch.setenv("AQMLAB_CATALOG_RESULTS", str(tmp_path / "results.json"))
    page = docs_hooks().catalog_page()
    from aqmlab.catalog import registry

    n = len(registry.get("pi01-design").expectations)
    lines = section(page, "## Verdicts of the reproduction at hand")
    row = next(line for line in lines if line.startswith("| `pi01-design` |"))
    assert f"| full | **reproduced** | {n}/{n} |" in row
