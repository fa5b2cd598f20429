"""The pytest plugin: cases as items named by case ID, domain diffs, -k and --junitxml (under
-n 2: tests/test_xdist.py)."""

from __future__ import annotations

import errno
import json
import re
import shlex
import sys
import xml.etree.ElementTree as ET
from pathlib import Path

import execnet
import pytest
from cardid_conformance import schemas
from cardid_conformance.cases import Case, case_files, load_corpus
from cardid_conformance.outcome import Outcome, from_data
from cardid_conformance.spec import load_spec
from cardid_runner import pytest_plugin
from cardid_runner.cli import Exit, main
from cardid_runner.session import CaseRunner

from tests.conftest import NO_HYPOTHESIS, ROOT, exactly
from tests.processes import FAKE
from tests.report_scenarios import SCENARIOS

CORPUS_SIZE = len(load_corpus(case_files(ROOT / "cases"), load_spec()).cases)


def _impl(behaviour: str) -> str:
    return f"{sys.executable} {FAKE} {behaviour}"


def test_reference_passes_every_case_as_items(pytester: pytest.Pytester) -> None:
    """`pytest conformance` collects one item per case and the reference passes them all."""
    result = pytester.runpytest(str(ROOT / "conformance"), "-q", "-p", "no:cacheprovider")
    result.assert_outcomes(passed=CORPUS_SIZE)


def test_failures_show_the_domain_diff_not_a_traceback(pytester: pytest.Pytester) -> None:
    """A wrong implementation's failures show rule, observation and rerun line, no traceback."""
    result = pytester.runpytest(
        str(ROOT / "conformance"), "--impl", _impl("split"), "-k", "flicker-keeps-id", "-p", "no:cacheprovider"
    )
    result.assert_outcomes(failed=1)
    text = result.stdout.str()
    assert "FAIL [MUST] flicker-keeps-id: [ID-" in text
    assert "split: expected instance" in text
    assert "rerun: pytest --pyargs cardid_conformance --impl" in text
    assert "Traceback" not in text and "def runtest" not in text
    # The rerun line works as printed, from a folder that is not the checkout.
    rerun = next(line for line in text.splitlines() if "rerun: pytest" in line).split("rerun: ", 1)[1]
    again = pytester.runpytest(*shlex.split(rerun)[1:], "-p", "no:cacheprovider")
    again.assert_outcomes(failed=1)


def test_items_are_named_by_case_id_for_k_and_junitxml(pytester: pytest.Pytester, tmp_path: Path) -> None:
    """-k selects by case ID, and --junitxml has one testcase per selected case, named by ID."""
    junit = tmp_path / "junit.xml"
    result = pytester.runpytest(
        str(ROOT / "conformance"), "-k", "shuffle", f"--junitxml={junit}", "-p", "no:cacheprovider"
    )
    names = {case.get("name") for case in ET.parse(junit).getroot().iter("testcase")}
    assert names and all("shuffle" in name for name in names)
    result.assert_outcomes(passed=len(names))


def test_same_results_with_isolate(pytester: pytest.Pytester) -> None:
    """With --isolate, the same cases pass and fail (for -n 2: tests/test_xdist.py)."""
    selection = "flicker or reader-accepts-minimal or keep-through or reader-quoted"
    common = [str(ROOT / "conformance"), "--impl", _impl("split"), "-k", selection,
              "-p", "no:cacheprovider", "-q"]
    serial = pytester.runpytest(*common)
    isolated = pytester.runpytest(*common, "--isolate")
    counts = [r.parseoutcomes() for r in (serial, isolated)]
    assert counts[0]["failed"] > 0
    assert {k: counts[0][k] for k in ("passed", "failed")} == {k: counts[1][k] for k in ("passed", "failed")}


def test_broken_case_is_reported_as_a_case_bug(pytester: pytest.Pytester, tmp_path: Path) -> None:
    """A case file that does not load becomes a failing item saying BUG IN CASE, with its path."""
    folder = tmp_path / "cases"
    folder.mkdir()
    (folder / "broken.yaml").write_text("id: broken\nid: twice\n", encoding="utf-8")
    result = pytester.runpytest(
        str(ROOT / "conformance"), f"--cardid-cases={folder}", "-p", "no:cacheprovider"
    )
    result.assert_outcomes(failed=1)
    assert f"BUG IN CASE: {folder / 'broken.yaml'}:2: duplicate key 'id'" in result.stdout.str()


