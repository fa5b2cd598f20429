"""Run marks: finding every process of a run, and ending them, whatever they did to hide.

Every process the runner starts carries `CARDID_RUN=<token>.<n>` in its environment, and so do
its descendants unless they clear their environment; its temporary folder is named
`cardid-impl-<token>.<n>-<random>`. Ending a process ends its process group, then every process
still carrying its mark (a grandchild that called `setsid` left the group but not the mark).
On Linux the runner is a child subreaper (reaper.py beside this file): whatever a process of the
run does, it stays in the runner's subtree, so those processes are found among the runner's own
children, killed (a process sent SIGKILL starts no other: the kernel aborts a fork under way)
until two looks in a row find none and no new child, and the orphans reaped. Elsewhere, or when
the kernel refuses, they are found by scanning /proc, which a process that keeps forking away
can outrun. The watchdog (watchdog.py beside this file), started with the run's first process,
scans for the whole run if the runner itself dies, even by SIGKILL, and removes the folders it
leaves.

Why not PR_SET_PDEATHSIG: a parent-death signal reaches the direct child only (not an `sh -c`
wrapper's children, nor a `setsid` grandchild) and needs a `preexec_fn`, which is unsafe in a
process with threads (-j N). The mark reaches every descendant, and only those of this run; the
subreaper keeps them where they can be found. It adopts the orphans of any subprocess the runner
(or a pytest process running the plugin) starts, not only its own: reaper.py reaps only those no
one else can be waiting for.
"""

from __future__ import annotations

import contextlib
import os
import secrets
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import Any

from cardid_runner.process.errors import NO_DESCRIPTOR
from cardid_runner.process.reaper import REAPER, Unknown, stat

#: The environment variable that marks every process of a run, and its descendants.
MARK = "CARDID_RUN"
#: Folders of implementation processes: `cardid-impl-<token>.<n>-<random>`.
DIR_PREFIX = "cardid-impl-"
#: How many scans in a row must find no marked process before kill_marked believes it.
QUIET_SCANS = 2


class _Token:
    """The run's mark, and the watchdog that ends what carries it if the runner dies."""

    def __init__(self) -> None:
        self.value = f"{os.getpid()}x{secrets.token_hex(4)}"
        self._count = 0
        self._lock = threading.Lock()
        self._watchdog: subprocess.Popen[bytes] | None = None

    def next(self) -> str:
        with self._lock:
            if self._watchdog is None:
                self._start_watchdog()
            self._count += 1
            return f"{self.value}.{self._count}"

    def _start_watchdog(self) -> None:
        _clean_stale_folders()
        REAPER.enable()  # before the first process: its orphans come back to the runner
        script = Path(__file__).with_name("watchdog.py")
        try:
            self._watchdog = subprocess.Popen(
                [sys.executable, "-I", "-S", str(script), self.value, tempfile.gettempdir()],
                stdin=subprocess.PIPE,
                stdout=subprocess.DEVNULL,
                stderr=subprocess.DEVNULL,
                start_new_session=True,  # a Ctrl-C or SIGHUP to the runner's group misses it
            )
        except OSError:  # pragma: no cover - then only the runner itself cleans up
            return
        # The watchdog waits for the end of this pipe: the runner's exit, whatever its cause.


#: The runner process's one token: its processes' marks are numbered under it, and its one
#: watchdog (started with the first process) ends whatever carries it.
_TOKEN = _Token()


def new_mark() -> str:
    """The mark of a new process of this run: `<token>.<n>`."""
    return _TOKEN.next()


def make_scratch(mark: str) -> str:
    """A new temporary folder for the process of this mark (OSError if none can be made)."""
    return tempfile.mkdtemp(prefix=f"{DIR_PREFIX}{mark}-")


def remove_scratch(scratch: str, mark: str) -> None:
    """Remove the process's folder, and any it moved away under another name (found by the
    mark in that name)."""
    remove_tree(scratch)
    try:
        moved = list(Path(scratch).parent.glob(f"{DIR_PREFIX}{mark}-*"))
    except OSError:  # no descriptor left to look: the watchdog removes them at the end
        return
    for folder in moved:
        remove_tree(str(folder))


