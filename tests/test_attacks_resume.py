"""Attacks on --resume: a result is kept only while its case is unchanged (the report records
each case's digest), and a report that is edited, corrupt or not strict JSON is a usage error
naming it (exit 2), never a traceback nor a silent mix of old and new results."""

from __future__ import annotations

import copy
import json
import shutil
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from cardid_conformance import report, schemas
from cardid_conformance.cases import case_files, load_corpus
from cardid_conformance.errors import UsageError
from cardid_conformance.spec import Spec
from cardid_runner import resume
from cardid_runner.cli import Exit, main
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests.conftest import ROOT
from tests.processes import FAKE

COMMAND = f"{sys.executable} {FAKE} rename"
READERS = ["reader-unknown-name", "reader-quoted-owner", "reader-token-and-copy-markers"]


@pytest.fixture(scope="module")
def finished(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, dict[str, Any]]:
    """A folder of three reader cases and the report of a run of them."""
    tmp = tmp_path_factory.mktemp("resume")
    folder = tmp / "cases"
    folder.mkdir()
    for name in READERS:
        shutil.copy(ROOT / "cases" / "reader" / f"{name}.yaml", folder)
    path = tmp / "report.json"
    assert main(["run", "--impl", COMMAND, "--cases", str(folder), "--report-json", str(path)]) == Exit.OK
    return folder, json.loads(path.read_text(encoding="utf-8"))


def test_report_records_each_cases_digest(finished: tuple[Path, dict[str, Any]], spec: Spec) -> None:
    """Every result carries the sha256 of its loaded case, as the schema requires."""
    folder, data = finished
    digests = {case.id: case.digest() for case in load_corpus(case_files(folder), spec).cases}
    assert {r["case"]: r["case_sha256"] for r in data["results"]} == digests
    assert schemas.first_problem("report", data) is None


def _served(path: Path) -> int:
    return len(path.read_text(encoding="utf-8").split()) if path.exists() else 0


