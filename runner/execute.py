"""Running a selection of cases against one implementation, serially or in parallel: the
scheduling of the cases, and the stop of a run whose first cases all fail alike at start-up.

The implementation's processes are runner/session.py's (`CaseRunners`: persistent mode probed
once, a case runner a thread, a crash retried in a fresh process, breaches seen late), over
`runner.adapter.Launcher` and `Adapter` only: the project's tests drive it with an in-memory
fake (tests/fakes/scripted.py).
"""

from __future__ import annotations

import sys
import threading
from collections.abc import Callable, Mapping, Sequence
from concurrent.futures import FIRST_EXCEPTION, ThreadPoolExecutor, wait
from dataclasses import dataclass

from cardid_conformance.answer import Answer, Crashed, CrashKind
from cardid_conformance.cases import Case
from cardid_conformance.errors import UsageError
from cardid_conformance.outcome import Errored, NotRun, Outcome
from cardid_conformance.report import Mode
from cardid_conformance.spec import Level, Spec
from cardid_runner.adapter import Exited, Hello, Launcher, ProcessLauncher
from cardid_runner.process.command import split_command
from cardid_runner.process.errors import NO_DESCRIPTOR, BadCommand
from cardid_runner.process.stop import STOP
from cardid_runner.process.timing import DEFAULT, Timing
from cardid_runner.process.transport import wait_for_an_end
from cardid_runner.session import CaseRunners
from cardid_runner.starting import LimitReached, usage_error

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
class Invocation:
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
    ) -> Invocation:
        """Invocation with both time limits scaled by one `--timeout-multiplier`, and the quiet
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
    mode: Mode
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


class _Startup:
    """Watches the first cases to finish (STARTUP_SAMPLE at most) for a start-up failure
    (`startup_failure`): once they are all in, judged once; then `failure` stops the run."""

    def __init__(self, sample: int, launcher: Launcher, timeout: float) -> None:
        self._sample = sample
        self._launcher = launcher
        self._timeout = timeout
        self._first: list[Answer] = []
        self.failure: StartupFailure | None = None

    def seen(self, answer: Answer) -> bool:
        """Count one finished case's answer (under the run's lock); True when the sample is
        complete with it, and is to be judged."""
        if len(self._first) >= self._sample:
            return False
        self._first.append(answer)
        return len(self._first) == self._sample

    def judge(self) -> None:
        """Judge the complete sample: once, outside the lock, for it may start the
        implementation once more."""
        self.failure = startup_failure(self._first, self._launcher, self._timeout)


def run_cases(
    cases: Sequence[Case],
    options: Invocation,
    spec: Spec,
    progress: Callable[[Outcome], None] | None = None,
    *,
    launcher: Launcher | None = None,
    on_start: Callable[[Hello | None, Mode], None] | None = None,
) -> Execution:
    """Run every case and return the outcomes in the order of `cases`.

    The implementation's processes are runner/session.py's `CaseRunners` (persistent mode probed
    once, a case runner a thread, crashes retried in a fresh process, breaches seen late); this
    schedules the cases over them. The run stops early when STOP (runner/process/stop.py) is
    set, by a signal handler or by Ctrl-C here: finished outcomes are kept, cases cut short are
    dropped. It also stops when the first cases to finish all err alike at start-up
    (`startup_failure`): every case not begun by then is NotRun. `on_start` is given the
    handshake (None in per-case mode) and the mode once they are known, before any case runs;
    `progress` each outcome as its case finishes.
    """
    launcher = launcher or options.launcher()
    runners = CaseRunners(options, spec, launcher)
    if on_start is not None:
        on_start(runners.mode.hello, runners.mode.name)
    run = _Cases(runners, _Startup(min(STARTUP_SAMPLE, len(cases)), launcher, options.timeout), progress,
                 options.timeout)
    late = _schedule(cases, run.one, options.jobs, runners)
    outcomes = [run.finished[case.id] for case in cases if case.id in run.finished]
    return Execution(
        outcomes=tuple(erring([o.case_id for o in outcomes], {o.case_id: o for o in outcomes}, late,
                              {case.id: case.level for case in cases})),
        answers=run.answers,
        hello=runners.mode.hello,
        mode=runners.mode.name,
        fallback_reason=runners.mode.fallback_reason,
        interrupted=STOP.is_set() and len(run.finished) < len(cases),
        startup_failure=run.startup.failure,
    )


class _Cases:
    """A run's cases as they finish: each run by its thread's case runner (`one`), its outcome
    and answer kept and given to `progress`, the start-up watch fed; once it sees a start-up
    failure, every case not begun is NotRun."""

    def __init__(
        self, runners: CaseRunners, startup: _Startup, progress: Callable[[Outcome], None] | None, timeout: float,
    ) -> None:
        self._runners = runners
        self._timeout = timeout
        self.startup = startup
        self._progress = progress
        self._lock = threading.Lock()
        self.answers: dict[str, Answer] = {}
        self.finished: dict[str, Outcome] = {}

    def one(self, case: Case) -> None:
        """Run one case (from any thread); _Interrupted when the run was stopped meanwhile."""
        if STOP.is_set():
            raise _Interrupted
        if self.startup.failure is not None:
            with self._lock:
                self._record(NotRun(case_id=case.id, reason=self.startup.failure.not_run_reason))
            return
        # A limit of the system's (no descriptor, no process) is not the implementation's
        # failure at start-up: the start-up watch does not count it.
        limited = False
        try:
            outcome, answer = self._run(case)
        except LimitReached as exc:
            # No descriptor or process for this case's process, however long the others took
            # to end: the case errs, saying which limit and the fix, and the run goes on.
            outcome, answer = _errs(case, f"the implementation could not be started for this case: "
                                          f"{exc.message}; {exc.hint}")
            limited = True
        except OSError as exc:
            if exc.errno not in NO_DESCRIPTOR:
                raise
            # The runner itself found no descriptor left (a module it loads when first needed, a
            # file it reads): this case errs, saying so, and the run goes on.
            outcome, answer = _errs(case, f"the runner found no file descriptor left while running this "
                                          f"case ({exc.strerror or exc}): raise the limit (`ulimit -n`) "
                                          "or run fewer cases at once (a smaller -j)")
            limited = True
        except UsageError as exc:
            with self._lock:
                if not self.finished:
                    raise  # the command was wrong from the start: a usage error, before any case
            # It started before: what changed since (its program removed, no descriptor left) is
            # this case's error, and the run goes on, its finished results kept.
            outcome, answer = _errs(case, f"the implementation could not be started for this case: "
                                          f"{exc.message}", CrashKind.NOT_STARTED)
        with self._lock:
            if STOP.is_set():
                raise _Interrupted  # the answer may be an artefact of the interruption
            self.answers[case.id] = answer
            self._record(outcome)
            complete = not limited and self.startup.seen(answer)
        if complete:
            self.startup.judge()

    def _run(self, case: Case) -> tuple[Outcome, Answer]:
        """Run the case in this thread's case runner; once more if the runner itself found no
        descriptor left, as soon as another process of the run has ended and given its back
        (within the case's time limit)."""
        try:
            return self._runners.mine().run(case)
        except OSError as exc:
            if exc.errno not in NO_DESCRIPTOR or not wait_for_an_end(self._timeout):
                raise
        return self._runners.mine().run(case)

    def _record(self, outcome: Outcome) -> None:
        self.finished[outcome.case_id] = outcome
        if self._progress is not None:
            self._progress(outcome)


def _errs(case: Case, reason: str, kind: CrashKind = CrashKind.OTHER) -> tuple[Outcome, Answer]:
    """A case that could not be run: errored for `reason`, and the crash standing for its answer."""
    return Errored(case_id=case.id, level=case.level, reason=reason), Crashed(reason=reason, kind=kind)


def _schedule(cases: Sequence[Case], one: Callable[[Case], None], jobs: int, runners: CaseRunners) -> dict[str, str]:
    """Call `one` on every case, in order or over `jobs` threads, until done or STOP; then end
    the case runners' processes: the breaches they saw late, by case ID."""
    pool = ThreadPoolExecutor(max_workers=jobs) if jobs > 1 else None
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
            runners.interrupt()
        if pool is not None:
            pool.shutdown(wait=True, cancel_futures=True)
        late = runners.close()
    return late


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