def test_second_answer_seen_late_fails_the_session(pytester: pytest.Pytester) -> None:
    """An implementation that answers a request twice is named, and the session fails."""
    result = pytester.runpytest(
        str(ROOT / "conformance"), "--impl", _impl("answers-twice-later"), "-k", exactly("reader-unknown-name"),
        "-p", "no:cacheprovider",
    )
    assert result.ret != 0
    assert "ERROR reader-unknown-name: answered the same request twice" in result.stdout.str()


# --- usage errors, known failures and the JSON report (runner/run.py shared with `cardid run`) ---

_RAN = re.compile(r"\b\d+ (passed|failed|xfailed|skipped|errors?)\b")


_UNSPLITTABLE = ("--impl", "'unterminated", "cannot split implementation command")
_MISSING = ("--impl", "/nonexistent/cardid-impl", "cannot start implementation '/nonexistent/cardid-impl'")
_BAD_EXPECT = ("--expect", "BAD", "(top level): 'known_failures' is a required property")


# All three are checked in pytest_configure, which an xdist controller runs once before any
# worker starts: one of them under -n 2 shows that path.
@pytest.mark.parametrize(
    ("option", "value", "message", "extra"),
    [(*_UNSPLITTABLE, []), (*_MISSING, []), (*_BAD_EXPECT, []), (*_MISSING, ["-n", "2", *NO_HYPOTHESIS])],
    ids=["serial-unsplittable-impl", "serial-missing-executable", "serial-bad-expect-file",
         "xdist-missing-executable"],
)
def test_option_errors_are_one_usage_error_before_any_item(
    pytester: pytest.Pytester, tmp_path: Path, option: str, value: str, message: str, extra: list[str]
) -> None:
    """A bad --impl (unsplittable, or no such executable) or --expect file stops the session
    at its start: exactly one error, exit 4 (usage), and no item runs."""
    if value == "BAD":
        value = str(tmp_path / "known.yaml")
        Path(value).write_text("implementation: x\n", encoding="utf-8")  # no known_failures
    run = pytester.runpytest_subprocess if extra else pytester.runpytest
    result = run(str(ROOT / "conformance"), option, value, "-p", "no:cacheprovider", *extra)
    text = result.stdout.str() + result.stderr.str()
    assert result.ret == pytest.ExitCode.USAGE_ERROR, text
    assert text.count(message) == 1, text
    assert text.count("ERROR: ") == 1, text
    assert _RAN.search(text) is None, text


def _known_file(tmp_path: Path, entries: str) -> Path:
    path = tmp_path / "known.yaml"
    path.write_text(f"implementation: fake split\nknown_failures:\n{entries}", encoding="utf-8")
    return path


def test_expect_makes_listed_failures_xfail(pytester: pytest.Pytester, tmp_path: Path) -> None:
    """--expect: a listed failure is an xfailed item, and the session passes."""
    known = _known_file(tmp_path, "  - case: flicker-keeps-id\n    reason: splits on flicker\n")
    result = pytester.runpytest(
        str(ROOT / "conformance"), "--impl", _impl("split"), "-k", "flicker-keeps-id",
        "--expect", str(known), "-p", "no:cacheprovider",
    )
    result.assert_outcomes(xfailed=1)
    assert result.ret == pytest.ExitCode.OK
    assert "KNOWN-FAILURE FILE" not in result.stdout.str()
    # Its report holds the reason, not a traceback of the plugin's frames: formatting one cost
    # some 0.1 s an item, 8 s in a session of 82 known failures.
    [report] = [r for r in result.reprec.getreports("pytest_runtest_logreport") if r.when == "call"]
    assert report.wasxfail == "known failure: splits on flicker"
    assert str(report.longrepr) == "known failure: splits on flicker"


def test_wrong_known_failure_file_fails_the_session_once(pytester: pytest.Pytester, tmp_path: Path) -> None:
    """A listed case that passes, an unknown case and an expired entry are each reported once
    (not per item, nor per worker), and fail the session; the expired entry's case fails."""
    known = _known_file(
        tmp_path,
        "  - case: reader-unknown-name\n    reason: listed, but passes\n"
        "  - case: no-such-case\n    reason: gone\n"
        "  - case: flicker-keeps-id\n    reason: old\n    expires: '2020-01-01'\n",
    )
    result = pytester.runpytest(
        str(ROOT / "conformance"), "--impl", _impl("split"), "-k", exactly("flicker-keeps-id", "reader-unknown-name"),
        "--expect", str(known), "-p", "no:cacheprovider",
    )
    result.assert_outcomes(passed=1, failed=1)
    assert result.ret == pytest.ExitCode.TESTS_FAILED
    text = result.stdout.str()
    for problem in ("reader-unknown-name is listed as a known failure but passed",
                    "no-such-case is not a case of the corpus",
                    "the entry for flicker-keeps-id expired on 2020-01-01"):
        assert text.count(problem) == 1, text


