"""The honest mutant matrix (runner/mutantmatrix.py) and the two commands built on it,
`cardid mutants` (runner/mutants.py) and `cardid coverage` (runner/coverage.py), on corpora of
a case or two written here."""

from __future__ import annotations

import copy
import dataclasses
import json
import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from cardid_conformance.cases import Case, case_files, load_corpus
from cardid_conformance.compare import Difference
from cardid_conformance.outcome import Errored, Failed, Passed
from cardid_conformance.spec import Level, Spec
from cardid_reference.mutants import MUTANTS
from cardid_runner import coverage
from cardid_runner.cli import Exit, main
from cardid_runner.mutantmatrix import Matrix, catches, ending_rules, named_ids, rules_named

from tests.conftest import WRITER_CASE

ENDINGS = {"E1": "LIB-2", "E8": "TOK-2"}


def _failed(*rules: str) -> Failed:
    return Failed(
        case_id="some-case",
        differences=tuple(Difference(rule=rule, message="differs") for rule in rules),
        levels=tuple(Level.MUST for _ in rules),
    )


@pytest.fixture
def corpus_dir(tmp_path: Path, write_case: Callable[..., Path]) -> Path:
    """A corpus of one writer case (WRITER_CASE: a land drawn, played, shuffled away, drawn)."""
    write_case(copy.deepcopy(WRITER_CASE))
    return tmp_path


# --- which rules a mutant names --------------------------------------------------------------


@pytest.mark.parametrize(
    ("docstring", "rules"),
    [
        ("Keeps library IDs through a shuffle (LIB-2, E1).", ("LIB-2",)),
        ("Keeps a token's ID after it leaves the battlefield (TOK-2, E8).", ("TOK-2",)),
        ("Keeps live IDs across a new game (ID-9, E10).", ("ID-9",)),  # E10 unmapped: nothing
        ("Resolves by name first (NAME-7's steps 2 and 3 swapped).", ("NAME-7",)),
        ('Strips zeros: "2024-01" -> "2024-1" (PRINT-2).', ("PRINT-2",)),
        ("Rejects with exit status 1 but no rejection object (C-2).", ("C-2",)),
        ("Names no rule at all.", ()),
    ],
)
def test_rules_named_are_those_in_the_closing_parentheses(docstring: str, rules: tuple[str, ...]) -> None:
    assert rules_named(docstring, ENDINGS) == rules


def test_named_ids_keep_the_ending_events_as_written() -> None:
    assert named_ids("Ends too soon (TOK-2, E8).") == ("TOK-2", "E8")


def test_ending_events_map_to_the_rule_their_table_row_names(tmp_path: Path) -> None:
    table = tmp_path / "card-identity.md"
    table.write_text(
        "| # | event | which IDs end | rule |\n|---|---|---|---|\n"
        "| E1 | `shuffle` of a library | every ID in that library | LIB-2 |\n"
        "| E2 | `mulligan` | every ID in that player's hand and library | ID-8 |\n",
        encoding="utf-8",
    )
    assert ending_rules(table) == {"E1": "LIB-2", "E2": "ID-8"}
    assert ending_rules(tmp_path / "absent.md") == {}
    assert ending_rules()["E1"] == "LIB-2"  # the spec's own table


# --- the criterion ---------------------------------------------------------------------------


def test_a_failure_citing_another_rule_catches_nothing() -> None:
    assert not catches(_failed("NAME-1", "PRINT-1"), ("NAME-5", "PRINT-4"))
    assert catches(_failed("NAME-1", "NAME-5"), ("NAME-5", "PRINT-4"))


def test_an_error_catches_only_a_mutant_naming_a_contract_rule() -> None:
    errored = Errored(case_id="some-case", level=Level.MUST, reason="exit status 1 without a rejection object")
    assert catches(errored, ("C-2",))
    assert not catches(errored, ("LIB-2",))
    assert not catches(_failed("TXT-1"), ("C-2",))


def test_a_pass_catches_nothing() -> None:
    assert not catches(Passed(case_id="some-case"), ("LIB-2", "C-2"))


def test_a_case_catches_the_mutant_breaking_its_rule(spec: Spec, corpus_dir: Path) -> None:
    matrix = Matrix(spec, load_corpus(case_files(corpus_dir), spec).cases)
    (case,) = matrix.cases
    assert matrix.caught_by("keep-through-shuffle", case)
    assert matrix.first_catch("keep-through-shuffle") is case
    assert matrix.first_caught(case, ["no-printing", "keep-through-shuffle"]) == "keep-through-shuffle"
    row = matrix.row("keep-through-shuffle")
    assert (row.role, row.rules, row.caught_by, row.caught) == ("writer", ("LIB-2",), (case.id,), True)


def test_a_case_the_reference_fails_catches_nothing(
    spec: Spec, make_case: Callable[[dict[str, Any] | None], Case]
) -> None:
    """A wrong expectation (the second Island owned by P2) fails the reference at OWN-1, and the
    mutant at OWN-1 too: that proves nothing about the mutant."""
    data = copy.deepcopy(WRITER_CASE)
    data["expect"]["instances"]["isle2"]["owner"] = "P2"
    case = make_case(data)
    matrix = Matrix(spec, [case])
    assert not matrix.sound(case) and matrix.unsound() == (case,)
    assert catches(matrix.outcome("owner-is-controller", case), matrix.rules("owner-is-controller"))
    assert not matrix.caught_by("owner-is-controller", case)
    assert matrix.first_catch("owner-is-controller") is None


