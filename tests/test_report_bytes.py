"""Every report of a run, byte for byte: report.json, report.html, summary.md, junit.xml,
badge.json and certificate.json for three fixed runs (every kind of outcome, hostile text in
each place an implementation or a case file can put some), compared with the files under
tests/data/reports/. A renderer changed on purpose changes them: write them again with
`CARDID_WRITE_REPORT_DATA=1 pytest tests/test_report_bytes.py`, and read the diff.

The runs are made of values only (a spec, cases and outcomes built here), so that neither a
change of the suite's own spec or corpus nor the machine changes a byte."""

from __future__ import annotations

import json
import os

import pytest
from cardid_conformance import schemas

from tests.report_scenarios import DATA, FILES, SCENARIOS, render

if os.environ.get("CARDID_WRITE_REPORT_DATA"):  # pragma: no cover - run by hand
    for _name, _make in SCENARIOS.items():
        (DATA / _name).mkdir(parents=True, exist_ok=True)
        for _file, _data in render(_make()).items():
            (DATA / _name / _file).write_bytes(_data)


@pytest.mark.parametrize("name", sorted(SCENARIOS))
@pytest.mark.parametrize("file", FILES)
def test_every_report_is_byte_for_byte_the_saved_one(name: str, file: str) -> None:
    """Each file of each run is the saved one."""
    rendered = render(SCENARIOS[name]())[file]
    assert rendered == (DATA / name / file).read_bytes(), f"{name}/{file} differs"


def test_the_saved_runs_say_what_they_are_for() -> None:
    """The runs cover what they claim: every status, each verdict class, each badge colour; their
    report and certificate fit the schemas."""
    for name in SCENARIOS:
        for file, schema in (("report.json", "report"), ("certificate.json", "certificate")):
            assert schemas.first_problem(schema, json.loads((DATA / name / file).read_bytes())) is None
    statuses = {
        str(result["status"])
        for name in SCENARIOS
        for result in json.loads((DATA / name / "report.json").read_text(encoding="utf-8"))["results"]
    }
    assert statuses == {"passed", "failed", "errored", "skipped", "case-bug", "expected-failure",
                        "not-applicable", "not-run"}
    colors = {json.loads((DATA / name / "badge.json").read_text(encoding="utf-8"))["color"] for name in SCENARIOS}
    assert colors == {"red", "yellowgreen", "orange"}
    classes = {
        next(line for line in (DATA / name / "report.html").read_text(encoding="utf-8").splitlines()
             if line.startswith('<header class="verdict '))
        for name in SCENARIOS
    }
    assert classes == {f'<header class="verdict {word}"><div>' for word in ("fail", "ok", "accepted")}
