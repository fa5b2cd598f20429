"""Untrusted text made safe for each output: the terminal, JUnit XML, Markdown, HTML and JSON.

An implementation's standard error, its messages, the names it gives, and the paths of case
files are text nobody checked. ANSI escapes repaint a terminal, NUL and the other characters
XML 1.0 forbids make a JUnit file unparseable, a lone surrogate cannot be written as UTF-8 at
all, a carriage return or line separator forges a line, bidirectional controls reorder what a
reader sees. Each of these is written as a visible escape (`\\x1b`, `\\x00`, `\\udc80`,
`\\u202e`): the text stays readable, and every file stays valid.
"""

from __future__ import annotations

import html
import re

#: C0 controls but tab (and, in `visible`, newline), DEL and C1, line and paragraph separators,
#: bidirectional controls (U+061C among them), surrogates, the two code points XML forbids at the
#: end of the BMP, and what shows as nothing: Unicode's default-ignorable code points (soft hyphen,
#: zero-width characters, variation selectors, fillers, the byte order mark, tag characters) and
#: the blank braille pattern, with which two names that differ read the same.
_UNSAFE = (
    "\x00-\x08\x0b-\x1f\x7f-\x9f\u2028\u2029\u200e\u200f\u202a-\u202e\u2066-\u2069\ud800-\udfff"
    "\ufffe\uffff"
    "\u00ad\u034f\u061c\u115f\u1160\u17b4\u17b5\u180b-\u180f\u200b-\u200d\u2060-\u2065"
    "\u206a-\u206f\u2800\u3164\ufe00-\ufe0f\ufeff\uffa0\U0001bca0-\U0001bca3"
    "\U0001d173-\U0001d17a\U000e0000-\U000e0fff"
)
_UNSAFE_IN_LINE = re.compile(f"[\n{_UNSAFE}]")
_UNSAFE_IN_TEXT = re.compile(f"[{_UNSAFE}]")
_SURROGATE = re.compile("[\ud800-\udfff]")
#: What Markdown gives a meaning to, anywhere in a line: escaped with a backslash.
_MARKDOWN = re.compile(r"([\\`*_{}\[\]<>()#+!|~&])")


def _escape(match: re.Match[str]) -> str:
    code = ord(match.group())
    if code < 0x100:
        return f"\\x{code:02x}"
    return f"\\u{code:04x}" if code < 0x10000 else f"\\U{code:08x}"


def visible(text: str) -> str:
    """One line for a terminal (or an XML attribute): every unsafe character, newline
    included, as an escape."""
    return _UNSAFE_IN_LINE.sub(_escape, text)


def multiline(text: str) -> str:
    """Lines of text for a file (JUnit's failure text): newlines and tabs kept, every other
    unsafe character as an escape."""
    return _UNSAFE_IN_TEXT.sub(_escape, text)


def markdown_cell(text: str) -> str:
    """Inline Markdown (a table cell, a heading): visible, and no character Markdown or HTML
    would act on (`|` ending the cell, `<` opening a tag, `[` a link, `` ` `` a code span)."""
    return _MARKDOWN.sub(r"\\\1", visible(text.replace("\n", " ")))


def json_document(text: str) -> str:
    """A JSON document as `json.dumps(..., ensure_ascii=False)` wrote it, with each lone
    surrogate (which strict UTF-8 cannot hold) written as the six characters `\\udc80`.

    A raw surrogate only ever stands inside a string literal, so the escaped backslash keeps
    the document valid: the string reads `\\udc80`, as visible text.
    """
    return _SURROGATE.sub(lambda match: "\\" + _escape(match), text)


def html_line(text: str) -> str:
    """One line of HTML text or an attribute value: `visible` (no control character, newline
    included, survives), then `html.escape`d (`& < > " '`), so no text can open a tag, end an
    element or attribute, or write a character the page cannot hold."""
    return html.escape(visible(text), quote=True)


def html_block(text: str) -> str:
    """Lines of HTML text (the body of a `<pre>`): newlines and tabs kept, every other unsafe
    character as an escape, then `html.escape`d."""
    return html.escape(multiline(text), quote=True)
