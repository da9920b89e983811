"""One measurement definition for both simulators (docs/xval.md, "Measurement").

Each side produces a :class:`Raw` record of one run over the measured window [warmup, duration):
the IP bytes whose transmission on the bottleneck started in the window, per-flow payload
delivered in order to the application, retransmitted segments and retransmission timeouts, the
bottleneck discipline's departures (time the packet left the discipline for the link, and its
sojourn from enqueue to that time), its drops by class and its CE marks. :func:`metrics` turns a
Raw record into the figures compared, the same code for both sides.
"""

from __future__ import annotations

import json
import subprocess
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from ..scenario import Scenario
from .mapping import Qdisc

DROP_CLASSES = ("early", "dequeue", "limit")
# Bins of the queue-delay-over-time series.
BIN_S = 0.1


@dataclass
class Raw:
    window_s: float
    warmup_s: float
    bottleneck_bytes: int
    groups: list[str]          # group name of each flow
    tcp: list[bool]
    goodput_bytes: np.ndarray  # per flow
    retransmits: np.ndarray
    timeouts: np.ndarray
    leave_s: np.ndarray        # per departure from the discipline
    sojourn_s: np.ndarray
    drops: dict[str, int]      # early | dequeue | limit (| other, ns-3 reasons not classified)
    marks: int
    # The ns-3 run loop's own wall and CPU time (s): `aqmlab bench --vs-ns3`.
    run_wall_s: float = float("nan")
    run_cpu_s: float = float("nan")


def _flow_groups(scn: Scenario) -> tuple[list[str], list[bool], list[int]]:
    names, tcp, rx = [], [], []
    for g in scn.sim_config["flows"]:
        names += [g["name"]] * g["count"]
        tcp += [g["transport"]["type"] == "tcp"] * g["count"]
        rx += [g["receiver_delay_ns"]] * g["count"]
    return names, tcp, rx


def aqmlab_run(scn: Scenario, seed: int) -> tuple[Raw, list[tuple[int, int, int]]]:
    """aqmlab's run of the scenario for `seed`; also each flow's (start, access delay, receiver
    delay) in ns as aqmlab drew them, which the ns-3 run is given."""
    from .. import _core

    s = scn.with_values({"seed": seed, "traces.sojourn": True, "traces.sojourn_every": 1})
    c = s.sim_config
    warm, end = c["warmup_ns"], c["duration_ns"]
    sim = _core.Simulation(s.sim_json())
    # The counters just before the warm-up's first nanosecond: ns-3's program counts from the
    # warm-up time on (its InWindow, >= warm-up), as the summary's window does, so what the run
    # adds after them is that window (events at the warm-up time itself included).
    if warm > 0:
        sim.run_until(warm - 1)
    s0 = json.loads(sim.summary_json())
    f0 = dict(sim.flow_columns())
    sim.run_until(end)
    s1 = json.loads(sim.summary_json())
    f1 = dict(sim.flow_columns())
    tr = sim.traces()
    names, tcp, rx = _flow_groups(s)
    delay = c["bottleneck"]["delay_ns"]
    params = []
    for start_s, rtt_s, r in zip(f1["start_s"].tolist(), f1["rtt_base_s"].tolist(), rx):
        one_way = round(rtt_s * 1e9) // 2
        params.append((round(start_s * 1e9), one_way - delay - r, r))

    def diff(key: str) -> np.ndarray:
        return f1[key].astype(np.int64) - f0[key].astype(np.int64)

    q0, q1 = (next(q for q in x["queues"] if q["queue"] == "bottleneck") for x in (s0, s1))
    t = np.asarray(tr["sojourn_t_ns"], dtype=np.int64)
    link = np.asarray(tr["sojourn_ns"], dtype=np.int64)
    qdisc = np.asarray(tr["sojourn_qdisc_ns"], dtype=np.int64)
    leave = t - link + qdisc  # the time the packet left the discipline
    keep = (leave >= warm) & (leave < end)
    raw = Raw(
        window_s=(end - warm) * 1e-9, warmup_s=warm * 1e-9, bottleneck_bytes=int(s1["bottleneck_bytes"]),
        groups=names, tcp=tcp, goodput_bytes=diff("goodput_bytes"), retransmits=diff("retransmits"),
        timeouts=diff("timeouts"), leave_s=leave[keep] * 1e-9, sojourn_s=qdisc[keep] * 1e-9,
        drops={"early": q1["drops_early"] - q0["drops_early"], "dequeue": q1["drops_dequeue"] - q0["drops_dequeue"],
               "limit": q1["drops_overflow"] - q0["drops_overflow"]},
        marks=q1["marks"] - q0["marks"],
    )
    return raw, params


