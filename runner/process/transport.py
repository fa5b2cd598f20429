"""One implementation process, and the one transport both modes use to talk to it.

Everything happens in the calling thread, in one `poll` loop over the process's standard input,
output and error, a pidfd that becomes readable when the process exits, and the run's stop pipe
(runner/process/stop.py): no reader threads, and no write, read or wait for exit without a
deadline. Reads are typed (runner/process/reads.py). The process carries the run's mark and has
a temporary folder of its own (runner/process/marks.py); ending it ends every process carrying
that mark and removes the folder.
"""

from __future__ import annotations

import contextlib
import errno
import fcntl
import os
import select
import signal
import struct
import subprocess
import termios
import threading
import time
from collections import deque
from collections.abc import Mapping, Sequence

from cardid_runner.process import marks
from cardid_runner.process.command import check_interpreter_line, child_environment
from cardid_runner.process.errors import SCARCE, CannotStart, NoResources, NoScratchFolder
from cardid_runner.process.reads import (
    MAX_OUTPUT,
    STDERR_TAIL,
    Ended,
    Line,
    Output,
    Read,
    Stopped,
    TimedOut,
    TooLong,
    over_limit,
    store_bytes,
)
from cardid_runner.process.stop import STOP
from cardid_runner.process.timing import DEFAULT, Timing

_CHUNK = 65536


class _Census:
    """How many Processes of this runner are running or being started, and a wait for the
    next one to end (or to fail to start, giving back what it had taken)."""

    def __init__(self) -> None:
        self._changed = threading.Condition()
        self._live = 0
        self._ended = 0

    def started(self) -> None:
        with self._changed:
            self._live += 1

    def ended(self) -> None:
        with self._changed:
            self._live -= 1
            self._ended += 1
            self._changed.notify_all()

    def wait_for_an_end(self, timeout: float) -> bool:
        deadline = time.monotonic() + timeout
        with self._changed:
            seen = self._ended
            while self._ended == seen:
                remaining = deadline - time.monotonic()
                if self._live == 0 or remaining <= 0 or STOP.is_set():
                    return False
                self._changed.wait(min(remaining, 0.05))
            return True


_CENSUS = _Census()


def wait_for_an_end(timeout: float) -> bool:
    """Wait (at most `timeout` seconds) until another Process of this runner has ended and
    given back its descriptors and its process: whether one did. False at once when none runs
    (nothing would free anything), or when the run is stopped."""
    return _CENSUS.wait_for_an_end(timeout)


