"""Events of the libraries: cards taken from a known position or none, put at every kind of
position, looked at, scried, reordered in known and secret orders, shuffled, counted, and London
mulligans; each shown as the perspective player's source shows it (LIB-1 to LIB-8)."""

from __future__ import annotations

from typing import Any

from .play import Play


def take(play: Play) -> bool:
    """A card leaves a library from a known position: drawn, milled, exiled, or put into
    a hand from the Nth position; shown or not."""
    player = play.anyone()
    library = play.w.libraries[player]
    if not library.cards:
        return False
    counted = 1 if play.rng.random() < 0.6 else play.existing(player)
    to = play.rng.choice([f"hand:{player}"] * 8 + [f"graveyard:{player}"] * 2 + ["exile", "battlefield"])
    obj, kept, ended = library.take(counted, play.rng)
    play.w.ending(ended)
    assert kept == play.w.live(obj), "a library card is followed exactly while it is tracked"
    fields: dict[str, Any] = {"from_position": play.pos(counted)}
    if to == "battlefield":
        fields["face_down"] = True  # manifested (CR 701.40)
        play.w.objects[obj].face_down = True
    play.leave_library(obj, player, to, fields, kept)
    return True


def search(play: Play) -> bool:
    """A card taken from a position nobody knows (a tutor), then, most often, a shuffle."""
    player = play.anyone()
    library = play.w.libraries[player]
    if not library.cards:
        return False
    obj, _, ended = library.take(None, play.rng)
    play.w.ending(ended)
    to = play.rng.choice([f"hand:{player}", f"hand:{player}", "battlefield"])
    play.leave_library(obj, player, to, {}, False)
    if play.rng.random() < 0.7:
        play.shuffle_of(player)
    return True


def put(play: Play) -> bool:
    """A card put into its owner's library at a position: from a hand (Brainstorm, a London
    mulligan), from the stack (Memory Lapse), from the battlefield or a graveyard; a token
    or a copy ceases to exist as it arrives (TOK-4)."""
    candidates = sorted(play.w.zone_of)
    if not candidates:
        return False
    obj = play.rng.choice(candidates)
    o = play.w.objects[obj]
    source = play.w.zone_of[obj]
    library = play.w.libraries[o.owner]
    size = len(library.cards)
    roll = play.rng.random()
    if roll < (0.4 if o.kind == "copy" else 0.15):
        counted: int | None = None
    elif roll < 0.55:
        counted = play.rng.randint(1, 5)
    else:
        counted = -play.rng.randint(1, min(4, size + 1))
    # A card the player cannot name (a hand card never shown, or one in a hand the player
    # cannot follow) goes back shown or not; every other object is shown.
    shown = o.kind != "card" or play.w.live(obj) or play.rng.random() < 0.5
    observation: dict[str, Any] = {"type": "move", "from": source, "to": f"library:{o.owner}"}
    if counted is not None or play.rng.random() < 0.5:
        observation["position"] = play.pos(counted)
    if not shown:
        # A card the player cannot name goes back: "puts a card on top" (LIB-8), or
        # shuffled in at a place nobody knows.
        assert not play.w.live(obj)
        if play.rng.random() < (0.5 if library.everything() else 0.2):
            counted = None
            observation.pop("position", None)
        _, ended = library.put(obj, counted, play.rng, known=False)
        play.w.ending(ended)
        play.w.blind(observation)
        play.w.remove(obj)
        return True
    handle = play.w.shown(obj)
    observation = {"type": "move", "object": handle, **{k: v for k, v in observation.items() if k != "type"}}
    play.introduce(observation, obj)
    gone = play.ceases_on(obj, source, f"library:{o.owner}")
    if o.kind != "card":
        play.w.show(observation, obj, keeps="TOK-4")
        play.cease(obj, gone or "E9")
        return True
    followed, ended = library.put(obj, counted, play.rng, known=True)
    play.w.ending(ended)
    play.w.show(observation, obj, keeps="LIB-1")
    if not followed:
        play.w.end([obj], "E4" if counted is None else "E14")
    play.w.last_handle[obj] = handle
    play.w.remove(obj)
    return True


def look(play: Play) -> bool:
    """A library card is seen in place: the perspective player's look at their own library,
    or a card revealed for all; at a known position or, now and then, at none."""
    player = play.anyone()
    library = play.w.libraries[player]
    if not library.cards:
        return False
    counted = 1 if play.rng.random() < 0.4 else play.existing(player)
    handle = play.w.new_handle()
    if play.rng.random() < 0.15:
        obj = library.cards[library.index(counted)]
        observation = {"type": "reveal", "object": handle, "zone": f"library:{player}",
                       "card": play.describe(obj)}
        if play.rng.random() < 0.5:
            observation["position"] = "unknown"
        play.w.glimpse(observation, obj, "LIB-4")
        return True
    obj, kept, ended = library.look(counted)
    play.w.ending(ended)
    assert kept == play.w.live(obj)
    play.w.show({"type": "reveal", "object": handle, "zone": f"library:{player}", "position": play.pos(counted),
                 "card": play.describe(obj)}, obj, keeps="LIB-1", new="LIB-4")
    return True


