"""What happens in a generated game: each event changes the world's truth and writes what the
perspective player's source shows of it, with the instance decision 0002 gives it.

`EVENTS` is the table of events, each with its weight; an event that cannot happen in the
current state (an empty library, nothing on the stack) returns False and another is drawn.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable
from typing import Any

from . import cards
from .world import Obj, World

PUBLIC = ("battlefield", "stack", "exile")


class Play:
    """The events of one game, over its world."""

    def __init__(self, world: World) -> None:
        self.w = world
        self.rng = world.rng

    # -- helpers ------------------------------------------------------------------------------

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

    # -- libraries ----------------------------------------------------------------------------

    def take(self) -> bool:
        """A card leaves a library from a known position: drawn, milled, exiled, or put into
        a hand from the Nth position; shown or not."""
        player = self.anyone()
        library = self.w.libraries[player]
        if not library.cards:
            return False
        counted = 1 if self.rng.random() < 0.6 else self.existing(player)
        to = self.rng.choice([f"hand:{player}"] * 8 + [f"graveyard:{player}"] * 2 + ["exile", "battlefield"])
        obj, kept, ended = library.take(counted, self.rng)
        self.w.ending(ended)
        assert kept == self.w.live(obj), "a library card is followed exactly while it is tracked"
        fields: dict[str, Any] = {"from_position": self.pos(counted)}
        if to == "battlefield":
            fields["face_down"] = True  # manifested (CR 701.40)
            self.w.objects[obj].face_down = True
        self.leave_library(obj, player, to, fields, kept)
        return True

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

    def search(self) -> bool:
        """A card taken from a position nobody knows (a tutor), then, most often, a shuffle."""
        player = self.anyone()
        library = self.w.libraries[player]
        if not library.cards:
            return False
        obj, _, ended = library.take(None, self.rng)
        self.w.ending(ended)
        to = self.rng.choice([f"hand:{player}", f"hand:{player}", "battlefield"])
        self.leave_library(obj, player, to, {}, False)
        if self.rng.random() < 0.7:
            self.shuffle_of(player)
        return True

    def put(self) -> bool:
        """A card put into its owner's library at a position: from a hand (Brainstorm, a London
        mulligan), from the stack (Memory Lapse), from the battlefield or a graveyard; a token
        or a copy ceases to exist as it arrives (TOK-4)."""
        candidates = sorted(self.w.zone_of)
        if not candidates:
            return False
        obj = self.rng.choice(candidates)
        o = self.w.objects[obj]
        source = self.w.zone_of[obj]
        library = self.w.libraries[o.owner]
        size = len(library.cards)
        roll = self.rng.random()
        if roll < (0.4 if o.kind == "copy" else 0.15):
            counted: int | None = None
        elif roll < 0.55:
            counted = self.rng.randint(1, 5)
        else:
            counted = -self.rng.randint(1, min(4, size + 1))
        # A card the player cannot name (a hand card never shown, or one in a hand the player
        # cannot follow) goes back shown or not; every other object is shown.
        shown = o.kind != "card" or self.w.live(obj) or self.rng.random() < 0.5
        observation: dict[str, Any] = {"type": "move", "from": source, "to": f"library:{o.owner}"}
        if counted is not None or self.rng.random() < 0.5:
            observation["position"] = self.pos(counted)
        if not shown:
            # A card the player cannot name goes back: "puts a card on top" (LIB-8), or
            # shuffled in at a place nobody knows.
            assert not self.w.live(obj)
            if self.rng.random() < (0.5 if library.everything() else 0.2):
                counted = None
                observation.pop("position", None)
            _, ended = library.put(obj, counted, self.rng, known=False)
            self.w.ending(ended)
            self.w.blind(observation)
            self.w.remove(obj)
            return True
        handle = self.w.shown(obj)
        observation = {"type": "move", "object": handle, **{k: v for k, v in observation.items() if k != "type"}}
        self.introduce(observation, obj)
        gone = self.ceases_on(obj, source, f"library:{o.owner}")
        if o.kind != "card":
            self.w.show(observation, obj, keeps="TOK-4")
            self.cease(obj, gone or "E9")
            return True
        followed, ended = library.put(obj, counted, self.rng, known=True)
        self.w.ending(ended)
        self.w.show(observation, obj, keeps="LIB-1")
        if not followed:
            self.w.end([obj], "E4" if counted is None else "E14")
        self.w.last_handle[obj] = handle
        self.w.remove(obj)
        return True

    def look(self) -> bool:
        """A library card is seen in place: the perspective player's look at their own library,
        or a card revealed for all; at a known position or, now and then, at none."""
        player = self.anyone()
        library = self.w.libraries[player]
        if not library.cards:
            return False
        counted = 1 if self.rng.random() < 0.4 else self.existing(player)
        handle = self.w.new_handle()
        if self.rng.random() < 0.15:
            obj = library.cards[library.index(counted)]
            observation = {"type": "reveal", "object": handle, "zone": f"library:{player}",
                           "card": self.describe(obj)}
            if self.rng.random() < 0.5:
                observation["position"] = "unknown"
            self.w.glimpse(observation, obj, "LIB-4")
            return True
        obj, kept, ended = library.look(counted)
        self.w.ending(ended)
        assert kept == self.w.live(obj)
        self.w.show({"type": "reveal", "object": handle, "zone": f"library:{player}", "position": self.pos(counted),
                     "card": self.describe(obj)}, obj, keeps="LIB-1", new="LIB-4")
        return True

    def scry(self) -> bool:
        """The top card goes to the bottom: the perspective player's own scry, shown with the
        card, or anyone's, shown with none (LIB-8)."""
        player = self.anyone()
        library = self.w.libraries[player]
        if not library.cards:
            return False
        if player == self.me and self.rng.random() < 0.7:
            if self.rng.random() < 0.6:
                obj, kept, ended = library.look(1)
                self.w.ending(ended)
                self.w.show({"type": "reveal", "object": self.w.new_handle(), "zone": f"library:{player}",
                             "position": self.pos(1), "card": self.describe(obj)}, obj, keeps="LIB-1", new="LIB-4")
            obj, kept, ended = library.take(1, self.rng)
            self.w.ending(ended)
            assert kept == self.w.live(obj)
            observation = {"type": "move", "object": self.w.new_handle(), "from": f"library:{player}",
                           "to": f"library:{player}", "from_position": self.pos(1), "position": self.pos(-1)}
            if self.rng.random() < 0.5:
                observation["card"] = self.describe(obj)
            self.w.show(observation, obj, keeps="LIB-1", new="LIB-4")
            followed, ended = library.put(obj, -1, self.rng, known=True)
            self.w.ending(ended)
            assert followed
            return True
        obj, kept, ended = library.take(1, self.rng)
        self.w.ending(ended)
        if kept:
            self.w.end([obj], "E15")
        _, ended = library.put(obj, -1, self.rng, known=False)
        self.w.ending(ended)
        self.w.blind({"type": "move", "from": f"library:{player}", "to": f"library:{player}",
                      "from_position": self.pos(1), "position": self.pos(-1)})
        return True

    def reorder(self) -> bool:
        """Cards at one end are put in a new order: one the perspective player knows (their
        Ponder, their scry, LIB-6) or not (an opponent's choice, LIB-3)."""
        player = self.anyone()
        library = self.w.libraries[player]
        if not library.cards:
            return False
        count = self.rng.randint(1, min(len(library.cards), 5))
        end = self.rng.choice(["top", "top", "bottom"])
        if player == self.me and library.run("bottom") >= 2 and self.rng.random() < 0.5:
            end, count = "bottom", self.rng.randint(2, library.run("bottom"))  # P orders what P put there
        order = list(range(1, count + 1))
        self.rng.shuffle(order)
        known = self.rng.random() < (0.7 if player == self.me else 0.2)
        observation: dict[str, Any] = {"type": "reorder", "zone": f"library:{player}", "end": end, "count": count}
        if known:
            observation["order"] = order
        self.w.ending(library.reorder(end, count, order, known))
        self.w.blind(observation)
        if known and self.rng.random() < 0.5:
            # P looks at one of the cards P ordered (a scry's card seen again, Sensei's Top).
            k = self.rng.randint(1, count)
            obj, _, ended = library.look(k if end == "top" else -k)
            self.w.ending(ended)
            self.w.show({"type": "reveal", "object": self.w.new_handle(), "zone": f"library:{player}",
                         "position": self.pos(k if end == "top" else -k), "card": self.describe(obj)},
                        obj, keeps="LIB-6", new="LIB-4")
        return True

    def shuffle(self) -> bool:
        self.shuffle_of(self.anyone())
        return True

    def shuffle_of(self, player: str) -> None:
        library = self.w.libraries[player]
        self.w.ending(library.shuffle())
        self.rng.shuffle(library.cards)
        self.w.blind({"type": "shuffle", "zone": f"library:{player}"})

    def size(self) -> bool:
        player = self.anyone()
        library = self.w.libraries[player]
        library.count()
        self.w.blind({"type": "library_size", "zone": f"library:{player}", "size": len(library.cards)})
        return True

    def mulligan(self) -> bool:
        """A London mulligan (CR 103.5): the hand shuffled into the library, a new hand drawn,
        cards put on the bottom, as the source shows each."""
        player = self.anyone()
        hand = self.w.in_zone(f"hand:{player}")
        library = self.w.libraries[player]
        if not hand and not library.cards:
            return False
        observation: dict[str, Any] = {"type": "mulligan", "player": player}
        held = [self.w.handle_of[o] for o in hand if self.w.live(o) and self.w.handle_of.get(o) is not None]
        if held and self.rng.random() < 0.5:
            observation["objects"] = held
        self.w.end(sorted({*hand, *library.everything()}), "E2")
        for obj in hand:
            handle = self.w.remove(obj)
            if self.w.objects[obj].kind != "card":
                if handle is not None:
                    self.w.freed.append(handle)  # a copy in the hand ceases to exist (TOK-4)
                continue
            if handle is not None:
                self.w.last_handle[obj] = handle
            library.cards.append(obj)
        self.rng.shuffle(library.cards)
        library.top.clear()
        library.bottom.clear()
        library.size_known = False
        self.w.blind(observation)
        for _ in range(min(len(library.cards), self.rng.randint(1, 7))):
            obj, kept, ended = library.take(1, self.rng)
            self.w.ending(ended)
            self.leave_library(obj, player, f"hand:{player}", {"from_position": self.pos(1)}, kept)
        bottomed = self.w.in_zone(f"hand:{player}")
        self.rng.shuffle(bottomed)
        count = self.rng.randint(0, min(2, len(bottomed)))
        for obj in bottomed[:count]:
            if self.w.handle_of.get(obj) is None or not self.w.live(obj):
                _, ended = library.put(obj, -1, self.rng, known=False)
                self.w.ending(ended)
                self.w.blind({"type": "move", "from": f"hand:{player}", "to": f"library:{player}", "position": "bottom"})
                self.w.remove(obj)
                continue
            handle = self.w.handle_of[obj]
            assert handle is not None
            _, ended = library.put(obj, -1, self.rng, known=True)
            self.w.ending(ended)
            self.w.show({"type": "move", "object": handle, "from": f"hand:{player}", "to": f"library:{player}",
                         "position": self.pos(-1)}, obj, keeps="ID-8")
            self.w.last_handle[obj] = handle
            self.w.remove(obj)
        if player != self.me and count >= 2:
            # The owner chose their order in secret (CR 401.4): the source says so (ID-8).
            self.w.ending(library.reorder("bottom", count, list(range(1, count + 1)), known=False))
            self.w.blind({"type": "reorder", "zone": f"library:{player}", "end": "bottom", "count": count})
        return True

    # -- hands and public zones ---------------------------------------------------------------

    def cast(self) -> bool:
        """A card is cast from a hand, face up or (a morph) face down, or from exile (a
        foretold card, a copy of a card made in exile, CR 707.12)."""
        objs = [o for o in sorted(self.w.zone_of) if self.w.objects[o].kind != "token" and (
            self.w.zone_of[o].startswith("hand:") or (self.w.zone_of[o] == "exile" and o in self.w.handle_of
            and self.w.handle_of[o] is not None and not self.w.objects[o].melded))]
        if not objs:
            return False
        obj = self.rng.choice(objs)
        o = self.w.objects[obj]
        source = self.w.zone_of[obj]
        observation: dict[str, Any] = {"type": "move", "object": self.w.shown(obj), "from": source, "to": "stack"}
        self.introduce(observation, obj)
        self.relinked(observation, obj)
        if o.face_down:
            o.face_down = False  # a foretold card is cast face up
            observation["card"] = self.describe(obj)
        elif source.startswith("hand:") and o.kind == "card" and self.rng.random() < 0.12:
            o.face_down = True
            observation["face_down"] = True
            if source == f"hand:{self.me}" and self.rng.random() < 0.5:
                observation["card"] = self.describe(obj)
        elif o.card is not None and self.rng.random() < 0.9:
            observation["card"] = self.describe(obj)
        hidden = source.startswith("hand:") and not self.follows_hand(source.removeprefix("hand:"))
        keeps = "ID-3" if source == "exile" else "ID-5" if source == f"hand:{self.me}" else "HID-1"
        self.w.show(observation, obj, keeps=keeps, new="HID-2" if hidden else "ID-7")
        self.w.zone_of[obj] = "stack"
        return True

    def foretell(self) -> bool:
        """A hand card is exiled face down (foretell): the perspective player follows it there
        without knowing what it is, unless it is their own (HID-3)."""
        hands = [o for o in sorted(self.w.zone_of) if self.w.zone_of[o].startswith("hand:")
                 and self.w.objects[o].kind == "card"]
        if not hands:
            return False
        obj = self.rng.choice(hands)
        o = self.w.objects[obj]
        source = self.w.zone_of[obj]
        observation: dict[str, Any] = {"type": "move", "object": self.w.shown(obj), "from": source, "to": "exile",
                                       "face_down": True}
        self.introduce(observation, obj)
        self.relinked(observation, obj)
        if source == f"hand:{self.me}" and self.rng.random() < 0.5:
            observation["card"] = self.describe(obj)
        o.face_down = True
        hidden = not self.follows_hand(source.removeprefix("hand:"))
        self.w.show(observation, obj, keeps="ID-5" if source == f"hand:{self.me}" else "HID-1",
                    new="HID-2" if hidden else "ID-7")
        self.w.zone_of[obj] = "exile"
        return True

    def meld(self) -> bool:
        """Bruna and Gisela, named on the battlefield, meld into Brisela (CR 712.4): a `meld` of
        each card into the permanent's handle, which no observation may use as an object until
        the game ends (REQ-4)."""
        owner = self.anyone()
        pair = []
        for card in cards.MELD[:2]:
            obj = self.w.new_object(Obj(owner=owner, kind="card", card=card))
            self.w.place(obj, "battlefield", None)
            observation: dict[str, Any] = {"type": "mention", "object": self.w.shown(obj), "zone": "battlefield"}
            self.introduce(observation, obj)
            if self.rng.random() < 0.7:
                observation["card"] = self.describe(obj)
            self.w.show(observation, obj, keeps="ID-10", new="ID-10")
            pair.append(obj)
        permanent = self.w.new_handle()
        self.w.reserved.add(permanent)
        for obj in pair:
            observation = {"type": "meld", "object": self.w.handle_of[obj], "permanent": permanent}
            if self.rng.random() < 0.6:
                self.w.cards_used[cards.MELD[2]["name"]] = cards.MELD[2]
                observation["melded"] = cards.describe(self.rng, cards.MELD[2], arena=self.w.relink)
            self.w.objects[obj].melded = True
            self.w.show(observation, obj, keeps="ID-4")
        if self.rng.random() < 0.4:
            # The melded permanent dies: one move per card (REQ-4); its handle stays taken.
            for obj in pair:
                self.move_public(obj, f"graveyard:{owner}")
        return True

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

    def resolve(self) -> bool:
        spells = self.public("stack")
        if not spells:
            return False
        obj = self.rng.choice(spells)
        owner = self.w.objects[obj].owner
        to = self.rng.choice(["battlefield"] * 3 + [f"graveyard:{owner}"] * 2 + ["exile", f"hand:{owner}"])
        self.move_public(obj, to, keeps="ID-5" if to == f"hand:{self.me}" else "HID-1" if to.startswith("hand:") else "ID-3")
        return True

    def leave(self) -> bool:
        """A permanent dies, is exiled or returns to its owner's hand; or a card in a graveyard
        or exile is exiled, returned to the battlefield or to its owner's hand."""
        objs = self.public("battlefield", "exile", "command", *(f"graveyard:{p}" for p in self.w.players))
        if not objs:
            return False
        obj = self.rng.choice(objs)
        owner = self.w.objects[obj].owner
        source = self.w.zone_of[obj]
        to = self.rng.choice([z for z in ("battlefield", f"graveyard:{owner}", "exile", f"hand:{owner}", "command")
                              if z != source])
        keeps = "ID-5" if to == f"hand:{self.me}" else "HID-1" if to.startswith("hand:") else "ID-3"
        self.move_public(obj, to, keeps=keeps)
        return True

    def flicker(self) -> bool:
        objs = self.public("battlefield")
        if not objs:
            return False
        obj = self.rng.choice(objs)
        self.move_public(obj, "exile")
        if obj in self.w.zone_of:
            self.move_public(obj, "battlefield")
        return True

    def mention(self) -> bool:
        """An object named in place (an attacker, a target; ID-10): a public one, one in a hand,
        a token created with no handle, or a card whose arrival the log never printed."""
        roll = self.rng.random()
        if roll < 0.1:
            obj = self.card_object(self.anyone())
            self.w.place(obj, "battlefield", None)
        else:
            objs = [o for o in sorted(self.w.zone_of) if not self.w.zone_of[o].startswith("library")]
            if not objs:
                return False
            obj = self.rng.choice(objs)
        zone = self.w.zone_of[obj]
        observation: dict[str, Any] = {"type": "mention", "object": self.w.shown(obj), "zone": zone}
        self.introduce(observation, obj)
        if self.rng.random() < 0.3 and not self.w.objects[obj].face_down:
            observation["card"] = self.describe(obj)
        self.in_place(observation, obj, zone)
        return True

    def unprinted(self) -> bool:
        """A card whose arrival the log never printed is first seen leaving the battlefield
        under another player's control (a stolen creature dies): its owner is the graveyard's
        player (OWN-1), never the controller the move shows."""
        owner = self.anyone()
        obj = self.card_object(owner)
        o = self.w.objects[obj]
        o.controller = self.rng.choice(self.w.players)
        self.w.place(obj, "battlefield", None)
        observation: dict[str, Any] = {"type": "move", "object": self.w.shown(obj), "from": "battlefield",
                                       "to": f"graveyard:{owner}", "card": self.describe(obj)}
        if o.controller != owner or self.rng.random() < 0.5:
            observation["controller"] = o.controller
        self.relinked(observation, obj)
        self.w.show(observation, obj, keeps="ID-3", new="OWN-1")
        self.w.zone_of[obj] = f"graveyard:{owner}"
        o.controller = owner
        return True

    def in_place(self, observation: dict[str, Any], obj: int, zone: str) -> None:
        """A mention or a reveal outside a library: kept (ID-10), or followed for that
        observation only in a hand the player cannot follow (E7)."""
        if zone.startswith("hand:") and not self.follows_hand(zone.removeprefix("hand:")):
            self.w.glimpse(observation, obj, "HID-1")
            self.w.ended["E7"] += 1
        else:
            self.w.show(observation, obj, keeps="ID-10", new="ID-10")

    def reveal_hand(self) -> bool:
        """A hand is revealed: an opponent's (Duress), or the perspective player's own."""
        player = self.anyone()
        hand = self.w.in_zone(f"hand:{player}")
        if not hand:
            return False
        for obj in hand:
            observation = {"type": "reveal", "object": self.w.shown(obj), "zone": f"hand:{player}",
                           "card": self.describe(obj)}
            self.introduce(observation, obj)
            self.in_place(observation, obj, f"hand:{player}")
        return True

    def change(self) -> bool:
        """A change that is not a zone change (ID-4): control, transform, turning face up,
        becoming a copy."""
        objs = [o for o in self.public("battlefield", "stack") if not self.w.objects[o].melded]
        if not objs:
            return False
        obj = self.rng.choice(objs)
        o = self.w.objects[obj]
        handle = self.w.handle_of[obj]
        if o.face_down:
            o.face_down = False
            self.w.show({"type": "turn_face_up", "object": handle, "card": self.describe(obj)}, obj, keeps="ID-4")
        elif self.w.zone_of[obj] == "battlefield" and o.card is not None and o.card["name"] in cards.TRANSFORMING:
            o.back_up = not o.back_up
            observation: dict[str, Any] = {"type": "transform", "object": handle}
            if self.rng.random() < 0.7:
                observation["card"] = self.describe(obj)
            self.w.show(observation, obj, keeps="ID-4")
        elif self.w.zone_of[obj] == "battlefield" and self.rng.random() < 0.3:
            model = self.rng.choice(cards.POOL)
            self.w.cards_used[model["name"]] = model
            o.looks_like = model
            self.w.show({"type": "become_copy", "object": handle,
                         "copy_of": cards.describe(self.rng, model, arena=self.w.relink)}, obj, keeps="ID-4")
        else:
            controller = self.rng.choice(self.w.players)
            o.controller = controller
            self.w.show({"type": "control_change", "object": handle, "controller": controller}, obj, keeps="ID-4")
        return True

    def token(self) -> bool:
        """A token is created on the battlefield: named, a copy of a permanent or of a card in a
        graveyard (TOK-7), or with no handle shown (TOK-6)."""
        owner = self.anyone()
        originals = self.public("battlefield", *(f"graveyard:{p}" for p in self.w.players))
        original = self.rng.choice(originals) if originals and self.rng.random() < 0.3 else None
        name = self.rng.choice(cards.TOKENS)
        if name in cards.TOKEN_CARDS:
            self.w.cards_used[name] = cards.TOKEN_CARDS[name]
        obj = self.w.new_object(Obj(owner=owner, kind="token", token_name=name))
        if original is not None:
            self.w.objects[obj].card = self.w.objects[original].card
        observation: dict[str, Any] = {"type": "create_token", "owner": owner}
        if original is not None:
            observation["original"] = self.w.handle_of[original]
            if self.rng.random() < 0.4:
                observation["card"] = self.describe(obj)
        else:
            observation["card"] = self.describe(obj)
        if original is None and self.rng.random() < 0.25:
            self.w.place(obj, "battlefield", None)
            self.w.blind(observation)
            return True
        handle = self.w.new_handle()
        observation["object"] = handle
        self.w.place(obj, "battlefield", handle)
        self.w.show(observation, obj, keeps="TOK-1", new="TOK-1")
        return True

    def copy(self) -> bool:
        """A spell on the stack is copied (TOK-5)."""
        spells = self.public("stack")
        if not spells:
            return False
        original = self.rng.choice(spells)
        owner = self.anyone()
        obj = self.w.new_object(Obj(owner=owner, kind="copy", card=self.w.objects[original].card))
        handle = self.w.new_handle()
        observation: dict[str, Any] = {"type": "create_copy", "object": handle, "owner": owner,
                                       "original": self.w.handle_of[original]}
        zone = self.rng.choice(["stack"] * 8 + ["exile", f"hand:{owner}"])
        if zone != "stack":
            observation["zone"] = zone  # a copy of a card, made in exile or a hand (CR 707.12)
        if self.w.objects[obj].card is not None and self.rng.random() < 0.3:
            observation["card"] = self.describe(obj)
        elif self.rng.random() < 0.15:
            shown = self.rng.choice(cards.POOL)  # a description of another card (NAME-5)
            self.w.cards_used[shown["name"]] = shown
            observation["card"] = cards.describe(self.rng, shown, arena=self.w.relink)
        self.w.place(obj, zone, handle)
        if zone.startswith("hand:") and not self.follows_hand(owner):
            self.w.glimpse(observation, obj, "HID-1")
            self.w.ended["E7"] += 1
            return True
        self.w.show(observation, obj, keeps="TOK-1", new="TOK-1")
        return True

    def vanish(self) -> bool:
        """The source stops showing an object, with no destination (ID-11)."""
        objs = [o for o in self.public(*PUBLIC, *(f"graveyard:{p}" for p in self.w.players))
                if not self.w.objects[o].melded]
        if not objs:
            return False
        obj = self.rng.choice(objs)
        observation = {"type": "vanish", "object": self.w.handle_of[obj], "zone": self.w.zone_of[obj]}
        self.w.show(observation, obj, keeps="ID-11")
        self.w.end([obj], "E16")
        handle = self.w.remove(obj)
        if handle is not None:
            self.w.freed.append(handle)
        return True

    # -- games --------------------------------------------------------------------------------

    def new_game(self) -> bool:
        self.w.game += 1
        self.reset("E10", carried=[])
        self.w.blind({"type": "game_start", "game": self.w.game})
        return True

    def restart(self) -> bool:
        """Karn Liberated restarts the game; the cards exiled with it are carried (CR 727.2)."""
        exiled = self.public("exile")
        carried = [o for o in exiled if self.w.objects[o].kind == "card" and self.rng.random() < 0.6]
        observation = {"type": "restart", "carried": [self.w.handle_of[o] for o in carried]}
        self.reset("E11", carried=carried)
        self.w.blind(observation)
        return True

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


