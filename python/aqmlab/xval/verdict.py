"""The verdict: each metric, aqmlab against ns-3 over the seeds, inside or outside its band.

band = max(3 × combined standard error, floor), with the combined standard error
sqrt(s_a²/n_a + s_b²/n_b) of the two means (seed-to-seed spread), and a floor per metric that
stands for the model error accepted in advance (both simulators are deterministic per seed but
not event-for-event alike: same-instant event order, the ns-3 device and TCP bookkeeping). The
floors were fixed before any comparison was run; a metric outside its band is reported as a
difference, never re-banded.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

# (absolute floor, relative floor of the larger |mean|): the floor is the larger of the two.
FLOORS: dict[str, tuple[float, float]] = {
    "throughput_mbps": (0.0, 0.02),     # the link is either full or not: 2 %
    "jain": (0.02, 0.0),
    "goodput_mbps": (0.0, 0.05),        # a group's mean goodput: 5 %
    "sojourn_mean_ms": (0.5, 0.10),     # 0.5 ms: a packet time at 10 Mb/s is 0.8 ms
    "sojourn_p50_ms": (0.5, 0.10),
    "sojourn_p95_ms": (0.5, 0.15),
    "sojourn_p99_ms": (0.5, 0.15),
    "sojourn_max_ms": (1.0, 0.25),      # one extreme sample
    "drops_early": (5.0, 0.20),         # counts: 20 % or 5 packets
    "drops_dequeue": (5.0, 0.20),
    "drops_limit": (5.0, 0.20),
    "drops_other": (0.0, 0.0),          # ns-3 reasons not classified: must be absent
    "marks": (5.0, 0.20),
    "drop_fraction": (0.001, 0.20),
    "retransmits": (5.0, 0.20),
    "timeouts": (2.0, 0.25),            # rare events
}


def floor_of(metric: str, a: float, b: float) -> float:
    base = metric.split("[")[0]
    abs_f, rel_f = FLOORS[base]
    return max(abs_f, rel_f * max(abs(a), abs(b)))


@dataclass
class Row:
    metric: str
    ours_mean: float
    ours_std: float
    ns3_mean: float
    ns3_std: float
    diff: float
    band: float
    floor: float
    agree: bool

    def as_dict(self) -> dict[str, object]:
        return {k: (None if isinstance(v, float) and math.isnan(v) else v) for k, v in self.__dict__.items()}


def _stats(x: list[float]) -> tuple[float, float, float]:
    a = np.asarray(x, dtype=float)
    n = len(a)
    std = float(a.std(ddof=1)) if n > 1 else 0.0
    return float(a.mean()), std, std / math.sqrt(n) if n else float("nan")


def compare(ours: list[dict[str, float]], ns3: list[dict[str, float]]) -> list[Row]:
    """One row per metric present on either side (a metric missing on one side is a difference)."""
    names = list(dict.fromkeys([*ns3[0], *ours[0]]))
    rows = []
    for m in names:
        a = [r.get(m, float("nan")) for r in ours]
        b = [r.get(m, float("nan")) for r in ns3]
        (ma, sa, ea), (mb, sb, eb) = _stats(a), _stats(b)
        floor = floor_of(m, ma, mb)
        band = max(3 * math.hypot(ea, eb), floor)
        d = ma - mb
        both_nan = math.isnan(ma) and math.isnan(mb)
        rows.append(Row(m, ma, sa, mb, sb, d, band, floor, both_nan or (not math.isnan(d) and abs(d) <= band)))
    return rows
