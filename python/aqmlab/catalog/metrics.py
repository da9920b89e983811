"""The numbers papers report, computed from :class:`aqmlab.Result` traces.

Queueing delay has two distinct quantities here, named apart (docs/outputs.md, "Queue delay"):

- ``SOJOURN``: the delay packets experienced, the mean sojourn (enqueue to transmission start)
  of the packets that left in each trace interval (the queue trace's ``sojourn_mean_s``; NaN for
  an interval in which none left). This is what a paper means by "queueing delay" or "latency
  experienced", and what the summary's ``qdelay_*`` percentiles and the delay CDFs are made of.
  Every time series of the catalog uses it unless a claim says why not.
- ``BACKLOG``: the backlog-delay estimate, backlog·8 / current link rate at each sample (Little's
  law, what PIE's departure-rate estimator approximates). It leads the sojourn by one queue's
  worth of time and is defined while no packet leaves; a claim uses it where the paper's quantity
  is the queue itself (the PI paper's queue length, a fluid model's q/C).
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Sequence

import numpy as np
import pandas as pd

SOJOURN = "sojourn"
BACKLOG = "backlog"


def delay_series(result, quantity: str = SOJOURN) -> pd.DataFrame:
    """t_s and delay_s at each queue sample: the interval's mean sojourn (``SOJOURN``) or the
    backlog-delay estimate (``BACKLOG``); needs ``traces.queue``."""
    q = result.queue()
    if not len(q):
        raise ValueError(f"{result.scenario.name}: no queue trace (set traces.queue = true)")
    if quantity == SOJOURN:
        y = q["sojourn_mean_s"].to_numpy()
    elif quantity == BACKLOG:
        y = q["backlog_bytes"].to_numpy() * 8.0 / q["rate_bps"].to_numpy()
    else:
        raise ValueError(f"delay quantity {quantity!r}: expected {SOJOURN!r} or {BACKLOG!r}")
    return pd.DataFrame({"t_s": q["t_s"].to_numpy(), "delay_s": y})


def window_mean(t: np.ndarray, y: np.ndarray, t0: float, t1: float) -> float:
    """Mean of the defined (non-NaN) samples y(t) with t0 <= t < t1 (nan if none)."""
    sel = (t >= t0) & (t < t1) & ~np.isnan(y)
    return float(np.mean(y[sel])) if sel.any() else math.nan


def delay_mean(result, t0: float, t1: float, quantity: str = SOJOURN) -> float:
    """Time average over [t0, t1) of :func:`delay_series` (intervals without departures left out)."""
    d = delay_series(result, quantity)
    return window_mean(d["t_s"].to_numpy(), d["delay_s"].to_numpy(), t0, t1)


def phase_delays(results, bounds: Sequence[float], skip: float, quantity: str = SOJOURN) -> dict[str, float]:
    """For each labelled result: the mean queueing delay of every phase [bounds[i] + skip,
    bounds[i+1]) as ``<label>_phase<i>_s`` (from 1), and ``<label>_spread_s``, the largest minus
    the smallest phase mean."""
    m: dict[str, float] = {}
    for label, r in results.items():
        means = [delay_mean(r, a + skip, b, quantity) for a, b in itertools.pairwise(bounds)]
        m.update({f"{label}_phase{i}_s": v for i, v in enumerate(means, 1)})
        m[f"{label}_spread_s"] = max(means) - min(means)
    return m


def within_phase_sd(result, bounds: Sequence[float], skip: float, quantity: str = SOJOURN) -> float:
    """The spread of the queueing delay around each phase's own mean: the root mean square of
    y - mean(phase) over the samples of every phase [bounds[i] + skip, bounds[i+1]), so that a
    change of level between phases is not counted as roughness."""
    d = delay_series(result, quantity)
    t, y = d["t_s"].to_numpy(), d["delay_s"].to_numpy()
    dev = []
    for a, b in itertools.pairwise(bounds):
        sel = (t >= a + skip) & (t < b) & ~np.isnan(y)
        dev.append(y[sel] - np.mean(y[sel]) if sel.any() else np.array([]))
    dev_all = np.concatenate(dev)
    return float(np.sqrt(np.mean(dev_all ** 2))) if len(dev_all) else math.nan


def settle_time(result, t_change: float, band: tuple[float, float], hold: float, t_end: float,
                smooth_s: float = 0.0, quantity: str = SOJOURN) -> float:
    """Seconds after ``t_change`` until the queueing delay (a trailing mean over ``smooth_s``
    when > 0) is back *around* its level, inside ``band`` = (lo, hi) seconds, and stays there
    for ``hold`` seconds, judged on samples before ``t_end``; inf if it never does.

    Two-sided on purpose: a queue that has drained empty after a capacity drop (below ``lo``) is
    not settled, any more than one still above ``hi``; nor is an interval in which no packet
    left (no sojourn: NaN, outside every band)."""
    d = delay_series(result, quantity)
    t, y = d["t_s"].to_numpy(), d["delay_s"].to_numpy()
    if smooth_s > 0:
        y = pd.Series(y, index=pd.to_timedelta(t, unit="s")).rolling(pd.Timedelta(seconds=smooth_s)).mean().to_numpy()
    return settle_after(t, y, t_change, band, hold, t_end)


def settle_after(t: np.ndarray, y: np.ndarray, t_change: float, band: tuple[float, float], hold: float,
                 t_end: float) -> float:
    """The settling rule of :func:`settle_time` on a sampled series y(t): the first sample time
    at or after ``t_change`` from which y stays in [lo, hi] for ``hold`` seconds (samples before
    ``t_end`` only), minus ``t_change``; inf if there is none."""
    lo, hi = band
    if lo > hi:
        raise ValueError(f"settling band: lo {lo} > hi {hi}")
    sel = (t >= t_change) & (t < t_end)
    start = None
    for ti, yi in zip(t[sel], y[sel]):
        if not lo <= yi <= hi:
            start = None
            continue
        if start is None:
            start = ti
        if ti - start >= hold:
            return float(start - t_change)
    return math.inf


def cdf_at(result, x_s: float) -> float:
    """Fraction of packets whose bottleneck sojourn is at most ``x_s`` (measured window)."""
    x, f = result.delay_cdf()
    return float(np.interp(x_s, x, f, left=0.0, right=1.0))


def group_throughput_bps(result, name: str | None = None) -> float:
    """Summed throughput of the flows of group ``name`` (all flows if None)."""
    tput = result.flow_column("throughput_bps")
    return float(np.nansum(tput if name is None else tput[result.flow_column("name") == name]))


def flow_throughputs_bps(result, name: str) -> list[float]:
    return result.flow_column("throughput_bps")[result.flow_column("name") == name].tolist()


def delivered_bps(result) -> float:
    """Bits per second sent on the bottleneck over the measured window."""
    s = result.summary
    return s["bottleneck_bytes"] * 8.0 / s["measured_s"]


def drop_times(result, kinds: Sequence[str] = ("early", "overflow", "dequeue")) -> np.ndarray:
    """Sorted times of the bottleneck's drops of the given kinds (needs ``traces.drops``)."""
    d = result.drops()
    d = d[d["kind"].isin(list(kinds)) & (d["link"] == 0)] if len(d) else d
    return np.sort(d["t_s"].to_numpy()) if len(d) else np.array([])


def probe_mean(result, var: str, t0: float, t1: float) -> float:
    """Mean of the AQM's probe variable ``var`` over [t0, t1); nan when the queue has no such
    variable (a DropTail null control has no probes)."""
    p = result.probe()
    if var not in p:
        return math.nan
    return window_mean(p["t_s"].to_numpy(), p[var].to_numpy(), t0, t1)


def sojourn_by_flows(result, flows: Sequence[int], include: bool = True) -> np.ndarray:
    """Per-packet sojourns (s) of the listed flow ids (or of all others with include=False),
    after the warm-up (needs ``traces.sojourn``)."""
    s = result.sojourn()
    warm = result.summary["time_s"] - result.summary["measured_s"]
    s = s[s["t_s"] >= warm]
    mask = s["flow"].isin(list(flows))
    return s[mask if include else ~mask]["sojourn_s"].to_numpy()
