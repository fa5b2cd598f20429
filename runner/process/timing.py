"""The waits of process handling that are not a time limit of the run, as one value.

A run's limits (a case's timeout, the handshake's allowance) come from its options; these two
are how long the runner looks before concluding something about a process. Tests whose
implementation is idle, or leaves a child holding its output, by design pass shorter ones
rather than changing a module's constant.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass


@dataclass(frozen=True, slots=True, kw_only=True)
class Timing:
    """How long the runner watches a process before concluding."""

    #: Seconds without CPU time, all input read and nothing written, before an implementation
    #: is taken to be waiting for input (runner/process/idle.py).
    quiet: float = 0.5
    #: Seconds output is still read after the process exited: a child it left may hold the
    #: pipe, and what came within this time is still its answer (runner/process/transport.py).
    after_exit: float = 0.5

    def scaled(self, multiplier: float) -> Timing:
        """The quiet time grows with a `--timeout-multiplier` (a slow machine is slow to start
        too), never shrinks; the read after exit stays."""
        return dataclasses.replace(self, quiet=self.quiet * max(1.0, multiplier))


#: A run's waits.
DEFAULT = Timing()
