"""Results of a run: the summary, traces as DataFrames, saving and plotting.

Data flow: the simulator's columnar traces (numpy arrays) -> DataFrames here -> metrics and
plots (:mod:`aqmlab.plots`) -> files written by :meth:`Result.save`.
"""

from __future__ import annotations

import json
import warnings
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal, TypedDict, cast, get_args

import numpy as np
import pandas as pd

from .errors import AqmlabWarning, ScenarioError
from .scenario import Scenario


class FlowSummary(TypedDict, total=False):
    """One flow's figures (see ``crates/sim/src/summary.rs``); ``throughput_bps`` is None when
    the flow has no active time in the measured window."""

    name: str
    group: int
    tcp: bool
    start_s: float
    rtt_base_s: float
    throughput_bps: float | None
    completion_s: float | None
    srtt_s: float | None
    rto_s: float | None
    sent: int
    delivered: int
    dropped: int
    marked: int
    bytes_delivered: int
    in_flight: int


class Summary(TypedDict, total=False):
    """The figures of a run. A statistic of an empty sample is None, never a perfect score: queue
    delays without departures in the measured window, Jain's index when no flow delivered
    anything, rates without packets sent, completion times without completed transfers;
    ``warnings`` says why."""

    scenario: str
    aqmlab_version: str
    time_s: float
    measured_s: float
    events: int
    utilization: float | None
    bottleneck_bytes: int
    qdelay_mean_s: float | None
    qdelay_p50_s: float | None
    qdelay_p90_s: float | None
    qdelay_p95_s: float | None
    qdelay_p99_s: float | None
    qdelay_max_s: float | None
    departures_measured: int
    jain_index: float | None
    sent: int
    dropped: int
    marked: int
    drop_rate: float | None
    mark_rate: float | None
    transfers: int
    fct_mean_s: float | None
    fct_p50_s: float | None
    fct_p99_s: float | None
    flows: list[FlowSummary]
    wall_s: float
    events_per_s: float | None
    delivered_packets: int
    interrupted: bool
    warnings: list[str]


QdelayStat = Literal["qdelay_mean_s", "qdelay_p50_s", "qdelay_p90_s", "qdelay_p95_s", "qdelay_p99_s", "qdelay_max_s"]
QDELAY_STATS: tuple[QdelayStat, ...] = get_args(QdelayStat)
FCT_STATS = ("fct_mean_s", "fct_p50_s", "fct_p99_s")


class Traces(TypedDict):
    """The simulator's traces (``crates/sim/src/trace.rs``), as numpy arrays: periodic samples
    share ``sample_t_ns``; per-flow matrices are flattened row-major (a row per sample)."""

    sample_t_ns: np.ndarray
    queue_bytes: np.ndarray
    queue_packets: np.ndarray
    last_sojourn_ns: np.ndarray
    sojourn_mean_ns: np.ndarray
    link_rate_bps: np.ndarray
    sojourn_t_ns: np.ndarray
    sojourn_ns: np.ndarray
    sojourn_qdisc_ns: np.ndarray
    sojourn_flow: np.ndarray
    flow_bytes: np.ndarray
    drop_t_ns: np.ndarray
    drop_flow: np.ndarray
    drop_kind: np.ndarray
    drop_link: np.ndarray
    probe_names: list[str]
    probe: np.ndarray
    tcp_cwnd: np.ndarray
    tcp_ssthresh: np.ndarray
    tcp_srtt_ns: np.ndarray
    tcp_event_t_ns: np.ndarray
    tcp_event_flow: np.ndarray
    tcp_event_kind: np.ndarray
    transfer_flow: np.ndarray
    transfer_start_ns: np.ndarray
    transfer_bytes: np.ndarray
    transfer_fct_ns: np.ndarray
    n_flows: int


def _kinds(name: str) -> pd.Index:
    """The names of a trace's event codes, in code order, as the simulator exports them."""
    from . import _core

    codes: dict[int, str] = getattr(_core, name)
    return pd.Index([codes[c] for c in sorted(codes)])


def _version() -> str:
    from . import __version__

    return __version__


