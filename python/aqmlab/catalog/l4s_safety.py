"""L4S coexistence across round trips and AQMs, and the safety question: TCP Prague next to
CUBIC through the DualQ Coupled AQM (RFC 9332) and through the single-queue AQMs deployed today,
with and without Prague's fall-back on a Classic ECN bottleneck (issue 19).

Prague is the linux TCP profile with cc = prague (AccECN feedback, ECT(1), pacing); its
``linux`` variant follows tcp_prague v0.7, which has no Classic ECN fall-back, its ``draft``
variant adds the fall-back RFC 9331 §4.3 asks for, by the detector of Briscoe and Ahmed
(arXiv:1911.00710) that tcp_prague v0.6 carried (see sim::tcp::prague).
"""

from __future__ import annotations

import numpy as np

from . import metrics, plotting
from .builders import dumbbell
from .builders import tcp as _tcp
from .core import Analysis, Expectation, Experiment
from .l4s_rfc9332 import PAPER
from .registry import add

RATE = "40Mbps"
DURATION = 40.0
QUICK_DURATION = 20.0
WARMUP = 10.0

# Single-queue AQMs as deployed, with RFC 3168 ECN (Linux defaults), and the DualQ.
AQMS = {
    "dualpi2": ("DualPI2 (k = 2)", {"type": "dualpi2", "profile": "linux"}),
    "pie": ("PIE, RFC 3168 ECN", {"type": "pie", "profile": "linux", "ecn": True}),
    "pi2": ("PI², RFC 3168 ECN", {"type": "pi2", "ecn": True}),
    "fq_codel": ("FQ-CoDel, RFC 3168 ECN", {"type": "fq_codel"}),
    "codel": ("CoDel, RFC 3168 ECN", {"type": "codel", "profile": "linux", "ecn": True}),
}


def _flows(n_prague: int, n_cubic: int, rtt_ms: int, variant: str = "linux") -> list[dict]:
    rtt = f"{rtt_ms}ms"
    return [_tcp(n_prague, (0.0, 1.0), name="prague", rtt=rtt, profile="linux", cc="prague", prague=variant),
            _tcp(n_cubic, (0.0, 1.0), name="cubic", rtt=rtt, profile="linux", ecn="classic")]


def _ratio(r, n_prague: int, n_cubic: int) -> float:
    """Mean Prague flow rate over mean CUBIC flow rate."""
    cubic = metrics.group_throughput_bps(r, "cubic") / n_cubic
    prague = metrics.group_throughput_bps(r, "prague") / n_prague
    return prague / cubic if cubic > 0 else float("inf")


# ---- (a) N Prague vs M CUBIC across RTTs, DualQ vs single queues ------------------------------

N_PRAGUE, N_CUBIC = 2, 2
COEXIST_AQMS = ("dualpi2", "pie", "pi2", "fq_codel")


