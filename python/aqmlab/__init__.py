"""aqmlab: design, tune and defend Active Queue Management schemes.

    >>> import aqmlab
    >>> result = aqmlab.run("dumbbell-droptail")      # a built-in scenario, a TOML path or a dict
    >>> result.summary["qdelay_mean_s"], result.queue().head()

Data flow: :class:`Scenario` (validated, resolved) -> :func:`run` (the Rust simulator) ->
:class:`Result` (summary, traces as DataFrames) -> :mod:`aqmlab.plots` / :meth:`Result.save`.

The names below (and ``__version__``, the compiled extension's, which is the package's) are imported on first
use, so that ``import aqmlab.cli`` (and ``aqmlab --help``) does not pay for numpy and pandas.
"""

from __future__ import annotations

from importlib import import_module
from typing import TYPE_CHECKING, Any

_LAZY = {
    "run": "api", "Result": "result", "Scenario": "scenario", "builtin_scenarios": "scenario",
    "ScenarioError": "errors", "AqmlabWarning": "errors",
}

if TYPE_CHECKING:
    __version__: str
    from .api import run
    from .errors import AqmlabWarning, ScenarioError
    from .result import Result
    from .scenario import Scenario, builtin_scenarios


def _package_version() -> str:
    try:
        # The crate's version is the package's (maturin reads it from Cargo), and reading it
        # costs nothing, where importlib.metadata costs ~30 ms per command (issue 22).
        from ._core import VERSION

        return str(VERSION)
    except ImportError:
        pass
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version("aqmlab")
    except PackageNotFoundError:  # running from a source tree without an install
        return "0.0.0+source"


def __getattr__(name: str) -> Any:
    if name == "__version__":
        globals()[name] = _package_version()
        return globals()[name]
    if name in _LAZY:
        value = getattr(import_module(f".{_LAZY[name]}", __name__), name)
        globals()[name] = value
        return value
    raise AttributeError(f"module 'aqmlab' has no attribute {name!r}")


__all__ = ["run", "Scenario", "Result", "ScenarioError", "AqmlabWarning", "builtin_scenarios", "__version__"]
