"""A generated game as it really is, and what the perspective player can follow of it.

The world knows every physical object: where it is (each library in its true order, each hand,
the public zones), what it is, and which handle the source uses for it. Beside the truth it keeps
the perspective player's knowledge as decision 0002 defines it: each object's current *instance*
(a number, or none while the player cannot follow it), ended exactly at the events of the spec's
ending-events table (spec/card-identity.md, ID-6), and, in each library, which cards the player
knows the position of, from the top or from the bottom (LIB-1, LIB-5, LIB-7).

That knowledge is computed here over the true library, card by card, not over the segments of
positions a writer keeps: a second derivation of the library rules, from the physical cards, which
is what makes it an oracle independent of the reference's code (`oracle.py` compares answers
with it). Each observation's truth names the object, its instance and the rule that decided it.
"""

from __future__ import annotations

import random
from collections import Counter
from dataclasses import dataclass, field
from typing import Any

from .cards import Card

#: The rule each ending event of spec/card-identity.md (ID-6) belongs to.
ENDING_RULE = {
    "E1": "LIB-2", "E2": "ID-8", "E3": "LIB-3", "E4": "LIB-3", "E5": "LIB-4", "E6": "HID-1",
    "E7": "HID-1", "E8": "TOK-2", "E9": "TOK-3", "E10": "ID-9", "E11": "ID-9", "E13": "LIB-7",
    "E14": "LIB-7", "E15": "LIB-8", "E16": "ID-11",
}


@dataclass(slots=True)
class Obj:
    """A physical object: a card (of the pool), a token or a copy."""

    owner: str
    kind: str  # card, token or copy
    card: Card | None = None
    token_name: str | None = None
    face_down: bool = False
    back_up: bool = False  # a transforming card showing its second face
    controller: str = ""
    melded: bool = False  # part of a melded permanent (CR 712.4)
    looks_like: Card | None = None  # the card a permanent became a copy of (CR 707.4)

    def __post_init__(self) -> None:
        self.controller = self.controller or self.owner


@dataclass(frozen=True, slots=True)
class Truth:
    """What an observation refers to: the physical object, its instance (observations of one
    instance share an instance ID, and no two instances do), and the rule that decided whether
    the instance is kept or new at this observation."""

    obj: int
    instance: int
    rule: str


