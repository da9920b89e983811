"""PIE further studies (slides, 2013): the automatic delay reference.

The slides propose two PIE options for service-provider links ("Adjusting Delay Reference to
Accommodate Changing Network or Traffic Scenarios"): lower the reference automatically once the
draining speed has risen "and has been stable for 10 sec", and an "auto-setting based on the
link speed". They give neither the mapping from rate to reference nor a traffic scenario. Our
PIE implements both as ``target_policy`` (``crates/aqm/src/pie/reference.rs``: the reference
stands for ``target_bytes`` = 25 000 B of queued data, 20 ms at 10 Mb/s, bounded by the
configured 20 ms); these experiments check the slides' two statements on a link whose capacity
steps from 10 to 100 Mb/s, where the automatic reference should fall from 20 ms to 2 ms.
"""

from __future__ import annotations

import math

from . import metrics, plotting
from .builders import dumbbell, tcp
from .core import Analysis, Expectation, Experiment
from .pie_slides2013 import PAPER
from .registry import add

TARGET_BYTES = 25_000
REF_LOW, REF_HIGH = 0.020, TARGET_BYTES * 8 / 100e6   # 20 ms at 10 Mb/s, 2 ms at 100 Mb/s
STABLE_FOR = 10.0                                     # "stable for 10 sec"


def _timeline(quick: bool) -> tuple[float, float]:
    """(time of the 10 → 100 Mb/s step, end of the run)."""
    return (15.0, 45.0) if quick else (30.0, 90.0)


def _scenarios(policy: str):
    def scenarios(quick: bool) -> dict:
        t_step, end = _timeline(quick)
        queue = {"type": "pie", "profile": "paper", "limit": "2MB", "target": "20ms", "target_policy": policy,
                 "target_bytes": f"{TARGET_BYTES}B", "stable_for": f"{STABLE_FOR:g}s"}
        return {"pie": dumbbell(f"pie-slides13-autoref-{policy}", queue=queue, flows=[tcp(50)], duration=end,
                                warmup=5, rate="10Mbps", schedule=((t_step, "100Mbps"),), probe=True)}
    return scenarios


def _reference_lowered_after(r, t_step: float) -> float:
    """Seconds from the capacity step until PIE's reference (probe ``target_s``) is within 10 %
    of the 2 ms the new rate calls for; nan when the reference is not probed (fixed policy,
    e.g. the null control), inf if it never gets there."""
    p = r.probe()
    if "target_s" not in p:
        return math.nan
    t, ref = p["t_s"].to_numpy(), p["target_s"].to_numpy()
    hit = (t >= t_step) & (ref <= 1.1 * REF_HIGH)
    return float(t[hit][0] - t_step) if hit.any() else math.inf


def _analyse(policy: str):
    def analyse(results, quick: bool) -> Analysis:
        r = results["pie"]
        t_step, end = _timeline(quick)
        settle = STABLE_FOR + 5.0 if policy == "drain_rate" else 5.0
        m = {
            "delay_before_s": metrics.delay_mean(r, 5.0, t_step),
            "delay_after_s": metrics.delay_mean(r, t_step + settle, end),
            "reference_lowered_after_s": _reference_lowered_after(r, t_step),
            "utilization": r.summary["utilization"],
        }
        fig, ax = plotting.figure(1, 1, height=3.4)
        plotting.delay_over_time(ax[0, 0], [("PIE", r)], title=f"target_policy = {policy}: 50 TCP, 10 → 100 Mb/s")
        p = r.probe()
        if "target_s" in p:
            ax[0, 0].plot(p["t_s"], p["target_s"] * 1e3, "k--", lw=0.8, label="PIE's reference")
            ax[0, 0].legend(fontsize="small")
        plotting.mark_changes(ax[0, 0], (t_step,))
        fig.tight_layout()
        return Analysis(m, [(f"Queueing latency and the automatic delay reference ({policy}) as the capacity "
                             "steps from 10 to 100 Mb/s.", fig)])
    return analyse


def _expectations(policy: str) -> tuple[Expectation, ...]:
    src = "slide 'Adjusting Delay Reference to Accommodate Changing Network or Traffic Scenarios'"
    no_ref = "the claim reads PIE's own delay reference (its probe), which a DropTail queue does not have"
    lowered = (Expectation("reference_lowered_after_s", "The reference is lowered once the faster draining rate "
                           "has been stable for 10 s.", src,
                           "The slides' 10 s, plus up to 2 s for the measured rate to settle within its ±10 % "
                           "stability band after the step.", lo=STABLE_FOR, hi=STABLE_FOR + 2.0, paper=STABLE_FOR,
                           unit="s", no_null=no_ref)
               if policy == "drain_rate" else
               Expectation("reference_lowered_after_s", "The reference follows the link speed at once.", src,
                           "Set from the link rate at the change: within one 30 ms update.", lo=0.0, hi=0.030,
                           unit="ms", scale=1e3, no_null=no_ref))
    return (
        Expectation("delay_before_s", "At 10 Mb/s PIE holds the configured 20 ms.", src,
                    "±10 ms around the reference, as for HPSR'13 Fig. 4.", lo=0.010, hi=0.030, paper=REF_LOW,
                    unit="ms", scale=1e3),
        lowered,
        Expectation("delay_after_s", "At 100 Mb/s PIE holds the lowered reference (2 ms).", src,
                    "±50 % of 2 ms: 2 ms is only 17 packets at 100 Mb/s, inside the sawtooth of 50 flows.",
                    lo=0.5 * REF_HIGH, hi=1.5 * REF_HIGH, paper=REF_HIGH, unit="ms", scale=1e3),
        Expectation("utilization", "Lowering the reference does not cost throughput.", src,
                    "'Without affecting stability' read as ≥ 90 % of the (changing) capacity over the run.",
                    lo=0.90, unit="%", scale=100),
    )


def _experiment(policy: str, what: str) -> Experiment:
    return Experiment(
        id=f"pie-slides13-autoref-{policy.replace('_', '-')}",
        title=f"Automatic delay reference from the {what}: 50 TCP, 10 → 100 Mb/s", paper=PAPER,
        figure="slide 'Adjusting Delay Reference to Accommodate Changing Network or Traffic Scenarios'",
        statement="PIE can set its delay reference itself: lowered automatically once the draining speed has "
                  "increased and been stable for 10 s, or set from the link speed, without affecting stability.",
        scenarios=_scenarios(policy), analyse=_analyse(policy), expectations=_expectations(policy),
        notes=("The slides give no scenario for these options: 50 SACK flows (RTT 100 ms, 2 MB buffer) on a link "
               "stepping from 10 to 100 Mb/s are ours. The mapping reference = 25 000 B / rate is ours too "
               "(it gives the slides' 20 ms at 10 Mb/s and 20 µs at 10 Gb/s).",
               "The null control has no automatic reference to probe, so its reference_lowered_after_s is not "
               "computed; its delays are DropTail's."),
    )


AUTOREF_DRAIN = _experiment("drain_rate", "measured draining rate")
AUTOREF_LINK = _experiment("link_speed", "link speed")
add(AUTOREF_DRAIN, AUTOREF_LINK)
