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

from .events import Play


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
    if roll < 0.4:
        return {"type": "mention", "object": handle, "zone": elsewhere}
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
    if play.rng.random() < 0.5 or len(held) < 2:
        return {"type": "create_token", "object": handle, "owner": play.me, "card": {"name": "Goblin"}}
    mover, other = play.rng.sample(held, 2)
    return {"type": "move", "object": play.w.handle_of[mover], "from": play.w.zone_of[mover],
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
    return play.rng.choice([
        {"type": "move", "object": permanent, "from": "battlefield", "to": "exile"},
        {"type": "mention", "object": permanent, "zone": "battlefield"},
    ])


def past_size(play: Play) -> dict[str, Any] | None:
    """REQ-5: a library count against its known size, or an order that is no permutation."""
    known = [p for p in play.w.players if play.w.libraries[p].size_known]
    if not known:
        return {"type": "reorder", "zone": f"library:{play.me}", "end": "top", "count": 2, "order": [1, 3]}
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


#: The REQ rule each kind of inconsistent ending breaks.
ENDINGS: tuple[tuple[str, Callable[[Play], dict[str, Any] | None]], ...] = (
    ("REQ-1", wrong_zone),
    ("REQ-2", handle_taken),
    ("REQ-3", not_held),
    ("REQ-4", melded_as_object),
    ("REQ-5", past_size),
)


def spoil(play: Play) -> str | None:
    """End the game with one inconsistent observation; the REQ rule it breaks (None when the
    game's state offers none of the kind drawn)."""
    rule, ending = play.rng.choice(ENDINGS)
    observation = ending(play)
    if observation is None:
        return None
    play.w.blind(observation)
    return rule
