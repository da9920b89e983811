"""Topology builders for scenario files: the parking lot and bidirectional traffic.

A scenario's ``[network]`` table (see :class:`aqmlab.scenario.Network`) names routers and the
links between them beside the bottleneck; flow groups pick their routers with ``route``. These
helpers write those tables so that the common shapes need not be spelled out by hand::

    data = {"duration": "30s", **parking_lot(3, rate="10Mbps", delay="5ms", queue={"type": "pie"}),
            "flows": [{"type": "tcp", "count": 2, "rtt": "100ms", "route": long_route(3)},
                      *[{"type": "tcp", "rtt": "60ms", "route": hop_route(i)} for i in range(3)]]}
"""

from __future__ import annotations

from typing import Any


def router(i: int) -> str:
    """The name of the i-th router of a chain."""
    return f"R{i}"


def parking_lot(hops: int, *, rate: str, delay: str, queue: dict[str, Any],
                hop_queues: list[dict[str, Any]] | None = None) -> dict[str, Any]:
    """The ``bottleneck`` and ``network`` tables of a chain R0 - R1 - ... - R<hops> whose links
    all have ``rate`` and ``delay``; the first hop is the bottleneck. Hop i's forward queue is
    ``hop_queues[i]`` if given (mixing AQM and DropTail hops), else ``queue``."""
    if hops < 1:
        raise ValueError("a parking lot has at least one hop")
    queues = hop_queues or [queue] * hops
    if len(queues) != hops:
        raise ValueError(f"{len(queues)} hop queues given for {hops} hops")
    return {
        "bottleneck": {"rate": rate, "delay": delay, "queue": queues[0]},
        "network": {
            "nodes": [router(i) for i in range(hops + 1)],
            "bottleneck": [router(0), router(1)],
            "links": [{"ends": [router(i), router(i + 1)], "rate": rate, "delay": delay, "queue": queues[i]}
                      for i in range(1, hops)],
        },
    }


def long_route(hops: int) -> list[str]:
    """The route crossing every hop of a parking lot."""
    return [router(0), router(hops)]


def hop_route(i: int) -> list[str]:
    """The route of hop i's cross traffic."""
    return [router(i), router(i + 1)]


# The dumbbell as a network: flows going right to left send their data over the bottleneck's
# reverse direction, where it shares the queue with the ACKs of the flows going left to right.
LEFT, RIGHT = "left", "right"


def bidirectional() -> dict[str, Any]:
    """The ``network`` table of a dumbbell whose flows may run both ways; give the reverse
    groups ``route = reverse_route()`` (and the bottleneck a `reverse_queue` worth studying)."""
    return {"network": {"nodes": [LEFT, RIGHT], "bottleneck": [LEFT, RIGHT]}}


def reverse_route() -> list[str]:
    """The route of data sent right to left over a bidirectional dumbbell."""
    return [RIGHT, LEFT]
