"""Talking to an implementation through the adapter contract: per-case and persistent modes.

Both modes are an `Adapter` (start, run one request, close) over the same transport
(runner/process/transport.py); the handshake is read and judged in one place
(runner/handshake.py), as are each answer and the end of a persistent process
(runner/exchange.py), and what an implementation writes is decoded and checked in one place
(conformance/protocol.py). A command that cannot start is a usage error here (in the words of
runner/starting.py), as every command reports it. The execution logic (runner/execute.py,
runner/session.py) sees only the `Launcher` and `Adapter` protocols, so that tests drive it
with an in-memory fake.
"""

from __future__ import annotations

import itertools
import threading
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Protocol

from cardid_conformance import escape, protocol
from cardid_conformance.answer import Answer, Crashed, CrashKind, Unsupported
from cardid_conformance.cases import Role
from cardid_conformance.protocol import Hello
from cardid_runner import exchange
from cardid_runner.exchange import (
    Closed,
    Malformed,
    Repeated,
    Replied,
    WrongSeq,
    read_reply,
    run_line,
)
from cardid_runner.handshake import Handshake, why_not
from cardid_runner.process.errors import NoResources, ProcessError
from cardid_runner.process.reads import (
    MAX_OUTPUT,
    Output,
    TimedOut,
    TooLong,
)
from cardid_runner.process.stop import STOP
from cardid_runner.process.timing import DEFAULT, Timing
from cardid_runner.process.transport import Process, wait_for_an_end
from cardid_runner.starting import usage_error

#: How long a process gets to end after `stop`.
STOP_GRACE = 2.0
__all__ = ["Adapter", "Exited", "Hello", "Launcher", "PerCase", "Persistent", "ProcessLauncher", "Request"]


@dataclass(frozen=True, slots=True, kw_only=True)
class Request:
    """One request: its tag (the case ID, to name it in late findings), role, JSON bytes, limit."""

    tag: str
    role: Role
    payload: bytes
    timeout: float


class Adapter(Protocol):
    """One way of running an implementation."""

    def start(self) -> Hello | str | None:
        """Get ready: the handshake's Hello, why persistent mode is not available, or None when
        there is nothing to shake hands about (per-case mode)."""

    def run(self, request: Request) -> Answer:
        """Run one request; never raises for anything the implementation does."""

    def close(self) -> dict[str, str]:
        """Stop and end every process; return breaches seen late, by request tag (a second
        answer to a request already answered)."""

    def interrupt(self) -> None:
        """From another thread: end the processes now, so that a waiting `run` returns."""


@dataclass(frozen=True, slots=True, kw_only=True)
class Exited:
    """How an implementation started with no input at all ended by itself: its exit status
    (negative: killed by that signal) and the tail of its standard error."""

    code: int
    stderr: str


class Launcher(Protocol):
    """Makes the adapters of one run."""

    def persistent(self) -> Adapter:
        """An adapter speaking persistent mode (not started yet)."""

    def per_case(self) -> Adapter:
        """An adapter running one fresh process per request."""

    def without_input(self, within: float) -> Exited | None:
        """Start the implementation, write it nothing, and wait up to `within` seconds: how it
        ended, if it exited by itself having written nothing on standard output (it fails at
        start-up, whatever it is asked); None if it was still running (waiting for its input,
        as any adapter does), wrote something, or could not be started."""


def probe(launcher: Launcher) -> tuple[Adapter, Hello] | str:
    """Start the implementation in persistent mode: the running adapter and its handshake, or
    why there is none (the caller then runs a process per case, and says why). The one place the
    suite probes, through runner/session.py's `probe_mode`: a run, the pytest plugin, `shrink`,
    and a Session (`new`, `fuzz`)."""
    adapter = launcher.persistent()
    try:
        started = adapter.start()
    except BaseException:
        adapter.close()
        raise
    if isinstance(started, Hello):
        return adapter, started
    adapter.close()
    return started or "no handshake"


#: What starts a process: runner.process.transport.Process, or an in-memory stand-in in tests.
Spawn = Callable[[Sequence[str]], Process]


