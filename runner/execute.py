"""Running a selection of cases against one implementation, serially or in parallel."""

from __future__ import annotations

import threading
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass

from conformance.answer import Answer, Crashed
from conformance.cases import Case
from conformance.judge import judge
from conformance.outcome import Errored, Outcome
from conformance.spec import Spec
from runner.adapter import Hello, Persistent, run_per_case

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


@dataclass(frozen=True, slots=True, kw_only=True)
class Execution:
    """The outcomes in case order, and what the run learnt about the implementation."""

    outcomes: tuple[Outcome, ...]
    hello: Hello | None
    mode: str
    fallback_reason: str | None = None


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
    if not isolate:
        probe = Persistent(options.argv, start_timeout=options.start_timeout)
        started = probe.start()
        probe.close()
        if isinstance(started, str):
            isolate, fallback = True, started
        else:
            hello = started
    local = threading.local()
    sessions: list[Persistent] = []
    lock = threading.Lock()

    def answer(case: Case) -> Answer:
        if isolate:
            return run_per_case(options.argv, case.request_bytes(), options.timeout)
        session = getattr(local, "session", None)
        if session is None:
            session = local.session = Persistent(options.argv, start_timeout=options.start_timeout)
            with lock:
                sessions.append(session)
        return session.run(case.request_bytes(), case.role, options.timeout)

    def one(case: Case) -> Outcome:
        first = answer(case)
        outcome = judge(case, first, spec)
        if isinstance(first, Crashed) and not isolate:
            # Retry in a fresh process, to tell a real crash from state left by earlier cases.
            again = run_per_case(options.argv, case.request_bytes(), options.timeout)
            if isinstance(again, Crashed):
                outcome = _annotate(outcome, "crashes in a fresh process too")
            else:
                outcome = _annotate(outcome, "only after earlier cases: a fresh process did not crash")
        if progress is not None:
            progress(outcome)
        return outcome

    try:
        if options.jobs <= 1:
            outcomes = [one(case) for case in cases]
        else:
            with ThreadPoolExecutor(max_workers=options.jobs) as pool:
                outcomes = list(pool.map(one, cases))
    finally:
        for session in sessions:
            session.close()
    return Execution(
        outcomes=tuple(outcomes),
        hello=hello,
        mode="per-case" if isolate else "persistent",
        fallback_reason=fallback,
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
