"""Case files: loading, validating and modelling one conformance case."""

from __future__ import annotations

import dataclasses
import hashlib
import json
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from enum import StrEnum
from pathlib import Path
from typing import Any

from cardid_conformance import cardsection, schemas, yamlfile
from cardid_conformance.cardtable import CardEntry
from cardid_conformance.errors import CaseError
from cardid_conformance.spec import Level, Spec


class Role(StrEnum):
    """The role a case tests, as case files, requests and reports spell it (a StrEnum: each
    member equals its word)."""

    WRITER = "writer"
    READER = "reader"


@dataclass(frozen=True, slots=True, kw_only=True)
class WriterExpectation:
    """The expected instance of every observation (by label) and each label's card-table entry."""

    labels: tuple[str | None, ...]
    rule_hints: tuple[str | None, ...]
    instances: Mapping[str, CardEntry]


@dataclass(frozen=True, slots=True, kw_only=True)
class ReaderExpectation:
    """The card table the text holds."""

    card_table: tuple[CardEntry, ...]


@dataclass(frozen=True, slots=True)
class Rejection:
    """The request must be rejected: invalid card table text (reader), or an inconsistent
    writer request (the REQ rules)."""


Expectation = WriterExpectation | ReaderExpectation | Rejection


@dataclass(frozen=True, slots=True, kw_only=True)
class Case:
    """One conformance case: metadata tying it to the spec, the request, and the expectation."""

    id: str
    description: str
    role: Role
    level: Level
    rules: tuple[str, ...]
    cr: tuple[str, ...]
    tags: tuple[str, ...]
    path: Path
    request: Mapping[str, Any] = field(repr=False)
    expectation: Expectation = field(repr=False)
    #: The sha256 of the file's bytes as loaded ("" for a case not loaded from a file): the same
    #: bytes are the same case (`changed_since`). Not part of the case: a comment is in it.
    file_sha256: str = field(default="", repr=False, compare=False)

    def __post_init__(self) -> None:
        # A role given as its word ("writer") is the member: the role is matched as a member.
        object.__setattr__(self, "role", Role(self.role))

    def request_bytes(self) -> bytes:
        """The request as sent to an implementation: UTF-8 JSON, never holding the expectation."""
        return json.dumps(self.request, ensure_ascii=False, separators=(",", ":")).encode()

    def digest(self) -> str:
        """The sha256 of everything the case is judged by: its metadata, the request and the
        expectation. Any edit that matters gives a new digest (a run resumed from an older
        report runs the case again); moving the file or editing a comment does not."""
        expectation: dict[str, Any]
        match self.expectation:
            case WriterExpectation(labels=labels, rule_hints=hints, instances=instances):
                entries = {label: entry.to_dict() for label, entry in instances.items()}
                expectation = {"labels": labels, "rule_hints": hints, "instances": entries}
            case ReaderExpectation(card_table=table):
                expectation = {"card_table": [entry.to_dict() for entry in table]}
            case Rejection():
                expectation = {"reject": True}
        content = {
            "id": self.id, "description": self.description, "role": self.role,
            "level": self.level.name, "rules": self.rules, "cr": self.cr, "tags": self.tags,
            "request": self.request, "expectation": expectation,
        }
        text = json.dumps(content, sort_keys=True, separators=(",", ":"), allow_nan=False)
        return hashlib.sha256(text.encode("ascii")).hexdigest()

    @property
    def observations(self) -> Sequence[Mapping[str, Any]]:
        """The writer request's observations (empty for reader cases)."""
        return self.request.get("observations", ())  # type: ignore[no-any-return]


def load_case(path: Path, spec: Spec) -> Case:
    """Load and check one case file; raise CaseError naming the file and line of the problem."""
    raw = yamlfile.read(path)
    case = case_from_data(path, yamlfile.parse(raw, path), spec)
    return dataclasses.replace(case, file_sha256=hashlib.sha256(raw).hexdigest())


def case_from_data(path: Path, data: Any, spec: Spec) -> Case:
    """Check and model one case file's data, as `yamlfile.load` read it from `path`."""
    _check_finished(path, data)
    _check_schema(path, "case", data, prefix=())
    input_ = data["input"]
    role = Role(data["role"])
    if role is Role.WRITER:
        observations = [
            {k: v for k, v in obs.items() if k not in ("expect", "rule")}
            for obs in input_["observations"]
        ]
        request = {"role": role.value, **input_, "observations": observations}
    else:
        request = {"role": role.value, **input_}
    _check_schema(path, f"{role}-input", request, prefix=("input",), strip_role=True)
    _check_rules(path, data, spec)
    if role is Role.WRITER:
        _check_card_section(path, input_["cards"])
    expectation: Expectation
    if data["expect"].get("reject"):
        expectation = _rejection(path, data)
    elif role is Role.WRITER:
        expectation = _writer_expectation(path, data)
    else:
        expectation = _reader_expectation(data)
    return Case(
        id=data["id"],
        description=data["description"],
        role=role,
        level=Level[data["level"]],
        rules=tuple(data["rules"]),
        cr=tuple(data["cr"]),
        tags=tuple(data.get("tags", ())),
        path=path,
        request=request,
        expectation=expectation,
    )


