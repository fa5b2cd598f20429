"""The two operations on untrusted text (conformance/escape.py): `store` for text kept, `show`
for text a person reads, and the process package's own `store_bytes` agreeing with `store`."""

from __future__ import annotations

import ast

from cardid_conformance import escape
from cardid_runner.process.reads import store_bytes
from hypothesis import given
from hypothesis import strategies as st

from tests.conftest import ROOT

#: Text with what each operation is about: controls, line breaks, tab, lone surrogates,
#: bidirectional controls and what shows as nothing, among ordinary characters.
TEXT = st.text(
    alphabet=st.one_of(
        st.characters(min_codepoint=0, max_codepoint=0x3000),
        st.sampled_from(["\t", "\n", "\r", "\x1b", "\x85", "\u2028", "\u202e", "\u200b",
                         "\ud800", "\udc80", "\ufeff", "\U000e0041"]),
    )
)


def test_store_keeps_what_a_file_can_hold_and_escapes_the_rest() -> None:
    assert escape.store("Æther\u202e\u200b") == "Æther\u202e\u200b"  # kept: shown escaped later
    assert escape.store("a\tb\nc\x1b[2J\udc80") == "a\\x09b\\x0ac\\x1b[2J\\udc80"
    assert escape.store("a\tb\nc\x1b\x85", lines=True) == "a\tb\nc\\x1b\\x85"


def test_show_escapes_what_deceives_a_reader_too() -> None:
    assert escape.show("Æther\u202e\u200b") == "Æther\\u202e\\u200b"
    assert escape.show("a\tb\nc\x1b[2J\udc80") == "a\tb\\x0ac\\x1b[2J\\udc80"
    assert escape.show("a\tb\nc\u2028", lines=True) == "a\tb\nc\\u2028"


@given(TEXT, st.booleans())
def test_stored_text_is_utf8_without_controls(text: str, lines: bool) -> None:
    stored = escape.store(text, lines=lines)
    stored.encode("utf-8")
    allowed = "\t\n" if lines else ""
    assert not [c for c in stored if (ord(c) < 0x20 or 0x7F <= ord(c) <= 0x9F) and c not in allowed]


@given(TEXT)
def test_showing_stored_text_shows_it_as_one_line(text: str) -> None:
    shown = escape.show(escape.store(text))
    shown.encode("utf-8")
    assert "\n" not in shown and "\x1b" not in shown and "\u202e" not in shown


@given(st.binary())
def test_the_process_packages_store_bytes_is_store_of_the_decoded_text(data: bytes) -> None:
    assert store_bytes(data) == escape.store(data.decode("utf-8", errors="replace"), lines=True)


def test_every_caller_stores_or_shows() -> None:
    """No module of the project calls the former names of `show` (`visible`, `multiline`,
    `printable`): every caller stores or shows."""
    callers = set()
    for folder in ("conformance", "runner", "reference", "bench", "examples"):
        for path in (ROOT / folder).rglob("*.py"):
            for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
                if (
                    isinstance(node, ast.Attribute) and node.attr in ("visible", "multiline", "printable")
                    and isinstance(node.value, ast.Name) and node.value.id in ("escape", "protocol", "reads")
                ):
                    callers.add(str(path.relative_to(ROOT)))
    assert not callers, callers
