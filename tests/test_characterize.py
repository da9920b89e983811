"""`aqmlab characterize` (issue 20): the quick report card end to end, checked in headless
Chromium, and the command's errors."""

import json
import shutil
import subprocess
import sys

import pytest

from aqmlab.characterize import CRITERIA, EXPERIMENTS, QUICK
from aqmlab.characterize.runner import jobs
from aqmlab.cli import main


def test_every_quick_variant_validates_for_every_baseline():
    from aqmlab import Scenario

    aqms = {q: {"type": q} for q in ("pie", "codel", "fq_codel", "drop_tail")}
    todo = jobs(aqms, QUICK)
    assert {j.experiment for j in todo} == {e.key for e in EXPERIMENTS}
    for j in todo:
        if j.seed == 1:
            Scenario.from_dict(j.scenario)


def test_quick_report_card(tmp_path):
    aqm = tmp_path / "pie.toml"
    aqm.write_text('type = "pie"\nprofile = "rfc"\n')
    out = tmp_path / "out"
    assert main(["characterize", str(aqm), "--quick", "-o", str(out), "-q", "--workers", "2"]) == 0
    doc = json.loads((out / "results.json").read_text())
    # The pie baseline resolves to the tested table (rfc is PIE's default profile): run once.
    assert list(doc["aqms"]) == ["pie", "codel", "fq_codel", "drop_tail"]
    assert doc["repeats"] == {"pie": "pie"}
    assert set(doc["summary"]) == {c.key for c in CRITERIA}
    assert not doc["errors"]
    # Discriminating: DropTail's 4-BDP buffer fails the delay criterion every AQM is built for.
    assert doc["summary"]["latency"]["drop_tail"]["verdict"] == "fail"
    assert doc["summary"]["latency"]["pie"]["verdict"] == "pass"
    # DropTail has no FQ form and no time parameter to sweep.
    assert doc["summary"]["fq_voip"]["drop_tail"]["verdict"] == "n/a"
    assert (out / "runs.parquet").stat().st_size > 0
    page = (out / "report.html").read_text()
    assert page.index("id='summary'") < page.index("<h2")
    assert "Baseline pie has the same configuration as pie" in page
    chromium = shutil.which("chromium") or shutil.which("chromium-browser")
    if chromium is None:
        pytest.skip("no headless Chromium on this machine")
    dom = subprocess.run([chromium, "--headless", "--no-sandbox", "--disable-gpu", "--virtual-time-budget=5000",
                          "--dump-dom", (out / "report.html").as_uri()], capture_output=True, text=True, timeout=120)
    assert 'data-images="ok:' in dom.stdout, dom.stderr[-2000:]
    n = int(dom.stdout.split('data-images="ok:')[1].split('"')[0])
    assert n >= len(EXPERIMENTS)


def test_a_baseline_equal_to_the_tested_discipline_runs_once():
    from aqmlab.characterize.cli import with_baselines

    # Equal once resolved: the same type with its defaults spelled out, or in other units.
    for same in ({"type": "pie"}, {"type": "pie", "profile": "rfc"}, {"type": "pie", "target": "15000us"}):
        aqms, repeats = with_baselines("mine", same, ["pie", "codel"])
        assert (list(aqms), repeats) == (["mine", "codel"], {"pie": "mine"}), same
    # Different: another profile, another parameter, another discipline.
    for other in ({"type": "pie", "profile": "linux"}, {"type": "pie", "target": "20ms"}, {"type": "codel", "target": "1ms"}):
        aqms, repeats = with_baselines("pie", other, ["pie", "codel"])
        assert (list(aqms), repeats) == (["pie", "pie (baseline)", "codel"], {}), other
    # A table that does not validate is never taken for a baseline (its runs name the error).
    aqms, repeats = with_baselines("bad", {"type": "pie", "target": "-3ms"}, ["pie"])
    assert (list(aqms), repeats) == (["bad", "pie"], {})


def test_errors_are_named(tmp_path, capsys):
    aqm = tmp_path / "bad.toml"
    aqm.write_text('type = "pie"\ntarget = "-3ms"\n')
    assert main(["characterize", str(aqm), "--quick", "--against", "", "-o", str(tmp_path / "o")]) == 2
    assert "target" in capsys.readouterr().err
    assert main(["characterize", str(aqm), "--only", "nonsense"]) == 2
    assert "no experiment 'nonsense'" in capsys.readouterr().err
    good = tmp_path / "pie.toml"
    good.write_text('type = "pie"\n')
    assert main(["characterize", str(good), "--threshold", "latency=abc"]) == 2
    assert "--threshold latency: expected a number" in capsys.readouterr().err


