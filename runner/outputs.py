"""Writing output files (reports, saved failures): complete or not at all, never through a
name someone else planted.

Each file is written to a temporary file of its own, created exclusively (`O_EXCL`, so a
symlink or file planted under any name is never followed nor reused) in the target's folder,
then renamed over the target: a reader sees the old file or the whole new one, and a symlink at
the target is replaced, never followed. An interruption removes the temporary file.
"""

from __future__ import annotations

import contextlib
import os
import tempfile
from pathlib import Path

from cardid_conformance import files


class OutputError(Exception):
    """An output could not be written; the message names the option, the path and why."""

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message


def _mode() -> int:
    """rw for everyone the umask allows, as a plainly created file would be."""
    umask = os.umask(0o022)
    os.umask(umask)
    return 0o666 & ~umask


def write_atomically(path: Path, data: bytes, *, what: str) -> None:
    """Write `data` to `path` (see the module docstring); raise OutputError naming `what`."""
    temporary: str | None = None
    try:
        if path.is_dir() and not path.is_symlink():
            raise IsADirectoryError(21, "Is a directory")
        fd, temporary = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".partial")
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)
            os.fchmod(handle.fileno(), _mode())
        os.replace(temporary, path)
        temporary = None
    except OSError as exc:
        raise OutputError(f"cannot write {what} {path}: {files.describe(exc)}") from None
    finally:
        if temporary is not None:  # failed or interrupted: leave nothing behind
            with contextlib.suppress(OSError):
                os.unlink(temporary)


def append_to(path: Path, data: bytes, *, what: str) -> None:
    """Append `data` to `path`, creating it if absent (a CI summary file such as
    $GITHUB_STEP_SUMMARY that several steps add to). A symlink at the name is not followed,
    and only a regular file is appended to."""
    try:
        fd = os.open(path, os.O_WRONLY | os.O_APPEND | os.O_CREAT | os.O_NOFOLLOW | os.O_NONBLOCK, _mode())
        try:
            what_it_is = files.kind(os.fstat(fd).st_mode)
            if what_it_is is not None:
                raise OutputError(f"cannot append {what} to {path}: it is {what_it_is}")
            os.write(fd, data)
        finally:
            os.close(fd)
    except OSError as exc:
        raise OutputError(f"cannot write {what} {path}: {files.describe(exc)}") from None
