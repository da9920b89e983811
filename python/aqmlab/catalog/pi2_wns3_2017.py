"""Tahiliani and Tewari, "Implementation of PI² Queuing Discipline for Classic TCP Traffic in ns-3",
WNS3 2017.

Table 3 (ns-3.26): a dumbbell with a 10 Mb/s bottleneck of 100 ms round trip and a 200 KB buffer,
10 Mb/s access links of 10 ms round trip with drop-tail queues, 1000-byte packets, TCP NewReno
without ECN (our ``ns3.26`` profile: no SACK, initial window 1, minimum RTO 1 s, delayed ACKs),
applications from 0 s to 100 s. PI²: target 20 ms, T_update 30 ms, α 0.125 Hz and β 1.25 Hz as
printed (our ``paper`` profile), and the authors' final code's α 0.3125, β 3.125 (``final_code``);
dq_threshold 10 KB. Its opponent is ns-3's PIE of the time, with the same printed parameters.
"""

from __future__ import annotations

import numpy as np

from . import metrics, plotting
from .builders import dumbbell
from .builders import tcp as _tcp
from .builders import udp as _udp
from .core import Analysis, Expectation, Experiment, Paper
from .registry import add

PAPER = Paper(
    key="PI² in ns-3 (WNS3 2017)",
    title="Implementation of PI² Queuing Discipline for Classic TCP Traffic in ns-3 (Tahiliani, Tewari, WNS3 2017)",
    citation="R. P. Tahiliani, H. Tewari. Workshop on ns-3 (WNS3), Porto, June 2017. Figures 3–10 are ns-3.26 "
             "simulations comparing the authors' PI² model with ns-3's PIE.",
    not_modelled=(
        ("Figs. 1–2: class diagram and component interactions of the ns-3 model.", "Diagrams, not results."),
        ("§4: the model's unit-test suite.", "Tests of the ns-3 code itself; ours has its own AQM unit tests."),
    ),
)

# Table 3.
TARGET = 0.020
DURATION = 100.0
BOTTLENECK = {"rate": "10Mbps", "delay": "50ms"}   # 100 ms bottleneck round trip
RTT = "110ms"                                     # plus 10 ms on the access links
ACCESS = {"rate": "10Mbps"}
BUFFER = "200KB"

AQMS = {
    "pie": ("PIE", {"type": "pie", "profile": "paper", "limit": BUFFER, "rate_ewma": 0.5}),
    "pi2": ("PI² (α 0.125, β 1.25)", {"type": "pi2", "profile": "paper", "limit": BUFFER}),
    "pi2final": ("PI² (α 0.3125, β 3.125)", {"type": "pi2", "profile": "final_code", "limit": BUFFER}),
}
PI2_RUNS = ("pi2", "pi2final")

NOTES = (
    "TCP is our ns3.26 profile (NewReno, no SACK, IW 1, MinRto 1 s, delayed ACKs every 2nd segment or "
    "200 ms); ns-3.26's socket details beyond those (e.g. its limited-transmit and RTT estimator) may "
    "differ.",
    "Table 3's 'bottleneck RTT 100 ms' and 'non-bottleneck RTT 10 ms' are read as a 110 ms base round trip "
    "(50 ms one-way bottleneck, 5 ms per flow on its 10 Mb/s access link). The authors' published scripts "
    "give 80 ms (spec ppv-pi2-fluid-tcp.md §2.3); we follow the paper's table.",
    "PIE is our HPSR-era model (departure-rate delay over 10 KB cycles, 3-step auto-tune, 100 ms burst "
    "allowance) with the printed target, T_update, α and β and ns-3's departure-rate EWMA weight of 1/2 "
    "(the estimator the ns-3 PI² port copied from ns-3's PIE); ns-3.26's PieQueueDisc may differ in its "
    "auto-tune table and burst handling.",
    "All flows start at 0 s as in the paper; means and percentiles exclude the first 10 s (the start-up "
    "peak), which the start-up metrics cover separately.",
)


def _flows(n_tcp: int, n_udp: int) -> list[dict]:
    flows = [_tcp(n_tcp, 0.0, rtt=RTT, profile="ns3.26")]
    if n_udp:
        flows.append(_udp(n_udp, "10Mbps", 0.0, rtt=RTT))
    return flows


