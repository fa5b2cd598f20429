"""Why an implementation command cannot run, in words its author can act on.

The process package (runner/process/) raises its own errors with the facts; here they become the
usage errors a command reports (exit status 2), each with a hint. When a start fails, the
operating system says little (`No such file or directory` for a missing interpreter named on a
`#!` line, `Exec format error` for a script without one); `cannot_start` looks at the program to
say which mistake it is, and what to write instead. Every part of the command is shown with its
unsafe characters escaped.
"""

from __future__ import annotations

import errno
import os
import resource
import shlex
import shutil
import stat
from collections.abc import Sequence
from pathlib import Path

from cardid_conformance import escape
from cardid_conformance.errors import UsageError
from cardid_runner.process.command import first_line
from cardid_runner.process.errors import (
    CannotStart,
    NoResources,
    NoScratchFolder,
    ProcessError,
    WindowsLineEnding,
)

#: Interpreters by file suffix, for the hint "run it through its interpreter: node toy.js".
INTERPRETERS = {
    ".js": "node", ".mjs": "node", ".cjs": "node", ".py": "python3", ".sh": "sh",
    ".bash": "bash", ".rb": "ruby", ".pl": "perl", ".php": "php", ".lua": "lua",
}


def usage_error(exc: ProcessError) -> UsageError:
    """The usage error a command reports for an error of the process package."""
    match exc:
        case NoResources():
            return limit_reached(exc)
        case NoScratchFolder():
            return UsageError(exc.message, hint="check TMPDIR")
        case WindowsLineEnding(argv=argv, line=line):
            return _windows_line_ending(argv, line)
        case CannotStart(argv=argv, cause=cause):
            return cannot_start(argv, cause)
        case _:  # BadCommand: its message says what is wrong with the command as given
            return UsageError(exc.message)


class LimitReached(UsageError):
    """A process could not be started for want of what the system gives (a file descriptor, a
    process, memory), not for anything wrong with the command: during a run, the case it was for
    errs and the run goes on."""


def limit_reached(exc: NoResources) -> LimitReached:
    """The words for a start the system refused a descriptor, a process or memory: which limit,
    and the fix (a larger limit, fewer cases at once)."""
    fewer = "run fewer cases at once (a smaller -j)"
    match exc.errno:
        case errno.EMFILE:
            limit = _soft_limit(resource.RLIMIT_NOFILE)
            return LimitReached(
                f"no file descriptor left to start the implementation (too many open files: the "
                f"limit of this process, `ulimit -n`, is {limit})",
                hint=f"raise it (`ulimit -n {max(1024, 4 * (limit or 256))}`) or {fewer}: each "
                "implementation process running takes 4 descriptors while it runs, 8 while it starts",
            )
        case errno.ENFILE:
            return LimitReached(
                "no file descriptor left to start the implementation: the system's table of open "
                "files is full (ENFILE)",
                hint=f"{fewer}, or end programs that hold many files (the system's limit: "
                "/proc/sys/fs/file-max)",
            )
        case errno.EAGAIN:
            limit = _soft_limit(resource.RLIMIT_NPROC)
            return LimitReached(
                f"no process could be started for the implementation (fork: resource temporarily "
                f"unavailable: the limit of processes, `ulimit -u`, is {limit}, or the system's)",
                hint=f"raise it (`ulimit -u`) or {fewer}; processes an implementation leaves "
                "running count too",
            )
        case _:
            return LimitReached(
                f"not enough memory to start the implementation ({escape.show(str(exc.cause))})",
                hint=fewer,
            )


def _soft_limit(which: int) -> int | None:
    """This process's soft limit, or None when unlimited or unknown."""
    try:
        soft = resource.getrlimit(which)[0]
    except (OSError, ValueError):
        return None
    return None if soft == resource.RLIM_INFINITY else soft


