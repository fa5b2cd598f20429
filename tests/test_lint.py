"""`cardid lint`: the corpus passes, and bad citations or card facts fail with file and line."""

from __future__ import annotations

import copy
from collections.abc import Callable
from pathlib import Path

import pytest
from cardid_runner.cli import Exit, main

from tests.conftest import DATA, WRITER_CASE

CR_INDEX = DATA / "cr" / "cr-index-20260925.tsv"
CR_TEXT = DATA / "cr" / "MagicCompRules-20260925.txt"
CARDS = DATA / "cards" / "cards-sample.csv"
needs_data = pytest.mark.skipif(
    not CR_INDEX.exists() or not CARDS.exists(),
    reason=f"shared data not found at {DATA} (set CARDID_DATA to check CR numbers and card facts)",
)


@needs_data
def test_corpus_is_clean_against_the_pinned_cr_and_the_card_data(capsys: pytest.CaptureFixture[str]) -> None:
    """The shipped corpus passes every lint check, CR numbers and card facts included."""
    code = main(["lint", "--cr", str(CR_INDEX), "--cards", str(CARDS)])
    out, err = capsys.readouterr()
    assert code == Exit.OK, err
    assert "CR numbers" in out and "card facts" in out


@needs_data
def test_cr_text_works_as_well_as_the_index(capsys: pytest.CaptureFixture[str]) -> None:
    """--cr accepts the Comprehensive Rules text itself."""
    assert main(["lint", "--cr", str(CR_TEXT), "--cases", str(Path(__file__).parent.parent / "cases")]) == Exit.OK


def test_unknown_rule_fails_lint_with_file_and_line(
    write_case: Callable[..., Path], capsys: pytest.CaptureFixture[str]
) -> None:
    """A case citing a rule that the spec lacks fails lint, naming file and line."""
    data = copy.deepcopy(WRITER_CASE)
    data["rules"] = ["ID-3", "LIB-2", "ID-42"]
    path = write_case(data)
    assert main(["lint", "--cases", str(path.parent)]) == Exit.FAILED
    err = capsys.readouterr().err
    assert f"{path}:8: rules: ID-42 is not a rule of spec" in err


@needs_data
def test_unknown_cr_number_fails_lint(
    write_case: Callable[..., Path], capsys: pytest.CaptureFixture[str]
) -> None:
    """A case citing a CR number absent from the pinned edition fails lint."""
    data = copy.deepcopy(WRITER_CASE)
    data["cr"] = ["400.7", "400.99"]
    path = write_case(data)
    assert main(["lint", "--cases", str(path.parent), "--cr", str(CR_INDEX)]) == Exit.FAILED
    assert f"{path}:10: cr: 400.99 does not exist" in capsys.readouterr().err


@needs_data
def test_invented_card_facts_fail_lint(
    write_case: Callable[..., Path], capsys: pytest.CaptureFixture[str]
) -> None:
    """A printing or catalog ID that the card data lacks fails lint."""
    data = copy.deepcopy(WRITER_CASE)
    data["input"]["cards"][0]["printings"][0]["source_ids"] = ["arena:1"]
    data["input"]["cards"][0]["printings"].append({"set": "ELD", "number": "999"})
    path = write_case(data)
    assert main(["lint", "--cases", str(path.parent), "--cards", str(CARDS)]) == Exit.FAILED
    err = capsys.readouterr().err
    assert "arena:1 is not an ID of 'Island' ELD 254" in err
    assert "'Island' has no printing ELD 999" in err


def test_missing_cr_file_is_a_usage_error(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    """An unreadable --cr path exits 2 with an error and a hint, no traceback."""
    code = main(["lint", "--cr", str(tmp_path / "nope.tsv")])
    err = capsys.readouterr().err
    assert code == Exit.USAGE
    assert err.startswith("error: cannot read Comprehensive Rules file")
    assert "hint:" in err


@needs_data
def test_clean_corpus_computes_no_line_numbers(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """Line numbers cost a parse each: a clean lint (CR numbers and card facts) computes none."""
    from cardid_conformance import yamlfile

    def refuse(*args: object) -> None:
        raise AssertionError("line_of called on the clean path")

    monkeypatch.setattr(yamlfile, "line_of", refuse)
    assert main(["lint", "--cr", str(CR_INDEX), "--cards", str(CARDS)]) == Exit.OK


@needs_data
def test_card_fact_problems_still_name_their_line(
    write_case: Callable[..., Path], capsys: pytest.CaptureFixture[str]
) -> None:
    """The line found only for a problem is the line of that card's entry."""
    data = copy.deepcopy(WRITER_CASE)
    data["input"]["cards"].append({"name": "Islandd", "printings": [{"set": "ELD", "number": "9999"}]})
    path = write_case(data)
    assert main(["lint", "--cases", str(path.parent), "--cards", str(CARDS)]) == Exit.FAILED
    lines = path.read_text(encoding="utf-8").splitlines()
    line = next(n for n, text in enumerate(lines, 1) if "name: Islandd" in text)
    assert f"{path}:{line}: card 'Islandd' is not in the card data" in capsys.readouterr().err
