"""Comparing an implementation's answer with a case's expectation, up to renaming of instance IDs."""

from __future__ import annotations

import unicodedata
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any

from cardid_conformance import escape
from cardid_conformance.cardtable import CardEntry, normalize_name, normalize_printing
from cardid_conformance.cases import Case, ReaderExpectation, Role, WriterExpectation
from cardid_conformance.spec import family_of

#: Rule families about instance identity: a case's hint from these may name an ID divergence.
_IDENTITY_FAMILIES = ("ID", "LIB", "HID", "TOK", "SRC", "VIS")
#: Observation types that change a card without moving it (ID-4).
_IN_PLACE = ("transform", "turn_face_up", "become_copy", "meld")
#: Observations that end IDs, and the rule saying so (the ending-events table).
_ENDINGS = {"shuffle": "LIB-2", "mulligan": "ID-8", "reorder": "LIB-3", "game_start": "ID-9", "restart": "ID-9"}
#: The registered source-ID prefixes (SRC-1): a reader keeps any other as written (TXT-3).
_REGISTERED_PREFIXES = ("mtgo", "arena")
#: The rules that decide a kind marker: tokens, copies and cards (TOK-1), the kind an
#: introducing observation gives (TOK-6), a token made as a copy (TOK-7).
_KIND_RULES = ("TOK-1", "TOK-6", "TOK-7")
#: Observations shown before and after the one where assignments diverge.
_WINDOW = 2


@dataclass(frozen=True, slots=True, kw_only=True)
class Difference:
    """One way an answer differs from the expectation, with the rule it breaks."""

    rule: str
    message: str
    observation: int | None = None
    context: tuple[str, ...] = ()
    #: What went wrong, in words shared by every difference of that kind, so that failures
    #: with one root cause group together ("split at a move hand -> stack").
    cause: str = ""


#: Fields `describe` renders in its own way, or that are the case's and not the request's.
_DESCRIBED = frozenset(
    {"type", "object", "new_object", "from", "to", "from_position", "position", "face_down", "card",
     "expect", "rule"}
)


def describe(observation: Mapping[str, Any]) -> str:
    """A one-line rendering of an observation, for failure messages: every field it holds, so
    that whatever a rule reads (a reorder's `order`, a size, a reveal's position, a restart's
    `carried`, a copy's `original`) is there to diagnose it."""
    kind = observation["type"]
    handle = observation.get("object")
    parts = [kind]
    if handle is not None:
        parts.append(f"object {handle}")
        if "new_object" in observation:
            parts.append(f"-> {observation['new_object']}")
    elif kind in ("move", "create_token"):
        parts.append("(no object shown)")
    if kind == "move":
        where = observation["from"]
        if "from_position" in observation:
            where += f" ({observation['from_position']})"
        to = observation["to"]
        if "position" in observation:
            to += f" ({observation['position']})"
        parts.append(f"{where} -> {to}")
    for key, value in observation.items():
        if key not in _DESCRIBED or (key == "position" and kind != "move"):
            parts.append(f"{key}={_value(value)}")
    if observation.get("face_down"):
        parts.append("face down")
    card = observation.get("card")
    if card:
        parts.append("card " + ", ".join(f"{k}={_value(v)}" for k, v in card.items()))
    return " ".join(str(part) for part in parts)


def _value(value: Any) -> str:
    """A field's value as a failure message shows it: lists as [a, b], printings as SET NUMBER."""
    if isinstance(value, list):
        return "[" + ", ".join(_value(item) for item in value) + "]"
    if isinstance(value, Mapping):
        if set(value) == {"set", "number"}:
            return f"{value['set']} {value['number']}"
        return "{" + ", ".join(f"{k}={_value(v)}" for k, v in value.items()) + "}"
    return str(value)


def compare_writer(case: Case, result: Mapping[str, Any]) -> list[Difference]:
    """Compare a schema-valid writer result with the case's expectation."""
    expectation = case.expectation
    assert isinstance(expectation, WriterExpectation)
    observations = case.observations
    assignments: Sequence[str | None] = result["assignments"]
    if len(assignments) != len(observations):
        return [
            Difference(
                rule="ID-1",
                message=f"{len(assignments)} assignments for {len(observations)} observations",
            )
        ]
    shape = _check_shape(expectation, assignments, result["card_table"], observations)
    if shape:
        return shape
    divergence = _match_ids(case, expectation, assignments)
    entries = {entry["id"]: entry for entry in result["card_table"]}
    if isinstance(divergence, Difference):
        return [divergence, *_after_divergence(case, expectation, assignments, entries)]
    differences = []
    for label, expected in expectation.instances.items():
        entry = entries[divergence[label]]
        if not _plainly_right(expected, entry):
            actual = CardEntry.from_dict(entry)
            differences.extend(_compare_entry(case, label, expected, actual, with_reveal=True))
    return differences