def test_plugin_report_is_the_cli_report(pytester: pytest.Pytester, tmp_path: Path) -> None:
    """--cardid-report-json writes a report valid against schema/report.schema.json, with the
    same statuses and verdict as `cardid run --report-json` over the same cases."""
    known = _known_file(tmp_path, "  - case: flicker-keeps-id\n    reason: splits on flicker\n")
    plugin_report, cli_report = tmp_path / "plugin.json", tmp_path / "cli.json"
    result = pytester.runpytest(
        str(ROOT / "conformance"), "--impl", _impl("split"), "-k", "flicker or shuffle",
        "--expect", str(known), f"--cardid-report-json={plugin_report}", "-p", "no:cacheprovider",
    )
    assert result.ret == pytest.ExitCode.TESTS_FAILED
    assert main(["run", "--impl", _impl("split"), "--case", "*flicker*", "--case", "*shuffle*",
                 "--expect", str(known), "--report-json", str(cli_report), "-q"]) == Exit.FAILED
    ours = json.loads(plugin_report.read_text(encoding="utf-8"))
    theirs = json.loads(cli_report.read_text(encoding="utf-8"))
    assert schemas.first_problem("report", ours) is None
    statuses = {r["case"]: r["status"] for r in ours["results"]}
    assert statuses == {r["case"]: r["status"] for r in theirs["results"]}
    assert statuses["flicker-keeps-id"] == "expected-failure"
    assert "failed" in statuses.values()
    assert ours["summary"] == theirs["summary"] and ours["verdict"] == theirs["verdict"]
    assert ours["implementation"] == theirs["implementation"]  # name and version from the handshake
    assert ours["implementation"]["name"]


def test_late_breach_errs_its_case_in_the_plugin_report(pytester: pytest.Pytester, tmp_path: Path) -> None:
    """Without -n, a second answer seen only at the end errs its case in the report, as in the
    CLI (-n 2: tests/test_xdist.py)."""
    path = tmp_path / "report.json"
    result = pytester.runpytest(
        str(ROOT / "conformance"), "--impl", _impl("answers-twice-later"), "-k", exactly("reader-unknown-name"),
        f"--cardid-report-json={path}", "-p", "no:cacheprovider",
    )
    assert result.ret == pytest.ExitCode.TESTS_FAILED
    data = json.loads(path.read_text(encoding="utf-8"))
    assert [(r["case"], r["status"]) for r in data["results"]] == [("reader-unknown-name", "errored")]
    assert "answered the same request twice" in data["results"][0]["message"]


