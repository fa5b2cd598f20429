"""An implementation command: its words, what is checked before it starts, and its environment.

The runner starts a command as a shell would find it, without a shell: split as a POSIX shell
splits words, run in the folder `cardid` runs in, a program named with a `/` taken as a path
from there, any other looked up on PATH. Its environment is the runner's own, plus the
protocol's version, the run's mark (runner/process/marks.py) and a folder of its own for
scratch files.
"""

from __future__ import annotations

import os
import shlex
import shutil
from collections.abc import Mapping, Sequence
from pathlib import Path

from cardid_runner.process.errors import BadCommand, WindowsLineEnding
from cardid_runner.process.marks import MARK

#: The variables that name a folder for temporary files (POSIX, and what Windows-born tools read).
SCRATCH_VARIABLES = ("TMPDIR", "TEMP", "TMP")


def split_command(command: str) -> list[str]:
    """Split an implementation command like a POSIX shell would, without ever running a shell."""
    try:
        argv = shlex.split(command)
    except ValueError as exc:
        raise BadCommand(f"cannot split implementation command {command!r}: {exc}") from None
    if not argv:
        raise BadCommand("the implementation command is empty")
    return argv


def child_environment(
    base: Mapping[str, str] | None = None, mark: str = "", scratch: str = ""
) -> dict[str, str]:
    """The environment an implementation gets: the runner's own, plus CARDID_PROTOCOL=1, the
    mark that finds its descendants (CARDID_RUN), and its own folder for scratch files as
    TMPDIR, TEMP and TMP."""
    env = dict(os.environ if base is None else base)
    env["CARDID_PROTOCOL"] = "1"
    if mark:
        env[MARK] = mark
    if scratch:
        env.update(dict.fromkeys(SCRATCH_VARIABLES, scratch))
    return env


def check_interpreter_line(argv: Sequence[str]) -> None:
    """Refuse (WindowsLineEnding), before starting it, a program whose #! line ends with a
    Windows line ending: the system takes the CR as part of the interpreter's name (`/bin/sh\r`
    is not found, and `#!/usr/bin/env node\r` starts env, which then fails every case with exit
    status 127)."""
    found = argv[0] if "/" in argv[0] else shutil.which(argv[0])
    first = None if found is None else first_line(Path(found))
    if first is None or not first.startswith(b"#!") or not first.rstrip(b"\n").endswith(b"\r"):
        return
    raise WindowsLineEnding(argv, first)


def first_line(path: Path) -> bytes | None:
    """The file's first line (its first 256 bytes at most), or None if it cannot be read."""
    try:
        with open(path, "rb") as handle:
            return handle.readline(256)
    except OSError:
        return None
