"""Writing output files (reports, saved failures): complete or not at all, never through a
name someone else planted.

Each file is written to a temporary file of its own, created exclusively (`O_EXCL`, so a
symlink or file planted under any name is never followed nor reused) in the target's folder,
then renamed over the target: a reader sees the old file or the whole new one, and a symlink at
the target is replaced, never followed. An interruption removes the temporary file.

An output an option names may also be a stream (write_output, append_to): `-` or a name of an
inherited descriptor (/dev/stdout, /dev/stderr, /dev/fd/N, /proc/self/fd/N) is written to that
descriptor, and a character device or a FIFO (/dev/null, a pipe made with mkfifo), or a symlink
to one, is opened and written to. A stream is written in one go and never replaced: renaming
over /dev/stdout would replace the machine's own link with a file.
"""

from __future__ import annotations

import contextlib
import errno
import os
import re
import select
import stat
import sys
import tempfile
from pathlib import Path

from cardid_conformance import files
from cardid_runner.process.stop import SIGNALS


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


#: The names of inherited descriptors: /dev/stdin, /dev/stdout, /dev/stderr, /dev/fd/N and
#: /proc/self/fd/N (N of at most 9 digits), as an absolute path without `.` or `..`.
_STANDARD = {"/dev/stdin": 0, "/dev/stdout": 1, "/dev/stderr": 2}
_NUMBERED = re.compile(r"/(?:dev|proc/self)/fd/([0-9]{1,9})")


def descriptor(path: Path) -> int | None:
    """The inherited descriptor `path` names (`-` is standard output), or None."""
    text = str(path)
    if text == "-":
        return 1
    try:
        name = os.path.normpath(os.path.join(os.getcwd(), text))
    except OSError:  # the working folder is gone: only an absolute name can be one
        name = os.path.normpath(text)
    if name in _STANDARD:
        return _STANDARD[name]
    numbered = _NUMBERED.fullmatch(name)
    return int(numbered.group(1)) if numbered else None


def is_stream(path: Path) -> bool:
    """Whether `path` (followed through symlinks) is a character device or a FIFO."""
    try:
        mode = os.stat(path).st_mode
    except (OSError, ValueError):
        return False
    return stat.S_ISCHR(mode) or stat.S_ISFIFO(mode)


def streams(path: Path) -> bool:
    """Whether an output to `path` goes to a stream (see the module docstring), not a file."""
    return descriptor(path) is not None or is_stream(path)


def _write_all(fd: int, data: bytes) -> None:
    """Write every byte of `data` to the stream `fd`, a chunk it can take at a time (PIPE_BUF,
    once poll says it can take some, so that no write waits), waiting for the reader as long
    as it takes, but not past a signal: during a run, signals are only recorded (runner/process/stop.py),
    so a reader that never reads would hold the run past Ctrl-C and SIGTERM."""
    signals = SIGNALS.received
    poller = select.poll()
    poller.register(fd, select.POLLOUT)
    view = memoryview(data)
    while view:
        if not poller.poll(100):
            if SIGNALS.received != signals:
                raise InterruptedError(errno.EINTR, "interrupted while its reader took nothing")
            continue
        try:
            view = view[os.write(fd, view[: select.PIPE_BUF]):]
        except BlockingIOError:
            continue


def _to_stream(path: Path, data: bytes) -> None:
    """Write `data` to the stream `path` names; OSError if it cannot be."""
    fd = descriptor(path)
    if fd is not None:
        for stream in (sys.stdout, sys.stderr):  # what was printed comes first
            with contextlib.suppress(OSError, ValueError, AttributeError):
                if stream.fileno() == fd:
                    stream.flush()
        _write_all(fd, data)
        return
    # O_NONBLOCK: a FIFO no process reads fails at once (ENXIO) instead of waiting for one.
    flags = os.O_WRONLY | os.O_NOCTTY | os.O_NONBLOCK | os.O_CLOEXEC
    try:
        fd = os.open(path, flags)
    except OSError as exc:
        if exc.errno == errno.ENXIO:
            raise OSError(errno.ENXIO, "no process has it open for reading") from None
        raise
    try:
        os.set_blocking(fd, True)
        _write_all(fd, data)
    finally:
        os.close(fd)


def write_output(path: Path, data: bytes, *, what: str) -> None:
    """Write `data` to the output an option names: a stream (see the module docstring) in one
    go, a file atomically (write_atomically); raise OutputError naming `what`."""
    if not streams(path):
        write_atomically(path, data, what=what)
        return
    try:
        _to_stream(path, data)
    except OSError as exc:
        raise OutputError(f"cannot write {what} {path}: {files.describe(exc)}") from None


def write_atomically(path: Path, data: bytes, *, what: str) -> None:
    """Write `data` to `path` (see the module docstring); raise OutputError naming `what`."""
    temporary: str | None = None
    try:
        if path.is_dir() and not path.is_symlink():
            raise IsADirectoryError(21, "Is a directory")
        # The name cut to 100 characters: a name near the system's limit (255 bytes) leaves no
        # room for the temporary file's prefix and suffix.
        fd, temporary = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name[:100]}.", suffix=".partial")
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
    $GITHUB_STEP_SUMMARY that several steps add to). A stream (see the module docstring) is
    written to; otherwise a symlink at the name is not followed, and only a regular file is
    appended to."""
    try:
        if streams(path):
            _to_stream(path, data)
            return
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
