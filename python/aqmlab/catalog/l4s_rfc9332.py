"""L4S: the DualQ Coupled AQM of RFC 9332 (DualPI2, Linux sch_dualpi2) with TCP Prague next to
classic CUBIC, and the same mix through single-queue AQMs, the coexistence question the L4S
debate is about (issue 19).

The claims are RFC 9332's design goals (§1.2, §2.1, §4), each with a null control that must fail
it: the same flows through a single-queue RFC 3168 AQM (PIE with ECN), where the L4S flow has no
queue of its own and its scalable response meets classic marking.
"""

from __future__ import annotations

import numpy as np

from . import metrics, plotting
from .builders import dumbbell
from .builders import tcp as _tcp
from .core import Analysis, Expectation, Experiment, Paper
from .registry import add

PAPER = Paper(
    key="L4S (RFC 9332)",
    title="Dual-Queue Coupled AQM for L4S (De Schepper, Briscoe, White, RFC 9332, 2023)",
    citation="K. De Schepper, B. Briscoe (Ed.), G. White. RFC 9332, Experimental, January 2023; the reference "
             "implementation is Linux sch_dualpi2 (net/sched/sch_dualpi2.c).",
    not_modelled=(
        ("RFC 9332 §4.1.3 / Appendix A.2 edge cases beyond overload (e.g. the C-queue sojourn used with "
         "Th_len in bytes).", "The rfc profile follows Appendix A.1; see aqm::dualpi2."),
        ("tcp_prague's fixed-point fractional window, its one-segment-per-ACK cwnd steps and its rate-based mode "
         "below 4 MTUs.", "Prague's law is modelled in floating point with immediate reductions; see "
         "sim::tcp::prague."),
    ),
)

RATE = "40Mbps"
RTT = "20ms"
DURATION = 40.0
WARMUP = 10.0

QUEUES = {
    "dualpi2": ("DualPI2 (k = 2)", {"type": "dualpi2", "profile": "linux"}),
    "pie": ("PIE with RFC 3168 ECN (single queue)", {"type": "pie", "profile": "rfc", "ecn": True}),
}

NOTES = (
    "One TCP Prague flow (ECT(1), the linux TCP profile with cc = prague) and one CUBIC flow (ECT(0), classic "
    "ECN, the linux profile) share a 40 Mb/s bottleneck, both of 20 ms base round trip, for 40 s; metrics "
    "after 10 s.",
    "Flow rates are goodput; per-class queueing delays are the bottleneck sojourns of each flow's packets.",
)


def _scenario(name: str, queue: str, quick: bool) -> dict:
    flows = [_tcp(1, 0.0, name="prague", rtt=RTT, profile="linux", cc="prague"),
             _tcp(1, 0.0, name="cubic", rtt=RTT, profile="linux", ecn="classic")]
    return dumbbell(f"{name}-{queue}", queue=dict(QUEUES[queue][1]), flows=flows,
                    duration=20.0 if quick else DURATION, warmup=WARMUP, rate=RATE, delay="5ms",
                    flow_bytes=True, sojourn=True)


