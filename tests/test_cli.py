"""The aqmlab command line, run as a user would."""

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
import tomli_w

from support import small_scenario

SUBCOMMANDS = ["run", "validate", "scenarios", "bench", "fluid", "design", "margins", "sweep", "reproduce", "compare"]


def aqmlab(*args, **kw):
    return subprocess.run([sys.executable, "-m", "aqmlab.cli", *map(str, args)], capture_output=True, text=True, **kw)


def test_help_lists_every_subcommand():
    out = aqmlab("--help")
    assert out.returncode == 0
    for cmd in SUBCOMMANDS:
        assert cmd in out.stdout


@pytest.mark.parametrize("cmd", SUBCOMMANDS)
def test_each_subcommand_has_help(cmd):
    out = aqmlab(cmd, "--help")
    assert out.returncode == 0, out.stderr
    assert "usage: aqmlab " + cmd in out.stdout


@pytest.fixture
def scenario_file(tmp_path):
    p = tmp_path / "small.toml"
    p.write_text(tomli_w.dumps(small_scenario()))
    return p


def test_run_writes_results(scenario_file, tmp_path):
    out = aqmlab("run", scenario_file, "-o", tmp_path / "res", "--set", "bottleneck.rate=20Mbps", "--seed", "5")
    assert out.returncode == 0, out.stderr
    assert "utilization" in out.stdout and "queue delay" in out.stdout
    summary = json.loads((tmp_path / "res" / "summary.json").read_text())
    assert summary["scenario"] == "small"
    resolved = (tmp_path / "res" / "scenario.toml").read_text()
    assert 'rate = "20Mbps"' in resolved and "seed = 5" in resolved
    assert (tmp_path / "res" / "plots" / "overview.png").exists()


@pytest.mark.parametrize("cmd", ["validate", "run"])
def test_set_profile_resolves_as_the_file_saying_it_would(cmd, tmp_path):
    # Once ignored: --set edited the resolved scenario, every TCP option already filled in
    # from the old profile, so `flows[0].profile = "linux"` still ran NewReno.
    import tomllib

    from aqmlab.scenario import BUILTIN_DIR

    sets = ['flows[0].profile="linux"', 'bottleneck.queue.profile="linux"', "duration=2s", "warmup=0s"]
    written = tomllib.loads((BUILTIN_DIR / "pie-base.toml").read_text())
    written["flows"][0]["profile"] = written["bottleneck"]["queue"]["profile"] = "linux"
    written["duration"], written["warmup"] = "2s", "0s"
    (tmp_path / "linux.toml").write_text(tomli_w.dumps(written))
    argv = [a for s in sets for a in ("--set", s)]
    if cmd == "run":
        outs = [aqmlab("run", "pie-base", *argv, "-o", tmp_path / "set", "--no-plots", "--no-report"),
                aqmlab("run", tmp_path / "linux.toml", "-o", tmp_path / "file", "--no-plots", "--no-report")]
        got, want = (tomllib.loads((tmp_path / d / "scenario.toml").read_text()) for d in ("set", "file"))
    else:
        outs = [aqmlab("validate", "pie-base", *argv), aqmlab("validate", tmp_path / "linux.toml")]
        got, want = (tomllib.loads(o.stdout) for o in outs)
    assert all(o.returncode == 0 for o in outs), [o.stderr for o in outs]
    assert got == want
    assert (got["flows"][0]["cc"], got["bottleneck"]["queue"]["target"]) == ("cubic", "15ms")


@pytest.mark.parametrize("sets, table, want", [
    (["bottleneck.reverse_queue.limit=500p"], ("bottleneck", "reverse_queue"), {"type": "drop_tail", "limit": "500p"}),
    (["access.rate=100Mbps", "access.queue.limit=50p"], ("access",),
     {"rate": "100Mbps", "overhead": "0B", "device_queue": 0, "queue": {"type": "drop_tail", "limit": "50p"}}),
])
def test_set_inside_a_table_the_file_leaves_out_keeps_its_default(sets, table, want):
    # Once `error: bottleneck.reverse_queue.type: is required`: the table started empty.
    import tomllib

    out = aqmlab("validate", "pie-base", *[a for s in sets for a in ("--set", s)])
    assert out.returncode == 0, out.stderr
    got = tomllib.loads(out.stdout)
    for key in table:
        got = got[key]
    assert got == want


