"""Typed reads from a process: what the next line, or the whole output, turned out to be.

A read is one of `Line`, `Ended`, `TimedOut`, `TooLong` and `Stopped` (or `Output`, for a whole
output), never a sentinel object; the callers `match` on them. The limits of what is kept are
here too, and `store_bytes`, which makes the bytes an implementation writes on standard error
text to keep.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

#: What the runner keeps of one answer on standard output, in both modes; more is a crash.
MAX_OUTPUT = 16 * 1024 * 1024
#: What the runner keeps of standard error: the tail, for the report.
STDERR_TAIL = 8 * 1024


@dataclass(frozen=True, slots=True)
class Line:
    """One line of output, without its newline."""

    data: bytes


@dataclass(frozen=True, slots=True)
class Output:
    """All of standard output, up to its end."""

    data: bytes


@dataclass(frozen=True, slots=True)
class Ended:
    """Standard output closed before a (whole) line came; `data` is what was left unterminated."""

    data: bytes = b""


@dataclass(frozen=True, slots=True)
class TimedOut:
    """The deadline passed first; `writing` is True if the input was not all written yet."""

    writing: bool = False
    data: bytes = b""


@dataclass(frozen=True, slots=True)
class TooLong:
    """More than MAX_OUTPUT bytes without a newline (or in all, for a whole output)."""


@dataclass(frozen=True, slots=True)
class Stopped:
    """The run was interrupted (runner/process/stop.py) while waiting."""


Read = Line | Ended | TimedOut | TooLong | Stopped


def over_limit(output: bytearray) -> bool:
    """Whether a whole output is over MAX_OUTPUT bytes, its final newline not counted."""
    size = len(output)
    return size > MAX_OUTPUT + 1 or (size == MAX_OUTPUT + 1 and output[-1] != 0x0A)


#: Control characters but newline and tab: a terminal obeys them (ESC [2J clears it), XML
#: cannot hold them.
_CONTROLS_BUT_LINES = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f]")


def _escape(match: re.Match[str]) -> str:
    return f"\\x{ord(match.group()):02x}"


def store_bytes(data: bytes) -> str:
    """Bytes an implementation wrote (its standard error) as lines of text to keep: decoded as
    UTF-8, U+FFFD for what is not, and each control character but newline and tab shown as
    its escape.

    This is `cardid_conformance.escape.store(text, lines=True)` of the decoded text, kept here
    because the process package imports nothing of the core (tests/test_boundaries.py), and
    minimal because decoding with replacement leaves no lone surrogate: only the control
    characters are left to escape. tests/test_escape.py checks that the two agree."""
    return _CONTROLS_BUT_LINES.sub(_escape, data.decode("utf-8", errors="replace"))