@dataclass(slots=True)
class TrueLibrary:
    """A library in its true order (index 0 is the top), and the cards whose position the
    perspective player knows, counted from the top and from the bottom. While the size is known
    the two ends are one library (LIB-5), and the two sets are kept equal."""

    cards: list[int] = field(default_factory=list)
    top: set[int] = field(default_factory=set)
    bottom: set[int] = field(default_factory=set)
    size_known: bool = False

    def tracked(self, end: str) -> set[int]:
        return self.top if end == "top" else self.bottom

    def other(self, end: str) -> set[int]:
        return self.bottom if end == "top" else self.top

    def run(self, end: str) -> int:
        """The known run of an end: positions 1, 2, ... from it, all tracked (LIB-7)."""
        order = self.cards if end == "top" else self.cards[::-1]
        tracked = self.tracked(end)
        n = 0
        while n < len(order) and order[n] in tracked:
            n += 1
        return n

    def index(self, counted: int) -> int:
        return counted - 1 if counted > 0 else len(self.cards) + counted

    def forget(self, objs: set[int] | list[int]) -> None:
        for obj in objs:
            self.top.discard(obj)
            self.bottom.discard(obj)

    def track(self, obj: int, end: str) -> None:
        if self.size_known:
            self.top.add(obj)
            self.bottom.add(obj)
        else:
            self.tracked(end).add(obj)

    def everything(self) -> set[int]:
        return self.top | self.bottom

    def past_run(self, end: str, beyond: bool) -> list[tuple[str, set[int]]]:
        """E13: without a known size, an event past the known run of `end` first ends every
        instance the other end tracks."""
        if self.size_known or not beyond:
            return []
        ended = set(self.other(end))
        self.other(end).clear()
        return [("E13", ended)]

    def take(self, counted: int | None, rng: random.Random) -> tuple[int, bool, list[tuple[str, set[int]]]]:
        """Take the card at `counted` (N from the top, -N from the bottom, None for a position
        not known): the card, whether the player follows it (LIB-1, LIB-5), and what ends."""
        if counted is None:
            ended = [("E5", self.everything())]
            self.top.clear()
            self.bottom.clear()
            return self.cards.pop(rng.randrange(len(self.cards))), False, ended
        end = "top" if counted > 0 else "bottom"
        ended = self.past_run(end, abs(counted) > self.run(end))
        obj = self.cards.pop(self.index(counted))
        kept = obj in self.tracked(end)
        self.forget([obj])
        return obj, kept, ended

    def put(self, obj: int, counted: int | None, rng: random.Random, *, known: bool) -> tuple[bool, list[tuple[str, set[int]]]]:
        """Put `obj` at `counted` (None: a position not known); `known`: the player knows which
        card it is. Whether the card is followed past the move, and what ends."""
        if counted is None:
            ended = [("E4", self.everything())]
            self.top.clear()
            self.bottom.clear()
            self.cards.insert(rng.randint(0, len(self.cards)), obj)
            return False, ended
        end = "top" if counted > 0 else "bottom"
        n = abs(counted)
        beyond = n > self.run(end) + 1
        ended = self.past_run(end, beyond)
        size = len(self.cards)
        self.cards.insert(min(n - 1, size) if counted > 0 else size - n + 1, obj)
        followed = known and (self.size_known or not beyond)
        if followed:
            self.track(obj, end)
        return followed, ended

    def look(self, counted: int) -> tuple[int, bool, list[tuple[str, set[int]]]]:
        """A look at the card at `counted`: the card, whether it is the tracked one, and what
        ends (LIB-7: a look at an untracked position of an end, without a known size). The card
        is tracked there from now on."""
        end = "top" if counted > 0 else "bottom"
        obj = self.cards[self.index(counted)]
        ended = self.past_run(end, obj not in self.tracked(end))
        kept = obj in self.tracked(end)
        self.track(obj, end)
        return obj, kept, ended

    def reorder(self, end: str, count: int, order: list[int], known: bool) -> list[tuple[str, set[int]]]:
        """The `count` cards at `end` put in `order` (order[i]: the old position of the card now
        i + 1th from that end); `known`: the player knows the order (LIB-6), else their
        instances end (LIB-3, E3)."""
        ended = self.past_run(end, count > self.run(end))
        old = self.cards[:count] if end == "top" else self.cards[::-1][:count]
        new = [old[k - 1] for k in order]
        if end == "top":
            self.cards[:count] = new
        else:
            self.cards[len(self.cards) - count:] = new[::-1]
        if not known:
            moved = set(new) & self.everything()
            self.forget(new)
            ended.append(("E3", moved))
        return ended

    def shuffle(self) -> list[tuple[str, set[int]]]:
        ended = [("E1", self.everything())]
        self.top.clear()
        self.bottom.clear()
        return ended

    def count(self) -> None:
        """A `library_size`: the size is known, and the two ends are one library (LIB-5)."""
        self.size_known = True
        joined = self.top | self.bottom
        self.top = set(joined)
        self.bottom = set(joined)


