"""What an implementation gave back for one request, before anyone judges it.

Answers hold decoded data only: the protocol's decoding (conformance/protocol.py) is the one place that turns
an implementation's bytes into JSON values, and everything after it works on values.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
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


@dataclass(frozen=True, slots=True, kw_only=True)
class Crashed:
    """The implementation died, hung, or broke the protocol; `reason` says which.

    `protocol_only` marks breaches only persistent mode can show (a wrong `seq`, a malformed
    answer line): a fresh per-case process has nothing to repeat them with. `earlier` counts the
    requests the same process had answered before this one.
    """

    reason: str
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
