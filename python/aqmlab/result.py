"""Results of a run: the summary, traces as DataFrames, saving and plotting.

Data flow: the simulator's columnar traces (numpy arrays) -> tables of columns
(:mod:`aqmlab.tables`) -> DataFrames here -> metrics and plots (:mod:`aqmlab.plots`); files
written by :meth:`Result.save` straight from the tables. pandas is imported by the DataFrame
views only, so a run that prints its summary or saves its traces does not pay for it.
"""

from __future__ import annotations

import json
import warnings
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal, TypedDict, cast, get_args

import numpy as np

from .errors import AqmlabWarning, ScenarioError
from .outdir import OutputKind, check_output, clear_own
from .scenario import Scenario
from .tables import Coded, Table

if TYPE_CHECKING:
    import pandas as pd


class LinkSummary(TypedDict):
    """One reported queue's figures over the measured window (``crates/sim/src/queues.rs``):
    ``queue`` names it as in ``summary["queues"]``; ``delay`` is the link sojourn (to the start of
    transmission) and ``qdisc_delay`` the sojourn in the discipline alone, each with ``mean_s``,
    ``p50_s``, ``p90_s``, ``p95_s``, ``p99_s``, ``max_s`` and ``n``."""

    queue: str
    ends: str
    links: int
    utilization: float
    drop_rate: float
    mark_rate: float
    delay: dict[str, float]
    qdisc_delay: dict[str, float]


class Summary(TypedDict, total=False):
    """The figures of a run. A statistic of an empty sample is None, never a perfect score: queue
    delays without departures in the measured window, Jain's index when no flow delivered
    anything, rates without packets sent, completion times without completed transfers;
    ``warnings`` says why. Every figure covers the measured window, the packet counts and drop
    and mark rates too, but for ``events``, ``delivered_packets`` and completion times, which
    cover the whole run. Aggregates only: each flow's figures are the ``flows`` table
    (:meth:`Result.flows`, ``traces/flows.parquet``), so that the summary of a million flows
    stays small (issue 22)."""

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
    n_flows: int
    links: list[LinkSummary]
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
    link_queue_bytes: np.ndarray
    link_queue_packets: np.ndarray
    link_queue_last_sojourn_ns: np.ndarray
    link_queue_sojourn_mean_ns: np.ndarray
    link_sojourn_t_ns: np.ndarray
    link_sojourn_queue: np.ndarray
    link_sojourn_ns: np.ndarray
    link_sojourn_qdisc_ns: np.ndarray
    link_sojourn_flow: np.ndarray
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
    link_probe_names: list[list[str]]
    link_probe: np.ndarray
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


def _kinds(name: str) -> list[str]:
    """The names of a trace's event codes, in code order, as the simulator exports them."""
    from . import _core

    codes: dict[int, str] = getattr(_core, name)
    return [codes[c] for c in sorted(codes)]


def _version() -> str:
    from . import __version__

    return __version__


def _empty_windows(summary: dict[str, Any], throughput_bps: np.ndarray) -> list[str]:
    """Replaces the statistics of empty samples by None; returns why, one line each.
    `throughput_bps`: each flow's, NaN for a flow with no active time in the measured window."""
    notes = []
    measured = summary["measured_s"]
    if measured <= 0:
        summary["utilization"] = None
        notes.append("the measured window is empty (the run ended before the warm-up): no figure is measured")
    if summary["departures_measured"] == 0:
        summary.update(dict.fromkeys(QDELAY_STATS))
        notes.append("no packet left the bottleneck queue in the measured window: queue delay statistics are absent")
    if not np.nansum(throughput_bps) > 0:
        summary["jain_index"] = None
        notes.append("no flow delivered data in the measured window: Jain's fairness index is absent")
    if summary["sent"] == 0:
        summary["drop_rate"] = summary["mark_rate"] = None
        notes.append("no data packet was sent in the measured window: drop and mark rates are absent")
    if summary["transfers"] == 0:
        summary.update(dict.fromkeys(FCT_STATS))  # bulk flows complete nothing: no note
    return notes


