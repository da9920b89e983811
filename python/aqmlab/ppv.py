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

With ``traces.probe`` on, a PVPIE bottleneck reports ``prob``, ``ctv`` (the filter, as a PV
code) and ``qdelay_s``; when any group is marked the simulator adds ``desired_ctv``, the
threshold at which the active policy flows' demands fill the link (a continuous code).
:func:`desired_rate` maps a threshold to each class's desired throughput.
"""

from __future__ import annotations

import math

from . import units
from .errors import ScenarioError
from .scenario import _REQUIRED, _choice, _int, _positive, _section

_NAMED = ("gold", "silver", "background")

_TOKEN_BUCKET = {
    "depth": (_positive(units.duration_ns), 40_000_000),
    "regions_per_decade": (_int(1, 1000), 30),
    "min_rate": (_positive(units.rate_bps), 10_000),
    "max_rate": (_positive(units.rate_bps), 10_000_000_000),
}
_RANDOM_RATE = {
    "window": (_positive(units.duration_ns), 40_000_000),
    "target": (_positive(units.size_bytes), 7500),
}
_COMMON = {
    "tvf": (None, _REQUIRED),
    "type": (_choice("token_bucket", "random_rate"), "token_bucket"),
    "connections_per_flow": (_int(1, 1_000_000), None),
}


def _tvf(v, path):
    """A named class, or a list of [rate, value] knots (rates non-decreasing, values falling)."""
    if isinstance(v, str):
        return _choice(*_NAMED)(v, path)
    if not isinstance(v, list) or len(v) < 2:
        raise ScenarioError(path, f"expected one of {', '.join(map(repr, _NAMED))} or a list of at least two [rate, value] knots, got {v!r}")
    knots = []
    for i, k in enumerate(v):
        if not isinstance(k, list) or len(k) != 2:
            raise ScenarioError(f"{path}[{i}]", f"expected [rate, value], got {k!r}")
        rate = k[0] if isinstance(k[0], (int, float)) and not isinstance(k[0], bool) else units.rate_bps(k[0], f"{path}[{i}]")
        value = k[1]
        if not (isinstance(value, (int, float)) and not isinstance(value, bool) and math.isfinite(value) and value > 0 and rate > 0):
            raise ScenarioError(f"{path}[{i}]", f"rate and value must be positive, got {k!r}")
        if knots and (rate < knots[-1][0] or value >= knots[-1][1]):
            raise ScenarioError(f"{path}[{i}]", "rates must not decrease and values must decrease from knot to knot")
        knots.append([float(rate), float(value)])
    return {"knots": knots}


def marker(v, path: str, count: int) -> dict:
    """A flow group's ``marker`` table -> the simulator's MarkerConfig."""
    if not isinstance(v, dict):
        raise ScenarioError(path, f"expected a table like {{tvf = \"gold\"}}, got {v!r}")
    kind = _choice("token_bucket", "random_rate")(v.get("type", "token_bucket"), f"{path}.type")
    specific = _TOKEN_BUCKET if kind == "token_bucket" else _RANDOM_RATE
    m = _section(v, {**_COMMON, "tvf": (_tvf, _REQUIRED), **specific}, path)
    per = m["connections_per_flow"]
    if per is not None and count % per:
        raise ScenarioError(f"{path}.connections_per_flow", f"{per} does not divide count = {count}")
    if kind == "token_bucket":
        if m["max_rate"] <= m["min_rate"]:
            raise ScenarioError(f"{path}.max_rate", "must be above min_rate")
        k = {"type": kind, "depth_ns": m["depth"], "regions_per_decade": m["regions_per_decade"],
             "min_rate_bps": float(m["min_rate"]), "max_rate_bps": float(m["max_rate"])}
    else:
        k = {"type": kind, "window_ns": m["window"], "target_bytes": m["target"]}
    return {"tvf": m["tvf"], "kind": k, "connections_per_flow": per}


def marker_fmt(m: dict) -> dict:
    """The simulator's MarkerConfig -> the scenario form with every default written out."""
    tvf = m["tvf"]
    out: dict = {"tvf": tvf if isinstance(tvf, str) else [[units.fmt_rate(round(r)), v] for r, v in tvf["knots"]]}
    k = m["kind"]
    out["type"] = k["type"]
    if k["type"] == "token_bucket":
        out.update(depth=units.fmt_duration(k["depth_ns"]), regions_per_decade=k["regions_per_decade"],
                   min_rate=units.fmt_rate(round(k["min_rate_bps"])), max_rate=units.fmt_rate(round(k["max_rate_bps"])))
    else:
        out.update(window=units.fmt_duration(k["window_ns"]), target=f"{k['target_bytes']}B")
    if m["connections_per_flow"] is not None:
        out["connections_per_flow"] = m["connections_per_flow"]
    return out


# ---------------------------------------------------------------------------------------------
# TVFs on the Python side: the inverse X(v) only, to turn a threshold into desired rates.
# The named classes follow the construction documented in crates/sim/src/ppv/tvf.rs: the
# reference Gold curve V_G(g) = 1e11 / g on [1 kb/s, 10 Gb/s], and class c at rate x taking
# the value of Gold at k_c(x)·x.

_GOLD_SCALE, _GOLD_MIN, _GOLD_MAX = 1e11, 1e3, 1e10
# class -> (knee rate in bit/s, k below the knee, k above); Gold has no knee.
_CLASS_K = {"gold": (math.inf, 1.0, 1.0), "silver": (1e6, 2.0, 4.0), "background": (1e5, 8.0, 40.0)}


def tvf_rate(tvf, value: float) -> float:
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
            return x0 * (x1 / x0) ** (math.log(value / v0) / math.log(v1 / v0))
    raise AssertionError("unreachable: values fall strictly")


def desired_rate(tvf, ctv_code: float, demand_bps: float = math.inf) -> float:
    """A class's desired throughput at threshold code ``ctv_code`` (e.g. the ``desired_ctv``
    probe), capped by its demand; with no threshold (code 0) it is the demand."""
    if ctv_code <= 0:
        return demand_bps
    return min(demand_bps, tvf_rate(tvf, 10 ** (ctv_code / 30)))