def real_processes(timing: Timing = DEFAULT) -> Spawn:
    """Spawn real processes, which read on for `timing.after_exit` after they exit."""
    return lambda argv: Process(argv, timing=timing)


def start_process(spawn: Spawn, argv: Sequence[str], *, wait: float = 0.0) -> Process:
    """The started process; a command that cannot start is a UsageError (exit status 2). A start
    the system lacks a descriptor, a process or memory for is tried again each time another
    process of the run ends, for `wait` seconds at most; then it is a LimitReached (a
    UsageError: during a run, the case errs and the run goes on)."""
    until = time.monotonic() + wait
    while True:
        try:
            return spawn(argv)
        except NoResources as exc:
            if not wait_for_an_end(until - time.monotonic()):
                raise usage_error(exc) from None
        except ProcessError as exc:
            raise usage_error(exc) from None


class Pin:
    """The first handshake of a run: every later one (a restart, another worker's process)
    must be the same, or an implementation could drop a role after a quiet restart and have
    the cases of that role skipped."""

    def __init__(self) -> None:
        self.hello: Hello | None = None
        self._lock = threading.Lock()

    def check(self, hello: Hello) -> str | None:
        """None if `hello` is the run's handshake (the first one sets it), else why not."""
        with self._lock:
            if self.hello is None:
                self.hello = hello
            if hello == self.hello:
                return None
            return (
                f"the handshake changed within the run: {_describe(hello)} after "
                f"{_describe(self.hello)}"
            )


def _describe(hello: Hello) -> str:
    return f"{escape.store(hello.name)[:60]} {escape.store(hello.version)[:30]} roles {','.join(hello.roles)}"


@dataclass(frozen=True, slots=True)
class ProcessLauncher:
    """Adapters over processes of `argv` (real ones unless `spawn` says otherwise)."""

    argv: tuple[str, ...]
    start_timeout: float
    #: None: real processes (runner/process/transport.py), with `timing`.
    spawn: Spawn | None = None
    pin: Pin = field(default_factory=Pin)
    #: The quiet time that ends the handshake of an implementation waiting for input
    #: (runner/process/idle.py), and the read after a process's exit.
    timing: Timing = DEFAULT

    def persistent(self) -> Persistent:
        return Persistent(
            self.argv, start_timeout=self.start_timeout, spawn=self.spawn, pin=self.pin,
            timing=self.timing,
        )

    def per_case(self) -> PerCase:
        return PerCase(self.argv, spawn=self.spawn, timing=self.timing)

    def without_input(self, within: float) -> Exited | None:
        try:
            proc = (self.spawn or real_processes(self.timing))(self.argv)
        except ProcessError:
            return None
        try:
            deadline = proc.started + within
            output = proc.read_all(deadline)  # its input stays open, and empty
            if not isinstance(output, Output) or output.data.strip():
                return None
            code = proc.wait_exit(deadline)
            return None if code is None else Exited(code=code, stderr=proc.stderr_tail())
        finally:
            proc.kill()


