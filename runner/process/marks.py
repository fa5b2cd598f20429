"""Run marks: finding every process of a run, and ending them, whatever they did to hide.

Every process the runner starts carries `CARDID_RUN=<token>.<n>` in its environment, and so do
its descendants unless they clear their environment; its temporary folder is named
`cardid-impl-<token>.<n>-<random>`. Ending a process ends its process group, then every process
still carrying its mark (a grandchild that called `setsid` left the group but not the mark),
found by scanning /proc. The watchdog (watchdog.py beside this file), started with the run's
first process, does the same for the whole run if the runner itself dies, even by SIGKILL, and
removes the folders it leaves.

Why not PR_SET_CHILD_SUBREAPER and PR_SET_PDEATHSIG: a subreaper runner (and any pytest
process running the plugin) would adopt every orphan of every subprocess it ever starts, its
own or a test's; a parent-death signal reaches the direct child only (not an `sh -c` wrapper's
children, nor a `setsid` grandchild) and needs a `preexec_fn`, which is unsafe in a process
with threads (-j N). The mark reaches every descendant, and only those of this run.
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
    for moved in Path(scratch).parent.glob(f"{DIR_PREFIX}{mark}-*"):
        remove_tree(str(moved))


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
    """The PIDs of live processes whose environment holds CARDID_RUN=<mark> (or <mark>.*)."""
    try:
        names = [entry.name for entry in os.scandir("/proc") if entry.name.isdigit()]
    except OSError:  # no /proc (not Linux): the process group is all there is to end
        return
    yield from marked_processes_among([int(name) for name in names], mark, prefix=prefix)


def marked_processes_among(pids: Iterable[int], mark: str, *, prefix: bool) -> Iterator[int]:
    """Those of `pids` whose environment holds the mark."""
    wanted = f"{MARK}={mark}".encode()
    for pid in pids:
        try:
            with open(f"/proc/{pid}/environ", "rb") as handle:
                environ = handle.read()
        except OSError:
            continue
        for variable in environ.split(b"\0"):
            if variable == wanted or (prefix and variable.startswith(wanted + b".")):
                yield pid
                break


def kill_marked(mark: str, *, prefix: bool = False) -> None:
    """SIGKILL every process carrying the mark until two scans in a row find none, and wait
    (bounded, 2 s) until each one killed is gone or a zombie: when this returns, none runs any
    more."""
    killed: set[int] = set()
    deadline = time.monotonic() + 2.0
    quiet = 0  # scans in a row that found nothing
    while time.monotonic() < deadline:
        pids = [pid for pid in marked_processes(mark, prefix=prefix) if pid != os.getpid()]
        for pid in pids:
            _kill_if_marked(pid, mark, prefix=prefix)
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
        if pid in set(marked_processes_among([pid], mark, prefix=prefix)):
            with contextlib.suppress(OSError):
                signal.pidfd_send_signal(pidfd, signal.SIGKILL)
    finally:
        os.close(pidfd)


def _still_running(pid: int) -> bool:
    """Alive and not yet a zombie (a zombie runs nothing; its parent, or PID 1, reaps it)."""
    try:
        with open(f"/proc/{pid}/stat", "rb") as handle:
            stat = handle.read()
    except OSError:
        return False
    return stat.rsplit(b")", 1)[1].split()[0] not in (b"Z", b"X")


def remove_tree(path: str) -> None:
    """Remove a folder an implementation had as its own: whatever it did to it (a subfolder
    without permissions, itself replaced by a symbolic link, already gone)."""
    if os.path.islink(path):
        with contextlib.suppress(OSError):
            os.unlink(path)  # never follow it
        return

    def retry(function: Any, name: str, _: Any) -> None:
        with contextlib.suppress(OSError):
            os.chmod(os.path.dirname(name), 0o700)
            if not os.path.islink(name) and os.path.isdir(name):
                os.chmod(name, 0o700)
            function(name)

    with contextlib.suppress(OSError):
        shutil.rmtree(path, onerror=retry)