def _coexist_rtt() -> Experiment:
    exp_id = "l4s-coexist-rtt"

    def scenarios(quick: bool) -> dict:
        return {f"{q}_{rtt}ms": dumbbell(f"{exp_id}-{q}-{rtt}ms", queue=dict(AQMS[q][1]),
                                         flows=_flows(N_PRAGUE, N_CUBIC, rtt),
                                         duration=QUICK_DURATION if quick else DURATION, warmup=WARMUP,
                                         rate=RATE, delay="1ms", flow_bytes=True, sojourn=True)
                for q in COEXIST_AQMS for rtt in ((10, 50) if quick else (5, 10, 20, 50, 100))}

    def analyse(results, quick: bool) -> Analysis:
        m: dict[str, float] = {}
        prague_ids = list(range(N_PRAGUE))
        for key, r in results.items():
            m[f"{key}_rate_ratio"] = _ratio(r, N_PRAGUE, N_CUBIC)
            m[f"{key}_utilization"] = r.summary["utilization"]
            if key.startswith("dualpi2"):
                lq = metrics.sojourn_by_flows(r, prague_ids)
                cq = metrics.sojourn_by_flows(r, prague_ids, include=False)
                m[f"{key}_l_p99_s"] = float(np.percentile(lq, 99)) if len(lq) else 0.0
                m[f"{key}_c_mean_s"] = float(cq.mean()) if len(cq) else 0.0
        fig, ax = plotting.figure(1, 1, height=3.0)
        rtts = sorted({int(k.split("_")[-1][:-2]) for k in results})
        for q in COEXIST_AQMS:
            ax[0, 0].plot(rtts, [m[f"{q}_{t}ms_rate_ratio"] for t in rtts], marker="o", label=AQMS[q][0])
        ax[0, 0].set_xscale("log")
        ax[0, 0].set_yscale("log")
        ax[0, 0].axhline(1.0, color="grey", lw=0.8)
        ax[0, 0].set_xlabel("base RTT (ms)")
        ax[0, 0].set_ylabel("Prague / CUBIC rate per flow")
        ax[0, 0].legend(fontsize=7)
        fig.tight_layout()
        return Analysis(m, [(f"{N_PRAGUE} Prague and {N_CUBIC} CUBIC flows (equal RTTs) per AQM and RTT.", fig)])

    def rtt_claims(rtt: int) -> tuple[Expectation, ...]:
        k = f"_{rtt}ms"
        return (
            Expectation(f"dualpi2{k}_rate_ratio", f"At {rtt} ms, Prague and CUBIC flows get about equal rates "
                        "through DualPI2.", "RFC 9332 §2.1",
                        "Within a factor 2 either way: k = 2 balances the windows only on average (as "
                        "l4s-coexist).", lo=0.5, hi=2.0, paper=1.0),
            Expectation(f"dualpi2{k}_l_p99_s", f"At {rtt} ms, L4S packets wait about 1 ms (99th percentile).",
                        "RFC 9332 §1.2", "Below 2 ms: the 1 ms step, serialization and the WRR's C turns.",
                        hi=0.002, unit="ms", scale=1e3),
            Expectation(f"dualpi2{k}_c_mean_s", f"At {rtt} ms, classic packets wait about the 15 ms target.",
                        "RFC 9332 §4.1", "±50 % around 15 ms (the classic flows' sawtooth).", lo=0.0075,
                        hi=0.0225, paper=0.015, unit="ms", scale=1e3),
            Expectation(f"pie{k}_rate_ratio", f"At {rtt} ms, through single-queue PIE with RFC 3168 ECN the "
                        "scalable flows take several times the classic flows' rate.", "RFC 9332 §1.1",
                        "At least 3: a scalable rate goes as 1/p, CUBIC's as 1/p^0.75 under the same marks.",
                        lo=3.0, null=False),
            Expectation(f"pi2{k}_rate_ratio", f"At {rtt} ms, through single-queue PI² with RFC 3168 ECN (p′² for "
                        "every packet) the scalable flows also dominate.", "RFC 9332 §2.1 (why the coupling is "
                        "needed)", "At least 3, for the same reason as PIE.", lo=3.0, null=False),
            Expectation(f"fq_codel{k}_rate_ratio", f"At {rtt} ms, FQ-CoDel's flow queues isolate the flows: "
                        "about equal rates whatever the response.", "RFC 8290 §1 (flow isolation)",
                        "Within a factor 1.5 either way: DRR gives each backlogged flow the same share; "
                        "the band allows for a flow whose queue runs empty after a reduction.",
                        lo=1 / 1.5, hi=1.5, paper=1.0),
        )

    return Experiment(
        id=exp_id, title="Prague and CUBIC across RTTs: DualPI2 versus single-queue PIE, PI² and FQ-CoDel",
        paper=PAPER, figure="RFC 9332 §1.2, §2.1 (coexistence)",
        statement="Two Prague and two CUBIC flows of equal base RTT share a 40 Mb/s link. Through DualPI2 they "
                  "get about equal rates at every RTT with about 1 ms of L4S queueing; through a single RFC 3168 "
                  "queue (PIE, PI²) the scalable flows take most of the link; FQ-CoDel's per-flow queues share "
                  "it evenly. Quick runs judge 10 and 50 ms; full runs also report 5, 20 and 100 ms.",
        scenarios=scenarios, analyse=analyse,
        notes=("Prague: linux TCP profile, cc = prague (AccECN, ECT(1), pacing, the linux variant); CUBIC: linux "
               "profile with classic ECN. Starts uniform in the first second; metrics after 10 s. Rates are "
               "goodput per flow; the L-queue p99 and C-queue mean are the bottleneck sojourns of the Prague and "
               "CUBIC packets.",),
        expectations=rtt_claims(10) + rtt_claims(50))


