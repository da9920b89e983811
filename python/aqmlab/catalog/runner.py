"""Running experiments: their scenarios through :func:`aqmlab.run`, then their analysis and
verdicts; serially or in a pool of processes (one experiment per task). Every scenario carries
its seed, so a run gives the same numbers whichever way it is scheduled."""

from __future__ import annotations

import io
import math
import multiprocessing
import time
from collections.abc import Callable, Sequence
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass, field
from typing import Any

from .core import Check, Experiment, overall
from .registry import get


@dataclass
class Outcome:
    """An experiment's result: its metrics, verdicts, PNG figures and resolved scenarios."""

    id: str
    quick: bool
    metrics: dict[str, float]
    checks: list[Check]
    figures: list[tuple[str, bytes]] = field(repr=False)
    scenarios_toml: dict[str, str] = field(repr=False)
    text: str
    wall_s: float
    aqmlab_version: str

    @property
    def verdict(self) -> str:
        return overall(self.checks)

    def to_json(self) -> dict[str, Any]:
        """Everything but the images, for results.json (non-finite numbers become null)."""
        return {
            "id": self.id, "quick": self.quick, "verdict": self.verdict, "wall_s": self.wall_s,
            "aqmlab_version": self.aqmlab_version, "metrics": {k: _finite(v) for k, v in self.metrics.items()},
            "checks": [{"metric": c.expectation.metric, "claim": c.expectation.claim,
                        "source": c.expectation.source, "band": c.expectation.band_text(),
                        "value": _finite(c.value), "verdict": c.verdict, "detail": c.detail} for c in self.checks],
            "scenarios": self.scenarios_toml,
        }


def _finite(x: float | None) -> float | None:
    return x if x is not None and math.isfinite(x) else None


def _png(fig: Any) -> bytes:
    import matplotlib.pyplot as plt

    buf = io.BytesIO()
    fig.savefig(buf, format="png", dpi=100)
    plt.close(fig)
    return buf.getvalue()


def run_experiment(exp: Experiment | str, *, quick: bool = False) -> Outcome:
    """Runs one experiment (an :class:`Experiment` or its id) and judges it."""
    from .. import __version__
    from ..api import as_scenario, run

    exp = get(exp) if isinstance(exp, str) else exp
    t0 = time.perf_counter()
    scenarios = {label: as_scenario(d) for label, d in exp.scenarios(quick).items()}
    results = {label: run(s, progress=False) for label, s in scenarios.items()}
    analysis = exp.analyse(results, quick)
    figures = [(caption, _png(fig)) for caption, fig in analysis.figures]
    return Outcome(
        id=exp.id, quick=quick, metrics={k: float(v) for k, v in analysis.metrics.items()},
        checks=exp.judge(analysis.metrics, quick), figures=figures,
        scenarios_toml={label: s.to_toml() for label, s in scenarios.items()},
        text=analysis.text, wall_s=time.perf_counter() - t0, aqmlab_version=__version__,
    )


def _run_by_id(args: tuple[str, bool]) -> Outcome:
    exp_id, quick = args
    return run_experiment(exp_id, quick=quick)


def run_experiments(exps: Sequence[Experiment], *, quick: bool = False, jobs: int = 1,
                    on_done: Callable[[Outcome], None] | None = None) -> list[Outcome]:
    """Runs experiments, ``jobs`` at a time (separate processes when jobs > 1); returns the
    outcomes in the order given. ``on_done`` is called as each one finishes."""
    if jobs < 1:
        raise ValueError(f"jobs must be >= 1, got {jobs}")
    if jobs == 1 or len(exps) <= 1:
        outcomes = []
        for e in exps:
            outcomes.append(run_experiment(e, quick=quick))
            if on_done:
                on_done(outcomes[-1])
        return outcomes
    ctx = multiprocessing.get_context("spawn")
    with ProcessPoolExecutor(max_workers=min(jobs, len(exps)), mp_context=ctx) as pool:
        futures = [pool.submit(_run_by_id, (e.id, quick)) for e in exps]
        outcomes = []
        for f in futures:
            outcomes.append(f.result())
            if on_done:
                on_done(outcomes[-1])
        return outcomes