def _empty_windows(summary: dict[str, Any], sim_config: dict[str, Any]) -> list[str]:
    """Replaces the statistics of empty samples by None; returns why, one line each."""
    notes = []
    end, measured = summary["time_s"], summary["measured_s"]
    warm = end - measured
    for f in summary["flows"]:
        stop_ns = sim_config["flows"][f["group"]]["stop_ns"]
        stop = end if stop_ns is None else min(stop_ns * 1e-9, end)
        if stop <= max(f["start_s"], warm):
            f["throughput_bps"] = None
    if measured <= 0:
        summary["utilization"] = None
        notes.append("the measured window is empty (the run ended before the warm-up): no figure is measured")
    if summary["departures_measured"] == 0:
        summary.update(dict.fromkeys(QDELAY_STATS))
        notes.append("no packet left the bottleneck queue in the measured window: queue delay statistics are absent")
    active = [f["throughput_bps"] for f in summary["flows"] if f["throughput_bps"] is not None]
    if not any(active):
        summary["jain_index"] = None
        notes.append("no flow delivered data in the measured window: Jain's fairness index is absent")
    if summary["sent"] == 0:
        summary["drop_rate"] = summary["mark_rate"] = None
        notes.append("no data packet was sent: drop and mark rates are absent")
    if summary["transfers"] == 0:
        summary.update(dict.fromkeys(FCT_STATS))  # bulk flows complete nothing: no note
    return notes


