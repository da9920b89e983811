"""The ``aqmlab compare`` subcommand."""

from __future__ import annotations

import argparse
from pathlib import Path


def cmd_compare(args: argparse.Namespace) -> int:
    from ..outdir import check_output
    from .runs import OUTPUT, compare, load_runs, table

    dirs = [Path(d) for d in args.runs]
    runs = load_runs(dirs, args.label)
    # Before the table: a refused directory prints nothing but the error.
    check_output(args.output, OUTPUT, force=args.force)
    print(table(runs))
    for r in runs:
        if r.no_delay_cdf is not None:
            print(f"{r.label}: {r.no_delay_cdf}: its delay CDF is not drawn")
    paths = compare(dirs, Path(args.output), args.label)
    print(f"wrote {', '.join(p.name for p in paths)} to {args.output}/")
    return 0


def register(sub: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    c = sub.add_parser("compare", help="plot several saved runs together (delay CDF, throughput vs delay, "
                                       "per-flow throughput), as flent does",
                       description="Compare runs written by 'aqmlab run -o DIR': prints their headline figures and "
                                   "draws the delay CDF, throughput against delay (median, interquartile ranges and "
                                   "the 1-sigma ellipse of the measured intervals) and per-flow throughput over "
                                   "time for every run on one figure.")
    c.add_argument("runs", nargs="+", metavar="RUN_DIR", help="directories written by 'aqmlab run -o'")
    c.add_argument("-o", "--output", default="compare", metavar="OUTDIR", help="where the plots go (default: compare)")
    c.add_argument("--force", action="store_true",
                   help="write into a non-empty OUTDIR that does not hold an earlier comparison (its own files are "
                        "replaced)")
    c.add_argument("--label", action="append", metavar="LABEL",
                   help="a run's label, once per run in order (default: the scenario names)")
    c.set_defaults(func=cmd_compare)
