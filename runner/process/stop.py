"""The run's stop flag: set by a signal handler (or Ctrl-C), seen by every wait at once.

Each wait of the transport (runner/process/transport.py) polls the flag's pipe along with the
process's own, so that an interruption wakes every worker thread at once, without killing
processes from under other threads or raising exceptions into them. `Signals` is the signal
handling of a run (`cardid run`, `cardid certify`) that sets it.
"""

from __future__ import annotations

import contextlib
import os
import signal
import threading
from typing import Any, Self


class StopFlag:
    """A flag with a pipe that becomes readable when it is set."""

    def __init__(self) -> None:
        self._read, self._write = os.pipe()  # not inherited by children (PEP 446)
        os.set_blocking(self._read, False)
        os.set_blocking(self._write, False)
        self._set = False

    def set(self) -> None:
        """Set the flag; safe in a signal handler."""
        self._set = True
        with contextlib.suppress(BlockingIOError):
            os.write(self._write, b"!")

    def clear(self) -> None:
        """Clear the flag (at the start of a run)."""
        self._set = False
        with contextlib.suppress(BlockingIOError):
            while os.read(self._read, 4096):
                pass

    def is_set(self) -> bool:
        return self._set

    def fileno(self) -> int:
        """The pipe to poll: readable while the flag is set."""
        return self._read


#: The process's one stop flag.
STOP = StopFlag()


class Signals:
    """SIGINT, SIGTERM and SIGHUP during a run (`cardid run`, `cardid certify`): the first one stops the run (STOP, seen
    by every wait at once); it and any later one are only recorded, never raised, so that no
    signal can cut the writing of the reports short. The run then exits 128 + the first
    signal's number."""

    SIGNALS = (signal.SIGINT, signal.SIGTERM, signal.SIGHUP)

    def __init__(self) -> None:
        self.first: int | None = None
        #: How many signals came: a wait that must end at any further one (the write of a
        #: report into a stream no one reads, runner/writing.py) compares it with its start's.
        self.received = 0
        self._previous: dict[int, Any] = {}
        self._active = False

    def __enter__(self) -> Self:
        self.first = None
        STOP.clear()
        self._active = True
        if threading.current_thread() is threading.main_thread():
            for signum in self.SIGNALS:
                self._previous[signum] = signal.signal(signum, self._handle)
        return self

    def _handle(self, signum: int, frame: object) -> None:
        if self.first is None:
            self.first = signum
        self.received += 1
        STOP.set()

    def reader_left(self) -> None:
        """Standard output's reader went away during a run (`cardid run | head`): stop it as
        SIGPIPE would have, had Python not ignored it, so that the run exits 128 + SIGPIPE
        (141). Not a signal received (`received`), and nothing outside a run."""
        if self._active:
            if self.first is None:
                self.first = signal.SIGPIPE
            STOP.set()

    def __exit__(self, *exc: object) -> None:
        self._active = False
        for signum, handler in self._previous.items():
            signal.signal(signum, handler)
        self._previous.clear()
        STOP.clear()


#: The signal handling of `cardid run` and `cardid certify`.
SIGNALS = Signals()
