"""Laki, Gombos, Nádas, Turányi, "Take your own share of the PIE", ANRW 2017 (PVPIE).

Table 1's scenarios on our dumbbell: PVPIE (α 0.125, β 1.25, T 32 ms, no auto-tune) at the
bottleneck, CUBIC (our ``linux`` TCP profile) for the continuous downloads, UDP as CBR at 60 %
of the capacity, the hierarchical token-bucket marker (40 ms depth, 30 regions per decade) at
the edge with the Gold / Silver / Background TVFs of Fig. 1 (our policy-equivalent
construction, :mod:`aqmlab.ppv`). A *flow* is one policy flow: N_tcp.c TCP connections
sharing one marker, or one UDP source. Flows are added every 30 s (1-1, 2-2, 4-4, 8-8).

Not given by the paper, and chosen here: 1500-byte packets, a 1000-packet buffer, the start
of each added connection (spread over 20 ms), the marker's bucket depth.

Runs are cheap (the longest, 150 s of scenario 3, simulates in about 2 s), so the ``--quick``
variants are the full-length runs and their verdicts are final (``quick_shortens=False``).
The PVPIE scenarios draw no random numbers (fixed starts, CBR, a threshold filter, token-bucket
markers), so every seed gives the same run: they are judged on one seed (``deterministic``),
which the test suite checks; scenario 4 also runs plain PIE, which drops at random, and keeps
the five seeds.
"""

from __future__ import annotations

import math

import numpy as np
from matplotlib.ticker import FuncFormatter, NullFormatter

from .. import ppv
from . import plotting
from .builders import dumbbell as _scenario
from .core import Analysis, Expectation, Experiment, Paper
from .registry import add

PAPER = Paper(
    key="PVPIE (ANRW 2017)",
    title="Take your own share of the PIE (Laki, Gombos, Nádas, Turányi, ANRW 2017)",
    citation="S. Laki, G. Gombos, S. Nádas, Z. Turányi. Proceedings of ANRW '17, Prague. "
             "NS-3.25 simulations of PVPIE with Gold/Silver/Background TVFs (Table 1, Figs. 3–16).",
    not_modelled=(
        ("Fig. 1's exact TVF curves.", ("Not printed in a readable form: we implement the policy its text "
         "states with a policy-equivalent construction (only the rates at a common threshold matter).")),
        ("Fig. 2: the algorithm's block diagram.", "A diagram, not a result."),
    ),
)

STEP = 30.0            # Table 1 footnote: the load or capacity changes every 30 s
TRANSIENT = 5.0        # shares are judged after each change's TCP transient (§4: "transient periods")
MARKER = {"type": "token_bucket", "depth": "40ms"}
NOTES = (
    ("TCP is our CUBIC (RFC 9438) in the `linux` profile, not NS-3 NSC's Linux stack, and without HyStart: "
     "NSC runs Linux 2.6.26, and tcp_cubic gained HyStart in 2.6.29."),
    ("TVFs: the policy of Fig. 1's text, built as V_c(x) = V_G(k_c(x)·x) from one reference Gold "
    "curve (sim::ppv::tvf); the printed curves were not available."),
    "Packet size 1500 B, buffer 1000 packets and the marker's 40 ms bucket depth are our choices.",
)


def _policy_group(name: str, tvf: str, flows_at: list[float], conns: int, rtt: str) -> dict:
    """Policy flows of class ``tvf`` starting at ``flows_at`` (s), each of ``conns`` CUBIC
    connections; the connections of a flow start 20 ms apart, flows 3 ms apart."""
    starts = [f"{t + 0.003 * i + 0.020 * j:.3f}s" for i, t in enumerate(flows_at) for j in range(conns)]
    return {"name": name, "type": "tcp", "profile": "linux", "hystart": False, "rack": False, "count": len(starts), "rtt": rtt,
            "start": starts, "packet_size": "1500B",
            "marker": {"tvf": tvf, "connections_per_flow": conns, **MARKER}}


def _doubling(step: float, first: float = 0.0) -> list[float]:
    """Start times of 8 flows doubling every step from ``first``: 1, 2, 4, 8."""
    return [first] + [first + step] + [first + 2 * step] * 2 + [first + 3 * step] * 4


def _pvpie(target: str = "40ms", gamma: int = 1) -> dict:
    return {"type": "pvpie", "target": target, "gamma": gamma, "limit": "1000p"}


