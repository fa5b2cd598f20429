"""The suite's exception hierarchy: every error a person can act on.

    CardidError              base; carries a hint for the person reading it
    ├── SuiteError           the suite's own files (spec index, schemas) are broken
    ├── CaseError            one case file is broken; names the file and line
    └── UsageError           the command line or an option's file is wrong
"""

from __future__ import annotations

from pathlib import Path


class CardidError(Exception):
    """An error with a message for people and a hint on what to do."""

    def __init__(self, message: str, *, hint: str | None = None) -> None:
        super().__init__(message)
        self.message = message
        self.hint = hint

    def render(self) -> str:
        """Return the error as `error: ...` and, if any, `hint: ...` lines."""
        lines = [f"error: {self.message}"]
        if self.hint:
            lines.append(f"hint: {self.hint}")
        return "\n".join(lines)


class SuiteError(CardidError):
    """The suite's own spec index or schemas cannot be read."""


class UsageError(CardidError):
    """A command-line option, or a file an option names, is wrong."""


class CaseError(CardidError):
    """A case file is broken: it is a bug in the case, never the implementation's failure."""

    def __init__(
        self, path: Path | str, message: str, *, line: int | None = None, hint: str | None = None
    ) -> None:
        self.path = Path(path)
        self.line = line
        where = f"{self.path}:{line}" if line is not None else f"{self.path}"
        super().__init__(f"{where}: {message}", hint=hint)
        self.reason = message
