"""`aqmlab sweep` (here as `python -m aqmlab.sweep`, the same command), and the sweep plots."""

import argparse
import textwrap
import tomllib

import numpy as np
import pandas as pd
import pytest
from scipy import stats

from aqmlab.sweep import example_path, load_results, plots
from aqmlab.sweep import Sweep, runner
from aqmlab.sweep.cli import main, register
from sweep_cases import SMALL, SMALL_BASE, FailIf, sweep_cli, sweep_dict, write_sweep


def test_register_adds_a_documented_sweep_subcommand():
    parser = argparse.ArgumentParser(prog="aqmlab")
    register(parser.add_subparsers(dest="command"))
    args = parser.parse_args(["sweep", "s.toml", "--dask", "local:2"])
    assert args.func.__name__ == "cmd_sweep" and args.dask == "local:2" and args.ray is None
    assert parser.parse_args(["sweep", "s.toml", "--ray"]).ray == ""
    help_text = sweep_cli("--help").stdout
    for words in ("--workers N", "--dask ADDRESS", "--ray [ADDRESS]", "RAY_ADDRESS", "--collect", "--traces",
                  "--plot METRIC", "replications", "[[zip]]", "Exit status", "qdelay_p99_s"):
        assert words in help_text, words


@pytest.mark.parametrize("sweep, extra, message", [
    (sweep_dict(axes={"bottleneck.queue.limit": ["20p", "lots"]}),
     [], "aqmlab: error: axes.bottleneck.queue.limit[1]: value 'lots': bottleneck.queue.limit: expected a queue limit"),
    (sweep_dict(colour="red"), [], "aqmlab: error: colour: unknown key in the sweep file"),
    (sweep_dict(name="../escape"), [], "aqmlab: error: name: expected a plain file name"),
    (SMALL, ["--plot", "happiness"], "aqmlab: error: --plot: unknown metric 'happiness'"),
    (SMALL, ["--workers", "0"], "aqmlab: error: --workers: expected at least 1"),
    (SMALL, ["--ray", "local:none"], "aqmlab: error: --ray: expected 'local' or 'local:N'"),
])
def test_input_errors_exit_2_naming_the_field(tmp_path, capsys, sweep, extra, message):
    path = write_sweep(tmp_path / "s.toml", sweep)
    assert main([str(path), "-o", str(tmp_path / "store"), "-q", *extra]) == 2
    assert capsys.readouterr().err.startswith(message)
    assert not (tmp_path / "store" / "records").exists()


def test_the_help_example_is_a_valid_sweep():
    # The example of `aqmlab sweep --help` failed validation (warmup 10 s = duration).
    text = sweep_cli("--help").stdout
    example = textwrap.dedent(text.split("sweep file (TOML):\n", 1)[1].split("\n\n", 1)[0])
    sweep = Sweep.from_dict(tomllib.loads(example))
    assert sweep.name == "droptail-buffer" and sweep.axes and len(sweep.runs()) == sweep.count()


def test_missing_sweep_file_and_conflicting_backends(tmp_path, capsys):
    assert main([str(tmp_path / "none.toml")]) == 2
    assert "aqmlab: error: SWEEP.toml: no such file" in capsys.readouterr().err
    assert main(["--collect"]) == 2
    assert main(["--collect", "-o", str(tmp_path)]) == 2
    assert "not a sweep store (no manifest.json)" in capsys.readouterr().err
    with pytest.raises(SystemExit) as e:
        main(["s.toml", "--dask", "local", "--ray", "local"])
    assert e.value.code == 2


@pytest.mark.parametrize("mode, extra, message", [
    # Each was taken and changed nothing: --list and --collect run nothing (--collect does plot).
    (["--list"], ["--plot", "utilization"], "--plot: applies only without --list"),
    (["--list"], ["--collect"], "--collect: applies only without --list"),
    (["--list"], ["--workers", "2"], "--workers: applies only without --list"),
    (["--list"], ["--dask", "local"], "--dask: applies only without --list"),
    (["--list"], ["--traces"], "--traces: applies only without --list"),
    (["--collect"], ["--no-traces"], "--no-traces: applies only to running the sweep"),
    (["--collect"], ["--workers", "2"], "--workers: applies only to running the sweep"),
    (["--collect"], ["--ray"], "--ray: applies only to running the sweep"),
    (["--collect"], ["-q"], "--quiet: applies only to running the sweep"),
])
def test_options_of_a_run_are_refused_with_list_or_collect(tmp_path, capsys, mode, extra, message):
    path = write_sweep(tmp_path / "s.toml", SMALL)
    assert main([str(path), "-o", str(tmp_path / "store"), *mode, *extra]) == 2
    assert capsys.readouterr().err.startswith(f"aqmlab: error: {message}")
    assert not (tmp_path / "store").exists()


