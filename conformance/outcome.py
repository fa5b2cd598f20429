"""The result of one case: a closed union, each member a value the reports can render."""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum

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
