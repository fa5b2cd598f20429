"""The result of one case: a closed union, each member a value the reports can render."""

from __future__ import annotations

from dataclasses import dataclass

from conformance.compare import Difference
from conformance.spec import Level


@dataclass(frozen=True, slots=True, kw_only=True)
class Passed:
    """The answer matched the expectation."""

    case_id: str
    seconds: float = 0.0


@dataclass(frozen=True, slots=True, kw_only=True)
class Failed:
    """A valid answer that differs from the expectation; `level` is its strongest broken rule's."""

    case_id: str
    level: Level
    differences: tuple[Difference, ...]
    levels: tuple[Level, ...]
    seconds: float = 0.0


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


Outcome = Passed | Failed | Errored | Skipped | CaseBug | ExpectedFailure


def status(outcome: Outcome) -> str:
    """The report's status word for an outcome."""
    match outcome:
        case Passed():
            return "passed"
        case Failed():
            return "failed"
        case Errored():
            return "errored"
        case Skipped():
            return "skipped"
        case CaseBug():
            return "case-bug"
        case ExpectedFailure():
            return "expected-failure"