def scry(play: Play) -> bool:
    """The top card goes to the bottom: the perspective player's own scry, shown with the
    card, or anyone's, shown with none (LIB-8)."""
    player = play.anyone()
    library = play.w.libraries[player]
    if not library.cards:
        return False
    if player == play.me and play.rng.random() < 0.7:
        if play.rng.random() < 0.6:
            obj, kept, ended = library.look(1)
            play.w.ending(ended)
            play.w.show({"type": "reveal", "object": play.w.new_handle(), "zone": f"library:{player}",
                         "position": play.pos(1), "card": play.describe(obj)}, obj, keeps="LIB-1", new="LIB-4")
        obj, kept, ended = library.take(1, play.rng)
        play.w.ending(ended)
        assert kept == play.w.live(obj)
        observation = {"type": "move", "object": play.w.new_handle(), "from": f"library:{player}",
                       "to": f"library:{player}", "from_position": play.pos(1), "position": play.pos(-1)}
        if play.rng.random() < 0.5:
            observation["card"] = play.describe(obj)
        play.w.show(observation, obj, keeps="LIB-1", new="LIB-4")
        followed, ended = library.put(obj, -1, play.rng, known=True)
        play.w.ending(ended)
        assert followed
        return True
    obj, kept, ended = library.take(1, play.rng)
    play.w.ending(ended)
    if kept:
        play.w.end([obj], "E15")
    _, ended = library.put(obj, -1, play.rng, known=False)
    play.w.ending(ended)
    play.w.blind({"type": "move", "from": f"library:{player}", "to": f"library:{player}",
                  "from_position": play.pos(1), "position": play.pos(-1)})
    return True


def reorder(play: Play) -> bool:
    """Cards at one end are put in a new order: one the perspective player knows (their
    Ponder, their scry, LIB-6) or not (an opponent's choice, LIB-3)."""
    player = play.anyone()
    library = play.w.libraries[player]
    if not library.cards:
        return False
    count = play.rng.randint(1, min(len(library.cards), 5))
    end = play.rng.choice(["top", "top", "bottom"])
    if player == play.me and library.run("bottom") >= 2 and play.rng.random() < 0.5:
        end, count = "bottom", play.rng.randint(2, library.run("bottom"))  # P orders what P put there
    order = list(range(1, count + 1))
    play.rng.shuffle(order)
    known = play.rng.random() < (0.7 if player == play.me else 0.2)
    observation: dict[str, Any] = {"type": "reorder", "zone": f"library:{player}", "end": end, "count": count}
    if known:
        observation["order"] = order
    play.w.ending(library.reorder(end, count, order, known))
    play.w.blind(observation)
    if known and play.rng.random() < 0.5:
        # P looks at one of the cards P ordered (a scry's card seen again, Sensei's Top).
        k = play.rng.randint(1, count)
        obj, _, ended = library.look(k if end == "top" else -k)
        play.w.ending(ended)
        play.w.show({"type": "reveal", "object": play.w.new_handle(), "zone": f"library:{player}",
                     "position": play.pos(k if end == "top" else -k), "card": play.describe(obj)},
                    obj, keeps="LIB-6", new="LIB-4")
    return True


def shuffle(play: Play) -> bool:
    play.shuffle_of(play.anyone())
    return True


def size(play: Play) -> bool:
    player = play.anyone()
    library = play.w.libraries[player]
    library.count()
    play.w.blind({"type": "library_size", "zone": f"library:{player}", "size": len(library.cards)})
    return True


def mulligan(play: Play) -> bool:
    """A London mulligan (CR 103.5): the hand shuffled into the library, a new hand drawn,
    cards put on the bottom, as the source shows each."""
    player = play.anyone()
    hand = play.w.in_zone(f"hand:{player}")
    library = play.w.libraries[player]
    if not hand and not library.cards:
        return False
    observation: dict[str, Any] = {"type": "mulligan", "player": player}
    held = [play.w.handle_of[o] for o in hand if play.w.live(o) and play.w.handle_of.get(o) is not None]
    if held and play.rng.random() < 0.5:
        observation["objects"] = held
    play.w.end(sorted({*hand, *library.everything()}), "E2")
    for obj in hand:
        handle = play.w.remove(obj)
        if play.w.objects[obj].kind != "card":
            if handle is not None:
                play.w.freed.append(handle)  # a copy in the hand ceases to exist (TOK-4)
            continue
        if handle is not None:
            play.w.last_handle[obj] = handle
        library.cards.append(obj)
    play.rng.shuffle(library.cards)
    library.top.clear()
    library.bottom.clear()
    library.size_known = False
    play.w.blind(observation)
    for _ in range(min(len(library.cards), play.rng.randint(1, 7))):
        obj, kept, ended = library.take(1, play.rng)
        play.w.ending(ended)
        play.leave_library(obj, player, f"hand:{player}", {"from_position": play.pos(1)}, kept)
    bottomed = play.w.in_zone(f"hand:{player}")
    play.rng.shuffle(bottomed)
    count = play.rng.randint(0, min(2, len(bottomed)))
    for obj in bottomed[:count]:
        if play.w.handle_of.get(obj) is None or not play.w.live(obj):
            _, ended = library.put(obj, -1, play.rng, known=False)
            play.w.ending(ended)
            play.w.blind({"type": "move", "from": f"hand:{player}", "to": f"library:{player}", "position": "bottom"})
            play.w.remove(obj)
            continue
        handle = play.w.handle_of[obj]
        assert handle is not None
        _, ended = library.put(obj, -1, play.rng, known=True)
        play.w.ending(ended)
        play.w.show({"type": "move", "object": handle, "from": f"hand:{player}", "to": f"library:{player}",
                     "position": play.pos(-1)}, obj, keeps="ID-8")
        play.w.last_handle[obj] = handle
        play.w.remove(obj)
    if player != play.me and count >= 2:
        # The owner chose their order in secret (CR 401.4): the source says so (ID-8).
        play.w.ending(library.reorder("bottom", count, list(range(1, count + 1)), known=False))
        play.w.blind({"type": "reorder", "zone": f"library:{player}", "end": "bottom", "count": count})
    return True
