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

import os
from abc import ABC, abstractmethod
from typing import Any, Callable, Iterable, Iterator

from ..errors import ScenarioError
from .pool import Pool

# A run whose worker process dies is tried this many more times before it counts as failed.
RETRIES = 1


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
    """Worker processes on this machine (:class:`~aqmlab.sweep.pool.Pool`): a worker that dies
    costs only the run it held, which runs once more on a fresh worker; workers end with the
    driver."""

    name = "local"

    def __init__(self, workers: int | None = None):
        if workers is not None and workers < 1:
            raise ScenarioError("--workers", f"expected at least 1, got {workers}")
        self.workers = workers or os.cpu_count() or 1
        self._pool: Pool | None = None

    def run(self, fn, items):
        if self._pool is None:
            self._pool = Pool(self.workers, retries=RETRIES)
        return self._pool.run(fn, items)

    def pids(self) -> list[int]:
        """The worker processes' ids."""
        return self._pool.pids() if self._pool is not None else []

    def close(self):
        if self._pool is not None:
            # Idle workers stop at once; a busy one at the end of its run (bounded by one run).
            self._pool.close()
            self._pool = None


class DaskBackend(Backend):
    """A Dask cluster: ``tcp://host:8786`` (a running scheduler) or ``local[:N]`` (a LocalCluster of
    N single-threaded worker processes, closed with the backend)."""

    name = "dask"

    def __init__(self, address: str):
        n = _local_count(address, "--dask") if address.startswith("local") else None
        import dask
        from distributed import Client, LocalCluster

        self._cluster = None
        if n is not None:
            # The scheduler reschedules a task whose worker died RETRIES times, then fails it as
            # KilledWorker (a remote scheduler follows its own configuration).
            with dask.config.set({"distributed.scheduler.allowed-failures": RETRIES}):
                self._cluster = LocalCluster(n_workers=n, threads_per_worker=1, processes=True, dashboard_address=None)
            self._client = Client(self._cluster)
        else:
            try:
                self._client = Client(address)
            except (ValueError, OSError) as e:  # a malformed address, or no scheduler there
                raise ScenarioError("--dask", f"cannot connect to a Dask scheduler at {address!r}: {e}") from None

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
                try:
                    ray.init(address=address or None, log_to_driver=False)
                except (ValueError, ConnectionError) as e:  # a malformed address, or no cluster there
                    raise ScenarioError("--ray", f"cannot connect to a Ray cluster at {address!r}: {e}") from None

    def run(self, fn, items):
        import ray

        # A task whose worker process dies is run RETRIES more times.
        remote = ray.remote(num_cpus=1, max_retries=RETRIES)(fn)
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
        raise ScenarioError("--ray", "give --dask or --ray, not both")
    if dask is not None:
        return DaskBackend(dask)
    if ray is not None:
        return RayBackend(ray or None)
    return LocalPool(workers)
