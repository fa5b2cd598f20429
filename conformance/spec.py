"""The spec's machine-readable rule index and the Comprehensive Rules numbers it may cite."""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from enum import IntEnum
from pathlib import Path

from cardid_conformance import files, suite, yamlfile
from cardid_conformance.errors import CaseError, SuiteError, UsageError


class Level(IntEnum):
    """A rule's level; larger is stronger, so `max()` gives the level a failure counts at."""

    MAY = 1
    SHOULD = 2
    MUST = 3


def family_of(rule_id: str) -> str:
    """The family of a rule ID: the part before the dash (ID-3 -> ID)."""
    return rule_id.split("-", 1)[0]


@dataclass(frozen=True, slots=True, kw_only=True)
class Rule:
    """One numbered normative rule of the spec."""

    id: str
    level: Level
    item: int
    cr: tuple[str, ...]
    summary: str

    @property
    def family(self) -> str:
        """The rule family: the part of the ID before the dash (ID-3 -> ID)."""
        return family_of(self.id)


@dataclass(frozen=True, slots=True, kw_only=True)
class Spec:
    """The rule index: version, families, and rules by ID."""

    version: str
    cr_edition: str
    families: Mapping[str, str]
    rules: Mapping[str, Rule]

    def rule(self, rule_id: str) -> Rule:
        """Return the rule with this ID; raise KeyError for an unknown ID."""
        return self.rules[rule_id]


def load_spec(path: Path = suite.RULES_INDEX) -> Spec:
    """Read the rule index (spec/rules.yaml), with the strict loader every YAML file is read with."""
    hint = "the suite's own files are incomplete: reinstall it, or set CARDID_SUITE to a checkout"
    try:
        data = yamlfile.load(path)
    except CaseError as exc:
        raise SuiteError(f"cannot read the rule index {exc.message}", hint=hint) from None
    try:
        rules = {}
        for raw in data["rules"]:
            rule = Rule(
                id=raw["id"],
                level=Level[raw["level"]],
                item=int(raw["item"]),
                cr=tuple(raw["cr"]),
                summary=raw["summary"],
            )
            if rule.id in rules:
                raise SuiteError(f"{path}: rule {rule.id} is listed twice")
            rules[rule.id] = rule
        return Spec(
            version=str(data["version"]),
            cr_edition=str(data["cr_edition"]),
            families=dict(data["families"]),
            rules=rules,
        )
    except (KeyError, TypeError, ValueError, AttributeError) as exc:
        raise SuiteError(f"the rule index {path} is malformed: {exc!r}", hint=hint) from None


_CR_TEXT_LINE = re.compile(r"^(\d{3}(?:\.\d+[a-z]?)?)\.?\s")


#: The CR text is about 1 MB; its index a quarter of that.
_CR_MAX_BYTES = 32 * 1024 * 1024


def load_cr_numbers(path: Path) -> frozenset[str]:
    """Read the rule numbers of a Comprehensive Rules edition.

    Accepts the index form (`NUMBER<TAB>sha256` per line) or the CR text itself.
    """
    hint = (
        "pass --cr the Comprehensive Rules text as Wizards of the Coast publishes it (a .txt file), "
        "or an index with one rule number per line before a tab"
    )
    try:
        text = files.read_bounded(path, _CR_MAX_BYTES).decode("utf-8-sig")
    except OSError as exc:
        raise UsageError(
            f"cannot read Comprehensive Rules file {path}: {files.describe(exc)}", hint=hint
        ) from None
    except UnicodeDecodeError as exc:
        raise UsageError(f"{path} is not UTF-8 text (byte {exc.start})", hint=hint) from None
    numbers: set[str] = set()
    for line in text.splitlines():
        if "\t" in line:
            numbers.add(line.split("\t", 1)[0].strip())
        elif match := _CR_TEXT_LINE.match(line):
            numbers.add(match.group(1))
    if not numbers:
        raise UsageError(f"{path} holds no Comprehensive Rules numbers", hint=hint)
    return frozenset(numbers)
