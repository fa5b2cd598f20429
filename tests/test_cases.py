"""Loading case files: valid cases load, broken ones give an error naming file and line."""

from __future__ import annotations

import copy
import dataclasses
import json
import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from cardid_conformance.answer import Answered, Rejected
from cardid_conformance.cases import Rejection, Role, case_files, load_case, load_corpus
from cardid_conformance.errors import CaseError
from cardid_conformance.judge import judge
from cardid_conformance.outcome import Failed, Passed
from cardid_conformance.spec import Spec
from cardid_reference.errors import RequestError
from cardid_reference.writer import write

from tests.conftest import ROOT, WRITER_CASE


def _variant(**changes: Any) -> dict[str, Any]:
    data = copy.deepcopy(WRITER_CASE)
    data.update(changes)
    return data


def test_sample_case_loads_with_labels_and_a_request_without_expectations(
    make_case: Callable[..., Any],
) -> None:
    """The request holds no expect or rule key, and labels line up with observations."""
    case = make_case()
    assert case.expectation.labels == (None, "isle", "isle", "isle", "isle", None, "isle2")
    assert b'"expect"' not in case.request_bytes()
    assert b'"rule"' not in case.request_bytes()
    assert case.request["role"] == "writer"


def test_a_role_is_matched_as_its_member_and_written_as_its_word(make_case: Callable[..., Any]) -> None:
    """A case's role is a Role, given as its word or as the member; the request sent, the saved
    record and the digest spell it as the case file does, as plain strings."""
    from cardid_runner.failures import case_record

    case = make_case()
    assert case.role is Role.WRITER
    assert dataclasses.replace(case, role="reader").role is Role.READER
    assert b'"role":"writer"' in case.request_bytes()
    record = case_record(case)
    assert record["role"] == "writer" and type(record["role"]) is str
    assert dataclasses.replace(case, role=Role.WRITER).digest() == case.digest()


def test_corpus_loads_without_case_bugs(spec: Spec) -> None:
    """Every case in cases/ loads cleanly."""
    corpus = load_corpus(case_files(ROOT / "cases"), spec)
    assert corpus.bugs == ()
    assert [case.id for case in corpus.cases] == sorted(case.id for case in corpus.cases)


@pytest.mark.parametrize(
    ("mutate", "message", "line"),
    [
        (lambda d: d["rules"].append("ID-99"), "ID-99 is not a rule", 8),
        (lambda d: d.update(level="SHOULD"), "not the level of any cited rule", 4),
        (lambda d: d["input"]["observations"][1].pop("expect"), "has an object but no expect", 28),
        (lambda d: d["input"]["observations"][0].update(expect="isle"), "expect label but no object", 26),
        (lambda d: d["input"]["observations"][2].update(rule="NAME-1"), "not among the case's rules", None),
        (lambda d: d["input"]["observations"][2].update(to="graveyard"), "does not match", None),
        (lambda d: d["expect"]["instances"]["isle"].update(revealed_at=5), "revealed_at 5 is not", None),
        (lambda d: d["expect"]["instances"].update(ghost={"owner": "P1"}), "assigned to no observation", None),
    ],
)
def test_broken_case_names_file_line_and_problem(
    write_case: Callable[..., Path], spec: Spec, mutate: Callable[[dict[str, Any]], None],
    message: str, line: int | None,
) -> None:
    """A broken case raises CaseError with the file, a line and what is wrong."""
    data = copy.deepcopy(WRITER_CASE)
    mutate(data)
    path = write_case(data)
    with pytest.raises(CaseError) as caught:
        load_case(path, spec)
    assert message in caught.value.message
    assert str(path) in caught.value.message
    assert caught.value.line is not None
    if line is not None:
        assert caught.value.line == line


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("id: a\nid: b\n", "duplicate key 'id'"),
        ("a: &x [1]\nb: *x\n", "anchors and aliases"),
        ("a: !!python/object/apply:os.system ['true']\n", "tag !!python/object/apply:os.system is not allowed"),
        ("a: [1,\n", "invalid YAML"),
    ],
)
def test_hostile_yaml_is_refused_with_a_line(
    write_case: Callable[..., Path], spec: Spec, text: str, message: str
) -> None:
    """Duplicate keys, aliases, Python tags and syntax errors are case bugs with a line number."""
    with pytest.raises(CaseError) as caught:
        load_case(write_case(text), spec)
    assert message in caught.value.message
    assert caught.value.line is not None


