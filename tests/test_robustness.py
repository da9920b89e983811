"""Issue 16 items 1-4, 6 and 7 (Python side), each with the command the issue reports.

Every bad input is a clear error naming the field and the accepted range, exit code 2, before
any work is done; metrics of an empty window are absent with a warning, never a perfect score.
"""

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
import tomli_w

import aqmlab
from aqmlab import AqmlabWarning, Scenario, ScenarioError
from aqmlab.sweep import Sweep
from support import small_scenario


def aqmlab_cli(*args, cwd=None, **kw):
    return subprocess.run([sys.executable, "-m", "aqmlab.cli", *map(str, args)], capture_output=True, text=True,
                          cwd=cwd, **kw)


def refused(out, message: str) -> None:
    """Exit 2 with one line naming the field, no traceback, nothing simulated."""
    assert out.returncode == 2, (out.returncode, out.stderr)
    assert out.stderr.startswith(f"aqmlab: error: {message}"), out.stderr
    assert "Traceback" not in out.stderr and "utilization" not in out.stdout


# ---- item 1: runs that would exhaust memory or take hours are refused, with the estimate ------

def test_a_run_of_hours_is_refused_with_its_estimate_and_runs_with_force():
    # pie-base at 1 Gb/s (1000-B packets) for 1e5 s: 1.25e10 segments at about 4 events each
    # (crates/sim/src/estimate.rs), 5e10 events, hours at 5 M events/s: refused unless forced.
    sets = ["--set", "bottleneck.rate=1Gbps", "--set", 'duration="100000s"']
    out = aqmlab_cli("run", "pie-base", *sets)
    refused(out, "bottleneck.rate: this run is large: about 5e+10 events")
    assert "at 5 M events/s" in out.stderr and "--force" in out.stderr and "TCP segments" in out.stderr
    # validate accepts exactly what run accepts, --force included.
    refused(aqmlab_cli("validate", "pie-base", *sets), "bottleneck.rate: this run is large")
    forced = aqmlab_cli("validate", "pie-base", *sets, "--force")
    assert forced.returncode == 0, forced.stderr
    assert "(estimated)" in forced.stderr


@pytest.mark.parametrize("overrides, message", [
    # 1e11 trace rows, terabytes: beyond the simulator's limit of 1e8 rows.
    (["traces.interval=1ns"], "traces.interval: 1 ns over 100 s would record 1.0e11 samples"),
    # A 1-ns retransmission timer keeps ~1e8 segments alive: gigabytes beyond the 8 GiB limit.
    (["flows[0].min_rto=\"1ns\"", "flows[0].initial_rto=\"1ns\"", "flows[0].max_rto=\"1ns\""],
     "flows[0].max_rto: a retransmission timer as short as 1 ns"),
])
def test_runs_beyond_the_simulators_limits_are_refused_even_with_force(overrides, message):
    sets = [a for o in overrides for a in ("--set", o)]
    refused(aqmlab_cli("run", "pie-base", *sets), message)
    refused(aqmlab_cli("validate", "pie-base", *sets, "--force"), message)


def test_poisson_arrivals_at_a_billion_per_second_are_refused():
    d = small_scenario()
    d["flows"].append({"type": "tcp", "rtt": "40ms", "start": "0s", "stop": "4s", "arrival_rate": 1e9, "size": "10KB"})
    with pytest.raises(ScenarioError, match=r"^flows\[2\]\.arrival_rate: 1000000000 arrivals per second over 4 s "
                                            r"would create ≈4\.0e9 flows"):
        aqmlab.run(d, progress=False)


# ---- item 2: tracebacks ----------------------------------------------------------------------

