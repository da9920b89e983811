"""Null controls: the same scenario with the AQM switched off.

Every active queue management discipline of the bottleneck is replaced by a DropTail queue of
the same limit (the buffer the AQM was given); schedulers that are not AQMs (strict priority)
stay, with their inner queues treated the same way; run-time changes of the AQM's delay
reference are dropped with it. A claim that still holds on this null
control does not test the AQM (:mod:`aqmlab.catalog.seeds`)."""

from __future__ import annotations

import tomllib
from typing import Any

# Queue types that schedule between inner queues without dropping early themselves: kept, and
# their inner queue tables are turned off one by one.
SCHEDULERS = frozenset({"strict_priority"})
DROP_TAIL = "drop_tail"


def aqm_off(queue: dict[str, Any]) -> dict[str, Any]:
    """A resolved queue table with every AQM inside it replaced by DropTail of its limit."""
    kind = queue.get("type")
    if kind == DROP_TAIL:
        return dict(queue)
    if kind in SCHEDULERS:
        return {k: aqm_off(v) if isinstance(v, dict) and "type" in v else v for k, v in queue.items()}
    if "limit" not in queue:
        raise ValueError(f"queue type {kind!r} has no limit to give its DropTail null control")
    return {"type": DROP_TAIL, "limit": queue["limit"]}


def null_control(scenario: Any) -> dict[str, Any]:
    """The null control of a scenario (a dict or :class:`aqmlab.Scenario`), as a scenario dict.

    The scenario is resolved first, so an AQM's default limit is the one DropTail gets."""
    from ..api import as_scenario

    resolved = tomllib.loads(as_scenario(scenario).to_toml())
    bottleneck = dict(resolved["bottleneck"])
    bottleneck["queue"] = aqm_off(bottleneck["queue"])
    bottleneck["target_schedule"] = []  # the AQM's run-time reference changes go with it
    return {**resolved, "name": f"{resolved['name']}-null", "bottleneck": bottleneck}
