"""Helpers for the tests that run real processes: the fake implementation, the cases the fault
tests run, whether a process still runs, and `cardid` in a thread that cannot hang the suite."""

from __future__ import annotations

import sys
import threading
from collections.abc import Sequence
from pathlib import Path

from cardid_runner.cli import main

#: The fake implementation (tests/fakes/fake_impl.py): `python FAKE BEHAVIOUR [ARG]`.
FAKE = Path(__file__).parent / "fakes" / "fake_impl.py"


def fake(behaviour: str, arg: str = "") -> str:
    """The --impl command for the fake implementation behaving as `behaviour`."""
    return f"{sys.executable} {FAKE} {behaviour} {arg}".strip()

#: The case the fake misbehaves on.
FAULT_TARGET = "reader-unknown-name"
#: The target last, after two cases answered by the same process.
FAULT_CASES = ("reader-empty-lines-and-crlf", "reader-quoted-owner", FAULT_TARGET)


def running(pid: int) -> bool:
    """Alive and not a zombie waiting for a reaper (PID 1 in a container may never reap)."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text(encoding="utf-8")
    except FileNotFoundError:
        return False
    return stat.rsplit(")", 1)[1].split()[0] != "Z"


def main_within(argv: Sequence[str], seconds: float = 30) -> int:
    """`main(argv)` in a daemon thread: a call that blocks (on a FIFO, say) fails the test
    instead of hanging the suite."""
    result: list[int] = []
    thread = threading.Thread(target=lambda: result.append(main(list(argv))), daemon=True)
    thread.start()
    thread.join(seconds)
    assert result, f"cardid {' '.join(argv)} did not return within {seconds} s"
    return result[0]
