"""TCP response functions: hand-worked values, limits, errors, and ``aqmlab response``."""

import math

import pytest
from support import run_analysis_cli as run

from aqmlab.analysis.response import cubic_rfc9438, pftk, response_table, square_root_law, whole_round


def test_square_root_law_with_and_without_delayed_acks():
    assert square_root_law(0.01, 0.1) == pytest.approx(math.sqrt(150.0) / 0.1, rel=1e-15)   # 122.47
    assert square_root_law(0.01, 0.1, 2.0) == pytest.approx(math.sqrt(75.0) / 0.1, rel=1e-15)


def test_whole_round_worked_cases():
    # Reno, every 34th packet: 3W²/8 + 5W/4 = 34 gives W = 8, rounds 4..8 plus the recovery
    # round (six), 33 packets delivered: 5.5 per round trip.
    assert whole_round(34, 0.1) == pytest.approx(55.0, rel=1e-12)
    # every 1000th: W = 50, 27 rounds.
    assert whole_round(1000, 0.1) == pytest.approx(999 / 27 / 0.1, rel=1e-12)
    # Delayed ACKs (a = 1/2), every 100th: 3W²/4 + 5W/4 = 100, W = (−5 + √4825)/6.
    w = (-5 + math.sqrt(4825)) / 6
    assert whole_round(100, 0.1, growth=0.5) == pytest.approx(99 / (w + 2) / 0.1, rel=1e-12)


def test_whole_round_tends_to_the_law_and_stays_below_it():
    for every in (34, 100, 1000, 10**7):
        assert whole_round(every, 0.1) < square_root_law(1 / every, 0.1)
    assert whole_round(10**7, 0.1) / square_root_law(1e-7, 0.1) == pytest.approx(1.0, abs=1e-3)
    # At p = 0.03 the law overstates a faithful TCP by more than the 10 % band.
    assert whole_round(34, 0.1) / square_root_law(0.03, 0.1) < 0.8


def test_pftk_and_cubic_values():
    # p = 0.01, R = 0.1 s, T0 = 0.3 s: 1/(0.1·√(0.02/3) + 0.3·3√(0.03/8)·0.01·1.0032).
    assert pftk(0.01, 0.1, 0.3) == pytest.approx(114.70698869283487, rel=1e-12)
    # Without timeouts PFTK is the √(3/2) law.
    assert pftk(1e-6, 0.1, 1e-9) == pytest.approx(square_root_law(1e-6, 0.1), rel=1e-6)
    # RFC 9438 §5: at 100 ms and p = 0.01 the Reno-friendly region rules; at 300 ms and
    # p = 1e-4 the cubic curve: (0.4·3.7/1.2)^(1/4)·0.3^(3/4)/1e-4^(3/4) = 427.2 per RTT.
    assert cubic_rfc9438(0.01, 0.1) == square_root_law(0.01, 0.1)
    assert cubic_rfc9438(1e-4, 0.3) == pytest.approx(1423.9338152103162, rel=1e-12)


@pytest.mark.parametrize("call, field", [
    (lambda: square_root_law(0.0, 0.1), "p:"),
    (lambda: square_root_law(0.01, -1.0), "rtt:"),
    (lambda: whole_round(1, 0.1), "every:"),
    (lambda: whole_round(100, 0.1, beta=1.0), "beta:"),
    (lambda: whole_round(100, 0.1, growth=0.0), "growth:"),
    (lambda: pftk(0.01, 0.1, float("nan")), "rto:"),
    (lambda: response_table([0.01], 0.1, acks_per_growth=0.5), "acks_per_growth:"),
])
def test_bad_input_names_the_argument(call, field):
    with pytest.raises(ValueError, match=field):
        call()


def test_table_columns_follow_b():
    t = response_table([0.001, 0.03], 0.1, rto=0.3, acks_per_growth=2.0)
    assert list(t.columns) == ["p", "square_root_law", "whole_round", "pftk", "cubic_rfc9438", "cubic_whole_round"]
    assert t.square_root_law[1] == pytest.approx(50.0)                        # √(3/4)/(0.1·√0.03)
    assert t.whole_round[1] == pytest.approx(whole_round(34, 0.1, growth=0.5))
    assert not t.pftk.isna().any()


def test_cli_table_and_a_simulated_flow(capsys):
    assert run(["response", "--p", "0.03"]) == 0
    out = capsys.readouterr().out
    assert "whole_round" in out and "55" in out
    # One NewReno+SACK flow dropping every 34th packet: the simulator's rate is the
    # whole-round model's 55.0 packets/s (it is exact there; 1 % for the short run).
    assert run(["response", "--p", "0.03", "--simulate", "periodic", "--duration", "100"]) == 0
    row = capsys.readouterr().out.strip().splitlines()[-1].split()
    assert float(row[-1]) == pytest.approx(1.0, abs=0.01), row


def test_cli_rejects_an_unknown_profile(capsys):
    assert run(["response", "--simulate", "marks", "--profile", "nope"]) == 2
    # The option is named as typed (it once read 'profile', the simulator's field).
    assert "--profile: unknown TCP profile 'nope' (accepted: ns2-sack," in capsys.readouterr().err


def test_cli_says_pftk_needs_the_rto(capsys):
    # Once a column of NaN with no word on why.
    assert run(["response", "--p", "0.03"]) == 0
    assert "pftk needs --rto" in capsys.readouterr().out.splitlines()[0]
    assert run(["response", "--p", "0.03", "--rto", "0.3"]) == 0
    out = capsys.readouterr().out.splitlines()
    assert "pftk needs" not in out[0] and "NaN" not in out[-1]
