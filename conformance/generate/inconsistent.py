"""Inconsistent endings: a generated game that ends with an observation no game could produce,
one of each kind the REQ rules list, which a writer must reject (spec/card-identity.md,
"Inconsistent requests"). Each is chosen from the game's state, so it is inconsistent there and
only there: a handle held in one zone named in another, a held handle given to a new object, an
in-place change of a handle nobody holds, a melded permanent's handle used as an object, a
library count against a known size.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from .play import Play


def _held(play: Play) -> list[int]:
    """Objects the writer holds under a handle, in a public zone."""
    return [o for o in play.public("battlefield", "stack", "exile", "command",
                                   *(f"graveyard:{p}" for p in play.w.players)) if play.w.live(o)]


def wrong_zone(play: Play) -> dict[str, Any] | None:
    """REQ-1: a held handle named as an object of another zone."""
    held = _held(play)
    if not held:
        return None
    obj = play.rng.choice(held)
    zone = play.w.zone_of[obj]
    handle = play.w.handle_of[obj]
    elsewhere = play.rng.choice([z for z in ("battlefield", "exile", "stack", "command") if z != zone])
    roll = play.rng.random()
    if roll < 0.2:
        return {"type": "mention", "object": handle, "zone": elsewhere}
    if roll < 0.4:
        owner = play.w.objects[obj].owner
        return {"type": "reveal", "object": handle, "zone": f"hand:{owner}", "card": {"name": "Island"}}
    if roll < 0.7:
        library = f"library:{play.w.objects[obj].owner}"
        return {"type": "move", "object": handle, "from": library, "to": f"hand:{play.w.objects[obj].owner}",
                "from_position": "top"}
    return {"type": "move", "object": handle, "from": elsewhere, "to": f"graveyard:{play.w.objects[obj].owner}"}


def handle_taken(play: Play) -> dict[str, Any] | None:
    """REQ-2: a held handle given to another object."""
    held = _held(play)
    if not held:
        return None
    handle = play.w.handle_of[play.rng.choice(held)]
    roll = play.rng.random()
    if roll < 0.2 or len(held) < 2:
        return {"type": "create_token", "object": handle, "owner": play.me, "card": {"name": "Goblin"}}
    if roll < 0.45:
        return {"type": "create_copy", "object": handle, "owner": play.me, "card": {"name": "Island"}}
    mover, other = play.rng.sample(held, 2)
    moving = play.w.handle_of[mover]
    battlefield = [o for o in held if play.w.zone_of[o] == "battlefield" and o != other]
    if roll < 0.55 and battlefield:
        # A meld whose permanent is given a handle a live card holds.
        return {"type": "meld", "object": play.w.handle_of[play.rng.choice(battlefield)],
                "permanent": play.w.handle_of[other]}
    if roll < 0.7:
        owner = play.w.objects[mover].owner
        return {"type": "move", "object": moving, "from": play.w.zone_of[mover], "to": f"library:{owner}",
                "position": "top", "new_object": play.w.handle_of[other]}
    return {"type": "move", "object": moving, "from": play.w.zone_of[mover],
            "to": play.rng.choice(["exile", "battlefield", "command"]), "new_object": play.w.handle_of[other]}


def not_held(play: Play) -> dict[str, Any] | None:
    """REQ-3: an in-place change of a handle the writer does not hold, or a change of control
    of a card held outside the battlefield and the stack."""
    graveyards = [o for o in _held(play) if play.w.zone_of[o].startswith("graveyard:")]
    if graveyards and play.rng.random() < 0.3:
        return {"type": "control_change", "object": play.w.handle_of[play.rng.choice(graveyards)],
                "controller": play.me}
    handle = f"never-{play.rng.randint(1, 999)}"
    changes: list[dict[str, Any]] = [
        {"type": "transform", "object": handle},
        {"type": "turn_face_up", "object": handle},
        {"type": "control_change", "object": handle, "controller": play.me},
        {"type": "become_copy", "object": handle, "copy_of": {"name": "Island"}},
    ]
    return play.rng.choice(changes)


def melded_as_object(play: Play) -> dict[str, Any] | None:
    """REQ-4: a melded permanent's handle used as an object."""
    if not play.w.reserved:
        return None
    permanent = play.rng.choice(sorted(play.w.reserved))
    uses: list[dict[str, Any]] = [
        {"type": "move", "object": permanent, "from": "battlefield", "to": "exile"},
        {"type": "mention", "object": permanent, "zone": "battlefield"},
        {"type": "create_token", "object": permanent, "owner": play.me, "card": {"name": "Goblin"}},
        {"type": "restart", "carried": [permanent]},
    ]
    held = _held(play)
    if held:
        obj = play.rng.choice(held)
        uses.append({"type": "move", "object": play.w.handle_of[obj], "from": play.w.zone_of[obj],
                     "to": "exile" if play.w.zone_of[obj] != "exile" else "battlefield", "new_object": permanent})
        uses.append({"type": "create_token", "object": play.w.new_handle(), "owner": play.me, "original": permanent})
    return play.rng.choice(uses)