def test_list_run_collect_and_plot(tmp_path, capsys):
    path = write_sweep(tmp_path / "s.toml", SMALL)
    store = tmp_path / "store"
    assert main([str(path), "-o", str(store), "--list"]) == 0
    listing = capsys.readouterr().out.splitlines()
    assert len(listing) == 16 and all(" pending " in line for line in listing)
    assert main([str(path), "-o", str(store), "--workers", "2", "-q", "--plot", "qdelay_mean_s"]) == 0
    out = capsys.readouterr().out
    assert "16 completed, 0 failed" in out
    assert {p.name for p in (store / "plots").iterdir()} == {
        "qdelay_mean_s-vs-bottleneck_queue_limit.png", "qdelay_mean_s-heatmap-bottleneck_queue_limit-flows_0__count.png"}
    before = pd.read_parquet(store / "summary.parquet")
    (store / "summary.parquet").unlink()
    assert main(["--collect", "-o", str(store)]) == 0
    assert "collected 16 finished runs" in capsys.readouterr().out
    pd.testing.assert_frame_equal(pd.read_parquet(store / "summary.parquet"), before)
    assert main([str(path), "-o", str(store), "--list"]) == 0
    assert all(" ok " in line for line in capsys.readouterr().out.splitlines())


def test_a_profile_axis_warns_once_per_value_of_the_options_it_keeps(tmp_path, capsys):
    # Once silent: axis values and [set] edited the base without the warning of `aqmlab run --set`
    # when a new profile keeps an option the base gives (here an initial window of 4, against
    # ns-3's and Linux's 10). A saved base's other options, ns-2's defaults, give way, and the
    # warning names those too (once unannounced).
    import copy
    import warnings

    from aqmlab import AqmlabWarning, Scenario

    iw4 = copy.deepcopy(SMALL_BASE)
    iw4["flows"][0]["initial_cwnd"] = 4
    (tmp_path / "saved.toml").write_text(Scenario.from_dict(SMALL_BASE).to_toml())
    (tmp_path / "saved-iw4.toml").write_text(Scenario.from_dict(iw4).to_toml())
    axes = {**SMALL["axes"], "flows[0].profile": ["linux", "ns3"]}
    cases = [({"base": "saved-iw4.toml", "axes": axes}, 32, ["linux", "ns3"], ["linux", "ns3"]),
             ({"base": "saved-iw4.toml", "set": {"flows[0].profile": "ns3"}}, 16, ["ns3"], ["ns3"]),
             ({"base": iw4, "axes": axes}, 32, ["linux", "ns3"], []),
             ({"base": "saved.toml", "axes": axes}, 32, [], ["linux", "ns3"]),
             ({"base": SMALL_BASE, "axes": axes}, 32, [], [])]
    with warnings.catch_warnings():
        warnings.simplefilter("always", AqmlabWarning)  # shown each time: none is repeated per run
        for edit, runs, warned, took in cases:
            path = write_sweep(tmp_path / "s.toml", sweep_dict(**edit))
            assert main([str(path), "-o", str(tmp_path / "store"), "--list"]) == 0
            out, err = capsys.readouterr()
            assert len(out.splitlines()) == runs
            lines = err.splitlines()
            assert [line.partition(";")[0] for line in lines if " keeps the values " in line] == [
                f"aqmlab: warning: flows[0].profile: '{p}' keeps the values the scenario gives: initial_cwnd = 4 "
                "(its default: 10)" for p in warned], err
            assert len(lines) == len(set(warned) | set(took)), err
            assert [p for p in ("linux", "ns3") if any(line.startswith(f"aqmlab: warning: flows[0].profile: '{p}' ")
                    and " takes its defaults for " in line and "prr (false -> true), " in line for line in lines)] == took, err


def test_failed_runs_exit_1_and_are_listed(tmp_path, capsys, monkeypatch):
    path = write_sweep(tmp_path / "s.toml", SMALL)
    base_seed = Sweep.from_dict(SMALL).base_seed
    monkeypatch.setattr(runner, "execute", FailIf((("flows[0].count", 1), ("replication", 0)), base_seed))
    assert main([str(path), "-o", str(tmp_path / "store"), "--workers", "1", "-q"]) == 1
    captured = capsys.readouterr()
    assert "12 completed, 4 failed" in captured.out
    assert captured.err.count("failed: ScenarioError: injected_failure: unknown key") == 4


def test_the_example_sweep_runs_and_plots(tmp_path, capsys, monkeypatch):
    monkeypatch.chdir(tmp_path)
    assert main([str(example_path("droptail-buffer")), "--workers", "2", "-q", "--plot", "utilization"]) == 0
    df = load_results(tmp_path / "droptail-buffer-results")
    assert len(df) == 36 and (df["status"] == "ok").all()
    # Buffer sizing: a larger DropTail buffer means more queue delay (mean over flows and seeds).
    by_buffer = df.groupby("bottleneck.queue.limit")["qdelay_mean_s"].mean()
    assert by_buffer["10p"] < by_buffer["50p"] < by_buffer["200p"]
    assert len(list((tmp_path / "droptail-buffer-results" / "plots").glob("*.png"))) == 2


