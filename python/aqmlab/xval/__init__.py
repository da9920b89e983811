"""Cross-validation against ns-3: the same scenario through aqmlab and through ns-3.44, side by
side, with a verdict per metric (docs/xval.md).

    from aqmlab import xval
    doc = xval.run("my.toml", seeds=5, outdir="xval-out")   # doc["agree"], doc["rows"]

The scenario is mapped to ns-3 objects (:mod:`.mapping`; a setting without an ns-3 counterpart
is a ScenarioError naming it), written out as a C++ program (:mod:`.generator`), compiled against
the SDK of the `ns3` wheel and cached (:mod:`.build`), run for each seed next to aqmlab with the
same per-flow draws (:mod:`.measure`), and judged (:mod:`.verdict`, :mod:`.report`).
"""

from typing import TYPE_CHECKING

from .._lazy import exports

# Imported on first use: registering `aqmlab xval` must not import numpy (issue 22).
__getattr__, __dir__ = exports(__name__, {"run": "crosscheck", "prepare": "crosscheck", "BuildError": "build",
                                          "Ns3Unavailable": "build"})

if TYPE_CHECKING:
    from .build import BuildError, Ns3Unavailable
    from .crosscheck import prepare, run

__all__ = ["run", "BuildError", "Ns3Unavailable", "prepare"]
