"""Scenario dicts for the catalog (the vocabulary of :meth:`aqmlab.Scenario.from_dict`)."""

from __future__ import annotations


def _times(flow: dict, start, stop: float | None) -> dict:
    flow["start"] = ({"uniform": [f"{start[0]:g}s", f"{start[1]:g}s"]} if isinstance(start, tuple)
                     else f"{start:g}s")
    if stop is not None:
        flow["stop"] = f"{stop:g}s"
    return flow


def tcp(count: int, start: tuple[float, float] | float = (0.0, 1.0), *, name: str = "ftp",
        rtt: str = "100ms", stop: float | None = None, **over) -> dict:
    """A group of bulk TCP flows; ``start`` is a (lo, hi) uniform range or one time (s);
    ``over`` are TCP profile overrides (profile, cc, ecn, ...)."""
    return _times({"name": name, "type": "tcp", "count": count, "rtt": rtt, **over}, start, stop)


def udp(count: int, rate: str, start: tuple[float, float] | float = 0.0, *, name: str = "cbr",
        rtt: str | None = "100ms", stop: float | None = None, **over) -> dict:
    """A group of constant-bit-rate UDP flows; ``rtt=None`` when ``over`` gives an ``access_delay``."""
    flow = {"name": name, "type": "udp", "count": count, "rate": rate, **over}
    if rtt is not None:
        flow["rtt"] = rtt
    return _times(flow, start, stop)


def dumbbell(name: str, *, queue: dict, flows: list[dict], duration: float, warmup: float,
             rate: str = "10Mbps", delay: str = "25ms", schedule: tuple[tuple[float, str], ...] = (),
             seed: int = 1, interval: str = "10ms", target_schedule: list[dict] | None = None,
             **traces) -> dict:
    """The dumbbell scenario; ``schedule`` lists (time s, new rate) steps of the bottleneck,
    ``target_schedule`` run-time changes of its queue's delay reference ({at, target} tables) and
    ``traces`` switches on traces beyond the queue samples."""
    return {
        "name": name, "seed": seed, "duration": f"{duration:g}s", "warmup": f"{warmup:g}s",
        "bottleneck": {"rate": rate, "delay": delay, "queue": queue,
                       "rate_schedule": [{"at": f"{t:g}s", "rate": r} for t, r in schedule],
                       "target_schedule": target_schedule or []},
        "flows": flows,
        "traces": {"interval": interval, "queue": True, **traces},
    }
