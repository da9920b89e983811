"""The experiments of RFC 7928 ("Characterization Guidelines for AQM", Kuhn et al., 2016), as
scenarios for one discipline under test.

Each experiment names the section of the RFC it follows and builds its variants: scenario
tables (in the scenario file's vocabulary) that differ only in the traffic or topology the
section asks for, with the discipline under test on the bottleneck's forward direction. The
common setting is RFC 7928 §3's dumbbell: a 10 Mb/s bottleneck, 100 ms base RTT, a buffer of
four bandwidth-delay products so that the AQM, not the buffer, sets the delay (§3.2), and the
same buffer for every discipline compared (§4.3).
"""

from __future__ import annotations

import copy
from dataclasses import dataclass
from typing import Any, Callable

from .. import topology

RATE = "10Mbps"
RATE_BPS = 10e6
BOTTLENECK_DELAY = "10ms"
RTT = "100ms"
# 4 BDP: 10 Mb/s x 100 ms = 125 packets of 1000 B.
BUFFER = "500p"


@dataclass(frozen=True)
class Scale:
    """How long each run lasts and how many seeds each variant runs with."""

    duration_s: float
    warmup_s: float
    seeds: int

    def t(self, fraction: float) -> str:
        """A time at ``fraction`` of the run, as a duration string."""
        return f"{fraction * self.duration_s:g}s"


QUICK = Scale(duration_s=8.0, warmup_s=2.0, seeds=2)
FULL = Scale(duration_s=60.0, warmup_s=10.0, seeds=5)


@dataclass(frozen=True)
class Variant:
    label: str
    scenario: dict[str, Any]


@dataclass(frozen=True)
class Experiment:
    key: str
    title: str
    section: str          # the RFC 7928 section it follows
    what: str             # what it shows, in one sentence
    build: Callable[[dict[str, Any], Scale], list[Variant]]


def with_buffer(queue: dict[str, Any]) -> dict[str, Any]:
    """The discipline with the common buffer unless it sets its own limit."""
    q = copy.deepcopy(queue)
    q.setdefault("limit", BUFFER)
    return q


def _base(queue: dict[str, Any], scale: Scale, flows: list[dict[str, Any]], name: str, **extra: Any) -> dict[str, Any]:
    return {
        "name": name,
        "duration": f"{scale.duration_s:g}s",
        "warmup": f"{scale.warmup_s:g}s",
        "bottleneck": {"rate": RATE, "delay": BOTTLENECK_DELAY, "queue": with_buffer(queue),
                       **extra.pop("bottleneck", {})},
        "flows": flows,
        **extra,
    }


def _tcp(name: str, count: int = 1, **kw: Any) -> dict[str, Any]:
    return {"type": "tcp", "name": name, "count": count, "rtt": RTT, "start": {"uniform": ["0s", "1s"]}, **kw}


def _udp(name: str, rate: str, **kw: Any) -> dict[str, Any]:
    return {"type": "udp", "name": name, "rtt": RTT, "rate": rate, **kw}


# --- §5 transports -----------------------------------------------------------------------------

def transports(q: dict[str, Any], s: Scale) -> list[Variant]:
    return [
        Variant("tcp-friendly", _base(q, s, [_tcp("reno", 5, cc="newreno")], "tcp-friendly")),
        Variant("aggressive", _base(q, s, [_tcp("reno-iw3", 2, cc="newreno", initial_cwnd=3),
                                           _tcp("cubic-iw10", 2, cc="cubic", initial_cwnd=10)], "aggressive")),
        Variant("unresponsive", _base(q, s, [_tcp("reno", 3, cc="newreno"),
                                             _udp("udp", "12Mbps", start=s.t(0.25))], "unresponsive")),
        # §5.4: an AQM that keeps the queue below LEDBAT's 100 ms target takes away its signal
        # to yield.
        Variant("less-than-best-effort", _base(q, s, [_tcp("reno", 2, cc="newreno"), _tcp("ledbat", 2, cc="ledbat")],
                                               "lbe")),
    ]


# --- §6 RTT fairness ---------------------------------------------------------------------------

RTTS_MS = [5, 20, 50, 100, 200, 300, 400, 560]


