"""Scenarios: load, validate and resolve the description of one experiment.

A scenario file (TOML) or dict describes a dumbbell experiment::

    name = "pie-base"
    seed = 1
    duration = "100s"
    warmup = "10s"                   # metrics ignore what happens before

    [bottleneck]
    rate = "10Mbps"
    delay = "25ms"                   # one-way propagation of the bottleneck link
    rate_schedule = [{at = "50s", rate = "20Mbps"}]
    queue = {type = "drop_tail", limit = "200p"}

    [[flows]]
    type = "tcp"                     # tcp | udp
    count = 5
    rtt = "100ms"                    # or {uniform = ["160ms", "240ms"]}, or one value per flow
    start = {uniform = ["0s", "1s"]}

    [traces]
    queue = true

The tables below (:class:`ScenarioSpec` and the tables it holds) are the schema: each field's
name, unit, default, range and documentation are declared once, with :func:`aqmlab.schema.spec`;
the JSON Schema shipped with the package and ``docs/scenario-reference.md`` are generated from
them (``python -m aqmlab.reference``). Every value is checked; unknown keys
are errors; each error names its field path and what is accepted. :class:`Scenario` keeps two forms:
``resolved`` (every default filled in, in the file's own vocabulary, saved beside every result
and loadable again) and ``sim_config`` (integers in ns, bit/s and bytes, what the Rust simulator
reads). A scenario that validates is one the simulator accepts: the simulator's own checks run
during validation.
"""

from __future__ import annotations

import copy
import dataclasses
import json
import re
import tomllib
import warnings
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any, ClassVar

from . import units
from .errors import AqmlabWarning, ScenarioError
from .ppv import MARKER, Marker, check_marker
from .qdisc import QDISC
from .schema import (
    Bool, Choice, Custom, Dist, DistOf, Duration, Float, Int, Json, ListOf, Rate, Size, Str, Table, Tagged,
    fields_of, fmt_table, parse_table, sim_table, spec, toml_inline,
)

# ---------------------------------------------------------------------------------------------
# Irregular values: a loss model, an outage, a transfer-size distribution.


def _loss(v: Json, path: str) -> dict[str, Any]:
    if isinstance(v, dict) and set(v) == {"bernoulli"}:
        return {"bernoulli": Float(0.0, 1.0).parse(v["bernoulli"], f"{path}.bernoulli")}
    if isinstance(v, dict) and set(v) == {"periodic"}:
        return {"periodic": Int(1, 2**62).parse(v["periodic"], f"{path}.periodic")}
    raise ScenarioError(path, f"expected {{bernoulli = p}} or {{periodic = N}} (every N-th packet), got {v!r}")


def _loss_sim(v: dict[str, Any]) -> Json:
    ((model, x),) = v.items()
    return {model: {"p": x} if model == "bernoulli" else {"every": x}}


LOSS = Custom(_loss, dict, {"oneOf": [
    {"type": "object", "properties": {"bernoulli": {"type": "number", "minimum": 0, "maximum": 1}},
     "required": ["bernoulli"], "additionalProperties": False},
    {"type": "object", "properties": {"periodic": {"type": "integer", "minimum": 1}},
     "required": ["periodic"], "additionalProperties": False},
]}, "`{bernoulli = p}` (each packet lost with probability p) or `{periodic = N}` (every N-th packet)", _loss_sim)


def _outage(v: Json, path: str) -> tuple[int, int]:
    if not isinstance(v, list) or len(v) != 2:
        raise ScenarioError(path, f"expected [from, to], got {v!r}")
    a, b = (Duration().parse(x, f"{path}[{i}]") for i, x in enumerate(v))
    if a >= b:
        raise ScenarioError(path, f"from ({units.fmt_duration(a)}) must be before to ({units.fmt_duration(b)})")
    return a, b


# Capture points of `traces.pcap` (crates/sim/src/pcap.rs, POINTS).
PCAP_POINTS = ("bottleneck", "bottleneck_in", "reverse")

OUTAGE = Custom(_outage, lambda o: [units.fmt_duration(o[0]), units.fmt_duration(o[1])],
                {"type": "array", "items": Duration().json_schema(), "minItems": 2, "maxItems": 2},
                "`[from, to]`, two durations", lambda o: [o[0], o[1]])


def _size_dist(v: Json, path: str) -> dict[str, Any]:
    """'30KB' | {exponential = '12KB'} | {pareto = {mean = '12KB', shape = 1.2}}, in the
    simulator's form."""
    size = Size()
    if isinstance(v, dict) and set(v) == {"exponential"}:
        return {"exponential": {"mean": float(size.parse(v["exponential"], f"{path}.exponential"))}}
    if isinstance(v, dict) and set(v) == {"pareto"}:
        p = parse_table(_Pareto, v["pareto"], f"{path}.pareto")
        return {"pareto": {"mean": float(p.mean), "shape": p.shape}}
    if isinstance(v, dict):
        raise ScenarioError(path, f"expected a size like '30KB', {{exponential = '12KB'}} or "
                                  f"{{pareto = {{mean = '12KB', shape = 1.2}}}}, got {v!r}")
    return {"fixed": size.parse(v, path)}


@dataclass(frozen=True, kw_only=True)
class _Pareto:
    """Pareto-distributed sizes: heavy-tailed web objects."""

    mean: int = spec(Size(), "mean size")
    shape: float = spec(Float(1.0, 100.0, lo_open=True), "shape (above 1: a finite mean)")


def _size_fmt(d: dict[str, Any]) -> Json:
    ((kind, val),) = d.items()
    if kind == "fixed":
        return units.fmt_size(val)
    if kind == "exponential":
        return {"exponential": units.fmt_size(round(val["mean"]))}
    return {"pareto": {"mean": units.fmt_size(round(val["mean"])), "shape": val["shape"]}}


SIZE_DIST = Custom(_size_dist, _size_fmt, {"anyOf": [
    Size().json_schema(),
    {"type": "object", "properties": {"exponential": Size().json_schema()}, "required": ["exponential"],
     "additionalProperties": False},
    {"type": "object", "properties": {"pareto": {"type": "object", "properties": {
        "mean": Size().json_schema(), "shape": {"type": "number", "exclusiveMinimum": 1}},
        "required": ["mean", "shape"], "additionalProperties": False}},
     "required": ["pareto"], "additionalProperties": False},
]}, "a size (`\"30KB\"`), `{exponential = \"12KB\"}` or `{pareto = {mean = \"12KB\", shape = 1.2}}`")


# ---------------------------------------------------------------------------------------------
# The tables of a scenario file. A field is one line: kind and range, doc, default, sim name.


@dataclass(frozen=True, kw_only=True)
class RateStep:
    """A capacity change of the bottleneck, applied to both directions."""

    at: int = spec(Duration(), "time of the change, before the end of the run", sim="at_ns")
    rate: int = spec(Rate(), "the capacity from then on", sim="rate_bps")


@dataclass(frozen=True, kw_only=True)
class TargetStep:
    """A change of the bottleneck discipline's delay reference during the run (PIE and its
    variants; the discipline must accept a run-time `target`)."""

    at: int = spec(Duration(), "time of the change, before the end of the run", sim="at_ns")
    target: int = spec(Duration(), "the delay reference from then on", sim="target_ns")


@dataclass(frozen=True, kw_only=True)
class Impairment:
    """Losses on the bottleneck's forward direction, in front of the queue."""

    loss: dict[str, Any] | None = spec(LOSS, "random or periodic loss (unset: none)", default=None, sim="loss")
    mark: bool = spec(Bool(), "mark ECN-capable packets CE instead of dropping them", default=False,
                      sim="mark_instead")
    outages: list[tuple[int, int]] = spec(ListOf(OUTAGE, "[from, to] pairs"), "intervals during which every "
                                          "packet is lost (in time order, not overlapping, each starting before "
                                          "the end of the run)", default=[], sim="outages")


class _ImpairmentTable(Table):
    def sim(self, v: Any) -> Json:
        out = sim_table(v)
        out["loss"] = out["loss"] or "none"
        return out


class _LinkTable(Table):
    """A link table: its device fields go to the simulator as one `device` table (see
    DeviceConfig in crates/sim/src/config.rs)."""

    def sim(self, v: Any) -> Json:
        return {**sim_table(v), "device": {"overhead_bytes": v.overhead, "queue_packets": v.device_queue}}


# The network device under a link's discipline: link-layer bytes serialized with every packet
# (PPP 2 as ns-3's PointToPointNetDevice adds; Ethernet 38 with preamble, FCS and gap) and a
# device queue of N packets that the discipline feeds (ns-3's TxQueue, a NIC ring).
_OVERHEAD_DOC = "link-layer bytes serialized with every packet (PPP 2, Ethernet 38)"
_DEVICE_QUEUE_DOC = "packets held by the device under the discipline (ns-3's TxQueue; 0: none)"


