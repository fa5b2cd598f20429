"""Events of the hands and the public zones: casts face up and face down, foretell, meld,
resolutions, deaths, exile, bounces, flicker, mentions, cards first seen leaving the battlefield,
hand reveals, changes in place (control, transform, face up, becoming a copy), tokens, copies
and vanishing objects."""

from __future__ import annotations

from typing import Any

from . import cards
from .play import Play
from .world import Obj


def cast(play: Play) -> bool:
    """A card is cast from a hand, face up or (a morph) face down, or from exile (a
    foretold card, a copy of a card made in exile, CR 707.12)."""
    objs = [o for o in sorted(play.w.zone_of) if play.w.objects[o].kind != "token" and (
        play.w.zone_of[o].startswith("hand:") or (play.w.zone_of[o] == "exile" and o in play.w.handle_of
        and play.w.handle_of[o] is not None and not play.w.objects[o].melded))]
    if not objs:
        return False
    obj = play.rng.choice(objs)
    o = play.w.objects[obj]
    source = play.w.zone_of[obj]
    observation: dict[str, Any] = {"type": "move", "object": play.w.shown(obj), "from": source, "to": "stack"}
    play.introduce(observation, obj)
    play.relinked(observation, obj)
    if o.face_down:
        o.face_down = False  # a foretold card is cast face up
        observation["card"] = play.describe(obj)
    elif source.startswith("hand:") and o.kind == "card" and play.rng.random() < 0.12:
        o.face_down = True
        observation["face_down"] = True
        if source == f"hand:{play.me}" and play.rng.random() < 0.5:
            observation["card"] = play.describe(obj)
    elif o.card is not None and play.rng.random() < 0.9:
        observation["card"] = play.describe(obj)
    hidden = source.startswith("hand:") and not play.follows_hand(source.removeprefix("hand:"))
    keeps = "ID-3" if source == "exile" else "ID-5" if source == f"hand:{play.me}" else "HID-1"
    play.w.show(observation, obj, keeps=keeps, new="HID-2" if hidden else "ID-7")
    play.w.zone_of[obj] = "stack"
    return True


def foretell(play: Play) -> bool:
    """A hand card is exiled face down (foretell): the perspective player follows it there
    without knowing what it is, unless it is their own (HID-3)."""
    hands = [o for o in sorted(play.w.zone_of) if play.w.zone_of[o].startswith("hand:")
             and play.w.objects[o].kind == "card"]
    if not hands:
        return False
    obj = play.rng.choice(hands)
    o = play.w.objects[obj]
    source = play.w.zone_of[obj]
    observation: dict[str, Any] = {"type": "move", "object": play.w.shown(obj), "from": source, "to": "exile",
                                   "face_down": True}
    play.introduce(observation, obj)
    play.relinked(observation, obj)
    if source == f"hand:{play.me}" and play.rng.random() < 0.5:
        observation["card"] = play.describe(obj)
    o.face_down = True
    hidden = not play.follows_hand(source.removeprefix("hand:"))
    play.w.show(observation, obj, keeps="ID-5" if source == f"hand:{play.me}" else "HID-1",
                new="HID-2" if hidden else "ID-7")
    play.w.zone_of[obj] = "exile"
    return True


def meld(play: Play) -> bool:
    """Bruna and Gisela, named on the battlefield, meld into Brisela (CR 712.4): a `meld` of
    each card into the permanent's handle, which no observation may use as an object until
    the game ends (REQ-4)."""
    owner = play.anyone()
    pair = []
    for card in cards.MELD[:2]:
        obj = play.w.new_object(Obj(owner=owner, kind="card", card=card))
        play.w.place(obj, "battlefield", None)
        observation: dict[str, Any] = {"type": "mention", "object": play.w.shown(obj), "zone": "battlefield"}
        play.introduce(observation, obj)
        if play.rng.random() < 0.7:
            observation["card"] = play.describe(obj)
        play.w.show(observation, obj, keeps="ID-10", new="ID-10")
        pair.append(obj)
    permanent = play.w.new_handle()
    play.w.reserved.add(permanent)
    for obj in pair:
        observation = {"type": "meld", "object": play.w.handle_of[obj], "permanent": permanent}
        if play.rng.random() < 0.6:
            play.w.cards_used[cards.MELD[2]["name"]] = cards.MELD[2]
            observation["melded"] = cards.describe(play.rng, cards.MELD[2], arena=play.w.relink)
        play.w.objects[obj].melded = True
        play.w.show(observation, obj, keeps="ID-4")
    if play.rng.random() < 0.4:
        # The melded permanent dies: one move per card (REQ-4); its handle stays taken.
        for obj in pair:
            play.move_public(obj, f"graveyard:{owner}")
    return True


