"""Pan et al., "PIE: A Lightweight Scheme to Address the Bufferbloat Problem – Further Studies"
(Cisco slides, March 12, 2013).

Three studies: PIE in a data centre (10 Gb/s, RTT 100 µs, CUBIC with ECN, PIE scaled to
del_ref 20 µs, T_update 100 µs, α 25, β 250, against RED+ECN), adjusting the delay reference
(200 SACK flows, the §IV parameters), and FQ_PIE with VoIP in a strict-priority queue.
The slides were ns-2 simulations without stated TCP parameters; we use the ``ns2-sack`` profile
with CUBIC's window law (``cc = "cubic"``) and ECN where the slides say CUBIC.
"""

from __future__ import annotations

import numpy as np

from . import metrics, plotting
from .builders import dumbbell, tcp, udp
from .core import Analysis, Expectation, Experiment, Paper
from .registry import add

PAPER = Paper(
    key="PIE further studies (slides, 2013)",
    title="PIE: A Lightweight Scheme to Address the Bufferbloat Problem – Further Studies (Pan et al., slides, 2013)",
    citation="R. Pan, P. Natarajan, C. Piglione, M. S. Prabhu, V. Subramanian, F. Baker, B. Ver Steeg. "
             "Cisco, March 12, 2013 (ns-2 simulations).",
    not_modelled=(
        ("Slides on the history of fair queueing and Cisco products; next steps.", "Background and plans, not results."),
    ),
)

DC_REF = 20e-6
C_DC = 10e9
PIE_DC = {"type": "pie", "profile": "paper", "limit": "2000p", "target": "20us", "tupdate": "100us",
          "alpha": 25.0, "beta": 250.0, "ecn": True}
RED_DC = {"type": "red", "profile": "ns2", "limit": "2000p", "min_th": 400, "max_th": 1000, "max_p": 0.1,
          "w_q": 0.002, "ecn": True}
DC_NOTES = (
    ("TCP: our ns-2 Sack1 model with CUBIC's window law and ECN (the slides give no TCP parameters; ns-2's minRTO "
    "of 200 ms is kept, 2000 times the base RTT)."),
    ("PIE keeps the paper profile's max_burst (100 ms) and 10 KB dq_threshold, which the slides do not restate for "
    "the data centre; the first 100 ms therefore pass without early marks and are excluded by the warm-up."),
    ("Where PIE misses (one or five flows), the trace of p shows why: while the 100 ms burst allowance lasts "
    "p keeps integrating (α = 25 Hz against a millisecond-long slow-start queue) up to 1; when the allowance "
    "ends every packet is dropped (ECN marks stop above mark_ecnth = 10 %), the flow falls into recovery and "
    "timeouts, p decays by α·del_ref per update (about 0.2 s from 1 to 0), the queue empties, the allowance is "
    "re-armed (p = 0, delay < del_ref/2) and the cycle restarts. The slides do not say how their code "
    "handled bursts at 10 Gb/s; we did not change max_burst to avoid this."),
    ("RED+ECN: min_th/max_th 20 %/50 % of the 2000-packet buffer (400/1000 packets) as on the slides; max_p 0.1 "
    "and w_q 0.002 (ns-2 defaults) are our assumption, the slides do not give them. Marks above max_th are "
    "drops (ns-2 hard drop)."),
)


def _dc_flows(n: int, cc: str = "cubic", **kw) -> dict:
    return tcp(n, (0.0, 0.001), rtt="100us", cc=cc, ecn=True, **kw)


def _dc_scenario(name: str, queue: dict, flows: list[dict], duration: float, warmup: float,
                 schedule: tuple[tuple[float, str], ...] = ()) -> dict:
    return dumbbell(name, queue=queue, flows=flows, duration=duration, warmup=warmup, rate="10Gbps",
                    delay="10us", schedule=schedule, interval="1ms", flow_bytes=True)


# ---- Data centre, fixed load: 1, 5, 20 CUBIC flows ------------------------------------------

