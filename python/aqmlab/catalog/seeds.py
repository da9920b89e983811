"""The seed rule and the null-control rule: how one claim's values over several seeds (and over
the same scenarios with the AQM switched off) become one verdict.

A claim is *robust* over n seeds when
  1. the one-sided 95 % confidence bounds of the mean lie inside the band (the lower bound above
     ``lo``, the upper bound below ``hi``; with both bounds this is the two one-sided tests of an
     equivalence claim, "X is about Y", at 5 % each), and
  2. at least 80 % of the seeds (4 of 5) lie inside the band on their own,
so that neither one lucky seed nor a mean carried by one outlier makes a verdict.

A claim about an AQM is *not discriminating* when its null control (the same scenarios with
every AQM replaced by a DropTail queue of the same limit, :mod:`aqmlab.catalog.null`) also meets
it: the mean of the null control's seeds inside the band. The point estimate, not the bounds,
is used there on purpose: a claim the AQM-less queue meets on average does not test the AQM,
whatever its spread.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

# Student's t, one-sided 95 % quantile, by degrees of freedom (n - 1 seeds); beyond the table the
# normal quantile 1.645 is close enough for a band check.
_T95 = {1: 6.314, 2: 2.920, 3: 2.353, 4: 2.132, 5: 2.015, 6: 1.943, 7: 1.895, 8: 1.860, 9: 1.833}
MIN_SHARE = 0.8  # of the seeds that must lie inside the band


@dataclass(frozen=True)
class SeedStats:
    """One claim's values over the seeds, against its band ``[lo, hi]`` (either may be None).

    Non-finite values: NaN (the metric could not be computed for that seed) counts as a seed
    outside the band and is left out of the mean; ±inf (e.g. "never settles") enters the mean,
    which is then infinite with both bounds equal to it."""

    values: tuple[float, ...]
    lo: float | None
    hi: float | None

    @property
    def n(self) -> int:
        return len(self.values)

    @property
    def usable(self) -> tuple[float, ...]:
        return tuple(v for v in self.values if not math.isnan(v))

    @property
    def mean(self) -> float:
        u = self.usable
        return math.fsum(u) / len(u) if u else math.nan

    def bounds(self) -> tuple[float, float]:
        """The one-sided 95 % lower and upper confidence bounds of the mean."""
        u, m = self.usable, self.mean
        if len(u) < 2 or not math.isfinite(m):
            return m, m
        sd = math.sqrt(math.fsum((v - m) ** 2 for v in u) / (len(u) - 1))
        half = _T95.get(len(u) - 1, 1.645) * sd / math.sqrt(len(u))
        return m - half, m + half

    def inside(self, v: float) -> bool:
        return (not math.isnan(v) and (self.lo is None or v >= self.lo)
                and (self.hi is None or v <= self.hi))

    @property
    def passing(self) -> int:
        """How many seeds lie inside the band."""
        return sum(self.inside(v) for v in self.values)

    def robust(self) -> bool:
        """Rule 1 and rule 2 of the module docstring."""
        lower, upper = self.bounds()
        if math.isnan(lower) or math.isnan(upper):
            return False
        bounds_in = (self.lo is None or lower >= self.lo) and (self.hi is None or upper <= self.hi)
        return bounds_in and self.passing >= math.ceil(MIN_SHARE * self.n - 1e-9)

    def mean_inside(self) -> bool:
        """The null-control rule: the mean of the seeds inside the band."""
        return self.inside(self.mean)


def stats(values: Sequence[float | None], lo: float | None, hi: float | None) -> SeedStats:
    return SeedStats(tuple(math.nan if v is None else float(v) for v in values), lo, hi)
