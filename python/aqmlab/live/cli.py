"""`aqmlab live SCENARIO`: run a scenario on real Linux hosts (network namespaces) with the
simulator's AQM in a userspace router; `--compare` simulates it too and shows both."""

from __future__ import annotations

import argparse
import sys
from typing import TYPE_CHECKING

from ..errors import ScenarioError
from ..outdir import OutputKind, check_output

if TYPE_CHECKING:
    from .plan import LivePlan

DEFAULT_RT_PRIORITY = 20
# The defaults of the options that apply in one mode only (see aqmlab._options).
_MODE_DEFAULTS = {"rt_priority": DEFAULT_RT_PRIORITY, "rates": "10Mbps,100Mbps,1Gbps", "bench_duration": "5s",
                  "spin": 0.0}
# What only the run of a scenario reads: --bench runs its own, --cleanup none.
_SCENARIO_OPTIONS = ["scenario", "--set", "--seed", "--output", "--no-plots", "--force", "--quiet", "--compare"]
# The longest busy-poll window: a second already spins through any gap between a run's packets,
# and the bound keeps the router's nanosecond window far from overflow.
MAX_SPIN_US = 1e6


def _spin_us(text: str) -> float:
    """--spin, checked while parsing: a bad value would otherwise surface only once the testbed
    is built."""
    expected = f"expected microseconds in [0, {MAX_SPIN_US:g}], got {text!r}"
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(expected) from None
    if not 0 <= value <= MAX_SPIN_US:  # NaN fails both comparisons
        raise argparse.ArgumentTypeError(expected)
    return value


def _rt_priority(text: str) -> int:
    """--rt-priority: an integer in [1, 99], said so (argparse's choices would list all 99)."""
    expected = f"expected an integer in [1, 99], got {text!r}"
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(expected) from None
    if not 1 <= value <= 99:
        raise argparse.ArgumentTypeError(expected)
    return value


def _plan(args) -> LivePlan:
    from ..cli import _parse_set
    from . import Scenario, load_raw
    from .plan import plan

    raw = load_raw(args.scenario)
    values = _parse_set(args.set or [])
    if args.seed is not None:
        values["seed"] = args.seed
    # Scenario.edited, as `aqmlab run --set`: a new profile on a saved table brings its defaults,
    # a warning names the options of the file it keeps (and the saved ones that gave way), and the
    # warnings (and errors) are the edited scenario's, not the file's before --set changed it.
    # Resolved and planned here, with or without --set, so that the scenario is checked for live
    # use (and warned about, once) before the privileges are.
    scenario = Scenario.edited(raw, values)
    return plan(scenario.given, scenario)


def guarded(body) -> int:
    """Runs `body()` and maps the live run's own errors to exit codes: 2 for missing privileges,
    1 for a failed run, 130 for Ctrl-C. A bad scenario (ScenarioError) is main()'s, also exit 2."""
    from ..cli import print_error
    from .system import LiveError, PrivilegeError

    try:
        return body()
    except PrivilegeError as e:
        print_error(e)
        return 2
    except LiveError as e:
        print_error(e)
        return 1
    except KeyboardInterrupt:
        print("aqmlab: interrupted; testbed removed", file=sys.stderr)
        return 130


def _live(args) -> int:
    from .._options import NEEDS_OUTPUT, fill_defaults, refuse_given
    from . import Options, clean
    from .system import require_privileges

    # Before the privileges are checked: these need none to be found wrong.
    if args.cleanup:
        refuse_given(args, ["--bench", *_SCENARIO_OPTIONS, "--rt-priority", "--no-realtime", "--spin"],
                     "applies only without --cleanup (it only removes the namespaces of killed runs)")
    elif args.bench:
        refuse_given(args, _SCENARIO_OPTIONS, "applies only without --bench (it runs its own scenarios, set by "
                                              "--rates and --bench-duration)")
    if not args.output:
        refuse_given(args, ["--no-plots", "--force"], NEEDS_OUTPUT)
    if not args.bench:
        refuse_given(args, ["--rates", "--bench-duration"], "applies only with --bench")
    if args.no_realtime:
        refuse_given(args, ["--rt-priority"], "applies only without --no-realtime (the router runs at normal priority)")
    fill_defaults(args, _MODE_DEFAULTS)
    # The values, too, before the privileges and before anything is printed: a bad one is found
    # without root, and never after the bench's table header.
    if args.bench:
        from .bench import bench_options

        bench = bench_options(args.rates, args.bench_duration)
    elif not args.cleanup:
        if not args.scenario:
            raise ScenarioError("scenario", "give a scenario file or built-in name, or --bench or --cleanup")
        planned = _plan(args)
        if args.output:
            check_output(args.output, _output_kind(args.compare), force=args.force)
    require_privileges()
    opts = Options(rt_priority=None if args.no_realtime else args.rt_priority, spin_us=args.spin)
    if args.cleanup:
        removed = clean()
        print(f"removed {len(removed)} stale namespaces" + (f": {', '.join(removed)}" if removed else ""))
        return 0
    if args.bench:
        from .bench import run_bench

        run_bench(*bench, opts)
        return 0
    progress = None if not args.quiet else False
    if args.compare:
        from .compare import run_compare

        return run_compare(planned, opts, args.output, plots=not args.no_plots, force=args.force, progress=progress)
    from . import run

    result = run(planned, opts, progress=progress)
    print(result.text())
    if args.output:
        files = result.save(args.output, plots=not args.no_plots, force=args.force)
        print(f"wrote {len(files)} files to {args.output}/ (summary.json, scenario.toml, traces/, plots/)")
    return 130 if result.summary["interrupted"] else 0


