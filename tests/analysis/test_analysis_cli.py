"""``register`` adds working ``design`` and ``margins`` subcommands."""

import pytest
from support import run_analysis_cli as run


def test_design_pi_prints_example2(capsys):
    assert run(["design", "pi", "--flows", "60", "--rtt", "0.2467", "--capacity", "3750"]) == 0
    out = capsys.readouterr().out
    assert "K_PI = 9.6426e-06" in out
    assert "a = 1.837e-05, b = 1.8309e-05" in out                    # unrounded z = 0.5258
    assert "rounded to 0.53 rad/s, as INFOCOM 2001 §VI does: a = 1.8224e-05, b = 1.8164e-05" in out


def test_design_p_and_red(capsys):
    assert run(["design", "p", "--omega-g", "1.5"]) == 0
    assert "L_red (K_P) = 5.8624e-05" in capsys.readouterr().out
    assert run(["design", "red", "--rtt", "0.246", "--red-k", "0.005"]) == 0
    assert "L_red <= 0.00019485" in capsys.readouterr().out
    assert run(["design", "pi", "--capacity-bps", "15e6", "--packet-bytes", "500"]) == 0
    assert "C = 3750 packets/s" in capsys.readouterr().out


def test_margins_pie_writes_figures(tmp_path, capsys):
    assert run(["margins", "pie", "--p0", "1e-4", "0.05", "-o", str(tmp_path)]) == 0
    out = capsys.readouterr().out
    assert "PM  -56.18 deg" in out          # HPSR auto-tune at p0 = 1e-4, paper gain
    names = {p.name for p in tmp_path.glob("*.png")}
    assert {"bode_pie_rtt0.1.png", "pie_pm_map_paper.png", "pie_pm_map_mgt.png",
            "pie_pm_vs_rtt_paper.png", "pm_vs_sqrt_p_pie_mgt.png", "wgc_vs_sqrt_p_pie_paper.png"} <= names
    assert all(p.stat().st_size > 10_000 for p in tmp_path.glob("*.png"))


def test_margins_pi2_and_pi(tmp_path, capsys):
    assert run(["margins", "pi2", "--rtt", "0.1", "--p0", "0.01", "-o", str(tmp_path)]) == 0
    assert "PM   21.13 deg" in capsys.readouterr().out      # spec §3.6: 21° / 5.3 dB
    assert run(["margins", "pi", "--a", "1.822e-5", "--b", "1.816e-5", "--fs", "160"]) == 0
    out = capsys.readouterr().out
    assert "K_PI = 9.6e-06" in out and out.count("PM") == 3
    assert (tmp_path / "bode_pi2_rtt0.1.png").exists()


@pytest.mark.parametrize(("argv", "message"), [
    (["design", "pi", "--flows", "-3"], "expected a number in [1e-09, 1e+12]"),
    # Once an OverflowError or ZeroDivisionError in the plant's arithmetic:
    (["design", "pi", "--rtt", "1e300"], "expected a number in [1e-09, 1e+12]"),
    (["margins", "pie", "--rtt", "1e-300"], "expected a number in [1e-09, 1e+12]"),
    (["margins", "pie", "--p0", "1.5"], "expected a probability in [1e-09, 1), got '1.5'"),
    # Once "a number in [1e-09, 1e+12]" for 0 but "a probability in (0, 1)" for 1: one range.
    (["margins", "pie", "--p0", "0"], "expected a probability in [1e-09, 1), got '0'"),
    (["design", "codel"], "invalid choice"),
])
def test_bad_arguments_are_reported(argv, message, capsys):
    with pytest.raises(SystemExit):
        run(argv)
    assert message in capsys.readouterr().err


@pytest.mark.parametrize(("argv", "message"), [
    (["design", "pi", "--capacity", "100", "--capacity-bps", "1e6"],
     "aqmlab: error: --capacity-bps: give --capacity (packets/s) or --capacity-bps, not both"),
    (["margins", "pi", "--a", "1e-5"], "aqmlab: error: --b: give --a and --b together"),
    (["margins", "pi", "--a", "1e-5", "--b", "2e-5"], "a must be finite and > b"),
])
def test_bad_value_combinations_exit_2(argv, message, capsys):
    assert run(argv) == 2
    assert message in capsys.readouterr().err


@pytest.mark.parametrize(("argv", "message"), [
    # Each was accepted and changed nothing (the default values count too: given is given).
    (["design", "pi", "--red-k", "0.005"], "--red-k: applies only to red, not to pi"),
    (["design", "pi", "--w-q", "1e-5"], "--w-q: applies only to red, not to pi"),
    (["design", "p", "--fs", "100"], "--fs: applies only to pi, not to p"),
    (["design", "red", "--fs", "160"], "--fs: applies only to pi, not to red"),
    (["design", "red", "--omega-g", "1.5"], "--omega-g: applies only to pi and p, not to red"),
    (["design", "red", "--red-k", "0.005", "--w-q", "1.33e-6"], "--w-q: applies only without --red-k"),
    (["design", "pi", "--packet-bytes", "500"], "--packet-bytes: applies only with --capacity-bps"),
    (["margins", "pie", "--flows", "10"], "--flows: applies only to pi, not to pie"),
    (["margins", "pi2", "--capacity", "3750"], "--capacity: applies only to pi, not to pi2"),
    (["margins", "pi", "--alpha", "0.1"], "--alpha: applies only to pie, pi2 and dualpi2, not to pi"),
    (["margins", "pi", "--p0", "0.01"], "--p0: applies only to pie, pi2 and dualpi2, not to pi"),
    (["margins", "pi2", "--autotune", "hpsr"], "--autotune: applies only to pie, not to pi2"),
    (["margins", "dualpi2", "--claims"], "--claims: applies only to pie, not to dualpi2"),
    (["margins", "pie", "--coupling", "2"], "--coupling: applies only to dualpi2, not to pie"),
    (["margins", "pi", "--fs", "160"], "--fs: applies only with --a and --b"),
    (["margins", "pi", "--z", "0.5"], "--z: applies only with --k-pi"),
    (["margins", "pi", "--a", "1.822e-5", "--b", "1.816e-5", "--k-pi", "1e-5"], "--k-pi: applies only without --a"),
    (["response", "--profile", "ns2-sack"], "--profile: applies only with --simulate"),
    (["response", "--duration", "100"], "--duration: applies only with --simulate"),
    (["response", "--simulate", "periodic", "--rto", "0.3"], "--rto: applies only without --simulate"),
    (["response", "--simulate", "periodic", "--b", "2"], "--b: applies only without --simulate"),
])
def test_options_that_would_change_nothing_are_refused_before_any_work(argv, message, capsys):
    assert run(argv) == 2
    out = capsys.readouterr()
    assert message in out.err and out.out == ""


def test_omega_g_help_says_it_moves_the_pi_zero(capsys):
    # The help said only "the design crossover"; design_pi puts the zero there too.
    from aqmlab.analysis import design_pi

    assert design_pi(60, 0.246, 3750, omega_g=0.7).zero == 0.7
    with pytest.raises(SystemExit):
        run(["design", "pi", "--help"])
    assert "also moves the controller's zero (z = omega_g)" in " ".join(capsys.readouterr().out.split())
