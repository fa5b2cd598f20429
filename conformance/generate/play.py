"""The play of a generated game: its world (`world.py`), its random draws, and what every event
does alike: the perspective player and the others, positions as sources write them, a card's
description, the fields that introduce an object, handles (kept, relinked, given out of a
library), moves between public zones, objects that cease to exist, and a new game. The events
themselves are in `library_events.py` and `zone_events.py`, their table in `events.py`.
"""

from __future__ import annotations

from typing import Any

from . import cards
from .world import Obj, World


class Play:
    """The events of one game, over its world."""

    def __init__(self, world: World) -> None:
        self.w = world
        self.rng = world.rng

    @property
    def me(self) -> str:
        return self.w.perspective

    def anyone(self) -> str:
        return self.rng.choice(self.w.players)

    def follows_hand(self, player: str) -> bool:
        """Whether the perspective player follows a card in `player`'s hand (ID-5, HID-1)."""
        return player == self.me or self.w.tracking

    def pos(self, counted: int | None) -> Any:
        """A position as a source writes it: `top` and `bottom` or the numbers 1 and -1."""
        if counted is None:
            return "unknown"
        roll = self.rng.random()
        if roll < 0.5:
            return {1: "top", -1: "bottom"}.get(counted, counted)
        if roll < 0.55:
            return float(counted)  # a JSON number is a value: 2.0 is 2
        return counted

    def card_object(self, owner: str) -> int:
        """A card of `owner`'s, of the pool; a transforming one more often than its share."""
        pool = cards.TRANSFORMERS if self.rng.random() < 0.1 else cards.POOL
        return self.w.new_object(Obj(owner=owner, kind="card", card=self.rng.choice(pool)))

    def describe(self, obj: int) -> dict[str, Any]:
        o = self.w.objects[obj]
        if o.card is not None and self.rng.random() < 0.04:
            return cards.unknown(self.rng, arena=self.w.relink)
        if o.looks_like is not None and self.rng.random() < 0.5:
            # A source shows a copy by what it copies (MTGO names a clone so): NAME-5.
            return cards.describe(self.rng, o.looks_like, arena=self.w.relink)
        if o.card is not None:
            if o.back_up:
                return cards.face(o.card, 1)
            return cards.describe(self.rng, o.card, arena=self.w.relink)
        if self.rng.random() < 0.1:
            # A token's own printing, which the section does not list: it binds nothing (TOK-5).
            return {"printing": {"set": "TMKM", "number": str(self.rng.randint(1, 20))}}
        return {"name": cards.spelled(self.rng, o.token_name or "Goblin")}

    def introduce(self, observation: dict[str, Any], obj: int) -> None:
        """The fields a source gives where an observation introduces an object: its owner, and
        its kind when it is not a card (TOK-6); now and then an owner the writer already has."""
        o = self.w.objects[obj]
        if not self.w.live(obj) or self.rng.random() < 0.1:
            observation["owner"] = o.owner
        if not self.w.live(obj) and o.kind != "card":
            observation["kind"] = o.kind

    def handle_out_of_library(self, obj: int) -> str:
        """A handle for a card leaving a library: the one it had before it went in, now and
        then, from a source that keeps handles (MTGO): it proves nothing (LIB-1)."""
        old = self.w.last_handle.get(obj)
        if not self.w.relink and old is not None and old not in self.w.in_use() and self.rng.random() < 0.6:
            return old
        return self.w.new_handle()

    def relinked(self, observation: dict[str, Any], obj: int) -> None:
        """A source that relinks gives the object a new handle on the zone change (`new_object`)."""
        if self.w.relink:
            new = self.w.new_handle()
            observation["new_object"] = new
            self.w.handle_of[obj] = new

    def public(self, *zones: str) -> list[int]:
        return [o for o in sorted(self.w.zone_of) if self.w.zone_of[o] in zones
                and self.w.handle_of.get(o) is not None]

    def cease(self, obj: int, event: str) -> None:
        """A token or a copy ceases to exist (TOK-2, TOK-3, TOK-4): its instance ends after this
        observation, and its handle is free for another object."""
        self.w.end([obj], event)
        handle = self.w.remove(obj)
        if handle is not None:
            self.w.freed.append(handle)

    def ceases_on(self, obj: int, source: str, to: str) -> str | None:
        """The ending event when `obj` moves from `source` to `to`: a token or a copy leaving
        the battlefield (E8), a copy put anywhere but the stack or the battlefield (E9)."""
        kind = self.w.objects[obj].kind
        if kind != "card" and source == "battlefield":
            return "E8"
        if kind == "copy" and to not in ("stack", "battlefield"):
            return "E9"
        if kind == "token" and to != "battlefield":
            return "E8"
        return None

    def leave_library(self, obj: int, player: str, to: str, fields: dict[str, Any], kept: bool) -> None:
        observation: dict[str, Any] = {"type": "move", "from": f"library:{player}", "to": to, **fields}
        hidden = to.startswith("hand:") and not (to == f"hand:{self.me}" or self.w.tracking)
        if hidden or (to.startswith("hand:") and self.rng.random() < 0.15):
            # The source shows no card: a draw printed as "draws a card" (LIB-8).
            if kept:
                self.w.end([obj], "E15")
            self.w.blind(observation)
            self.w.place(obj, to, None)
            return
        handle = self.handle_out_of_library(obj)
        observation = {"type": "move", "object": handle, **{k: v for k, v in observation.items() if k != "type"}}
        face_down = self.w.objects[obj].face_down
        if (not to.startswith("hand:") and not face_down) or (
                (to == f"hand:{self.me}" or (face_down and player == self.me)) and self.rng.random() < 0.7):
            observation["card"] = self.describe(obj)
        self.w.show(observation, obj, keeps="LIB-1", new="LIB-4")
        self.w.place(obj, to, handle)

    def existing(self, player: str) -> int:
        size = len(self.w.libraries[player].cards)
        n = self.rng.randint(1, size)
        return n if self.rng.random() < 0.5 else -n

    def shuffle_of(self, player: str) -> None:
        library = self.w.libraries[player]
        self.w.ending(library.shuffle())
        self.rng.shuffle(library.cards)
        self.w.blind({"type": "shuffle", "zone": f"library:{player}"})

    def move_public(self, obj: int, to: str, *, keeps: str = "ID-3") -> None:
        """A shown move of a public object: kept (ID-3), into a hand (ID-5, HID-1: ended after
        the move into a hand the player cannot follow, E6), or ceasing to exist (E8, E9)."""
        o = self.w.objects[obj]
        source = self.w.zone_of[obj]
        observation: dict[str, Any] = {"type": "move", "object": self.w.shown(obj), "from": source, "to": to}
        self.introduce(observation, obj)
        self.relinked(observation, obj)
        if source in ("battlefield", "stack") and o.controller != o.owner and self.rng.random() < 0.5:
            observation["controller"] = o.controller  # informational only
        if o.face_down and source == "stack" and to == "battlefield":
            observation["face_down"] = True  # a morph resolves face down
        elif o.face_down:
            observation["card"] = self.describe(obj)  # revealed as it moves (CR 708.9)
            o.face_down = False
        elif self.rng.random() < 0.2:
            observation["card"] = self.describe(obj)
        if source == "battlefield":
            o.controller = o.owner
            o.melded = False
            o.looks_like = None
        self.w.show(observation, obj, keeps=keeps)
        gone = self.ceases_on(obj, source, to)
        if gone is not None:
            self.cease(obj, gone)
            return
        self.w.zone_of[obj] = to
        if to.startswith("hand:"):
            o.face_down = False
            if not self.follows_hand(to.removeprefix("hand:")):
                self.w.end([obj], "E6")

    def in_place(self, observation: dict[str, Any], obj: int, zone: str) -> None:
        """A mention or a reveal outside a library: kept (ID-10), or followed for that
        observation only in a hand the player cannot follow (E7)."""
        if zone.startswith("hand:") and not self.follows_hand(zone.removeprefix("hand:")):
            self.w.glimpse(observation, obj, "HID-1")
            self.w.ended["E7"] += 1
        else:
            self.w.show(observation, obj, keeps="ID-10", new="ID-10")

    def reset(self, event: str, carried: list[int]) -> None:
        """Every card but the carried ones goes back to its owner's library, shuffled; tokens
        and copies are gone; every instance but the carried ones ends."""
        self.w.end(sorted(o for o in self.w.instance_of if o not in carried), event)
        self.w.reserved.clear()
        for obj in sorted(self.w.zone_of):
            if obj in carried:
                continue
            handle = self.w.remove(obj)
            o = self.w.objects[obj]
            if o.kind == "card":
                o.face_down = o.back_up = o.melded = False
                o.controller = o.owner
                self.w.libraries[o.owner].cards.append(obj)
                if handle is not None:
                    self.w.last_handle[obj] = handle
        for library in self.w.libraries.values():
            self.rng.shuffle(library.cards)
            library.top.clear()
            library.bottom.clear()
            library.size_known = False
        if not self.w.relink and self.rng.random() < 0.5:
            self.w.handles = 0  # a new game's numbers may repeat the last game's (MTGO)
