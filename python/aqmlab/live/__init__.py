"""`aqmlab live`: a scenario on real Linux TCP, with the simulator's own AQM code in a
userspace router between network namespaces (see docs/live.md).

    >>> from aqmlab import live
    >>> result = live.run("my-scenario.toml")          # needs root
    >>> result.summary["qdelay_mean_s"], result.summary["goodput_bps"]

Data flow: scenario (file vocabulary) -> :func:`plan.plan` (what hosts can express, errors
naming the field) -> :mod:`testbed` (namespaces, veths) -> :mod:`driver` (router, sink and
source agents: ``crates/live``) -> :mod:`result` (the same Result shape as a simulated run).
"""

from typing import TYPE_CHECKING

from .._lazy import exports

# `plan` is bound here, not on first use: the submodule of the same name, once imported by
# another one, would otherwise stand in for the function. The module is light (it imports the
# scenario model when called).
from .plan import LivePlan, plan

# Imported on first use: registering `aqmlab live` must not import the scenario model or the
# driver, and results need pandas (issue 22).
__getattr__, __dir__ = exports(__name__, {
    "run": "entry", "clean": "entry", "load_raw": "entry", "with_values": ".scenario", "Options": "driver",
    "LiveResult": "result", "LiveError": "system", "PrivilegeError": "system", "Scenario": ".scenario"})

if TYPE_CHECKING:
    from ..scenario import Scenario, with_values
    from .driver import Options
    from .entry import clean, load_raw, run
    from .result import LiveResult
    from .system import LiveError, PrivilegeError

__all__ = ["run", "clean", "plan", "load_raw", "with_values", "Options", "LivePlan", "LiveResult", "LiveError",
           "PrivilegeError", "Scenario"]
