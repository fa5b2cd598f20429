"""The verdict says what is true: which roles it speaks for, never conforming while a MUST case
fails (listed as a known failure or not), SHOULD failures warnings with one meaning in every
report, and the run's identity (implementation, suite version, commit, cases hash)."""

from __future__ import annotations

import dataclasses
import xml.etree.ElementTree as ET
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import pytest
from cardid_conformance import console, report, schemas, suite
from cardid_conformance import verdict as verdict_module
from cardid_conformance.cases import Case, case_files, load_corpus
from cardid_conformance.compare import Difference
from cardid_conformance.junit import to_junit
from cardid_conformance.markdown import to_markdown
from cardid_conformance.outcome import (
    CaseBug,
    Errored,
    ExpectedFailure,
    Failed,
    NotRun,
    Outcome,
    Passed,
    Skipped,
)
from cardid_conformance.spec import Level, Spec, load_spec
from cardid_conformance.verdict import Verdict
from cardid_runner import provenance

WRITER_MUST = "flicker-keeps-id"
WRITER_SHOULD = "printing-from-source-id-for-opponent"
READER = "reader-accepts-minimal-entry"


@pytest.fixture(scope="module")
def cases() -> dict[str, Case]:
    spec_ = _spec()
    return {case.id: case for case in load_corpus(case_files(suite.CASES_DIR), spec_).cases}


def _spec() -> Spec:
    from cardid_conformance.spec import load_spec

    return load_spec()


def _failed(case_id: str, rule: str, level: Level) -> Failed:
    return Failed(case_id=case_id, differences=(Difference(rule=rule, message="differs"),), levels=(level,))


def _verdict(outcomes: Sequence[Outcome], cases: Mapping[str, Case], **kwargs: Any) -> Verdict:
    return verdict_module.verdict(outcomes, cases, **kwargs)


def test_fixture_cases_have_the_roles_and_levels_the_tests_assume(cases: dict[str, Case]) -> None:
    assert cases[WRITER_MUST].role == "writer" and cases[WRITER_MUST].level is Level.MUST
    assert cases[WRITER_SHOULD].level is Level.SHOULD
    assert cases[READER].role == "reader"


def test_a_known_must_failure_is_accepted_and_never_conforming(cases: dict[str, Case]) -> None:
    """Exit follows the gate (accepted); the words stay true (not conforming)."""
    known = ExpectedFailure(case_id=WRITER_MUST, failure=_failed(WRITER_MUST, "ID-3", Level.MUST), reason="r")
    v = _verdict([known, Passed(case_id=READER)], cases)
    assert (v.conforming, v.accepted, v.must_failures, v.known_must_failures) == (False, True, 0, 1)
    text = v.text("1.1.0")
    assert text.startswith("NOT CONFORMING against card-identity spec 1.1.0: 1 MUST case(s) fail, 1 of them listed")
    assert "accepted: every MUST failure is a listed known failure" in text


def test_an_unlisted_must_failure_is_neither(cases: dict[str, Case]) -> None:
    v = _verdict([_failed(WRITER_MUST, "ID-3", Level.MUST), Passed(case_id=READER)], cases)
    assert (v.conforming, v.accepted, v.must_failures) == (False, False, 1)
    assert "accepted" not in v.text("1.1.0")


def test_a_reader_only_run_is_certified_as_a_reader_only(cases: dict[str, Case]) -> None:
    skipped = Skipped(case_id=WRITER_MUST, reason="no writer role")
    v = _verdict([skipped, Passed(case_id=READER)], cases)
    assert v.conforming and v.roles == ("reader",) and v.untested_roles == ("writer",)
    assert v.text("1.1.0") == (
        "CONFORMING as a reader against card-identity spec 1.1.0 (writer role not tested: 1 case(s) skipped)"
    )


def test_both_roles_judged_names_both(cases: dict[str, Case]) -> None:
    v = _verdict([Passed(case_id=WRITER_MUST), Passed(case_id=READER)], cases)
    assert v.text("1.1.0") == "CONFORMING as a writer and a reader against card-identity spec 1.1.0"