@dataclass(frozen=True, kw_only=True)
class Bottleneck:
    """The bottleneck link: forward (data) direction with the queue under study, reverse (ACK)
    direction with its own queue."""

    rate: int = spec(Rate(), "capacity (both directions)", sim="rate_bps")
    delay: int = spec(Duration(), "one-way propagation delay", sim="delay_ns")
    # 65535 B: the largest IPv4 datagram.
    mtu: int = spec(Size(lo=41, hi=65535), "largest packet on the link (some AQMs use it)", default="1500B",
                    sim="mtu")
    queue: dict[str, Any] = spec(QDISC, "the discipline of the forward direction: the AQM under study",
                                 sim="queue")
    reverse_queue: dict[str, Any] = spec(QDISC, "the discipline of the reverse (ACK) direction",
                                         default={"type": "drop_tail", "limit": "100000p"}, sim="reverse_queue")
    rate_schedule: list[RateStep] = spec(ListOf(Table(RateStep), "{at, rate} tables"),
                                         "capacity changes, in strictly increasing time", default=[],
                                         sim="rate_schedule")
    target_schedule: list[TargetStep] = spec(ListOf(Table(TargetStep), "{at, target} tables"),
                                             "changes of the queue's delay reference, in time order",
                                             default=[], sim="target_schedule")
    impairment: Impairment | None = spec(_ImpairmentTable(Impairment), "loss and outages (unset: none)",
                                         default=None, sim="impairment")
    overhead: int = spec(Size(lo=0, hi=65535), _OVERHEAD_DOC, default="0B")
    device_queue: int = spec(Int(0, 1_000_000), _DEVICE_QUEUE_DOC, default=0)


@dataclass(frozen=True, kw_only=True)
class NetLink:
    """A duplex link between two routers of the `network`, besides the bottleneck."""

    ends: list[str] = spec(ListOf(Str(), "two router names", min_len=2), "the routers it joins, [from, to]: "
                           "`queue` serves from -> to, `reverse_queue` to -> from")
    rate: int = spec(Rate(), "capacity (both directions)", sim="rate_bps")
    delay: int = spec(Duration(), "one-way propagation delay", sim="delay_ns")
    queue: dict[str, Any] = spec(QDISC, "the discipline of the from -> to direction", sim="queue")
    reverse_queue: dict[str, Any] = spec(QDISC, "the discipline of the to -> from direction",
                                         default={"type": "drop_tail", "limit": "100000p"}, sim="reverse_queue")
    rate_schedule: list[RateStep] = spec(ListOf(Table(RateStep), "{at, rate} tables"),
                                         "capacity changes, in strictly increasing time", default=[],
                                         sim="rate_schedule")
    impairment: Impairment | None = spec(_ImpairmentTable(Impairment), "loss and outages of the from -> to "
                                         "direction (unset: none)", default=None, sim="impairment")
    overhead: int = spec(Size(lo=0, hi=65535), _OVERHEAD_DOC, default="0B")
    device_queue: int = spec(Int(0, 1_000_000), _DEVICE_QUEUE_DOC, default=0)


class _NetLinkTable(_LinkTable):
    """A network link: its ends go to the simulator as `from` and `to`."""

    def parse(self, value: Json, path: str) -> Any:
        link = super().parse(value, path)
        if len(link.ends) != 2:
            raise ScenarioError(f"{path}.ends", f"expected two router names, got {len(link.ends)}")
        return link

    def sim(self, v: Any) -> Json:
        out = super().sim(v)
        out["from"], out["to"] = v.ends
        return out


@dataclass(frozen=True, kw_only=True)
class Network:
    """Routers and links beyond the dumbbell (see aqmlab.topology for the parking lot and
    bidirectional builders). The bottleneck table is the link between the two `bottleneck`
    routers; flows run between the routers of their `route`."""

    nodes: list[str] = spec(ListOf(Str(), "router names", min_len=2), "the routers", sim="nodes")
    bottleneck: list[str] = spec(ListOf(Str(), "two router names", min_len=2), "the routers the bottleneck "
                                 "joins, [left, right] (its forward direction runs left to right)", sim="bottleneck")
    links: list[NetLink] = spec(ListOf(_NetLinkTable(NetLink), "[[network.links]] tables"), "the other links",
                                default=[], sim="links")


@dataclass(frozen=True, kw_only=True)
class Access:
    """The links between hosts and routers."""

    rate: int | None = spec(Rate(), "access link rate (unset: pure propagation delays, no serialization and "
                                    "no queue)", default=None, sim="rate_bps")
    queue: dict[str, Any] = spec(QDISC, "the discipline of rate-limited access links",
                                 default={"type": "drop_tail", "limit": "1000p"}, sim="queue")
    overhead: int = spec(Size(lo=0, hi=65535), _OVERHEAD_DOC + "; needs `rate`", default="0B")
    device_queue: int = spec(Int(0, 1_000_000), _DEVICE_QUEUE_DOC + "; needs `rate`", default=0)


@dataclass(frozen=True, kw_only=True)
class Traces:
    """What to record. Every trace is off unless asked for, and costs nothing when off."""

    interval: int = spec(Duration(lo_open=True), "sampling interval of the periodic traces (queue, flow_bytes, "
                                                 "probe, tcp)", default="10ms", sim="interval_ns")
    queue: bool = spec(Bool(), "bottleneck backlog, mean and last sojourn, link rate every interval", default=False, sim="queue")
    sojourn: bool = spec(Bool(), "per-packet bottleneck sojourn times", default=False, sim="sojourn")
    sojourn_every: int = spec(Int(1, 2**31 - 1), "record every n-th departure's sojourn (needs `sojourn`)", default=1,
                              sim="sojourn_every")
    flow_bytes: bool = spec(Bool(), "per-flow delivered bytes every interval", default=False, sim="flow_bytes")
    drops: bool = spec(Bool(), "every drop and ECN mark, with time, flow and reason", default=False, sim="drops")
    probe: bool = spec(Bool(), "the bottleneck AQM's internal variables every interval", default=False,
                       sim="probe")
    tcp: bool = spec(Bool(), "per-flow cwnd, ssthresh and smoothed RTT every interval", default=False, sim="tcp")
    pcap: list[str] = spec(ListOf(Choice(PCAP_POINTS), "capture points"), "packet captures written as pcap files "
                           "(Ethernet/IPv4/TCP or UDP, for Wireshark and tshark): `bottleneck` (packets leaving the "
                           "bottleneck queue, after drops and ECN marks), `bottleneck_in` (packets offered to it) or "
                           "`reverse` (the ACK direction leaving its queue); each point once", default=[], sim="pcap")
    pcap_snaplen: int = spec(Int(64, 262144, unit="B"), "bytes of each frame kept in the captures (headers take "
                             "54-94; needs `pcap`)", default=128, sim="pcap_snaplen")
    pcap_window: tuple[int, int] | None = spec(OUTAGE, "capture only in this [from, to] interval, within the run "
                                               "(needs `pcap`; unset: the whole run)", default=None,
                                               sim="pcap_window_ns")
    pcap_every: int = spec(Int(1, 2**31 - 1), "keep every n-th packet of each capture point (needs `pcap`)", default=1,
                           sim="pcap_every")


_ANY_DURATION = DistOf(Duration())
MAX_GROUP_FLOWS = 1_000_000


@dataclass(frozen=True, kw_only=True)
class FlowGroup:
    """A group of identical flows (same transport, same schedule)."""

    # Two ways of giving one quantity: one set by `with_values` replaces the other as written.
    ONE_OF: ClassVar[tuple[str, ...]] = ("rtt", "access_delay")

    name: str | None = spec(Str(), "the group's name in results (unset: its type and index, e.g. `tcp0`)",
                            default=None, sim="name")
    count: int = spec(Int(1, MAX_GROUP_FLOWS), "flows in the group", default=1, sim="count")
    rtt: Dist | None = spec(_ANY_DURATION, "base round-trip time: the sender's access link takes what the "
                            "bottleneck and receiver delays leave (give `rtt` or `access_delay`)", default=None)
    access_delay: Dist | None = spec(_ANY_DURATION, "one-way delay of each sender's access link",
                                     default=None, sim="access_delay_ns")
    receiver_delay: int = spec(Duration(), "one-way delay of each receiver's access link", default="0s",
                               sim="receiver_delay_ns")
    start: Dist = spec(_ANY_DURATION, "start time of each flow, before the end of the run (of a range, its low "
                       "end)", default="0s", sim="start_ns")
    stop: int | None = spec(Duration(), "time the group's flows stop sending, at most the end of the run "
                          "(unset: the end of the run)",
                            default=None, sim="stop_ns")
    packet_size: int = spec(Size(lo=41, hi=65535), "a full data packet on the wire, headers included (more "
                            "than the 40-byte IP and TCP headers, at most bottleneck.mtu)", default="1000B",
                            sim="packet_size")
    dscp: int = spec(Int(0, 63), "DiffServ code point of the group's data packets", default=0, sim="dscp")
    marker: Marker | None = spec(MARKER, "Per Packet Value marking (see aqmlab.ppv)", default=None, sim="marker")
    route: list[str] | None = spec(ListOf(Str(), "router names", min_len=2), "the routers the data crosses, first "
                                   "to last, on fewest-hop paths between them (needs `network`; unset: the "
                                   "bottleneck's ends, left to right)", default=None, sim="route")


def _tcp_profiles() -> list[str]:
    from . import _core

    return list(_core.TCP_PROFILES)


def _bytes_or_unlimited(v: Json, path: str) -> int | str:
    return "unlimited" if v == "unlimited" else Size(lo=1).parse(v, path)