#: How `cardid new` marks a value still to be written: a string starting with it.
PLACEHOLDER = "TODO"


def _placeholders(value: Any, at: tuple[str | int, ...]) -> Iterable[tuple[str | int, ...]]:
    if isinstance(value, str):
        if value.startswith(PLACEHOLDER):
            yield at
    elif isinstance(value, dict):
        for key, item in value.items():
            yield from _placeholders(item, (*at, key))
    elif isinstance(value, list):
        for index, item in enumerate(value):
            yield from _placeholders(item, (*at, index))


def _check_finished(path: Path, data: Any) -> None:
    """A case still holding a placeholder of `cardid new` is unfinished: a case bug, so that
    neither the lint nor a run takes it for a case."""
    found = list(_placeholders(data, ()))
    if not found:
        return
    shown = [schemas.SchemaProblem(location=at, message="").where() for at in found[:5]]
    more = f" and {len(found) - len(shown)} more" if len(found) > len(shown) else ""
    what = "holds a placeholder" if len(found) == 1 else "hold placeholders"
    raise CaseError(
        path,
        f"unfinished: {', '.join(shown)}{more} still {what} starting with {PLACEHOLDER}",
        line=yamlfile.line_of(path, found[0]),
        hint=f"write each value that starts with {PLACEHOLDER} (`cardid new` left them to fill in)",
    )


def _check_schema(
    path: Path, name: str, document: Any, *, prefix: tuple[str, ...], strip_role: bool = False
) -> None:
    problem = schemas.first_problem(name, document)
    if problem is None:
        return
    location = problem.location
    if strip_role and location[:1] == ("role",):
        location = ()
    full = prefix + tuple(location)
    where = schemas.SchemaProblem(location=full, message=problem.message).where()
    raise CaseError(
        path,
        f"{where}: {problem.message}",
        line=yamlfile.line_of(path, full),
        hint=f"see schema/{name}.schema.json",
    )


def _check_card_section(path: Path, cards: Sequence[Mapping[str, Any]]) -> None:
    found = cardsection.ambiguities(cards)
    if found:
        raise CaseError(
            path,
            str(found[0]),
            line=yamlfile.line_of(path, ("input", "cards", found[0].cards[1])),
            hint="list each source ID, printing and name for one card only",
        )


def _check_rules(path: Path, data: Mapping[str, Any], spec: Spec) -> None:
    for index, rule_id in enumerate(data["rules"]):
        if rule_id not in spec.rules:
            raise CaseError(
                path,
                f"rules: {rule_id} is not a rule of spec {spec.version}",
                line=yamlfile.line_of(path, ("rules", index)),
                hint="cite rule IDs listed in spec/rules.yaml",
            )
    levels = {spec.rule(rule_id).level.name for rule_id in data["rules"]}
    if data["level"] not in levels:
        raise CaseError(
            path,
            f"level: {data['level']} is not the level of any cited rule ({', '.join(sorted(levels))})",
            line=yamlfile.line_of(path, ("level",)),
        )


def _writer_expectation(path: Path, data: Mapping[str, Any]) -> WriterExpectation:
    instances_raw: Mapping[str, Any] = data["expect"]["instances"]
    labels: list[str | None] = []
    hints: list[str | None] = []
    for index, obs in enumerate(data["input"]["observations"]):
        where = ("input", "observations", index)
        label = obs.get("expect")
        if ("object" in obs) != (label is not None):
            what = "has an object but no expect label" if label is None else (
                "has an expect label but no object"
            )
            raise CaseError(path, f"observation {index} {what}", line=yamlfile.line_of(path, where))
        if label is not None and label not in instances_raw:
            raise CaseError(
                path,
                f"observation {index}: label {label!r} is not in expect.instances",
                line=yamlfile.line_of(path, (*where, "expect")),
            )
        hint = obs.get("rule")
        if hint is not None and hint not in data["rules"]:
            raise CaseError(
                path,
                f"observation {index}: rule {hint} is not among the case's rules",
                line=yamlfile.line_of(path, (*where, "rule")),
            )
        labels.append(label)
        hints.append(hint)
    instances = {}
    for label, raw in instances_raw.items():
        at = ("expect", "instances", label)
        if label not in labels:
            raise CaseError(
                path,
                f"expect.instances.{label} is assigned to no observation",
                line=yamlfile.line_of(path, at),
            )
        entry = CardEntry.from_dict(raw, id=label)
        if entry.name is not None and entry.revealed_at is None:
            raise CaseError(
                path,
                f"expect.instances.{label}: a named instance needs revealed_at",
                line=yamlfile.line_of(path, at),
            )
        if entry.revealed_at is not None and (
            entry.revealed_at >= len(labels) or labels[entry.revealed_at] != label
        ):
            raise CaseError(
                path,
                f"expect.instances.{label}: revealed_at {entry.revealed_at} is not an observation "
                f"of {label!r}",
                line=yamlfile.line_of(path, (*at, "revealed_at")),
            )
        instances[label] = entry
    return WriterExpectation(labels=tuple(labels), rule_hints=tuple(hints), instances=instances)


