"""Hollot, Misra, Towsley, Gong, "On Designing Improved Controllers for AQM Routers Supporting TCP
Flows", IEEE INFOCOM 2001.

Common setup of §IV and §VI (ns-2): a 15 Mb/s bottleneck, 500-byte packets (3750 packets/s), an
800-packet buffer, round-trip propagation delays uniform in 160–240 ms, ftp (bulk) flows and http
sessions. TCP is our ``ns2-sack`` profile (ns-2's Agent/TCP/Sack1). The http model of the paper is
not described; we run each http "session" as a loop of Pareto-sized transfers (mean 12 KB,
shape 1.2) separated by exponential think times of mean 1 s, on the same TCP.

Controllers, all in packets:
- RED of §IV (the stable design of the companion paper): min_th 150, max_th 700, max_p 0.1,
  w_q 1.33e-6, ns-2 behaviour (wait on, gentle off).
- P of §IV: RED without the filter, p = 5.8624e-5·(q − 100) (Example 1), which the buffer caps at
  about 0.041; Fig. 7's "p_max = 1" is the profile reaching 1 at the buffer limit (slope 1/700).
- PI of §VI: a = 1.822e-5, b = 1.816e-5 at 160 Hz, q_ref = 200 packets.

Figs. 16–20 (delay and utilization against q_ref, and RED against PI) run on the sweep engine
(:mod:`aqmlab.sweep`); the Propositions are checked with :mod:`aqmlab.analysis.design`.
"""

from __future__ import annotations

import functools
import math
import tempfile

import numpy as np

from .. import sweep
from ..analysis.design import design_p, design_pi, design_red, pi_to_digital
from ..analysis.margins import stability_margins
from ..analysis.plant import TcpPlant, p_controller, pi_controller, red_controller, red_filter_pole
from . import metrics, plotting
from .builders import dumbbell
from .builders import tcp as _tcp
from .core import Analysis, Expectation, Experiment, Paper
from .registry import add

PAPER = Paper(
    key="PI (INFOCOM 2001)",
    title="On Designing Improved Controllers for AQM Routers Supporting TCP Flows (Hollot, Misra, Towsley, "
          "Gong, INFOCOM 2001)",
    citation="C. V. Hollot, V. Misra, D. Towsley, W.-B. Gong. IEEE INFOCOM 2001, vol. 3, pp. 1726–1734. "
             "Figs. 5–7 and 10–20 are ns-2 simulations, Figs. 4 and 9 Bode plots of the linear loop.",
    not_modelled=(
        ("Figs. 1–3 and 8: block diagrams of the TCP/AQM loop, RED and the PI implementation.",
         "Diagrams, not results."),
        ("§VII-A: the ECN argument (p_aqm = (R/R_aqm)²·p).", "A back-of-envelope derivation with no experiment."),
    ),
)

# §IV: 15 Mb/s of 500-byte packets, an 800-packet buffer.
RATE = "15Mbps"
PKT_B = 500
C_PKTS = 15e6 / (8 * PKT_B)          # 3750 packets/s (footnote 2)
BUFFER = 800
RTT = {"uniform": ["160ms", "240ms"]}  # §IV: propagation delays uniform in 160–240 ms
RTT_2X = {"uniform": ["320ms", "480ms"]}  # Exp. 2: round-trip times doubled
RTT_40MS = "40ms"                     # Exp. 8
T_LEAVE, T_RETURN = 100.0, 140.0      # Exp. 1: 20 ftp flows leave at 100 s and return at 140 s
Q_REF = 200.0                         # §VI

RED = {"type": "red", "profile": "ns2", "limit": f"{BUFFER}p", "min_th": 150, "max_th": 700, "max_p": 0.1,
       "w_q": 1.33e-6}
P_EX1 = {"type": "p", "profile": "paper", "limit": f"{BUFFER}p", "q_min": 100, "slope": 5.8624e-5}
P_FIG7 = {**P_EX1, "slope": 1.0 / (BUFFER - 100), "p_max": 1.0}
PI = {"type": "pi", "profile": "paper", "limit": f"{BUFFER}p", "a": 1.822e-5, "b": 1.816e-5, "sample_freq": 160.0,
      "q_ref": Q_REF}
NAMES = {"red": "RED", "p": "P", "p1": "P (p_max = 1)", "pi": "PI"}

HTTP = {"size": {"pareto": {"mean": "12KB", "shape": 1.2}}, "think": "1s"}
TCP_NOTE = ("TCP is our model of ns-2's Sack1 (window halving, per-ACK growth, 10 ms tick, an ACK per "
            "segment). The paper's ns-2 of 2000–2001 had a coarser timer and no 200 ms minimum RTO; its "
            "TCP parameters (receiver window in particular) are not given, we leave the window unlimited.")
HTTP_NOTE = ("The paper does not describe its http model. Each http flow here is a session of Pareto "
             "transfers (mean 12 KB, shape 1.2) with exponential 1 s think times, on the same TCP; load and "
             "burstiness of the paper's http traffic may differ.")
RED_NOTE = ("RED has ns-2's per-packet EWMA (w_q 1.33e-6: a time constant of about 200 s at 3750 packets/s) "
            "with wait on and gentle off (the ns-2 default of the time).")


def _flows(n_ftp: int, n_http: int, rtt, change: bool) -> list[dict]:
    """ftp flows (20 of which leave at 100 s and come back at 140 s when ``change``) and http sessions."""
    common = {"rtt": rtt, "packet_size": f"{PKT_B}B", "profile": "ns2-sack"}
    if change:
        flows = [_tcp(n_ftp - 20, name="ftp", **common),
                 _tcp(20, name="ftp-leaving", stop=T_LEAVE, **common),
                 _tcp(20, (T_RETURN, T_RETURN + 1.0), name="ftp-returning", **common)]
    else:
        flows = [_tcp(n_ftp, name="ftp", **common)]
    if n_http:
        flows.append(_tcp(n_http, name="http", **HTTP, **common))
    return flows


def _duration(change: bool, quick: bool) -> float:
    # RED's filter has a time constant of about 200 s, so even quick runs must last minutes (a
    # simulated minute costs well under a second here); the load-change runs keep the paper's timeline.
    if change:
        return 170.0 if quick else 200.0
    return 150.0 if quick else 200.0


def _scenario(name: str, aqm: str, queue: dict, n_ftp: int, n_http: int, rtt, change: bool, quick: bool) -> dict:
    return dumbbell(f"{name}-{aqm}", queue=queue, flows=_flows(n_ftp, n_http, rtt, change),
                    duration=_duration(change, quick), warmup=20, rate=RATE, delay="10ms")