# ---- (b) safety: a single Classic ECN queue, with and without the fall-back --------------------

SAFETY_AQMS = ("pie", "codel", "fq_codel", "dualpi2")
VARIANTS = {"nofb": "linux", "fb": "draft"}


def _classic_ecn_safety() -> Experiment:
    exp_id = "l4s-classic-ecn"

    def scenarios(quick: bool) -> dict:
        return {f"{q}_{v}_{rtt}ms": dumbbell(f"{exp_id}-{q}-{v}-{rtt}ms", queue=dict(AQMS[q][1]),
                                             flows=_flows(1, 1, rtt, VARIANTS[v]),
                                             duration=QUICK_DURATION if quick else DURATION, warmup=WARMUP,
                                             rate=RATE, delay="1ms")
                for q in SAFETY_AQMS for v in VARIANTS for rtt in ((20,) if quick else (10, 20, 50))}

    def analyse(results, quick: bool) -> Analysis:
        m: dict[str, float] = {}
        for key, r in results.items():
            m[f"{key}_rate_ratio"] = _ratio(r, 1, 1)
        for q in SAFETY_AQMS:
            m[f"{q}_20ms_fallback_gain"] = m[f"{q}_nofb_20ms_rate_ratio"] / m[f"{q}_fb_20ms_rate_ratio"]
        fig, ax = plotting.figure(1, 1, height=3.0)
        keys = [k for k in results]
        ax[0, 0].bar(range(len(keys)), [m[f"{k}_rate_ratio"] for k in keys])
        ax[0, 0].set_xticks(range(len(keys)), keys, rotation=60, fontsize=6)
        ax[0, 0].set_yscale("log")
        ax[0, 0].axhline(1.0, color="grey", lw=0.8)
        ax[0, 0].set_ylabel("Prague / CUBIC rate")
        fig.tight_layout()
        return Analysis(m, [("One Prague and one CUBIC flow through single-queue Classic ECN AQMs, without "
                             "(nofb) and with (fb) Prague's Classic ECN fall-back.", fig)])

    return Experiment(
        id=exp_id, title="Safety: Prague and CUBIC in one Classic ECN queue, with and without the fall-back",
        paper=PAPER, figure="RFC 9331 §4.3 (Classic ECN fall-back); Briscoe & Ahmed, arXiv:1911.00710",
        statement="A Classic (RFC 3168) ECN AQM marks both flows alike; a scalable flow answers each mark with "
                  "a small reduction and starves the classic one. Prague's fall-back, detecting the Classic "
                  "queue by its depth and delay variation, restores a Reno-friendly response, and stays off "
                  "behind DualPI2. Flow-queuing (FQ-CoDel) isolates the flows either way. Quick runs judge 20 ms; full runs report 10 and "
                  "50 ms too.",
        scenarios=scenarios, analyse=analyse,
        notes=("nofb: the linux Prague variant (tcp_prague v0.7, no fall-back); fb: the draft variant with the "
               "fall-back. 40 Mb/s, 1 Prague + 1 CUBIC (classic ECN), equal RTTs, metrics after 10 s.",),
        expectations=(
            Expectation("pie_nofb_20ms_rate_ratio", "Without the fall-back, Prague starves CUBIC in a single "
                        "PIE queue with RFC 3168 ECN.", "RFC 9331 §4.3",
                        "At least 3: a scalable rate goes as 1/p, CUBIC's as 1/p^0.75 under the same marks.",
                        lo=3.0),
            Expectation("codel_nofb_20ms_rate_ratio", "Without the fall-back, Prague starves CUBIC in a single "
                        "CoDel queue with ECN.", "RFC 9331 §4.3", "At least 3, as for PIE.", lo=3.0),
            Expectation("pie_fb_20ms_rate_ratio", "With the fall-back, Prague and CUBIC share a PIE queue about "
                        "evenly.", "RFC 9331 §4.3; arXiv:1911.00710 §5",
                        "Within a factor 2 either way: the fall-back's reduction (0.31 of the window) is "
                        "CUBIC's (0.3), Prague's increase Reno's, CUBIC's Reno-friendly at this BDP.",
                        lo=0.5, hi=2.0, paper=1.0),
            Expectation("codel_fb_20ms_rate_ratio", "With the fall-back, Prague and CUBIC share a CoDel queue "
                        "about evenly.", "RFC 9331 §4.3", "Within a factor 2 either way, as for PIE.",
                        lo=0.5, hi=2.0, paper=1.0),
            Expectation("pie_20ms_fallback_gain", "The fall-back is what restores the balance in PIE: it divides "
                        "Prague's share by a large factor.", "RFC 9331 §4.3",
                        "At least 2: without a Classic ECN AQM (the DropTail null control: no marks, so no "
                        "detection) both variants behave alike and the factor is about 1.", lo=2.0),
            Expectation("codel_20ms_fallback_gain", "The fall-back is what restores the balance in CoDel.",
                        "RFC 9331 §4.3", "At least 2, as for PIE.", lo=2.0),
            Expectation("dualpi2_20ms_fallback_gain", "The fall-back does not engage on an L4S AQM: through "
                        "DualPI2 both variants take the same share.", "arXiv:1911.00710 §5 (false detection)",
                        "Within a factor 1.5 either way (seed noise of two runs): the L queue's delay stays "
                        "shallow and steady, so the score stays at L4S. Exempt from the null control: without "
                        "marks (DropTail) the detector never runs, so the control cannot test it; "
                        "pie_20ms_fallback_gain is the discriminating counterpart.", lo=1 / 1.5, hi=1.5,
                        paper=1.0, null=False),
            Expectation("fq_codel_nofb_20ms_rate_ratio", "FQ-CoDel's flow isolation shares the link evenly even "
                        "without the fall-back.", "RFC 8290 §1",
                        "Within a factor 1.5 either way (DRR's equal shares; a flow's queue may run empty "
                        "after a reduction).", lo=1 / 1.5, hi=1.5, paper=1.0),
        ))


