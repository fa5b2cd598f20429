"""Running a selection of cases against one implementation, serially or in parallel.

The logic here sees implementations only through `runner.adapter.Launcher` and `Adapter`: the
project's tests drive it with an in-memory fake (tests/fakes/scripted.py).
"""

from __future__ import annotations

import sys
import threading
from collections.abc import Callable, Mapping, Sequence
from concurrent.futures import FIRST_EXCEPTION, ThreadPoolExecutor, wait
from dataclasses import dataclass

from cardid_conformance.answer import Answer, Crashed
from cardid_conformance.cases import Case
from cardid_conformance.errors import UsageError
from cardid_conformance.judge import judge
from cardid_conformance.outcome import Errored, NotRun, Outcome, Passed, status
from cardid_conformance.spec import Level, Spec
from cardid_runner.adapter import Adapter, Exited, Hello, Launcher, ProcessLauncher, Request, probe
from cardid_runner.process.command import split_command
from cardid_runner.process.errors import BadCommand
from cardid_runner.process.stop import STOP
from cardid_runner.process.timing import DEFAULT, Timing
from cardid_runner.starting import usage_error

#: The bundled reference, with -P: `-m` would otherwise look in the working folder first, where
#: an implementation (or a stray json.py) could put a module of the same name.
REFERENCE_ARGV = (sys.executable, "-P", "-m", "cardid_reference")


def implementation_argv(impl: str | None) -> tuple[str, ...]:
    """The argv of an --impl command; None (no --impl) is the bundled reference. UsageError
    for a command that does not split into words."""
    if impl is None:
        return REFERENCE_ARGV
    try:
        return tuple(split_command(impl))
    except BadCommand as exc:
        raise usage_error(exc) from None


#: Seconds one case may take, before the multiplier.
DEFAULT_TIMEOUT = 10.0
#: Seconds the persistent-mode handshake may take, before the multiplier.
START_TIMEOUT = 30.0
#: How many cases, the first to finish, must all err alike at start-up for a run to stop.
STARTUP_SAMPLE = 5


@dataclass(frozen=True, slots=True, kw_only=True)
class Options:
    """How to run: the command, the mode, time limits and parallelism."""

    argv: tuple[str, ...]
    isolate: bool = False
    timeout: float = DEFAULT_TIMEOUT
    start_timeout: float = START_TIMEOUT
    #: How long an implementation may wait for input after `start` before it is taken for a
    #: per-case adapter, and how long output is read after a process exits
    #: (runner/process/timing.py).
    timing: Timing = DEFAULT
    jobs: int = 1

    @classmethod
    def scaled(
        cls, argv: tuple[str, ...], *, multiplier: float, isolate: bool = False, jobs: int = 1,
        timing: Timing = DEFAULT,
    ) -> Options:
        """Options with both time limits scaled by one `--timeout-multiplier`, and the quiet
        time with them (up, never down)."""
        return cls(
            argv=argv,
            isolate=isolate,
            timeout=DEFAULT_TIMEOUT * multiplier,
            start_timeout=START_TIMEOUT * multiplier,
            timing=timing.scaled(multiplier),
            jobs=jobs,
        )

    def launcher(self) -> Launcher:
        """Adapters over real processes of this command."""
        return ProcessLauncher(self.argv, self.start_timeout, timing=self.timing)


@dataclass(frozen=True, slots=True, kw_only=True)
class Execution:
    """The outcomes in case order, and what the run learnt about the implementation."""

    outcomes: tuple[Outcome, ...]
    answers: Mapping[str, Answer]
    hello: Hello | None
    mode: str
    fallback_reason: str | None = None
    #: True when the run was stopped (a signal, Ctrl-C): `outcomes` holds the finished cases only.
    interrupted: bool = False
    #: The implementation fails at start-up: the cases after the first few were not run.
    startup_failure: StartupFailure | None = None


@dataclass(frozen=True, slots=True, kw_only=True)
class StartupFailure:
    """Why a run stopped early: its first cases all errored alike before any answer (the
    process exited or crashed, writing nothing), and the implementation, started once more with
    no input at all, exited by itself: it fails at start-up, whatever it is asked."""

    #: The errors' one reason, and how many of the first cases gave it.
    reason: str
    cases: int
    #: How the input-less start ended: its exit status (negative: a signal), its standard error.
    exited: Exited

    @property
    def not_run_reason(self) -> str:
        """What each case the run stopped before says (`NotRun.reason`)."""
        return (
            f"the run stopped after its first {self.cases} case(s) errored alike at start-up: "
            f"{self.reason[:200]}{'...' if len(self.reason) > 200 else ''}"
        )