def _queue(r) -> tuple[np.ndarray, np.ndarray]:
    q = r.queue()
    return q["t_s"].to_numpy(), q["backlog_packets"].to_numpy().astype(float)


def _mean_pk(r, t0: float, t1: float) -> float:
    t, q = _queue(r)
    return metrics.window_mean(t, q, t0, t1)


def _std_pk(r, t0: float, t1: float) -> float:
    """Standard deviation of the queue (packets) over [t0, t1), from the 10 ms samples."""
    t, q = _queue(r)
    sel = (t >= t0) & (t < t1)
    return float(np.std(q[sel])) if sel.any() else math.nan


def _full_fraction(r, t0: float, t1: float, level: float = 0.95 * BUFFER) -> float:
    """Fraction of the samples in [t0, t1) with the queue at or above ``level`` packets."""
    t, q = _queue(r)
    sel = (t >= t0) & (t < t1)
    return float(np.mean(q[sel] >= level)) if sel.any() else math.nan


def _settle(r, t0: float, t_end: float) -> float:
    """Seconds from t0 until the 2 s mean queue is back around its mean over the last 20 s before
    t_end, within ±25 % of it on both sides, and stays there for 10 s (the paper's "settling time"
    read from its plots). The paper's quantity is the queue length, so this is judged on the
    backlog (as a delay at the constant link rate: the same curve), not on sojourns."""
    final_s = metrics.delay_mean(r, t_end - 20.0, t_end, metrics.BACKLOG)
    return metrics.settle_time(r, t0, (0.75 * final_s, 1.25 * final_s), 10.0, t_end, smooth_s=2.0,
                               quantity=metrics.BACKLOG)


def _phases(change: bool, quick: bool) -> list[tuple[float, float]]:
    """Measurement windows: after a 20 s start-up, and 10 s after each load change."""
    end = _duration(change, quick)
    if change:
        return [(20.0, T_LEAVE), (T_LEAVE + 10.0, T_RETURN), (T_RETURN + 10.0, end)]
    return [(50.0, end)]


def _phase_metrics(results, change: bool, quick: bool, labels=None) -> dict[str, float]:
    m: dict[str, float] = {}
    phases = _phases(change, quick)
    for label in labels or results:
        r = results[label]
        means = [_mean_pk(r, a, b) for a, b in phases]
        m.update({f"{label}_phase{i}_pk": v for i, v in enumerate(means, 1)})
        m[f"{label}_mean_pk"] = _mean_pk(r, phases[0][0], phases[-1][1])
        m[f"{label}_max_dev_pk"] = max(abs(v - Q_REF) for v in means)
        m[f"{label}_spread_pk"] = max(means) - min(means)
        m[f"{label}_std_pk"] = _std_pk(r, phases[0][0], phases[-1][1])
        m[f"{label}_utilization"] = r.summary["utilization"]
    return m


def _plot(runs, title: str, *, change: bool, reference: float | None = None, ax=None):
    """Instantaneous queue length (packets) against time, the style of the paper's Figs. 5–15."""
    fig = None
    if ax is None:
        fig, axes = plotting.figure(1, 1, height=3.2)
        ax = axes[0, 0]
    for label, r in runs:
        t, q = _queue(r)
        ax.plot(t, q, lw=0.5, label=label)
    if reference is not None:
        ax.axhline(reference, color="k", ls="--", lw=0.8, label=f"q_ref {reference:g}")
    ax.axhline(BUFFER, color="grey", lw=0.6)
    if change:
        plotting.mark_changes(ax, (T_LEAVE, T_RETURN))
    ax.set_ylim(0, BUFFER * 1.05)
    ax.set_xlabel("time (s)")
    ax.set_ylabel("queue (packets)")
    ax.set_title(title, fontsize="medium")
    ax.grid(alpha=0.3)
    ax.legend(fontsize="small", loc="upper right")
    if fig is not None:
        fig.tight_layout()
    return fig


def _pm(metric: str, claim: str, source: str) -> Expectation:
    return Expectation(metric, claim, source,
                       "PI's mean queue within ±15 % of q_ref = 200 packets: the paper shows the queue regulated "
                       "'around 200' without a number.", lo=0.85 * Q_REF, hi=1.15 * Q_REF,
                       paper=Q_REF, unit="packets")


def _settles_faster(metric: str, fast: str, slow: str, source: str) -> Expectation:
    return Expectation(metric, f"{fast} settles much faster than {slow}.", source,
                       "Comparative (no number in the paper): the start-up settling time, 2 s mean queue within "
                       "±25 % of its level before the first change for 10 s, at most half of the slower one's.",
                       hi=0.5)


def _ratio(m: dict, num: str, den: str) -> float:
    return m[num] / m[den] if m[den] > 0 else (math.inf if m[num] > 0 else 1.0)


# ---- Exp. 1 (Fig. 5), Exp. 2 (Fig. 6), Fig. 7: RED versus P ------------------------------------

def _exp1_scenarios(quick: bool) -> dict:
    return {aqm: _scenario("pi01-exp1", aqm, q, 60, 180, RTT, True, quick) for aqm, q in (("red", RED), ("p", P_EX1))}


def _exp1_analyse(results, quick: bool) -> Analysis:
    m = _phase_metrics(results, True, quick)
    for label, r in results.items():
        m[f"{label}_settle_s"] = _settle(r, 0.0, T_LEAVE)
    m["p_over_red_settle"] = _ratio(m, "p_settle_s", "red_settle_s")
    m["p_drop_on_leave_pk"] = m["p_phase1_pk"] - m["p_phase2_pk"]
    m["p_recovery_on_return_pk"] = m["p_phase3_pk"] - m["p_phase2_pk"]
    fig = _plot([(NAMES[k], results[k]) for k in ("red", "p")],
                "Fig. 5: 60 ftp + 180 http, 20 ftp leave at 100 s and return at 140 s", change=True)
    return Analysis(m, [("Queue length of RED and the P controller with the load change (INFOCOM'01 Fig. 5).", fig)])


