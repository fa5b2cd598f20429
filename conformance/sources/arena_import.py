"""Importing MTG Arena's `Player.log` (or a recording of its game-engine messages) as a writer
request for one seat, following spec/observations.md's mapping for Arena.

Each observation keeps its place (the log line of the message that shows it) and, where the
importer inferred something, a note saying what and why. The importer writes only what the
perspective seat was shown: a game object private to another seat gives no card description.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from cardid_conformance.sources.arena_log import detail, kinds, read_log, zone_of_id
from cardid_conformance.sources.common import Imported, LogError

_PUBLIC = ("battlefield", "stack", "exile", "command", "graveyard")
#: Game-object types that are card objects; the others (abilities, emblems) are not (ID-1).
_CARD_OBJECTS = ("GameObjectType_Card", "GameObjectType_Token")


def import_log(text: str, perspective: str | None, sidecar: Mapping[str, Any] | None = None) -> Imported:
    """The log as a writer request for `perspective` (a seat's screen name, `seatN`, or N;
    None: the seat the log was written for, its messages' `systemSeatIds`).

    `sidecar` is what a renderer wrote beside the log (players, the card section, what each
    grpId stands for); without it, players are named by the log or `seat1`, `seat2`, and a card
    is described by its grpId alone (`arena:N`)."""
    messages, names = read_log(text)
    if not messages:
        raise LogError("line 1", "no game-engine message: this is not an Arena Player.log")
    if perspective is None:
        seats = next((m.get("systemSeatIds") for _, m in messages if m.get("systemSeatIds")), None)
        if not seats:
            raise LogError("the log", "no message names the seat it was written for (systemSeatIds)")
        perspective = str(seats[0])
    importer = _Importer(names, perspective, sidecar or {})
    for place, message in messages:
        importer.read(place, message)
    return importer.imported()


class _Importer:
    def __init__(self, names: Mapping[int, str], perspective: str, sidecar: Mapping[str, Any]) -> None:
        players = list(sidecar.get("players", ()))
        seats = sorted(set(names) | set(range(1, len(players) + 1)) | {1, 2})
        self.names = {
            seat: players[seat - 1] if seat <= len(players) else _player_name(names.get(seat), seat)
            for seat in seats
        }
        self.seat = self._seat_of(perspective)
        self.descriptions: Mapping[str, Any] = sidecar.get("descriptions", {})
        self.cards = list(sidecar.get("cards", ()))
        self.observations: list[dict[str, Any]] = []
        self.places: list[str] = []
        self.notes: list[str | None] = []
        self.game: int | None = None
        self.place = "the log"
        self.skipped: list[str] = []
        self._reset()

    def _seat_of(self, perspective: str) -> int:
        for seat, name in self.names.items():
            if perspective in (name, f"seat{seat}", str(seat)):
                return seat
        known = ", ".join(f"{name} (seat {seat})" for seat, name in self.names.items())
        raise LogError("the log", f"no seat is {perspective!r}; the log's seats: {known}")

    def _reset(self) -> None:
        self.lists: dict[int, list[int]] = {}
        self.zone: dict[int, int] = {}
        self.seen: set[int] = set()
        self.grp: dict[int, int | None] = {}
        self.controller: dict[int, int] = {}
        self.kind: dict[int, str] = {}
        self.abilities: set[int] = set()

    def imported(self) -> Imported:
        request = {
            "role": "writer", "perspective": self.names[self.seat],
            "players": [self.names[seat] for seat in sorted(self.names)],
            "source": {"name": "arena", "hidden_tracking": True},
            "cards": self.cards, "observations": self.observations,
        }
        return Imported(request=request, places=tuple(self.places), notes=tuple(self.notes),
                        skipped=tuple(dict.fromkeys(self.skipped)))

    # -- helpers ---------------------------------------------------------------------------

    def add(self, place: str, observation: dict[str, Any], note: str | None = None) -> None:
        self.observations.append(observation)
        self.places.append(place)
        self.notes.append(note)
        for key in ("object", "new_object"):
            if key in observation:
                self.seen.add(int(observation[key]))

    def player(self, seat: int) -> str:
        """The player sitting in a seat, as the request names them."""
        return self.names.get(seat, f"seat{seat}")

    def zone_name(self, number: int) -> str | None:
        where = zone_of_id(number)
        if where is None:
            return None
        kind, seat = where
        return kind if seat is None else f"{kind}:{self.player(seat)}"

    def is_library(self, number: int | None) -> bool:
        where = zone_of_id(number) if number is not None else None
        return where is not None and where[0] == "library"

    def visible(self, obj: Mapping[str, Any]) -> bool:
        return obj.get("visibility") == "Visibility_Public" or self.seat in obj.get("viewers", ())

    def description(self, obj: Mapping[str, Any] | None) -> dict[str, Any] | None:
        if obj is None or not self.visible(obj) or not obj.get("grpId"):
            return None
        grp = str(obj["grpId"])
        shown = self.descriptions.get(grp)
        return dict(shown) if shown is not None else {"source_id": f"arena:{grp}"}

    def facts(self, out: dict[str, Any], iid: int, obj: Mapping[str, Any] | None) -> None:
        """Card, owner and (for an object first seen) kind, from the object's message."""
        card = self.description(obj)
        if card is not None:
            out["card"] = card
            self.grp[iid] = obj["grpId"] if obj else None
        if obj is not None and isinstance(obj.get("ownerSeatId"), int):
            out["owner"] = self.player(obj["ownerSeatId"])
        if obj is not None and iid not in self.kind:
            self.kind[iid] = "token" if obj.get("type") == "GameObjectType_Token" else (
                "copy" if obj.get("isCopy") else "card")
        if self.kind.get(iid, "card") != "card":
            out["kind"] = self.kind[iid]  # read only where it introduces the object (TOK-6)
        if obj is not None and isinstance(obj.get("controllerSeatId"), int):
            self.controller[iid] = obj["controllerSeatId"]

    def position(self, iid: int, cards: Sequence[int]) -> Any:
        index = cards.index(iid)
        if index == 0:
            return "top"
        if index == len(cards) - 1:
            return "bottom"
        return index + 1

    # -- one message ---------------------------------------------------------------------

    def read(self, place: str, message: Mapping[str, Any]) -> None:
        self.place = place
        state = message.get("gameStateMessage")
        if message.get("type") != "GREMessageType_GameStateMessage" or not isinstance(state, dict):
            return
        info = state.get("gameInfo") or {}
        number = info.get("gameNumber")
        if isinstance(number, int) and number != self.game:
            self.game = number
            self._reset()
            self.add(place, {"type": "game_start", "game": number})
        objects = {}
        for obj in state.get("gameObjects", ()):
            if not isinstance(obj, dict) or not isinstance(obj.get("instanceId"), int):
                continue
            if obj.get("type", "GameObjectType_Card") in _CARD_OBJECTS:
                objects[obj["instanceId"]] = obj
            else:
                self.abilities.add(obj["instanceId"])  # an ability on the stack, not a card
        shown_lists = {
            zone["zoneId"]: list(zone.get("objectInstanceIds", ()))
            for zone in state.get("zones", ()) if isinstance(zone, dict) and "zoneId" in zone
        }
        fresh_game = state.get("type") == "GameStateType_Full" and isinstance(number, int)
        notes = sorted(
            (n for n in state.get("annotations", ()) if isinstance(n, dict)),
            key=lambda n: n.get("id", 0),
        )
        renamed = {
            detail(n, "new_id")[0]: detail(n, "orig_id")[0]
            for n in notes if "ObjectIdChanged" in kinds(n) and detail(n, "new_id")
        }
        for zone_number, cards in shown_lists.items():
            for iid in cards:
                if iid not in self.abilities:
                    self.zone.setdefault(iid, zone_number)
        handled: set[int] = set()
        resized: set[int] = set()
        mulligan = [n for n in notes if "ZoneTransfer" in kinds(n) and detail(n, "category") == ["Mulligan"]]
        if mulligan:
            resized |= self.on_mulligan(place, mulligan, handled)
        copied = {n["affectedIds"][0]: n.get("affectorId") for n in notes
                  if "CopiedObject" in kinds(n) and n.get("affectedIds")}
        for note in notes:
            kind = kinds(note)
            if "ZoneTransfer" in kind and note not in mulligan:
                for iid in note.get("affectedIds", ()):
                    self.on_transfer(place, note, iid, renamed.get(iid, iid), objects, shown_lists)
                    handled.add(iid)
            elif "Shuffle" in kind and not mulligan:
                self.on_shuffle(place, note)
            elif "Scry" in kind:
                self.on_scry(place, note, handled)
            elif "TokenCreated" in kind:
                for iid in note.get("affectedIds", ()):
                    self.on_created(place, iid, objects, copied, "create_token")
                    handled.add(iid)
            elif "TargetSpec" in kind:
                for iid in note.get("affectedIds", ()):
                    if iid not in self.abilities and (iid in objects or iid in self.zone):
                        self.on_mention(place, iid, objects)
                        handled.add(iid)
        for iid, obj in objects.items():
            if iid not in handled:
                self.on_object(place, iid, obj, copied)
        for zone_number, cards in shown_lists.items():
            if self.is_library(zone_number) and zone_number not in resized:
                self.on_library_list(place, zone_number, cards)
            self.set_list(zone_number, cards)
        for iid in state.get("diffDeletedInstanceIds", ()):
            if iid in self.seen and iid not in renamed.values() and iid not in handled \
                    and iid not in self.abilities:
                self.on_deleted(place, iid)
        if fresh_game or resized:
            for zone_number in sorted(resized or shown_lists):
                if self.is_library(zone_number) and zone_number in self.lists:
                    self.add(place, {"type": "library_size", "zone": self.zone_name(zone_number),
                                     "size": len(self.lists[zone_number])})

    def set_list(self, zone_number: int, cards: list[int]) -> None:
        self.lists[zone_number] = cards
        for iid in cards:
            self.zone[iid] = zone_number

    def on_transfer(self, place: str, note: Mapping[str, Any], new: int, old: int,
                    objects: Mapping[int, Any], shown: Mapping[int, list[int]]) -> None:
        source, target = detail(note, "zone_src"), detail(note, "zone_dest")
        from_zone = self.zone_name(source[0]) if source else None
        to_zone = self.zone_name(target[0]) if target else None
        if from_zone is None or to_zone is None:
            self.skipped.append(self.place)
            return
        out: dict[str, Any] = {"type": "move", "object": str(old)}
        if new != old:
            out["new_object"] = str(new)
            if old in self.kind:
                self.kind[new] = self.kind[old]
        out["from"], out["to"] = from_zone, to_zone
        if self.is_library(source[0]):
            cards = self.lists.get(source[0], [])
            if old in cards:
                out["from_position"] = self.position(old, cards)
                cards.remove(old)
        if self.is_library(target[0]):
            cards = shown.get(target[0], [])
            if new in cards:
                out["position"] = self.position(new, cards)
        self.facts(out, new, objects.get(new))
        self.zone[new] = target[0]
        self.add(place, out)

    def on_mulligan(self, place: str, transfers: Sequence[Mapping[str, Any]], handled: set[int]) -> set[int]:
        hand = detail(transfers[0], "zone_src")[0]
        where = zone_of_id(hand)
        assert where is not None and where[1] is not None
        handles = [iid for note in transfers for iid in note.get("affectedIds", ())]
        handled.update(handles)
        self.add(place, {"type": "mulligan", "player": self.names[where[1]],
                         "objects": [str(iid) for iid in handles]})
        return {detail(transfers[0], "zone_dest")[0]}

    def on_shuffle(self, place: str, note: Mapping[str, Any]) -> None:
        old = detail(note, "OldIds")
        for zone_number, cards in self.lists.items():
            if not old or not self.is_library(zone_number) or old[0] not in cards:
                continue
            library = self.zone_name(zone_number)
            if sorted(old) == sorted(cards):
                self.add(place, {"type": "shuffle", "zone": library})
            elif cards[:len(old)] == old:
                self.add(place, {"type": "reorder", "zone": library, "end": "top", "count": len(old)})
            elif cards[len(cards) - len(old):][::-1] == old:
                self.add(place, {"type": "reorder", "zone": library, "end": "bottom", "count": len(old)})
            else:
                self.skipped.append(self.place)
            return

    def on_scry(self, place: str, note: Mapping[str, Any], handled: set[int]) -> None:
        for iid in detail(note, "bottomIds"):
            zone_number = self.zone.get(iid)
            if zone_number is None or not self.is_library(zone_number):
                continue
            cards = self.lists[zone_number]
            library = self.zone_name(zone_number)
            self.add(place, {"type": "move", "object": str(iid), "from": library, "to": library,
                             "from_position": self.position(iid, cards),
                             "position": "bottom"})
            cards.remove(iid)
            cards.append(iid)
            handled.add(iid)

    def on_created(self, place: str, iid: int, objects: Mapping[int, Any],
                   copied: Mapping[int, int | None], kind: str) -> None:
        obj = objects.get(iid) or {}
        zone = self.zone_name(obj.get("zoneId", 28)) or "battlefield"
        out: dict[str, Any] = {"type": kind, "object": str(iid)}
        owner = obj.get("ownerSeatId")
        out["owner"] = self.player(owner if isinstance(owner, int) else self.seat)
        if zone != ("battlefield" if kind == "create_token" else "stack"):
            out["zone"] = zone
        original = copied.get(iid)
        if original is not None:
            out["original"] = str(original)
        card = self.description(obj)
        if card is not None:
            out["card"] = card
            self.grp[iid] = obj.get("grpId")
        self.kind[iid] = "token" if kind == "create_token" else "copy"
        self.zone[iid] = obj.get("zoneId", 28)
        self.add(place, out)

    def on_mention(self, place: str, iid: int, objects: Mapping[int, Any]) -> None:
        obj = objects.get(iid)
        number = obj.get("zoneId") if obj else self.zone.get(iid)
        zone = self.zone_name(number) if isinstance(number, int) else None
        if zone is None or zone.startswith("library:"):
            self.skipped.append(self.place)
            return
        out: dict[str, Any] = {"type": "mention", "object": str(iid), "zone": zone}
        self.facts(out, iid, obj)
        self.add(place, out)

    def on_object(self, place: str, iid: int, obj: Mapping[str, Any], copied: Mapping[int, int | None]) -> None:
        """A game object no annotation explains: a copy made, a card shown where it is, a
        transform (a new grpId), or a control change."""
        number = obj.get("zoneId")
        zone = self.zone_name(number) if isinstance(number, int) else None
        if zone is None:
            return
        if iid not in self.seen and obj.get("isCopy"):
            self.on_created(place, iid, {iid: obj}, copied, "create_copy")
            return
        card = self.description(obj)
        public = zone.split(":")[0] in _PUBLIC
        if iid not in self.seen or (card is not None and self.grp.get(iid) != obj.get("grpId")):
            if iid not in self.seen and card is None and not public:
                return
            kind = "transform" if iid in self.seen and public else ("mention" if public else "reveal")
            out: dict[str, Any] = {"type": kind, "object": str(iid)}
            if kind != "transform":
                out["zone"] = zone
            if kind == "reveal" and isinstance(number, int) and self.is_library(number):
                cards = self.lists.get(number, [])
                if iid in cards:
                    out["position"] = self.position(iid, cards)
            if kind == "transform":
                if card is not None:
                    out["card"] = card
                self.grp[iid] = obj.get("grpId")
            else:
                self.facts(out, iid, obj)
            self.add(place, out)
            return
        controller = obj.get("controllerSeatId")
        if zone == "battlefield" and isinstance(controller, int):
            before = self.controller.get(iid, obj.get("ownerSeatId"))  # its owner, until it changes
            if isinstance(before, int) and before != controller:
                self.controller[iid] = controller
                self.add(place, {"type": "control_change", "object": str(iid),
                                 "controller": self.player(controller)})

    def on_library_list(self, place: str, zone_number: int, cards: list[int]) -> None:
        """A library's cards in a new order, none added or taken: a known reorder of one end."""
        before = self.lists.get(zone_number)
        if before is None or before == cards or sorted(before) != sorted(cards):
            return
        library = self.zone_name(zone_number)
        changed = [i for i, (a, b) in enumerate(zip(before, cards, strict=True)) if a != b]
        first, last = changed[0], changed[-1]
        if first == 0:
            count = last + 1
            order = [before.index(iid) + 1 for iid in cards[:count]]
            self.add(place, {"type": "reorder", "zone": library, "end": "top", "count": count,
                             "order": order})
        elif last == len(cards) - 1:
            count = len(cards) - first
            old_bottom, new_bottom = before[::-1][:count], cards[::-1][:count]
            order = [old_bottom.index(iid) + 1 for iid in new_bottom]
            self.add(place, {"type": "reorder", "zone": library, "end": "bottom", "count": count,
                             "order": order})
        else:
            self.skipped.append(self.place)

    def on_deleted(self, place: str, iid: int) -> None:
        number = self.zone.get(iid)
        zone = self.zone_name(number) if number is not None else None
        if zone is None or zone.startswith("library:"):
            self.skipped.append(self.place)
            return
        out: dict[str, Any] = {"type": "vanish", "object": str(iid), "zone": zone}
        if self.kind.get(iid, "card") != "card":
            out["kind"] = self.kind[iid]
        self.add(place, out)
        self.seen.discard(iid)
        self.zone.pop(iid, None)


def _player_name(shown: str | None, seat: int) -> str:
    """A screen name as the request's player pattern allows it (Arena's carry `#12345`)."""
    cleaned = "".join(c if c.isascii() and (c.isalnum() or c in "_.-") else "_" for c in shown or "")
    return cleaned.strip("_") or f"seat{seat}"