def _dumbbell(exp_id: str, *, queue: dict, flows: list[dict], steps: int, rate: str, rtt_s: float,
              schedule: tuple = ()) -> dict:
    return _scenario(exp_id, queue=queue, flows=flows, duration=steps * STEP, warmup=TRANSIENT,
                     rate=rate, delay=f"{rtt_s / 4 * 1e3:g}ms", schedule=schedule, interval="100ms",
                     flow_bytes=True, probe=True)


# ---- per-class series and metrics ----------------------------------------------------------------

def _classes(result) -> dict[str, tuple[np.ndarray, dict]]:
    """Per group name: the flow ids and the group's resolved marker (if any)."""
    out, fid = {}, 0
    for g in result.scenario.resolved["flows"]:
        out[g["name"]] = (np.arange(fid, fid + g["count"]), g)
        fid += g["count"]
    return out


def _active_policy_flows(group: dict, t: np.ndarray) -> np.ndarray:
    """Policy flows of the group active at each time (a flow counts from its first connection)."""
    per = group.get("marker", {}).get("connections_per_flow") or group["count"]
    starts = group["start"] if isinstance(group["start"], list) else [group["start"]] * group["count"]
    first = np.array([_secs(s) for s in starts[::per]])
    return (first[None, :] <= t[:, None]).sum(axis=1)


def _secs(text: str) -> float:
    from .. import units

    return units.duration_ns(text, "start") / 1e9


def class_series(result) -> dict[str, dict[str, np.ndarray]]:
    """Per class: t_s, the measured throughput per policy flow and the desired one (bit/s)."""
    rates = result.flow_rates()
    t = rates.index.to_numpy()
    probe = result.probe()
    ctv = np.interp(t, probe["t_s"].to_numpy(), probe["desired_ctv"].to_numpy())
    out = {}
    for name, (ids, group) in _classes(result).items():
        n = _active_policy_flows(group, t)
        idle = np.where(n > 0, 1.0, np.nan)  # per-flow series are undefined while no flow is active
        total = rates[list(ids)].to_numpy().sum(axis=1)
        demand = math.inf if group["type"] == "tcp" else _rate(group["rate"])
        per_flow_cap = demand * (group.get("marker", {}).get("connections_per_flow") or 1)
        desired = np.array([ppv.desired_rate(group["marker"]["tvf"], c, per_flow_cap) for c in ctv])
        out[name] = {"t_s": t, "per_flow_bps": total / np.maximum(n, 1) * idle, "desired_bps": desired * idle,
                     "total_bps": total, "flows": n}
    return out


def _rate(text: str) -> float:
    from .. import units

    return float(units.rate_bps(text, "rate"))


def _windows(steps: int) -> list[tuple[float, float]]:
    """The measured part of each 30 s step: after its 5 s transient."""
    return [(k * STEP + TRANSIENT, (k + 1) * STEP) for k in range(steps)]


def transient_windows(steps: int) -> list[tuple[float, float]]:
    """The 5 s transient after each change (30 s, 60 s, ...): what the steady windows leave out."""
    return [(k * STEP, k * STEP + TRANSIENT) for k in range(1, steps)]


def _mean(s: dict, key: str, w: tuple[float, float]) -> float:
    sel = (s["t_s"] > w[0]) & (s["t_s"] <= w[1])
    return float(np.mean(s[key][sel])) if sel.any() else math.nan


def share_ratios(series: dict, a: str, b: str, windows: list[tuple[float, float]]) -> dict[int, tuple[float, float]]:
    """Per window index, where both classes are present: the measured and the desired ratio of
    class a's per-flow throughput to class b's, each from the window's means."""
    out = {}
    for k, w in enumerate(windows):
        if _mean(series[a], "flows", w) < 1 or _mean(series[b], "flows", w) < 1:
            continue
        out[k] = (_mean(series[a], "per_flow_bps", w) / _mean(series[b], "per_flow_bps", w),
                  _mean(series[a], "desired_bps", w) / _mean(series[b], "desired_bps", w))
    return out


def ratio_errors(series: dict, a: str, b: str, windows: list[tuple[float, float]]) -> list[float]:
    """|measured / desired - 1| of the a/b throughput ratio in each window where both are present."""
    return [abs(got / want - 1) for got, want in share_ratios(series, a, b, windows).values()]