EXP1 = Experiment(
    id="pi01-exp1", title="Exp. 1: RED versus the P controller under a load change", paper=PAPER,
    figure="Fig. 5, §IV",
    statement="60 ftp and 180 http flows; 20 ftp flows stop at 100 s and start again at 140 s. The P "
              "controller (Example 1's gain from 100 packets) settles much sooner than the stable RED design "
              "and follows the load change quickly; RED is sluggish.",
    scenarios=_exp1_scenarios, analyse=_exp1_analyse,
    expectations=(
        _settles_faster("p_over_red_settle", "P", "RED", "Fig. 5, §IV"),
        Expectation("p_drop_on_leave_pk", "P's queue follows the load down when 20 ftp flows leave.", "Fig. 5, §IV",
                    "A proportional law puts fewer flows at a lower queue; at least 20 packets (p changes by "
                    "about 1e-3) so that noise does not pass for a response.", lo=20.0, unit="packets"),
        Expectation("p_recovery_on_return_pk", "P's queue comes back up when the flows return.", "Fig. 5, §IV",
                    "As above: at least 20 packets above the reduced-load level.", lo=20.0, unit="packets"),
    ),
    notes=(TCP_NOTE, HTTP_NOTE, RED_NOTE,
           "The 20 flows that come back at 140 s are new connections (start spread over one second), not "
           "the old ones resumed.",
           "Phase means skip 20 s of start-up and 10 s after each change."),
)


def _exp2_scenarios(quick: bool) -> dict:
    out = {}
    for tag, rtt in (("1x", RTT), ("2x", RTT_2X)):
        for aqm, q in (("red", RED), ("p", P_EX1)):
            out[f"{aqm}_{tag}"] = _scenario(f"pi01-exp2-{tag}", aqm, q, 60, 180, rtt, True, quick)
    return out


def _overshoot(r) -> float:
    """Largest 2 s mean queue after the flows return, above the level they settle to (packets)."""
    t, q = _queue(r)
    end = float(t[-1])
    win = int(round(2.0 / float(np.median(np.diff(t)))))
    smooth = np.convolve(q, np.ones(win) / win, mode="same")
    after = (t >= T_RETURN) & (t < end - 1.0)
    return float(np.max(smooth[after]) - metrics.window_mean(t, q, end - 20.0, end))


def _exp2_analyse(results, quick: bool) -> Analysis:
    m = _phase_metrics(results, True, quick)
    for label, r in results.items():
        m[f"{label}_overshoot_pk"] = _overshoot(r)
    # Ratios of overshoots: the floor of 10 packets keeps a near-zero 1× overshoot from making a ratio of noise.
    for aqm in ("red", "p"):
        m[f"{aqm}_overshoot_ratio_2x_1x"] = m[f"{aqm}_2x_overshoot_pk"] / max(m[f"{aqm}_1x_overshoot_pk"], 10.0)
    m["red_minus_p_overshoot_growth_pk"] = ((m["red_2x_overshoot_pk"] - m["red_1x_overshoot_pk"])
                                            - (m["p_2x_overshoot_pk"] - m["p_1x_overshoot_pk"]))
    m["p_std_ratio_2x_1x"] = m["p_2x_std_pk"] / m["p_1x_std_pk"]
    fig, axes = plotting.figure(2, 1, height=3.0)
    for ax, tag, what in ((axes[0, 0], "1x", "160–240 ms"), (axes[1, 0], "2x", "320–480 ms (doubled)")):
        _plot([(NAMES[k], results[f"{k}_{tag}"]) for k in ("red", "p")], f"RTT {what}", change=True, ax=ax)
    axes[0, 0].set_title("Fig. 5 (RTT 160–240 ms) and Fig. 6 (doubled RTT): RED and P", fontsize="medium")
    fig.tight_layout()
    return Analysis(m, [("Queue length of RED and P with the round-trip times doubled, below the Exp. 1 runs "
                         "(INFOCOM'01 Fig. 6).", fig)])


EXP2 = Experiment(
    id="pi01-exp2", title="Exp. 2: doubled round-trip times, RED versus P", paper=PAPER, figure="Fig. 6, §IV-A",
    statement="Exp. 1 repeated with every round-trip time doubled: the P controller behaves as before, RED "
              "shows a markedly larger overshoot.",
    scenarios=_exp2_scenarios, analyse=_exp2_analyse,
    expectations=(
        Expectation("red_overshoot_ratio_2x_1x", "RED shows a markedly larger overshoot with doubled round-trip "
                    "times.", "Fig. 6, §IV-A",
                    "'Markedly larger' read as at least 1.5× RED's peak above its final level after the flows "
                    "return at 1× RTT.", lo=1.5),
        Expectation("p_overshoot_ratio_2x_1x", "P's overshoot shows no noticeable change with doubled round-trip "
                    "times.", "Fig. 6, §IV-A",
                    "'No noticeable change' read as P's overshoot at 2× RTT within ±25 % of its 1× overshoot.",
                    lo=0.8, hi=1.25),
        Expectation("red_minus_p_overshoot_growth_pk", "Doubling the round trips hurts RED more than P.",
                    "Fig. 6, §IV-A", "Comparative: RED's overshoot grows by more packets than P's.", lo=0.0,
                    unit="packets"),
        Expectation("p_std_ratio_2x_1x", "P's behaviour shows no noticeable change.", "Fig. 6, §IV-A",
                    "The queue's fluctuation (standard deviation) with doubled RTTs within a factor 1.5 of "
                    "Exp. 1's; its level may move, as p scales with 1/RTT².", lo=1 / 1.5, hi=1.5),
    ),
    notes=(TCP_NOTE, HTTP_NOTE, RED_NOTE, "The Exp. 1 runs are repeated here as the baseline."),
)


def _fig7_scenarios(quick: bool) -> dict:
    return {aqm: _scenario("pi01-fig7", aqm, q, 60, 180, RTT, True, quick) for aqm, q in (("p", P_EX1), ("p1", P_FIG7))}


def _fig7_analyse(results, quick: bool) -> Analysis:
    m = _phase_metrics(results, True, quick)
    m["p1_over_p_cv"] = (m["p1_std_pk"] / m["p1_mean_pk"]) / (m["p_std_pk"] / m["p_mean_pk"])
    phases = _phases(True, quick)
    m["p1_empty_fraction"] = 1.0 - _full_fraction(results["p1"], phases[0][0], phases[-1][1], level=1.0)
    m["p_empty_fraction"] = 1.0 - _full_fraction(results["p"], phases[0][0], phases[-1][1], level=1.0)
    fig, axes = plotting.figure(2, 1, height=3.0)
    _plot([(NAMES["p1"], results["p1"])], "Fig. 7: P with p_max = 1 (slope 1/700 from 100 packets)", change=True,
          ax=axes[0, 0])
    _plot([(NAMES["p"], results["p"])], "Exp. 1's P (slope 5.8624e-5, p ≤ 0.041)", change=True, ax=axes[1, 0])
    fig.tight_layout()
    return Analysis(m, [("Queue length of the high-gain P controller against Exp. 1's (INFOCOM'01 Fig. 7).", fig)])


