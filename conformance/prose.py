"""The spec prose: each numbered rule's text, as spec/*.md states it.

A rule starts at its heading, `### ID-3 · MUST · item 4 · CR 400.2, 400.7`, whose first
paragraph is the summary spec/rules.yaml repeats (tests/test_spec.py keeps the two equal), and
runs to the next heading of a section or rule (`#`, `##` or `###`); the `####` subsections in
between (ID-6's table of ending events) are part of it.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

from cardid_conformance import files, suite

#: A rule heading, as tests/test_spec.py checks it against the index.
HEADING = re.compile(
    r"^### (?P<id>[A-Z]+-\d+) · (?P<level>MUST|SHOULD|MAY) · item (?P<item>\d+) · CR (?P<cr>.+)$"
)
_SECTION = re.compile(r"^#{1,3} ")
_SUBSECTION = re.compile(r"^#{4,} ")
#: The spec files are tens of kilobytes each.
_MAX_BYTES = 4 * 1024 * 1024


@dataclass(frozen=True, slots=True, kw_only=True)
class RuleText:
    """One rule as the prose states it: where, its heading, and the lines under it."""

    id: str
    path: Path
    line: int
    heading: str
    text: str


def rule_texts(spec_dir: Path = suite.SPEC_DIR) -> Mapping[str, RuleText]:
    """Every rule the prose of `spec_dir/*.md` states, by ID (a file that cannot be read
    states none: the index, spec/rules.yaml, is what the suite runs on)."""
    found: dict[str, RuleText] = {}
    for path in sorted(spec_dir.glob("*.md")):
        try:
            lines = files.read_bounded(path, _MAX_BYTES).decode("utf-8").splitlines()
        except (OSError, UnicodeDecodeError):
            continue
        starts = [index for index, line in enumerate(lines) if _SECTION.match(line)]
        for number, start in enumerate(starts):
            match = HEADING.match(lines[start])
            if match is None or match["id"] in found:
                continue
            end = starts[number + 1] if number + 1 < len(starts) else len(lines)
            body = lines[start + 1 : end]
            # A subsection heading with nothing under it introduces what follows (the next
            # rule), not this one.
            while body and (not body[-1].strip() or _SUBSECTION.match(body[-1])):
                body.pop()
            while body and not body[0].strip():
                body.pop(0)
            found[match["id"]] = RuleText(
                id=match["id"], path=path, line=start + 1, heading=lines[start], text="\n".join(body)
            )
    return found
