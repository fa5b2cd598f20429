"""MTG Arena's log format: how game-engine (GRE) messages sit in `Player.log`, Arena's zone
numbers, and the annotations both the renderer and the importer speak.

Shapes checked against the real recording in `../shared/data/logs/arena/`: the message envelope
(`greToClientEvent.greToClientMessages`), `GameStateMessage` with `zones` (ordered
`objectInstanceIds`), `gameObjects`, `annotations` with `details`, `diffDeletedInstanceIds`,
the zone numbers below, and the annotations `ZoneTransfer` (zone_src, zone_dest, category),
`ObjectIdChanged` (orig_id, new_id), `Shuffle` (OldIds, NewIds), `Scry` (topIds, bottomIds),
`TokenCreated` and `TargetSpec`. Assumed, never seen in a recording (docs/real-parsers.md lists
them): the `Mulligan` zone-transfer category, `isCopy` on a game object, and the
`CopiedObject` annotation naming a copy's original.
"""

from __future__ import annotations

import json
from collections.abc import Iterator, Mapping, Sequence
from typing import Any

from cardid_conformance.sources.common import LogError

#: The line that precedes each event's JSON in Player.log.
EVENT_LINE = "[UnityCrossThreadLogger]{stamp}: Match to {player}: GreToClientEvent"
#: The line that precedes the match's room state (seats and screen names).
ROOM_LINE = "[UnityCrossThreadLogger]{stamp}: MatchGameRoomStateChangedEvent"
#: A fixed time stamp: a rendering never depends on the clock.
STAMP = "1/1/2026 12:00:00 PM"

#: Arena's zone numbers (as the recording has them): shared zones, then four a seat.
SHARED_ZONES = {"command": 26, "stack": 27, "battlefield": 28, "exile": 29}
_SEAT_ZONES = ("hand", "library", "graveyard")
_ZONE_TYPES = {
    "command": "ZoneType_Command", "stack": "ZoneType_Stack", "battlefield": "ZoneType_Battlefield",
    "exile": "ZoneType_Exile", "hand": "ZoneType_Hand", "library": "ZoneType_Library",
    "graveyard": "ZoneType_Graveyard",
}
_VISIBILITY = {"hand": "Visibility_Private", "library": "Visibility_Hidden"}


def zone_id(kind: str, seat: int | None) -> int:
    """Arena's number for a zone: a shared one, or a seat's hand, library or graveyard."""
    if seat is None:
        return SHARED_ZONES[kind]
    return 31 + 4 * (seat - 1) + _SEAT_ZONES.index(kind)


def zone_of_id(number: int) -> tuple[str, int | None] | None:
    """The zone kind and seat of an Arena zone number; None for zones the vocabulary has no
    name for (sideboard, limbo, revealed, pending)."""
    for kind, shared in SHARED_ZONES.items():
        if number == shared:
            return kind, None
    if number >= 31:
        seat, index = divmod(number - 31, 4)
        if index < len(_SEAT_ZONES):
            return _SEAT_ZONES[index], seat + 1
    return None


def zone_entry(number: int, ids: Sequence[int], perspective_seat: int) -> dict[str, Any]:
    """A `zones` entry as Arena writes it."""
    where = zone_of_id(number)
    assert where is not None
    kind, seat = where
    entry: dict[str, Any] = {
        "zoneId": number, "type": _ZONE_TYPES[kind],
        "visibility": _VISIBILITY.get(kind, "Visibility_Public"),
    }
    if seat is not None:
        entry["ownerSeatId"] = seat
    entry["objectInstanceIds"] = list(ids)
    if kind == "hand":
        entry["viewers"] = [seat]
    return entry


def annotation(number: int, kind: str, affected: Sequence[int], affector: int | None = None,
               **details: Sequence[int] | str) -> dict[str, Any]:
    """An annotation as Arena writes it: int32 lists and strings as typed details."""
    out: dict[str, Any] = {"id": number}
    if affector is not None:
        out["affectorId"] = affector
    out["affectedIds"] = list(affected)
    out["type"] = [f"AnnotationType_{kind}"]
    if details:
        out["details"] = [
            {"key": key, "type": "KeyValuePairValueType_string", "valueString": [value]}
            if isinstance(value, str)
            else {"key": key, "type": "KeyValuePairValueType_int32", "valueInt32": list(value)}
            for key, value in details.items()
        ]
    return out


