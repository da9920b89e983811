"""One scenario through aqmlab and ns-3 over seeds: :func:`prepare` (map and build) and :func:`run`."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

from ..scenario import Scenario
from .build import NS3_VERSION, build, sdk
from .generator import scenario_source
from .mapping import model
from .measure import aqmlab_run, metrics, ns3_run
from .report import write
from .verdict import compare


def prepare(scn: Scenario) -> tuple[Any, Path]:
    """Maps and builds (or finds in the cache) the scenario's ns-3 program: (model, binary).
    Checks the mapping first, so an unsupported setting costs no compilation."""
    m = model(scn)
    sdk()
    return m, build(scenario_source(m), name=scn.name)


def run(scenario: Scenario | str | Path, *, seeds: int = 5, outdir: str | Path | None = None,
        log: Any = None) -> dict[str, Any]:
    """Cross-validates one scenario over seeds 1..`seeds`; writes the report into `outdir` (if
    given) and returns its JSON document."""
    from .. import __version__

    scn = scenario if isinstance(scenario, Scenario) else Scenario.load(scenario)
    say = log or (lambda msg: print(msg, file=sys.stderr))
    model(scn)  # an unsupported setting is refused before anything is said or built
    say(f"xval {scn.name}: building the ns-3 program")
    m, binary = prepare(scn)
    ours, theirs = [], []
    for seed in range(1, seeds + 1):
        say(f"xval {scn.name}: seed {seed}/{seeds}")
        raw, params = aqmlab_run(scn, seed)
        ours.append(raw)
        theirs.append(ns3_run(binary, scn, seed, params, m.forward))
    per_seed = {"aqmlab": [metrics(r) for r in ours], "ns3": [metrics(r) for r in theirs]}
    rows = compare(per_seed["aqmlab"], per_seed["ns3"])
    info = {"scenario": scn.name, "seeds": list(range(1, seeds + 1)), "aqmlab_version": __version__,
            "ns3_version": f"{NS3_VERSION} (PyPI ns3 3.44.post0)", "window_s": ours[0].window_s,
            "warmup_s": ours[0].warmup_s, "resolved": scn.resolved}
    if outdir is None:
        return {**info, "agree": all(r.agree for r in rows), "rows": [r.as_dict() for r in rows],
                "per_seed": per_seed}
    return write(Path(outdir), info, rows, ours, theirs, per_seed)