@pytest.mark.parametrize("profile", ['flows[0].profile="linux"', 'bottleneck.queue.profile="linux"'])
def test_set_profile_on_a_saved_scenario_brings_its_defaults(tmp_path, profile):
    # Once the saved file's every option (the old profile's defaults among them) overrode the new
    # profile: `--set bottleneck.queue.profile="linux"` kept the paper's 20 ms / 30 ms, silently.
    (tmp_path / "scenario.toml").write_text(aqmlab("validate", "pie-base").stdout)
    out = aqmlab("validate", tmp_path / "scenario.toml", "--set", profile)
    assert out.returncode == 0, out.stderr
    assert out.stdout == aqmlab("validate", "pie-base", "--set", profile).stdout
    # What gave way is named (what the file saved may have given on purpose); nothing is kept.
    assert f"aqmlab: warning: {profile.partition('=')[0]}: 'linux' takes its defaults for " in out.stderr
    assert " keeps the values " not in out.stderr


@pytest.mark.parametrize("argv, message", [
    (["run", "pie-base", "--seed", "x"], "argument --seed: invalid int value: 'x'"),
    (["sweep", "s.toml", "--workers", "2", "--dask", "local"], "argument --dask: not allowed with argument --workers"),
])
def test_argparse_errors_take_the_one_form_after_the_usage(argv, message, capsys):
    # Once `aqmlab run: error: ...`, `aqmlab sweep: error: ...`: argparse's own prefix.
    from aqmlab.cli import main

    with pytest.raises(SystemExit) as e:
        main(argv)
    assert e.value.code == 2
    err = capsys.readouterr().err
    assert err.startswith("usage: aqmlab") and err.splitlines()[-1].startswith(f"aqmlab: error: {message}"), err


def test_fluid_refuses_a_seed():
    # Once accepted and ignored: the fluid model draws nothing.
    out = aqmlab("fluid", "pie-base", "--seed", "3")
    assert out.returncode == 2 and out.stdout == ""
    assert out.stderr.startswith("aqmlab: error: --seed: applies only to packet-level runs (the fluid model has no "
                                 "randomness")
    # The same through --set (it was still accepted and ignored).
    out = aqmlab("fluid", "pie-base", "--set", "seed=3")
    assert out.returncode == 2 and out.stdout == ""
    assert out.stderr.startswith("aqmlab: error: --set seed: applies only to packet-level runs")


def _option_help(command: str, option: str) -> str:
    import argparse

    from aqmlab.cli import build_parser

    commands = next(a for a in build_parser()._actions if isinstance(a, argparse._SubParsersAction))
    return next(a.help for a in commands.choices[command]._actions if option in a.option_strings)


def test_help_of_options_shared_with_run_says_what_run_says():
    # xval's and live's --set edit the scenario as run's does; live's --no-plots, like run's, needs -o.
    assert _option_help("xval", "--set") == _option_help("run", "--set")
    assert _option_help("live", "--set") == _option_help("run", "--set")
    assert _option_help("live", "--no-plots") == _option_help("run", "--no-plots")


def test_bad_scenario_is_a_clear_error(tmp_path):
    p = tmp_path / "bad.toml"
    d = small_scenario()
    d["bottleneck"]["delay"] = "soon"
    p.write_text(tomli_w.dumps(d))
    out = aqmlab("run", p)
    assert out.returncode == 2
    assert "bottleneck.delay: expected a duration like '20ms'" in out.stderr
    assert "Traceback" not in out.stderr
    missing = aqmlab("run", tmp_path / "absent.toml")
    assert missing.returncode == 2 and "no scenario file" in missing.stderr


