"""`aqmlab xval`: one scenario, or the built-in suite, through aqmlab and ns-3."""

from __future__ import annotations

from pathlib import Path

from ..errors import ScenarioError


def cmd_xval(args) -> int:  # type: ignore[no-untyped-def]
    from .._options import NEEDS_OUTPUT, refuse_given
    from ..cli import _check_output_dir, _load, print_error
    from ..outdir import check_output
    from . import BuildError, Ns3Unavailable
    from . import run as xval_run
    from .report import OUTPUT
    from .suite import output_kind, run_suite

    try:
        if args.suite:
            if args.scenario:
                raise ScenarioError("--suite", "give a scenario or --suite, not both")
            refuse_given(args, ["--set"], "applies only to one scenario (the suite's scenarios run as written)")
            out = args.output or "xval-suite"
            _check_output_dir("--output", out)  # the default too, as main() checks a given one
            check_output(out, output_kind(), force=args.force)
            table, ok = run_suite(Path(out), seeds=args.seeds, only=args.only)
            print(table)
            return 0 if ok else 1
        refuse_given(args, ["--only"], "applies only with --suite (it picks the suite's scenarios)")
        if not args.output:
            refuse_given(args, ["--force"], NEEDS_OUTPUT)
        if not args.scenario:
            raise ScenarioError("scenario", "give a scenario file or built-in name, or --suite")
        scn = _load(args)
        if args.output:
            # Before the ns-3 program is built and both simulators run: a refused directory costs nothing.
            check_output(args.output, OUTPUT, force=args.force)
        doc = xval_run(scn, seeds=args.seeds, outdir=args.output)
    except (Ns3Unavailable, BuildError) as e:
        print_error(e)
        return 2
    for r in doc["rows"]:
        print(f"{r['metric']:<28} aqmlab {_f(r['ours_mean'])} ± {_f(r['ours_std'])}   ns-3 {_f(r['ns3_mean'])} ± "
              f"{_f(r['ns3_std'])}   diff {_f(r['diff'])} (band {_f(r['band'])})  {'agree' if r['agree'] else 'DIFFER'}")
    print(f"{doc['scenario']}: {'agree' if doc['agree'] else 'DIFFER'}"
          + (f"; report in {args.output}/xval.html" if args.output else ""))
    return 0 if doc["agree"] else 1


def _f(x: float | None) -> str:
    return "n/a" if x is None else f"{x:.4g}"


def register(sub) -> None:  # type: ignore[no-untyped-def]
    from ..cli import SET_HELP

    x = sub.add_parser(
        "xval", help="run a scenario through ns-3 as well and compare, metric by metric",
        description="Cross-validate against ns-3.44: the scenario becomes a C++ ns-3 program (compiled against the "
                    "SDK of the `ns3` wheel: pip install 'aqmlab[ns3]'; cached), both simulators run seeds 1..N with "
                    "the same per-flow draws, and each metric is judged within max(3 × combined standard error, a "
                    "stated floor). Settings without an ns-3 counterpart are refused by name. Exit code 1 when a "
                    "metric differs. See docs/xval.md.")
    x.add_argument("scenario", nargs="?", help="a scenario TOML file or built-in name")
    x.add_argument("--set", action="append", metavar="KEY=VALUE", help=SET_HELP)
    x.add_argument("--seeds", type=_positive, default=5, help="seeds per side (default 5)")
    x.add_argument("-o", "--output", metavar="DIR", help="write xval.json, xval.html and plots here "
                                                         "(with --suite: one folder per scenario and suite.md)")
    x.add_argument("--force", action="store_true",
                   help="write into a non-empty DIR that does not hold an earlier cross-validation (with --suite: "
                        "an earlier suite); its own files are replaced")
    x.add_argument("--suite", action="store_true", help="run the built-in cross-validation suite")
    x.add_argument("--only", action="append", metavar="NAME", help="with --suite: run only these scenarios")
    x.set_defaults(func=cmd_xval, seed=None)


def _positive(v: str) -> int:
    import argparse

    try:
        n = int(v)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a whole number of seeds, got {v!r}") from None
    if n < 2:
        raise argparse.ArgumentTypeError(f"at least 2 seeds are needed for a standard error, got {n}")
    return n