FIG7 = Experiment(
    id="pi01-fig7", title="Fig. 7: the P controller with p_max = 1 oscillates", paper=PAPER, figure="Fig. 7, §IV-B",
    statement="Raising the P controller's p_max from 0.04 to 1 (a steeper loss profile over the same buffer) "
              "gives large oscillations.",
    scenarios=_fig7_scenarios, analyse=_fig7_analyse,
    expectations=(
        Expectation("p1_over_p_cv", "The high-gain P controller's queue oscillates more than Exp. 1's.",
                    "Fig. 7, §IV-B", "Comparative, the direction only: the coefficient of variation (standard "
                    "deviation over mean) of the queue above Exp. 1's P.", lo=1.0),
        Expectation("p1_over_p_cv", "…and much more ('large oscillations').", "Fig. 7, §IV-B",
                    "'Large' read as at least twice Exp. 1's coefficient of variation.", lo=2.0),
        Expectation("p1_empty_fraction", "The oscillations are large: the queue keeps running dry.", "Fig. 7",
                    "Read from the plot: swings reach the empty queue; at least 5 % of the 10 ms samples empty.",
                    lo=0.05, unit="%", scale=100),
    ),
    notes=(TCP_NOTE, HTTP_NOTE,
           "'p_max = 1' is read as the loss profile rising from 0 at 100 packets to 1 at the 800-packet buffer "
           "(slope 1/700 ≈ 1.43e-3); with Example 1's slope the buffer caps p at 0.041 whatever p_max is, so "
           "p_max alone would change nothing."),
)


# ---- Exps. 3–8 (Figs. 10–15): PI versus RED (and P) ---------------------------------------------

def _pi_exp(num: int, figure: str, title: str, statement: str, n_ftp: int, n_http: int, rtt, change: bool,
            extra: dict[str, dict], baseline: tuple[str, int, int, object, bool] | None,
            expectations: tuple[Expectation, ...], derived, notes: tuple[str, ...] = ()) -> Experiment:
    """PI and RED (and ``extra`` controllers) on one load. ``baseline`` = (tag, n_ftp, n_http, rtt,
    change) repeats another experiment's RED and PI runs as ``red_<tag>`` and ``pi_<tag>``, for the
    comparisons across experiments; ``derived(metrics, results, quick)`` adds the comparisons."""
    exp_id = f"pi01-exp{num}"
    controllers = {"red": RED, "pi": PI, **extra}

    def scenarios(quick: bool) -> dict:
        out = {aqm: _scenario(exp_id, aqm, q, n_ftp, n_http, rtt, change, quick) for aqm, q in controllers.items()}
        if baseline:
            tag, bf, bh, brtt, bchange = baseline
            out.update({f"{aqm}_{tag}": _scenario(f"pi01-{tag}", aqm, q, bf, bh, brtt, bchange, quick)
                        for aqm, q in (("red", RED), ("pi", PI))})
        return out

    def analyse(results, quick: bool) -> Analysis:
        m = _phase_metrics(results, change, quick, labels=list(controllers))
        end = _phases(change, quick)[0][1]
        for label in controllers:
            m[f"{label}_settle_s"] = _settle(results[label], 0.0, end)
            m[f"{label}_full_fraction"] = _full_fraction(results[label], *_phases(change, quick)[0])
        if baseline:
            tag, change_b = baseline[0], baseline[4]
            m.update(_phase_metrics(results, change_b, quick, labels=[f"red_{tag}", f"pi_{tag}"]))
            m[f"pi_{tag}_settle_s"] = _settle(results[f"pi_{tag}"], 0.0, _phases(change_b, quick)[0][1])
        m.update(derived(m, results, quick))
        fig = _plot([(NAMES[k], results[k]) for k in controllers], f"{figure}: {title}", change=change,
                    reference=Q_REF)
        return Analysis(m, [(f"Queue length of {', '.join(NAMES[k] for k in controllers)} "
                             f"(INFOCOM'01 {figure}, Exp. {num}).", fig)])

    return Experiment(id=exp_id, title=f"Exp. {num}: {title}", paper=PAPER, figure=f"{figure}, §VI",
                      statement=statement, scenarios=scenarios, analyse=analyse, expectations=expectations,
                      notes=(TCP_NOTE, HTTP_NOTE, RED_NOTE, *notes))


def _pi_vs_red_settle(m: dict, results, quick: bool) -> dict:
    return {"pi_over_red_settle": _ratio(m, "pi_settle_s", "red_settle_s")}


EXP3 = _pi_exp(
    3, "Fig. 10", "PI versus RED under the load change",
    "Exp. 1's load change with the PI controller (160 Hz, q_ref 200) against the same RED: PI responds faster "
    "and regulates the queue to 200 packets whatever the load; RED's level moves with the load.",
    60, 180, RTT, True, {}, None,
    (_pm("pi_phase1_pk", "PI holds the queue at 200 packets with 60 ftp flows.", "Fig. 10, §VI-A"),
     _pm("pi_phase2_pk", "PI holds 200 packets after 20 ftp flows leave.", "Fig. 10, §VI-A"),
     _pm("pi_phase3_pk", "PI holds 200 packets after they return.", "Fig. 10, §VI-A"),
     Expectation("pi_over_red_spread", "PI is largely insensitive to the load; RED is not.", "Fig. 10, §VI-A",
                 "Comparative: the spread of PI's phase means at most half of RED's.", hi=0.5),
     _settles_faster("pi_over_red_settle", "PI", "RED", "Fig. 10, §VI-A")),
    lambda m, results, quick: {**_pi_vs_red_settle(m, results, quick),
                               "pi_over_red_spread": m["pi_spread_pk"] / m["red_spread_pk"]},
    ("Phase means skip 20 s of start-up and 10 s after each change.",),
)

EXP4 = _pi_exp(
    4, "Fig. 11", "PI versus RED, 60 ftp + 180 http, constant load",
    "The mixture of ftp and http without the load change: PI again responds faster than RED and holds 200 "
    "packets.", 60, 180, RTT, False, {}, None,
    (_pm("pi_phase1_pk", "PI regulates the queue to 200 packets.", "Fig. 11, §VI-B"),
     _settles_faster("pi_over_red_settle", "PI", "RED", "Fig. 11, §VI-B")),
    _pi_vs_red_settle,
    ("Means from 50 s to the end.",),
)

