"""Interrupted runs: SIGINT or SIGTERM ends every implementation process, leaves a valid partial
report and no temporary files, and --resume finishes with the results of an uninterrupted run."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from cardid_conformance import schemas
from cardid_runner.cli import Exit, main

from tests.processes import FAKE, running

#: 50 ms a case: the run is still going when the signal comes, after five cases.
COMMAND = f"{sys.executable} {FAKE} slow-case 0.05"


def _cardid(*args: str, env: dict[str, str]) -> subprocess.Popen[str]:
    return subprocess.Popen(
        [sys.executable, "-m", "cardid_runner", "run", "--impl", COMMAND, *args],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env,
    )


@pytest.mark.parametrize(
    ("signum", "jobs"), [(signal.SIGINT, "1"), (signal.SIGTERM, "2")], ids=["SIGINT-j1", "SIGTERM-j2"]
)
def test_interrupt_then_resume(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], signum: int, jobs: str
) -> None:
    """A signal mid-run gives exit 128 + its number and a partial report; resuming completes
    every case. (SIGHUP, and signals after the first: tests/test_attacks_signals.py.) The signal
    goes to a `cardid` process of its own; the resumed run is `cardid run` in this one."""
    scratch = tmp_path / "tmp"
    scratch.mkdir()
    pids = tmp_path / "pids"
    served = tmp_path / "served"
    env = {**os.environ, "TMPDIR": str(scratch), "FAKE_PID_FILE": str(pids), "FAKE_SERVED_FILE": str(served)}
    partial = tmp_path / "partial.json"
    proc = _cardid("--report-json", str(partial), "-j", jobs, "--role", "reader", env=env)
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline and (
        not served.exists() or len(served.read_text(encoding="utf-8").split()) < 5
    ):
        time.sleep(0.05)
    proc.send_signal(signum)
    _, err = proc.communicate(timeout=60)
    assert proc.returncode == 128 + signum, err
    assert f"resume with --resume {partial}" in err

    data = json.loads(partial.read_text(encoding="utf-8"))
    assert schemas.first_problem("report", data) is None
    assert data["interrupted"] is True
    finished = [r["case"] for r in data["results"]]
    assert finished and all(r["status"] == "passed" for r in data["results"])
    assert not list(scratch.iterdir()), "temporary files were left behind"
    assert not list(tmp_path.glob(".*.partial"))
    assert not [pid for pid in map(int, pids.read_text().split()) if running(pid)]

    final = tmp_path / "final.json"
    monkeypatch.setenv("FAKE_SLOW", "0")  # the same command, without the pause the interruption needed
    code = main(["run", "--impl", COMMAND, "--resume", str(partial), "--report-json", str(final), "-j", jobs,
                 "--role", "reader"])
    assert code == Exit.OK, capsys.readouterr()
    full = json.loads(final.read_text(encoding="utf-8"))
    assert full["interrupted"] is False
    cases = [r["case"] for r in full["results"]]
    assert cases == sorted(cases) and len(cases) > len(finished)
    assert all(r["status"] == "passed" for r in full["results"])
    assert full["summary"]["total"] == full["summary"]["passed"]


def test_resume_refuses_a_report_of_another_implementation(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Resuming from a run of another command is a usage error, not a silent mix."""
    partial = tmp_path / "p.json"
    assert main(["run", "--case", "reader-unknown-name", "--report-json", str(partial), "-q"]) == Exit.OK
    capsys.readouterr()
    assert main(["run", "--impl", COMMAND, "--resume", str(partial)]) == Exit.USAGE
    assert "is a run of 'cardid reference'" in capsys.readouterr().err