@dataclass
class Result:
    scenario: Scenario
    summary: Summary
    traces: Traces = field(repr=False)
    delay_histogram: dict[str, np.ndarray] = field(repr=False)
    #: Each flow's figures, a column each (``crates/sim/src/summary.rs``'s ``FlowColumns``;
    #: absent figures NaN) with the flow's group name: :meth:`flows`, :meth:`flow_column`.
    flow_table: Table = field(default_factory=Table, repr=False)
    #: The packet captures asked for by ``traces.pcap``: capture point -> pcap file bytes.
    pcaps: dict[str, bytes] = field(default_factory=dict, repr=False)
    #: Every reported queue's link-sojourn histogram (as ``delay_histogram``), by queue name:
    #: the bottleneck, its reverse direction, the access links as one family, each network link
    #: direction (``summary["links"]`` has their statistics).
    link_delay_histograms: dict[str, dict[str, np.ndarray]] = field(default_factory=dict, repr=False)
    #: The reported queues' names in the order of the ``link_*`` traces, and each link's queue
    #: (an index into them, None for a pure-delay link), by link id as in ``drops().link``.
    queue_names: list[str] = field(default_factory=list, repr=False)
    link_queues: list[int | None] = field(default_factory=list, repr=False)

    @classmethod
    def from_simulation(cls, scenario: Scenario, sim: Any, *, wall_s: float, interrupted: bool) -> Result:
        summary = json.loads(sim.summary_json())
        columns = dict(sim.flow_columns())
        # A flow's group names it: a group of Poisson arrivals is one entry with many flows.
        groups = [g["name"] for g in scenario.resolved["flows"]]
        flow_table = Table({**columns, "name": Coded(columns["group"], groups)})
        notes = _empty_windows(summary, columns["throughput_bps"])
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
            "n_flows": sim.n_flows,
        })
        summary["links"] = json.loads(sim.link_summaries_json())
        traces = cast(Traces, {**sim.traces(), "n_flows": sim.n_flows})
        return cls(scenario=scenario, summary=cast(Summary, summary), traces=traces,
                   delay_histogram=dict(sim.delay_histogram()), flow_table=flow_table, pcaps=dict(sim.pcaps()),
                   link_delay_histograms={k: dict(v) for k, v in sim.queue_delay_histograms().items()},
                   queue_names=list(sim.queue_names()), link_queues=list(sim.link_queues()))

    # ---- traces as DataFrames ------------------------------------------------------------

    def _sample_t(self) -> np.ndarray:
        return np.asarray(self.traces["sample_t_ns"] * 1e-9)

    def queue(self) -> pd.DataFrame:
        """Bottleneck state every interval: backlog, the mean sojourn of the packets that started
        transmission since the previous sample (``sojourn_mean_s``, NaN if none did), the most
        recent departure's sojourn (``last_sojourn_s``, 0 while the queue is empty) and the link
        rate. See docs/outputs.md, "Queue delay", for which to use."""
        return self.table("queue").frame()

    def sojourn(self) -> pd.DataFrame:
        """Per-packet bottleneck sojourn times (every n-th departure if sampled): to the start of
        transmission (``sojourn_s``) and in the queue discipline alone (``qdisc_sojourn_s``,
        shorter by the wait in a device queue, if the link has one)."""
        return self.table("sojourn").frame()

    def link_queue(self) -> pd.DataFrame:
        """Every reported queue's backlog, mean sojourn since the previous sample and last
        departure's sojourn every interval, as :meth:`queue` has them for the bottleneck (whose
        rows repeat it), long format: one row per sample and queue."""
        return self.table("link_queue").frame()

    def link_sojourn(self) -> pd.DataFrame:
        """Per-packet sojourn times at every reported queue (every n-th departure of each if
        sampled), the bottleneck's from :meth:`sojourn`, with the queue's name; in time order."""
        return self.table("link_sojourn").frame()

    def link_probe(self) -> pd.DataFrame:
        """Every queue's discipline variables every interval (with ``traces.probe``), long
        format: time, queue, variable, value (the access family has none)."""
        return self.table("link_probe").frame()

    def link_delay_histogram(self) -> pd.DataFrame:
        """Every reported queue's link-sojourn histogram over the measured window, long format."""
        return self.table("link_delay_histogram").frame()

    def flow_rates(self) -> pd.DataFrame:
        """Delivered bit rate of each flow per interval: rows are the interval ends, columns flows."""
        df = self.table("flow_rates").frame()
        df.columns = [int(c) for c in df.columns]
        return df

    def drops(self) -> pd.DataFrame:
        """Every drop and ECN mark: time, flow, kind and the link it happened on."""
        return self.table("drops").frame()

    def probe(self) -> pd.DataFrame:
        """The bottleneck AQM's internal variables every interval."""
        return self.table("probe").frame()

    def tcp(self) -> pd.DataFrame:
        """Per-flow cwnd and ssthresh (segments) and smoothed RTT every interval, long format."""
        return self.table("tcp").frame()

    def tcp_events(self) -> pd.DataFrame:
        """Retransmissions, timeouts, entries into loss recovery and ECN reductions, per flow."""
        return self.table("tcp_events").frame()

    def transfers(self) -> pd.DataFrame:
        """Every completed finite transfer: flow, start, payload bytes, flow completion time."""
        return self.table("transfers").frame()

    def flows(self) -> pd.DataFrame:
        """Each flow's figures, a row per flow (absent figures NaN)."""
        return self.table("flows").frame()

    def flow_column(self, key: str) -> np.ndarray:
        """One column of :meth:`flows` as a numpy array, without pandas: ``name`` as strings."""
        col = self.flow_table.columns[key]
        if isinstance(col, Coded):
            names: np.ndarray = np.asarray(col.categories, dtype=object)[col.codes]
            return names
        if isinstance(col, list):  # a live run's rows (see tables.from_records): None is absent
            return np.asarray([np.nan if v is None else v for v in col])
        return np.asarray(col)

    def flow_rows(self) -> list[dict[str, Any]]:
        """:meth:`flows` as a dict per flow, an absent figure None: for code that reads the
        flows of a small run one by one (a row per flow costs a kilobyte or so)."""
        cols = {k: self.flow_column(k).tolist() for k in self.flow_table.columns}
        return [{k: None if isinstance(v, float) and v != v else v for k, v in zip(cols, row)}
                for row in zip(*cols.values())]

    TABLES = ("queue", "sojourn", "flow_rates", "drops", "probe", "tcp", "flows", "tcp_events", "transfers",
              "delay_histogram", "link_queue", "link_sojourn", "link_delay_histogram", "link_probe")

    def table(self, name: str) -> Table:
        """One of :attr:`TABLES` as columns (the DataFrame views and the Parquet files)."""
        t = self.traces
        if name == "queue":
            return Table({
                "t_s": self._sample_t() if len(t["queue_bytes"]) else np.array([]),
                "backlog_bytes": t["queue_bytes"],
                "backlog_packets": t["queue_packets"],
                "sojourn_mean_s": t["sojourn_mean_ns"] * 1e-9,
                "last_sojourn_s": t["last_sojourn_ns"] * 1e-9,
                "rate_bps": t["link_rate_bps"],
            })
        if name == "sojourn":
            return Table({"t_s": t["sojourn_t_ns"] * 1e-9, "sojourn_s": t["sojourn_ns"] * 1e-9,
                          "qdisc_sojourn_s": t["sojourn_qdisc_ns"] * 1e-9, "flow": t["sojourn_flow"]})
        if name == "flow_rates":
            return self._flow_rates()
        if name == "drops":
            cols: dict[str, Any] = {"t_s": t["drop_t_ns"] * 1e-9, "flow": t["drop_flow"],
                                    "kind": Coded(t["drop_kind"], _kinds("DROP_KINDS")), "link": t["drop_link"]}
            if self.link_queues:
                # The queue each drop or mark happened at, by name (every such link has one).
                slots = np.asarray([-1 if q is None else q for q in self.link_queues])
                cols["queue"] = Coded(slots[np.asarray(t["drop_link"], dtype=int)], list(self.queue_names))
            return Table(cols)
        if name == "probe":
            names = list(t["probe_names"])
            if not names or len(t["probe"]) == 0:
                return Table()
            m = t["probe"].reshape(-1, len(names))
            return Table({"t_s": self._sample_t(), **{n: m[:, i] for i, n in enumerate(names)}})
        if name == "tcp":
            return self._tcp()
        if name == "tcp_events":
            return Table({"t_s": t["tcp_event_t_ns"] * 1e-9, "flow": t["tcp_event_flow"],
                          "kind": Coded(t["tcp_event_kind"], _kinds("TCP_EVENT_KINDS"))})
        if name == "transfers":
            return Table({"flow": t["transfer_flow"], "start_s": t["transfer_start_ns"] * 1e-9,
                          "bytes": t["transfer_bytes"], "fct_s": t["transfer_fct_ns"] * 1e-9})
        if name == "flows":
            return self.flow_table
        if name == "delay_histogram":
            return Table(dict(self.delay_histogram))
        if name.startswith("link_"):
            return self._link_table(name)
        raise KeyError(name)

    def _link_table(self, name: str) -> Table:
        """The ``link_*`` tables: every reported queue (``queue_names``), long format."""
        t = self.traces
        names = list(self.queue_names)
        if not names:
            return Table()
        if name == "link_queue":
            if len(t.get("link_queue_bytes", ())) == 0:
                return Table()
            rows = len(t["link_queue_bytes"]) // len(names)
            return Table({"t_s": np.repeat(self._sample_t()[:rows], len(names)),
                          "queue": Coded(np.tile(np.arange(len(names)), rows), names),
                          "backlog_bytes": t["link_queue_bytes"], "backlog_packets": t["link_queue_packets"],
                          "sojourn_mean_s": t["link_queue_sojourn_mean_ns"] * 1e-9,
                          "last_sojourn_s": t["link_queue_last_sojourn_ns"] * 1e-9})
        if name == "link_sojourn":
            # The bottleneck's departures (queue 0) from its own trace, the others' from theirs.
            t_ns = np.concatenate([t["sojourn_t_ns"], t["link_sojourn_t_ns"]])
            order = np.argsort(t_ns, kind="stable")
            queue = np.concatenate([np.zeros(len(t["sojourn_t_ns"]), dtype=np.int64),
                                    np.asarray(t["link_sojourn_queue"], dtype=np.int64)])
            return Table({"t_s": t_ns[order] * 1e-9,
                          "sojourn_s": np.concatenate([t["sojourn_ns"], t["link_sojourn_ns"]])[order] * 1e-9,
                          "qdisc_sojourn_s": np.concatenate([t["sojourn_qdisc_ns"], t["link_sojourn_qdisc_ns"]])[order] * 1e-9,
                          "flow": np.concatenate([t["sojourn_flow"], t["link_sojourn_flow"]])[order],
                          "queue": Coded(queue[order], names)})
        if name == "link_probe":
            cols = [(q, v) for q, vs in zip(names, t.get("link_probe_names", [])) for v in vs]
            if not cols or len(t.get("link_probe", ())) == 0:
                return Table()
            values = t["link_probe"].reshape(-1, len(cols))
            return Table({"t_s": np.repeat(self._sample_t()[:len(values)], len(cols)),
                          "queue": [q for q, _ in cols] * len(values),
                          "variable": [v for _, v in cols] * len(values),
                          "value": values.ravel()})
        if name == "link_delay_histogram":
            hists = self.link_delay_histograms
            if not hists:
                return Table()
            keys = list(next(iter(hists.values())))
            return Table({**{k: np.concatenate([np.asarray(h[k]) for h in hists.values()]) for k in keys},
                          "queue": [q for q, h in hists.items() for _ in range(len(h[keys[0]]))]})
        raise KeyError(name)

    def _flow_rates(self) -> Table:
        t = self.traces
        n = t["n_flows"]
        if len(t["flow_bytes"]) == 0:
            return Table()
        m = t["flow_bytes"].reshape(-1, n).astype(float)
        ts = self._sample_t()
        dt = np.diff(ts, prepend=0.0)
        dt[dt == 0] = np.nan
        rates = m * 8 / dt[:, None]
        return Table({"t_s": ts, **{str(i): rates[:, i] for i in range(n)}}, index="t_s")

    def _tcp(self) -> Table:
        """Rows of flows that have no TCP state (cwnd NaN: not started, or not TCP) are left out."""
        t = self.traces
        n = t["n_flows"]
        if len(t["tcp_cwnd"]) == 0:
            return Table()
        rows = len(t["tcp_cwnd"]) // n
        keep = ~np.isnan(t["tcp_cwnd"])
        return Table({
            "t_s": np.repeat(self._sample_t()[:rows], n)[keep],
            "flow": np.tile(np.arange(n), rows)[keep],
            "cwnd": t["tcp_cwnd"][keep],
            "ssthresh": t["tcp_ssthresh"][keep],
            "srtt_s": t["tcp_srtt_ns"][keep] * 1e-9,
        })

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
            f"  drops / marks       {s['dropped']} / {s['marked']} of {s['sent']} data packets sent in the window "
            f"({_fmt(s['drop_rate'], 100, '.3f')} % / {_fmt(s['mark_rate'], 100, '.3f')} %)",
            f"  Jain fairness       {_fmt(s['jain_index'], 1, '.4f')}",
        ]
        names, tputs = self.flow_column("name"), self.flow_column("throughput_bps")
        for name in dict.fromkeys(names):
            mine = tputs[names == name]
            known = mine[~np.isnan(mine)]  # absent figures do not count, as pandas' skipna
            mean, lo, hi = (known.mean(), known.min(), known.max()) if len(known) else (None, None, None)
            lines.append(
                f"  {name:<18}  {len(mine)} flows, throughput mean {_fmt(mean, 1e-6, '.3f')} Mb/s "
                f"(min {_fmt(lo, 1e-6, '.3f')}, max {_fmt(hi, 1e-6, '.3f')})"
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
        tables = {name: self.table(name) for name in self.TABLES}
        for name, table in tables.items():
            if len(table):
                path = out / "traces" / f"{name}.parquet"
                table.write_parquet(path)
                written.append(path)
        if self.pcaps:
            (out / "pcap").mkdir(exist_ok=True)
            for name, data in self.pcaps.items():
                path = out / "pcap" / f"{name}.pcap"
                path.write_bytes(data)
                written.append(path)
        if csv:
            (out / "csv").mkdir(exist_ok=True)
            for name, table in tables.items():
                if len(table):
                    path = out / "csv" / f"{name}.csv"
                    df = table.frame()
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


# What a saved run consists of: files at the top, and files of a kind in its folders.
RUN_OUTPUT = OutputKind("an aqmlab run", ("summary.json", "scenario.toml", "sim_config.json", "report.html"),
                        {"traces": ".parquet", "plots": ".png", "csv": ".csv", "pcap": ".pcap"})


def prepare_output(outdir: str | Path, *, force: bool = False) -> Path:
    """Makes ``outdir`` ready for a run's files, before the run: it must be a directory (or not
    exist yet). An earlier run's files there are removed, so no stale trace or plot is left
    beside the new ones; a directory holding anything else is refused unless ``force``, and then
    only the run's own files are replaced (see :func:`aqmlab.outdir.check_output`)."""
    out = check_output(outdir, RUN_OUTPUT, force=force)
    clear_own(out, RUN_OUTPUT)
    try:
        out.mkdir(parents=True, exist_ok=True)
    except OSError as e:
        raise ScenarioError("--output", f"cannot create {out}: {e.strerror}") from None
    return out
