"""Known-failure files: listed failures are expected; a listed pass, an unknown case and an
expired entry each fail the run with a clear message; the verdict lists the entries used."""

from __future__ import annotations

import datetime
import json
import sys
from pathlib import Path

import pytest
from cardid_conformance.compare import Difference
from cardid_conformance.errors import UsageError
from cardid_conformance.expect import (
    KnownFailure,
    KnownFailures,
    apply_known_failures,
    load_known_failures,
)
from cardid_conformance.outcome import ExpectedFailure, Failed, Passed
from cardid_conformance.spec import Level
from cardid_runner.cli import Exit, main

from tests.processes import FAKE

TODAY = datetime.date(2026, 11, 29)


def _failed(case_id: str) -> Failed:
    difference = Difference(rule="ID-3", message="split")
    return Failed(case_id=case_id, differences=(difference,), levels=(Level.MUST,))


def _known(*entries: KnownFailure) -> KnownFailures:
    return KnownFailures(path=Path("known.yaml"), implementation="fake", entries=entries)


def test_listed_failure_becomes_an_expected_failure() -> None:
    """A listed case that fails is reported as an expected failure with the entry's reason."""
    applied = apply_known_failures(
        _known(KnownFailure(case="a", reason="bug 12")), [_failed("a")], {"a"}, TODAY
    )
    [outcome] = applied.outcomes
    assert isinstance(outcome, ExpectedFailure) and outcome.reason == "bug 12"
    assert applied.problems == ()


def test_listed_case_that_passes_is_a_problem() -> None:
    """Strict: a listed case that passes fails the run, asking for the entry's removal."""
    applied = apply_known_failures(
        _known(KnownFailure(case="a", reason="fixed?")), [Passed(case_id="a")], {"a"}, TODAY
    )
    assert applied.problems == ("known.yaml: a is listed as a known failure but passed; remove the entry",)


def test_entry_for_unknown_case_is_a_problem() -> None:
    """An entry naming no case of the corpus is reported."""
    applied = apply_known_failures(_known(KnownFailure(case="ghost", reason="x")), [], {"a"}, TODAY)
    assert applied.problems == ("known.yaml: ghost is not a case of the corpus",)


def test_expired_entry_is_a_problem_and_no_longer_waives() -> None:
    """After its expiry date an entry fails the run and the failure counts again."""
    entry = KnownFailure(case="a", reason="x", expires=datetime.date(2026, 11, 28))
    applied = apply_known_failures(_known(entry), [_failed("a")], {"a"}, TODAY)
    assert applied.problems == ("known.yaml: the entry for a expired on 2026-11-28",)
    assert isinstance(applied.outcomes[0], Failed)


def test_entry_expiring_today_still_waives() -> None:
    """An entry is valid through its expiry day."""
    entry = KnownFailure(case="a", reason="x", expires=TODAY)
    applied = apply_known_failures(_known(entry), [_failed("a")], {"a"}, TODAY)
    assert applied.problems == () and isinstance(applied.outcomes[0], ExpectedFailure)


def test_file_is_validated_against_its_schema_with_a_line(tmp_path: Path) -> None:
    """A malformed known-failure file is a usage error naming file, line and field."""
    path = tmp_path / "known.yaml"
    path.write_text("implementation: fake\nknown_failures:\n  - case: a\n    reson: typo\n", encoding="utf-8")
    with pytest.raises(UsageError) as caught:
        load_known_failures(path)
    assert f"{path}:3:" in caught.value.message
    path.write_text(
        "implementation: fake\nknown_failures:\n  - {case: a, reason: x, expires: 2027-01-31}\n",
        encoding="utf-8",
    )
    assert load_known_failures(path).entries[0].expires == datetime.date(2027, 1, 31)


def test_cli_run_with_known_failures(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """End to end: listed failures pass the run and appear in the verdict; a stale entry fails it."""
    command = f"{sys.executable} {FAKE} split"
    report = tmp_path / "r.json"
    base = ["run", "--impl", command, "--case", "flicker-keeps-id", "--case", "reader-unknown-name"]
    known = tmp_path / "known.yaml"
    known.write_text(
        "implementation: fake-split\nknown_failures:\n"
        "  - {case: flicker-keeps-id, reason: splits on flicker, issue: 'https://example.org/1'}\n",
        encoding="utf-8",
    )
    assert main([*base, "--expect", str(known), "--report-json", str(report)]) == Exit.OK
    data = json.loads(report.read_text(encoding="utf-8"))
    assert data["verdict"]["known_failures_used"] == ["flicker-keeps-id"]
    assert "known failures used: flicker-keeps-id" in capsys.readouterr().out
    known.write_text(
        "implementation: fake-split\nknown_failures:\n"
        "  - {case: flicker-keeps-id, reason: splits}\n  - {case: reader-unknown-name, reason: stale}\n",
        encoding="utf-8",
    )
    assert main([*base, "--expect", str(known)]) == Exit.FAILED
    assert "reader-unknown-name is listed as a known failure but passed" in capsys.readouterr().out