def _coexistence() -> Experiment:
    exp_id = "l4s-coexist"

    def scenarios(quick: bool) -> dict:
        return {q: _scenario(exp_id, q, quick) for q in QUEUES}

    def analyse(results, quick: bool) -> Analysis:
        m: dict[str, float] = {}
        for q, r in results.items():
            prague = metrics.group_throughput_bps(r, "prague")
            cubic = metrics.group_throughput_bps(r, "cubic")
            m[f"{q}_rate_ratio"] = prague / cubic if cubic > 0 else float("inf")
            l_sojourn, c_sojourn = (metrics.sojourn_by_flows(r, [i]) for i in (0, 1))
            m[f"{q}_l_p99_s"] = float(np.percentile(l_sojourn, 99))
            m[f"{q}_c_mean_s"] = float(np.mean(c_sojourn))
            # What the coupling balances is the window (RFC 9332 §2.1: p_C = (p_L / k)^2 equates
            # Reno's 1.22 / sqrt(p_C) and DCTCP's 2 / p_L at k = 2 within their constants), so
            # each rate is turned into packets in flight over its own round trip: the base RTT
            # plus the flow's mean bottleneck sojourn, measured at the queue, not by TCP.
            base = float(r.flow_column("rtt_base_s")[0])
            rtt_l, rtt_c = base + float(np.mean(l_sojourn)), base + float(np.mean(c_sojourn))
            m[f"{q}_rtt_ratio"] = rtt_c / rtt_l
            m[f"{q}_window_ratio"] = (prague * rtt_l) / (cubic * rtt_c) if cubic > 0 else float("inf")
            m[f"{q}_utilization"] = r.summary["utilization"]
        runs = [(QUEUES[q][0], results[q]) for q in QUEUES]
        fig, ax = plotting.figure(2, 1, height=3.0)
        plotting.delay_over_time(ax[0, 0], runs, reference_s=0.015, title="Queueing delay (sojourn)")
        plotting.throughput_over_time(ax[1, 0], runs, bin_s=1.0, title="Link throughput")
        fig.tight_layout()
        return Analysis(m, [("One Prague and one CUBIC flow through DualPI2 and through single-queue PIE "
                             "with RFC 3168 ECN.", fig)])

    return Experiment(
        id=exp_id, title="Prague and CUBIC through DualPI2 versus a single-queue RFC 3168 AQM", paper=PAPER,
        figure="RFC 9332 §1.2, §2.1, §4.1",
        statement="Through the coupled DualQ an L4S flow and a classic flow share the link in about equal rates "
                  "(k = 2 balances the windows at equal RTTs), the L4S packets see about 1 ms of queueing (the "
                  "step at 1 ms) and the classic ones about the 15 ms target, with the link fully used. Through "
                  "a single RFC 3168 queue the scalable flow's response to the same marks starves the classic "
                  "flow and its packets wait with the classic ones.",
        scenarios=scenarios, analyse=analyse, notes=NOTES,
        expectations=(
            Expectation("dualpi2_rate_ratio", "Prague and CUBIC get about equal rates through DualPI2.",
                        "RFC 9332 §2.1", "Rate balance, RFC 9332's goal: within a factor 2 either way, the "
                        "coupling balances windows only on average.", lo=0.5, hi=2.0, paper=1.0),
            Expectation("dualpi2_window_ratio", "k = 2 balances the two flows' windows (rate times "
                        "each flow's own round trip).", "RFC 9332 §2.1",
                        "Within a factor 1.5 either way: at k = 2 the response functions' constants (Reno "
                        "1.22 / sqrt(p_C), DCTCP 2 / p_L) put the balance at 0.82, CUBIC and Prague's "
                        "RTT-independent increase move it further.", lo=2 / 3, hi=1.5, paper=1.0),
            Expectation("dualpi2_l_p99_s", "The L4S flow's packets wait about 1 ms (99th percentile).",
                        "RFC 9332 §1.2, sch_dualpi2 step 1 ms", "Below 2 ms: the 1 ms step plus a packet's "
                        "serialization and the WRR's C turns.", hi=0.002, unit="ms", scale=1e3),
            Expectation("dualpi2_c_mean_s", "The classic flow's packets wait about the 15 ms target.",
                        "RFC 9332 §4.1, Appendix A", "±50 % around 15 ms (one classic flow's sawtooth).",
                        lo=0.0075, hi=0.0225, paper=0.015, unit="ms", scale=1e3),
            Expectation("dualpi2_utilization", "The link stays fully used.", "RFC 9332 §1.2",
                        "At least 95 % after the warm-up.", lo=0.95, unit="%", scale=100),
            Expectation("pie_l_p99_s", "Null control: in a single queue the L4S packets wait like classic ones.",
                        "RFC 9332 §1.1", "At least 5 ms, so the DualQ's 1 ms claim fails here.", lo=0.005,
                        unit="ms", scale=1e3, null=False),
            Expectation("pie_rate_ratio", "Null control: through a single RFC 3168 queue the scalable flow "
                        "takes several times the classic flow's rate.", "RFC 9332 §1.1",
                        "At least 3: a scalable flow's rate goes as 1/p, CUBIC's as 1/p^0.75 under the same p.",
                        lo=3.0, null=False),
        ))


