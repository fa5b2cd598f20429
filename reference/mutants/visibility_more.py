"""More mutants (spec 1.2.0): see the package docstring; registered on import of the package."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from cardid_reference.instances import Entry, Kind
from cardid_reference.request import SHARED_ZONES, Observation, zone_kind, zone_player
from cardid_reference.writer import Writer

from . import mutant


def _public(zone: str) -> bool:
    """The graveyards and the shared zones (CR 400.2)."""
    return zone in SHARED_ZONES or zone_kind(zone) == "graveyard"


# --------------------------------------------------------------------------- instance IDs


@mutant("recycle-ended-ids")
class RecycleEndedIds(Writer):
    """Gives a new instance the ID of the last instance whose ID ended, as an object pool would (ID-2)."""

    def __init__(self, request: dict[str, Any]) -> None:
        super().__init__(request)
        self.free: list[str] = []

    def end(self, iid: str) -> None:
        if iid in self.zone_of:
            self.free.append(iid)
        super().end(iid)

    def allocate(self, *, owner: str, kind: Kind, index: int) -> str:
        if not self.free:
            return super().allocate(owner=owner, kind=kind, index=index)
        iid = self.free.pop()
        self.entries[iid] = Entry(id=iid, owner=owner, kind=kind, first_seen=index)
        return iid


@mutant("restart-keeps-every-id")
class RestartKeepsEveryId(Writer):
    """Keeps every live ID through a restart, as if the game went on, not only the carried cards' (ID-9)."""

    def on_restart(self, obs: Observation) -> None:
        obs.need("carried")
        obs.handles("carried")


@mutant("mulligan-ends-listed-only")
class MulliganEndsListedOnly(Writer):
    """Ends only the hand cards a mulligan lists as going back, keeping the rest of the hand and the library (ID-8)."""

    def on_mulligan(self, obs: Observation) -> None:
        hand = f"hand:{obs.need('player')}"
        listed = [self.held(obs, handle, hand) for handle in obs.handles("objects")]
        self.end_ids(iid for iid in listed if iid is not None)


@mutant("own-hand-reveal-ends")
class OwnHandRevealEnds(Writer):
    """Ends the ID of a card revealed in the perspective player's own hand, as in another player's (ID-5)."""

    def on_reveal(self, obs: Observation) -> str:
        iid = super().on_reveal(obs)
        if obs.type == "reveal" and obs.get("zone") == f"hand:{self.perspective}":
            self.end(iid)
        return iid


class _Assignments(Writer):
    """A writer whose list of assignments is rewritten after the run: the base of the mutants
    that misalign assignments and observations (ID-1)."""

    def assignments(self, assignments: list[str | None]) -> list[str | None]:
        return assignments

    def run(self) -> dict[str, Any]:
        result = super().run()
        result["assignments"] = self.assignments(result["assignments"])
        return result


@mutant("listed-handle-assigned")
class ListedHandleAssigned(_Assignments):
    """Assigns a mulligan or a restart the ID of the first card it lists, as if it were its object (ID-1)."""

    def __init__(self, request: dict[str, Any]) -> None:
        super().__init__(request)
        self.listed: dict[int, str] = {}

    def _first_listed(self, obs: Observation, key: str) -> None:
        for handle in obs.handles(key):
            iid = self.by_handle.get(handle)
            if iid is not None:
                self.listed[obs.index] = iid
                return

    def on_mulligan(self, obs: Observation) -> None:
        self._first_listed(obs, "objects")
        super().on_mulligan(obs)

    def on_restart(self, obs: Observation) -> None:
        self._first_listed(obs, "carried")
        super().on_restart(obs)

    def assignments(self, assignments: list[str | None]) -> list[str | None]:
        return [self.listed.get(index, iid) for index, iid in enumerate(assignments)]


@mutant("linked-move-assigned-twice")
class LinkedMoveAssignedTwice(_Assignments):
    """Writes an assignment per handle a move names, so a move linking an old handle to a new one gets two (ID-1)."""

    def assignments(self, assignments: list[str | None]) -> list[str | None]:
        out: list[str | None] = []
        for obs, iid in zip(self.observations, assignments, strict=True):
            out.append(iid)
            if obs.type == "move" and "new_object" in obs.data:
                out.append(iid)
        return out


# ------------------------------------------------------------------ hidden zones and visibility


@mutant("mention-in-hidden-hand-ends")
class MentionInHiddenHandEnds(Writer):
    """Ends the ID of a card mentioned in another player's hand even with hidden tracking (HID-1)."""

    def on_mention(self, obs: Observation) -> str:
        iid = super().on_mention(obs)
        zone = obs.zone("zone")
        if zone_kind(zone) == "hand" and zone_player(zone) != self.perspective:
            self.end(iid)
        return iid