EXP5 = _pi_exp(
    5, "Fig. 12", "PI versus RED, 180 ftp + 360 http",
    "Tripled ftp and doubled http load: RED takes a long time to settle and its equilibrium queue is much "
    "larger than in Exp. 4; PI still holds about 200 packets.", 180, 360, RTT, False, {},
    ("exp4", 60, 180, RTT, False),
    (_pm("pi_phase1_pk", "PI still holds 200 packets under the heavier load.", "Fig. 12, §VI-C"),
     Expectation("red_exp5_over_exp4", "RED's equilibrium queue grows with the load.", "Fig. 12, §VI-C",
                 "The paper: RED's queue moves with the load (its equilibrium depends on p); read as a mean at "
                 "least 50 % above Exp. 4's, a rise its plots show plainly.",
                 lo=1.5)),
    lambda m, results, quick: {"red_exp5_over_exp4": m["red_phase1_pk"] / m["red_exp4_phase1_pk"]},
    ("The Exp. 4 runs are repeated here for the comparison.", "Means from 50 s to the end."),
)

EXP6 = _pi_exp(
    6, "Fig. 13", "PI versus RED, 16 ftp + 180 http",
    "Few ftp flows (16), the other end of the stability range: RED oscillates, PI operates stably.",
    16, 180, RTT, False, {}, None,
    (_pm("pi_phase1_pk", "PI holds 200 packets with 16 ftp flows.", "Fig. 13, §VI-D"),
     Expectation("red_over_pi_swing", "RED's queue oscillates, PI's does not.", "Fig. 13, §VI-D",
                 "Comparative: the standard deviation of the raw queue (10 ms samples, as the paper plots it) "
                 "at least twice PI's.", lo=2.0)),
    lambda m, results, quick: {"red_over_pi_swing": m["red_std_pk"] / m["pi_std_pk"]},
    ("Means from 50 s to the end; oscillation is measured on the raw queue samples (it was measured on 10 s "
     "means before, which hides the oscillation the paper's figure shows and keeps only slow drifts).",),
)

EXP7 = _pi_exp(
    7, "Fig. 14", "PI, RED and P with 400 ftp flows",
    "400 ftp flows: the loss probability needed exceeds what RED and P reach inside the buffer, so both "
    "'hit the roof' (the queue sits at the 800-packet limit); PI keeps regulating, a little slower.",
    400, 180, RTT, False, {"p": P_EX1}, None,
    (_pm("pi_phase1_pk", "PI still regulates the queue to 200 packets.", "Fig. 14, §VI-E"),
     Expectation("red_full_fraction", "RED hits the roof.", "Fig. 14, §VI-E",
                 "'Hits the roof' read as RED at the buffer limit: at least half of the samples at ≥ 95 % "
                 "of the 800 packets.", lo=0.5, unit="%", scale=100),
     Expectation("p_full_fraction", "P hits the roof.", "Fig. 14, §VI-E",
                 "As for RED: at least half of the samples at ≥ 95 % of the buffer.", lo=0.5, unit="%",
                 scale=100),
     Expectation("pi_full_fraction", "PI stays off the roof.", "Fig. 14, §VI-E",
                 "At most 5 % of the samples at ≥ 95 % of the buffer.", hi=0.05, unit="%", scale=100)),
    lambda m, results, quick: {},
    ("Means and fractions from 50 s to the end.",),
)

EXP8 = _pi_exp(
    8, "Fig. 15", "PI versus RED with 40 ms round trips, load change",
    "Exp. 3 with the propagation delay cut to 40 ms: analysis predicts both controllers to become slower; "
    "RED's steady-state error grows, so its queue sits higher than in Exps. 1 and 3.",
    60, 180, RTT_40MS, True, {}, ("exp3", 60, 180, RTT, True),
    (_pm("pi_phase1_pk", "PI regulates to 200 packets with 60 ftp flows at 40 ms.", "Fig. 15, §VI-F"),
     _pm("pi_phase3_pk", "PI regulates to 200 packets after the flows return.", "Fig. 15, §VI-F"),
     Expectation("red_40ms_over_exp3", "RED's operating queue is higher than in Exp. 3.", "Fig. 15, §VI-F",
                 "Comparative: the mean over all phases above Exp. 3's (ratio > 1.2 to exceed run-to-run noise).",
                 lo=1.2),
     Expectation("pi_settle_over_exp3", "PI has become slower.", "Fig. 15, §VI-F",
                 "Comparative, 'slower' read as a start-up settling time at least 10 % longer than in Exp. 3 "
                 "(less would not show on the paper's plots).", lo=1.1)),
    lambda m, results, quick: {"red_40ms_over_exp3": m["red_mean_pk"] / m["red_exp3_mean_pk"],
                               "pi_settle_over_exp3": _ratio(m, "pi_settle_s", "pi_exp3_settle_s")},
    ("The ±15 % band around q_ref covers Exps. 3–7; here PI's slower start-up (the paper's point) still "
     "lingers in the first phase.",
     "'Propagation delay 40 ms' is read as a 40 ms round trip for every flow (the 160–240 ms of the other "
     "experiments are round trips too).", "The Exp. 3 runs are repeated here for the comparison."),
)


# ---- Figs. 16–20: delay and utilization against q_ref (sweeps) ---------------------------------

Q_REFS = {False: (25, 50, 75, 100, 150, 200, 300, 400, 500), True: (25, 100, 300)}
# RED's min_th with a fixed dynamic range max_th − min_th (§VI-G: 550, the stable design, and 55).
RED_MIN_TH = {550: {False: (10, 50, 100, 150, 200), True: (10, 150)},
              55: {False: (10, 50, 100, 200, 300, 450, 600), True: (10, 100, 300)}}
SWEEP_NOTE = ("Each curve is one aqmlab sweep (aqmlab.sweep.run_sweep on a local pool, one seed per point, "
              "common random numbers across the grid) of the constant-load scenario of Exp. 4 (ftp + http) or "
              "of its 60 ftp flows alone; utilization and mean per-packet queueing delay come from the run "
              "summaries after the warm-up.")


# (duration, warm-up) of a sweep run by (controller is RED, quick): RED's average needs minutes.
SWEEP_TIMES = {(False, False): (150.0, 50.0), (False, True): (60.0, 20.0),
               (True, False): (300.0, 150.0), (True, True): (100.0, 50.0)}


def _sweep_base(n_http: int, queue: dict, quick: bool) -> dict:
    red = queue["type"] == "red"
    duration, warmup = SWEEP_TIMES[red, quick]
    return dumbbell(f"pi01-sweep-{queue['type']}-{n_http}http", queue=queue, flows=_flows(60, n_http, RTT, False),
                    duration=duration, warmup=warmup, rate=RATE, delay="10ms")


