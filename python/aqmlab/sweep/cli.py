"""`aqmlab sweep`: run a sweep file on a local pool, Dask or Ray into a resumable result store.

The main command line adds it with ``sweep_cli.register(subparsers)``; ``python -m aqmlab.sweep``
is the same command on its own (:func:`main`).
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from ..errors import ScenarioError
from .store import FLOW_METRICS, METRICS

_DESCRIPTION = """\
Run every scenario of a sweep file: a base scenario with axes over its fields (Cartesian axes
and zipped groups) and replications with derived seeds. Each finished run is recorded in the
store at once (STORE/records/<run key>.json), so a sweep that is stopped, killed or crashes
loses no finished run, and running the same command again runs only what is missing (runs
that failed are tried again). At the end STORE/summary.parquet holds one row per run: the
swept values, replication, seed, run key, aqmlab version and the summary metrics.

Results are the same whatever the backend and the number of workers: each run is a pure
function of its resolved scenario and seed. Exit status: 0 when every run succeeded, 1 when
some failed (listed on stderr), 2 for input errors, 130 when interrupted by Ctrl-C.
"""

_EPILOG = """\
sweep file (TOML):
  name = "droptail-buffer"        # names the default store (./NAME-results); letters,
                                  # digits, '.', '_' and '-' (default: the file's name)
  base = "dumbbell-droptail"      # a path relative to the sweep file, a built-in scenario,
                                  # or an inline [base] table
  replications = 3                # runs per grid point (seeds: SplitMix64 of base seed, index)
  seed = 1                        # base seed (default: the base scenario's)
  traces = false                  # keep each run's traces in STORE/runs/<run key>/
  [set]                           # fixed overrides, by dotted path
  duration = "10s"
  warmup = "2s"
  [axes]                          # Cartesian axes, by dotted path
  "bottleneck.queue.limit" = ["20p", "50p"]
  "flows[0].count" = [1, 4]
  [[zip]]                         # fields that vary together (lists of equal length)
  "bottleneck.rate" = ["10Mbps", "100Mbps"]
  "bottleneck.delay" = ["25ms", "5ms"]
  "flows[0].rtt" = ["100ms", "20ms"]

example: aqmlab sweep droptail-buffer.toml --workers 2 --plot qdelay_mean_s
  (a copy ships with aqmlab: python -c "import aqmlab.sweep as s; print(s.example_path('droptail-buffer'))")
