"""Quantities with units, as written in scenario files, and their canonical forms.

Canonical units are integers: durations in nanoseconds (the simulator's clock), rates in bit/s,
sizes in bytes; a queue limit is ``{"packets": n}`` or ``{"bytes": n}``. Rates use decimal
prefixes (10Mbps = 10e6 bit/s), as networking does; sizes accept both decimal (KB = 1000 B) and
binary (KiB = 1024 B) prefixes.

Numbers are read exactly (``decimal``), so ``"1e400s"`` is a value out of range rather than an
overflow, and a value is rounded to the nearest whole canonical unit only once it is known to
be in range. Every error names the field and says what is wrong with the value.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass
from decimal import ROUND_HALF_EVEN, Decimal, InvalidOperation, Overflow

from .errors import ScenarioError

_QUANTITY = re.compile(r"\s*([+-]?(?:[0-9]+(?:\.[0-9]*)?|\.[0-9]+)(?:[eE][+-]?[0-9]+)?)\s*(\S*)\s*")
_LIMIT_PACKETS = re.compile(r"\s*([+-]?[0-9]+)\s*(?:p|pkts|packets)\s*")


def is_number(v: object) -> bool:
    """An int or float that is not a bool (TOML and JSON booleans are Python bools)."""
    return isinstance(v, (int, float)) and not isinstance(v, bool)


@dataclass(frozen=True)
class Quantity:
    """One kind of quantity: its units (name -> canonical units per unit) and how it prints."""

    kind: str                              # "duration"
    unit: str                              # the canonical unit, "ns"
    units: dict[str, int]
    example: str                           # "20ms"
    fmt_units: tuple[tuple[str, int], ...]  # largest first: the resolved form's units
    bare_is_canonical: bool = False        # a bare integer counts in the canonical unit (sizes)
    hi: int = 2**63 - 1                    # the largest value the simulator can represent
    # The unit a bare number most likely meant, by its size: (below this, unit) pairs; none:
    # the first of fmt_units. Only the error's suggestion uses it.
    bare_readings: tuple[tuple[float, str], ...] = ()

    def bare_unit(self, value: float) -> str:
        """The unit to suggest for a number given without one."""
        return next((unit for below, unit in self.bare_readings if abs(value) < below), self.fmt_units[0][0])

    def exact(self, value: object, path: str) -> Decimal:
        """The value in canonical units, exactly (possibly negative, fractional or huge)."""
        if self.bare_is_canonical and isinstance(value, (int, float)) and is_number(value) and math.isfinite(value) \
                and float(value).is_integer():
            return Decimal(int(value))
        expected = f"expected a {self.kind} like '{self.example}' (units: {', '.join(self.units)}), got {value!r}"
        if is_number(value):
            assert isinstance(value, (int, float))
            if not math.isfinite(value):
                raise ScenarioError(path, f"{expected}: not a finite value")
            if self.bare_is_canonical:
                raise ScenarioError(path, f"{expected}: a number without a unit counts {self.unit} and must be whole")
            raise ScenarioError(path, f"{expected}: a number needs a unit, e.g. '{_g(value)}{self.bare_unit(value)}'")
        if not isinstance(value, str):
            raise ScenarioError(path, expected)
        m = _QUANTITY.fullmatch(value)
        if m is None:
            raise ScenarioError(path, expected)
        number, unit = m.groups()
        if not unit and self.bare_is_canonical:
            unit = self.unit
        if unit not in self.units:
            raise ScenarioError(path, f"{expected}: {f'unknown unit {unit!r}' if unit else 'no unit'}")
        try:
            return Decimal(number) * self.units[unit]
        except (InvalidOperation, Overflow):  # an exponent beyond what decimal represents: out of any range
            return Decimal("-Infinity") if number.startswith("-") else Decimal("Infinity")

    def parse(self, value: object, path: str, lo: int = 0, hi: int | None = None, lo_open: bool = False,
              hi_open: bool = False) -> int:
        """The value in canonical units, rounded to a whole unit; in [lo, hi] (ends open as asked)."""
        hi = self.hi if hi is None else min(hi, self.hi)
        x = self.exact(value, path)
        shown = value if isinstance(value, str) else repr(value)
        accepted = self.range_text(lo, hi, lo_open, hi_open)
        if not _inside(x, lo, hi, lo_open, hi_open):
            raise ScenarioError(path, f"{shown} is outside the accepted range {accepted}")
        n = int(x.to_integral_value(rounding=ROUND_HALF_EVEN))
        if not _inside(n, lo, hi, lo_open, hi_open):
            raise ScenarioError(path, f"{shown} rounds to {self.fmt(n)}, outside the accepted range {accepted} "
                                      f"(the unit of a {self.kind} is 1{self.unit})")
        return n

    def range_text(self, lo: int, hi: int, lo_open: bool = False, hi_open: bool = False) -> str:
        return f"{'(' if lo_open else '['}{self.fmt(lo)}, {self.fmt(hi)}{')' if hi_open else ']'}"

    def fmt(self, n: int) -> str:
        """The canonical form in resolved scenarios: the largest unit that keeps an integer."""
        for unit, scale in self.fmt_units:
            if n % scale == 0:
                return f"{n // scale}{unit}"
        return f"{n}{self.fmt_units[-1][0]}"


def _inside(x: Decimal | int, lo: int, hi: int, lo_open: bool, hi_open: bool) -> bool:
    return (x > lo if lo_open else x >= lo) and (x < hi if hi_open else x <= hi)


def _g(x: float) -> str:
    return f"{x:g}" if isinstance(x, float) else str(x)


DURATION = Quantity(
    "duration", "ns", {"ns": 1, "us": 10**3, "µs": 10**3, "ms": 10**6, "s": 10**9, "min": 60 * 10**9}, "20ms",
    (("s", 10**9), ("ms", 10**6), ("us", 10**3), ("ns", 1)),
    # 10^6 s (11.6 days): within the simulator's largest time, 2^50 ns (crates/sim/src/config.rs
    # MAX_TIME_NS), so that sums of a few such times still fit its u64 clock.
    hi=10**15,
)
RATE = Quantity(
    "rate", "bps",
    {"bps": 1, "kbps": 10**3, "Kbps": 10**3, "Mbps": 10**6, "Gbps": 10**9, "Tbps": 10**12,
     "b/s": 1, "kb/s": 10**3, "Kb/s": 10**3, "Mb/s": 10**6, "Gb/s": 10**9, "Tb/s": 10**12},
    "10Mbps", (("Tbps", 10**12), ("Gbps", 10**9), ("Mbps", 10**6), ("kbps", 10**3), ("bps", 1)),
    # 1 Tb/s: a 1500-byte packet still takes 12 ns, so serialization never rounds to zero time.
    hi=10**12,
    # A small bare number is a rate in Mb/s, as in the example; a large one counts bit/s.
    bare_readings=((1000, "Mbps"), (math.inf, "bps")),
)
SIZE = Quantity(
    "size", "B",
    {"B": 1, "KB": 10**3, "kB": 10**3, "MB": 10**6, "GB": 10**9, "KiB": 1024, "MiB": 1024**2, "GiB": 1024**3},
    "1000B", (("B", 1),), bare_is_canonical=True, hi=2**62,
)

# A queue limit: u32 packets or u64 bytes in the AQM library.
MAX_LIMIT_PACKETS = 2**32 - 1


def queue_limit(value: object, path: str) -> dict[str, int]:
    """'200p' -> {'packets': 200}; '2MB' -> {'bytes': 2_000_000}; the dict forms pass through.
    A limit holds at least one packet or byte."""
    if isinstance(value, dict) and len(value) == 1:
        ((kind, n),) = value.items()
        if kind == "packets" and isinstance(n, int) and not isinstance(n, bool):
            return {"packets": _limit_packets(n, value, path)}
        if kind == "bytes":
            return {"bytes": SIZE.parse(n, path, lo=1)}
    if isinstance(value, str):
        m = _LIMIT_PACKETS.fullmatch(value)
        if m:
            return {"packets": _limit_packets(int(m.group(1)), value, path)}
        q = _QUANTITY.fullmatch(value)
        if q is not None and q.group(2) in SIZE.units:
            return {"bytes": SIZE.parse(value, path, lo=1)}
    raise ScenarioError(path, f"expected a queue limit like '200p' (packets) or '200KB' (bytes; units: "
                              f"{', '.join(SIZE.units)}), got {value!r}")


def _limit_packets(n: int, shown: object, path: str) -> int:
    if not 1 <= n <= MAX_LIMIT_PACKETS:
        raise ScenarioError(path, f"{shown!r} is outside the accepted range [1p, {MAX_LIMIT_PACKETS}p]")
    return n


def fmt_limit(limit: dict[str, int]) -> str:
    ((kind, n),) = limit.items()
    return f"{n}p" if kind == "packets" else f"{n}B"


# The functions the rest of aqmlab and its users call.


def duration_ns(value: object, path: str) -> int:
    """'20ms' -> 20_000_000."""
    return DURATION.parse(value, path)


def rate_bps(value: object, path: str) -> int:
    """'10Mbps' -> 10_000_000."""
    return RATE.parse(value, path)


def size_bytes(value: object, path: str) -> int:
    """'200KB' -> 200_000; a bare integer is taken as bytes."""
    return SIZE.parse(value, path)


def fmt_duration(ns: int) -> str:
    return DURATION.fmt(ns)


def fmt_rate(bps: int) -> str:
    return RATE.fmt(bps)


def fmt_size(n: int) -> str:
    return SIZE.fmt(n)
