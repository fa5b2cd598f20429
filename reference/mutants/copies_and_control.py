"""Mutants of spec 1.1.0's copy and control readings (TOK-3, TOK-5, OWN-1, ID-4, ID-8, ID-10):
where a copy ends and what it is named, a change of control, a mention, the hand cards a
mulligan lists."""

from __future__ import annotations

from dataclasses import replace

from cardid_reference.instances import Entry
from cardid_reference.request import Observation, is_library
from cardid_reference.writer import Writer

from . import mutant


@mutant("copy-in-exile-to-graveyard-kept")
class CopyInExileToGraveyardKept(Writer):
    """Ends a copy only as it leaves the stack: one made in exile survives into a graveyard (TOK-3, E9)."""

    def ceases_to_exist(self, entry: Entry, src: str, dst: str) -> bool:
        if entry.kind == "copy" and src != "battlefield":
            return src == "stack" and dst != "battlefield"
        return super().ceases_to_exist(entry, src, dst)


@mutant("copy-cast-from-exile-ends")
class CopyCastFromExileEnds(Writer):
    """Ends a copy on any move but stack -> battlefield: one cast from exile ends (TOK-3)."""

    def ceases_to_exist(self, entry: Entry, src: str, dst: str) -> bool:
        if entry.kind == "copy" and not (src == "stack" and dst == "battlefield"):
            return True
        return super().ceases_to_exist(entry, src, dst)


@mutant("copy-name-ignores-original")
class CopyNameIgnoresOriginal(Writer):
    """Leaves a copy without a name when only its `original` shows it (TOK-5)."""

    def inherited_name(self, original: Entry) -> str | None:
        return None


@mutant("control-change-sets-owner")
class ControlChangeSetsOwner(Writer):
    """Makes the new controller the owner at a change of control (OWN-1)."""

    def on_control_change(self, obs: Observation) -> str:
        iid = super().on_control_change(obs)
        self.entries[iid] = replace(self.entries[iid], owner=obs.need("controller"))
        return iid


@mutant("control-change-ends-id")
class ControlChangeEndsId(Writer):
    """Starts a new instance when a permanent changes control (ID-4)."""

    def on_control_change(self, obs: Observation) -> str:
        old = self.entries[super().on_control_change(obs)]
        self.end(old.id)
        iid = self.allocate(owner=old.owner, kind=old.kind, index=obs.index)
        self.place(iid, "battlefield", obs.handle())
        return iid


@mutant("mention-always-fresh")
class MentionAlwaysFresh(Writer):
    """Gives a card mentioned in place (an attacker, a target) a fresh ID every time (ID-10)."""

    def on_mention(self, obs: Observation) -> str:
        zone = obs.zone("zone")
        held = None if is_library(zone) else self.held(obs, obs.handle(), zone)
        if held is None:
            return super().on_mention(obs)
        old = self.entries[held]
        self.end(held)
        iid = self.allocate(owner=old.owner, kind=old.kind, index=obs.index)
        self.place(iid, zone, obs.handle())
        self.describe(iid, obs.description("card"), obs.index)
        return iid


@mutant("mulligan-objects-kept")
class MulliganObjectsKept(Writer):
    """Keeps the IDs of the hand cards a mulligan lists as going back (ID-8, E2)."""

    def on_mulligan(self, obs: Observation) -> None:
        player = obs.need("player")
        hand = f"hand:{player}"
        kept = {self.held(obs, handle, hand) for handle in obs.handles("objects")}
        self.end_library(f"library:{player}")
        self.library(f"library:{player}").size = None
        self.end_ids(iid for iid in self.in_zone.get(hand, ()) if iid not in kept)
