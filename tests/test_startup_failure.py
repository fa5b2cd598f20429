"""A run stops early when its first cases all fail alike at start-up (an adapter run from the
wrong folder: `node adapter.js` with no adapter.js there), and never otherwise: not for a role
the implementation does not support, not for a working per-case adapter, not for an
implementation that crashes on some cases only."""

from __future__ import annotations

import json
import sys
from collections.abc import Iterator, Sequence
from pathlib import Path

import pytest
from cardid_conformance import schemas
from cardid_conformance.answer import Crashed
from cardid_conformance.outcome import Errored, NotRun, status
from cardid_conformance.spec import load_spec
from cardid_runner import execute
from cardid_runner.adapter import Exited
from cardid_runner.cli import Exit
from cardid_runner.execute import STARTUP_SAMPLE, Execution, Invocation
from cardid_runner.process.stop import STOP
from cardid_runner.terminal import telling_line

from tests.fakes.scripted import (
    Behaviour,
    Err,
    Event,
    FakeLauncher,
    Out,
    crashed,
    launcher,
    line,
    per_case_right,
)
from tests.fakes.scripted import Exit as ExitEvent
from tests.processes import main_within
from tests.scripted_runs import cases, corpus

#: Eight reader cases: more than the sample, so that some are left when the run stops.
READERS = tuple(sorted(case_id for case_id, case in corpus().items() if case.role == "reader"))[:8]
#: Eight writer cases, for an implementation that supports only the reader role.
WRITERS = tuple(sorted(case_id for case_id, case in corpus().items() if case.role == "writer"))[:8]
NODE_ERROR = b"node:internal/modules/cjs/loader:1210\n  throw err;\n  ^\n\nError: Cannot find module '/x/adapter.js'\n    at Module._resolveFilename (node:internal/modules/cjs/loader:1207:15)\n  code: 'MODULE_NOT_FOUND'\n}\n\nNode.js v20.20.2\n"


@pytest.fixture(autouse=True)
def _clear_stop() -> Iterator[None]:
    STOP.clear()
    yield
    STOP.clear()


def _run(launch: object, ids: tuple[str, ...] = READERS, *, jobs: int = 1, isolate: bool = False) -> Execution:
    options = Invocation(argv=("scripted",), isolate=isolate, timeout=1.0, start_timeout=3.0, jobs=jobs)
    return execute.run_cases(cases(ids), options, load_spec(), launcher=launch)  # type: ignore[arg-type]


def _statuses(execution: Execution) -> list[str]:
    return [str(status(outcome)) for outcome in execution.outcomes]


@pytest.mark.parametrize("jobs", [1, 2])
@pytest.mark.parametrize("isolate", [False, True])
def test_an_adapter_that_cannot_start_stops_the_run_after_the_first_cases(jobs: int, isolate: bool) -> None:
    """Every process exits at once with Node's "Cannot find module": the first five cases err
    alike, a start with no input exits too, and the rest are not run, each saying why."""
    behaviour = Behaviour(at_start=(Err(NODE_ERROR), ExitEvent(1)))
    execution = _run(launcher(behaviour), jobs=jobs, isolate=isolate)
    statuses = _statuses(execution)
    assert len(statuses) == len(READERS)
    assert statuses.count("errored") >= STARTUP_SAMPLE
    assert statuses[:STARTUP_SAMPLE] == ["errored"] * STARTUP_SAMPLE
    assert "not-run" in statuses
    assert statuses == sorted(statuses, key=lambda word: word == "not-run")  # errors first, in order
    failure = execution.startup_failure
    assert failure is not None and failure.cases == STARTUP_SAMPLE
    assert failure.exited.code == 1
    assert telling_line(failure.exited.stderr) == "Error: Cannot find module '/x/adapter.js'"
    not_run = [o for o in execution.outcomes if isinstance(o, NotRun)]
    assert all(o.reason.startswith("the run stopped after its first 5 case(s) errored alike at start-up: exit status 1")
               for o in not_run)
    assert not execution.interrupted


def test_an_implementation_that_reads_its_input_and_fails_every_case_is_not_stopped() -> None:
    """A per-case adapter that fails every request of these cases alike, after reading it (as a
    reader-only adapter answering "unsupported" with an exit status would), waits for its input
    when started without any: it does not fail at start-up, and every case runs."""
    behaviour = Behaviour(hello=None, per_case=lambda request: [Err(b"unsupported role\n"), ExitEvent(2)])
    execution = _run(launcher(behaviour))
    assert _statuses(execution) == ["errored"] * len(READERS)
    assert execution.startup_failure is None


def test_a_role_not_supported_is_skipped_and_never_stops_the_run() -> None:
    """A reader-only implementation: the writer cases are skipped, not failures at start-up."""
    hello = {"protocol": 1, "implementation": {"name": "r", "version": "0"}, "roles": ["reader"]}
    behaviour = Behaviour(hello=(Out(line(hello)),))
    execution = _run(launcher(behaviour), WRITERS + READERS[:2])
    assert _statuses(execution) == ["skipped"] * len(WRITERS) + ["passed"] * 2
    assert execution.startup_failure is None
    assert behaviour.log.count("spawn") == 1  # the one persistent process: nothing more started


