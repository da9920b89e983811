"""The result store under restarts, failures, SIGKILL and Ctrl-C, and per-run traces."""

import json
import os
import signal
import time
from pathlib import Path

import pandas as pd
import pytest

from aqmlab.sweep import Store, Sweep, load_results, run_sweep
from sweep_cases import SLOW, SMALL, FailIf, alive, comparable, descendants, sweep_cli, sweep_dict, write_sweep


@pytest.fixture(scope="module")
def slow_clean(tmp_path_factory):
    """The slow sweep run start to end without trouble: what every recovered store must equal."""
    store = tmp_path_factory.mktemp("slow-clean")
    report = run_sweep(Sweep.from_dict(SLOW), store, workers=2, progress=False)
    assert report.completed == report.total == 12
    return comparable(load_results(store))


def wait_for_records(store: Path, n: int, proc, timeout_s: float = 300) -> None:
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


def test_a_failing_run_records_its_error_and_the_others_complete(tmp_path):
    sweep = Sweep.from_dict(SMALL)
    fail = FailIf((("bottleneck.queue.limit", "100p"), ("flows[0].count", 3), ("replication", 1)), sweep.base_seed)
    report = run_sweep(sweep, tmp_path, workers=2, progress=False, task_fn=fail)
    assert report.completed == 14 and len(report.failed) == 2
    for err in report.failed.values():
        assert err["type"] == "ScenarioError" and "injected_failure: unknown key" in err["message"]
        assert "Traceback" in err["traceback"] and "worker.py" in err["traceback"]
    df = load_results(tmp_path)
    failed = df[df["status"] == "error"]
    assert len(df) == 16 and len(failed) == 2
    assert set(failed["error_type"]) == {"ScenarioError"} and failed["qdelay_mean_s"].isna().all()
    assert (failed["bottleneck.queue.limit"] == "100p").all() and (failed["replication"] == 1).all()
    record = json.loads((tmp_path / "records" / f"{failed['run_key'].iloc[0]}.json").read_text())
    assert record["status"] == "error" and "ScenarioError" in record["error"]["traceback"]
    # Failed runs are tried again by the next invocation; the completed ones are not.
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


BACKENDS = {"local": ["--workers", "2"], "dask": ["--dask", "local:2"]}


def _workers(driver: int, backend: str) -> list[int]:
    """The processes that run simulations: the pool's workers (driver -> forkserver -> worker)
    or Dask's worker processes (spawned by the nannies inside the driver)."""
    cmd = {p: Path(f"/proc/{p}/cmdline").read_bytes() for p in descendants(driver) if alive(p)}
    if backend == "local":
        return [p for p, d in descendants(driver).items() if d == 2 and p in cmd]
    return [p for p, c in cmd.items() if b"spawn_main" in c]


@pytest.mark.skipif(not Path("/proc/self/stat").exists(), reason="finds the workers through /proc")
@pytest.mark.parametrize("backend", BACKENDS)
def test_a_killed_worker_costs_only_its_run_which_runs_again(tmp_path, slow_clean, backend):
    # issue 16 item 10: one SIGKILLed pool worker used to fail every unfinished run (exit 1).
    path = write_sweep(tmp_path / "slow.toml", SLOW)
    store = tmp_path / "store"
    proc = sweep_cli(path, "-o", store, *BACKENDS[backend], "-q", popen=True, start_new_session=True)
    wait_for_records(store, 1, proc, timeout_s=300)
    victims = _workers(proc.pid, backend)
    assert victims, descendants(proc.pid)
    os.kill(victims[0], signal.SIGKILL)
    out, err = proc.communicate(timeout=600)
    assert proc.returncode == 0, err
    assert "12 completed, 0 failed" in out
    records = Store(store).records()
    assert len(records) == 12 and all(r["status"] == "ok" for r in records.values())
    # Nothing lost, nothing duplicated: the table equals a run without trouble.
    df = load_results(store)
    assert df["run_key"].is_unique and len(df) == 12
    pd.testing.assert_frame_equal(comparable(df), slow_clean, check_exact=True)


def _cpu_s(pid: int) -> float:
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


@pytest.mark.skipif(not Path("/proc/self/stat").exists(), reason="finds the workers through /proc")
@pytest.mark.parametrize("backend", BACKENDS)
def test_killing_the_sweep_leaves_no_orphan_worker(tmp_path, backend):
    # Runs of minutes each (100 flows at 1 Gb/s for 2000 s), so the workers are mid-run when
    # the driver dies: they must stop then, not when their run would end.
    base = {**SLOW["base"], "duration": "2000s",
            "flows": [{"type": "tcp", "count": 100, "rtt": "40ms", "start": {"uniform": ["0s", "0.5s"]}}]}
    path = write_sweep(tmp_path / "long.toml", {**SLOW, "base": base, "replications": 1})
    proc = sweep_cli(path, "-o", tmp_path / "store", *BACKENDS[backend], "-q", popen=True)
    deadline = time.monotonic() + 300
    while not (workers := _workers(proc.pid, backend)) or min(_cpu_s(p) for p in workers) < 3:
        assert proc.poll() is None and time.monotonic() < deadline, proc.communicate()
        time.sleep(0.2)
    children = list(descendants(proc.pid))
    os.kill(proc.pid, signal.SIGKILL)  # the driver only, by PID: no process group
    proc.wait()  # not communicate(): an orphan would hold the driver's output pipes open
    proc.stdout.close()
    proc.stderr.close()
    deadline = time.monotonic() + 20
    while any(alive(p) for p in children) and time.monotonic() < deadline:
        time.sleep(0.1)
    assert not [p for p in children if alive(p)]


def test_ctrl_c_leaves_a_usable_store(tmp_path, slow_clean):
    path = write_sweep(tmp_path / "slow.toml", SLOW)
    store = tmp_path / "store"
    proc = sweep_cli(path, "-o", store, "--workers", "1", popen=True)
    wait_for_records(store, 2, proc)
    proc.send_signal(signal.SIGINT)
    out, err = proc.communicate(timeout=300)
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
