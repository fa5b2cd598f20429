"""Failures grouped by root cause: the first difference of each failed case, by the words that
say what went wrong (`Difference.cause`), whichever rule each case cites for it. Ninety cases
failing on one bug read as one line, not ninety."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from cardid_conformance.outcome import Failed, Outcome


@dataclass(frozen=True, slots=True, kw_only=True)
class RootCause:
    """One group: the cause its cases' first differences share, the rules they name for it
    (most named first), and the cases."""

    cause: str
    rules: tuple[str, ...]
    cases: tuple[str, ...]

    def text(self) -> str:
        return f"{len(self.cases)} case(s): {self.cause} ({', '.join(self.rules)})"


def root_causes(outcomes: Sequence[Outcome]) -> list[RootCause]:
    """The failed cases (not the known failures) grouped by their first difference's cause (its
    message when it has none), the largest group first."""
    groups: dict[str, list[Failed]] = {}
    for outcome in outcomes:
        if isinstance(outcome, Failed):
            first = outcome.differences[0]
            groups.setdefault(first.cause or first.message, []).append(outcome)
    causes = []
    for cause, failed in groups.items():
        named: dict[str, int] = {}
        for outcome in failed:
            rule = outcome.differences[0].rule
            named[rule] = named.get(rule, 0) + 1
        rules = tuple(sorted(named, key=lambda rule: (-named[rule], rule)))
        causes.append(RootCause(cause=cause, rules=rules, cases=tuple(o.case_id for o in failed)))
    return sorted(causes, key=lambda group: (-len(group.cases), group.cause))
