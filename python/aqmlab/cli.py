"""The `aqmlab` command line."""

from __future__ import annotations

import sys


def _interrupted_hook(kind, value, tb):  # type: ignore[no-untyped-def]
    """Ctrl-C before main() is running (while Python imports this module): one line, no traceback."""
    if issubclass(kind, KeyboardInterrupt):
        print("aqmlab: interrupted", file=sys.stderr)
    else:
        sys.__excepthook__(kind, value, tb)


sys.excepthook = _interrupted_hook

import argparse  # noqa: E402
import os  # noqa: E402
import tomllib  # noqa: E402
import warnings  # noqa: E402
from pathlib import Path  # noqa: E402
from typing import NoReturn  # noqa: E402

from .errors import AqmlabWarning, ScenarioError  # noqa: E402
from .outdir import OutputKind, check_output  # noqa: E402


# What --set does, for every command that edits a scenario file with Scenario.load (or Scenario.edited).
SET_HELP = ("override a field by dotted path, e.g. --set bottleneck.rate=20Mbps --set 'flows[0].count=50' "
            "(repeatable), as the file saying it would: a table the file leaves out starts from its default; a new "
            "profile brings its defaults under the options written or set (in a saved scenario.toml, which writes them "
            "all, those at the old profile's defaults give way; a warning names the options it keeps, and those that gave way "
            "with their old and new values, to pin with --set); a flow's rtt stays the round trip, so a new "
            "bottleneck.delay changes its access delay; rtt and access_delay each replace the other; the file is checked "
            "as edited (errors and warnings are the edited scenario's)")


def _parse_set(items: list[str]) -> dict:
    """--set key=value: the value is read as TOML when it parses ('3', 'true', '"x"'), else as a string."""
    values = {}
    for item in items:
        key, sep, raw = item.partition("=")
        if not sep or not key.strip():
            raise ScenarioError("--set", f"expected KEY=VALUE, got {item!r}")
        try:
            values[key.strip()] = tomllib.loads(f"v = {raw}")["v"]
        except tomllib.TOMLDecodeError:
            values[key.strip()] = raw
    return values


def _load(args):
    from .scenario import Scenario

    overrides = _parse_set(args.set or [])
    if args.seed is not None:
        overrides["seed"] = args.seed
    # The file is resolved once, as edited: its warnings (and errors) are those of what runs, not
    # of the file before --set changed it.
    return Scenario.load(args.scenario, overrides)


def cmd_run(args) -> int:
    from ._options import NEEDS_OUTPUT, refuse_given
    from .api import check_size, run
    from .result import prepare_output

    if not args.output:
        refuse_given(args, ["--csv", "--no-plots", "--no-report"], NEEDS_OUTPUT)
    scn = _load(args)
    check_size(scn, force=args.force)
    if args.output:
        # Before the run, so that a bad directory costs nothing.
        prepare_output(args.output, force=args.force)
    result = run(scn, progress=None if not args.quiet else False, force=True)
    print(result.text())
    if args.output:
        files = result.save(args.output, plots=not args.no_plots, force=args.force, report=not args.no_report,
                            csv=args.csv)
        print(f"wrote {len(files)} files to {args.output}/ ({_top_entries(files, Path(args.output))})")
        if not args.no_report:
            print(f"report: {args.output}/report.html")
    return 130 if result.summary["interrupted"] else 0


def _top_entries(files: list[Path], outdir: Path) -> str:
    """What the files written make of the output directory, in writing order: its files and its
    subdirectories (with a slash), so that --no-plots lists no plots/."""
    entries: dict[str, None] = {}
    for f in files:
        first, *rest = Path(f).resolve().relative_to(outdir.resolve()).parts
        entries[f"{first}/" if rest else first] = None
    return ", ".join(entries)


def cmd_validate(args) -> int:
    from .api import check_size

    scn = _load(args)
    est = check_size(scn, force=args.force)
    print(scn.to_toml(), end="")
    print(f"aqmlab: {scn.name}: {est.text()} (estimated)", file=sys.stderr)
    return 0