def _share_metrics(series: dict, a: str, b: str, windows: list[tuple[float, float]]) -> dict[str, float]:
    """Per window: measured and desired ratio of class a's per-flow throughput to class b's, and
    the worst relative deviation over the windows where both classes are present."""
    m = {}
    for k, (got, want) in share_ratios(series, a, b, windows).items():
        m[f"ratio_step{k}"] = got
        m[f"desired_ratio_step{k}"] = want
    m["ratio_worst_rel_err"] = max(ratio_errors(series, a, b, windows), default=0.0)
    return m


def _figure(result, exp_id: str, title: str, target_s: float):
    series = class_series(result)
    fig, ax = plotting.figure(3, 1, height=2.4)
    for i, (name, s) in enumerate(series.items()):
        color = f"C{i}"
        ax[0, 0].plot(s["t_s"], s["per_flow_bps"] / 1e6, lw=0.7, color=color, label=name)
        ax[0, 0].plot(s["t_s"], s["desired_bps"] / 1e6, lw=1.0, ls="--", color=color, label=f"{name} desired")
    ax[0, 0].set_yscale("log")
    ax[0, 0].yaxis.set_major_formatter(FuncFormatter(lambda v, _: f"{v:g}"))
    ax[0, 0].yaxis.set_minor_formatter(NullFormatter())
    ax[0, 0].set_ylabel("throughput per flow (Mb/s)")
    ax[0, 0].set_title(f"{title}: flow throughput", fontsize="medium")
    probe = result.probe()
    if "ctv" in probe:  # PVPIE's filter; a null control's DropTail has none
        ax[1, 0].plot(probe.t_s, probe.ctv, lw=0.6, label="filter (CTV code)")
    ax[1, 0].plot(probe.t_s, probe.desired_ctv, lw=1.0, ls="--", color="k", label="desired")
    ax[1, 0].set_ylabel("PV code")
    ax[1, 0].set_title("filter threshold", fontsize="medium")
    q = result.queue()
    ax[2, 0].plot(q.t_s, q.sojourn_mean_s * 1e3, lw=0.6, label="queue delay (sojourn, interval mean)")
    ax[2, 0].axhline(target_s * 1e3, color="k", ls="--", lw=0.8, label="target")
    ax[2, 0].set_ylabel("delay (ms)")
    ax[2, 0].set_xlabel("time (s)")
    for a in ax[:, 0]:
        a.grid(alpha=0.3)
        a.legend(fontsize="x-small", loc="upper right")
    fig.tight_layout()
    return ((f"{exp_id}: throughput per flow against desired, the filter against the desired "
            "threshold, the queue delay against the target."), fig)


# ---- scenario 1: Gold and Silver TCP flows doubling every 30 s -------------------------------------

def s1_scenario(name: str, rate: str, conns: int, gamma: int = 1) -> dict:
    """Scenario 1: Gold and Silver policy flows of ``conns`` connections doubling every 30 s."""
    starts = _doubling(STEP)
    flows = [_policy_group("gold", "gold", starts, conns, "40ms"), _policy_group("silver", "silver", starts, conns, "40ms")]
    return _dumbbell(name, queue=_pvpie(gamma=gamma), flows=flows, steps=4, rate=rate, rtt_s=0.040)


def _scenario1(panel: str, rate: str, conns: int, figures: str) -> Experiment:
    exp_id = f"pvpie17-1{panel}"

    def scenarios(quick: bool) -> dict:
        return {"pvpie": s1_scenario(exp_id, rate, conns)}

    def analyse(results, quick: bool) -> Analysis:
        r = results["pvpie"]
        m = _share_metrics(class_series(r), "gold", "silver", _windows(4))
        m["qdelay_p50_s"] = r.summary["qdelay_p50_s"]
        m["utilization"] = r.summary["utilization"]
        return Analysis(m, [_figure(r, exp_id, f"Scenario 1{panel} ({rate}, N_tcp.c = {conns})", 0.040)])

    return Experiment(
        id=exp_id, title=f"Gold and Silver TCP flows doubling every 30 s, {rate}, N_tcp.c = {conns}", paper=PAPER,
        figure=f"Figs. {figures}, §4 scenario 1", quick_shortens=False, deterministic=True,
        statement=f"On a {rate} bottleneck with 1-1, 2-2, 4-4 then 8-8 Gold and Silver TCP flows the shares "
                  "approach the desired ones and the queue delay stays near the 40 ms target"
                  + (" (N_tcp.c = 5 controls the shares better than 1)." if conns == 5 else "."),
        scenarios=scenarios, analyse=analyse, notes=NOTES,
        expectations=(
            Expectation("ratio_worst_rel_err", "The Gold/Silver throughput ratio is within ±25 % of desired "
                        "after each 5 s transient.", f"Figs. {figures}, §4",
                        "'The actual bandwidth shares approach the desired shares accurately' (§4) read as "
                        "±25 % on the ratio once the TCP transient after a change is over; with one connection per flow the "
                        "paper itself reports larger fluctuations (a single drop moves a flow a lot).",
                        hi=0.25),
            Expectation("qdelay_p50_s", "The median queue delay is near the 40 ms target.", f"Figs. {figures}",
                        "±50 % of the target: the paper calls the target 'mostly satisfied' and gives no number.",
                        lo=0.020, hi=0.060, paper=0.040, unit="ms", scale=1e3),
        ),
    )


