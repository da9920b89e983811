"""Per Packet Value markers in scenarios, and the policy's desired shares.

A flow group gets a marker with ``marker = {...}``; its data packets then carry a PV code
(8 bits, 30·log10 V) that a PVPIE or PPV bottleneck reads::

    [bottleneck]
    rate = "100Mbps"
    delay = "10ms"
    queue = {type = "pvpie", target = "40ms", gamma = 1}     # or {type = "ppv", limit = "333p"}

    [[flows]]
    name = "gold"
    type = "tcp"
    profile = "linux"                # CUBIC, as in the PVPIE paper
    count = 10                       # 2 policy flows of N_tcp.c = 5 connections
    rtt = "40ms"
    marker = {tvf = "gold", connections_per_flow = 5}

    [[flows]]
    name = "background"
    type = "udp"
    count = 3
    rate = "30Mbps"
    rtt = "40ms"
    marker = {tvf = "background", connections_per_flow = 1, type = "random_rate"}

``tvf`` is ``"gold"``, ``"silver"``, ``"background"`` (the policy of the PVPIE paper's Fig. 1,
see ``sim::ppv::tvf``) or a list of ``[rate, value]`` knots joined in log-log, e.g.
``[["10kbps", 1e6], ["1Mbps", 1e4], ["1Mbps", 5e3], ["1Gbps", 5]]``. The marker ``type`` is
``"token_bucket"`` (default: ``depth = "40ms"``, ``regions_per_decade = 30``,
``min_rate = "10kbps"``, ``max_rate = "10Gbps"``) or ``"random_rate"`` (``window = "40ms"``,
``target = "7500B"``). ``connections_per_flow`` (N_tcp.c) cuts the group into policy flows
of that many connections, each with its own marker; absent, the whole group is one policy flow.
Unmarked groups send code 0, the least value. A PVPIE or PPV queue in a scenario where no group
has a marker is refused: with every packet at code 0 it would rank nothing and act as a plain
FIFO.

With ``traces.probe`` on, a PVPIE bottleneck reports ``prob``, ``ctv`` (the filter, as a PV
code) and ``qdelay_s``; when any group is marked the simulator adds ``desired_ctv``, the
threshold at which the active policy flows' demands fill the link (a continuous code).
:func:`desired_rate` maps a threshold to each class's desired throughput.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any, ClassVar

from . import units
from .errors import ScenarioError
from .schema import Choice, Custom, Duration, Int, Json, Rate, Size, Tagged, sim_table, spec

NAMED_TVFS = ("gold", "silver", "background")

Tvf = str | dict[str, list[list[float]]]   # a named class, or {"knots": [[rate bit/s, value], ...]}


def _tvf(v: Json, path: str) -> Tvf:
    """A named class, or a list of [rate, value] knots (rates non-decreasing, values falling)."""
    if isinstance(v, str):
        return Choice(NAMED_TVFS).parse(v, path)
    if not isinstance(v, list) or len(v) < 2:
        raise ScenarioError(path, f"expected one of {', '.join(map(repr, NAMED_TVFS))} or a list of at least two "
                                  f"[rate, value] knots, got {v!r}")
    knots: list[list[float]] = []
    for i, k in enumerate(v):
        where = f"{path}[{i}]"
        if not isinstance(k, list) or len(k) != 2:
            raise ScenarioError(where, f"expected [rate, value], got {k!r}")
        rate = float(k[0]) if units.is_number(k[0]) else float(units.rate_bps(k[0], where))
        value = k[1]
        if not (units.is_number(value) and math.isfinite(value) and value > 0 and math.isfinite(rate) and rate > 0):
            raise ScenarioError(where, f"rate and value must be positive and finite, got {k!r}")
        if knots and (rate < knots[-1][0] or value >= knots[-1][1]):
            raise ScenarioError(where, "rates must not decrease and values must decrease from knot to knot")
        knots.append([rate, float(value)])
    return {"knots": knots}


def _tvf_fmt(tvf: Tvf) -> Json:
    return tvf if isinstance(tvf, str) else [[units.fmt_rate(round(r)), v] for r, v in tvf["knots"]]


TVF = Custom(
    _tvf, _tvf_fmt,
    {"anyOf": [{"enum": list(NAMED_TVFS)},
               {"type": "array", "minItems": 2, "items": {"type": "array", "minItems": 2, "maxItems": 2}}]},
    "`\"gold\"`, `\"silver\"`, `\"background\"`, or a list of `[rate, value]` knots",
)


@dataclass(frozen=True, kw_only=True)
class _Marker:
    tvf: Tvf = spec(TVF, "the throughput-value function: a named class of the PVPIE paper's Fig. 1, or knots "
                         "joined in log-log (rates non-decreasing, values falling)", sim="tvf")
    connections_per_flow: int | None = spec(Int(1, 1_000_000), "N_tcp.c: cut the group into policy flows of this "
                                            "many connections, each with its own marker (unset: one policy flow)",
                                            default=None, sim="connections_per_flow")


@dataclass(frozen=True, kw_only=True)
class TokenBucketMarker(_Marker):
    """A Per Packet Value marker that codes each packet by the rate a token bucket measures."""

    TAG: ClassVar[tuple[str, str]] = ("type", "token_bucket")
    depth: int = spec(Duration(lo_open=True), "the bucket's depth, as time at the measured rate", default="40ms",
                      sim="depth_ns")
    regions_per_decade: int = spec(Int(1, 1000), "rate regions per decade", default=30, sim="regions_per_decade")
    min_rate: int = spec(Rate(), "the lowest rate region", default="10kbps", sim="min_rate_bps")
    max_rate: int = spec(Rate(), "the highest rate region", default="10Gbps", sim="max_rate_bps")


@dataclass(frozen=True, kw_only=True)
class RandomRateMarker(_Marker):
    """A Per Packet Value marker that draws each packet's value at random for the measured rate."""

    TAG: ClassVar[tuple[str, str]] = ("type", "random_rate")
    window: int = spec(Duration(lo_open=True), "the rate measurement window", default="40ms", sim="window_ns")
    target: int = spec(Size(), "bytes per measurement", default="7500B", sim="target_bytes")


