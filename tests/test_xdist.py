"""The pytest plugin under pytest-xdist (-n 2): one session, several claims.

Starting pytest with two workers costs a second or more, so one session carries what the
serial tests check one by one (tests/test_pytest_plugin.py, tests/test_attacks_plugin.py),
each claim on cases of its own. Its implementation, `fake_impl.py xdist-mix`, splits the writer
answers, answers reader-quoted-owner twice (the second time later) and writes a hostile line
for some reader requests, each request the same way whichever worker it reaches:

- outcomes as in a serial session, and the CLI's report over the same cases;
- a listed failure xfailed, each known-failure problem reported once (not per worker);
- a second answer that only a worker sees, after its item passed, fails the session;
- hostile answer lines err their items, never the session.
"""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

import pytest
from cardid_conformance import schemas
from cardid_runner.cli import Exit, main

from tests.conftest import NO_HYPOTHESIS, ROOT, exactly

IMPL = f"{sys.executable} {Path(__file__).parent / 'fakes' / 'fake_impl.py'} xdist-mix"
#: The same 14 cases for `pytest -k` and `cardid run --case`, by their whole IDs (a prefix, or
#: -k's substring match, would take in each new case that shares it).
SELECTION = ("flicker-keeps-id", "shuffle-ends-id-of-card-on-top", "shuffle-ends-id-of-legendary-card",
             "reader-unknown-name", "reader-quoted-owner", "reader-rejects-empty-name",
             "reader-rejects-empty-owner", "reader-rejects-empty-quoted-owner",
             "reader-rejects-unknown-escape", "reader-rejects-unknown-escape-minimal",
             "reader-rejects-unknown-kind", "reader-rejects-unquoted-name",
             "reader-rejects-unquoted-name-minimal", "reader-rejects-upper-case-source-id-prefix")
KNOWN = (
    "implementation: fake xdist-mix\nknown_failures:\n"
    "  - case: flicker-keeps-id\n    reason: splits on flicker\n"
    "  - case: shuffle-ends-id-of-card-on-top\n    reason: old\n    expires: '2020-01-01'\n"
    "  - case: reader-unknown-name\n    reason: listed, but passes\n"
    "  - case: no-such-case\n    reason: gone\n"
)
PROBLEMS = (
    "reader-unknown-name is listed as a known failure but passed",
    "no-such-case is not a case of the corpus",
    "the entry for shuffle-ends-id-of-card-on-top expired on 2020-01-01",
)
LATE_BREACH = "ERROR reader-quoted-owner: answered the same request twice (seen after the item finished)"


class _Session:
    def __init__(self, folder: Path) -> None:
        self.folder = folder
        self.known = folder / "known.yaml"
        self.known.write_text(KNOWN, encoding="utf-8")
        self.report = folder / "plugin.json"

    def args(self) -> list[str]:
        return [str(ROOT / "conformance"), "--impl", IMPL, "-k", exactly(*SELECTION), "--expect", str(self.known),
                f"--cardid-report-json={self.report}", "-p", "no:cacheprovider"]


Ran = tuple[_Session, subprocess.CompletedProcess[str]]


@pytest.fixture(scope="module")
def xdist_session(tmp_path_factory: pytest.TempPathFactory) -> Ran:
    session = _Session(tmp_path_factory.mktemp("xdist"))
    proc = subprocess.run(
        [sys.executable, "-m", "pytest", *session.args(), *NO_HYPOTHESIS, "-n", "2"],
        cwd=session.folder, capture_output=True, text=True, timeout=300, check=False,
    )
    return session, proc


def _outcomes(text: str) -> dict[str, int]:
    last = text.strip().splitlines()[-1]
    return {word: int(count) for count, word in re.findall(r"(\d+) (passed|failed|xfailed|error)", last)}


def _statuses(report: Path) -> dict[str, str]:
    data = json.loads(report.read_text(encoding="utf-8"))
    return {r["case"]: r["status"] for r in data["results"]}


def test_xdist_session_has_the_serial_outcomes(xdist_session: Ran, pytester: pytest.Pytester, tmp_path: Path) -> None:
    session, proc = xdist_session
    assert "gw0" in proc.stdout or "2 workers" in proc.stdout, proc.stdout  # xdist really ran
    assert proc.returncode == pytest.ExitCode.TESTS_FAILED, proc.stdout
    serial_session = _Session(tmp_path)
    serial = pytester.runpytest(*serial_session.args())
    assert serial.ret == pytest.ExitCode.TESTS_FAILED
    expected = {"passed": 9, "failed": 4, "xfailed": 1}
    assert _outcomes(proc.stdout) == _outcomes(serial.stdout.str()) == expected, proc.stdout
    assert _statuses(session.report) == _statuses(serial_session.report)