def _scenario(name: str, aqm: str, n_tcp: int, n_udp: int, quick: bool, target_ms: float | None = None) -> dict:
    queue = dict(AQMS[aqm][1])
    if target_ms is not None:
        queue["target"] = f"{target_ms:g}ms"
    s = dumbbell(f"{name}-{aqm}", queue=queue, flows=_flows(n_tcp, n_udp), duration=30.0 if quick else DURATION,
                 warmup=10.0, flow_bytes=True, **BOTTLENECK)
    s["access"] = dict(ACCESS)
    return s


def _peak_s(r, t1: float = 10.0) -> float:
    """The start-up peak: the largest queueing delay (mean sojourn per 10 ms interval, what the
    paper's delay plots show) before t1."""
    d = metrics.delay_series(r)
    sel = d["t_s"].to_numpy() < t1
    return float(np.nanmax(d["delay_s"].to_numpy()[sel]))


def _early_throughput_bps(r, t1: float = 10.0) -> float:
    """Link throughput over the first ``t1`` seconds from the per-flow rate trace (whose rows are
    interval ends; the row at t = 0 covers no interval)."""
    rates = r.flow_rates().iloc[1:]
    return metrics.window_mean(rates.index.to_numpy(), rates.to_numpy().sum(axis=1), 0.0, t1 + 1e-9)


# ---- Scenarios 1–3: queue delay and throughput over time --------------------------------------

def _timeline(num: int, n_tcp: int, n_udp: int, figs: tuple[str, str], statement: str,
              extra: tuple[Expectation, ...]) -> Experiment:
    exp_id = f"pi2wns3-s{num}"
    load = f"{n_tcp} TCP" + (f" + {n_udp} UDP at 10 Mb/s" if n_udp else "")

    def scenarios(quick: bool) -> dict:
        return {aqm: _scenario(exp_id, aqm, n_tcp, n_udp, quick) for aqm in AQMS}

    def analyse(results, quick: bool) -> Analysis:
        m: dict[str, float] = {}
        for aqm, r in results.items():
            end = r.summary["time_s"]
            m[f"{aqm}_delay_s"] = metrics.delay_mean(r, 10.0, end)
            m[f"{aqm}_peak_s"] = _peak_s(r)
            m[f"{aqm}_utilization"] = r.summary["utilization"]
            m[f"{aqm}_early_throughput_bps"] = _early_throughput_bps(r)
            m[f"{aqm}_tcp_throughput_bps"] = metrics.group_throughput_bps(r, "ftp")
        for aqm in PI2_RUNS:
            m[f"{aqm}_minus_pie_peak_s"] = m[f"{aqm}_peak_s"] - m["pie_peak_s"]
            m[f"{aqm}_over_pie_early_throughput"] = m[f"{aqm}_early_throughput_bps"] / m["pie_early_throughput_bps"]
        runs = [(AQMS[a][0], results[a]) for a in AQMS]
        fig, ax = plotting.figure(2, 1, height=3.0)
        plotting.delay_over_time(ax[0, 0], runs, reference_s=TARGET, title=f"{figs[0]}: queue delay, {load}")
        # The paper's start-up peak (160 ms, 160+ ms), which is also the buffer's drain time.
        ax[0, 0].axhline(0.160 * 1e3, color="grey", ls=":", lw=1.0,
                         label="paper's start-up peak; 200 KB drains in 160 ms at 10 Mb/s")
        ax[0, 0].legend(fontsize="small", loc="upper right")
        plotting.throughput_over_time(ax[1, 0], runs, bin_s=1.0, title=f"{figs[1]}: link throughput, {load}")
        fig.tight_layout()
        return Analysis(m, [(f"Queueing delay and link throughput, PI² (both gain sets) versus PIE, {load} "
                             f"(WNS3'17 {figs[0]}, {figs[1]}).", fig)])

    delay = tuple(
        Expectation(f"{aqm}_delay_s", f"{AQMS[aqm][0]} holds the queueing delay around the 20 ms target.",
                    f"{figs[0]}, §4", "The paper gives no number ('around the reference'); ±10 ms after the "
                    "start-up, as for PIE's HPSR figures.", lo=0.010, hi=0.030, paper=TARGET, unit="ms", scale=1e3)
        for aqm in AQMS)
    util = tuple(
        Expectation(f"{aqm}_utilization", f"The link stays fully used with {AQMS[aqm][0]}.", f"{figs[1]}, §4",
                    "'Without penalizing the link throughput': at least 95 % after the start-up.", lo=0.95,
                    unit="%", scale=100)
        for aqm in AQMS)
    return Experiment(
        id=exp_id, title=f"Scenario {num}: PI² versus PIE, {load}", paper=PAPER, figure=f"{figs[0]}–{figs[1]}, §4",
        statement=statement, scenarios=scenarios, analyse=analyse, expectations=(*delay, *util, *extra),
        notes=NOTES)


