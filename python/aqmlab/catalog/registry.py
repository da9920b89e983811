"""The registry of experiments: each paper module calls :func:`add` at import time."""

from __future__ import annotations

import fnmatch
import importlib

from .core import Experiment

# One module per paper, imported on first use of the registry (in this order).
PAPER_MODULES = ("pie_hpsr2013", "pie_slides2013", "pie_slides2013_autoref", "pi_infocom2001", "pi2_wns3_2017",
                 "pvpie_anrw2017", "pvpie_anrw2017_cases", "l4s_rfc9332", "l4s_safety")

_EXPERIMENTS: dict[str, Experiment] = {}


def add(*experiments: Experiment) -> None:
    """Registers experiments; ids must be unique across the catalog."""
    for exp in experiments:
        if exp.id in _EXPERIMENTS and _EXPERIMENTS[exp.id] is not exp:
            raise ValueError(f"duplicate experiment id {exp.id!r}")
        _EXPERIMENTS[exp.id] = exp


def _load() -> None:
    for name in PAPER_MODULES:
        importlib.import_module(f"{__package__}.{name}")


def experiments() -> list[Experiment]:
    """Every registered experiment, paper by paper in registration order."""
    _load()
    return list(_EXPERIMENTS.values())


def get(exp_id: str) -> Experiment:
    _load()
    try:
        return _EXPERIMENTS[exp_id]
    except KeyError:
        raise KeyError(f"no experiment {exp_id!r}; see `aqmlab reproduce --list`") from None


def select(patterns: list[str]) -> list[Experiment]:
    """Experiments whose id matches any pattern (an id, a prefix such as "pie13-", or a shell
    glob such as "pie13-fig1*"), in catalog order; a pattern matching nothing is an error."""
    every = experiments()
    chosen: list[Experiment] = []
    for pat in patterns:
        hits = [e for e in every if e.id == pat or e.id.startswith(pat) or fnmatch.fnmatchcase(e.id, pat)]
        if not hits:
            raise KeyError(f"no experiment matches {pat!r}; see `aqmlab reproduce --list`")
        chosen += [e for e in hits if e not in chosen]
    return [e for e in every if e in chosen]
