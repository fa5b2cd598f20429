"""Untrusted text made safe: `store` for text kept, `show` for text a person reads.

An implementation's standard error, its messages, the names it gives, and the paths of case
files are text nobody checked. ANSI escapes repaint a terminal, NUL and the other characters
XML 1.0 forbids make a JUnit file unparseable, a lone surrogate cannot be written as UTF-8 at
all, a carriage return or line separator forges a line, bidirectional controls reorder what a
reader sees. Each such character is written as a visible escape (`\\x1b`, `\\x00`, `\\udc80`,
`\\u202e`): the text stays readable, and every file stays valid.

Two operations, by where the text goes:

- `store`: text kept as data, in an Answer, a report, a file (an implementation's name and
  messages, its standard error). The least that lets it be kept at all: each lone surrogate
  (which no UTF-8 file takes) and each control character, C0, DEL and C1 (which a terminal obeys
  and XML cannot hold) as its escape; with `lines`, newline and tab kept. Everything else is kept
  as written, so the report holds what the implementation said.
- `show`: text a person reads, on a terminal or in a rendering (a console line, a JUnit message,
  a Markdown cell, an HTML page). Lone surrogates and control characters as `store` escapes
  them (but tab, which one line can hold, is kept: `store` escapes it in one line of data; and
  newline only with `lines`), and besides them whatever deceives a reader: line and paragraph
  separators, bidirectional controls, the code points that show as nothing (zero-width
  characters, variation selectors, tag characters, fillers) and the non-characters XML forbids.

Stored text reaches a reader through `show` (every renderer and console line applies it last),
so a stored `\\x1b` reads `\\x1b`, and a stored U+202E is escaped when shown.
`runner/process/reads.py` keeps its own `store_bytes` for the standard error it decodes: the
process package imports nothing of this one (tests/test_boundaries.py); tests/test_escape.py
checks that the two agree.

The format helpers below build on `show`: `markdown_cell`, `html_line`, `html_block`, and
`json_document` for a whole JSON document.
"""

from __future__ import annotations

import html
import re

#: What `store` escapes: C0 controls, DEL and C1, and surrogates (only a lone one can stand in a
#: str; UTF-8 cannot encode it).
_CONTROLS = "\x00-\x1f\x7f-\x9f"
_STORE_LINE = re.compile(f"[{_CONTROLS}\ud800-\udfff]")
_STORE_LINES = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\ud800-\udfff]")
#: What `show` escapes: C0 controls but tab (and, with `lines`, newline), DEL and C1, line and
#: paragraph separators, bidirectional controls (U+061C among them), surrogates, the two code
#: points XML forbids at the end of the BMP, and what shows as nothing: Unicode's
#: default-ignorable code points (soft hyphen, zero-width characters, variation selectors,
#: fillers, the byte order mark, tag characters) and the blank braille pattern, with which two
#: names that differ read the same.
_UNSAFE = (
    "\x00-\x08\x0b-\x1f\x7f-\x9f\u2028\u2029\u200e\u200f\u202a-\u202e\u2066-\u2069\ud800-\udfff"
    "\ufffe\uffff"
    "\u00ad\u034f\u061c\u115f\u1160\u17b4\u17b5\u180b-\u180f\u200b-\u200d\u2060-\u2065"
    "\u206a-\u206f\u2800\u3164\ufe00-\ufe0f\ufeff\uffa0\U0001bca0-\U0001bca3"
    "\U0001d173-\U0001d17a\U000e0000-\U000e0fff"
)
_SHOW_LINE = re.compile(f"[\n{_UNSAFE}]")
_SHOW_LINES = re.compile(f"[{_UNSAFE}]")
_SURROGATE = re.compile("[\ud800-\udfff]")
#: What Markdown gives a meaning to, anywhere in a line: escaped with a backslash.
_MARKDOWN = re.compile(r"([\\`*_{}\[\]<>()#+!|~&])")


def _escape(match: re.Match[str]) -> str:
    code = ord(match.group())
    if code < 0x100:
        return f"\\x{code:02x}"
    return f"\\u{code:04x}" if code < 0x10000 else f"\\U{code:08x}"


def store(text: str, *, lines: bool = False) -> str:
    """Text to keep (an Answer's message, a name, standard error): each lone surrogate and
    each control character as its escape; with `lines`, newlines and tabs kept."""
    return (_STORE_LINES if lines else _STORE_LINE).sub(_escape, text)


def show(text: str, *, lines: bool = False) -> str:
    """Text for a person: one line (a terminal line, an XML attribute) with every unsafe
    character, newline included, as an escape; with `lines`, lines of text (JUnit's failure
    text, a `<pre>`) with newlines kept."""
    return (_SHOW_LINES if lines else _SHOW_LINE).sub(_escape, text)


def markdown_cell(text: str) -> str:
    """Inline Markdown (a table cell, a heading): `show`n, and no character Markdown or HTML
    would act on (`|` ending the cell, `<` opening a tag, `[` a link, `` ` `` a code span)."""
    return _MARKDOWN.sub(r"\\\1", show(text.replace("\n", " ")))


def json_document(text: str) -> str:
    """A JSON document as `json.dumps(..., ensure_ascii=False)` wrote it, with each lone
    surrogate (which strict UTF-8 cannot hold) written as the six characters `\\udc80`.

    A raw surrogate only ever stands inside a string literal, so the escaped backslash keeps
    the document valid: the string reads `\\udc80`, as visible text.
    """
    return _SURROGATE.sub(lambda match: "\\" + _escape(match), text)


def html_line(text: str) -> str:
    """One line of HTML text or an attribute value: `show`n (no control character, newline
    included, survives), then `html.escape`d (`& < > " '`), so no text can open a tag, end an
    element or attribute, or write a character the page cannot hold."""
    return html.escape(show(text), quote=True)


def html_block(text: str) -> str:
    """Lines of HTML text (the body of a `<pre>`): newlines and tabs kept, every other unsafe
    character as an escape, then `html.escape`d."""
    return html.escape(show(text, lines=True), quote=True)
