"""Mutants of the card table reader (TXT-1 to TXT-3, C-2): each reads the grammar of
spec/card-table.md the way a parser author plausibly would get it wrong (reader_more.py holds
those written for spec 1.2.0). `patterned` registers a reader that differs from the reference in
a field's pattern only."""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any

from cardid_reference.errors import RequestError
from cardid_reference.reader import CardTableReader, Cursor

from . import ExitWithoutRejection, mutant


@mutant("reader-lenient")
class ReaderLenient(CardTableReader):
    """Accepts unquoted names and repeated instance IDs (TXT-2)."""

    def claim_id(self, iid: str, seen: set[str], lineno: int) -> None:
        return None

    def name(self, cur: Cursor) -> str | None:
        if cur.peek() in ('"', "?"):
            return super().name(cur)
        start = cur.pos
        while not cur.at_end and cur.peek() != " ":
            cur.take()
        return cur.text[start : cur.pos] or None


@mutant("reader-strip")
class ReaderStrip(CardTableReader):
    """Strips whitespace around lines instead of rejecting it (TXT-2)."""

    @staticmethod
    def lines(text: str) -> Iterator[tuple[int, str]]:
        for lineno, line in CardTableReader.lines(text):
            yield lineno, line.strip()


@mutant("reader-needs-printing")
class ReaderNeedsPrinting(CardTableReader):
    """Rejects an entry without a printing, as a reader written for one client's output (TXT-1)."""

    def entry(self, cur: Cursor) -> dict[str, Any]:
        entry = super().entry(cur)
        if entry["printing"] is None:
            cur.fail("expected a printing")
        return entry


@mutant("reader-short-set-codes")
class ReaderShortSetCodes(CardTableReader):
    """Accepts set codes of 3 or 4 characters only, as classic paper sets have (TXT-1)."""

    def printing(self, cur: Cursor) -> dict[str, str]:
        printing = super().printing(cur)
        if len(printing["set"]) > 4:
            cur.fail(f"set code {printing['set']!r} is longer than 4 characters")
        return printing


@mutant("reader-splitlines")
class ReaderSplitlines(CardTableReader):
    """Splits the text with universal newlines, so a lone CR or U+2028 ends a line (TXT-2)."""

    @staticmethod
    def lines(text: str) -> Iterator[tuple[int, str]]:
        yield from enumerate(text.splitlines(), start=1)


@mutant("reader-zero-strip")
class ReaderZeroStrip(CardTableReader):
    """Strips leading zeros from digit runs of collector numbers: "2024-01" -> "2024-1" (TXT-1)."""

    def collector_number(self, raw: str) -> str:
        return re.sub(r"(?<![0-9])0+(?=[0-9])", "", raw)


@mutant("reader-alnum-number")
class ReaderAlnumNumber(CardTableReader):
    """Rejects collector numbers with anything but ASCII letters, digits and dashes (TXT-1)."""

    def collector_number(self, raw: str) -> str:
        if not re.fullmatch(r"[A-Za-z0-9-]+", raw):
            raise RequestError(f"collector number {raw!r} is not alphanumeric")
        return raw


@mutant("reader-drop-unknown-src")
class ReaderDropUnknownSrc(CardTableReader):
    """Drops source IDs whose prefix is not registered (TXT-3)."""

    def keeps_source_id(self, source_id: str) -> bool:
        return source_id.split(":", 1)[0] in ("mtgo", "arena")


@mutant("reader-no-unescape")
class ReaderNoUnescape(CardTableReader):
    """Returns quoted names with their escapes left in (TXT-1)."""

    def quoted(self, cur: Cursor) -> str:
        return super().quoted(cur).replace("\\", "\\\\").replace('"', '\\"')


@mutant("reader-lf-only")
class ReaderLfOnly(CardTableReader):
    """Ends lines at LF only, so the CR of a CR LF line end stays in the line (TXT-1)."""

    @staticmethod
    def lines(text: str) -> Iterator[tuple[int, str]]:
        return enumerate(text.split("\n"), start=1)


@mutant("reader-strips-bom")
class ReaderStripsBom(CardTableReader):
    """Drops a U+FEFF at the start of the text, as decoding a file with utf-8-sig does (TXT-2)."""

    def read(self, text: str) -> dict[str, Any]:
        return super().read(text.removeprefix("\ufeff"))


