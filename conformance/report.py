"""Run reports: summary, verdict, and the JSON form validated by schema/report.schema.json."""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from cardid_conformance import escape
from cardid_conformance.cases import Case
from cardid_conformance.compare import Difference
from cardid_conformance.outcome import (
    CaseBug,
    Errored,
    ExpectedFailure,
    Failed,
    Outcome,
    Passed,
    Skipped,
    Status,
    status,
)
from cardid_conformance.spec import Level, Spec


@dataclass(frozen=True, slots=True, kw_only=True)
class Verdict:
    """Conforming when no case fails at MUST level; SHOULD failures are warnings."""

    conforming: bool
    must_failures: int
    should_failures: int
    known_failures_used: tuple[str, ...] = ()
    #: Cases judged on an answer (passed or failed, known failures included): a run that judged
    #: none (every case skipped or errored) says nothing about conformance, and is not conforming.
    judged: int = 0


@dataclass(frozen=True, slots=True, kw_only=True)
class RunInfo:
    """What was run: the implementation as the handshake described it, and the suite."""

    command: str
    spec_version: str
    cases_dir: str
    name: str | None = None
    version: str | None = None
    mode: str = "per-case"
    interrupted: bool = False
    rerun: Mapping[str, str] = field(default_factory=dict)
    known_failures_file: str | None = None
    known_failure_problems: tuple[str, ...] = ()


def failure_level(outcome: Outcome) -> Level | None:
    """The level at which an outcome counts against the verdict, or None if it does not."""
    match outcome:
        case Failed(level=level) | Errored(level=level):
            return level
        case _:
            return None


def verdict(outcomes: Sequence[Outcome]) -> Verdict:
    """Compute the certification verdict."""
    levels = [failure_level(outcome) for outcome in outcomes]
    must = sum(1 for level in levels if level is Level.MUST)
    should = sum(1 for level in levels if level is Level.SHOULD)
    used = tuple(o.case_id for o in outcomes if isinstance(o, ExpectedFailure))
    bugs = any(isinstance(o, CaseBug) for o in outcomes)
    judged = sum(
        1
        for o in outcomes
        if isinstance(o, Passed | Failed)
        or (isinstance(o, ExpectedFailure) and isinstance(o.failure, Failed))
    )
    return Verdict(
        conforming=must == 0 and not bugs and judged > 0,
        must_failures=must,
        should_failures=should,
        known_failures_used=used,
        judged=judged,
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
        if outcome.case_id in info.rerun and not isinstance(outcome, Passed | Skipped):
            entry["rerun"] = info.rerun[outcome.case_id]
        result_list.append(entry)
    v = verdict(outcomes)
    implementation: dict[str, Any] = {
        "command": info.command,
        "name": info.name,
        "version": info.version,
        "mode": info.mode,
    }
    return {
        "suite": {"spec_version": info.spec_version, "cases": info.cases_dir},
        "implementation": implementation,
        "interrupted": info.interrupted,
        "summary": summary(outcomes),
        "verdict": {
            "conforming": v.conforming,
            "must_failures": v.must_failures,
            "should_failures": v.should_failures,
            "known_failures_used": list(v.known_failures_used),
            "known_failures_file": info.known_failures_file,
            "known_failure_problems": list(info.known_failure_problems),
        },
        "results": result_list,
    }


def to_json_text(data: Mapping[str, Any]) -> str:
    """The report as strict JSON text: no NaN or Infinity (`allow_nan=False`), and every lone
    surrogate written as visible text, so the file is valid UTF-8 for any reader."""
    return escape.json_document(json.dumps(data, indent=2, ensure_ascii=False, allow_nan=False)) + "\n"


def _details(outcome: Outcome, spec: Spec) -> dict[str, Any]:
    match outcome:
        case Passed(seconds=seconds):
            return {"seconds": round(seconds, 6)}
        case Failed(level=level, differences=differences, levels=levels, seconds=seconds):
            first = differences[0]
            return {
                "level": level.name,
                "message": f"[{first.rule}] {first.message}",
                "differences": [
                    {
                        "rule": d.rule,
                        "level": lv.name,
                        "message": d.message,
                        "observation": d.observation,
                        "context": list(d.context),
                    }
                    for d, lv in zip(differences, levels, strict=True)
                ],
                "seconds": round(seconds, 6),
            }
        case Errored(level=level, reason=reason, stderr=stderr, seconds=seconds):
            return {"level": level.name, "message": reason, "stderr": stderr, "seconds": round(seconds, 6)}
        case Skipped(reason=reason) | CaseBug(reason=reason):
            return {"message": reason}
        case ExpectedFailure(failure=failure, reason=reason):
            inner = _details(failure, spec)
            inner["message"] = f"known failure ({reason}): {inner.get('message', '')}"
            return inner


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
    return outcomes
