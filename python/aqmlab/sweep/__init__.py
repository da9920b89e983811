"""Parameter sweeps that scale out: a grid of scenarios -> local pool | Dask | Ray -> result store.

    >>> from aqmlab import sweep
    >>> s = sweep.Sweep.load(sweep.example_path("droptail-buffer"))
    >>> report = sweep.run_sweep(s, "droptail-buffer-results", workers=2)
    >>> df = sweep.load_results("droptail-buffer-results")     # one row per run
    >>> sweep.plots.heatmap(df, "bottleneck.queue.limit", "flows[0].count", "qdelay_mean_s")

Modules: :mod:`.spec` (sweep files, seeds, run keys), :mod:`.backends` (where runs execute),
:mod:`.worker` (one run), :mod:`.store` (the result directory), :mod:`.runner` (the driver),
:mod:`.plots`, :mod:`.cli` (``aqmlab sweep``), :mod:`.bench` (throughput of the local pool).
"""

from pathlib import Path
from typing import TYPE_CHECKING

from .._lazy import exports

_MODULES = {
    "backends": ["Backend", "DaskBackend", "LocalPool", "RayBackend", "make_backend"],
    "runner": ["SweepReport", "run_sweep"],
    "spec": ["RunSpec", "Sweep", "derive_seed", "run_key"],
    "store": ["Store"],
}
# Imported on first use: registering `aqmlab sweep` must not import pandas (issue 22).
__getattr__, __dir__ = exports(__name__, {name: module for module, names in _MODULES.items() for name in names})

if TYPE_CHECKING:
    from .backends import Backend, DaskBackend, LocalPool, RayBackend, make_backend
    from .runner import SweepReport, run_sweep
    from .spec import RunSpec, Sweep, derive_seed, run_key
    from .store import Store

_EXAMPLES = Path(__file__).parent / "examples"


def load_results(store: str | Path):
    """The sweep's results as one DataFrame: a row per finished run (``status`` ok or error),
    every swept field as a column, sorted by run key."""
    from .store import Store

    return Store(store).table()


def example_path(name: str) -> Path:
    """The path of a sweep file shipped with aqmlab (``examples/<name>.toml``)."""
    path = _EXAMPLES / f"{name}.toml"
    if not path.exists():
        names = ", ".join(sorted(p.stem for p in _EXAMPLES.glob("*.toml")))
        raise FileNotFoundError(f"no example sweep '{name}' (shipped: {names})")
    return path


__all__ = [
    "Sweep", "RunSpec", "SweepReport", "Store", "Backend", "LocalPool", "DaskBackend", "RayBackend",
    "make_backend", "run_sweep", "load_results", "example_path", "derive_seed", "run_key",
]
