"""`aqmlab live`: a scenario on real Linux TCP, with the simulator's own AQM code in a
userspace router between network namespaces (see docs/live.md).

    >>> from aqmlab import live
    >>> result = live.run("my-scenario.toml")          # needs root
    >>> result.summary["qdelay_mean_s"], result.summary["goodput_bps"]

Data flow: scenario (file vocabulary) -> :func:`plan.plan` (what hosts can express, errors
naming the field) -> :mod:`testbed` (namespaces, veths) -> :mod:`driver` (router, sink and
source agents: ``crates/live``) -> :mod:`result` (the same Result shape as a simulated run).
"""

from __future__ import annotations

import copy
import tomllib
from pathlib import Path
from typing import TYPE_CHECKING

from .._lazy import exports
from ..errors import ScenarioError
from ..scenario import BUILTIN_DIR, Scenario, set_dotted
from .driver import Options
from .plan import LivePlan, plan
from .system import LiveError, PrivilegeError

# On first use: results need pandas, which `aqmlab --help` must not import (issue 22).
__getattr__, __dir__ = exports(__name__, {"LiveResult": "result"})

if TYPE_CHECKING:
    from .result import LiveResult


def load_raw(name_or_path: str | Path) -> dict:
    """A scenario file (or built-in name) as written, before defaults are filled in: live
    checks which fields the user gave."""
    p = Path(name_or_path)
    if not p.exists():
        p = BUILTIN_DIR / f"{name_or_path}.toml"
        if not p.exists():
            raise ScenarioError("", f"no scenario file '{name_or_path}' and no built-in scenario of that name")
    try:
        return tomllib.loads(p.read_text())
    except tomllib.TOMLDecodeError as e:
        raise ScenarioError("", f"{p}: not valid TOML: {e}") from None


def with_values(raw: dict, values: dict) -> dict:
    out = copy.deepcopy(raw)
    for dotted, value in values.items():
        set_dotted(out, dotted, value)
    return out


def run(scenario: dict | str | Path, opts: Options | None = None, *, progress: bool | None = None,
        during=None) -> LiveResult:
    """Runs a scenario (a dict in the file's vocabulary, a TOML path or a built-in name) live.
    `during(testbed, t0)` may measure alongside the run (see :func:`driver.execute`)."""
    from . import driver, result

    raw = scenario if isinstance(scenario, dict) else load_raw(scenario)
    p = plan(raw)
    return result.build(p, driver.execute(p, opts, progress=progress, during=during))


def clean() -> list[str]:
    """Removes the namespaces of live runs that were killed (SIGKILL) before cleaning up;
    returns their names. Every run also does this when it starts."""
    from . import system, testbed

    system.require_privileges()
    system.require_tools()
    return testbed.clean_stale()


__all__ = ["run", "clean", "plan", "load_raw", "with_values", "Options", "LivePlan", "LiveResult", "LiveError",
           "PrivilegeError", "Scenario"]