def resolve(play: Play) -> bool:
    spells = play.public("stack")
    if not spells:
        return False
    obj = play.rng.choice(spells)
    owner = play.w.objects[obj].owner
    to = play.rng.choice(["battlefield"] * 3 + [f"graveyard:{owner}"] * 2 + ["exile", f"hand:{owner}"])
    play.move_public(obj, to, keeps="ID-5" if to == f"hand:{play.me}" else "HID-1" if to.startswith("hand:") else "ID-3")
    return True


def leave(play: Play) -> bool:
    """A permanent dies, is exiled or returns to its owner's hand; or a card in a graveyard
    or exile is exiled, returned to the battlefield or to its owner's hand."""
    objs = play.public("battlefield", "exile", "command", *(f"graveyard:{p}" for p in play.w.players))
    if not objs:
        return False
    obj = play.rng.choice(objs)
    owner = play.w.objects[obj].owner
    source = play.w.zone_of[obj]
    to = play.rng.choice([z for z in ("battlefield", f"graveyard:{owner}", "exile", f"hand:{owner}", "command")
                          if z != source])
    keeps = "ID-5" if to == f"hand:{play.me}" else "HID-1" if to.startswith("hand:") else "ID-3"
    play.move_public(obj, to, keeps=keeps)
    return True


def flicker(play: Play) -> bool:
    objs = play.public("battlefield")
    if not objs:
        return False
    obj = play.rng.choice(objs)
    play.move_public(obj, "exile")
    if obj in play.w.zone_of:
        play.move_public(obj, "battlefield")
    return True


def mention(play: Play) -> bool:
    """An object named in place (an attacker, a target; ID-10): a public one, one in a hand,
    a token created with no handle, or a card whose arrival the log never printed."""
    roll = play.rng.random()
    if roll < 0.1:
        obj = play.card_object(play.anyone())
        play.w.place(obj, "battlefield", None)
    else:
        objs = [o for o in sorted(play.w.zone_of) if not play.w.zone_of[o].startswith("library")]
        if not objs:
            return False
        obj = play.rng.choice(objs)
    zone = play.w.zone_of[obj]
    observation: dict[str, Any] = {"type": "mention", "object": play.w.shown(obj), "zone": zone}
    play.introduce(observation, obj)
    if play.rng.random() < 0.3 and not play.w.objects[obj].face_down:
        observation["card"] = play.describe(obj)
    play.in_place(observation, obj, zone)
    return True


def unprinted(play: Play) -> bool:
    """A card whose arrival the log never printed is first seen leaving the battlefield
    under another player's control (a stolen creature dies): its owner is the graveyard's
    player (OWN-1), never the controller the move shows."""
    owner = play.anyone()
    obj = play.card_object(owner)
    o = play.w.objects[obj]
    o.controller = play.rng.choice(play.w.players)
    play.w.place(obj, "battlefield", None)
    observation: dict[str, Any] = {"type": "move", "object": play.w.shown(obj), "from": "battlefield",
                                   "to": f"graveyard:{owner}", "card": play.describe(obj)}
    if o.controller != owner or play.rng.random() < 0.5:
        observation["controller"] = o.controller
    play.relinked(observation, obj)
    play.w.show(observation, obj, keeps="ID-3", new="OWN-1")
    play.w.zone_of[obj] = f"graveyard:{owner}"
    o.controller = owner
    return True


def reveal_hand(play: Play) -> bool:
    """A hand is revealed: an opponent's (Duress), or the perspective player's own."""
    player = play.anyone()
    hand = play.w.in_zone(f"hand:{player}")
    if not hand:
        return False
    for obj in hand:
        observation = {"type": "reveal", "object": play.w.shown(obj), "zone": f"hand:{player}",
                       "card": play.describe(obj)}
        play.introduce(observation, obj)
        play.in_place(observation, obj, f"hand:{player}")
    return True


