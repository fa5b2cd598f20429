"""The spec prose and its machine-readable index never disagree."""

from __future__ import annotations

import re

from cardid_conformance import suite
from cardid_conformance.spec import load_spec

_HEADING = re.compile(
    r"^### (?P<id>[A-Z]+-\d+) · (?P<level>MUST|SHOULD|MAY) · item (?P<item>\d+) · CR (?P<cr>.+)$"
)


def _prose_rules() -> dict[str, dict[str, object]]:
    found: dict[str, dict[str, object]] = {}
    for path in sorted(suite.SPEC_DIR.glob("*.md")):
        lines = path.read_text(encoding="utf-8").splitlines()
        for index, line in enumerate(lines):
            match = _HEADING.match(line)
            if not match:
                assert not line.startswith("### ") or not re.match(r"### [A-Z]+-\d+", line), (
                    f"{path.name}:{index + 1}: malformed rule heading {line!r}"
                )
                continue
            assert match["id"] not in found, f"{match['id']} appears twice in the prose"
            assert lines[index + 1] == "", f"{path.name}:{index + 2}: blank line expected"
            found[match["id"]] = {
                "level": match["level"],
                "item": int(match["item"]),
                "cr": tuple(part.strip() for part in match["cr"].split(",")),
                "summary": lines[index + 2],
                "file": path.name,
            }
    return found


def test_every_indexed_rule_is_in_the_prose_with_the_same_fields() -> None:
    """Each rule of rules.yaml has a prose heading with equal level, item, CR list and summary."""
    prose = _prose_rules()
    spec = load_spec()
    assert set(prose) == set(spec.rules), "rule IDs differ between prose and index"
    for rule in spec.rules.values():
        written = prose[rule.id]
        assert written["level"] == rule.level.name, rule.id
        assert written["item"] == rule.item, rule.id
        assert written["cr"] == rule.cr, rule.id
        assert written["summary"] == rule.summary, rule.id


def test_rule_ids_belong_to_declared_families() -> None:
    """Every rule's family is one the index declares."""
    spec = load_spec()
    for rule in spec.rules.values():
        assert rule.family in spec.families, rule.id


def test_spec_pins_the_cr_edition_of_decision_0002() -> None:
    """The index pins the CR edition effective 2026-09-25."""
    assert load_spec().cr_edition == "2026-09-25"
