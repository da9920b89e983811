"""Misra–Gong–Towsley fluid model of N Reno flows through one AQM bottleneck, over a batch of configurations.

Equations (MGT, SIGCOMM 2000; PIE HPSR 2013 eq. (1)–(2); spec ppv-pi2-fluid-tcp.md §3.1):

    dW/dt = 1/R(t) − W(t)·W(t−R)·p(t−R) / (2·R(t−R))
    dq/dt = N(t)·W(t)/R(t) − C(t),   q ∈ [0, B]
    R(t)  = q(t)/C(t) + Tp

integrated with fixed-step explicit Euler (spec §3.8). The delayed factor W·p/R is kept in a ring
buffer of one row per step; the row read at step k is k − round(R(t)/dt), so the delay follows the
current round trip. Clamps: W ∈ [1, max_window], q ∈ [0, B], p ∈ [0, 1]. When the queue is full and
the arrival rate N·W/R exceeds C, the excess is tail-dropped, a loss fraction 1 − C/(N·W/R) that the
flows see on top of the AQM's p (so a drop-tail or unstable loop keeps its saw-tooth).

The AQMs are *sampled* controllers, as in the real qdiscs: every ``t_update`` seconds (rounded up to
the integration grid; the mean period is exact) they read the instantaneous queue q, or the
queueing delay τ = q/C(t) (the departure rate of a busy link is C):

* ``pie`` (HPSR 2013 §III-B): p += f(p)·(α(τ − target) + β(τ − τ_old)), f from the auto-tune table
  (``hpsr``: ÷8 below 1 %, ÷2 below 10 %; also ``rfc8033``, ``ns``, ``none``). Burst allowance, the
  departure-rate estimator and the Linux/RFC extra heuristics are not modelled.
* ``pi`` (INFOCOM 2001 eq. (8)): p += a(q − q_ref) − b(q_old − q_ref) every 1/fs.
* ``pi2`` (spec aqm.md §4.4): p′ += α(τ − target) + β(τ − τ_old), p = p′².
* ``p`` (Proposition 1): p = min(p_max, gain·(q − q_min)) ≥ 0.
* ``red`` (Floyd–Jacobson; INFOCOM 2001 eq. (2)): the EWMA of q with weight w_q per packet is the
  low-pass filter with pole K = −ln(1 − w_q)·C, applied exactly over each sampling period
  (avg += (1 − e^(−K·T))(q − avg)); p = p_max·(avg − min_th)/(max_th − min_th) on [min_th, max_th],
  then 1 (or, with ``gentle``, p_max → 1 on [max_th, 2·max_th]).
* ``droptail``: p = 0; only the buffer drops.

One call integrates a batch of configurations of one AQM type; every numeric argument and AQM
parameter may be a scalar or an array of shape (batch,). This module validates and resolves the
arguments; the compiled integrator (crate ``fluid`` in the workspace, ``aqmlab._core``) does the
steps, each configuration on its own (one configuration × 100 s in milliseconds, where the numpy
integrator takes seconds). The numpy integrator stays as its reference
(``simulate(..., reference=True)``; the tests compare the two).
"""

from __future__ import annotations

import math
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import numpy as np
import pandas as pd

# Most delay-history entries (steps × configurations) an integration may hold: 8 bytes each
# per state variable, so a few hundred MB at most.
MAX_HISTORY = 50_000_000

from ._checks import require_positive, require_range
from .plant import AUTOTUNE_TABLES

# Parameters per AQM type with their defaults (units in the names' docs above).
AQM_DEFAULTS: dict[str, dict[str, float | str | bool]] = {
    # HPSR 2013 defaults (spec aqm.md §1.6).
    "pie": {"alpha": 0.125, "beta": 1.25, "t_update": 0.03, "target": 0.02, "autotune": "hpsr"},
    # INFOCOM 2001 §VI: a, b at 160 Hz; q_ref 175 is the design operating point of Example 1.
    "pi": {"a": 1.822e-5, "b": 1.816e-5, "fs": 160.0, "q_ref": 175.0},
    # RFC 9332 classic-queue defaults (spec aqm.md §4.4).
    "pi2": {"alpha": 0.16, "beta": 3.2, "t_update": 0.016, "target": 0.015},
    # INFOCOM 2001 Example 1 slope, from 0 at 100 packets (§IV).
    "p": {"gain": 5.8624e-5, "q_min": 100.0, "p_max": 1.0, "t_update": 0.001},
    # INFOCOM 2001 §IV "stable RED" (Example 2 of the RED paper).
    "red": {"min_th": 150.0, "max_th": 700.0, "p_max": 0.1, "w_q": 1.33e-6, "t_update": 0.001,
            "gentle": False},
    "droptail": {},
}

