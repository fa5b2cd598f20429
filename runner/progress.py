"""A progress line on the terminal, for runs longer than a moment."""

from __future__ import annotations

import sys
import time
from typing import TextIO

from cardid_conformance.outcome import Outcome, Passed, Skipped

#: Runs shorter than this many seconds show no progress at all.
_QUIET_FOR = 0.5


class Progress:
    """Redraws `[done/total] N failing` in place on a terminal; silent when not a terminal."""

    def __init__(self, total: int, stream: TextIO | None = None) -> None:
        self._total = total
        # Looked up now, not when the module was imported: sys.stderr may have been replaced
        # since (pytest's capture does, and closes its stream afterwards).
        self._stream = sys.stderr if stream is None else stream
        self._active = self._stream.isatty() and total > 1
        self._started = time.monotonic()
        self._done = 0
        self._bad = 0
        self._drawn = False

    def __call__(self, outcome: Outcome) -> None:
        self._done += 1
        if not isinstance(outcome, Passed | Skipped):
            self._bad += 1
        if not self._active or time.monotonic() - self._started < _QUIET_FOR:
            return
        width = 30
        filled = width * self._done // self._total
        bar = "#" * filled + "-" * (width - filled)
        self._stream.write(f"\r[{bar}] {self._done}/{self._total}  {self._bad} not passing ")
        self._stream.flush()
        self._drawn = True

    def close(self) -> None:
        """Clear the progress line."""
        if self._drawn:
            self._stream.write("\r" + " " * 70 + "\r")
            self._stream.flush()
