"""The execution logic (runner/execute.py, runner/session.py) over fake adapters
(tests/fakes/scripted.py FakeLauncher): fallback to per-case mode, the fresh-process retry and
what its note says, late findings, interruption, parallel runs. No processes: milliseconds
each."""

from __future__ import annotations

import json
import threading
from typing import Any

import pytest
from cardid_conformance.answer import Answer, Answered, Crashed
from cardid_conformance.outcome import Errored, status
from cardid_conformance.spec import load_spec
from cardid_runner import execute
from cardid_runner.adapter import Request
from cardid_runner.execute import Execution, Invocation
from cardid_runner.process.stop import STOP
from cardid_runner.session import CaseRunner, Mode, probe_mode

from tests.fakes.scripted import FakeLauncher, crashed, right_answer
from tests.scripted_runs import IDS, TARGET, cases


@pytest.fixture(autouse=True)
def _clear_stop() -> Any:
    STOP.clear()
    yield
    STOP.clear()


def run(fake: FakeLauncher, *, isolate: bool = False, jobs: int = 1, ids: tuple[str, ...] = IDS) -> Execution:
    options = Invocation(argv=("fake",), isolate=isolate, timeout=1.0, start_timeout=3.0, jobs=jobs)
    return execute.run_cases(cases(ids), options, load_spec(), launcher=fake)


def reasons(execution: Execution) -> dict[str, str]:
    return {o.case_id: o.reason if isinstance(o, Errored) else str(status(o)) for o in execution.outcomes}


def on_target(answer: Any) -> Any:
    def pick(request: Request) -> Answer:
        return answer(request) if request.tag == TARGET else right_answer(request)
    return pick


def test_failed_handshake_falls_back_to_per_case_mode() -> None:
    fake = FakeLauncher(hello="refused persistent mode: no")
    execution = run(fake)
    assert execution.mode == "per-case" and execution.fallback_reason == "refused persistent mode: no"
    assert [str(status(o)) for o in execution.outcomes] == ["passed"] * 3
    probe, *rest = fake.made
    assert probe.log == ["start", "close"]  # the probe is closed, never used
    assert all(a.log[0].startswith("run") for a in rest)


def test_probe_serves_the_first_case_runner() -> None:
    fake = FakeLauncher()
    run(fake)
    [probe, *_] = fake.made
    assert probe.log == ["start", *(f"run {i}" for i in IDS), "close"]


def test_crash_on_the_first_case_is_not_blamed_on_earlier_cases() -> None:
    """F9: a crash on the very first case, which a fresh process does not repeat."""
    fake = FakeLauncher(persistent_answer=lambda r: Crashed(reason="exited (status 3) during the case"))
    execution = run(fake, ids=(TARGET,))
    [message] = reasons(execution).values()
    assert "only after earlier cases" not in message
    assert message.endswith("(only in persistent mode: a fresh process passed)")


def test_crash_after_earlier_cases_that_a_fresh_process_passes() -> None:
    fake = FakeLauncher(persistent_answer=on_target(crashed("exited (status 3) during the case", earlier=2)))
    message = reasons(run(fake))[TARGET]
    assert "(only after earlier cases: a fresh process passed, this one had answered 2 request(s) before)" in message


def test_crash_that_a_fresh_process_repeats() -> None:
    fake = FakeLauncher(
        persistent_answer=on_target(crashed("exited (status 3) during the case", earlier=2)),
        per_case_answer=on_target(crashed("exit status 3")),
    )
    assert reasons(run(fake))[TARGET].endswith("(crashes in a fresh process too: exit status 3)")


def test_timeouts_are_not_called_crashes() -> None:
    """F9: a hang that a fresh process repeats times out there too; it does not "crash"."""
    hang = crashed("timed out after 1 s", earlier=2, timed_out=True)
    both = FakeLauncher(persistent_answer=on_target(hang), per_case_answer=on_target(hang))
    assert reasons(run(both))[TARGET] == "timed out after 1 s (times out in a fresh process too)"
    then_crash = FakeLauncher(persistent_answer=on_target(hang), per_case_answer=on_target(crashed("exit status 2")))
    assert reasons(run(then_crash))[TARGET] == "timed out after 1 s (crashes in a fresh process: exit status 2)"


def test_fresh_process_that_answers_wrong_is_not_called_a_pass() -> None:
    fake = FakeLauncher(
        persistent_answer=on_target(crashed("timed out after 1 s", earlier=2, timed_out=True)),
        per_case_answer=on_target(lambda r: Answered(result={"card_table": []})),
    )
    message = reasons(run(fake))[TARGET]
    assert "only after earlier cases" not in message
    assert message.endswith("(a fresh process did not crash, but the case failed there)")


def test_breach_only_persistent_mode_shows_is_not_retried() -> None:
    fake = FakeLauncher(persistent_answer=on_target(crashed("answered seq 9, expected 3", protocol_only=True, earlier=2)))
    assert reasons(run(fake))[TARGET] == "answered seq 9, expected 3"
    assert not [a for a in fake.made[1:] if any(e.startswith("run") for e in a.log)]


def test_isolate_never_retries() -> None:
    fake = FakeLauncher(per_case_answer=on_target(crashed("exit status 3")))
    assert reasons(run(fake, isolate=True))[TARGET] == "exit status 3"
    assert sum(1 for a in fake.made for e in a.log if e == f"run {TARGET}") == 1


def test_late_violation_replaces_a_finished_outcome() -> None:
    """A second answer seen at close marks the case it repeats, even one that had passed."""
    fake = FakeLauncher(late={IDS[0]: "answered the same request twice"})
    got = reasons(run(fake))
    assert got[IDS[0]] == "answered the same request twice"
    assert got[TARGET] == "passed"