@pytest.mark.parametrize("argv", [["--workers", "2", "--dask", "local:2"], ["--workers", "2", "--ray"]])
def test_workers_with_a_cluster_is_refused(tmp_path, capsys, argv):
    # Once accepted: the cluster ran the experiments and --workers was ignored.
    aqm = tmp_path / "pie.toml"
    aqm.write_text('type = "pie"\n')
    with pytest.raises(SystemExit) as e:
        main(["characterize", str(aqm), *argv])
    assert e.value.code == 2
    assert f"argument {argv[2]}: not allowed with argument --workers" in capsys.readouterr().err


@pytest.mark.parametrize("item, accepted", [
    ("latency=-1", "a number in [0, inf) (ms)"), ("latency=inf", "a number in [0, inf) (ms)"),
    ("latency=nan", "a number in [0, inf) (ms)"),
    # A fraction given as a percentage would fail every discipline.
    ("goodput=90", "a number in [0, 1]"), ("bidirectional=-0.5", "a number in [0, 2] (x C)"),
])
def test_thresholds_out_of_range_are_refused(tmp_path, capsys, item, accepted):
    aqm = tmp_path / "pie.toml"
    aqm.write_text('type = "pie"\n')
    assert main(["characterize", str(aqm), "--threshold", item, "-o", str(tmp_path / "o")]) == 2
    key, _, value = item.partition("=")
    assert f"--threshold {key}: expected {accepted}, got {value!r}" in capsys.readouterr().err
    assert not (tmp_path / "o").exists()


def test_a_cluster_package_that_is_missing_is_named(tmp_path, capsys, monkeypatch):
    # Once a ModuleNotFoundError traceback (sweep named the extra to install; characterize did not).
    monkeypatch.setitem(sys.modules, "dask", None)
    aqm = tmp_path / "pie.toml"
    aqm.write_text('type = "pie"\n')
    assert main(["characterize", str(aqm), "--quick", "--dask", "local:1", "-o", str(tmp_path / "o")]) == 2
    assert "--dask: dask is not installed (pip install 'aqmlab[sweep-dask]')" in capsys.readouterr().err


def _refused_against(tmp_path, against: str):
    """Characterizes a default PIE against ``against``, which must be refused (exit 2); the
    output directory it would have written."""
    aqm = tmp_path / "pie.toml"
    aqm.write_text('type = "pie"\n')
    out = tmp_path / "o"
    assert main(["characterize", str(aqm), "--quick", "--against", against, "--only", "transports",
                 "--workers", "1", "-q", "-o", str(out)]) == 2
    return out


@pytest.mark.parametrize("against, named", [
    # Once accepted: every experiment ran, exit 0, the error only inside results.json.
    ("nosuch", "got 'nosuch'"), ("CoDel", "got 'CoDel' (did you mean 'codel'?)"), ("codel,,pie", "got ''"),
    # A discipline that cannot run with its defaults alone (it needs its priority classes).
    ("strict_priority", "got 'strict_priority'"),
])
def test_an_unknown_baseline_is_refused_before_any_run(tmp_path, capsys, against, named):
    out = _refused_against(tmp_path, against)
    err = capsys.readouterr().err
    assert err.startswith("aqmlab: error: --against: expected comma-separated disciplines among "), err
    assert "'codel', 'drop_tail'" in err and named in err
    assert not out.exists()


@pytest.mark.parametrize("against, twice", [
    # Once run twice, as "codel" and "codel (baseline)".
    ("codel,codel", "'codel' and 'codel'"), (" pie , pie", "'pie' and 'pie'"),
    # Two spellings of one discipline are the same baseline.
    ("drop_tail,fifo", "'drop_tail' and 'fifo'"),
])
def test_a_baseline_named_twice_is_refused(tmp_path, capsys, against, twice):
    out = _refused_against(tmp_path, against)
    assert f"aqmlab: error: --against: {twice} name the same baseline (each runs once)" in capsys.readouterr().err
    assert not out.exists()


def test_a_baseline_variant_that_does_not_validate_is_refused(tmp_path, capsys, monkeypatch):
    # Once only the tested discipline's variants were checked: a baseline's were run, and failed.
    from dataclasses import replace

    import aqmlab.characterize.runner as runner

    real = runner.jobs

    def broken(aqms, scale, only=None):
        return [replace(j, scenario={**j.scenario, "duration": "-1s"}) if j.aqm == "codel" else j
                for j in real(aqms, scale, only)]

    monkeypatch.setattr(runner, "jobs", broken)
    aqm = tmp_path / "pie.toml"
    aqm.write_text('type = "pie"\n')
    out = tmp_path / "o"
    assert main(["characterize", str(aqm), "--quick", "--against", "codel", "--only", "transports",
                 "--workers", "1", "-q", "-o", str(out)]) == 2
    assert "aqmlab: error: --against codel: transports (tcp-friendly): duration: " in capsys.readouterr().err
    assert not out.exists()
