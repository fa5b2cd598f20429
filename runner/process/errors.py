"""What goes wrong before an implementation runs: its command, or its start.

Each error carries the facts (the argv, the operating system's error, the #! line); its message
is plain, for a log. The words an implementation's author reads, with a hint and every
character of the command made visible, are the runner's (runner/starting.py `usage_error`).

    ProcessError             base
    ├── BadCommand           the command text does not split into a program and arguments
    └── CannotStart          the program could not be started
        ├── WindowsLineEnding    its #! line ends with CR LF (refused before starting)
        ├── NoScratchFolder      no temporary folder could be made for it
        └── NoResources          the system lacked a descriptor, a process or memory for it
"""

from __future__ import annotations

import errno
from collections.abc import Sequence

#: The errors that say a file descriptor could not be had (this process's limit, the system's),
#: not that a file or process is gone.
NO_DESCRIPTOR = (errno.EMFILE, errno.ENFILE)
#: What a start can lack that other processes free as they end (NoResources).
SCARCE = (*NO_DESCRIPTOR, errno.EAGAIN, errno.ENOMEM)


class ProcessError(Exception):
    """An implementation command that cannot be run."""

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message


class BadCommand(ProcessError):
    """The command text is empty, or a shell could not split it (an unclosed quote)."""


class CannotStart(ProcessError):
    """Starting `argv` failed: `cause` is what the start raised (an OSError, or a ValueError for
    a NUL byte in the command)."""

    def __init__(self, argv: Sequence[str], cause: BaseException, message: str | None = None) -> None:
        super().__init__(message or f"cannot start {argv[0]!r}: {cause}")
        self.argv = tuple(argv)
        self.cause = cause


class WindowsLineEnding(CannotStart):
    """The program's #! line (`line`, as read) ends with CR LF: the system would look for an
    interpreter whose name ends with the CR."""

    def __init__(self, argv: Sequence[str], line: bytes) -> None:
        super().__init__(
            argv, ValueError("CR LF line ending"),
            f"cannot start {argv[0]!r}: its #! line ends with a Windows line ending (CR LF)",
        )
        self.line = line


class NoScratchFolder(CannotStart):
    """The implementation's own temporary folder could not be made (`cause`: the OSError)."""

    def __init__(self, argv: Sequence[str], cause: OSError) -> None:
        super().__init__(
            argv, cause,
            f"cannot create a temporary folder for the implementation: {cause.strerror or cause}",
        )


class NoResources(CannotStart):
    """The system refused what a start needs, not the command: a file descriptor (`cause.errno`
    EMFILE, this process's limit; ENFILE, the system's), a process (EAGAIN) or memory (ENOMEM).
    Other processes of the run may free it as they end."""

    def __init__(self, argv: Sequence[str], cause: OSError) -> None:
        super().__init__(argv, cause, f"cannot start {argv[0]!r}: {cause.strerror or cause}")
        self.errno = cause.errno