def _reader_expectation(data: Mapping[str, Any]) -> ReaderExpectation:
    return ReaderExpectation(
        card_table=tuple(CardEntry.from_dict(raw) for raw in data["expect"]["card_table"])
    )


def _rejection(path: Path, data: Mapping[str, Any]) -> Rejection:
    """A case whose request must be rejected labels no instances: there is no answer to label."""
    for index, obs in enumerate(data["input"].get("observations", ())):
        if "expect" in obs:
            raise CaseError(
                path,
                f"observation {index} has an expect label, but the case expects a rejection",
                line=yamlfile.line_of(path, ("input", "observations", index, "expect")),
            )
    return Rejection()


@dataclass(frozen=True, slots=True, kw_only=True)
class CaseChange:
    """A case whose file, read again at the end of a run, no longer holds the case the run
    judged (the implementation, or anyone, changed the corpus while it ran)."""

    case_id: str
    #: Its file as loaded (None: the corpus no longer has a file with the case).
    path: Path | None
    #: "edited" (it holds another case now: a comment-only edit is no change), "removed", or
    #: "broken" (it no longer loads).
    change: str

    def text(self) -> str:
        """`reader-x edited`."""
        return f"{self.case_id} {self.change}"


def changed_since(
    judged: Mapping[str, tuple[Path | None, str]], spec: Spec, loaded: Mapping[str, Case] | None = None,
) -> tuple[CaseChange, ...]:
    """The cases whose file no longer holds the case as judged, by case ID: `judged` maps each
    case ID to its file and the digest (Case.digest) of the case as it was judged. Each file is
    read again now; one whose bytes are those of the case in `loaded` that was judged (its
    file_sha256, and the digest judged) is unchanged without being parsed again."""
    changes: list[CaseChange] = []
    for case_id, (path, digest) in sorted(judged.items()):
        if path is None or not path.is_file():
            changes.append(CaseChange(case_id=case_id, path=path, change="removed"))
            continue
        before = (loaded or {}).get(case_id)
        if before is not None and before.file_sha256 and before.path == path and before.digest() == digest:
            try:
                if hashlib.sha256(yamlfile.read(path)).hexdigest() == before.file_sha256:
                    continue
            except CaseError:
                pass  # loaded below, which says why
        try:
            now = load_case(path, spec)
        except CaseError:
            changes.append(CaseChange(case_id=case_id, path=path, change="broken"))
            continue
        if now.digest() != digest:
            changes.append(CaseChange(case_id=case_id, path=path, change="edited"))
    return tuple(changes)


@dataclass(frozen=True, slots=True, kw_only=True)
class Corpus:
    """Every case that loaded, in the documented order (by case ID), and every case bug found."""

    cases: tuple[Case, ...]
    bugs: tuple[CaseError, ...]


def case_files(root: Path) -> list[Path]:
    """The case files under `root` (a directory, or a single file), in path order."""
    if root.is_file():
        return [root]
    return sorted(root.rglob("*.yaml"))


def load_corpus(paths: Iterable[Path], spec: Spec) -> Corpus:
    """Load every case; broken ones become CaseErrors, duplicate IDs are bugs too."""
    loaded: list[Case] = []
    bugs: list[CaseError] = []
    seen: dict[str, Path] = {}
    for path in paths:
        try:
            case = load_case(path, spec)
        except CaseError as exc:
            bugs.append(exc)
            continue
        if case.id in seen:
            bugs.append(
                CaseError(path, f"case ID {case.id!r} is already used by {seen[case.id]}", line=1)
            )
            continue
        if path.stem != case.id:
            bugs.append(
                CaseError(path, f"file name must be the case ID: {case.id}.yaml", line=1)
            )
            continue
        seen[case.id] = path
        loaded.append(case)
    loaded.sort(key=lambda case: case.id)
    return Corpus(cases=tuple(loaded), bugs=tuple(bugs))