def _sweeps(quick: bool) -> dict[str, sweep.Sweep]:
    qrefs = [float(q) for q in Q_REFS[quick]]
    out = {f"pi_{mix}": sweep.Sweep.from_dict({"name": f"pi01-fig16-{mix}", "base": _sweep_base(n, PI, quick),
                                               "axes": {"bottleneck.queue.q_ref": qrefs}})
           for mix, n in (("ftp", 0), ("mix", 180))}
    # The sweep engine checks each zipped value alone against the base, so the base's thresholds
    # must admit every min_th and every max_th of the grid on their own.
    red_base = _sweep_base(180, {**RED, "min_th": 1, "max_th": BUFFER - 1}, quick)
    for rng, mins in RED_MIN_TH.items():
        lo = [float(x) for x in mins[quick]]
        out[f"red{rng}"] = sweep.Sweep.from_dict({
            "name": f"pi01-fig19-red{rng}", "base": red_base,
            "zip": [{"bottleneck.queue.min_th": lo, "bottleneck.queue.max_th": [x + rng for x in lo]}]})
    return out


def _sweep_tables(quick: bool) -> dict:
    """Runs the four sweeps into a temporary store; {name: DataFrame sorted by the swept value}."""
    tables = {}
    with tempfile.TemporaryDirectory(prefix="pi01-sweeps-") as root, sweep.LocalPool(1) as pool:
        for name, sw in _sweeps(quick).items():
            report = sweep.run_sweep(sw, f"{root}/{name}", backend=pool, progress=False)
            if report.failed:
                first = next(iter(report.failed.values()))
                raise RuntimeError(f"sweep {name}: {report.text()}; first error: {first['type']}: {first['message']}")
            key = "bottleneck.queue.min_th" if name.startswith("red") else "bottleneck.queue.q_ref"
            tables[name] = sweep.load_results(f"{root}/{name}").sort_values(key).reset_index(drop=True)
    return tables


def _no_runs(quick: bool) -> dict:
    return {}


def _interp_util(pi, delay_s: float) -> float:
    """PI's utilization at a given mean delay, interpolated along its curve (clamped at the ends)."""
    order = np.argsort(pi["qdelay_mean_s"].to_numpy())
    return float(np.interp(delay_s, pi["qdelay_mean_s"].to_numpy()[order], pi["utilization"].to_numpy()[order]))


def _first_reaching(df, level: float, column: str) -> float:
    """``column`` where PI's utilization first reaches ``level`` along the q_ref grid (linear between
    grid points; inf if it never does)."""
    x, u = df[column].to_numpy(float), df["utilization"].to_numpy()
    for i in range(len(x)):
        if u[i] >= level:
            return float(x[0]) if i == 0 else float(np.interp(level, [u[i - 1], u[i]], [x[i - 1], x[i]]))
    return math.inf


def _tradeoff_analyse(results, quick: bool) -> Analysis:
    t = _sweep_tables(quick)
    m: dict[str, float] = {}
    for mix in ("ftp", "mix"):
        df = t[f"pi_{mix}"]
        q, d = df["bottleneck.queue.q_ref"].to_numpy(float), df["qdelay_mean_s"].to_numpy()
        slope, icpt = np.polyfit(q, d, 1)
        m[f"{mix}_delay_slope_x_c"] = float(slope * C_PKTS)
        m[f"{mix}_delay_r2"] = float(1 - np.sum((d - (slope * q + icpt)) ** 2) / np.sum((d - d.mean()) ** 2))
        m[f"{mix}_util_at_min_qref"] = float(df["utilization"].iloc[0])
        m[f"{mix}_qref_for_98"] = _first_reaching(df, 0.98, "bottleneck.queue.q_ref")
    m["qref98_mix_minus_ftp"] = m["mix_qref_for_98"] - m["ftp_qref_for_98"]
    pi = t["pi_mix"]
    for rng in RED_MIN_TH:
        red = t[f"red{rng}"]
        gaps = [_interp_util(pi, d) - u for d, u in zip(red["qdelay_mean_s"], red["utilization"])]
        m[f"red{rng}_pi_util_gain_min"] = float(min(gaps))
        m[f"red{rng}_pi_util_gain_max"] = float(max(gaps))
        m[f"red{rng}_delay_min_s"] = float(red["qdelay_mean_s"].min())
        m[f"red{rng}_util_max"] = float(red["utilization"].max())
    # PI's delay at RED's best utilization (to 0.1 point: both reach 100 % up to measurement noise).
    m["pi_delay_at_red550_util_s"] = _first_reaching(pi, m["red550_util_max"] - 0.001, "qdelay_mean_s")
    m["red550_delay_over_pi"] = m["red550_delay_min_s"] / m["pi_delay_at_red550_util_s"]
    figs = _tradeoff_figures(t)
    text = "\n".join(f"sweep {name}: {len(df)} runs, swept "
                     + ", ".join(c for c in df.columns if c.startswith("bottleneck.")) for name, df in t.items())
    return Analysis(m, figs, text=text)


def _tradeoff_figures(t) -> list:
    figs = []
    fig, axes = plotting.figure(1, 3, width=12.0, height=3.4)
    for mix, label in (("ftp", "ftp only"), ("mix", "ftp + http")):
        df = t[f"pi_{mix}"]
        q = df["bottleneck.queue.q_ref"]
        axes[0, 0].plot(q, df["utilization"], "o-", label=label)
        axes[0, 1].plot(q, df["qdelay_mean_s"] * 1e3, "o-", label=label)
        axes[0, 2].plot(df["qdelay_mean_s"] * 1e3, df["utilization"], "o-", label=label)
    for ax, xl, yl, title in ((axes[0, 0], "q_ref (packets)", "utilization", "Fig. 16"),
                              (axes[0, 1], "q_ref (packets)", "queueing delay (ms)", "Fig. 17"),
                              (axes[0, 2], "queueing delay (ms)", "utilization", "Fig. 18")):
        ax.set_xlabel(xl)
        ax.set_ylabel(yl)
        ax.set_title(f"{title}: PI", fontsize="medium")
        ax.grid(alpha=0.3)
        ax.legend(fontsize="small", loc="lower right")
    fig.tight_layout()
    figs.append(("PI: utilization and queueing delay against q_ref, and utilization against delay "
                 "(INFOCOM'01 Figs. 16–18).", fig))
    fig, axes = plotting.figure(1, 2, width=9.0, height=3.4)
    for ax, rng, num in ((axes[0, 0], 550, 19), (axes[0, 1], 55, 20)):
        pi, red = t["pi_mix"], t[f"red{rng}"]
        ax.plot(pi["qdelay_mean_s"] * 1e3, pi["utilization"], "o-", label="PI (q_ref swept)")
        ax.plot(red["qdelay_mean_s"] * 1e3, red["utilization"], "s--", label=f"RED (min_th swept, range {rng})")
        ax.set_xlabel("queueing delay (ms)")
        ax.set_ylabel("utilization")
        ax.set_title(f"Fig. {num}: RED vs PI, dynamic range {rng}", fontsize="medium")
        ax.grid(alpha=0.3)
        ax.legend(fontsize="small", loc="lower right")
    fig.tight_layout()
    figs.append(("Utilization against queueing delay, PI versus RED with a dynamic range of 550 and 55 "
                 "(INFOCOM'01 Figs. 19–20), ftp + http.", fig))
    return figs