def test_yaml_11_traps_are_caught_by_the_schema(write_case: Callable[..., Path], spec: Spec) -> None:
    """A collector number written 010 or a set code NO is not silently turned into a number or boolean."""
    data = copy.deepcopy(WRITER_CASE)
    text = write_case(data).read_text(encoding="utf-8")
    for bad in ("number: 010", "set: NO"):
        broken = text.replace("number: '254'", bad, 1) if "number" in bad else text.replace("set: ELD", bad, 1)
        assert broken != text
        with pytest.raises(CaseError) as caught:
            load_case(write_case(broken, name="sample-writer.yaml"), spec)
        assert "is not of type 'string'" in caught.value.message


def test_invalid_utf8_is_a_case_bug(write_case: Callable[..., Path], spec: Spec) -> None:
    """Bytes that are not UTF-8 give a clear error with the line."""
    path = write_case("id: x\n")
    path.write_bytes(b"id: x\ndescription: \xff\xfe\n")
    with pytest.raises(CaseError) as caught:
        load_case(path, spec)
    assert "not valid UTF-8" in caught.value.message
    assert caught.value.line == 2


def test_duplicate_case_ids_are_case_bugs(write_case: Callable[..., Path], spec: Spec) -> None:
    """Two files with one ID: the second is reported as a bug naming the first."""
    first = write_case(_variant())
    second = write_case(_variant(), name="other")
    corpus = load_corpus([first, second], spec)
    assert [case.path for case in corpus.cases] == [first]
    assert len(corpus.bugs) == 1
    assert f"already used by {first}" in corpus.bugs[0].message


def test_misnamed_case_file_is_a_case_bug(write_case: Callable[..., Path], spec: Spec) -> None:
    """A file not named after its case ID is reported, so IDs and paths never drift apart."""
    corpus = load_corpus([write_case(_variant(), name="misnamed")], spec)
    assert corpus.cases == ()
    assert "file name must be the case ID" in corpus.bugs[0].message


def _rejection_case() -> dict[str, Any]:
    data = copy.deepcopy(WRITER_CASE)
    for obs in data["input"]["observations"]:
        obs.pop("expect", None)
        obs.pop("rule", None)
    data["expect"] = {"reject": True}
    return data


def test_writer_case_can_expect_a_rejection(make_case: Callable[..., Any], spec: Spec) -> None:
    """A writer case with `expect: {reject: true}` loads as a rejection, with no labels; an
    implementation that rejects it passes, one that answers fails at the case's first rule."""
    case = make_case(_rejection_case())
    assert isinstance(case.expectation, Rejection)
    assert isinstance(judge(case, Rejected(message="inconsistent"), spec), Passed)
    answered = judge(case, Answered(result=json.loads(json.dumps(write(dict(case.request))))), spec)
    assert isinstance(answered, Failed)
    assert answered.differences[0].rule == case.rules[0]
    assert "must be rejected" in answered.differences[0].message


def test_rejection_case_with_a_label_is_a_case_bug(write_case: Callable[..., Path], spec: Spec) -> None:
    """A label in a case that expects a rejection names nothing: a case bug at its line."""
    data = _rejection_case()
    data["input"]["observations"][1]["expect"] = "isle"
    with pytest.raises(CaseError, match="expects a rejection") as info:
        load_case(write_case(data), spec)
    assert info.value.line is not None


def test_every_writer_rejection_case_ends_at_its_inconsistency(spec: Spec) -> None:
    """A writer case that must be rejected ends at the observation that makes its request
    inconsistent (the reference rejects it there), so that a failure can show that observation."""
    corpus = load_corpus(case_files(ROOT / "cases"), spec)
    elsewhere = {}
    for case in corpus.cases:
        if case.role != "writer" or not isinstance(case.expectation, Rejection):
            continue
        with pytest.raises(RequestError) as caught:
            write(dict(case.request))
        found = re.search(r"observation (\d+)", str(caught.value))
        if found is None or int(found.group(1)) != len(case.observations) - 1:
            elsewhere[case.id] = str(caught.value)
    assert not elsewhere, elsewhere
