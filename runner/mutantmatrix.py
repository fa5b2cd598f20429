"""The mutant matrix: which cases catch which deliberately wrong implementation, honestly.

Each mutant (`cardid_reference.mutants`) breaks a rule its one-line docstring names in
parentheses at its end: `(LIB-2)`, `(TOK-2, E8)`, `(C-2)`. Those are the mutant's *rules*: the
spec rules it names, the rule of each ending event it names (`E8` -> TOK-2, from the
ending-events table of spec/card-identity.md), and the adapter-contract rules (`C-2`) it names.

A case *catches* a mutant when, judged in-process as the runner would judge it:

- the outcome is Failed and at least one of its differences cites one of the mutant's rules
  (a failure citing only other rules shows the case noticed something, not that it proves the
  rule the mutant breaks); or
- the outcome is Errored (a crash, no rejection object, output off its schema) and the mutant
  names a contract rule (`C-n`): contract breaches show as errors, never as differences;

and the reference implementation passes the case (a case the reference fails proves nothing).
Only the cases of the role a mutant breaks are judged for it: it answers the other role with
the reference's code.

The functions here are pure; `Matrix` keeps the outcomes judged so far, so that a question that
needs only one catching case (does this mutant survive?) judges only as far as it must.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from cardid_conformance import files, suite
from cardid_conformance.answer import Answer, Answered, Crashed, CrashKind, Rejected
from cardid_conformance.cases import Case, Role
from cardid_conformance.judge import judge
from cardid_conformance.outcome import Errored, Failed, Outcome, Passed
from cardid_conformance.spec import Spec
from cardid_reference.adapter import answer, no_surrogate_escape
from cardid_reference.errors import RequestError
from cardid_reference.mutants import MUTANTS, ExitWithoutRejection, broken_role, entry_points
from cardid_reference.reader import read as reference_read
from cardid_reference.writer import write as reference_write

Write = Callable[[dict[str, Any]], dict[str, Any]]
Read = Callable[[str], dict[str, Any]]

#: The parenthesised group that ends a docstring's first line: `... (TOK-2, E8).`
_NAMED = re.compile(r"\(([^()]*)\)\W*$")
#: A rule ID (ID-3, LIB-5, C-2) or an ending event (E8) inside that group.
_RULE_ID = re.compile(r"\b(?:[A-Z]+-[0-9]+|E[0-9]+)\b")
_ENDING = re.compile(r"E[0-9]+")
_CONTRACT = re.compile(r"C-[0-9]+")
#: A row of the ending-events table: `| E1 | ... | LIB-2 |`.
_ENDING_ROW = re.compile(r"^\|\s*(E[0-9]+)\s*\|.*\|\s*([A-Z]+-[0-9]+)\s*\|\s*$")
#: The spec files are tens of kilobytes each.
_MAX_BYTES = 4 * 1024 * 1024


def ending_rules(path: Path = suite.SPEC_DIR / "card-identity.md") -> Mapping[str, str]:
    """Each ending event's rule, from the ending-events table (E1 -> LIB-2); empty when the
    prose cannot be read (an event then maps to no rule)."""
    try:
        text = files.read_bounded(path, _MAX_BYTES).decode("utf-8")
    except (OSError, UnicodeDecodeError):
        return {}
    return {m[1]: m[2] for line in text.splitlines() if (m := _ENDING_ROW.match(line))}


def is_contract(rule_id: str) -> bool:
    """Whether a rule ID is an adapter-contract rule (C-2), not a spec rule."""
    return _CONTRACT.fullmatch(rule_id) is not None


def named_ids(docstring: str) -> tuple[str, ...]:
    """The rule IDs and ending events a mutant's docstring names, as written, in order: those in
    the parentheses that end its first line (`(NAME-7's steps 2 and 3 swapped)` -> NAME-7)."""
    lines = docstring.strip().splitlines()
    match = _NAMED.search(lines[0]) if lines else None
    return tuple(_RULE_ID.findall(match[1])) if match else ()


def rules_named(docstring: str, endings: Mapping[str, str]) -> tuple[str, ...]:
    """The rules a docstring names: each rule ID, and each ending event's rule (`endings`;
    an event it does not list names none), without repeats, in order."""
    rules: list[str] = []
    for named in named_ids(docstring):
        rule = endings.get(named) if _ENDING.fullmatch(named) else named
        if rule is not None and rule not in rules:
            rules.append(rule)
    return tuple(rules)


def mutant_rules(name: str, endings: Mapping[str, str]) -> tuple[str, ...]:
    """The rules mutant `name` breaks, as its docstring names them."""
    return rules_named(MUTANTS[name].__doc__ or "", endings)


def mutant_role(name: str) -> Role:
    """The role mutant `name` breaks (reference/mutants words it: the reference imports nothing
    of the core)."""
    return Role(broken_role(name))


def catches(outcome: Outcome, rules: Iterable[str]) -> bool:
    """Whether an outcome catches a mutant breaking `rules`: Failed with a difference citing one
    of them, or Errored when one of them is a contract rule. Nothing else does."""
    wanted = set(rules)
    match outcome:
        case Failed(differences=differences):
            return any(difference.rule in wanted for difference in differences)
        case Errored():
            return any(is_contract(rule) for rule in wanted)
        case _:
            return False


def answer_case(case: Case, write: Write, read: Read, raw: bytes | None = None) -> Answer:
    """The answer of the write and read functions to a case's request, in-process, as the runner
    would make it of an adapter's exit status and output. `raw`: the request as sent, when the
    caller has it already."""
    raw = case.request_bytes() if raw is None else raw
    try:
        result = answer(json.loads(raw), write=write, read=read, scalars_known=no_surrogate_escape(raw))
    except RequestError as exc:
        return Rejected(message=str(exc))
    except ExitWithoutRejection:  # what the runner makes of exit status 1 with nothing on stdout
        return Crashed(reason="exit status 1 without a rejection object on standard output",
                       kind=CrashKind.NO_REJECTION_OBJECT, exit_status=1)
    except Exception as exc:  # noqa: BLE001 - any other failure is a crash, as in the runner
        return Crashed(reason=f"{type(exc).__name__}: {exc}")
    return Answered(result=json.loads(json.dumps(result)))


def outcome_of(case: Case, write: Write, read: Read, spec: Spec, raw: bytes | None = None) -> Outcome:
    """The outcome of a case for these write and read functions, judged in-process."""
    return judge(case, answer_case(case, write, read, raw), spec)


def reference_outcome(case: Case, spec: Spec, raw: bytes | None = None) -> Outcome:
    """The outcome of a case for the reference implementation."""
    return outcome_of(case, reference_write, reference_read, spec, raw)


@dataclass(frozen=True, slots=True, kw_only=True)
class MutantRow:
    """One mutant against the corpus: what it breaks, and the cases that catch it.

    `cited_instead`: the rules its Failed outcomes cite that it does not name; `errored`: how
    many of its cases errored. Both say why a mutant that survives is not caught. (Only the
    cases the reference passes count.)
    """

    name: str
    role: Role
    summary: str
    rules: tuple[str, ...]
    caught_by: tuple[str, ...]
    cited_instead: tuple[str, ...]
    errored: int

    @property
    def caught(self) -> bool:
        """Whether some case catches the mutant."""
        return bool(self.caught_by)


class Matrix:
    """The outcomes of mutants on a corpus's cases, each judged when first asked for and kept."""

    def __init__(self, spec: Spec, cases: Sequence[Case], endings: Mapping[str, str] | None = None) -> None:
        self.spec = spec
        self.cases = tuple(cases)
        self.endings = ending_rules() if endings is None else endings
        self._raw: dict[str, bytes] = {}
        self._reference: dict[str, Outcome] = {}
        self._outcomes: dict[tuple[str, str], Outcome] = {}

    def rules(self, name: str) -> tuple[str, ...]:
        """The rules mutant `name` names."""
        return mutant_rules(name, self.endings)

    def cases_for(self, name: str) -> tuple[Case, ...]:
        """The cases of the role mutant `name` breaks: the only ones that can catch it."""
        role = mutant_role(name)
        return tuple(case for case in self.cases if case.role is role)

    def _request(self, case: Case) -> bytes:
        if case.id not in self._raw:
            self._raw[case.id] = case.request_bytes()
        return self._raw[case.id]

    def reference(self, case: Case) -> Outcome:
        """The reference implementation's outcome on `case`."""
        if case.id not in self._reference:
            self._reference[case.id] = reference_outcome(case, self.spec, self._request(case))
        return self._reference[case.id]

    def sound(self, case: Case) -> bool:
        """Whether the reference implementation passes `case`: only such a case catches a mutant."""
        return isinstance(self.reference(case), Passed)

    def unsound(self) -> tuple[Case, ...]:
        """The cases the reference implementation does not pass, which catch no mutant."""
        return tuple(case for case in self.cases if not self.sound(case))

    def judged(self, name: str, case: Case) -> bool:
        """Whether the outcome of mutant `name` on `case` is known already."""
        return (name, case.id) in self._outcomes

    def outcome(self, name: str, case: Case) -> Outcome:
        """The outcome of mutant `name` on `case` (the reference's, for the other role's case)."""
        if case.role is not mutant_role(name):
            return self.reference(case)
        key = (name, case.id)
        if key not in self._outcomes:
            write, read = entry_points(name)
            self._outcomes[key] = outcome_of(case, write, read, self.spec, self._request(case))
        return self._outcomes[key]

    def caught_by(self, name: str, case: Case) -> bool:
        """Whether `case` catches mutant `name` (see the module's docstring)."""
        return (
            case.role is mutant_role(name)
            and self.sound(case)
            and catches(self.outcome(name, case), self.rules(name))
        )

    def first_catch(self, name: str) -> Case | None:
        """A case that catches mutant `name`, or None; the cases judged already are asked first."""
        ordered = sorted(self.cases_for(name), key=lambda case: not self.judged(name, case))
        return next((case for case in ordered if self.caught_by(name, case)), None)

    def caught(self, names: Iterable[str]) -> tuple[str, ...]:
        """Those of mutants `names` that some case catches."""
        return tuple(name for name in names if self.first_catch(name) is not None)

    def first_caught(self, case: Case, names: Iterable[str]) -> str | None:
        """A mutant among `names` that `case` catches, or None; those judged already first."""
        ordered = sorted(names, key=lambda name: not self.judged(name, case))
        return next((name for name in ordered if self.caught_by(name, case)), None)

    def row(self, name: str) -> MutantRow:
        """Mutant `name` judged on every case of its role."""
        rules = self.rules(name)
        cases = [case for case in self.cases_for(name) if self.sound(case)]
        outcomes = [self.outcome(name, case) for case in cases]
        cited = {
            difference.rule
            for outcome in outcomes
            if isinstance(outcome, Failed)
            for difference in outcome.differences
        }
        return MutantRow(
            name=name,
            role=mutant_role(name),
            summary=(MUTANTS[name].__doc__ or "").strip().splitlines()[0],
            rules=rules,
            caught_by=tuple(
                case.id for case, outcome in zip(cases, outcomes, strict=True) if catches(outcome, rules)
            ),
            cited_instead=tuple(sorted(cited - set(rules))),
            errored=sum(isinstance(outcome, Errored) for outcome in outcomes),
        )


def matrix(spec: Spec, cases: Sequence[Case], names: Iterable[str] | None = None) -> list[MutantRow]:
    """The whole matrix: each mutant (all by default) judged on every case of its role."""
    judged = Matrix(spec, cases)
    return [judged.row(name) for name in (MUTANTS if names is None else names)]
