"""Generated games whose truth is known: the suite's own inputs, with a ground truth no
implementation's code decides (issue "Generated games").

So far, games of one player's library, hand and public zones (`game_of`): cards drawn, put back at
every kind of position (top, Nth from the top, bottom, Nth from the bottom, unknown), taken and
looked at from either end, reordered in known and unknown orders, shuffled, searched, scried,
mulliganed, tokens put into it, its size shown or not, in libraries of zero to a few cards,
where a position counted from one end reaches the other (CR 401.7); hand cards cast, resolved,
dying, exiled, returned to the hand and named in place; tokens made and leaving the
battlefield; from a source that relinks handles on every zone change (Arena) or keeps them
(MTGO). The game is played knowing where every physical card
is; the request holds only what the perspective player saw; `truth` names the physical card
each observation refers to. The oracle so far is the soundness half of decision 0002 item 4:
no instance ID is given to two physical cards (`shared_ids`). The same seed always gives the
same game.
"""

from __future__ import annotations

import random
from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

LIBRARY = "library:P1"
HAND = "hand:P1"


class Game:
    """One library (top first), a hand and the public zones, as they really are, and the
    request P1 sees. `relink`: the source gives an object a new handle on every zone change and
    links the two (Arena), else it keeps the handle (MTGO)."""

    def __init__(self, rng: random.Random, size: int, *, relink: bool = False) -> None:
        self.rng = rng
        self.relink = relink
        self.library: list[int] = list(range(size))  # physical cards, index 0 is the top
        self.hand: dict[str, int] = {}  # handle -> physical card
        self.public: dict[str, tuple[str, int]] = {}  # handle -> (public zone, physical object)
        self.tokens: set[int] = set()  # the physical objects that are tokens
        #: Handles of tokens that ceased to exist, which a source may give another object
        #: (REQ-2: a handle may be used again once its object is no longer held).
        self.freed: list[str] = []
        self.next_card = size
        self.next_handle = 0
        self.observations: list[dict[str, Any]] = []
        self.truth: list[int | None] = []  # the physical card each observation refers to

    def handle(self) -> str:
        self.next_handle += 1
        return f"h{self.next_handle}"

    def card(self) -> int:
        """A physical object not seen before: a card from outside the library, or a token."""
        self.next_card += 1
        return self.next_card - 1

    def observe(self, observation: dict[str, Any], card: int | None) -> None:
        self.observations.append(observation)
        self.truth.append(card)

    def position(self, counted: int) -> Any:
        return {1: "top", -1: "bottom"}.get(counted, counted) if self.rng.random() < 0.5 else counted

    def existing(self) -> int:
        """A position that exists now: N from the top or -N from the bottom."""
        n = self.rng.randint(1, len(self.library))
        return n if self.rng.random() < 0.5 else -n

    def index(self, counted: int) -> int:
        return counted - 1 if counted > 0 else len(self.library) + counted

    def step(self) -> None:
        choices = ["put", "size", "shuffle", "new", "unseen_put", "token", "mulligan", "token_on_battlefield"]
        if self.library:
            choices += ["take", "take", "reveal", "reorder", "search", "unseen_take", "scry"]
        if self.hand:
            choices += ["put", "put", "put_unknown", "cast", "cast"]
        for zone, event in (("stack", "resolve"), ("battlefield", "leave"), ("battlefield", "mention"),
                            ("graveyard:P1", "exile")):
            if any(where == zone for where, _ in self.public.values()):
                choices += [event, event]
        getattr(self, f"do_{self.rng.choice(choices)}")()

    def moved(self, handle: str, observation: dict[str, Any]) -> str:
        """The handle the object has after this zone change: a new one, linked (`relink`), or
        the same."""
        if not self.relink:
            return handle
        new = self.handle()
        observation["new_object"] = new
        return new

    def public_handle(self, zone: str) -> str:
        return self.rng.choice(sorted(h for h, (where, _) in self.public.items() if where == zone))

    def do_cast(self) -> None:
        """A hand card is cast: it is shown, and goes to the stack."""
        handle = self.rng.choice(sorted(self.hand))
        card = self.hand.pop(handle)
        observation = {"type": "move", "object": handle, "from": HAND, "to": "stack",
                       "card": {"name": f"Card {card}"}}
        self.public[self.moved(handle, observation)] = ("stack", card)
        self.observe(observation, card)

    def do_resolve(self) -> None:
        handle = self.public_handle("stack")
        _, card = self.public.pop(handle)
        observation = {"type": "move", "object": handle, "from": "stack", "to": "battlefield"}
        self.public[self.moved(handle, observation)] = ("battlefield", card)
        self.observe(observation, card)

    def do_leave(self) -> None:
        """A permanent dies, is exiled, or returns to its owner's hand; a token that leaves the
        battlefield ceases to exist (TOK-2)."""
        handle = self.public_handle("battlefield")
        _, card = self.public.pop(handle)
        to = self.rng.choice(["graveyard:P1", "exile", HAND])
        observation = {"type": "move", "object": handle, "from": "battlefield", "to": to}
        new = self.moved(handle, observation)
        self.observe(observation, card)
        if card in self.tokens:
            self.freed.append(new)  # it ceased to exist (TOK-2)
            return
        if to == HAND:
            self.hand[new] = card
        elif to != "exile":
            self.public[new] = (to, card)

    def do_exile(self) -> None:
        handle = self.public_handle("graveyard:P1")
        _, card = self.public.pop(handle)
        observation = {"type": "move", "object": handle, "from": "graveyard:P1", "to": "exile"}
        self.moved(handle, observation)
        self.observe(observation, card)

    def do_mention(self) -> None:
        """A permanent is named in place: an attacker, a target."""
        handle = self.public_handle("battlefield")
        self.observe({"type": "mention", "object": handle, "zone": "battlefield"}, self.public[handle][1])

    def do_token_on_battlefield(self) -> None:
        handle = self.handle()
        token = self.card()
        self.tokens.add(token)
        self.public[handle] = ("battlefield", token)
        self.observe({"type": "create_token", "object": handle, "owner": "P1",
                      "card": {"name": "Goblin"}}, token)

    def do_new(self) -> None:
        """A card of P1's comes into view in P1's hand (from outside the library), sometimes
        under the handle of a token that ceased to exist."""
        handle = self.freed.pop() if self.freed and self.rng.random() < 0.5 else self.handle()
        card = self.card()
        self.hand[handle] = card
        self.observe({"type": "mention", "object": handle, "zone": HAND}, card)

    def do_take(self) -> None:
        counted = self.existing()
        card = self.library.pop(self.index(counted))
        handle = self.handle()
        self.hand[handle] = card
        self.observe({"type": "move", "object": handle, "from": LIBRARY, "to": HAND,
                      "from_position": self.position(counted)}, card)

    def do_token(self) -> None:
        """A token is created and put into the library, where it ceases to exist (TOK-4)."""
        handle = self.handle()
        token = self.card()  # a physical object of its own, never in the library
        self.observe({"type": "create_token", "object": handle, "owner": "P1",
                      "card": {"name": "Zombie"}}, token)
        n = self.rng.randint(1, 3)
        self.observe({"type": "move", "object": handle, "from": "battlefield", "to": LIBRARY,
                      "position": self.position(n if self.rng.random() < 0.5 else -1)}, token)

    def do_mulligan(self) -> None:
        """The hand is shuffled into the library (CR 103.5), its handles listed or not."""
        observation: dict[str, Any] = {"type": "mulligan", "player": "P1"}
        if self.hand and self.rng.random() < 0.5:
            observation["objects"] = sorted(self.hand)
        self.library += self.hand.values()
        self.hand.clear()
        self.rng.shuffle(self.library)
        self.observe(observation, None)

    def do_unseen_take(self) -> None:
        """A card leaves with no handle shown (LIB-8): MTGO's "draws a card"."""
        counted = self.existing()
        self.library.pop(self.index(counted))
        self.observe({"type": "move", "from": LIBRARY, "to": HAND,
                      "from_position": self.position(counted)}, None)

    def do_unseen_put(self) -> None:
        """A card of P1's, never shown, is put at the top or bottom with no handle (LIB-8)."""
        card = self.card()
        counted = self.rng.choice([1, -1])
        self.library.insert(0 if counted > 0 else len(self.library), card)
        self.observe({"type": "move", "from": HAND, "to": LIBRARY,
                      "position": self.position(counted)}, None)

    def do_scry(self) -> None:
        """The top card is looked at and put on the bottom, with or without its handle."""
        card = self.library.pop(0)
        self.library.append(card)
        observation = {"type": "move", "from": LIBRARY, "to": LIBRARY, "from_position": "top",
                       "position": "bottom"}
        if self.rng.random() < 0.5:
            self.observe({**observation, "object": self.handle(),
                          "card": {"name": f"Card {card}"}}, card)
        else:
            self.observe(observation, None)

    def do_search(self) -> None:
        card = self.library.pop(self.rng.randrange(len(self.library)))
        handle = self.handle()
        self.hand[handle] = card
        self.observe({"type": "move", "object": handle, "from": LIBRARY, "to": HAND}, card)

    def do_reveal(self) -> None:
        counted = self.existing()
        card = self.library[self.index(counted)]
        self.observe({"type": "reveal", "object": self.handle(), "zone": LIBRARY,
                      "position": self.position(counted), "card": {"name": f"Card {card}"}}, card)

    def do_put(self) -> None:
        if not self.hand:
            self.do_new()
        handle = self.rng.choice(sorted(self.hand))
        card = self.hand.pop(handle)
        n = self.rng.randint(1, 4)
        # Nth from the bottom exists only down to one past the top card (REQ-5); Nth from the
        # top of fewer than N - 1 cards is the bottom (CR 401.7).
        counted = n if self.rng.random() < 0.5 else -min(n, len(self.library) + 1)
        if counted > 0:
            self.library.insert(min(counted - 1, len(self.library)), card)
        else:
            self.library.insert(max(len(self.library) + counted + 1, 0), card)
        self.observe({"type": "move", "object": handle, "from": HAND, "to": LIBRARY,
                      "position": self.position(counted)}, card)

    def do_put_unknown(self) -> None:
        handle = self.rng.choice(sorted(self.hand))
        card = self.hand.pop(handle)
        self.library.insert(self.rng.randint(0, len(self.library)), card)
        self.observe({"type": "move", "object": handle, "from": HAND, "to": LIBRARY}, card)

    def do_reorder(self) -> None:
        count = self.rng.randint(1, len(self.library))
        end = self.rng.choice(["top", "bottom"])
        order = list(range(1, count + 1))
        self.rng.shuffle(order)
        old = self.library[:count] if end == "top" else self.library[::-1][:count]
        new = [old[k - 1] for k in order]
        if end == "top":
            self.library[:count] = new
        else:
            self.library[len(self.library) - count:] = new[::-1]
        observation: dict[str, Any] = {"type": "reorder", "zone": LIBRARY, "end": end, "count": count}
        if self.rng.random() < 0.6:
            observation["order"] = order
        self.observe(observation, None)

    def do_size(self) -> None:
        self.observe({"type": "library_size", "zone": LIBRARY, "size": len(self.library)}, None)

    def do_shuffle(self) -> None:
        self.rng.shuffle(self.library)
        self.observe({"type": "shuffle", "zone": LIBRARY}, None)

    def request(self) -> dict[str, Any]:
        return {"role": "writer", "perspective": "P1", "players": ["P1", "P2"],
                "source": {"name": "generated", "hidden_tracking": True}, "cards": [],
                "observations": [{"type": "game_start", "game": 1}, *self.observations]}


