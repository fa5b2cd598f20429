"""Turning an implementation's answer to a case into an outcome."""

from __future__ import annotations

import json
from typing import Any

from conformance import schemas
from conformance.answer import NOT_DECODED, Answer, Answered, Crashed, Rejected, Unsupported
from conformance.cases import Case, Rejection
from conformance.compare import Difference, compare_reader, compare_writer
from conformance.outcome import Errored, Failed, Outcome, Passed, Skipped
from conformance.spec import Spec


def judge(case: Case, answer: Answer, spec: Spec) -> Outcome:
    """Decide the outcome of one case from the implementation's answer."""
    return _judge(case, answer, spec)


def _judge(case: Case, answer: Answer, spec: Spec) -> Outcome:
    match answer:
        case Unsupported(role=role):
            return Skipped(case_id=case.id, reason=f"the implementation does not support the {role} role")
        case Crashed(reason=reason, stderr=stderr, seconds=seconds):
            return Errored(case_id=case.id, level=case.level, reason=reason, stderr=stderr, seconds=seconds)
        case Rejected(message=message, seconds=seconds):
            if isinstance(case.expectation, Rejection):
                return Passed(case_id=case.id, seconds=seconds)
            rule = "TXT-1" if case.role == "reader" else case.rules[0]
            why = f": {message}" if message else ""
            return _failed(
                case,
                [Difference(rule=rule, message=f"rejected a valid request as invalid input{why}")],
                spec,
                seconds,
            )
        case Answered(stderr=stderr, seconds=seconds):
            return _judge_output(case, answer, stderr, seconds, spec)


def _judge_output(case: Case, answer: Answered, stderr: str, seconds: float, spec: Spec) -> Outcome:
    try:
        result: Any = (
            json.loads(answer.output.decode("utf-8"))
            if answer.decoded is NOT_DECODED
            else answer.decoded
        )
    except UnicodeDecodeError as exc:
        return Errored(
            case_id=case.id, level=case.level, reason=f"output is not UTF-8 (byte {exc.start})",
            stderr=stderr, seconds=seconds,
        )
    except ValueError as exc:
        return Errored(
            case_id=case.id, level=case.level, reason=f"output is not JSON: {exc}",
            stderr=stderr, seconds=seconds,
        )
    if isinstance(case.expectation, Rejection):
        if case.role == "reader":
            rule, why = "TXT-2", "the text is invalid"
        else:
            rule, why = case.rules[0], "the request is inconsistent"
        return _failed(
            case,
            [Difference(rule=rule, message=f"answered, but {why} and must be rejected")],
            spec,
            seconds,
        )
    problem = schemas.first_problem(f"{case.role}-output", result)
    if problem is not None:
        return Errored(
            case_id=case.id,
            level=case.level,
            reason=f"output does not match schema/{case.role}-output.schema.json at "
            f"{problem.where()}: {problem.message}",
            stderr=stderr,
            seconds=seconds,
        )
    if case.role == "writer":
        differences = compare_writer(case, result)
    else:
        differences = compare_reader(case, result)
    if not differences:
        return Passed(case_id=case.id, seconds=seconds)
    return _failed(case, differences, spec, seconds)


def _failed(case: Case, differences: list[Difference], spec: Spec, seconds: float) -> Failed:
    levels = tuple(spec.rule(d.rule).level for d in differences)
    return Failed(
        case_id=case.id,
        level=max(levels),
        differences=tuple(differences),
        levels=levels,
        seconds=seconds,
    )
