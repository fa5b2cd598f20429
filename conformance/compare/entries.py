"""A card-table entry against the expected one, field by field (name, printing, source IDs,
owner, kind, revealed_at), each difference citing the rule it breaks for the case's role; and a
reader's answer, entry by entry.
"""

from __future__ import annotations

import unicodedata
from collections.abc import Mapping, Sequence
from typing import Any

from cardid_conformance import escape
from cardid_conformance.cardtable import CardEntry, normalize_name, normalize_printing
from cardid_conformance.cases import Case, ReaderExpectation, Role
from cardid_conformance.compare.difference import Difference
from cardid_conformance.spec import family_of

#: The registered source-ID prefixes (SRC-1): a reader keeps any other as written (TXT-3).
_REGISTERED_PREFIXES = ("mtgo", "arena")
#: The rules that decide a kind marker: tokens, copies and cards (TOK-1), the kind an
#: introducing observation gives (TOK-6), a token made as a copy (TOK-7).
_KIND_RULES = ("TOK-1", "TOK-6", "TOK-7")


def plainly_right(expected: CardEntry, entry: Mapping[str, Any]) -> bool:
    """Whether a writer's entry (JSON form) says what is expected with no normalization needed.

    True means compare_entry finds nothing, without building the entry; False means it must
    look, and say what differs. A long game's card table has tens of thousands of entries.
    """
    printing = entry.get("printing")
    want = expected.printing
    name = entry.get("name")
    return (
        name == expected.name
        and (name is None or unicodedata.is_normalized("NFC", name))
        and entry["owner"] == expected.owner
        and entry.get("kind", "card") == expected.kind
        and entry.get("revealed_at") == expected.revealed_at
        and (
            printing is None
            if want is None
            else printing is not None
            and printing["set"] == want.set
            and printing["number"] == want.number
        )
        and all(source_id in expected.source_ids for source_id in entry.get("source_ids", ()))
    )


def _case_rule(case: Case, families: Sequence[str]) -> str | None:
    for rule_id in case.rules:
        if family_of(rule_id) in families:
            return rule_id
    return None


def _name_rule(case: Case, expected: CardEntry) -> str:
    """The rule a wrong name breaks. A writer's copy, in a case citing TOK-5: TOK-5, which
    decides a copy's name (its card's, else its original's as known then); else the case's
    first NAME rule; else TXT-1 for a reader, NAME-1 for a writer. (The table shows no history:
    a name missing at the end may never have been bound, or have been lost, NAME-5.)"""
    if case.role is Role.WRITER and expected.kind == "copy" and "TOK-5" in case.rules:
        return "TOK-5"
    return _case_rule(case, ("NAME",)) or ("TXT-1" if case.role is Role.READER else "NAME-1")


def _text(value: str | None, absent: str) -> str:
    """A name or an owner as a message shows it: in double quotes with unsafe characters
    escaped (not Python's repr, which doubles backslashes), or what stands for none."""
    return absent if value is None else f'"{escape.show(value)}"'


def _kind_rule(case: Case, expected: CardEntry) -> str:
    """The rule a writer's wrong kind breaks: the case's first rule that decides a kind marker
    (TOK-1, TOK-6, TOK-7; NAME-5 for a card: one that becomes a copy keeps its kind), else
    TOK-1, which marks tokens, copies and cards."""
    deciding = _KIND_RULES + (("NAME-5",) if expected.kind == "card" else ())
    return next((rule for rule in case.rules if rule in deciding), "TOK-1")


