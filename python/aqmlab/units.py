"""Parsing of quantities with units, as written in scenario files.

Rates use decimal prefixes (10Mbps = 10e6 bit/s), as networking does; sizes accept both
decimal (KB = 1000 B) and binary (KiB = 1024 B) prefixes. Times are returned in integer
nanoseconds, the simulator's clock.
"""

from __future__ import annotations

import re

from .errors import ScenarioError

_NUM = r"([0-9]*\.?[0-9]+(?:[eE][-+]?[0-9]+)?)"

_TIME_UNITS = {"ns": 1, "us": 1e3, "µs": 1e3, "ms": 1e6, "s": 1e9, "min": 60e9}
_RATE_UNITS = {
    "bps": 1, "kbps": 1e3, "Kbps": 1e3, "Mbps": 1e6, "Gbps": 1e9, "Tbps": 1e12,
    "b/s": 1, "kb/s": 1e3, "Kb/s": 1e3, "Mb/s": 1e6, "Gb/s": 1e9,
}
_SIZE_UNITS = {
    "B": 1, "KB": 1e3, "kB": 1e3, "MB": 1e6, "GB": 1e9,
    "KiB": 1024, "MiB": 1024**2, "GiB": 1024**3,
}


def _parse(value, units: dict, kind: str, example: str, path: str) -> float:
    if isinstance(value, bool):
        raise ScenarioError(path, f"expected {kind} like '{example}', got {value!r}")
    if isinstance(value, str):
        m = re.fullmatch(_NUM + r"\s*(\S+)", value.strip())
        if m and m.group(2) in units:
            return float(m.group(1)) * units[m.group(2)]
    accepted = ", ".join(units)
    raise ScenarioError(path, f"expected {kind} like '{example}' (units: {accepted}), got {value!r}")


def duration_ns(value, path: str) -> int:
    """'20ms' -> 20_000_000."""
    return round(_parse(value, _TIME_UNITS, "a duration", "20ms", path))


def rate_bps(value, path: str) -> int:
    """'10Mbps' -> 10_000_000."""
    return round(_parse(value, _RATE_UNITS, "a rate", "10Mbps", path))


def size_bytes(value, path: str) -> int:
    """'200KB' -> 200_000; a bare integer is taken as bytes."""
    if isinstance(value, int) and not isinstance(value, bool):
        return value
    return round(_parse(value, _SIZE_UNITS, "a size", "1000B", path))


def queue_limit(value, path: str) -> dict:
    """'200p' -> {'packets': 200}; '2MB' -> {'bytes': 2_000_000}; the dict forms pass through."""
    if isinstance(value, dict) and len(value) == 1:
        (kind, n), = value.items()
        if kind in ("packets", "bytes") and isinstance(n, int) and not isinstance(n, bool) and n > 0:
            return {kind: n}
    if isinstance(value, str):
        m = re.fullmatch(r"\s*([0-9]+)\s*(p|pkts|packets)\s*", value)
        if m:
            return {"packets": int(m.group(1))}
        try:
            return {"bytes": size_bytes(value, path)}
        except ScenarioError:
            pass
    raise ScenarioError(path, f"expected a queue limit like '200p' (packets) or '200KB' (bytes), got {value!r}")


def kind_of(value: str) -> tuple[str, float] | None:
    """Recognises a quantity string: ('s', seconds) | ('bps', rate) | ('bytes', size) | None."""
    for units, suffix, scale in ((_TIME_UNITS, "s", 1e-9), (_RATE_UNITS, "bps", 1.0), (_SIZE_UNITS, "bytes", 1.0)):
        m = re.fullmatch(_NUM + r"\s*(\S+)", value.strip())
        if m and m.group(2) in units:
            return suffix, float(m.group(1)) * units[m.group(2)] * scale
    return None


def fmt_duration(ns: int) -> str:
    """Canonical form used in resolved scenarios: the largest unit that keeps an integer."""
    for unit, scale in (("s", 10**9), ("ms", 10**6), ("us", 10**3)):
        if ns % scale == 0:
            return f"{ns // scale}{unit}"
    return f"{ns}ns"


def fmt_rate(bps: int) -> str:
    for unit, scale in (("Gbps", 10**9), ("Mbps", 10**6), ("kbps", 10**3)):
        if bps % scale == 0:
            return f"{bps // scale}{unit}"
    return f"{bps}bps"