def classify(reasons: dict[str, int], q: Qdisc) -> dict[str, int]:
    """ns-3's drop reasons (the strings QueueDisc::DropBeforeEnqueue/DropAfterDequeue carry; a
    child queue disc's reason arrives inside its parent's) summed into the classes."""
    out = dict.fromkeys(DROP_CLASSES, 0)
    for reason, n in reasons.items():
        cls = next((c for key, c in q.drop_classes.items() if key in reason), "other")
        out[cls] = out.get(cls, 0) + n
    return out


def ns3_run(binary: Path, scn: Scenario, seed: int, params: list[tuple[int, int, int]], forward: Qdisc) -> Raw:
    """The ns-3 program's run for `seed` with aqmlab's per-flow draws."""
    c = scn.sim_config
    names, tcp, _ = _flow_groups(scn)
    with tempfile.TemporaryDirectory(prefix="aqmlab-xval-") as d:
        p = Path(d) / "params.txt"
        p.write_text("".join(f"{a} {b} {r}\n" for a, b, r in params))
        out = Path(d) / "out"
        r = subprocess.run([str(binary), str(seed), str(p), str(out)], capture_output=True, text=True)
        if r.returncode != 0:
            raise RuntimeError(f"the ns-3 program failed (exit {r.returncode}) for seed {seed}:\n{r.stderr.strip()}")
        js = json.loads(out.with_suffix(".json").read_text())
        dep = np.fromfile(out.with_suffix(".sojourn"), dtype=np.int64).reshape(-1, 2)
    end = c["duration_ns"]
    dep = dep[dep[:, 0] < end]
    flows = js["flows"]
    return Raw(
        window_s=(end - c["warmup_ns"]) * 1e-9, warmup_s=c["warmup_ns"] * 1e-9,
        bottleneck_bytes=int(js["bottleneck_bytes"]), groups=names, tcp=tcp,
        goodput_bytes=np.array([f["goodput_bytes"] for f in flows], dtype=np.int64),
        retransmits=np.array([f["retransmits"] for f in flows], dtype=np.int64),
        timeouts=np.array([f["timeouts"] for f in flows], dtype=np.int64),
        leave_s=dep[:, 0] * 1e-9, sojourn_s=dep[:, 1] * 1e-9,
        drops=classify(js["drops"], forward), marks=int(sum(js["marks"].values())),
        run_wall_s=float(js["run_wall_s"]), run_cpu_s=float(js["run_cpu_s"]),
    )


def jain(x: np.ndarray) -> float:
    s2 = float((x * x).sum())
    return float(x.sum() ** 2 / (len(x) * s2)) if s2 > 0 else float("nan")


def metrics(r: Raw) -> dict[str, float]:
    """The compared figures of one run (rates in Mb/s, delays in ms, counts per run)."""
    w = r.window_s
    gp = r.goodput_bytes * 8 / w / 1e6
    soj = r.sojourn_s * 1e3
    drops = sum(r.drops.values())
    m: dict[str, float] = {"throughput_mbps": r.bottleneck_bytes * 8 / w / 1e6, "jain": jain(gp)}
    for name in dict.fromkeys(r.groups):
        sel = np.array([g == name for g in r.groups])
        m[f"goodput_mbps[{name}]"] = float(gp[sel].mean())
        if r.tcp[r.groups.index(name)]:
            m[f"retransmits[{name}]"] = float(r.retransmits[sel].sum())
            m[f"timeouts[{name}]"] = float(r.timeouts[sel].sum())
    if len(soj):
        m.update({"sojourn_mean_ms": float(soj.mean()), "sojourn_p50_ms": float(np.percentile(soj, 50)),
                  "sojourn_p95_ms": float(np.percentile(soj, 95)), "sojourn_p99_ms": float(np.percentile(soj, 99)),
                  "sojourn_max_ms": float(soj.max())})
    for k in DROP_CLASSES:
        m[f"drops_{k}"] = float(r.drops.get(k, 0))
    if r.drops.get("other"):
        m["drops_other"] = float(r.drops["other"])
    m["marks"] = float(r.marks)
    m["drop_fraction"] = drops / (drops + len(soj)) if drops + len(soj) else 0.0
    return m


def delay_series(r: Raw) -> tuple[np.ndarray, np.ndarray]:
    """Mean sojourn (ms) of the departures in each BIN_S bin of the window."""
    edges = np.arange(r.warmup_s, r.warmup_s + r.window_s + BIN_S / 2, BIN_S)
    idx = np.digitize(r.leave_s, edges) - 1
    n = len(edges) - 1
    ok = (idx >= 0) & (idx < n)
    sums = np.bincount(idx[ok], weights=r.sojourn_s[ok] * 1e3, minlength=n)
    counts = np.bincount(idx[ok], minlength=n)
    with np.errstate(invalid="ignore", divide="ignore"):
        return edges[:-1] + BIN_S / 2, sums / counts
