"""The result store under restarts, failures, SIGKILL and Ctrl-C, and per-run traces."""

import json
import os
import signal
import time
from pathlib import Path

import pandas as pd
import pytest

from aqmlab.sweep import Store, Sweep, load_results, run_sweep
from aqmlab.sweep.runner import FAIL_HOOK_ENV
from sweep_cases import SLOW, SMALL, comparable, sweep_cli, sweep_dict, write_sweep


@pytest.fixture(scope="module")
def slow_clean(tmp_path_factory):
    """The slow sweep run start to end without trouble: what every recovered store must equal."""
    store = tmp_path_factory.mktemp("slow-clean")
    report = run_sweep(Sweep.from_dict(SLOW), store, workers=2, progress=False)
    assert report.completed == report.total == 12
    return comparable(load_results(store))


def wait_for_records(store: Path, n: int, proc, timeout_s: float = 60) -> None:
    deadline = time.monotonic() + timeout_s
    while len(list((store / "records").glob("*.json"))) < n:
        assert proc.poll() is None, proc.communicate()
        assert time.monotonic() < deadline, "the sweep finished no run in time"
        time.sleep(0.02)


def assert_recovers(store: Path, clean: pd.DataFrame) -> None:
    """A second run of the sweep runs exactly the missing runs and the store equals a clean run."""
    held = Store(store).completed()
    report = run_sweep(Sweep.from_dict(SLOW), store, workers=2, progress=False)
    assert report.skipped == len(held) and report.completed == 12 - len(held) and not report.failed
    df = load_results(store)
    assert df["run_key"].is_unique and len(df) == 12
    pd.testing.assert_frame_equal(comparable(df), clean, check_exact=True)


def test_rerun_skips_completed_runs(tmp_path):
    sweep = Sweep.from_dict(SMALL)
    first = run_sweep(sweep, tmp_path, workers=2, progress=False)
    assert (first.completed, first.skipped) == (16, 0)
    stamps = {p.name: p.stat().st_mtime_ns for p in (tmp_path / "records").iterdir()}
    again = run_sweep(sweep, tmp_path, workers=2, progress=False)
    assert (again.completed, again.skipped, again.remaining) == (0, 16, 0)
    assert stamps == {p.name: p.stat().st_mtime_ns for p in (tmp_path / "records").iterdir()}
    # A larger sweep in the same store reuses the runs it shares.
    wider = Sweep.from_dict(sweep_dict(replications=3))
    more = run_sweep(wider, tmp_path, workers=2, progress=False)
    assert (more.completed, more.skipped) == (8, 16)
    df = load_results(tmp_path)
    assert len(df) == 24 and sorted(df["replication"].unique()) == [0, 1, 2]
    manifest = json.loads((tmp_path / "manifest.json").read_text())
    assert {r["status"] for r in manifest["runs"].values()} == {"ok"} and len(manifest["runs"]) == 24


def test_table_has_swept_values_seed_key_version_and_metrics(tmp_path):
    import aqmlab

    sweep = Sweep.from_dict(SMALL)
    run_sweep(sweep, tmp_path, workers=1, progress=False)
    df = pd.read_parquet(tmp_path / "summary.parquet")
    assert list(df["run_key"]) == sorted(df["run_key"])
    specs = {s.key: s for s in sweep.runs()}
    for row in df.to_dict("records"):
        spec = specs[row["run_key"]]
        assert (row["replication"], row["seed"], row["point"]) == (spec.replication, spec.seed, spec.point)
        assert {p: row[p] for p in sweep.axes} == spec.values
    assert set(df["aqmlab_version"]) == {aqmlab.__version__}
    assert {"bottleneck.queue.limit", "flows[0].count", "bottleneck.rate", "flows[0].rtt", "qdelay_p90_s", "jain_index",
            "throughput_mean_bps", "throughput_min_bps", "throughput_max_bps", "sent", "dropped", "marked"} <= set(df.columns)
    assert (df["throughput_min_bps"] <= df["throughput_mean_bps"]).all()
    assert (df["throughput_mean_bps"] <= df["throughput_max_bps"]).all()
    assert df["sent"].dtype == "Int64" and df["seed"].dtype == "uint64"
    # One run checked against a direct aqmlab.run of its resolved scenario.
    spec = sweep.runs()[5]
    direct = aqmlab.run(spec.scenario, progress=False).summary
    row = df.set_index("run_key").loc[spec.key]
    assert row["qdelay_mean_s"] == direct["qdelay_mean_s"] and row["sent"] == direct["sent"]