#: The events and their weights.
EVENTS: tuple[tuple[str, int, Callable[[Play], bool]], ...] = (
    ("take", 12, Play.take),
    ("search", 3, Play.search),
    ("put", 8, Play.put),
    ("look", 5, Play.look),
    ("scry", 4, Play.scry),
    ("reorder", 3, Play.reorder),
    ("shuffle", 2, Play.shuffle),
    ("size", 3, Play.size),
    ("mulligan", 1, Play.mulligan),
    ("cast", 8, Play.cast),
    ("resolve", 6, Play.resolve),
    ("leave", 6, Play.leave),
    ("flicker", 1, Play.flicker),
    ("mention", 5, Play.mention),
    ("reveal_hand", 1, Play.reveal_hand),
    ("change", 3, Play.change),
    ("token", 3, Play.token),
    ("copy", 3, Play.copy),
    ("unprinted", 1, Play.unprinted),
    ("vanish", 1, Play.vanish),
    ("foretell", 1, Play.foretell),
    ("meld", 1, Play.meld),
    ("new_game", 1, Play.new_game),
    ("restart", 1, Play.restart),
)


#: The events a game always has: the game goes on with these whatever else is left out.
ALWAYS = frozenset({"take", "put", "cast", "size"})


class Schedule:
    """The events one game draws from: the `enabled` ones and those it always has, by weight."""

    def __init__(self, enabled: frozenset[str]) -> None:
        table = [(name, weight, event) for name, weight, event in EVENTS if name in enabled or name in ALWAYS]
        self.names = [name for name, _, _ in table]
        self.cumulative = list(itertools.accumulate(weight for _, weight, _ in table))
        self.events = {name: event for name, _, event in table}

    def step(self, play: Play) -> str:
        """One event, drawn by weight among those that can happen now; its name."""
        while True:
            name = play.rng.choices(self.names, cum_weights=self.cumulative)[0]
            if self.events[name](play):
                return name
