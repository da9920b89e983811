"""A live run's reports as a :class:`~aqmlab.result.Result`: the same summary keys, traces and
files as a simulated run, plus what only a live run has (goodput read by the receiving
application, the kernel's TCP counters, the router's timing)."""

from __future__ import annotations

import numpy as np

from ..result import Result, _empty_windows
from ..tables import from_records
from .driver import Reports
from .plan import LivePlan

# Router trace columns and their numpy types (as the simulator's bindings return them).
_TRACE_TYPES = {
    "sample_t_ns": np.uint64, "queue_bytes": np.uint64, "queue_packets": np.uint32, "last_sojourn_ns": np.uint64,
    "sojourn_mean_ns": np.float64,
    "link_rate_bps": np.uint64, "sojourn_t_ns": np.uint64, "sojourn_ns": np.uint64,
    "sojourn_qdisc_ns": np.uint64, "sojourn_flow": np.uint32,
    "flow_bytes": np.uint64, "drop_t_ns": np.uint64, "drop_flow": np.uint32, "drop_kind": np.uint8,
    "drop_link": np.uint32, "probe": np.float64,
}
# Not recorded by the router: empty, as in a simulated run without them. (The router keeps the
# sojourn statistics and traces of its bottleneck queue only, not the other queues' the
# simulator's `link_*` traces carry.)
_EMPTY = {"tcp_event_t_ns": np.uint64, "tcp_event_flow": np.uint32, "tcp_event_kind": np.uint8,
          "transfer_flow": np.uint32, "transfer_start_ns": np.uint64, "transfer_bytes": np.uint64,
          "transfer_fct_ns": np.uint64, "link_queue_bytes": np.uint64, "link_queue_packets": np.uint32,
          "link_queue_last_sojourn_ns": np.uint64,
          "link_queue_sojourn_mean_ns": np.float64, "link_sojourn_t_ns": np.uint64, "link_sojourn_queue": np.uint32,
          "link_sojourn_ns": np.uint64, "link_sojourn_qdisc_ns": np.uint64, "link_sojourn_flow": np.uint32,
          "link_probe": np.float64}
# The router's two queues, by its link ids (the engine's FORWARD = 0 and REVERSE = 1).
_QUEUES = ["bottleneck", "reverse_bottleneck"]


def _bottleneck_link(summary: dict) -> dict:
    """``summary["links"]`` of a live run: the bottleneck queue, whose sojourns the router
    records (no device queue under its discipline: the two sojourns are one)."""
    q = summary["queues"][0]
    delay = {k: summary[f"qdelay_{k}"] for k in ("mean_s", "p50_s", "p90_s", "p95_s", "p99_s", "max_s")}
    delay["n"] = summary["departures_measured"]
    return {"queue": "bottleneck", "ends": "L->R", "links": 1, "utilization": summary["utilization"],
            "drop_rate": q["drops"] / (q["arrivals"] + q["drops_impairment"]) if q["arrivals"] else 0.0,
            "mark_rate": q["marks"] / q["departures"] if q["departures"] else 0.0,
            "delay": delay, "qdisc_delay": dict(delay)}


class LiveResult(Result):
    """A :class:`Result` whose numbers were measured on real packets."""

    def text(self) -> str:
        s = self.summary
        lines = super().text().splitlines()
        lines[0] = (f"scenario {s['scenario']} (live): {s['time_s']:.1f} s run in {s['wall_s']:.1f} s"
                    + (" (interrupted)" if s["interrupted"] else ""))
        r = s["live"]["router"]
        late = r["send_lateness"]
        lines.append(f"  goodput             {s['goodput_bps'] / 1e6:.3f} Mb/s (payload read by the receivers)")
        lines.append(f"  router timing       send lateness p50 {late['p50_s'] * 1e6:.0f} µs, p99 {late['p99_s'] * 1e6:.0f} µs, "
                     f"max {late['max_s'] * 1e3:.2f} ms; CPU {r['cpu_s']:.2f} s")
        return "\n".join(lines)


def _active_s(f: dict, warm_s: float, end_s: float, stop_s: float | None) -> float:
    return max(0.0, min(stop_s if stop_s is not None else end_s, end_s) - max(f["start_s"], warm_s))