def test_should_failure_is_a_passing_item_with_a_warning(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A SHOULD failure means the same as in `cardid run`: the item passes (the session
    exits 0) and pytest's warnings summary shows the WARN lines."""
    monkeypatch.setenv("PYTHONPATH", str(ROOT))
    mutant = f"{sys.executable} -m cardid_reference.mutants printing-never-bound-later"
    result = pytester.runpytest(
        str(ROOT / "conformance"), "--impl", mutant, "-k", "printing-bound-after-name-only",
        "-p", "no:cacheprovider",
    )
    result.assert_outcomes(passed=1, warnings=1)
    assert result.ret == pytest.ExitCode.OK
    text = result.stdout.str()
    assert "CardidWarning: WARN [SHOULD] printing-bound-after-name-only: [PRINT-1]" in text


def test_rule_and_level_select_items_as_in_the_cli(pytester: pytest.Pytester) -> None:
    """--rule and --level choose the items `cardid run --rule/--level` would run."""
    corpus = load_corpus(case_files(ROOT / "cases"), load_spec()).cases
    wanted = [c for c in corpus if any(r.startswith("PRINT-") for r in c.rules) and c.level.name == "SHOULD"]
    assert wanted
    result = pytester.runpytest(
        str(ROOT / "conformance"), "--rule", "PRINT", "--level", "SHOULD", "-p", "no:cacheprovider"
    )
    result.assert_outcomes(passed=len(wanted))


def test_unknown_rule_is_one_usage_error(pytester: pytest.Pytester) -> None:
    result = pytester.runpytest(str(ROOT / "conformance"), "--rule", "LIBB", "-p", "no:cacheprovider")
    text = result.stdout.str() + result.stderr.str()
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    assert text.count("unknown rule 'LIBB'") == 1, text


def test_a_program_that_cannot_start_says_why_as_the_cli_does(pytester: pytest.Pytester) -> None:
    """`--impl ./toy.js` without the executable bit: one usage error with the CLI's words."""
    (pytester.path / "toy.js").write_text("console.log(1)\n", encoding="utf-8")
    result = pytester.runpytest(str(ROOT / "conformance"), "--impl", "./toy.js", "-p", "no:cacheprovider")
    text = result.stdout.str() + result.stderr.str()
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    assert text.count("cannot start implementation './toy.js': not executable") == 1, text
    assert "run it through its interpreter: node toy.js" in text


def test_a_source_skips_what_it_cannot_express_as_not_applicable(pytester: pytest.Pytester, tmp_path: Path) -> None:
    """`--cardid-source arena` is `cardid run --source arena`: inexpressible cases are skipped,
    never sent, and the report counts them as not applicable."""
    report = tmp_path / "report.json"
    result = pytester.runpytest(
        str(ROOT / "conformance"), "-q", "-p", "no:cacheprovider", "--cardid-source", "arena",
        "--cardid-report-json", str(report), "-k",
        "alchemy-name-keeps-prefix or control-change-of-spell-in-three-player-game-keeps-id",
        "-rs",
    )
    result.assert_outcomes(passed=1, skipped=1)
    result.stdout.fnmatch_lines(["*not applicable: arena logs cannot express it*two seats*"])
    data = json.loads(report.read_text(encoding="utf-8"))
    assert data["summary"]["not_applicable"] == 1
    assert data["implementation"]["source"] == "arena"
    assert data["verdict"]["text"].startswith("CONFORMING as an Arena log reader")


def test_a_fallback_to_a_process_per_case_is_in_the_report(pytester: pytest.Pytester, tmp_path: Path) -> None:
    """As `cardid run` says it: an implementation without persistent mode runs a process per
    case, and the report says why (the plugin used to drop the reason)."""
    report = tmp_path / "report.json"
    result = pytester.runpytest(
        str(ROOT / "conformance"), "-q", "-p", "no:cacheprovider", "--impl", _impl("per-case-only"),
        "--cardid-report-json", str(report), "-k", "alchemy-name-keeps-prefix",
    )
    result.assert_outcomes(passed=1)
    implementation = json.loads(report.read_text(encoding="utf-8"))["implementation"]
    assert implementation["mode"] == "per-case"
    assert implementation["fallback_reason"]


@pytest.mark.parametrize("name", sorted(SCENARIOS))
def test_each_outcome_reaches_the_xdist_controller_unchanged(name: str) -> None:
    """Every kind of outcome, hostile text and lone surrogates in it, as an item sends it to the
    controller (execnet carries the entry between pytest-xdist's processes) comes back equal."""
    for outcome in SCENARIOS[name]().outcomes:
        sent = execnet.loads(execnet.dumps(pytest_plugin._entry(outcome, "ab" * 32, "persistent")))
        assert from_data(json.loads(sent["outcome"])) == outcome
        assert sent["mode"] == "persistent"
        assert sent["case_sha256"] == "ab" * 32


def test_a_case_the_runner_fails_on_is_errored_in_the_report(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    """The runner itself fails on one item (here no descriptor left, injected): pytest shows the
    error, and --cardid-report-json has that case errored, never a verdict for the others
    alone."""
    real = CaseRunner.outcome

    def outcome(self: CaseRunner, case: Case) -> Outcome:
        if case.id == "reader-quoted-owner":
            raise OSError(errno.EMFILE, "Too many open files")
        return real(self, case)

    monkeypatch.setattr(CaseRunner, "outcome", outcome)
    report = tmp_path / "report.json"
    result = pytester.runpytest(
        str(ROOT / "conformance"), "-k", exactly("reader-quoted-owner", "reader-unknown-name"), "-p", "no:cacheprovider",
        f"--cardid-report-json={report}",
    )
    result.assert_outcomes(passed=1, failed=1)
    data = json.loads(report.read_text(encoding="utf-8"))
    statuses = {r["case"]: r["status"] for r in data["results"]}
    assert statuses == {"reader-quoted-owner": "errored", "reader-unknown-name": "passed"}
    assert not data["verdict"]["conforming"]
    errored = next(r for r in data["results"] if r["case"] == "reader-quoted-owner")
    assert errored["message"] == "the runner failed running this case: OSError: [Errno 24] Too many open files"
