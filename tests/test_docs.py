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


@pytest.mark.parametrize("page", [p for p in PAGES if python_blocks(p)], ids=lambda p: p.name)
def test_code_examples_run(page, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)  # examples may write files
    namespace: dict = {}
    for block in python_blocks(page):  # one namespace per page: later blocks build on earlier ones
        exec(compile(block, f"{page.name}", "exec"), namespace)


@pytest.mark.skipif(shutil.which("mkdocs") is None and not (Path(sys.executable).parent / "mkdocs").exists(),
                    reason="mkdocs is not installed (pip install 'aqmlab[docs]')")
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


def test_catalog_page_shows_the_verdicts_of_a_reproduction(tmp_path, monkeypatch):
    # A real reproduction (the PI design example: analysis only, about a second), its verdict
    # taken from results.json as the report writes it.
    out = subprocess.run([sys.executable, "-m", "aqmlab.cli", "reproduce", "pi01-design", "-o", str(tmp_path)],
                         capture_output=True, text=True)
    assert out.returncode == 0, out.stderr
    sys.path.insert(0, str(ROOT / "docs"))
    try:
        import hooks
    finally:
        sys.path.pop(0)
    monkeypatch.setenv("AQMLAB_CATALOG_RESULTS", str(tmp_path / "results.json"))
    page = hooks.catalog_page()
    from aqmlab.catalog import registry

    n = len(registry.get("pi01-design").expectations)
    row = next(line for line in page.splitlines() if line.startswith("| `pi01-design` |"))
    assert f"| full | **reproduced** | {n}/{n} |" in row