class _Interrupted(Exception):
    """Raised in a case runner whose case was cut short by an interruption; its result is dropped."""


class CaseRunner:
    """Runs cases one at a time (one per thread of a parallel run): in its own persistent process, or a process per case."""

    def __init__(
        self,
        options: Options,
        spec: Spec,
        *,
        isolate: bool,
        session: Adapter | None = None,
        launcher: Launcher | None = None,
    ) -> None:
        self._options = options
        self._spec = spec
        self._isolate = isolate
        self._launcher = launcher or options.launcher()
        #: The persistent adapter; a started one may be handed over (the probe's, see run_cases).
        self._session: Adapter | None = session
        self._fresh: Adapter | None = None
        self._lock = threading.Lock()
        #: case ID -> a protocol breach about that case seen only later (a second answer).
        self.late_violations: dict[str, str] = {}

    @property
    def mode(self) -> str:
        """"per-case" or "persistent", as a report names it."""
        return "per-case" if self._isolate else "persistent"

    def outcome(self, case: Case) -> Outcome:
        """Run one case; a crash in persistent mode is retried once in a fresh process."""
        return self.run(case)[0]

    def _request(self, case: Case) -> Request:
        return Request(
            tag=case.id, role=case.role, payload=case.request_bytes(), timeout=self._options.timeout
        )

    def run(self, case: Case) -> tuple[Outcome, Answer]:
        """Run one case: its outcome, and the implementation's raw answer."""
        request = self._request(case)
        if self._isolate:
            first = self._per_case().run(request)
            return judge(case, first, self._spec), first
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
                outcome = _annotate(outcome, _retry_note(first, again, judge(case, again, self._spec)))
        return outcome, first

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


def start_session(options: Options, launcher: Launcher | None = None) -> tuple[Adapter, Hello] | str:
    """Start the implementation in persistent mode: the running session and its handshake, or
    why it failed."""
    return probe(launcher or options.launcher())


def run_cases(
    cases: Sequence[Case],
    options: Options,
    spec: Spec,
    progress: Callable[[Outcome], None] | None = None,
    *,
    launcher: Launcher | None = None,
    on_start: Callable[[Hello | None, str], None] | None = None,
) -> Execution:
    """Run every case and return the outcomes in the order of `cases`.

    The run stops early when STOP (runner/process/stop.py) is set, by a signal handler or by Ctrl-C
    here: finished outcomes are kept, cases cut short are dropped. It also stops when the
    first cases to finish all err alike at start-up (`startup_failure`): every case not begun
    by then is NotRun. `on_start` is given the handshake (None in per-case mode) and the mode
    once they are known, before any case runs; `progress` each outcome as its case finishes.
    """
    launcher = launcher or options.launcher()
    hello: Hello | None = None
    fallback: str | None = None
    isolate = options.isolate
    # The probe's process serves the first case runner: starting a second one cost as much as the
    # whole corpus takes to run in persistent mode.
    spare: list[Adapter] = []
    if not isolate and not STOP.is_set():
        started = probe(launcher)
        if isinstance(started, str):
            if not STOP.is_set():  # an interrupted handshake is no reason to change modes
                isolate, fallback = True, started
        else:
            spare.append(started[0])
            hello = started[1]
    if on_start is not None:
        on_start(hello, "per-case" if isolate else "persistent")
    local = threading.local()
    case_runners: list[CaseRunner] = []
    lock = threading.Lock()

    answers: dict[str, Answer] = {}
    finished: dict[str, Outcome] = {}
    first: list[Answer] = []  # the answers of the first cases to finish, STARTUP_SAMPLE at most
    sample = min(STARTUP_SAMPLE, len(cases))
    stopped: list[StartupFailure] = []  # one, once the run stops

    def one(case: Case) -> None:
        if STOP.is_set():
            raise _Interrupted
        if stopped:
            with lock:
                finished[case.id] = NotRun(case_id=case.id, reason=stopped[0].not_run_reason)
                if progress is not None:
                    progress(finished[case.id])
            return
        case_runner = getattr(local, "case_runner", None)
        if case_runner is None:
            with lock:
                session = spare.pop() if spare else None
                case_runner = local.case_runner = CaseRunner(
                    options, spec, isolate=isolate, session=session, launcher=launcher
                )
                case_runners.append(case_runner)
        try:
            outcome, answer = case_runner.run(case)
        except UsageError as exc:
            with lock:
                if not finished:
                    raise  # the command was wrong from the start: a usage error, before any case
            # It started before: what changed since (its program removed, no descriptor left) is
            # this case's error, and the run goes on, its finished results kept.
            reason = f"the implementation could not be started for this case: {exc.message}"
            outcome, answer = Errored(case_id=case.id, level=case.level, reason=reason), Crashed(reason=reason)
        with lock:
            if STOP.is_set():
                raise _Interrupted  # the answer may be an artefact of the interruption
            answers[case.id] = answer
            finished[case.id] = outcome
            if progress is not None:
                progress(outcome)
            if len(first) < sample:
                first.append(answer)
                judge_start = len(first) == sample
            else:
                judge_start = False
        if judge_start:  # once, outside the lock: it may start the implementation once more
            failure = startup_failure(first, launcher, options.timeout)
            if failure is not None:
                stopped.append(failure)

    pool = ThreadPoolExecutor(max_workers=options.jobs) if options.jobs > 1 else None
    try:
        if pool is None:
            for case in cases:
                one(case)
        else:
            pending = {pool.submit(one, case) for case in cases}
            while pending and not STOP.is_set():
                # Woken now and then to see STOP, which the case runners' own waits see at once.
                done, pending = wait(pending, timeout=0.05, return_when=FIRST_EXCEPTION)
                for future in done:
                    future.result()
    except KeyboardInterrupt:
        STOP.set()
    except _Interrupted:
        pass
    finally:
        if STOP.is_set():
            for case_runner in case_runners:
                case_runner.interrupt()
        if pool is not None:
            pool.shutdown(wait=True, cancel_futures=True)
        for session in spare:
            session.close()  # no case took it
        for case_runner in case_runners:
            case_runner.close()
    interrupted = STOP.is_set() and len(finished) < len(cases)
    outcomes = [finished[case.id] for case in cases if case.id in finished]
    late = {case_id: reason for case_runner in case_runners for case_id, reason in case_runner.late_violations.items()}
    outcomes = erring([o.case_id for o in outcomes], {o.case_id: o for o in outcomes}, late,
                      {case.id: case.level for case in cases})
    return Execution(
        outcomes=tuple(outcomes),
        answers=answers,
        hello=hello,
        mode="per-case" if isolate else "persistent",
        fallback_reason=fallback,
        interrupted=interrupted,
        startup_failure=stopped[0] if stopped else None,
    )


