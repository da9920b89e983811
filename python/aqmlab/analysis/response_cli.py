"""``aqmlab response``: TCP response functions, and optionally one simulated flow at each p.

The formulas live in :mod:`.response`. With ``--simulate`` each loss rate is also run as a
scenario (one flow on an uncongested 1 Gb/s path with a loss model in front of the
bottleneck queue, as the simulator's own TCP tests do), so the measured rate sits next to
the theory it should follow.
"""

from __future__ import annotations

import argparse
import json
import math
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import pandas as pd

_LOSS = ("periodic", "bernoulli", "marks")
# Defaults of the options that apply only with (or only without) --simulate (see aqmlab._options).
_SIMULATE_DEFAULTS = {"profile": "ns2-sack", "duration": 300.0}
_FORMULA_DEFAULTS = {"b": 1.0}


def register(subparsers: argparse._SubParsersAction, positive, probability, reporting_errors) -> None:
    r = subparsers.add_parser(
        "response", help="TCP response functions (square-root law, whole-round, PFTK, CUBIC)",
        description="Rate of one TCP flow against its loss rate: the square-root law, the "
                    "whole-round model of the deterministic loss cycle, PFTK and RFC 9438's "
                    "CUBIC average, in packets/s; --simulate adds a measured flow per p.")
    r.add_argument("--p", type=probability, nargs="+", default=[0.001, 0.003, 0.01, 0.03],
                   help="loss (or mark) rates (default 0.001 0.003 0.01 0.03)")
    r.add_argument("--rtt", type=positive, default=0.1, help="round trip, s (default 0.1)")
    r.add_argument("--rto", type=positive, default=None,
                   help="retransmission timeout for PFTK, s (without it the pftk column is NaN; not with "
                        "--simulate, which measures it)")
    r.add_argument("--b", type=positive, default=None,
                   help="segments per ACK that grow the window: 2 for delayed ACKs without byte "
                        f"counting (default {_FORMULA_DEFAULTS['b']:g}; not with --simulate, where the "
                        "profile sets it)")
    r.add_argument("--simulate", choices=_LOSS, default=None,
                   help="also run one flow per p: every ceil(1/p)-th packet dropped (periodic), "
                        "each dropped with probability p (bernoulli), or every ceil(1/p)-th "
                        "CE-marked with ECN on (marks)")
    r.add_argument("--profile", default=None,
                   help=f"with --simulate: TCP profile of the simulated flow (default "
                        f"{_SIMULATE_DEFAULTS['profile']}); the reference formula follows it: CUBIC's for "
                        "linux, b = 2 for ns3")
    r.add_argument("--duration", type=positive, default=None,
                   help="with --simulate: simulated seconds per run, the first fifth is warm-up "
                        f"(default {_SIMULATE_DEFAULTS['duration']:g})")
    r.set_defaults(func=reporting_errors(_response))


def _response(args: argparse.Namespace) -> int:
    # Here, not at the top: registering the command must not import pandas (issue 22).
    import pandas as pd

    from .._options import fill_defaults, refuse_given
    from .response import response_table

    if args.simulate is None:
        refuse_given(args, ["--profile", "--duration"], "applies only with --simulate (it sets up the simulated flow)")
        fill_defaults(args, _FORMULA_DEFAULTS)
        table = response_table(args.p, args.rtt, args.rto, args.b)
        no_rto = "; pftk needs --rto (its timeout term), NaN without it" if args.rto is None else ""
        print(f"packets/s at RTT {args.rtt:g} s, b = {args.b:g} segments per ACK{no_rto}")
        return _print(table)
    refuse_given(args, ["--rto", "--b"], "applies only without --simulate (the simulated flow's profile sets b, "
                                         "and its RTO is measured)")
    fill_defaults(args, _SIMULATE_DEFAULTS)
    tcp = _profile(args.profile)
    cubic = tcp["cc"] == "cubic"
    b = float(tcp["ack_every"]) if tcp["growth"] == "per_ack" else 1.0
    measured = [_measure(p, args) for p in args.p]
    table = pd.concat([response_table([p], args.rtt, rto, b) for p, (_, rto) in zip(args.p, measured)],
                      ignore_index=True)
    table["measured"] = [m for m, _ in measured]
    # Deterministic drops: the continuous formula and the whole-round cycle it approximates.
    references = {
        "periodic": ["cubic_rfc9438", "cubic_whole_round"] if cubic else ["square_root_law", "whole_round"],
        "bernoulli": ["cubic_rfc9438"] if cubic else ["pftk"],
        "marks": ["cubic_rfc9438"] if cubic else ["square_root_law"],
    }[args.simulate]
    for ref in references:
        table[f"measured/{ref}"] = table["measured"] / table[ref]
    what = "every ceil(1/p)-th packet CE-marked" if args.simulate == "marks" else f"{args.simulate} loss"
    print(f"packets/s at RTT {args.rtt:g} s, one {args.profile} flow ({tcp['cc']}, b = {b:g}), {what}; "
          "pftk with the measured RTO")
    return _print(table)


def _print(table: pd.DataFrame) -> int:
    import pandas as pd

    with pd.option_context("display.float_format", "{:.4g}".format, "display.width", 200):
        print(table.to_string(index=False))
    return 0


def _profile(name: str) -> dict:
    from .. import _core
    from ..errors import ScenarioError

    # Checked here, before any run, to name the option rather than the simulator's field.
    if name not in _core.TCP_PROFILES:
        raise ScenarioError("--profile", f"unknown TCP profile {name!r} (accepted: {', '.join(_core.TCP_PROFILES)})")
    return json.loads(_core.resolve_tcp(name, "{}"))


def _measure(p: float, args: argparse.Namespace) -> tuple[float, float]:
    """One flow's delivered packets per second after warm-up, and its final RTO (s)."""
    from ..api import run

    every = math.ceil(1.0 / p)
    loss = {"bernoulli": p} if args.simulate == "bernoulli" else {"periodic": every}
    flow = {"type": "tcp", "count": 1, "rtt": f"{args.rtt * 1e3:g}ms", "start": "0s",
            "profile": args.profile, "packet_size": "1000B"}
    if args.simulate == "marks":
        flow["ecn"] = True
    scenario = {
        "name": f"response-{args.simulate}-p{p:g}",
        "seed": 1,
        "duration": f"{args.duration:g}s",
        "warmup": f"{args.duration / 5:g}s",
        "bottleneck": {"rate": "1Gbps", "delay": f"{args.rtt * 250:g}ms",
                       "queue": {"type": "drop_tail", "limit": "100000p"},
                       "impairment": {"loss": loss, "mark": args.simulate == "marks"}},
        "flows": [flow],
    }
    f = run(scenario, progress=False).flow_rows()[0]
    return f["throughput_bps"] / (8.0 * 1000), f["rto_s"]