@mutant("reader-ids-ignore-case")
class ReaderIdsIgnoreCase(CardTableReader):
    """Compares instance IDs without case, so it rejects #C1 after #c1 as a repeated ID (TXT-1)."""

    def claim_id(self, iid: str, seen: set[str], lineno: int) -> None:
        super().claim_id(iid.casefold(), seen, lineno)


@mutant("reader-ascii-names")
class ReaderAsciiNames(CardTableReader):
    """Allows only printable ASCII in quoted names, rejecting "Lim-Dûl's Vault" (TXT-1)."""

    def quoted(self, cur: Cursor) -> str:
        start = cur.pos
        text = super().quoted(cur)
        if not text.isascii():
            cur.pos = start
            cur.fail("a quoted string holds a character beyond ASCII")
        return text


@mutant("reader-owner-optional")
class ReaderOwnerOptional(CardTableReader):
    """Reads a line without an owner field as an entry with an empty owner (TXT-2)."""

    def entry(self, cur: Cursor) -> dict[str, Any]:
        if " owner=" in cur.text:
            return super().entry(cur)
        entry = super().entry(Cursor(cur.text + " owner=nobody", cur.lineno))
        return {**entry, "owner": ""}


class _LooseSpaceCursor(Cursor):
    """A cursor that takes a run of spaces wherever the grammar wants exactly one."""

    def __init__(self, text: str, lineno: int, pos: int = 0) -> None:
        super().__init__(text, lineno)
        self.pos = pos

    def expect(self, literal: str, what: str) -> None:
        super().expect(literal, what)
        if literal == " ":
            while self.peek() == " ":
                self.pos += 1


@mutant("reader-loose-spaces")
class ReaderLooseSpaces(CardTableReader):
    """Accepts several spaces between fields, as a split on whitespace would (TXT-2)."""

    def entry(self, cur: Cursor) -> dict[str, Any]:
        return super().entry(_LooseSpaceCursor(cur.text, cur.lineno))


@mutant("reader-any-escape")
class ReaderAnyEscape(CardTableReader):
    """Reads any backslash escape as the character after the backslash (TXT-2)."""

    def qchar(self, char: str) -> bool:
        return True

    def escape(self, cur: Cursor) -> str:
        return cur.take()


@mutant("reader-no-kind")
class ReaderNoKind(CardTableReader):
    """Parses the token and copy markers but reads every entry as a card (TXT-1)."""

    def entry(self, cur: Cursor) -> dict[str, Any]:
        return {**super().entry(cur), "kind": "card"}


@mutant("reader-question-literal")
class ReaderQuestionLiteral(CardTableReader):
    """Reads the unknown-name marker ? as the literal name "?" (TXT-1)."""

    def name(self, cur: Cursor) -> str | None:
        if cur.peek() == "?":
            cur.take()
            return "?"
        return super().name(cur)


def patterned(name: str, doc: str, **patterns: str) -> None:
    """Register a reader that differs from the reference in a field's pattern only."""
    compiled = {field: re.compile(pattern) for field, pattern in patterns.items()}
    mutant(name)(type(name, (CardTableReader,), {"__doc__": doc, **compiled}))


patterned(
    "reader-card-kind-written",
    "Accepts `card` written as the kind, since an absent kind means card (TXT-2).",
    KIND=r"token|copy|card",
)
patterned(
    "reader-unicode-players",
    "Matches an unquoted player with Python's Unicode \\w, so owner=Jürgen needs no quotes (TXT-2).",
    PLAYER=r"[\w.-]+",
)
patterned(
    "reader-unicode-ids",
    "Matches instance IDs with Python's Unicode \\w, so #ç1 is an ID (TXT-2).",
    INSTANCE_ID=r"[\w.-]+",
)
patterned(
    "reader-empty-ids",
    "Allows an empty instance ID, a * for the + of the grammar (TXT-2).",
    INSTANCE_ID=r"[A-Za-z0-9._-]*",
)
patterned(
    "reader-source-id-to-space",
    "Takes a source ID's value as everything up to the next space, so mtgo:1,2 is one (TXT-2).",
    SOURCE_ID=r"[a-z][a-z0-9-]*:[^ ]+",
)
patterned(
    "reader-empty-source-id-values",
    "Allows an empty source-ID value, a * for the + of the grammar, so mtgo: is one (TXT-2).",
    SOURCE_ID=r"[a-z][a-z0-9-]*:[A-Za-z0-9_./-]*",
)


