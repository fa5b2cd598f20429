"""Mutants of copies, tokens and owners (TOK-2 to TOK-5, NAME-5, OWN-1, VIS-1): a copy's name
and owner, and where a token or a copy ceases to exist."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from cardid_reference.cards import (
    Description,
)
from cardid_reference.instances import Entry
from cardid_reference.request import Observation, is_library, zone_kind, zone_player
from cardid_reference.writer import Writer

from . import mutant


@mutant("copy-names-unnamed-card")
class CopyNamesUnnamedCard(Writer):
    """Binds the copied card's name to a card that becomes a copy while its own name is unknown (NAME-5)."""

    def on_become_copy(self, obs: Observation) -> str:
        iid = super().on_become_copy(obs)
        if self.entries[iid].name is None:
            self.describe(iid, obs.description("copy_of"), obs.index)
        return iid


@mutant("copy-card-blocks-original-name")
class CopyCardBlocksOriginalName(Writer):
    """Takes the original's name only when a create_copy has no card at all, not when its card names nothing (TOK-5)."""

    creating_with_card = False

    def inherited_name(self, original: Entry) -> str | None:
        return None if self.creating_with_card else super().inherited_name(original)

    def on_create_copy(self, obs: Observation) -> str:
        self.creating_with_card = obs.description("card") is not None
        return super().on_create_copy(obs)


@mutant("copy-name-follows-original-later")
class CopyNameFollowsOriginalLater(Writer):
    """Names an unnamed copy when its original's name is shown later, as a link resolved at output would (TOK-5, VIS-1)."""

    def __init__(self, request: dict[str, Any]) -> None:
        super().__init__(request)
        self.copies_of: dict[str, list[str]] = {}

    def on_create_copy(self, obs: Observation) -> str:
        iid = super().on_create_copy(obs)
        original = self.by_handle.get(obs.data.get("original", ""))
        if original is not None and self.entries[iid].name is None:
            self.copies_of.setdefault(original, []).append(iid)
        return iid

    def describe(self, iid: str, description: Description | None, index: int) -> None:
        super().describe(iid, description, index)
        name = self.entries[iid].name
        for copy in self.copies_of.pop(iid, []) if name is not None else []:
            entry = self.entries[copy]
            revealed_at = entry.first_seen if entry.revealed_at is None else entry.revealed_at
            self.entries[copy] = replace(entry, name=name, revealed_at=revealed_at)


@mutant("copy-unknown-position-is-card")
class CopyUnknownPositionIsCard(Writer):
    """Ends every ID in a library a copy is put into at an unknown position, as a card would (TOK-4)."""

    def arrive(self, iid: str, obs: Observation, dst: str) -> None:
        if is_library(dst) and self.entries[iid].kind == "copy" and obs.position("position") is None:
            self.end_library(dst)
        super().arrive(iid, obs, dst)


@mutant("owner-from-controller")
class OwnerFromController(Writer):
    """Takes the controller shown as owner when no owner and no destination player is shown (OWN-1)."""

    def owner_of_new(self, obs: Observation, seen_in: str, goes_to: str | None) -> str:
        if obs.get("owner") or (goes_to is not None and zone_player(goes_to)):
            return super().owner_of_new(obs, seen_in, goes_to)
        return obs.get("controller") or super().owner_of_new(obs, seen_in, goes_to)


@mutant("token-exiled-kept")
class TokenExiledKept(Writer):
    """Keeps a token's ID when it is exiled, as if a flicker could bring it back (TOK-2)."""

    def ceases_to_exist(self, entry: Entry, src: str, dst: str) -> bool:
        return not (entry.kind == "token" and dst == "exile") and super().ceases_to_exist(entry, src, dst)


@mutant("token-bounced-to-hand-kept")
class TokenBouncedToHandKept(Writer):
    """Keeps a token's ID when it is returned to a hand (TOK-2)."""

    def ceases_to_exist(self, entry: Entry, src: str, dst: str) -> bool:
        bounced = entry.kind == "token" and zone_kind(dst) == "hand"
        return not bounced and super().ceases_to_exist(entry, src, dst)


@mutant("copy-survives-exile")
class CopySurvivesExile(Writer):
    """Counts exile among the zones a copy can exist in, so a spell copy exiled from the stack lives on (TOK-3)."""

    def ceases_to_exist(self, entry: Entry, src: str, dst: str) -> bool:
        kept = entry.kind == "copy" and src != "battlefield" and dst == "exile"
        return not kept and super().ceases_to_exist(entry, src, dst)


@mutant("copy-survives-hand")
class CopySurvivesHand(Writer):
    """Ends a spell copy only in a graveyard or a library, so one returned to hand lives on (TOK-3)."""

    def ceases_to_exist(self, entry: Entry, src: str, dst: str) -> bool:
        kept = entry.kind == "copy" and src != "battlefield" and zone_kind(dst) == "hand"
        return not kept and super().ceases_to_exist(entry, src, dst)


@mutant("copy-owner-from-original")
class CopyOwnerFromOriginal(Writer):
    """Gives a copy the owner of the original it names, not the player who created it (OWN-1)."""

    def on_create_copy(self, obs: Observation) -> str:
        iid = super().on_create_copy(obs)
        original = self.by_handle.get(obs.data.get("original", ""))
        if original is not None:
            self.entries[iid] = replace(self.entries[iid], owner=self.entries[original].owner)
        return iid


@mutant("copy-named-only-from-a-spell")
class CopyNamedOnlyFromASpell(Writer):
    """Names a copy after its original only when the original is a spell on the stack (TOK-5)."""

    def inherited_name(self, original: Entry) -> str | None:
        return original.name if self.zone_of.get(original.id) == "stack" else None
