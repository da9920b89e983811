"""Results of a run: the summary, traces as DataFrames, saving and plotting.

Data flow: the simulator's columnar traces (numpy arrays) -> DataFrames here -> metrics and
plots (:mod:`aqmlab.plots`) -> files written by :meth:`Result.save`.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import pandas as pd

from .scenario import Scenario

DROP_KINDS = {0: "overflow", 1: "early", 2: "dequeue", 3: "mark", 4: "impairment"}
TCP_EVENT_KINDS = {0: "retransmit", 1: "timeout", 2: "recovery", 3: "ecn_reduction"}


def _version() -> str:
    from . import __version__

    return __version__


@dataclass
class Result:
    scenario: Scenario
    summary: dict
    traces: dict = field(repr=False)
    delay_histogram: dict = field(repr=False)

    @classmethod
    def from_simulation(cls, scenario: Scenario, sim, *, wall_s: float, interrupted: bool) -> "Result":
        summary = json.loads(sim.summary_json())
        names = [g["name"] for g in scenario.resolved["flows"] for _ in range(g["count"])]
        for f, name in zip(summary["flows"], names):
            f["name"] = name
        summary.update({
            "scenario": scenario.name,
            "aqmlab_version": _version(),
            "wall_s": wall_s,
            "events_per_s": sim.events / wall_s if wall_s > 0 else None,
            "delivered_packets": sim.delivered_packets,
            "interrupted": interrupted,
        })
        traces = dict(sim.traces())
        traces["n_flows"] = sim.n_flows
        return cls(scenario=scenario, summary=summary, traces=traces, delay_histogram=dict(sim.delay_histogram()))

    # ---- traces as DataFrames ------------------------------------------------------------

    def _sample_t(self) -> np.ndarray:
        return self.traces["sample_t_ns"] * 1e-9

    def queue(self) -> pd.DataFrame:
        """Bottleneck state every interval: backlog, the last departure's sojourn, link rate."""
        t = self.traces
        return pd.DataFrame({
            "t_s": self._sample_t() if len(t["queue_bytes"]) else np.array([]),
            "backlog_bytes": t["queue_bytes"],
            "backlog_packets": t["queue_packets"],
            "qdelay_s": t["queue_delay_ns"] * 1e-9,
            "rate_bps": t["link_rate_bps"],
        })

    def sojourn(self) -> pd.DataFrame:
        """Per-packet bottleneck sojourn times (every n-th departure if sampled)."""
        t = self.traces
        return pd.DataFrame({"t_s": t["sojourn_t_ns"] * 1e-9, "sojourn_s": t["sojourn_ns"] * 1e-9, "flow": t["sojourn_flow"]})

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
        kinds = pd.Categorical.from_codes(t["drop_kind"].astype(int), categories=list(DROP_KINDS.values()))
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
        kinds = pd.Categorical.from_codes(t["tcp_event_kind"].astype(int), categories=list(TCP_EVENT_KINDS.values()))
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
        """A human summary."""
        s = self.summary
        lines = [
            f"scenario {s['scenario']}: {s['time_s']:.1f} s simulated in {s['wall_s']:.2f} s"
            + (" (interrupted)" if s["interrupted"] else ""),
            f"  measured window     {s['measured_s']:.1f} s",
            f"  utilization         {s['utilization'] * 100:.2f} %",
            f"  queue delay         mean {s['qdelay_mean_s'] * 1e3:.2f} ms, p50 {s['qdelay_p50_s'] * 1e3:.2f}, "
            f"p95 {s['qdelay_p95_s'] * 1e3:.2f}, p99 {s['qdelay_p99_s'] * 1e3:.2f}, max {s['qdelay_max_s'] * 1e3:.2f} ms",
            f"  drops / marks       {s['dropped']} / {s['marked']} of {s['sent']} data packets "
            f"({s['drop_rate'] * 100:.3f} % / {s['mark_rate'] * 100:.3f} %)",
            f"  Jain fairness       {s['jain_index']:.4f}",
        ]
        df = self.flows()
        if len(df):
            g = df.groupby("name", sort=False)["throughput_bps"].agg(["count", "mean", "min", "max"])
            for name, row in g.iterrows():
                lines.append(
                    f"  {name:<18}  {int(row['count'])} flows, throughput mean {row['mean'] / 1e6:.3f} Mb/s "
                    f"(min {row['min'] / 1e6:.3f}, max {row['max'] / 1e6:.3f})"
                )
        return "\n".join(lines)

    def save(self, outdir: str | Path, *, plots: bool = True) -> list[Path]:
        """Writes summary.json, scenario.toml (resolved), sim_config.json, traces as Parquet and
        PNG plots into ``outdir``; returns the files written."""
        out = Path(outdir)
        (out / "traces").mkdir(parents=True, exist_ok=True)
        written = []

        def write(path: Path, text: str):
            path.write_text(text)
            written.append(path)

        write(out / "summary.json", json.dumps(self.summary, indent=2))
        write(out / "scenario.toml", self.scenario.to_toml())
        write(out / "sim_config.json", json.dumps(self.scenario.sim_config, indent=2))
        frames = {
            "queue": self.queue(), "sojourn": self.sojourn(), "flow_rates": self.flow_rates(),
            "drops": self.drops(), "probe": self.probe(), "tcp": self.tcp(), "flows": self.flows(),
            "tcp_events": self.tcp_events(), "transfers": self.transfers(),
        }
        for name, df in frames.items():
            if len(df):
                path = out / "traces" / f"{name}.parquet"
                df.columns = [str(c) for c in df.columns]
                df.to_parquet(path)
                written.append(path)
        if plots:
            from . import plots as plotting

            written += plotting.save_all(self, out / "plots")
        return written
