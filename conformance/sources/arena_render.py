"""Rendering a writer request as MTG Arena's `Player.log`, as the perspective player's client
writes it (docs/real-parsers.md says which shapes are checked against a real recording).

Each observation becomes one `GameStateMessage`, and its place is that message's line. Arena
renews handles the way the request does: a move with `new_object` is an `ObjectIdChanged` plus a
`ZoneTransfer`, a move without one keeps the instanceId (as Arena does when a spell resolves).

Arena shows more than some requests do, and a request whose answer could depend on what Arena
would show is not expressible (`Inexpressible`, with the reason):
- every object has an instanceId (no move or token without a handle), and every library's cards
  are listed in order, so a position is never unknown and a library's size is always shown; a
  request that reaches a library's bottom before it shows that library's size is not
  expressible (top-only play is: the size never matters to it);
- the perspective player sees every card in their hand and every public object, so a request
  that puts a card there without ever saying what it is, is not expressible;
- Arena games have two seats, and Arena tracks hidden objects (`hidden_tracking: true`);
- restarts, face-down cards, `become_copy` and `meld` have no shape here.
A library whose size the request never shows is rendered with `DEPTH` unknown cards beneath what
the request uses; one whose size it shows holds exactly that many.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from typing import Any

from cardid_conformance.sources.arena_log import (
    annotation,
    message_place,
    write_log,
    zone_entry,
    zone_id,
)
from cardid_conformance.sources.common import Inexpressible, Rendering

#: Unknown cards beneath the cards a request uses, in a library whose size it never shows.
DEPTH = 40
#: The first instanceId given out (the recording's first is 159).
FIRST_ID = 100
#: The first invented grpId, for a description that is not exactly `arena:N`.
FIRST_INVENTED_GRP = 900_001
#: A library's size in the first pass, large enough that no request empties it.
_PROBE = 10_000
#: Zone-transfer categories (as the recording spells them), by the zones a move joins.
_CATEGORIES = {
    ("library", "hand"): "Draw", ("hand", "stack"): "CastSpell", ("stack", "battlefield"): "Resolve",
    ("stack", "graveyard"): "Resolve", ("hand", "battlefield"): "PlayLand",
    ("battlefield", "graveyard"): "Destroy", ("hand", "graveyard"): "Discard",
}
_PUBLIC = ("battlefield", "stack", "exile", "command", "graveyard")


def render(request: Mapping[str, Any]) -> Rendering:
    """The request as Arena's Player.log, or Inexpressible naming what Arena cannot show."""
    players = list(request["players"])
    if len(players) != 2:
        raise Inexpressible(f"Arena games have two seats; this request has {len(players)} players")
    if not request["source"]["hidden_tracking"]:
        for index, obs in enumerate(request["observations"]):
            for key in ("to", "zone"):
                kind, _, player = str(obs.get(key, "")).partition(":")
                if kind == "hand" and player != request["perspective"]:
                    raise Inexpressible(
                        f"this request's source has no hidden tracking, and this observation "
                        f"concerns {obs[key]}; Arena tracks hidden objects there "
                        "(hidden_tracking: true)",
                        observation=index,
                    )
    probe = _Renderer(request, fillers=None)
    probe.run()
    renderer = _Renderer(request, fillers=probe.needed)
    renderer.run()
    sidecar = {
        "format": "arena", "players": players, "perspective": request["perspective"],
        "cards": request["cards"],
        "descriptions": {str(grp): desc for desc, grp in renderer.grp_of_description.values()},
    }
    return Rendering(
        log=write_log(renderer.messages, players, request["perspective"]),
        sidecar=sidecar, places=tuple(renderer.places),
    )


