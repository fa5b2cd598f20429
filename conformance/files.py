"""Reading the files the suite is given: regular files only, bounded in size, never blocking.

A case folder, a known-failure file, a report to resume from, CR text and card data can all be
anything a path can name: a FIFO (opening it for reading waits for a writer forever), a socket,
a device (opening some has effects), a directory, or a symlink to any of those. Only regular
files are opened: the path is checked first, and the open file is checked again, since the path
may change in between (`O_NONBLOCK` keeps even that open from waiting).
"""

from __future__ import annotations

import errno
import os
import stat
from pathlib import Path


class NotARegularFile(OSError):
    """The path names something other than a regular file; `kind` says what."""

    def __init__(self, path: Path, kind: str) -> None:
        super().__init__(errno.EINVAL, f"{kind}, not a regular file")
        self.path = path
        self.kind = kind


class TooLarge(OSError):
    """The file is over the size limit; nothing beyond the limit was read."""

    def __init__(self, path: Path, size: int, limit: int) -> None:
        super().__init__(errno.EFBIG, f"{size:,} bytes, over the {limit:,}-byte limit")
        self.path = path
        self.size = size
        self.limit = limit


_KINDS = (
    (stat.S_ISDIR, "a directory"),
    (stat.S_ISFIFO, "a FIFO"),
    (stat.S_ISSOCK, "a socket"),
    (stat.S_ISCHR, "a character device"),
    (stat.S_ISBLK, "a block device"),
)

_FLAGS = (
    os.O_RDONLY
    | getattr(os, "O_NONBLOCK", 0)
    | getattr(os, "O_NOCTTY", 0)
    | getattr(os, "O_CLOEXEC", 0)
)


def kind(mode: int) -> str | None:
    """What a non-regular `st_mode` is ("a FIFO", ...), or None for a regular file."""
    if stat.S_ISREG(mode):
        return None
    for test, name in _KINDS:
        if test(mode):
            return name
    return "a special file"


def check_regular(path: Path) -> None:
    """Raise NotARegularFile unless `path` (followed through symlinks) is a regular file.

    OSError (a missing file, a symlink loop, a denied directory) propagates.
    """
    what = kind(os.stat(path).st_mode)
    if what is not None:
        raise NotARegularFile(path, what)


def read_bounded(path: Path, limit: int) -> bytes:
    """The bytes of the regular file at `path`, at most `limit` of them.

    Raises NotARegularFile, TooLarge, or the OSError of opening or reading. Plain system calls
    (stat, open, fstat, read): a case file costs about 8 us, which 10,000 case files notice.
    """
    check_regular(path)
    fd = os.open(path, _FLAGS)
    try:
        info = os.fstat(fd)
        what = kind(info.st_mode)
        if what is not None:  # it was swapped after the check
            raise NotARegularFile(path, what)
        size = info.st_size
        if size > limit:
            raise TooLarge(path, size, limit)
        raw = os.read(fd, size + 1)
        if len(raw) <= size:
            return raw  # a short read of a regular file is its end
        chunks = [raw]  # it grew since fstat: read on, still within the limit
        while (total := sum(map(len, chunks))) <= limit and (chunk := os.read(fd, 65536)):
            chunks.append(chunk)
        if total > limit:
            raise TooLarge(path, total, limit)
        return b"".join(chunks)
    finally:
        os.close(fd)


def describe(error: OSError) -> str:
    """An OSError as the few words a message needs ("a FIFO, not a regular file", "Permission
    denied")."""
    return error.strerror or str(error)