@dataclass
class Result:
    scenario: Scenario
    summary: Summary
    traces: Traces = field(repr=False)
    delay_histogram: dict[str, np.ndarray] = field(repr=False)
    #: The packet captures asked for by ``traces.pcap``: capture point -> pcap file bytes.
    pcaps: dict[str, bytes] = field(default_factory=dict, repr=False)

    @classmethod
    def from_simulation(cls, scenario: Scenario, sim: Any, *, wall_s: float, interrupted: bool) -> Result:
        summary = json.loads(sim.summary_json())
        # A flow's group names it: a group of Poisson arrivals is one entry with many flows.
        groups = scenario.resolved["flows"]
        for f in summary["flows"]:
            f["name"] = groups[f["group"]]["name"]
        notes = _empty_windows(summary, scenario.sim_config)
        for note in notes:
            warnings.warn(f"{scenario.name}: {note}", AqmlabWarning, stacklevel=3)
        summary.update({
            "scenario": scenario.name,
            "aqmlab_version": _version(),
            "wall_s": wall_s,
            "events_per_s": sim.events / wall_s if wall_s > 0 else None,
            "delivered_packets": sim.delivered_packets,
            "interrupted": interrupted,
            "warnings": notes,
        })
        traces = cast(Traces, {**sim.traces(), "n_flows": sim.n_flows})
        return cls(scenario=scenario, summary=cast(Summary, summary), traces=traces,
                   delay_histogram=dict(sim.delay_histogram()), pcaps=dict(sim.pcaps()))

    # ---- traces as DataFrames ------------------------------------------------------------

    def _sample_t(self) -> np.ndarray:
        return np.asarray(self.traces["sample_t_ns"] * 1e-9)

    def queue(self) -> pd.DataFrame:
        """Bottleneck state every interval: backlog, the mean sojourn of the packets that started
        transmission since the previous sample (``sojourn_mean_s``, NaN if none did), the most
        recent departure's sojourn (``last_sojourn_s``, 0 while the queue is empty) and the link
        rate. See docs/outputs.md, "Queue delay", for which to use."""
        t = self.traces
        return pd.DataFrame({
            "t_s": self._sample_t() if len(t["queue_bytes"]) else np.array([]),
            "backlog_bytes": t["queue_bytes"],
            "backlog_packets": t["queue_packets"],
            "sojourn_mean_s": t["sojourn_mean_ns"] * 1e-9,
            "last_sojourn_s": t["last_sojourn_ns"] * 1e-9,
            "rate_bps": t["link_rate_bps"],
        })

    def sojourn(self) -> pd.DataFrame:
        """Per-packet bottleneck sojourn times (every n-th departure if sampled): to the start of
        transmission (``sojourn_s``) and in the queue discipline alone (``qdisc_sojourn_s``,
        shorter by the wait in a device queue, if the link has one)."""
        t = self.traces
        return pd.DataFrame({"t_s": t["sojourn_t_ns"] * 1e-9, "sojourn_s": t["sojourn_ns"] * 1e-9,
                             "qdisc_sojourn_s": t["sojourn_qdisc_ns"] * 1e-9, "flow": t["sojourn_flow"]})

    def flow_rates(self) -> pd.DataFrame:
        """Delivered bit rate of each flow per interval: rows are the interval ends, columns flows."""
        t = self.traces
        n = t["n_flows"]
        if len(t["flow_bytes"]) == 0:
            return pd.DataFrame()
        m = t["flow_bytes"].reshape(-1, n).astype(float)
        ts = self._sample_t()
        dt = np.diff(ts, prepend=0.0)
        dt[dt == 0] = np.nan
        return pd.DataFrame(m * 8 / dt[:, None], index=pd.Index(ts, name="t_s"), columns=range(n))

    def drops(self) -> pd.DataFrame:
        """Every drop and ECN mark: time, flow, kind and the link it happened on."""
        t = self.traces
        kinds = pd.Categorical.from_codes(t["drop_kind"].astype(int), categories=_kinds("DROP_KINDS"))
        return pd.DataFrame({"t_s": t["drop_t_ns"] * 1e-9, "flow": t["drop_flow"], "kind": kinds, "link": t["drop_link"]})

    def probe(self) -> pd.DataFrame:
        """The bottleneck AQM's internal variables every interval."""
        t = self.traces
        names = list(t["probe_names"])
        if not names or len(t["probe"]) == 0:
            return pd.DataFrame()
        df = pd.DataFrame(t["probe"].reshape(-1, len(names)), columns=names)
        df.insert(0, "t_s", self._sample_t())
        return df

    def tcp(self) -> pd.DataFrame:
        """Per-flow cwnd and ssthresh (segments) and smoothed RTT every interval, long format."""
        t = self.traces
        n = t["n_flows"]
        if len(t["tcp_cwnd"]) == 0:
            return pd.DataFrame()
        rows = len(t["tcp_cwnd"]) // n
        return pd.DataFrame({
            "t_s": np.repeat(self._sample_t()[:rows], n),
            "flow": np.tile(np.arange(n), rows),
            "cwnd": t["tcp_cwnd"],
            "ssthresh": t["tcp_ssthresh"],
            "srtt_s": t["tcp_srtt_ns"] * 1e-9,
        }).dropna(subset=["cwnd"])

    def tcp_events(self) -> pd.DataFrame:
        """Retransmissions, timeouts, entries into loss recovery and ECN reductions, per flow."""
        t = self.traces
        kinds = pd.Categorical.from_codes(t["tcp_event_kind"].astype(int), categories=_kinds("TCP_EVENT_KINDS"))
        return pd.DataFrame({"t_s": t["tcp_event_t_ns"] * 1e-9, "flow": t["tcp_event_flow"], "kind": kinds})

    def transfers(self) -> pd.DataFrame:
        """Every completed finite transfer: flow, start, payload bytes, flow completion time."""
        t = self.traces
        return pd.DataFrame({"flow": t["transfer_flow"], "start_s": t["transfer_start_ns"] * 1e-9,
                             "bytes": t["transfer_bytes"], "fct_s": t["transfer_fct_ns"] * 1e-9})

    def flows(self) -> pd.DataFrame:
        """The per-flow summary."""
        return pd.DataFrame(self.summary["flows"])

    def delay_cdf(self) -> tuple[np.ndarray, np.ndarray]:
        """CDF of bottleneck queue delay over the measured window (from the always-on
        histogram, 0.4 % resolution): delays in seconds and cumulative fractions."""
        h = self.delay_histogram
        counts = h["count"].astype(float)
        if counts.sum() == 0:
            return np.array([0.0]), np.array([1.0])
        x = (h["lower_ns"] + h["width_ns"]) * 1e-9
        return x, np.cumsum(counts) / counts.sum()

    # ---- output ---------------------------------------------------------------------------

    def text(self) -> str:
        """A human summary; absent figures print as 'n/a'."""
        s = self.summary
        q = [_fmt(s[k], 1e3, ".2f") for k in QDELAY_STATS]
        lines = [
            f"scenario {s['scenario']}: {s['time_s']:.1f} s simulated in {s['wall_s']:.2f} s"
            + (" (interrupted)" if s["interrupted"] else ""),
            f"  measured window     {s['measured_s']:.1f} s",
            f"  utilization         {_fmt(s['utilization'], 100, '.2f')} %",
            f"  queue delay         mean {q[0]} ms, p50 {q[1]}, p95 {q[3]}, p99 {q[4]}, max {q[5]} ms",
            f"  drops / marks       {s['dropped']} / {s['marked']} of {s['sent']} data packets "
            f"({_fmt(s['drop_rate'], 100, '.3f')} % / {_fmt(s['mark_rate'], 100, '.3f')} %)",
            f"  Jain fairness       {_fmt(s['jain_index'], 1, '.4f')}",
        ]
        df = self.flows()
        if len(df):
            tput = pd.to_numeric(df["throughput_bps"], errors="coerce")
            g = tput.groupby(df["name"], sort=False).agg(["size", "mean", "min", "max"])
            for name, row in g.iterrows():
                lines.append(
                    f"  {name:<18}  {int(row['size'])} flows, throughput mean {_fmt(row['mean'], 1e-6, '.3f')} Mb/s "
                    f"(min {_fmt(row['min'], 1e-6, '.3f')}, max {_fmt(row['max'], 1e-6, '.3f')})"
                )
        lines += [f"  warning: {w}" for w in s.get("warnings", [])]
        return "\n".join(lines)

    def save(self, outdir: str | Path, *, plots: bool = True, force: bool = False, report: bool = True,
             csv: bool = False) -> list[Path]:
        """Writes summary.json, scenario.toml (resolved), sim_config.json, traces as Parquet (and
        CSV with ``csv``), the packet captures, PNG plots and ``report.html`` (one self-contained
        page, unless ``report`` is false) into ``outdir``; returns the files written. The files
        of an earlier run there are removed first (see :func:`prepare_output`)."""
        out = prepare_output(outdir, force=force)
        (out / "traces").mkdir(parents=True, exist_ok=True)
        written = []

        def write(path: Path, text: str) -> None:
            path.write_text(text)
            written.append(path)

        write(out / "summary.json", json.dumps(self.summary, indent=2))
        write(out / "scenario.toml", self.scenario.to_toml())
        write(out / "sim_config.json", json.dumps(self.scenario.sim_config, indent=2))
        frames = {
            "queue": self.queue(), "sojourn": self.sojourn(), "flow_rates": self.flow_rates(),
            "drops": self.drops(), "probe": self.probe(), "tcp": self.tcp(), "flows": self.flows(),
            "tcp_events": self.tcp_events(), "transfers": self.transfers(),
            "delay_histogram": pd.DataFrame(self.delay_histogram),
        }
        for name, df in frames.items():
            if len(df):
                path = out / "traces" / f"{name}.parquet"
                df.columns = [str(c) for c in df.columns]
                df.to_parquet(path)
                written.append(path)
        if self.pcaps:
            (out / "pcap").mkdir(exist_ok=True)
            for name, data in self.pcaps.items():
                path = out / "pcap" / f"{name}.pcap"
                path.write_bytes(data)
                written.append(path)
        if csv:
            (out / "csv").mkdir(exist_ok=True)
            for name, df in frames.items():
                if len(df):
                    path = out / "csv" / f"{name}.csv"
                    df.to_csv(path, index=df.index.name is not None)  # flow_rates: time is the index
                    written.append(path)
        if plots:
            from . import plots as plotting

            written += plotting.save_all(self, out / "plots")
        if report:
            from .report import write_report

            written.append(write_report(self, out / "report.html"))
        return written

    def _repr_html_(self) -> str:
        """Jupyter's view of a result: the summary table and the overview plot."""
        from .report import notebook_html

        return notebook_html(self)