def _after_divergence(
    case: Case,
    expectation: WriterExpectation,
    assignments: Sequence[str | None],
    entries: Mapping[str, Mapping[str, Any]],
) -> list[Difference]:
    """The rest of the answer, judged after the IDs diverged: each expected instance's name,
    printing, source IDs, owner and kind, in the entry of the ID its first observation got,
    where no other instance's first observation got that ID too (a merged entry says nothing
    about either card). revealed_at is left out: it counts observations of an ID that split."""
    firsts: dict[str, str] = {}
    for label, actual in zip(expectation.labels, assignments, strict=True):
        if label is not None and actual is not None:
            firsts.setdefault(label, actual)
    shared = Counter(firsts.values())
    out = []
    for label, expected in expectation.instances.items():
        actual_id = firsts.get(label)
        if actual_id is None or shared[actual_id] > 1 or actual_id not in entries:
            continue
        entry = entries[actual_id]
        if not _plainly_right(replace(expected, revealed_at=entry.get("revealed_at")), entry):
            out.extend(_compare_entry(case, label, expected, CardEntry.from_dict(entry), with_reveal=False))
    return out


def _plainly_right(expected: CardEntry, entry: Mapping[str, Any]) -> bool:
    """Whether a writer's entry (JSON form) says what is expected with no normalization needed.

    True means _compare_entry finds nothing, without building the entry; False means it must
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


def _check_shape(
    expectation: WriterExpectation,
    assignments: Sequence[str | None],
    card_table: Sequence[Mapping[str, Any]],
    observations: Sequence[Mapping[str, Any]],
) -> list[Difference]:
    differences = []
    labels = expectation.labels
    # One comparison of where each side has no ID; the loop naming each break runs only on a
    # mismatch.
    aligned = [label is None for label in labels] == [actual is None for actual in assignments]
    for index, (label, actual) in enumerate(() if aligned else zip(labels, assignments, strict=True)):
        if (label is None) != (actual is None):
            what = (
                f"assigned ID {actual!r} to an observation with no object"
                if label is None
                else "assigned no ID to an observation that refers to a card object"
            )
            differences.append(
                Difference(
                    rule="ID-1",
                    message=f"observation #{index}: {what}",
                    observation=index,
                    context=_window(observations, index),
                )
            )
    ids = [entry["id"] for entry in card_table]
    listed = set(ids)
    used = {actual for actual in assignments if actual is not None}
    if len(listed) != len(ids):
        counts = Counter(ids)  # not ids.count(): quadratic in a long game's card table
        for entry_id in sorted(i for i, n in counts.items() if n > 1):
            differences.append(Difference(rule="ID-2", message=f"card table lists ID {entry_id!r} twice"))
    for entry_id in sorted(used - listed):
        differences.append(
            Difference(rule="ID-2", message=f"ID {entry_id!r} is assigned but has no card-table entry")
        )
    for entry_id in sorted(listed - used):
        differences.append(
            Difference(rule="ID-2", message=f"card-table entry {entry_id!r} is assigned to no observation")
        )
    return differences


def _match_ids(
    case: Case, expectation: WriterExpectation, assignments: Sequence[str | None]
) -> dict[str, str] | Difference:
    """Find the one consistent renaming from expected labels to actual IDs, or the first break.

    Observation by observation: the renaming so far, until the first observation breaking it.
    """
    labels = expectation.labels
    first: dict[str, int] = {}
    last: dict[str, int] = {}
    for index, label in enumerate(labels):
        if label is not None:
            first.setdefault(label, index)
            last[label] = index
    to_actual: dict[str, str] = {}
    to_label: dict[str, str] = {}
    last_seen: dict[str, int] = {}  # the last observation matched for each label so far
    for index, (label, actual) in enumerate(zip(labels, assignments, strict=True)):
        if label is None or actual is None:
            continue
        known = to_actual.get(label)
        if known is not None and known != actual:
            other = to_label.get(actual)
            if other is not None and other != label:  # not a new ID: another instance's
                what = (
                    f"swapped: expected instance {label!r} (ID {known!r} so far) was given ID "
                    f"{actual!r}, the ID of expected instance {other!r} (last seen at observation "
                    f"#{last_seen[other]}); each should have kept its own"
                )
            else:
                what = (
                    f"split: expected instance {label!r} (ID {known!r} so far) was given a new "
                    f"ID {actual!r}; it should have been kept"
                )
            return _divergence(case, index, what, _keep_rule(case, index), what.split(":")[0])
        owner = to_label.get(actual)
        if owner is not None and owner != label:
            if last[owner] < index and first[label] == index:
                what = (
                    f"reused: ID {actual!r} of expected instance {owner!r} (last seen at "
                    f"observation #{last[owner]}) was used again for a new instance {label!r}; "
                    "that ID should have ended"
                )
                rule = _ending_rule(case, last[owner], index)
                word = "reused"
            else:
                what = (
                    f"merged: expected instances {owner!r} and {label!r} are two instances, "
                    f"but both were given ID {actual!r}"
                )
                shared = set(expectation.instances[owner].source_ids) & set(
                    expectation.instances[label].source_ids
                )
                rule = "SRC-2" if shared else "ID-7"
                word = "merged"
            return _divergence(case, index, what, rule, word)
        to_actual[label] = actual
        to_label[actual] = label
        last_seen[label] = index
    return to_actual


def _keep_rule(case: Case, index: int) -> str:
    """The rule that says the card keeps its ID at this observation."""
    observation = case.observations[index]
    kind = observation["type"]
    if kind in _IN_PLACE:
        return "ID-4"
    zones = [observation.get(key, "") for key in ("from", "to", "zone")]
    perspective = case.request["perspective"]
    if any(zone.startswith("library:") for zone in zones):
        return "LIB-1"
    if any(zone.startswith("hand:") and zone != f"hand:{perspective}" for zone in zones):
        return "HID-1"
    if any(zone == f"hand:{perspective}" for zone in zones):
        return "ID-5"
    if observation.get("face_down"):
        return "HID-3"
    if kind == "move":
        return "ID-3"
    return "ID-6"


def _ending_rule(case: Case, last_seen: int, index: int) -> str:
    """The rule that ended an ID between its last observation and its wrongful reuse."""
    observations = case.observations
    for between in range(last_seen + 1, index):
        rule = _ENDINGS.get(observations[between]["type"])
        if rule is not None:
            return rule
    ended = observations[last_seen]
    to = ended.get("to", "")
    if to.startswith("hand:") and to != f"hand:{case.request['perspective']}":
        return "HID-1"
    if to.startswith("library:"):
        return "LIB-3"
    if ended["type"] == "create_token" or ended.get("from") == "battlefield":
        return "TOK-2"
    if ended["type"] == "create_copy" or ended.get("from") == "stack":
        return "TOK-3"
    return "ID-7"


def _divergence(case: Case, index: int, what: str, derived: str, word: str) -> Difference:
    """A divergence cites the case's identity-rule hint for the observation, else the derived rule."""
    expectation = case.expectation
    assert isinstance(expectation, WriterExpectation)
    hint = expectation.rule_hints[index]
    rule = hint if hint and family_of(hint) in _IDENTITY_FAMILIES else derived
    return Difference(
        rule=rule,
        message=f"observation #{index} ({describe(case.observations[index])}): {what}",
        observation=index,
        context=_window(case.observations, index),
        cause=f"ID {word} at {_shape(case, case.observations[index])}",
    )