def cmd_scenarios(args) -> int:
    from .scenario import BUILTIN_DIR, Scenario, builtin_scenarios

    for name in builtin_scenarios():
        print(f"{name:<24} {Scenario.from_toml(BUILTIN_DIR / f'{name}.toml').resolved['description']}")
    return 0


# What `fluid -o` writes: the time series and its plot.
FLUID_FILES = ("fluid.parquet", "fluid.png")
FLUID_OUTPUT = OutputKind("an aqmlab fluid model", FLUID_FILES)


def cmd_fluid(args) -> int:
    from ._options import NEEDS_OUTPUT, refuse_given
    from .analysis.fluid import fluid_run
    from .analysis.from_scenario import fluid_params, fluid_summary

    no_seed = "applies only to packet-level runs (the fluid model has no randomness: every seed gives the same " \
              "solution)"
    refuse_given(args, ["--seed"], no_seed)
    if not args.output:
        refuse_given(args, ["--force"], NEEDS_OUTPUT)
    if "seed" in _parse_set(args.set or []):
        raise ScenarioError("--set seed", no_seed)
    scn = _load(args)
    params = fluid_params(scn)
    if args.output:
        # After the scenario's checks, before the model is solved: a refused directory costs nothing.
        out = check_output(args.output, FLUID_OUTPUT, force=args.force)
    try:
        series = fluid_run(params)
    except ScenarioError:
        raise
    except ValueError as e:
        # The model's own input checks (a schedule that empties the network, a capacity so low
        # that the delay history would not fit): the scenario is fine for the simulator only.
        raise ScenarioError("fluid model", str(e)) from None
    summary = fluid_summary(series, scn.sim_config["warmup_ns"] * 1e-9)
    ranged = any("uniform" in g["access_delay_ns"] for g in scn.sim_config["flows"])
    print(f"fluid model of {scn.name}: N = {params['n_flows']}, C = {params['capacity_bps'] / 1e6:g} Mb/s, "
          f"R0 = {params['rtt_s'] * 1e3:.1f} ms{' (the mean of the random RTT range)' if ranged else ''}, "
          f"{params['aqm']['type']}")
    print(f"  queue delay mean {summary['qdelay_mean_s'] * 1e3:.2f} ms, queue {summary['queue_mean_packets']:.1f} packets, "
          f"p mean {summary['p_mean']:.5f}, utilization {summary['utilization'] * 100:.2f} %")
    if args.output:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt

        out.mkdir(parents=True, exist_ok=True)
        from .tables import Table

        table, figure = FLUID_FILES
        Table(dict(series)).write_parquet(out / table)
        fig, (a1, a2) = plt.subplots(2, 1, figsize=(8, 5), sharex=True)
        a1.plot(series["t"], series["queue_delay"] * 1e3)
        a1.set_ylabel("queueing delay (ms)")
        a2.plot(series["t"], series["p"])
        a2.set_ylabel("p")
        a2.set_xlabel("time (s)")
        fig.suptitle(f"{scn.name} (fluid model)")
        fig.tight_layout()
        fig.savefig(out / figure, dpi=100)
        plt.close(fig)
        print(f"wrote {out}/{table} and {out}/{figure}")
    return 0


def cmd_bench(args) -> int:
    from . import _core, bench
    from ._options import fill_defaults, refuse_given

    if args.vs_ns3:
        from .xval import Ns3Unavailable
        from .xval.suite import suite_names

        fill_defaults(args, {"pairs": 3})
        for name in args.scenario:
            if name not in suite_names():
                raise ScenarioError("scenario", f"--vs-ns3 runs scenarios of the xval suite: {', '.join(suite_names())}")
        if args.pairs < 1:
            raise ScenarioError("--pairs", f"must be at least 1, got {args.pairs}")
        try:
            bench.vs_ns3(args.scenario or None, pairs=args.pairs)
        except Ns3Unavailable as e:
            raise ScenarioError("--vs-ns3", str(e)) from None
        return 0
    refuse_given(args, ["--pairs"], "applies only with --vs-ns3 (the runs of each simulator)")
    known = [*_core.BENCH_SCENARIOS, *bench.SAVED]
    for name in args.scenario:
        if name not in known:
            raise ScenarioError("scenario", f"no benchmark named {name!r} (benchmarks: {', '.join(known)})")
    engine = [n for n in args.scenario if n not in bench.SAVED]
    if engine or not args.scenario:
        bench.run(engine or None)
    for name in args.scenario:
        if name in bench.SAVED:
            bench.run_saved(name)
    return 0


