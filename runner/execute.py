"""Running a selection of cases against one implementation, serially or in parallel."""

from __future__ import annotations

import sys
import threading
from collections.abc import Callable, Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass

from conformance.answer import Answer, Crashed
from conformance.cases import Case
from conformance.judge import judge
from conformance.outcome import Errored, Outcome
from conformance.spec import Spec
from runner.adapter import Hello, Persistent, run_per_case

#: How the bundled reference implementation is started when no command is given.
REFERENCE_ARGV = (sys.executable, "-m", "reference")
#: Seconds one case may take, before the multiplier.
DEFAULT_TIMEOUT = 10.0
#: Seconds the persistent-mode handshake may take, before the multiplier.
START_TIMEOUT = 30.0


@dataclass(frozen=True, slots=True, kw_only=True)
class Options:
    """How to run: the command, the mode, time limits and parallelism."""

    argv: tuple[str, ...]
    isolate: bool = False
    timeout: float = DEFAULT_TIMEOUT
    start_timeout: float = START_TIMEOUT
    jobs: int = 1

    @classmethod
    def scaled(
        cls, argv: tuple[str, ...], *, multiplier: float, isolate: bool = False, jobs: int = 1
    ) -> Options:
        """Options with both time limits scaled by one `--timeout-multiplier`."""
        return cls(
            argv=argv,
            isolate=isolate,
            timeout=DEFAULT_TIMEOUT * multiplier,
            start_timeout=START_TIMEOUT * multiplier,
            jobs=jobs,
        )


@dataclass(frozen=True, slots=True, kw_only=True)
class Execution:
    """The outcomes in case order, and what the run learnt about the implementation."""

    outcomes: tuple[Outcome, ...]
    answers: Mapping[str, Answer]
    hello: Hello | None
    mode: str
    fallback_reason: str | None = None
    #: True when SIGINT or SIGTERM stopped the run: `outcomes` holds the finished cases only.
    interrupted: bool = False


class _Interrupted(Exception):
    """Raised in a worker whose case was cut short by an interruption; its result is dropped."""


class Worker:
    """Runs cases one at a time: in its own persistent process, or a process per case."""

    def __init__(
        self, options: Options, spec: Spec, *, isolate: bool, session: Persistent | None = None
    ) -> None:
        self._options = options
        self._spec = spec
        self._isolate = isolate
        #: The persistent process; a started one may be handed over (the probe's, see run_cases).
        self._session: Persistent | None = session
        self._case_of_seq: dict[int, str] = {}
        #: case ID -> a protocol breach about that case seen only later (a second answer).
        self.late_violations: dict[str, str] = {}

    def outcome(self, case: Case) -> Outcome:
        """Run one case; a crash in persistent mode is retried once in a fresh process."""
        return self.run(case)[0]

    def run(self, case: Case) -> tuple[Outcome, Answer]:
        """Run one case: its outcome, and the implementation's raw answer."""
        first = self._answer(case)
        outcome = judge(case, first, self._spec)
        if isinstance(first, Crashed) and not self._isolate:
            # Tell a real crash from state left behind by the cases before it.
            again = run_per_case(self._options.argv, case.request_bytes(), self._options.timeout)
            note = (
                "crashes in a fresh process too"
                if isinstance(again, Crashed)
                else "only after earlier cases: a fresh process did not crash"
            )
            outcome = _annotate(outcome, note)
        return outcome, first

    def _answer(self, case: Case) -> Answer:
        options = self._options
        if self._isolate:
            return run_per_case(options.argv, case.request_bytes(), options.timeout)
        if self._session is None:
            self._session = Persistent(options.argv, start_timeout=options.start_timeout)
        answer = self._session.run(case.request_bytes(), case.role, options.timeout)
        self._case_of_seq[self._session.last_seq] = case.id
        return answer

    def close(self) -> None:
        """Stop the persistent process, if any, and collect breaches it revealed late."""
        if self._session is not None:
            self._session.close()
            for seq, reason in self._session.violations.items():
                if seq in self._case_of_seq:
                    self.late_violations[self._case_of_seq[seq]] = reason
            self._session = None


def start_session(options: Options) -> Persistent | str:
    """Start the implementation in persistent mode: the running session, or why it failed."""
    session = Persistent(options.argv, start_timeout=options.start_timeout)
    started = session.start()
    if isinstance(started, str):
        session.close()
        return started
    return session


def run_cases(
    cases: Sequence[Case],
    options: Options,
    spec: Spec,
    progress: Callable[[Outcome], None] | None = None,
) -> Execution:
    """Run every case and return the outcomes in the order of `cases`."""
    hello: Hello | None = None
    fallback: str | None = None
    isolate = options.isolate
    # The probe's process serves the first worker: starting a second one cost as much as the
    # whole corpus takes to run in persistent mode.
    spare: list[Persistent] = []
    if not isolate:
        started = start_session(options)
        if isinstance(started, str):
            isolate, fallback = True, started
        else:
            hello = started.hello
            spare.append(started)
    local = threading.local()
    workers: list[Worker] = []
    lock = threading.Lock()

    answers: dict[str, Answer] = {}
    stopping = threading.Event()
    finished: dict[str, Outcome] = {}

    def one(case: Case) -> None:
        if stopping.is_set():
            raise _Interrupted
        worker = getattr(local, "worker", None)
        if worker is None:
            with lock:
                session = spare.pop() if spare else None
                worker = local.worker = Worker(options, spec, isolate=isolate, session=session)
                workers.append(worker)
        outcome, answer = worker.run(case)
        with lock:
            if stopping.is_set():
                raise _Interrupted  # the answer may be an artefact of the interruption
            answers[case.id] = answer
            finished[case.id] = outcome
            if progress is not None:
                progress(outcome)

    interrupted = False
    pool = ThreadPoolExecutor(max_workers=options.jobs) if options.jobs > 1 else None
    try:
        if pool is None:
            for case in cases:
                one(case)
        else:
            for future in [pool.submit(one, case) for case in cases]:
                future.result()
    except KeyboardInterrupt:
        interrupted = True
        stopping.set()
    finally:
        for session in spare:
            session.close()  # no case took it
        for worker in workers:
            worker.close()  # ends every implementation process, so busy threads return
        if pool is not None:
            pool.shutdown(wait=True, cancel_futures=True)
        for worker in workers:
            worker.close()
    outcomes = [finished[case.id] for case in cases if case.id in finished]
    late = {case_id: reason for worker in workers for case_id, reason in worker.late_violations.items()}
    levels = {case.id: case.level for case in cases}
    outcomes = [
        Errored(case_id=o.case_id, level=levels[o.case_id], reason=late[o.case_id])
        if o.case_id in late
        else o
        for o in outcomes
    ]
    return Execution(
        outcomes=tuple(outcomes),
        answers=answers,
        hello=hello,
        mode="per-case" if isolate else "persistent",
        fallback_reason=fallback,
        interrupted=interrupted,
    )


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
