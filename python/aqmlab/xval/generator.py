"""The ns-3 program of a scenario: the fixed part (``program.cc``) with the scenario's
constants, flow groups and disciplines written into its GENERATED section."""

from __future__ import annotations

from pathlib import Path

from .mapping import HYSTART_DELAY_MAX_NS, Ns3Model, Qdisc

TEMPLATE = Path(__file__).with_name("program.cc")


def _b(x: bool) -> str:
    return "true" if x else "false"


def _group(g: dict[str, object]) -> str:
    """One `Group` initializer, fields in the struct's order."""
    tcp = bool(g["tcp"])
    stop = -1 if g["stop_ns"] is None else int(g["stop_ns"])  # type: ignore[call-overload]
    if tcp:
        cc = f'"{g["cc"]}", "{g["recovery"]}"'
        flags = ", ".join(_b(bool(g[k])) for k in ("sack", "timestamps", "limited_transmit", "ecn", "hystart"))
        sizes = ", ".join(f"{int(g[k])}u" for k in ("segment_size", "initial_cwnd", "rcv_buf", "snd_buf",  # type: ignore[call-overload]
                                                     "dup_thresh", "del_ack_count"))
        times = ", ".join(f"{int(g[k])}LL" for k in ("del_ack_timeout_ns", "min_rto_ns", "clock_granularity_ns"))  # type: ignore[call-overload]
        tcp_part = f"{cc}, {flags}, {sizes}, {times}, {HYSTART_DELAY_MAX_NS}LL, {int(g['max_bytes'])}ULL, 0ULL, false"  # type: ignore[call-overload]
    else:
        tcp_part = (f'"", "", false, false, false, false, false, 0u, 0u, 0u, 0u, 0u, 0u, 0LL, 0LL, 0LL, 0LL, 0ULL, '
                    f'{int(g["rate_bps"])}ULL, {_b(bool(g["udp_ect"]))}')  # type: ignore[call-overload]
    return f"    {{{_b(tcp)}, {g['count']}u, {g['packet_size']}u, {stop}LL, {tcp_part}}},"


def _install(name: str, q: Qdisc) -> str:
    args = "".join(f',\n                         "{k}", {v}' for k, v in q.attrs)
    return f'void\n{name}(TrafficControlHelper& tch)\n{{\n    tch.SetRootQueueDisc("{q.type_id}"{args});\n}}\n'


def generated(m: Ns3Model) -> str:
    """The GENERATED section: C++ declarations from the model."""
    steps = "".join(f"    {{{at}LL, {rate}ULL}},\n" for at, rate in m.rate_schedule)
    after = "\n".join(f"    {s}" for s in m.forward.after) or "    (void)q;"
    return "\n".join([
        f"const int64_t kDurationNs = {m.duration_ns}LL;",
        f"const int64_t kWarmupNs = {m.warmup_ns}LL;",
        f"const uint64_t kRateBps = {m.rate_bps}ULL;",
        f"const int64_t kDelayNs = {m.delay_ns}LL;",
        f"const uint32_t kMtu = {m.mtu}u;",
        f"const uint32_t kDeviceQueue = {m.device_queue}u;",
        f"const std::vector<RateStep> kRateSchedule = {{\n{steps}}};",
        "const std::vector<Group> kGroups = {",
        *(_group(g) for g in m.groups),
        "};",
        _install("InstallForwardQdisc", m.forward),
        _install("InstallReverseQdisc", m.reverse),
        f"void\nAfterInstall(Ptr<QueueDisc> q)\n{{\n{after}\n}}",
    ])


def program(m: Ns3Model) -> str:
    """The whole C++ source of the scenario's ns-3 program."""
    return TEMPLATE.read_text().replace("@GENERATED@", generated(m))