def _fmt(x: float | None, scale: float, spec: str) -> str:
    return "n/a" if x is None or x != x else format(x * scale, spec)


# What a saved run consists of: files at the top, and files of a kind in its two folders.
_RUN_FILES = ("summary.json", "scenario.toml", "sim_config.json", "report.html")
_RUN_FOLDERS = {"traces": ".parquet", "plots": ".png", "csv": ".csv", "pcap": ".pcap"}


def _owned(entry: Path) -> bool:
    if entry.name in _RUN_FILES:
        return entry.is_file()
    suffix = _RUN_FOLDERS.get(entry.name)
    return suffix is not None and entry.is_dir() and all(p.is_file() and p.suffix == suffix for p in entry.iterdir())


def prepare_output(outdir: str | Path, *, force: bool = False) -> Path:
    """Makes ``outdir`` ready for a run's files, before the run: it must be a directory (or not
    exist yet). An earlier run's files there are removed, so no stale trace or plot is left
    beside the new ones; a directory holding anything else is refused unless ``force``, and then
    only the run's own files are replaced."""
    out = Path(outdir)
    if out.exists() and not out.is_dir():
        raise ScenarioError("--output", f"{out} is a file: give a directory for the results")
    if out.is_dir():
        entries = list(out.iterdir())
        foreign = sorted(e.name for e in entries if not _owned(e))
        if foreign and not force:
            shown = ", ".join(foreign[:5]) + (", ..." if len(foreign) > 5 else "")
            raise ScenarioError("--output", f"{out} is not empty and does not hold an aqmlab run ({shown}): "
                                            "give a new or empty directory, or --force to write beside those files")
        for name in _RUN_FILES:
            (out / name).unlink(missing_ok=True)
        for name, suffix in _RUN_FOLDERS.items():
            folder = out / name
            if folder.is_dir():
                for p in folder.glob(f"*{suffix}"):
                    p.unlink()
                if not any(folder.iterdir()):
                    folder.rmdir()
    try:
        out.mkdir(parents=True, exist_ok=True)
    except OSError as e:
        raise ScenarioError("--output", f"cannot create {out}: {e.strerror}") from None
    return out
