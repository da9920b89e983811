"""What live runs accept of a scenario: every inexpressible field is an error naming it,
before any namespace is built (no root needed here)."""

import pytest

from aqmlab.errors import ScenarioError
from aqmlab.live import plan
from aqmlab.live.plan import goodput_ceiling_bps
from aqmlab.live.system import effective_capabilities, missing_capabilities


def base(**flow) -> dict:
    return {"name": "p", "duration": "2s",
            "bottleneck": {"rate": "10Mbps", "delay": "10ms", "queue": {"type": "pie", "target": "20ms"}},
            "flows": [{"type": "tcp", "count": 2, "rtt": "40ms", "profile": "linux", **flow}]}


@pytest.mark.parametrize("edit, field", [
    (lambda d: d.update(access={"rate": "100Mbps"}), "access.rate"),
    (lambda d: (d["bottleneck"].update(queue={"type": "pvpie"}), d["flows"][0].update(marker={"tvf": "gold"})),
     "bottleneck.queue.type"),
    (lambda d: d["flows"][0].update(prr=False), "flows[0].prr"),
    (lambda d: d["flows"][0].update(initial_cwnd=4), "flows[0].initial_cwnd"),
    (lambda d: d["flows"][0].update(size="30KB"), "flows[0].size"),
    (lambda d: d["flows"][0].update(packet_size="60B"), "flows[0].packet_size"),
    (lambda d: d["flows"][0].update(ecn="dctcp"), "flows[0].ecn"),
    (lambda d: d["flows"].append({"type": "tcp", "rtt": "40ms", "profile": "linux", "ecn": True}), "flows[1].ecn"),
    (lambda d: d["flows"].append({"type": "tcp", "rtt": "40ms", "profile": "linux", "packet_size": "1500B"}), "flows[1].packet_size"),
    (lambda d: d["flows"].append({"type": "udp", "rate": "1Mbps", "rtt": "40ms", "packet_size": "1400B"}), "flows[1].packet_size"),
    (lambda d: d["flows"][0].update(count=1001), "flows"),
])
def test_inexpressible_fields_are_named(edit, field):
    d = base()
    edit(d)
    with pytest.raises(ScenarioError) as e:
        plan(d)
    assert e.value.path == field


def test_every_setting_of_the_tcp_model_is_refused_or_honoured():
    # The schema's TCP fields fall in three sets: honoured live, refused as an application, or
    # refused as the kernel's own; none is left over (a leftover would be silently ignored).
    from dataclasses import fields

    from aqmlab.live.plan import _APPS, TCP_FIELDS, kernel_owned
    from aqmlab.scenario import FlowGroup, TcpGroup

    tcp_only = {f.name for f in fields(TcpGroup)} - {f.name for f in fields(FlowGroup)}
    assert tcp_only == set(TCP_FIELDS) | set(_APPS) | set(kernel_owned())
    # The model's settings beyond the first list of refusals, each with a valid value.
    values = {"rcv_wnd": "64KiB", "snd_buf": "64KiB", "pacing": True, "cubic_alpha": "rfc9438", "ect": "ect1",
              "prr_ssrb": "linux", "keep_high_rxt": True, "lost_retransmit": True, "option_bytes": "linux"}
    # ect is read only with ECN (without it the scenario warns that it changes nothing).
    needs = {"ect": {"ecn": "classic"}}
    for key, value in values.items():
        assert key in kernel_owned()
        with pytest.raises(ScenarioError) as e:
            plan(base(**{key: value}, **needs.get(key, {})))
        assert e.value.path == f"flows[0].{key}"


def test_accepted_scenario_derives_mtu_and_sysctls():
    d = base(ecn=True, cc="newreno")
    d["flows"].append({"type": "udp", "count": 2, "rate": "6Mbps", "rtt": "100ms", "ecn": True})
    p = plan(d)
    assert (p.mtu, p.group_cc) == (1000, ["reno", None])
    assert p.sender_sysctls == {"tcp_ecn": 1, "tcp_sack": 1, "tcp_timestamps": 1, "tcp_no_metrics_save": 1}


