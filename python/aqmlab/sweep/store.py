"""The result store: a directory that survives crashes, Ctrl-C and restarts.

Layout::

    STORE/
      manifest.json      the sweep (base scenario, axes) and its runs keyed by run key:
                         grid point, replication, seed, swept values, status (ok | error | pending)
      records/<key>.json one file per finished run (metrics or error with traceback), written
                         atomically as the run finishes: the source of truth
      runs/<key>/        the run's Result.save(plots=False) when the sweep keeps traces
      summary.parquet    one row per finished run, rebuilt from the records by :meth:`Store.collect`

A run's record is written with write-to-temporary, fsync, rename and a directory fsync, so after
a crash (SIGKILL, power loss) a record is either complete or absent; the consolidated files are
derived and can always be rebuilt (``aqmlab sweep --collect``).
"""

from __future__ import annotations

import json
import os
import tempfile
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import pandas as pd

METRICS = (
    "utilization", "qdelay_mean_s", "qdelay_p50_s", "qdelay_p90_s", "qdelay_p95_s", "qdelay_p99_s",
    "qdelay_max_s", "jain_index", "drop_rate", "mark_rate", "sent", "dropped", "marked",
)
COUNTS = ("sent", "dropped", "marked")
FLOW_METRICS = ("throughput_mean_bps", "throughput_min_bps", "throughput_max_bps")
WALL_CLOCK = ("wall_s",)


def atomic_write(path: Path, text: str) -> None:
    """Replaces ``path`` with ``text`` so that readers (and a restart after a crash) see the old
    file or the new one, never a part."""
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        with os.fdopen(fd, "w") as f:
            f.write(text)
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
    _fsync_dir(path.parent)


def _fsync_dir(d: Path) -> None:
    # The rename is durable only once the directory entry is on disk (POSIX); not possible on Windows.
    if hasattr(os, "O_DIRECTORY"):
        fd = os.open(d, os.O_RDONLY | os.O_DIRECTORY)
        try:
            os.fsync(fd)
        finally:
            os.close(fd)


class Store:
    """A sweep's result directory (see the module docstring for the layout)."""

    def __init__(self, root: str | Path):
        self.root = Path(root)
        self.records_dir = self.root / "records"
        self.runs_dir = self.root / "runs"
        self.manifest_path = self.root / "manifest.json"
        self.summary_path = self.root / "summary.parquet"

    def trace_dir(self, key: str) -> Path:
        return self.runs_dir / key

    # ---- records ---------------------------------------------------------------------------

    def write_record(self, record: dict) -> None:
        atomic_write(self.records_dir / f"{record['run_key']}.json", json.dumps(record, sort_keys=True))

    def records(self) -> dict[str, dict]:
        """Every finished run's record by run key (leftover temporaries of a crash are ignored)."""
        if not self.records_dir.is_dir():
            return {}
        out = {}
        for p in sorted(self.records_dir.glob("*.json")):
            out[p.stem] = json.loads(p.read_text())
        return out

    def completed(self) -> set[str]:
        return {k for k, r in self.records().items() if r["status"] == "ok"}

    # ---- manifest and summary --------------------------------------------------------------

    def write_manifest(self, sweep: dict, runs: dict[str, dict]) -> None:
        """``runs``: run key -> point, replication, seed, values; the status (ok, error or pending)
        is added from the records."""
        records = self.records()
        runs = {k: {**r, "status": records[k]["status"] if k in records else "pending"} for k, r in runs.items()}
        atomic_write(self.manifest_path, json.dumps({"sweep": sweep, "runs": runs}, indent=1, sort_keys=True))

    def manifest(self) -> dict:
        if not self.manifest_path.exists():
            raise FileNotFoundError(f"{self.root}: not a sweep store (no manifest.json)")
        return json.loads(self.manifest_path.read_text())

    def table(self) -> pd.DataFrame:
        """One row per finished run of the manifest's plan (ok or error), sorted by run key; reads
        the records, writes nothing."""
        manifest = self.manifest()
        records = self.records()
        axes = [p for g in manifest["sweep"]["groups"] for p, _ in g]
        return _frame([_row(records[k], axes) for k in sorted(manifest["runs"]) if k in records], axes)

    def collect(self) -> pd.DataFrame:
        """Rebuilds summary.parquet and the run statuses in manifest.json from the records;
        returns the table."""
        manifest = self.manifest()
        self.write_manifest(manifest["sweep"], manifest["runs"])
        df = self.table()
        fd, tmp = tempfile.mkstemp(dir=self.root, prefix=".summary.", suffix=".parquet.tmp")
        os.close(fd)
        try:
            df.to_parquet(tmp, index=False)
            os.replace(tmp, self.summary_path)
        except BaseException:
            Path(tmp).unlink(missing_ok=True)
            raise
        return df


def _row(record: dict, axes: list[str]) -> dict:
    row = {"run_key": record["run_key"], "point": record["point"]}
    row.update({p: record["columns"][p] for p in axes})
    row.update({"replication": record["replication"], "seed": record["seed"], "status": record["status"]})
    metrics = record.get("metrics") or {}
    row.update({m: metrics.get(m) for m in METRICS + FLOW_METRICS})
    error = record.get("error") or {}
    row.update({"error_type": error.get("type"), "error_message": error.get("message"),
                "aqmlab_version": record["aqmlab_version"], "wall_s": record["wall_s"]})
    return row


def _frame(rows: list[dict], axes: list[str]) -> pd.DataFrame:
    # Here, not at the top: `aqmlab sweep --help` reads this module's metric names only.
    import pandas as pd

    columns = ["run_key", "point", *axes, "replication", "seed", "status", *METRICS, *FLOW_METRICS,
               "error_type", "error_message", "aqmlab_version", *WALL_CLOCK]
    df = pd.DataFrame(rows, columns=columns)
    # Fixed dtypes, so a table with failed runs (no metrics) or no rows at all has the same schema.
    dtypes = {"point": "int64", "replication": "int64", "seed": "uint64", "wall_s": "float64"}
    dtypes.update({m: "Int64" if m in COUNTS else "float64" for m in METRICS + FLOW_METRICS})
    dtypes.update({c: "string" for c in ("run_key", "status", "error_type", "error_message", "aqmlab_version")})
    return df.astype(dtypes).reset_index(drop=True)