# ---- (c) L-queue burst intolerance: a link that serves in aggregates ---------------------------

# The link alternates every 4 ms between a trickle and a burst, mean 40 Mb/s (the smooth link's
# rate). The trickle still carries a 1500-byte packet in 3 ms: a rate change applies from the
# next packet, so a trickle slower than one packet per phase would hold the link in it.
HALF_PERIOD_MS = 4
LOW, HIGH = "4Mbps", "76Mbps"


def _bursty_schedule(duration: float) -> tuple[tuple[float, str], ...]:
    steps = int(duration * 1000) // HALF_PERIOD_MS
    return tuple((k * HALF_PERIOD_MS / 1000, LOW if k % 2 else HIGH) for k in range(1, steps))


BURST_CASES = {
    # key: (label, cc group, bursty link, DualPI2 overrides)
    "smooth_prague": ("Prague, smooth link", "prague", False, {}),
    "bursty_prague": ("Prague, aggregating link", "prague", True, {}),
    "bursty_prague_step8ms": ("Prague, aggregating link, 8 ms step", "prague", True, {"step_thresh": "8ms"}),
    "bursty_cubic": ("CUBIC, aggregating link", "cubic", True, {}),
}


def _burst() -> Experiment:
    exp_id = "l4s-burst"

    def scenarios(quick: bool) -> dict:
        duration = QUICK_DURATION if quick else DURATION
        out = {}
        for key, (_, group, bursty, over) in BURST_CASES.items():
            flows = _flows(1, 0, 20) if group == "prague" else _flows(0, 1, 20)
            out[key] = dumbbell(f"{exp_id}-{key}", queue={**AQMS["dualpi2"][1], **over},
                                flows=[f for f in flows if f["count"] > 0], duration=duration, warmup=WARMUP,
                                rate="40Mbps", delay="1ms",
                                schedule=_bursty_schedule(duration) if bursty else ())
        return out

    def analyse(results, quick: bool) -> Analysis:
        m = {f"{k}_utilization": r.summary["utilization"] for k, r in results.items()}
        fig, ax = plotting.figure(1, 1, height=3.0)
        plotting.delay_over_time(ax[0, 0], [(BURST_CASES[k][0], results[k]) for k in BURST_CASES],
                                 reference_s=0.001, title="Queueing delay (mean sojourn)")
        fig.tight_layout()
        return Analysis(m, [(f"One flow through DualPI2 on a smooth link and on a link that serves in "
                             f"{HALF_PERIOD_MS} ms aggregates.", fig)])

    return Experiment(
        id=exp_id, title="L-queue burst intolerance: Prague through DualPI2 on a link that serves in aggregates",
        paper=PAPER, figure="RFC 9332 §4.1.4 (step threshold) under Wi-Fi-like aggregated service",
        statement="On a link that alternates every 4 ms between a trickle and a burst (mean 40 Mb/s, as a Wi-Fi "
                  "MAC serving aggregates), the L queue's sojourn passes the 1 ms step every period, so a lone "
                  "Prague flow is marked whatever its rate and leaves the link partly idle; a classic flow in the "
                  "C queue (15 ms target) keeps it full, and a step above the aggregation interval restores "
                  "Prague's utilization.",
        scenarios=scenarios, analyse=analyse,
        notes=("One bulk flow per run (Prague: linux TCP profile, cc = prague; CUBIC: linux profile, classic ECN), "
               "20 ms base RTT, DualPI2 linux profile. The aggregating link's rate alternates between 76 and "
               f"4 Mb/s every {HALF_PERIOD_MS} ms (the rate schedule of the bottleneck): the burstiness is in "
               "the link's service, as at a Wi-Fi access point, not in the arrivals.",),
        expectations=(
            Expectation("smooth_prague_utilization", "On a smooth link a lone Prague flow fills it through "
                        "DualPI2.", "RFC 9332 §1.2", "At least 95 % after the warm-up.", lo=0.95,
                        unit="%", scale=100),
            Expectation("bursty_prague_utilization", "On the aggregating link the L queue's 1 ms step costs a "
                        "lone Prague flow a sizeable part of the link.", "RFC 9332 §4.1.4 (the L queue's shallow step)",
                        "At most 90 %: every 4 ms trickle phase lifts the L sojourn past the 1 ms step, so "
                        "marks come every period whatever the flow's rate. DropTail (the null control) does not "
                        "mark and fills the link.", hi=0.90, unit="%", scale=100),
            Expectation("bursty_cubic_utilization", "A classic flow in the C queue keeps the aggregating link "
                        "full.", "RFC 9332 §4.1 (15 ms target)", "At least 95 %: 4 ms of variation is well "
                        "within the classic target.", lo=0.95, unit="%", scale=100),
            Expectation("bursty_prague_step8ms_utilization", "A step threshold above the aggregation interval "
                        "(8 ms) restores Prague's utilization.", "RFC 9332 §4.1.4 (threshold per link "
                        "technology)", "At least 95 %: the trickle phases no longer reach the step.", lo=0.95,
                        unit="%", scale=100),
        ))


add(_coexist_rtt(), _classic_ecn_safety(), _burst())