S1A = _scenario1("a", "10Mbps", 1, "3")
S1B = _scenario1("b", "100Mbps", 1, "4–6")
# Not asserted since the TCP fidelity fixes of issue 13: with Linux's fixed CUBIC α (NSC's Linux
# 2.6.26 has it too) and 948-byte segments (timestamps counted), the first step's Gold/Silver
# ratio is 2.8 of the desired 4 (error 0.29, band 0.25); the later steps stay within 7 %. It was
# 0.12 with the α = 1 switch at W_max the simulator had before.
S1C = _scenario1("c", "100Mbps", 5, "7–9")


# ---- scenario 2: Background UDP against Gold and Silver TCP ------------------------------------------

def _s2_scenarios(quick: bool) -> dict:
    starts = _doubling(STEP, first=STEP)[:4]  # 0-0, then 1-1, 2-2, 4-4
    flows = [
        _policy_group("gold", "gold", starts, 1, "40ms"),
        _policy_group("silver", "silver", starts, 1, "40ms"),
        {"name": "background", "type": "udp", "count": 3, "rate": "30Mbps", "rtt": "40ms", "packet_size": "1500B",
         "marker": {"tvf": "background", "connections_per_flow": 1, **MARKER}},
    ]
    return {"pvpie": _dumbbell("pvpie17-2", queue=_pvpie(), flows=flows, steps=4, rate="50Mbps", rtt_s=0.040)}


def _s2_analyse(results, quick: bool) -> Analysis:
    r = results["pvpie"]
    series = class_series(r)
    windows = _windows(4)[1:]
    m = _share_metrics(series, "gold", "silver", windows)
    # TCP's share of what the policy grants it, in the windows with TCP present.
    tcp_got = sum(_mean(series[c], "total_bps", w) for c in ("gold", "silver") for w in windows)
    tcp_want = sum(_mean(series[c], "desired_bps", w) * _mean(series[c], "flows", w) for c in ("gold", "silver") for w in windows)
    bg_got = sum(_mean(series["background"], "total_bps", w) for w in windows)
    bg_want = sum(_mean(series["background"], "desired_bps", w) * 3 for w in windows)
    m.update(tcp_share_of_desired=tcp_got / tcp_want, background_share_of_desired=bg_got / bg_want,
             qdelay_p50_s=r.summary["qdelay_p50_s"])
    return Analysis(m, [_figure(r, "pvpie17-2", "Scenario 2 (50 Mb/s, 3 Background UDP at 30 Mb/s)", 0.040)])


