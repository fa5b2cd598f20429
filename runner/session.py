"""An implementation's processes, for whoever asks it: persistent mode probed once (its
handshake, or why a process per case instead), each case run in a persistent process with a
crash retried in a fresh one, and the breaches seen only late. What asks is elsewhere: a run's
scheduling (runner/execute.py `run_cases`), the pytest plugin, `cardid shrink`, and, one
request at a time, `cardid new`, `shrink`'s reference (runner/draft.py) and `cardid fuzz`.

    probe_mode   the mode to run in (`Mode`), and the probe's running adapter
    CaseRunner   one case at a time: its outcome, a crash retried in a fresh process
    CaseRunners  a run's case runners, one a thread, the probe's process serving the first
    Session      one request at a time, outside a run
"""

from __future__ import annotations

import json
import threading
from collections.abc import Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from cardid_conformance import report, schemas
from cardid_conformance.answer import Answer, Crashed
from cardid_conformance.cases import Case, Role
from cardid_conformance.judge import judge
from cardid_conformance.outcome import Errored, Outcome, Passed, status
from cardid_conformance.spec import Spec
from cardid_runner.adapter import Adapter, Hello, Launcher, Request, probe
from cardid_runner.process.stop import STOP
from cardid_runner.starting import LimitReached

if TYPE_CHECKING:  # runner/execute.py imports this module
    from cardid_runner.execute import Invocation


@dataclass(frozen=True, slots=True, kw_only=True)
class Mode:
    """How the implementation is asked: in persistent mode (`hello`, its handshake), or a
    process per case (`isolate`), and why persistent mode was not used when it was tried."""

    isolate: bool
    hello: Hello | None = None
    fallback_reason: str | None = None

    @property
    def name(self) -> report.Mode:
        """Per-case or persistent (report.Mode, as a report names it)."""
        return report.Mode.PER_CASE if self.isolate else report.Mode.PERSISTENT


def probe_mode(launcher: Launcher, *, isolate: bool) -> tuple[Mode, Adapter | None]:
    """The mode to run in, and the probe's running adapter to serve the first cases (None in
    per-case mode, or when there was no probe). Unless `isolate`, persistent mode is probed once
    (runner/adapter.py `probe`); a failed handshake means a process per case, and why, unless
    the run was stopped meanwhile: an interrupted handshake is no reason to change modes."""
    if isolate or STOP.is_set():
        return Mode(isolate=isolate), None
    try:
        started: tuple[Adapter, Hello] | str = probe(launcher)
    except LimitReached as exc:  # each case then errs, saying so, and the reports are written
        started = exc.message
    if isinstance(started, str):
        if STOP.is_set():
            return Mode(isolate=False), None
        return Mode(isolate=True, fallback_reason=started), None
    adapter, hello = started
    return Mode(isolate=False, hello=hello), adapter


@dataclass(frozen=True, slots=True)
class Ran:
    """One case as a CaseRunner ran it: its outcome, the implementation's first answer, and
    whether a fresh process passed the case that crashed in persistent mode (a crash only after
    earlier requests, or only in persistent mode: the outcome's reason words it, `cardid shrink`
    goes by this)."""

    outcome: Outcome
    answer: Answer
    fresh_passed: bool = False


class CaseRunner:
    """Runs cases one at a time (one per thread of a parallel run): in its own persistent
    process, or a process per case, as `mode` says."""

    def __init__(
        self,
        options: Invocation,
        spec: Spec,
        *,
        mode: Mode,
        session: Adapter | None = None,
        launcher: Launcher | None = None,
    ) -> None:
        self._options = options
        self._spec = spec
        self.mode = mode
        self._launcher = launcher or options.launcher()
        #: The persistent adapter; a started one may be handed over (the probe's, see probe_mode).
        self._session: Adapter | None = session
        self._fresh: Adapter | None = None
        self._lock = threading.Lock()
        #: case ID -> a protocol breach about that case seen only later (a second answer).
        self.late_violations: dict[str, str] = {}

    @classmethod
    def started(cls, options: Invocation, spec: Spec, launcher: Launcher | None = None) -> CaseRunner:
        """A case runner whose mode is probed now: the probe's process serves its cases, rather
        than being stopped and started again (the pytest plugin, `shrink`)."""
        launcher = launcher or options.launcher()
        mode, adapter = probe_mode(launcher, isolate=options.isolate)
        return cls(options, spec, mode=mode, session=adapter, launcher=launcher)

    def outcome(self, case: Case) -> Outcome:
        """Run one case; a crash in persistent mode is retried once in a fresh process."""
        return self.run(case)[0]

    def _request(self, case: Case) -> Request:
        return Request(
            tag=case.id, role=case.role, payload=case.request_bytes(), timeout=self._options.timeout
        )

    def run(self, case: Case) -> tuple[Outcome, Answer]:
        """Run one case: its outcome, and the implementation's raw answer."""
        ran = self.ran(case)
        return ran.outcome, ran.answer

    def ran(self, case: Case) -> Ran:
        """Run one case: its outcome, the implementation's raw answer, and whether a fresh
        process passed it after a crash in persistent mode."""
        request = self._request(case)
        if self.mode.isolate:
            first = self._per_case().run(request)
            return Ran(judge(case, first, self._spec), first)
        with self._lock:
            if self._session is None:
                self._session = self._launcher.persistent()
            session = self._session
        first = session.run(request)
        outcome = judge(case, first, self._spec)
        if isinstance(first, Crashed) and not first.protocol_only and not STOP.is_set():
            # Tell a real crash from state left behind by the cases before it. Breaches only
            # persistent mode can show (a wrong seq) have nothing to retry.
            again = self._per_case().run(request)
            if not STOP.is_set():
                judged = judge(case, again, self._spec)
                outcome = _annotate(outcome, _retry_note(first, again, judged))
                return Ran(outcome, first, fresh_passed=isinstance(judged, Passed))
        return Ran(outcome, first)

    def _per_case(self) -> Adapter:
        with self._lock:
            if self._fresh is None:
                self._fresh = self._launcher.per_case()
            return self._fresh

    def interrupt(self) -> None:
        """From another thread: end this case runner's processes so that its waits return."""
        with self._lock:
            adapters = [a for a in (self._session, self._fresh) if a is not None]
        for adapter in adapters:
            adapter.interrupt()

    def close(self) -> None:
        """Stop the processes, if any, and collect breaches they revealed late."""
        with self._lock:
            adapters = [a for a in (self._session, self._fresh) if a is not None]
            self._session = self._fresh = None
        for adapter in adapters:
            for tag, reason in adapter.close().items():
                self.late_violations.setdefault(tag, reason)