Schedule = Sequence[tuple[float, object]]


def _batch(name: str, value: object, size: int, *, positive: bool = True) -> np.ndarray:
    arr = np.asarray(value, dtype=float)
    if arr.ndim > 1 or (arr.ndim == 1 and arr.shape[0] not in (1, size)):
        raise ValueError(f"{name} must be a scalar or have shape ({size},), got shape {arr.shape}")
    arr = np.broadcast_to(arr, (size,)).astype(float)
    if not np.all(np.isfinite(arr)) or (positive and np.any(arr <= 0)) or np.any(arr < 0):
        bound = "> 0" if positive else ">= 0"
        raise ValueError(f"{name} must be finite and {bound}, got {value!r}")
    return arr


def _batch_size(values: Sequence[object]) -> int:
    sizes = {np.asarray(v).shape[0] for v in values if np.ndim(v) == 1}
    if len(sizes) > 1:
        raise ValueError(f"batched arguments disagree in length: {sorted(sizes)}")
    return sizes.pop() if sizes else 1


def _schedule(name: str, schedule: Schedule | None, size: int) -> list[tuple[float, np.ndarray]]:
    if schedule is None:
        return []
    out = []
    for entry in schedule:
        if len(entry) != 2:
            raise ValueError(f"{name} entries must be (time_s, value) pairs, got {entry!r}")
        t, v = entry
        out.append((require_range(f"{name} time", t, 0.0, math.inf), _batch(name, v, size)))
    return sorted(out, key=lambda e: e[0])


@dataclass(frozen=True)
class _Aqm:
    """Resolved AQM parameters as (batch,) arrays plus the options that are not numeric."""

    kind: str
    num: dict[str, np.ndarray]
    autotune: str
    gentle: bool

    @property
    def period(self) -> np.ndarray:
        return 1.0 / self.num["fs"] if self.kind == "pi" else self.num.get("t_update", np.array(math.inf))


def _resolve_aqm(kind: str, params: Mapping[str, object], size: int) -> _Aqm:
    if kind not in AQM_DEFAULTS:
        raise ValueError(f"aqm must be one of {sorted(AQM_DEFAULTS)}, got {kind!r}")
    defaults = AQM_DEFAULTS[kind]
    unknown = set(params) - set(defaults)
    if unknown:
        raise ValueError(f"unknown parameters for aqm {kind!r}: {sorted(unknown)}; "
                         f"accepted: {sorted(defaults)}")
    merged = {**defaults, **params}
    autotune = str(merged.pop("autotune", "none"))
    if autotune not in AUTOTUNE_TABLES:
        raise ValueError(f"autotune must be one of {sorted(AUTOTUNE_TABLES)}, got {autotune!r}")
    gentle = bool(merged.pop("gentle", False))
    non_negative = {"beta", "q_min", "q_ref", "min_th", "target", "b"}
    num = {k: _batch(k, v, size, positive=k not in non_negative) for k, v in merged.items()}
    if "p_max" in num and np.any(num["p_max"] > 1):
        raise ValueError(f"p_max must be in (0, 1], got {params.get('p_max')!r}")
    if "w_q" in num and np.any(num["w_q"] >= 1):
        raise ValueError(f"w_q must be in (0, 1), got {params.get('w_q')!r}")
    if kind == "red" and np.any(num["max_th"] <= num["min_th"]):
        raise ValueError("max_th must be > min_th (packets)")
    return _Aqm(kind, num, autotune, gentle)


def _autotune(p: np.ndarray, table: str) -> np.ndarray:
    factor = np.ones_like(p)
    for bound, f in reversed(AUTOTUNE_TABLES[table]):
        factor = np.where(p < bound, f, factor)
    return factor


def _red_profile(avg: np.ndarray, aqm: _Aqm) -> np.ndarray:
    lo, hi, pmax = aqm.num["min_th"], aqm.num["max_th"], aqm.num["p_max"]
    ramp = pmax * (avg - lo) / (hi - lo)
    above = pmax + (1 - pmax) * (avg - hi) / hi if aqm.gentle else np.ones_like(avg)
    return np.clip(np.where(avg < hi, ramp, above), 0.0, 1.0)


