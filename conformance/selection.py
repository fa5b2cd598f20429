"""Choosing which cases run: by case ID or glob, rule or family, CR number, tag, level and role."""

from __future__ import annotations

import fnmatch
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from cardid_conformance.cases import Case, Role
from cardid_conformance.errors import UsageError
from cardid_conformance.spec import Spec, family_of


@dataclass(frozen=True, slots=True, kw_only=True)
class Selection:
    """Filters that all must hold; within one filter, any value may match. Empty = no filter."""

    cases: tuple[str, ...] = ()
    rules: tuple[str, ...] = ()
    cr: tuple[str, ...] = ()
    tags: tuple[str, ...] = ()
    levels: tuple[str, ...] = ()
    roles: tuple[Role, ...] = ()

    def matches(self, case: Case) -> bool:
        """Whether the case passes every filter."""
        return (
            _any(self.cases, lambda pattern: fnmatch.fnmatchcase(case.id, pattern))
            and _any(self.rules, lambda rule: any(_rule_matches(rule, cited) for cited in case.rules))
            and _any(self.cr, lambda number: any(_cr_matches(number, cited) for cited in case.cr))
            and _any(self.tags, lambda tag: tag in case.tags)
            and _any(self.levels, lambda level: level.upper() == case.level.name)
            and _any(self.roles, lambda role: role is case.role)
        )

    def check(self, spec: Spec) -> None:
        """Raise a UsageError for a --rule that names no rule or family of the spec: a typo
        must not read as "matches no case"."""
        families = sorted({rule.family for rule in spec.rules.values()})
        for wanted in self.rules:
            if wanted not in spec.rules and wanted not in families:
                raise UsageError(
                    f"argument --rule: unknown rule {wanted!r}: spec {spec.version} has rule IDs "
                    f"such as ID-3 and the families ({', '.join(families)}); `cardid rules` lists them"
                )

    def apply(self, cases: Iterable[Case]) -> list[Case]:
        """The matching cases, in the order given (the corpus order: by case ID)."""
        return [case for case in cases if self.matches(case)]


def _any(values: Sequence[str], test: object) -> bool:
    return not values or any(test(value) for value in values)  # type: ignore[operator]


def _rule_matches(wanted: str, cited: str) -> bool:
    """`ID-3` matches itself; a family such as `LIB` matches every LIB rule."""
    return cited == wanted or ("-" not in wanted and family_of(cited) == wanted)


def _cr_matches(wanted: str, cited: str) -> bool:
    """`701.24` matches 701.24 and its subrules (701.24a); `701` matches the whole section."""
    return cited == wanted or cited.startswith(wanted + ".") or (
        cited.startswith(wanted) and cited[len(wanted):].isalpha()
    )