def build(plan: LivePlan, rep: Reports) -> LiveResult:
    scn = plan.scenario
    summary = rep.router["summary"]
    groups = scn.resolved["flows"]
    names = [g["name"] for g in groups for _ in range(g["count"])]
    stops = [None if s["stop_ns"] is None else s["stop_ns"] * 1e-9
             for s in scn.sim_config["flows"] for _ in range(s["count"])]
    end_s, warm_s = summary["time_s"], summary["time_s"] - summary["measured_s"]
    sink, src = rep.sink, {f["id"]: f for f in rep.source["flows"]}
    total_measured = 0
    errors = []
    flows = summary.pop("flows")  # the per-flow table's rows, not the summary's
    for i, (f, name, stop) in enumerate(zip(flows, names, stops)):
        s = src.get(i, {})
        f["name"] = name
        f["goodput_bytes"] = sink["goodput_bytes"][i]
        active = _active_s(f, warm_s, end_s, stop)
        if active <= 0:
            f["throughput_bps"] = None
        f["goodput_bps"] = sink["goodput_measured_bytes"][i] * 8 / active if active > 0 else 0.0
        total_measured += sink["goodput_measured_bytes"][i]
        f["retransmits"] = s.get("retransmits")
        f["srtt_s"], f["rto_s"] = s.get("srtt_s"), s.get("rto_s")
        # Counted by the simulator's TCP only; the kernel's are not read per flow.
        for k in ("timeouts", "fast_recoveries", "ecn_reductions"):
            f[k] = None
        if s.get("error"):
            errors.append(f"flow {i} ({name}): {s['error']}")
    router = rep.router["router"]
    warnings = list(errors)
    if router["kernel_rx_drops"]:
        warnings.append(f"the kernel dropped {router['kernel_rx_drops']} frames at the router's sockets: "
                        "the run is not exact")
    if router["oversize_frames"]:
        warnings.append(f"{router['oversize_frames']} frames larger than the MTU reached the router (offloads on?)")
    if router["send_errors"]:
        warnings.append(f"{router['send_errors']} frames could not be sent by the router")
    summary.update({
        "scenario": scn.name,
        "aqmlab_version": _version(),
        "wall_s": rep.wall_s,
        "events_per_s": None,
        "delivered_packets": sum(f["delivered"] for f in flows),
        "n_flows": len(flows),
        "interrupted": rep.interrupted or router["interrupted"],
        "warnings": warnings + _empty_windows(summary, np.array([np.nan if f["throughput_bps"] is None
                                                                 else f["throughput_bps"] for f in flows])),
        "goodput_bps": total_measured * 8 / summary["measured_s"] if summary["measured_s"] > 0 else 0.0,
        "live": {
            "router": router,
            "receiver_kernel": {k: rep.receiver_netstat.get(k) for k in
                                ("IpExtInCEPkts", "IpExtInECT0Pkts", "IpExtInECT1Pkts", "IpExtInNoECTPkts",
                                 "TcpExtTCPTimeouts", "TcpExtTCPLossProbes")},
            "mtu": plan.mtu,
            "congestion_control": plan.group_cc,
            "sender_sysctls": plan.sender_sysctls,
            "notes": plan.notes,
        },
    })
    traces = {k: np.asarray(rep.router["traces"][k], dtype=t) for k, t in _TRACE_TYPES.items()}
    traces["probe_names"] = list(rep.router["traces"]["probe_names"])
    tcp = rep.source["tcp_trace"]
    for k in ("tcp_cwnd", "tcp_ssthresh", "tcp_srtt_ns"):
        traces[k] = np.asarray([np.nan if v is None else v for v in tcp[k]], dtype=np.float64)
    traces.update({k: np.zeros(0, dtype=t) for k, t in _EMPTY.items()})
    traces["link_probe_names"] = []
    traces["n_flows"] = len(flows)
    hist = {k: np.asarray(v, dtype=np.uint64) for k, v in rep.router["delay_histogram"].items()}
    summary["links"] = [_bottleneck_link(summary)]
    return LiveResult(scenario=scn, summary=summary, traces=traces, delay_histogram=hist, flow_table=from_records(flows),
                      link_delay_histograms={"bottleneck": hist}, queue_names=list(_QUEUES), link_queues=[0, 1])


def _version() -> str:
    from .. import __version__

    return __version__
