"""One implementation process: started in its own group and directory, read with bounded memory."""

from __future__ import annotations

import os
import queue
import shlex
import signal
import subprocess
import tempfile
import threading
import time
from collections import deque
from collections.abc import Mapping, Sequence
from pathlib import Path

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
    """Reads standard output as lines on a thread; a line over the cap is cut and flagged."""

    OVERFLOW = object()

    def __init__(self, stream: object, cap: int = MAX_OUTPUT) -> None:
        self.lines: queue.Queue[bytes | object | None] = queue.Queue()
        self._cap = cap
        self._thread = threading.Thread(target=self._read, args=(stream,), daemon=True)
        self._thread.start()

    def _read(self, stream: object) -> None:
        read = stream.read1 if hasattr(stream, "read1") else stream.read  # type: ignore[attr-defined]
        pending = bytearray()
        overflowing = False
        while chunk := read(_CHUNK):
            start = 0
            while (newline := chunk.find(b"\n", start)) != -1:
                if not overflowing:
                    pending += chunk[start:newline]
                    self.lines.put(bytes(pending))
                overflowing = False
                pending.clear()
                start = newline + 1
            if not overflowing:
                pending += chunk[start:]
                if len(pending) > self._cap:
                    self.lines.put(self.OVERFLOW)
                    pending.clear()
                    overflowing = True
        if pending and not overflowing:
            self.lines.put(bytes(pending))
        self.lines.put(None)


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

    @property
    def workdir(self) -> Path:
        """The implementation's working directory."""
        return Path(self._workdir.name)

    def send(self, data: bytes, *, close: bool = False) -> bool:
        """Write to standard input; False if the implementation closed it."""
        stdin = self.popen.stdin
        assert stdin is not None
        try:
            stdin.write(data)
            stdin.flush()
            if close:
                stdin.close()
        except (BrokenPipeError, ValueError, OSError):
            return False
        return True

    def kill(self) -> None:
        """End the whole process group (children included) and clean up the directory."""
        try:
            os.killpg(self.popen.pid, signal.SIGKILL)
        except (ProcessLookupError, PermissionError):
            pass
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
