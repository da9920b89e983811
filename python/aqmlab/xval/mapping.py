"""A resolved scenario as ns-3.44 objects and attributes: the `ns3` TCP profile and the `ns3`
AQM profiles are the mapping.

Every setting either has an ns-3 counterpart (an attribute of a TypeId, with the value
converted), or is accepted only at the value ns-3 implements, or the scenario is refused with a
:class:`ScenarioError` naming the field: nothing is silently substituted. The ns-3 defaults this
relies on were read from the TypeIds of the wheel itself (``TypeId::GetAttribute``), and the
behaviours from ns-3.44's sources, cited per rule.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from ..errors import ScenarioError
from ..scenario import Scenario

# ns-3's PointToPointNetDevice adds a 2-byte PPP header to every packet (PointToPointNetDevice::
# AddHeader) and holds packets in its TxQueue under the traffic-control layer.
PPP_OVERHEAD = 2
# TcpSocketBase doubles the RTO up to a fixed 60 s (TcpSocketBase::ReTxTimeout).
NS3_MAX_RTO_NS = 60 * 10**9
# TcpSocketBase's initial RTO is RttEstimator's InitialEstimation, 1 s.
NS3_INITIAL_RTO_NS = 10**9
# Header bytes of a data segment with timestamps: IP 20 + TCP 20 + timestamps 10 padded to 12
# (TcpHeader::CalculateHeaderLength).
TS_OPTION_BYTES = 12


@dataclass
class Qdisc:
    """A queue disc as the generator writes it: a TypeId, its attributes as C++ expressions,
    and extra statements run on the installed object (``q`` is the Ptr<QueueDisc>)."""

    type_id: str
    attrs: list[tuple[str, str]] = field(default_factory=list)
    after: list[str] = field(default_factory=list)
    # How ns-3's drop reasons (QueueDisc::DropBeforeEnqueue/DropAfterDequeue) fall into the
    # classes of the measurement: substring -> early | dequeue | limit.
    drop_classes: dict[str, str] = field(default_factory=dict)


@dataclass
class Ns3Model:
    """Everything the generator needs; per-seed values (start times, delays) come at run time."""

    duration_ns: int
    warmup_ns: int
    rate_bps: int
    delay_ns: int
    mtu: int
    device_queue: int
    rate_schedule: list[tuple[int, int]]
    forward: Qdisc
    reverse: Qdisc
    groups: list[dict[str, Any]]


def _refuse(path: str, what: str) -> ScenarioError:
    return ScenarioError(path, f"no ns-3 counterpart: {what}")


def _need(value: Any, accepted: Any, path: str, why: str) -> None:
    if value != accepted:
        raise _refuse(path, f"{why} (accepted: {accepted!r}, got {value!r})")


def _time(ns: int) -> str:
    return f"TimeValue(NanoSeconds({int(ns)}))"


def _codel_time(ns: int) -> str:
    # CoDelQueueDisc and FqCoDelQueueDisc take Interval and Target as strings.
    return f'StringValue("{int(ns)}ns")'


def _size(limit: dict[str, int]) -> str:
    ((unit, n),) = limit.items()
    return f'QueueSizeValue(QueueSize("{n}{"p" if unit == "packets" else "B"}"))'


def _bool(b: bool) -> str:
    return "BooleanValue(true)" if b else "BooleanValue(false)"


def _double(x: float) -> str:
    return f"DoubleValue({float(x)!r})"


def _uint(n: int) -> str:
    return f"UintegerValue({int(n)})"


def _profile(q: dict[str, Any], path: str, name: str) -> None:
    if "profile" in q:
        _need(q["profile"], "ns3", f"{path}.profile", f"ns-3.44's {name} is the `ns3` profile")


# ---- the disciplines --------------------------------------------------------------------------

_PIE_REASONS = {"Unforced drop": "early", "Forced drop": "limit"}


def _pie_law(q: dict[str, Any], path: str, fq: bool) -> list[tuple[str, str]]:
    """PieQueueDisc's attributes (also FqPieQueueDisc's, which passes them to the PIE of each
    flow queue)."""
    _need(q["rate_ewma"], 0.5, f"{path}.rate_ewma", "PieQueueDisc averages the departure rate with weight 0.5")
    _need(q["byte_mode"], False, f"{path}.byte_mode", "PieQueueDisc has no byte mode")
    _need(q["hz"], None, f"{path}.hz", "PieQueueDisc does not count jiffies")
    _need(q["active_threshold"], None, f"{path}.active_threshold",
          "PieQueueDisc's ActiveThreshold is a time, not queued bytes")
    _need(q["target_policy"], "fixed", f"{path}.target_policy", "PieQueueDisc has a fixed QueueDelayReference")
    attrs = [
        ("QueueDelayReference", _time(q["target"])),
        ("Tupdate", _time(q["tupdate"])),
        ("A", _double(q["alpha"])),
        ("B", _double(q["beta"])),
        ("MaxBurstAllowance", _time(q["max_burst"])),
        ("DequeueThreshold", _uint(q["dq_threshold"])),
        ("UseDequeueRateEstimator", _bool(q["delay"] == "rate_estimator")),
        ("UseCapDropAdjustment", _bool(q["cap_drop_adjustment"])),
        ("UseDerandomization", _bool(q["derandomize"])),
        ("MeanPktSize", _uint(q["mean_pkt_size"])),
    ]
    if not fq:
        attrs.append(("UseEcn", _bool(q["ecn"])))
        if q["ecn"]:
            if q["mark_ecnth"] is None:
                raise _refuse(f"{path}.mark_ecnth", "PieQueueDisc always has a MarkEcnThreshold: give one")
            attrs.append(("MarkEcnThreshold", _double(q["mark_ecnth"])))
    return attrs


def _pie(q: dict[str, Any], path: str, mtu: int) -> Qdisc:
    _profile(q, path, "PieQueueDisc")
    return Qdisc("ns3::PieQueueDisc", [("MaxSize", _size(q["limit"])), *_pie_law(q, path, fq=False)],
                 drop_classes=_PIE_REASONS)


def _red(q: dict[str, Any], path: str, mtu: int, rate_bps: int = 0, delay_ns: int = 0) -> Qdisc:
    _profile(q, path, "RedQueueDisc")
    ((unit, _),) = q["limit"].items()
    _need(unit, "packets", f"{path}.limit", "RedQueueDisc is mapped in packet mode only")
    _need(q["queue_unit"], "packets", f"{path}.queue_unit", "RedQueueDisc is mapped in packet mode only")
    _need(q["byte_mode"], False, f"{path}.byte_mode", "RedQueueDisc is mapped in packet mode only")
    _need(q["adaptive"], False, f"{path}.adaptive", "Adaptive RED is not mapped")
    for k in ("min_th", "max_th", "w_q"):
        if q[k] is None:
            raise _refuse(f"{path}.{k}", "RedQueueDisc's automatic setting differs from aqmlab's: give the value")
    attrs = [
        ("MaxSize", _size(q["limit"])),
        ("MinTh", _double(q["min_th"])),
        ("MaxTh", _double(q["max_th"])),
        ("QW", _double(q["w_q"])),
        # RedQueueDisc's LInterm is 1/max_p (RedQueueDisc::InitializeParams: m_curMaxP = 1/m_lInterm).
        ("LInterm", _double(1.0 / q["max_p"])),
        ("Gentle", _bool(q["gentle"])),
        ("Wait", _bool(q["wait"])),
        ("MeanPktSize", _uint(q["mean_pkt_size"])),
        ("UseEcn", _bool(q["ecn"])),
        ("UseHardDrop", _bool(q["hard_drop"])),
        # The idle-time decay counts packets the link could have sent (RedQueueDisc::Estimator,
        # m_ptc from LinkBandwidth); its default, 1.5 Mb/s, is not the link.
        ("LinkBandwidth", f"DataRateValue(DataRate({int(rate_bps)}))"),
        ("LinkDelay", _time(delay_ns)),
    ]
    return Qdisc("ns3::RedQueueDisc", attrs, drop_classes={
        "Unforced drop": "early", "Forced drop": "early", "Queue disc limit exceeded": "limit"})


def _codel_law(q: dict[str, Any], path: str) -> list[tuple[str, str]]:
    attrs = [("Target", _codel_time(q["target"])), ("Interval", _codel_time(q["interval"])),
             ("UseEcn", _bool(q["ecn"]))]
    if q["ce_threshold"] is not None:
        attrs.append(("CeThreshold", _time(q["ce_threshold"])))
    return attrs


_CODEL_REASONS = {"Target exceeded drop": "dequeue", "Overlimit drop": "limit"}


def _codel(q: dict[str, Any], path: str, mtu: int) -> Qdisc:
    _profile(q, path, "CoDelQueueDisc")
    min_bytes = q["mtu"] if q["mtu"] is not None else mtu
    return Qdisc("ns3::CoDelQueueDisc", [("MaxSize", _size(q["limit"])), *_codel_law(q, path),
                                         ("MinBytes", _uint(min_bytes))], drop_classes=_CODEL_REASONS)


def _fq(q: dict[str, Any], path: str, mtu: int, type_id: str) -> tuple[list[tuple[str, str]], list[str]]:
    attrs = [("MaxSize", _size(q["limit"])), ("Flows", _uint(q["flows"]))]
    after = []
    if q.get("drop_batch") is not None:
        attrs.append(("DropBatchSize", _uint(q["drop_batch"])))
    if q["quantum"] is not None:
        after.append(f"DynamicCast<{type_id}>(q)->SetQuantum({int(q['quantum'])});")
    return attrs, after


def _fq_codel(q: dict[str, Any], path: str, mtu: int) -> Qdisc:
    _profile(q, path, "FqCoDelQueueDisc")
    inner, ipath = q["codel"], f"{path}.codel"
    _profile(inner, ipath, "CoDelQueueDisc, FqCoDelQueueDisc's per-queue law,")
    # FqCoDelQueueDisc creates its CoDel queues with their default MinBytes, 1500.
    _need(inner["mtu"] if inner["mtu"] is not None else mtu, 1500, f"{ipath}.mtu",
          "FqCoDelQueueDisc's CoDel queues keep MinBytes = 1500")
    attrs, after = _fq(q, path, mtu, "FqCoDelQueueDisc")
    return Qdisc("ns3::FqCoDelQueueDisc", attrs + _codel_law(inner, ipath), after, drop_classes=_CODEL_REASONS)


def _fq_pie(q: dict[str, Any], path: str, mtu: int) -> Qdisc:
    inner, ipath = q["pie"], f"{path}.pie"
    _need(inner.get("profile"), "ns3", f"{ipath}.profile", "FqPieQueueDisc runs ns-3's PieQueueDisc in each queue")
    attrs, after = _fq(q, path, mtu, "FqPieQueueDisc")
    attrs += _pie_law(inner, ipath, fq=True)
    attrs += [("UseEcn", _bool(inner["ecn"])), ("MarkEcnThreshold", _double(q["ecn_prob"] / 100))]
    return Qdisc("ns3::FqPieQueueDisc", attrs, after, drop_classes={**_PIE_REASONS, "Overlimit drop": "limit"})


def _drop_tail(q: dict[str, Any], path: str, mtu: int) -> Qdisc:
    return Qdisc("ns3::FifoQueueDisc", [("MaxSize", _size(q["limit"]))],
                 drop_classes={"Queue disc limit exceeded": "limit"})


_QDISCS = {"pie": _pie, "codel": _codel, "fq_codel": _fq_codel, "fq_pie": _fq_pie, "drop_tail": _drop_tail}


def qdisc(q: dict[str, Any], path: str, mtu: int, rate_bps: int, delay_ns: int) -> Qdisc:
    kind = q["type"]
    if kind == "red":
        return _red(q, path, mtu, rate_bps, delay_ns)
    if kind not in _QDISCS:
        raise _refuse(f"{path}.type", f"{kind!r} is not among ns-3.44's queue discs "
                                       f"(mapped: {', '.join(sorted([*_QDISCS, 'red']))})")
    return _QDISCS[kind](q, path, mtu)


# ---- transports -------------------------------------------------------------------------------

_CC = {"newreno": "ns3::TcpNewReno", "cubic": "ns3::TcpCubic", "dctcp": "ns3::TcpDctcp"}
# What ns-3 passes through GetSsThresh: TcpNewReno halves BytesInFlight (pipe); TcpCubic and
# TcpDctcp (via TcpLinuxReno) use cwnd (TcpCubic::GetSsThresh, TcpLinuxReno::GetSsThresh).
_REDUCE_FROM = {"newreno": "pipe", "cubic": "cwnd", "dctcp": "cwnd"}
# How ns-3 grows the window: TcpNewReno by one segment (slow start) or MSS²/cwnd (congestion
# avoidance) per ACK, whatever it acknowledges; TcpCubic (slow start by segmentsAcked, "to
# approximate QUICKACK", and m_cWndCnt += segmentsAcked) and TcpLinuxReno, which TcpDctcp
# extends, count the segments acknowledged.
_GROWTH = {"newreno": "per_ack", "cubic": "byte_counting", "dctcp": "byte_counting"}
# ns-3's TcpCubic HyStart delay bound: aqmlab's HyStart is Linux's, clamp(minRTT/8, 4, 16 ms).
HYSTART_DELAY_MAX_NS = 16_000_000


def _tcp(t: dict[str, Any], g: dict[str, Any], path: str) -> dict[str, Any]:
    cc = t["cc"]
    if cc not in _CC:
        raise _refuse(f"{path}.cc", f"{cc!r} has no ns-3.44 counterpart in the mapping (mapped: {', '.join(_CC)})")
    _need(t["option_bytes"], "ns3", f"{path}.option_bytes", "ns-3 counts TCP options as TcpHeader does")
    _need(t["keep_sack_on_rto"], True, f"{path}.keep_sack_on_rto",
          "TcpSocketBase keeps SACKed data across a timeout (TcpTxBuffer::SetSentListLost)")
    _need(t["growth"], _GROWTH[cc], f"{path}.growth", f"ns-3's {_CC[cc][5:]} grows the window that way")
    _need(t["reduce_from"], _REDUCE_FROM[cc], f"{path}.reduce_from",
          f"ns-3's {_CC[cc][5:]} computes ssthresh that way")
    _need(t["cubic_alpha"], "fixed", f"{path}.cubic_alpha", "TcpCubic's TcpFriendliness uses a fixed alpha")
    _need(t["lost_retransmit"], False, f"{path}.lost_retransmit",
          "TcpTxBuffer::NextSeg leaves a lost retransmission to the timer")
    _need(t["rescue_retransmit"], False, f"{path}.rescue_retransmit",
          "TcpTxBuffer::NextSeg has no RFC 6675 rescue retransmission")
    _need(t["keep_high_rxt"], True, f"{path}.keep_high_rxt",
          "TcpTxBuffer keeps a segment's retransmitted flag across recoveries until a timeout (SetSentListLost)")
    _need(t["rack"], False, f"{path}.rack", "ns-3.44 has no RACK-TLP")
    _need(t["ecn_cwr"], "prr" if t["prr"] else "hold", f"{path}.ecn_cwr",
          "TcpSocketBase::EnterCwr hands the ECN reduction to the recovery algorithm (PRR or classic) and "
          "does not grow the window in CA_CWR")
    if t["prr"] or t["ecn_cwr"] == "prr":
        _need(t["prr_delivered"], "ns3", f"{path}.prr_delivered",
              "TcpPrrRecovery::DoRecovery adds a segment per isDupAck call under RecoverFS, with SACK too, and "
              "computes sndcnt in bytes with a 32-bit product; TcpSocketBase::ProcessAck hands an ACK that SACKs "
              "and advances to it twice")
    if t["prr"] or t["ecn_cwr"] == "prr":
        _need(t["prr_ssrb"], "rfc6937", f"{path}.prr_ssrb",
              "TcpPrrRecovery's PRR-SSRB is not Linux's rule (ns-3.44 adds its segment when retransmitted data "
              "was acknowledged, which no setting models; rfc6937 is the mapped approximation, docs/xval.md)")
    if t["prr"]:
        _need(t["prr_recover_fs"], "pipe", f"{path}.prr_recover_fs",
              "TcpPrrRecovery::EnterRecovery takes RecoverFS from m_bytesInFlight, the pipe EnterRecovery has "
              "just computed")
    if cc == "dctcp":
        _need(t["dctcp"], "ns3", f"{path}.dctcp",
              "TcpDctcp::PktsAcked ends a window once m_lastAckedSeq reaches m_nextSeq, first set at the first ACK")
    _need(t["rwnd"], 1 << 30, f"{path}.rwnd", "ns-3 bounds the window in bytes only (rcv_wnd)")
    _need(t["initial_rto_ns"], NS3_INITIAL_RTO_NS, f"{path}.initial_rto", "RttEstimator's InitialEstimation is 1 s")
    _need(t["max_rto_ns"], NS3_MAX_RTO_NS, f"{path}.max_rto", "TcpSocketBase caps the RTO at 60 s")
    if t["hystart"] and cc != "cubic":
        raise _refuse(f"{path}.hystart", "only ns-3's TcpCubic runs HyStart")
    ecn = t["ecn"]
    if ecn == "accecn":
        raise _refuse(f"{path}.ecn", "ns-3.44's TcpSocketBase has no AccECN feedback (mapped: off, classic, dctcp)")
    if (ecn == "dctcp") != (cc == "dctcp"):
        raise _refuse(f"{path}.ecn", "ns-3 echoes CE exactly only in TcpDctcp, and TcpDctcp always does")
    if ecn != "off":
        _need(t["ect"], "ect0", f"{path}.ect", "ns-3.44's TcpSocketBase marks ECN-capable data ECT(0)")
    _need(t["pacing"], False, f"{path}.pacing", "the ns-3 program leaves TcpSocketState's pacing off")
    for k, label in (("rcv_wnd_bytes", "rcv_wnd"), ("snd_buf_bytes", "snd_buf")):
        if t[k] is None:
            raise _refuse(f"{path}.{label}", "TcpSocket's buffers are finite: give a size")
    headers = 40 + (TS_OPTION_BYTES if t["timestamps"] else 0)
    app = g["app"]
    if app["type"] not in ("bulk", "transfer"):
        raise _refuse(f"{path}.{'think' if app['type'] == 'sessions' else 'arrival_rate'}",
                      "only bulk transfers and single fixed-size transfers are mapped")
    if g["stop_ns"] is not None:
        raise _refuse(f"{path}.stop", "a TCP group's stop is not mapped (only UDP sources stop)")
    return {
        "tcp": True, "cc": _CC[cc], "recovery": "ns3::TcpPrrRecovery" if t["prr"] else "ns3::TcpClassicRecovery",
        "sack": t["sack"], "timestamps": t["timestamps"], "limited_transmit": t["limited_transmit"],
        "ecn": ecn != "off", "hystart": t["hystart"], "segment_size": g["packet_size"] - headers,
        "initial_cwnd": t["initial_cwnd"], "rcv_buf": t["rcv_wnd_bytes"], "snd_buf": t["snd_buf_bytes"],
        "dup_thresh": t["dupack_threshold"], "del_ack_count": t["ack_every"],
        "del_ack_timeout_ns": t["delack_timeout_ns"], "min_rto_ns": t["min_rto_ns"],
        "clock_granularity_ns": t["clock_granularity_ns"], "max_bytes": app.get("bytes", 0),
    }


def _udp(t: dict[str, Any], g: dict[str, Any], path: str) -> dict[str, Any]:
    if t["ecn"]:
        _need(t["ect"], "ect0", f"{path}.ect", "the ns-3 program's UDP source marks its datagrams ECT(0)")
    return {"tcp": False, "rate_bps": t["rate_bps"], "udp_ect": t["ecn"]}


def model(scn: Scenario) -> Ns3Model:
    """The ns-3 model of a scenario, or a ScenarioError naming the first field ns-3 cannot run."""
    c = scn.sim_config
    b = c["bottleneck"]
    dev = b["device"]
    _need(dev["overhead_bytes"], PPP_OVERHEAD, "bottleneck.overhead",
          "ns-3's PointToPointNetDevice adds a 2-byte PPP header: set overhead = \"2B\"")
    if dev["queue_packets"] < 1:
        raise _refuse("bottleneck.device_queue", "ns-3's PointToPointNetDevice always has a TxQueue: set "
                                                 "device_queue = 1 (ns-3's traffic-control default)")
    if b["impairment"] is not None:
        raise _refuse("bottleneck.impairment", "losses and outages are not mapped")
    a = c["access"]
    if a["rate_bps"] is not None:
        raise _refuse("access.rate", "rate-limited access links are not mapped (access links are delays)")
    rev = b["reverse_queue"]
    if rev["type"] != "drop_tail":
        raise _refuse("bottleneck.reverse_queue.type", "the reverse direction is mapped as a FIFO only")
    groups = []
    for i, g in enumerate(c["flows"]):
        path = f"flows[{i}]"
        if g["marker"] is not None:
            raise _refuse(f"{path}.marker", "Packet Value marking is not mapped")
        if g["dscp"] != 0:
            raise _refuse(f"{path}.dscp", "DSCP classes are not mapped")
        t = g["transport"]
        mapped = _tcp(t, g, path) if t["type"] == "tcp" else _udp(t, g, path)
        groups.append({"count": g["count"], "packet_size": g["packet_size"], "stop_ns": g["stop_ns"], **mapped})
    return Ns3Model(
        duration_ns=c["duration_ns"], warmup_ns=c["warmup_ns"], rate_bps=b["rate_bps"], delay_ns=b["delay_ns"],
        mtu=b["mtu"], device_queue=dev["queue_packets"],
        rate_schedule=[(s["at_ns"], s["rate_bps"]) for s in b["rate_schedule"]],
        forward=qdisc(b["queue"], "bottleneck.queue", b["mtu"], b["rate_bps"], b["delay_ns"]),
        reverse=_drop_tail(rev, "bottleneck.reverse_queue", b["mtu"]),
        groups=groups,
    )
