"""`aqmlab bench --vs-ns3` (issue 22 item 5): without the ns3 wheel, a clear error naming the
install command; with it, each side's run-loop time for every pair and the ratio. Figures are
checked for presence and consistency, never against a speed (benchmarks print speeds)."""

import importlib.util
import math

import pytest

from aqmlab import bench
from aqmlab.cli import main


def test_without_the_wheel_names_the_install_command(monkeypatch, capsys):
    real = importlib.util.find_spec
    monkeypatch.setattr(importlib.util, "find_spec", lambda name, *a: None if name == "ns3" else real(name, *a))
    assert main(["bench", "--vs-ns3", "pfifo-newreno", "--pairs", "1"]) == 2
    assert "pip install 'aqmlab[ns3]'" in capsys.readouterr().err


@pytest.mark.parametrize("argv, field", [(["bench", "--vs-ns3", "tcp5-10M-100s"], "scenario"),
                                         (["bench", "--vs-ns3", "--pairs", "0"], "--pairs")])
def test_bad_arguments_name_the_field(argv, field, capsys):
    assert main(argv) == 2
    assert field in capsys.readouterr().err


def test_pairs_without_vs_ns3_is_refused(capsys):
    # Once ignored: a plain bench runs no pairs, and took --pairs 5 (or --pairs 0) silently.
    for pairs in ("5", "3", "0"):
        assert main(["bench", "no-such-benchmark", "--pairs", pairs]) == 2
        err = capsys.readouterr().err
        assert "aqmlab: error: --pairs: applies only with --vs-ns3" in err and "Traceback" not in err


def test_plain_bench_says_where_its_ns3_figure_comes_from():
    assert "not measured here" in bench.NS3_SOURCE and "2026-" in bench.NS3_SOURCE


@pytest.mark.skipif(importlib.util.find_spec("ns3") is None, reason="the ns3 wheel is not installed")
def test_measures_both_sides_in_pairs(capsys):
    (row,) = bench.vs_ns3(["pfifo-newreno"], pairs=2)
    assert len(row["aqmlab"]) == len(row["ns3"]) == 2
    for side in row["aqmlab"] + row["ns3"]:
        assert math.isfinite(side["cpu_s"]) and side["cpu_s"] > 0 and side["wall_s"] > 0
    assert row["packets"] > 0
    lo, hi = row["ratio_cpu"]
    assert 0 < lo <= hi
    assert "pfifo-newreno" in capsys.readouterr().out
