"""`aqmlab --help` stays cheap: it imports no numerical or plotting library and none of the
subcommands' implementations (issue 22: help under 0.3 s). Which modules load is checked, not a
timing (timings belong to benchmarks)."""

import json
import subprocess
import sys

# Each of these costs tens to hundreds of milliseconds to import; `--help` needs none of them.
HEAVY = ["numpy", "pandas", "pyarrow", "matplotlib", "scipy", "aqmlab._core", "aqmlab.scenario",
         "aqmlab.catalog.registry", "aqmlab.xval.measure", "aqmlab.live.driver", "aqmlab.compare.runs",
         "aqmlab.characterize.experiments", "importlib.metadata"]

PROBE = """
import json, sys
from aqmlab import cli
try:
    cli.main(["--help"])
except SystemExit:
    pass
print(json.dumps(sorted(sys.modules)), file=sys.stderr)
"""


def test_help_imports_no_heavy_module():
    out = subprocess.run([sys.executable, "-c", PROBE], capture_output=True, text=True)
    loaded = set(json.loads(out.stderr.strip().splitlines()[-1]))
    assert "aqmlab.cli" in loaded  # the probe did run the command line
    assert sorted(m for m in HEAVY if m in loaded) == []
