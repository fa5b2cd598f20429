"""Mutants of spec 1.2.0's new vocabulary (moves and token creations with no handle, `kind`,
token copies, `vanish`) and of the 1.1.0 readings 1.2.0 decides: each reads the new text the way
a hurried implementer, or one who took the other reading, plausibly would."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace

from cardid_reference.cards import Description, Identity
from cardid_reference.instances import Entry, Kind
from cardid_reference.library import Position
from cardid_reference.request import Observation, is_library
from cardid_reference.writer import Writer

from . import mutant


@mutant("unseen-moves-dropped")
class UnseenMovesDropped(Writer):
    """Drops a move with no object, as an importer that skips lines without a card would (LIB-8)."""

    def on_unseen_move(self, obs: Observation) -> None:
        obs.zone("from")
        obs.zone("to")


@mutant("unseen-move-follows-card")
class UnseenMoveFollowsCard(Writer):
    """Follows the card of a library-to-library move with no object to its new position, as if a handle showed it (LIB-8)."""

    def on_unseen_move(self, obs: Observation) -> None:
        src, dst = obs.zone("from"), obs.zone("to")
        if not (is_library(src) and src == dst):
            super().on_unseen_move(obs)
            return
        iid = self.leave_library(obs, src)
        if iid is None:
            self.arrive_unseen(obs, dst)
            return
        position = obs.position("position")
        library = self.library(dst)
        if position is None:
            self.end(iid)
            self.end_library(dst)
            library.put(iid, None)
            return
        library.put(iid, position)


@mutant("unseen-move-uncounted")
class UnseenMoveUncounted(Writer):
    """Leaves a library's known size unchanged at a move with no object, counting only cards it can name (LIB-8, LIB-5)."""

    def on_unseen_move(self, obs: Observation) -> None:
        zones = {obs.zone("from"), obs.zone("to")}
        sizes = {zone: self.library(zone).size for zone in zones if is_library(zone)}
        super().on_unseen_move(obs)
        for zone, size in sizes.items():
            self.library(zone).size = size


@mutant("unseen-unknown-put-local")
class UnseenUnknownPutLocal(Writer):
    """Ends nothing when a card with no object shown is put into a library at an unknown position (LIB-8)."""

    def put_card(self, dst: str, position: Position, iid: str | None) -> None:
        if iid is None and position is None:
            self.library(dst).put(None, None)  # counted, and nothing ends
            return
        super().put_card(dst, position, iid)


@mutant("vanish-ignored")
class VanishIgnored(Writer):
    """Reads a vanish as a mention: the object keeps its ID and its handle (ID-11)."""

    def on_vanish(self, obs: Observation) -> str:
        return self.shown_in_place(obs, obs.zone("zone"))


@mutant("kind-ignored")
class KindIgnored(Writer):
    """Marks every object a move, reveal or mention introduces as a card, whatever its `kind`, so a token or copy is recorded as a card (TOK-6, TOK-1)."""

    def introduced_kind(self, obs: Observation, seen_in: str) -> Kind:
        super().introduced_kind(obs, seen_in)
        return "card"


@mutant("token-original-ignored")
class TokenOriginalIgnored(Writer):
    """Ignores a created token's `original`, so a token copy with no description of its own has no name (TOK-7, NAME-1)."""

    def on_create_token(self, obs: Observation) -> str:
        return self.create(obs, kind="token", zone=obs.zone("zone", "battlefield"))


@mutant("token-copy-marked-copy")
class TokenCopyMarkedCopy(Writer):
    """Marks a token created as a copy of an object `copy`, as Arena's isCopy flag might suggest (TOK-7)."""

    def on_create_token(self, obs: Observation) -> str:
        if "original" in obs.data:
            return self.copy_or_token(obs, kind="copy", default_zone="battlefield")
        return super().on_create_token(obs)


@mutant("copy-of-face-down-named")
class CopyOfFaceDownNamed(Writer):
    """Names a copy of a face-down object after the card the perspective player knows it to be, a name no copy shows (TOK-5, VIS-1)."""

    def _face_down_ignored(self, create: Callable[[Observation], str], obs: Observation) -> str:
        face_down, self.face_down = self.face_down, set()
        try:
            return create(obs)
        finally:
            self.face_down = face_down

    def on_create_token(self, obs: Observation) -> str:
        return self._face_down_ignored(super().on_create_token, obs)

    def on_create_copy(self, obs: Observation) -> str:
        return self._face_down_ignored(super().on_create_copy, obs)


@mutant("face-down-kept-after-turned-up")
class FaceDownKeptAfterTurnedUp(Writer):
    """Never clears a card's face-down state once set, so a copy made of it after it is turned face up has no name (TOK-7, NAME-1)."""

    def on_turn_face_up(self, obs: Observation) -> str:
        iid = self.tracked(obs)
        self.describe(iid, obs.description("card"), obs.index)
        return iid


@mutant("printing-only-sets-revealed-at")
class PrintingOnlySetsRevealedAt(Writer):
    """Sets a token's or copy's revealed_at at a description that shows only a printing matching no card (VIS-2)."""

    def bind(self, entry: Entry, identity: Identity, index: int) -> Entry:
        bound = super().bind(entry, identity, index)
        if bound.revealed_at is None and identity.printing is not None and entry.kind != "card":
            return replace(bound, revealed_at=index)
        return bound


@mutant("hidden-hand-ends-cards-only")
class HiddenHandEndsCardsOnly(Writer):
    """Applies E6 and E7 to cards only: a token or copy in a hand the perspective player cannot see keeps its ID (HID-1)."""

    def ends_at_creation(self, zone: str) -> bool:
        return is_library(zone)  # what it creates is a token or a copy, never a card

    def ends_after_move(self, entry: Entry, src: str, dst: str) -> bool:
        if entry.kind != "card":
            return self.ceases_to_exist(entry, src, dst)
        return super().ends_after_move(entry, src, dst)


@mutant("meld-permanent-handle-unchecked")
class MeldPermanentHandleUnchecked(Writer):
    """Accepts a meld whose melded permanent is given a handle held for a live card (REQ-2)."""

    def on_meld(self, obs: Observation) -> str:
        permanent = obs.handle("permanent")
        obs.description("melded")
        iid = self.tracked(obs)
        self.melded.add(permanent)
        return iid


@mutant("library-arrival-handle-unchecked")
class LibraryArrivalHandleUnchecked(Writer):
    """Never checks a move's `new_object` when the move goes into a library, where handles are not used (REQ-2)."""

    def check_handle_free(self, obs: Observation, handle: str, iid: str | None) -> None:
        if obs.type == "move" and is_library(str(obs.get("to"))):
            return
        super().check_handle_free(obs, handle, iid)


@mutant("copy-to-stack-from-battlefield-kept")
class CopyToStackFromBattlefieldKept(Writer):
    """Keeps a copy's ID when it moves from the battlefield to the stack, reading TOK-3's "into the stack" before E8 (TOK-3)."""

    def ceases_to_exist(self, entry: Entry, src: str, dst: str) -> bool:
        if entry.kind == "copy" and src == "battlefield" and dst == "stack":
            return False
        return super().ceases_to_exist(entry, src, dst)


@mutant("unlisted-description-binds-nothing")
class UnlistedDescriptionBindsNothing(Writer):
    """Binds nothing from a description that resolves to no card once the card is named, losing a printing shown for it (NAME-5, PRINT-1)."""

    def describe(self, iid: str, description: Description | None, index: int) -> None:
        if description is not None and self.entries[iid].name is not None:
            card, _ = self.database.identify(description)
            if card is None and description.name is None:
                return
        super().describe(iid, description, index)
