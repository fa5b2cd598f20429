"""An implementation asked requests one at a time, outside a run of the corpus: one persistent
process for every request, one process per request when its handshake fails. `cardid new` and
`cardid shrink` ask the bundled reference this way (runner/draft.py), `cardid fuzz` the
implementation it tests."""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

from cardid_conformance.answer import Answer
from cardid_runner import execute
from cardid_runner.adapter import Adapter, Hello, Launcher, Request, probe


class Session:
    """Requests in, answers out, in the order asked."""

    def __init__(
        self,
        options: execute.Options,
        launcher: Launcher | None = None,
        *,
        unnamed: str = "the implementation",
    ) -> None:
        self._options = options
        self._launcher = launcher or self._options.launcher()
        self._adapter: Adapter | None = None
        self._unnamed = unnamed
        self.hello: Hello | None = None
        self._asked = 0

    def ask(self, request: Mapping[str, Any]) -> Answer:
        """The answer to one request (`role` in it says which)."""
        if self._adapter is None:
            started = probe(self._launcher)
            if isinstance(started, str):
                self._adapter = self._launcher.per_case()
            else:
                self._adapter, self.hello = started
        self._asked += 1
        # ASCII with escapes: a lone surrogate in a saved request reaches the implementation,
        # which rejects it, instead of failing to encode here.
        payload = json.dumps(request, separators=(",", ":")).encode()
        return self._adapter.run(
            Request(tag=f"ask-{self._asked}", role=request["role"], payload=payload, timeout=self._options.timeout)
        )

    @property
    def name(self) -> str:
        """The implementation as its handshake names it."""
        return f"{self.hello.name} {self.hello.version}" if self.hello else self._unnamed

    def close(self) -> None:
        if self._adapter is not None:
            self._adapter.close()
            self._adapter = None
