"""A per-case adapter that leaves a process behind which keeps moving: `python escaping_forker.py
PERIOD`.

For each request it starts a walker and then answers rightly (the bundled reference's answer).
The walker leaves the process group (`setsid`), then forks and lets the parent exit, again and
again, every PERIOD seconds (0: as fast as it can): its PID keeps changing, and with it the
place a scan of /proc finds it, while it keeps the run's mark (CARDID_RUN) in its environment.
It writes that mark, one line, to the file FAKE_MARK_FILE names, so that a test can look for
anything still carrying it once the run is over, and each PID it moves to, after its session,
to the file FAKE_PID_FILE names, if any. The request is answered only once the walker
has left the group and forked once: ending the process group then never ends the walker too.
Run as a script, from any directory.
"""

from __future__ import annotations

import json
import os
import sys
import time


def walk(period: float, ready: int) -> None:
    """Never returns: leave the group, fork away, say so on `ready`, then fork away every
    `period` seconds."""
    os.setsid()
    with open(os.environ["FAKE_MARK_FILE"], "a", encoding="utf-8") as handle:
        handle.write(os.environ.get("CARDID_RUN", "") + "\n")
    if os.fork():
        os._exit(0)
    os.write(ready, b"!")
    os.close(ready)
    while True:
        _note_pid()
        if period:
            time.sleep(period)
        if os.fork():
            os._exit(0)


def _note_pid() -> None:
    """Where FAKE_PID_FILE names a file, add this walker's session and PID to it: a test can
    then look for exactly these among zombies, and end the walker's whole session (which a fork
    cannot leave) whatever the run did."""
    if path := os.environ.get("FAKE_PID_FILE"):
        with open(path, "a", encoding="utf-8") as handle:
            handle.write(f"{os.getsid(0)} {os.getpid()}\n")


def main() -> int:
    period = float(sys.argv[1]) if len(sys.argv) > 1 else 0.1
    ready, walking = os.pipe()
    if os.fork() == 0:
        try:
            os.close(ready)
            walk(period, walking)
        finally:
            os._exit(0)
    os.close(walking)
    os.read(ready, 1)  # the walker is out of the group and on its way
    from cardid_reference.adapter import answer  # after the fork: the walker stays small
    from cardid_reference.errors import RequestError

    request = json.loads(sys.stdin.read())
    try:
        result = answer(request)
    except RequestError as exc:
        print(json.dumps({"rejected": str(exc)}))
        return 1
    print(json.dumps(result))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