def test_crashes_on_the_first_cases_only_never_stop_the_run() -> None:
    """A real implementation that crashes on the first five cases and answers the rest: started
    without input it waits, as adapters do, so every case runs and the later ones pass."""
    served: list[object] = []

    def per_case(request: object) -> Sequence[Event]:
        served.append(request)
        if len(served) <= STARTUP_SAMPLE:
            return [Err(b"TypeError: x is undefined\n"), ExitEvent(1)]
        return per_case_right(request)

    behaviour = Behaviour(hello=None, per_case=per_case)
    execution = _run(launcher(behaviour))
    statuses = _statuses(execution)
    assert statuses[:STARTUP_SAMPLE] == ["errored"] * STARTUP_SAMPLE
    assert "not-run" not in statuses and "passed" in statuses[STARTUP_SAMPLE:]
    assert execution.startup_failure is None


def test_alike_crashes_of_an_implementation_that_starts_are_not_a_start_up_failure() -> None:
    """Crashes alike, but started without input the implementation waits: no stop."""
    fake = FakeLauncher(persistent_answer=crashed("exited (status 1) during the case"),
                        per_case_answer=crashed("exit status 1"))
    execution = _run(fake)
    assert _statuses(execution) == ["errored"] * len(READERS)
    assert execution.startup_failure is None and fake.started_without_input == 1


def test_different_reasons_or_an_answer_among_the_first_cases_never_stop_the_run() -> None:
    fake = FakeLauncher(
        hello="exited at the handshake (status 1)",
        per_case_answer=lambda request: Crashed(reason=f"exit status {len(request.tag) % 3 + 1}"),
        exits_without_input=Exited(code=1, stderr=""),
    )
    reasons = {o.reason for o in _run(fake).outcomes if isinstance(o, Errored)}
    assert len(reasons) > 1  # the premise: the first cases err for different reasons
    assert fake.started_without_input == 0
    timed_out = FakeLauncher(hello="x", per_case_answer=crashed("timed out after 1 s", timed_out=True),
                             exits_without_input=Exited(code=1, stderr=""))
    assert "not-run" not in _statuses(_run(timed_out)) and timed_out.started_without_input == 0


def test_fewer_cases_than_the_sample_are_all_judged(tmp_path: Path) -> None:
    """Three cases, all failing at start-up: all three err (nothing is left to stop), and the
    run still says why, with the fix."""
    behaviour = Behaviour(at_start=(Err(NODE_ERROR), ExitEvent(1)))
    execution = _run(launcher(behaviour), READERS[:3])
    assert _statuses(execution) == ["errored"] * 3
    assert execution.startup_failure is not None and execution.startup_failure.cases == 3


def test_the_telling_line_of_standard_error() -> None:
    assert telling_line("Traceback (most recent call last):\n  File \"a.py\", line 1\nModuleNotFoundError: No module named 'p'\n") \
        == "ModuleNotFoundError: No module named 'p'"
    assert telling_line("python3: can't open file '/x/a.py': [Errno 2] No such file or directory\n") \
        == "python3: can't open file '/x/a.py': [Errno 2] No such file or directory"
    assert telling_line("just this\n\n") == "just this"
    assert telling_line("  \n") is None


def test_cardid_run_of_a_missing_script_stops_says_why_and_the_fix(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """The real thing: `--impl "python3 adapter.py"` in a folder without adapter.py. The run
    stops after five cases with exit status 1 (a run whose cases errored), names the line of
    standard error that tells and the fix, and its report marks the rest `not-run`."""
    monkeypatch.chdir(tmp_path)
    impl = f"{sys.executable} adapter.py"
    report = tmp_path / "report.json"
    code = main_within(["run", "--impl", impl, "--role", "reader", "--report-json", str(report)], seconds=60)
    out = capsys.readouterr().out
    assert code == Exit.FAILED, out
    assert "STOPPED: the implementation fails at start-up. Its first 5 case(s) errored alike (exit status 2)" in out
    assert "[Errno 2] No such file or directory" in out.split("STOPPED", 1)[1].splitlines()[1]
    assert "case(s) not run: they would all fail the same way" in out
    assert f"fix: check --impl and the folder you run from: '{impl}' runs in {tmp_path}" in out
    assert f"then: `cardid doctor --impl '{impl}'` checks the adapter step by step" in out
    verdict = out.strip().splitlines()[-1]
    assert verdict.startswith("verdict: NOT CONFORMING") and "case(s) not run: the run stopped early" in verdict
    data = json.loads(report.read_text(encoding="utf-8"))
    assert schemas.first_problem("report", data) is None
    words = [result["status"] for result in data["results"]]
    assert words[:5] == ["errored"] * 5 and set(words[5:]) == {"not-run"}
    assert data["summary"]["not_run"] == len(words) - 5
    assert data["verdict"]["conforming"] is False and data["verdict"]["accepted"] is False