@pytest.mark.parametrize("argv", [
    ["fluid", "pie-base", "-o"], ["margins", "pie", "-o"], ["compare", "RUN", "-o"],
    ["reproduce", "pie13-fig13", "--quick", "-o"],
])
def test_an_output_path_through_a_file_is_refused_before_any_work(argv, tmp_path):
    # Once a FileExistsError after the work (the fluid model solved, the reproduction run).
    blocker = tmp_path / "afile"
    blocker.write_text("")
    for out in (blocker, blocker / "below"):
        result = aqmlab(*[str(tmp_path) if a == "RUN" else a for a in argv], out)
        assert result.returncode == 2, result.stderr
        assert "is a file: give a directory for the results" in result.stderr and "Traceback" not in result.stderr


@pytest.mark.parametrize("overrides, message", [
    # Once a Rust allocation failure (a 100 GB delay history) that aborted the process:
    (["--set", "bottleneck.rate=1bps"], "history steps"),
    # Once a ValueError traceback: the flows all stop, the fluid model's flow count reaches 0.
    # Then an error naming the model's parameter, flows_schedule, rather than the field.
    (["--set", 'flows[0].stop="1s"'], "aqmlab: error: flows[0].stop: every flow has stopped at 1s"),
])
def test_fluid_inputs_the_model_cannot_take_are_clear_errors(overrides, message):
    result = aqmlab("fluid", "pie-base", "--set", "duration=5s", "--set", "warmup=0s", *overrides)
    assert result.returncode == 2, result.stderr
    assert message in result.stderr and "Traceback" not in result.stderr


@pytest.mark.parametrize("flag", ["--csv", "--no-plots", "--no-report"])
def test_output_options_without_an_output_directory_are_refused_before_the_run(flag):
    # Once accepted and ignored: without -o nothing is written, so there was nothing to change.
    result = aqmlab("run", "pie-base", flag)
    assert result.returncode == 2, result.stderr
    assert f"aqmlab: error: {flag}: applies only with -o" in result.stderr
    assert result.stdout == ""  # no run


def test_validate_prints_resolved_toml(scenario_file):
    out = aqmlab("validate", scenario_file)
    assert out.returncode == 0
    assert 'min_rto = "200ms"' in out.stdout


def cpu_seconds(pid: int) -> float:
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


@pytest.mark.skipif(not Path("/proc/self/stat").exists(), reason="reads the run's CPU time from /proc")
def test_ctrl_c_stops_cleanly_and_keeps_results(tmp_path):
    # 100 flows at 1 Gb/s for 2000 s: minutes of work, so the signal lands mid-run.
    d = small_scenario(duration="2000s", warmup="0s")
    d["bottleneck"]["rate"] = "1Gbps"
    d["bottleneck"]["queue"]["limit"] = "5000p"
    d["flows"][0]["count"] = 100
    d["traces"] = {"queue": True}
    p = tmp_path / "long.toml"
    p.write_text(tomli_w.dumps(d))
    proc = subprocess.Popen([sys.executable, "-m", "aqmlab.cli", "run", str(p), "-q", "-o", str(tmp_path / "res")],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    # Mid-run: once the process has used 5 s of CPU (start-up and validation take about 2, the
    # run minutes), however busy the machine is.
    deadline = time.monotonic() + 300
    while cpu_seconds(proc.pid) < 5:
        assert proc.poll() is None and time.monotonic() < deadline, proc.communicate()
        time.sleep(0.1)
    proc.send_signal(signal.SIGINT)
    # Generous: writing the results (Parquet, plots, report.html) is slow on a loaded machine.
    stdout, stderr = proc.communicate(timeout=300)
    assert proc.returncode == 130, stderr
    assert "(interrupted)" in stdout
    summary = json.loads((tmp_path / "res" / "summary.json").read_text())
    assert summary["interrupted"] and 0 < summary["time_s"] < 2000


def test_bench_prints_figures():
    out = aqmlab("bench", "tcp5-10M-100s", env={**os.environ})
    assert out.returncode == 0, out.stderr
    line = next(l for l in out.stdout.splitlines() if l.startswith("tcp5-10M-100s"))
    fields = line.split()
    assert float(fields[4]) > 0  # delivered packets per second