@pytest.mark.parametrize("jobs", [1, 2])
def test_interruption_keeps_finished_results_and_drops_the_rest(jobs: int) -> None:
    """STOP set during the second case (as a signal handler does): the first case's result is
    kept, the cut case and those after are not run or dropped, every adapter is closed."""

    def answer(request: Request) -> Answer:
        if request.tag == IDS[1]:
            STOP.set()
            return Crashed(reason="stopped: the run was interrupted")
        return right_answer(request)

    fake = FakeLauncher(persistent_answer=answer)
    execution = run(fake, jobs=jobs)
    assert execution.interrupted
    assert IDS[1] not in reasons(execution)
    assert all(str(status(o)) == "passed" for o in execution.outcomes)
    if jobs == 1:
        assert [o.case_id for o in execution.outcomes] == [IDS[0]]
    assert all(a.log[-1] == "close" for a in fake.made)


def test_keyboard_interrupt_is_an_interruption() -> None:
    def answer(request: Request) -> Answer:
        if request.tag == IDS[1]:
            raise KeyboardInterrupt
        return right_answer(request)

    execution = run(FakeLauncher(persistent_answer=answer))
    assert execution.interrupted and [o.case_id for o in execution.outcomes] == [IDS[0]]


def test_stop_before_the_run_runs_nothing() -> None:
    STOP.set()
    execution = run(FakeLauncher())
    assert execution.interrupted and execution.outcomes == ()


def test_parallel_interruption_wakes_every_case_runner() -> None:
    """-j 2: one case runner waits (as on a process that never answers) until interrupted; the
    other's STOP wakes it through `interrupt`, and the run returns."""
    woken = threading.Event()

    class Waiting(FakeLauncher):
        pass

    def answer(request: Request) -> Answer:
        if request.tag == IDS[0]:
            assert woken.wait(10), "never woken"
            return Crashed(reason="stopped: the run was interrupted")
        STOP.set()
        return Crashed(reason="stopped: the run was interrupted")

    fake = Waiting(persistent_answer=answer)
    original = fake.persistent

    def persistent() -> Any:
        adapter = original()
        adapter.interrupt = woken.set  # type: ignore[method-assign]
        return adapter

    fake.persistent = persistent  # type: ignore[method-assign]
    execution = run(fake, jobs=2)
    assert execution.interrupted and execution.outcomes == ()


def test_parallel_run_gives_the_serial_results() -> None:
    fake = FakeLauncher(persistent_answer=on_target(crashed("exit", earlier=1)))
    assert reasons(run(fake, jobs=2)) == reasons(run(fake))


def test_unsupported_role_is_skipped_and_a_run_of_skips_is_not_conforming(tmp_path: Any) -> None:
    """F3: every case skipped (a writer-only handshake, reader cases): NOT CONFORMING, exit 1."""
    from cardid_runner.cli import Exit, main

    from tests.fakes import scripted

    hello = {**scripted.HELLO, "roles": ["writer"]}
    behaviour = scripted.Behaviour(hello=[scripted.Out(scripted.line(hello))])
    report = tmp_path / "r.json"
    code = main(["run", "--role", "reader", "--report-json", str(report)], launcher=scripted.launcher(behaviour))
    data = json.loads(report.read_text(encoding="utf-8"))
    assert code == Exit.FAILED
    assert data["verdict"]["conforming"] is False
    assert {r["status"] for r in data["results"]} == {"skipped"}


def test_interruption_during_the_handshake_is_not_a_fallback() -> None:
    """STOP set while the probe shakes hands: no note about persistent mode being unavailable."""

    class Interrupted(FakeLauncher):
        def persistent(self) -> Any:
            adapter = super().persistent()
            adapter.start = lambda: (STOP.set(), "stopped: the run was interrupted")[1]  # type: ignore[method-assign]
            return adapter

    execution = run(Interrupted())
    assert execution.interrupted and execution.fallback_reason is None and execution.mode == "persistent"


def test_one_probe_decides_the_mode_for_a_run_the_plugin_and_shrink() -> None:
    """runner/session.py `probe_mode`, which `run_cases` (through CaseRunners) and
    `CaseRunner.started` (the pytest plugin, `shrink`) share."""
    fake = FakeLauncher()
    mode, adapter = probe_mode(fake, isolate=False)
    assert mode == Mode(isolate=False, hello=fake.hello) and adapter is fake.made[0]  # type: ignore[arg-type]
    refused = FakeLauncher(hello="refused persistent mode: no")
    assert probe_mode(refused, isolate=False) == (
        Mode(isolate=True, fallback_reason="refused persistent mode: no"), None
    )
    assert refused.made[0].log == ["start", "close"]
    untouched = FakeLauncher()
    assert probe_mode(untouched, isolate=True) == (Mode(isolate=True), None) and not untouched.made


def test_a_case_runner_started_alone_runs_in_the_probes_process() -> None:
    fake = FakeLauncher(hello="refused persistent mode: no")
    options = Invocation(argv=("fake",), timeout=1.0, start_timeout=3.0)
    case_runner = CaseRunner.started(options, load_spec(), fake)
    assert case_runner.mode.name == "per-case" and case_runner.mode.fallback_reason == "refused persistent mode: no"
    assert str(status(case_runner.outcome(cases((TARGET,))[0]))) == "passed"
    case_runner.close()
    assert [a.log for a in fake.made] == [["start", "close"], [f"run {TARGET}", "close"]]