def _clean_stale_folders() -> None:
    """Remove folders that runners killed without a watchdog to clean up after them left."""
    root = Path(tempfile.gettempdir())
    try:
        entries = list(root.glob(f"{DIR_PREFIX}*x*.*-*"))
    except OSError:
        return
    for entry in entries:
        owner = entry.name[len(DIR_PREFIX):].split("x", 1)[0]
        if owner.isdigit() and not _alive(int(owner)):
            remove_tree(str(entry))


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def marked_processes(mark: str, *, prefix: bool = False) -> Iterator[int]:
    """The PIDs of live processes whose environment holds CARDID_RUN=<mark> (or <mark>.*).
    OSError (EMFILE, ENFILE) when no descriptor is left to look with."""
    try:
        names = [entry.name for entry in os.scandir("/proc") if entry.name.isdigit()]
    except OSError as exc:  # no /proc (not Linux): the process group is all there is to end
        if exc.errno in NO_DESCRIPTOR:
            raise
        return
    yield from marked_processes_among([int(name) for name in names], mark, prefix=prefix)


def marked_processes_among(pids: Iterable[int], mark: str, *, prefix: bool) -> Iterator[int]:
    """Those of `pids` whose environment holds the mark (OSError when no descriptor is left)."""
    for pid in pids:
        if _holds(_environ(pid), mark, prefix=prefix):
            yield pid


def _environ(pid: int) -> bytes | None:
    """The process's environment; None when it cannot be read (gone, or another user's).
    Empty for a process whose memory is gone (exiting, or a zombie)."""
    try:
        with open(f"/proc/{pid}/environ", "rb") as handle:
            return handle.read()
    except OSError as exc:
        if exc.errno in NO_DESCRIPTOR:
            raise
        return None


def _holds(environ: bytes | None, mark: str, *, prefix: bool) -> bool:
    if not environ:
        return False
    wanted = f"{MARK}={mark}".encode()
    return any(
        variable == wanted or (prefix and variable.startswith(wanted + b"."))
        for variable in environ.split(b"\0")
    )


def kill_marked(mark: str, *, prefix: bool = False, spare: int | None = None) -> None:
    """SIGKILL every process carrying the mark, and wait (bounded, 2 s) until none runs any
    more. `spare`: the process's own PID, which its `subprocess.Popen` waits for (never reaped
    here). A mark of this runner's, where it is a child subreaper (reaper.py), is looked for
    among its children; any other, by scanning /proc."""
    deadline = time.monotonic() + 2.0
    if REAPER.active and not prefix and mark.startswith(_TOKEN.value + "."):
        _kill_adopted(mark, deadline, spare)
    else:
        _kill_scanned(mark, deadline, prefix=prefix)


def _kill_adopted(mark: str, deadline: float, spare: int | None) -> None:
    """Kill the live children of this (subreaper) runner carrying the mark, until two looks in a
    row find none, none exiting, and no such child that was not there when the look began;
    then reap the orphans.

    Why that is enough: a live process of the run is this runner's child, or a descendant of a
    live child carrying the mark (when a process exits, its children become the runner's). A
    child killed, or exiting, gives its children to the runner as it ends: the next look sees
    them. One that forks and exits between a look's listing and its reading is seen exiting,
    or its child is a new one by the look's end. A process that clears its environment, or
    makes /proc/PID/environ unreadable, is not recognised (nor are its descendants). Children
    that other threads start meanwhile carry marks of their own, and change nothing here."""
    sessions: set[int] = set()
    quiet = 0
    while time.monotonic() < deadline:
        try:
            before = REAPER.children()
            found = [_end_if_marked(pid, mark, sessions) for pid in before]
            found += [_end_if_marked(pid, mark, sessions) for pid in REAPER.children() - before]
        except (Unknown, OSError):  # no descriptor to look with: look again
            found = [True]
        quiet = 0 if any(found) else quiet + 1
        if quiet >= QUIET_SCANS:
            break
        time.sleep(0.002 if any(found) else 0)
    REAPER.reap(spare=() if spare is None else (spare,), sessions=sessions)