TRADEOFF = Experiment(
    id="pi01-fig16-20", title="§VI-G: the delay–utilization trade-off, PI versus RED (sweeps)", paper=PAPER,
    figure="Figs. 16–20, §VI-G",
    statement="PI's queueing delay is set by q_ref alone and grows about linearly with it; with ftp only a "
              "small q_ref already gives nearly full utilization, with http in the mix a larger one is needed. "
              "RED with the stable range of 550 reaches high utilization only at large delays, and with a range "
              "of 55 its delay falls but so does its utilization; PI has low delay and high utilization at once.",
    scenarios=_no_runs, analyse=_tradeoff_analyse,
    expectations=(
        Expectation("ftp_util_at_min_qref", "With ftp only, a small q_ref gives nearly full utilization.",
                    "Fig. 16", "'Nearly full' read as ≥ 95 % at the smallest q_ref swept (25 packets).", lo=0.95,
                    unit="%", scale=100),
        Expectation("qref98_mix_minus_ftp", "With http in the mix a larger q_ref is needed for the same utilization.",
                    "Fig. 16", "Comparative: the q_ref reaching 98 % utilization is larger with http (by any amount).",
                    lo=0.0, unit="packets"),
        Expectation("mix_delay_r2", "Queueing delay is nearly linear in q_ref.", "Fig. 17",
                    "'Nearly linear': a straight-line fit explains ≥ 95 % of the variance.", lo=0.95),
        Expectation("mix_delay_slope_x_c", "The delay grows as q_ref over the link rate.", "Fig. 17, Fig. 8",
                    "PI holds the queue at q_ref, so the delay slope is 1/C = 0.27 ms per packet; ±20 % for "
                    "the per-packet (not time) average and the fluctuation around q_ref.", lo=0.8, hi=1.2,
                    paper=1.0),
        Expectation("red550_delay_over_pi", "RED (range 550) buys its utilization with large delays.", "Fig. 19",
                    "Comparative: RED's smallest delay is at least twice the delay at which PI reaches RED's best "
                    "utilization.", lo=2.0),
        Expectation("red550_pi_util_gain_min", "At RED's delays PI is at least as well utilised (range 550).",
                    "Fig. 19", "PI's curve interpolated at each RED point's delay: at most 0.5 points of "
                    "utilization below RED.", lo=-0.005, unit="%", scale=100),
        Expectation("red55_pi_util_gain_min", "At RED's delays PI is at least as well utilised (range 55).",
                    "Fig. 20", "As for range 550.", lo=-0.005, unit="%", scale=100),
        Expectation("red55_pi_util_gain_max", "With range 55 RED's utilization suffers at low delay.", "Fig. 20",
                    "Comparative: somewhere on RED's curve PI is at least one point of utilization better.",
                    lo=0.01, unit="%", scale=100),
    ),
    notes=(SWEEP_NOTE, TCP_NOTE, HTTP_NOTE, RED_NOTE,
           "RED keeps w_q = 1.33e-6 throughout (the paper does not say otherwise); its runs last 300 s with "
           "150 s of warm-up (100/50 s in quick runs) because its average takes minutes to settle.",
           "The paper's grid of q_ref and min_th values is not printed; ours is listed in the scenarios."),
)


# ---- Propositions 1 and 2, Examples 1 and 2, Figs. 4 and 9 -------------------------------------

N_MIN, R_PLUS = 60, 0.2467   # Example 1: N⁻ = 60, R⁺ = 0.2467 s as substituted, C = 3750 packets/s
W_Q = 1.33e-6


def _grid_min_pm(controller) -> float:
    """The smallest phase margin of the loop over N ≥ N⁻ and R0 ≤ R⁺ (a grid)."""
    return min(stability_margins(TcpPlant(n, C_PKTS, r).tf() * controller).pm_deg
               for n in (60, 90, 120, 240, 480, 960) for r in (0.05, 0.1, 0.15, 0.2, R_PLUS))


@functools.cache
def _designs() -> dict:
    p = design_p(N_MIN, R_PLUS, C_PKTS, omega_g=1.5)
    pi = design_pi(N_MIN, R_PLUS, C_PKTS)
    red = design_red(N_MIN, R_PLUS, C_PKTS, red_filter_pole(W_Q, 1.0 / C_PKTS))
    return {"p": p, "pi": pi, "red": red, "exact_p": design_p(N_MIN, R_PLUS, C_PKTS)}


