"""Where sweep runs execute: a local process pool, a Dask cluster or a Ray cluster.

All backends share one small interface, :class:`Backend`: ``run(fn, items)`` submits a batch and
yields ``(item, outcome)`` as runs complete, where ``outcome`` is ``fn(item)`` or the exception the
infrastructure raised (a worker process that died, a lost connection). Completion order differs
between backends and worker counts; the store keys everything by run key, so results do not.

Dask and Ray workers must be able to import aqmlab (the same version), and per-run traces are
written by the worker itself, so with a remote cluster the store must be on a shared filesystem
when traces are kept.
"""

from __future__ import annotations

import multiprocessing
import os
from abc import ABC, abstractmethod
from concurrent.futures import ProcessPoolExecutor, as_completed
from concurrent.futures.process import BrokenProcessPool
from typing import Any, Callable, Iterable, Iterator

from ..errors import ScenarioError
from .worker import ignore_sigint


class Backend(ABC):
    """Runs a batch of independent calls; a context manager that releases what it started."""

    name = "backend"

    @abstractmethod
    def run(self, fn: Callable, items: Iterable) -> Iterator[tuple[Any, Any]]:
        """Yields (item, fn(item) or the infrastructure's exception) in completion order; when the
        generator is closed early (Ctrl-C), runs not yet started are cancelled."""

    def close(self) -> None:
        """Releases workers, clusters and connections this backend started."""

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()


def _local_count(spec: str, option: str) -> int:
    """'local' -> the number of CPUs, 'local:3' -> 3."""
    _, _, n = spec.partition(":")
    if not n:
        return os.cpu_count() or 1
    if not n.isdigit() or int(n) < 1:
        raise ScenarioError(option, f"expected 'local' or 'local:N' with N >= 1, got {spec!r}")
    return int(n)


class LocalPool(Backend):
    """A ``ProcessPoolExecutor`` on this machine (forkserver where available, else spawn: never a
    plain fork of a driver that may hold threads and a Dask/Ray client)."""

    name = "local"

    def __init__(self, workers: int | None = None):
        if workers is not None and workers < 1:
            raise ScenarioError("--workers", f"expected at least 1, got {workers}")
        self.workers = workers or os.cpu_count() or 1
        self._pool: ProcessPoolExecutor | None = None
        self._broken = False

    def run(self, fn, items):
        if self._broken:
            # A worker died (killed, out of memory): the executor refuses new work, so the next
            # batch gets a fresh pool.
            self.close()
            self._broken = False
        if self._pool is None:
            method = "forkserver" if "forkserver" in multiprocessing.get_all_start_methods() else "spawn"
            self._pool = ProcessPoolExecutor(max_workers=self.workers, mp_context=multiprocessing.get_context(method),
                                             initializer=ignore_sigint)
        futures = {self._pool.submit(fn, item): item for item in items}
        try:
            for fut in as_completed(futures):
                outcome = _outcome(fut.result)
                self._broken |= isinstance(outcome, BrokenProcessPool)
                yield futures[fut], outcome
        finally:
            for fut in futures:
                fut.cancel()

    def close(self):
        if self._pool is not None:
            # Runs already started finish (bounded by one run); queued ones are dropped.
            self._pool.shutdown(wait=True, cancel_futures=True)
            self._pool = None


class DaskBackend(Backend):
    """A Dask cluster: ``tcp://host:8786`` (a running scheduler) or ``local[:N]`` (a LocalCluster of
    N single-threaded worker processes, closed with the backend)."""

    name = "dask"

    def __init__(self, address: str):
        n = _local_count(address, "--dask") if address.startswith("local") else None
        from distributed import Client, LocalCluster

        self._cluster = None
        if n is not None:
            self._cluster = LocalCluster(n_workers=n, threads_per_worker=1, processes=True, dashboard_address=None)
            self._client = Client(self._cluster)
        else:
            self._client = Client(address)

    def run(self, fn, items):
        from distributed import as_completed as dask_completed

        futures = {}
        for item in items:
            # pure=False: Dask must not merge or cache calls; the store decides what to skip.
            fut = self._client.submit(fn, item, pure=False)
            futures[fut.key] = (fut, item)
        try:
            for fut in dask_completed([f for f, _ in futures.values()]):
                yield futures[fut.key][1], _outcome(fut.result)
        finally:
            self._client.cancel([f for f, _ in futures.values() if not f.done()])

    def close(self):
        self._client.close()
        if self._cluster is not None:
            self._cluster.close()


class RayBackend(Backend):
    """A Ray cluster: an address (``ray://host:10001``, ``auto``, ``host:6379``), none to honour
    ``RAY_ADDRESS`` (Ray reads it itself) or else start a local instance, or ``local[:N]`` to
    start a local instance with N CPUs. Ray is shut down on close only if this backend started
    the connection."""

    name = "ray"

    def __init__(self, address: str | None = None):
        n = _local_count(address, "--ray") if address and address.startswith("local") else None
        import ray

        self._owned = not ray.is_initialized()
        if self._owned:
            if n is not None:
                ray.init(address="local", num_cpus=n, include_dashboard=False, log_to_driver=False)
            else:
                ray.init(address=address or None, log_to_driver=False)

    def run(self, fn, items):
        import ray

        remote = ray.remote(num_cpus=1)(fn)
        refs = {remote.remote(item): item for item in items}
        pending = list(refs)
        try:
            while pending:
                done, pending = ray.wait(pending, num_returns=1)
                for ref in done:
                    yield refs[ref], _outcome(lambda: ray.get(ref))
        finally:
            for ref in pending:
                ray.cancel(ref)

    def close(self):
        import ray

        if self._owned:
            ray.shutdown()


def _outcome(get: Callable[[], Any]) -> Any:
    try:
        return get()
    except Exception as e:  # the infrastructure failed, not the run: execute() catches its own errors
        return e


def make_backend(*, workers: int | None = None, dask: str | None = None, ray: str | None = None) -> Backend:
    """The backend the command-line options name: ``--dask``, ``--ray``, else the local pool."""
    if dask is not None and ray is not None:
        raise ScenarioError("--dask", "give at most one of --dask and --ray")
    if dask is not None:
        return DaskBackend(dask)
    if ray is not None:
        return RayBackend(ray or None)
    return LocalPool(workers)