@mutant("reader-kind-by-prefix")
class ReaderKindByPrefix(CardTableReader):
    """Reads the kind by its start, so `tokens` is a token (TXT-2)."""

    KIND = re.compile(r"(?:token|copy)\S*")

    def entry(self, cur: Cursor) -> dict[str, Any]:
        entry = super().entry(cur)
        return {**entry, "kind": "token" if entry["kind"].startswith("token") else entry["kind"][:4]}


@mutant("reader-source-ids-by-prefix")
class ReaderSourceIdsByPrefix(CardTableReader):
    """Keeps source IDs in a map by prefix, so a second mtgo: ID replaces the first (TXT-1)."""

    def entry(self, cur: Cursor) -> dict[str, Any]:
        entry = super().entry(cur)
        by_prefix = dict(source_id.split(":", 1) for source_id in entry["source_ids"])
        return {**entry, "source_ids": [f"{prefix}:{value}" for prefix, value in by_prefix.items()]}


@mutant("reader-fields-by-shape")
class ReaderFieldsByShape(CardTableReader):
    """Tells the printing from source IDs by its shape wherever it comes, so it may follow them (TXT-2)."""

    def entry(self, cur: Cursor) -> dict[str, Any]:
        head, owner, tail = cur.text.partition(" owner=")
        after = re.fullmatch(r'(#\S+ (?:"(?:[^"\\]|\\.)*"|\?))((?: [a-z][a-z0-9-]*:\S+)+)( \[[^\]]*\])(.*)', head)
        if after is None:
            return super().entry(cur)
        line = after[1] + after[3] + after[2] + after[4] + owner + tail
        return super().entry(Cursor(line, cur.lineno))


@mutant("reader-number-to-bracket")
class ReaderNumberToBracket(CardTableReader):
    """Takes the collector number as everything up to "]", spaces included (TXT-2)."""

    def printing(self, cur: Cursor) -> dict[str, str]:
        end = cur.text.find("]", cur.pos)
        if end > 0:
            inside = cur.text[cur.pos : end]
            set_code, space, number = inside.partition(" ")
            if space and " " in number:
                cur.pos = end + 1
                return {"set": set_code.removeprefix("["), "number": number}
        return super().printing(cur)


@mutant("reader-printing-loose-space")
class ReaderPrintingLooseSpace(CardTableReader):
    """Takes any run of spaces between the set code and the collector number (TXT-2)."""

    def printing(self, cur: Cursor) -> dict[str, str]:
        loose = _LooseSpaceCursor(cur.text, cur.lineno, cur.pos)
        printing = super().printing(loose)
        cur.pos = loose.pos
        return printing


@mutant("reader-backslash-before-quote")
class ReaderBackslashBeforeQuote(CardTableReader):
    """Ends a quoted string at the first quote without a backslash before it, so "P1\\\\" is unclosed (TXT-1)."""

    def quoted(self, cur: Cursor) -> str:
        end = cur.pos + 1
        while (end := cur.text.find('"', end)) > 0 and cur.text[end - 1] == "\\":
            end += 1
        if end < 0:
            cur.pos = len(cur.text)
            cur.fail("the quoted string is not closed")
        return super().quoted(cur)


@mutant("reader-rejects-empty-text")
class ReaderRejectsEmptyText(CardTableReader):
    """Rejects a text with no entry, as a reader that takes an empty table for a failed export (TXT-1)."""

    def read(self, text: str) -> dict[str, Any]:
        result = super().read(text)
        if not result["card_table"]:
            raise RequestError("the card table has no entry")
        return result


@mutant("reader-rejection-exit-only")
class ReaderRejectionExitOnly(CardTableReader):
    """Rejects invalid card table text with exit status 1 but no rejection object (C-2)."""

    def read(self, text: str) -> dict[str, Any]:
        try:
            return super().read(text)
        except RequestError:
            raise ExitWithoutRejection from None
