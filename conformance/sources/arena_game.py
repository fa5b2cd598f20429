"""The Arena game the renderer writes as it writes it (`arena_render`): each zone's objects in
order, each object's instanceId, grpId, owner, controller and kind, and the GameStateMessage
that shows them to the perspective player, as Arena's client receives it (`arena_log`).

What a request shows is mapped onto it: a handle onto the object that has it now (`held`,
`introduce`), a position onto a library's list (`library_index`), a description onto a grpId
(`grp_for`: N for exactly `arena:N`, else one invented, that the sidecar maps back).
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from typing import Any

from cardid_conformance.sources.arena_log import (
    annotation,
    message_place,
    zone_entry,
    zone_id,
)
from cardid_conformance.sources.common import Inexpressible

#: The first instanceId given out (the recording's first is 159).
FIRST_ID = 100
#: The first invented grpId, for a description that is not exactly `arena:N`.
FIRST_INVENTED_GRP = 900_001
#: The zones whose objects every player sees.
PUBLIC = ("battlefield", "stack", "exile", "command", "graveyard")


class ArenaGame:
    """The game as the renderer has shown it so far, and the messages that show it; `index` is
    the observation being rendered, which a refusal names."""

    def __init__(self, request: Mapping[str, Any]) -> None:
        self.request = request
        self.players: list[str] = list(request["players"])
        self.perspective: str = request["perspective"]
        self.messages: list[dict[str, Any]] = []
        self.places: list[str | None] = []
        self.grp_of_description: dict[str, tuple[Mapping[str, Any], int]] = {}
        self.next_grp = FIRST_INVENTED_GRP
        self.next_id = FIRST_ID
        self.game = 0
        self.index = 0
        self.copied: dict[int, bool] = {}  # whether a token is a copy of another object
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
        out["visibility"] = "Visibility_Public" if zone.split(":")[0] in PUBLIC else "Visibility_Private"
        if iid in self.owner:
            out["ownerSeatId"] = self.seat(self.owner[iid])
        if iid in self.controller:
            out["controllerSeatId"] = self.seat(self.controller[iid])
        if kind == "copy" or (kind == "token" and self.copied.get(iid)):
            out["isCopy"] = True
        out["viewers"] = [self.seat(self.perspective)]
        return out

    # -- zones and objects ---------------------------------------------------------------

    def all_zones(self) -> list[str]:
        names = ["battlefield", "stack", "exile", "command"]
        for player in self.players:
            names += [f"hand:{player}", f"library:{player}", f"graveyard:{player}"]
        return names

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
        return kind in PUBLIC or (kind == "hand" and player == self.perspective)

    def check_known(self, iid: int, zone: str, what: str) -> None:
        if self.shown_to_perspective(zone) and self.grp.get(iid) is None:
            raise self.refuse(
                f"Arena shows the perspective player every card in {zone}; this {what} puts one "
                "there without saying what card it is"
            )

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