def test_unavailable_congestion_control_is_named(monkeypatch):
    monkeypatch.setattr("aqmlab.live.system.kernel_congestion_controls", lambda: ["reno", "cubic"])
    with pytest.raises(ScenarioError) as e:
        plan(base(cc="dctcp"))
    assert e.value.path == "flows[0].cc" and "tcp_dctcp" in str(e.value)


def test_capabilities_are_read_from_capeff():
    # CapEff bits 12, 13, 21 (NET_ADMIN, NET_RAW, SYS_ADMIN): all, none, and only NET_RAW.
    assert missing_capabilities("CapEff:\t000001ffffffffff\n") == []
    assert missing_capabilities("CapEff:\t0000000000000000\n") == ["CAP_NET_ADMIN", "CAP_NET_RAW", "CAP_SYS_ADMIN"]
    assert missing_capabilities(f"CapEff:\t{1 << 13:016x}\n") == ["CAP_NET_ADMIN", "CAP_SYS_ADMIN"]
    assert effective_capabilities("Name:\tx\nCapEff:\t0000000000003000\n") == 0x3000


def test_goodput_ceiling_is_rate_times_payload_over_frame():
    assert goodput_ceiling_bps(10e6, 1000) == pytest.approx(10e6 * 948 / 1014)
    assert goodput_ceiling_bps(10e6, 1500, timestamps=False) == pytest.approx(10e6 * 1460 / 1514)


def test_compare_twin_simulates_the_kernels_congestion_control():
    from aqmlab.live.compare import sim_twin

    d = base()
    d["flows"][0]["profile"] = "ns2-sack"
    d["flows"].append({"type": "udp", "rate": "1Mbps", "rtt": "40ms"})
    p = plan(d)
    twin = sim_twin(d, p)
    # ns2-sack's NewReno ran as the kernel's reno; the twin simulates it with the linux profile.
    assert (twin["flows"][0]["profile"], twin["flows"][0]["cc"]) == ("linux", "newreno")
    assert twin["flows"][1] == d["flows"][1] and d["flows"][0]["profile"] == "ns2-sack"


def test_reproduce_live_lists_and_rejects_experiments_without_a_live_form(capsys):
    from aqmlab.cli import main

    assert main(["reproduce", "--live", "--list"]) == 0
    assert capsys.readouterr().out.split() == ["pie13-fig10", "pie13-fig11"]
    assert main(["reproduce", "--live", "pie13-fig7"]) == 2
    assert ("aqmlab: error: ID: no live experiment matches 'pie13-fig7'; see `aqmlab reproduce --live --list`"
            in capsys.readouterr().err)
    # --list with ids lists those (an unknown one was ignored: the whole list came out).
    assert main(["reproduce", "--live", "--list", "pie13-fig11"]) == 0
    assert capsys.readouterr().out.split() == ["pie13-fig11"]
    assert main(["reproduce", "--live", "--list", "pie13-fig7"]) == 2
    assert "aqmlab: error: ID: no live experiment matches 'pie13-fig7'" in capsys.readouterr().err


def test_reproduce_live_needs_ids_or_all_and_takes_the_catalogs_globs(capsys, monkeypatch, tmp_path):
    # Once `reproduce --live` alone ran every live experiment, where plain `reproduce` refuses,
    # and ids matched by prefix only, where the catalog takes the shell globs its help promises.
    # Nothing may be built here: an experiment that would run fails the test instead.
    import aqmlab.live.reproduce as live_reproduce
    import aqmlab.live.system as system
    from aqmlab.cli import main

    def would_run(*args, **kwargs):
        raise AssertionError("a live experiment would have run")

    monkeypatch.setattr(live_reproduce, "run_live_experiment", would_run)
    monkeypatch.setattr(system, "require_privileges", lambda: None)
    monkeypatch.chdir(tmp_path)
    assert main(["reproduce", "--live"]) == 2
    assert "aqmlab: error: ID: name experiments (see --list), or give --all" in capsys.readouterr().err
    for pattern, listed in (("pie13-fig1*", ["pie13-fig10", "pie13-fig11"]), ("pie13-fig1[1]", ["pie13-fig11"])):
        assert main(["reproduce", "--live", "--list", pattern]) == 0
        assert capsys.readouterr().out.split() == listed