def _dc_static(n: int) -> Experiment:
    exp_id = f"pie-slides13-dc-{n}flow{'s' if n > 1 else ''}"

    def scenarios(quick: bool) -> dict:
        dur, warm = (0.6, 0.3) if quick else (1.5, 0.5)
        return {aqm: _dc_scenario(f"{exp_id}-{aqm}", q, [_dc_flows(n)], dur, warm)
                for aqm, q in (("red", RED_DC), ("pie", PIE_DC))}

    def analyse(results, quick: bool) -> Analysis:
        m = {}
        for aqm in ("red", "pie"):
            r = results[aqm]
            m[f"{aqm}_delay_s"] = r.summary["qdelay_mean_s"]
            m[f"{aqm}_throughput_bps"] = metrics.delivered_bps(r)
            m[f"{aqm}_utilization"] = r.summary["utilization"]
        m["pie_over_red_delay"] = m["pie_delay_s"] / m["red_delay_s"]
        fig, ax = plotting.figure(2, 1)
        runs = [("RED+ECN", results["red"]), ("PIE+ECN", results["pie"])]
        plotting.delay_over_time(ax[0, 0], runs, unit="us", reference_s=DC_REF, title=f"{n} CUBIC flow(s): queueing latency")
        # The slides' number for RED: min_th's 400 packets, "around 320us".
        ax[0, 0].axhline(320, color="C0", ls=(0, (1, 2)), lw=1.5, label="slides: RED around 320 µs")
        ax[0, 0].legend(fontsize="small", loc="upper right")
        plotting.throughput_over_time(ax[1, 0], runs, bin_s=0.01, unit="Gb/s", title=f"{n} CUBIC flow(s): throughput")
        if n == 1:  # the slide's 9.84 Gb/s for PIE with one flow
            ax[1, 0].axhline(9.84, color="C1", ls=(0, (1, 2)), lw=1.5, label="slides: PIE 9.84 Gb/s")
            ax[1, 0].legend(fontsize="small", loc="lower right")
        fig.tight_layout()
        return Analysis(m, [(f"RED+ECN vs PIE+ECN with {n} CUBIC flow(s) at 10 Gb/s, RTT 100 µs (slides 'Simulation RED+ECN vs. PIE+ECN').", fig)])

    if n == 1:
        tput = Expectation("pie_throughput_bps", "PIE loses a little throughput with one flow: 9.84 Gb/s.",
                           "slide 'PIE+ECN – 1 Cubic TCP Flow'", "±0.2 Gb/s around the slide's number.",
                           lo=9.64e9, hi=10e9, paper=9.84e9, unit="Gb/s", scale=1e-9)
    else:
        tput = Expectation("pie_utilization", "With more flows PIE+ECN uses the link fully.",
                           f"slide '{n} Cubic TCP Flows (Throughput)'", "'100 %' read as ≥ 99 %.",
                           lo=0.99, paper=1.0, unit="%", scale=100)
    return Experiment(
        id=exp_id, title=f"Data centre: RED+ECN vs PIE+ECN, {n} CUBIC flow(s)", paper=PAPER,
        figure=f"slides 'RED+ECN vs. PIE+ECN – {n} Cubic TCP Flow{'s' if n > 1 else ''}'",
        statement=f"{n} CUBIC flow(s) with ECN on a 10 Gb/s link, RTT 100 µs, 2000-packet buffer. RED marks only once "
                  "its average passes min_th (400 packets, about 320 µs at 10 Gb/s), so its latency sits there; PIE "
                  "holds the latency near its 20 µs reference"
                  + (", at 9.84 Gb/s." if n == 1 else ", with 100 % throughput."),
        scenarios=scenarios, analyse=analyse,
        expectations=(
            Expectation("red_delay_s", "RED's latency sits near min_th, about 320 µs.", "slide 'RED+ECN vs PIE+ECN'",
                        "min_th = 400 packets = 320 µs; ±25 % for the average's position around it.",
                        lo=240e-6, hi=400e-6, paper=320e-6, unit="µs", scale=1e6),
            Expectation("pie_delay_s", "PIE holds the latency near its 20 µs reference.", "slide 'RED+ECN vs PIE+ECN'",
                        "±50 % of the reference: at 10 Gb/s 20 µs is only 25 packets, so a few packets of "
                        "sawtooth move the mean by several µs.", lo=10e-6, hi=30e-6, paper=DC_REF, unit="µs",
                        scale=1e6),
            Expectation("pie_over_red_delay", "PIE's latency is far below RED's.", "slides 'RED+ECN vs PIE+ECN'",
                        "Comparative (slides: 20 µs vs 320 µs, a ratio of 0.06); we require < 0.5.", hi=0.5),
            tput,
        ),
        notes=DC_NOTES,
    )