def _output_kind(compare: bool) -> OutputKind:
    """What `live -o` writes: a run's files, as `aqmlab run -o` (the same Result.save); with
    --compare, the live run and its simulated twin each in a folder of their own, beside the
    table and figure comparing them."""
    from ..result import RUN_OUTPUT

    if not compare:
        return RUN_OUTPUT
    from .compare import OUTPUT

    return OUTPUT


def cmd_live(args) -> int:
    return guarded(lambda: _live(args))


def register(sub) -> argparse.ArgumentParser:
    from ..cli import SET_HELP

    p = sub.add_parser(
        "live", help="run a scenario on real Linux TCP through the simulator's AQM (needs root)",
        description="Build a testbed of network namespaces (sender, router, receiver), run the scenario's "
                    "flows with the kernel's TCP and a constant-bit-rate UDP source, and put the scenario's "
                    "bottleneck (rate, delay, AQM, queue limit) in a userspace router that runs the simulator's "
                    "own AQM code. Writes the same outputs as `aqmlab run`. Needs CAP_NET_ADMIN, CAP_NET_RAW "
                    "and CAP_SYS_ADMIN (root); a scenario field real hosts cannot express is an error.",
        epilog="examples: sudo aqmlab live pie-base -o out/live; aqmlab live pie-base --compare -o out/cmp; "
               "aqmlab live --bench; aqmlab live --cleanup")
    p.add_argument("scenario", nargs="?", help="a scenario TOML file or built-in name")
    p.add_argument("--set", action="append", metavar="KEY=VALUE", help=SET_HELP)
    p.add_argument("--seed", type=int, help="override the scenario's seed")
    p.add_argument("-o", "--output", metavar="OUTDIR", help="directory for the results")
    p.add_argument("--no-plots", action="store_true", help="with -o: skip the PNG plots")
    p.add_argument("--force", action="store_true",
                   help="with -o: write into a non-empty OUTDIR that does not hold an earlier live run (or with "
                        "--compare an earlier comparison); its own files are replaced")
    p.add_argument("-q", "--quiet", action="store_true", help="no progress bar")
    p.add_argument("--compare", action="store_true",
                   help="also simulate the scenario (TCP profile 'linux' with the live run's congestion control) "
                        "and print both side by side; with -o writes live/, sim/ and compare.png")
    p.add_argument("--rt-priority", type=_rt_priority, default=None, metavar="1-99",
                   help=f"SCHED_FIFO priority of the router, 1 to 99 (default {DEFAULT_RT_PRIORITY})")
    p.add_argument("--no-realtime", action="store_true", help="run the router at normal priority")
    p.add_argument("--spin", type=_spin_us, default=None, metavar="US",
                   help=f"busy-poll when the router's next event is closer than US microseconds, 0 to "
                        f"{MAX_SPIN_US:g} (default 0: always sleep)")
    p.add_argument("--cleanup", action="store_true",
                   help="only remove namespaces left by live runs that were killed, and exit (alone: no "
                        "scenario or other option)")
    p.add_argument("--bench", action="store_true",
                   help="benchmark the router: send lateness percentiles and CPU per link rate (no scenario, "
                        "--compare or -o)")
    p.add_argument("--rates", default=None,
                   help=f"link rates of --bench (comma-separated; default {_MODE_DEFAULTS['rates']})")
    p.add_argument("--bench-duration", default=None,
                   help=f"length of each --bench run (default {_MODE_DEFAULTS['bench_duration']})")
    p.set_defaults(func=cmd_live)
    return p
