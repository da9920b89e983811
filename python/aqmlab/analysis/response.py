"""TCP response functions: the long-run rate of one flow against its loss (or mark) rate.

These are the formulas the simulator's TCP is held to (issue 3), for users who want to
place their own runs against theory. Rates are packets per second for a round trip ``rtt``
in seconds; ``p`` is the fraction of packets lost or marked.

* :func:`square_root_law`: Mathis et al. (CCR 1997), sqrt(3/(2b))/(RTT sqrt(p)), the
  continuous sawtooth of a window that halves at once; b = 2 for delayed ACKs without byte
  counting.
* :func:`whole_round`: the same deterministic loss cycle counted the way a sender moves, in
  whole round trips, with the recovery round RFC 6675 spends at the reduced window. The law
  is its limit of large windows; at p = 0.03 (W = 8) the two differ by 22 %.
* :func:`pftk`: Padhye, Firoiu, Towsley and Kurose (SIGCOMM 1998), the approximate model
  with timeouts, for random loss.
* :func:`cubic_rfc9438`: RFC 9438's average window under deterministic loss, the larger of
  the cubic curve's and the Reno-friendly region's.
"""

from __future__ import annotations

import math

import numpy as np
import pandas as pd


def _check(p: float, rtt: float) -> None:
    if not 0.0 < p < 1.0:
        raise ValueError(f"p: {p} is outside (0, 1)")
    if not (math.isfinite(rtt) and rtt > 0.0):
        raise ValueError(f"rtt: {rtt} must be a number of seconds > 0")


def square_root_law(p: float, rtt: float, acks_per_growth: float = 1.0) -> float:
    """Mathis et al.: sqrt(3/(2b))/(RTT·sqrt(p)) packets/s, b segments per ACK."""
    _check(p, rtt)
    return math.sqrt(3.0 / (2.0 * acks_per_growth * p)) / rtt


def whole_round(every: int, rtt: float, beta: float = 0.5, growth: float = 1.0) -> float:
    """Goodput under deterministic loss of every ``every``-th packet, counted in whole rounds.

    Each round trip the sender sends its window as one burst; the window grows by ``growth``
    packets per round (1 with an ACK per segment, 1/2 with delayed ACKs and no byte counting,
    α_cubic = 3(1 − β)/(1 + β) in CUBIC's Reno-friendly region) and a loss costs a recovery
    round at the reduced window βW (RFC 6675: the pipe must fall below ssthresh first, and
    the window does not grow). One cycle holds growth rounds βW, βW + a, ..., W, that is
    (1 − β)W/a + 1 rounds averaging (1 + β)W/2, plus the recovery round, and carries the
    ``every`` packets between two drops:

        (1 + β)(1 − β)/(2a)·W² + ((1 + β)/2 + β)·W = every,

    of which every − 1 are delivered. Worked case, Reno at every = 34: 3W²/8 + 5W/4 = 34
    gives W = 8, six rounds and 33/6 = 5.5 packets per round trip.
    """
    if not (isinstance(every, (int, np.integer)) and every >= 2):
        raise ValueError(f"every: {every} must be an integer >= 2 (one drop every N packets)")
    _check(0.5, rtt)
    if not 0.0 < beta < 1.0:
        raise ValueError(f"beta: {beta} is outside (0, 1)")
    if not (math.isfinite(growth) and growth > 0.0):
        raise ValueError(f"growth: {growth} must be > 0 packets per round")
    qa = (1.0 + beta) * (1.0 - beta) / (2.0 * growth)
    qb = (1.0 + beta) / 2.0 + beta
    w = (-qb + math.sqrt(qb * qb + 4.0 * qa * every)) / (2.0 * qa)
    rounds = (1.0 - beta) * w / growth + 2.0
    return (every - 1) / rounds / rtt


def pftk(p: float, rtt: float, rto: float, acks_per_growth: float = 1.0) -> float:
    """Padhye et al. (1998), approximate model (their eq. 31) without a window limit."""
    _check(p, rtt)
    if not (math.isfinite(rto) and rto > 0.0):
        raise ValueError(f"rto: {rto} must be a number of seconds > 0")
    b = acks_per_growth
    timeouts = rto * min(1.0, 3.0 * math.sqrt(3.0 * b * p / 8.0)) * p * (1.0 + 32.0 * p * p)
    return 1.0 / (rtt * math.sqrt(2.0 * b * p / 3.0) + timeouts)


def cubic_rfc9438(p: float, rtt: float, c: float = 0.4, beta: float = 0.7) -> float:
    """RFC 9438 §5: CUBIC's average window under deterministic loss, per round trip.

    The cubic curve gives (C(3 + β)/(4(1 − β)))^(1/4)·RTT^(3/4)/p^(3/4); the Reno-friendly
    region, whose α_cubic makes it Reno's, gives sqrt(3/(2p)); CUBIC runs the larger.
    """
    _check(p, rtt)
    cubic = (c * (3.0 + beta) / (4.0 * (1.0 - beta))) ** 0.25 * rtt**0.75 / p**0.75
    reno = math.sqrt(1.5 / p)
    return max(cubic, reno) / rtt


def response_table(ps: list[float], rtt: float, rto: float | None = None,
                   acks_per_growth: float = 1.0) -> pd.DataFrame:
    """Every formula at each loss rate, packets/s; ``pftk`` needs ``rto`` (else NaN).

    Deterministic loss drops every ceil(1/p)-th packet, so the whole-round columns use that
    count. ``acks_per_growth`` is b: 2 for delayed ACKs with growth per ACK (the law becomes
    sqrt(3/(4p)) and the whole-round window grows 1/2 per round); CUBIC counts bytes, so its
    columns ignore it. ``cubic_whole_round`` is the Reno-friendly region only (β = 0.7,
    α_cubic = 3(1 − β)/(1 + β)), the region that rules at short RTTs and high p.
    """
    b = acks_per_growth
    if not (math.isfinite(b) and b >= 1.0):
        raise ValueError(f"acks_per_growth: {b} must be >= 1 segment per ACK")
    beta = 0.7
    rows = []
    for p in ps:
        every = math.ceil(1.0 / p)
        rows.append({
            "p": p,
            "square_root_law": square_root_law(p, rtt, b),
            "whole_round": whole_round(every, rtt, growth=1.0 / b),
            "pftk": pftk(p, rtt, rto, b) if rto is not None else float("nan"),
            "cubic_rfc9438": cubic_rfc9438(p, rtt, beta=beta),
            "cubic_whole_round": whole_round(every, rtt, beta, 3.0 * (1.0 - beta) / (1.0 + beta)),
        })
    return pd.DataFrame(rows)
