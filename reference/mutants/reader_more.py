"""Mutants of the card table grammar (TXT-1 to TXT-3), beyond those of reader.py: each reads
one part of spec/card-table.md the way a parser author plausibly would get it wrong (a pattern
too loose or too strict, a split on the wrong character, escapes or case done wrong, lines
trimmed or skipped)."""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from typing import Any

from cardid_reference.errors import RequestError
from cardid_reference.reader import CardTableReader, Cursor, is_qchar

from . import mutant
from .reader import patterned

# --------------------------------------------------------------------------- quoted strings


@mutant("reader-c0-controls-only")
class ReaderC0ControlsOnly(CardTableReader):
    """Refuses only the controls below U+0020 in quoted strings, letting DEL and C1 controls through (TXT-2)."""

    def qchar(self, char: str) -> bool:
        return ord(char) >= 0x20 and char not in '"\\'


@mutant("reader-isprintable-names")
class ReaderIsprintableNames(CardTableReader):
    """Also checks quoted strings with str.isprintable, refusing U+00A0 and U+2028 (TXT-1)."""

    def qchar(self, char: str) -> bool:
        return is_qchar(char) and char.isprintable()


_JSON_ESCAPES = '"\\/bfnrt'


@mutant("reader-json-escapes")
class ReaderJsonEscapes(CardTableReader):
    r"""Reads quoted strings with JSON's escapes, so \/, \t and \u00fb are characters (TXT-2)."""

    def escape(self, cur: Cursor) -> str:
        escaped = cur.take()
        digits = cur.text[cur.pos : cur.pos + 4]
        if escaped == "u" and re.fullmatch(r"[0-9A-Fa-f]{4}", digits):
            cur.pos += 4
            return chr(int(digits, 16))
        if escaped not in _JSON_ESCAPES:
            cur.pos -= 1
            cur.fail(f'unknown escape "\\{escaped}"')
        decoded: str = json.loads(f'"\\{escaped}"')
        return decoded


@mutant("reader-quotes-without-escapes")
class ReaderQuotesWithoutEscapes(CardTableReader):
    """Ends a quoted string at its next double quote and keeps backslashes as written, as "([^"]*)" does (TXT-1, TXT-2)."""

    def quoted(self, cur: Cursor) -> str:
        cur.expect('"', "a double quote")
        end = cur.text.find('"', cur.pos)
        if end < 0:
            cur.pos = len(cur.text)
            cur.fail("the quoted string is not closed")
        value = cur.text[cur.pos : end]
        if not value or not all(is_qchar(c) or c == "\\" for c in value):
            cur.fail("expected a quoted string")
        cur.pos = end + 1
        return value


@mutant("reader-greedy-quoted-name")
class ReaderGreedyQuotedName(CardTableReader):
    """Reads a quoted name up to the last double quote of the line, as "(.*)" does (TXT-1)."""

    def name(self, cur: Cursor) -> str | None:
        if cur.peek() != '"':
            return super().name(cur)
        end = cur.text.rfind('"')
        raw = cur.text[cur.pos + 1 : end]
        pieces = re.findall(r'\\["\\]|[^\\]', raw)
        if end <= cur.pos or not raw or "".join(pieces) != raw:
            cur.fail("expected a quoted name")
        if not all(len(piece) == 2 or piece == '"' or is_qchar(piece) for piece in pieces):
            cur.fail("expected a quoted name")
        cur.pos = end + 1
        return "".join(piece[-1] for piece in pieces)


@mutant("reader-keeps-owner-quotes")
class ReaderKeepsOwnerQuotes(CardTableReader):
    """Returns a quoted owner as written, with its quotes and escapes (TXT-1)."""

    def quoted(self, cur: Cursor) -> str:
        start = cur.pos
        value = super().quoted(cur)
        return cur.text[start : cur.pos] if cur.text.endswith("owner=", 0, start) else value


@mutant("reader-collapses-name-whitespace")
class ReaderCollapsesNameWhitespace(CardTableReader):
    """Collapses each run of whitespace in a name to one space, so U+00A0 or U+2028 becomes a space (TXT-1)."""

    def name(self, cur: Cursor) -> str | None:
        name = super().name(cur)
        return None if name is None else " ".join(name.split())