class PerCase:
    """One process per request (contract C-1, C-2)."""

    def __init__(
        self, argv: Sequence[str], *, spawn: Spawn | None = None, timing: Timing = DEFAULT
    ) -> None:
        self._argv = list(argv)
        self._spawn = spawn or real_processes(timing)
        self._live: set[Process] = set()
        self._lock = threading.Lock()

    def start(self) -> None:
        return None

    def run(self, request: Request) -> Answer:
        # Other cases' processes free descriptors as they end: within this case's time.
        proc = start_process(self._spawn, self._argv, wait=request.timeout)
        with self._lock:
            self._live.add(proc)
        try:
            return self._run(proc, request)
        finally:
            proc.kill()  # ends any child the implementation left behind
            with self._lock:
                self._live.discard(proc)

    def _run(self, proc: Process, request: Request) -> Answer:
        deadline = proc.started + request.timeout
        proc.send(request.payload, close=True)
        output = proc.read_all(deadline)
        seconds = time.monotonic() - proc.started
        match output:
            case Output(data=data):
                code = proc.wait_exit(deadline)
                if code is None:
                    if STOP.is_set():
                        return _stopped(proc, seconds)
                    return Crashed(
                        reason=f"timed out after {request.timeout:g} s (closed its standard "
                        "output without exiting)", kind=CrashKind.TIMED_OUT,
                        output=data[:2000], stderr=proc.stderr_tail(),
                        seconds=time.monotonic() - proc.started, timed_out=True,
                    )
                seconds = time.monotonic() - proc.started
                return protocol.per_case_answer(code, data, proc.stderr_tail(), seconds, request.role)
            case TooLong():
                return Crashed(
                    reason=f"wrote more than {MAX_OUTPUT:,} bytes", kind=CrashKind.TOO_LONG,
                    stderr=proc.stderr_tail(), seconds=seconds,
                )
            case TimedOut(writing=writing, data=data):
                how = " (it had not read the whole request)" if writing else ""
                return Crashed(
                    reason=f"timed out after {request.timeout:g} s{how}", kind=CrashKind.TIMED_OUT,
                    output=data[:2000], stderr=proc.stderr_tail(), seconds=seconds, timed_out=True,
                )
            case _:
                return _stopped(proc, seconds)

    def close(self) -> dict[str, str]:
        self.interrupt()
        return {}

    def interrupt(self) -> None:
        with self._lock:
            live = list(self._live)
        for proc in live:
            proc.interrupt()


def _stopped(proc: Process, seconds: float) -> Crashed:
    return Crashed(reason="stopped: the run was interrupted", kind=CrashKind.STOPPED,
                   stderr=proc.stderr_tail(), seconds=seconds)