def test_a_selection_says_so_and_a_run_of_all_cases_does_not(cases: dict[str, Case]) -> None:
    outcomes = [Passed(case_id=WRITER_MUST)]
    assert "a selection of 1 of 2 cases" in _verdict(outcomes, cases, corpus_size=2).text("1.1.0")
    assert "selection" not in _verdict(outcomes, cases, corpus_size=1).text("1.1.0")


def test_an_interrupted_run_claims_nothing(cases: dict[str, Case]) -> None:
    """Interrupted after cases that passed, a run is neither conforming nor accepted: it shows
    nothing about the cases it did not reach."""
    v = _verdict([Passed(case_id=WRITER_MUST)], cases, corpus_size=2, interrupted=True)
    assert (v.conforming, v.accepted) == (False, False)
    assert v.text("1.2.0") == (
        "NOT CONFORMING against card-identity spec 1.2.0: the run was interrupted before every "
        "selected case ran (tested as a writer; a selection of 1 of 2 cases)"
    )


def test_a_run_of_the_users_own_cases_says_so(cases: dict[str, Case]) -> None:
    """Cases from another folder (--cases) are not the suite's corpus: the verdict names them."""
    v = _verdict([Passed(case_id=WRITER_MUST)], cases, cases_from="mycases")
    assert v.conforming
    assert v.text("1.2.0") == (
        "CONFORMING as a writer against card-identity spec 1.2.0 (cases from mycases, not the "
        "suite's corpus)"
    )


def test_a_known_failure_file_with_problems_is_not_accepted(cases: dict[str, Case]) -> None:
    v = _verdict([Passed(case_id=WRITER_MUST)], cases, known_failure_problems=1)
    assert v.conforming and not v.accepted
    assert "the known-failure file has 1 problem(s)" in v.text("1.1.0")


def test_case_bugs_and_nothing_judged_are_not_conforming(cases: dict[str, Case]) -> None:
    bug = CaseBug(case_id="cases/x.yaml", reason="broken")
    v = _verdict([bug, Passed(case_id=READER)], cases)
    assert not v.conforming and not v.accepted and "1 case bug(s)" in v.text("1.1.0")
    errored = Errored(case_id=READER, level=Level.MUST, reason="crash")
    v = _verdict([errored], cases)
    assert not v.conforming and "no case was judged" in v.text("1.1.0")


def _info(**kwargs: object) -> report.RunInfo:
    return report.RunInfo(command="impl", spec_version=load_spec().version, cases_dir="cases", **kwargs)  # type: ignore[arg-type]


def test_a_run_that_stopped_early_claims_nothing_and_marks_every_case_not_run(
    cases: dict[str, Case], spec: Spec
) -> None:
    """Cases the run stopped before (the implementation fails at start-up) are `not-run` in
    every report: neither conforming nor accepted, whatever the cases that ran did; counted
    apart on the console, skipped in JUnit, listed in the JSON report (valid for its schema)."""
    not_run = NotRun(case_id=READER, reason="the run stopped after its first 1 case(s) errored alike")
    outcomes = [Passed(case_id=WRITER_MUST), not_run]
    v = _verdict(outcomes, cases)
    assert (v.conforming, v.accepted, v.not_run) == (False, False, 1)
    assert v.text("1.2.0") == (
        "NOT CONFORMING against card-identity spec 1.2.0: 1 case(s) not run: the run stopped "
        "early (tested as a writer)"
    )
    info = _info()
    assert console.summary_lines(outcomes, cases, spec, info)[0] == "1 passed, 0 failed, 1 not run (2 cases)"
    assert console.failure_lines(not_run, None) == []
    root = ET.fromstring(to_junit(outcomes, cases, {}))
    skipped = root.find(f"testcase[@name='{READER}']/skipped")
    assert root.get("skipped") == "1" and skipped is not None
    assert skipped.get("message") == f"not run: {not_run.reason}"
    assert "(1 not run: the run stopped early)" in to_markdown(outcomes, cases, info, spec)
    data = report.to_json(outcomes, cases, info, spec)
    assert schemas.first_problem("report", data) is None
    assert data["results"][1]["status"] == "not-run" and data["results"][1]["message"] == not_run.reason
    assert data["summary"]["not_run"] == 1 and data["verdict"]["not_run"] == 1
    assert READER not in report.outcomes_from_json(data)  # a resumed run runs it


