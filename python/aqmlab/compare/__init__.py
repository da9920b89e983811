"""``aqmlab compare RUN_DIR RUN_DIR ...``: several saved runs on one figure, as flent draws them.

Three views, each with every run's label:

- the CDF of bottleneck queue delay over the measured window (from each run's always-on
  histogram, ``traces/delay_histogram.parquet``; a run without one is named in a note instead);
- throughput against delay ("the ellipse" of flent's box/ellipsis plots): for each sampling
  interval after the warm-up, the total delivered rate and the queue delay; a run is drawn as
  its median point, the interquartile range on both axes, and the one-standard-deviation
  ellipse of the samples' covariance (clipped at zero, since neither can be negative). A run
  without the ``queue`` and ``flow_bytes`` traces is drawn as one point from its summary;
- per-flow throughput over time, one panel per run, on a shared rate axis.
"""

from typing import TYPE_CHECKING

from .._lazy import exports

# Imported on first use: registering `aqmlab compare` must not import numpy and pandas (issue 22).
__getattr__, __dir__ = exports(__name__, {name: "runs" for name in (
    "SavedRun", "compare", "load_runs", "plot_delay_cdf", "plot_flow_throughput", "plot_throughput_delay", "table")})

if TYPE_CHECKING:
    from .runs import (SavedRun, compare, load_runs, plot_delay_cdf, plot_flow_throughput, plot_throughput_delay,
                       table)