DC1, DC5, DC20 = (_dc_static(n) for n in (1, 5, 20))


# ---- Data centre, dynamic: traffic intensity and capacity -----------------------------------

def _dc_dynamic_analyse(results, bounds: list[float], skip: float, title: str) -> tuple[dict, object]:
    m = metrics.phase_delays(results, bounds, skip)
    for aqm in ("red", "pie"):
        m[f"{aqm}_utilization"] = results[aqm].summary["utilization"]
    m["pie_over_red_worst_phase"] = max(m[f"pie_phase{i}_s"] / m[f"red_phase{i}_s"] for i in range(1, len(bounds)))
    m["pie_max_phase_s"] = max(m[f"pie_phase{i}_s"] for i in range(1, len(bounds)))
    fig, ax = plotting.figure(2, 1)
    runs = [("RED+ECN", results["red"]), ("PIE+ECN", results["pie"])]
    plotting.delay_over_time(ax[0, 0], runs, unit="us", reference_s=DC_REF, title=f"{title}: queueing latency")
    plotting.throughput_over_time(ax[1, 0], runs, bin_s=0.01, unit="Gb/s", title=f"{title}: throughput")
    for a in ax[:, 0]:
        plotting.mark_changes(a, bounds[1:-1])
    fig.tight_layout()
    return m, fig


def _dc_bounds(quick: bool, phases: int) -> list[float]:
    step = 0.25 if quick else 0.5
    return [0.5 + step * i for i in range(phases + 1)]


def _dc_intensity_scenarios(quick: bool) -> dict:
    b = _dc_bounds(quick, 5)
    flows = [_dc_flows(10, name="base"), _dc_flows(20, name="second", stop=b[4]),
             _dc_flows(20, name="third", stop=b[3])]
    flows[1]["start"] = {"uniform": [f"{b[1]:g}s", f"{b[1] + 0.001:g}s"]}
    flows[2]["start"] = {"uniform": [f"{b[2]:g}s", f"{b[2] + 0.001:g}s"]}
    return {aqm: _dc_scenario(f"pie-slides13-dc-intensity-{aqm}", q, flows, b[-1], 0.5)
            for aqm, q in (("red", RED_DC), ("pie", PIE_DC))}


def _dc_intensity_analyse(results, quick: bool) -> Analysis:
    b = _dc_bounds(quick, 5)
    m, fig = _dc_dynamic_analyse(results, b, 0.05, "10 → 30 → 50 → 30 → 10 CUBIC flows")
    m["pie_over_red_utilization"] = m["pie_utilization"] / m["red_utilization"]
    return Analysis(m, [("RED+ECN vs PIE+ECN as CUBIC flows join and leave (slides 'Changing Traffic Intensity').", fig)])


_COMPARE = ("Comparative: PIE below RED in every phase; < 0.5 of RED's latency in the worst phase "
            "(slides: about 20 µs against several hundred).")