def change(play: Play) -> bool:
    """A change that is not a zone change (ID-4): control, transform, turning face up,
    becoming a copy."""
    objs = [o for o in play.public("battlefield", "stack") if not play.w.objects[o].melded]
    if not objs:
        return False
    obj = play.rng.choice(objs)
    o = play.w.objects[obj]
    handle = play.w.handle_of[obj]
    if o.face_down:
        o.face_down = False
        play.w.show({"type": "turn_face_up", "object": handle, "card": play.describe(obj)}, obj, keeps="ID-4")
    elif play.w.zone_of[obj] == "battlefield" and o.card is not None and o.card["name"] in cards.TRANSFORMING:
        o.back_up = not o.back_up
        observation: dict[str, Any] = {"type": "transform", "object": handle}
        if play.rng.random() < 0.7:
            observation["card"] = play.describe(obj)
        play.w.show(observation, obj, keeps="ID-4")
    elif play.w.zone_of[obj] == "battlefield" and play.rng.random() < 0.3:
        model = play.rng.choice(cards.POOL)
        play.w.cards_used[model["name"]] = model
        o.looks_like = model
        play.w.show({"type": "become_copy", "object": handle,
                     "copy_of": cards.describe(play.rng, model, arena=play.w.relink)}, obj, keeps="ID-4")
    else:
        controller = play.rng.choice(play.w.players)
        o.controller = controller
        play.w.show({"type": "control_change", "object": handle, "controller": controller}, obj, keeps="ID-4")
    return True


def token(play: Play) -> bool:
    """A token is created on the battlefield: named, a copy of a permanent or of a card in a
    graveyard (TOK-7), or with no handle shown (TOK-6)."""
    owner = play.anyone()
    originals = play.public("battlefield", *(f"graveyard:{p}" for p in play.w.players))
    original = play.rng.choice(originals) if originals and play.rng.random() < 0.3 else None
    name = play.rng.choice(cards.TOKENS)
    if name in cards.TOKEN_CARDS:
        play.w.cards_used[name] = cards.TOKEN_CARDS[name]
    obj = play.w.new_object(Obj(owner=owner, kind="token", token_name=name))
    if original is not None:
        play.w.objects[obj].card = play.w.objects[original].card
    observation: dict[str, Any] = {"type": "create_token", "owner": owner}
    if original is not None:
        observation["original"] = play.w.handle_of[original]
        if play.rng.random() < 0.4:
            observation["card"] = play.describe(obj)
    else:
        observation["card"] = play.describe(obj)
    if original is None and play.rng.random() < 0.25:
        play.w.place(obj, "battlefield", None)
        play.w.blind(observation)
        return True
    handle = play.w.new_handle()
    observation["object"] = handle
    play.w.place(obj, "battlefield", handle)
    play.w.show(observation, obj, keeps="TOK-1", new="TOK-1")
    return True


def copy(play: Play) -> bool:
    """A spell on the stack is copied (TOK-5)."""
    spells = play.public("stack")
    if not spells:
        return False
    original = play.rng.choice(spells)
    owner = play.anyone()
    obj = play.w.new_object(Obj(owner=owner, kind="copy", card=play.w.objects[original].card))
    handle = play.w.new_handle()
    observation: dict[str, Any] = {"type": "create_copy", "object": handle, "owner": owner,
                                   "original": play.w.handle_of[original]}
    zone = play.rng.choice(["stack"] * 8 + ["exile", f"hand:{owner}"])
    if zone != "stack":
        observation["zone"] = zone  # a copy of a card, made in exile or a hand (CR 707.12)
    if play.w.objects[obj].card is not None and play.rng.random() < 0.3:
        observation["card"] = play.describe(obj)
    elif play.rng.random() < 0.15:
        shown = play.rng.choice(cards.POOL)  # a description of another card (NAME-5)
        play.w.cards_used[shown["name"]] = shown
        observation["card"] = cards.describe(play.rng, shown, arena=play.w.relink)
    play.w.place(obj, zone, handle)
    if zone.startswith("hand:") and not play.follows_hand(owner):
        play.w.glimpse(observation, obj, "HID-1")
        play.w.ended["E7"] += 1
        return True
    play.w.show(observation, obj, keeps="TOK-1", new="TOK-1")
    return True


def vanish(play: Play) -> bool:
    """The source stops showing an object, with no destination (ID-11)."""
    objs = [o for o in play.public("battlefield", "stack", "exile", *(f"graveyard:{p}" for p in play.w.players))
            if not play.w.objects[o].melded]
    if not objs:
        return False
    obj = play.rng.choice(objs)
    observation = {"type": "vanish", "object": play.w.handle_of[obj], "zone": play.w.zone_of[obj]}
    play.w.show(observation, obj, keeps="ID-11")
    play.w.end([obj], "E16")
    handle = play.w.remove(obj)
    if handle is not None:
        play.w.freed.append(handle)
    return True