class _Version(argparse.Action):
    """--version, reading the installed metadata only when asked (importlib.metadata is slow
    to import, and `aqmlab --help` must stay fast: issue 22)."""

    def __call__(self, parser, namespace, values, option_string=None):  # type: ignore[no-untyped-def]
        from . import __version__

        print(f"aqmlab {__version__}")
        parser.exit()


def print_error(message: object) -> None:
    """Prints an error in the one form of every error the command line prints."""
    print(f"aqmlab: error: {message}", file=sys.stderr)


class _Parser(argparse.ArgumentParser):
    """argparse's own errors (an unknown option, a bad value, two options of one group) in the
    same form, after the command's usage line; subcommands' parsers are of this class too."""

    def error(self, message: str) -> NoReturn:
        self.print_usage(sys.stderr)
        print_error(message)
        self.exit(2)


def build_parser() -> argparse.ArgumentParser:

    p = _Parser(
        prog="aqmlab",
        description="Design, tune and defend Active Queue Management schemes: run packet-level "
                    "experiments on a dumbbell, benchmark the simulator, analyse AQM control loops.",
    )
    p.add_argument("--version", action=_Version, nargs=0, help="show the version and exit")
    sub = p.add_subparsers(dest="command", required=True, metavar="COMMAND")

    def scenario_args(sp, seed_help="override the scenario's seed"):
        sp.add_argument("scenario", help="a scenario TOML file, or the name of a built-in one (see 'aqmlab scenarios')")
        sp.add_argument("--set", action="append", metavar="KEY=VALUE", help=SET_HELP)
        sp.add_argument("--seed", type=int, help=seed_help)

    r = sub.add_parser("run", help="simulate a scenario, print its summary, write results",
                       description="Simulate a scenario. Prints the summary; with -o writes summary.json, the "
                                   "resolved scenario.toml, sim_config.json, traces as Parquet, PNG plots, packet captures "
                                   "(traces.pcap) and report.html, a self-contained page of all of it. "
                                   "Ctrl-C stops the run cleanly and keeps what was simulated (exit code 130).")
    scenario_args(r)
    r.add_argument("-o", "--output", metavar="OUTDIR", help="directory for the results")
    r.add_argument("--no-plots", action="store_true", help="with -o: skip the PNG plots")
    r.add_argument("--no-report", action="store_true", help="with -o: skip report.html (the page of summary, "
                                                            "plots, flows and scenario)")
    r.add_argument("--csv", action="store_true", help="with -o: write the traces as CSV (csv/) as well as Parquet")
    r.add_argument("-q", "--quiet", action="store_true", help="no progress bar")
    r.add_argument("--force", action="store_true",
                   help="run even if the run is estimated to take hours, and write into a non-empty OUTDIR "
                        "that does not hold an earlier run (its own files are replaced)")
    r.set_defaults(func=cmd_run)

    v = sub.add_parser("validate", help="check a scenario and print it fully resolved (TOML)",
                       description="Validate a scenario and print it with every default filled in; the "
                                   "estimated size of the run goes to stderr. Accepts exactly what 'run' "
                                   "accepts, with the same --force.")
    scenario_args(v)
    v.add_argument("--force", action="store_true", help="accept a run estimated to take hours")
    v.set_defaults(func=cmd_validate)

    s = sub.add_parser("scenarios", help="list the built-in scenarios", description="List the built-in scenarios.")
    s.set_defaults(func=cmd_scenarios)

    b = sub.add_parser("bench", help="measure simulator speed and memory on named scenarios",
                       description="Run the named benchmark scenarios (each in a fresh process, at half and full "
                                   "length) and print events/s, delivered packets per wall-second, the speed-up "
                                   "over ns-3 and peak memory.")
    b.add_argument("scenario", nargs="*", help="benchmark scenario names (default: all but flows-1M, a million "
                                                "flows through the whole run, a few minutes); with --vs-ns3, "
                                                "scenarios of the xval suite (default: pfifo-newreno, pie-100-flows)")
    b.add_argument("--vs-ns3", action="store_true",
                   help="measure ns-3.44 on the same scenarios on this machine (needs the ns3 wheel: pip install "
                        "'aqmlab[ns3]'): interleaved pairs, each simulator's own run-loop timer, the ratio")
    b.add_argument("--pairs", type=int, default=None, metavar="N", help="with --vs-ns3: runs of each side (default 3)")
    b.set_defaults(func=cmd_bench)

    f = sub.add_parser("fluid", help="run a scenario through the fluid model (MGT) instead of packets",
                       description="Solve the Misra-Gong-Towsley fluid model for the same scenario file: bulk TCP "
                                   "flows sharing one base RTT (a random range counts as its mean), at least one "
                                   "present until the end, the bottleneck's capacity schedule, its AQM as a "
                                   "sampled controller. "
                                   "Prints mean queue delay, p and utilization; with -o writes fluid.parquet and "
                                   "fluid.png.")
    scenario_args(f, seed_help="refused: the fluid model has no randomness")
    f.add_argument("-o", "--output", metavar="OUTDIR", help="directory for the time series and plot")
    f.add_argument("--force", action="store_true",
                   help="with -o: write into a non-empty OUTDIR that does not hold an earlier fluid model's output "
                        "(its own files are replaced)")
    f.set_defaults(func=cmd_fluid)

    _register_subpackages(sub)
    return p