def test_unreadable_scenario_files_are_named(tmp_path):
    # Once an IsADirectoryError or UnicodeDecodeError traceback: read as `aqmlab run` reads.
    from aqmlab.live.entry import load_raw

    binary = tmp_path / "bin.toml"
    binary.write_bytes(b"\xff\xfe\x00")
    for path, message in ((tmp_path, "is a directory"), (binary, "not a text file in UTF-8")):
        with pytest.raises(ScenarioError) as e:
            load_raw(path)
        assert message in str(e.value)


@pytest.mark.parametrize("spin", ["nan", "inf", "-1", "1e300", "soon"])
def test_spin_out_of_range_is_refused_before_anything_is_built(spin, capsys):
    # Once accepted, to fail only once the namespaces were up (NaN has no nanosecond value).
    # Refused while parsing the command line, so no privileges are needed to see it.
    from aqmlab.cli import main

    with pytest.raises(SystemExit) as e:
        main(["live", "pie-base", "--spin", spin])
    assert e.value.code == 2
    assert f"argument --spin: expected microseconds in [0, 1e+06], got '{spin}'" in capsys.readouterr().err


@pytest.mark.parametrize("priority", ["0", "100", "-5", "high"])
def test_rt_priority_out_of_range_says_the_range(priority, capsys):
    # Once argparse's `invalid choice: 0 (choose from 1, 2, ..., 99)`, all 99 of them.
    from aqmlab.cli import main

    with pytest.raises(SystemExit) as e:
        main(["live", "pie-base", "--rt-priority", priority])
    assert e.value.code == 2
    err = capsys.readouterr().err
    assert f"argument --rt-priority: expected an integer in [1, 99], got '{priority}'" in err
    assert "choose from" not in err


@pytest.mark.parametrize("argv, message", [
    # Once the bench's table header, then `error: duration: 0s is outside ...` (the scenario's
    # field, not the option). The ranges are bottleneck.rate's and duration's (scenario-reference).
    (["--bench", "--bench-duration", "0s"], "--bench-duration: 0s is outside the accepted range (0s, 1000000s]"),
    (["--bench", "--bench-duration", "soon"], "--bench-duration: expected a duration like"),
    (["--bench", "--rates", "10Mbps,0bps"], "--rates: 0bps is outside the accepted range [1bps, 1Tbps]"),
    (["--bench", "--rates", "10Mbps,,1Gbps"], "--rates: expected a rate like"),
    # A scenario's bad value, likewise before the privileges are needed.
    (["pie-base", "--set", "duration=0s"], "duration: 0s is outside the accepted range"),
    # And what live cannot express: once found only after the privileges, by the run's own plan.
    (["pie-base", "--set", "access.rate=10Mbps"], "access.rate: live hosts sit on veth links without a rate limit"),
])
def test_bad_values_are_refused_before_privileges_and_output(argv, message, capsys, monkeypatch):
    import aqmlab.live.bench as bench
    import aqmlab.live.system as system
    from aqmlab.cli import main

    def never(*_):
        raise AssertionError("reached past the checks of the options")

    monkeypatch.setattr(system, "require_privileges", never)
    monkeypatch.setattr(bench, "run_bench", never)
    assert main(["live", *argv]) == 2
    out, err = capsys.readouterr()
    assert out == ""
    assert err.startswith(f"aqmlab: error: {message}"), err


@pytest.mark.parametrize("argv, message", [
    # Each was taken and changed nothing; refused before the privileges are checked.
    (["pie-base", "--no-plots"], "--no-plots: applies only with -o OUTDIR"),
    (["pie-base", "--compare", "--no-plots"], "--no-plots: applies only with -o OUTDIR"),
    (["pie-base", "--rates", "1Gbps"], "--rates: applies only with --bench"),
    (["--cleanup", "--bench-duration", "2s"], "--bench-duration: applies only with --bench"),
    (["pie-base", "--no-realtime", "--rt-priority", "20"], "--rt-priority: applies only without --no-realtime"),
    # --bench runs its own scenarios and --cleanup none: a scenario, its options and the router's were ignored.
    (["pie-base", "--bench"], "scenario: applies only without --bench"),
    (["--bench", "--compare"], "--compare: applies only without --bench"),
    (["--bench", "-o", "out/live"], "--output: applies only without --bench"),
    (["--bench", "--no-plots"], "--no-plots: applies only without --bench"),
    (["--bench", "--set", "duration=5s"], "--set: applies only without --bench"),
    (["pie-base", "--cleanup"], "scenario: applies only without --cleanup"),
    (["--cleanup", "--compare"], "--compare: applies only without --cleanup"),
    (["--cleanup", "-o", "out/live"], "--output: applies only without --cleanup"),
    (["--cleanup", "--bench"], "--bench: applies only without --cleanup"),
    (["--cleanup", "--spin", "10"], "--spin: applies only without --cleanup"),
    (["--cleanup", "--no-realtime"], "--no-realtime: applies only without --cleanup"),
])
def test_options_of_another_mode_are_refused(argv, message, capsys):
    from aqmlab.cli import main

    assert main(["live", *argv]) == 2
    assert f"aqmlab: error: {message}" in capsys.readouterr().err


