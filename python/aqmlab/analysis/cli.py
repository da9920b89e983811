"""``aqmlab design``, ``aqmlab margins`` and ``aqmlab response``: argparse subcommands for the top-level CLI.

The top-level parser calls :func:`register` with its subparsers object; every subcommand sets
``func`` to a callable taking the parsed ``argparse.Namespace`` and returning an exit code.
"""

from __future__ import annotations

import argparse
import functools
import math
from collections.abc import Callable
from pathlib import Path

from . import response_cli
from .autotune import AUTOTUNE_TABLES


# Bounds on every positive quantity of the analysis commands (flows, seconds, packets or bits
# per second, Hz, gains): wide enough for any network (a nanosecond to 10⁴ s, up to 10¹² b/s),
# narrow enough that the plant's products and powers stay finite in floating point.
POSITIVE_RANGE = (1e-9, 1e12)

# The defaults of the options that only some controllers (or some other option) read: registered
# as None and filled in by the commands once checked (see aqmlab._options).
DESIGN_DEFAULTS = {"fs": 160.0, "w_q": 1.33e-6, "packet_bytes": 500.0}
MARGINS_DEFAULTS = {"p0": [1e-4, 1e-3, 1e-2, 0.05, 0.1, 0.2], "autotune": "hpsr", "flows": 60.0,
                    "capacity": 3750.0, "fs": 160.0, "coupling": 2.0}


def _number_in(text: str, what: str, lo: float, hi: float, hi_open: bool = False) -> float:
    """A number in [lo, hi] (or [lo, hi)), refused with the whole range whatever is wrong."""
    expected = f"expected {what} in [{lo:g}, {hi:g}{')' if hi_open else ']'}"
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{expected}, got {text!r}") from None
    if not (math.isfinite(value) and lo <= value and (value < hi if hi_open else value <= hi)):
        raise argparse.ArgumentTypeError(f"{expected}, got {text!r}")
    return value


def _positive(text: str) -> float:
    return _number_in(text, "a number", *POSITIVE_RANGE)


def _probability(text: str) -> float:
    # The positive quantities' floor, below 1: one range, the same for every wrong value.
    return _number_in(text, "a probability", POSITIVE_RANGE[0], 1.0, hi_open=True)


def _network_args(p: argparse.ArgumentParser, flows: float, rtt: float, capacity: float) -> None:
    p.add_argument("--flows", type=_positive, default=flows, help=f"N- flows (default {flows:g})")
    p.add_argument("--rtt", type=_positive, default=rtt, help=f"R+ round trip, s (default {rtt:g})")
    p.add_argument("--capacity", type=_positive, default=None,
                   help=f"C in packets/s (default {capacity:g}, or from --capacity-bps)")
    p.add_argument("--capacity-bps", type=_positive, default=None, help="C in bit/s")
    p.add_argument("--packet-bytes", type=_positive, default=None,
                   help=f"packet size for --capacity-bps (default {DESIGN_DEFAULTS['packet_bytes']:g}, as "
                        "INFOCOM 2001)")
    p.set_defaults(default_capacity=capacity)


def _reporting_errors(command: Callable[[argparse.Namespace], int]) -> Callable[[argparse.Namespace], int]:
    """Run ``command``; a ValueError (bad argument values) becomes "aqmlab: error: ..." and exit 2."""

    @functools.wraps(command)
    def run(args: argparse.Namespace) -> int:
        try:
            return command(args)
        except ValueError as e:
            from ..cli import print_error

            print_error(e)
            return 2

    return run


def _deferred(name: str) -> Callable[[argparse.Namespace], int]:
    """The command `name` of :mod:`.control_commands`, imported when it runs: registering the
    subcommands (and ``aqmlab --help``) must not import numpy (issue 22)."""

    def run(args: argparse.Namespace) -> int:
        from . import control_commands

        return int(getattr(control_commands, name)(args))

    return _reporting_errors(run)


