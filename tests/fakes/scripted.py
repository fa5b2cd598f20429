"""In-memory implementations for the runner's own tests: no processes, no waiting.

`ScriptedProcess` stands in for runner.process.transport.Process behind the real adapters
(runner/adapter.py), so a test runs the whole path (execution, adapter, protocol, judging) in
milliseconds. A *script* says what the implementation does with each message (persistent mode)
or request (per-case mode): a list of events, each `after` seconds from the moment the message
was written. Time is virtual: an event later than the deadline of a read makes the read time
out at once, so no test sleeps, and none races a timeout.

`FakeLauncher` and `FakeAdapter` stand in for the adapters themselves (the `Launcher` and
`Adapter` protocols), for tests of the execution logic alone.
"""

from __future__ import annotations

import json
import time
from collections import deque
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from cardid_conformance.answer import Answer, Answered, Crashed, Rejected
from cardid_reference.adapter import answer as reference_answer
from cardid_reference.errors import RequestError
from cardid_runner.adapter import Exited, Hello, ProcessLauncher, Request
from cardid_runner.process.reads import (
    MAX_OUTPUT,
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

# Events.


@dataclass(frozen=True)
class Out:
    """Bytes written to standard output."""

    data: bytes
    after: float = 0.0


@dataclass(frozen=True)
class Err:
    """Bytes written to standard error."""

    data: bytes
    after: float = 0.0


@dataclass(frozen=True)
class Exit:
    """The process exits with this status (negative: killed by that signal)."""

    code: int
    after: float = 0.0


@dataclass(frozen=True)
class CloseOut:
    """Standard output closed; the process lives on."""

    after: float = 0.0


@dataclass(frozen=True)
class StopReading:
    """The process no longer reads its input: what is sent past the pipe's 64 KiB stays."""

    after: float = 0.0


@dataclass(frozen=True)
class Call:
    """Run `action` when the event comes due (e.g. set the stop flag, as a signal would)."""

    action: Callable[[], None]
    after: float = 0.0


Event = Out | Err | Exit | CloseOut | StopReading | Call
#: (decoded message or request, raw bytes) -> events. `message` is None if it is not JSON.
Script = Callable[[Any, bytes], Sequence[Event]]

PIPE = 65536


def right(request: Any) -> Any:
    """The reference's answer: ("result", value) or ("rejected", message)."""
    try:
        return "result", reference_answer(request)
    except RequestError as exc:
        return "rejected", str(exc)


def line(message: Any) -> bytes:
    return json.dumps(message, ensure_ascii=False).encode() + b"\n"


HELLO = {"protocol": 1, "implementation": {"name": "scripted", "version": "0"}, "roles": ["writer", "reader"]}


@dataclass
class Behaviour:
    """What one fake implementation does; every hook has a well-behaved default.

    `hello`: events answering `start` (None: it speaks per-case mode only and exits 1).
    `persistent(message, seq, served)`: events answering a `run` message (`served` counts the
    runs before it in this process); `per_case(request)`: events of a per-case process.
    `on_stop`: events after `stop`. `at_start`: events of every process from its start, before
    any input (an adapter that cannot start: its stderr, then its exit).
    """

    hello: Sequence[Event] | None = (Out(line(HELLO)),)
    persistent: Callable[[dict[str, Any], Any, int], Sequence[Event]] | None = None
    per_case: Callable[[Any], Sequence[Event]] | None = None
    on_stop: Sequence[Event] = (Exit(0),)
    at_start: Sequence[Event] = ()
    log: list[str] = field(default_factory=list)

    def answer_persistent(self, message: dict[str, Any], seq: Any, served: int) -> Sequence[Event]:
        if self.persistent is not None:
            return self.persistent(message, seq, served)
        return persistent_right(message, seq)

    def answer_per_case(self, request: Any) -> Sequence[Event]:
        if self.per_case is not None:
            return self.per_case(request)
        return per_case_right(request)


def persistent_right(message: dict[str, Any], seq: Any) -> list[Event]:
    kind, value = right(message["request"])
    return [Out(line({"seq": seq, kind: value}))]


def per_case_right(request: Any) -> list[Event]:
    kind, value = right(request)
    if kind == "rejected":
        return [Out(line({"rejected": value})), Exit(1)]
    return [Out(line(value)), Exit(0)]


class ScriptedProcess:
    """The interface of runner.process.transport.Process, played from a Behaviour."""

    _next_pid = 1_000_000

    def __init__(self, behaviour: Behaviour) -> None:
        self._behaviour = behaviour
        ScriptedProcess._next_pid += 1
        self.pid = ScriptedProcess._next_pid
        self.started = time.monotonic()
        self._events: deque[tuple[float, Event]] = deque()
        self._input = bytearray()
        self._unread = 0  # bytes written but not read, once it stopped reading
        self._reading = True
        self._mode: str | None = None
        self._served = 0
        self._out = bytearray()
        self._out_open = True
        self._stderr = bytearray()
        self.returncode: int | None = None
        self.input_closed = False
        self.killed = False
        behaviour.log.append("spawn")
        self._schedule(behaviour.at_start, self.started)

    # Input.

    def send(self, *chunks: bytes, close: bool = False) -> bool:
        if self.input_closed or self.returncode is not None:
            return False
        data = b"".join(chunks)
        now = time.monotonic()
        self._due(now)
        if not self._reading:
            self._unread += len(data)
            return True
        self._input += data
        if self._mode is None and (b"\n" in self._input or close):
            first = bytes(self._input).split(b"\n", 1)[0]
            opening = _decoded(first, None)
            start = isinstance(opening, dict) and opening.get("cmd") == "start"
            self._mode = "persistent" if start else "per-case"
        if self._mode == "persistent":
            while b"\n" in self._input:
                raw, _, rest = bytes(self._input).partition(b"\n")
                self._input = bytearray(rest)
                self._message(raw, now)
        if close and self._mode == "per-case":
            raw = bytes(self._input)
            try:
                request = json.loads(raw)
            except ValueError:
                request = None
            self._schedule(self._behaviour.answer_per_case(request), now)
        return True

    def _message(self, raw: bytes, now: float) -> None:
        message = _decoded(raw, None)
        behaviour = self._behaviour
        if not isinstance(message, dict):
            return
        if message.get("cmd") == "start":
            behaviour.log.append("start")
            if behaviour.hello is None:
                self._schedule([Err(b"persistent mode not supported\n"), Exit(1)], now)
            else:
                self._schedule(behaviour.hello, now)
        elif message.get("cmd") == "stop":
            behaviour.log.append("stop")
            self._schedule(behaviour.on_stop, now)
        elif message.get("cmd") == "run":
            behaviour.log.append(f"run {message.get('seq')}")
            self._schedule(behaviour.answer_persistent(message, message.get("seq"), self._served), now)
            self._served += 1

    def _schedule(self, events: Sequence[Event], now: float) -> None:
        for event in events:
            self._events.append((now + event.after, event))

    @property
    def writing(self) -> bool:
        return self._unread > PIPE

    # Time.

    def _due(self, until: float) -> tuple[float, Event] | None:
        """Apply every event due by `until`; return the first one later than that, if any."""
        while self._events:
            due, event = self._events[0]
            if due > until:
                return due, event
            self._events.popleft()
            self._apply(event)
        return None

    def _apply(self, event: Event) -> None:
        match event:
            case Out(data=data):
                if self._out_open:
                    self._out += data
            case Err(data=data):
                self._stderr += data
            case Exit(code=code):
                self.returncode = code
                self._out_open = False
                self._events.clear()
            case CloseOut():
                self._out_open = False
            case StopReading():
                self._reading = False
            case Call(action=action):
                action()

    def _advance(self, deadline: float) -> Read | None:
        """Let the next event happen, if it comes before the deadline."""
        if STOP.is_set():
            return Stopped()
        if not self._events:
            return TimedOut(writing=self.writing)  # nothing will ever come: a hang
        due, event = self._events[0]
        if due > deadline:
            return TimedOut(writing=self.writing)
        self._events.popleft()
        self._apply(event)
        return None

    # Output.

    def read_line(self, deadline: float) -> Read:
        while True:
            newline = self._out.find(b"\n")
            if newline > MAX_OUTPUT:
                del self._out[: newline + 1]
                return TooLong()
            if newline != -1:
                data = bytes(self._out[:newline])
                del self._out[: newline + 1]
                return Line(data)
            if len(self._out) > MAX_OUTPUT:
                self._out.clear()
                return TooLong()
            if not self._out_open:
                rest, self._out = bytes(self._out), bytearray()
                return Ended(rest)
            if self.writing and self._reading is False and not self._events:
                return TimedOut(writing=True)
            waited = self._advance(deadline)
            if waited is not None:
                return waited

    def read_all(self, deadline: float) -> Read:
        while self._out_open:
            if over_limit(self._out):
                return TooLong()
            waited = self._advance(deadline)
            if waited is not None:
                if isinstance(waited, TimedOut):
                    return TimedOut(writing=waited.writing, data=bytes(self._out))
                return waited
        if over_limit(self._out):
            return TooLong()
        return Output(bytes(self._out))

    def wait_exit(self, deadline: float) -> int | None:
        while self.returncode is None:
            if self._advance(deadline) is not None:
                return None
        return self.returncode

    def exited(self) -> bool:
        self._due(time.monotonic())
        return self.returncode is not None

    #: What runner/process/idle.py looks at: unknown here, so the handshake allowance is waited out.
    output_read = 0

    def unread_input(self) -> int | None:
        return None

    def cpu_usage(self) -> tuple[frozenset[int], int] | None:
        return None

    def stderr_tail(self) -> str:
        data, self._stderr = bytes(self._stderr[-8192:]), bytearray()
        return store_bytes(data)

    def interrupt(self) -> None:
        self.returncode = -9 if self.returncode is None else self.returncode
        self._out_open = False

    def kill(self) -> None:
        if not self.killed:
            self.killed = True
            self._behaviour.log.append("kill")
        if self.returncode is None:
            self.returncode = -9
        self._out_open = False
        self._events.clear()


def _decoded(raw: bytes, default: Any) -> Any:
    try:
        return json.loads(raw)
    except ValueError:
        return default


def launcher(behaviour: Behaviour, start_timeout: float = 3.0) -> ProcessLauncher:
    """The real adapters, over scripted processes of `behaviour`."""
    return ProcessLauncher(("scripted",), start_timeout, spawn=lambda argv: ScriptedProcess(behaviour))  # type: ignore[arg-type, return-value]


# Adapters themselves, faked.


@dataclass
class FakeAdapter:
    """An Adapter whose `run` is a function of the request: for the execution logic alone."""

    answer: Callable[[Request], Answer]
    hello: Hello | str | None = None
    late: dict[str, str] = field(default_factory=dict)
    log: list[str] = field(default_factory=list)

    def start(self) -> Hello | str | None:
        self.log.append("start")
        return self.hello

    def run(self, request: Request) -> Answer:
        self.log.append(f"run {request.tag}")
        return self.answer(request)

    def close(self) -> dict[str, str]:
        self.log.append("close")
        return dict(self.late)

    def interrupt(self) -> None:
        self.log.append("interrupt")


def right_answer(request: Request) -> Answer:
    """The reference's answer to a request, as an adapter would give it."""
    kind, value = right(json.loads(request.payload))
    return Answered(result=value) if kind == "result" else Rejected(message=value)


@dataclass
class FakeLauncher:
    """Makes FakeAdapters: `persistent` and `per_case` answer functions, and the handshake."""

    persistent_answer: Callable[[Request], Answer] = right_answer
    per_case_answer: Callable[[Request], Answer] = right_answer
    hello: Hello | str = field(default_factory=lambda: Hello(name="fake", version="0", roles=("writer", "reader")))
    late: dict[str, str] = field(default_factory=dict)
    made: list[FakeAdapter] = field(default_factory=list)
    #: What starting it with no input shows: None, it waits for its input (as adapters do).
    exits_without_input: Exited | None = None
    started_without_input: int = 0

    def persistent(self) -> FakeAdapter:
        adapter = FakeAdapter(self.persistent_answer, hello=self.hello, late=self.late)
        self.made.append(adapter)
        return adapter

    def per_case(self) -> FakeAdapter:
        adapter = FakeAdapter(self.per_case_answer)
        self.made.append(adapter)
        return adapter

    def without_input(self, within: float) -> Exited | None:
        self.started_without_input += 1
        return self.exits_without_input


def crashed(reason: str, **kwargs: Any) -> Callable[[Request], Answer]:
    return lambda request: Crashed(reason=reason, **kwargs)