class Process:
    """A started implementation process in its own session. It runs in the runner's working
    directory, as the user's shell would run it, and has its own temporary folder (TMPDIR),
    removed with it."""

    def __init__(
        self, argv: Sequence[str], env: Mapping[str, str] | None = None, *, timing: Timing = DEFAULT
    ) -> None:
        """Start `argv` (CannotStart, or a subclass, if it cannot be started). `timing` says
        how long output is read after the process exited (`after_exit`)."""
        self.mark = marks.new_mark()
        self._after_exit = timing.after_exit
        try:
            self._scratch = marks.make_scratch(self.mark)
        except OSError as exc:
            raise NoScratchFolder(argv, exc) from None
        try:
            check_interpreter_line(argv)
        except CannotStart:
            marks.remove_tree(self._scratch)
            raise
        _CENSUS.started()  # counted from now: a start under way holds descriptors too
        try:
            self.popen = subprocess.Popen(  # an argv list: never through a shell
                list(argv),
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                stderr=subprocess.PIPE,
                env=child_environment(env, self.mark, self._scratch),
                start_new_session=True,
                bufsize=0,
            )
        except (OSError, ValueError) as exc:  # ValueError: a NUL byte in the command
            _CENSUS.ended()
            marks.remove_tree(self._scratch)
            if isinstance(exc, OSError) and exc.errno in SCARCE:
                raise NoResources(argv, exc) from None  # EMFILE: `ulimit -n`; EAGAIN: `ulimit -u`
            raise CannotStart(argv, exc) from None
        self.started = time.monotonic()
        self.pid = self.popen.pid
        assert self.popen.stdin and self.popen.stdout and self.popen.stderr
        self._in: int | None = self.popen.stdin.fileno()
        self._out: int | None = self.popen.stdout.fileno()
        self._err: int | None = self.popen.stderr.fileno()
        for fd in (self._in, self._out, self._err):
            os.set_blocking(fd, False)
        try:
            self._pidfd: int | None = os.pidfd_open(self.pid)
        except (OSError, AttributeError):  # pragma: no cover - not Linux 5.3+: exits are polled
            self._pidfd = None
        self.returncode: int | None = None
        self._exited_at: float | None = None
        self._pending: deque[memoryview] = deque()
        self._close_after_write = False
        self.input_closed = False  # the implementation closed its end (EPIPE)
        self._buffer = bytearray()
        self._searched = 0
        self.output_read = 0  # bytes read from standard output so far
        self._stderr: deque[bytes] = deque()
        self._stderr_size = 0
        self._poll = select.poll()
        self._registered: dict[int, int] = {}
        self._lock = threading.Lock()
        self._ended = False

    # Writing.

    def send(self, *chunks: bytes, close: bool = False) -> bool:
        """Queue the chunks for standard input and write what the pipe takes now; False if the
        implementation has closed its standard input. The rest is written while waiting."""
        if self.input_closed or self._in is None:
            return False
        self._pending.extend(memoryview(chunk) for chunk in chunks if chunk)
        self._close_after_write = self._close_after_write or close
        self._write()
        return not self.input_closed

    def _write(self) -> None:
        while self._pending and self._in is not None:
            try:
                written = os.writev(self._in, list(self._pending)[:64])
            except BlockingIOError:
                return
            except OSError as exc:  # EPIPE: it closed its standard input
                if exc.errno not in (errno.EPIPE, errno.EBADF, errno.ECONNRESET):
                    raise
                self._pending.clear()
                self.input_closed = True
                self._close_input()
                return
            while written and self._pending:
                head = self._pending[0]
                if written >= len(head):
                    written -= len(head)
                    self._pending.popleft()
                else:
                    self._pending[0] = head[written:]
                    written = 0
        if not self._pending and self._close_after_write:
            self._close_input()

    def _close_input(self) -> None:
        if self._in is not None:
            self._unregister(self._in)
            assert self.popen.stdin is not None
            with contextlib.suppress(OSError):
                self.popen.stdin.close()
            self._in = None

    @property
    def writing(self) -> bool:
        """Whether input is still waiting to be written."""
        return bool(self._pending)

    # Reading.

    def read_line(self, deadline: float) -> Read:
        """The next line of standard output (blank ones included), written input permitting."""
        while True:
            newline = self._buffer.find(b"\n", self._searched)
            if newline != -1:
                if newline > MAX_OUTPUT:  # the same limit as a per-case answer's
                    del self._buffer[: newline + 1]
                    self._searched = 0
                    return TooLong()
                with memoryview(self._buffer) as view:  # one copy of a long line, not two
                    line = view[:newline].tobytes()
                del self._buffer[: newline + 1]
                self._searched = 0
                return Line(line)
            self._searched = len(self._buffer)
            if len(self._buffer) > MAX_OUTPUT:
                self._buffer.clear()
                self._searched = 0
                return TooLong()
            if self._out is None or self._left_open():
                rest, self._buffer = bytes(self._buffer), bytearray()
                self._searched = 0
                return Ended(rest)
            until = deadline
            if self._exited_at is not None:
                until = min(deadline, self._exited_at + self._after_exit)
            waited = self._pump(until)
            if waited is not None and not (isinstance(waited, TimedOut) and until < deadline):
                return waited

    def _left_open(self) -> bool:
        """Exited a moment ago with its output still open: a child it left holds the pipe, and
        the output is over as far as this process goes."""
        return self._exited_at is not None and time.monotonic() >= self._exited_at + self._after_exit

    def read_all(self, deadline: float) -> Output | Read:
        """All of standard output until it closes (per-case mode). The limit is that of one
        line in persistent mode: MAX_OUTPUT bytes, not counting a final newline."""
        while self._out is not None:
            if over_limit(self._buffer):
                return TooLong()
            waited = self._pump(deadline)
            if waited is not None:
                if isinstance(waited, TimedOut):
                    return TimedOut(writing=waited.writing, data=bytes(self._buffer))
                return waited
            if self.returncode is not None and self._out is not None:
                # Exited with its output still open: a child it left holds the pipe. What came
                # within a moment is the answer; the child is ended with the group.
                self._drain_until(min(deadline, time.monotonic() + self._after_exit))
                break
        if over_limit(self._buffer):
            return TooLong()
        return Output(bytes(self._buffer))

    def _drain_until(self, deadline: float) -> None:
        while self._out is not None and not over_limit(self._buffer):
            if self._pump(deadline) is not None:
                return

    def wait_exit(self, deadline: float) -> int | None:
        """The exit status (negative: killed by that signal), or None if still running at the
        deadline. Output is read meanwhile, so a process writing more is not blocked."""
        while self.returncode is None:
            self._reap()
            if self.returncode is not None:
                break
            waited = self._pump(deadline)
            if waited is not None and self.returncode is None:
                return None
            if len(self._buffer) > MAX_OUTPUT:  # read on, but keep nothing more
                self._buffer.clear()
        return self.returncode

    def exited(self) -> bool:
        """Whether the process has exited (without waiting)."""
        self._reap()
        return self.returncode is not None

    def _reap(self) -> None:
        if self.returncode is None:
            code = self.popen.poll()
            if code is not None:
                self.returncode = code
                self._exited_at = time.monotonic()
                if self._pidfd is not None:
                    self._unregister(self._pidfd)

    def _pump(self, deadline: float) -> Read | None:
        """Wait once for anything to happen, and handle it: None, or why waiting ended."""
        if STOP.is_set():
            return Stopped()
        self._register(STOP.fileno(), select.POLLIN)
        if self._out is not None:
            self._register(self._out, select.POLLIN)
        if self._err is not None:
            self._register(self._err, select.POLLIN)
        if self._in is not None:
            if self._pending:
                self._register(self._in, select.POLLOUT)
            else:
                self._unregister(self._in)
        if self._pidfd is not None and self.returncode is None:
            self._register(self._pidfd, select.POLLIN)
        remaining = deadline - time.monotonic()
        if remaining <= 0:
            return TimedOut(writing=bool(self._pending))
        timeout = max(1, int(remaining * 1000) + 1)
        if self._pidfd is None and self.returncode is None:
            timeout = min(timeout, 20)  # no pidfd: look at the process now and then
        try:
            events = self._poll.poll(timeout)
        except InterruptedError:  # pragma: no cover - PEP 475 retries poll
            return None
        for fd, _event in events:
            if fd == STOP.fileno():
                return Stopped()
            if fd == self._out:
                self._read_out()
            elif fd == self._err:
                self._read_err()
            elif fd == self._in:
                self._write()
            elif fd == self._pidfd:
                self._reap()
        if self._pidfd is None:
            self._reap()
        return None

    def _register(self, fd: int, mask: int) -> None:
        if self._registered.get(fd) != mask:
            self._poll.register(fd, mask)
            self._registered[fd] = mask

    def _unregister(self, fd: int) -> None:
        if self._registered.pop(fd, None) is not None:
            self._poll.unregister(fd)

    def _read_out(self) -> None:
        assert self._out is not None
        try:
            chunk = os.read(self._out, _CHUNK)
        except BlockingIOError:
            return
        except OSError:
            chunk = b""
        if chunk:
            self._buffer += chunk
            self.output_read += len(chunk)
        else:
            self._unregister(self._out)
            self._out = None

    def _read_err(self) -> None:
        assert self._err is not None
        try:
            chunk = os.read(self._err, _CHUNK)
        except BlockingIOError:
            return
        except OSError:
            chunk = b""
        if not chunk:
            self._unregister(self._err)
            self._err = None
            return
        self._stderr.append(chunk)
        self._stderr_size += len(chunk)
        while self._stderr_size - len(self._stderr[0]) >= STDERR_TAIL:
            self._stderr_size -= len(self._stderr.popleft())

    def stderr_tail(self) -> str:
        """What was kept of standard error since the last call (read now too), and forget it."""
        if self._err is not None:
            for _ in range(16):  # what is in the pipe already, without waiting
                before = self._stderr_size
                self._read_err()
                if self._err is None or self._stderr_size == before:
                    break
        data = b"".join(self._stderr)[-STDERR_TAIL:]
        self._stderr.clear()
        self._stderr_size = 0
        return store_bytes(data)

    # Looking at it from outside (runner/process/idle.py).

    def unread_input(self) -> int | None:
        """Bytes written for standard input that the implementation has not read yet (the pipe's
        content, FIONREAD, and what still waits to be written); None where that cannot be known
        (no FIONREAD on pipes, or the input is closed)."""
        if self._in is None:
            return None
        try:
            raw = fcntl.ioctl(self._in, termios.FIONREAD, b"\0\0\0\0")
        except OSError:
            return None
        return int(struct.unpack("i", raw)[0]) + sum(len(chunk) for chunk in self._pending)

    def cpu_usage(self) -> tuple[frozenset[int], int] | None:
        """The processes of this implementation still there (those carrying its mark) and the
        CPU time they have used, in clock ticks (utime, stime, cutime and cstime of
        /proc/PID/stat); None without /proc."""
        try:
            pids = {self.pid, *marks.marked_processes(self.mark)}
        except OSError:  # no descriptor left to look with: nothing to judge by
            return None
        ticks = 0
        found: set[int] = set()
        for pid in pids:
            try:
                with open(f"/proc/{pid}/stat", "rb") as handle:
                    fields = handle.read().rsplit(b")", 1)[1].split()
            except (OSError, IndexError):
                continue
            try:
                ticks += sum(int(field) for field in fields[11:15])
            except ValueError:
                return None
            found.add(pid)
        if self.pid not in found:
            return None  # no /proc (or the process is gone): nothing to judge by
        return frozenset(found), ticks

    # Ending.

    def interrupt(self) -> None:
        """From another thread: kill the process group now (the owner still calls `kill`)."""
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(self.pid, signal.SIGKILL)

    def kill(self) -> None:
        """End the process, its group and every process carrying its mark; clean up."""
        with self._lock:
            if self._ended:
                return
            self._ended = True
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(self.pid, signal.SIGKILL)
        marks.kill_marked(self.mark, spare=self.pid)  # its Popen waits for it
        with contextlib.suppress(subprocess.TimeoutExpired):  # SIGKILL does not fail this way
            self.popen.wait(timeout=5)
        self.returncode = self.popen.returncode
        for stream in (self.popen.stdin, self.popen.stdout, self.popen.stderr):
            with contextlib.suppress(OSError):
                if stream is not None:
                    stream.close()
        self._in = self._out = self._err = None
        if self._pidfd is not None:
            with contextlib.suppress(OSError):
                os.close(self._pidfd)
            self._pidfd = None
        marks.remove_scratch(self._scratch, self.mark)
        _CENSUS.ended()  # its descriptors and its process are free again