def rtt_fairness(q: dict[str, Any], s: Scale) -> list[Variant]:
    # §6.2: RTTs from 5 to 560 ms; the bottleneck's delay must fit the shortest (5 ms round trip).
    flows = [_tcp(f"rtt{r}ms", 1, rtt=f"{r}ms", cc="newreno") for r in RTTS_MS]
    return [Variant("5-560ms", _base(q, s, flows, "rtt-fairness", bottleneck={"delay": "1ms"}))]


# --- §7 burst absorption -----------------------------------------------------------------------

def bursts(q: dict[str, Any], s: Scale) -> list[Variant]:
    bulk = _tcp("bulk", 2, cc="newreno")
    at, until = s.t(0.5), s.t(0.52)
    return [
        Variant("udp-burst", _base(q, s, [bulk, _udp("burst", "30Mbps", start=at, stop=until)], "udp-burst")),
        # A web page: 30 objects of 20 KB fetched at once.
        Variant("web-page", _base(q, s, [bulk, _tcp("page", 30, size="20KB", start=at)], "web-page")),
        # A video chunk: 2 MB at once.
        Variant("video-chunk", _base(q, s, [bulk, _tcp("chunk", 1, size="2MB", start=at)], "video-chunk")),
    ]


# --- §8 stability ------------------------------------------------------------------------------

def stability(q: dict[str, Any], s: Scale) -> list[Variant]:
    arriving = [_tcp("steady", 2, cc="newreno"),
                _tcp("wave1", 8, cc="newreno", start=s.t(0.3), stop=s.t(0.6)),
                _tcp("wave2", 16, cc="newreno", start=s.t(0.5), stop=s.t(0.8))]
    capacity = {"rate_schedule": [{"at": s.t(0.4), "rate": "5Mbps"}, {"at": s.t(0.7), "rate": RATE}]}
    return [
        Variant("varying-congestion", _base(q, s, arriving, "varying-congestion")),
        Variant("varying-capacity", _base(q, s, [_tcp("bulk", 5, cc="newreno")], "varying-capacity",
                                          bottleneck=capacity)),
    ]


# --- §9 traffic profiles -----------------------------------------------------------------------

def traffic_profiles(q: dict[str, Any], s: Scale) -> list[Variant]:
    mix = [_tcp("bulk", 2, cc="newreno"),
           _tcp("web", 10, size={"pareto": {"mean": "30KB", "shape": 1.5}}, think="500ms"),
           _udp("voip", "100kbps", count=2)]
    both = [_tcp("forward", 3, cc="newreno"), _tcp("backward", 3, cc="newreno", route=topology.reverse_route())]
    return [
        Variant("mix", _base(q, s, mix, "traffic-mix")),
        # §9.2: data both ways; the AQM governs both directions of the bottleneck.
        Variant("bidirectional", _base(q, s, both, "bidirectional", bottleneck={"reverse_queue": with_buffer(q)},
                                       **topology.bidirectional())),
    ]


# --- §10 multi-AQM path ------------------------------------------------------------------------

HOPS = 3


def multi_aqm(q: dict[str, Any], s: Scale) -> list[Variant]:
    droptail = {"type": "drop_tail", "limit": BUFFER}
    out = []
    for label, queues in (("aqm-every-hop", [with_buffer(q)] * HOPS),
                          ("aqm-then-droptail", [with_buffer(q)] + [droptail] * (HOPS - 1))):
        net = topology.parking_lot(HOPS, rate=RATE, delay=BOTTLENECK_DELAY, queue=queues[0], hop_queues=queues)
        flows = [_tcp("long", 2, cc="newreno", rtt="120ms", route=topology.long_route(HOPS))]
        flows += [_tcp(f"cross{i}", 2, cc="newreno", rtt="60ms", route=topology.hop_route(i)) for i in range(HOPS)]
        sc = _base(q, s, flows, label)
        sc.update(net)
        out.append(Variant(label, sc))
    return out


# --- §4.5 ECN, §4.6 scheduling -----------------------------------------------------------------

# Where a discipline's ECN switch sits (flow-queueing forms nest their control law's table).
_NESTED = {"fq_codel": "codel", "fq_pie": "pie"}


def _with(q: dict[str, Any], key: str, value: Any) -> dict[str, Any]:
    """The queue table with parameter ``key`` (of the control law, for a flow-queueing form) set."""
    out = copy.deepcopy(q)
    inner = _NESTED.get(q["type"])
    (out.setdefault(inner, {}) if inner else out)[key] = value
    return out