DC_INTENSITY = Experiment(
    id="pie-slides13-dc-intensity", title="Data centre: varying traffic intensity, RED+ECN vs PIE+ECN", paper=PAPER,
    figure="slides 'Varying TCP Traffic Intensity on 10Gbps Link'",
    statement="As CUBIC flows join and leave the 10 Gb/s link, PIE keeps a low, steady latency in every phase while "
              "RED's moves with the load; throughput stays high, dipping slightly more under PIE because of its low "
              "latency.",
    scenarios=_dc_intensity_scenarios, analyse=_dc_intensity_analyse,
    expectations=(
        Expectation("pie_over_red_worst_phase", "PIE's latency is below RED's in every phase.", "slide 'Changing Traffic Intensity, Queue Delay'",
                    _COMPARE, hi=0.5),
        Expectation("pie_max_phase_s", "PIE stays near its 20 µs reference in every phase.", "slide 'Changing Traffic Intensity, Queue Delay'",
                    "Worst phase mean within 2× the reference (20 µs is 25 packets at 10 Gb/s).", hi=40e-6, paper=DC_REF,
                    unit="µs", scale=1e6),
        Expectation("pie_utilization", "Overall throughput stays high.", "slide 'Changing Traffic Intensity, Throughput'",
                    "'High' read as ≥ 95 % of capacity over the measured window.", lo=0.95, unit="%", scale=100),
        Expectation("pie_over_red_utilization", "Throughput dips slightly more under PIE than under RED.",
                    "slide 'Changing Traffic Intensity, Throughput'",
                    "'Slightly more dip' read as PIE's utilization below RED's by 0.1 % (a dip a throughput plot "
                    "shows) to 5 % ('slightly', and the same slide calls the throughput high).", lo=0.95, hi=0.999),
    ),
    notes=(("The slides show the load pattern only in a figure we do not have; we take the HPSR'13 Fig. 8 pattern "
           "(10 → 30 → 50 → 30 → 10 flows), with 0.5 s phases (0.25 s in quick runs) after a 0.5 s start."),
           *DC_NOTES),
)


def _dc_capacity(cc: str) -> Experiment:
    sack = cc == "newreno"
    exp_id = "pie-slides13-dc-capacity" + ("-sack" if sack else "")
    label = "SACK" if sack else "CUBIC"

    def scenarios(quick: bool) -> dict:
        b = _dc_bounds(quick, 3)
        sched = ((b[1], "2Gbps"), (b[2], "10Gbps"))
        runs = {aqm: _dc_scenario(f"{exp_id}-{aqm}", q, [_dc_flows(20, cc=cc)], b[-1], 0.5, sched)
                for aqm, q in (("red", RED_DC), ("pie", PIE_DC))}
        if sack:  # "smoother queueing delay" than with CUBIC: PIE with CUBIC on the same pattern
            runs["pie_cubic"] = _dc_scenario(f"{exp_id}-pie-cubic", PIE_DC, [_dc_flows(20, cc="cubic")], b[-1], 0.5, sched)
        return runs

    def analyse(results, quick: bool) -> Analysis:
        b = _dc_bounds(quick, 3)
        m, fig = _dc_dynamic_analyse({k: results[k] for k in ("red", "pie")}, b, 0.05, f"20 {label} flows, 10 → 2 → 10 Gb/s")
        m["red_low_over_high"] = m["red_phase2_s"] / m["red_phase1_s"]
        if sack:
            m["pie_sd_sack_over_cubic"] = (metrics.within_phase_sd(results["pie"], b, 0.05)
                                           / metrics.within_phase_sd(results["pie_cubic"], b, 0.05))
        return Analysis(m, [((f"RED+ECN vs PIE+ECN, 20 {label} flows, capacity 10 → 2 → 10 Gb/s "
                             f"(slides 'Varying Link Capacity'{', Using TCP Sack' if sack else ''})."), fig)])

    return Experiment(
        id=exp_id, title=f"Data centre: varying capacity, 20 {label} flows, RED+ECN vs PIE+ECN", paper=PAPER,
        figure="slides 'Varying Link Capacity, 20 Cubic TCP Flows'" + (", 'Using TCP Sack'" if sack else ""),
        statement="When the capacity changes RED's latency changes with it (its thresholds are in packets), while PIE "
                  "keeps a low latency at every capacity; throughput behaves alike for both"
                  + (". With TCP SACK instead of CUBIC the picture is the same, the queueing delay smoother." if sack else "."),
        scenarios=scenarios, analyse=analyse,
        expectations=(
            Expectation("red_low_over_high", "RED's latency rises when the capacity falls.", "slide 'RED vs. PIE – Queue Delay'",
                        "At a fifth of the capacity the same RED queue means up to 5× the latency; any rise by "
                        "half or more counts.", lo=1.5),
            # Not asserted at quick length since the TCP fidelity fixes of issue 13: in a 0.25 s
            # phase one retransmission timeout (ns-2's Sack1 leaves a lost retransmission to the
            # RTO, at least 200 ms) of one of the 20 CUBIC flows decides the worst phase (1.4 in
            # the quick run; 0.06 at full length, still reproduced).
            Expectation("pie_over_red_worst_phase", "PIE's latency is below RED's at every capacity.", "slide 'RED vs. PIE – Queue Delay'",
                        _COMPARE, hi=0.5),
            Expectation("pie_max_phase_s", "PIE stays near its reference at every capacity.", "slide 'RED vs. PIE – Queue Delay'",
                        "Worst phase mean within 2× the 20 µs reference.", hi=40e-6, paper=DC_REF, unit="µs", scale=1e6),
            Expectation("pie_utilization", "Throughput stays high under PIE.", "slide 'RED vs. PIE – Changing Bandwidth, Throughput'",
                        "'Similar' to RED read as ≥ 95 % of the (varying) capacity.", lo=0.95, unit="%", scale=100),
            *((Expectation("pie_sd_sack_over_cubic", "With SACK PIE's queueing delay is smoother than with CUBIC.",
                           "slide 'Using TCP Sack - Delay'", "'Smoother' read as at least 10 % less spread of the "
                           "delay around each phase's mean (the catalog's margin for 'better'), SACK over CUBIC.",
                           hi=1 / 1.1),) if sack else ()),
        ),
        notes=(("The capacities are not legible from the slides; we take HPSR'13 Fig. 7's pattern scaled to the data "
               "centre (capacity / 5 and back): 10 → 2 → 10 Gb/s, phases of 0.5 s (0.25 s quick) after a 0.5 s start."),
               *(("TCP SACK here is our ns-2 Sack1 model (NewReno window law) with ECN.",) if sack else ()), *DC_NOTES),
    )


