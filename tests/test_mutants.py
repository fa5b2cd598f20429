"""The mutant matrix: every mutant is caught by some case, and every case catches some mutant.

"Caught" is the honest criterion of `cardid_runner.mutantmatrix`: a case catches a mutant when it
fails it with a difference citing a rule the mutant's docstring names (an Errored outcome, for a
mutant naming a contract rule C-n), and the reference passes that case. A failure citing some
other rule does not count, nor does a crash of a mutant that breaks a spec rule.

Runs in-process: each mutant's write and read functions answer each case's request through
`reference.adapter.answer`, and `judge` decides the outcome, as the runner would. The matrix is
filled only as far as the tests need it (each mutant until a case catches it, each case until it
catches a mutant, those judged already asked first).
"""

from __future__ import annotations

import re
from functools import cache
from pathlib import Path

import pytest
from cardid_conformance.cases import Case, Corpus, case_files, load_corpus
from cardid_conformance.outcome import Failed, Passed
from cardid_conformance.spec import Spec, load_spec
from cardid_reference.mutants import MUTANTS, broken_role
from cardid_runner.mutantmatrix import Matrix, is_contract, named_ids

ROOT = Path(__file__).resolve().parent.parent


@cache
def spec() -> Spec:
    """The spec's rule index, loaded once (not once for each of some 100 mutants)."""
    return load_spec()


@cache
def corpus() -> Corpus:
    """The case corpus under cases/, loaded once."""
    return load_corpus(case_files(ROOT / "cases"), spec())


@cache
def matrix() -> Matrix:
    """The outcomes judged so far, shared by every test of this process."""
    return Matrix(spec(), corpus().cases)


def _case(case_id: str) -> Case:
    return next(case for case in corpus().cases if case.id == case_id)


@pytest.mark.parametrize("name", list(MUTANTS))
def test_every_mutant_fails_some_case(name: str) -> None:
    """Each deliberately wrong implementation is caught by at least one case of the corpus: a
    case fails it at a rule it names."""
    if matrix().first_catch(name) is None:
        row = matrix().row(name)  # judged in full only to say why
        pytest.fail(
            f"mutant {name!r} ({', '.join(row.rules)}) is caught by no case: its failures cite "
            f"{', '.join(row.cited_instead) or 'nothing'}, {row.errored} case(s) errored"
        )


@pytest.mark.parametrize("case_id", [case.id for case in corpus().cases])
def test_every_case_fails_some_mutant(case_id: str) -> None:
    """Each case catches at least one mutant, so it proves something. (Only a mutant of the
    case's role can be caught by it; those already judged on it are asked first.)"""
    case = _case(case_id)
    names = [name for name in MUTANTS if broken_role(name) == case.role]
    assert matrix().first_caught(case, names) is not None, (
        f"case {case_id!r} catches no mutant: none fails it at a rule the mutant names"
    )


def test_reference_passes_every_case_in_process() -> None:
    """The reference implementation passes every case of the corpus in-process."""
    assert not corpus().bugs, [str(bug) for bug in corpus().bugs]
    failed = {case.id: matrix().reference(case) for case in matrix().unsound()}
    assert not failed, failed


def test_every_mutant_names_rules_of_the_spec_or_the_contract() -> None:
    """Each mutant names at least one rule, and each it names is a spec rule, an ending event
    of the ending-events table, or a contract rule of spec/adapter-contract.md."""
    contract = set(re.findall(r"\*\*(C-[0-9]+)\*\*", (ROOT / "spec" / "adapter-contract.md").read_text("utf-8")))
    endings = matrix().endings
    unknown = {
        name: named
        for name, cls in MUTANTS.items()
        for named in [named_ids(cls.__doc__ or "")]
        if not named
        or any(
            rule not in spec().rules and rule not in endings and not (is_contract(rule) and rule in contract)
            for rule in named
        )
    }
    assert not unknown, unknown


def test_renew_every_move_fails_with_a_split_at_an_observation() -> None:
    """Renew-every-move fails a case with a split at an observation, citing an ID or LIB rule."""
    splits = [
        difference
        for outcome in (matrix().outcome("renew-every-move", case) for case in corpus().cases)
        if isinstance(outcome, Failed)
        for difference in outcome.differences
        if "split" in difference.message
        and difference.observation is not None
        and difference.rule.split("-", 1)[0] in ("ID", "LIB")
    ]
    assert splits
    assert all(f"observation #{d.observation}" in d.message for d in splits)


def test_a_mutant_answers_the_other_role_with_the_reference() -> None:
    """A writer mutant's outcome on a reader case is the reference's, and no such case catches it."""
    reader_case = next(case for case in corpus().cases if case.role == "reader")
    assert isinstance(matrix().outcome("renew-every-move", reader_case), Passed)
    assert not matrix().caught_by("renew-every-move", reader_case)


def test_every_must_rule_has_two_cases_and_a_caught_mutant_aimed_at_it() -> None:
    """The corpus is at least two cases deep on every MUST rule, and some mutant naming each MUST
    rule is caught (what `cardid coverage` flags; CI fails on either)."""
    from cardid_runner.coverage import MIN_CASES, aimed_at, coverage_of

    aimed = aimed_at(matrix())
    musts = [rule for rule in spec().rules.values() if rule.level.name == "MUST"]
    covered = [coverage_of(rule, corpus().cases, aimed.get(rule.id, ()), matrix()) for rule in musts]
    thin = [rule.rule for rule in covered if len(rule.cases) < MIN_CASES]
    unaimed = [rule.rule for rule in covered if not rule.caught]
    assert not thin, f"MUST rules cited by fewer than {MIN_CASES} cases: {thin}"
    assert not unaimed, f"MUST rules no caught mutant is aimed at: {unaimed}"