def _register_subpackages(sub) -> None:
    """Adds the subcommands that live with their subpackages: control theory, sweeps, the
    reproduction catalog, live runs, the ns-3 cross-validation."""
    from .analysis import cli as analysis_cli
    from .catalog import cli as catalog_cli
    from .characterize import cli as characterize_cli
    from .compare import cli as compare_cli
    from .live import cli as live_cli
    from .sweep import cli as sweep_cli
    from .xval import cli as xval_cli

    analysis_cli.register(sub)
    sweep_cli.register(sub)
    catalog_cli.register(sub)
    live_cli.register(sub)
    characterize_cli.register(sub)
    compare_cli.register(sub)
    xval_cli.register(sub)


def _show_warning(message, category, filename, lineno, file=None, line=None):  # type: ignore[no-untyped-def]
    if issubclass(category, AqmlabWarning):
        print(f"aqmlab: warning: {message}", file=sys.stderr)
    else:
        _default_showwarning(message, category, filename, lineno, file, line)


_default_showwarning = warnings.showwarning


def _check_output_dir(option: str, path: str | os.PathLike[str] | None) -> None:
    """Refuses an output directory that cannot be made: a file at its place or on its way."""
    if not path:
        return
    d = os.path.abspath(os.fspath(path))
    while True:
        if os.path.exists(d) and not os.path.isdir(d):
            raise ScenarioError(option, f"{d} is a file: give a directory for the results")
        parent = os.path.dirname(d)
        if parent == d:
            return
        d = parent


def main(argv: list[str] | None = None) -> int:
    warnings.showwarning = _show_warning
    try:
        parser = build_parser()
        args = parser.parse_args(argv)
        # Every subcommand's output directory (-o) is checked before any work: an existing file
        # in its place would otherwise surface after the runs, as a traceback.
        for dest in ("output", "store"):
            _check_output_dir(f"--{dest}", getattr(args, dest, None))
        return int(args.func(args))
    except (ScenarioError, FileNotFoundError) as e:
        print_error(e)
        return 2
    except KeyboardInterrupt:
        # Runs stop cleanly inside aqmlab.run; this catches Ctrl-C elsewhere (imports, loading, saving).
        print("aqmlab: interrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:
        # The reader went away (`aqmlab scenarios | head -1`): stop quietly, and keep Python from
        # failing again when it flushes stdout at exit.
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 141


if __name__ == "__main__":
    sys.exit(main())
