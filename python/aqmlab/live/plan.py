"""The subset of a scenario that real hosts can express, and what the testbed must be set to.

`aqmlab live` takes the same scenario file as `aqmlab run`. Everything about the bottleneck
carries over (rate, delay, rate schedule, any AQM with any parameters, the reverse queue,
loss impairments): the router runs the simulator's own code for it. The hosts are real
Linux, so a flow can only ask for what the kernel lets a socket or a namespace choose; any
field beyond that is an error naming the field, before anything is built.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from ..errors import ScenarioError
from . import system

if TYPE_CHECKING:
    from ..scenario import Scenario

# TCP fields of a scenario that live runs honour: the congestion control module (per socket),
# ECN, SACK and timestamps (per-namespace sysctls, so all TCP groups must agree).
TCP_FIELDS = ("profile", "cc", "ecn", "sack", "timestamps")
_NAMESPACE_WIDE = ("ecn", "sack", "timestamps")
_APPS = ("size", "think", "arrival_rate")
_PV_QUEUES = ("pvpie", "ppv")
MIN_MTU = 68            # IPv4's minimum MTU (RFC 791)
MAX_MTU = 2034          # the router's largest frame (2048 B) less the Ethernet header
MAX_FLOWS = 1000        # one thread per flow in the traffic source
IP_TCP_TS_HEADERS = 52  # IPv4 + TCP + the timestamp option, Linux's default segment overhead
ETH_HEADER = 14


@dataclass(frozen=True)
class LivePlan:
    """A scenario checked for live use, with the settings the testbed derives from it."""

    scenario: Scenario
    #: MTU of every interface: the TCP groups' packet size (a full data packet on the wire).
    mtu: int
    #: sysctls of the sender namespace (net.ipv4.*).
    sender_sysctls: dict[str, int]
    #: the kernel congestion control of each flow group (None for UDP).
    group_cc: list[str | None]
    notes: list[str] = field(default_factory=list)


def _kernel_cc(cc: str) -> str:
    return "reno" if cc == "newreno" else cc


def kernel_owned() -> tuple[str, ...]:
    """The TCP settings of the simulator's model that the kernel has no per-flow knob for:
    every field a TCP group adds to a flow group, but those live honours and the applications'
    (refused with their own reason). Derived from the scenario's schema, so that a setting
    added to the model is refused here too rather than silently left to the kernel."""
    from dataclasses import fields

    from ..scenario import FlowGroup, TcpGroup

    common = {f.name for f in fields(FlowGroup)} | set(TCP_FIELDS) | set(_APPS)
    return tuple(f.name for f in fields(TcpGroup) if f.name not in common)


def plan(raw: dict, scenario: Scenario | None = None) -> LivePlan:
    """Checks `raw` (a scenario in the file's vocabulary) for live use. Raises
    :class:`~aqmlab.errors.ScenarioError` naming the first field live cannot express."""
    from ..scenario import Scenario  # on first use: the package imports this module eagerly (its `plan`)

    scn = scenario or Scenario.from_dict(raw)
    access = raw.get("access") or {}
    if "rate" in access:
        raise ScenarioError("access.rate", "live hosts sit on veth links without a rate limit; remove it "
                            "(only the bottleneck is shaped)")
    qtype = (raw["bottleneck"].get("queue") or {}).get("type")
    if qtype in _PV_QUEUES:
        raise ScenarioError("bottleneck.queue.type", f"{qtype!r} acts on per-packet values, which live traffic does "
                            "not carry (accepted: any other discipline)")
    res = scn.resolved
    sim_groups = scn.sim_config["flows"]
    available = system.kernel_congestion_controls()
    group_cc: list[str | None] = []
    shared: dict[str, tuple[str, object]] = {}
    first_tcp: tuple[str, int] | None = None
    n = 0
    refused_tcp = kernel_owned()
    for i, (g, rg, sg) in enumerate(zip(raw["flows"], res["flows"], sim_groups)):
        path = f"flows[{i}]"
        n += rg["count"]
        if g.get("marker") is not None:
            raise ScenarioError(f"{path}.marker", "per-packet value markers are not available live")
        size = sg["packet_size"]
        if not MIN_MTU <= size <= MAX_MTU:
            raise ScenarioError(f"{path}.packet_size", f"live accepts {MIN_MTU} to {MAX_MTU} B (an IPv4 MTU the "
                                f"router's frames can hold), got {size} B")
        if rg["type"] == "udp":
            group_cc.append(None)
            continue
        for key in refused_tcp:
            if key in g:
                raise ScenarioError(f"{path}.{key}", "live flows run the kernel's own TCP, which has no per-flow "
                                    f"setting for this (live accepts: {', '.join(TCP_FIELDS)})")
        for key in _APPS:
            if key in g:
                raise ScenarioError(f"{path}.{key}", "live TCP flows are bulk transfers from start to stop; "
                                    "finite transfers and sessions are simulator-only")
        tcp = sg["transport"]
        cc = _kernel_cc(tcp["cc"])
        if available and cc not in available:
            raise ScenarioError(f"{path}.cc", f"{tcp['cc']!r} needs the kernel module tcp_{cc}, which this kernel "
                                f"does not have (available: {', '.join(available)})")
        ecn = tcp["ecn"]
        if ecn == "dctcp" and cc != "dctcp":
            raise ScenarioError(f"{path}.ecn", "DCTCP-style ECN echo comes with the kernel's dctcp module only "
                                "(set cc = \"dctcp\", or ecn = true)")
        values = {"ecn": ecn != "off", "sack": tcp["sack"], "timestamps": tcp["timestamps"]}
        for key in _NAMESPACE_WIDE:
            first = shared.setdefault(key, (path, values[key]))
            if first[1] != values[key]:
                raise ScenarioError(f"{path}.{key}", f"is a setting of the sender's kernel, shared by all TCP flows "
                                    f"live; {first[0]} has {first[1]!r}, this group {values[key]!r}")
        first_tcp = first_tcp or (path, size)
        if size != first_tcp[1]:
            raise ScenarioError(f"{path}.packet_size", "live TCP flows share the interface MTU: every TCP group "
                                f"needs the same packet_size ({first_tcp[0]} has {first_tcp[1]} B, this one {size} B)")
        group_cc.append(cc)
    if n > MAX_FLOWS:
        raise ScenarioError("flows", f"live runs at most {MAX_FLOWS} flows (one thread each), got {n}")
    sizes = [sg["packet_size"] for sg in sim_groups]
    mtu = first_tcp[1] if first_tcp else max(sizes)
    for i, (rg, size) in enumerate(zip(res["flows"], sizes)):
        if size > mtu:
            raise ScenarioError(f"flows[{i}].packet_size", f"{size} B datagrams exceed the interface MTU set by the TCP "
                                f"flows ({mtu} B); live does not fragment")
    sysctls = {}
    if shared:
        sysctls = {"tcp_ecn": 1 if shared["ecn"][1] else 0, "tcp_sack": int(bool(shared["sack"][1])),
                   "tcp_timestamps": int(bool(shared["timestamps"][1])),
                   # Each flow starts afresh: no ssthresh or RTT cached from an earlier connection.
                   "tcp_no_metrics_save": 1}
    notes = [f"TCP is the kernel's ({', '.join(sorted({c for c in group_cc if c}))}), with its own recovery, "
             "timers and ACK policy; the TCP profile contributes only the congestion control and the settings "
             "listed in docs/live.md."] if first_tcp else []
    notes.append(f"The bottleneck carries Ethernet frames: each packet takes {ETH_HEADER} B more link time than "
                 "in the simulator (serialization, byte limits and utilization count the header).")
    return LivePlan(scenario=scn, mtu=mtu, sender_sysctls=sysctls, group_cc=group_cc, notes=notes)


def goodput_ceiling_bps(rate_bps: float, mtu: int, timestamps: bool = True) -> float:
    """The most TCP payload a link of `rate_bps` can carry with full-size segments: rate ×
    payload / frame, with payload = MTU − IP/TCP headers (and the timestamp option)."""
    payload = mtu - (IP_TCP_TS_HEADERS if timestamps else IP_TCP_TS_HEADERS - 12)
    return rate_bps * payload / (mtu + ETH_HEADER)
