"""The local process pool: a worker that dies costs only the task it held, which runs once more."""

import os
import signal
import time
from pathlib import Path

from aqmlab.sweep.pool import Pool, WorkerLost
from sweep_cases import die_on_attempts


def attempts(folder: Path, name: str) -> int:
    return len(list(folder.glob(f"{name}.*")))


def test_a_task_whose_worker_dies_once_runs_again_and_the_others_are_untouched(tmp_path):
    pool = Pool(2, retries=1)
    try:
        items = [(f"run{i}", str(tmp_path), 1 if i == 3 else 0) for i in range(8)]
        outcomes = list(pool.run(die_on_attempts, items))
        # Every task once, with its own result: nothing lost, nothing duplicated.
        assert sorted(o for _, o in outcomes) == sorted(f"run{i}" for i in range(8))
        assert sorted(i[0] for i, _ in outcomes) == sorted(f"run{i}" for i in range(8))
        assert attempts(tmp_path, "run3") == 2
        assert all(attempts(tmp_path, f"run{i}") == 1 for i in range(8) if i != 3)
    finally:
        pool.close()


def test_a_task_that_kills_every_worker_fails_after_one_retry_and_the_pool_goes_on(tmp_path):
    pool = Pool(2, retries=1)
    try:
        items = [("doomed", str(tmp_path), 99)] + [(f"run{i}", str(tmp_path), 0) for i in range(4)]
        outcomes = dict((i[0], o) for i, o in pool.run(die_on_attempts, items))
        assert isinstance(outcomes.pop("doomed"), WorkerLost)
        assert attempts(tmp_path, "doomed") == 2      # the first try and one retry
        assert outcomes == {f"run{i}": f"run{i}" for i in range(4)}
        # The pool replaced its dead workers: a second batch runs on it.
        assert [o for _, o in pool.run(die_on_attempts, [("later", str(tmp_path), 0)])] == ["later"]
        assert len(pool.pids()) == 2
    finally:
        pool.close()


def test_a_worker_killed_while_idle_costs_no_attempt_and_the_next_batch_runs(tmp_path):
    # A worker killed between two tasks (after its result was read, before the next task is
    # sent): sending to it raised BrokenPipeError out of the sweep (seen in CI under load).
    pool = Pool(1, retries=0)
    try:
        assert [o for _, o in pool.run(die_on_attempts, [("first", str(tmp_path), 0)])] == ["first"]
        (pid,) = pool.pids()
        os.kill(pid, signal.SIGKILL)
        # Wait until the worker's process object knows it is dead (its exit status comes
        # through the fork server a moment after the kill): the case of a death noticed before
        # the next task is sent. (A death in the instant after is charged as one attempt.)
        (worker,) = pool._workers
        while worker.process.is_alive():
            time.sleep(0.01)
        # With no retries, a task whose worker died holding it would fail: this one never
        # reached the dead worker, so it runs on the fresh one.
        assert [o for _, o in pool.run(die_on_attempts, [("second", str(tmp_path), 0)])] == ["second"]
        assert attempts(tmp_path, "second") == 1 and len(pool.pids()) == 1 and pool.pids() != [pid]
    finally:
        pool.close()