def test_xdist_session_reports_each_known_failure_problem_once(xdist_session: Ran) -> None:
    _, proc = xdist_session
    for problem in PROBLEMS:
        assert proc.stdout.count(problem) == 1, proc.stdout


def test_xdist_session_report_is_the_cli_report(xdist_session: Ran, tmp_path: Path) -> None:
    session, _ = xdist_session
    cli_report = tmp_path / "cli.json"
    chosen = [option for case_id in SELECTION for option in ("--case", case_id)]
    assert main(["run", "--impl", IMPL, *chosen, "--expect", str(session.known), "--report-json", str(cli_report),
                 "-q"]) == Exit.FAILED
    ours = json.loads(session.report.read_text(encoding="utf-8"))
    theirs = json.loads(cli_report.read_text(encoding="utf-8"))
    assert schemas.first_problem("report", ours) is None
    statuses = _statuses(session.report)
    assert statuses == _statuses(cli_report) and len(statuses) == 14
    assert statuses["flicker-keeps-id"] == "expected-failure"
    assert statuses["shuffle-ends-id-of-card-on-top"] == "failed"  # its entry expired
    assert statuses["reader-unknown-name"] == "passed"
    assert ours["summary"] == theirs["summary"] and ours["verdict"] == theirs["verdict"]
    assert ours["implementation"] == theirs["implementation"]  # name and version from the handshake
    assert ours["implementation"]["name"] == "fake-xdist-mix"


def test_late_breach_seen_by_an_xdist_worker_fails_the_session(xdist_session: Ran) -> None:
    """The second answer to reader-quoted-owner comes after its item passed, and only its worker
    sees it: it reaches the controller, which says it once and errs the case in the report."""
    session, proc = xdist_session
    assert proc.stdout.count(LATE_BREACH) == 1, proc.stdout
    data = json.loads(session.report.read_text(encoding="utf-8"))
    [result] = [r for r in data["results"] if r["case"] == "reader-quoted-owner"]
    assert result["status"] == "errored" and "answered the same request twice" in result["message"]
    assert data["verdict"]["conforming"] is False


def test_hostile_lines_err_items_and_never_the_session(xdist_session: Ran) -> None:
    """Reader requests answered with a hostile line (a seq echoed as an array, bytes that are
    not UTF-8) err their items; nothing reaches pytest as an internal error."""
    session, proc = xdist_session
    text = proc.stdout + proc.stderr
    assert "INTERNALERROR" not in text and "Traceback" not in text, text
    data = json.loads(session.report.read_text(encoding="utf-8"))
    hostile = {r["case"]: r["message"] for r in data["results"]
               if r["case"].startswith("reader-rejects-") and r["status"] == "errored"}
    assert len(hostile) >= 2, data["results"]
    for case_id, message in hostile.items():
        assert f"ERROR [MUST] {case_id}: {message}" in text, text
    assert sum(r["status"] == "passed" and r["case"].startswith("reader-rejects-") for r in data["results"]) >= 2


def test_a_case_whose_worker_is_killed_errs_in_the_report(tmp_path: Path) -> None:
    """The implementation kills its pytest-xdist worker on one case: that case errs in the
    --cardid-report-json (it was left out, and the verdict said CONFORMING for the rest)."""
    report = tmp_path / "plugin.json"
    cases = ("reader-unknown-name", "reader-quoted-owner", "flicker-keeps-id")
    impl = f"{sys.executable} {Path(__file__).parent / 'fakes' / 'fake_impl.py'} kill-parent"
    proc = subprocess.run(
        [sys.executable, "-m", "pytest", str(ROOT / "conformance"), "--impl", impl, "-k", exactly(*cases),
         f"--cardid-report-json={report}", "-p", "no:cacheprovider", *NO_HYPOTHESIS, "-n", "2"],
        cwd=tmp_path, capture_output=True, text=True, timeout=300, check=False,
    )
    assert proc.returncode == pytest.ExitCode.TESTS_FAILED, proc.stdout[-3000:]
    data = json.loads(report.read_text(encoding="utf-8"))
    statuses = {r["case"]: r["status"] for r in data["results"]}
    assert statuses["reader-unknown-name"] == "errored", statuses  # the case the fake targets
    assert statuses["reader-quoted-owner"] == statuses["flicker-keeps-id"] == "passed"
    assert not data["verdict"]["conforming"]
    killed = next(r for r in data["results"] if r["case"] == "reader-unknown-name")
    assert killed["message"].startswith("the pytest-xdist worker running it died")