def test_case_edited_after_the_run_runs_again(
    tmp_path: Path, finished: tuple[Path, dict[str, Any]], capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """An expectation edited since the report: that case runs again (and now fails), the note
    names it, the unchanged cases keep their results without running; a comment-only edit is
    no change."""
    original, data = finished
    folder = tmp_path / "cases"
    shutil.copytree(original, folder)
    edited = folder / "reader-quoted-owner.yaml"
    text = edited.read_text(encoding="utf-8")
    assert "owner: RandomOpp13" in text
    edited.write_text(text.replace("owner: RandomOpp13", "owner: SomeoneElse"), encoding="utf-8")
    commented = folder / "reader-unknown-name.yaml"
    commented.write_text("# a comment\n" + commented.read_text(encoding="utf-8"), encoding="utf-8")
    partial = tmp_path / "partial.json"
    partial.write_text(json.dumps(data), encoding="utf-8")
    served = tmp_path / "served"
    monkeypatch.setenv("FAKE_SERVED_FILE", str(served))
    final = tmp_path / "final.json"
    code = main(["run", "--impl", COMMAND, "--cases", str(folder), "--resume", str(partial),
                 "--report-json", str(final)])
    assert code == Exit.FAILED
    out = capsys.readouterr().out
    assert f"note: 1 case(s) changed since {partial} was written, so they run again: reader-quoted-owner" in out
    assert _served(served) == 1
    statuses = {r["case"]: r["status"] for r in json.loads(final.read_text(encoding="utf-8"))["results"]}
    assert statuses == {"reader-quoted-owner": "failed", "reader-token-and-copy-markers": "passed",
                        "reader-unknown-name": "passed"}


def test_report_without_digests_resumes_nothing_stale(tmp_path: Path, finished: tuple[Path, dict[str, Any]]) -> None:
    """A result whose digest is wrong is not trusted: the case runs again."""
    folder, data = finished
    stale = copy.deepcopy(data)
    stale["results"][0]["case_sha256"] = "0" * 64
    path = tmp_path / "stale.json"
    path.write_text(json.dumps(stale), encoding="utf-8")
    cases = load_corpus(case_files(folder), _spec()).cases
    resumed = resume.resume(path, COMMAND, _spec(), cases)
    assert resumed.changed == (stale["results"][0]["case"],)
    assert set(resumed.outcomes) == {r["case"] for r in stale["results"][1:]}


def _spec() -> Spec:
    from cardid_conformance.spec import load_spec

    return load_spec()


def _set(path: list[Any], value: Any) -> Callable[[dict[str, Any]], Any]:
    def change(data: dict[str, Any]) -> Any:
        target = data
        for step in path[:-1]:
            target = target[step]
        target[path[-1]] = value
        return data

    return change


def _delete(path: list[Any]) -> Callable[[dict[str, Any]], Any]:
    def change(data: dict[str, Any]) -> Any:
        target = data
        for step in path[:-1]:
            target = target[step]
        del target[path[-1]]
        return data

    return change


#: Each way to break a report: a change of its data, or of its text; and what the error says.
BROKEN: dict[str, tuple[Callable[[Any], Any], str]] = {
    "missing-summary": (_delete(["summary"]), "not a run report (schema/report.schema.json): (top level): 'summary' is a required property"),
    "missing-case": (_delete(["results", 0, "case"]), "results[0]: 'case' is a required property"),
    "missing-digest": (_delete(["results", 0, "case_sha256"]), "'case_sha256' is a required property"),
    "bad-digest": (_set(["results", 0, "case_sha256"], "abc"), "results[0].case_sha256"),
    "status-number": (_set(["results", 0, "status"], 3), "results[0].status"),
    "unknown-status": (_set(["results", 0, "status"], "won"), "results[0].status"),
    "seconds-string": (_set(["results", 0, "seconds"], "1"), "results[0].seconds"),
    "seconds-negative": (_set(["results", 0, "seconds"], -1), "results[0].seconds"),
    "seconds-huge": (_set(["results", 0, "seconds"], 1e300), "results[0].seconds"),
    "results-object": (_set(["results"], {}), "results: {} is not of type 'array'"),
    "failed-no-differences": (_set(["results", 0, "status"], "failed"), "'differences' is a required property"),
    "failed-empty-differences": (
        lambda d: _set(["results", 0, "differences"], [])(_set(["results", 0, "status"], "failed")(d)),
        "results[0].differences: [] should be non-empty",
    ),
    "errored-no-level": (
        lambda d: _delete(["results", 0, "level"])(_set(["results", 0, "status"], "errored")(d)),
        "'level' is a required property",
    ),
    "twice": (lambda d: _set(["results"], [d["results"][0], d["results"][0]])(d), "case reader-quoted-owner has two results"),
    "command-null": (_set(["implementation", "command"], None), "implementation.command"),
    "array": (lambda d: [d], "(top level): [{"),
    "number": (lambda d: 3, "(top level): 3 is not of type 'object'"),
    "string": (lambda d: "report", "(top level): 'report' is not of type 'object'"),
    "null": (lambda d: None, "(top level): None is not of type 'object'"),
}
BROKEN_TEXT: dict[str, tuple[Callable[[str], str], str]] = {
    "nan": (lambda t: t.replace('"seconds": ', '"seconds": NaN, "x": ', 1), "not strict JSON: NaN is not a finite number"),
    "infinity": (lambda t: t.replace('"seconds": ', '"seconds": Infinity, "x": ', 1), "not strict JSON: Infinity is not a finite number"),
    "minus-infinity": (lambda t: t.replace('"seconds": ', '"seconds": -Infinity, "x": ', 1), "-Infinity is not a finite number"),
    "overflow": (lambda t: t.replace('"seconds": ', '"seconds": 1e400, "x": ', 1), "1e400 is not a finite number"),
    "duplicate-key": (lambda t: t.replace('{\n  "suite"', '{"results": [],\n  "suite"', 1), "the key 'results' appears twice"),
    "duplicate-inner-key": (lambda t: t.replace('"status": ', '"status": "passed", "status": ', 1), "the key 'status' appears twice"),
    "truncated": (lambda t: t[: len(t) // 2], "not JSON: "),
    "empty": (lambda t: "", "not JSON: Expecting value"),
    "trailing-garbage": (lambda t: t + "}", "not JSON: Extra data"),
    "huge-int": (lambda t: t.replace('"seconds": ', '"seconds": ' + "9" * 5000 + ', "x": ', 1), "not JSON: "),
    "deep": (lambda t: "[" * 100_000 + "]" * 100_000, "nested too deeply"),
    "latin-1": (lambda t: t.replace('"suite"', '"su\udce9te"'), "not UTF-8"),
}


def _report_text(data: Any) -> str:
    return json.dumps(data, indent=2)


@pytest.mark.parametrize("name", [*BROKEN, *BROKEN_TEXT])
def test_broken_report_is_a_usage_error_naming_it(
    tmp_path: Path, finished: tuple[Path, dict[str, Any]], capsys: pytest.CaptureFixture[str], name: str
) -> None:
    """Edited or corrupt: exit 2, `error: cannot read the report to resume from (--resume)
    PATH: what is wrong`, and a hint; no case runs."""
    folder, data = finished
    if name in BROKEN:
        change, message = BROKEN[name]
        text = _report_text(change(copy.deepcopy(data)))
    else:
        change_text, message = BROKEN_TEXT[name]
        text = change_text(_report_text(data))
    path = tmp_path / "report.json"
    path.write_bytes(text.encode("utf-8", errors="surrogateescape"))
    assert main(["run", "--impl", COMMAND, "--cases", str(folder), "--resume", str(path)]) == Exit.USAGE
    out, err = capsys.readouterr()
    assert err.startswith(f"error: cannot read the report to resume from (--resume) {path}: "), err
    assert message in err.splitlines()[0], err
    assert "\nhint: " in err and out == ""


# ----------------------------------------------------------------------- generated edits

JSON_VALUES = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False, allow_infinity=False)
    | st.text(max_size=8),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=6), inner, max_size=3),
    max_leaves=6,
)