# --------------------------------------------------------------------------- fields


class _CaselessOwnerCursor(Cursor):
    """A cursor that finds the string owner= whatever its case."""

    def startswith(self, literal: str) -> bool:
        if literal == "owner=":
            return self.text[self.pos : self.pos + len(literal)].lower() == literal
        return super().startswith(literal)


@mutant("reader-owner-field-any-case")
class ReaderOwnerFieldAnyCase(CardTableReader):
    """Matches owner= without case, so Owner=P1 is an owner field (TXT-2)."""

    def entry(self, cur: Cursor) -> dict[str, Any]:
        return super().entry(_CaselessOwnerCursor(cur.text, cur.lineno))


@mutant("reader-kind-any-case")
class ReaderKindAnyCase(CardTableReader):
    """Matches the kind without case and lower-cases it, so Token is a token (TXT-2)."""

    KIND = re.compile(r"token|copy", re.IGNORECASE)

    def entry(self, cur: Cursor) -> dict[str, Any]:
        entry = super().entry(cur)
        return {**entry, "kind": entry["kind"].lower()}


@mutant("reader-ignores-unknown-kind")
class ReaderIgnoresUnknownKind(CardTableReader):
    """Reads any word after the owner but token or copy as no kind, so the entry is a card (TXT-2)."""

    KIND = re.compile(r"\S+")

    def entry(self, cur: Cursor) -> dict[str, Any]:
        entry = super().entry(cur)
        return {**entry, "kind": entry["kind"] if entry["kind"] in ("token", "copy") else "card"}


class _TabCursor(Cursor):
    """A cursor that takes a tab where the grammar wants one space."""

    def expect(self, literal: str, what: str) -> None:
        if literal == " " and self.peek() == "\t":
            self.pos += 1
            return
        super().expect(literal, what)


@mutant("reader-tab-separates-fields")
class ReaderTabSeparatesFields(CardTableReader):
    """Takes a tab wherever the grammar has one space, as a split on any whitespace does (TXT-2)."""

    def entry(self, cur: Cursor) -> dict[str, Any]:
        return super().entry(_TabCursor(cur.text, cur.lineno))


patterned(
    "reader-ids-to-space",
    "Takes an instance ID as everything from # to the next space, so #c1/2 and #ç1 are IDs (TXT-2).",
    INSTANCE_ID=r"[^ ]+",
)
patterned(
    "reader-ids-start-with-a-letter",
    "Matches instance IDs as identifiers that start with a letter, refusing #1 and #. (TXT-1).",
    INSTANCE_ID=r"[A-Za-z][A-Za-z0-9._-]*",
)
patterned(
    "reader-alnum-ids",
    "Matches instance IDs with letters and digits only, refusing #g1.a and #. (TXT-1).",
    INSTANCE_ID=r"[A-Za-z0-9]+",
)
patterned(
    "reader-set-code-any-length",
    "Takes a set code of any length up to the space in the brackets, such as 4E or PMPS008 (TXT-2).",
    SET_CODE=r"[A-Za-z0-9]+",
)
patterned(
    "reader-upper-case-set-codes",
    "Matches set codes with [A-Z0-9], refusing one written in lower case such as td0 (TXT-1).",
    SET_CODE=r"[A-Z0-9]{3,6}",
)
patterned(
    "reader-known-prefixes-only",
    "Rejects a source ID whose prefix is neither mtgo nor arena (TXT-1, TXT-3).",
    SOURCE_ID=r"(?:mtgo|arena):[A-Za-z0-9_./-]+",
)
patterned(
    "reader-source-prefix-any-case",
    "Allows upper-case letters in a source ID's prefix, so MTGO:78654 is a source ID (TXT-2).",
    SOURCE_ID=r"[A-Za-z][A-Za-z0-9-]*:[A-Za-z0-9_./-]+",
)
patterned(
    "reader-alnum-source-values",
    "Allows only letters and digits in a source ID's value, refusing a dash, dot, slash or underscore (TXT-1).",
    SOURCE_ID=r"[a-z][a-z0-9-]*:[A-Za-z0-9]+",
)
patterned(
    "reader-empty-unquoted-player",
    "Allows an empty unquoted player, a * for the + of the grammar, so owner= is an owner (TXT-2).",
    PLAYER=r"[A-Za-z0-9_.-]*",
)
patterned(
    "reader-player-to-space",
    "Takes an unquoted player as everything up to the next space, so owner=Zoë needs no quotes (TXT-2).",
    PLAYER=r"[^ ]+",
)