S1 = _timeline(
    1, 5, 0, ("Fig. 3", "Fig. 4"),
    "5 TCP flows start together. Both AQMs show a start-up peak of the queueing delay (PIE's above 160 ms, "
    "PI²'s at most 160 ms), then bring it down quickly and hold it around 20 ms; the throughput dips at the "
    "start and PI² recovers it faster than PIE.",
    (Expectation("pi2_peak_s", "PI²'s start-up peak is at most about 160 ms.", "Fig. 3, §4",
                 "Read from the plot; ±50 % around 160 ms for TCP start-up details (IW, slow start) that the "
                 "paper does not print.", lo=0.080, hi=0.240, paper=0.160, unit="ms", scale=1e3),
     Expectation("pie_peak_s", "PIE's start-up peak goes to 160+ ms.", "Fig. 3, §4",
                 "As for PI²: ±50 % around 160 ms.", lo=0.080, hi=0.240, paper=0.160, unit="ms", scale=1e3),
     Expectation("pi2_minus_pie_peak_s", "PI² controls the start-up peak a little better than PIE.", "Fig. 3, §4",
                 "Comparative: PI²'s peak not above PIE's by more than 10 ms (the paper's 'to some extent').",
                 hi=0.010, unit="ms", scale=1e3),
     Expectation("pi2_over_pie_early_throughput", "PI² recovers the throughput faster than PIE.", "Fig. 4, §4",
                 "Comparative, 'faster' read as at least 10 % more mean link throughput than PIE's over the "
                 "first 10 s (less would not show on the paper's Fig. 4).", lo=1.1)),
)

S2 = _timeline(
    2, 50, 0, ("Fig. 5", "Fig. 6"),
    "50 TCP flows: both AQMs again bring the delay quickly to about 20 ms; PIE's start-up peak stays at "
    "160 ms, PI²'s goes a little beyond; apart from the start-up dip the link stays fully used.",
    (Expectation("pie_peak_s", "PIE's start-up peak stays at about 160 ms.", "Fig. 5, §4",
                 "Read from the plot; ±50 %.", lo=0.080, hi=0.240, paper=0.160, unit="ms", scale=1e3),
     Expectation("pi2_peak_s", "PI²'s start-up peak goes a little beyond 160 ms.", "Fig. 5, §4",
                 "Read from the plot; ±50 % around 160 ms.", lo=0.080, hi=0.240, paper=0.160, unit="ms",
                 scale=1e3),
     Expectation("pi2_minus_pie_peak_s", "PI²'s start-up peak goes a little beyond PIE's, which stays at 160 ms.",
                 "Fig. 5, §4", "'A little beyond' read as at least 2 ms above PIE's peak (1 % of the plot's 200 ms "
                 "axis, about the smallest visible step). Physics caps both: the 200 KB buffer drains in 160 ms at "
                 "10 Mb/s, so no sojourn can exceed 160 ms plus one packet's transmission.", lo=0.002,
                 unit="ms", scale=1e3)),
)

S3 = _timeline(
    3, 5, 2, ("Fig. 7", "Fig. 8"),
    "5 TCP flows and 2 unresponsive UDP flows of 10 Mb/s each (twice the capacity): PI² and PIE both keep "
    "the queueing delay under control and the link completely used.",
    (),
)


# ---- Scenario 4: CDFs of queueing delay at targets 5 and 20 ms --------------------------------

TARGETS_MS = (5, 20)