def test_duration_1e400s_in_set_files_from_dict_and_sweeps(tmp_path):
    message = "duration: 1e400s is outside the accepted range (0s, 1000000s]"
    refused(aqmlab_cli("run", "pie-base", "--set", "duration=1e400s"), message)
    p = tmp_path / "s.toml"
    p.write_text(tomli_w.dumps(small_scenario(duration="1e400s")))
    refused(aqmlab_cli("run", p), message)
    with pytest.raises(ScenarioError, match=r"^duration: 1e400s is outside"):
        Scenario.from_dict(small_scenario(duration="1e400s"))
    with pytest.raises(ScenarioError, match=r"^duration: inf is not|^duration: expected a duration"):
        Scenario.from_dict(small_scenario(duration=float("inf")))
    with pytest.raises(ScenarioError, match=r"^axes.duration\[0\]: value '1e400s': duration: 1e400s is outside"):
        Sweep.from_dict({"base": small_scenario(), "axes": {"duration": ["1e400s"]}})


@pytest.mark.parametrize("setting, message", [
    ("bottleneck.rate=1e30Mbps", "bottleneck.rate: 1e30Mbps is outside the accepted range [1bps, 1Tbps]"),
    ("duration=1e12s", "duration: 1e12s is outside the accepted range (0s, 1000000s]"),
    ("bottleneck.mtu=1e12", "bottleneck.mtu: 1000000000000.0 is outside the accepted range [41B, 65535B]"),
])
def test_validate_refuses_what_run_refuses(setting, message):
    # These passed `validate` and then failed in `run` with "expected u64".
    refused(aqmlab_cli("validate", "pie-base", "--set", setting), message)
    refused(aqmlab_cli("run", "pie-base", "--set", setting), message)


def test_what_validates_is_what_the_simulator_accepts():
    # Validation runs the simulator's own configuration checks, so a scenario that validates
    # always builds; the simulator refusing its own JSON is reported on the scenario's fields.
    from aqmlab import _core
    from aqmlab.scenario import user_path

    s = Scenario.from_dict(small_scenario())
    _core.Simulation(s.sim_json())
    bad = json.loads(s.sim_json())
    bad["flows"][0]["packet_size"] = 20
    with pytest.raises(ValueError, match=r"^flows\[0\]\.packet_size: must exceed"):
        _core.validate(json.dumps(bad))
    assert user_path("flows[0].transport.min_rto_ns") == "flows[0].min_rto"
    assert user_path("bottleneck.rate_schedule[2].at_ns") == "bottleneck.rate_schedule[2].at"
    assert user_path("traces.interval_ns") == "traces.interval"


def test_a_file_that_is_not_utf8_is_named(tmp_path):
    p = tmp_path / "latin1.toml"
    p.write_bytes('name = "Café"\n'.encode("latin-1"))
    refused(aqmlab_cli("validate", p), f"{p}: not a text file in UTF-8 (byte 11 is 0xe9)")


def test_run_pie_base_after_writing_results_to_a_folder_named_pie_base(tmp_path):
    first = aqmlab_cli("run", "pie-base", "-o", "pie-base", "-q", "--no-plots", cwd=tmp_path)
    assert first.returncode == 0, first.stderr
    second = aqmlab_cli("run", "pie-base", "-q", cwd=tmp_path)
    assert second.returncode == 0 and "Traceback" not in second.stderr
    # The directory cannot be a scenario file, so the built-in is meant: said so, with the way
    # to re-run the saved scenario instead.
    assert ("aqmlab: warning: 'pie-base' is a directory here; running the built-in scenario 'pie-base' "
            "(to run the scenario saved there, give pie-base/scenario.toml)") in second.stderr
    assert "scenario pie-base:" in second.stdout
    (tmp_path / "results").mkdir()
    refused(aqmlab_cli("run", "results", cwd=tmp_path), "'results' is a directory, not a scenario file")


def test_an_output_that_is_a_file_is_refused_before_the_run(tmp_path):
    target = tmp_path / "out.txt"
    target.write_text("keep me")
    # A run of over an hour (forced): the check has to come first, or this would not return.
    out = aqmlab_cli("run", "pie-base", "--set", "duration=\"1000000s\"", "--set", "traces.interval=1s", "--force",
                     "-o", target)
    refused(out, f"--output: {target} is a file: give a directory for the results")
    assert target.read_text() == "keep me"


