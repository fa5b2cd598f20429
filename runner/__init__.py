"""The shell around the core: processes, time, concurrency, the CLI and the pytest plugin.

A standard descriptor closed when Python started (`cardid run >&-`) is opened on /dev/null here,
before any module of the package opens a file, as daemons do. Python leaves its stream None, so
printing raised; and the next file opened took the descriptor's number: the stop flag's pipe
(runner/process/stop.py) took 0, or a report to `-` went into whatever file took 1.
"""

from __future__ import annotations

import os
import sys


def _open_standard_descriptors() -> None:
    for number, name, mode in ((0, "stdin", "r"), (1, "stdout", "w"), (2, "stderr", "w")):
        if getattr(sys, name) is not None:
            continue
        try:
            os.fstat(number)
        except OSError:  # closed: /dev/null takes the lowest free number, this one
            opened = os.open(os.devnull, os.O_RDWR)
            if opened != number:
                os.dup2(opened, number)
                os.close(opened)
            target: int | str = number
        else:  # taken already by a file of another: leave it, and print to /dev/null
            target = os.devnull
        setattr(sys, name, open(target, mode, encoding="utf-8", errors="backslashreplace", closefd=target != number))  # noqa: SIM115 (the process's own stream, open to the end)


_open_standard_descriptors()
