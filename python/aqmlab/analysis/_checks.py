"""Argument checks whose messages name the argument and the accepted range."""

from __future__ import annotations

import math

import numpy as np


def require_finite(name: str, value: float) -> float:
    """Return ``value`` as float; raise if it is not a finite real number."""
    try:
        v = float(value)
    except (TypeError, ValueError):
        raise ValueError(f"{name} must be a finite number, got {value!r}") from None
    if not math.isfinite(v):
        raise ValueError(f"{name} must be a finite number, got {value!r}")
    return v


def require_positive(name: str, value: float, unit: str = "") -> float:
    """Return ``value`` as float; raise unless it is finite and > 0."""
    v = require_finite(name, value)
    if v <= 0:
        raise ValueError(f"{name} must be > 0{(' ' + unit) if unit else ''}, got {value!r}")
    return v


def require_range(name: str, value: float, low: float, high: float, *, low_open: bool = False,
                  high_open: bool = False) -> float:
    """Return ``value`` as float; raise unless it lies in the interval [low, high] (or open ends)."""
    v = require_finite(name, value)
    lo_ok = v > low if low_open else v >= low
    hi_ok = v < high if high_open else v <= high
    if not (lo_ok and hi_ok):
        left = "(" if low_open else "["
        right = ")" if high_open else "]"
        raise ValueError(f"{name} must be in {left}{low}, {high}{right}, got {value!r}")
    return v


def require_positive_array(name: str, value: object) -> np.ndarray:
    """Return ``value`` as a float array; raise unless every element is finite and > 0."""
    arr = np.asarray(value, dtype=float)
    if arr.size == 0 or not np.all(np.isfinite(arr)) or np.any(arr <= 0):
        raise ValueError(f"{name} must contain finite numbers > 0, got {value!r}")
    return arr
