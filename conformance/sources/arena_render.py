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
the request uses; one whose size it shows holds exactly that many. The game as rendered so far,
and the messages showing it, are `arena_game.ArenaGame`'s; here is what each observation does to
it.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from cardid_conformance.sources.arena_game import PUBLIC, ArenaGame
from cardid_conformance.sources.arena_log import annotation, write_log
from cardid_conformance.sources.common import Inexpressible, Rendering

#: Unknown cards beneath the cards a request uses, in a library whose size it never shows.
DEPTH = 40
#: A library's size in the first pass, large enough that no request empties it.
_PROBE = 10_000
#: Zone-transfer categories (as the recording spells them), by the zones a move joins.
_CATEGORIES = {
    ("library", "hand"): "Draw", ("hand", "stack"): "CastSpell", ("stack", "battlefield"): "Resolve",
    ("stack", "graveyard"): "Resolve", ("hand", "battlefield"): "PlayLand",
    ("battlefield", "graveyard"): "Destroy", ("hand", "graveyard"): "Discard",
}


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


class _Renderer(ArenaGame):
    """One pass over the observations. The first pass (`fillers` None) learns how many unknown
    cards each library needs so that the sizes the request shows come out (`needed`); the
    second gives each library that many, and `DEPTH` more than the request uses where it
    shows no size."""

    def __init__(
        self, request: Mapping[str, Any], fillers: Mapping[tuple[str, int], int] | None
    ) -> None:
        self.fillers = fillers
        self.needed: dict[tuple[str, int], int] = {}
        self.epoch: dict[str, int] = {}
        super().__init__(request)

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

    # -- the pass ------------------------------------------------------------------------

    def run(self) -> None:
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

    def on_reveal(self, obs: Mapping[str, Any]) -> str:
        zone = obs["zone"]
        if zone.split(":")[0] in PUBLIC:
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
        if iid is None or self.where.get(iid) not in PUBLIC:
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