def test_a_should_failure_is_a_warning_in_every_report(cases: dict[str, Case], spec: Spec) -> None:
    """Conforming and accepted; console WARN and counted as a warning; JUnit a passing test
    case with the warning as a property; Markdown and JSON the same verdict sentence."""
    warned = _failed(WRITER_SHOULD, "PRINT-1", Level.SHOULD)
    outcomes = [warned, Passed(case_id=READER)]
    v = _verdict(outcomes, cases)
    assert v.conforming and v.accepted and v.should_failures == 1
    info = _info()
    lines = console.summary_lines(outcomes, cases, spec, info)
    assert lines[0] == "1 passed, 0 failed, 1 SHOULD warnings (2 cases)"
    assert console.failure_lines(warned, None)[0].startswith("WARN [SHOULD]")
    root = ET.fromstring(to_junit(outcomes, cases, {}))
    assert root.get("failures") == "0" and root.get("errors") == "0"
    case = root.find(f"testcase[@name='{WRITER_SHOULD}']")
    assert case is not None and case.find("failure") is None and case.find("error") is None
    warning = case.find("properties/property[@name='cardid.warning']")
    assert warning is not None and "[PRINT-1] differs" in str(warning.get("value"))
    sentence = v.text(spec.version)
    assert f"verdict: {sentence}" in lines
    assert sentence in to_markdown(outcomes, cases, info, spec)
    assert report.to_json(outcomes, cases, info, spec)["verdict"]["text"] == sentence


def test_an_errored_should_case_is_a_warning_too(cases: dict[str, Case]) -> None:
    errored = Errored(case_id=WRITER_SHOULD, level=Level.SHOULD, reason="crash")
    v = _verdict([errored, Passed(case_id=READER)], cases)
    assert v.conforming and v.should_failures == 1
    root = ET.fromstring(to_junit([errored], cases, {}))
    assert root.find("testcase/error") is None


def test_a_failure_names_its_rule_summary_and_case_file(cases: dict[str, Case], spec: Spec) -> None:
    lines = console.failure_lines(
        _failed(WRITER_MUST, "ID-3", Level.MUST), "cardid run --case x", case=cases[WRITER_MUST], spec=spec
    )
    assert f"      rule ID-3 (MUST): {spec.rule('ID-3').summary}" in lines
    file_line = next(line for line in lines if line.startswith("      case file: "))
    assert file_line.endswith(f"{WRITER_MUST}.yaml")
    assert lines[-1] == "      rerun: cardid run --case x"


def test_a_long_stderr_keeps_its_last_twenty_lines_and_says_so() -> None:
    """A Node.js stack trace puts the TypeError near its top: 3 lines lost it."""
    stderr = "TypeError: x is undefined\n" + "".join(f"    at frame {n}\n" for n in range(19))
    lines = console.failure_lines(Errored(case_id="c", level=Level.MUST, reason="crash", stderr=stderr), None)
    assert "      stderr: TypeError: x is undefined" in lines
    longer = "first\n" + stderr
    lines = console.failure_lines(Errored(case_id="c", level=Level.MUST, reason="crash", stderr=longer), None)
    assert "      stderr (last 20 of 21 lines; the report keeps more):" in lines
    assert "      stderr: first" not in lines


