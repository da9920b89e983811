"""report.html, CSV output, the plots' warm-up shading and labels, and a result's Jupyter view."""

import re
import shutil
import subprocess
import sys

import matplotlib.pyplot as plt
import pandas as pd
import pytest
import tomli_w

from aqmlab import plots
from support import short_scenario, small_scenario


@pytest.fixture(scope="module")
def run_dir(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("report")
    p = tmp / "small.toml"
    p.write_text(tomli_w.dumps(small_scenario()))
    out = subprocess.run([sys.executable, "-m", "aqmlab.cli", "run", str(p), "-q", "-o", str(tmp / "res"), "--csv"],
                         capture_output=True, text=True)
    assert out.returncode == 0, out.stderr
    assert "report: " in out.stdout
    return tmp / "res"


def test_report_is_one_self_contained_page(run_dir, small_result):
    page = (run_dir / "report.html").read_text()
    # Nothing fetched from elsewhere: every image is inline data, no script or style sheet.
    assert not re.search(r"""(src|href)=['"]?(https?:|//|file:)""", page)
    assert "<script" not in page
    images = re.findall(r"src='data:image/png;base64,", page)
    assert len(images) == len(plots.available_views(small_result)) + 1  # each view and the overview
    for label in ("bottleneck utilization (%)", "queue delay, 99th percentile (ms)", "Jain's fairness index"):
        assert label in page
    flows = small_result.flow_rows()
    assert page.count("<tr><td>") == len(flows)  # the per-flow table, one row a flow
    assert "[bottleneck]" in page and "rate = &quot;10Mbps&quot;" in page  # the resolved scenario


def test_csv_matches_parquet(run_dir):
    for pq in (run_dir / "traces").glob("*.parquet"):
        a = pd.read_parquet(pq)
        b = pd.read_csv(run_dir / "csv" / f"{pq.stem}.csv")
        if a.index.name:  # flow_rates: the time is the index
            b = b.set_index(a.index.name)
        assert a.shape == b.shape, pq.stem
        num = a.select_dtypes("number").columns
        pd.testing.assert_frame_equal(a[num].reset_index(drop=True), b[num].reset_index(drop=True),
                                      check_dtype=False, check_exact=False, rtol=1e-12, check_names=False)


def test_no_report_writes_none(tmp_path):
    from aqmlab.result import Result  # noqa: F401  (the import the CLI makes)

    p = tmp_path / "s.toml"
    p.write_text(tomli_w.dumps(short_scenario()))
    out = subprocess.run([sys.executable, "-m", "aqmlab.cli", "run", str(p), "-q", "-o", str(tmp_path / "r"),
                          "--no-report", "--no-plots"], capture_output=True, text=True)
    assert out.returncode == 0, out.stderr
    assert not (tmp_path / "r" / "report.html").exists() and not (tmp_path / "r" / "csv").exists()


def test_plots_shade_the_warm_up_and_label_flows(small_result):
    fig, ax = plt.subplots()
    plots.throughput(small_result, ax)
    spans = [p for p in ax.patches if p.get_label().startswith("warm-up")]
    assert len(spans) == 1
    x0, x1 = spans[0].get_x(), spans[0].get_x() + spans[0].get_width()
    assert (x0, x1) == (0, 1.0)  # small_scenario's warm-up is 1 s
    labels = [t.get_text() for t in ax.get_legend().get_texts()]
    assert {"tcp0 #0", "tcp0 #1", "tcp0 #2", "cbr #3"} <= set(labels)
    colors = [line.get_color() for line in ax.lines if line.get_label().startswith(("tcp0", "cbr"))]
    assert len(set(colors)) == len(colors) == 4  # distinct
    for a in fig.axes:
        assert "(" in a.get_xlabel() and "(" in a.get_ylabel()  # units on both axes
    plt.close(fig)


def test_result_renders_in_jupyter(small_result):
    page = small_result._repr_html_()
    assert "bottleneck utilization (%)" in page and page.count("data:image/png;base64,") == 1


CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")


@pytest.mark.skipif(CHROMIUM is None, reason="chromium is not installed (bash scripts/live-setup.sh installs it)")
def test_report_renders_in_headless_chromium(run_dir, tmp_path):
    shot = tmp_path / "shot.png"
    subprocess.run([CHROMIUM, "--headless", "--no-sandbox", "--disable-gpu", "--hide-scrollbars",
                    f"--screenshot={shot}", "--window-size=1000,2400", (run_dir / "report.html").as_uri()],
                   capture_output=True, timeout=120, check=True)
    img = plt.imread(shot)
    assert img.shape[:2] == (2400, 1000)
    # The page shows its tables and plots: far from blank, with the plots' coloured lines.
    rgb = img[..., :3]
    dark = (rgb.mean(axis=2) < 0.5).mean()
    coloured = (rgb.max(axis=2) - rgb.min(axis=2) > 0.3).mean()
    assert dark > 0.01 and coloured > 0.001, (dark, coloured)
