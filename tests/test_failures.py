"""`--save-failures` keeps, beside the request and the raw output, the answer expected and
which case failed (runner/failures.py): expected.json and case.json."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from cardid_conformance.answer import Answered, Rejected
from cardid_conformance.cases import Case, case_from_data
from cardid_conformance.judge import judge
from cardid_conformance.outcome import Failed, Passed
from cardid_conformance.spec import Spec
from cardid_runner.failures import save_failures

from tests.conftest import WRITER_ANSWER

READER_CASE: dict[str, Any] = {
    "id": "sample-reader",
    "description": "Two plain lines are read as two entries, in order.",
    "role": "reader",
    "level": "MUST",
    "rules": ["TXT-1"],
    "cr": ["201.2"],
    "input": {"text": '#c1 "Island" owner=P1\n#c2 "Forest" owner=P2\n'},
    "expect": {"card_table": [
        {"id": "c1", "name": "Island", "printing": None, "source_ids": [], "owner": "P1", "kind": "card"},
        {"id": "c2", "name": "Forest", "printing": None, "source_ids": [], "owner": "P2", "kind": "card"},
    ]},
}


def _save(tmp_path: Path, case: Case, answer: Any, spec: Spec) -> Path:
    outcome = judge(case, answer, spec)
    assert isinstance(outcome, Failed)
    problems = save_failures(tmp_path / "saved", [outcome], {case.id: case}, {case.id: answer}, {case.id: "cardid run"})
    assert problems == []
    return tmp_path / "saved" / case.id


def test_a_writer_failure_keeps_the_expected_answer_in_the_shape_of_an_answer(
    tmp_path: Path, make_case: Callable[..., Case], spec: Spec
) -> None:
    case = make_case()
    wrong = json.loads(json.dumps(WRITER_ANSWER))
    wrong["assignments"][6] = "c1"  # the shuffled card keeps its ID
    wrong["card_table"].pop()
    folder = _save(tmp_path, case, Answered(result=wrong), spec)
    expected = json.loads((folder / "expected.json").read_text())
    assert expected["assignments"] == [None, "isle", "isle", "isle", "isle", None, "isle2"]
    assert [entry["id"] for entry in expected["card_table"]] == ["isle", "isle2"]
    assert expected["card_table"][1] == {
        "id": "isle2", "name": "Island", "printing": {"set": "ELD", "number": "254"},
        "source_ids": ["arena:70401"], "owner": "P1", "kind": "card", "revealed_at": 6,
    }
    # It is an answer the expectation accepts: judged as one, it passes.
    assert isinstance(judge(case, Answered(result=expected), spec), Passed)
    record = json.loads((folder / "case.json").read_text())
    assert record == {
        "id": "sample-writer", "file": str(case.path), "description": case.description, "role": "writer",
        "level": "MUST", "rules": ["ID-3", "LIB-2"], "cr": ["400.7"], "tags": [],
    }
    assert {p.name for p in folder.iterdir()} >= {"request.json", "output", "failure.txt", "expected.json", "case.json"}


def test_a_reader_failure_keeps_the_expected_card_table(tmp_path: Path, spec: Spec) -> None:
    case = case_from_data(tmp_path / "sample-reader.yaml", READER_CASE, spec)
    folder = _save(tmp_path, case, Rejected(message="no"), spec)
    assert json.loads((folder / "expected.json").read_text()) == {"card_table": READER_CASE["expect"]["card_table"]}


def test_a_case_that_must_be_rejected_keeps_that(tmp_path: Path, spec: Spec) -> None:
    data = {**READER_CASE, "input": {"text": '#c1 "Island" owner=P1\r'}, "expect": {"reject": True}, "rules": ["TXT-2"]}
    case = case_from_data(tmp_path / "sample-reader.yaml", data, spec)
    answer = Answered(result={"card_table": READER_CASE["expect"]["card_table"][:1]})
    folder = _save(tmp_path, case, answer, spec)
    assert json.loads((folder / "expected.json").read_text()) == {"rejected": True}


def test_the_saved_rerun_script_starts_in_the_folder_the_run_did(
    tmp_path: Path, make_case: Callable[..., Case], spec: Spec, monkeypatch: pytest.MonkeyPatch
) -> None:
    """rerun.sh changes to the folder `cardid` ran in first: the implementation's command (say
    `node adapter.js`) is relative to it, wherever the script is run from."""
    here = tmp_path / "parser"
    here.mkdir()
    monkeypatch.chdir(here)
    case = make_case(READER_CASE)
    saved = _save(tmp_path, case, Answered(result={"card_table": []}), spec)
    lines = (saved / "rerun.sh").read_text(encoding="utf-8").splitlines()
    assert lines[0] == "#!/bin/sh"
    assert f"cd {here} || exit 2" in lines
    assert lines[-1] == "cardid run"
