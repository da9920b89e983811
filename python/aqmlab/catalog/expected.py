"""The verdict every claim of the catalog is expected to get, with the reason wherever it is not
*reproduced*. The test suite runs the catalog in quick mode and checks every claim against this
table in both directions, so a regression and a fix alike fail until the entry is updated here,
with its reason.

``QUICK`` holds the verdicts of the quick runs (5 seeds, 2 null-control seeds, shortened
scenarios), established by ``aqmlab reproduce --all --quick``; a claim not listed is expected
to be reproduced. ``FULL`` holds the full-length verdicts (``aqmlab reproduce --all``) where
they have been established and differ from reproduced; the full catalog is not part of the test
suite (see the README), so ``FULL`` is documentation, shown in the report next to the verdict.
"""

from __future__ import annotations

from .core import DEVIATES, NOT_DISCRIMINATING, REPRODUCED

ND, DEV = NOT_DISCRIMINATING, DEVIATES

# (experiment id, metric): (verdict, reason)
QUICK: dict[tuple[str, str], tuple[str, str]] = {
}

FULL: dict[tuple[str, str], tuple[str, str]] = {}


def verdict(exp_id: str, metric: str, quick: bool) -> tuple[str, str]:
    """(expected verdict, reason) of one claim; for full-length runs (verdict, "") is returned
    as (REPRODUCED, "") only when nothing else is recorded."""
    table = QUICK if quick else FULL
    return table.get((exp_id, metric), (REPRODUCED, ""))