_BYTES_OR_UNLIMITED = Custom(
    # The simulator writes an unbounded window as null (resolved profiles carry it so).
    _bytes_or_unlimited, lambda v: "unlimited" if v in ("unlimited", None) else units.fmt_size(v),
    {"anyOf": [Size(lo=1).json_schema(), {"const": "unlimited"}]},
    "a size, or `\"unlimited\"` (no bound)", lambda v: None if v == "unlimited" else v)


@dataclass(frozen=True, kw_only=True)
class TcpGroup(FlowGroup):
    """TCP flows. A named profile sets every TCP option (see the profile table); each option
    given here overrides it. Without `size`, `think` or `arrival_rate` a flow is a bulk (FTP-like)
    transfer from start to stop."""

    TAG: ClassVar[tuple[str, str]] = ("type", "tcp")
    profile: str = spec(Choice(_tcp_profiles), "the TCP whose defaults apply", default="ns2-sack")
    cc: str | None = spec(Choice(("newreno", "cubic", "dctcp", "prague", "ledbat")), "congestion control (`ledbat`: RFC 6817 on round-trip delay; `prague`: TCP "
                          "Prague, sends ECT(1) with AccECN feedback and pacing unless `ect`/`ecn`/`pacing` say otherwise)",
                          default=None, sim="cc")
    sack: bool | None = spec(Bool(), "SACK loss recovery (RFC 6675); without it NewReno (RFC 6582)",
                             default=None, sim="sack")
    prr: bool | None = spec(Bool(), "Proportional Rate Reduction in SACK recovery (RFC 6937)", default=None,
                            sim="prr")
    limited_transmit: bool | None = spec(Bool(), "limited transmit (RFC 3042)", default=None, sim="limited_transmit")
    keep_sack_on_rto: bool | None = spec(Bool(), "keep the SACK scoreboard across a timeout (Linux)", default=None,
                                         sim="keep_sack_on_rto")
    growth: str | None = spec(Choice(("per_ack", "byte_counting")), "window growth per ACK or by bytes acked "
                              "(RFC 3465)", default=None, sim="growth")
    reduce_from: str | None = spec(Choice(("flight", "pipe", "cwnd")), "what a congestion response halves",
                                   default=None, sim="reduce_from")
    initial_cwnd: int | None = spec(Int(1, 1000), "initial window, segments", default=None, sim="initial_cwnd")
    rwnd: int | None = spec(Int(1, 2**31 - 1), "receive window, segments", default=None, sim="rwnd")
    min_rto: int | None = spec(Duration(lo_open=True), "lower bound on the RTO (RFC 6298)", default=None,
                               sim="min_rto_ns")
    initial_rto: int | None = spec(Duration(lo_open=True), "RTO before the first RTT sample", default=None,
                                   sim="initial_rto_ns")
    max_rto: int | None = spec(Duration(lo_open=True), "upper bound on the RTO", default=None, sim="max_rto_ns")
    clock_granularity: int | None = spec(Duration(), "RTT measurement tick (RFC 6298's G)", default=None,
                                         sim="clock_granularity_ns")
    dupack_threshold: int | None = spec(Int(1, 1000), "duplicate ACKs that trigger fast retransmit",
                                        default=None, sim="dupack_threshold")
    ecn: str | None = spec(Choice(("off", "classic", "dctcp", "accecn"), {True: "classic", False: "off"}),
                           "ECN: RFC 3168 (`classic`), DCTCP's exact echo, Accurate ECN's CE counter (RFC 9768), "
                           "or off", default=None, sim="ecn")
    ect: str | None = spec(Choice(("ect0", "ect1")), "the ECN-capable codepoint of data: ECT(0) (RFC 3168) or "
                           "ECT(1), the L4S identifier (RFC 9331) that a DualQ AQM puts in its L queue",
                           default=None, sim="ect")
    timestamps: bool | None = spec(Bool(), "RTT samples from timestamps on every ACK (RFC 7323)", default=None,
                                   sim="timestamps")
    ack_every: int | None = spec(Int(1, 64), "the receiver acknowledges every n-th segment", default=None,
                                 sim="ack_every")
    delack_timeout: int | None = spec(Duration(lo_open=True), "the delayed-ACK timer", default=None,
                                      sim="delack_timeout_ns")
    hystart: bool | None = spec(Bool(), "HyStart slow-start exit (Linux tcp_cubic)", default=None, sim="hystart")
    rack: bool | None = spec(Bool(), "RACK-TLP loss detection (RFC 8985); needs `sack`", default=None, sim="rack")
    rcv_wnd: int | str | None = spec(_BYTES_OR_UNLIMITED, "receive window (ns-3 128 KiB, Linux 3 MiB, ns-2 "
                                     "unlimited)", default=None, sim="rcv_wnd_bytes")
    snd_buf: int | str | None = spec(_BYTES_OR_UNLIMITED, "send buffer (ns-3 128 KiB, Linux 4 MiB, ns-2 "
                                     "unlimited)", default=None, sim="snd_buf_bytes")
    option_bytes: str | None = spec(Choice(("uncounted", "ns3", "linux")), "how TCP options count in packet "
                                    "sizes: not at all (ns-2), packed and padded (ns-3), NOP-aligned (Linux)",
                                    default=None, sim="option_bytes")
    cubic_alpha: str | None = spec(Choice(("fixed", "rfc9438")), "CUBIC's Reno-friendly α: 3(1−β)/(1+β) "
                                   "throughout (ns-3, Linux) or 1 once cwnd passes cwnd_prior (RFC 9438 §4.3)",
                                   default=None, sim="cubic_alpha")
    lost_retransmit: bool | None = spec(Bool(), "Linux's pre-RACK lost-retransmission detection "
                                        "(tcp_mark_lost_retrans)", default=None, sim="lost_retransmit")
    rescue_retransmit: bool | None = spec(Bool(), "RFC 6675 NextSeg rule 4, the rescue retransmission",
                                          default=None, sim="rescue_retransmit")
    keep_high_rxt: bool | None = spec(Bool(), "a segment resent in one SACK recovery stays resent in the next, in "
                                      "its pipe and passed over by NextSeg, until a timeout (ns-3.44's "
                                      "retransmitted flags), rather than RFC 6675's HighRxt per recovery",
                                      default=None, sim="keep_high_rxt")
    ecn_cwr: str | None = spec(Choice(("grow", "hold", "prr")), "the window after an ECN reduction until the data "
                               "then outstanding is acknowledged: grows (RFC 3168 as written), held at ssthresh "
                               "(ns-3 without PRR), or brought down by PRR (ns-3 with PRR, Linux)",
                               default=None, sim="ecn_cwr")
    prr_delivered: str | None = spec(Choice(("rfc6937", "ns3")), "how PRR counts the data each ACK delivers: "
                                     "once (RFC 6937), or as ns-3.44's TcpPrrRecovery does (a segment more per "
                                     "call for a duplicate ACK while under RecoverFS, SACK or not; an ACK that SACKs "
                                     "and advances counted twice; sndcnt in bytes, its product in 32 bits)",
                                     default=None, sim="prr_delivered")
    prr_recover_fs: str | None = spec(Choice(("flight", "pipe", "cwnd")), "PRR's RecoverFS: the FlightSize "
                                      "(RFC 6937), the pipe with the head counted lost (ns-3.44), or the window "
                                      "before the reduction (Linux's prior_cwnd)",
                                      default=None, sim="prr_recover_fs")
    prr_ssrb: str | None = spec(Choice(("rfc6937", "linux")), "when PRR's slow-start reduction bound sends a "
                                "segment more than an ACK delivered: always (RFC 6937) or on an ACK that advances "
                                "snd_una and marks nothing newly lost (Linux)", default=None, sim="prr_ssrb")
    pacing: bool | None = spec(Bool(), "pace data at a multiple of cwnd/srtt (Linux's internal pacing; on for "
                               "Prague)", default=None, sim="pacing")
    prague: str | None = spec(Choice(("linux", "draft")), "which TCP Prague: `linux` (tcp_prague v0.7: α from 0, "
                              "no fall-back) or `draft` (α from 1, fall-back to a Reno-friendly response on a "
                              "Classic ECN AQM, RFC 9331 §4.3)", default=None, sim="prague")
    dctcp: str | None = spec(Choice(("rfc", "linux", "ns3")), "whose DCTCP: RFC 8257 (α updated on the first "
                             "ACK past the data sent when its window began), Linux's tcp_dctcp (on the ACK that "
                             "reaches it, α in 1/1024 and whole-segment reductions) or ns-3's TcpDctcp (as "
                             "Linux's window, its first set at the first ACK; reals)", default=None, sim="dctcp")
    # The application.
    size: dict[str, Any] | None = spec(SIZE_DIST, "payload per transfer: one transfer at start (a fixed size), "
                                       "or objects of random size with `think` or `arrival_rate`", default=None)
    think: int | None = spec(Duration(lo_open=True), "mean think time between the objects of a session",
                             default=None)
    arrival_rate: float | None = spec(Float(0.0, 1e9, lo_open=True, unit="per s"), "Poisson arrivals of "
                                      "transfers, each on a host pair of its own (needs a fixed start, a stop and "
                                      "count = 1)", default=None)