def register(subparsers: argparse._SubParsersAction) -> None:
    """Add the ``design``, ``margins`` and ``response`` subcommands to ``subparsers``."""
    d = subparsers.add_parser("design", help="Hollot design rules: RED, P (Prop. 1), PI (Prop. 2)",
                              description="Design an AQM controller for N >= N-, R0 <= R+ "
                                          "(defaults: INFOCOM 2001 Examples 1 and 2).")
    d.add_argument("controller", choices=("pi", "p", "red"))
    _network_args(d, 60, 0.2467, 3750)
    d.add_argument("--fs", type=_positive, default=None,
                   help=f"pi: sampling frequency, Hz (default {DESIGN_DEFAULTS['fs']:g})")
    d.add_argument("--omega-g", type=_positive, default=None,
                   help="pi, p: override the design crossover, rad/s; for pi it also moves the "
                        "controller's zero (z = omega_g)")
    d.add_argument("--red-k", type=_positive, default=None, help="red: filter pole K, rad/s")
    d.add_argument("--w-q", type=_probability, default=None,
                   help=f"red: EWMA weight per packet, giving K when --red-k is absent "
                        f"(default {DESIGN_DEFAULTS['w_q']:g})")
    d.set_defaults(func=_deferred("design"))

    m = subparsers.add_parser("margins", help="stability margins, tables and Bode/margin-map PNGs",
                              description="Phase and gain margins of the linearised loop.")
    m.add_argument("controller", choices=("pie", "pi2", "dualpi2", "pi"),
                   help="dualpi2: PI² on classic traffic and k·p′ on scalable traffic (its L queue)")
    m.add_argument("--rtt", type=_positive, nargs="+", default=None,
                   help="R0 values, s (default 0.1; pi: 0.2467)")
    m.add_argument("--p0", type=_probability, nargs="+", default=None,
                   help="pie, pi2, dualpi2: operating drop probabilities (default "
                        f"{' '.join(f'{p:g}' for p in MARGINS_DEFAULTS['p0'])})")
    m.add_argument("--alpha", type=_positive, default=None, help="Hz (pie 0.125, pi2 and dualpi2 0.16)")
    m.add_argument("--beta", type=_positive, default=None, help="Hz (pie 1.25, pi2 and dualpi2 3.2)")
    m.add_argument("--t-update", type=_positive, default=None, help="s (pie 0.03, pi2 and dualpi2 0.016)")
    m.add_argument("--autotune", choices=sorted(AUTOTUNE_TABLES), default=None,
                   help=f"pie: auto-tune table at p0 (default {MARGINS_DEFAULTS['autotune']})")
    m.add_argument("--claims", action="store_true", help="pie: print the HPSR 2013 claims check")
    m.add_argument("--flows", type=_positive, default=None, help=f"pi: N (default {MARGINS_DEFAULTS['flows']:g})")
    m.add_argument("--capacity", type=_positive, default=None,
                   help=f"pi: C, packets/s (default {MARGINS_DEFAULTS['capacity']:g})")
    m.add_argument("--k-pi", type=_positive, default=None, help="pi: K_PI (default Prop. 2 design)")
    m.add_argument("--z", type=_positive, default=None,
                   help="pi, with --k-pi: zero, rad/s (default the plant's pole p_tcp)")
    m.add_argument("--a", type=_positive, default=None, help="pi: digital a (with --b, --fs), instead of --k-pi")
    m.add_argument("--b", type=_positive, default=None, help="pi: digital b")
    m.add_argument("--fs", type=_positive, default=None,
                   help=f"pi, with --a and --b: their sampling frequency, Hz (default {MARGINS_DEFAULTS['fs']:g})")
    m.add_argument("--coupling", type=_positive, default=None,
                   help=f"dualpi2: coupling factor k (default {MARGINS_DEFAULTS['coupling']:g})")
    m.add_argument("-o", "--output", type=Path, default=None, metavar="OUTDIR", help="directory for PNG figures")
    m.add_argument("--force", action="store_true",
                   help="with -o: write into a non-empty OUTDIR that does not hold earlier margins figures (those "
                        "are replaced)")
    m.set_defaults(func=_deferred("margins"))

    response_cli.register(subparsers, _positive, _probability, _reporting_errors)
