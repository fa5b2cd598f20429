"""Talking to an implementation through the adapter contract: per-case and persistent modes."""

from __future__ import annotations

import itertools
import json
import threading
import time
from collections.abc import Sequence
from dataclasses import dataclass

from conformance import schemas
from conformance.answer import Answer, Answered, Crashed, Rejected, Unsupported
from runner.process import _CHUNK, MAX_OUTPUT, LineReader, Process

#: How long a process gets to end after `stop` or after closing its output.
_GRACE = 2.0


@dataclass(frozen=True, slots=True, kw_only=True)
class Hello:
    """The implementation's answer to the persistent-mode handshake."""

    name: str
    version: str
    roles: tuple[str, ...]


class _OutputReader:
    """Reads a whole stream up to MAX_OUTPUT bytes; past that it stops and raises `alarm`."""

    def __init__(self, stream: object, alarm: threading.Event) -> None:
        self.data = bytearray()
        self.overflow = False
        self._alarm = alarm
        self._thread = threading.Thread(target=self._read, args=(stream,), daemon=True)
        self._thread.start()

    def _read(self, stream: object) -> None:
        read = stream.read1 if hasattr(stream, "read1") else stream.read  # type: ignore[attr-defined]
        try:
            while chunk := read(_CHUNK):
                if len(self.data) + len(chunk) > MAX_OUTPUT:
                    self.overflow = True
                    self._alarm.set()
                    return
                self.data += chunk
        except (OSError, ValueError):
            return  # the stream was closed under us: the process was killed

    def join(self, timeout: float) -> None:
        self._thread.join(timeout)


def run_per_case(argv: Sequence[str], request: bytes, timeout: float) -> Answer:
    """Run one request in a fresh process (contract C-1, C-2)."""
    proc = Process(argv)
    assert proc.popen.stdout is not None
    settled = threading.Event()
    output = _OutputReader(proc.popen.stdout, settled)
    writer = threading.Thread(target=proc.send, args=(request,), kwargs={"close": True}, daemon=True)
    writer.start()
    waiter = threading.Thread(target=lambda: (proc.popen.wait(), settled.set()), daemon=True)
    waiter.start()
    try:
        finished = settled.wait(timeout)
    except BaseException:  # an interrupted run leaves no process behind
        proc.kill()
        raise
    if not finished or output.overflow:
        seconds = time.monotonic() - proc.started
        proc.kill()
        if output.overflow:
            reason = f"wrote more than {MAX_OUTPUT:,} bytes"
            return Crashed(reason=reason, stderr=proc.stderr.take(), seconds=seconds)
        return Crashed(
            reason=f"timed out after {timeout:g} s",
            stderr=proc.stderr.take(),
            seconds=seconds,
            timed_out=True,
        )
    code = proc.popen.wait()
    seconds = time.monotonic() - proc.started
    output.join(_GRACE)
    proc.stderr.join(_GRACE)
    proc.kill()  # ends any child the implementation left behind
    stderr = proc.stderr.take()
    if output.overflow:
        return Crashed(reason=f"wrote more than {MAX_OUTPUT:,} bytes", stderr=stderr, seconds=seconds)
    if code == 0:
        return Answered(output=bytes(output.data), stderr=stderr, seconds=seconds)
    if code == 1:
        return _rejection(bytes(output.data), stderr, seconds)
    reason = f"killed by signal {-code}" if code < 0 else f"exit status {code}"
    return Crashed(reason=reason, output=bytes(output.data[:2000]), stderr=stderr, seconds=seconds)


def _rejection(output: bytes, stderr: str, seconds: float) -> Rejected | Crashed:
    """Exit status 1: a rejection only with the rejection object on standard output (C-2).

    Exit status 1 is also what Python and Node.js give an uncaught exception, so the status alone
    would let a program that cannot even start pass every must-reject case.
    """
    try:
        message = json.loads(output.decode("utf-8"))
    except ValueError:  # UnicodeDecodeError is a ValueError
        message = None
    if (
        isinstance(message, dict)
        and set(message) == {"rejected"}
        and isinstance(message["rejected"], str)
    ):
        return Rejected(message=message["rejected"][:500], stderr=stderr, seconds=seconds)
    return Crashed(
        reason='exit status 1 without a rejection object on standard output: a rejection is '
        'exit status 1 and {"rejected": "reason"} on standard output (C-2); this looks like '
        "an uncaught error",
        output=output[:2000],
        stderr=stderr,
        seconds=seconds,
    )