def _param(resolved: dict[str, Any], key: str) -> Any:
    inner = _NESTED.get(resolved["type"])
    return (resolved[inner] if inner else resolved).get(key)


def ecn(q: dict[str, Any], s: Scale) -> list[Variant]:
    from ..errors import ScenarioError
    from ..scenario import Scenario

    qe = _with(q, "ecn", True)
    variants = [
        Variant("mixed", _base(qe, s, [_tcp("ecn", 3, cc="newreno", ecn="classic"),
                                       _tcp("no-ecn", 3, cc="newreno", ecn="off")], "ecn-mixed")),
        Variant("overload", _base(qe, s, [_tcp("ecn", 3, cc="newreno", ecn="classic"),
                                          _udp("udp-ect", "12Mbps", ecn=True, start=s.t(0.25))], "ecn-overload")),
    ]
    try:
        Scenario.from_dict(variants[0].scenario)
    except ScenarioError:
        return []  # a discipline without ECN (DropTail): not applicable
    return variants


# The flow-queueing form of each discipline that has one (RFC 7928 §4.6: the AQM under FQ).
FQ_FORM = {"pie": "fq_pie", "codel": "fq_codel"}


def scheduling(q: dict[str, Any], s: Scale) -> list[Variant]:
    fq = FQ_FORM.get(q["type"])
    if fq is None:
        return []
    qf = {"type": fq, "limit": q.get("limit", BUFFER)}
    flows = [_tcp("bulk", 4, cc="newreno"), _udp("voip", "100kbps", count=2)]
    return [Variant(f"under-{fq}", _base(qf, s, flows, "scheduling"))]


# --- §12 operator control ----------------------------------------------------------------------

# The time parameters of each discipline, swept one at a time by these factors.
TUNABLE = {"pie": ("target", "tupdate"), "codel": ("target", "interval"), "fq_codel": ("target", "interval"),
           "fq_pie": ("target", "tupdate")}
FACTORS = (0.5, 2.0)


def sensitivity(q: dict[str, Any], s: Scale) -> list[Variant]:
    from .. import units
    from ..scenario import Scenario

    flows = [_tcp("reno", 5, cc="newreno")]
    # The parameters' values in force, defaults included, as the scenario resolves them.
    resolved = Scenario.from_dict(_base(q, s, flows, "defaults")).resolved["bottleneck"]["queue"]
    out = []
    for p in TUNABLE.get(q["type"], ()):
        ns = units.duration_ns(_param(resolved, p), p)
        for f in FACTORS:
            out.append(Variant(f"{p} x{f:g}", _base(_with(q, p, f"{int(ns * f)}ns"), s, flows, f"{p}x{f:g}")))
    return out


EXPERIMENTS = [
    Experiment("transports", "Transport protocols", "§5",
               "TCP-friendly, aggressive (CUBIC with IW10 against Reno with IW3), unresponsive (UDP above "
               "capacity) and less-than-best-effort (LEDBAT beside Reno) senders.", transports),
    Experiment("rtt_fairness", "RTT fairness", "§6", "Eight flows with base RTTs from 5 to 560 ms.", rtt_fairness),
    Experiment("bursts", "Burst absorption", "§7", "A UDP burst at 3x capacity, a web page of 30 objects, a 2 MB "
               "video chunk, each over two bulk flows.", bursts),
    Experiment("stability", "Stability", "§8.2", "Flows arriving and leaving in waves; the capacity halving "
               "and recovering.", stability),
    Experiment("traffic", "Traffic profiles", "§9", "Bulk, web sessions and VoIP-like UDP together; bulk data "
               "in both directions.", traffic_profiles),
    Experiment("multi_aqm", "Multi-AQM path", "§10", "A 3-hop parking lot with the AQM on every hop, and with "
               "DropTail on the downstream hops.", multi_aqm),
    Experiment("ecn", "Interaction with ECN", "§4.5", "ECN-capable and non-ECN flows together; overload by "
               "ECN-capable UDP.", ecn),
    Experiment("scheduling", "Interaction with scheduling", "§4.6", "The AQM inside flow queueing.", scheduling),
    Experiment("sensitivity", "Operator control and auto-tuning", "§12", "Each time parameter halved and "
               "doubled, one at a time.", sensitivity),
]

# Not run, with the reason (shown on the page).
NOT_RUN = {
    "§11 implementation cost": "not a simulation experiment.",
}
