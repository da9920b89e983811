"""The ``characterize`` subcommand."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from ..errors import ScenarioError

DEFAULT_AGAINST = "pie,codel,fq_codel,drop_tail"


def register(sub: Any) -> None:
    c = sub.add_parser(
        "characterize", help="run RFC 7928's AQM characterization experiments and write a report card",
        description="Run the experiments of the IETF's AQM characterization guidelines (RFC 7928) for the "
                    "discipline in AQM.toml and each baseline, over several seeds, and write report.html (a "
                    "summary table of verdicts against stated thresholds, then a section per experiment), "
                    "results.json and runs.parquet. AQM.toml holds a queue table, e.g. `type = \"pie\"` and its "
                    "parameters (or `name = ...` and `queue = {...}`).")
    c.add_argument("aqm", help="the discipline under test: a TOML file with a queue table")
    c.add_argument("--against", default=DEFAULT_AGAINST,
                   help=f"comma-separated baseline disciplines, each named once, with their defaults (default: "
                        f"{DEFAULT_AGAINST}; '' for none); one the same as AQM.toml runs once, as AQM.toml")
    c.add_argument("-o", "--output", metavar="OUTDIR", help="directory for the report (default: characterize-NAME): "
                                                            "new, empty, or holding an earlier characterization "
                                                            "(replaced)")
    c.add_argument("--force", action="store_true", help="write into a non-empty OUTDIR that does not hold an earlier "
                                                        "characterization (its own files are replaced)")
    c.add_argument("--quick", action="store_true", help="short runs and 2 seeds (a smoke test, minutes)")
    c.add_argument("--only", action="append", metavar="EXPERIMENT", help="run only this experiment (repeatable)")
    c.add_argument("--threshold", action="append", metavar="KEY=VALUE",
                   help="override a criterion's threshold (fractions in [0, 1], delays and times >= 0)")
    # One place to run: local workers, or a cluster (whose workers are its own).
    where = c.add_mutually_exclusive_group()
    where.add_argument("--workers", type=int, help="local worker processes (default: one per CPU)")
    where.add_argument("--dask", metavar="ADDRESS", help="run on a Dask cluster (an address, or local[:N])")
    where.add_argument("--ray", metavar="ADDRESS", nargs="?", const="", help="run on a Ray cluster")
    c.add_argument("-q", "--quiet", action="store_true", help="no progress bar")
    c.set_defaults(func=cmd_characterize)


def load_aqm(path: str) -> tuple[str, dict[str, Any]]:
    """The label and queue table of an AQM file."""
    from ..scenario import read_toml

    data = read_toml(Path(path), "aqm")
    name = data.pop("name", None) or Path(path).stem
    queue = data.pop("queue", None)
    if queue is None:
        queue = data
    elif data:
        raise ScenarioError(f"aqm.{next(iter(data))}", "unknown key beside 'name' and 'queue'")
    if not isinstance(queue, dict) or "type" not in queue:
        raise ScenarioError("aqm.type", "name the discipline, e.g. type = \"pie\"")
    return str(name), queue


def resolved_queue(queue: dict[str, Any]) -> dict[str, Any] | None:
    """The discipline as the experiments run it (common buffer, every default filled in); None
    if it does not validate (the runs' validation names the error)."""
    from ..scenario import Scenario
    from .experiments import FULL, _base, _tcp

    try:
        return dict(Scenario.from_dict(_base(queue, FULL, [_tcp("probe")], "probe")).sim_config["bottleneck"]["queue"])
    except ScenarioError:
        return None


def baselines(against: str) -> list[str]:
    """The disciplines ``--against`` names (comma-separated; '' for none), refused before any run
    unless each is one that runs with its defaults alone, named once: an unknown name would
    otherwise surface only as the baseline's failed runs, and a name given twice would run twice."""
    from ..schema import did_you_mean

    if not against.strip():
        return []
    names = [x.strip() for x in against.split(",")]
    accepted = _runnable_alone()
    for b in names:
        if b not in accepted:
            # The names are lower case: 'CoDel' is close to 'codel' only once folded.
            shown = ", ".join(map(repr, accepted))
            raise ScenarioError("--against", f"expected comma-separated disciplines among {shown}, "
                                             f"got {b!r}{did_you_mean(b.lower(), accepted)}")
    # By configuration, so that two spellings of one discipline ('fifo', 'drop_tail') are caught.
    seen: dict[str, str] = {}
    for b in names:
        if accepted[b] in seen:
            raise ScenarioError("--against", f"{seen[accepted[b]]!r} and {b!r} name the same baseline "
                                             "(each runs once)")
        seen[accepted[b]] = b
    return names


def _runnable_alone() -> dict[str, str]:
    """Each discipline name (aliases included) whose table validates with nothing but its type
    (not strict_priority, which needs its classes) -> the canonical JSON of its resolved table."""
    import json

    from ..qdisc import ALIASES, disciplines

    out = {}
    for name in [*disciplines(), *ALIASES]:
        resolved = resolved_queue({"type": name})
        if resolved is not None:
            out[name] = json.dumps(resolved, sort_keys=True)
    return out


def with_baselines(name: str, queue: dict[str, Any], against: list[str]) -> tuple[dict[str, dict[str, Any]], dict[str, str]]:
    """The disciplines to run, the one under test first, and the baselines left out because they
    would repeat it: a baseline that resolves to the same configuration as the discipline under
    test (``type = "pie"`` against ``pie``) runs the same scenarios with the same seeds, so its
    runs are the tested one's; it is named on the page instead (baseline -> the label it repeats)."""
    aqms = {name: queue}
    repeats: dict[str, str] = {}
    tested = resolved_queue(queue)
    for b in filter(None, against):
        if tested is not None and resolved_queue({"type": b}) == tested:
            repeats[b] = name
            continue
        aqms[b if b not in aqms else f"{b} (baseline)"] = {"type": b}
    return aqms, repeats


def cmd_characterize(args: Any) -> int:
    from ..sweep.cli import backend_from_args
    from . import experiments
    from ..outdir import check_output
    from .report import OUTPUT, override, write
    from .runner import characterize

    name, queue = load_aqm(args.aqm)
    aqms, repeats = with_baselines(name, queue, baselines(args.against))
    keys = [e.key for e in experiments.EXPERIMENTS]
    for k in args.only or []:
        if k not in keys:
            raise ScenarioError("--only", f"no experiment '{k}' (experiments: {', '.join(keys)})")
    criteria = override(args.threshold)
    scale = experiments.QUICK if args.quick else experiments.FULL
    # Every variant must validate before any run starts (a bad parameter is named at once).
    from ..scenario import Scenario
    from .runner import jobs

    for job in jobs(aqms, scale, args.only):
        try:
            Scenario.from_dict(job.scenario)
        except ScenarioError as e:
            which = "" if job.aqm == name else f"--against {job.aqm}: "
            raise ScenarioError(f"{which}{job.experiment} ({job.variant}): {e.path}", e.reason) from None
    out = check_output(args.output or f"characterize-{name}", OUTPUT, force=args.force)
    with backend_from_args(args) as backend:
        c = characterize(aqms, scale, backend=backend, only=args.only, progress=False if args.quiet else None)
    page = write(c, out, criteria, f"AQM characterization: {name}", experiments.NOT_RUN, repeats)
    print(f"wrote {page}, {out / 'results.json'}, {out / 'runs.parquet'}")
    return 0