def _fake_run(ran: list, outcome=None):
    """`live.run` that builds nothing: it records the scenario's plan, or raises ``outcome``."""
    from types import SimpleNamespace

    def run(planned, opts, progress=None):
        ran.append(planned)
        if outcome is not None:
            raise outcome
        return SimpleNamespace(text=lambda: "", summary={"interrupted": False})

    return run


def test_errors_take_the_one_form_with_lives_exit_codes(capsys, monkeypatch):
    # Once `aqmlab live: ...` and `aqmlab reproduce --live: ...`, where every other command
    # prints `aqmlab: error: ...`.
    import aqmlab.live as live
    import aqmlab.live.system as system
    from aqmlab.cli import main

    def lacks_privileges():
        raise system.PrivilegeError("this process lacks CAP_NET_ADMIN")

    monkeypatch.setattr(system, "require_privileges", lacks_privileges)
    assert main(["live", "pie-base"]) == 2
    assert capsys.readouterr().err == "aqmlab: error: this process lacks CAP_NET_ADMIN\n"
    monkeypatch.setattr(system, "require_privileges", lambda: None)
    assert main(["live"]) == 2
    assert capsys.readouterr().err == ("aqmlab: error: scenario: give a scenario file or built-in name, or --bench "
                                       "or --cleanup\n")
    for outcome, code, message in ((system.LiveError("the router failed"), 1, "aqmlab: error: the router failed"),
                                   (KeyboardInterrupt(), 130, "aqmlab: interrupted; testbed removed")):
        monkeypatch.setattr(live, "run", _fake_run([], outcome))
        assert main(["live", "pie-base", "-q"]) == code
        assert capsys.readouterr().err == message + "\n"


def test_set_profile_warns_as_run_does_of_the_options_it_keeps(tmp_path, capsys, monkeypatch):
    # Once silent: `--set` edited the file's table without Scenario.with_values, so a new profile
    # kept an option the file gives (an initial window of 4, against Linux's 10) unannounced.
    import warnings

    import aqmlab.live as live
    import aqmlab.live.system as system
    from aqmlab import AqmlabWarning, Scenario
    from aqmlab.cli import main

    ran: list = []
    monkeypatch.setattr(system, "require_privileges", lambda: None)
    monkeypatch.setattr(live, "run", _fake_run(ran))
    saved = tmp_path / "scenario.toml"
    saved.write_text(Scenario.load("pie-base").with_values({"flows[0].initial_cwnd": 4}).to_toml())
    with warnings.catch_warnings():
        warnings.simplefilter("always", AqmlabWarning)  # main() shows it as `aqmlab: warning: ...`
        for scenario, code, warned in ((saved, 2, True), ("pie-base", 0, False)):
            assert main(["live", str(scenario), "--set", 'flows[0].profile="linux"', "-q"]) == code
            err = capsys.readouterr().err
            assert ("aqmlab: warning: flows[0].profile: 'linux' keeps the values the scenario gives: initial_cwnd = 4" in err) == warned, err
            # The kernel has no per-flow initial window: the kept value is then refused, before
            # the run (and before the privileges).
            assert ("aqmlab: error: flows[0].initial_cwnd: live flows run the kernel's own TCP" in err) == (code == 2), err
    assert [p.scenario.given["flows"][0]["profile"] for p in ran] == ["linux"]
