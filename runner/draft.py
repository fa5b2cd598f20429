"""Drafting a new case file: where it goes, its ID, and an expectation taken from the
bundled reference's answer, marked for review.

`cardid new --from-failure` and `cardid shrink` both write a case whose request is known and
whose expected answer nobody has worked out by hand: the reference's answer is the starting
point. The reference is asked through the adapter contract, like any implementation
(`Reference`); its answer becomes the case's `expect:` labels and block (`case_data`); the
case is checked as the loader checks any case, then written with a `# REVIEW:` comment and the
`needs-review` tag, which `cardid lint` reports until someone has checked it.
"""

from __future__ import annotations

import argparse
import os
import re
import unicodedata
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from cardid_conformance import caseyaml, files, schemas, suite
from cardid_conformance.answer import Answer, Answered, Crashed, Rejected, Unsupported
from cardid_conformance.cases import Case, Role, case_files, case_from_data
from cardid_conformance.errors import CardidError, CaseError, UsageError
from cardid_conformance.lint import NEEDS_REVIEW
from cardid_conformance.spec import Spec
from cardid_runner import execute
from cardid_runner.adapter import Launcher
from cardid_runner.session import Session
from cardid_runner.writing import OutputError, write_atomically

#: A case ID, as schema/case.schema.json's `id` allows (a test keeps the two equal).
CASE_ID = re.compile(r"[a-z0-9]+(-[a-z0-9]+)*")
CASE_ID_MAX = 80
#: Where a case file's schema is, for editors that read the modeline.
CASE_SCHEMA = suite.SCHEMA_DIR / "case.schema.json"


class DraftError(CardidError):
    """The case could not be drafted: what is wrong and what to do (exit status 1)."""


def case_id(text: str) -> str:
    """An argparse type: a valid case ID (lowercase words of a-z and 0-9 joined by '-')."""
    if not CASE_ID.fullmatch(text) or len(text) > CASE_ID_MAX:
        raise argparse.ArgumentTypeError(
            f"takes a case ID: lowercase words of a-z and 0-9 joined by '-', at most "
            f"{CASE_ID_MAX} characters (such as shuffle-ends-id), not {text!r}"
        )
    return text


def installed() -> bool:
    """Whether the suite's files are the copy inside an installed package (no checkout)."""
    return suite.ROOT.name == "_suite"


def target(new_id: str, folder: Path | None, default: Path) -> Path:
    """The file a new case `new_id` is written to: `folder/<id>.yaml`, else `default/<id>.yaml`.

    Refused (UsageError, exit 2): an ID a case of the suite's corpus or of `folder` already has,
    a file already there, and a default folder inside an installed package.
    """
    if folder is None:
        if installed() and _inside(default, suite.ROOT):
            raise UsageError(
                "the suite is installed, not checked out: there is no cases/ folder to add to",
                hint="pass --out DIR for the folder to write the new case in",
            )
        folder = default
    path = folder / f"{new_id}.yaml"
    taken = [p for p in _case_files(suite.CASES_DIR) + _case_files(folder) if p.stem == new_id]
    if taken:
        raise UsageError(
            f"case ID {new_id} is already used by {taken[0]}",
            hint="a case ID never changes once published: choose another ID for the new case",
        )
    if path.exists() or path.is_symlink():
        raise UsageError(f"{path} already exists", hint="choose another ID, or remove the file")
    if folder.exists() and not folder.is_dir():
        raise UsageError(f"{folder} is not a folder", hint="pass another --out DIR")
    return path


def _inside(path: Path, folder: Path) -> bool:
    return path.resolve().is_relative_to(folder.resolve())


def _case_files(root: Path) -> list[Path]:
    try:
        return case_files(root) if root.exists() else []
    except OSError:
        return []


def modeline(path: Path) -> str:
    """The editor modeline naming the case schema, relative to where the case file goes."""
    schema, folder = CASE_SCHEMA.resolve(), path.parent.resolve()
    shown = os.path.relpath(schema, folder) if _inside(folder, suite.ROOT) else str(schema)
    return f"yaml-language-server: $schema={shown}"


class Reference(Session):
    """The bundled reference implementation, asked through the adapter contract like any
    implementation (runner/session.py)."""

    def __init__(self, launcher: Launcher | None = None, *, timeout: float = execute.DEFAULT_TIMEOUT) -> None:
        options = execute.Invocation(argv=execute.REFERENCE_ARGV, timeout=timeout)
        super().__init__(options, launcher, unnamed="the bundled reference")


@dataclass(frozen=True, slots=True, kw_only=True)
class Metadata:
    """What a drafted case says about itself; its request and expectation come apart."""

    id: str
    description: str
    role: Role
    level: str
    rules: tuple[str, ...]
    cr: tuple[str, ...]
    tags: tuple[str, ...]

    def __post_init__(self) -> None:
        # A role given as its word ("writer") is the member, as in a Case.
        object.__setattr__(self, "role", Role(self.role))