def before_answering(answer: Answer) -> bool:
    """Whether an answer is a process that exited or crashed before answering: not a timeout,
    not a protocol breach, nothing on standard output, and no interruption of the run."""
    return (
        isinstance(answer, Crashed)
        and not answer.timed_out
        and not answer.protocol_only
        and not answer.output.strip()
        and not STOP.is_set()
    )


def startup_failure(answers: Sequence[Answer], launcher: Launcher, timeout: float) -> StartupFailure | None:
    """The start-up failure the first cases' answers show, or None: every one of them exited or
    crashed before answering, for one same reason, and the implementation started with no input
    at all exits by itself too (within twice the time the slowest of them took, a second at
    least). An implementation that fails only some requests, or answers some (a role it does not
    support is `Unsupported`, or a rejection), or waits for its input (as a working per-case
    adapter does), is never taken for one."""
    crashes = [answer for answer in answers if isinstance(answer, Crashed) and before_answering(answer)]
    if not crashes or len(crashes) < len(answers) or len({crash.reason for crash in crashes}) != 1:
        return None
    within = min(timeout, max(1.0, 2 * max(crash.seconds for crash in crashes)))
    exited = launcher.without_input(within)
    if exited is None or STOP.is_set():
        return None
    if not exited.stderr.strip():
        exited = Exited(code=exited.code, stderr=crashes[0].stderr)
    return StartupFailure(reason=crashes[0].reason, cases=len(crashes), exited=exited)


def erring(
    order: Sequence[str], outcomes: Mapping[str, Outcome], reasons: Mapping[str, str], levels: Mapping[str, Level]
) -> list[Outcome]:
    """The cases in `order`, each with its outcome, or errored for its reason in `reasons`
    instead (a protocol breach seen only after the case finished, such as a second answer; a
    pytest-xdist worker that died running it). A case with neither is left out."""
    return [
        Errored(case_id=case_id, level=levels[case_id], reason=reasons[case_id])
        if case_id in reasons else outcomes[case_id]
        for case_id in order
        if case_id in reasons or case_id in outcomes
    ]


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