@dataclass(frozen=True, slots=True, kw_only=True)
class Generated:
    """One generated game: its seed, the writer request, and the physical card each of the
    request's observations refers to (None where it refers to none)."""

    seed: int
    request: dict[str, Any]
    truth: tuple[int | None, ...]


def play(seed: int, size: int, steps: int, *, relink: bool = False) -> Game:
    """The game of `steps` events in a library of `size` cards that `seed` gives."""
    game = Game(random.Random(seed), size, relink=relink)
    for _ in range(steps):
        game.step()
    return game


def game_of(seed: int) -> Generated:
    """Seed N's game: a library of N mod 8 cards, 5 + N mod 40 events, from a source that
    relinks handles on every zone change for odd N (Arena) and keeps them for even N (MTGO)."""
    played = play(seed, seed % 8, 5 + seed % 40, relink=seed % 2 == 1)
    return Generated(seed=seed, request=played.request(), truth=(None, *played.truth))


def shared_ids(truth: Sequence[int | None], assignments: Sequence[str | None]) -> dict[str, set[int]]:
    """The instance IDs an answer gives to more than one physical card."""
    cards: defaultdict[str, set[int]] = defaultdict(set)
    for iid, card in zip(assignments, truth, strict=True):
        if iid is not None and card is not None:
            cards[iid].add(card)
    return {iid: seen for iid, seen in cards.items() if len(seen) > 1}
