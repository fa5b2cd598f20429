"""A case file changed while the run goes on: each case is judged as it was loaded, and the run
says that the corpus it judged is no longer the corpus (console, JSON report, verdict), with an
installed suite too, where no git commit would show it. Real processes: the implementation
itself edits the file, on its first request."""

from __future__ import annotations

import dataclasses
import json
import shutil
import sys
from pathlib import Path

import pytest
from cardid_conformance import schemas
from cardid_conformance.cases import changed_since, load_case
from cardid_conformance.spec import load_spec
from cardid_runner.cli import Exit, main

from tests.conftest import ROOT
from tests.processes import FAKE

CASES = ("reader-empty-lines-and-crlf", "reader-quoted-owner", "reader-unknown-name")
EDITED = "reader-quoted-owner"


def _run(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, how: str, *args: str) -> tuple[int, dict, Path]:
    cases = tmp_path / "cases"
    cases.mkdir()
    for case_id in CASES:
        shutil.copy(ROOT / "cases" / "reader" / f"{case_id}.yaml", cases)
    edited = cases / f"{EDITED}.yaml"
    monkeypatch.setenv("FAKE_EDIT_CASE", str(edited))
    report = tmp_path / "report.json"
    code = main(["run", "--impl", f"{sys.executable} {FAKE} edit-case {how}", "--cases", str(cases),
                 "--report-json", str(report), *args])
    data = json.loads(report.read_text(encoding="utf-8"))
    assert schemas.first_problem("report", data) is None
    return code, data, edited


@pytest.mark.parametrize(("how", "change"), [("description", "edited"), ("remove", "removed")])
@pytest.mark.parametrize("isolate", [False, True], ids=["persistent", "isolate"])
def test_a_case_changed_during_the_run_is_named_and_the_run_is_not_accepted(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str],
    how: str, change: str, isolate: bool,
) -> None:
    """The implementation edits (or removes) a case file on its first request: every case is
    still judged as loaded (all pass), but the console says which file changed, the report
    names it (suite.cases_changed), and the verdict is neither conforming nor accepted: exit 1."""
    code, data, edited = _run(tmp_path, monkeypatch, how, *(["--isolate"] if isolate else []))
    out = capsys.readouterr().out
    assert code == Exit.FAILED, out
    assert {result["status"] for result in data["results"]} == {"passed"}
    assert data["suite"]["cases_changed"] == [{"case": EDITED, "path": str(edited), "change": change}]
    verdict = data["verdict"]
    assert not verdict["conforming"] and not verdict["accepted"]
    reason = f"the corpus changed during the run: {EDITED} {change}; run again"
    assert reason in verdict["text"]
    assert "CORPUS CHANGED: 1 case file(s) changed while the run went on" in out
    assert f"      {EDITED}: {change} ({edited})" in out
    assert reason in out


def test_a_comment_edited_during_the_run_is_no_change(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """A comment added to a case file changes nothing the case is judged by (its digest): the
    run is accepted as if nothing happened."""
    code, data, edited = _run(tmp_path, monkeypatch, "comment")
    out = capsys.readouterr().out
    assert edited.read_text(encoding="utf-8").startswith("# edited while the run went on")
    assert code == Exit.OK, out
    assert data["suite"]["cases_changed"] == []
    assert data["verdict"]["conforming"] and "CORPUS CHANGED" not in out


def test_the_pytest_plugin_names_a_case_changed_during_the_session(
    pytester: pytest.Pytester, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Under the pytest plugin, which loads the corpus again to conclude: each case is compared
    as its item judged it, the summary names the file, the report has it, and the session
    fails though every item passed."""
    cases = tmp_path / "cases"
    cases.mkdir()
    for case_id in CASES:
        shutil.copy(ROOT / "cases" / "reader" / f"{case_id}.yaml", cases)
    edited = cases / f"{EDITED}.yaml"
    monkeypatch.setenv("FAKE_EDIT_CASE", str(edited))
    report = tmp_path / "report.json"
    result = pytester.runpytest(
        str(ROOT / "conformance"), "--impl", f"{sys.executable} {FAKE} edit-case description",
        "--cardid-cases", str(cases), "--cardid-report-json", str(report), "-p", "no:cacheprovider", "-q",
    )
    result.assert_outcomes(passed=len(CASES))
    assert result.ret == pytest.ExitCode.TESTS_FAILED
    assert f"{EDITED}: edited ({edited})" in result.stdout.str()
    data = json.loads(report.read_text(encoding="utf-8"))
    assert data["suite"]["cases_changed"] == [{"case": EDITED, "path": str(edited), "change": "edited"}]
    assert not data["verdict"]["accepted"]


def test_unchanged_bytes_are_not_parsed_again(tmp_path: Path) -> None:
    """A file whose bytes are those the judged case was loaded from is unchanged without being
    parsed again (it cost a fifth of a reference run); other bytes are loaded and judged. Shown
    with a spec that knows no rule, under which any case parsed again is broken."""
    spec = load_spec()
    paths = []
    for case_id in CASES:
        paths.append(tmp_path / f"{case_id}.yaml")
        shutil.copy(ROOT / "cases" / "reader" / f"{case_id}.yaml", paths[-1])
    loaded = {case.id: case for case in (load_case(path, spec) for path in paths)}
    judged = {case.id: (case.path, case.digest()) for case in loaded.values()}
    no_rules = dataclasses.replace(spec, rules={})
    assert changed_since(judged, no_rules, loaded) == ()
    paths[0].write_text(paths[0].read_text(encoding="utf-8") + "# a comment\n", encoding="utf-8")
    assert [(c.case_id, c.change) for c in changed_since(judged, no_rules, loaded)] == [(CASES[0], "broken")]
    assert changed_since(judged, spec, loaded) == ()  # a comment is no change
    assert len(changed_since(judged, no_rules)) == len(CASES)  # nothing loaded to compare bytes with
