"""Corpus lint: every check a case must pass before it can judge an implementation."""

from __future__ import annotations

import csv
import io
from collections import defaultdict
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path

from cardid_conformance import files, suite, yamlfile
from cardid_conformance.cases import Case, Corpus
from cardid_conformance.errors import CaseError, UsageError
from cardid_conformance.spec import Spec


@dataclass(frozen=True, slots=True, kw_only=True)
class Problem:
    """One lint finding, printed as `path:line: message`."""

    path: Path
    line: int | None
    message: str

    def __str__(self) -> str:
        where = f"{self.path}:{self.line}" if self.line is not None else str(self.path)
        return f"{where}: {self.message}"

    @classmethod
    def from_error(cls, error: CaseError) -> Problem:
        """A case bug as a lint finding."""
        return cls(path=error.path, line=error.line, message=error.reason)


def lint(
    corpus: Corpus,
    spec: Spec,
    *,
    cr_numbers: frozenset[str] | None = None,
    cards_csv: Path | None = None,
    coverage: bool = True,
    spec_path: Path = suite.RULES_INDEX,
) -> list[Problem]:
    """Return every problem in the corpus (and the spec index's own citations)."""
    problems = [Problem.from_error(bug) for bug in corpus.bugs]
    problems += _check_reviewed(corpus.cases)
    if cr_numbers is not None:
        problems += _check_cr(corpus.cases, spec, cr_numbers, spec_path)
    if cards_csv is not None:
        problems += _check_cards(corpus.cases, _read_cards(cards_csv))
    if coverage:
        cited = {rule for case in corpus.cases for rule in case.rules}
        for rule_id in spec.rules:
            if rule_id not in cited:
                problems.append(
                    Problem(path=spec_path, line=None, message=f"rule {rule_id} is cited by no case")
                )
    return problems


#: The tag `cardid new --from-failure` and `cardid shrink` give a case whose expectation is the
#: reference's answer, which nobody has checked against the spec yet.
NEEDS_REVIEW = "needs-review"


def _check_reviewed(cases: Iterable[Case]) -> list[Problem]:
    out = []
    for case in cases:
        if NEEDS_REVIEW in case.tags:
            index = case.tags.index(NEEDS_REVIEW)
            out.append(
                Problem(
                    path=case.path,
                    line=yamlfile.line_of(case.path, ("tags", index)),
                    message=f"tagged {NEEDS_REVIEW}: its expectation is the reference's answer, "
                    "not checked against the spec; check every label and entry against the cited "
                    f"rules, then remove the {NEEDS_REVIEW} tag and the # REVIEW comment",
                )
            )
    return out


def _check_cr(
    cases: Iterable[Case], spec: Spec, numbers: frozenset[str], spec_path: Path
) -> list[Problem]:
    out = []
    for rule in spec.rules.values():
        for number in rule.cr:
            if number not in numbers:
                message = f"rule {rule.id} cites CR {number}, which the pinned edition lacks"
                out.append(Problem(path=spec_path, line=None, message=message))
    for case in cases:
        for index, number in enumerate(case.cr):
            if number not in numbers:
                out.append(
                    Problem(
                        path=case.path,
                        line=yamlfile.line_of(case.path, ("cr", index)),
                        message=f"cr: {number} does not exist in the pinned Comprehensive Rules",
                    )
                )
    return out


@dataclass(frozen=True, slots=True)
class _Row:
    name: str
    set: str
    number: str
    source_ids: frozenset[str]
    faces: tuple[str, ...]
    printed_name: str


#: The card data sample is about 1 MB; a full card database a few dozen.
_CARDS_MAX_BYTES = 256 * 1024 * 1024
_CARD_COLUMNS = ("name", "set", "collector_number")


def _read_cards(path: Path) -> dict[str, list[_Row]]:
    hint = (
        "pass --cards a card data CSV with the columns name, set and collector_number (and, where "
        "known, mtgo_id, mtgo_foil_id, arena_id, face_names): your own export of a card database"
    )
    try:
        text = files.read_bounded(path, _CARDS_MAX_BYTES).decode("utf-8-sig")
        rows = list(csv.DictReader(io.StringIO(text, newline="")))
    except OSError as exc:
        raise UsageError(f"cannot read card data {path}: {files.describe(exc)}", hint=hint) from None
    except UnicodeDecodeError as exc:
        raise UsageError(f"card data {path} is not UTF-8 text (byte {exc.start})", hint=hint) from None
    except csv.Error as exc:
        raise UsageError(f"card data {path} is not CSV: {exc}", hint=hint) from None
    missing = [column for column in _CARD_COLUMNS if rows and column not in rows[0]]
    if not rows or missing:
        what = "holds no rows" if not rows else f"has no column {', '.join(missing)}"
        raise UsageError(f"card data {path} {what}", hint=hint)
    by_name: dict[str, list[_Row]] = defaultdict(list)
    for row in rows:
        ids = {f"mtgo:{row[k]}" for k in ("mtgo_id", "mtgo_foil_id") if row.get(k)}
        if row.get("arena_id"):
            ids.add(f"arena:{row['arena_id']}")
        faces = tuple(f.strip() for f in row["face_names"].split("|")) if row.get("face_names") else ()
        by_name[row["name"]].append(
            _Row(row["name"], (row["set"] or "").lower(), row["collector_number"] or "", frozenset(ids),
                 faces, row.get("printed_name") or "")
        )
    return by_name


def _check_cards(cases: Sequence[Case], cards: dict[str, list[_Row]]) -> list[Problem]:
    """Card facts against the card data. A line number costs a parse of the file, so it is
    found only for a problem (on a clean corpus that was 94% of the lint's time)."""
    out = []
    for case in cases:
        for index, facts in enumerate(case.request.get("cards", ())):
            where = ("input", "cards", index)

            def problem(message: str, where: tuple[str | int, ...] = where, path: Path = case.path) -> None:
                out.append(Problem(path=path, line=yamlfile.line_of(path, where), message=message))

            rows = cards.get(facts["name"])
            if not rows:
                problem(f"card {facts['name']!r} is not in the card data")
                continue
            if "faces" in facts and tuple(facts["faces"]) != rows[0].faces:
                problem(f"faces of {facts['name']!r} are {list(rows[0].faces)} in the card data")
            printed = {row.printed_name for row in rows}
            for alias in facts.get("aliases", ()):
                if alias not in printed:
                    problem(f"alias {alias!r} is not a printed name of {facts['name']!r}")
            for printing in facts["printings"]:
                match = [
                    row for row in rows
                    if row.set == printing["set"].lower() and row.number == printing["number"]
                ]
                label = f"{printing['set']} {printing['number']}"
                if not match:
                    problem(f"{facts['name']!r} has no printing {label} in the card data")
                    continue
                for source_id in printing.get("source_ids", ()):
                    if source_id not in match[0].source_ids:
                        problem(f"{source_id} is not an ID of {facts['name']!r} {label}")
    return out
