"""The persistent-mode handshake, read and judged in one place: a run's adapter
(runner/adapter.py `Persistent.start`) and `cardid doctor` (runner/doctor.py) both shake hands
through `Handshake`, and each words the typed result its own way: the run in one line, the
reason persistent mode is off (`why_not`); the doctor as a finding with its hint.

After the `start` line, lines are read until one that is not blank; meanwhile an implementation
seen waiting for input (runner/process/idle.py) is a per-case adapter, or a persistent one that
does not flush (`Waiting`, which `late` tells apart). The line is judged by
conformance/protocol.py: the handshake (`Hello`), a start rejection (`Refused`), no JSON at all
(`NotJson`; pretty-printed JSON is `OverSeveralLines`), or JSON of the wrong shape (`Breach`).
"""

from __future__ import annotations

import time
from dataclasses import dataclass

from cardid_conformance.protocol import Breach, Hello, parse_hello
from cardid_runner.process import idle
from cardid_runner.process.reads import MAX_OUTPUT, Ended, Line, Read, Stopped, TimedOut, TooLong
from cardid_runner.process.transport import Process

#: The runner's persistent-mode start command (protocol.schema.json#/$defs/start).
START_LINE = b'{"cmd":"start","protocol":1}\n'
#: Why persistent mode is off, when it is concluded at the handshake: one line, in the run's note.
WAITING = (
    "the implementation read the start line and is waiting for more input: a per-case adapter "
    "(it reads to end of input) is fine and runs one process per case; a persistent adapter "
    "must flush each line it writes; --isolate skips the handshake"
)


@dataclass(frozen=True, slots=True)
class Exited:
    """Standard output closed at the handshake: the process exited with `code` (None: it had
    not exited within the grace)."""

    code: int | None


#: A handshake that gave no Hello: a start rejection or a line that is no handshake (a
#: Breach); the implementation waiting for input, exited, silent until the allowance ran out
#: (TimedOut), writing a line over the limit (TooLong), or the run interrupted (Stopped).
NoHello = Breach | idle.Waiting | Exited | TimedOut | TooLong | Stopped
#: What a handshake gives.
Shaken = Hello | NoHello


def next_line(proc: idle.Watched, deadline: float, quiet: float | None) -> Read | idle.Waiting:
    """The next line that is not blank (blank lines are allowed and carry nothing), or, with
    `quiet`, Waiting as soon as the process is seen waiting for input. Checked at each line: an
    endless stream of blank lines is no line."""
    while True:
        read = proc.read_line(deadline) if quiet is None else idle.read_line(proc, deadline, quiet)
        if not (isinstance(read, Line) and not read.data.strip()):
            return read


class Handshake:
    """One handshake with a started process: `timeout` seconds from its start for the hello,
    `quiet` seconds of idleness to conclude it waits for input, `grace` seconds for it to exit
    once its output closed (or, for `late`, to answer once its input is closed)."""

    def __init__(self, proc: Process, *, timeout: float, quiet: float, grace: float) -> None:
        self.proc = proc
        self.timeout = timeout
        self._quiet = quiet
        self._grace = grace

    def read(self) -> Shaken:
        """Send `start` and read the answer to it, judged."""
        proc = self.proc
        deadline = proc.started + self.timeout
        proc.send(START_LINE)
        read = next_line(proc, deadline, self._quiet)
        match read:
            case Line(data=data):
                return parse_hello(data)
            case Ended():
                return Exited(proc.wait_exit(min(deadline, time.monotonic() + self._grace)))
            case _:
                return read

    def late(self) -> Hello | None:
        """After `Waiting`: close the process's input and read on for the grace. A persistent
        adapter that does not flush writes its handshake now, at end of input (its Hello); a
        per-case adapter answers `start` as a request, or nothing (None)."""
        self.proc.send(close=True)
        read = next_line(self.proc, time.monotonic() + self._grace, self._quiet)
        if isinstance(read, Line):
            hello = parse_hello(read.data)
            if isinstance(hello, Hello):
                return hello
        return None


def why_not(shaken: NoHello, timeout: float) -> str:
    """Why a handshake that gave no Hello leaves persistent mode off, in one line (a run's note,
    a restart's crash): `timeout` is the allowance it had."""
    match shaken:
        case idle.Waiting():
            return WAITING
        case Breach(reason=reason):  # a Refused too: the implementation chose per-case mode
            return reason
        case Exited(code=code):
            return "exited at the handshake" + (f" (status {code})" if code is not None else "")
        case TimedOut():
            return (
                f"no handshake within {timeout:g} s (a persistent adapter must flush each line it "
                "writes; --isolate skips the handshake)"
            )
        case TooLong():
            return f"wrote a handshake line over {MAX_OUTPUT:,} bytes"
        case _:
            return "stopped: the run was interrupted"