DC_CAPACITY = _dc_capacity("cubic")
DC_CAPACITY_SACK = _dc_capacity("newreno")


# ---- Service provider: the delay reference ---------------------------------------------------

_DELREFS_MS = (20, 10, 5)


def _delref_bounds(quick: bool) -> list[float]:
    """Phase limits: each reference holds for one phase, changed at run time in between."""
    phase = 15.0 if quick else 40.0
    return [phase * i for i in range(len(_DELREFS_MS) + 1)]


def _delref_scenarios(quick: bool) -> dict:
    b = _delref_bounds(quick)
    return {"pie": dumbbell("pie-slides13-delref",
                            queue={"type": "pie", "profile": "paper", "limit": "2MB", "target": f"{_DELREFS_MS[0]}ms"},
                            flows=[tcp(200)], duration=b[-1], warmup=5, rate="100Mbps", probe=True,
                            target_schedule=[{"at": f"{t:g}s", "target": f"{r}ms"}
                                             for t, r in zip(b[1:-1], _DELREFS_MS[1:])])}


def _delref_analyse(results, quick: bool) -> Analysis:
    r = results["pie"]
    b = _delref_bounds(quick)
    skip = 5.0
    m = metrics.phase_delays(results, b, skip)
    for i, ref_ms in enumerate(_DELREFS_MS, 1):
        m[f"ref{ref_ms}_delay_over_ref"] = m[f"pie_phase{i}_s"] / (ref_ms / 1e3)
    m["worst_delay_over_ref"] = max(abs(m[f"ref{r_ms}_delay_over_ref"] - 1) for r_ms in _DELREFS_MS)
    # Back around each new reference (±50 %, two-sided) after each change, on 0.5 s means.
    m["settle_max_s"] = max(metrics.settle_time(r, t, (0.5 * ref_ms / 1e3, 1.5 * ref_ms / 1e3), 2.0, t_end, smooth_s=0.5)
                            for t, t_end, ref_ms in zip(b[1:-1], b[2:], _DELREFS_MS[1:]))
    m["utilization"] = r.summary["utilization"]
    fig, ax = plotting.figure(1, 1, height=3.4)
    plotting.delay_over_time(ax[0, 0], [("PIE", r)], title="200 SACK flows, 100 Mb/s, del_ref 20 → 10 → 5 ms")
    for (t0, t1), ref_ms in zip(zip(b, b[1:]), _DELREFS_MS):
        ax[0, 0].hlines(ref_ms, t0, t1, colors="k", linestyles="--", lw=0.8)
    plotting.mark_changes(ax[0, 0], b[1:-1])
    fig.tight_layout()
    return Analysis(m, [(("Queueing latency as the delay reference is changed during the run (slides 'Adjusting "
                         "Del_Ref'); dashed: the reference in force."), fig)])