def test_bench_nosuch():
    from aqmlab import _core, bench

    refused(aqmlab_cli("bench", "nosuch"), f"scenario: no benchmark named 'nosuch' (benchmarks: "
                                           f"{', '.join([*_core.BENCH_SCENARIOS, *bench.SAVED])})")


@pytest.mark.parametrize("args", [["scenarios"], ["validate", "pie-base"]])
def test_a_closed_pipe_ends_quietly(args):
    # `aqmlab scenarios | head -1`: the reader is gone before anything is written.
    p = subprocess.Popen([sys.executable, "-m", "aqmlab.cli", *args], stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    p.stdout.close()
    assert p.wait(timeout=120) == 141
    assert "Traceback" not in p.stderr.read().decode()
    p.stderr.close()


def test_ctrl_c_while_importing():
    # Ctrl-C lands while the command imports its libraries (`run` imports numpy after the
    # command line is parsed; `--help` imports none): simulated exactly by an import hook that
    # raises KeyboardInterrupt there.
    code = """
import sys
class CtrlC:
    def find_spec(self, name, path=None, target=None):
        if name == "numpy":
            raise KeyboardInterrupt
sys.meta_path.insert(0, CtrlC())
from aqmlab.cli import main
sys.exit(main(["run", "pie-base", "-q"]))
"""
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert out.returncode == 130 and out.stderr == "aqmlab: interrupted\n", out.stderr


# ---- item 3: error text that says what is wrong ----------------------------------------------

@pytest.mark.parametrize("setting, message", [
    ("bottleneck.queue.target=0.02", "bottleneck.queue.target: expected a duration like '20ms' (units: ns, us, µs, "
                                     "ms, s, min), got 0.02: a number needs a unit, e.g. '0.02s'"),
    ('bottleneck.queue.target="-5ms"', "bottleneck.queue.target: -5ms is outside the accepted range [1us, 10s]"),
    ("bottleneck.queue.tagret=\"5ms\"", "bottleneck.queue.tagret: unknown pie parameter (did you mean 'target'?)"),
    ("bottleneck.queue.hz=7", "bottleneck.queue.hz: expected an integer among 100, 250, 300, 1000 (Hz), got 7"),
])
def test_aqm_parameters_say_what_is_wrong_with_a_value(setting, message):
    # These were "unknown field": only unit strings reached the internal target_s / alpha_hz.
    refused(aqmlab_cli("validate", "pie-base", "--set", setting), message)


def test_aqm_parameters_take_their_documented_form():
    s = Scenario.load("pie-base").with_values({"bottleneck.queue.alpha": 0.2, "bottleneck.queue.target": "20ms"})
    q = s.sim_config["bottleneck"]["queue"]
    assert (q["alpha"], q["target"]) == (0.2, 20_000_000)
    assert (s.resolved["bottleneck"]["queue"]["alpha"], s.resolved["bottleneck"]["queue"]["target"]) == (0.2, "20ms")


@pytest.mark.parametrize("value", [float("nan"), float("inf"), -float("inf")])
def test_non_finite_numbers_in_a_queue_table(value):
    d = small_scenario()
    d["bottleneck"]["queue"] = {"type": "red", "w_q": value}
    with pytest.raises(ScenarioError, match=rf"^bottleneck.queue.w_q: {value!r} is not a finite number"):
        Scenario.from_dict(d)


@pytest.mark.parametrize("field, value, message", [
    ("duration", 0.02, "duration: expected a duration like '20ms' (units: ns, us, µs, ms, s, min), got 0.02: "
                       "a number needs a unit, e.g. '0.02s'"),
    ("duration", "-5ms", "duration: -5ms is outside the accepted range (0s, 1000000s]"),
    ("warmup", "5 parsecs", "warmup: expected a duration like '20ms' (units: ns, us, µs, ms, s, min), got "
                            "'5 parsecs': unknown unit 'parsecs'"),
    ("seed", -1, "seed: expected an integer in [0, 18446744073709551615], got -1"),
])
def test_a_bad_value_says_what_is_wrong_with_it(field, value, message):
    with pytest.raises(ScenarioError) as e:
        Scenario.from_dict(small_scenario(**{field: value}))
    assert str(e.value) == message


# ---- item 4: metrics of an empty window are absent, never a perfect score --------------------

def quiet_run(d):
    with pytest.warns(AqmlabWarning) as caught:
        r = aqmlab.run(d, progress=False)
    return r, [str(w.message) for w in caught]


def one_tcp(**flow) -> dict:
    d = small_scenario(traces={})
    d["flows"] = [{"type": "tcp", "count": 2, "rtt": "40ms", **flow}]
    return d


@pytest.mark.parametrize("name, mutate", [
    # (Flows that start after the end were a case here: they are refused now, see below.)
    ("stop before start", lambda d: d["flows"][0].update(start="2s", stop="1s")),
    ("loss 1.0", lambda d: d["bottleneck"].update(impairment={"loss": {"bernoulli": 1.0}})),
    ("limit 1B", lambda d: d["bottleneck"].update(queue={"type": "drop_tail", "limit": "1B"})),
    ("access 1bps", lambda d: d.update(access={"rate": "1bps"})),
])
def test_a_run_where_no_flow_sends_reports_no_fairness_and_no_delay(name, mutate, tmp_path):
    d = one_tcp()
    normal = aqmlab.run(d, progress=False).summary
    # The null control: the same scenario with flows that send has every figure.
    assert normal["jain_index"] > 0.5 and normal["qdelay_mean_s"] is not None and not normal["warnings"]
    mutate(d)
    r, warned = quiet_run(d)
    s = r.summary
    assert s["jain_index"] is None, name
    assert s["qdelay_mean_s"] is None and s["qdelay_p99_s"] is None, name
    assert any("no flow delivered data in the measured window" in w for w in warned), warned
    assert "Jain fairness       n/a" in r.text() and "queue delay         mean n/a ms" in r.text()
    r.save(tmp_path, plots=False)
    saved = json.loads((tmp_path / "summary.json").read_text())
    assert saved["jain_index"] is None and saved["warnings"] == s["warnings"]


# ---- item 6: warn or refuse ------------------------------------------------------------------

def refused_at(d: dict) -> str:
    with pytest.raises(ScenarioError) as e:
        Scenario.from_dict(d)
    return str(e.value)


def test_rate_schedule_steps_at_or_after_the_end_or_at_equal_times_refuse():
    # A step at or after the end was a warning, where target_schedule's was an error.
    d = small_scenario()
    for at in ("9s", "4s"):
        d["bottleneck"]["rate_schedule"] = [{"at": "1s", "rate": "5Mbps"}, {"at": at, "rate": "1Mbps"}]
        assert refused_at(d) == (f"bottleneck.rate_schedule[1].at: {at} is at or after the end of the run (4s): "
                                 "the change would never apply")
    d["bottleneck"]["rate_schedule"] = [{"at": "1s", "rate": "5Mbps"}, {"at": "1s", "rate": "1Mbps"}]
    with pytest.raises(ScenarioError, match=r"^bottleneck.rate_schedule\[1\].at: two steps at 1s: which rate applies "
                                            r"is ambiguous"):
        Scenario.from_dict(d)


def test_overlapping_outages_and_outages_after_the_end_refuse():
    d = small_scenario()
    d["bottleneck"]["impairment"] = {"outages": [["1s", "2s"], ["1500ms", "3s"]]}
    with pytest.raises(ScenarioError, match=r"^bottleneck.impairment.outages\[1\]: outages must be in time order and "
                                            r"must not overlap \(the previous one ends at 2s\)"):
        Scenario.from_dict(d)
    # Once a warning: the outage never happened.
    d["bottleneck"]["impairment"] = {"outages": [["1s", "2s"], ["5s", "6s"]]}
    assert refused_at(d) == ("bottleneck.impairment.outages[1]: 5s is at or after the end of the run (4s): "
                             "the outage would never happen")
    d["bottleneck"]["impairment"] = {"outages": [["1s", "2s"], ["3s", "6s"]]}  # under way at the end: it happens
    Scenario.from_dict(d)


@pytest.mark.parametrize("start, message", [
    ("10s", "flows[0].start: 10s is at or after the end of the run (4s): the group would never send"),
    ("4s", "flows[0].start: 4s is at or after the end of the run (4s): the group would never send"),
    ({"uniform": ["4s", "6s"]}, "flows[0].start: 4s is at or after the end of the run (4s): the group would never send"),
    (["0s", "1s", "5s"], "flows[0].start[2]: 5s is at or after the end of the run (4s): that flow would never send"),
])
def test_flows_starting_at_or_after_the_end_refuse(start, message):
    # Once a warning, and only when the whole group started late (one late flow of a list: nothing).
    d = small_scenario()
    d["flows"][0]["start"] = start
    assert refused_at(d) == message
    d["flows"][0]["start"] = {"uniform": ["3s", "6s"]}  # some of a range's draws fall within the run
    Scenario.from_dict(d)


@pytest.mark.parametrize("queue, path", [
    ({"type": "codel", "target": "200ms", "interval": "100ms"}, "bottleneck.queue.target"),
    ({"type": "fq_codel", "codel": {"target": "100ms"}}, "bottleneck.queue.codel.target"),
])
def test_codel_target_above_its_interval_is_refused(queue, path):
    d = small_scenario()
    d["bottleneck"]["queue"] = queue
    with pytest.raises(ScenarioError, match=rf"^{path}: .* is not below the interval \(100ms\)"):
        Scenario.from_dict(d)


def test_rack_without_sack_is_refused_and_a_profile_rack_follows_sack():
    with pytest.raises(ScenarioError, match=r"^flows\[0\]\.rack: RACK-TLP needs SACK \(RFC 8985 §2\)"):
        Scenario.from_dict(one_tcp(rack=True, sack=False))
    # The linux profile runs RACK; turning its SACK off turns its RACK off, visibly.
    s = Scenario.from_dict(one_tcp(profile="linux", sack=False))
    assert s.resolved["flows"][0]["rack"] is False and s.sim_config["flows"][0]["transport"]["rack"] is False


# ---- item 7: reusing an output folder --------------------------------------------------------

def test_an_output_folder_is_cleared_of_the_previous_run_and_foreign_files_need_force(tmp_path):
    out = tmp_path / "res"
    d = small_scenario()
    first = aqmlab_cli("run", write(tmp_path / "a.toml", d), "-o", out, "-q", "--no-plots")
    assert first.returncode == 0 and (out / "traces" / "tcp.parquet").exists()
    d["traces"] = {"queue": True}
    second = aqmlab_cli("run", write(tmp_path / "b.toml", d), "-o", out, "-q", "--no-plots")
    assert second.returncode == 0, second.stderr
    # Only the new run's files (the always-on delay histograms among them, and every queue's
    # trace beside the bottleneck's): the previous run's tcp trace is gone.
    assert sorted(p.name for p in (out / "traces").iterdir()) == [
        "delay_histogram.parquet", "flows.parquet", "link_delay_histogram.parquet", "link_queue.parquet",
        "queue.parquet"]
    (out / "notes.txt").write_text("mine")
    refused(aqmlab_cli("run", tmp_path / "b.toml", "-o", out, "-q", "--no-plots"),
            f"--output: {out} is not empty and does not hold an aqmlab run (notes.txt)")
    forced = aqmlab_cli("run", tmp_path / "b.toml", "-o", out, "-q", "--no-plots", "--force")
    assert forced.returncode == 0 and (out / "notes.txt").read_text() == "mine"


def _main_refused(capsys, argv: list, message: str) -> None:
    from aqmlab.cli import main

    assert main([str(a) for a in argv]) == 2
    err = capsys.readouterr().err
    assert err.startswith(f"aqmlab: error: {message}"), err


def test_reproduce_and_characterize_write_only_where_run_would(tmp_path, capsys):
    # Once both wrote into any directory: over a run's report.html, or beside unrelated files.
    from aqmlab.cli import main

    ran, reproduced, characterized = tmp_path / "ran", tmp_path / "reproduced", tmp_path / "characterized"
    assert main(["run", str(write(tmp_path / "a.toml", small_scenario())), "-o", str(ran), "-q", "--no-plots"]) == 0
    page = (ran / "report.html").read_bytes()
    aqm = tmp_path / "pie.toml"
    aqm.write_text('type = "pie"\n')
    characterize = ["characterize", aqm, "--quick", "--against", "", "--only", "transports", "--workers", "1", "-q",
                    "-o"]
    foreign = "scenario.toml, sim_config.json, summary.json, traces"
    _main_refused(capsys, ["reproduce", "pi01-design", "-o", ran],
                  f"--output: {ran} is not empty and does not hold an aqmlab reproduction ({foreign})")
    _main_refused(capsys, [*characterize, ran],
                  f"--output: {ran} is not empty and does not hold an aqmlab characterization ({foreign})")
    assert (ran / "report.html").read_bytes() == page
    # Each reuses a directory of its own output, and refuses the other's, even where the names
    # of the files are the same (report.html and results.json of a reproduction).
    for _ in range(2):
        assert main(["reproduce", "pi01-design", "-o", str(reproduced)]) == 0
        assert main([str(a) for a in [*characterize, characterized]]) == 0
    _main_refused(capsys, [*characterize, reproduced],
                  f"--output: {reproduced} is not empty and does not hold an aqmlab characterization (results.json)")
    _main_refused(capsys, ["reproduce", "pi01-design", "-o", characterized],
                  f"--output: {characterized} is not empty and does not hold an aqmlab reproduction (results.json, "
                  "runs.parquet)")
    _main_refused(capsys, ["run", tmp_path / "a.toml", "-o", reproduced], f"--output: {reproduced} is not empty and "
                  "does not hold an aqmlab run (results.json)")
    # --force writes beside the other files, replacing only the command's own.
    assert main(["reproduce", "pi01-design", "-o", str(ran), "--force"]) == 0
    assert (ran / "report.html").read_bytes() != page and (ran / "summary.json").is_file()


def write(path: Path, d: dict) -> Path:
    path.write_text(tomli_w.dumps(d))
    return path


# ---- issue 13 item 11: flows named by their group, Poisson arrivals included -----------------

def test_flows_after_a_poisson_group_keep_their_names():
    d = small_scenario(traces={})
    d["flows"] = [
        {"name": "web", "type": "tcp", "rtt": "40ms", "start": "0s", "stop": "3s", "arrival_rate": 20.0, "size": "20KB"},
        {"name": "bulk", "type": "tcp", "count": 2, "rtt": "40ms"},
        {"name": "voip", "type": "udp", "rate": "64kbps", "rtt": "40ms"},
    ]
    flows = aqmlab.run(d, progress=False).flow_rows()
    groups = [f["group"] for f in flows]
    # About 60 arrivals, each its own flow of group 0, then the bulk flows and the CBR source.
    assert groups.count(0) > 20 and groups[-3:] == [1, 1, 2]
    names = {"web": 0, "bulk": 1, "voip": 2}
    assert all(names[f["name"]] == f["group"] for f in flows)
    assert [f["tcp"] for f in flows if f["name"] == "voip"] == [False]
