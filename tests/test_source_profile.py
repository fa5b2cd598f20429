"""A run declared for a source format (`--source arena`): the cases that format cannot express
are not applicable, never run and never failures, counted apart in every report, and the
verdict names the implementation a reader of that source's logs."""

from __future__ import annotations

import json
import xml.etree.ElementTree as ET
from pathlib import Path
from typing import Any

import pytest
from cardid_conformance import schemas
from cardid_runner.cli import Exit, main

from tests.processes import fake

#: Three players: Arena cannot express it. Two seats, hidden tracking, top-only: it can.
INEXPRESSIBLE = "control-change-of-spell-in-three-player-game-keeps-id"
EXPRESSIBLE = "alchemy-name-keeps-prefix"
#: A rejection case (REQ): a log of a real game is never inconsistent.
REJECTION = "reject-meld-permanent-named-by-held-handle"


def _run(tmp_path: Path, *args: str) -> tuple[int, dict[str, Any]]:
    report = tmp_path / "report.json"
    code = main(["run", "--report-json", str(report), "--junit", str(tmp_path / "junit.xml"), *args])
    return code, json.loads(report.read_text(encoding="utf-8"))


def test_inexpressible_cases_are_not_applicable_and_never_sent(tmp_path: Path) -> None:
    """An implementation that dies on every request errs on the applicable case only: the
    others were never sent to it."""
    code, report = _run(
        tmp_path, "--source", "arena", "--impl", fake("crash-always"),
        "--case", INEXPRESSIBLE, "--case", EXPRESSIBLE, "--case", REJECTION,
    )
    statuses = {r["case"]: r for r in report["results"]}
    assert statuses[EXPRESSIBLE]["status"] == "errored"
    assert statuses[INEXPRESSIBLE]["status"] == "not-applicable"
    assert "two seats" in statuses[INEXPRESSIBLE]["message"]
    assert statuses[REJECTION]["status"] == "not-applicable"
    assert "rejection case" in statuses[REJECTION]["message"]
    assert "rerun" not in statuses[INEXPRESSIBLE]
    assert code == Exit.FAILED
    assert schemas.first_problem("report", report) is None
    assert report["summary"]["not_applicable"] == 2
    assert report["implementation"]["source"] == "arena"


def test_the_verdict_names_an_arena_log_reader(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, report = _run(tmp_path, "--source", "arena", "--case", INEXPRESSIBLE, "--case", EXPRESSIBLE)
    assert code == Exit.OK
    text = report["verdict"]["text"]
    assert text.startswith("CONFORMING as an Arena log reader against")
    assert "1 case(s) not applicable: Arena logs cannot express them" in text
    assert report["verdict"]["not_applicable"] == 1
    out = capsys.readouterr().out
    assert "1 passed, 0 failed, 1 not applicable (2 cases)" in out
    junit = ET.parse(tmp_path / "junit.xml").getroot()
    assert junit.get("skipped") == "1"
    skipped = junit.find(f".//testcase[@name='{INEXPRESSIBLE}']/skipped")
    assert skipped is not None and skipped.get("message", "").startswith("not applicable: ")


def test_only_inapplicable_cases_judge_nothing(tmp_path: Path) -> None:
    """A selection the source cannot express at all says nothing about the implementation."""
    code, report = _run(tmp_path, "--source", "arena", "--case", INEXPRESSIBLE)
    assert code == Exit.FAILED
    assert not report["verdict"]["conforming"]
    assert "no case was judged" in report["verdict"]["text"]


def test_without_a_source_every_case_runs(tmp_path: Path) -> None:
    code, report = _run(tmp_path, "--case", INEXPRESSIBLE, "--case", REJECTION)
    assert code == Exit.OK
    assert {r["status"] for r in report["results"]} == {"passed"}
    assert "source" not in report["implementation"]
    assert "not applicable" not in report["verdict"]["text"]


def test_a_failure_s_rerun_line_keeps_the_source(tmp_path: Path) -> None:
    _, report = _run(tmp_path, "--source", "arena", "--impl", fake("crash-always"), "--case", EXPRESSIBLE)
    assert "--source arena" in report["results"][0]["rerun"]


def test_certify_records_the_source(tmp_path: Path) -> None:
    out = tmp_path / "bundle"
    assert main(["certify", "--source", "arena", "--out", str(out)]) == Exit.OK
    certificate = json.loads((out / "certificate.json").read_text(encoding="utf-8"))
    assert schemas.first_problem("certificate", certificate) is None
    assert certificate["implementation"]["source"] == "arena"
    assert certificate["summary"]["not_applicable"] > 100
    assert "Arena log reader" in certificate["verdict"]["text"]
    by_rule = {rule["rule"]: rule for rule in certificate["rules"]}
    assert by_rule["REQ-1"]["not_applicable"] > 0
    assert main(["verify-certificate", str(out)]) == Exit.OK
