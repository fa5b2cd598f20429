"""The runner as the reaper of what its implementations leave behind (Linux: a child subreaper).

When a process exits, the kernel gives its children to the nearest ancestor that declared itself
a *child subreaper* (`prctl(PR_SET_CHILD_SUBREAPER, 1)`), or else to PID 1. The runner declares
itself one before it starts its first implementation process (marks.py, with the watchdog), so
that every process an implementation starts stays in the runner's subtree whatever it does:
leave the process group (`setsid`), fork and let its parent exit, again and again. A live
process of a run is then always the runner's child, or a descendant of a live one of its
children, and marks.py ends them by looking at the runner's children alone, without scanning
/proc and without the race a scan can lose (a process that forks between the scan's listing and
its reading of the parent).

The orphans given to the runner are reaped here (`reap`), never by a wait for any child, which
would take the exit status of a process that `subprocess` (a `Process`, the watchdog, a test's
own) waits for by its PID. A zombie child is reaped only when it cannot be such a child: one
outside the runner's session that does not lead a session of its own (a process started by the
runner is either in its session or, started in a new one, leads it), or one that leads a
session the caller saw a process of its run in, and is not the process the caller spares.

Where the call fails (not Linux, a kernel or a seccomp filter that refuses it), `enable` says
so and marks.py scans /proc as before.
"""

from __future__ import annotations

import contextlib
import ctypes
import os
import sys
import threading
from collections.abc import Collection
from dataclasses import dataclass

from cardid_runner.process.errors import NO_DESCRIPTOR

#: prctl's option (linux/prctl.h).
PR_SET_CHILD_SUBREAPER = 36
#: A task's flag while it exits (linux/sched.h): its memory, and so its environment, may already
#: be gone while its children are not yet given to their new parent.
PF_EXITING = 0x4


class Unknown(Exception):
    """Nothing could be concluded this time (no descriptor left to look with): look again."""


@dataclass(frozen=True, slots=True)
class Stat:
    """What /proc/PID/stat says of a process that the runner needs."""

    state: str
    ppid: int
    session: int
    flags: int

    @property
    def zombie(self) -> bool:
        """Exited (a zombie, or being reaped): it runs nothing and starts nothing any more."""
        return self.state in ("Z", "X", "x")

    @property
    def exiting(self) -> bool:
        """Exiting: its children may not have been given to their new parent yet."""
        return self.zombie or bool(self.flags & PF_EXITING)


def stat(pid: int) -> Stat | None:
    """The process's state, parent, session and flags; None when it is gone. Unknown when no
    descriptor is left to read it with."""
    try:
        with open(f"/proc/{pid}/stat", "rb") as handle:
            data = handle.read()
    except OSError as exc:
        if exc.errno in NO_DESCRIPTOR:
            raise Unknown from None
        return None
    try:
        fields = data.rsplit(b")", 1)[1].split()
        return Stat(state=fields[0].decode(), ppid=int(fields[1]), session=int(fields[3]), flags=int(fields[6]))
    except (IndexError, ValueError):
        return None


class Reaper:
    """This process as a child subreaper: whether it is one, its children, and reaping them."""

    def __init__(self) -> None:
        self.active = False
        self._tried = False
        self._lock = threading.Lock()
        #: Whether /proc/PID/task/TID/children exists here (CONFIG_PROC_CHILDREN); else the
        #: children are found by the parent each process of /proc names.
        self._children_file: bool | None = None

    def enable(self) -> bool:
        """Become a child subreaper (once); whether this process is one."""
        with self._lock:
            if not self._tried:
                self._tried = True
                self.active = _set_child_subreaper()
            return self.active

    def children(self) -> frozenset[int]:
        """This process's children (of every thread), read until two readings agree (the
        kernel's list is read in pieces, and one that changes while it is read may skip one).
        Unknown when no descriptor is left to read them with."""
        previous = self._children_once()
        for _ in range(3):
            current = self._children_once()
            if current == previous:
                return current
            previous = current
        return previous

    def _children_once(self) -> frozenset[int]:
        if self._children_file is None:
            self._children_file = os.path.exists(f"/proc/self/task/{os.getpid()}/children")
        if not self._children_file:
            return self._children_by_scan()
        found: set[int] = set()
        try:
            for tid in os.listdir("/proc/self/task"):
                try:
                    with open(f"/proc/self/task/{tid}/children", "rb") as handle:
                        found.update(int(pid) for pid in handle.read().split())
                except FileNotFoundError:
                    continue  # a thread that ended meanwhile: its children went to another
        except OSError as exc:
            raise Unknown from exc
        return frozenset(found)

    def _children_by_scan(self) -> frozenset[int]:
        me = os.getpid()
        try:
            names = [entry.name for entry in os.scandir("/proc") if entry.name.isdigit()]
        except OSError as exc:
            raise Unknown from exc
        found: set[int] = set()
        for name in names:
            state = stat(int(name))
            if state is not None and state.ppid == me:
                found.add(int(name))
        return frozenset(found)

    def reap(self, *, spare: Collection[int] = (), sessions: Collection[int] = ()) -> None:
        """Reap the zombie children that no one else waits for: outside this process's session
        and leading no session (so started by no one here), or leading one of `sessions` (where
        the caller saw processes of its run); never one of `spare` (the caller's own
        `subprocess` child)."""
        if not self.active:
            return
        with self._lock:
            try:
                ours = os.getsid(0)
                candidates = self.children()
            except (OSError, Unknown):
                return
            for pid in candidates:
                if pid in spare:
                    continue
                try:
                    state = stat(pid)
                except Unknown:
                    return
                if state is None or not state.zombie or state.ppid != os.getpid():
                    continue
                if state.session == ours or (state.session == pid and pid not in sessions):
                    continue  # perhaps a child someone here waits for by its PID
                with contextlib.suppress(ChildProcessError):
                    os.waitpid(pid, os.WNOHANG)


def _set_child_subreaper() -> bool:
    """prctl(PR_SET_CHILD_SUBREAPER, 1) through the C library; False wherever it fails."""
    if not sys.platform.startswith("linux") or not os.path.isdir("/proc/self/task"):
        return False  # without /proc, its children could not be found: scan as before
    try:
        libc = ctypes.CDLL(None, use_errno=True)
        prctl = libc.prctl
        prctl.argtypes = [ctypes.c_int, ctypes.c_ulong, ctypes.c_ulong, ctypes.c_ulong, ctypes.c_ulong]
        prctl.restype = ctypes.c_int
        return bool(prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) == 0)
    except (OSError, AttributeError):
        return False


#: The runner process's one reaper.
REAPER = Reaper()
