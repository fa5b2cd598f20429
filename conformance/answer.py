"""What an implementation gave back for one request, before anyone judges it."""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

#: `Answered.decoded` when the result is still only bytes.
NOT_DECODED: Any = object()


@dataclass(frozen=True, slots=True, kw_only=True)
class Answered:
    """The implementation answered (exit status 0, or a `result` line).

    In per-case mode the result is `output`, the bytes as written. In persistent mode the
    protocol line was decoded already, and the result is `decoded`: encoding it again only to
    decode it once more for judging doubled the cost of a long game's answer.
    """

    output: bytes = b""
    stderr: str = ""
    seconds: float = 0.0
    decoded: Any = field(default=NOT_DECODED, repr=False, compare=False)

    def raw(self) -> bytes:
        """The result as JSON bytes, for failure reports."""
        if self.decoded is NOT_DECODED:
            return self.output
        return json.dumps(self.decoded, ensure_ascii=False).encode()


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