DELREF = Experiment(
    id="pie-slides13-delref", title="Delay reference changed during a run, 20 → 10 → 5 ms, 200 SACK flows", paper=PAPER,
    figure="slide 'Service Provider Space – Adjusting Del_Ref'",
    statement="With 200 SACK flows and the HPSR parameters (α 0.125, β 1.25, T_update 30 ms), the delay reference "
              "can be tuned dynamically without affecting stability: PIE follows each new reference, and throughput "
              "stays high (slightly lower for very low references).",
    scenarios=_delref_scenarios, analyse=_delref_analyse,
    expectations=(
        Expectation("worst_delay_over_ref", "PIE holds each delay reference.", "slide 'Adjusting Del_Ref'",
                    "Mean within ±50 % of each reference (a 5 ms reference is 62 packets at 100 Mb/s, inside the "
                    "sawtooth of 200 flows).", hi=0.5),
        Expectation("settle_max_s", "PIE follows each change without losing stability.", "slide 'Adjusting Del_Ref'",
                    "Back within ±50 % of the new reference for 2 s (0.5 s means) within 5 s of each change, as "
                    "for HPSR'13 Fig. 8's 'couple of seconds'.", lo=0.0, hi=5.0, unit="s"),
        Expectation("utilization", "Throughput stays high during the adjustment.", "slide 'Link Throughput During the Adjustment'",
                    "'High' read as ≥ 95 %; the slide notes some loss at the lowest references.", lo=0.95,
                    unit="%", scale=100),
    ),
    notes=(("The slides' capacity 'varies' and is not given; we use 100 Mb/s (2 MB buffer) so that 200 flows keep "
           "windows of several packets. Each reference holds for 40 s (15 s in quick runs); the slides' timing "
           "is not given. Phase means skip the first 5 s after each change."),),
)


# ---- FQ_PIE with VoIP in a strict-priority queue --------------------------------------------

VOIP_RATE = "64kbps"
VOIP_SIZE = 200


def _fq_scenarios(quick: bool) -> dict:
    out = {}
    for label, with_udp in (("tcp", False), ("tcp+udp", True)):
        # VoIP marked EF (DSCP 46), the class the priority queue serves first.
        flows = [udp(1, VOIP_RATE, name="voip", packet_size=VOIP_SIZE, dscp=46), tcp(5, name="tcp")]
        if with_udp:
            flows.append(udp(1, "6Mbps", name="udp6"))
        queue = {"type": "strict_priority", "high_dscp": [46], "high_limit": "100p",
                 "low": {"type": "fq_pie", "limit": "200p", "pie": {"profile": "paper"}}}
        out[label] = dumbbell(f"pie-slides13-fqpie-voip-{label}", queue=queue, flows=flows,
                              duration=30 if quick else 100, warmup=10, rate="5Mbps", sojourn=True)
    return out


def _fq_analyse(results, quick: bool) -> Analysis:
    m: dict[str, float] = {}
    fig, axes = plotting.figure(1, 2, width=9.0, height=3.4)
    for j, label in enumerate(("tcp", "tcp+udp")):
        r = results[label]
        voip = metrics.sojourn_by_flows(r, [0])
        regular = metrics.sojourn_by_flows(r, [0], include=False)
        key = label.replace("+", "_")
        m[f"{key}_voip_mean_s"] = float(np.mean(voip))
        m[f"{key}_voip_p99_s"] = float(np.quantile(voip, 0.99))
        m[f"{key}_regular_mean_s"] = float(np.mean(regular))
        m[f"{key}_tcp_throughput_bps"] = metrics.group_throughput_bps(r, "tcp")
        s = r.sojourn()
        ax = axes[0, j]
        for name, flows, style in (("regular (TCP/UDP)", s["flow"] != 0, "-"), ("VoIP", s["flow"] == 0, "-")):
            sub = s[flows]
            t = np.floor(sub["t_s"].to_numpy() / 0.5) * 0.5
            binned = sub.assign(tb=t).groupby("tb")["sojourn_s"].mean()
            ax.plot(binned.index, binned.to_numpy() * 1e3, style, lw=0.9, label=name)
        ax.set_xlabel("time (s)")
        ax.set_ylabel("queueing delay (ms, 0.5 s means)")
        ax.set_title("5 TCP + VoIP" + (" + 6 Mb/s UDP" if label == "tcp+udp" else ""), fontsize="medium")
        ax.grid(alpha=0.3)
        ax.legend(fontsize="small")
    fig.tight_layout()
    return Analysis(m, [(("Queueing delay of VoIP (strict priority) and of the FQ_PIE traffic on a 5 Mb/s link "
                         "(slides 'FQ_PIE for Mixed Traffic')."), fig)])


