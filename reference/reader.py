"""The reader role: card table text parsed by the card-table.md grammar, or rejected."""

from __future__ import annotations

import re
from collections.abc import Iterator, Mapping
from typing import Any, NoReturn

from .errors import RequestError

# ABNF ALPHA and DIGIT are ASCII only, so these classes are spelled out, never \w or \d.
_INSTANCE_ID = re.compile(r"[A-Za-z0-9._-]+")
_SET_CODE = re.compile(r"[A-Za-z0-9]{3,6}")
_SOURCE_ID = re.compile(r"[a-z][a-z0-9-]*:[A-Za-z0-9_./-]+")
_PLAYER = re.compile(r"[A-Za-z0-9_.-]+")
_KIND = re.compile(r"token|copy")


def _is_scalar_beyond_ascii(cp: int) -> bool:
    """%xA0-10FFFF of the text's scalar values: C1 controls and surrogates are not in it."""
    return cp >= 0xA0 and not 0xD800 <= cp <= 0xDFFF


def is_qchar(char: str) -> bool:
    """A character allowed unescaped in a quoted string (`qchar`)."""
    cp = ord(char)
    return (0x20 <= cp <= 0x7E and char not in '"\\') or _is_scalar_beyond_ascii(cp)


def is_number_char(char: str) -> bool:
    """A character allowed in a collector number: no control, no space, no "]"."""
    cp = ord(char)
    return (0x21 <= cp <= 0x7E and char != "]") or _is_scalar_beyond_ascii(cp)


def quote(text: str) -> str:
    """The `quoted` form of a name or player: the inverse of what the reader unescapes."""
    if not text or not all(is_qchar(c) or c in '"\\' for c in text):
        raise ValueError(f"{text!r} cannot be quoted")
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"') + '"'


def format_entry(entry: Mapping[str, Any]) -> str:
    """One card table line for an entry of a reader or writer result."""
    fields = [f"#{entry['id']}", "?" if entry["name"] is None else quote(entry["name"])]
    if entry.get("printing"):
        fields.append(f"[{entry['printing']['set']} {entry['printing']['number']}]")
    fields.extend(entry.get("source_ids", ()))
    owner = entry["owner"]
    fields.append("owner=" + (owner if _PLAYER.fullmatch(owner) else quote(owner)))
    if entry.get("kind", "card") != "card":
        fields.append(entry["kind"])
    return " ".join(fields)


class Cursor:
    """A position in one line of text, failing with the line and column."""

    def __init__(self, text: str, lineno: int) -> None:
        self.text = text
        self.lineno = lineno
        self.pos = 0

    @property
    def at_end(self) -> bool:
        return self.pos >= len(self.text)

    def peek(self) -> str:
        return self.text[self.pos : self.pos + 1]

    def startswith(self, literal: str) -> bool:
        return self.text.startswith(literal, self.pos)

    def take(self) -> str:
        if self.at_end:
            self.fail("unexpected end of line")
        char = self.text[self.pos]
        self.pos += 1
        return char

    def expect(self, literal: str, what: str) -> None:
        if not self.startswith(literal):
            self.fail(f"expected {what}")
        self.pos += len(literal)

    def match(self, pattern: re.Pattern[str], what: str) -> str:
        found = pattern.match(self.text, self.pos)
        if found is None:
            self.fail(f"expected {what}")
        self.pos = found.end()
        return found.group()

    def fail(self, message: str) -> NoReturn:
        raise RequestError(f"line {self.lineno}, column {self.pos + 1}: {message}")