@dataclass(frozen=True)
class _Batch:
    """A validated batch, ready to integrate: (batch,) arrays, schedules, grid and history."""

    c: np.ndarray
    n: np.ndarray
    tp: np.ndarray
    b: np.ndarray
    w_max: np.ndarray
    c_events: list[tuple[float, np.ndarray]]
    n_events: list[tuple[float, np.ndarray]]
    ctl: _Aqm
    dt: float
    n_steps: int
    rec_stride: int
    hist_len: int

    @property
    def size(self) -> int:
        return len(self.c)


def simulate(*, capacity: object, n_flows: object, tp: object, buffer: object, t_end: float,
             aqm: str = "pie", aqm_params: Mapping[str, object] | None = None, dt: float = 1e-3,
             record_every: float = 0.01, max_window: object = 1e6,
             capacity_schedule: Schedule | None = None,
             flows_schedule: Schedule | None = None, reference: bool = False) -> dict[str, np.ndarray]:
    """Integrate a batch of fluid configurations from W = 1, q = 0, p = 0.

    capacity: C in packets/s; n_flows: N; tp: propagation round trip in s; buffer: B in packets;
    max_window: window cap in packets; each a scalar or an array of shape (batch,). t_end: seconds
    to simulate; dt: Euler step (s, at most tp/4); record_every: output sampling (s, ≥ dt).
    capacity_schedule / flows_schedule: (time_s, value) pairs that set C or N from that time on.
    reference: integrate with the numpy code of this module instead of the compiled integrator
    (crate ``fluid``, the same steps in the same order; the tests compare the two).

    Returns arrays of shape (n_records, batch) under "W", "q" (packets), "p" (the AQM's drop
    probability), "queue_delay" (q/C, s), "rtt" (s), "capacity" (packets/s), "n_flows", and
    "t" of shape (n_records,)."""
    scheduled = [v for sched in (capacity_schedule or [], flows_schedule or []) for _, v in sched]
    size = _batch_size([capacity, n_flows, tp, buffer, max_window, *scheduled,
                        *(aqm_params or {}).values()])
    c = _batch("capacity", capacity, size)
    tp_arr = _batch("tp", tp, size)
    b = _batch("buffer", buffer, size)
    require_positive("t_end", t_end, "s")
    require_range("dt", dt, 0.0, float(tp_arr.min()) / 4, low_open=True)
    require_range("record_every", record_every, dt, t_end)
    c_events = _schedule("capacity_schedule", capacity_schedule, size)
    c_min = np.minimum.reduce([c] + [v for _, v in c_events])
    hist_len = int(np.max(np.ceil((tp_arr + b / c_min) / dt))) + 2
    if hist_len * size > MAX_HISTORY:
        # The delayed state reaches back one round trip, the longest of which is tp plus a full
        # buffer drained at the lowest capacity: a tiny capacity makes that history huge.
        worst = float(np.max(tp_arr + b / c_min))
        raise ValueError(f"capacity: a round trip of up to {worst:.4g} s (tp + buffer / capacity) needs "
                         f"{hist_len * size:.3g} history steps of dt = {dt:g} s (limit {MAX_HISTORY:.0e}): "
                         "raise the capacity, lower the buffer or raise dt")
    batch = _Batch(
        c=c, n=_batch("n_flows", n_flows, size), tp=tp_arr, b=b, w_max=_batch("max_window", max_window, size),
        c_events=c_events, n_events=_schedule("flows_schedule", flows_schedule, size),
        ctl=_resolve_aqm(aqm, aqm_params or {}, size), dt=dt, n_steps=int(round(t_end / dt)),
        rec_stride=int(round(record_every / dt)), hist_len=hist_len)
    out = _integrate_numpy(batch) if reference else _integrate_compiled(batch)
    out["t"] = np.arange(batch.n_steps // batch.rec_stride + 1) * batch.rec_stride * dt
    return out


def _integrate_compiled(batch: _Batch) -> dict[str, np.ndarray]:
    from .. import _core

    ctl = batch.ctl
    params = {k: np.ascontiguousarray(v, dtype=float) for k, v in ctl.num.items()}
    series = _core.fluid_integrate(
        ctl.kind, params, [tuple(e) for e in AUTOTUNE_TABLES[ctl.autotune]], ctl.gentle, batch.c, batch.n,
        batch.tp, batch.b, batch.w_max, batch.c_events, batch.n_events, batch.dt, batch.n_steps,
        batch.rec_stride, batch.hist_len)
    # A row per configuration there (each thread fills whole rows); (records, batch) views here.
    return {k: v.T for k, v in series.items()}


def _integrate_numpy(batch: _Batch) -> dict[str, np.ndarray]:
    """The reference integrator: every configuration advanced together, one numpy step at a time."""
    c, n, tp_arr, b, w_max, ctl, dt, size = batch.c, batch.n, batch.tp, batch.b, batch.w_max, batch.ctl, batch.dt, batch.size
    c_events, n_events, hist_len, rec_stride = batch.c_events, batch.n_events, batch.hist_len, batch.rec_stride
    hist = np.zeros(hist_len * size)
    cols = np.arange(size)
    n_rec = batch.n_steps // rec_stride + 1
    out = {k: np.empty((n_rec, size)) for k in
           ("W", "q", "p", "queue_delay", "rtt", "capacity", "n_flows")}

    w = np.ones(size)
    q = np.zeros(size)
    p = np.zeros(size)            # applied AQM probability
    inner = np.zeros(size)        # PI² p′ / RED average
    prev = np.zeros(size)         # τ_old (PIE, PI²) or q_old (PI)
    period = np.broadcast_to(ctl.period, (size,))
    next_sample = np.array(period, dtype=float)
    ci = ni = 0
    for k in range(batch.n_steps + 1):
        t = k * dt
        while ci < len(c_events) and c_events[ci][0] <= t:
            c = c_events[ci][1]
            ci += 1
        while ni < len(n_events) and n_events[ni][0] <= t:
            n = n_events[ni][1]
            ni += 1
        if ctl.kind != "droptail":
            due = next_sample <= t + 1e-9
            if due.any():
                p, inner, prev = _sample(ctl, due, q, c, p, inner, prev)
                next_sample = np.where(due, next_sample + period, next_sample)
        rtt = q / c + tp_arr
        rate = n * w / rtt
        overflow = np.where((q >= b) & (rate > c), 1.0 - c / rate, 0.0)
        loss = 1.0 - (1.0 - p) * (1.0 - overflow)
        slot = k % hist_len
        hist[slot * size:(slot + 1) * size] = w * loss / rtt
        if k % rec_stride == 0:
            r = k // rec_stride
            for key, val in (("W", w), ("q", q), ("p", p), ("queue_delay", q / c), ("rtt", rtt),
                             ("capacity", c), ("n_flows", n)):
                out[key][r] = val
        lag = np.maximum((rtt / dt + 0.5).astype(np.int64), 1)
        delayed = np.take(hist, ((k - lag) % hist_len) * size + cols)
        w = np.clip(w + dt * (1.0 / rtt - 0.5 * w * delayed), 1.0, w_max)
        q = np.clip(q + dt * (rate - c), 0.0, b)
    return out


def _sample(ctl: _Aqm, due: np.ndarray, q: np.ndarray, c: np.ndarray, p: np.ndarray,
            inner: np.ndarray, prev: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """One controller update for the configurations where ``due``; returns (p, inner, prev)."""
    v = ctl.num
    if ctl.kind in ("pie", "pi2"):
        tau = q / c
        step = v["alpha"] * (tau - v["target"]) + v["beta"] * (tau - prev)
        if ctl.kind == "pie":
            new_p = np.clip(p + _autotune(p, ctl.autotune) * step, 0.0, 1.0)
            new_inner = inner
        else:
            new_inner = np.clip(inner + step, 0.0, 1.0)
            new_p = new_inner**2
        new_prev = tau
    elif ctl.kind == "pi":
        new_p = np.clip(p + v["a"] * (q - v["q_ref"]) - v["b"] * (prev - v["q_ref"]), 0.0, 1.0)
        new_inner, new_prev = inner, q
    elif ctl.kind == "p":
        new_p = np.clip(v["gain"] * (q - v["q_min"]), 0.0, v["p_max"])
        new_inner, new_prev = inner, prev
    else:
        # RED: exact low-pass over one period; K = −ln(1 − w_q)·C (per-packet sampling δ = 1/C).
        keep = np.exp(np.log1p(-v["w_q"]) * c * v["t_update"])
        new_inner = q + keep * (inner - q)
        new_p = _red_profile(new_inner, ctl)
        new_prev = prev
    return (np.where(due, new_p, p), np.where(due, new_inner, inner), np.where(due, new_prev, prev))


def _value(params: Mapping[str, object], key: str, default: float | None = None) -> float:
    """params[key] as a number > 0, or ``default`` when absent (required when default is None)."""
    if key not in params:
        if default is None:
            raise ValueError(f"fluid_run needs {key}")
        return default
    return require_positive(key, params[key])


def fluid_run(params: Mapping[str, object]) -> dict[str, np.ndarray]:
    """Run one fluid scenario given as a plain dict (the ``aqmlab fluid SCENARIO.toml`` entry).

    Accepted keys (units in the names):

    * ``capacity_bps`` (> 0) and ``packet_bytes`` (> 0, default 1500): C = capacity_bps/(8·packet_bytes)
      packets/s;
    * ``n_flows`` (> 0);
    * ``rtt_s`` (base round trip, > 0) or ``tp_s`` (same meaning: propagation round trip Tp);
    * ``buffer_packets`` (> 0);
    * ``t_end_s`` (> 0);
    * ``aqm``: {``type``: one of pie, pi, pi2, p, red, droptail, and that type's parameters, see
      ``AQM_DEFAULTS``: pie alpha, beta, t_update, target (s), autotune; pi a, b, fs, q_ref;
      pi2 alpha, beta, t_update, target; p gain, q_min, p_max, t_update; red min_th, max_th, p_max,
      w_q, t_update, gentle};
    * optional ``capacity_schedule_bps``: [(t_s, capacity_bps), ...] and
      ``flows_schedule``: [(t_s, n_flows), ...], each value in force from its time on;
    * optional ``dt_s`` (default 1 ms), ``record_every_s`` (default 10 ms),
      ``max_window_packets`` (default 1e6).

    Returns 1-D numpy arrays: t, W, q, p, queue_delay, rtt, capacity (packets/s), n_flows."""
    known = {"capacity_bps", "packet_bytes", "n_flows", "rtt_s", "tp_s", "buffer_packets", "t_end_s",
             "aqm", "capacity_schedule_bps", "flows_schedule", "dt_s", "record_every_s",
             "max_window_packets"}
    unknown = set(params) - known
    if unknown:
        raise ValueError(f"unknown fluid_run keys {sorted(unknown)}; accepted: {sorted(known)}")
    if ("rtt_s" in params) == ("tp_s" in params):
        raise ValueError("fluid_run needs exactly one of rtt_s or tp_s (propagation round trip, s)")
    pkt_bits = 8.0 * _value(params, "packet_bytes", 1500.0)
    aqm_spec = dict(params.get("aqm", {"type": "droptail"}))
    if "type" not in aqm_spec:
        raise ValueError(f"aqm needs a 'type', one of {sorted(AQM_DEFAULTS)}")
    kind = str(aqm_spec.pop("type"))
    cap_sched = params.get("capacity_schedule_bps")
    result = simulate(
        capacity=_value(params, "capacity_bps") / pkt_bits,
        n_flows=_value(params, "n_flows"),
        tp=_value(params, "rtt_s" if "rtt_s" in params else "tp_s"),
        buffer=_value(params, "buffer_packets"),
        t_end=_value(params, "t_end_s"),
        aqm=kind,
        aqm_params=aqm_spec,
        dt=_value(params, "dt_s", 1e-3),
        record_every=_value(params, "record_every_s", 0.01),
        max_window=_value(params, "max_window_packets", 1e6),
        capacity_schedule=None if cap_sched is None else
        [(t, float(v) / pkt_bits) for t, v in cap_sched],
        flows_schedule=params.get("flows_schedule"),
    )
    return {k: (v if v.ndim == 1 else v[:, 0]) for k, v in result.items()}


def to_dataframe(series: Mapping[str, np.ndarray], config: int = 0) -> pd.DataFrame:
    """One configuration's time series (from :func:`simulate` or :func:`fluid_run`) as a DataFrame
    indexed by time in seconds."""
    t = series["t"]
    cols = {}
    for key, val in series.items():
        if key == "t":
            continue
        if val.ndim == 2 and not 0 <= config < val.shape[1]:
            raise ValueError(f"config must be in [0, {val.shape[1] - 1}], got {config}")
        cols[key] = val if val.ndim == 1 else val[:, config]
    return pd.DataFrame(cols, index=pd.Index(t, name="t_s"))


def bench_fluid(n_configs: int = 10000, t_end: float = 100.0) -> float:
    """Configurations × simulated seconds per wall-clock second for a PIE batch (HPSR defaults,
    10 Mb/s of 1000 B packets, 100 ms, N spread over 5 … 100 flows, 1 ms steps, 100 ms records)."""
    if n_configs < 1:
        raise ValueError(f"n_configs must be >= 1, got {n_configs}")
    require_positive("t_end", t_end, "s")
    start = time.perf_counter()
    simulate(capacity=1250.0, n_flows=np.linspace(5, 100, n_configs), tp=0.1, buffer=1000.0,
             t_end=t_end, aqm="pie", record_every=min(0.1, t_end))
    return n_configs * t_end / (time.perf_counter() - start)


if __name__ == "__main__":
    print(f"{bench_fluid():.0f} configuration-seconds per second")
