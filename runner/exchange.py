"""A persistent process's requests and answers after the handshake, read and judged in one
place: a run's adapter (runner/adapter.py `Persistent`) and `cardid doctor` (runner/doctor.py)
both send `run` lines (`run_line`), read the answer to one through `read_reply`, and end the
process through `stop`; each words the typed results its own way: the run as a crash of the
case, the doctor as a finding with its hint.

An answer line is decoded by conformance/protocol.py (`parse_reply`). Blank lines carry nothing
and are passed over (runner/handshake.py `next_line`, as for the handshake); the deadline is
checked at each line, so an endless stream of blank lines or of second answers is no answer.
"""

from __future__ import annotations

import time
from collections.abc import Collection
from dataclasses import dataclass

from cardid_conformance.protocol import Breach, Reply, parse_reply
from cardid_runner.handshake import next_line
from cardid_runner.process import idle
from cardid_runner.process.reads import Ended, Line, Stopped, TimedOut, TooLong
from cardid_runner.process.transport import Process

#: The `stop` command (protocol.schema.json#/$defs/stop), which also closes the process's input.
STOP_LINE = b'{"cmd":"stop"}\n'


def run_line(seq: int, payload: bytes) -> tuple[bytes, ...]:
    """The `run` command for one request (protocol.schema.json#/$defs/run), in pieces (the
    request is not copied)."""
    return (b'{"cmd":"run","seq":%d,"request":' % seq, payload, b"}\n")


@dataclass(frozen=True, slots=True)
class Replied:
    """The answer to the request asked."""

    reply: Reply
    data: bytes


@dataclass(frozen=True, slots=True)
class Repeated:
    """A second answer to an earlier request, already answered (`seq`)."""

    seq: int
    data: bytes


@dataclass(frozen=True, slots=True)
class WrongSeq:
    """An answer naming a request never asked, or not this one."""

    seq: int
    data: bytes


@dataclass(frozen=True, slots=True)
class Malformed:
    """A line that is no answer (no JSON, the wrong shape): why, as conformance/protocol.py
    says."""

    breach: Breach
    data: bytes


@dataclass(frozen=True, slots=True)
class Closed:
    """Standard output closed before an answer: `rest` is what came after the last newline,
    `code` the exit status (negative: killed by that signal), None when it had not exited."""

    rest: bytes
    code: int | None


#: What reading the answer to one request gives: the answer, a line that is not it, standard
#: output closed, no answer within the deadline (TimedOut), a line over the limit (TooLong),
#: the process seen waiting for input (Waiting, when idleness is watched) or the run
#: interrupted (Stopped).
ReplyRead = Replied | Repeated | WrongSeq | Malformed | Closed | TimedOut | TooLong | idle.Waiting | Stopped


def read_reply(
    proc: Process, seq: int, deadline: float, *, answered: Collection[int],
    quiet: float | None = None, exit_grace: float | None = None,
) -> ReplyRead:
    """Read the answer to request `seq` until `deadline`. `answered` are the seqs answered
    before, whose repetition is `Repeated`; with `quiet`, a process idle for that long while
    waiting for input is `Waiting`. When standard output closes, the exit is waited for until
    `deadline`, or for `exit_grace` seconds from then."""
    if time.monotonic() >= deadline:  # checked at each call too: endless second answers are none
        return TimedOut()
    match next_line(proc, deadline, quiet):
        case Line(data=data):
            reply = parse_reply(data, seq)
            if isinstance(reply, Breach):
                return Malformed(reply, data)
            if reply.seq in answered:
                return Repeated(reply.seq, data)
            if reply.seq != seq:
                return WrongSeq(reply.seq, data)
            return Replied(reply, data)
        case Ended(data=rest):
            until = deadline if exit_grace is None else time.monotonic() + exit_grace
            return Closed(rest, proc.wait_exit(until))
        case read:
            return read


@dataclass(frozen=True, slots=True)
class AfterStop:
    """What came of `stop`: whether it could be sent, the lines written after it (blank ones
    too), and the exit status (None: it had not exited by the deadline)."""

    sent: bool
    lines: tuple[bytes, ...]
    code: int | None

    def repeated(self, answered: Collection[int]) -> list[int]:
        """The seqs of `answered` that the lines answer again."""
        replies = (parse_reply(line, 0) for line in self.lines)
        return [reply.seq for reply in replies if isinstance(reply, Reply) and reply.seq in answered]


def stop(proc: Process, deadline: float) -> AfterStop:
    """Send `stop` and close the process's input; read what it still writes until its output
    closes or `deadline`, and wait until then for it to exit. Killing it is the caller's."""
    lines: list[bytes] = []
    sent = proc.send(STOP_LINE, close=True)
    if sent:
        while isinstance(read := proc.read_line(deadline), Line):
            lines.append(read.data)
    return AfterStop(sent, tuple(lines), proc.wait_exit(deadline))
