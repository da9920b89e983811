"""A terminal progress bar that appears only for runs longer than a couple of seconds."""

from __future__ import annotations

import sys
import time
from typing import TextIO


class Progress:
    """Draws ``label [#####.....] 42% 12.3 s left`` on stderr, rewriting one line."""

    def __init__(self, label: str, *, enabled: bool | None = None, delay_s: float = 2.0,
                 stream: TextIO | None = None) -> None:
        self.stream = stream or sys.stderr
        self.enabled = self.stream.isatty() if enabled is None else enabled
        self.label = label
        self.delay_s = delay_s
        self.t0 = time.perf_counter()
        self.shown = False

    def update(self, fraction: float, extra: str = "") -> None:
        if not self.enabled:
            return
        elapsed = time.perf_counter() - self.t0
        if elapsed < self.delay_s and fraction < 1.0:
            return
        width = 30
        filled = int(width * fraction)
        eta = elapsed * (1 - fraction) / fraction if fraction > 0 else float("nan")
        line = f"\r{self.label} [{'#' * filled}{'.' * (width - filled)}] {fraction:4.0%} {eta:6.1f} s left {extra}"
        self.stream.write(line)
        self.stream.flush()
        self.shown = True

    def close(self) -> None:
        if self.shown:
            self.stream.write("\n")
            self.stream.flush()
