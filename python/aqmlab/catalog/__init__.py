"""The experiment catalog: published AQM figures rebuilt as aqmlab runs, judged against the paper.

Command line: ``aqmlab reproduce --list | ID ... | --all [--quick] [-o OUTDIR] [-j N]``
(:mod:`aqmlab.catalog.cli`). Python::

    from aqmlab import catalog
    [e.id for e in catalog.experiments()]
    out = catalog.run_experiment("pie13-fig7", quick=True)      # an Outcome
    out.verdict, out.metrics, [(c.expectation.metric, c.verdict) for c in out.checks]
    catalog.write_report([(catalog.get(out.id), out)], "out/reproduce")

Vocabulary (:mod:`aqmlab.catalog.core`)
-----------------------------------------
- :class:`Paper` (key, title, citation, ``not_modelled``: (claim, reason) pairs for results the
  toolkit cannot model at all; the report lists them).
- :class:`Experiment`: ``id`` (``<paper-key>-<figure>``, e.g. ``pie13-fig7``), ``title``,
  ``paper``, ``figure`` (e.g. "Fig. 7, §IV-A.5"), ``statement`` (what the paper reports, in our
  own words), ``scenarios(quick) -> {label: scenario dict}`` (the dicts of
  :meth:`aqmlab.Scenario.from_dict`, each with a fixed seed; ``quick=True`` gives shortened
  variants for the tests), ``analyse(results, quick) -> Analysis`` (``results`` maps each label to
  its :class:`aqmlab.Result`), ``expectations`` and ``notes`` (how our setup differs from the
  paper's and why).
- :class:`Analysis`: ``metrics`` {name: float}, ``figures`` [(caption, matplotlib Figure)] styled
  like the paper's figure, optional ``text``.
- :class:`Expectation`: one claim of the paper: ``metric``, ``claim`` (our words), ``source``
  (figure/section), ``lo``/``hi`` (the band; one may be None), ``paper`` (the paper's number when
  it prints one), ``reason`` (why this band), ``unit``/``scale`` for display, ``null`` (False for
  a claim not about the AQM). Comparative claims ("PIE below RED after the drop") are ordinary
  metrics such as a ratio with a band like ``hi=0.5``.
- :class:`Check`: the verdict on one expectation, judged over seeds and against a null control
  (:mod:`aqmlab.catalog.seeds` states the rules): ``reproduced`` (the one-sided 95 % bounds of
  the mean inside the band and 4 of 5 seeds inside), ``deviates`` (with by how much, and relative
  to the paper's number), ``not discriminating`` (it holds, but also with every AQM replaced by
  DropTail of the same buffer, :mod:`aqmlab.catalog.null`) or ``missing`` (metric not computed).
- :mod:`aqmlab.catalog.expected`: the verdict each claim is expected to get, with the reason
  wherever it is not reproduced; the test suite checks every claim against it.

Running (:mod:`aqmlab.catalog.runner`): :func:`run_experiment` (one, in-process) and
:func:`run_experiments` (a list, ``jobs`` processes; results do not depend on the schedule)
return :class:`Outcome` objects (metrics, checks, PNG figures, resolved scenario TOML, wall
time, aqmlab version). :func:`write_report` writes ``report.html`` (self-contained: images as
data URIs) and ``results.json``.

Adding a paper
--------------
1. Create ``aqmlab/catalog/<paper>.py``: a :class:`Paper`, scenario builders (plain dicts; reuse
   :mod:`aqmlab.catalog.metrics` and :mod:`aqmlab.catalog.plotting` for windowed means, settling
   times, CDF fractions and paper-style plots), analysers, and ``registry.add(Experiment(...), ...)``
   at module level. Paper numbers belong in that module, each with its figure/section.
2. Append the module name to ``PAPER_MODULES`` in :mod:`aqmlab.catalog.registry`.
3. Tests: ``tests/catalog`` runs every registered experiment in quick mode (5 seeds, 2 null
   seeds) and checks every claim's verdict against :mod:`aqmlab.catalog.expected`; keep each
   quick variant to a few seconds, since it runs seven times.
"""

from typing import TYPE_CHECKING

from .._lazy import exports

_MODULES = {
    "core": ["DEVIATES", "MISSING", "NOT_DISCRIMINATING", "REPRODUCED", "Analysis", "Check", "Expectation",
             "Experiment", "Paper", "overall"],
    "registry": ["add", "experiments", "get", "select"],
    "runner": ["Outcome", "run_experiment", "run_experiments"],
}
_TABLE = {name: module for module, names in _MODULES.items() for name in names}
# Imported on first use: registering `aqmlab reproduce` must not import numpy, pandas and every
# paper's module (issue 22).
__getattr__, __dir__ = exports(__name__, {**_TABLE, "write_report": "report:write"})

if TYPE_CHECKING:
    from .core import (
        DEVIATES,
        MISSING,
        NOT_DISCRIMINATING,
        REPRODUCED,
        Analysis,
        Check,
        Expectation,
        Experiment,
        Paper,
        overall,
    )
    from .registry import add, experiments, get, select
    from .report import write as write_report
    from .runner import Outcome, run_experiment, run_experiments

__all__ = [
    "DEVIATES", "MISSING", "NOT_DISCRIMINATING", "REPRODUCED", "Analysis", "Check", "Expectation",
    "Experiment", "Outcome", "Paper", "add", "experiments", "get", "overall", "run_experiment",
    "run_experiments", "select", "write_report",
]
