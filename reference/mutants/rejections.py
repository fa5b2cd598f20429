"""The mutant of the adapter contract's rejection (C-2): an inconsistent request rejected with
exit status 1 but no rejection object (the reader's is in reader.py)."""

from __future__ import annotations

from typing import Any

from cardid_reference.errors import RequestError
from cardid_reference.writer import Writer

from . import ExitWithoutRejection, mutant


@mutant("rejection-exit-only")
class RejectionExitOnly(Writer):
    """Rejects an inconsistent request with exit status 1 but no rejection object (C-2)."""

    def __init__(self, request: dict[str, Any]) -> None:
        try:
            super().__init__(request)
        except RequestError:
            raise ExitWithoutRejection from None

    def run(self) -> dict[str, Any]:
        try:
            return super().run()
        except RequestError:
            raise ExitWithoutRejection from None
