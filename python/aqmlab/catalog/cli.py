"""``aqmlab reproduce``: run the experiment catalog and write the paper-vs-ours report.

The top-level parser calls :func:`register` with its subparsers object; the subcommand sets
``func`` to :func:`cmd_reproduce`, which takes the parsed namespace and returns an exit code.
"""

from __future__ import annotations

import argparse
import os
import time

from ..errors import ScenarioError


# The defaults of the options that only a run reads (see aqmlab._options).
_RUN_DEFAULTS = {"output": os.path.join("out", "reproduce"), "jobs": 1}


def cmd_reproduce(args: argparse.Namespace) -> int:
    from .._options import fill_defaults, refuse_given
    from ..cli import _check_output_dir
    from ..outdir import check_output
    from . import registry, report
    from .runner import run_experiments

    if args.all and args.ids:
        raise ScenarioError("--all", "give experiment ids or --all, not both")
    if args.list:
        refuse_given(args, ["--quick", "--seeds", "--jobs", "--output", "--force"],
                     "applies only without --list (--list runs nothing and writes nothing)")
    if args.live:
        refuse_given(args, ["--seeds", "--jobs"], "applies only without --live (--live takes the catalog's seeds "
                                                  "and runs one at a time)")
    fill_defaults(args, _RUN_DEFAULTS)
    if not args.list:
        _check_output_dir("--output", args.output)  # the default too, as main() checks a given one
        check_output(args.output, report.OUTPUT, force=args.force)
    if not args.all and not args.ids and not args.list:
        raise ScenarioError("ID", "name experiments (see --list), or give --all")
    if args.live:
        from ..live.reproduce import cmd_reproduce_live

        return cmd_reproduce_live(args)
    try:
        exps = registry.select(args.ids) if args.ids else registry.experiments()
    except KeyError as e:
        raise ScenarioError("ID", e.args[0]) from None
    if args.list:
        for e in exps:
            print(f"{e.id:<30} {e.figure:<34} {e.title}")
        return 0
    mode = "quick" if args.quick else "full-length"
    print(f"reproducing {len(exps)} experiments ({mode}, {args.seeds or 'default'} seeds, {args.jobs} runs at a time) "
          f"into {args.output}/")
    t0 = time.perf_counter()

    def done(o):
        failed = [c for c in o.checks if c.verdict != "reproduced"]
        print(f"  {o.id:<30} {o.verdict:<11} {len(o.checks) - len(failed)}/{len(o.checks)} claims  "
              f"{o.wall_s:6.1f} s", flush=True)

    outcomes = run_experiments(exps, quick=args.quick, jobs=args.jobs, seeds=args.seeds, on_done=done)
    wall = time.perf_counter() - t0
    path = report.write(list(zip(exps, outcomes)), args.output, total_wall_s=wall)
    print(f"wrote {path} and results.json in {wall:.1f} s")
    return 0


def register(subparsers) -> argparse.ArgumentParser:
    """Adds the ``reproduce`` subcommand to an argparse subparsers object."""
    p = subparsers.add_parser(
        "reproduce",
        help="re-run published AQM experiments and write a paper-vs-ours HTML report",
        description="Run experiments of the catalog (figures of published AQM papers rebuilt as "
                    "aqmlab scenarios), compute the numbers each paper reports, judge every claim "
                    "over 5 seeds against a tolerance band and against a null control (the same runs with "
                    "DropTail in place of the AQM): reproduced / deviates / not discriminating, by how much and "
                    "why; and write "
                    "a self-contained OUTDIR/report.html (figures inlined, resolved scenarios, aqmlab "
                    "version) plus OUTDIR/results.json. Runs are deterministic (each scenario fixes "
                    "its seed).",
        epilog="examples: aqmlab reproduce --list; aqmlab reproduce pie13-fig7; "
               "aqmlab reproduce pie13- --quick (every experiment whose id starts with pie13-); "
               "aqmlab reproduce --all -j 2 -o out/reproduce",
    )
    p.add_argument("ids", nargs="*", metavar="ID",
                   help="experiment ids, id prefixes (e.g. 'pie13-') or shell globs (e.g. 'pie13-fig1*')")
    p.add_argument("--list", action="store_true",
                   help="list the experiments (id, paper figure, title), or those the IDs given match, and exit")
    p.add_argument("--all", action="store_true", help="run every experiment of the catalog")
    p.add_argument("--quick", action="store_true",
                   help="shortened runs (what the test suite uses, with 2 null-control seeds instead of 5); "
                        "their verdicts are those the catalog expects of quick runs")
    p.add_argument("--seeds", type=_jobs, default=None, metavar="N",
                   help="seeds per experiment (default 5); fewer make the verdicts less robust (not with "
                        "--live)")
    p.add_argument("-o", "--output", metavar="OUTDIR", default=None,
                   help="directory for report.html and results.json (default: out/reproduce): new, empty, or "
                        "holding an earlier reproduction (replaced)")
    p.add_argument("--force", action="store_true",
                   help="write into a non-empty OUTDIR that does not hold an earlier reproduction (its own files "
                        "are replaced)")
    p.add_argument("-j", "--jobs", type=_jobs, default=None, metavar="N",
                   help="runs (one seed of one experiment) in parallel, one process each (default: 1; not "
                        "with --live)")
    p.add_argument("--live", action="store_true",
                   help="run the experiments named (or, with --all, every one) that have a live form (the PIE "
                        "paper's testbed, Figs. 10-11) on real Linux TCP through aqmlab's router, next to the "
                        "simulation (needs root; see `aqmlab live`)")
    p.set_defaults(func=cmd_reproduce)
    return p


def _jobs(text: str) -> int:
    try:
        n = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a whole number >= 1, got {text!r}") from None
    if n < 1:
        raise argparse.ArgumentTypeError(f"expected a whole number >= 1, got {text!r}")
    return n
