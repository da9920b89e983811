"""Running the characterization: every experiment's variants for each discipline and seed, on
a sweep back end (local pool, Dask or Ray), then the metrics RFC 7928 §2 asks for, with
confidence intervals over the seeds."""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any

from ..errors import ScenarioError
from ..progress import Progress
from .experiments import EXPERIMENTS, RATE_BPS, Experiment, Scale


@dataclass(frozen=True)
class Job:
    aqm: str
    experiment: str
    variant: str
    seed: int
    scenario: dict[str, Any]


def run_job(job: Job) -> dict[str, float] | str:
    """Runs one scenario and returns its metrics, or the error's text (a run that cannot start
    is reported on the page, not fatal)."""
    from ..api import run

    try:
        result = run({**job.scenario, "seed": job.seed}, progress=False)
    except ScenarioError as e:
        return str(e)
    return metrics(dict(result.summary), result.flow_rows())


def metrics(s: dict[str, Any], flows: list[dict[str, Any]]) -> dict[str, float]:
    """RFC 7928 §2's metrics of one run: goodput (§2.5), latency and jitter (§2.6, the
    bottleneck's sojourn; and per group the mean smoothed RTT above the base RTT, the queueing
    of the whole path), loss (§2.3), flow completion times (§2.1), and per-group shares."""
    total = sum(f["throughput_bps"] for f in flows)
    m: dict[str, float] = {
        "goodput": total / RATE_BPS,
        "utilization": s["utilization"],
        "qdelay_p50_ms": 1e3 * s["qdelay_p50_s"],
        "qdelay_p99_ms": 1e3 * s["qdelay_p99_s"],
        "jitter_ms": 1e3 * (s["qdelay_p99_s"] - s["qdelay_p50_s"]),
        "loss": s["drop_rate"],
        "marks": s["mark_rate"],
        "jain": s["jain_index"],
    }
    if s["transfers"]:
        m["fct_p50_s"], m["fct_p99_s"] = s["fct_p50_s"], s["fct_p99_s"]
    for name in dict.fromkeys(f["name"] for f in flows):
        group = [f for f in flows if f["name"] == name]
        tput = sum(f["throughput_bps"] for f in group)
        # The window's counts, as the summary's loss and the throughputs are.
        sent = sum(f["sent_measured"] for f in group)
        m[f"share:{name}"] = tput / total if total else 0.0
        m[f"loss:{name}"] = sum(f["dropped_measured"] for f in group) / sent if sent else 0.0
        queued = [f["srtt_s"] - f["rtt_base_s"] for f in group if f["srtt_s"] is not None and f["srtt_s"] > 0]
        if queued:
            m[f"path_qdelay_ms:{name}"] = 1e3 * sum(queued) / len(queued)
        done = [f["completion_s"] for f in group if f["completion_s"] is not None]
        if done:
            m[f"fct_max_s:{name}"] = max(done)
    return m


# Two-sided 95 % Student t quantiles by degrees of freedom (the seeds are few).
_T95 = {1: 12.706, 2: 4.303, 3: 3.182, 4: 2.776, 5: 2.571, 6: 2.447, 7: 2.365, 8: 2.306, 9: 2.262, 10: 2.228}


@dataclass
class Stat:
    mean: float
    ci95: float  # half-width of the 95 % confidence interval of the mean; nan for one seed
    n: int

    @classmethod
    def of(cls, xs: list[float]) -> Stat:
        n = len(xs)
        mean = sum(xs) / n
        if n < 2:
            return cls(mean, math.nan, n)
        sd = math.sqrt(sum((x - mean) ** 2 for x in xs) / (n - 1))
        return cls(mean, _T95.get(n - 1, 1.96) * sd / math.sqrt(n), n)


@dataclass
class Characterization:
    aqms: dict[str, dict[str, Any]]
    scale: Scale
    experiments: list[Experiment]
    runs: list[dict[str, Any]] = field(default_factory=list)      # one row per run
    errors: dict[tuple[str, str, str], str] = field(default_factory=dict)

    def stat(self, aqm: str, experiment: str, variant: str, metric: str) -> Stat | None:
        xs = [r[metric] for r in self.runs if (r["aqm"], r["experiment"], r["variant"]) == (aqm, experiment, variant)
              and metric in r]
        return Stat.of(xs) if xs else None

    def variants(self, experiment: str) -> list[str]:
        return list(dict.fromkeys(r["variant"] for r in self.runs if r["experiment"] == experiment))


def jobs(aqms: dict[str, dict[str, Any]], scale: Scale, only: list[str] | None = None) -> list[Job]:
    out = []
    for e in EXPERIMENTS:
        if only and e.key not in only:
            continue
        for label, queue in aqms.items():
            for v in e.build(queue, scale):
                out += [Job(label, e.key, v.label, seed, v.scenario) for seed in range(1, scale.seeds + 1)]
    return out


def characterize(aqms: dict[str, dict[str, Any]], scale: Scale, *, backend: Any, only: list[str] | None = None,
                 progress: bool | None = None) -> Characterization:
    todo = jobs(aqms, scale, only)
    c = Characterization(aqms, scale, [e for e in EXPERIMENTS if not only or e.key in only])
    bar = Progress("characterize", enabled=progress, delay_s=0.0)
    try:
        for i, (job, out) in enumerate(backend.run(run_job, todo), 1):
            key = (job.aqm, job.experiment, job.variant)
            if isinstance(out, dict):
                c.runs.append({"aqm": job.aqm, "experiment": job.experiment, "variant": job.variant,
                               "seed": job.seed, **out})
            else:
                c.errors[key] = str(out)
            bar.update(i / len(todo), f"({i} of {len(todo)} runs)")
    finally:
        bar.close()
    # Completion order differs between back ends: sort, so that the files are the same.
    c.runs.sort(key=lambda r: (r["aqm"], r["experiment"], r["variant"], r["seed"]))
    return c