def test_a_failing_run_records_its_error_and_the_others_complete(tmp_path, monkeypatch):
    sweep = Sweep.from_dict(SMALL)
    monkeypatch.setenv(FAIL_HOOK_ENV, 'bottleneck.queue.limit="100p"; flows[0].count=3; replication=1')
    report = run_sweep(sweep, tmp_path, workers=2, progress=False)
    assert report.completed == 14 and len(report.failed) == 2
    for err in report.failed.values():
        assert err["type"] == "InjectedFailure" and "AQMLAB_SWEEP_FAIL_IF" in err["message"]
        assert "Traceback" in err["traceback"] and "worker.py" in err["traceback"]
    df = load_results(tmp_path)
    failed = df[df["status"] == "error"]
    assert len(df) == 16 and len(failed) == 2
    assert set(failed["error_type"]) == {"InjectedFailure"} and failed["qdelay_mean_s"].isna().all()
    assert (failed["bottleneck.queue.limit"] == "100p").all() and (failed["replication"] == 1).all()
    record = json.loads((tmp_path / "records" / f"{failed['run_key'].iloc[0]}.json").read_text())
    assert record["status"] == "error" and "InjectedFailure" in record["error"]["traceback"]
    # Failed runs are tried again by the next invocation; the completed ones are not.
    monkeypatch.delenv(FAIL_HOOK_ENV)
    again = run_sweep(sweep, tmp_path, workers=2, progress=False)
    assert (again.skipped, again.completed, again.failed) == (14, 2, {})
    assert (load_results(tmp_path)["status"] == "ok").all()


def test_traces_are_saved_per_run(tmp_path):
    sweep = Sweep.from_dict(sweep_dict(axes={"flows[0].count": [1, 2]}, zip=[], replications=1, traces=True,
                                       base={**SMALL["base"], "traces": {"queue": True}}))
    run_sweep(sweep, tmp_path, workers=1, progress=False)
    for spec in sweep.runs():
        run_dir = tmp_path / "runs" / spec.key
        summary = json.loads((run_dir / "summary.json").read_text())
        assert summary["sent"] == load_results(tmp_path).set_index("run_key").loc[spec.key, "sent"]
        assert len(pd.read_parquet(run_dir / "traces" / "queue.parquet")) == 301
        assert not (run_dir / "plots").exists()
    assert sorted(p.name for p in (tmp_path / "runs").iterdir()) == sorted(s.key for s in sweep.runs())


def test_sigkill_mid_sweep_loses_no_finished_run_and_a_restart_completes_it(tmp_path, slow_clean):
    path = write_sweep(tmp_path / "slow.toml", SLOW)
    store = tmp_path / "store"
    # A new session, so the kill takes the driver, the forkserver and the pool workers at once.
    proc = sweep_cli(path, "-o", store, "--workers", "1", "-q", popen=True, start_new_session=True)
    wait_for_records(store, 3, proc)
    os.killpg(proc.pid, signal.SIGKILL)
    proc.communicate()
    records = Store(store).records()
    assert 3 <= len(records) < 12 and all(r["status"] == "ok" for r in records.values())
    assert_recovers(store, slow_clean)


def _descendants(pid: int) -> dict[int, int]:
    """{descendant pid: depth below pid}, from /proc (Linux)."""
    parent = {}
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = stat.read_text().rsplit(")", 1)[1].split()
        except OSError:  # the process ended while we looked
            continue
        parent[int(stat.parent.name)] = int(fields[1])
    depth = {pid: 0}
    changed = True
    while changed:
        changed = False
        for child, ppid in parent.items():
            if ppid in depth and child not in depth:
                depth[child] = depth[ppid] + 1
                changed = True
    del depth[pid]
    return depth


@pytest.mark.skipif(not Path("/proc/self/stat").exists(), reason="finds the pool workers through /proc")
def test_a_pool_worker_killed_mid_sweep_fails_only_unfinished_runs(tmp_path, slow_clean):
    path = write_sweep(tmp_path / "slow.toml", SLOW)
    store = tmp_path / "store"
    proc = sweep_cli(path, "-o", store, "--workers", "2", "-q", popen=True, start_new_session=True)
    wait_for_records(store, 2, proc)
    # driver -> forkserver -> pool workers: the workers are two levels down.
    workers = [p for p, d in _descendants(proc.pid).items() if d == 2]
    assert workers
    os.kill(workers[0], signal.SIGKILL)
    out, err = proc.communicate(timeout=60)
    assert proc.returncode == 1, err
    assert "the worker failed" in err and "BrokenProcessPool" in err
    records = Store(store).records()
    assert sum(r["status"] == "ok" for r in records.values()) >= 2
    assert_recovers(store, slow_clean)


def test_ctrl_c_leaves_a_usable_store(tmp_path, slow_clean):
    path = write_sweep(tmp_path / "slow.toml", SLOW)
    store = tmp_path / "store"
    proc = sweep_cli(path, "-o", store, "--workers", "1", popen=True)
    wait_for_records(store, 2, proc)
    proc.send_signal(signal.SIGINT)
    out, err = proc.communicate(timeout=60)
    assert proc.returncode == 130, err
    assert "interrupted" in out and "Traceback" not in err
    done = Store(store).completed()
    assert 2 <= len(done) < 12
    summary = pd.read_parquet(store / "summary.parquet")
    assert set(summary["run_key"]) == done and (summary["status"] == "ok").all()
    statuses = [r["status"] for r in json.loads((store / "manifest.json").read_text())["runs"].values()]
    assert statuses.count("ok") == len(done) and statuses.count("pending") == 12 - len(done)
    assert not list(store.rglob("*.tmp"))
    assert_recovers(store, slow_clean)
