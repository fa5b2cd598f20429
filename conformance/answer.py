"""What an implementation gave back for one request, before anyone judges it.

Answers hold decoded data only: the protocol's decoding (conformance/protocol.py) is the one place that turns
an implementation's bytes into JSON values, and everything after it works on values.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from enum import Enum, auto
from typing import Any


@dataclass(frozen=True, slots=True, kw_only=True)
class Answered:
    """The implementation answered (exit status 0, or a `result` line): `result` is the decoded
    JSON object, not yet checked against the role's result schema."""

    result: Any
    stderr: str = ""
    seconds: float = 0.0

    def raw(self) -> bytes:
        """The result as JSON bytes, for failure reports."""
        return json.dumps(self.result, ensure_ascii=False).encode()


@dataclass(frozen=True, slots=True, kw_only=True)
class Rejected:
    """The implementation rejected the request as invalid input (exit status 1, or `rejected`)."""

    message: str
    stderr: str = ""
    seconds: float = 0.0


class CrashKind(Enum):
    """What kind of crash (or of output that is not the message due) a reason words, given where
    the reason is written (conformance/protocol.py, runner/adapter.py): what is done about one (the
    hint `cardid doctor` gives) goes by its kind, never by the words of its reason, which quote
    what the implementation wrote."""

    #: No answer within the time limit.
    TIMED_OUT = auto()
    #: Killed by a signal.
    SIGNAL = auto()
    #: An exit status that is neither 0 nor 1 (nor 126 or 127).
    EXIT_STATUS = auto()
    #: Exit status 126 or 127: what a shell or `env` gives for a command it cannot run.
    CANNOT_RUN = auto()
    #: Exit status 1 with a result on standard output (C-2).
    RESULT_WITH_STATUS_1 = auto()
    #: A rejection object with exit status 0 (C-2).
    REJECTION_WITH_STATUS_0 = auto()
    #: Exit status 1 and no rejection object on standard output (C-2), which is JSON or empty.
    NO_REJECTION_OBJECT = auto()
    #: Output that is not UTF-8.
    NOT_UTF8 = auto()
    #: Empty output where JSON was due.
    EMPTY = auto()
    #: The first line of JSON written over several lines (C-5).
    SEVERAL_LINES = auto()
    #: Output that is not JSON (a log line or a debug print, most often).
    NOT_JSON = auto()
    #: JSON with a duplicate key.
    NOT_STRICT_JSON = auto()
    #: JSON nested too deep to use.
    TOO_DEEP = auto()
    #: A string holding a lone surrogate, which is not Unicode.
    LONE_SURROGATE = auto()
    #: A handshake that does not match its schema.
    HANDSHAKE = auto()
    #: An answer line without seq, or with another seq than the request's (C-6).
    SEQ = auto()
    #: An answer line that does not match its schema.
    ANSWER_SCHEMA = auto()
    #: A line that is no answer: not an object, or not exactly one of result, rejected, error.
    NOT_AN_ANSWER = auto()
    #: An answer reporting an error.
    ERROR_REPORTED = auto()
    #: More output than the limit.
    TOO_LONG = auto()
    #: It closed its standard input where requests were still due.
    GONE = auto()
    #: A persistent process that had ended could not be started again.
    NO_RESTART = auto()
    #: An implementation that had started for earlier cases could not be started for this one.
    NOT_STARTED = auto()
    #: The run was interrupted.
    STOPPED = auto()
    #: Anything else (a reason written where no kind is known).
    OTHER = auto()


@dataclass(frozen=True, slots=True, kw_only=True)
class Crashed:
    """The implementation died, hung, or broke the protocol; `reason` says which, in words,
    `kind` as a value (CrashKind).

    `exit_status` is the exit status the reason names (negative: the signal that killed the
    process), None when the reason is not about one. `protocol_only` marks breaches only
    persistent mode can show (a wrong `seq`, a malformed answer line): a fresh per-case process
    has nothing to repeat them with. `earlier` counts the requests the same process had answered
    before this one.
    """

    reason: str
    kind: CrashKind = CrashKind.OTHER
    exit_status: int | None = None
    output: bytes = b""
    stderr: str = ""
    seconds: float = 0.0
    timed_out: bool = False
    protocol_only: bool = False
    earlier: int = 0


@dataclass(frozen=True, slots=True, kw_only=True)
class Unsupported:
    """The implementation said in its handshake that it does not support the case's role."""

    role: str


Answer = Answered | Rejected | Crashed | Unsupported
