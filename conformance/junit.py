"""The JUnit XML report: one testcase per case run, the format CI systems read.

Every attribute and text passes through `conformance.escape`: ElementTree writes whatever it
is given, and one NUL or ANSI escape from an implementation would make the file unparseable.
"""

from __future__ import annotations

import xml.etree.ElementTree as ET
from collections.abc import Mapping, Sequence

from cardid_conformance import escape
from cardid_conformance.cases import Case
from cardid_conformance.console import failure_lines
from cardid_conformance.outcome import (
    CaseBug,
    Errored,
    ExpectedFailure,
    Failed,
    NotApplicable,
    NotRun,
    Outcome,
    Passed,
    Skipped,
)
from cardid_conformance.report import summary
from cardid_conformance.spec import Level


def to_junit(
    outcomes: Sequence[Outcome], cases: Mapping[str, Case], rerun: Mapping[str, str]
) -> bytes:
    """Render the outcomes as a JUnit XML document (one testsuite)."""
    counts = summary(outcomes)
    suite = ET.Element(
        "testsuite",
        name="cardid",
        tests=str(counts["total"]),
        failures=str(sum(1 for o in outcomes if isinstance(o, Failed) and o.level is Level.MUST)),
        errors=str(
            sum(1 for o in outcomes if isinstance(o, Errored) and o.level is Level.MUST) + counts["case_bugs"]
        ),
        skipped=str(
            counts["skipped"] + counts["expected_failures"] + counts["not_applicable"] + counts["not_run"]
        ),
        time=f"{sum(getattr(o, 'seconds', 0.0) for o in outcomes):.3f}",
    )
    for outcome in outcomes:
        case = cases.get(outcome.case_id)
        element = ET.SubElement(
            suite,
            "testcase",
            classname=f"cardid.{case.role}" if case else "cardid.case-bug",
            name=escape.show(outcome.case_id),
            time=f"{getattr(outcome, 'seconds', 0.0):.3f}",
        )
        text = escape.show("\n".join(failure_lines(outcome, rerun.get(outcome.case_id))), lines=True)
        match outcome:
            case Passed():
                pass
            case Failed(level=Level.SHOULD | Level.MAY) | Errored(level=Level.SHOULD | Level.MAY):
                # A SHOULD failure is a warning, as in every report: the test case passes, and
                # says so where JUnit readers show it (its properties and its output).
                properties = ET.SubElement(element, "properties")
                ET.SubElement(properties, "property", name="cardid.level", value=outcome.level.name)
                ET.SubElement(properties, "property", name="cardid.warning", value=escape.show(_what(outcome)))
                ET.SubElement(element, "system-out").text = text
            case Failed(differences=differences):
                first = differences[0]
                message = escape.show(f"[{first.rule}] {first.message}")
                failure = ET.SubElement(element, "failure", message=message, type=outcome.level.name)
                failure.text = text
            case Errored(reason=reason):
                ET.SubElement(element, "error", message=escape.show(reason), type="errored").text = text
            case CaseBug(reason=reason):
                ET.SubElement(element, "error", message=escape.show(reason), type="case-bug").text = text
            case Skipped(reason=reason):
                ET.SubElement(element, "skipped", message=escape.show(reason))
            case NotApplicable(reason=reason):
                ET.SubElement(element, "skipped", message=escape.show(f"not applicable: {reason}"))
            case NotRun(reason=reason):
                ET.SubElement(element, "skipped", message=escape.show(f"not run: {reason}"))
            case ExpectedFailure(reason=reason):
                ET.SubElement(element, "skipped", message=escape.show(f"known failure: {reason}")).text = text
    return bytes(ET.tostring(suite, encoding="utf-8", xml_declaration=True))


def _what(outcome: Failed | Errored) -> str:
    if isinstance(outcome, Failed):
        return f"[{outcome.differences[0].rule}] {outcome.differences[0].message}"
    return outcome.reason
