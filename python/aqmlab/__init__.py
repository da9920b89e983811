"""aqmlab: design, tune and defend Active Queue Management schemes.

    >>> import aqmlab
    >>> result = aqmlab.run("dumbbell-droptail")      # a built-in scenario, a TOML path or a dict
    >>> result.summary["qdelay_mean_s"], result.queue().head()

Data flow: :class:`Scenario` (validated, resolved) -> :func:`run` (the Rust simulator) ->
:class:`Result` (summary, traces as DataFrames) -> :mod:`aqmlab.plots` / :meth:`Result.save`.
"""

from importlib.metadata import PackageNotFoundError, version as _version

try:
    __version__ = _version("aqmlab")
except PackageNotFoundError:  # running from a source tree without an install
    __version__ = "0.0.0+source"

from .api import run  # noqa: E402
from .errors import ScenarioError  # noqa: E402
from .result import Result  # noqa: E402
from .scenario import Scenario, builtin_scenarios  # noqa: E402

__all__ = ["run", "Scenario", "Result", "ScenarioError", "builtin_scenarios", "__version__"]