def case_data(
    meta: Metadata,
    request: Mapping[str, Any],
    answer: Answer,
    *,
    hints: Sequence[str | None] = (),
) -> dict[str, Any]:
    """The case file's data: `meta`, the request as its `input`, and the reference's `answer`
    as the expectation (a rejection for a request the reference rejected). `hints` are the
    observations' `rule:` keys to keep, if any. DraftError when the answer is no expectation
    (the reference crashed, or its result does not fit the request)."""
    match answer:
        case Answered(result=result):
            problem = schemas.first_problem(f"{meta.role}-output", result)
            if problem is not None:
                raise DraftError(
                    f"the reference's answer does not match schema/{meta.role}-output.schema.json "
                    f"at {problem.where()}: {problem.message}",
                    hint="report it to the suite: the reference's answers are meant to be valid",
                )
        case Rejected():
            result = None
        case Crashed(reason=reason):
            raise DraftError(
                f"the reference gave no answer to the request: {reason}",
                hint="report it to the suite with the request",
            )
        case Unsupported(role=role):
            raise DraftError(f"the reference does not support the {role} role")
    tags = [tag for tag in meta.tags if tag != NEEDS_REVIEW] + [NEEDS_REVIEW]
    data: dict[str, Any] = {
        "id": meta.id,
        "description": meta.description,
        "role": meta.role.value,
        "level": meta.level,
        "rules": list(meta.rules),
        "cr": list(meta.cr),
        "tags": tags,
    }
    fields = {key: value for key, value in request.items() if key != "role"}
    if meta.role is Role.READER:
        data["input"] = fields
        data["expect"] = {"reject": True} if result is None else {"card_table": result["card_table"]}
        return data
    observations = [dict(observation) for observation in fields["observations"]]
    data["input"] = {**fields, "observations": observations}
    data["expect"] = {"reject": True} if result is None else {"instances": _label(observations, result)}
    for observation, hint in zip(observations, hints, strict=False):
        if hint is not None:
            observation["rule"] = hint
    return data


def _label(observations: list[dict[str, Any]], result: Mapping[str, Any]) -> dict[str, Any]:
    """Label each observation with its instance (`expect:`), in place; return the instances."""
    assignments = result["assignments"]
    if len(assignments) != len(observations):
        raise DraftError(
            f"the reference gave {len(assignments)} assignments for {len(observations)} observations",
            hint="report it to the suite with the request",
        )
    entries = {entry["id"]: entry for entry in result["card_table"]}
    labels: dict[str, str] = {}
    for observation, actual in zip(observations, assignments, strict=True):
        if actual is None:
            continue
        if actual not in entries:
            raise DraftError(
                f"the reference assigned ID {actual!r}, which its card table lacks",
                hint="report it to the suite with the request",
            )
        if actual not in labels:
            labels[actual] = _fresh_label(entries[actual], set(labels.values()))
        observation["expect"] = labels[actual]
    return {
        label: {key: value for key, value in entries[actual].items() if key != "id"}
        for actual, label in labels.items()
    }


def _fresh_label(entry: Mapping[str, Any], taken: set[str]) -> str:
    """A label from the card's name (`llanowar_elves`), else its kind, made unique (`_2`)."""
    name = unicodedata.normalize("NFKD", entry.get("name") or "").encode("ascii", "ignore").decode()
    base = re.sub(r"[^a-z0-9]+", "_", name.lower()).strip("_")[:30].rstrip("_") or entry["kind"]
    if not base[0].isalpha():
        base = f"{entry['kind']}_{base}"
    label, number = base, 1
    while label in taken:
        number += 1
        label = f"{base}_{number}"
    return label


def review_comment(reference: str, made_by: str) -> list[str]:
    """The `# REVIEW:` block a drafted case starts with."""
    return [
        f"REVIEW: the expectation in this file (each observation's `expect:` label and the "
        f"`expect:` block) is the answer of {reference} to the request, written "
        f"by `{made_by}`.",
        "REVIEW: nobody has checked it against the spec. Check it against the cited rules, fix "
        f"what is wrong, then remove these REVIEW lines and the {NEEDS_REVIEW} tag (`cardid lint` "
        "reports the case until then).",
    ]


def checked(path: Path, data: Mapping[str, Any], spec: Spec) -> Case:
    """The drafted data as the loader models it; DraftError naming what does not fit."""
    try:
        return case_from_data(path, data, spec)
    except CaseError as exc:
        raise DraftError(
            f"the drafted case is not a valid case: {exc.reason}",
            hint="report it to the suite with the request",
        ) from None


def write(path: Path, data: Mapping[str, Any], comments: Sequence[str], *, what: str) -> None:
    """Write the case file: verified YAML (conformance/caseyaml.py), written atomically; a file
    that appeared at `path` in the meantime is not replaced. DraftError for data no YAML file
    reads back (a lone surrogate), UsageError for a file that cannot be written."""
    lines = [modeline(path), *(part for line in comments for part in caseyaml.comment(line))]
    try:
        text = caseyaml.render_verified(data, comments=lines, path=path)
    except caseyaml.RenderError as exc:
        raise DraftError(str(exc), hint="report it to the suite with the request") from None
    if path.exists() or path.is_symlink():
        raise UsageError(f"{path} already exists", hint="choose another ID, or remove the file")
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise UsageError(f"cannot write {what} {path}: {files.describe(exc)}") from None
    try:
        write_atomically(path, text.encode("utf-8"), what=what)
    except OutputError as exc:
        raise UsageError(exc.message) from None