def _windows_line_ending(argv: Sequence[str], line: bytes) -> UsageError:
    shown = escape.show(repr(argv[0]))
    named = escape.show(line[2:].rstrip(b"\r\n").decode("utf-8", "replace").strip()[:120])
    return UsageError(
        f"cannot start implementation {shown}: its #! line ends with a Windows line ending (CR LF), "
        f"so the system looks for {named + chr(13)!r}, not {named!r}",
        hint=f"save {shown} with LF line endings (dos2unix, or your editor's line-ending setting; "
        "git: a .gitattributes line `* text eol=lf`)",
    )


def cannot_start(argv: Sequence[str], exc: BaseException) -> UsageError:
    """The usage error for a command whose program could not be started (`exc`, from Popen)."""
    program = argv[0]
    shown = escape.show(repr(program))
    code = getattr(exc, "errno", None)
    if isinstance(exc, ValueError) or "\0" in program:
        return UsageError(f"cannot start implementation {shown}: the command holds a NUL byte")
    if "/" not in program:
        return _on_path(program, shown, exc)
    path = Path(program)
    where = f" (relative to {escape.show(os.getcwd())})" if not path.is_absolute() else ""
    try:
        mode = path.stat().st_mode
    except OSError:
        if path.is_symlink():
            return UsageError(f"cannot start implementation {shown}: it is a broken symbolic link{where}")
        return UsageError(
            f"cannot start implementation {shown}: no such file{where}",
            hint="a relative path is taken from the folder `cardid` runs in, as in a shell",
        )
    if stat.S_ISDIR(mode):
        return UsageError(
            f"cannot start implementation {shown}: it is a folder, not a program",
            hint="name the program (or script) to run inside it",
        )
    through = _through_interpreter(argv)
    if not os.access(path, os.X_OK):
        return UsageError(
            f"cannot start implementation {shown}: not executable",
            hint=f"chmod +x {shlex.quote(program)}, or run it through its interpreter: {through}",
        )
    first = first_line(path)
    if code == errno.ENOEXEC:
        return UsageError(
            f"cannot start implementation {shown}: it has no #! line naming its interpreter",
            hint=f"begin it with one (such as #!/usr/bin/env {_interpreter(program) or 'python3'}), "
            f"or run it through its interpreter: {through}",
        )
    if code == errno.ENOENT and first is not None and first.startswith(b"#!"):
        named = escape.show(first[2:].decode("utf-8", "replace").strip()[:120])
        return UsageError(
            f"cannot start implementation {shown}: its #! line names {named!r}, which cannot be found",
            hint=f"correct the #! line (#!/usr/bin/env NAME looks NAME up on PATH), or run it "
            f"through its interpreter: {through}",
        )
    return _generic(shown, exc)


def _on_path(program: str, shown: str, exc: BaseException) -> UsageError:
    if shutil.which(program) is None:
        if os.path.isfile(program):
            return UsageError(
                f"cannot start implementation {shown}: it is not on PATH",
                hint=f"a program in the current folder is written ./{program}, as in a shell"
                + (f" (or run it through its interpreter: {_interpreter(program)} {program})"
                   if _interpreter(program) else ""),
            )
        return UsageError(
            f"cannot start implementation {shown}: not found on PATH",
            hint="install it, give its path (./adapter, /usr/bin/node), or check the spelling",
        )
    return _generic(shown, exc)


def _generic(shown: str, exc: BaseException) -> UsageError:
    why = getattr(exc, "strerror", None) or str(exc)
    return UsageError(
        f"cannot start implementation {shown}: {escape.show(why)}",
        hint="check the --impl command; it is run directly, not through a shell",
    )


def _interpreter(program: str) -> str | None:
    return INTERPRETERS.get(Path(program).suffix.lower())


def _through_interpreter(argv: Sequence[str]) -> str:
    """The command written as `INTERPRETER script args...`."""
    interpreter = _interpreter(argv[0]) or "INTERPRETER"
    script = argv[0][2:] if argv[0].startswith("./") else argv[0]
    return escape.show(shlex.join([interpreter, script, *argv[1:]]))

