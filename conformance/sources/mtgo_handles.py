"""The handles a writer holds while it reads an MTGO game log: the model the importer and the
renderer share, so that the renderer knows what its text will read back as (observations.md,
"MTGO game logs"), and the zones a request names (a player's library, hand or graveyard).

`Handles` keeps them the way card-identity.md ends them; it follows a source with hidden
tracking, which is all an MTGO log is.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, replace
from typing import Any


def zone_player(zone: str) -> str | None:
    """The player of a library, hand or graveyard; None for a shared zone."""
    kind, _, player = zone.partition(":")
    return player if kind in ("library", "hand", "graveyard") and player else None


def is_library(zone: str) -> bool:
    """Whether the zone is a library, where positions decide and no handle is held."""
    return zone.startswith("library:")


def introduced_owner(observation: Mapping[str, Any]) -> str | None:
    """The owner OWN-1 gives an object the observation introduces: its `owner`; else, for a
    move, the player of the hand, library or graveyard it goes to, else of the one it leaves;
    for a reveal, mention or vanish, the player of its zone."""
    if observation.get("owner"):
        return str(observation["owner"])
    if observation["type"] == "move":
        return zone_player(observation["to"]) or zone_player(observation["from"])
    return zone_player(observation.get("zone", ""))


@dataclass(frozen=True, slots=True, kw_only=True)
class Held:
    """An object a writer holds under a handle: its zone, owner and kind, and the description
    last shown for it (None: nothing has named it yet)."""

    zone: str
    owner: str | None
    kind: str
    card: Mapping[str, Any] | None


class Handles:
    """The handles a writer holds, outside libraries, after each observation: the REQ rules'
    "held" (card-identity.md). A handle is let go where its ID ends: a new game, a mulligan of
    its hand, a move into a library (positions decide there), a token or copy leaving the
    battlefield (E8), a copy leaving the stack and the battlefield (E9), a vanish (E16). This
    follows a source with hidden tracking, which is all an MTGO log is."""

    def __init__(self) -> None:
        self._held: dict[str, Held] = {}

    def get(self, handle: str) -> Held | None:
        """The object held under the handle, None when none is."""
        return self._held.get(handle)

    def introduces(self, observation: Mapping[str, Any]) -> bool:
        """Whether the observation shows an object no handle held so far names: its `owner` and
        `kind` are read (OWN-1, TOK-6)."""
        if observation["type"] not in ("move", "reveal", "mention", "vanish"):
            return False
        return "object" in observation and observation["object"] not in self._held

    def observe(self, observation: Mapping[str, Any]) -> None:
        """Advance past one observation."""
        kind = observation["type"]
        handle = observation.get("object")
        if kind in ("game_start", "restart"):
            carried = set(observation.get("carried", ()))
            self._held = {h: held for h, held in self._held.items() if h in carried}
        elif kind == "mulligan":
            hand = f"hand:{observation['player']}"
            self._held = {h: held for h, held in self._held.items() if held.zone != hand}
        elif kind == "move" and handle is not None:
            self._moved(observation, handle)
        elif kind in ("reveal", "mention") and handle is not None:
            zone = observation["zone"]
            held = self._held.get(handle) or Held(
                zone=zone, owner=introduced_owner(observation),
                kind=observation.get("kind", "card"), card=None,
            )
            if not is_library(zone):
                self._held[handle] = replace(held, card=observation.get("card", held.card))
        elif kind == "vanish" and handle is not None:
            self._held.pop(handle, None)
        elif kind in ("create_token", "create_copy") and handle is not None:
            default = "battlefield" if kind == "create_token" else "stack"
            zone = observation.get("zone", default)
            if not is_library(zone):
                self._held[handle] = Held(
                    zone=zone, owner=observation.get("owner"),
                    kind="token" if kind == "create_token" else "copy",
                    card=observation.get("card"),
                )
        elif handle is not None and handle in self._held and "card" in observation:
            self._held[handle] = replace(self._held[handle], card=observation["card"])

    def _moved(self, observation: Mapping[str, Any], handle: str) -> None:
        held = self._held.pop(handle, None)
        if held is None:
            held = Held(
                zone=observation["from"], owner=introduced_owner(observation),
                kind=observation.get("kind", "card"), card=None,
            )
        source, destination = observation["from"], observation["to"]
        if is_library(destination):
            return
        if held.kind != "card" and source == "battlefield" and destination != "battlefield":
            return
        if held.kind == "copy" and destination not in ("stack", "battlefield"):
            return
        arrival = observation.get("new_object", handle)
        self._held[arrival] = replace(
            held, zone=destination, card=observation.get("card", held.card)
        )