def test_only_cases_of_the_broken_role_are_judged_for_a_mutant(spec: Spec, corpus_dir: Path) -> None:
    matrix = Matrix(spec, load_corpus(case_files(corpus_dir), spec).cases)
    assert matrix.cases_for("reader-lenient") == ()
    assert isinstance(matrix.outcome("reader-lenient", matrix.cases[0]), Passed)  # the reference's
    assert not matrix.judged("reader-lenient", matrix.cases[0])


# --- cardid mutants --------------------------------------------------------------------------


def test_mutants_all_caught_is_exit_0_with_a_line_each_and_totals(
    corpus_dir: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["mutants", "keep-through-shuffle", "--cases", str(corpus_dir)]) == Exit.OK
    lines = capsys.readouterr().out.splitlines()
    assert lines[0].split() == ["mutant", "role", "rules", "caught", "cases"]
    assert lines[1].split() == ["keep-through-shuffle", "writer", "LIB-2", "yes", "1:", "sample-writer"]
    assert lines[-1] == "1 mutant: 1 caught, 0 not caught (1 cases)"


def test_mutants_not_caught_are_exit_1_and_listed_with_why(
    corpus_dir: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    argv = ["mutants", "keep-through-shuffle", "reader-lenient", "strip-alchemy", "--cases", str(corpus_dir)]
    assert main(argv) == Exit.FAILED
    out = capsys.readouterr().out
    assert "not caught (2): no case fails them at a rule they name" in out
    assert "  reader-lenient (TXT-2): it passes every reader case" in out
    assert "  strip-alchemy (NAME-4): it passes every writer case" in out
    assert out.splitlines()[-1] == "3 mutants: 1 caught, 2 not caught (1 cases)"


def test_mutants_json_has_the_documented_shape(corpus_dir: Path, capsys: pytest.CaptureFixture[str]) -> None:
    argv = ["mutants", "keep-through-shuffle", "reader-lenient", "--cases", str(corpus_dir), "--json"]
    assert main(argv) == Exit.FAILED
    data = json.loads(capsys.readouterr().out)
    assert list(data) == ["mutants", "not_caught", "totals"]
    first = data["mutants"][0]
    assert list(first) == ["name", "role", "summary", "rules", "caught", "caught_by", "cited_instead", "errored"]
    assert (first["name"], first["rules"], first["caught"], first["caught_by"]) == (
        "keep-through-shuffle", ["LIB-2"], True, ["sample-writer"]
    )
    assert first["summary"] == (MUTANTS["keep-through-shuffle"].__doc__ or "").strip()
    assert data["not_caught"] == ["reader-lenient"]
    assert data["totals"] == {"mutants": 2, "caught": 1, "not_caught": 1, "cases": 1}


def test_an_unknown_mutant_is_a_usage_error_naming_close_ones(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["mutants", "keep-through-shufle"]) == Exit.USAGE
    out, err = capsys.readouterr()
    assert out == ""
    assert err.splitlines()[0].startswith(
        "error: cardid mutants: unknown mutant 'keep-through-shufle' (did you mean keep-through-shuffle"
    )


# --- cardid coverage -------------------------------------------------------------------------


def test_coverage_flags_must_rules_with_few_cases_and_is_exit_1(
    corpus_dir: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["coverage", "--cases", str(corpus_dir)]) == Exit.FAILED
    lines = capsys.readouterr().out.splitlines()
    lib2 = next(line for line in lines if line.startswith("LIB-2 "))
    match = re.match(r"LIB-2 +MUST +1 +(\d+) \((\d+) caught\) +fewer than two cases +cases: sample-writer; "
                     r"mutants: .*keep-through-shuffle", lib2)
    assert match, lib2
    assert int(match[1]) == _aimed("LIB-2") and int(match[2]) >= 1
    assert lines[-2].startswith("MUST rules with fewer than two cases (")
    assert lines[-1].startswith("MUST rules no mutant is aimed at (")


def test_coverage_is_exit_0_when_every_must_rule_has_two_cases(
    spec: Spec, write_case: Callable[..., Path], tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    """A spec whose only MUST rules are the two WRITER_CASE cites, and two such cases."""
    for case_id in ("sample-writer", "sample-writer-again"):
        write_case({**copy.deepcopy(WRITER_CASE), "id": case_id})
    rules = {rule_id: rule if rule_id in ("ID-3", "LIB-2") else dataclasses.replace(rule, level=Level.SHOULD)
             for rule_id, rule in spec.rules.items()}
    monkeypatch.setattr(coverage, "load_spec", lambda: dataclasses.replace(spec, rules=rules))
    assert main(["coverage", "--cases", str(tmp_path), "--json"]) == Exit.OK
    data = json.loads(capsys.readouterr().out)
    assert list(data) == ["rules", "contract", "few_cases", "no_mutant"]
    assert [entry["rule"] for entry in data["rules"]] == list(spec.rules)
    assert {entry["rule"] for entry in data["rules"] if entry["level"] == "MUST"} == {"ID-3", "LIB-2"}
    lib2 = next(entry for entry in data["rules"] if entry["rule"] == "LIB-2")
    assert list(lib2) == ["rule", "level", "summary", "cases", "mutants", "caught", "flags"]
    assert lib2["cases"] == ["sample-writer", "sample-writer-again"]
    assert "keep-through-shuffle" in lib2["mutants"] and "keep-through-shuffle" in lib2["caught"]
    assert lib2["flags"] == [] and data["few_cases"] == [] and data["no_mutant"] == []
    assert {"rule": "C-2", "mutants": ["rejection-exit-only", "reader-rejection-exit-only"],
            "caught": []} in data["contract"]


def _aimed(rule_id: str) -> int:
    return sum(rule_id in rules_named(cls.__doc__ or "", ending_rules()) for cls in MUTANTS.values())