@mutant("untracked-handle-revives-id")
class UntrackedHandleRevivesId(Writer):
    """Without hidden tracking, gives a card seen again under the handle it had when it went out of view the old ID back (HID-2)."""

    def __init__(self, request: dict[str, Any]) -> None:
        super().__init__(request)
        self.out_of_view: dict[str, str] = {}

    def end(self, iid: str) -> None:
        handle, zone = self.handle_of.get(iid), self.zone_of.get(iid)
        if handle is not None and zone is not None and self.loses_track_in(zone):
            self.out_of_view[handle] = iid
        super().end(iid)

    def new_card(self, obs: Observation, *, seen_in: str, goes_to: str | None) -> str:
        old = self.out_of_view.pop(obs.get("object"), None)
        if old is not None and old not in self.zone_of:
            return old
        return super().new_card(obs, seen_in=seen_in, goes_to=goes_to)


@mutant("face-down-move-renews")
class FaceDownMoveRenews(Writer):
    """Gives a card a new ID when it moves face down from one public zone to another, as if a face-down card could not be followed (HID-3)."""

    def moving_instance(self, obs: Observation, src: str, dst: str) -> str:
        iid = super().moving_instance(obs, src, dst)
        old = self.entries[iid]
        if obs.get("face_down") is not True or old.first_seen == obs.index:
            return iid
        if not (_public(src) and _public(dst)):
            return iid
        self.end(iid)
        return self.allocate(owner=old.owner, kind=old.kind, index=obs.index)


@mutant("names-by-handle-in-hindsight")
class NamesByHandleInHindsight(Writer):
    """Names an instance never shown from a later description under a handle it had, as a parser naming cards by handle at the end would (VIS-1, VIS-3)."""

    def __init__(self, request: dict[str, Any]) -> None:
        super().__init__(request)
        self.handles_had: dict[str, list[str]] = {}

    def place(self, iid: str, zone: str, handle: str) -> None:
        self.handles_had.setdefault(iid, []).append(handle)
        super().place(iid, zone, handle)

    def run(self) -> dict[str, Any]:
        result = super().run()
        named: dict[str, str] = {}
        for obs in self.observations:
            description = obs.description("card")
            name = None if description is None else self.database.resolve(description).name
            for key in ("object", "new_object"):
                handle = obs.get(key)
                if name is not None and isinstance(handle, str):
                    named.setdefault(handle, name)
        for entry in result["card_table"]:
            if entry["name"] is None:
                names = [named[h] for h in self.handles_had.get(entry["id"], ()) if h in named]
                entry["name"] = names[0] if names else None
        return result


# ------------------------------------------------------------------ inconsistent requests


@mutant("mention-introduces-over-held-handle")
class MentionIntroducesOverHeldHandle(Writer):
    """Introduces a fresh card for a mention or reveal naming a handle held in another zone, instead of rejecting (REQ-1)."""

    def shown_in_place(self, obs: Observation, zone: str) -> str:
        handle = obs.handle()
        held = self.by_handle.get(handle)
        if held is None or self.zone_of[held] == zone:
            return super().shown_in_place(obs, zone)
        iid = self.new_card(obs, seen_in=zone, goes_to=None)
        self.place(iid, zone, handle)
        return iid


@mutant("control-change-of-any-held-card")
class ControlChangeOfAnyHeldCard(Writer):
    """Applies a control change to a card held anywhere, a hand or a graveyard too, instead of rejecting (REQ-3)."""

    def on_control_change(self, obs: Observation) -> str:
        obs.need("controller")
        return self.tracked(obs)


@mutant("library-size-ends-library-ids")
class LibrarySizeEndsLibraryIds(Writer):
    """Ends every ID of a library when the source shows its size, as if a size resync renumbered it (ID-6, LIB-5)."""

    def on_library_size(self, obs: Observation) -> None:
        super().on_library_size(obs)
        self.end_library(obs.library_zone())


@mutant("re-emergence-keeps-facts")
class ReEmergenceKeepsFacts(Writer):
    """Gives a fresh instance under a handle an ended instance had that instance's name and printing, as a parser keyed by handle would (ID-7, VIS-1)."""

    def __init__(self, request: dict[str, Any]) -> None:
        super().__init__(request)
        self.ended_under: dict[str, Entry] = {}

    def end(self, iid: str) -> None:
        handle = self.handle_of.get(iid)
        if handle is not None:
            self.ended_under[handle] = self.entries[iid]
        super().end(iid)

    def new_card(self, obs: Observation, *, seen_in: str, goes_to: str | None) -> str:
        iid = super().new_card(obs, seen_in=seen_in, goes_to=goes_to)
        old = self.ended_under.get(str(obs.get("object")))
        if old is not None and old.name is not None:
            self.entries[iid] = replace(
                self.entries[iid], name=old.name, printing=old.printing, revealed_at=obs.index
            )
        return iid