def compare_entry(
    case: Case, label: str, expected: CardEntry, actual: CardEntry, *, with_reveal: bool
) -> list[Difference]:
    where = f"instance {label!r} (ID {actual.id!r})"
    out = []
    want_name, got_name = normalize_name(expected.name), normalize_name(actual.name)
    if want_name != got_name:
        if want_name is None and case.role is Role.WRITER:
            # No name was ever bound (VIS-1): not a bound name changed (NAME-5), and no "None".
            rule, cause = "VIS-1", "name recorded that was never shown"
            what = (f"name {_text(got_name, '')} recorded, but {_never_named(case, expected)}, "
                    "so the entry must have no name")
        else:
            rule, cause = _name_rule(case, expected), "name differs" if got_name else "name missing"
            what = f"name {_text(got_name, 'none')}, expected {_text(want_name, 'none')}"
        out.append(Difference(rule=rule, message=f"{where}: {what}", cause=cause))
    elif case.role is Role.WRITER and actual.name != got_name:  # the right name, not in NFC
        # Escaped: the two forms look the same when printed.
        what = f"name {actual.name!a} is not in Unicode NFC ({got_name!a}), as names are recorded"
        out.append(Difference(rule="NAME-6", message=f"{where}: {what}", cause="name not in NFC"))
    want_print, got_print = normalize_printing(expected.printing), normalize_printing(actual.printing)
    if want_print != got_print:
        if case.role is Role.READER:
            rule = "TXT-1"
        elif want_print is None:
            rule = "PRINT-3"
        elif got_print is None:
            rule = "PRINT-1"
        else:
            rule = "PRINT-2"
        cause = "printing missing" if got_print is None else (
            "printing never shown" if want_print is None else "printing differs")
        out.append(
            Difference(
                rule=rule,
                message=f"{where}: printing {_show(actual.printing)}, expected {_show(expected.printing)}",
                cause=cause,
            )
        )
    if case.role is Role.READER:
        if expected.source_ids != actual.source_ids:
            unregistered = "TXT-3" in case.rules and _lost_unregistered(expected, actual)
            out.append(
                Difference(
                    rule="TXT-3" if unregistered else "TXT-1",
                    message=f"{where}: source IDs {list(actual.source_ids)}, expected "
                    f"{list(expected.source_ids)}",
                    cause="source IDs differ",
                )
            )
    else:
        extra = [sid for sid in actual.source_ids if sid not in expected.source_ids]
        if extra:
            out.append(
                Difference(
                    rule="SRC-1",
                    message=f"{where}: source IDs {extra} were not shown by the source "
                    f"(allowed: any of {list(expected.source_ids)})",
                    cause="source IDs never shown",
                )
            )
    if expected.owner != actual.owner:
        out.append(
            Difference(
                rule="TXT-1" if case.role is Role.READER else "OWN-1",
                message=f"{where}: owner {_text(actual.owner, '')}, expected "
                f"{_text(expected.owner, '')}",
                cause="owner differs",
            )
        )
    if expected.kind != actual.kind:
        rule = "TXT-1" if case.role is Role.READER else _kind_rule(case, expected)
        out.append(
            Difference(rule=rule, message=f"{where}: kind {actual.kind!r}, expected {expected.kind!r}",
                       cause=f"a {expected.kind} recorded as a {actual.kind}")
        )
    if with_reveal and expected.revealed_at != actual.revealed_at:
        out.append(
            Difference(
                rule="VIS-2",
                message=f"{where}: revealed_at {_reveal(actual.revealed_at)}, expected "
                f"{_reveal(expected.revealed_at)}"
                + (" (no description of it was ever bound)" if expected.revealed_at is None else ""),
                observation=expected.revealed_at,
                cause="revealed_at differs",
            )
        )
    return out


def _never_named(case: Case, expected: CardEntry) -> str:
    """Why a writer's entry must have no name, in words of what the perspective player saw:
    nothing that named it, ever (revealed_at null), or only a description naming no card of the
    request's `cards` (revealed_at set, VIS-2)."""
    player = case.request.get("perspective")
    who = f"the perspective player ({escape.show(str(player))})" if player else "the perspective player"
    if expected.revealed_at is None:
        return f"this {expected.kind}'s name was never shown to {who}"
    return (
        f"no name of it was ever shown to {who} (what was shown of it, from observation "
        f"#{expected.revealed_at} on, names no card of the request's cards)"
    )


def _reveal(observation: int | None) -> str:
    """A revealed_at as a message shows it: the observation's number, or null (JSON's word)."""
    return "null" if observation is None else str(observation)


def _lost_unregistered(expected: CardEntry, actual: CardEntry) -> bool:
    """Whether a reader lost a source ID whose prefix is not registered: TXT-3's breach (a lost
    `mtgo:` or `arena:` ID, or one added, is TXT-1's)."""
    return any(
        source_id.split(":", 1)[0] not in _REGISTERED_PREFIXES
        for source_id in expected.source_ids
        if source_id not in actual.source_ids
    )


def _show(printing: object) -> str:
    return "none" if printing is None else str(printing)


def compare_reader(case: Case, result: Mapping[str, Any]) -> list[Difference]:
    """Compare a schema-valid reader result with the expected card table, entry by entry."""
    expectation = case.expectation
    assert isinstance(expectation, ReaderExpectation)
    actual = [CardEntry.from_dict(entry) for entry in result["card_table"]]
    expected = expectation.card_table
    if len(actual) != len(expected):
        return [
            Difference(
                rule="TXT-1", message=f"{len(actual)} entries read, expected {len(expected)}"
            )
        ]
    out = []
    for index, (want, got) in enumerate(zip(expected, actual, strict=True)):
        if want.id != got.id:
            out.append(
                Difference(rule="TXT-1", message=f"entry {index}: ID {got.id!r}, expected {want.id!r}")
            )
            continue
        out.extend(compare_entry(case, want.id, want, got, with_reveal=False))
    return out
