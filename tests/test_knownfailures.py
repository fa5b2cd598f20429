"""`cardid known-failures REPORT.json` (runner/knownfailures.py): a known-failure file started from
a run report, which `cardid run --expect` then accepts for exactly those failures."""

from __future__ import annotations

import datetime
import json
import os
import sys
from pathlib import Path

import pytest
from cardid_conformance.cases import case_files, load_corpus
from cardid_conformance.compare import Difference
from cardid_conformance.expect import apply_known_failures, load_known_failures
from cardid_conformance.outcome import Errored, ExpectedFailure, Failed, Outcome, Passed
from cardid_conformance.spec import Level, Spec
from cardid_runner import knownfailures
from cardid_runner.cli import main
from cardid_runner.run import Outputs, Run, conclude

from tests.conftest import ROOT

IDS = ("flicker-keeps-id", "shuffle-ends-id-of-card-on-top", "reader-accepts-minimal-entry", "alchemy-name-keeps-prefix")


def _outcomes() -> list[Outcome]:
    failed = Failed(case_id=IDS[1], differences=(Difference(rule="LIB-2", message="reused"),), levels=(Level.MUST,))
    return [
        Passed(case_id=IDS[0]),
        failed,
        Errored(case_id=IDS[2], level=Level.MUST, reason="exit status 3"),
        ExpectedFailure(case_id=IDS[3], failure=Failed(case_id=IDS[3], differences=(Difference(rule="NAME-4", message="x"),),
                                                      levels=(Level.MUST,)), reason="known"),
    ]


def _report(tmp_path: Path, spec: Spec, outcomes: list[Outcome]) -> Path:
    """A report as `cardid run --report-json` writes it (runner/run.py conclude)."""
    corpus = load_corpus([p for p in case_files(ROOT / "cases") if p.stem in IDS], spec)
    path = tmp_path / "report.json"
    the_run = Run(impl="./my-adapter", spec=spec, corpus=corpus,
                  outputs=Outputs(report_json=path))
    conclude(the_run, outcomes, selected=len(outcomes), hello=None, mode="persistent")
    return path


def test_every_failure_is_listed_with_a_placeholder_reason_and_an_expiry(
    tmp_path: Path, spec: Spec, capsys: pytest.CaptureFixture[str]
) -> None:
    report = _report(tmp_path, spec, _outcomes())
    out = tmp_path / "known.yaml"
    assert main(["known-failures", str(report), "--out", str(out), "--expires", "2099-12-31"]) == 0
    assert f"wrote {out}: 3 known failure(s) of ./my-adapter, expiring on 2099-12-31" in capsys.readouterr().out
    known = load_known_failures(out)
    assert known.implementation == "./my-adapter"
    assert [(e.case, e.reason, e.expires) for e in known.entries] == [
        (case_id, "TODO: say why this fails", datetime.date(2099, 12, 31)) for case_id in IDS[1:]
    ]
    text = out.read_text(encoding="utf-8")
    assert text.startswith("# Known failures of ./my-adapter (command: ./my-adapter), started by `cardid known-failures`")
    assert "  - case: shuffle-ends-id-of-card-on-top\n    reason: \"TODO: say why this fails\"\n" in text
    # Applied to the same outcomes, every failure is expected, and each placeholder reason is a
    # problem (the run is not accepted) until someone writes why the case fails.
    bare = [o.failure if isinstance(o, ExpectedFailure) else o for o in _outcomes()]
    applied = apply_known_failures(known, bare, IDS, datetime.date.today())
    assert [type(o).__name__ for o in applied.outcomes] == ["Passed", *["ExpectedFailure"] * 3]
    assert [problem.split(": ", 1)[1] for problem in applied.problems] == [
        f"the entry for {case_id} still has the placeholder reason 'TODO: say why this fails': write "
        "why the case fails (and an issue link)"
        for case_id in IDS[1:]
    ]
    out.write_text(text.replace("TODO: say why this fails", "splits on a shuffle (#12)"), encoding="utf-8")
    applied = apply_known_failures(load_known_failures(out), bare, IDS, datetime.date.today())
    assert applied.problems == ()


