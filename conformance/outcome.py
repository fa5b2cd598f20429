"""The result of one case: a closed union, each member a value the reports can render."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from enum import StrEnum
from typing import Any

from cardid_conformance.compare import Difference
from cardid_conformance.spec import Level


class Status(StrEnum):
    """The status of a case, as reports spell it (a StrEnum: each member equals its word)."""

    PASSED = "passed"
    FAILED = "failed"
    ERRORED = "errored"
    SKIPPED = "skipped"
    CASE_BUG = "case-bug"
    EXPECTED_FAILURE = "expected-failure"
    NOT_APPLICABLE = "not-applicable"
    NOT_RUN = "not-run"


@dataclass(frozen=True, slots=True, kw_only=True)
class Passed:
    """The answer matched the expectation."""

    case_id: str
    seconds: float = 0.0


@dataclass(frozen=True, slots=True, kw_only=True)
class Failed:
    """A valid answer that differs from the expectation: one level per difference, and the
    case counts at the strongest of them (`level`, derived, never stored apart)."""

    case_id: str
    differences: tuple[Difference, ...]
    levels: tuple[Level, ...]
    seconds: float = 0.0

    def __post_init__(self) -> None:
        if not self.differences or len(self.levels) != len(self.differences):
            raise ValueError("a failed outcome has one level per difference, and at least one")

    @property
    def level(self) -> Level:
        """The strongest level among the differences."""
        return max(self.levels)


@dataclass(frozen=True, slots=True, kw_only=True)
class Errored:
    """No usable answer: a crash, a timeout, output that is not valid JSON for the schema."""

    case_id: str
    level: Level
    reason: str
    stderr: str = ""
    seconds: float = 0.0


@dataclass(frozen=True, slots=True, kw_only=True)
class Skipped:
    """Not run: the implementation does not support the case's role."""

    case_id: str
    reason: str


@dataclass(frozen=True, slots=True, kw_only=True)
class CaseBug:
    """The case file itself is broken: a bug in the suite, never the implementation's failure."""

    case_id: str
    reason: str


@dataclass(frozen=True, slots=True, kw_only=True)
class ExpectedFailure:
    """A failure the known-failure file lists for this implementation."""

    case_id: str
    failure: Failed | Errored
    reason: str


@dataclass(frozen=True, slots=True, kw_only=True)
class NotApplicable:
    """Not run: the run is for readers of one source's logs (`--source`), and that source
    cannot express the case (conformance/sources/profile.py says why)."""

    case_id: str
    reason: str


@dataclass(frozen=True, slots=True, kw_only=True)
class NotRun:
    """Not run: the run stopped before the case (its first cases showed that the implementation
    fails at start-up, runner/execute.py); `reason` says why. Never judged, never conforming."""

    case_id: str
    reason: str


Outcome = Passed | Failed | Errored | Skipped | CaseBug | ExpectedFailure | NotApplicable | NotRun


def status(outcome: Outcome) -> Status:
    """The status of an outcome."""
    match outcome:
        case Passed():
            return Status.PASSED
        case Failed():
            return Status.FAILED
        case Errored():
            return Status.ERRORED
        case Skipped():
            return Status.SKIPPED
        case CaseBug():
            return Status.CASE_BUG
        case ExpectedFailure():
            return Status.EXPECTED_FAILURE
        case NotApplicable():
            return Status.NOT_APPLICABLE
        case NotRun():
            return Status.NOT_RUN


def to_data(outcome: Outcome) -> dict[str, Any]:
    """The outcome as plain data (str, int, float, None, lists and dicts: what a channel that
    carries no Python object takes, such as pytest-xdist's between its processes), every field
    of it: `from_data` gives back an equal outcome. Not a report: report.to_json writes those."""
    data: dict[str, Any] = {"status": status(outcome).value, "case_id": outcome.case_id}
    match outcome:
        case Passed(seconds=seconds):
            data.update(seconds=seconds)
        case Failed(differences=differences, levels=levels, seconds=seconds):
            data.update(
                differences=[
                    {"rule": d.rule, "message": d.message, "observation": d.observation,
                     "context": list(d.context), "cause": d.cause}
                    for d in differences
                ],
                levels=[level.name for level in levels],
                seconds=seconds,
            )
        case Errored(level=level, reason=reason, stderr=stderr, seconds=seconds):
            data.update(level=level.name, reason=reason, stderr=stderr, seconds=seconds)
        case (Skipped(reason=reason) | CaseBug(reason=reason) | NotApplicable(reason=reason)
              | NotRun(reason=reason)):
            data.update(reason=reason)
        case ExpectedFailure(failure=failure, reason=reason):
            data.update(failure=to_data(failure), reason=reason)
    return data


def from_data(data: Mapping[str, Any]) -> Outcome:
    """The outcome `to_data` made this data of."""
    case_id = data["case_id"]
    match Status(data["status"]):
        case Status.PASSED:
            return Passed(case_id=case_id, seconds=data["seconds"])
        case Status.FAILED:
            return Failed(
                case_id=case_id,
                differences=tuple(
                    Difference(rule=d["rule"], message=d["message"], observation=d["observation"],
                               context=tuple(d["context"]), cause=d["cause"])
                    for d in data["differences"]
                ),
                levels=tuple(Level[name] for name in data["levels"]),
                seconds=data["seconds"],
            )
        case Status.ERRORED:
            return Errored(case_id=case_id, level=Level[data["level"]], reason=data["reason"],
                           stderr=data["stderr"], seconds=data["seconds"])
        case Status.SKIPPED:
            return Skipped(case_id=case_id, reason=data["reason"])
        case Status.CASE_BUG:
            return CaseBug(case_id=case_id, reason=data["reason"])
        case Status.EXPECTED_FAILURE:
            failure = from_data(data["failure"])
            if not isinstance(failure, Failed | Errored):
                raise ValueError(f"a known failure lists a {status(failure)} outcome, not a failure")
            return ExpectedFailure(case_id=case_id, failure=failure, reason=data["reason"])
        case Status.NOT_APPLICABLE:
            return NotApplicable(case_id=case_id, reason=data["reason"])
        case Status.NOT_RUN:
            return NotRun(case_id=case_id, reason=data["reason"])
