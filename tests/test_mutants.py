"""The mutant matrix: every mutant fails some case, and every case fails some mutant.

Runs in-process: each mutant's write and read functions answer each case's request through
`reference.adapter.answer`, and `judge` decides the outcome, as the runner would.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping
from functools import cache
from pathlib import Path
from typing import Any

import pytest
from cardid_conformance.answer import Answer, Answered, Crashed, Rejected
from cardid_conformance.cases import Case, Corpus, case_files, load_corpus
from cardid_conformance.judge import judge
from cardid_conformance.outcome import Failed, Outcome, Passed
from cardid_conformance.spec import Spec, load_spec
from cardid_reference.adapter import answer, no_surrogate_escape
from cardid_reference.errors import RequestError
from cardid_reference.mutants import MUTANTS, ExitWithoutRejection, broken_role, entry_points
from cardid_reference.reader import read as reference_read
from cardid_reference.writer import write as reference_write

ROOT = Path(__file__).resolve().parent.parent

Write = Callable[[dict[str, Any]], dict[str, Any]]
Read = Callable[[str], dict[str, Any]]


@cache
def spec() -> Spec:
    """The spec's rule index, loaded once (not once for each of some 80 mutants)."""
    return load_spec()


@cache
def corpus() -> Corpus:
    """The case corpus under cases/, loaded once."""
    return load_corpus(case_files(ROOT / "cases"), spec())


@cache
def _request_lines() -> Mapping[str, tuple[bytes, bool]]:
    """Each case's request as sent, and whether it surely holds no lone surrogate (as the
    adapter decides it from the line it reads), by case ID."""
    lines = {case.id: case.request_bytes() for case in corpus().cases}
    return {case_id: (raw, no_surrogate_escape(raw)) for case_id, raw in lines.items()}


def _answer(case: Case, write: Write, read: Read) -> Answer:
    raw, scalars_known = _request_lines()[case.id]
    try:
        result = answer(json.loads(raw), write=write, read=read, scalars_known=scalars_known)
    except RequestError as exc:
        return Rejected(message=str(exc))
    except ExitWithoutRejection:  # what the runner makes of exit status 1 with nothing on stdout
        return Crashed(reason="exit status 1 without a rejection object on standard output")
    except Exception as exc:  # noqa: BLE001 - any other failure is a crash, as in the runner
        return Crashed(reason=f"{type(exc).__name__}: {exc}")
    return Answered(result=json.loads(json.dumps(result)))


def _outcome(case: Case, write: Write, read: Read) -> Outcome:
    return judge(case, _answer(case, write, read), spec())


@cache
def _reference_outcomes() -> Mapping[str, Outcome]:
    return {case.id: _outcome(case, reference_write, reference_read) for case in corpus().cases}


#: (mutant name, case ID) -> outcome, for each pair judged so far: the matrix is filled only as
#: far as the tests need it (each mutant until a case fails it, each case until a mutant fails
#: it), which judges about half of its cells.
_OUTCOMES: dict[tuple[str, str], Outcome] = {}


def outcome_of(name: str, case: Case) -> Outcome:
    """The outcome of `case` for mutant `name`. A mutant answers the role it does not break with
    the reference's code, so those cases take the reference's outcomes, judged once."""
    key = (name, case.id)
    if key not in _OUTCOMES:
        if case.role != broken_role(name):
            _OUTCOMES[key] = _reference_outcomes()[case.id]
        else:
            write, read = entry_points(name)
            _OUTCOMES[key] = _outcome(case, write, read)
    return _OUTCOMES[key]


def _fails(outcome: Outcome) -> bool:
    return not isinstance(outcome, Passed)


@pytest.mark.parametrize("name", list(MUTANTS))
def test_every_mutant_fails_some_case(name: str) -> None:
    """Each deliberately wrong implementation fails at least one case of the corpus."""
    assert any(_fails(outcome_of(name, case)) for case in corpus().cases), (
        f"mutant {name!r} passes every case: no case catches what it breaks"
    )


@pytest.mark.parametrize("case_id", [case.id for case in corpus().cases])
def test_every_case_fails_some_mutant(case_id: str) -> None:
    """Each case is failed by at least one mutant, so it proves something. (Only a mutant of the
    case's role can fail it; those already judged on it are asked first.)"""
    case = next(case for case in corpus().cases if case.id == case_id)
    names = [name for name in MUTANTS if broken_role(name) == case.role]
    names.sort(key=lambda name: (name, case_id) not in _OUTCOMES)
    assert any(_fails(outcome_of(name, case)) for name in names), (
        f"case {case_id!r} is passed by every mutant: it catches no wrong behaviour"
    )


def test_reference_passes_every_case_in_process() -> None:
    """The reference implementation passes every case of the corpus in-process."""
    assert not corpus().bugs, [str(bug) for bug in corpus().bugs]
    failed = {case_id: outcome for case_id, outcome in _reference_outcomes().items() if _fails(outcome)}
    assert not failed, failed


def test_renew_every_move_fails_with_a_split_at_an_observation() -> None:
    """Renew-every-move fails a case with a split at an observation, citing an ID or LIB rule."""
    splits = [
        difference
        for outcome in (outcome_of("renew-every-move", case) for case in corpus().cases)
        if isinstance(outcome, Failed)
        for difference in outcome.differences
        if "split" in difference.message
        and difference.observation is not None
        and difference.rule.split("-", 1)[0] in ("ID", "LIB")
    ]
    assert splits
    assert all(f"observation #{d.observation}" in d.message for d in splits)
