"""`aqmlab live --compare`: the same scenario live and simulated, side by side.

The simulated twin runs the `linux` TCP profile with the congestion control the live run
used (the kernel's), everything else unchanged: the bottleneck, its AQM and seed, the flows
and their start times, so the two columns differ only by real versus modelled hosts.
"""

from __future__ import annotations

import copy
import json
from pathlib import Path

from ..outdir import OutputKind, clear_own
from ..result import RUN_OUTPUT, Result
from .driver import Options
from .plan import LivePlan

# (summary key, label, scale, unit) of the side-by-side table.
ROWS = (
    ("utilization", "utilization", 100, "%"),
    ("qdelay_mean_s", "queue delay mean", 1e3, "ms"),
    ("qdelay_p50_s", "queue delay p50", 1e3, "ms"),
    ("qdelay_p90_s", "queue delay p90", 1e3, "ms"),
    ("qdelay_p99_s", "queue delay p99", 1e3, "ms"),
    ("qdelay_max_s", "queue delay max", 1e3, "ms"),
    ("drop_rate", "drop rate", 100, "%"),
    ("mark_rate", "mark rate", 100, "%"),
    ("jain_index", "Jain fairness", 1, ""),
)


def sim_twin(raw: dict, p: LivePlan) -> dict:
    """The scenario to simulate next to a live run of `raw`."""
    twin = copy.deepcopy(raw)
    for g, cc in zip(twin["flows"], p.group_cc):
        if cc is not None:
            g["profile"] = "linux"
            g["cc"] = "newreno" if cc == "reno" else cc
    return twin


def _group_throughput(r: Result) -> dict[str, float]:
    df = r.flows()
    return df.groupby("name", sort=False)["throughput_bps"].mean().to_dict() if len(df) else {}


def table(live: Result, sim: Result) -> str:
    lines = [f"{'':<24}{'live':>14}{'simulated':>14}"]
    for key, label, scale, unit in ROWS:
        a, b = live.summary[key] * scale, sim.summary[key] * scale
        lines.append(f"{label + (f' ({unit})' if unit else ''):<24}{a:>14.3f}{b:>14.3f}")
    tl, ts = _group_throughput(live), _group_throughput(sim)
    for name in tl:
        lines.append(f"{'throughput ' + name + ' (Mb/s)':<24}{tl[name] / 1e6:>14.3f}{ts.get(name, float('nan')) / 1e6:>14.3f}")
    return "\n".join(lines)


def plot(live: Result, sim: Result, path: Path) -> Path:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, (a1, a2) = plt.subplots(1, 2, figsize=(10, 3.6))
    for label, r in (("live", live), ("simulated", sim)):
        x, y = r.delay_cdf()
        a1.plot(x * 1e3, y, label=label)
        q = r.queue()
        if len(q):
            a2.plot(q["t_s"], q["sojourn_mean_s"] * 1e3, lw=0.7, label=label)
    a1.set_xlabel("queueing delay (ms)")
    a1.set_ylabel("CDF")
    a2.set_xlabel("time (s)")
    a2.set_ylabel("queueing delay (ms)")
    for a in (a1, a2):
        a.grid(alpha=0.3)
        a.legend()
    fig.suptitle(f"{live.scenario.name}: live vs simulated")
    fig.tight_layout()
    fig.savefig(path, dpi=100)
    plt.close(fig)
    return path


# What run_compare() writes into OUTDIR: each side as `aqmlab run -o` writes a run, in a folder
# of its own, and the comparison of the two.
OUTPUT = OutputKind("an aqmlab live comparison", ("compare.json", "compare.png"),
                    folders={"live": RUN_OUTPUT, "sim": RUN_OUTPUT})


def run_compare(p: LivePlan, opts: Options, outdir: str | None, *, plots: bool = True, force: bool = False,
                progress: bool | None = None) -> int:
    """Runs the planned scenario live and its simulated twin, prints both side by side, and
    with ``outdir`` writes both runs and the comparison; returns the exit code."""
    from .. import api
    from . import driver, result

    twin = api.as_scenario(sim_twin(p.scenario.given, p))
    live = result.build(p, driver.execute(p, opts, progress=progress))
    sim = api.run(twin, progress=progress)
    print(live.text())
    print()
    print(table(live, sim))
    if outdir:
        out = Path(outdir)
        # An earlier comparison's plot would otherwise outlast a --no-plots one.
        clear_own(out, OUTPUT, keep=frozenset({"live", "sim"}))
        live.save(out / "live", plots=plots, force=force)
        sim.save(out / "sim", plots=plots, force=force)
        rows = {key: {"live": live.summary[key], "sim": sim.summary[key]} for key, *_ in ROWS}
        (out / "compare.json").write_text(json.dumps(rows, indent=2))
        if plots:
            plot(live, sim, out / "compare.png")
        print(f"wrote {out}/live, {out}/sim, compare.json" + (" and compare.png" if plots else ""))
    return 130 if live.summary["interrupted"] else 0