def _paths(value: Any, prefix: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
    out = [prefix] if prefix else []
    if isinstance(value, dict):
        for key, item in value.items():
            out += _paths(item, (*prefix, key))
    elif isinstance(value, list):
        for index, item in enumerate(value):
            out += _paths(item, (*prefix, index))
    return out


@settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(data=st.data())
def test_any_edit_of_a_report_resumes_cleanly_or_is_a_usage_error(
    tmp_path: Path, finished: tuple[Path, dict[str, Any]], data: st.DataObject
) -> None:
    """Replace or delete any field of a real report with any JSON value: resuming from it
    either works (results that still hold, the rest to run) or raises UsageError; nothing else."""
    folder, original = finished
    edited = copy.deepcopy(original)
    where = data.draw(st.sampled_from(_paths(edited)))
    parent = edited
    for step in where[:-1]:
        parent = parent[step]
    if data.draw(st.booleans()):
        parent[where[-1]] = data.draw(JSON_VALUES)
    else:
        del parent[where[-1]]
    path = tmp_path / "report.json"
    path.write_text(json.dumps(edited), encoding="utf-8")
    spec = _spec()
    cases = load_corpus(case_files(folder), spec).cases
    try:
        resumed = resume.resume(path, COMMAND, spec, cases)
    except UsageError as exc:
        assert str(path) in exc.message
    else:
        assert set(resumed.outcomes) | set(resumed.changed) <= {case.id for case in cases}
        info = report.RunInfo(command=COMMAND, spec_version=spec.version, cases_dir=str(folder))
        by_id = {case.id: case for case in cases}
        report.to_json_text(report.to_json(list(resumed.outcomes.values()), by_id, info, spec))


def test_every_written_report_reads_back(finished: tuple[Path, dict[str, Any]], tmp_path: Path) -> None:
    """What `cardid run --report-json` writes is what --resume accepts: strict JSON, schema-valid."""
    path = tmp_path / "report.json"
    path.write_text(report.to_json_text(finished[1]), encoding="utf-8")
    assert resume.read_report(path) == finished[1]


def test_a_resumed_run_says_what_it_did_not_judge(
    tmp_path: Path, finished: tuple[Path, dict[str, Any]], capsys: pytest.CaptureFixture[str]
) -> None:
    """A report the implementation could have written itself (every case passed, marked
    interrupted) resumes nothing in silence: the console and the verdict say how many results
    come from that file and were not run again."""
    folder, data = finished
    forged = copy.deepcopy(data)
    forged["interrupted"] = True
    path = tmp_path / "forged.json"
    path.write_text(json.dumps(forged), encoding="utf-8")
    out = tmp_path / "out.json"
    capsys.readouterr()
    code = main(["run", "--impl", COMMAND, "--cases", str(folder), "--resume", str(path), "--report-json", str(out)])
    assert code == Exit.OK
    console = capsys.readouterr()
    assert f"resumed: 3 result(s) from {path}, not run again" in console.out + console.err
    verdict = json.loads(out.read_text(encoding="utf-8"))["verdict"]["text"]
    assert verdict.endswith(f"3 result(s) resumed from {path}, not run again)")