@dataclass(frozen=True, kw_only=True)
class UdpGroup(FlowGroup):
    """Constant-bit-rate UDP sources."""

    TAG: ClassVar[tuple[str, str]] = ("type", "udp")
    rate: int = spec(Rate(), "bit rate on the wire", sim="rate_bps")
    ecn: bool = spec(Bool(), "send ECN-capable, so an ECN AQM marks rather than drops", default=False, sim="ecn")
    ect: str = spec(Choice(("ect0", "ect1")), "the codepoint with `ecn`: ECT(0), or ECT(1), the L4S identifier "
                    "(RFC 9331)", default="ect0", sim="ect")


FLOW = Tagged("type", {"tcp": TcpGroup, "udp": UdpGroup})


@dataclass(frozen=True, kw_only=True)
class ScenarioSpec:
    """One experiment on a dumbbell."""

    name: str = spec(Str(), "names the run in results", default="scenario")
    description: str = spec(Str(nonempty=False), "free text", default="")
    seed: int = spec(Int(0, 2**64 - 1), "seed of the run; every component derives its own stream", default=1,
                     sim="seed")
    duration: int = spec(Duration(lo_open=True), "the run stops at this simulated time", sim="duration_ns")
    warmup: int = spec(Duration(), "metrics ignore what happens before this time", default="0s", sim="warmup_ns")
    bottleneck: Bottleneck = spec(_LinkTable(Bottleneck), "the bottleneck link", sim="bottleneck")
    access: Access = spec(_LinkTable(Access), "the access links", default={}, sim="access")
    flows: list[TcpGroup | UdpGroup] = spec(ListOf(FLOW, "flow groups ([[flows]] tables)", min_len=1),
                                            "the flow groups, in order (flow ids count up through them)")
    traces: Traces = spec(Table(Traces), "what to record", default={}, sim="traces")
    network: Network | None = spec(Table(Network), "routers and links beyond the dumbbell (unset: the dumbbell)",
                                   default=None, sim="network")


# ---------------------------------------------------------------------------------------------
# What one field cannot say alone.


def _own_fields(cls: type) -> list[tuple[str, Any]]:
    """A flow type's own fields (the transport's), not the group's common ones."""
    common = {n for n, _ in fields_of(FlowGroup)}
    return [(n, f) for n, f in fields_of(cls) if n not in common]


def _route_delay(g: FlowGroup, path: str, b: Bottleneck, network: Network | None) -> int:
    """One-way propagation delay between the group's routers, as the simulator routes it."""
    if network is None:
        if g.route is not None:
            raise ScenarioError(f"{path}.route", "routes need a [network] (routers and links)")
        return b.delay
    from . import _core

    try:
        return _core.route_delay(json.dumps(sim_table(network)), b.delay, g.route or network.bottleneck)
    except ValueError as e:
        where, _, message = str(e).partition(": ")
        raise ScenarioError(f"{path}.route" if where == "route" else user_path(where), message) from None