def _design_analyse(results, quick: bool) -> Analysis:
    d = _designs()
    p, pi, red = d["p"], d["pi"], d["red"]
    # §VI maps K_PI with the zero rounded to the printed 0.53 rad/s, at 160 Hz.
    dig = pi_to_digital(pi.gain, round(pi.zero, 2), 160.0)
    red_ctrl = red_controller(red.gain, red.zero)
    m = {
        "ex1_omega_g_rad_s": d["exact_p"].omega_g, "ex1_l_red": p.gain, "ex1_pm_deg": p.margins.pm_deg,
        "p_grid_min_pm_deg": _grid_min_pm(p_controller(p.gain)),
        "ex2_omega_g_rad_s": pi.omega_g, "ex2_k_pi": pi.gain, "ex2_a": dig.a, "ex2_b": dig.b,
        "ex2_pm_deg": pi.margins.pm_deg, "pi_grid_min_pm_deg": _grid_min_pm(pi_controller(pi.gain, pi.zero)),
        "pi_w_gc_rad_s": pi.margins.w_gc, "red_w_gc_rad_s": red.margins.w_gc,
    }
    m["ex2_pm_minus_printed_formula_deg"] = m["ex2_pm_deg"] - (90.0 - 180.0 / math.pi * pi.omega_g ** 2)
    w = np.logspace(-3, 2, 600)
    fig, axes = plotting.figure(2, 1, height=3.0)
    for label, loop in (("P, Example 1 (Fig. 4)", p.plant.tf() * p_controller(p.gain)),
                        ("PI, Example 2 (Fig. 9)", pi.plant.tf() * pi_controller(pi.gain, pi.zero)),
                        ("RED, w_q 1.33e-6, L_red at its bound", red.plant.tf() * red_ctrl)):
        mg = stability_margins(loop)
        axes[0, 0].semilogx(w, 20 * np.log10(loop.magnitude(w)), label=f"{label}: PM {mg.pm_deg:.1f}°")
        axes[1, 0].semilogx(w, loop.phase_deg(w), label=label)
    axes[0, 0].axhline(0, color="k", lw=0.6)
    axes[1, 0].axhline(-180, color="k", lw=0.6)
    axes[1, 0].set_ylim(-360, 0)
    axes[0, 0].set_ylabel("|L(jω)| (dB)")
    axes[1, 0].set_ylabel("∠L(jω) (°)")
    axes[1, 0].set_xlabel("ω (rad/s)")
    axes[0, 0].set_title("Figs. 4 and 9: loop frequency response at N = 60, R0 = 0.2467 s", fontsize="medium")
    for ax in axes[:, 0]:
        ax.grid(alpha=0.3, which="both")
    axes[0, 0].legend(fontsize="small", loc="lower left")
    fig.tight_layout()
    text = "\n".join(x.summary() for x in (p, pi, red)) + f"\nPI at 160 Hz: a = {dig.a:.5g}, b = {dig.b:.5g}"
    return Analysis(m, [("Bode plots of the worst-case loops with the P, PI and RED designs (INFOCOM'01 Figs. 4, 9).",
                         fig)], text=text)


def _rel(metric: str, claim: str, source: str, value: float, rel: float, reason: str, unit: str = "",
         scale: float = 1.0) -> Expectation:
    return Expectation(metric, claim, source, reason, lo=value * (1 - rel), hi=value * (1 + rel), paper=value,
                       unit=unit, scale=scale)


DESIGN = Experiment(
    id="pi01-design", title="Propositions 1 and 2: Examples 1 and 2 and the digital PI", paper=PAPER,
    figure="Props. 1–2, Examples 1–2, Figs. 4 and 9, §V-A",
    statement="For C = 3750 packets/s, N⁻ = 60 and R⁺ = 0.2467 s, Proposition 1 gives ω_g ≈ 1.5 rad/s and the "
              "P gain L_red = 5.8624e-5 with a phase margin above 33° for all N ≥ N⁻, R0 ≤ R⁺; Proposition 2 "
              "gives ω_g = z = 0.53 rad/s and K_PI = 9.6426e-6 (PM ≈ 90° − (180/π)ω_g² as printed), a loop "
              "bandwidth of 0.5 rad/s against RED's 0.05; at 160 Hz the PI law has a = 1.822e-5, b = 1.816e-5.",
    scenarios=_no_runs, analyse=_design_analyse, quick_shortens=False,
    expectations=(
        _rel("ex1_omega_g_rad_s", "ω_g = √(p_tcp·p_queue) ≈ 1.5 rad/s.", "Example 1, eq. (5)", 1.5, 0.05,
             "The paper rounds √(0.5259·4.0541) = 1.46 to 1.5; ±5 %.", "rad/s"),
        _rel("ex1_l_red", "L_red = 5.8624e-5 per packet.", "Example 1, eq. (4)", 5.8624e-5, 1e-4,
             "Five printed digits: ±1e-4 relative.", "× 1e-5", 1e5),
        Expectation("ex1_pm_deg", "The P loop has more than 33° of phase margin at N⁻, R⁺.", "Proposition 1",
                    "The proposition's guarantee.", lo=33.0, unit="°"),
        Expectation("p_grid_min_pm_deg", "…and for every N ≥ N⁻ and R0 ≤ R⁺.", "Proposition 1",
                    "The guarantee over a grid N = 60…960, R0 = 0.05…0.2467 s.", lo=33.0, unit="°"),
        _rel("ex2_omega_g_rad_s", "ω_g = z = 2N⁻/(R⁺²C) = 0.53 rad/s.", "Example 2, eq. (6)", 0.53, 0.01,
             "Two printed digits: ±1 %.", "rad/s"),
        _rel("ex2_k_pi", "K_PI = 9.6426e-6.", "Example 2, eq. (7)", 9.6426e-6, 1e-4, "Five printed digits.",
             "× 1e-6", 1e6),
        _rel("ex2_a", "a = 1.822e-5 at 160 Hz.", "§VI, footnote 4", 1.822e-5, 3e-4,
             "Four printed digits (half a unit of the last one).", "× 1e-5", 1e5),
        _rel("ex2_b", "b = 1.816e-5 at 160 Hz.", "§VI, footnote 4", 1.816e-5, 3e-4,
             "Four printed digits (half a unit of the last one).", "× 1e-5", 1e5),
        Expectation("pi_grid_min_pm_deg", "The PI design stabilises the loop for every N ≥ N⁻ and R0 ≤ R⁺.",
                    "Proposition 2", "Stable: a positive phase margin everywhere on the grid.", lo=0.0, unit="°"),
        Expectation("ex2_pm_minus_printed_formula_deg", "PM ≈ 90° − (180/π)·ω_g².", "Proposition 2",
                    "An approximation: the exact margin within ±5° of the printed formula.", lo=-5.0, hi=5.0,
                    unit="°"),
        _rel("pi_w_gc_rad_s", "PI raises the loop bandwidth to 0.5 rad/s…", "Example 2, Fig. 9", 0.5, 0.2,
             "Read from the text ('from 0.05 to 0.5'): ±20 %.", "rad/s"),
        _rel("red_w_gc_rad_s", "…from RED's 0.05 rad/s.", "Example 2, Fig. 9", 0.05, 0.2,
             "RED with its filter pole from w_q = 1.33e-6 at 3750 packets/s and the largest stable slope; ±20 %.",
             "rad/s"),
    ),
    notes=("Computed with aqmlab.analysis.design (design_p, design_pi, design_red, pi_to_digital) and the exact "
           "margins of aqmlab.analysis.margins; ω_g of Example 1 is evaluated at the paper's rounded 1.5 rad/s "
           "for L_red, as the paper does.",
           "The printed PM approximation reads 90° − (180/π)ω_g²; the phase lost at ω_g is in fact "
           "atan(ω_g/p_queue) + ω_g·R⁺ ≈ 2·ω_g·R⁺ rad, which happens to be close at this design point."),
)


add(EXP1, EXP2, FIG7, EXP3, EXP4, EXP5, EXP6, EXP7, EXP8, TRADEOFF, DESIGN)