class _Renderer:
    """One pass over the observations. The first pass (`fillers` None) learns how many unknown
    cards each library needs so that the sizes the request shows come out (`needed`); the
    second gives each library that many, and `DEPTH` more than the request uses where it
    shows no size."""

    def __init__(
        self, request: Mapping[str, Any], fillers: Mapping[tuple[str, int], int] | None
    ) -> None:
        self.request = request
        self.players: list[str] = list(request["players"])
        self.perspective: str = request["perspective"]
        self.fillers = fillers
        self.needed: dict[tuple[str, int], int] = {}
        self.messages: list[dict[str, Any]] = []
        self.places: list[str | None] = []
        self.grp_of_description: dict[str, tuple[Mapping[str, Any], int]] = {}
        self.next_grp = FIRST_INVENTED_GRP
        self.next_id = FIRST_ID
        self.game = 0
        self.epoch: dict[str, int] = {}
        self.index = 0
        self._new_game_state()

    # -- state ---------------------------------------------------------------------------

    def _new_game_state(self) -> None:
        self.zones: dict[str, list[int]] = {}
        self.where: dict[int, str] = {}
        self.ids: dict[str, int] = {}
        self.grp: dict[int, int | None] = {}
        self.owner: dict[int, str] = {}
        self.controller: dict[int, str] = {}
        self.kind: dict[int, str] = {}
        self.size_shown: dict[str, bool] = {}
        self.offset: dict[str, int] = {}

    def seat(self, player: str) -> int:
        return self.players.index(player) + 1

    def fresh(self) -> int:
        self.next_id += 1
        return self.next_id - 1

    def zone(self, name: str) -> list[int]:
        return self.zones.setdefault(name, [])

    def zone_number(self, name: str) -> int:
        kind, _, player = name.partition(":")
        return zone_id(kind, self.seat(player) if player else None)

    def fill_library(self, library: str) -> None:
        """A new stretch of unknown cards: at the start of a game, or after a mulligan."""
        self.epoch[library] = self.epoch.get(library, 0) + 1
        key = (library, self.epoch[library])
        if self.fillers is None:
            count = _PROBE
        else:
            count = self.fillers.get(key, DEPTH + len(self.observations))
        ids = [self.fresh() for _ in range(count)]
        for iid in ids:
            self.where[iid] = library
        self.zones[library] = ids
        self.size_shown[library] = False
        self.offset[library] = 0

    @property
    def observations(self) -> Sequence[Mapping[str, Any]]:
        return self.request["observations"]  # type: ignore[no-any-return]

    def grp_for(self, description: Mapping[str, Any]) -> int:
        """The grpId shown for a description: N for exactly `arena:N`, else an invented one; the
        sidecar maps each back to the description."""
        key = json.dumps(description, sort_keys=True)
        if key not in self.grp_of_description:
            source_id = description.get("source_id", "")
            if set(description) == {"source_id"} and source_id.startswith("arena:") and \
                    source_id[6:].isdigit():
                grp = int(source_id[6:])
            else:
                grp = self.next_grp
                self.next_grp += 1
            self.grp_of_description[key] = (dict(description), grp)
        return self.grp_of_description[key][1]

    def refuse(self, why: str) -> Inexpressible:
        return Inexpressible(why, observation=self.index)

    # -- messages ------------------------------------------------------------------------

    def emit(self, *, zones: Sequence[str] = (), objects: Sequence[int] = (),
             annotations: Sequence[dict[str, Any]] = (), deleted: Sequence[int] = (),
             full: bool = False) -> str:
        state_id = len(self.messages) + 1
        body: dict[str, Any] = {
            "type": "GameStateType_Full" if full else "GameStateType_Diff", "gameStateId": state_id,
        }
        if full:
            body["gameInfo"] = {
                "gameNumber": self.game, "stage": "GameStage_Play", "type": "GameType_Duel",
                "variant": "GameVariant_Normal", "mulliganType": "MulliganType_London",
            }
        else:
            body["prevGameStateId"] = state_id - 1
        pseat = self.seat(self.perspective)
        if zones:
            body["zones"] = [
                zone_entry(self.zone_number(name), self.zone(name), pseat) for name in zones
            ]
        if objects:
            body["gameObjects"] = [self.game_object(iid) for iid in objects]
        if annotations:
            numbered = []
            for number, note in enumerate(annotations, start=state_id * 10):
                numbered.append({**note, "id": number})
            body["annotations"] = numbered
        if deleted:
            body["diffDeletedInstanceIds"] = list(deleted)
        body["update"] = "GameStateUpdate_SendAndRecord"
        self.messages.append({
            "type": "GREMessageType_GameStateMessage", "systemSeatIds": [pseat],
            "msgId": state_id, "gameStateId": state_id, "gameStateMessage": body,
        })
        return message_place(len(self.messages) - 1)

    def game_object(self, iid: int) -> dict[str, Any]:
        zone = self.where[iid]
        kind = self.kind.get(iid, "card")
        out: dict[str, Any] = {"instanceId": iid}
        grp = self.grp.get(iid)
        if grp is not None:
            out["grpId"] = grp
        out["overlayGrpId"] = grp or 0  # the 17lands client drops a message whose object lacks it
        out["type"] = "GameObjectType_Token" if kind == "token" else "GameObjectType_Card"
        out["zoneId"] = self.zone_number(zone)
        out["visibility"] = "Visibility_Public" if zone.split(":")[0] in _PUBLIC else "Visibility_Private"
        if iid in self.owner:
            out["ownerSeatId"] = self.seat(self.owner[iid])
        if iid in self.controller:
            out["controllerSeatId"] = self.seat(self.controller[iid])
        if kind == "copy" or (kind == "token" and self.copied.get(iid)):
            out["isCopy"] = True
        out["viewers"] = [self.seat(self.perspective)]
        return out

    # -- the pass ------------------------------------------------------------------------

    def run(self) -> None:
        self.copied: dict[int, bool] = {}
        observations = self.observations
        if not observations or observations[0]["type"] != "game_start":
            self.start_game(1)
            self.emit(zones=self.all_zones(), full=True)
        for index, obs in enumerate(observations):
            self.index = index
            handler = getattr(self, "on_" + obs["type"], None)
            if handler is None:
                raise self.refuse(f"Arena logs have no shape for `{obs['type']}`")
            self.places.append(handler(obs))

    def all_zones(self) -> list[str]:
        names = ["battlefield", "stack", "exile", "command"]
        for player in self.players:
            names += [f"hand:{player}", f"library:{player}", f"graveyard:{player}"]
        return names

    def start_game(self, number: int) -> None:
        self.game = number
        self._new_game_state()
        for player in self.players:
            self.fill_library(f"library:{player}")

    def on_game_start(self, obs: Mapping[str, Any]) -> str:
        self.start_game(int(obs["game"]))
        return self.emit(zones=self.all_zones(), full=True)

    def on_library_size(self, obs: Mapping[str, Any]) -> None:
        library, size = obs["zone"], int(obs["size"])
        held = len(self.zone(library))
        key = (library, self.epoch[library])
        if self.fillers is None:
            if key not in self.needed:
                self.needed[key] = _PROBE - (held - size)
                if self.needed[key] < 0:
                    raise self.refuse(f"{library} holds more cards than the size shown")
        elif held != size:
            raise self.refuse(
                f"{library} holds {held} cards by the moves before this observation, and Arena "
                f"shows that count, not {size}"
            )
        self.size_shown[library] = True
        return

    def library_index(self, library: str, position: Any, *, putting: bool) -> int:
        """The list index a position names (a put may go one past the end)."""
        cards = self.zone(library)
        if position in (None, "unknown"):
            raise self.refuse(
                "Arena lists every library's cards in order, so a card's position there is never "
                "unknown"
            )
        from_bottom = position == "bottom" or (isinstance(position, int) and position < 0)
        if from_bottom and not self.size_shown.get(library):
            raise self.refuse(
                f"this reaches the bottom of {library}, whose size the request does not show; "
                "Arena always shows it"
            )
        if position == "top":
            return 0
        if position == "bottom":
            return len(cards) if putting else len(cards) - 1
        number = int(position)
        if number > 0:
            return min(number - 1, len(cards)) if putting else number - 1
        return len(cards) + number + (1 if putting else 0)

    def held(self, handle: str, zone: str) -> int | None:
        iid = self.ids.get(handle)
        if iid is not None and self.where.get(iid) == zone:
            return iid
        return None

    def introduce(self, handle: str, zone: str, obs: Mapping[str, Any]) -> int:
        """A handle the renderer does not hold in `zone`: a new object there."""
        iid = self.fresh()
        self.ids[handle] = iid
        self.where[iid] = zone
        self.zone(zone).append(iid)
        self.kind[iid] = obs.get("kind", "card")
        return iid

    def settle_owner(self, iid: int, obs: Mapping[str, Any], *zones: str) -> None:
        """The owner of an object first seen here (OWN-1): the one shown, else the player of
        the first of `zones` that is a player's zone (a move's destination, then its source)."""
        if iid in self.owner:
            return
        players = [zone.partition(":")[2] for zone in zones if ":" in zone]
        owner = obs.get("owner") or next(iter(players), None)
        if owner:
            self.owner[iid] = owner

    def describe(self, iid: int, obs: Mapping[str, Any]) -> None:
        if obs.get("card"):
            self.grp[iid] = self.grp_for(obs["card"])

    def shown_to_perspective(self, zone: str) -> bool:
        kind, _, player = zone.partition(":")
        return kind in _PUBLIC or (kind == "hand" and player == self.perspective)

    def check_known(self, iid: int, zone: str, what: str) -> None:
        if self.shown_to_perspective(zone) and self.grp.get(iid) is None:
            raise self.refuse(
                f"Arena shows the perspective player every card in {zone}; this {what} puts one "
                "there without saying what card it is"
            )

    def on_move(self, obs: Mapping[str, Any]) -> str:
        if "object" not in obs:
            raise self.refuse("Arena gives every object an instanceId; this move shows none")
        if obs.get("face_down"):
            raise self.refuse("Arena's face-down objects have no shape here")
        source, target = obs["from"], obs["to"]
        if source.startswith("library:"):
            index = self.library_index(source, obs.get("from_position"), putting=False)
            cards = self.zone(source)
            if not 0 <= index < len(cards):
                raise self.refuse(f"{source} has no card at that position")
            iid = cards.pop(index)
            self.ids[obs["object"]] = iid
            self.kind.setdefault(iid, obs.get("kind", "card"))
        else:
            held = self.held(obs["object"], source)
            iid = held if held is not None else self.introduce(obs["object"], source, obs)
            self.zone(source).remove(iid)
        self.settle_owner(iid, obs, target, source)
        kind = self.kind.get(iid, "card")
        if kind != "card" and target.startswith("library:"):
            raise self.refuse(
                f"a {kind} put into a library ceases to exist (TOK-4), and Arena's way of showing "
                "that has no shape here"
            )
        notes: list[dict[str, Any]] = []
        new = iid
        if "new_object" in obs:
            new = self.fresh()
            self.carry(iid, new)
            notes.append(annotation(0, "ObjectIdChanged", [iid], orig_id=[iid], new_id=[new]))
            self.ids.pop(obs["object"], None)
            self.ids[obs["new_object"]] = new
        self.describe(new, obs)
        if obs.get("controller"):
            self.controller[new] = obs["controller"]
        if source == target:
            if not (source.startswith("library:") and obs.get("from_position") in ("top", 1)
                    and obs.get("position") == "bottom" and new == iid):
                raise self.refuse("Arena shows a card moved within one library only as a scry to the bottom")
            self.zone(target).append(new)
            self.where[new] = target
            notes.append(annotation(0, "Scry", [new], topIds=[], bottomIds=[new]))
            return self.emit(zones=[target], annotations=notes)
        if target.startswith("library:"):
            index = self.library_index(target, obs.get("position"), putting=True)
            self.zone(target).insert(index, new)
        else:
            self.zone(target).append(new)
        self.where[new] = target
        self.check_known(new, target, "move")
        if kind != "card" and (source == "battlefield" or target not in ("stack", "battlefield")):
            # It ceases to exist (TOK-3, TOK-4): its handle, seen again, is another object.
            self.ids.pop(obs.get("new_object", obs["object"]), None)
        kinds = (source.split(":")[0], target.split(":")[0])
        notes.append(annotation(
            0, "ZoneTransfer", [new], zone_src=[self.zone_number(source)],
            zone_dest=[self.zone_number(target)], category=_CATEGORIES.get(kinds, "Put"),
        ))
        objects = [new] if self.visible(new, obs) else []
        return self.emit(zones=[source, target], objects=objects, annotations=notes)

    def carry(self, old: int, new: int) -> None:
        """What the renderer knows of an object, under its new instanceId."""
        if old in self.grp:
            self.grp[new] = self.grp[old]
        for table in (self.owner, self.controller, self.kind):
            if old in table:
                table[new] = table[old]
        if old in self.copied:
            self.copied[new] = self.copied[old]

    def visible(self, iid: int, obs: Mapping[str, Any]) -> bool:
        """Whether the message shows the object itself: it is where P sees it, or the
        observation shows what card it is."""
        return bool(obs.get("card")) or self.shown_to_perspective(self.where[iid])

    def on_reveal(self, obs: Mapping[str, Any]) -> str:
        zone = obs["zone"]
        if zone.split(":")[0] in _PUBLIC:
            raise self.refuse(
                f"Arena shows every object in {zone} all along; a reveal there has no shape"
            )
        if zone.startswith("library:"):
            cards = self.zone(zone)
            index = self.library_index(zone, obs.get("position"), putting=False)
            if not 0 <= index < len(cards):
                raise self.refuse(f"{zone} has no card at that position")
            iid = cards[index]
            self.ids[obs["object"]] = iid
            self.kind.setdefault(iid, obs.get("kind", "card"))
        else:
            held = self.held(obs["object"], zone)
            iid = held if held is not None else self.introduce(obs["object"], zone, obs)
        self.settle_owner(iid, obs, zone)
        before = self.grp.get(iid)
        self.describe(iid, obs)
        if before is not None and before == self.grp.get(iid):
            raise self.refuse("Arena sends nothing new for a card shown again as it was")
        return self.emit(zones=[zone], objects=[iid])

    def on_mention(self, obs: Mapping[str, Any]) -> str:
        zone = obs["zone"]
        held = self.held(obs["object"], zone)
        iid = held if held is not None else self.introduce(obs["object"], zone, obs)
        self.settle_owner(iid, obs, zone)
        before = self.grp.get(iid)
        self.describe(iid, obs)
        self.check_known(iid, zone, "mention")
        objects = [iid] if held is None or self.grp.get(iid) != before else []
        if objects and not self.shown_to_perspective(zone) and not obs.get("card"):
            objects = []
        note = annotation(0, "TargetSpec", [iid], abilityGrpId=[0], index=[1])
        return self.emit(zones=[zone] if held is None else [], objects=objects, annotations=[note])

    def on_control_change(self, obs: Mapping[str, Any]) -> str:
        iid = self.ids.get(obs["object"])
        if iid is None or self.where.get(iid) != "battlefield":
            raise self.refuse("a control change of an object Arena never showed on the battlefield")
        before = self.controller.get(iid, self.owner.get(iid))
        if before == obs["controller"]:
            raise self.refuse("Arena shows no change when the controller stays the same")
        self.controller[iid] = obs["controller"]
        return self.emit(objects=[iid])

    def on_transform(self, obs: Mapping[str, Any]) -> str:
        iid = self.ids.get(obs["object"])
        if iid is None or self.where.get(iid) not in _PUBLIC:
            raise self.refuse("a transform of an object Arena never showed in a public zone")
        before = self.grp.get(iid)
        self.describe(iid, obs)
        if not obs.get("card") or self.grp.get(iid) == before:
            raise self.refuse("Arena shows a transform as a new grpId; this one shows no new card")
        return self.emit(objects=[iid])

    def on_shuffle(self, obs: Mapping[str, Any]) -> str:
        library = obs["zone"]
        old = list(self.zone(library))
        return self.emit(zones=[library], annotations=[self.renumber(library, old)])

    def renumber(self, library: str, old: Sequence[int]) -> dict[str, Any]:
        """Arena's renumbering of library cards: new instanceIds, never linked to the old."""
        new = [self.fresh() for _ in old]
        cards = self.zone(library)
        for before, after in zip(old, new, strict=True):
            cards[cards.index(before)] = after
            self.where[after] = library
            self.where.pop(before, None)
        seat = self.seat(library.partition(":")[2])
        return annotation(0, "Shuffle", [seat], OldIds=list(old), NewIds=new)

    def on_reorder(self, obs: Mapping[str, Any]) -> str:
        library, end, count = obs["zone"], obs["end"], int(obs["count"])
        if end == "bottom" and not self.size_shown.get(library):
            raise self.refuse(
                f"this reaches the bottom of {library}, whose size the request does not show; "
                "Arena always shows it"
            )
        cards = self.zone(library)
        if count > len(cards):
            raise self.refuse(f"{library} holds fewer than {count} cards")
        stretch = cards[:count] if end == "top" else cards[len(cards) - count:][::-1]
        if "order" not in obs:
            return self.emit(zones=[library], annotations=[self.renumber(library, stretch)])
        order = [int(n) for n in obs["order"]]
        if order == sorted(order):
            raise self.refuse("Arena shows nothing for cards put back in the order they were")
        moved = [stretch[n - 1] for n in order]
        if end == "top":
            cards[:count] = moved
        else:
            cards[len(cards) - count:] = moved[::-1]
        return self.emit(zones=[library])

    def on_mulligan(self, obs: Mapping[str, Any]) -> str:
        player = obs["player"]
        hand, library = f"hand:{player}", f"library:{player}"
        notes = []
        for iid in list(self.zone(hand)):
            self.zone(hand).remove(iid)
            notes.append(annotation(
                0, "ZoneTransfer", [iid], zone_src=[self.zone_number(hand)],
                zone_dest=[self.zone_number(library)], category="Mulligan",
            ))
        old = list(self.zone(library))
        for iid in old:
            self.where.pop(iid, None)
        self.fill_library(library)
        new = self.zone(library)
        notes.append(annotation(0, "Shuffle", [self.seat(player)], OldIds=old, NewIds=new))
        return self.emit(zones=[hand, library], annotations=notes)

    def create(self, obs: Mapping[str, Any], kind: str, default_zone: str) -> str:
        if "object" not in obs:
            raise self.refuse("Arena gives every object an instanceId; this token shows none")
        zone = obs.get("zone", default_zone)
        if zone.startswith("library:"):
            raise self.refuse("Arena's tokens and copies in a library have no shape here")
        iid = self.fresh()
        self.ids[obs["object"]] = iid
        self.where[iid] = zone
        self.zone(zone).append(iid)
        self.kind[iid] = kind
        self.owner[iid] = obs["owner"]
        self.describe(iid, obs)
        notes = []
        if kind == "token":
            notes.append(annotation(0, "TokenCreated", [iid]))
        if "original" in obs:
            original = self.ids.get(obs["original"])
            if original is None or original not in self.where:
                raise self.refuse("a copy of an object Arena never showed")
            self.copied[iid] = True
            notes.append(annotation(0, "CopiedObject", [iid], affector=original))
        if self.shown_to_perspective(zone) and self.grp.get(iid) is None and "original" not in obs:
            raise self.refuse(f"Arena shows every object in {zone}; this one is not described")
        return self.emit(zones=[zone], objects=[iid], annotations=notes)

    def on_create_token(self, obs: Mapping[str, Any]) -> str:
        return self.create(obs, "token", "battlefield")

    def on_create_copy(self, obs: Mapping[str, Any]) -> str:
        return self.create(obs, "copy", "stack")

    def on_vanish(self, obs: Mapping[str, Any]) -> str:
        zone = obs["zone"]
        iid = self.held(obs["object"], zone)
        if iid is None:
            raise self.refuse("Arena deletes only an object it showed; this one was never shown")
        if obs.get("card") and self.grp.get(iid) != self.grp_for(obs["card"]):
            raise self.refuse("Arena shows nothing of an object as it is deleted")
        self.zone(zone).remove(iid)
        del self.where[iid]
        self.ids.pop(obs["object"], None)
        return self.emit(zones=[zone], deleted=[iid])
