"""One implementation process: started in its own group and directory, read with bounded memory."""

from __future__ import annotations

import math
import os
import select
import shlex
import signal
import subprocess
import tempfile
import threading
import time
from collections import deque
from collections.abc import Mapping, Sequence

from conformance.errors import UsageError

#: What the runner keeps of one answer on standard output; more is a crash, not an answer.
MAX_OUTPUT = 16 * 1024 * 1024
#: What the runner keeps of standard error: the tail, for the report.
STDERR_TAIL = 8 * 1024
_CHUNK = 65536


def split_command(command: str) -> list[str]:
    """Split an implementation command like a POSIX shell would, without ever running a shell."""
    try:
        argv = shlex.split(command)
    except ValueError as exc:
        raise UsageError(f"cannot split implementation command {command!r}: {exc}") from None
    if not argv:
        raise UsageError("the implementation command is empty")
    return argv


def child_environment(base: Mapping[str, str] | None = None) -> dict[str, str]:
    """The environment an implementation gets: the runner's own, plus CARDID_PROTOCOL=1."""
    env = dict(os.environ if base is None else base)
    env["CARDID_PROTOCOL"] = "1"
    return env


class StderrTail:
    """Drains a stream forever, keeping only its last STDERR_TAIL bytes."""

    def __init__(self, stream: object) -> None:
        self._chunks: deque[bytes] = deque()
        self._size = 0
        self._lock = threading.Lock()
        self._thread = threading.Thread(target=self._drain, args=(stream,), daemon=True)
        self._thread.start()

    def _drain(self, stream: object) -> None:
        read = stream.read1 if hasattr(stream, "read1") else stream.read  # type: ignore[attr-defined]
        while chunk := read(_CHUNK):
            with self._lock:
                self._chunks.append(chunk)
                self._size += len(chunk)
                while self._size - len(self._chunks[0]) >= STDERR_TAIL:
                    self._size -= len(self._chunks.popleft())

    def take(self) -> str:
        """Return what was kept since the last call, and forget it."""
        with self._lock:
            data = b"".join(self._chunks)[-STDERR_TAIL:]
            self._chunks.clear()
            self._size = 0
        return data.decode("utf-8", errors="replace")

    def join(self, timeout: float) -> None:
        """Wait for the stream to close."""
        self._thread.join(timeout)


class LineReader:
    """Reads standard output as lines in the calling thread, up to a deadline; a line over the
    cap is cut and flagged.

    No reader thread: handing each line from one thread to another cost more than the pipe's
    own round trip (two extra wake-ups per case). Whoever waits for an answer reads it.
    """

    OVERFLOW = object()
    TIMEOUT = object()

    def __init__(self, stream: object, cap: int = MAX_OUTPUT) -> None:
        self._fd = stream.fileno()  # type: ignore[attr-defined]
        os.set_blocking(self._fd, False)
        self._poll = select.poll()
        self._poll.register(self._fd, select.POLLIN)
        self._cap = cap
        self._buffer = bytearray()
        self._searched = 0  # the buffer's bytes already searched for a newline
        self._overflowing = False  # dropping the rest of a line already flagged
        self._ended = False

    def next_line(self, deadline: float) -> bytes | object | None:
        """The next line (without its newline), OVERFLOW, TIMEOUT, or None at end of output."""
        while True:
            newline = self._buffer.find(b"\n", self._searched)
            if newline != -1:
                with memoryview(self._buffer) as view:  # one copy of a long line, not two
                    line = view[:newline].tobytes()
                del self._buffer[: newline + 1]
                self._searched = 0
                if self._overflowing:  # the tail of a cut line
                    self._overflowing = False
                    continue
                return line
            self._searched = len(self._buffer)
            if self._overflowing:
                self._buffer.clear()
                self._searched = 0
            elif len(self._buffer) > self._cap:
                self._buffer.clear()
                self._searched = 0
                self._overflowing = True
                return self.OVERFLOW
            if self._ended:
                if self._buffer and not self._overflowing:
                    line = bytes(self._buffer)
                    self._buffer.clear()
                    return line
                return None
            if not self._fill(deadline):
                return self.TIMEOUT

    def _fill(self, deadline: float) -> bool:
        """Read what has come, waiting for it until the deadline; False if nothing came in time."""
        while True:
            try:
                chunk = os.read(self._fd, _CHUNK)
            except BlockingIOError:
                remaining = deadline - time.monotonic()
                if remaining <= 0:
                    return False
                self._poll.poll(max(1, math.ceil(remaining * 1000)))
                continue
            except OSError:  # closed under us: the process was ended
                chunk = b""
            if chunk:
                self._buffer += chunk
            else:
                self._ended = True
            return True


class Process:
    """A started implementation process in its own session, with its own temporary directory."""

    def __init__(self, argv: Sequence[str], env: Mapping[str, str] | None = None) -> None:
        self._workdir = tempfile.TemporaryDirectory(prefix="cardid-impl-")
        try:
            self.popen = subprocess.Popen(  # an argv list: never through a shell
                list(argv),
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                stderr=subprocess.PIPE,
                cwd=self._workdir.name,
                env=child_environment(env),
                start_new_session=True,
            )
        except OSError as exc:
            self._workdir.cleanup()
            raise UsageError(
                f"cannot start implementation {argv[0]!r}: {exc.strerror or exc}",
                hint="check the --impl command; it is run directly, not through a shell",
            ) from None
        self.started = time.monotonic()
        self.stderr = StderrTail(self.popen.stderr)

    def send(self, *chunks: bytes, close: bool = False) -> bool:
        """Write the chunks to standard input, one flush; False if the implementation closed it."""
        stdin = self.popen.stdin
        assert stdin is not None
        try:
            for chunk in chunks:  # in pieces: joining them would copy a long request once more
                stdin.write(chunk)
            stdin.flush()
            if close:
                stdin.close()
        except (BrokenPipeError, ValueError, OSError):
            return False
        return True

    def end_group(self) -> None:
        """Kill the whole process group (children included) now; `kill` still cleans up."""
        try:
            os.killpg(self.popen.pid, signal.SIGKILL)
        except (ProcessLookupError, PermissionError):
            pass

    def kill(self) -> None:
        """End the whole process group (children included) and clean up the directory."""
        self.end_group()
        try:
            self.popen.wait(timeout=5)
        except subprocess.TimeoutExpired:  # pragma: no cover - SIGKILL does not fail this way
            pass
        for stream in (self.popen.stdin, self.popen.stdout, self.popen.stderr):
            try:
                if stream is not None:
                    stream.close()
            except OSError:
                pass
        self._workdir.cleanup()