def test_the_default_expiry_is_90_days_from_today(tmp_path: Path, spec: Spec, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    report = _report(tmp_path, spec, _outcomes())
    assert main(["known-failures", str(report)]) == 0
    known = load_known_failures(tmp_path / "known-failures.yaml")
    assert {e.expires for e in known.entries} == {datetime.date.today() + datetime.timedelta(days=knownfailures.DEFAULT_DAYS)}


def test_an_existing_file_is_never_replaced(tmp_path: Path, spec: Spec, capsys: pytest.CaptureFixture[str]) -> None:
    report = _report(tmp_path, spec, _outcomes())
    out = tmp_path / "known.yaml"
    out.write_text("mine\n")
    assert main(["known-failures", str(report), "--out", str(out)]) == 2
    assert f"error: {out} already exists: a known-failure file is never replaced" in capsys.readouterr().err
    assert out.read_text() == "mine\n"


@pytest.mark.parametrize("name", ["-", "/dev/stdout", "/dev/null"])
def test_a_stream_is_no_known_failure_file(
    tmp_path: Path, spec: Spec, capfd: pytest.CaptureFixture[str], name: str
) -> None:
    """The file is read back and kept for --expect: a stream is refused, and nothing written."""
    report = _report(tmp_path, spec, _outcomes())
    assert main(["known-failures", str(report), "--out", name]) == 2
    out, err = capfd.readouterr()
    assert out == ""
    assert err.startswith(f"error: --out takes a file: {name} is a stream, and the known-failure file is kept")


def test_a_report_without_failures_writes_nothing(tmp_path: Path, spec: Spec, capsys: pytest.CaptureFixture[str]) -> None:
    report = _report(tmp_path, spec, [Passed(case_id=case_id) for case_id in IDS])
    out = tmp_path / "known.yaml"
    assert main(["known-failures", str(report), "--out", str(out)]) == 1
    assert "has no failed or errored case" in capsys.readouterr().out
    assert not out.exists()


@pytest.mark.parametrize(
    ("content", "message"),
    [
        ("{", "cannot read the run report"),
        ('{"results": [], "results": []}', "not strict JSON: the key 'results' appears twice"),
        ('{"results": []}', "not a run report (schema/report.schema.json)"),
    ],
)
def test_an_unreadable_report_is_a_usage_error(tmp_path: Path, capsys: pytest.CaptureFixture[str], content: str, message: str) -> None:
    report = tmp_path / "report.json"
    report.write_text(content)
    assert main(["known-failures", str(report), "--out", str(tmp_path / "k.yaml")]) == 2
    err = capsys.readouterr().err
    assert message in err and "hint: give the file `cardid run --report-json PATH` wrote" in err
    assert not (tmp_path / "k.yaml").exists()


@pytest.mark.parametrize(
    ("value", "message"),
    [("2027-02-30", "takes a date as YYYY-MM-DD"), ("2027-3-1", "takes a date as YYYY-MM-DD"),
     ("2000-01-01", "2000-01-01 is past")],
)
def test_a_bad_expiry_is_a_usage_error(tmp_path: Path, capsys: pytest.CaptureFixture[str], value: str, message: str) -> None:
    assert main(["known-failures", str(tmp_path / "r.json"), "--expires", value]) == 2
    assert message in capsys.readouterr().err


def test_a_rerun_with_the_file_passes(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    """The whole path with a real mutant: run, start the file from the report, run again with
    --expect: exit 0, the same failures as known ones."""
    monkeypatch.setenv("PYTHONPATH", os.pathsep.join([str(ROOT), os.environ.get("PYTHONPATH", "")]))
    impl = f"{sys.executable} -m cardid_reference.mutants keep-through-shuffle"
    select = ["--case", "shuffle-ends-id-of-card-on-top", "--case", "shuffle-ends-id-of-legendary-card",
              "--case", "flicker-keeps-id"]
    report = tmp_path / "report.json"
    assert main(["run", "--impl", impl, *select, "--report-json", str(report)]) == 1
    known = tmp_path / "known.yaml"
    assert main(["known-failures", str(report), "--out", str(known)]) == 0
    assert len(load_known_failures(known).entries) == 2
    known.write_text(known.read_text(encoding="utf-8").replace("TODO: say why this fails", "keeps IDs"),
                     encoding="utf-8")
    again = tmp_path / "again.json"
    assert main(["run", "--impl", impl, *select, "--expect", str(known), "--report-json", str(again)]) == 0
    statuses = {r["case"]: r["status"] for r in json.loads(again.read_text())["results"]}
    assert sorted(statuses.values()) == ["expected-failure", "expected-failure", "passed"]


def test_a_file_too_large_for_expect_is_not_written(
    tmp_path: Path, spec: Spec, capsys: pytest.CaptureFixture[str]
) -> None:
    """Some 15,000 failures would make a file over the size `--expect` reads: nothing is
    written (exit 1), and the message says why and what to do instead."""
    report = _report(tmp_path, spec, _outcomes())
    data = json.loads(report.read_text(encoding="utf-8"))
    failed = next(result for result in data["results"] if result["status"] == "failed")
    data["results"] = [{**failed, "case": f"generated-case-{n:05d}"} for n in range(15_000)]
    report.write_text(json.dumps(data), encoding="utf-8")
    out = tmp_path / "known.yaml"
    assert main(["known-failures", str(report), "--out", str(out)]) == 1
    assert not out.exists()
    shown = capsys.readouterr().out
    assert "15,000 failures make a known-failure file of" in shown and "(nothing written)" in shown
