"""A process pool that knows which task each worker runs, so that a lost worker costs only its task.

``concurrent.futures.ProcessPoolExecutor`` cannot tell which task a dead worker held: one killed
worker (the kernel's OOM killer, a stray ``kill``) breaks the whole pool and fails every task
not yet finished. Here each worker has its own pipe and runs one task at a time; the driver
waits on the pipes and on the processes' sentinels, so when a worker dies it knows the task,
sends it once more to a fresh worker (``retries``), and fails it only if that dies too.

Workers never outlive the driver: each holds the reading end of a "lifeline" pipe whose only
writer is the driver, and a thread that ends the worker when that pipe reports end-of-file,
which the kernel does the moment the driver dies (even by SIGKILL). The worker's parent cannot
tell: with the forkserver start method the parent is the forkserver, which the workers
themselves keep alive.
"""

from __future__ import annotations

import multiprocessing
import os
import threading
from collections import deque
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from multiprocessing.connection import Connection, wait
from typing import Any

from .worker import ignore_sigint

class WorkerLost(RuntimeError):
    """The worker process running a task died (killed, out of memory) on every attempt."""


def _exit_with_driver(lifeline: Connection) -> None:
    def watch() -> None:
        try:
            lifeline.recv()   # nothing is ever sent: this returns only at end-of-file
        except (EOFError, OSError):
            pass
        os._exit(1)  # the driver is gone and nobody will read the result

    threading.Thread(target=watch, name="aqmlab-lifeline", daemon=True).start()


def _serve(conn: Connection, lifeline: Connection) -> None:
    """A worker: run (fn, item) messages one at a time until None or the pipe closes."""
    ignore_sigint()
    _exit_with_driver(lifeline)
    while True:
        try:
            message = conn.recv()
        except (EOFError, OSError):
            return
        if message is None:
            return
        fn, item = message
        try:
            outcome = fn(item)
        except Exception as e:  # the task's own failure is its outcome
            outcome = e
        conn.send(outcome)


@dataclass
class _Worker:
    process: Any                # multiprocessing.Process of the chosen start method
    conn: Connection
    task: tuple[int, Any] | None = None   # (index in the batch, item) being run


@dataclass
class _Batch:
    fn: Callable[[Any], Any]
    items: list[Any]
    pending: deque[int] = field(default_factory=deque)      # indices not yet sent to a worker
    attempts: dict[int, int] = field(default_factory=dict)  # index -> workers lost running it
    left: int = 0                                           # tasks without an outcome yet


class Pool:
    """``workers`` processes (forkserver where available, else spawn: never a plain fork of a
    driver that may hold threads and a Dask or Ray client), started on first use."""

    def __init__(self, workers: int, retries: int = 1):
        self.size, self.retries = workers, retries
        method = "forkserver" if "forkserver" in multiprocessing.get_all_start_methods() else "spawn"
        self._ctx = multiprocessing.get_context(method)
        if method == "forkserver":
            # Workers fork from a server that has imported the simulator and pandas once, so a
            # replacement worker starts in milliseconds (ignored if the server already runs).
            self._ctx.set_forkserver_preload(["aqmlab.api", "aqmlab.sweep.worker"])
        self._workers: list[_Worker] = []
        # The driver keeps the writing end and never writes; it closes with the pool or the driver.
        self._lifeline, self._lifeline_writer = self._ctx.Pipe(duplex=False)

    def _start(self) -> _Worker:
        ours, theirs = self._ctx.Pipe()
        p = self._ctx.Process(target=_serve, args=(theirs, self._lifeline), daemon=True, name="aqmlab-sweep-worker")
        p.start()
        theirs.close()
        return _Worker(process=p, conn=ours)

    def pids(self) -> list[int]:
        """The worker processes' ids (for tests and diagnostics)."""
        return [w.process.pid for w in self._workers]

    def run(self, fn: Callable[[Any], Any], items: Iterable[Any]) -> Iterator[tuple[Any, Any]]:
        """Yields (item, fn(item)) in completion order; a task whose worker died on every attempt
        yields a :class:`WorkerLost`. Closing the generator early drops the tasks not started."""
        batch = _Batch(fn, list(items))
        batch.pending.extend(range(len(batch.items)))
        batch.left = len(batch.items)
        while len(self._workers) < min(self.size, batch.left):
            self._workers.append(self._start())
        try:
            while batch.left:
                self._assign(batch)
                yield from self._collect(batch)
        finally:
            if batch.left:
                # Stopped early: workers still busy run a task nobody will record; replace them.
                for w in [w for w in self._workers if w.task is not None]:
                    self._retire(w)

    def _assign(self, batch: _Batch) -> None:
        idle = [w for w in self._workers if w.task is None]
        while idle and batch.pending:
            w = idle.pop()
            i = batch.pending.popleft()
            try:
                if not w.process.is_alive():
                    raise BrokenPipeError
                w.conn.send((batch.fn, batch.items[i]))
            except (BrokenPipeError, OSError):
                # It died idle (killed between two tasks): the task never reached it, so it
                # costs no attempt; it waits first in line for the worker taking the place. (One
                # that dies in the instant after this test is charged as if it had died
                # holding the task: the retry covers it.)
                batch.pending.appendleft(i)
                idle.append(self._replace(w))
                continue
            w.task = (i, batch.items[i])

    def _collect(self, batch: _Batch) -> Iterator[tuple[Any, Any]]:
        busy = [w for w in self._workers if w.task is not None]
        ready = set(wait([w.conn for w in busy] + [w.process.sentinel for w in busy]))
        for w in busy:
            assert w.task is not None
            i, item = w.task
            if w.conn in ready:
                try:
                    outcome = w.conn.recv()
                except (EOFError, OSError):  # the pipe closed: the worker is dying
                    w.process.join()
                else:
                    w.task = None
                    batch.left -= 1
                    yield item, outcome
                    continue
            if w.process.sentinel in ready or not w.process.is_alive():
                failure = self._lost(w, batch)
                if failure is not None:
                    batch.left -= 1
                    yield item, failure

    def _lost(self, w: _Worker, batch: _Batch) -> WorkerLost | None:
        """The worker died holding its task: a fresh worker takes its place, and the task runs
        once more (first in line), or fails once it has been lost ``1 + retries`` times."""
        assert w.task is not None
        i = w.task[0]
        self._replace(w)
        code = w.process.exitcode
        batch.attempts[i] = batch.attempts.get(i, 0) + 1
        if batch.attempts[i] <= self.retries:
            batch.pending.appendleft(i)
            return None
        how = f"was killed by signal {-code}" if code is not None and code < 0 else f"exited with code {code}"
        return WorkerLost(f"the worker process running this run {how}, on each of {batch.attempts[i]} attempts")

    def _replace(self, w: _Worker) -> _Worker:
        """Puts a fresh worker in the place of dead worker ``w``; returns the fresh one."""
        w.process.join()
        self._workers.remove(w)
        w.conn.close()
        fresh = self._start()
        self._workers.append(fresh)
        return fresh

    def close(self) -> None:
        """Stops the workers: idle ones at once, busy ones at the end of their task. The pool
        cannot be used afterwards."""
        for w in self._workers:
            try:
                w.conn.send(None)
            except (BrokenPipeError, OSError):
                pass
        for w in self._workers:
            w.process.join()
            w.conn.close()
        self._workers = []
        self._lifeline.close()
        self._lifeline_writer.close()

    def _retire(self, w: _Worker) -> None:
        w.process.terminate()
        w.process.join()
        w.conn.close()
        self._workers.remove(w)
