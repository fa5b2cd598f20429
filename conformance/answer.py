"""What an implementation gave back for one request, before anyone judges it."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True, slots=True, kw_only=True)
class Answered:
    """The implementation answered (exit status 0, or a `result` line)."""

    output: bytes
    stderr: str = ""
    seconds: float = 0.0


@dataclass(frozen=True, slots=True, kw_only=True)
class Rejected:
    """The implementation rejected the request as invalid input (exit status 1, or `rejected`)."""

    message: str
    stderr: str = ""
    seconds: float = 0.0


@dataclass(frozen=True, slots=True, kw_only=True)
class Crashed:
    """The implementation died, hung, or broke the protocol; `reason` says which."""

    reason: str
    output: bytes = b""
    stderr: str = ""
    seconds: float = 0.0
    timed_out: bool = False


@dataclass(frozen=True, slots=True, kw_only=True)
class Unsupported:
    """The implementation said in its handshake that it does not support the case's role."""

    role: str


Answer = Answered | Rejected | Crashed | Unsupported
