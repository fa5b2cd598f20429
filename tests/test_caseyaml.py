"""Case data written as YAML (conformance/caseyaml.py): readable, and read back as the very data."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from cardid_conformance import caseyaml, yamlfile
from cardid_conformance.cases import case_files

from tests.conftest import ROOT, WRITER_CASE

HERE = Path("case.yaml")

AWKWARD = [
    "yes", "No", "null", "~", "true", "on", "OFF", "y", "n", ".inf", "nan", "1e3", "0x1F", "1_000",
    "12:30", "2027-02-30", "2027-03-31", "", " leading", "trailing ", "a: b", "a #b", "#c1", "- x",
    "[x]", "{x}", "&anchor", "*alias", "!tag", "%x", "@x", "`x", "'x'", '"x"', "back\\slash",
    "tab\there", "line\nbreak", "cr\rhere", "nel\x85", "ls\u2028ps\u2029", "bom\ufeff", "bidi\u202e",
    "nul\x00", "esc\x1b[31m", "del\x7f", "Lim-Dûl's Vault", "emoji \U0001f600", "A-Winota, Joiner",
    "010", "-1", "+1", "ID-3", "needs-review", "library:P1", "<<", "=", "?", "|", ">",
]


@pytest.mark.parametrize("text", AWKWARD)
def test_awkward_strings_read_back_the_same(text: str) -> None:
    """Every string, whatever YAML would make of it plain, reads back as itself, as a value,
    as a key and in a list; in a multi-line text too."""
    data: dict[str, Any] = {"value": text, "nested": {"list": [text, {text or "k": text}]},
                            "text": f"first line\n{text}\nlast\n"}
    rendered = caseyaml.render_verified(data, path=HERE)
    assert yamlfile.loads(rendered, HERE) == data


def test_plain_where_safe_and_quoted_where_not() -> None:
    """Words YAML reads as strings are plain (as the corpus writes them); the rest are quoted."""
    text = caseyaml.render({"a": ["move", "P1", "ID-3", "yes", "400.7", "library:P1"]})
    assert text == 'a: [move, P1, ID-3, "yes", "400.7", "library:P1"]\n'


def test_multi_line_text_is_a_literal_block() -> None:
    """A reader's card table text is a literal block, as in the corpus; its chomping kept."""
    for text, head in (("#c1 a\n#c2 b\n", "|"), ("#c1 a\n#c2 b", "|-"), ("#c1 a\n#c2 b\n\n", "|+")):
        data = {"input": {"text": text}}
        rendered = caseyaml.render_verified(data, path=HERE)
        assert f"  text: {head}\n    #c1 a\n    #c2 b" in rendered
        assert yamlfile.loads(rendered, HERE) == data


def test_text_a_literal_block_cannot_hold_is_quoted() -> None:
    """A line with a tab, a lone CR or a leading space cannot be a literal block: it is quoted."""
    for text in ("#c1 a\r\n#c2 b\n", " #c1 a\n#c2 b\n", "#c1\ta\n#c2 b\n"):
        rendered = caseyaml.render_verified({"text": text}, path=HERE)
        assert "|" not in rendered
        assert yamlfile.loads(rendered, HERE) == {"text": text}


def test_block_items() -> None:
    """With block_items, each mapping of a list is a block of lines (known-failure entries)."""
    data = {"known_failures": [{"case": "a-b", "reason": "TODO: x"}]}
    rendered = caseyaml.render_verified(data, path=HERE, block_items=True)
    assert rendered == 'known_failures:\n  - case: a-b\n    reason: "TODO: x"\n'


def test_comment_lines_are_safe_and_wrapped() -> None:
    """A comment cannot end its line early (a newline or CR in the text is escaped), and long
    text is wrapped."""
    lines = caseyaml.comment("x\ny\rz " + "word " * 40)
    assert lines[0].startswith("x\\ny\\rz word")
    assert len(lines) > 1 and all(len(line) <= 98 for line in lines)
    assert all(line.startswith("  ") for line in lines[1:])


def test_every_corpus_case_renders_to_an_equal_case() -> None:
    """The whole corpus, rendered in the readable form (the one tried first), reads back as
    the same data: no case needs the all-quoted fallback."""
    for path in case_files(ROOT / "cases"):
        data = yamlfile.load(path)
        assert yamlfile.loads(caseyaml.render(data), path) == data, path
    assert yamlfile.loads(caseyaml.render_verified(WRITER_CASE, path=HERE), HERE) == WRITER_CASE
