"""Mutants of the hidden-zone and inconsistent-request rules read too narrowly or too broadly
(HID-1, HID-2, REQ-1 to REQ-5, ID-4, NAME-5, PRINT-4): a third player's hand, a handle outside
its zone, an unseen handle changed in place, the known size at its edges, melded handles."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from cardid_reference.errors import RequestError
from cardid_reference.library import Position
from cardid_reference.request import Observation, zone_player
from cardid_reference.writer import Writer

from . import mutant


@mutant("one-opponent-hidden")
class OneOpponentHidden(Writer):
    """Treats only the first other player's hand as hidden, trusting a third player's handles (HID-1, HID-2)."""

    def __init__(self, request: dict[str, Any]) -> None:
        super().__init__(request)
        self.first_other = next(p for p in request["players"] if p != self.perspective)

    def loses_track_in(self, zone: str) -> bool:
        return super().loses_track_in(zone) and zone_player(zone) == self.first_other


@mutant("mention-follows-handle-anywhere")
class MentionFollowsHandleAnywhere(Writer):
    """Moves a card mentioned or revealed outside the zone it is held in there, as if a move were left out (REQ-1)."""

    def shown_in_place(self, obs: Observation, zone: str) -> str:
        handle = obs.handle()
        iid = self.by_handle.get(handle)
        if iid is not None and self.zone_of[iid] != zone:
            self.place(iid, zone, handle)
            return iid
        return super().shown_in_place(obs, zone)


def _introduce_unseen(writer: Writer, obs: Observation) -> None:
    """Put a card never seen on the battlefield under the observation's handle, as a mention
    would: what an in-place change of an unseen handle must not do (REQ-3)."""
    if obs.handle() not in writer.by_handle:
        iid = writer.allocate(owner=writer.perspective, kind="card", index=obs.index)
        writer.place(iid, "battlefield", obs.handle())


@mutant("control-change-introduces")
class ControlChangeIntroduces(Writer):
    """Introduces a card never seen on the battlefield at a control change, as a mention would (REQ-3)."""

    def on_control_change(self, obs: Observation) -> str:
        _introduce_unseen(self, obs)
        return super().on_control_change(obs)


@mutant("transform-introduces")
class TransformIntroduces(Writer):
    """Introduces a card never seen on the battlefield at a transform, as a mention would (REQ-3)."""

    def on_transform(self, obs: Observation) -> str:
        _introduce_unseen(self, obs)
        return super().on_transform(obs)


@mutant("library-size-resyncs")
class LibrarySizeResyncs(Writer):
    """Takes a library_size that differs from the known size as the new size, instead of rejecting it (REQ-5)."""

    def on_library_size(self, obs: Observation) -> None:
        library = self.library(obs.library_zone())
        if library.size is not None and library.size != obs.integer("size", 0):
            library.size = None
        super().on_library_size(obs)


@mutant("empty-library-unknown-take")
class EmptyLibraryUnknownTake(Writer):
    """Checks a take against the known size only at a known position, so one from an empty library is answered (REQ-5)."""

    def check_fits(self, obs: Observation, zone: str, position: Position, *, putting: bool) -> None:
        if position is not None:
            super().check_fits(obs, zone, position, putting=putting)


@mutant("puts-unchecked")
class PutsUnchecked(Writer):
    """Checks takes against the known library size but never puts, so a put below the bottom is answered (REQ-5)."""

    def check_fits(self, obs: Observation, zone: str, position: Position, *, putting: bool) -> None:
        if not putting:
            super().check_fits(obs, zone, position, putting=putting)


@mutant("reorder-count-unchecked")
class ReorderCountUnchecked(Writer):
    """Answers a reorder of more cards than the library's known size (REQ-5)."""

    def on_reorder(self, obs: Observation) -> None:
        library = self.library(obs.library_zone())
        known, library.size = library.size, None
        try:
            super().on_reorder(obs)
        finally:
            library.size = known


@mutant("control-change-of-permanents-only")
class ControlChangeOfPermanentsOnly(Writer):
    """Rejects a control change of a spell on the stack, as if only permanents changed control (REQ-3, ID-4)."""

    def on_control_change(self, obs: Observation) -> str:
        iid = super().on_control_change(obs)
        if self.zone_of[iid] != "battlefield":
            raise RequestError(f"{obs.label()}: not a permanent")
        return iid


@mutant("copy-handle-unchecked")
class CopyHandleUnchecked(Writer):
    """Checks that a token's handle is free but not a copy's, taking the handle from what held it (REQ-2)."""

    def on_create_copy(self, obs: Observation) -> str:
        other = self.by_handle.get(obs.handle())
        if other is not None:
            self.unhandle(other)
        return super().on_create_copy(obs)


@mutant("melded-handle-checked-as-object-only")
class MeldedHandleCheckedAsObjectOnly(Writer):
    """Rejects a melded permanent's handle as an observation's `object` only, not in `carried` and the rest (REQ-4)."""

    def check_not_melded(self, obs: Observation) -> None:
        handle = obs.data.get("object")
        if isinstance(handle, str) and handle in self.melded:
            raise RequestError(f"{obs.label()}: the melded permanent's handle is no object (REQ-4)")


@mutant("melded-handle-freed-when-cards-leave")
class MeldedHandleFreedWhenCardsLeave(Writer):
    """Frees a melded permanent's handle once its cards have left the battlefield, not at the next game (REQ-4)."""

    def __init__(self, request: dict[str, Any]) -> None:
        super().__init__(request)
        self.meld_cards: dict[str, set[str]] = {}

    def on_meld(self, obs: Observation) -> str:
        iid = super().on_meld(obs)
        self.meld_cards.setdefault(obs.data["permanent"], set()).add(iid)
        return iid

    def on_move(self, obs: Observation) -> str:
        iid = super().on_move(obs)
        for permanent, cards in list(self.meld_cards.items()):
            if all(self.zone_of.get(card) != "battlefield" for card in cards):
                self.melded.discard(permanent)
                del self.meld_cards[permanent]
        return iid


@mutant("face-down-forgets-name")
class FaceDownForgetsName(Writer):
    """Clears a card's bound name, printing and source IDs when it moves face down, keeping its ID (NAME-5, PRINT-4)."""

    def on_move(self, obs: Observation) -> str:
        iid = super().on_move(obs)
        if obs.get("face_down") is True and obs.get("card") is None:
            self.entries[iid] = replace(self.entries[iid], name=None, printing=None, source_ids=())
        return iid


@mutant("put-from-bottom-limited-to-size")
class PutFromBottomLimitedToSize(Writer):
    """Rejects a put at -(S+1), the new top counted from the bottom, as a take there would be (REQ-5)."""

    def check_fits(self, obs: Observation, zone: str, position: Position, *, putting: bool) -> None:
        size = self.library(zone).size
        if putting and position is not None and position < 0 and size is not None and -position > size:
            self.size_conflict(obs, "beyond")
        super().check_fits(obs, zone, position, putting=putting)