@mutant("reader-upper-cases-printing")
class ReaderUpperCasesPrinting(CardTableReader):
    """Upper-cases the whole printing, since set codes are compared without case, so 32a becomes 32A (TXT-1)."""

    def printing(self, cur: Cursor) -> dict[str, str]:
        return {field: value.upper() for field, value in super().printing(cur).items()}


@mutant("reader-ascii-collector-numbers")
class ReaderAsciiCollectorNumbers(CardTableReader):
    """Allows only ASCII in a collector number, refusing 2★ (TXT-1)."""

    def collector_number(self, raw: str) -> str:
        if not raw.isascii():
            raise RequestError(f"collector number {raw!r} is not ASCII")
        return raw


@mutant("reader-sorted-source-ids")
class ReaderSortedSourceIds(CardTableReader):
    """Returns an entry's source IDs sorted, as a reader keeping them in a set does (TXT-1)."""

    def entry(self, cur: Cursor) -> dict[str, Any]:
        entry = super().entry(cur)
        return {**entry, "source_ids": sorted(entry["source_ids"])}


# --------------------------------------------------------------------------- lines and IDs


@mutant("reader-skips-non-entry-lines")
class ReaderSkipsNonEntryLines(CardTableReader):
    """Skips every line that does not start with #, as comments or log noise (TXT-2)."""

    @staticmethod
    def lines(text: str) -> Iterator[tuple[int, str]]:
        for lineno, line in CardTableReader.lines(text):
            yield lineno, line if line.startswith("#") else ""


@mutant("reader-skips-blank-lines")
class ReaderSkipsBlankLines(CardTableReader):
    """Skips a line that is blank after stripping whitespace, not only an empty one (TXT-2)."""

    @staticmethod
    def lines(text: str) -> Iterator[tuple[int, str]]:
        for lineno, line in CardTableReader.lines(text):
            yield lineno, line if line.strip() else ""


@mutant("reader-rstrips-cr")
class ReaderRstripsCr(CardTableReader):
    """Splits at LF and strips every CR at the end of a line, whether or not it is part of CR LF (TXT-2)."""

    @staticmethod
    def lines(text: str) -> Iterator[tuple[int, str]]:
        for lineno, line in enumerate(text.split("\n"), start=1):
            yield lineno, line.rstrip("\r")


@mutant("reader-drops-unterminated-line")
class ReaderDropsUnterminatedLine(CardTableReader):
    """Drops a last line that has no line end, as reading whole lines only does (TXT-1)."""

    @staticmethod
    def lines(text: str) -> Iterator[tuple[int, str]]:
        yield from list(CardTableReader.lines(text))[:-1]


@mutant("reader-repeat-of-previous-line-only")
class ReaderRepeatOfPreviousLineOnly(CardTableReader):
    """Checks an instance ID against the entry just before only, so a repeat further down is read (TXT-2)."""

    def claim_id(self, iid: str, seen: set[str], lineno: int) -> None:
        super().claim_id(iid, seen, lineno)
        seen.intersection_update({iid})


@mutant("reader-skips-identical-repeat")
class ReaderSkipsIdenticalRepeat(CardTableReader):
    """Skips a line identical to an earlier one as harmless, rejecting only a repeated ID with other fields (TXT-2)."""

    @staticmethod
    def lines(text: str) -> Iterator[tuple[int, str]]:
        earlier: set[str] = set()
        for lineno, line in CardTableReader.lines(text):
            yield lineno, "" if line in earlier else line
            earlier.add(line)