class Persistent:
    """One long-lived implementation process speaking JSON lines; restarted after a crash."""

    def __init__(self, argv: Sequence[str], *, start_timeout: float) -> None:
        self._argv = list(argv)
        self._start_timeout = start_timeout
        self._proc: Process | None = None
        self._lines: LineReader | None = None
        self._seq = itertools.count(1)
        self.hello: Hello | None = None
        #: How many times the process was lost during a case (and so restarted for the next).
        self.restarts = 0
        #: seq -> what the implementation did wrong about that request after answering it.
        self.violations: dict[int, str] = {}
        self._answered: set[int] = set()
        #: The seq of the last request sent.
        self.last_seq = 0
        #: The thread inside `run`, if any; `close` from another thread only ends the process.
        self._running: int | None = None
        #: Ended from another thread: never started again.
        self._ended = False

    @property
    def pid(self) -> int | None:
        """The implementation process's ID while it runs (for diagnostics and measurements)."""
        return None if self._proc is None else self._proc.popen.pid

    def start(self) -> Hello | str:
        """Start the process and shake hands; return the Hello, or why persistent mode failed."""
        self.close()
        if self._ended:
            return "stopped: the run was interrupted"
        proc = Process(self._argv)
        assert proc.popen.stdout is not None
        self._proc, self._lines = proc, LineReader(proc.popen.stdout)
        if not proc.send(b'{"cmd":"start","protocol":1}\n'):
            self.close()
            return "closed its standard input at the handshake"
        line = self._next_line(time.monotonic() + self._start_timeout)
        if not isinstance(line, bytes):
            self.close()
            if line is None:
                return "exited at the handshake"
            if line is _TIMEOUT:
                return f"no handshake within {self._start_timeout:g} s"
            return "handshake line too long"
        try:
            message = json.loads(line)
        except ValueError:
            self.close()
            return f"wrote {line[:80]!r} where the handshake answer was due"
        problem = schemas.first_problem("protocol", message)
        if problem is not None or "roles" not in message:
            self.close()
            return f"answered the handshake with {line[:120]!r}"
        self.hello = Hello(
            name=message["implementation"]["name"],
            version=str(message["implementation"].get("version", "")),
            roles=tuple(message["roles"]),
        )
        return self.hello

    def run(self, request: bytes, role: str, timeout: float) -> Answer:
        """Send one request and wait for its answer; any breach of protocol is a crash."""
        self._running = threading.get_ident()
        try:
            return self._run(request, role, timeout)
        finally:
            self._running = None

    def _run(self, request: bytes, role: str, timeout: float) -> Answer:
        if self._proc is None or self._proc.popen.poll() is not None:
            started = self.start()
            if isinstance(started, str):
                return Crashed(reason=f"could not restart: {started}")
        assert self._proc is not None and self.hello is not None
        if role not in self.hello.roles:
            return Unsupported(role=role)
        seq = self.last_seq = next(self._seq)
        began = time.monotonic()
        line = (b'{"cmd":"run","seq":%d,"request":' % seq, request, b"}\n")
        if not self._proc.send(*line):
            # It went away between cases (closed its input, or exited): that is not this case's
            # fault, so start afresh once before blaming the case.
            self.close()
            started = self.start()
            if isinstance(started, str):
                return Crashed(reason=f"could not restart: {started}")
            assert self._proc is not None
            if not self._proc.send(*line):
                return self._crash("closed its standard input", began)
        raw = self._next_line(began + timeout)
        if raw is None:
            return self._crash(f"exited (status {self._proc.popen.wait()}) during the case", began)
        if raw is _TIMEOUT:
            return self._crash(f"timed out after {timeout:g} s", began, timed_out=True)
        if raw is LineReader.OVERFLOW:
            return self._crash(f"wrote a line over {MAX_OUTPUT:,} bytes", began)
        message = self._message(raw)
        while isinstance(message, dict) and message.get("seq") in self._answered:
            # A second answer to an earlier request: that request's case is marked, this one goes on.
            self.violations.setdefault(message["seq"], "answered the same request twice")
            raw = self._next_line(began + timeout)
            if not isinstance(raw, bytes):
                return self._crash("stopped answering after answering an earlier request twice", began)
            message = self._message(raw)
        if isinstance(message, str):
            return self._crash(message, began, output=raw)
        seconds = time.monotonic() - began
        if not isinstance(message, dict) or message.get("seq") != seq:
            got = message.get("seq") if isinstance(message, dict) else None
            return self._crash(f"answered seq {got!r}, expected {seq}", began, output=raw)
        self._answered.add(seq)
        if "result" in message:
            return Answered(
                decoded=message["result"], stderr=self._proc.stderr.take(), seconds=seconds
            )
        if "rejected" in message:
            return Rejected(message=str(message["rejected"]), stderr=self._proc.stderr.take(), seconds=seconds)
        if "error" in message:
            return Crashed(
                reason=f"reported an error: {str(message['error'])[:300]}",
                stderr=self._proc.stderr.take(),
                seconds=seconds,
            )
        return self._crash(f"answered without result, rejected or error: {raw[:120]!r}", began, output=raw)

    @staticmethod
    def _message(raw: bytes) -> object:
        """The decoded JSON line, or a string saying why it is not one."""
        try:
            return json.loads(raw.decode("utf-8"))
        except UnicodeDecodeError as exc:
            return f"wrote a line that is not UTF-8 (byte {exc.start})"
        except ValueError:
            return f"wrote a line that is not JSON: {raw[:120]!r}"

    def _crash(self, reason: str, began: float, *, timed_out: bool = False, output: bytes = b"") -> Crashed:
        stderr = self._proc.stderr.take() if self._proc else ""
        self.restarts += 1
        self.close()
        return Crashed(
            reason=reason, output=output[:2000], stderr=stderr,
            seconds=time.monotonic() - began, timed_out=timed_out,
        )

    def _next_line(self, deadline: float) -> bytes | object | None:
        assert self._lines is not None
        while True:
            line = self._lines.next_line(deadline)
            if line is LineReader.TIMEOUT:
                return _TIMEOUT
            if isinstance(line, bytes) and not line.strip():
                continue  # blank lines carry nothing
            return line

    def close(self) -> None:
        """Ask the process to stop, then end its group whatever it does."""
        proc = self._proc
        if proc is None:
            return
        if self._running not in (None, threading.get_ident()):
            # Another thread is waiting on this process (an interrupted parallel run): end it,
            # and that thread, seeing the end of its output, cleans up as after any crash.
            self._ended = True
            proc.end_group()
            return
        self._proc = None
        stopped = proc.popen.poll() is None and proc.send(b'{"cmd":"stop"}\n', close=True)
        self._drain_after_stop(proc, _GRACE if stopped else 0.0)
        proc.kill()

    def _drain_after_stop(self, proc: Process, grace: float) -> None:
        """Read what is left until the process is gone (within `grace`): answers still unread
        are second answers, so mark the requests they repeat."""
        if self._lines is None:
            return
        deadline = time.monotonic() + grace
        exited = False
        while True:
            if not exited and proc.popen.poll() is not None:
                # Gone: what it wrote is in the pipe, unless a child it left holds the pipe open.
                exited, deadline = True, min(deadline, time.monotonic() + 0.2)
            line = self._next_line(min(deadline, time.monotonic() + 0.05))
            if line is None:
                break
            if line is _TIMEOUT:
                if time.monotonic() >= deadline:
                    break
                continue
            if isinstance(line, bytes):
                message = self._message(line)
                if isinstance(message, dict) and message.get("seq") in self._answered:
                    self.violations.setdefault(message["seq"], "answered the same request twice")
        self._lines = None


_TIMEOUT = object()
