"""The run's watchdog: `python -I -S watchdog.py TOKEN TMPDIR`, started by the runner (marks.py
beside this file) with a pipe on standard input that only the runner holds.

It waits for the end of that pipe, which comes when the runner exits for any reason, SIGKILL
included. Then it kills every process still carrying `CARDID_RUN=TOKEN.*` in its environment (an
implementation, its children, grandchildren that left the process group with `setsid`) and
removes the temporary folders `cardid-impl-TOKEN.*` left in TMPDIR. After a clean run there is
nothing left to do. It ignores SIGINT and SIGHUP, and runs in its own session, so that a
Ctrl-C or a closed terminal that ends the runner does not end it too. Standard library only.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import signal
import sys
import time


def _marked(wanted: bytes) -> list[int]:
    found: list[int] = []
    try:
        names = os.listdir("/proc")
    except OSError:
        return found
    for name in names:
        if not name.isdigit() or int(name) == os.getpid():
            continue
        try:
            with open(f"/proc/{name}/environ", "rb") as handle:
                environ = handle.read()
        except OSError:
            continue
        if any(v.startswith(wanted) for v in environ.split(b"\0")):
            found.append(int(name))
    return found


def main(token: str, tmpdir: str) -> int:
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    signal.signal(signal.SIGHUP, signal.SIG_IGN)
    try:
        while os.read(0, 4096):
            pass
    except OSError:
        pass
    wanted = f"CARDID_RUN={token}.".encode()
    quiet = 0
    for _ in range(200):
        pids = _marked(wanted)
        for pid in pids:
            with contextlib.suppress(OSError):
                os.kill(pid, signal.SIGKILL)
        quiet = quiet + 1 if not pids else 0
        if quiet >= 2:
            break
        time.sleep(0.01)
    prefix = f"cardid-impl-{token}."
    try:
        names = os.listdir(tmpdir)
    except OSError:
        names = []
    for name in names:
        if name.startswith(prefix):
            _remove(os.path.join(tmpdir, name))
    return 0


def _remove(path: str) -> None:
    """As marks.remove_tree: never follow a link, get past removed permissions."""
    if os.path.islink(path):
        with contextlib.suppress(OSError):
            os.unlink(path)
        return

    def retry(function, name, _):  # type: ignore[no-untyped-def]
        try:
            os.chmod(os.path.dirname(name), 0o700)
            if not os.path.islink(name) and os.path.isdir(name):
                os.chmod(name, 0o700)
            if function in (os.rmdir, os.unlink, os.remove):
                function(name)
            elif not os.path.islink(name) and os.path.isdir(name):  # it could not be opened
                shutil.rmtree(name, ignore_errors=True)
        except OSError:
            pass

    with contextlib.suppress(OSError):
        shutil.rmtree(path, onerror=retry)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1], sys.argv[2]))