_VOIP_BAND = ("'Almost zero': the priority queue is never backlogged, so a VoIP packet waits at most for the "
              "packet being sent (1.6 ms for 1000 B at 5 Mb/s); we accept a 99th percentile ≤ 2 ms.")
FQPIE_VOIP = Experiment(
    id="pie-slides13-fqpie-voip", title="FQ_PIE with VoIP in strict priority, 5 Mb/s", paper=PAPER,
    figure="slides 'FQ_PIE for Mixed Traffic – VoIP in strict priority'",
    statement="VoIP goes to an over-provisioned strict-priority queue ahead of FQ_PIE (200-packet buffer, the HPSR PIE "
              "parameters). With 5 TCP flows VoIP sees almost no queueing and PIE keeps the regular traffic's latency "
              "low; adding a 6 Mb/s UDP flow congests the 5 Mb/s link, yet VoIP still sees almost none and the "
              "regular queue is held around 10 ms.",
    scenarios=_fq_scenarios, analyse=_fq_analyse,
    expectations=(
        Expectation("tcp_voip_p99_s", "VoIP sees almost no queueing (5 TCP).", "slide 'VoIP Traffic Incurs Almost 0 Queueing Latency'",
                    _VOIP_BAND, hi=2e-3, paper=0.0, unit="ms", scale=1e3),
        Expectation("tcp_udp_voip_p99_s", "VoIP sees almost no queueing even with the UDP overload.",
                    "slide 'FQ_PIE Controls Latency to be around 10ms'", _VOIP_BAND, hi=2e-3, paper=0.0, unit="ms",
                    scale=1e3),
        Expectation("tcp_regular_mean_s", "PIE keeps the regular traffic's latency low (5 TCP).",
                    "slide 'VoIP Traffic Incurs Almost 0 Queueing Latency'",
                    "'Low' read as at most the 20 ms reference on average.", hi=0.020, unit="ms", scale=1e3),
        Expectation("tcp_udp_regular_mean_s", "The regular traffic's latency is held around 10 ms with the UDP flow.",
                    "slide 'FQ_PIE Controls Latency to be around 10ms'",
                    "5–20 ms: 'around 10 ms' from the slide's plot, whose reference is not stated (we use 20 ms).",
                    lo=0.005, hi=0.020, paper=0.010, unit="ms", scale=1e3),
    ),
    notes=(("Observed: each flow queue is held near PIE's 20 ms reference, so the regular traffic's mean sojourn "
           "is about 25–30 ms; the slide's 'about 10 ms' suggests a lower reference or another FQ_PIE design, "
           "neither stated. With sojourn timestamps instead of the departure-rate estimator the mean is about the "
           "same (checked once, not part of the catalog)."),
           ("VoIP is one 64 kb/s CBR flow of 200-byte packets (G.711-like; the slides give no codec). The UDP flow is "
           "unresponsive CBR (the slides call it 'reliable UDP')."),
           ("FQ_PIE follows Linux sch_fq_pie (a PIE per flow queue) with the paper's PIE profile; the slides do not "
           "say how their FQ_PIE combined the per-queue and aggregate probabilities. The priority class is chosen by "
           "DSCP: the VoIP flow is marked EF (46).")),
)


add(DC1, DC5, DC20, DC_INTENSITY, DC_CAPACITY, DC_CAPACITY_SACK, DELREF, FQPIE_VOIP)