def past_size(play: Play) -> dict[str, Any] | None:
    """REQ-5: a library count against its known size, or an order that is no permutation."""
    deep = [(p, end) for p in play.w.players for end in ("top", "bottom")
            if not play.w.libraries[p].size_known and _deepest(play, p, end) >= 1]
    if deep and play.rng.random() < 0.9:
        # A size that puts a card tracked Nth from one end beyond the library.
        player, end = play.rng.choice(deep)
        deepest = _deepest(play, player, end)
        library = play.w.libraries[player]
        order = library.cards if end == "top" else library.cards[::-1]
        # A size ending at an untracked position, with a tracked card beyond it: a writer that
        # moves the card there instead of rejecting would look consistent.
        gaps = [n for n in range(1, deepest) if order[n - 1] not in library.tracked(end)]
        size = play.rng.choice(gaps) if gaps and play.rng.random() < 0.7 else play.rng.randint(0, deepest - 1)
        return {"type": "library_size", "zone": f"library:{player}", "size": size}
    known = [p for p in play.w.players if play.w.libraries[p].size_known]
    if not known:
        return {"type": "reorder", "zone": f"library:{play.me}", "end": "top", "count": 2, "order": [1, 3]}
    empty = [p for p in known if not play.w.libraries[p].cards]
    if empty and play.rng.random() < 0.5:
        # A card taken from an empty library, at a position nobody knows.
        player = play.rng.choice(empty)
        return {"type": "move", "from": f"library:{player}", "to": f"hand:{player}"}
    player = play.rng.choice(known)
    size = len(play.w.libraries[player].cards)
    zone = f"library:{player}"
    return play.rng.choice([
        {"type": "library_size", "zone": zone, "size": size + play.rng.choice([1, 2]) if size == 0 or play.rng.random() < 0.5
         else size - 1},
        {"type": "move", "from": zone, "to": f"hand:{player}", "from_position": size + 1},
        {"type": "move", "from": zone, "to": f"hand:{player}", "from_position": -(size + 1)},
        {"type": "reorder", "zone": zone, "end": "top", "count": size + 1},
        {"type": "move", "from": f"hand:{player}", "to": zone, "position": -(size + 2)},
    ])


def _deepest(play: Play, player: str, end: str) -> int:
    """The farthest position from `end` at which the player's library has a tracked card."""
    library = play.w.libraries[player]
    order = library.cards if end == "top" else library.cards[::-1]
    tracked = library.tracked(end)
    return max((n + 1 for n, obj in enumerate(order) if obj in tracked), default=0)


#: The REQ rule each kind of inconsistent ending breaks, and its weight: the kinds with the most
#: variants, and REQ-4 (which needs a meld first), are drawn more often.
ENDINGS: tuple[tuple[str, int, Callable[[Play], dict[str, Any] | None]], ...] = (
    ("REQ-1", 2, wrong_zone),
    ("REQ-2", 3, handle_taken),
    ("REQ-3", 1, not_held),
    ("REQ-4", 3, melded_as_object),
    ("REQ-5", 4, past_size),
)


def spoil(play: Play) -> str | None:
    """End the game with one inconsistent observation, of a kind the game's state offers; the
    REQ rule it breaks."""
    left = list(ENDINGS)
    while left:
        chosen = play.rng.choices(left, [weight for _, weight, _ in left])[0]
        left.remove(chosen)
        rule, _, ending = chosen
        observation = ending(play)
        if observation is not None:
            play.w.blind(observation)
            return rule
    return None
