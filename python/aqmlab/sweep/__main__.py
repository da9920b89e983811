"""``python -m aqmlab.sweep SWEEP.toml ...``: the ``aqmlab sweep`` command."""

import sys

from .cli import main

sys.exit(main())
