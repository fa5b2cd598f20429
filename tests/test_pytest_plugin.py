"""The pytest plugin: cases as items named by case ID, domain diffs, -k, --junitxml and xdist."""

from __future__ import annotations

import sys
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

from conformance.cases import case_files, load_corpus
from conformance.spec import load_spec
from tests.conftest import ROOT

FAKE = Path(__file__).parent / "fakes" / "fake_impl.py"
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
    assert "rerun: pytest conformance" in text
    assert "Traceback" not in text and "def runtest" not in text


def test_items_are_named_by_case_id_for_k_and_junitxml(pytester: pytest.Pytester, tmp_path: Path) -> None:
    """-k selects by case ID, and --junitxml has one testcase per selected case, named by ID."""
    junit = tmp_path / "junit.xml"
    result = pytester.runpytest(
        str(ROOT / "conformance"), "-k", "shuffle", f"--junitxml={junit}", "-p", "no:cacheprovider"
    )
    names = {case.get("name") for case in ET.parse(junit).getroot().iter("testcase")}
    assert names and all("shuffle" in name for name in names)
    result.assert_outcomes(passed=len(names))


def test_same_results_with_xdist_and_isolate(pytester: pytest.Pytester) -> None:
    """With -n 2 (pytest-xdist) and with --isolate, the same cases pass and fail."""
    common = [str(ROOT / "conformance"), "--impl", _impl("split"), "-k", "flicker or reader or keep",
              "-p", "no:cacheprovider", "-q"]
    serial = pytester.runpytest(*common)
    parallel = pytester.runpytest_subprocess(*common, "-n", "2")
    isolated = pytester.runpytest(*common, "--isolate")
    counts = [r.parseoutcomes() for r in (serial, parallel, isolated)]
    assert counts[0]["failed"] > 0
    assert {k: counts[0][k] for k in ("passed", "failed")} == {k: counts[1][k] for k in ("passed", "failed")}
    assert {k: counts[0][k] for k in ("passed", "failed")} == {k: counts[2][k] for k in ("passed", "failed")}


def test_bad_impl_command_is_a_usage_error(pytester: pytest.Pytester) -> None:
    """An unsplittable --impl string stops pytest with a usage error."""
    result = pytester.runpytest(str(ROOT / "conformance"), "--impl", "'unterminated", "-p", "no:cacheprovider")
    assert result.ret != 0
    assert "cannot split implementation command" in result.stderr.str() + result.stdout.str()


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
        str(ROOT / "conformance"), "--impl", _impl("answers-twice-later"), "-k", "reader-unknown-name",
        "-p", "no:cacheprovider",
    )
    assert result.ret != 0
    assert "ERROR reader-unknown-name: answered the same request twice" in result.stdout.str()
