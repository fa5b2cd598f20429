"""Run reports: what a run was (RunInfo), its summary, and the JSON form validated by
schema/report.schema.json; the verdict itself is conformance/verdict.py's."""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any

from cardid_conformance import escape
from cardid_conformance.cases import Case, CaseChange
from cardid_conformance.compare import Difference
from cardid_conformance.generate.campaign import Campaign
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
    Status,
    status,
)
from cardid_conformance.spec import Level, Spec
from cardid_conformance.verdict import Verdict, verdict


class Mode(StrEnum):
    """How the implementation ran (adapter contract): one process per case, or one process
    answering request after request; as reports spell it (a StrEnum: each member equals its
    word)."""

    PER_CASE = "per-case"
    PERSISTENT = "persistent"


@dataclass(frozen=True, slots=True, kw_only=True)
class RunInfo:
    """What was run: the implementation as the handshake described it, and the suite."""

    command: str
    spec_version: str
    cases_dir: str
    name: str | None = None
    version: str | None = None
    mode: Mode = Mode.PER_CASE
    interrupted: bool = False
    rerun: Mapping[str, str] = field(default_factory=dict)
    known_failures_file: str | None = None
    known_failure_problems: tuple[str, ...] = ()
    #: How many cases the corpus holds: a run of fewer is a selection, and its verdict says so.
    corpus_size: int | None = None
    suite_version: str | None = None
    suite_commit: str | None = None
    #: suite.cases_sha256 of the selected cases.
    cases_sha256: str | None = None
    #: Why persistent mode was not used, when the run fell back to one process per case.
    fallback_reason: str | None = None
    #: Whether the cases are the suite's own corpus (not a folder of the user's, --cases).
    suite_corpus: bool = True
    #: How many results were taken from an earlier report (--resume), not judged in this run,
    #: and that report: they are only as trustworthy as the file.
    resumed: int = 0
    resumed_from: str | None = None
    #: The source format the run was declared for (--source), if any.
    source: str | None = None
    #: The generated games the run added (--generated), and what they found.
    generated: Campaign | None = None
    #: The selected cases whose file changed while the run went on (read again at its end).
    cases_changed: tuple[CaseChange, ...] = ()

    def __post_init__(self) -> None:
        # A mode given as its word ("per-case") is the member, as a case's role is.
        object.__setattr__(self, "mode", Mode(self.mode))


def run_verdict(outcomes: Sequence[Outcome], cases: Mapping[str, Case], info: RunInfo) -> Verdict:
    """The verdict every report of this run shows."""
    return verdict(
        outcomes,
        cases,
        known_failure_problems=len(info.known_failure_problems),
        corpus_size=info.corpus_size,
        interrupted=info.interrupted,
        cases_from=None if info.suite_corpus else info.cases_dir,
        resumed=(info.resumed, info.resumed_from) if info.resumed and info.resumed_from else None,
        source=info.source,
        generated=None if info.generated is None else (len(info.generated.seeds), len(info.generated.disagreements)),
        corpus_changed=tuple(change.text() for change in info.cases_changed),
    )


def summary(outcomes: Sequence[Outcome]) -> dict[str, int]:
    """Counts by status; `total` counts every case."""
    counts = Counter(status(outcome) for outcome in outcomes)
    return {
        "total": len(outcomes),
        "passed": counts[Status.PASSED],
        "failed": counts[Status.FAILED],
        "errored": counts[Status.ERRORED],
        "skipped": counts[Status.SKIPPED],
        "expected_failures": counts[Status.EXPECTED_FAILURE],
        "case_bugs": counts[Status.CASE_BUG],
        "not_applicable": counts[Status.NOT_APPLICABLE],
        "not_run": counts[Status.NOT_RUN],
    }


def to_json(
    outcomes: Sequence[Outcome], cases: Mapping[str, Case], info: RunInfo, spec: Spec
) -> dict[str, Any]:
    """The report as JSON-ready data (schema/report.schema.json)."""
    result_list = []
    for outcome in outcomes:
        case = cases.get(outcome.case_id)
        entry: dict[str, Any] = {"case": outcome.case_id, "status": status(outcome)}
        if case is not None:
            entry.update(
                role=case.role, level=case.level.name, rules=list(case.rules), case_sha256=case.digest()
            )
        entry.update(_details(outcome, spec))
        again = rerun(outcome, info)
        if again is not None:
            entry["rerun"] = again
        result_list.append(entry)
    v = run_verdict(outcomes, cases, info)
    implementation: dict[str, Any] = {
        "command": info.command,
        "name": info.name,
        "version": info.version,
        "mode": info.mode,
    }
    if info.fallback_reason is not None:
        implementation["fallback_reason"] = info.fallback_reason
    if info.source is not None:
        implementation["source"] = info.source
    return {
        "suite": {
            "spec_version": info.spec_version,
            "cases": info.cases_dir,
            "version": info.suite_version,
            "commit": info.suite_commit,
            "cases_sha256": info.cases_sha256,
            "cases_changed": [
                {"case": c.case_id, "path": None if c.path is None else str(c.path), "change": c.change}
                for c in info.cases_changed
            ],
        },
        "implementation": implementation,
        "interrupted": info.interrupted,
        "summary": summary(outcomes),
        "verdict": verdict_json(v, info),
        "results": result_list,
        **({"generated": info.generated.to_json()} if info.generated is not None else {}),
    }