def test_report_carries_the_suite_identity_and_a_hash_of_the_cases(cases: dict[str, Case], spec: Spec) -> None:
    digests = [(WRITER_MUST, cases[WRITER_MUST].digest()), (READER, cases[READER].digest())]
    info = _info(suite_version=suite.version(), suite_commit=provenance.commit(), cases_sha256=suite.cases_sha256(digests))
    data = report.to_json([Passed(case_id=WRITER_MUST), Passed(case_id=READER)], cases, info, spec)
    assert schemas.first_problem("report", data) is None
    assert data["suite"]["version"] == suite.version() != "unknown"
    assert data["suite"]["cases_sha256"] == suite.cases_sha256(reversed(digests))  # order-free
    assert data["suite"]["cases_sha256"] != suite.cases_sha256(digests[:1])
    assert suite.cases_sha256([(READER, "0" * 64)]) != suite.cases_sha256([(READER, "1" * 64)])
    commit = provenance.commit()
    if (suite.ROOT / ".git").exists():
        assert commit is not None and len(commit.split("+")[0]) == 40
    assert console.identity_lines(info)[1].startswith(f"suite: cardid {suite.version()}")


def test_console_names_the_implementation_mode_and_command() -> None:
    info = _info(name="myparser", version="2.3.0", mode="persistent")
    assert console.identity_lines(info)[0] == "implementation: myparser 2.3.0, persistent mode, command: impl"
    assert "no handshake" in console.identity_lines(_info())[0]


def test_known_failure_file_problem_gates_the_cli_exit(tmp_path: Path) -> None:
    """Through the CLI: a known MUST failure exits 0 and prints NOT CONFORMING."""
    import sys

    from cardid_runner.cli import main

    fake = Path(__file__).parent / "fakes" / "fake_impl.py"
    known = tmp_path / "known.yaml"
    known.write_text(
        "implementation: fake\nknown_failures:\n"
        f"  - case: {WRITER_MUST}\n    reason: splits on flicker\n    expires: 2999-01-01\n",
        encoding="utf-8",
    )
    out = tmp_path / "out.md"
    code = main(["run", "--impl", f"{sys.executable} {fake} split", "--case", WRITER_MUST,
                 "--expect", str(known), "--markdown", str(out)])
    assert code == 0
    text = out.read_text(encoding="utf-8")
    assert "⚠️" in text and "NOT CONFORMING" in text and "accepted" in text


def test_a_run_that_fell_back_to_a_process_per_case_says_why_above_the_verdict(cases: dict[str, Case]) -> None:
    """Persistent mode refused (a pretty-printed handshake): the run passes, slower, and the
    verdict block says why every case had a process of its own."""
    info = dataclasses.replace(_info(), fallback_reason='the handshake is not JSON: "{" looks like ...')
    lines = console.summary_lines([Passed(case_id=WRITER_MUST)], cases, _spec(), info)
    assert lines[-2] == (
        "note: every case ran in a process of its own (slower), since persistent mode was not used: "
        'the handshake is not JSON: "{" looks like ...'
    )
    assert lines[-1].startswith("verdict: CONFORMING")


def test_a_known_failure_line_shows_what_the_case_does_now(cases: dict[str, Case]) -> None:
    """An XFAIL line names the entry's reason and the current difference, so that a failure
    that changed under an old entry is seen."""
    failure = _failed(WRITER_MUST, "ID-3", Level.MUST)
    lines = console.failure_lines(ExpectedFailure(case_id=WRITER_MUST, failure=failure, reason="splits"), None)
    assert lines[:2] == [f"XFAIL {WRITER_MUST}: known failure: splits", "      now: [ID-3] differs"]


def test_the_console_family_table_counts_a_failure_where_it_broke(cases: dict[str, Case]) -> None:
    """As report.html's matrix: a failure counts under the family of the rule it broke, not
    under every family its case cites, so the two tables never disagree."""
    case = cases[WRITER_MUST]
    broken = _failed(WRITER_MUST, "NAME-1", Level.MUST)
    lines = console.summary_lines([broken], cases, _spec(), _info())
    families = {line.split()[0] for line in lines if line.startswith("  ") and "failing" in line}
    assert families == {"NAME"}
    assert all(rule.split("-")[0] != "NAME" for rule in case.rules)  # cited nowhere by the case