"""


def register(subparsers) -> None:
    """Adds ``aqmlab sweep`` to the main parser's subcommands."""
    p = subparsers.add_parser("sweep", help="run a parameter sweep (local pool, Dask or Ray) into a result store",
                              description=_DESCRIPTION, epilog=_EPILOG,
                              formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("sweep", nargs="?", metavar="SWEEP.toml",
                   help="the sweep file (optional with --collect and -o)")
    p.add_argument("-o", "--store", metavar="DIR",
                   help="the result store directory (default: ./NAME-results, NAME from the sweep file)")
    where = p.add_mutually_exclusive_group()
    where.add_argument("--workers", type=int, metavar="N",
                       help="local process pool size (default: the number of CPUs)")
    where.add_argument("--dask", metavar="ADDRESS",
                       help="run on Dask: a scheduler address (tcp://host:8786) or local[:N] for a "
                            "LocalCluster of N worker processes")
    where.add_argument("--ray", metavar="ADDRESS", nargs="?", const="",
                       help="run on Ray: a cluster address (ray://host:10001, auto), local[:N] to start "
                            "a local Ray with N CPUs, or no value to use RAY_ADDRESS (else a local Ray)")
    traces = p.add_mutually_exclusive_group()
    traces.add_argument("--traces", dest="traces", action="store_true", default=None,
                        help="keep each run's traces in STORE/runs/<run key>/ (overrides the sweep file)")
    traces.add_argument("--no-traces", dest="traces", action="store_false", help="do not keep traces")
    p.add_argument("--collect", action="store_true",
                   help="run nothing: rebuild STORE/summary.parquet from the finished runs' records (with "
                        "--plot: and plot them; the options of a run are refused)")
    p.add_argument("--list", action="store_true",
                   help="run nothing: validate the sweep and list its runs (point, replication, seed, "
                        "run key, values) with their state in the store (alone: --collect, --plot and "
                        "the options of a run are refused)")
    p.add_argument("--plot", metavar="METRIC", action="append",
                   help=f"write STORE/plots/: curves over the first axis with 95%% confidence intervals and "
                        f"a heat map over the first two axes (repeatable; metrics: "
                        f"{', '.join(METRICS + FLOW_METRICS)})")
    p.add_argument("--force", action="store_true",
                   help="accept runs estimated to take hours or more memory than this machine has to spare "
                        "(refused when the sweep file is validated, --list included, before any run)")
    p.add_argument("-q", "--quiet", action="store_true", help="no progress bar")
    p.set_defaults(func=cmd_sweep)


def _store_dir(args, sweep) -> Path:
    if args.store:
        return Path(args.store)
    if sweep is None:
        raise ScenarioError("SWEEP.toml", "give a sweep file, or the store with -o")
    return Path(f"{sweep.name}-results")


# What only running the sweep reads: --list and --collect run nothing.
_RUN_OPTIONS = ["--traces", "--no-traces", "--workers", "--dask", "--ray", "--quiet"]


def cmd_sweep(args) -> int:
    from .._options import refuse_given
    from .runner import print_failures, run_sweep
    from .spec import Sweep
    from .store import Store

    if args.list:
        refuse_given(args, ["--collect", "--plot", *_RUN_OPTIONS], "applies only without --list (--list runs nothing "
                                                                    "and writes nothing)")
    if args.collect:
        refuse_given(args, _RUN_OPTIONS, "applies only to running the sweep (--collect runs nothing)")
    for metric in args.plot or []:
        if metric not in METRICS + FLOW_METRICS:
            raise ScenarioError("--plot", f"unknown metric {metric!r} (accepted: {', '.join(METRICS + FLOW_METRICS)})")
    if args.sweep is None and not (args.collect and args.store):
        raise ScenarioError("SWEEP.toml", "is required (only --collect with -o works without it)")
    if args.sweep is None:
        refuse_given(args, ["--force"], "applies only with a sweep file (it accepts the file's large runs)")
    if args.sweep is not None and not Path(args.sweep).is_file():
        raise ScenarioError("SWEEP.toml", f"no such file: {args.sweep}")
    sweep = Sweep.load(args.sweep, force=args.force) if args.sweep is not None else None
    store = Store(_store_dir(args, sweep))

    if args.list:
        _list(sweep, store)
        return 0
    status = 0
    if args.collect:
        df = store.collect()
        print(f"collected {len(df)} finished runs into {store.summary_path}")
    else:
        with backend_from_args(args) as backend:
            report = run_sweep(sweep, store.root, backend=backend, traces=args.traces,
                               progress=False if args.quiet else None)
        print(report.text())
        print_failures(report)
        print(f"results: {store.summary_path}")
        status = 130 if report.interrupted else 1 if report.failed else 0
    if args.plot and status != 130:
        from . import plots

        axes = [p for g in store.manifest()["sweep"]["groups"] for p, _ in g]
        df = store.table()
        for metric in args.plot:
            for path in plots.save_plots(df, axes, metric, store.root / "plots"):
                print(f"wrote {path}")
    return status


def backend_from_args(args):
    """The backend --workers, --dask or --ray name (also `aqmlab characterize`'s), with a missing
    package or an unreachable cluster as an input error naming the option."""
    from .backends import make_backend

    option = "--dask" if args.dask is not None else "--ray" if args.ray is not None else "--workers"
    try:
        return make_backend(workers=args.workers, dask=args.dask, ray=args.ray)
    except ImportError as e:
        extra = {"--dask": "sweep-dask", "--ray": "sweep-ray"}[option]
        raise ScenarioError(option, f"{e.name} is not installed (pip install 'aqmlab[{extra}]')") from None
    except (OSError, ConnectionError, TimeoutError) as e:
        raise ScenarioError(option, f"cannot reach the cluster: {e}") from None


def _list(sweep, store) -> None:
    records = store.records()
    for s in sweep.runs():
        state = records[s.key]["status"] if s.key in records else "pending"
        values = ", ".join(f"{p}={v!r}" for p, v in s.values.items())
        print(f"{s.point:4d} r{s.replication:<3d} seed={s.seed:<20d} {s.key[:12]} {state:<7} {values}")


def main(argv: list[str] | None = None) -> int:
    """``python -m aqmlab.sweep ARGS`` = ``aqmlab sweep ARGS``."""
    from ..cli import main as aqmlab_main

    return aqmlab_main(["sweep", *(sys.argv[1:] if argv is None else argv)])