def _shape(case: Case, observation: Mapping[str, Any]) -> str:
    """What kind of observation it is, in the words a root cause is grouped by: its type, and
    for a move whether the source linked a new handle (`a move linking a new handle`). Zones
    are left to the message: one bug splits IDs at every zone change alike."""
    kind = observation["type"]
    if kind == "move":
        if "object" not in observation:
            return "a move showing no handle"
        return "a move linking a new handle" if "new_object" in observation else "a move keeping its handle"
    return f"a {kind}"


def answered_inconsistent(case: Case) -> Difference:
    """A writer's answer to a request that must be rejected: the inconsistency is at the last
    observation (a convention of the corpus: a rejection case ends where the request stops being
    consistent), shown with what came before it."""
    index = len(case.observations) - 1
    return Difference(
        rule=case.rules[0],
        message=f"answered, but the request is inconsistent at observation #{index} "
        f"({describe(case.observations[index])}) and must be rejected",
        observation=index,
        context=_window(case.observations, index),
        cause=f"answered a request inconsistent at {_shape(case, case.observations[index])}",
    )


def _window(observations: Sequence[Mapping[str, Any]], index: int) -> tuple[str, ...]:
    start, stop = max(0, index - _WINDOW), min(len(observations), index + _WINDOW + 1)
    return tuple(
        f"{'>' if i == index else ' '} #{i} {describe(observations[i])}" for i in range(start, stop)
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


def _compare_entry(
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
        out.extend(_compare_entry(case, want.id, want, got, with_reveal=False))
    return out