def _end_if_marked(pid: int, mark: str, sessions: set[int]) -> bool:
    """Look at one child of this runner: SIGKILL it if it carries the mark (adding its session
    to `sessions`). Whether it did, or whether the child is exiting (its children may not be
    the runner's yet): either way, look again. Unknown, OSError: no descriptor to look with."""
    state = stat(pid)
    if state is None or state.zombie:
        return False
    if state.exiting:
        return True
    environ = _environ(pid)
    if not environ:  # its memory already gone: exiting by now (or an empty environment)
        again = stat(pid)
        return again is not None and again.exiting
    if not _holds(environ, mark, prefix=False):
        return False
    _kill_if_marked(pid, mark, prefix=False)
    sessions.add(state.session)
    return True


def _kill_scanned(mark: str, deadline: float, *, prefix: bool) -> None:
    """Scan /proc for the mark and SIGKILL what carries it until two scans in a row find none,
    and each one killed is gone or a zombie."""
    killed: set[int] = set()
    quiet = 0  # scans in a row that found nothing
    while time.monotonic() < deadline:
        try:
            pids = [pid for pid in marked_processes(mark, prefix=prefix) if pid != os.getpid()]
            for pid in pids:
                _kill_if_marked(pid, mark, prefix=prefix)
        except OSError:  # no descriptor to look with: look again
            quiet = 0
            time.sleep(0.005)
            continue
        killed.update(pids)
        killed = {pid for pid in killed if _still_running(pid)}
        quiet = quiet + 1 if not pids and not killed else 0
        # Two in a row: a process that forks and exits at once can fall between one scan's
        # listing of /proc and its reading of the parent's environment (seen as neither).
        if quiet >= QUIET_SCANS:
            return
        if not quiet:  # the confirming scan follows at once: 0.2 ms, not a 2 ms pause
            time.sleep(0.002)


def _kill_if_marked(pid: int, mark: str, *, prefix: bool) -> None:
    """SIGKILL the process if it still carries the mark. Through a pidfd where there is one:
    the PID cannot then be reused by an unrelated process between the check and the kill."""
    try:
        pidfd = os.pidfd_open(pid)
    except (OSError, AttributeError):
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.kill(pid, signal.SIGKILL)
        return
    try:
        if _holds(_environ(pid), mark, prefix=prefix):
            with contextlib.suppress(OSError):
                signal.pidfd_send_signal(pidfd, signal.SIGKILL)
    finally:
        os.close(pidfd)


def _still_running(pid: int) -> bool:
    """Alive and not yet a zombie (a zombie runs nothing; its parent, or PID 1, reaps it)."""
    try:
        state = stat(pid)
    except Unknown:
        return True
    return state is not None and not state.zombie


def remove_tree(path: str) -> None:
    """Remove a folder an implementation had as its own: whatever it did to it (a subfolder
    without permissions, itself replaced by a symbolic link, already gone)."""
    if os.path.islink(path):
        with contextlib.suppress(OSError):
            os.unlink(path)  # never follow it
        return
    with contextlib.suppress(OSError):
        os.rmdir(path)  # empty (a process that could not start): no descriptor needed
        return

    def retry(function: Any, name: str, _: Any) -> None:
        with contextlib.suppress(OSError):
            os.chmod(os.path.dirname(name), 0o700)
            if not os.path.islink(name) and os.path.isdir(name):
                os.chmod(name, 0o700)
            if function in (os.rmdir, os.unlink, os.remove):
                function(name)
            elif not os.path.islink(name) and os.path.isdir(name):  # it could not be opened
                shutil.rmtree(name, ignore_errors=True)  # or listed: again, now it may be

    with contextlib.suppress(OSError):
        shutil.rmtree(path, onerror=retry)