def _retry_note(first: Crashed, again: Answer, judged: Outcome) -> str:
    """What the fresh-process retry of a persistent-mode crash showed."""
    if isinstance(again, Crashed):
        if again.timed_out:
            return "times out in a fresh process too"
        if first.timed_out:
            return f"crashes in a fresh process: {again.reason}"
        return f"crashes in a fresh process too: {again.reason}"
    if isinstance(judged, Passed):
        if first.earlier:
            return (
                f"only after earlier cases: a fresh process passed, this one had answered "
                f"{first.earlier} request(s) before"
            )
        return "only in persistent mode: a fresh process passed"
    return f"a fresh process did not crash, but the case {status(judged)} there"


def _annotate(outcome: Outcome, note: str) -> Outcome:
    if isinstance(outcome, Errored):
        return Errored(
            case_id=outcome.case_id,
            level=outcome.level,
            reason=f"{outcome.reason} ({note})",
            stderr=outcome.stderr,
            seconds=outcome.seconds,
        )
    return outcome


class CaseRunners:
    """A run's case runners: persistent mode probed once, before any case (`mode`); one case
    runner a thread, made when the thread runs its first case; the probe's process serves the
    first of them (starting a second one cost as much as the whole corpus takes to run in
    persistent mode); the breaches they saw late, gathered when they close."""

    def __init__(self, options: Invocation, spec: Spec, launcher: Launcher) -> None:
        self._options = options
        self._spec = spec
        self._launcher = launcher
        self.mode, spare = probe_mode(launcher, isolate=options.isolate)
        if self.mode.isolate or options.jobs > 1:
            schemas.prepare()  # before the cases' threads: see there
        self._spare = [spare] if spare is not None else []
        self._local = threading.local()
        self._made: list[CaseRunner] = []
        self._lock = threading.Lock()

    def mine(self) -> CaseRunner:
        """This thread's case runner."""
        case_runner: CaseRunner | None = getattr(self._local, "case_runner", None)
        if case_runner is None:
            with self._lock:
                session = self._spare.pop() if self._spare else None
                case_runner = self._local.case_runner = CaseRunner(
                    self._options, self._spec, mode=self.mode, session=session,
                    launcher=self._launcher,
                )
                self._made.append(case_runner)
        return case_runner

    def interrupt(self) -> None:
        """From another thread: end every case runner's processes, so that their waits return."""
        with self._lock:
            made = list(self._made)
        for case_runner in made:
            case_runner.interrupt()

    def close(self) -> dict[str, str]:
        """Stop every process (the probe's too, if no case took it); the protocol breaches seen
        only after their case finished, by case ID."""
        for session in self._spare:
            session.close()  # no case took it
        for case_runner in self._made:
            case_runner.close()
        return {
            case_id: reason
            for case_runner in self._made for case_id, reason in case_runner.late_violations.items()
        }


class Session:
    """Requests in, answers out, in the order asked: one persistent process for every request,
    one process per request when its handshake fails."""

    def __init__(
        self,
        options: Invocation,
        launcher: Launcher | None = None,
        *,
        unnamed: str = "the implementation",
    ) -> None:
        self._options = options
        self._launcher = launcher or self._options.launcher()
        self._adapter: Adapter | None = None
        self._unnamed = unnamed
        self.hello: Hello | None = None
        self._asked = 0

    def ask(self, request: Mapping[str, Any]) -> Answer:
        """The answer to one request (`role` in it says which)."""
        if self._adapter is None:
            mode, adapter = probe_mode(self._launcher, isolate=False)
            self._adapter, self.hello = adapter or self._launcher.per_case(), mode.hello
        self._asked += 1
        # ASCII with escapes: a lone surrogate in a saved request reaches the implementation,
        # which rejects it, instead of failing to encode here.
        payload = json.dumps(request, separators=(",", ":")).encode()
        return self._adapter.run(
            Request(tag=f"ask-{self._asked}", role=Role(request["role"]), payload=payload, timeout=self._options.timeout)
        )

    @property
    def name(self) -> str:
        """The implementation as its handshake names it."""
        return f"{self.hello.name} {self.hello.version}" if self.hello else self._unnamed

    def close(self) -> None:
        if self._adapter is not None:
            self._adapter.close()
            self._adapter = None
