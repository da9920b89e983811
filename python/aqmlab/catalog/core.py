"""The catalog's vocabulary: papers, experiments, expectations (bands) and verdicts.

See the package docstring (:mod:`aqmlab.catalog`) for how the pieces fit together.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from .seeds import SeedStats, stats

REPRODUCED = "reproduced"
DEVIATES = "deviates"
NOT_DISCRIMINATING = "not discriminating"
MISSING = "missing"
VERDICTS = (REPRODUCED, DEVIATES, NOT_DISCRIMINATING, MISSING)

# How a claim stands against its null control (Check.null_state).
NULL_JUDGED = "judged"            # the null control's value was computed and judged
NULL_EXEMPT = "exempt"            # the claim is not about the AQM (Expectation.null False)
NULL_IMPOSSIBLE = "impossible"    # about an AQM variable a DropTail queue does not have (no_null)
NULL_UNAVAILABLE = "unavailable"  # null runs exist but gave no value, and no reason was declared
NULL_NONE = "none"                # the experiment has no null-control runs


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

    The claim is judged over seeds and against a null control (:mod:`aqmlab.catalog.seeds`);
    ``null=False`` exempts a claim that is not about the AQM (say why in ``reason``); ``no_null``
    says why a claim about the AQM cannot be judged on the null control at all (it reads a
    variable of the AQM, e.g. its drop probability, that a DropTail queue does not have): the
    claim is then labelled so in the report instead of being silently left unchecked. What verdict
    each claim is expected to get lives in :mod:`aqmlab.catalog.expected`, with its reason."""

    metric: str
    claim: str
    source: str
    reason: str
    lo: float | None = None
    hi: float | None = None
    paper: float | None = None
    unit: str = ""
    scale: float = 1.0
    null: bool = True
    no_null: str = ""

    def __post_init__(self) -> None:
        if self.lo is None and self.hi is None:
            raise ValueError(f"expectation on {self.metric!r} needs a lower or an upper bound")
        if self.lo is not None and self.hi is not None and self.lo > self.hi:
            raise ValueError(f"expectation on {self.metric!r}: lo {self.lo} > hi {self.hi}")
        if not self.reason.strip() or not self.source.strip() or not self.claim.strip():
            raise ValueError(f"expectation on {self.metric!r} needs a claim, a source and a reason")

    def band_text(self) -> str:
        """The band in display units, e.g. "[12, 30] ms" or "≥ 0.95", each bound with the digits it
        needs (a band of 0.999 is not printed as 1)."""
        lo, hi = (None if b is None else _fmt_exact(b * self.scale) for b in (self.lo, self.hi))
        unit = f" {self.unit}" if self.unit else ""
        if lo is not None and hi is not None:
            return f"[{lo}, {hi}]{unit}"
        return f"≥ {lo}{unit}" if lo is not None else f"≤ {hi}{unit}"

    def judge(self, seeds: Sequence[Mapping[str, float]],
              null: Sequence[Mapping[str, float]] = ()) -> Check:
        """The verdict on this claim from the metrics of each seed's run and of each null-control
        run (none: the experiment has no null control)."""
        st = stats([m.get(self.metric) for m in seeds], self.lo, self.hi)
        state = self.null_state(null)
        nl = stats([m.get(self.metric) for m in null], self.lo, self.hi) if state == NULL_JUDGED else None
        value = st.mean
        if not st.usable:
            return Check(self, value, MISSING, "the metric could not be computed", st, nl, state)
        lower, upper = st.bounds()
        u = f" {self.unit}" if self.unit else ""
        detail = f"{st.passing}/{st.n} seeds in the band"
        if st.n > 1:
            detail += f"; mean's 95 % bounds [{_fmt(lower * self.scale)}, {_fmt(upper * self.scale)}]{u}"
        if st.robust():
            verdict = REPRODUCED
        else:
            verdict = DEVIATES
            below = self.lo is not None and value < self.lo
            above = self.hi is not None and value > self.hi
            if below or above:
                edge = self.lo if below else self.hi
                assert edge is not None  # outside the band on a side that has a bound
                detail += f"; mean {_fmt(abs(value - edge) * self.scale)}{u} {'below' if below else 'above'} the band"
            else:
                detail += "; mean inside the band but not robustly"
        if self.paper is not None and self.paper != 0 and math.isfinite(value):
            detail += f"; {100 * (value / self.paper - 1):+.0f} % from the paper's {_fmt(self.paper * self.scale)}"
        if nl is not None:
            if nl.mean_inside():
                detail += f"; the null control (AQM off) also meets it: mean {_fmt(nl.mean * self.scale)}{u}"
                if verdict == REPRODUCED:
                    verdict = NOT_DISCRIMINATING
            else:
                detail += f"; null control (AQM off) fails it: mean {_fmt(nl.mean * self.scale)}{u}"
        elif state == NULL_IMPOSSIBLE:
            detail += f"; no null control possible: {self.no_null}"
        elif state == NULL_UNAVAILABLE:
            detail += "; the null control gave no value for this metric (not judged there)"
        return Check(self, value, verdict, detail, st, nl, state)

    def null_state(self, null: Sequence[Mapping[str, float]]) -> str:
        """How this claim stands against the given null-control runs (the NULL_* constants)."""
        if not null:
            return NULL_NONE
        if not self.null:
            return NULL_EXEMPT
        if self.no_null:
            return NULL_IMPOSSIBLE
        values = [m.get(self.metric) for m in null]
        return NULL_JUDGED if any(v is not None and not math.isnan(v) for v in values) else NULL_UNAVAILABLE