def _flow(g: TcpGroup | UdpGroup, path: str, index: int, b: Bottleneck, duration: int,
          network: Network | None = None) -> tuple[Any, dict[str, Any]]:
    """Checks a group against the rest of the scenario; returns it resolved (name, access delays,
    TCP profile expanded) and the simulator's form of the group."""
    g = dataclasses.replace(g, name=g.name or f"{g.TAG[1]}{index}")
    if (g.rtt is None) == (g.access_delay is None):
        raise ScenarioError(f"{path}.rtt", "give exactly one of 'rtt' (base round trip) or 'access_delay'")
    if g.rtt is not None:
        # Base RTT = 2 (access + route + receiver delay): the sender's access link takes the rest.
        fixed = _route_delay(g, path, b, network) + g.receiver_delay
        low = min(g.rtt.values())
        if low < 2 * fixed:
            what = "bottleneck" if network is None else "route's"
            raise ScenarioError(f"{path}.rtt", f"{units.fmt_duration(low)} is below twice the {what} and receiver "
                                               f"delays ({units.fmt_duration(2 * fixed)})")
        g = dataclasses.replace(g, access_delay=g.rtt.map(lambda r: r // 2 - fixed), rtt=None)
    for key, d in (("rtt", g.access_delay), ("start", g.start)):
        if d is not None and d.each is not None and len(d.each) != g.count:
            raise ScenarioError(f"{path}.{key}", f"{len(d.each)} values given for count = {g.count}")
    if g.packet_size > b.mtu:
        raise ScenarioError(f"{path}.packet_size", f"{g.packet_size} B exceeds bottleneck.mtu ({b.mtu} B)")
    if g.marker is not None:
        check_marker(g.marker, f"{path}.marker", g.count)
    if g.start.each is not None:
        for i, start in enumerate(g.start.each):
            _before_end(start, f"{path}.start[{i}]", duration, "that flow would never send")
    else:  # a range is refused only when all of it is past the end (some draws may fall before)
        _before_end(min(g.start.values()), f"{path}.start", duration, "the group would never send")
    if g.stop is not None and g.stop > duration:
        raise ScenarioError(f"{path}.stop", f"{units.fmt_duration(g.stop)} is after the end of the run "
                                            f"({units.fmt_duration(duration)}): the stop would never apply; leave "
                                            "stop unset for flows that send until the end")
    if g.stop is not None and g.stop <= max(g.start.values()):
        _warn(f"{path}.stop", f"{units.fmt_duration(g.stop)} is not after every flow's start: "
                              "flows that start at or after it never send")
    flow = {**sim_table(g, FlowGroup)}
    if isinstance(g, TcpGroup):
        g, flow["transport"] = _resolve_tcp(g, path)
        flow["app"] = _app(g, path)
    else:
        flow["transport"] = {"type": "udp", **{f.sim: f.kind.sim(getattr(g, n)) for n, f in _own_fields(UdpGroup)}}
        flow["app"] = {"type": "bulk"}
    return g, flow


def _resolve_tcp(g: TcpGroup, path: str) -> tuple[TcpGroup, dict[str, Any]]:
    """Expands the TCP profile with the group's overrides (in the simulator); returns the group
    with every option filled in and the simulator's TcpConfig."""
    from . import _core

    own = [(n, f) for n, f in _own_fields(TcpGroup) if f.sim is not None]
    overrides = {f.sim: f.kind.sim(getattr(g, n)) for n, f in own if getattr(g, n) is not None}
    if g.cc == "dctcp" and g.ecn is None:
        overrides["ecn"] = "dctcp"  # DCTCP needs its exact echo (RFC 8257 §3.2)
    if g.sack is False:
        # RACK-TLP marks losses from SACKed data (RFC 8985 §2) and PRR counts delivered data from
        # the scoreboard (RFC 6937 §3): a profile's RACK and PRR go with its SACK unless given.
        overrides.update({k: False for k in ("rack", "prr") if getattr(g, k) is None})
    try:
        tcp: dict[str, Any] = json.loads(_core.resolve_tcp(g.profile, json.dumps(overrides)))
    except ValueError as e:
        field, _, rest = str(e).partition(":")
        user = next((n for n, f in own if f.sim == field), None)
        raise ScenarioError(f"{path}.{user}" if user else path, rest.strip() if user else str(e)) from None
    if tcp["rack"] and not tcp["sack"]:
        raise ScenarioError(f"{path}.rack", "RACK-TLP needs SACK (RFC 8985 §2): set sack = true or rack = false")
    _check_unread(g, overrides, tcp, path)
    # The simulator writes an unbounded window or buffer as null.
    unbounded = {"rcv_wnd_bytes", "snd_buf_bytes"}
    changes: dict[str, Any] = {n: "unlimited" if f.sim in unbounded and tcp[f.sim] is None else tcp[f.sim]
                               for n, f in own if f.sim in tcp}
    resolved = dataclasses.replace(g, **changes)
    return resolved, {"type": "tcp", **tcp}


def _prr_runs(t: dict[str, Any]) -> bool:
    """PRR runs in loss recovery (``prr``) or in ECN reductions (``ecn_cwr = "prr"``)."""
    return bool(t["prr"] or t["ecn_cwr"] == "prr")


# Options that only some flows read (crates/sim/src/tcp): (option, whether this flow reads it, what
# it needs to be read).
_PRR_RUNS = "prr = true (loss recovery) or ecn_cwr = \"prr\" (ECN reductions)"
_READ_WHEN: list[tuple[str, Callable[[dict[str, Any]], bool], str]] = [
    ("cubic_alpha", lambda t: t["cc"] == "cubic", "cc = \"cubic\""),
    ("prague", lambda t: t["cc"] == "prague", "cc = \"prague\""),
    ("dctcp", lambda t: t["cc"] == "dctcp", "cc = \"dctcp\""),
    ("ect", lambda t: t["ecn"] != "off", "ECN (ecn other than \"off\"): Not-ECT data carries no codepoint"),
    ("ecn_cwr", lambda t: t["ecn"] != "off", "ECN (ecn other than \"off\"): no echo, no reduction"),
    ("prr_delivered", _prr_runs, _PRR_RUNS),
    ("prr_recover_fs", _prr_runs, _PRR_RUNS),
    ("prr_ssrb", _prr_runs, _PRR_RUNS),
    ("keep_sack_on_rto", lambda t: t["sack"], "sack = true: without SACK there is no scoreboard to keep"),
    ("rescue_retransmit", lambda t: t["sack"], "sack = true (RFC 6675's SACK recovery)"),
    ("lost_retransmit", lambda t: t["sack"] and not t["rack"],
     "sack = true and rack = false (RACK finds lost retransmissions its own way, RFC 8985 §2.2)"),
    ("delack_timeout_ns", lambda t: t["ack_every"] > 1, "ack_every above 1: with 1 every segment is acknowledged "
                                                         "at once, and the timer never runs"),
]


def _check_unread(g: TcpGroup, overrides: dict[str, Any], tcp: dict[str, Any], path: str) -> None:
    """Warns of an option given a value the flow never reads (another congestion control's, ECN's
    without ECN, PRR's without PRR): it changes nothing. A warning, not an error: a saved
    scenario.toml writes every option, and an edit (``prr = false``) can leave one unread that the
    user never wrote. One given at the value it would take anyway passes quietly."""
    from . import _core

    own = {f.sim: (n, f) for n, f in _own_fields(TcpGroup) if f.sim is not None}
    for sim, reads, needs in _READ_WHEN:
        if sim not in overrides or reads(tcp):
            continue
        unset = json.loads(_core.resolve_tcp(g.profile, json.dumps({k: v for k, v in overrides.items() if k != sim})))
        if overrides[sim] != unset[sim]:
            name, f = own[sim]
            shown = toml_inline(f.kind.fmt(getattr(g, name)))
            _warn(f"{path}.{name}", f"{shown} changes nothing: this option is read only with {needs}")


def _app(g: TcpGroup, path: str) -> dict[str, Any]:
    size, think, rate = g.size, g.think, g.arrival_rate
    if rate is not None:
        if size is None or g.stop is None or g.start.fixed is None or g.count != 1:
            raise ScenarioError(f"{path}.arrival_rate", "Poisson arrivals need 'size', a fixed 'start', a 'stop' and count = 1")
        if think is not None:
            raise ScenarioError(f"{path}.think", "give 'think' (sessions) or 'arrival_rate' (Poisson arrivals), not both")
        return {"type": "poisson", "rate_per_s": rate, "size": size}
    if think is not None:
        if size is None:
            raise ScenarioError(f"{path}.size", "sessions ('think') need an object 'size'")
        return {"type": "sessions", "size": size, "think_mean_ns": think}
    if size is None:
        return {"type": "bulk"}
    if "fixed" not in size:
        raise ScenarioError(f"{path}.size", "a single transfer needs a fixed size; random sizes go with 'think' or 'arrival_rate'")
    return {"type": "transfer", "bytes": size["fixed"]}


def _check_schedule(b: Bottleneck, duration: int) -> None:
    for i in range(1, len(b.target_schedule)):
        if b.target_schedule[i].at < b.target_schedule[i - 1].at:
            raise ScenarioError(f"bottleneck.target_schedule[{i}].at", "steps must be in time order")
    for i, step in enumerate(b.target_schedule):
        _before_end(step.at, f"bottleneck.target_schedule[{i}].at", duration, "the change would never apply")
    _check_link_schedule(b, "bottleneck", duration)


def _check_link_schedule(link: Bottleneck | NetLink, path: str, duration: int) -> None:
    """A link's capacity steps and outages: in time order, each starting before the end of the run."""
    steps = link.rate_schedule
    for i in range(1, len(steps)):
        if steps[i].at < steps[i - 1].at:
            raise ScenarioError(f"{path}.rate_schedule[{i}].at", "steps must be in time order")
        if steps[i].at == steps[i - 1].at:
            raise ScenarioError(f"{path}.rate_schedule[{i}].at", f"two steps at {units.fmt_duration(steps[i].at)}: "
                                                                 "which rate applies is ambiguous")
    for i, step in enumerate(steps):
        _before_end(step.at, f"{path}.rate_schedule[{i}].at", duration, "the change would never apply")
    if link.impairment is None:
        return
    spans = link.impairment.outages
    for i in range(1, len(spans)):
        if spans[i][0] < spans[i - 1][1]:
            raise ScenarioError(f"{path}.impairment.outages[{i}]", "outages must be in time order and must not "
                                                                   f"overlap (the previous one ends at "
                                                                   f"{units.fmt_duration(spans[i - 1][1])})")
    for i, (start, _) in enumerate(spans):
        _before_end(start, f"{path}.impairment.outages[{i}]", duration, "the outage would never happen")


# Trace options that tune another trace, and the trace they need: (option, needed, why).
_NO_CAPTURE = "traces.pcap: with no capture point nothing is captured"
_TRACE_OPTIONS = [
    ("pcap_snaplen", "pcap", _NO_CAPTURE),
    ("pcap_window", "pcap", _NO_CAPTURE),
    ("pcap_every", "pcap", _NO_CAPTURE),
    ("sojourn_every", "sojourn", "traces.sojourn = true: without it no sojourn time is recorded"),
]


def _check_traces(t: Traces, duration: int) -> None:
    """Refuses trace options that would change nothing: a tuning of a trace that is off, a
    capture point given twice, a capture window past the end. A tuning left at its default
    passes, as a saved scenario.toml writes every default."""
    defaults = parse_table(Traces, {}, "traces")
    for option, needed, why in _TRACE_OPTIONS:
        if not getattr(t, needed) and getattr(t, option) != getattr(defaults, option):
            raise ScenarioError(f"traces.{option}", f"applies only with {why}")
    for i, point in enumerate(t.pcap):
        if point in t.pcap[:i]:
            raise ScenarioError(f"traces.pcap[{i}]", f"{point!r} is given twice: each point is captured once, "
                                                     "into one file")
    window = t.pcap_window
    if window is not None and window[1] > duration:
        raise ScenarioError("traces.pcap_window", f"ends at {units.fmt_duration(window[1])}, after the end of the run "
                                                  f"({units.fmt_duration(duration)}): give a window within the run")


def _before_end(t: int, path: str, duration: int, what: str) -> None:
    """Refuses a time at or after the end of the run: what it schedules would never happen."""
    if t >= duration:
        raise ScenarioError(path, f"{units.fmt_duration(t)} is at or after the end of the run "
                                  f"({units.fmt_duration(duration)}): {what}")


# The disciplines that rank packets by their Packet Value code, and what each amounts to when no
# flow is marked: every packet then carries code 0 (crates/aqm/src/ppv.rs), all equal.
_WITHOUT_VALUES = {
    "pvpie": "its filter never drops or marks (a drop-tail queue)",
    "ppv": "it drops its oldest packet whenever it is full (a head-drop FIFO)",
}


def _value_queues(q: Json, path: str) -> list[tuple[str, str]]:
    """The Packet Value disciplines in a queue table, nested ones included: (path, type)."""
    if not isinstance(q, dict):
        return []
    own = [(f"{path}.type", q["type"])] if q.get("type") in _WITHOUT_VALUES else []
    return own + [found for k, v in q.items() for found in _value_queues(v, f"{path}.{k}")]


def _check_values_marked(s: ScenarioSpec) -> None:
    """Refuses a Packet Value discipline when no flow group has a marker: it would run as a plain
    FIFO, in a result that says PVPIE or PPV."""
    if any(g.marker is not None for g in s.flows):
        return
    links: list[tuple[str, Any]] = [("bottleneck", s.bottleneck), ("access", s.access)]
    links += [(f"network.links[{i}]", link) for i, link in enumerate(s.network.links if s.network else [])]
    for name, link in links:
        for key in ("queue", "reverse_queue"):
            for path, kind in _value_queues(getattr(link, key, None), f"{name}.{key}"):
                raise ScenarioError(path, f"{kind!r} acts on Packet Values, but no flow group has a marker: "
                                          f"every packet carries code 0, so {_WITHOUT_VALUES[kind]}; give the "
                                          "groups it should rank a flows[].marker (e.g. marker = {tvf = "
                                          "\"gold\"}, see aqmlab.ppv), or choose another queue type")


def _bottleneck_crossings(network: Network, route: list[str]) -> list[bool]:
    """Each crossing of the bottleneck by data sent along ``route``: True left to right (its
    forward direction), False backwards. Asked of the simulator's own routing (route_delay), not
    a copy of it: with every other link 1 ns long, a pair of consecutive routers whose path
    takes longer than all the other links together crosses the bottleneck, and then forwards
    when its first router is nearer, in hops, the bottleneck's left end than its right one (a
    fewest-hop path reaches the end it leaves from first)."""
    from . import _core

    hops = json.dumps(sim_table(dataclasses.replace(
        network, links=[dataclasses.replace(link, delay=1) for link in network.links])))
    long = len(network.links) + 1
    left, right = network.bottleneck

    def distance(a: str, b: str, bottleneck: int = 1) -> int:
        return 0 if a == b else _core.route_delay(hops, bottleneck, [a, b])

    return [distance(a, left) < distance(a, right)
            for a, b in zip(route, route[1:]) if distance(a, b, long) >= long]


def _warn_if_bottleneck_not_crossed_forward(s: ScenarioSpec) -> None:
    """Warns when no flow group sends its data over the bottleneck's forward direction: the
    summary's headline figures (utilization, queue delay, drops) are that direction's, and would
    describe a link the data never crossed while another one is the real bottleneck. Data sent
    backwards beside forward traffic is bidirectional traffic (aqmlab.topology), as meant."""
    if s.network is None:
        return
    backwards, forwards = [], False
    for i, g in enumerate(s.flows):
        crossings = _bottleneck_crossings(s.network, g.route or s.network.bottleneck)
        forwards = forwards or any(crossings)
        if not all(crossings):
            backwards.append(f"flows[{i}] ({g.name!r})")
    if forwards:
        return
    left, right = s.network.bottleneck
    verb = "crosses" if len(backwards) == 1 else "cross"
    crossed = (f"; {', '.join(backwards)} {verb} it backwards ({right} -> {left}), the queue "
               "'reverse_bottleneck'") if backwards else ""
    _warn("network.bottleneck", f"no flow group's data crosses the bottleneck forward ({left} -> {right}): the "
                                f"headline figures (utilization, queue delay, drops) are that direction's{crossed}; "
                                "summary['links'] has every queue's figures, or make the link the data crosses "
                                "the bottleneck")


def _warn(path: str, message: str) -> None:
    warnings.warn(f"{path}: {message}", AqmlabWarning, stacklevel=4)


# ---------------------------------------------------------------------------------------------
# Strict-priority tables select flows by group name: a convenience resolved here.


def _group_flow_ids(flows: Json) -> dict[str, list[int] | None]:
    """Flow ids of each named group, as the simulator numbers them (groups in order). A group
    of Poisson arrivals has as many flows as arrivals, known only at run time: the ids of the
    groups from it on are not known here (None). A group whose count is invalid is refused
    here, as the flows' own check would refuse it: the queue is checked before the flows, and
    its check would otherwise find the group's flows missing."""
    ids: dict[str, list[int] | None] = {}
    n, known = 0, True
    for i, g in enumerate(flows if isinstance(flows, list) else []):
        if not isinstance(g, dict):
            continue
        name = g.get("name") or f"{g.get('type')}{i}"
        if "arrival_rate" in g:
            known = False
        count = Int(1, MAX_GROUP_FLOWS).parse(g.get("count", 1), f"flows[{i}].count")
        ids[str(name)] = list(range(n, n + count)) if known else None
        n += count
    return ids


def _select_groups(q: Json, path: str, ids: dict[str, list[int] | None]) -> None:
    """Replaces `high_groups = ["voip"]` in strict-priority tables by the groups' flow ids."""
    if not isinstance(q, dict):
        return
    if "high_groups" in q:
        groups = q.pop("high_groups")
        if not isinstance(groups, list):
            raise ScenarioError(f"{path}.high_groups", f"expected a list of flow group names, got {groups!r}")
        flows = q.get("high_flows", [])
        flows = list(flows) if isinstance(flows, list) else flows
        for name in groups:
            if not isinstance(name, str) or name not in ids:
                raise ScenarioError(f"{path}.high_groups", f"no flow group named {name!r} (groups: {', '.join(ids)})")
            group = ids[name]
            if group is None:
                raise ScenarioError(f"{path}.high_groups", f"group {name!r} comes at or after a group of Poisson "
                                    "arrivals, whose flow count is known only at run time: select it by dscp")
            flows += group
        q["high_flows"] = flows
    for k, v in q.items():
        _select_groups(v, f"{path}.{k}", ids)


# ---------------------------------------------------------------------------------------------
# The simulator's own checks, with its field paths read back into the scenario's.

_INDEX = re.compile(r"\[(\d+)\]")


# The simulator's application fields (built by `_app`, not declared one to one) by the names
# of the flow group fields they come from.
_APP_FIELDS = {"rate_per_s": "arrival_rate", "bytes": "size", "think_mean_ns": "think"}


def user_path(sim_path: str) -> str:
    """``flows[0].transport.min_rto_ns`` -> ``flows[0].min_rto``: the simulator's field path as the
    scenario names it, from the ``sim`` names the schema declares (unknown parts kept)."""
    classes: list[type] = [ScenarioSpec]
    out: list[str] = []
    for part in sim_path.split("."):
        name, _, rest = part.partition("[")
        match = next(((n, f) for c in classes for n, f in fields_of(c) if f.sim == name or n == name), None)
        if match is None and name in _APP_FIELDS:
            out.append(_APP_FIELDS[name])
            classes = []
            continue
        if match is None:
            if name not in ("transport", "app"):   # the simulator's grouping of a flow's fields
                out.append(part)
            continue
        out.append(match[0] + (f"[{rest}" if rest else ""))
        kind = match[1].kind
        kind = getattr(kind, "item", kind)
        classes = [kind.cls] if isinstance(kind, Table) else list(kind.variants.values()) if isinstance(kind, Tagged) else []
    return ".".join(out)


def _check_in_simulator(sim_config: dict[str, Any]) -> None:
    from . import _core

    try:
        _core.validate(json.dumps(sim_config))
    except ValueError as e:
        path, sep, message = str(e).partition(": ")
        if not sep:
            raise ScenarioError("", f"the simulator rejects the scenario: {e}") from None
        raise ScenarioError(user_path(path), message) from None


# ---------------------------------------------------------------------------------------------
# Scenarios


def _parse(data: Json) -> tuple[dict[str, Any], dict[str, Any]]:
    """A user's scenario -> (resolved form, simulator form)."""
    if not isinstance(data, dict):
        raise ScenarioError("", f"a scenario is a table, got {type(data).__name__}")
    if isinstance(data.get("bottleneck"), dict):
        _select_groups(data["bottleneck"].get("queue"), "bottleneck.queue", _group_flow_ids(data.get("flows")))
    s = parse_table(ScenarioSpec, data, "")
    if s.warmup >= s.duration:
        raise ScenarioError("warmup", f"must be shorter than duration ({units.fmt_duration(s.duration)})")
    _check_schedule(s.bottleneck, s.duration)
    for i, link in enumerate(s.network.links if s.network is not None else []):
        _check_link_schedule(link, f"network.links[{i}]", s.duration)
    _check_traces(s.traces, s.duration)
    for key in ("overhead", "device_queue"):
        if s.access.rate is None and getattr(s.access, key):
            raise ScenarioError(f"access.{key}", "needs access.rate: access links without a rate are pure delays, "
                                                 "with no device")
    groups, flows = [], []
    for i, g in enumerate(s.flows):
        resolved, flow = _flow(g, f"flows[{i}]", i, s.bottleneck, s.duration, s.network)
        groups.append(resolved)
        flows.append(flow)
    s = dataclasses.replace(s, flows=groups)
    _check_values_marked(s)
    _warn_if_bottleneck_not_crossed_forward(s)
    sim = {**sim_table(s), "flows": flows}
    _check_in_simulator(sim)
    return fmt_table(s), sim


def _path_parts(dotted: str) -> list[str]:
    """'flows[0].count' -> ['flows', '[0]', 'count']; anything else than such a path is an error."""
    if not isinstance(dotted, str) or not re.fullmatch(r"[^.\[\]]+(\[\d+\])*(\.[^.\[\]]+(\[\d+\])*)*", dotted):
        raise ScenarioError(str(dotted), "expected a dotted field path like 'bottleneck.rate' or 'flows[0].count'")
    return re.findall(r"[^.\[\]]+|\[\d+\]", dotted)


def set_dotted(data: dict[str, Any], dotted: str, value: Any) -> None:
    """Sets 'bottleneck.queue.target' or 'flows[0].count' in a nested dict (a table missing on the
    way is created empty)."""
    node: Any = data
    parts = _path_parts(dotted)
    for i, part in enumerate(parts):
        last = i == len(parts) - 1
        if part.startswith("["):
            idx = int(part[1:-1])
            if not isinstance(node, list) or idx >= len(node):
                raise ScenarioError(dotted, f"index {idx} is out of range")
            if last:
                node[idx] = value
            node = node[idx]
        else:
            if not isinstance(node, dict):
                raise ScenarioError(dotted, f"'{part}' is not inside a table")
            if last:
                node[part] = value
            else:
                node = node.setdefault(part, {})


def _get_dotted(data: Json, dotted: str) -> Json:
    """The value at a dotted path of a resolved scenario (which holds every field)."""
    for part in _path_parts(dotted):
        data = data[int(part[1:-1])] if part.startswith("[") else data[part]
    return data


def _table_class(kind: Any, node: Json) -> type | None:
    """The schema class of a table written as ``node`` for a field of ``kind`` (None: not a table
    of the schema, e.g. a queue table, whose defaults its profile fills in)."""
    if isinstance(kind, Table):
        return kind.cls
    if isinstance(kind, Tagged) and isinstance(node, dict):
        tag = node.get(kind.tag, kind.default)
        return kind.variants.get(tag) if isinstance(tag, str) else None
    return None


def _enter_written(data: dict[str, Any], parts: list[str]) -> tuple[Json, type | None]:
    """Walks a scenario as written along a field path, but for its last part, with the schema
    beside it. A table of the schema that the path enters and the scenario leaves out is written
    in as its default (``bottleneck.reverse_queue = {type = "drop_tail", limit = "100000p"}``,
    ``access = {}``), so that a value set inside it keeps the rest of the default, as it did in
    the resolved scenario. Returns the table holding the last part and its schema class (None
    where the walk leaves the schema or the scenario)."""
    node: Json = data
    kind: Any = Table(ScenarioSpec)
    for part in parts[:-1]:
        if part.startswith("["):
            idx = int(part[1:-1])
            if not isinstance(node, list) or idx >= len(node):
                return None, None
            node, kind = node[idx], getattr(kind, "item", None)
            continue
        cls = _table_class(kind, node)
        field = dict(fields_of(cls)).get(part) if cls is not None else None
        if field is None or not isinstance(node, dict):
            return None, None
        if part not in node and isinstance(field.default, dict):
            node[part] = copy.deepcopy(field.default)
        node, kind = node.get(part), field.kind
    return node, _table_class(kind, node)


def with_values(data: dict[str, Any], values: dict[str, Any], keep: Iterable[str] = ()) -> dict[str, Any]:
    """A copy of a scenario as written (a file's table) with fields replaced by dotted path, as
    the file saying them would be. A table the scenario leaves out starts as its default, not
    empty (``bottleneck.reverse_queue.limit`` keeps the drop-tail type), and a value for one of
    two ways of giving one quantity (a flow's ``rtt`` or ``access_delay``) replaces the other,
    unless ``values`` gives both. A new profile for a table that gives every option (a saved
    scenario.toml's do) first drops the options at the old profile's defaults (see
    :func:`_forget_profile_defaults`), but for those ``values`` sets and those named in ``keep``:
    the options set explicitly before (a sweep's ``[set]``, an earlier edit), which are chosen
    however they compare with a default (:attr:`Scenario.edits`)."""
    return _edit(data, values, keep)[0]


def _edit(data: dict[str, Any], values: dict[str, Any], keep: Iterable[str]) -> tuple[dict[str, Any], dict[str, list[str]]]:
    """:func:`with_values`, and for each new profile's table the options (dotted below it) that
    gave way to its defaults."""
    out = copy.deepcopy(data)
    chosen = frozenset(keep) | frozenset(values)
    profiles = {dotted.rpartition(".")[0]: value for dotted, value in values.items()
                if dotted.rpartition(".")[2] == "profile"}
    out, gave_way = _forget_profile_defaults(out, profiles, chosen) if profiles else (out, {})
    for dotted, value in values.items():
        holder, cls = _enter_written(out, _path_parts(dotted))
        set_dotted(out, dotted, value)
        parent, _, key = dotted.rpartition(".")
        pair = getattr(cls, "ONE_OF", ())
        if key in pair:
            for other in pair:
                if other != key and f"{parent}.{other}" not in values:
                    holder.pop(other, None)
    return out, gave_way


def _resolved_quietly(data: dict[str, Any]) -> dict[str, Any]:
    """The resolved form of a scenario as written, its warnings held back (the edit that probes
    it is not what the user runs)."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return _parse(copy.deepcopy(data))[0]


def within(dotted: str, chosen: frozenset[str]) -> bool:
    """Whether the field at ``dotted`` is one of the paths in ``chosen`` or lies inside one (an
    option set explicitly, an error in a field a sweep's [set] gives)."""
    return any(dotted == c or dotted.startswith((c + ".", c + "[")) for c in chosen)


def _forget_profile_defaults(data: dict[str, Any], profiles: dict[str, Any],
                             chosen: frozenset[str]) -> tuple[dict[str, Any], dict[str, list[str]]]:
    """``data`` with the options of each table in ``profiles`` that only repeat its old profile's
    defaults left out, when the new profile ``profiles[table]`` replaces that profile and the
    table gives every option its resolution holds. A saved scenario.toml writes every option out,
    so it cannot say which ones the user chose: an option whose absence resolves the scenario the
    same was the old profile's default (or one the user gave at that value), and the new profile's
    default takes its place; the others stay, and so do those in ``chosen`` (set explicitly, by
    this edit or an earlier one). A table that leaves options out says what it chose, and is kept
    whole. A nested table (FQ-CoDel's ``codel``, FQ-PIE's ``pie``) is taken option by option the
    same way, its own ``profile`` among them: one that repeats the outer profile gives way to the
    new one. Returns, by table, the options (dotted below it) left out as well."""
    try:
        resolved = _resolved_quietly(data)
    except (ScenarioError, LookupError, TypeError):
        return data, {}   # a wrong scenario: resolving the edit says so, naming it
    candidates: dict[str, list[str]] = {}
    for table, profile in profiles.items():
        try:
            written, full = _get_dotted(data, table), _get_dotted(resolved, table)
        except (LookupError, TypeError):
            continue   # a wrong path: resolving the edit names it
        if isinstance(written, dict) and written.get("profile") not in (None, profile):
            candidates[table] = [k for k in _leaves(written, full=full) if not within(f"{table}.{k}", chosen)]
    dropped = _at_defaults(data, resolved, candidates)
    if dropped:
        data = _without(data, dropped)
    # One option at a time for those left, each against the scenario left so far: an option whose
    # default follows from others that stay is found only so, and two options may each be implied
    # by the other, but not both dropped.
    for table, keys in candidates.items():
        for key in keys:
            if key in dropped.get(table, ()):
                continue
            trial = _without(data, {table: [key]})
            try:
                if _resolved_quietly(trial) == resolved:
                    data = trial
                    dropped.setdefault(table, []).append(key)
            except ScenarioError:
                pass   # a required option (a flow's access_delay): it stays
    return data, {table: [k for k in keys if k in dropped.get(table, ())] for table, keys in candidates.items()}


def _at_defaults(data: dict[str, Any], resolved: dict[str, Any],
                 candidates: dict[str, list[str]]) -> dict[str, list[str]]:
    """Of ``candidates`` (options by table), those that left out all at once resolve the scenario
    the same, found in a few resolutions instead of one an option: the options at the value they
    take when the candidates are left out (their defaults, as far as these do not follow from each
    other), confirmed by leaving out just those. A candidate the scenario cannot do without (a
    flow's access delay; ``start.uniform``, which leaves an empty ``start``) is named by the error
    its absence raises, and stays. Empty when that does not settle or the confirmation fails: the
    caller then takes the options one at a time."""
    trying = {table: list(keys) for table, keys in candidates.items()}
    for _ in range(sum(map(len, candidates.values())) + 1):
        try:
            bare = _resolved_quietly(_without(data, trying))
        except ScenarioError as e:
            blamed = _blamed(data, e.path)
            needed = {(t, k) for t, keys in trying.items() for k in keys
                      if within(f"{t}.{k}", blamed) or any(within(b, frozenset({f"{t}.{k}"})) for b in blamed)}
            if not needed:
                return {}
            trying = {t: [k for k in keys if (t, k) not in needed] for t, keys in trying.items()}
            continue
        except (LookupError, TypeError):
            return {}
        same = {table: [k for k in keys
                        if _value_at(_get_dotted(resolved, table), k) == _value_at(_get_dotted(bare, table), k)]
                for table, keys in trying.items()}
        try:
            return same if _resolved_quietly(_without(data, same)) == resolved else {}
        except (ScenarioError, LookupError, TypeError):
            return {}
    return {}


def _blamed(data: dict[str, Any], path: str) -> frozenset[str]:
    """The options an error at ``path`` may be about: the option itself, and where it is one of
    two ways of giving a quantity (a flow's ``rtt`` or ``access_delay``), the other way too."""
    if not path:
        return frozenset()
    _, cls = _enter_written(copy.deepcopy(data), _path_parts(path))
    parent, _, key = path.rpartition(".")
    pair = getattr(cls, "ONE_OF", ())
    return frozenset({path} | ({f"{parent}.{other}" for other in pair} if key in pair else set()))


def _without(data: dict[str, Any], options: dict[str, list[str]]) -> dict[str, Any]:
    """A copy of a scenario as written without ``options`` (dotted below their tables)."""
    out = copy.deepcopy(data)
    for table, keys in options.items():
        for key in keys:
            _pop_dotted(out, f"{table}.{key}")
    return out


_UNCHECKED = object()   # _leaves: no resolution to check the table against


def _leaves(written: Json, top: bool = True, full: Any = _UNCHECKED) -> list[str]:
    """The options a table as written gives (dotted below it, nested tables entered; not its
    ``type``, nor its own ``profile``, though a nested table's is). Given ``full``, the table's
    resolution, only a table that gives every option ``full`` holds counts, nested tables
    likewise: one that leaves some out, or is not a table of options, gives none."""
    if not isinstance(written, dict):
        return []
    if full is not _UNCHECKED and (not isinstance(full, dict) or not full.keys() <= written.keys()):
        return []
    out = []
    for key, value in written.items():
        if key == "type" or (top and key == "profile"):
            continue
        inner = full.get(key) if isinstance(full, dict) else _UNCHECKED
        out += [f"{key}.{k}" for k in _leaves(value, False, inner)] if isinstance(value, dict) else [key]
    return out


def _pop_dotted(data: Json, dotted: str) -> None:
    """Removes the field at a dotted path of a scenario as written, if it is there."""
    parent, _, key = dotted.rpartition(".")
    holder = _get_dotted(data, parent)
    if isinstance(holder, dict):
        holder.pop(key, None)


def _default_without(given: dict[str, Any], table: str, key: str) -> Any:
    """What ``key`` (dotted below ``table``) resolves to when the scenario as written leaves it
    out (the profile's default, given the table's other options); ``_UNKNOWN`` when it cannot go."""
    trial = copy.deepcopy(given)
    try:
        _pop_dotted(trial, f"{table}.{key}")
        return _get_dotted(_resolved_quietly(trial), f"{table}.{key}")
    except KeyError:
        return None   # left out of the resolved table: unset
    except (ScenarioError, LookupError, TypeError, AttributeError):
        return _UNKNOWN


_UNKNOWN = object()


@dataclass(frozen=True)
class Scenario:
    """A validated scenario: ``resolved`` (loadable, defaults written out) and ``sim_config``;
    ``given`` is the scenario as written, which :meth:`with_values` edits; ``edits`` the dotted
    paths set by the edits that made it (:meth:`edited`, :meth:`with_values`, chained), which a
    later new profile never takes as its old profile's defaults."""

    resolved: dict[str, Any]
    sim_config: dict[str, Any]
    given: dict[str, Any] = dataclasses.field(compare=False, repr=False)
    edits: frozenset[str] = dataclasses.field(default=frozenset(), compare=False, repr=False)

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Scenario:
        resolved, sim = _parse(copy.deepcopy(data))
        return cls(resolved=resolved, sim_config=sim, given=copy.deepcopy(data))

    @classmethod
    def edited(cls, data: dict[str, Any], values: dict[str, Any]) -> Scenario:
        """``data`` (a scenario as written) with ``values`` set by dotted path, as the file saying
        them would be (see :meth:`with_values`), resolved once, as edited: its errors and warnings
        are the edited scenario's, so an error in ``data`` that ``values`` fixes is not raised, and
        a warning whose cause they remove is not given."""
        before = None
        if any(dotted.rpartition(".")[2] == "profile" for dotted in values):
            # The warning of the options a new profile keeps compares with the profile as written,
            # resolved quietly (its own warnings are the unedited scenario's); a file that does not
            # resolve until edited has no profile to compare with, and gets no such warning.
            try:
                with warnings.catch_warnings():
                    warnings.simplefilter("ignore")
                    before = cls.from_dict(data)
            except ScenarioError:
                pass
        return _edited(data, values, before, frozenset())

    @classmethod
    def from_toml(cls, path: str | Path) -> Scenario:
        return cls.from_dict(read_toml(Path(path)))

    @classmethod
    def load(cls, name_or_path: str | Path, values: dict[str, Any] | None = None) -> Scenario:
        """A scenario file, or the name of one shipped with aqmlab (see :func:`builtin_scenarios`);
        with ``values``, edited by them before it is resolved (see :meth:`edited`)."""
        data = read_toml(cls._locate(name_or_path))
        return cls.edited(data, values) if values else cls.from_dict(data)

    @staticmethod
    def _locate(name_or_path: str | Path) -> Path:
        """The file :meth:`load` reads for a path or a built-in scenario's name."""
        p = Path(name_or_path)
        builtin = BUILTIN_DIR / f"{name_or_path}.toml"
        if p.is_dir():
            inside = p / "scenario.toml"
            saved = f" (to run the scenario saved there, give {inside})" if inside.is_file() else ""
            if not builtin.is_file():
                raise ScenarioError("", f"'{name_or_path}' is a directory, not a scenario file{saved}")
            # `aqmlab run pie-base -o pie-base` then `aqmlab run pie-base`: a directory is never a
            # scenario file, so the built-in is meant; say so.
            warnings.warn(f"'{name_or_path}' is a directory here; running the built-in scenario "
                          f"'{name_or_path}'{saved}", AqmlabWarning, stacklevel=3)
            return builtin
        if p.exists():
            return p
        if builtin.is_file():
            return builtin
        raise ScenarioError("", f"no scenario file '{name_or_path}' and no built-in scenario of that name "
                                f"(built-in: {', '.join(builtin_scenarios())})")

    @property
    def name(self) -> str:
        return str(self.resolved["name"])

    def with_values(self, values: dict[str, Any]) -> Scenario:
        """A copy with fields replaced by dotted path: {'bottleneck.queue.target': '15ms'}. The
        values edit the scenario as written, which is then resolved again: the same as a file
        saying them (see :func:`with_values`). A new TCP or queue profile fills in its own
        defaults, under the options given explicitly (in a saved table, which gives them all, the
        ones at the old profile's defaults give way); a warning names each option of the scenario
        that a new profile keeps against a default of its own, and each saved one that gave way whose
        value changes; options set by earlier edits (:attr:`edits`) are kept as chosen;
        a new bottleneck delay keeps each flow's `rtt`, the round trip, and changes its access
        delay."""
        return _edited(self.given, values, self, self.edits)

    def to_toml(self) -> str:
        import tomli_w

        return tomli_w.dumps(self.resolved)

    def sim_json(self) -> str:
        return json.dumps(self.sim_config)


def _edited(given: dict[str, Any], values: dict[str, Any], before: Scenario | None,
            edits: frozenset[str]) -> Scenario:
    """``given`` edited by ``values`` and resolved; a new profile's kept options are warned about
    against ``before``, the unedited scenario (None: it does not resolve, nothing to compare).
    ``edits``: the paths set by the edits before, kept as chosen, and recorded with ``values``'."""
    out, gave_way = _edit(given, values, edits)
    changed = dataclasses.replace(Scenario.from_dict(out), edits=edits | frozenset(values))
    if before is not None:
        for dotted in values:
            if dotted.rpartition(".")[2] == "profile":
                _warn_of_profile_change(before, changed, values, dotted, gave_way.get(dotted.rpartition(".")[0], []))
    return changed


def _warn_of_profile_change(before: Scenario, after: Scenario, values: dict[str, Any], dotted: str,
                            gave_way: list[str]) -> None:
    """Warns when the new profile at ``dotted`` has a default that an option the scenario gives
    (not ``values``) overrides, naming each such option: the user sees that the new profile did
    not bring it; and when options of a saved table gave way to the new profile's defaults
    (``gave_way``, :func:`_forget_profile_defaults`), naming each whose value that changes, old
    and new: the file it was saved from may have given them on purpose, and keeps them. An option
    whose default the profiles share, or whose value is the new default, changes nothing."""
    table = dotted.rpartition(".")[0]
    try:
        old, new = _get_dotted(before.resolved, table), _get_dotted(after.resolved, table)
        written = _get_dotted(after.given, table)
    except (LookupError, TypeError):
        return
    if not isinstance(written, dict) or old.get("profile") == new.get("profile"):
        return
    kept = []
    for key in _leaves(written):
        if within(f"{table}.{key}", frozenset(values)):
            continue
        was, now = _default_without(before.given, table, key), _default_without(after.given, table, key)
        value = _value_at(new, key)
        if _UNKNOWN not in (was, now) and was != now and now != value:
            shown = "unset" if now is None else toml_inline(now)
            kept.append(f"{key} = {toml_inline(value)} (its default: {shown})")
    took = []
    for key in gave_way:
        was, now = _value_at(old, key), _value_at(new, key)
        if was != now:
            took.append(f"{key} ({_shown(was)} -> {_shown(now)})")
    said = []
    if kept:
        said.append(f"{new['profile']!r} keeps the values the scenario gives: {', '.join(kept)}; leave those "
                    f"options out of the file, or set them, to take the defaults of {new['profile']!r}")
    if took:
        said.append(f"{'it' if kept else repr(new['profile'])} takes its defaults for {', '.join(took)}, which the "
                    f"saved scenario gives at those of {old['profile']!r}: set them to keep their values")
    if said:
        _warn(dotted, "; ".join(said))


def _shown(v: Any) -> str:
    """A resolved value as TOML writes it inline; 'unset' for None."""
    return "unset" if v is None else toml_inline(v)


def _value_at(table: dict[str, Any], key: str) -> Any:
    """The value at ``key`` (dotted) of a resolved table; None where it is unset."""
    try:
        return _get_dotted(table, key)
    except (LookupError, TypeError):
        return None


def read_toml(path: Path, where: str = "") -> dict[str, Any]:
    """A TOML file's table; an unreadable file (missing, a directory, not UTF-8, not TOML) is a
    :class:`ScenarioError` naming the file."""
    try:
        text = path.read_bytes().decode("utf-8")
        return tomllib.loads(text)
    except UnicodeDecodeError as e:
        raise ScenarioError(where, f"{path}: not a text file in UTF-8 (byte {e.start} is {e.object[e.start]:#04x})") from None
    except tomllib.TOMLDecodeError as e:
        raise ScenarioError(where, f"{path}: not valid TOML: {e}") from None
    except IsADirectoryError:
        raise ScenarioError(where, f"{path} is a directory, not a TOML file") from None
    except OSError as e:
        raise ScenarioError(where, f"{path}: cannot read: {e.strerror}") from None


BUILTIN_DIR = Path(__file__).parent / "scenarios"


def builtin_scenarios() -> list[str]:
    """Names of the scenario files shipped in the package."""
    return sorted(p.stem for p in BUILTIN_DIR.glob("*.toml"))