def _cdf_experiment(fig: str, n_tcp: int, n_udp: int) -> Experiment:
    load = f"{n_tcp} TCP" + (f" + {n_udp} UDP" if n_udp else "")
    exp_id = f"pi2wns3-s4-{'mix' if n_udp else f'{n_tcp}tcp'}"

    def scenarios(quick: bool) -> dict:
        # Always full length: a 90th percentile compared within 20 % needs the whole 100 s (a
        # 30 s run at the 5 ms target swings by a third), and all six runs take half a second.
        return {f"{aqm}-{t}ms": _scenario(f"{exp_id}-{t}ms", aqm, n_tcp, n_udp, False, target_ms=t)
                for t in TARGETS_MS for aqm in AQMS}

    def analyse(results, quick: bool) -> Analysis:
        m: dict[str, float] = {}
        fig_, axes = plotting.figure(1, 2, width=9.0, height=3.4)
        for j, t in enumerate(TARGETS_MS):
            for aqm in AQMS:
                r = results[f"{aqm}-{t}ms"]
                m[f"{aqm}_t{t}_p90_s"] = r.summary["qdelay_p90_s"]
                m[f"{aqm}_t{t}_frac_le_target"] = metrics.cdf_at(r, t / 1e3)
                m[f"{aqm}_t{t}_utilization"] = r.summary["utilization"]
            for aqm in PI2_RUNS:
                m[f"{aqm}_over_pie_t{t}_p90"] = m[f"{aqm}_t{t}_p90_s"] / m[f"pie_t{t}_p90_s"]
            plotting.delay_cdfs(axes[0, j], [(AQMS[a][0], results[f"{a}-{t}ms"]) for a in AQMS],
                                xmax_ms=(6 if n_udp else 4) * max(t, 10),
                                title=f"{fig}({'ab'[j]}): {load}, target {t} ms")
        fig_.tight_layout()
        return Analysis(m, [(f"CDF of the per-packet queueing delay, PI² (both gain sets) versus PIE, {load} "
                             f"(WNS3'17 {fig}).", fig_)])

    exps = tuple(
        Expectation(f"{aqm}_over_pie_t{t}_p90", f"{AQMS[aqm][0]} performs no worse than PIE (target {t} ms).",
                    f"{fig}({'ab'[j]}), §4", "'No worse' read as PI²'s 90th-percentile queueing delay at most "
                    "20 % above PIE's, less than the paper's CDF plots would show as clearly worse.", hi=1.2)
        for j, t in enumerate(TARGETS_MS) for aqm in PI2_RUNS)
    if not n_udp:  # "slight improvement over PIE in some cases (see Figure 9 (b))": 20 TCP, target 20 ms
        exps += (Expectation("pi2_over_pie_t20_p90", "PI² offers a slight improvement over PIE (target 20 ms).",
                             f"{fig}(b), §4", "'Slight improvement' read as a 90th percentile 1 % to 20 % below "
                             "PIE's: at least the smallest shift a CDF plot shows, less than a marked one.",
                             lo=0.8, hi=0.99),)
    return Experiment(
        id=exp_id, title=f"Scenario 4: delay CDFs, {load}, targets 5 and 20 ms", paper=PAPER, figure=f"{fig}, §4",
        statement=f"With {load} and target delays of 5 ms and 20 ms, PI²'s CDF of queueing delay is no worse than "
                  "PIE's and in some cases slightly better.",
        scenarios=scenarios, analyse=analyse, expectations=exps, quick_shortens=False, null_only=PI2_RUNS,
        notes=(*NOTES, "Null control: the PI² runs with DropTail of the same buffer, PIE kept as the reference "
                       "(every claim here compares PI² with PIE).", "The paper captions both Fig. 9 and Fig. 10 '5 TCP and 2 UDP flows'; the text and the "
                       "sub-captions make Fig. 9 the 20 TCP case, which we follow.",
               "The UDP rate of Scenario 4's mix is not restated; we keep Scenario 3's 10 Mb/s per flow."))


S4_TCP = _cdf_experiment("Fig. 9", 20, 0)
S4_MIX = _cdf_experiment("Fig. 10", 5, 2)

add(S1, S2, S3, S4_TCP, S4_MIX)
