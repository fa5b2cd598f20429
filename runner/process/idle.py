"""Telling an implementation that waits for more input from one that is still at work.

After the `start` line a persistent adapter answers with its handshake. A per-case adapter
(C-1) reads on to the end of its input instead, and so does nothing until the handshake
allowance runs out; a persistent adapter that does not flush its output looks the same from
outside. Both are recognised without waiting out the allowance: the implementation has read
everything written to it (its standard input pipe is empty), has written nothing since, and
none of its processes has used any CPU time for a while (`quiet` seconds: a run's is
runner/process/timing.py's `Timing.quiet`). A slow starter still loading its libraries, or busy
before it reads the line, uses CPU or leaves the line unread, and keeps the whole allowance.
Where the pipe or /proc cannot be looked at, nothing is concluded (the allowance is waited
out).
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from typing import Protocol

from cardid_runner.process.reads import Read, TimedOut

#: How often the implementation is looked at while a line is awaited.
LOOK_EVERY = 0.1


class Watched(Protocol):
    """What is looked at (runner.process.transport.Process)."""

    @property
    def output_read(self) -> int: ...

    def read_line(self, deadline: float) -> Read: ...

    def unread_input(self) -> int | None: ...

    def cpu_usage(self) -> tuple[frozenset[int], int] | None: ...


@dataclass(frozen=True, slots=True)
class Waiting:
    """The process read everything written to it, wrote nothing, and sat idle: no line is coming."""


class InputWait:
    """Looks at one process now and then (`waiting`) until it is seen waiting for input."""

    def __init__(self, proc: Watched, quiet: float) -> None:
        self._proc = proc
        self._quiet = quiet
        self._output = proc.output_read
        self._usage: tuple[frozenset[int], int] | None = None
        self._since = 0.0
        #: Whether the pipe and the process can be looked at here (FIONREAD, /proc) at all.
        self.possible = proc.unread_input() is not None and proc.cpu_usage() is not None

    def waiting(self) -> bool:
        """Whether the process has read all its input, written nothing since this watch began,
        and its processes (the same ones throughout) have used no CPU time for `quiet` seconds
        up to now."""
        now = time.monotonic()
        usage = None
        if self.possible and self._proc.output_read == self._output and self._proc.unread_input() == 0:
            usage = self._proc.cpu_usage()
        if usage is None:
            self._usage = None
            return False
        if usage != self._usage:
            self._usage, self._since = usage, now
            return False
        return now - self._since >= self._quiet


def read_line(proc: Watched, deadline: float, quiet: float) -> Read | Waiting:
    """The next line, as `proc.read_line(deadline)` gives it, or Waiting as soon as the process
    is seen waiting for input instead of writing one."""
    watch = InputWait(proc, quiet)
    while True:
        now = time.monotonic()
        if now >= deadline:
            return TimedOut()
        read = proc.read_line(min(deadline, now + LOOK_EVERY) if watch.possible else deadline)
        if not (isinstance(read, TimedOut) and watch.possible and time.monotonic() < deadline):
            return read
        if watch.waiting():
            return Waiting()