# ---- DualPI2 with classic traffic only is PI² -------------------------------------------------

CLASSIC_QUEUES = {
    "dualpi2": ("DualPI2", {"type": "dualpi2", "profile": "linux"}),
    # PI² with sch_dualpi2's gains, period and target, and the delay of the dequeued packet.
    "pi2": ("PI² (same gains)", {"type": "pi2", "alpha": 41 / 256, "beta": 819 / 256, "tupdate": "16ms",
                                 "target": "15ms", "delay": "timestamps", "limit": "10000p"}),
    "drop_tail": ("DropTail (null control)", {"type": "drop_tail", "limit": "10000p"}),
}


def _classic_only() -> Experiment:
    exp_id = "l4s-classic-only"

    def scenarios(quick: bool) -> dict:
        flows = [_tcp(5, (0.0, 1.0), name="cubic", rtt=RTT, profile="linux")]
        return {q: dumbbell(f"{exp_id}-{q}", queue=dict(CLASSIC_QUEUES[q][1]), flows=flows,
                            duration=20.0 if quick else DURATION, warmup=WARMUP, rate=RATE, delay="5ms")
                for q in CLASSIC_QUEUES}

    def analyse(results, quick: bool) -> Analysis:
        m: dict[str, float] = {}
        for q, r in results.items():
            m[f"{q}_delay_s"] = metrics.delay_mean(r, WARMUP, r.summary["time_s"])
            m[f"{q}_utilization"] = r.summary["utilization"]
        m["dualpi2_over_pi2_delay"] = m["dualpi2_delay_s"] / m["pi2_delay_s"]
        m["drop_tail_over_pi2_delay"] = m["drop_tail_delay_s"] / m["pi2_delay_s"]
        fig, ax = plotting.figure(1, 1, height=3.0)
        plotting.delay_over_time(ax[0, 0], [(CLASSIC_QUEUES[q][0], results[q]) for q in ("dualpi2", "pi2")],
                                   reference_s=0.015, title="Queueing delay, five CUBIC flows")
        fig.tight_layout()
        return Analysis(m, [("DualPI2 and PI² (same gains) with classic traffic only.", fig)])

    return Experiment(
        id=exp_id, title="DualPI2 with classic traffic only behaves as PI²", paper=PAPER,
        figure="RFC 9332 §2.4, Appendix A (PI² as the base AQM)",
        statement="Without L4S traffic the L queue stays empty and DualPI2 is the PI² AQM on its C queue: five "
                  "CUBIC flows see the same queueing delay, around the 15 ms target, as through PI² with the same "
                  "gains.",
        scenarios=scenarios, analyse=analyse,
        notes=("Five CUBIC flows (linux profile, no ECN), 40 Mb/s, 20 ms, 40 s; PI² is given sch_dualpi2's "
               "α, β, T_update and target and measures the dequeued packet's sojourn like DualPI2.",),
        expectations=(
            Expectation("dualpi2_over_pi2_delay", "DualPI2's mean queueing delay equals PI²'s.",
                        "RFC 9332 Appendix A", "Within 20 %: the same law on nearly the same delay signal "
                        "(head sojourn against the last dequeued packet's; the 2-MTU against the 2-packet floor). "
                        "Its discriminating control is the DropTail ratio below (DropTail in place of both AQMs "
                        "would make this ratio 1 by construction).", lo=0.8, hi=1.2, paper=1.0, null=False),
            Expectation("dualpi2_delay_s", "DualPI2 holds the classic delay around 15 ms.", "RFC 9332 §4.1",
                        "±50 % around the target.", lo=0.0075, hi=0.0225, paper=0.015, unit="ms", scale=1e3),
            Expectation("dualpi2_utilization", "The link stays fully used.", "RFC 9332 §1.2", "At least 95 %.",
                        lo=0.95, unit="%", scale=100),
            Expectation("drop_tail_over_pi2_delay", "Null control: a DropTail queue does not give PI²'s delay.",
                        "—", "At least twice PI²'s, so the ratio above discriminates.", lo=2.0,
                        null=False),
        ))


add(_coexistence(), _classic_only())
