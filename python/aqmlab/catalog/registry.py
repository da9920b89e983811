"""The registry of experiments: each paper module calls :func:`add` at import time."""

from __future__ import annotations

import fnmatch
import importlib
from collections.abc import Sequence

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


def matching(patterns: list[str], ids: Sequence[str], what: str = "experiment",
             listing: str = "aqmlab reproduce --list") -> list[str]:
    """The ids that any pattern matches (an id, a prefix such as "pie13-", or a shell glob such as
    "pie13-fig1*"), in the order of ``ids``; a pattern matching nothing is a KeyError naming it
    (``no {what} matches 'x'; see `{listing}```)."""
    chosen: set[str] = set()
    for pat in patterns:
        hits = {i for i in ids if i == pat or i.startswith(pat) or fnmatch.fnmatchcase(i, pat)}
        if not hits:
            raise KeyError(f"no {what} matches {pat!r}; see `{listing}`")
        chosen |= hits
    return [i for i in ids if i in chosen]


def select(patterns: list[str]) -> list[Experiment]:
    """Experiments whose id matches any pattern (see :func:`matching`), in catalog order."""
    every = experiments()
    chosen = matching(patterns, [e.id for e in every])
    return [e for e in every if e.id in chosen]
