"""The live package's entry points: load a scenario as written, run it live, clean up after killed runs."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from ..errors import ScenarioError
from ..scenario import BUILTIN_DIR, read_toml
from .driver import Options
from .plan import LivePlan, plan

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
    # The same reading as `aqmlab run`'s: a directory or a binary file is an error naming it.
    return read_toml(p)


def run(scenario: dict | str | Path | LivePlan, opts: Options | None = None, *, progress: bool | None = None,
        during=None) -> LiveResult:
    """Runs a scenario (a dict in the file's vocabulary, a TOML path, a built-in name, or its
    :func:`plan`) live. `during(testbed, t0)` may measure alongside the run (see
    :func:`driver.execute`)."""
    from . import driver, result

    if isinstance(scenario, LivePlan):
        p = scenario
    else:
        p = plan(scenario if isinstance(scenario, dict) else load_raw(scenario))
    return result.build(p, driver.execute(p, opts, progress=progress, during=during))


def clean() -> list[str]:
    """Removes the namespaces of live runs that were killed (SIGKILL) before cleaning up;
    returns their names. Every run also does this when it starts."""
    from . import system, testbed

    system.require_privileges()
    system.require_tools()
    return testbed.clean_stale()
