"""Running experiments: their scenarios through :func:`aqmlab.run`, then their analysis and
verdicts; serially or in a pool of processes (one run of one seed per task). Every scenario
carries its seed, so a run gives the same numbers whichever way it is scheduled.

Each experiment runs :data:`SEEDS` seeds, and its null control (every AQM replaced by DropTail,
:mod:`aqmlab.catalog.null`) :data:`NULL_SEEDS` (:data:`QUICK_NULL_SEEDS` in quick mode); the
verdict rules are those of :mod:`aqmlab.catalog.seeds`."""

from __future__ import annotations

import io
import math
import multiprocessing
import time
from collections.abc import Callable, Sequence
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass, field, replace
from typing import Any

from .core import NULL_UNAVAILABLE, Check, Experiment, overall
from .registry import get


SEEDS = 5        # runs per scenario, seeds base, base + 1, ... (base: the scenario's own seed)
NULL_SEEDS = 5   # runs of the null control (full length)
QUICK_NULL_SEEDS = 2  # ... in quick mode, to keep the test suite's cost in check


@dataclass
class Outcome:
    """An experiment's result: the metrics of its first seed (those of the figures), the metrics
    of every seed and of every null-control run, the verdicts, PNG figures and resolved scenarios."""

    id: str
    quick: bool
    metrics: dict[str, float]
    checks: list[Check]
    figures: list[tuple[str, bytes]] = field(repr=False)
    scenarios_toml: dict[str, str] = field(repr=False)
    text: str
    wall_s: float
    aqmlab_version: str
    seed_metrics: list[dict[str, float]] = field(default_factory=list, repr=False)
    null_metrics: list[dict[str, float]] = field(default_factory=list, repr=False)
    null_error: str = ""

    @property
    def verdict(self) -> str:
        return overall(self.checks)

    def to_json(self) -> dict[str, Any]:
        """Everything but the images, for results.json (non-finite numbers become null)."""
        return {
            "id": self.id, "quick": self.quick, "verdict": self.verdict, "wall_s": self.wall_s,
            "aqmlab_version": self.aqmlab_version, "metrics": _finite_map(self.metrics),
            "seed_metrics": [_finite_map(m) for m in self.seed_metrics],
            "null_metrics": [_finite_map(m) for m in self.null_metrics], "null_error": self.null_error,
            "checks": [{"metric": c.expectation.metric, "claim": c.expectation.claim,
                        "source": c.expectation.source, "band": c.expectation.band_text(),
                        "value": _finite(c.value), "verdict": c.verdict, "detail": c.detail,
                        "seeds_in_band": c.seeds.passing if c.seeds else None,
                        "seeds": c.seeds.n if c.seeds else None, "null_control": c.null_state}
                       for c in self.checks],
            "scenarios": self.scenarios_toml,
        }


def _finite(x: float | None) -> float | None:
    return x if x is not None and math.isfinite(x) else None


def _finite_map(m: dict[str, float]) -> dict[str, float | None]:
    return {k: _finite(v) for k, v in m.items()}


def _png(fig: Any) -> bytes:
    import matplotlib.pyplot as plt

    buf = io.BytesIO()
    fig.savefig(buf, format="png", dpi=100)
    plt.close(fig)
    return buf.getvalue()


def _close(fig: Any) -> None:
    import matplotlib.pyplot as plt

    plt.close(fig)


@dataclass(frozen=True)
class Task:
    """One analysed run of an experiment: seed offset ``k`` (0: the scenarios' own seeds) of the
    experiment itself or of its null control."""

    exp_id: str
    quick: bool
    k: int
    null: bool


@dataclass
class TaskResult:
    metrics: dict[str, float]
    figures: list[tuple[str, bytes]]
    scenarios_toml: dict[str, str]
    text: str
    error: str = ""


def _seeded(d: Any, k: int) -> dict[str, Any]:
    """The scenario dict with its seed moved on by ``k``."""
    from ..api import as_scenario

    if not isinstance(d, dict):
        import tomllib

        d = tomllib.loads(as_scenario(d).to_toml())
    return {**d, "seed": int(d.get("seed", 1)) + k}


def run_task(task: Task, exp: Experiment | None = None) -> TaskResult:
    """Runs one task; the figures and scenarios are kept only for the first seed of the experiment
    itself. A null control whose analysis fails (e.g. it reads a trace only the AQM writes)
    reports the error instead of metrics."""
    from ..api import as_scenario, run
    from .null import null_control

    exp = exp or get(task.exp_id)
    dicts = {label: _seeded(d, task.k) for label, d in exp.scenarios(task.quick).items()}
    if task.null:
        dicts = {label: null_control(d) if exp.nulled(label) else d for label, d in dicts.items()}
    scenarios = {label: as_scenario(d) for label, d in dicts.items()}
    results = {label: run(s, progress=False) for label, s in scenarios.items()}
    try:
        analysis = exp.analyse(results, task.quick)
    except Exception as e:  # noqa: BLE001 - only for the null control, see below
        if not task.null:
            raise
        return TaskResult({}, [], {}, "", f"{type(e).__name__}: {e}")
    primary = task.k == 0 and not task.null
    figures = [(caption, _png(fig)) for caption, fig in analysis.figures] if primary else []
    if not primary:
        for _, fig in analysis.figures:
            _close(fig)
    return TaskResult({k: float(v) for k, v in analysis.metrics.items()}, figures,
                      {label: s.to_toml() for label, s in scenarios.items()} if primary else {},
                      analysis.text if primary else "")


