"""aqmlab compare: several saved runs on one figure."""

import subprocess
import sys

import matplotlib.pyplot as plt
import pytest

import aqmlab
from aqmlab.compare import load_runs, plot_delay_cdf, plot_throughput_delay
from support import small_scenario


@pytest.fixture(scope="module")
def run_dirs(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("compare")
    dirs = []
    for q in ({"type": "pie", "target": "5ms", "limit": "200p"}, {"type": "drop_tail", "limit": "200p"}):
        d = small_scenario(duration="6s")
        d["bottleneck"]["queue"] = q
        d["traces"] = {"queue": True, "flow_bytes": True}
        out = tmp / q["type"]
        aqmlab.run(d, progress=False).save(out, plots=False, report=False)
        dirs.append(out)
    return dirs


def test_compare_draws_every_run(run_dirs, tmp_path):
    out = subprocess.run([sys.executable, "-m", "aqmlab.cli", "compare", *map(str, run_dirs), "-o", str(tmp_path),
                          "--label", "PIE", "--label", "DropTail"], capture_output=True, text=True)
    assert out.returncode == 0, out.stderr
    assert "PIE" in out.stdout and "DropTail" in out.stdout
    for name in ("delay_cdf", "throughput_delay", "flow_throughput", "compare"):
        assert (tmp_path / f"{name}.png").stat().st_size > 10_000


def test_throughput_delay_separates_an_aqm_from_droptail(run_dirs):
    # A 200-packet buffer at 10 Mb/s holds up to 240 ms; PIE's 5 ms target keeps its median far
    # below DropTail's, which fills the buffer. The null control (DropTail) must sit to the far side.
    pie, droptail = load_runs(run_dirs, ["PIE", "DropTail"])
    assert pie.delay_throughput()["sojourn_mean_s"].median() * 4 < droptail.delay_throughput()["sojourn_mean_s"].median()
    fig, ax = plt.subplots()
    plot_throughput_delay([pie, droptail], ax)
    assert [t.get_text() for t in ax.get_legend().get_texts()] == ["PIE", "DropTail"]
    for patch in ax.patches:  # the ellipses: never below zero delay or throughput
        assert (patch.get_xy() >= 0).all()
    plt.close(fig)


def test_a_run_without_its_delay_histogram_is_named_not_dropped(run_dirs, tmp_path):
    # Once exit 0 with the run in the legend and its curve a flat line at 0 ms, unexplained.
    import shutil

    bare = tmp_path / "bare"
    shutil.copytree(run_dirs[1], bare)
    for trace in ("delay_histogram", "queue"):
        (bare / "traces" / f"{trace}.parquet").unlink()
    out = subprocess.run([sys.executable, "-m", "aqmlab.cli", "compare", str(run_dirs[0]), str(bare), "-o",
                          str(tmp_path / "c"), "--label", "PIE", "--label", "bare"], capture_output=True, text=True)
    assert out.returncode == 0, out.stderr
    assert "bare: no delay_histogram trace in this run: its delay CDF is not drawn" in out.stdout
    fig, ax = plt.subplots()
    plot_delay_cdf(load_runs([run_dirs[0], bare], ["PIE", "bare"]), ax)
    assert len(ax.lines) == 1 and [t.get_text() for t in ax.get_legend().get_texts()] == ["PIE"]
    assert [t.get_text() for t in ax.texts] == ["bare: no delay_histogram trace in this run"]
    plt.close(fig)


def test_a_directory_without_a_run_is_a_clear_error(tmp_path):
    out = subprocess.run([sys.executable, "-m", "aqmlab.cli", "compare", str(tmp_path)], capture_output=True, text=True)
    assert out.returncode == 2 and "no summary.json" in out.stderr and "Traceback" not in out.stderr


@pytest.mark.parametrize("damage", ["summary", "sim_config", "trace"])
def test_a_damaged_run_directory_is_a_clear_error(run_dirs, tmp_path, damage):
    # Once a JSONDecodeError, KeyError or ArrowInvalid traceback.
    import shutil

    run = tmp_path / "run"
    shutil.copytree(run_dirs[0], run)
    target = {"summary": run / "summary.json", "sim_config": run / "sim_config.json",
              "trace": next((run / "traces").glob("*.parquet"))}[damage]
    target.write_text("garbage" if damage != "summary" else "{}")
    out = subprocess.run([sys.executable, "-m", "aqmlab.cli", "compare", str(run), "-o", str(tmp_path / "c")],
                         capture_output=True, text=True)
    assert out.returncode == 2 and "is not a run as 'aqmlab run -o' writes it" in out.stderr, out.stderr
    assert "Traceback" not in out.stderr