S2 = Experiment(
    id="pvpie17-2", title="Background UDP flows against Gold and Silver TCP flows", paper=PAPER,
    figure="Fig. 10, §4 scenario 2",
    statement="Three 30 Mb/s Background UDP flows share 50 Mb/s; Gold and Silver TCP flows joining at 30, 60 "
              "and 90 s get close to their desired share although the aggressive UDP flows stay.",
    scenarios=_s2_scenarios, analyse=_s2_analyse, notes=NOTES, quick_shortens=False, deterministic=True,
    expectations=(
        Expectation("tcp_share_of_desired", "The UDP flows cannot take the TCP flows' share.", "Fig. 10, §4",
                    "TCP keeps at least 85 % of the total its TVFs grant it. Not 100 %: after each loss a "
                    "connection sends below its allowance for a while and the CBR sources fill the gap (the "
                    "paper's own explanation of Fig. 10). The Background sources' share of their desired "
                    "rate is reported as background_share_of_desired; the paper gives no number for it.",
                    lo=0.85),
        Expectation("background_share_of_desired", "Read strictly: the Background UDP flows get no more than "
                    "their own TVF share.", "Fig. 10, §4",
                    "The policy taken literally (each class gets its TVF share), with 25 % of slack. The paper's Fig. 10 itself shows the "
                    "CBR sources above their share while TCP recovers from losses, so a deviation here is the "
                    "mechanism the paper describes, reported rather than hidden.", hi=1.25),
        Expectation("ratio_worst_rel_err", "Gold and Silver get close to their desired shares.", "Fig. 10, §4",
                    "±25 % on the Gold/Silver ratio after each 5 s transient, as 'accurately' in scenario 1.", hi=0.25),
        Expectation("qdelay_p50_s", "The median queue delay is near the 40 ms target.", "§4",
                    "±50 % of the target: the paper calls the target 'mostly satisfied' and gives no number.", lo=0.020, hi=0.060, paper=0.040, unit="ms", scale=1e3),
    ),
)


# ---- scenario 3: a bottleneck changing every 30 s ----------------------------------------------------

def s3_scenario(name: str, pairs: int, conns: int, gamma: int = 1) -> dict:
    """Scenario 3: ``pairs`` Gold and Silver policy flows while the capacity steps 10, 50, 100, 50,
    10 Mb/s every 30 s."""
    rates = ("10Mbps", "50Mbps", "100Mbps", "50Mbps", "10Mbps")
    flows = [_policy_group("gold", "gold", [0.0] * pairs, conns, "40ms"),
             _policy_group("silver", "silver", [0.0] * pairs, conns, "40ms")]
    schedule = tuple((k * STEP, rates[k]) for k in range(1, 5))
    return _dumbbell(name, queue=_pvpie(gamma=gamma), flows=flows, steps=5, rate=rates[0], rtt_s=0.040,
                     schedule=schedule)


def _scenario3(panel: str, pairs: int, conns: int, figure: str) -> Experiment:
    exp_id = f"pvpie17-3{panel}"

    def scenarios(quick: bool) -> dict:
        return {"pvpie": s3_scenario(exp_id, pairs, conns)}

    def analyse(results, quick: bool) -> Analysis:
        r = results["pvpie"]
        m = _share_metrics(class_series(r), "gold", "silver", _windows(5))
        m["qdelay_p50_s"] = r.summary["qdelay_p50_s"]
        return Analysis(m, [_figure(r, exp_id, f"Scenario 3{panel} ({pairs}-{pairs} flows, N_tcp.c = {conns})", 0.040)])

    return Experiment(
        id=exp_id, title=f"Capacity 10→50→100→50→10 Mb/s, {pairs}-{pairs} flows, N_tcp.c = {conns}", paper=PAPER,
        figure=f"Fig. {figure}, §4 scenario 3",
        statement="When the capacity changes every 30 s the shares return to the desired ones after the TCP "
                  "transient; Gold fluctuates more with N_tcp.c = 1.",
        scenarios=scenarios, analyse=analyse, notes=NOTES, quick_shortens=False, deterministic=True,
        expectations=(
            Expectation("ratio_worst_rel_err", "The Gold/Silver ratio is within ±25 % of desired after each "
                        "5 s transient.", f"Fig. {figure}", "±25 %, as 'accurately' in scenario 1; the paper shows transients at "
                        "each capacity increase, which the 5 s exclusion covers.", hi=0.25),
            Expectation("qdelay_p50_s", "The median queue delay is near the 40 ms target.", f"Fig. {figure}",
                        "±50 % of the target: the paper calls the target 'mostly satisfied' and gives no number.", lo=0.020, hi=0.060, paper=0.040, unit="ms", scale=1e3),
        ),
    )


S3A = _scenario3("a", 1, 5, "11")
S3B = _scenario3("b", 10, 1, "12")


# ---- scenario 4: PIE's Fig. 4c load, 5 Gold TCP and 2 Silver UDP -------------------------------------

S4_DESIRED_GOLD = 10e6 / 6   # §4: "1.67 Mbps for the Gold TCP" per flow
S4_DESIRED_SILVER = 10e6 / 12  # "0.83 Mbps for the Silver UDP"


