"""A writer's answer against the case's expectation: the shape of its IDs (one for each
observation of an object, each listed once in the card table), then the one renaming from the
expected instances to its IDs, observation by observation, to the first divergence (split,
swapped, reused, merged) and the rule it breaks; then each instance's entry (`entries.py`).
And a writer that answers a request it must reject.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import replace
from typing import Any

from cardid_conformance.cardtable import CardEntry
from cardid_conformance.cases import Case, WriterExpectation
from cardid_conformance.compare.difference import Difference, describe
from cardid_conformance.compare.entries import compare_entry, plainly_right
from cardid_conformance.spec import family_of

#: Rule families about instance identity: a case's hint from these may name an ID divergence.
_IDENTITY_FAMILIES = ("ID", "LIB", "HID", "TOK", "SRC", "VIS")
#: Observation types that change a card without moving it (ID-4).
_IN_PLACE = ("transform", "turn_face_up", "become_copy", "meld")
#: Observations that end IDs, and the rule saying so (the ending-events table).
_ENDINGS = {"shuffle": "LIB-2", "mulligan": "ID-8", "reorder": "LIB-3", "game_start": "ID-9", "restart": "ID-9"}
#: Observations shown before and after the one where assignments diverge.
_WINDOW = 2


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
        if not plainly_right(expected, entry):
            actual = CardEntry.from_dict(entry)
            differences.extend(compare_entry(case, label, expected, actual, with_reveal=True))
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
        if not plainly_right(replace(expected, revealed_at=entry.get("revealed_at")), entry):
            out.extend(compare_entry(case, label, expected, CardEntry.from_dict(entry), with_reveal=False))
    return out


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
