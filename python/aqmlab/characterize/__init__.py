"""``aqmlab characterize``: the IETF's AQM characterization guidelines (RFC 7928) as one command.

For a discipline under test (``AQM.toml``: a queue table naming any built-in discipline and its
parameters) and baselines, runs the guideline experiments (:mod:`.experiments`) over several
seeds on a sweep back end (:mod:`.runner`), and writes a report card (:mod:`.report`):
``report.html`` (one self-contained page: verdicts per criterion and discipline against stated
thresholds, then a section per experiment with its plots), ``results.json`` and
``runs.parquet``.
"""

from typing import TYPE_CHECKING

from .._lazy import exports

# Imported on first use: registering `aqmlab characterize` must not import the experiments (issue 22).
__getattr__, __dir__ = exports(__name__, {"CRITERIA": "report", "EXPERIMENTS": "experiments", "FULL": "experiments",
                                          "QUICK": "experiments", "characterize": "runner"})

if TYPE_CHECKING:
    from .experiments import EXPERIMENTS, FULL, QUICK
    from .report import CRITERIA
    from .runner import characterize

__all__ = ["CRITERIA", "EXPERIMENTS", "FULL", "QUICK", "characterize"]