def _s4(label: str, conns: int, gamma: int, queue: dict | None = None) -> dict:
    flows = [_policy_group("gold", "gold", [0.0] * 5, conns, "100ms"),
             {"name": "silver", "type": "udp", "count": 2, "rate": "6Mbps", "rtt": "100ms", "packet_size": "1500B",
              "marker": {"tvf": "silver", "connections_per_flow": 1, **MARKER}}]
    return _dumbbell(f"pvpie17-{label}", queue=queue or _pvpie("20ms", gamma), flows=flows, steps=4,
                     rate="10Mbps", rtt_s=0.100)


def _s4_scenarios(quick: bool) -> dict:
    return {"4a": _s4("4a", 1, 1), "4b": _s4("4b", 5, 10),
            "pie": _s4("4-pie", 1, 1, {"type": "pie", "profile": "paper", "target": "20ms", "limit": "1000p"})}


def _s4_analyse(results, quick: bool) -> Analysis:
    m, figs = {}, []
    for label, r in results.items():
        flows = r.flows()
        gold = flows[flows.name == "gold"].throughput_bps.sum() / 5
        silver = flows[flows.name == "silver"].throughput_bps.sum() / 2
        m[f"{label}_gold_per_flow_bps"] = gold
        m[f"{label}_silver_per_flow_bps"] = silver
        m[f"{label}_share_error"] = abs(gold / S4_DESIRED_GOLD - 1)
        m[f"{label}_qdelay_p50_s"] = r.summary["qdelay_p50_s"]
        if label != "pie":
            figs.append(_figure(r, f"pvpie17-{label}", f"Scenario {label} (10 Mb/s, τ 20 ms, RTT 100 ms)", 0.020))
    m["4a_over_4b_share_error"] = m["4a_share_error"] / m["4b_share_error"]
    m["pie_tcp_fraction"] = 5 * m["pie_gold_per_flow_bps"] / 10e6
    return Analysis(m, figs)


S4 = Experiment(
    id="pvpie17-4", title="5 Gold TCP and 2 Silver UDP flows at 10 Mb/s (PIE's Fig. 4c load), and plain PIE",
    paper=PAPER, figure="Figs. 13–16, §4 scenario 4, footnote 2", quick_shortens=False,
    statement="The desired split is 1.67 Mb/s per Gold TCP flow and 0.83 Mb/s per Silver UDP flow. With γ = 1 and "
              "N_tcp.c = 1 (4a) the shares are far from desired but UDP cannot overwhelm TCP; γ = 10 and "
              "N_tcp.c = 5 (4b) come closest; the queue meets the 20 ms target. Footnote 2 believes that "
              "plain PIE leaves TCP close to 0.",
    scenarios=_s4_scenarios, analyse=_s4_analyse, notes=NOTES + (
        ("Plain PIE runs our `paper` profile (HPSR'13) with the 20 ms target on the same load; TCP's share "
        "there tests footnote 2's belief."),),
    expectations=(
        Expectation("4a_over_4b_share_error", "Scenario 4b's shares are closer to desired than 4a's.", "Figs. 13–14",
                    "Comparative claim of the paper ('the best' against 'the worst case'), read as at least 10 % "
                    "less error, the margin pvpie17-4-cases gives 'better'.", lo=1.1),
        Expectation("4a_gold_per_flow_bps", "In 4a the UDP flows cannot overwhelm the TCP flows.", "Fig. 13",
                    "Each Gold TCP flow keeps at least half its desired 1.67 Mb/s.", lo=0.5 * S4_DESIRED_GOLD,
                    paper=S4_DESIRED_GOLD, unit="Mb/s", scale=1e-6),
        Expectation("4b_share_error", "In 4b the Gold TCP flows get close to 1.67 Mb/s each.", "Fig. 14",
                    "±25 %, the band scenario 1's 'accurately' gets, applied to the Gold share.", hi=0.25),
        Expectation("4b_qdelay_p50_s", "The queue meets the 20 ms target after the transient.", "Fig. 16",
                    "±50 % of the target: the paper says the target is 'well met' and gives no number.", lo=0.010, hi=0.030, paper=0.020, unit="ms", scale=1e3),
        Expectation("pie_tcp_fraction", "Footnote 2: under plain PIE TCP gets 'close to 0'.", "footnote 2",
                    "We call 'close to 0' below 5 % of the link; the paper did not run it.", hi=0.05),
    ),
)

add(S1A, S1B, S1C, S2, S3A, S3B, S4)