class CardTableReader:
    """Parses card table text, one entry per non-empty line."""

    #: The grammar's fields that a pattern matches (class attributes, so that a reader can be
    #: varied field by field, as the tests' wrong readers are).
    INSTANCE_ID = _INSTANCE_ID
    SET_CODE = _SET_CODE
    SOURCE_ID = _SOURCE_ID
    PLAYER = _PLAYER
    KIND = _KIND

    def read(self, text: str) -> dict[str, Any]:
        """The reader result for the text, or RequestError naming the first bad line."""
        seen: set[str] = set()
        entries = []
        for lineno, line in self.lines(text):
            if line == "":
                continue  # `line = entry / ""`
            entry = self.entry(Cursor(line, lineno))
            self.claim_id(entry["id"], seen, lineno)
            entries.append(entry)
        return {"card_table": entries}

    @staticmethod
    def lines(text: str) -> Iterator[tuple[int, str]]:
        """The lines with their numbers; a CR is part of the end of line only before LF."""
        pieces = text.split("\n")
        for lineno, piece in enumerate(pieces, start=1):
            if lineno < len(pieces) and piece.endswith("\r"):
                piece = piece[:-1]
            yield lineno, piece

    def claim_id(self, iid: str, seen: set[str], lineno: int) -> None:
        """TXT-2: an instance ID names one line only."""
        if iid in seen:
            raise RequestError(f"line {lineno}: instance ID {iid!r} is used by an earlier line")
        seen.add(iid)

    def entry(self, cur: Cursor) -> dict[str, Any]:
        """`entry = "#" instance-id SP name [SP printing] *(SP source-id) SP owner [SP kind]`."""
        cur.expect("#", '"#" at the start of an entry')
        iid = cur.match(self.INSTANCE_ID, "an instance ID")
        cur.expect(" ", "one space after the instance ID")
        name = self.name(cur)
        cur.expect(" ", "one space after the name")
        printing = None
        if cur.peek() == "[":
            printing = self.printing(cur)
            cur.expect(" ", "one space after the printing")
        source_ids = []
        while not cur.startswith("owner="):
            source_id = cur.match(self.SOURCE_ID, "a source ID or owner=")
            if self.keeps_source_id(source_id):
                source_ids.append(source_id)
            cur.expect(" ", "one space after the source ID")
        cur.expect("owner=", "owner=")
        owner = self.quoted(cur) if cur.peek() == '"' else cur.match(self.PLAYER, "a player")
        kind = "card"
        if not cur.at_end:
            cur.expect(" ", "one space before the kind")
            kind = cur.match(self.KIND, "token or copy")
        if not cur.at_end:
            cur.fail("expected the end of the line")
        return {
            "id": iid,
            "name": name,
            "printing": printing,
            "source_ids": source_ids,
            "owner": owner,
            "kind": kind,
        }

    def name(self, cur: Cursor) -> str | None:
        """`name = quoted / "?"`; "?" is a name not known."""
        if cur.peek() == "?":
            cur.take()
            return None
        if cur.peek() != '"':
            cur.fail('a name is quoted, or "?"')
        return self.quoted(cur)

    def qchar(self, char: str) -> bool:
        """Whether a character stands for itself in a quoted string (`qchar`)."""
        return is_qchar(char)

    def escape(self, cur: Cursor) -> str:
        """The character an escape stands for, read after its backslash: `\\"` or `\\\\`."""
        escaped = cur.take()
        if escaped not in '"\\':
            cur.pos -= 1
            cur.fail(f'unknown escape "\\{escaped}"')
        return escaped

    def quoted(self, cur: Cursor) -> str:
        """`quoted = DQUOTE 1*( qchar / escape ) DQUOTE`, returned unescaped."""
        cur.expect('"', "a double quote")
        chars: list[str] = []
        while True:
            if cur.at_end:
                cur.fail("the quoted string is not closed")
            char = cur.take()
            if char == '"':
                break
            if char == "\\":
                chars.append(self.escape(cur))
            elif self.qchar(char):
                chars.append(char)
            else:
                cur.pos -= 1
                cur.fail(f"U+{ord(char):04X} is not allowed in a quoted string")
        if not chars:
            cur.fail("a quoted string is never empty")
        return "".join(chars)

    def printing(self, cur: Cursor) -> dict[str, str]:
        """`printing = "[" set-code SP collector-number "]"`."""
        cur.expect("[", '"["')
        set_code = cur.match(self.SET_CODE, "a set code of 3 to 6 letters or digits")
        cur.expect(" ", "one space after the set code")
        start = cur.pos
        while not cur.at_end and is_number_char(cur.peek()):
            cur.take()
        if cur.pos == start:
            cur.fail("expected a collector number")
        number = cur.text[start : cur.pos]
        cur.expect("]", '"]" after the collector number')
        return {"set": set_code, "number": self.collector_number(number)}

    def collector_number(self, raw: str) -> str:
        """TXT-1, PRINT-2: an opaque string, kept verbatim."""
        return raw

    def keeps_source_id(self, source_id: str) -> bool:
        """TXT-3: source IDs with prefixes the reader does not know are kept too."""
        return True


def read(text: str) -> dict[str, Any]:
    """Answer a reader request's text with its card table."""
    if not isinstance(text, str):
        raise RequestError("the reader request's `text` must be a string")
    return CardTableReader().read(text)