Marker = TokenBucketMarker | RandomRateMarker


def _marker_sim(m: Marker) -> Json:
    """A marker -> the simulator's MarkerConfig: the TVF and N_tcp.c, and the marker kind's own fields."""
    common = sim_table(m, _Marker)
    own = {k: v for k, v in sim_table(m).items() if k not in common}
    return {**common, "kind": {"type": m.TAG[1], **own}}


class _MarkerKind(Tagged):
    def sim(self, v: Any) -> Json:
        return _marker_sim(v)


MARKER = _MarkerKind("type", {"token_bucket": TokenBucketMarker, "random_rate": RandomRateMarker},
                     default="token_bucket")


def check_marker(m: Marker, path: str, count: int) -> None:
    """What a marker's fields cannot say alone: N_tcp.c divides the group, the rate range is not empty."""
    per = m.connections_per_flow
    if per is not None and count % per:
        raise ScenarioError(f"{path}.connections_per_flow", f"{per} does not divide count = {count}")
    if isinstance(m, TokenBucketMarker) and m.max_rate <= m.min_rate:
        raise ScenarioError(f"{path}.max_rate", f"must be above min_rate ({units.fmt_rate(m.min_rate)})")


# ---------------------------------------------------------------------------------------------
# TVFs on the Python side: the inverse X(v) only, to turn a threshold into desired rates.
# The named classes follow the construction documented in crates/sim/src/ppv/tvf.rs: the
# reference Gold curve V_G(g) = 1e11 / g on [1 kb/s, 10 Gb/s], and class c at rate x taking
# the value of Gold at k_c(x)·x.

_GOLD_SCALE, _GOLD_MIN, _GOLD_MAX = 1e11, 1e3, 1e10
# class -> (knee rate in bit/s, k below the knee, k above); Gold has no knee.
_CLASS_K = {"gold": (math.inf, 1.0, 1.0), "silver": (1e6, 2.0, 4.0), "background": (1e5, 8.0, 40.0)}


def tvf_rate(tvf: Tvf, value: float) -> float:
    """X(v) = sup{x : V(x) >= v} for a named class or a {'knots': ...} TVF, in bit/s."""
    if isinstance(tvf, str):
        knee, k_lo, k_hi = _CLASS_K[tvf]
        if value > _GOLD_SCALE / _GOLD_MIN:
            return 0.0
        gold_rate = min(_GOLD_SCALE / value, _GOLD_MAX)
        # Below the knee the class runs at gold/k_lo, above at gold/k_hi; between, it is capped.
        return gold_rate / k_lo if gold_rate / k_lo <= knee else max(knee, gold_rate / k_hi)
    knots = tvf["knots"]
    if value > knots[0][1]:
        return 0.0
    if value <= knots[-1][1]:
        return knots[-1][0]
    for (x0, v0), (x1, v1) in zip(knots, knots[1:]):
        if value > v1:
            if x0 == x1:
                return x0
            return x0 * float((x1 / x0) ** (math.log(value / v0) / math.log(v1 / v0)))
    raise AssertionError("unreachable: values fall strictly")


def desired_rate(tvf: Tvf, ctv_code: float, demand_bps: float = math.inf) -> float:
    """A class's desired throughput at threshold code ``ctv_code`` (e.g. the ``desired_ctv``
    probe), capped by its demand; with no threshold (code 0) it is the demand."""
    if ctv_code <= 0:
        return demand_bps
    return min(demand_bps, tvf_rate(tvf, 10 ** (ctv_code / 30)))