class World:
    """The game's truth, the perspective player's instances, and the request being written."""

    def __init__(self, rng: random.Random, players: list[str], perspective: str, *,
                 relink: bool, tracking: bool) -> None:
        self.rng = rng
        self.players = players
        self.perspective = perspective
        self.relink = relink
        self.tracking = tracking
        self.objects: dict[int, Obj] = {}
        self.libraries: dict[str, TrueLibrary] = {p: TrueLibrary() for p in players}
        #: Where each object outside a library is (a hand or a public zone), and its handle
        #: (None: in a hand, never shown with one).
        self.zone_of: dict[int, str] = {}
        self.handle_of: dict[int, str | None] = {}
        #: The handle a card had before it went into a library: a source that keeps handles
        #: (MTGO) may show it again when the card comes out, which proves nothing (LIB-1).
        self.last_handle: dict[int, str] = {}
        self.instance_of: dict[int, int] = {}
        self.instances = 0
        self.handles = 0
        self.freed: list[str] = []
        #: Melded permanents' handles: never an object until the game ends (REQ-4).
        self.reserved: set[str] = set()
        self.game = 1
        self.observations: list[dict[str, Any]] = []
        self.truth: list[Truth | None] = []
        self.ended: Counter[str] = Counter()
        self.ended_by: dict[int, str] = {}
        self.cards_used: dict[str, Card] = {}

    # -- objects and handles ------------------------------------------------------------------

    def new_object(self, obj: Obj) -> int:
        n = len(self.objects)
        self.objects[n] = obj
        if obj.card is not None:
            self.cards_used[obj.card["name"]] = obj.card
        return n

    def in_use(self) -> set[str]:
        return {h for h in self.handle_of.values() if h is not None} | self.reserved

    def new_handle(self) -> str:
        """A handle no object outside a library has: now and then one a gone object had (a
        source may give it again once its object is no longer held, REQ-2)."""
        used = self.in_use()
        while self.freed and self.rng.random() < 0.5:
            handle = self.freed.pop()
            if handle not in used:
                return handle
        while True:
            self.handles += 1
            handle = str(self.handles) if not self.relink else f"{100 + self.handles}"
            if handle not in used:
                return handle

    def place(self, obj: int, zone: str, handle: str | None) -> None:
        self.zone_of[obj] = zone
        self.handle_of[obj] = handle

    def remove(self, obj: int) -> str | None:
        """Take an object out of every non-library zone; its handle."""
        self.zone_of.pop(obj, None)
        return self.handle_of.pop(obj, None)

    def in_zone(self, zone: str) -> list[int]:
        return sorted(o for o, z in self.zone_of.items() if z == zone)

    def shown(self, obj: int) -> str:
        """The object's handle, giving it one if it has none yet (a hand card never shown)."""
        handle = self.handle_of.get(obj)
        if handle is None:
            handle = self.new_handle()
            self.handle_of[obj] = handle
        return handle

    # -- instances ----------------------------------------------------------------------------

    def live(self, obj: int) -> bool:
        return obj in self.instance_of

    def end(self, objs: Any, event: str) -> None:
        """End the instances of `objs` at ending event `event` (E1 to E16)."""
        for obj in objs:
            instance = self.instance_of.pop(obj, None)
            if instance is not None:
                self.ended[event] += 1
                self.ended_by[instance] = event

    def ending(self, ended: list[tuple[str, set[int]]]) -> None:
        for event, objs in ended:
            self.end(sorted(objs), event)

    def fresh(self) -> int:
        self.instances += 1
        return self.instances

    # -- the request --------------------------------------------------------------------------

    def blind(self, observation: dict[str, Any]) -> None:
        """An observation that refers to no object."""
        self.observations.append(observation)
        self.truth.append(None)

    def show(self, observation: dict[str, Any], obj: int, keeps: str, new: str = "ID-7") -> None:
        """An observation of `obj`: its live instance, kept by rule `keeps`, or a new one (by
        rule `new`) when the player could not follow it."""
        instance = self.instance_of.get(obj)
        rule = keeps
        if instance is None:
            instance = self.fresh()
            self.instance_of[obj] = instance
            rule = new
        self.observations.append(observation)
        self.truth.append(Truth(obj, instance, rule))

    def glimpse(self, observation: dict[str, Any], obj: int, rule: str) -> None:
        """An observation of `obj` followed for that observation only: a new instance that no
        other observation shares (HID-1's E7, a reveal at an unknown library position)."""
        self.observations.append(observation)
        self.truth.append(Truth(obj, self.fresh(), rule))

    def request(self) -> dict[str, Any]:
        section = [self.cards_used[name] for name in sorted(self.cards_used)]
        return {
            "role": "writer",
            "perspective": self.perspective,
            "players": self.players,
            "source": {"name": "generated", "hidden_tracking": self.tracking},
            "cards": self.rng.sample(section, len(section)),  # in no order a writer may rely on
            "observations": self.observations,
        }