def detail(note: Mapping[str, Any], key: str) -> list[Any]:
    """The values of one detail of an annotation (empty when absent)."""
    for item in note.get("details", ()):
        if item.get("key") == key:
            return list(item.get("valueInt32") or item.get("valueString") or ())
    return []


def kinds(note: Mapping[str, Any]) -> list[str]:
    """An annotation's types without the `AnnotationType_` prefix."""
    return [t.removeprefix("AnnotationType_") for t in note.get("type", ())]


def line_of(place: str) -> int:
    """The log line of a place `read_log` gives (`line 12` or `line 12, message 3`)."""
    return int(place.split()[1].rstrip(","))


def message_place(index: int) -> str:
    """The place `read_log` gives message `index` (from 0) of a log `write_log` wrote."""
    return f"line {2 * index + 4}"


def write_log(messages: Sequence[Mapping[str, Any]], players: Sequence[str], perspective: str) -> str:
    """Player.log text: the room state naming the seats, then one event per message, each a
    marker line and the event's JSON on the next line (`message_place` says which)."""
    room = {
        "matchGameRoomStateChangedEvent": {"gameRoomInfo": {
            "gameRoomConfig": {"reservedPlayers": [
                {"systemSeatId": seat, "playerName": name, "userId": f"user-{seat}"}
                for seat, name in enumerate(players, start=1)
            ]},
            "stateType": "MatchGameRoomStateType_Playing",
        }},
    }
    lines = [ROOM_LINE.format(stamp=STAMP), json.dumps(room, separators=(",", ":"))]
    for number, message in enumerate(messages, start=1):
        event = {
            "transactionId": f"render-{number}", "timestamp": str(number),
            "greToClientEvent": {"greToClientMessages": [message]},
        }
        lines.append(EVENT_LINE.format(stamp=STAMP, player=perspective))
        lines.append(json.dumps(event, separators=(",", ":"), ensure_ascii=False))
    return "\n".join(lines) + "\n"


def read_log(text: str) -> tuple[list[tuple[str, dict[str, Any]]], dict[int, str]]:
    """The GRE messages of a Player.log (or of a recording holding one JSON event a line), each
    with its place (`line N`, or `line N, message M` when a line holds several), and the seats' screen names when the log names them.

    A line is read when it is a JSON object, alone or after a marker; other lines are the
    client's own chatter and are passed over."""
    messages: list[tuple[str, dict[str, Any]]] = []
    names: dict[int, str] = {}
    for number, line in enumerate(text.splitlines(), start=1):
        start = line.find("{")
        if start < 0:
            continue
        try:
            event = json.loads(line[start:])
        except ValueError:
            continue
        if not isinstance(event, dict):
            continue
        names.update(_names(event))
        gre = event.get("greToClientEvent")
        if not isinstance(gre, dict):
            continue
        batch = gre.get("greToClientMessages")
        if not isinstance(batch, list):
            raise LogError(f"line {number}", "greToClientMessages is not a list")
        found = [m for m in batch if isinstance(m, dict)]
        if len(found) == 1:
            messages.append((f"line {number}", found[0]))
        else:
            messages.extend((f"line {number}, message {i}", m) for i, m in enumerate(found, 1))
    return messages, names


def _names(event: Mapping[str, Any]) -> Iterator[tuple[int, str]]:
    room = event.get("matchGameRoomStateChangedEvent")
    if not isinstance(room, dict):
        return
    players = room.get("gameRoomInfo", {}).get("gameRoomConfig", {}).get("reservedPlayers", ())
    for player in players:
        if isinstance(player, dict) and isinstance(player.get("systemSeatId"), int):
            yield player["systemSeatId"], str(player.get("playerName", ""))
