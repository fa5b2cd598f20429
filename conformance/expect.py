"""Known-failure files: per implementation, strict, with expiry dates (schema/expect.schema.json)."""

from __future__ import annotations

import datetime
from collections.abc import Collection, Sequence
from dataclasses import dataclass
from pathlib import Path

from cardid_conformance import schemas, yamlfile
from cardid_conformance.errors import CaseError, UsageError
from cardid_conformance.outcome import Errored, ExpectedFailure, Failed, Outcome, Passed


@dataclass(frozen=True, slots=True, kw_only=True)
class KnownFailure:
    """One entry: a case this implementation is known to fail, and why."""

    case: str
    reason: str
    issue: str | None = None
    expires: datetime.date | None = None


@dataclass(frozen=True, slots=True, kw_only=True)
class KnownFailures:
    """A known-failure file, loaded."""

    path: Path
    implementation: str
    entries: tuple[KnownFailure, ...]

    def active(self, case_id: str, today: datetime.date) -> KnownFailure | None:
        """The unexpired entry for a case, if any: a failure it covers is expected."""
        for entry in self.entries:
            if entry.case == case_id and (entry.expires is None or entry.expires >= today):
                return entry
        return None


#: What to do about a broken known-failure file, whatever is wrong with it.
_FIX = "fix the known-failure file (schema/expect.schema.json), or run without --expect"


def load_known_failures(path: Path) -> KnownFailures:
    """Read and validate a known-failure file (YAML or JSON): any problem is a UsageError
    naming the file and, where there is one, the line."""
    try:
        data = yamlfile.load(path)  # a date such as `expires: 2027-03-31` is read as its text
    except CaseError as exc:
        raise UsageError(f"known-failure file {exc.message}", hint=_FIX) from None
    problem = schemas.first_problem("expect", data)
    if problem is not None:
        line = yamlfile.line_of(path, problem.location)
        where = f"{path}:{line}" if line else str(path)
        raise UsageError(f"known-failure file {where}: {problem.where()}: {problem.message}", hint=_FIX)
    entries = []
    seen: set[str] = set()
    for index, raw in enumerate(data["known_failures"]):
        if raw["case"] in seen:
            line = yamlfile.line_of(path, ("known_failures", index))
            raise UsageError(
                f"known-failure file {path}:{line}: case {raw['case']} is listed twice",
                hint="keep one entry per case",
            )
        seen.add(raw["case"])
        try:
            expires = datetime.date.fromisoformat(raw["expires"]) if "expires" in raw else None
        except ValueError:
            line = yamlfile.line_of(path, ("known_failures", index, "expires"))
            raise UsageError(
                f"known-failure file {path}:{line}: expires {raw['expires']!r} is not a date",
                hint="write a real date as YYYY-MM-DD",
            ) from None
        entries.append(
            KnownFailure(case=raw["case"], reason=raw["reason"], issue=raw.get("issue"), expires=expires)
        )
    return KnownFailures(path=path, implementation=data["implementation"], entries=tuple(entries))


@dataclass(frozen=True, slots=True, kw_only=True)
class Applied:
    """Outcomes with known failures marked, and every way the file itself is wrong."""

    outcomes: tuple[Outcome, ...]
    problems: tuple[str, ...]


#: The reason `cardid known-failures` writes, for a person to replace with why the case fails.
PLACEHOLDER_REASON = "TODO: say why this fails"


def apply_known_failures(
    known: KnownFailures,
    outcomes: Sequence[Outcome],
    corpus_ids: Collection[str],
    today: datetime.date,
) -> Applied:
    """Mark listed failures as expected; a listed pass, an unknown case, an expired entry or a
    placeholder reason is a problem."""
    by_case = {entry.case: entry for entry in known.entries}
    problems = []
    for entry in known.entries:
        if entry.case not in corpus_ids:
            problems.append(f"{known.path}: {entry.case} is not a case of the corpus")
        elif entry.expires is not None and entry.expires < today:
            problems.append(
                f"{known.path}: the entry for {entry.case} expired on {entry.expires.isoformat()}"
            )
        elif entry.reason.strip().startswith("TODO"):
            problems.append(
                f"{known.path}: the entry for {entry.case} still has the placeholder reason "
                f"{entry.reason.strip()!r}: write why the case fails (and an issue link)"
            )
    marked: list[Outcome] = []
    for outcome in outcomes:
        listed = by_case.get(outcome.case_id)
        expired = listed is not None and listed.expires is not None and listed.expires < today
        if listed is None or expired:
            marked.append(outcome)
        elif isinstance(outcome, Failed | Errored):
            marked.append(ExpectedFailure(case_id=outcome.case_id, failure=outcome, reason=listed.reason))
        elif isinstance(outcome, Passed):
            problems.append(
                f"{known.path}: {listed.case} is listed as a known failure but passed; "
                "remove the entry"
            )
            marked.append(outcome)
        else:
            marked.append(outcome)
    return Applied(outcomes=tuple(marked), problems=tuple(problems))