def tasks_of(exp: Experiment, quick: bool, seeds: int | None = None, null_seeds: int | None = None) -> list[Task]:
    """The runs an experiment needs: ``seeds`` of its own (default :data:`SEEDS`) and ``null_seeds``
    of its null control (default by mode). An experiment without scenarios (analysis only, or
    one that runs its own sweeps) is deterministic: one task, no null control; so is one whose
    scenarios draw no random numbers (``Experiment.deterministic``), with one null-control run."""
    seeds = SEEDS if seeds is None else seeds
    null_seeds = (QUICK_NULL_SEEDS if quick else NULL_SEEDS) if null_seeds is None else null_seeds
    if seeds < 1 or null_seeds < 0:
        raise ValueError(f"seeds must be >= 1 and null seeds >= 0, got {seeds} and {null_seeds}")
    if exp.deterministic:
        seeds, null_seeds = 1, min(null_seeds, 1)
    if not exp.scenarios(quick):
        return [Task(exp.id, quick, 0, False)]
    own = [Task(exp.id, quick, k, False) for k in range(seeds)]
    return own + ([Task(exp.id, quick, k, True) for k in range(null_seeds)] if exp.null_control else [])


def assemble(exp: Experiment, quick: bool, tasks: Sequence[Task], results: Sequence[TaskResult],
             wall_s: float) -> Outcome:
    """Judges an experiment from its tasks' results (in the order of :func:`tasks_of`)."""
    from .. import __version__

    own = [r for t, r in zip(tasks, results) if not t.null]
    null = [r for t, r in zip(tasks, results) if t.null]
    errors = sorted({r.error for r in null if r.error})
    null_metrics = [r.metrics for r in null if not r.error]
    first = own[0]
    checks = exp.judge([r.metrics for r in own], null_metrics)
    if errors:
        # Said on every claim that should have had a null control: its verdict is then unchecked.
        note = f"; null control not judged (its analysis failed: {errors[0]})"
        checks = [replace(c, detail=c.detail + note, null_state=NULL_UNAVAILABLE)
                  if c.expectation.null and not c.expectation.no_null and c.null is None else c for c in checks]
    return Outcome(
        id=exp.id, quick=quick, metrics=first.metrics,
        checks=checks, figures=first.figures + _claims_png(checks),
        scenarios_toml=first.scenarios_toml, text=first.text, wall_s=wall_s, aqmlab_version=__version__,
        seed_metrics=[r.metrics for r in own], null_metrics=null_metrics, null_error="; ".join(errors),
    )


CLAIMS_CAPTION = ("Every claim against its band (green): the paper's number (red diamond) where it prints one, "
                  "each of our seeds (dots) and their mean (black bar), the null control's runs (orange crosses).")


def _claims_png(checks: Sequence[Check]) -> list[tuple[str, bytes]]:
    """The claims figure (:func:`aqmlab.catalog.claims_figure.claims_figure`), as one captioned PNG."""
    from .claims_figure import claims_figure

    fig = claims_figure(checks)
    return [] if fig is None else [(CLAIMS_CAPTION, _png(fig))]


def run_experiment(exp: Experiment | str, *, quick: bool = False, seeds: int | None = None,
                   null_seeds: int | None = None) -> Outcome:
    """Runs one experiment (an :class:`Experiment` or its id) over its seeds and null control,
    in this process, and judges it."""
    exp = get(exp) if isinstance(exp, str) else exp
    t0 = time.perf_counter()
    tasks = tasks_of(exp, quick, seeds, null_seeds)
    results = [run_task(t, exp) for t in tasks]
    return assemble(exp, quick, tasks, results, time.perf_counter() - t0)


def _timed(task: Task, exp: Experiment | None = None) -> tuple[TaskResult, float]:
    t0 = time.perf_counter()
    return run_task(task, exp), time.perf_counter() - t0


def run_experiments(exps: Sequence[Experiment], *, quick: bool = False, jobs: int = 1,
                    seeds: int | None = None, null_seeds: int | None = None,
                    on_done: Callable[[Outcome], None] | None = None) -> list[Outcome]:
    """Runs experiments, ``jobs`` runs at a time (separate processes when jobs > 1; every seed and
    null-control run is its own task); returns the outcomes in the order given. ``on_done`` is
    called as each experiment is judged. ``wall_s`` of an outcome is the sum of its tasks' times."""
    if jobs < 1:
        raise ValueError(f"jobs must be >= 1, got {jobs}")
    plan = [(e, tasks_of(e, quick, seeds, null_seeds)) for e in exps]
    if jobs == 1 or sum(len(ts) for _, ts in plan) <= 1:
        outcomes = []
        for e, ts in plan:
            timed = [_timed(t, e) for t in ts]
            outcomes.append(assemble(e, quick, ts, [r for r, _ in timed], sum(w for _, w in timed)))
            if on_done:
                on_done(outcomes[-1])
        return outcomes
    ctx = multiprocessing.get_context("spawn")
    with ProcessPoolExecutor(max_workers=jobs, mp_context=ctx) as pool:
        futures = [[pool.submit(_timed, t) for t in ts] for _, ts in plan]
        outcomes = []
        for (e, ts), fs in zip(plan, futures):
            timed = [f.result() for f in fs]
            outcomes.append(assemble(e, quick, ts, [r for r, _ in timed], sum(w for _, w in timed)))
            if on_done:
                on_done(outcomes[-1])
        return outcomes