class Persistent:
    """One long-lived implementation process speaking JSON lines; restarted after a crash."""

    def __init__(
        self, argv: Sequence[str], *, start_timeout: float, spawn: Spawn | None = None,
        pin: Pin | None = None, stop_grace: float = STOP_GRACE, timing: Timing = DEFAULT,
    ) -> None:
        self._argv = list(argv)
        self._spawn = spawn or real_processes(timing)
        self._pin = pin or Pin()
        self._stop_grace = stop_grace
        self._start_timeout = start_timeout
        self._quiet = timing.quiet
        self._proc: Process | None = None
        self._seq = itertools.count(1)
        self.hello: Hello | None = None
        #: tag -> what the implementation did wrong about that request after answering it.
        self.violations: dict[str, str] = {}
        #: seq -> tag of every request answered by the current process.
        self._answered: dict[int, str] = {}
        self._lock = threading.Lock()

    @property
    def pid(self) -> int | None:
        """The implementation process's ID while it runs (for diagnostics and measurements)."""
        return None if self._proc is None else self._proc.pid

    def start(self) -> Hello | str:
        """Start the process and shake hands; return the Hello, or why persistent mode failed."""
        self._end()
        proc = start_process(self._spawn, self._argv)
        with self._lock:
            self._proc = proc
        self._answered = {}
        shaken = Handshake(proc, timeout=self._start_timeout, quiet=self._quiet, grace=STOP_GRACE).read()
        if not isinstance(shaken, Hello):
            self._end()
            return why_not(shaken, self._start_timeout)
        changed = self._pin.check(shaken)
        if changed is not None:
            self._end()
            return changed
        self.hello = shaken
        return shaken

    def run(self, request: Request) -> Answer:
        """Send one request and wait for its answer; any breach of protocol is a crash."""
        if self._proc is None or self._proc.exited():
            started = self.start()
            if isinstance(started, str):
                return Crashed(reason=f"could not restart: {started}", kind=CrashKind.NO_RESTART)
        assert self._proc is not None and self.hello is not None
        if request.role not in self.hello.roles:
            return Unsupported(role=request.role)
        seq = next(self._seq)
        began = time.monotonic()
        line = run_line(seq, request.payload)
        if not self._proc.send(*line):
            # It went away between cases (closed its input, or exited): that is not this case's
            # fault, so start afresh once before blaming the case.
            started = self.start()
            if isinstance(started, str):
                return Crashed(reason=f"could not restart: {started}", kind=CrashKind.NO_RESTART)
            assert self._proc is not None
            if not self._proc.send(*line):
                return self._crash("closed its standard input", began, kind=CrashKind.GONE)
        return self._await(seq, request, began)

    def _await(self, seq: int, request: Request, began: float) -> Answer:
        proc = self._proc
        assert proc is not None
        deadline = began + request.timeout
        earlier = len(self._answered)
        while True:
            match read_reply(proc, seq, deadline, answered=self._answered.keys()):
                case Replied(reply=reply):
                    self._answered[seq] = request.tag
                    return protocol.reply_answer(reply, proc.stderr_tail(), time.monotonic() - began)
                case Repeated(seq=repeated):
                    # A second answer to an earlier request: that request's case is marked,
                    # this one goes on.
                    self.violations.setdefault(self._answered[repeated], "answered the same request twice")
                case Malformed(breach=breach, data=data):
                    return self._crash(breach.reason, began, kind=breach.kind, output=data,
                                       protocol_only=True, earlier=earlier)
                case WrongSeq(seq=wrong, data=data):
                    return self._crash(f"answered seq {wrong}, expected {seq}", began,
                                       kind=CrashKind.SEQ, output=data, protocol_only=True, earlier=earlier)
                case Closed(rest=rest, code=code):
                    unended = (
                        f", after {len(rest):,} bytes without a newline (a line ends with \\n, C-5)"
                        if rest.strip() else ""
                    )
                    if code is None:
                        if STOP.is_set():
                            return self._crash("stopped: the run was interrupted", began,
                                               kind=CrashKind.STOPPED)
                        return self._crash(
                            f"closed its standard output without exiting; timed out after "
                            f"{request.timeout:g} s{unended}", began, kind=CrashKind.TIMED_OUT,
                            timed_out=True, earlier=earlier, output=rest,
                        )
                    how = f"killed by signal {-code}" if code < 0 else f"status {code}"
                    return self._crash(f"exited ({how}) during the case{unended}", began,
                                       kind=CrashKind.SIGNAL if code < 0 else CrashKind.EXIT_STATUS,
                                       exit_status=code, earlier=earlier, output=rest)
                case TimedOut(writing=writing):
                    how = " (it had not read the whole request)" if writing else ""
                    return self._crash(f"timed out after {request.timeout:g} s{how}", began,
                                       kind=CrashKind.TIMED_OUT, timed_out=True, earlier=earlier)
                case TooLong():
                    return self._crash(f"wrote more than {MAX_OUTPUT:,} bytes on one line", began,
                                       kind=CrashKind.TOO_LONG, earlier=earlier)
                case _:
                    return self._crash("stopped: the run was interrupted", began, kind=CrashKind.STOPPED)

    def _crash(
        self, reason: str, began: float, *, kind: CrashKind, exit_status: int | None = None,
        timed_out: bool = False, output: bytes = b"", protocol_only: bool = False, earlier: int = 0,
    ) -> Crashed:
        stderr = self._proc.stderr_tail() if self._proc else ""
        self._end()
        return Crashed(
            reason=reason, kind=kind, exit_status=exit_status, output=output[:2000], stderr=stderr,
            seconds=time.monotonic() - began, timed_out=timed_out,
            protocol_only=protocol_only, earlier=earlier,
        )

    def close(self) -> dict[str, str]:
        """Ask the process to stop, then end its group whatever it does."""
        self._end(stop=True)
        return dict(self.violations)

    def interrupt(self) -> None:
        with self._lock:
            proc = self._proc
        if proc is not None:
            proc.interrupt()

    def _end(self, *, stop: bool = False) -> None:
        with self._lock:
            proc, self._proc = self._proc, None
        if proc is None:
            return
        try:
            if stop and not proc.exited():
                # Answers still unread are second answers: mark the requests they repeat.
                after = exchange.stop(proc, time.monotonic() + self._stop_grace)
                for seq in after.repeated(self._answered.keys()):
                    self.violations.setdefault(self._answered[seq], "answered the same request twice")
        finally:
            proc.kill()
