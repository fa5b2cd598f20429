"""Turning an implementation's answer to a case into an outcome."""

from __future__ import annotations

import dataclasses

from cardid_conformance import escape, schemas
from cardid_conformance.answer import Answer, Answered, Crashed, Rejected, Unsupported
from cardid_conformance.cases import Case, Rejection, Role
from cardid_conformance.compare import (
    Difference,
    answered_inconsistent,
    compare_reader,
    compare_writer,
)
from cardid_conformance.outcome import Errored, Failed, Outcome, Passed, Skipped
from cardid_conformance.spec import Spec


def judge(case: Case, answer: Answer, spec: Spec) -> Outcome:
    """Decide the outcome of one case from the implementation's answer."""
    match answer:
        case Unsupported(role=role):
            return Skipped(case_id=case.id, reason=f"the implementation does not support the {role} role")
        case Crashed(reason=reason, stderr=stderr, seconds=seconds):
            return Errored(case_id=case.id, level=case.level, reason=reason, stderr=stderr, seconds=seconds)
        case Rejected(message=message, seconds=seconds):
            if isinstance(case.expectation, Rejection):
                return Passed(case_id=case.id, seconds=seconds)
            rule = "TXT-1" if case.role is Role.READER else case.rules[0]
            why = f": {message}" if message else ""
            return _failed(
                case,
                [Difference(rule=rule, message=f"rejected a valid request as invalid input{why}",
                            cause="a valid request rejected")],
                spec,
                seconds,
            )
        case Answered():
            return _judge_result(case, answer, spec)


def _judge_result(case: Case, answer: Answered, spec: Spec) -> Outcome:
    if isinstance(case.expectation, Rejection):
        if case.role is Role.READER:
            text = str(case.request.get("text", ""))
            shown = escape.show(text if len(text) <= TEXT_SHOWN else text[:TEXT_SHOWN] + "...")
            difference = Difference(
                rule="TXT-2",
                message=f"answered, but the text is invalid and must be rejected: {shown}",
                cause="invalid text answered",
            )
        else:
            difference = answered_inconsistent(case)
        return _failed(case, [difference], spec, answer.seconds)
    problem = schemas.first_problem(f"{case.role}-output", answer.result)
    if problem is not None:
        return Errored(
            case_id=case.id,
            level=case.level,
            reason=f"output does not match schema/{case.role}-output.schema.json at "
            f"{_short(problem.where())}: {_short(problem.message)}",
            stderr=answer.stderr,
            seconds=answer.seconds,
        )
    if case.role is Role.WRITER:
        differences = compare_writer(case, answer.result)
    else:
        differences = compare_reader(case, answer.result)
    if not differences:
        return Passed(case_id=case.id, seconds=answer.seconds)
    return _failed(case, differences, spec, answer.seconds)


#: How much of a text to reject a reader's failure shows (escaped: line ends stay visible).
TEXT_SHOWN = 300

#: The longest message a difference or a schema problem keeps: they quote the implementation's
#: values, which may be megabytes long.
MESSAGE = 1000


def _short(text: str) -> str:
    return text if len(text) <= MESSAGE else f"{text[:MESSAGE]}... ({len(text):,} characters)"


def _failed(case: Case, differences: list[Difference], spec: Spec, seconds: float) -> Failed:
    differences = [
        d if len(d.message) <= MESSAGE else dataclasses.replace(d, message=_short(d.message))
        for d in differences
    ]
    return Failed(
        case_id=case.id,
        differences=tuple(differences),
        levels=tuple(spec.rule(d.rule).level for d in differences),
        seconds=seconds,
    )