def test_confidence_interval_is_the_t_interval():
    mean, half = plots.confidence_interval(np.array([1.0, 2.0, 3.0]))
    assert mean == 2.0 and half == pytest.approx(stats.t.ppf(0.975, 2) * 1.0 / np.sqrt(3))
    assert np.isnan(plots.confidence_interval(np.array([4.0]))[1])


def test_plots_follow_grid_order_and_average_replications():
    df = pd.DataFrame({
        "point": [0, 0, 1, 1, 2, 2], "status": ["ok"] * 5 + ["error"],
        "limit": ["20p", "20p", "100p", "100p", "5p", "5p"], "flows": [1, 1, 1, 1, 2, 2],
        "qdelay_mean_s": [1.0, 3.0, 5.0, 7.0, 9.0, np.nan],
    })
    assert plots.grid_order(df, "limit") == ["20p", "100p", "5p"]
    fig = plots.heatmap(df, "limit", "flows", "qdelay_mean_s")
    image = fig.axes[0].images[0].get_array()
    assert image[0, 0] == 2.0 and image[0, 1] == 6.0 and np.ma.is_masked(image[1, 0])
    assert [t.get_text() for t in fig.axes[0].get_xticklabels()] == ["20p", "100p", "5p"]
    fig = plots.curves(df, "limit", "qdelay_mean_s")
    line = fig.axes[0].lines[0]
    assert list(line.get_ydata()) == [2.0, 6.0, 9.0]


def test_confidence_bands_of_a_non_negative_metric_stay_above_zero():
    # Two replications far apart: the t-interval's lower end is far below 0 (mean 2.55, half-width
    # about 31), which no delay can be; the band is cut at 0, the upper end kept.
    df = pd.DataFrame({"point": [0, 0], "status": ["ok", "ok"], "limit": [10, 10], "qdelay_mean_s": [0.1, 5.0]})
    fig = plots.curves(df, "limit", "qdelay_mean_s")
    band = fig.axes[0].collections[0].get_paths()[0].vertices
    mean, half = plots.confidence_interval(np.array([0.1, 5.0]))
    assert mean - half < 0 and band[:, 1].min() == 0.0 and band[:, 1].max() == pytest.approx(mean + half)


# One small grid point, one of hours: 100 Gb/s for 1000 s is about 5e10 events (api.check_size
# refuses a run over an hour at 5 M events/s).
HUGE = {"name": "huge", "base": SMALL_BASE, "set": {"duration": "1000s"},
        "axes": {"bottleneck.rate": ["1Mbps", "100Gbps"]}}


@pytest.mark.parametrize("mode", [["--list"], ["-q", "--workers", "1"]])
def test_a_run_of_hours_is_refused_before_any_run_unless_forced(tmp_path, capsys, mode):
    # Once listed as pending and refused only by its worker, after the others had run; and the
    # advice, --force, was not an option of `aqmlab sweep`.
    path = write_sweep(tmp_path / "s.toml", HUGE)
    assert main([str(path), "-o", str(tmp_path / "store"), *mode]) == 2
    err = capsys.readouterr().err
    assert err.startswith("aqmlab: error: axes: grid point bottleneck.rate = '100Gbps': bottleneck.rate: this run is "
                          "large: about "), err
    assert "pass --force (force=True)" in err and not (tmp_path / "store").exists()
    assert main([str(path), "-o", str(tmp_path / "store"), "--list", "--force"]) == 0
    assert len(capsys.readouterr().out.splitlines()) == 2


def test_force_reaches_every_run(tmp_path, monkeypatch):
    import aqmlab.api

    class Recording:
        def run(self, fn, tasks):
            self.tasks = list(tasks)
            yield from ()

    backend = Recording()
    runner.run_sweep(Sweep.from_dict(HUGE, force=True), tmp_path / "store", backend=backend, progress=False)
    assert [t.force for t in backend.tasks] == [True, True]
    # The worker runs each task with its force.
    seen = []
    monkeypatch.setattr(aqmlab.api, "run", lambda scn, **kw: seen.append(kw["force"]) or 1 / 0)
    from aqmlab.sweep.worker import execute

    for task in backend.tasks:
        execute(task)
    assert seen == [True, True]


def test_force_without_a_sweep_file_is_refused(tmp_path, capsys):
    assert main(["--collect", "-o", str(tmp_path), "--force"]) == 2
    assert capsys.readouterr().err.startswith("aqmlab: error: --force: applies only with a sweep file")
