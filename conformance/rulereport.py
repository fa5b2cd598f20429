"""Results by rule and by rule family, from a run's outcomes and the cases they are of.

A case cites rules (its `rules`), and a failure names the rules it broke (each difference's
`rule`, which need not be one the case cites: every writer case checks ID-1). Counting cases
that merely cite a rule reads like a result for the rule when it is not one, so both views say
which they count:

- `rule_results`: for each rule of the spec, the cases citing it and their statuses, the cases
  whose failure names it, and one status for the rule (see `RuleResult.status`);
- `family_matrix`: cases by rule family, a failure under the families of the rules it broke
  (at their level), any other case under the families of the rules it cites.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from cardid_conformance import report
from cardid_conformance.cases import Case
from cardid_conformance.outcome import Outcome, Status, status
from cardid_conformance.spec import Level, Spec, family_of

#: The columns of the family matrix, in order, and the words the HTML report heads them with.
FAMILY_COLUMNS: Mapping[str, str] = {
    "passed": "passed",
    "failed": "failed (MUST)",
    "warning": "warnings (SHOULD)",
    "errored": "errored",
    "skipped": "skipped",
    "not-applicable": "not applicable",
    "known-failure": "known failures",
}

#: A rule's statuses (RuleResult.status), worst first.
RULE_STATUSES = ("failed", "warning", "errored", "known-failure", "inconclusive", "passed", "untested")

#: Case statuses as the per-rule counts name them.
_COUNTED = {
    Status.PASSED: "passed",
    Status.FAILED: "failed",
    Status.ERRORED: "errored",
    Status.SKIPPED: "skipped",
    Status.NOT_APPLICABLE: "not_applicable",
    Status.EXPECTED_FAILURE: "known_failures",
}


@dataclass(frozen=True, slots=True, kw_only=True)
class RuleResult:
    """One rule's result.

    `status`, the first that holds:
        failed         a failure (not a known one) names the rule, and the rule is MUST
        warning        a failure (not a known one) names the rule, and the rule is SHOULD or MAY
        errored        a case citing the rule gave no usable answer
        known-failure  only known failures name the rule, or a case citing it is a known failure
        inconclusive   a case citing the rule failed, on other rules only: it is not shown to hold
        passed         a case citing the rule passed
        untested       no case citing the rule was judged (none cites it, or all were skipped
                       or not applicable)
    """

    id: str
    level: Level
    cases: tuple[str, ...]
    counts: Mapping[str, int]
    failed_in: tuple[str, ...]
    known_failed_in: tuple[str, ...]
    status: str

    def to_dict(self) -> dict[str, Any]:
        """The rule's result as certificate.json holds it (schema/certificate.schema.json)."""
        return {
            "rule": self.id,
            "level": self.level.name,
            "cases": list(self.cases),
            **self.counts,
            "failed_in": list(self.failed_in),
            "known_failed_in": list(self.known_failed_in),
            "status": self.status,
        }


def _cited(outcome: Outcome, cases: Mapping[str, Case]) -> tuple[str, ...]:
    """The rules the outcome's case cites (none for a case bug: it has no case)."""
    case = cases.get(outcome.case_id)
    return case.rules if case is not None else ()


def rule_results(outcomes: Sequence[Outcome], cases: Mapping[str, Case], spec: Spec) -> list[RuleResult]:
    """One RuleResult per rule of the spec, in the spec's order."""
    citing: dict[str, list[Outcome]] = defaultdict(list)
    failed_in: dict[str, list[str]] = defaultdict(list)
    known_in: dict[str, list[str]] = defaultdict(list)
    for outcome in outcomes:
        for rule_id in _cited(outcome, cases):
            citing[rule_id].append(outcome)
        into = {Status.FAILED: failed_in, Status.EXPECTED_FAILURE: known_in}.get(status(outcome))
        if into is not None:
            for rule_id in dict.fromkeys(d.rule for d, _ in report.differences(outcome)):
                into[rule_id].append(outcome.case_id)
    out = []
    for rule_id, rule in spec.rules.items():
        counts = dict.fromkeys(_COUNTED.values(), 0)
        for outcome in citing[rule_id]:
            word = status(outcome)
            if word in _COUNTED:
                counts[_COUNTED[word]] += 1
        if failed_in[rule_id]:
            verdict = "failed" if rule.level is Level.MUST else "warning"
        elif counts["errored"]:
            verdict = "errored"
        elif known_in[rule_id] or counts["known_failures"]:
            verdict = "known-failure"
        elif counts["failed"]:
            verdict = "inconclusive"
        elif counts["passed"]:
            verdict = "passed"
        else:
            verdict = "untested"
        out.append(
            RuleResult(
                id=rule_id,
                level=rule.level,
                cases=tuple(outcome.case_id for outcome in citing[rule_id]),
                counts=counts,
                failed_in=tuple(failed_in[rule_id]),
                known_failed_in=tuple(known_in[rule_id]),
                status=verdict,
            )
        )
    return out


def family_matrix(outcomes: Sequence[Outcome], cases: Mapping[str, Case], spec: Spec) -> dict[str, dict[str, int]]:
    """Cases by rule family (every family of the spec, in its order) and FAMILY_COLUMNS.

    A failure counts under each family of the rules it broke: `failed` where one of them is a
    MUST rule, else `warning`; a known failure of that kind under the same families as
    `known-failure`. Any other case (case bugs aside: they cite nothing) counts under each
    family of the rules it cites, in the column of its status.
    """
    matrix = {family: dict.fromkeys(FAMILY_COLUMNS, 0) for family in spec.families}
    for outcome in outcomes:
        word = status(outcome)
        strongest: dict[str, str] = {}
        for difference, level in report.differences(outcome):
            family = family_of(difference.rule)
            if level is Level.MUST or family not in strongest:
                strongest[family] = "failed" if level is Level.MUST else "warning"
        if word is Status.FAILED and strongest:
            cells = strongest
        elif word is Status.EXPECTED_FAILURE and strongest:
            cells = dict.fromkeys(strongest, "known-failure")
        elif word in (Status.PASSED, Status.ERRORED, Status.SKIPPED, Status.NOT_APPLICABLE,
                      Status.EXPECTED_FAILURE):
            column = "known-failure" if word is Status.EXPECTED_FAILURE else word.value
            cells = dict.fromkeys((family_of(rule) for rule in _cited(outcome, cases)), column)
        else:
            continue
        for family, column in cells.items():
            matrix.setdefault(family, dict.fromkeys(FAMILY_COLUMNS, 0))[column] += 1
    return matrix
