"""The catalog's vocabulary: papers, experiments, expectations (bands) and verdicts.

See the package docstring (:mod:`aqmlab.catalog`) for how the pieces fit together.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

REPRODUCED = "reproduced"
DEVIATES = "deviates"
INDICATIVE = "indicative"
MISSING = "missing"
VERDICTS = (REPRODUCED, DEVIATES, INDICATIVE, MISSING)


@dataclass(frozen=True)
class Paper:
    """A publication the catalog reproduces.

    ``not_modelled`` lists, as (claim, reason) pairs, the results of the paper that the toolkit
    cannot model at all; the report prints them so a reader sees what is missing and why."""

    key: str
    title: str
    citation: str
    not_modelled: tuple[tuple[str, str], ...] = ()


@dataclass(frozen=True)
class Expectation:
    """One reported value or claim of the paper, with the band we accept and why.

    ``metric`` names a number of the experiment's :class:`Analysis`; the claim holds when
    ``lo <= value <= hi`` (either bound may be None). ``paper`` is the paper's own number when it
    prints one (deviations are then also given relative to it). Values are shown multiplied by
    ``scale`` with ``unit`` (e.g. scale 1e3, unit "ms" for a delay kept in seconds).

    ``asserted_quick``: the claim must also hold in the shortened (``--quick``) runs, so the test
    suite asserts it; otherwise a quick verdict is only *indicative*."""

    metric: str
    claim: str
    source: str
    reason: str
    lo: float | None = None
    hi: float | None = None
    paper: float | None = None
    unit: str = ""
    scale: float = 1.0
    asserted_quick: bool = False

    def __post_init__(self) -> None:
        if self.lo is None and self.hi is None:
            raise ValueError(f"expectation on {self.metric!r} needs a lower or an upper bound")
        if self.lo is not None and self.hi is not None and self.lo > self.hi:
            raise ValueError(f"expectation on {self.metric!r}: lo {self.lo} > hi {self.hi}")
        if not self.reason.strip() or not self.source.strip() or not self.claim.strip():
            raise ValueError(f"expectation on {self.metric!r} needs a claim, a source and a reason")

    def band_text(self) -> str:
        """The band in display units, e.g. "[12, 30] ms" or "≥ 0.95"."""
        lo, hi = (None if b is None else _fmt(b * self.scale) for b in (self.lo, self.hi))
        unit = f" {self.unit}" if self.unit else ""
        if lo is not None and hi is not None:
            return f"[{lo}, {hi}]{unit}"
        return f"≥ {lo}{unit}" if lo is not None else f"≤ {hi}{unit}"

    def judge(self, metrics: Mapping[str, float], quick: bool) -> Check:
        """The verdict on this claim given the experiment's metrics."""
        value = metrics.get(self.metric)
        if value is None or not math.isfinite(value):
            return Check(self, value, MISSING, "the metric could not be computed")
        below = self.lo is not None and value < self.lo
        above = self.hi is not None and value > self.hi
        if not (below or above):
            verdict = REPRODUCED
            detail = "inside the band"
        else:
            verdict = DEVIATES
            edge = self.lo if below else self.hi
            assert edge is not None  # outside the band on a side that has a bound
            gap = abs(value - edge) * self.scale
            detail = f"{_fmt(gap)}{' ' + self.unit if self.unit else ''} {'below' if below else 'above'} the band"
        if self.paper is not None and self.paper != 0:
            detail += f"; {100 * (value / self.paper - 1):+.0f} % from the paper's {_fmt(self.paper * self.scale)}"
        if quick and not self.asserted_quick:
            return Check(self, value, INDICATIVE, f"{detail} (shortened run: indicative only)")
        return Check(self, value, verdict, detail)


@dataclass(frozen=True)
class Check:
    """The verdict on one :class:`Expectation`."""

    expectation: Expectation
    value: float | None
    verdict: str
    detail: str

    def value_text(self) -> str:
        e = self.expectation
        if self.value is None or not math.isfinite(self.value):
            return "n/a"
        return f"{_fmt(self.value * e.scale)}{' ' + e.unit if e.unit else ''}"


@dataclass
class Analysis:
    """What an experiment's ``analyse`` returns: named numbers, figures and optional text.

    ``figures``: (caption, matplotlib Figure) pairs, turned into PNGs by the runner."""

    metrics: dict[str, float]
    figures: list[tuple[str, Any]] = field(default_factory=list)
    text: str = ""


ScenarioBuilder = Callable[[bool], dict[str, dict[str, Any]]]
Analyser = Callable[[Mapping[str, Any], bool], Analysis]


@dataclass(frozen=True)
class Experiment:
    """One figure (or section) of a paper, reproduced.

    - ``scenarios(quick)`` returns {label: scenario dict (or :class:`aqmlab.Scenario`)}; each is
      run with :func:`aqmlab.run`
      (a fixed seed in every dict makes the run deterministic). May be empty for experiments
      that only use the analysis modules.
    - ``analyse(results, quick)`` receives {label: :class:`~aqmlab.result.Result`} and returns an
      :class:`Analysis` whose metrics the ``expectations`` judge.
    - ``statement``: what the paper reports for this figure, in our own words.
    - ``notes``: how our setup differs from the paper's and why (assumptions, TCP variant, ...).
    - ``quick_shortens``: False when the quick variant computes the same metrics (e.g. analysis
      only, with coarser plots): its verdicts are then final, never merely indicative."""

    id: str
    title: str
    paper: Paper
    figure: str
    statement: str
    scenarios: ScenarioBuilder
    analyse: Analyser
    expectations: tuple[Expectation, ...]
    notes: tuple[str, ...] = ()
    quick_shortens: bool = True

    def __post_init__(self) -> None:
        if not self.expectations:
            raise ValueError(f"experiment {self.id} has no expectations")

    def judge(self, metrics: Mapping[str, float], quick: bool) -> list[Check]:
        return [e.judge(metrics, quick and self.quick_shortens) for e in self.expectations]


def overall(checks: list[Check]) -> str:
    """One word for an experiment: deviates if any claim deviates or is missing, indicative if
    some claims were only indicative, else reproduced."""
    verdicts = {c.verdict for c in checks}
    if verdicts & {DEVIATES, MISSING}:
        return DEVIATES
    return INDICATIVE if INDICATIVE in verdicts else REPRODUCED


def _fmt(x: float) -> str:
    if x == 0:
        return "0"
    if abs(x) >= 100:
        return f"{x:.0f}"
    return f"{x:.3g}"