def to_json_text(data: Mapping[str, Any]) -> str:
    """The report as strict JSON text: no NaN or Infinity (`allow_nan=False`), and every lone
    surrogate written as visible text, so the file is valid UTF-8 for any reader."""
    return escape.json_document(json.dumps(data, indent=2, ensure_ascii=False, allow_nan=False)) + "\n"


def verdict_json(v: Verdict, info: RunInfo) -> dict[str, Any]:
    """The verdict as a report's `verdict` member (and a certificate's) holds it."""
    return {
        "text": v.text(info.spec_version),
        "conforming": v.conforming,
        "accepted": v.accepted,
        "roles": list(v.roles),
        "untested_roles": list(v.untested_roles),
        "must_failures": v.must_failures,
        "known_must_failures": v.known_must_failures,
        "should_failures": v.should_failures,
        "not_applicable": v.not_applicable,
        "not_run": v.not_run,
        "known_failures_used": list(v.known_failures_used),
        "known_failures_file": info.known_failures_file,
        "known_failure_problems": list(info.known_failure_problems),
    }


# What a report shows of one outcome: the JSON report's result entry and report.html say the
# same, from these.


def message(outcome: Outcome) -> str:
    """What went wrong (a failure's first difference, an error's reason), or why the case was
    not judged; a known failure's says so. Empty for a pass."""
    match outcome:
        case Passed():
            return ""
        case Failed(differences=differences):
            return f"[{differences[0].rule}] {differences[0].message}"
        case (Errored(reason=reason) | Skipped(reason=reason) | CaseBug(reason=reason)
              | NotApplicable(reason=reason) | NotRun(reason=reason)):
            return reason
        case ExpectedFailure(failure=failure, reason=reason):
            return f"known failure ({reason}): {message(failure)}"


def shown_level(outcome: Outcome) -> Level | None:
    """The level a failure is shown at (a known failure: that of the failure it lists); None
    for an outcome that is no failure."""
    inner = outcome.failure if isinstance(outcome, ExpectedFailure) else outcome
    return inner.level if isinstance(inner, Failed | Errored) else None


def differences(outcome: Outcome) -> tuple[tuple[Difference, Level], ...]:
    """A failure's differences, each with its level (a known failure: those of the failure it
    lists); none for any other outcome."""
    inner = outcome.failure if isinstance(outcome, ExpectedFailure) else outcome
    if isinstance(inner, Failed):
        return tuple(zip(inner.differences, inner.levels, strict=True))
    return ()


def stderr(outcome: Outcome) -> str:
    """An error's standard error (a known failure: that of the error it lists), else ""."""
    inner = outcome.failure if isinstance(outcome, ExpectedFailure) else outcome
    return inner.stderr if isinstance(inner, Errored) else ""


def rerun(outcome: Outcome, info: RunInfo) -> str | None:
    """The command that runs the case again, for a case that did not pass and was run."""
    if isinstance(outcome, Passed | Skipped | NotApplicable | NotRun):
        return None
    return info.rerun.get(outcome.case_id)


def _details(outcome: Outcome, spec: Spec) -> dict[str, Any]:
    match outcome:
        case Passed(seconds=seconds):
            return {"seconds": round(seconds, 6)}
        case Failed(level=level, seconds=seconds):
            return {
                "level": level.name,
                "message": message(outcome),
                "differences": [
                    {
                        "rule": d.rule,
                        "level": lv.name,
                        "message": d.message,
                        "observation": d.observation,
                        "context": list(d.context),
                        **({"cause": d.cause} if d.cause else {}),
                    }
                    for d, lv in differences(outcome)
                ],
                "seconds": round(seconds, 6),
            }
        case Errored(level=level, stderr=text, seconds=seconds):
            return {"level": level.name, "message": message(outcome), "stderr": text, "seconds": round(seconds, 6)}
        case Skipped() | CaseBug() | NotApplicable() | NotRun():
            return {"message": message(outcome)}
        case ExpectedFailure(failure=failure):
            return {**_details(failure, spec), "message": message(outcome)}


def outcomes_from_json(data: Mapping[str, Any]) -> dict[str, Outcome]:
    """The finished outcomes a (partial) report holds, by case ID, for resuming a run.

    Known failures and case bugs are left out: a resumed run decides those afresh.
    """
    outcomes: dict[str, Outcome] = {}
    for result in data["results"]:
        case_id, word = result["case"], result["status"]
        seconds = float(result.get("seconds", 0.0))
        match word:
            case "passed":
                outcomes[case_id] = Passed(case_id=case_id, seconds=seconds)
            case "failed":
                differences = tuple(
                    Difference(
                        rule=d["rule"],
                        message=d["message"],
                        observation=d.get("observation"),
                        context=tuple(d.get("context", ())),
                        cause=d.get("cause", ""),
                    )
                    for d in result["differences"]
                )
                levels = tuple(Level[d["level"]] for d in result["differences"])
                outcomes[case_id] = Failed(
                    case_id=case_id, differences=differences, levels=levels,
                    seconds=seconds,
                )
            case "errored":
                outcomes[case_id] = Errored(
                    case_id=case_id, level=Level[result["level"]], reason=result.get("message", ""),
                    stderr=result.get("stderr", ""), seconds=seconds,
                )
            case "skipped":
                outcomes[case_id] = Skipped(case_id=case_id, reason=result.get("message", ""))
            case "not-applicable":
                outcomes[case_id] = NotApplicable(case_id=case_id, reason=result.get("message", ""))
    return outcomes