@dataclass(frozen=True)
class Check:
    """The verdict on one :class:`Expectation`."""

    expectation: Expectation
    value: float | None
    verdict: str
    detail: str
    seeds: SeedStats | None = None
    null: SeedStats | None = None
    null_state: str = NULL_NONE

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
      only, with coarser plots).
    - ``null_control``: False for an experiment whose scenarios have no AQM to switch off (say
      why in ``notes``); otherwise every scenario is also run with DropTail in place of the AQM.
    - ``null_only``: label prefixes of the scenarios the null control switches off (empty: all).
      For an experiment whose every claim compares an AQM under test with a reference AQM ("PI²
      no worse than PIE"), only the one under test is replaced: replacing both gives a ratio of
      1 by construction, which tests neither.
    - ``deterministic``: the scenarios draw no random numbers (fixed starts, CBR sources, an AQM
      that drops by threshold), so every seed gives the same run; one seed and one null-control
      run are judged, and the test suite checks that a second seed changes nothing."""

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
    null_control: bool = True
    null_only: tuple[str, ...] = ()
    deterministic: bool = False

    def __post_init__(self) -> None:
        if not self.expectations:
            raise ValueError(f"experiment {self.id} has no expectations")

    def judge(self, seeds: Sequence[Mapping[str, float]],
              null: Sequence[Mapping[str, float]] = ()) -> list[Check]:
        return [e.judge(seeds, null) for e in self.expectations]

    def nulled(self, label: str) -> bool:
        """Whether the null control switches off the AQM of the scenario ``label``."""
        return not self.null_only or label.startswith(self.null_only)


def overall(checks: list[Check]) -> str:
    """One word for an experiment: deviates if any claim deviates or is missing, not
    discriminating if some claims also hold without the AQM, else reproduced."""
    verdicts = {c.verdict for c in checks}
    if verdicts & {DEVIATES, MISSING}:
        return DEVIATES
    return NOT_DISCRIMINATING if NOT_DISCRIMINATING in verdicts else REPRODUCED


def _fmt_exact(x: float) -> str:
    """x with as few significant digits as represent it (3 to 6), without exponent notation."""
    for digits in range(3, 7):
        text = f"{x:.{digits}g}"
        if math.isclose(float(text), x, rel_tol=1e-9):
            break
    if "e" in text:
        text = f"{float(text):.12f}".rstrip("0").rstrip(".")
    return text


def _fmt(x: float) -> str:
    if x == 0:
        return "0"
    if abs(x) >= 100:
        return f"{x:.0f}"
    return f"{x:.3g}"
