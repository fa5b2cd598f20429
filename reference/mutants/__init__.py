"""Deliberately wrong implementations: each breaks one rule, to show the cases catch it.

The mutation surface of the writer: a writer mutant subclasses `Writer` and overrides only
- the handler of an observation type, a method `Writer.handlers` or `unseen_handlers` names;
- a part, `LIBRARY`, `OBSERVATION` or `DATABASE`, set to its own subclass of `Library`,
  `Observation` or `CardDatabase`, which may override any method of that class;
- one of the rules in WRITER_SURFACE, each a step the reference takes anyway, named for what it
  decides (the reference has no method that exists only to be overridden);
- `__init__`, to keep state of its own, or `run`, to rewrite the result.
It may call any method. tests/test_mutation_surface.py holds every writer mutant to this, and
every name of WRITER_SURFACE to some mutant: any other method of the reference may change
without a mutant noticing. (A reader mutant overrides any method or pattern of CardTableReader.)
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Callable, Iterable, Iterator
from dataclasses import replace
from typing import Any, Self

from cardid_reference.cards import (
    CardDatabase,
    CardFacts,
    Description,
    Identity,
    Printing,
    normalize_name,
)
from cardid_reference.errors import RequestError
from cardid_reference.instances import Entry, Kind
from cardid_reference.library import End, Library, Position
from cardid_reference.reader import CardTableReader, Cursor
from cardid_reference.request import Observation, is_library, zone_kind, zone_player
from cardid_reference.writer import Writer

#: The rules of Writer (and of Instances, its record of the game) a mutant may override.
WRITER_SURFACE = frozenset(
    {
        # which instance an observation refers to
        "moving_instance", "shown_in_place", "leave_library", "library_card_shown",
        "held", "tracked", "original_instance",
        # a new instance: its ID, owner, kind and name
        "new_card", "allocate", "owner_of_new", "introduced_kind", "create", "inherited_name",
        # where an instance goes, and when its ID ends
        "arrive", "put_card", "place",
        "end", "ends_after_move", "ends_at_creation", "ceases_to_exist", "loses_track_in",
        # what its card-table entry says
        "describe", "bind",
        # what a request may not do (REQ-2, REQ-4, REQ-5)
        "check_handle_free", "check_not_melded", "check_fits", "size_conflict",
    }
)

#: Mutant name -> the writer or reader class that breaks one behaviour.
MUTANTS: dict[str, type[Writer | CardTableReader]] = {}


def mutant(name: str) -> Callable[[type], type]:
    """Register a mutant class under the name `python -m cardid_reference.mutants NAME` takes."""

    def register(cls: type) -> type:
        if name in MUTANTS:
            raise ValueError(f"mutant {name!r} is registered twice")
        if not (cls.__doc__ or "").strip():
            raise ValueError(f"mutant {name!r} needs a one-line docstring")
        MUTANTS[name] = cls
        return cls

    return register


def broken_role(name: str) -> str:
    """The role a mutant breaks: "writer" or "reader" (the other is the reference's)."""
    return "writer" if issubclass(MUTANTS[name], Writer) else "reader"


def entry_points(
    name: str,
) -> tuple[Callable[[dict[str, Any]], dict[str, Any]], Callable[[str], dict[str, Any]]]:
    """A mutant's write and read functions: the broken role, and the reference for the other."""
    cls = MUTANTS[name]
    writer_cls = cls if issubclass(cls, Writer) else Writer
    reader_cls = cls if issubclass(cls, CardTableReader) else CardTableReader
    return (lambda request: writer_cls(request).run()), (lambda text: reader_cls().read(text))


# --------------------------------------------------------------------------- instance IDs


@mutant("renew-every-move")
class RenewEveryMove(Writer):
    """Gives a card a new ID on every zone change, as decision 0002 chose not to (ID-3, ID-5)."""

    def moving_instance(self, obs: Observation, src: str, dst: str) -> str:
        iid = super().moving_instance(obs, src, dst)
        old = self.entries[iid]
        if old.first_seen == obs.index:
            return iid
        self.end(iid)
        return self.allocate(owner=old.owner, kind=old.kind, index=obs.index)


@mutant("renew-face-up")
class RenewFaceUp(Writer):
    """Starts a new instance when a card turns face up or transforms (ID-4, VIS-2)."""

    def _renewed(self, obs: Observation) -> str:
        old = self.entries[self.tracked(obs)]
        zone = self.zone_of[old.id]
        self.end(old.id)
        iid = self.allocate(owner=old.owner, kind=old.kind, index=obs.index)
        self.place(iid, zone, obs.need("object"))
        self.describe(iid, obs.description("card"), obs.index)
        return iid

    def on_turn_face_up(self, obs: Observation) -> str:
        return self._renewed(obs)

    def on_transform(self, obs: Observation) -> str:
        return self._renewed(obs)


@mutant("game-start-keeps")
class GameStartKeeps(Writer):
    """Keeps live IDs across a new game of the match (ID-9, E10)."""

    def on_game_start(self, obs: Observation) -> None:
        return None


@mutant("restart-ends-all")
class RestartEndsAll(Writer):
    """Ends the carried cards' IDs at a restart too (ID-9, E11)."""

    def on_restart(self, obs: Observation) -> None:
        self.end_all(keep=())


@mutant("ids-per-game")
class IdsPerGame(Writer):
    """Numbers IDs afresh in each game, so an ended ID is assigned again in the next one (ID-2, ID-9)."""

    def on_game_start(self, obs: Observation) -> None:
        super().on_game_start(obs)
        self.next_number = 1


@mutant("keep-through-mulligan")
class KeepThroughMulligan(Writer):
    """Keeps hand and library IDs through a mulligan (ID-8, E2)."""

    def on_mulligan(self, obs: Observation) -> None:
        obs.need("player")


@mutant("own-hand-hidden")
class OwnHandHidden(Writer):
    """Ends IDs in the perspective player's own hand as if it were hidden (ID-5)."""

    def loses_track_in(self, zone: str) -> bool:
        return zone_kind(zone) == "hand"


# --------------------------------------------------------------------------- libraries


@mutant("keep-through-shuffle")
class KeepThroughShuffle(Writer):
    """Keeps library IDs and positions through a shuffle (LIB-2, E1)."""

    def on_shuffle(self, obs: Observation) -> None:
        obs.library_zone()


@mutant("keep-through-reorder")
class KeepThroughReorder(Writer):
    """Keeps the IDs at positions a reorder made unknown (LIB-3, E3)."""

    def on_reorder(self, obs: Observation) -> None:
        obs.library_zone()


@mutant("unknown-position-local")
class UnknownPositionLocal(Writer):
    """Ends only the moving card's ID at an unknown library position (LIB-3, LIB-4, E4, E5)."""

    def leave_library(self, obs: Observation, src: str) -> str | None:
        return self.library(src).take(obs.position("from_position"))

    def arrive(self, iid: str, obs: Observation, dst: str) -> None:
        if is_library(dst) and obs.position("position") is None:
            self.end(iid)
            return
        super().arrive(iid, obs, dst)


@mutant("library-renew")
class LibraryRenew(Writer):
    """Ends a card's ID whenever it enters a library, even at a known position (LIB-1)."""

    def arrive(self, iid: str, obs: Observation, dst: str) -> None:
        if is_library(dst):
            self.end(iid)
            return
        super().arrive(iid, obs, dst)


@mutant("library-reveal-renews")
class LibraryRevealRenews(Writer):
    """Gives a card revealed at a known library position a fresh ID every time (LIB-1, VIS-2)."""

    def library_card_shown(self, obs: Observation, zone: str) -> str:
        position = obs.position("position")
        if position is not None:
            held = self.library(zone).look(position)
            if held is not None:
                self.end(held)
        return super().library_card_shown(obs, zone)


@mutant("handles-in-library")
class HandlesInLibrary(Writer):
    """Follows cards in libraries by the source's handles instead of positions (LIB-1, LIB-2)."""

    def __init__(self, request: dict[str, Any]) -> None:
        super().__init__(request)
        self.library_handles: dict[str, str] = {}

    def arrive(self, iid: str, obs: Observation, dst: str) -> None:
        if is_library(dst):
            self.library_handles[obs.get("new_object") or obs.need("object")] = iid
        super().arrive(iid, obs, dst)

    def leave_library(self, obs: Observation, src: str) -> str | None:
        iid = self.library_handles.pop(obs.need("object"), None)
        if iid is None:
            return super().leave_library(obs, src)
        self.library(src).forget(iid)
        return iid


# ------------------------------------------------------------------ hidden zones and visibility


@mutant("ignore-tracking")
class IgnoreTracking(Writer):
    """Trusts handles in other players' hands without hidden tracking (HID-1, HID-2, E6, E7)."""

    def loses_track_in(self, zone: str) -> bool:
        return False


@mutant("never-track-hidden")
class NeverTrackHidden(Writer):
    """Ends IDs in other players' hands even with hidden tracking (HID-1)."""

    def loses_track_in(self, zone: str) -> bool:
        return zone_kind(zone) == "hand" and zone != f"hand:{self.perspective}"


@mutant("early-reveal")
class EarlyReveal(Writer):
    """Dates the identity to the instance's first observation, naming it retroactively (VIS-2)."""

    def bind(self, entry: Entry, identity: Identity, index: int) -> Entry:
        bound = super().bind(entry, identity, index)
        if entry.revealed_at is None and bound.revealed_at is not None:
            return replace(bound, revealed_at=entry.first_seen)
        return bound


# --------------------------------------------------------------------------- names


class _FaceName(CardDatabase):
    def resolve(self, description: Description) -> Identity:
        identity = super().resolve(description)
        if description.name is None:
            return identity
        return replace(identity, name=self.shown_name(description.name))


@mutant("face-name")
class FaceName(Writer):
    """Records the name as the source showed it, without the card database (NAME-1, NAME-2)."""

    DATABASE = _FaceName


class _FrontFaceName(CardDatabase):
    def oracle_name(self, card: CardFacts) -> str:
        return card.faces[0] if card.faces else super().oracle_name(card)


@mutant("front-face-name")
class FrontFaceName(Writer):
    """Names a multi-faced card by its front face only (NAME-2)."""

    DATABASE = _FrontFaceName


class _StripAlchemy(CardDatabase):
    def resolve(self, description: Description) -> Identity:
        identity = super().resolve(description)
        if identity.name is None:
            return identity
        return replace(identity, name=identity.name.removeprefix("A-"))


@mutant("strip-alchemy")
class StripAlchemy(Writer):
    """Drops the "A-" prefix of Alchemy rebalanced cards (NAME-4)."""

    DATABASE = _StripAlchemy


@mutant("last-name-wins")
class LastNameWins(Writer):
    """Lets a later description rename a card whose name is already bound (NAME-5)."""

    def bind(self, entry: Entry, identity: Identity, index: int) -> Entry:
        if identity.name is not None and entry.name is not None:
            entry = replace(entry, name=identity.name)
        return super().bind(entry, identity, index)


@mutant("copy-renames")
class CopyRenames(Writer):
    """Gives a card that becomes a copy the copied card's name (NAME-5)."""

    def on_become_copy(self, obs: Observation) -> str:
        iid = self.tracked(obs)
        copy_of = obs.description("copy_of")
        identity = None if copy_of is None else self.database.resolve(copy_of)
        entry = self.entries[iid]
        if identity is not None and identity.name is not None:
            revealed_at = obs.index if entry.revealed_at is None else entry.revealed_at
            self.entries[iid] = replace(entry, name=identity.name, revealed_at=revealed_at)
        return iid


@mutant("meld-joins")
class MeldJoins(Writer):
    """Gives the melded permanent its own ID and card-table entry (NAME-3, ID-4)."""

    def on_meld(self, obs: Observation) -> str:
        card = self.entries[self.tracked(obs)]
        iid = self.allocate(owner=card.owner, kind="card", index=obs.index)
        self.place(iid, self.zone_of[card.id], obs.need("permanent"))
        self.describe(iid, obs.description("melded"), obs.index)
        return iid


@mutant("meld-renames")
class MeldRenames(Writer):
    """Renames a card that melds to the melded permanent's name (NAME-3, NAME-5)."""

    def on_meld(self, obs: Observation) -> str:
        iid = super().on_meld(obs)
        melded = obs.description("melded")
        if melded is not None:
            identity = self.database.resolve(melded)
            if identity.name is not None:
                self.entries[iid] = replace(self.entries[iid], name=identity.name)
        return iid


class _CurlyApostrophe(CardDatabase):
    def shown_name(self, name: str) -> str:
        return unicodedata.normalize("NFC", name)


@mutant("curly-apostrophe")
class CurlyApostrophe(Writer):
    """Keeps U+2019 apostrophes as the source showed them (NAME-6)."""

    DATABASE = _CurlyApostrophe


class _NoNfc(CardDatabase):
    def shown_name(self, name: str) -> str:
        return name.replace("\u2019", "'")

    def oracle_name(self, card: CardFacts) -> str:
        return card.name


@mutant("no-nfc")
class NoNfc(Writer):
    """Records names without Unicode NFC normalization (NAME-6)."""

    DATABASE = _NoNfc


# ------------------------------------------------------------------ printings and source IDs


class _NoPrinting(CardDatabase):
    def recorded_printing(
        self, description: Description, card: CardFacts | None, mapped: Printing | None
    ) -> Printing | None:
        return None


@mutant("no-printing")
class NoPrinting(Writer):
    """Never records a printing (PRINT-1)."""

    DATABASE = _NoPrinting


class _GuessPrinting(CardDatabase):
    def recorded_printing(
        self, description: Description, card: CardFacts | None, mapped: Printing | None
    ) -> Printing | None:
        shown = super().recorded_printing(description, card, mapped)
        if shown is None and card is not None and card.printings:
            return card.printings[0].printing
        return shown


@mutant("guess-printing")
class GuessPrinting(Writer):
    """Records the card database's first printing when the source showed only a name (PRINT-3)."""

    DATABASE = _GuessPrinting


class _IntCollectorNumber(CardDatabase):
    def recorded_printing(
        self, description: Description, card: CardFacts | None, mapped: Printing | None
    ) -> Printing | None:
        printing = super().recorded_printing(description, card, mapped)
        if printing is None:
            return None
        return replace(printing, number=re.sub(r"(?<![0-9])0+(?=[0-9])", "", printing.number))


@mutant("int-collector-number")
class IntCollectorNumber(Writer):
    """Strips leading zeros as an integer parse would: "010" -> "10", "2024-01" -> "2024-1" (PRINT-2)."""

    DATABASE = _IntCollectorNumber


class _DbSourceIds(CardDatabase):
    def resolve(self, description: Description) -> Identity:
        identity = super().resolve(description)
        for card in self.cards:
            for known in card.printings:
                if description.source_id in known.source_ids:
                    return replace(identity, source_ids=known.source_ids)
        return identity


@mutant("db-source-ids")
class DbSourceIds(Writer):
    """Records every source ID the database lists for the printing, not the one shown (SRC-1)."""

    DATABASE = _DbSourceIds


@mutant("source-id-identity")
class SourceIdIdentity(Writer):
    """Merges objects that share a source ID into one instance (SRC-2)."""

    def new_card(self, obs: Observation, *, seen_in: str, goes_to: str | None) -> str:
        card = obs.description("card")
        if card is not None and card.source_id is not None:
            for entry in self.entries.values():
                if card.source_id in entry.source_ids:
                    return entry.id
        return super().new_card(obs, seen_in=seen_in, goes_to=goes_to)


# ------------------------------------------------------------------ tokens, copies and owners


@mutant("token-as-card")
class TokenAsCard(Writer):
    """Marks tokens and copies as cards (TOK-1)."""

    def create(self, obs: Observation, *, kind: Kind, zone: str, inherited: str | None = None) -> str:
        return super().create(obs, kind="card", zone=zone, inherited=inherited)


@mutant("token-survives")
class TokenSurvives(Writer):
    """Keeps a token's ID after it leaves the battlefield (TOK-2, E8)."""

    def ceases_to_exist(self, entry: Entry, src: str, dst: str) -> bool:
        return entry.kind != "token" and super().ceases_to_exist(entry, src, dst)


@mutant("copy-survives")
class CopySurvives(Writer):
    """Keeps a spell copy's ID after it leaves the stack (TOK-3, E9)."""

    def ceases_to_exist(self, entry: Entry, src: str, dst: str) -> bool:
        if entry.kind == "copy" and src == "stack":
            return False
        return super().ceases_to_exist(entry, src, dst)


@mutant("copy-ends-on-resolve")
class CopyEndsOnResolve(Writer):
    """Ends a permanent-spell copy's ID as it resolves onto the battlefield (TOK-3)."""

    def ceases_to_exist(self, entry: Entry, src: str, dst: str) -> bool:
        return (entry.kind == "copy" and src == "stack") or super().ceases_to_exist(entry, src, dst)


@mutant("owner-is-controller")
class OwnerIsController(Writer):
    """Takes the controller as the owner when the source gives one (OWN-1)."""

    def owner_of_new(self, obs: Observation, seen_in: str, goes_to: str | None) -> str:
        return obs.get("controller") or super().owner_of_new(obs, seen_in, goes_to)


# ------------------------------------------------------------------ spec 1.1.0: libraries


@mutant("token-into-library-takes-position")
class TokenIntoLibraryTakesPosition(Writer):
    """Inserts a token put into a library, then blanks it: the cards below shift (TOK-4)."""

    def arrive(self, iid: str, obs: Observation, dst: str) -> None:
        if is_library(dst) and self.entries[iid].kind != "card":
            position = obs.position("position")
            if position is not None:
                self.library(dst).put(iid, position)
                self.move_to(iid, dst)
                return
        super().arrive(iid, obs, dst)


@mutant("token-unknown-position-ends-library")
class TokenUnknownPositionEndsLibrary(Writer):
    """Ends every ID of a library a token is put into at an unknown position (TOK-4, E4)."""

    def arrive(self, iid: str, obs: Observation, dst: str) -> None:
        if (
            is_library(dst)
            and self.entries[iid].kind != "card"
            and obs.position("position") is None
        ):
            self.end_library(dst)
        super().arrive(iid, obs, dst)


@mutant("size-ignored")
class SizeIgnored(Writer):
    """Ignores `library_size`: a library's two ends never meet, no size is checked (LIB-5)."""

    def on_library_size(self, obs: Observation) -> None:
        obs.library_zone()
        obs.integer("size", 0)


class _SeparateEnds(Library):
    """A library whose top and bottom segments never meet, whatever its known size."""

    __slots__ = ()

    def _locate(self, position: int) -> tuple[list[str | None], int] | None:
        near = self.top if position > 0 else self.bottom
        return (near, abs(position) - 1) if abs(position) <= len(near) else None

    def put(self, iid: str | None, position: Position) -> None:
        size, self.size = self.size, None
        super().put(iid, position)
        self.size = None if size is None else size + 1

    def know_size(self, size: int) -> list[str]:
        self.size = size
        return []


@mutant("bottom-card-never-drawn-from-top")
class BottomCardNeverDrawnFromTop(Writer):
    """Never counts a position from the other end, so the last card is never the bottom one (LIB-5)."""

    LIBRARY = _SeparateEnds


class _ClampingLibrary(Library):
    """A library that, when its size becomes known, guesses where out-of-range cards went."""

    __slots__ = ()

    def know_size(self, size: int) -> list[str]:
        beyond = [iid for iid in self.top[size:] if iid is not None]
        lost = super().know_size(size)
        if beyond and size > 0 and self.look(size) is None:
            self.hold(beyond[-1], size)
            lost.remove(beyond[-1])
        return lost


@mutant("size-clamps-positions")
class SizeClampsPositions(Writer):
    """Moves a card tracked beyond a newly shown library size to its last position instead of rejecting the size (REQ-5)."""

    LIBRARY = _ClampingLibrary


@mutant("known-reorder-ends-ids")
class KnownReorderEndsIds(Writer):
    """Ends the reordered cards' IDs even when the source shows the new order (LIB-6)."""

    def on_reorder(self, obs: Observation) -> None:
        super().on_reorder(replace(obs, data={k: v for k, v in obs.data.items() if k != "order"}))
        if "order" in obs.data:
            obs.order(obs.integer("count", 1))  # still read, and rejected unless a permutation


class _BottomOnly(Observation):
    """An observation whose negative positions all read as -1."""

    __slots__ = ()

    def position(self, key: str) -> int | None:
        position = super().position(key)
        return -1 if position is not None and position < 0 else position


@mutant("negative-position-is-bottom")
class NegativePositionIsBottom(Writer):
    """Reads every position counted from the bottom (-2, -3, ...) as the bottom card (LIB-1)."""

    OBSERVATION = _BottomOnly


class _StrictIntegers(Observation):
    __slots__ = ()

    @classmethod
    def read(cls, index: int, data: Any) -> Self:
        for key in ("position", "from_position", "count", "size"):
            if isinstance(data, dict) and isinstance(data.get(key), float):
                raise RequestError(f"observation {index}: `{key}` is not an integer")
        return super().read(index, data)


@mutant("integral-float-rejected")
class IntegralFloatRejected(Writer):
    """Rejects a position or count written 1.0, as a strict integer type would (LIB-1)."""

    OBSERVATION = _StrictIntegers


# ------------------------------------------------------------------ spec 1.1.0: requests


@mutant("accept-handle-in-wrong-zone")
class AcceptHandleInWrongZone(Writer):
    """Follows a held handle whatever zone the observation names, never rejecting (REQ-1)."""

    def held(self, obs: Observation, handle: str, zone: str) -> str | None:
        return None if is_library(zone) else self.by_handle.get(handle)


@mutant("accept-live-handle-reuse")
class AcceptLiveHandleReuse(Writer):
    """Gives a live object's handle to another object, as the 1.0.0 reference did (REQ-2)."""

    def check_handle_free(self, obs: Observation, handle: str, iid: str | None) -> None:
        return None


@mutant("accept-untracked-in-place")
class AcceptUntrackedInPlace(Writer):
    """Invents a battlefield card for an in-place change naming a handle not held (REQ-3)."""

    def tracked(self, obs: Observation) -> str:
        handle = obs.handle()
        if handle not in self.by_handle:
            iid = self.allocate(owner=self.perspective, kind="card", index=obs.index)
            self.place(iid, "battlefield", handle)
        return super().tracked(obs)

    def original_instance(self, obs: Observation) -> str | None:
        if obs.get("original") not in self.by_handle:
            return None
        return super().original_instance(obs)


@mutant("accept-melded-handle")
class AcceptMeldedHandle(Writer):
    """Reads a melded permanent's handle as a card in view (REQ-4)."""

    def check_not_melded(self, obs: Observation) -> None:
        return None


@mutant("ignore-known-size-conflicts")
class IgnoreKnownSizeConflicts(Writer):
    """Answers requests whose positions or counts the known library size rules out (REQ-5)."""

    def size_conflict(self, obs: Observation, what: str) -> None:
        return None


# ------------------------------------------------------------ spec 1.1.0: names and printings


@mutant("revealed-at-needs-name")
class RevealedAtNeedsName(Writer):
    """Sets revealed_at only when a name is bound, not at a source ID or printing (VIS-2)."""

    def bind(self, entry: Entry, identity: Identity, index: int) -> Entry:
        bound = super().bind(entry, identity, index)
        if entry.name is not None:
            return bound
        revealed_at = None if bound.name is None else index
        return replace(bound, revealed_at=revealed_at)


class _NameMatchesAnyStep(CardDatabase):
    def __init__(self, cards: Iterable[CardFacts]) -> None:
        super().__init__(cards)
        any_name: dict[str, CardFacts] = {}
        for card in self.cards:
            for name in (card.name, *card.faces, *card.aliases):
                any_name.setdefault(normalize_name(name), card)
        self.by_name = (any_name,)


@mutant("name-matches-any-step")
class NameMatchesAnyStep(Writer):
    """Looks names, faces and aliases up in one table, the first card listed winning (NAME-7)."""

    DATABASE = _NameMatchesAnyStep


class _NameBeforePrinting(CardDatabase):
    def identify(self, description: Description) -> tuple[CardFacts | None, Printing | None]:
        if description.source_id is None and description.name is not None:
            by_name = replace(description, printing=None)
            card, mapped = super().identify(by_name)
            if card is not None:
                return card, mapped
        return super().identify(description)


@mutant("name-before-printing")
class NameBeforePrinting(Writer):
    """Resolves a description by its name before its printing (NAME-7's steps 2 and 3 swapped)."""

    DATABASE = _NameBeforePrinting


class _SourceIdPrintingOverShown(CardDatabase):
    def recorded_printing(
        self, description: Description, card: CardFacts | None, mapped: Printing | None
    ) -> Printing | None:
        return mapped if mapped is not None else description.printing


@mutant("source-id-printing-over-shown")
class SourceIdPrintingOverShown(Writer):
    """Records the printing a source ID maps to, not the one the description shows beside it (PRINT-2)."""

    DATABASE = _SourceIdPrintingOverShown


class _SetCodeLookupCaseSensitive(CardDatabase):
    def printing_key(self, printing: Printing) -> tuple[str, str]:
        return printing.set, printing.number


@mutant("set-code-lookup-case-sensitive")
class SetCodeLookupCaseSensitive(Writer):
    """Looks printings up in the card database section with the set code's case, at NAME-7's step 2 (PRINT-2, NAME-7)."""

    DATABASE = _SetCodeLookupCaseSensitive


@mutant("printing-overwritten-later")
class PrintingOverwrittenLater(Writer):
    """Lets a later description replace a bound printing (PRINT-4, which the suite reports under PRINT-2)."""

    def bind(self, entry: Entry, identity: Identity, index: int) -> Entry:
        bound = super().bind(entry, identity, index)
        if bound is entry or identity.printing is None or entry.kind != "card":
            return bound
        return replace(bound, printing=identity.printing)


@mutant("printing-never-bound-later")
class PrintingNeverBoundLater(Writer):
    """Binds a printing only at the first description of the card, never later: a printing PRINT-4 leaves to PRINT-1's SHOULD (PRINT-1)."""

    def bind(self, entry: Entry, identity: Identity, index: int) -> Entry:
        bound = super().bind(entry, identity, index)
        if entry.revealed_at is None:
            return bound
        return replace(bound, printing=entry.printing)


@mutant("copy-description-binds-source-ids")
class CopyDescriptionBindsSourceIds(Writer):
    """Adds the source ID of a description that names another card, not shown for this one (NAME-5, SRC-1)."""

    def bind(self, entry: Entry, identity: Identity, index: int) -> Entry:
        if identity.name is not None and entry.name is not None and identity.name != entry.name:
            new_ids = tuple(s for s in identity.source_ids if s not in entry.source_ids)
            return replace(entry, source_ids=entry.source_ids + new_ids)
        return super().bind(entry, identity, index)


# ------------------------------------------------------------ spec 1.1.0: copies and control


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


# ------------------------------------------------------------------ spec 1.1.0: rejections


class ExitWithoutRejection(SystemExit):
    """Exit status 1 with nothing on standard output: a rejection without its object.

    A SystemExit, so that the adapter lets it end the process (`python -m cardid_reference.mutants`);
    tests/test_mutants.py maps it to the crash the runner reports.
    """

    def __init__(self) -> None:
        super().__init__(1)


@mutant("rejection-exit-only")
class RejectionExitOnly(Writer):
    """Rejects an inconsistent request with exit status 1 but no rejection object (C-2)."""

    def __init__(self, request: dict[str, Any]) -> None:
        try:
            super().__init__(request)
        except RequestError:
            raise ExitWithoutRejection from None

    def run(self) -> dict[str, Any]:
        try:
            return super().run()
        except RequestError:
            raise ExitWithoutRejection from None


# ------------------------------------------------- hidden zones and inconsistent requests


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


# ------------------------------------------------- zones, mulligans and library sizes


@mutant("command-zone-hidden")
class CommandZoneHidden(Writer):
    """Treats the command zone as hidden, so a commander put there loses its ID (ID-3)."""

    def loses_track_in(self, zone: str) -> bool:
        return zone == "command" or super().loses_track_in(zone)


@mutant("mulligan-ends-every-hand")
class MulliganEndsEveryHand(Writer):
    """Ends the IDs in every player's hand at a mulligan, not only the mulliganing player's (ID-8)."""

    def on_mulligan(self, obs: Observation) -> None:
        super().on_mulligan(obs)
        for zone in list(self.in_zone):
            if zone_kind(zone) == "hand":
                self.end_ids(list(self.in_zone.get(zone, ())))


@mutant("mulligan-keeps-size")
class MulliganKeepsSize(Writer):
    """Keeps a library's known size through its player's mulligan (ID-8, LIB-5)."""

    def on_mulligan(self, obs: Observation) -> None:
        library = self.library(f"library:{obs.need('player')}")
        size = library.size
        super().on_mulligan(obs)
        library.size = size


@mutant("new-game-keeps-sizes")
class NewGameKeepsSizes(Writer):
    """Ends every ID at a new game or restart but keeps the libraries' known sizes (ID-9, LIB-5)."""

    def _sizes_kept(self, apply: Callable[[Observation], None], obs: Observation) -> None:
        sizes = {zone: library.size for zone, library in self.libraries.items()}
        apply(obs)
        for zone, size in sizes.items():
            self.library(zone).size = size

    def on_game_start(self, obs: Observation) -> None:
        self._sizes_kept(super().on_game_start, obs)

    def on_restart(self, obs: Observation) -> None:
        self._sizes_kept(super().on_restart, obs)


@mutant("shuffle-forgets-size")
class ShuffleForgetsSize(Writer):
    """Makes a library's known size unknown again at a shuffle (LIB-2, LIB-5)."""

    def on_shuffle(self, obs: Observation) -> None:
        super().on_shuffle(obs)
        self.library(obs.library_zone()).size = None


@mutant("unknown-take-keeps-size")
class UnknownTakeKeepsSize(Writer):
    """Does not count a card taken at an unknown library position out of the known size (LIB-4, LIB-5)."""

    def leave_library(self, obs: Observation, src: str) -> str | None:
        if obs.position("from_position") is not None:
            return super().leave_library(obs, src)
        self.check_fits(obs, src, None, putting=False)
        self.end_library(src)
        return None


class _UnknownPutUncountedLibrary(Library):
    __slots__ = ()

    def put(self, iid: str | None, position: Position) -> None:
        size = self.size
        super().put(iid, position)
        if position is None:
            self.size = size


@mutant("unknown-put-uncounted")
class UnknownPutUncounted(Writer):
    """Does not count a card put into a library at an unknown position in its known size (LIB-3, LIB-5)."""

    LIBRARY = _UnknownPutUncountedLibrary


class _NearEndLibrary(Library):
    __slots__ = ()

    def scramble(self, end: End, count: int) -> list[str]:
        size, self.size = self.size, None
        try:
            return super().scramble(end, count)
        finally:
            self.size = size


@mutant("reorder-near-end-only")
class ReorderNearEndOnly(Writer):
    """Ends only the IDs tracked from the reordered end, missing those the known size brings in reach from the other (LIB-3)."""

    LIBRARY = _NearEndLibrary


# ------------------------------------------------------------ names, printings, tokens, copies


class _LookupStepByFieldsShown(CardDatabase):
    def identify(self, description: Description) -> tuple[CardFacts | None, Printing | None]:
        if description.source_id is not None:
            return self.by_source_id.get(description.source_id, (None, None))
        if description.printing is not None:
            return self.by_printing.get(self.printing_key(description.printing)), None
        return super().identify(description)


@mutant("lookup-step-by-fields-shown")
class LookupStepByFieldsShown(Writer):
    """Picks the NAME-7 step by which fields a description has, so an unlisted source ID hides the rest (NAME-7)."""

    DATABASE = _LookupStepByFieldsShown


class _AlchemyPrefixIgnored(CardDatabase):
    def __init__(self, cards: Iterable[CardFacts]) -> None:
        super().__init__(cards)
        self.by_name = tuple(
            {name.removeprefix("A-"): card for name, card in reversed(step.items())} for step in self.by_name
        )

    def identify(self, description: Description) -> tuple[CardFacts | None, Printing | None]:
        if description.name is None:
            return super().identify(description)
        return super().identify(replace(description, name=description.name.removeprefix("A-")))


@mutant("alchemy-prefix-ignored")
class AlchemyPrefixIgnored(Writer):
    """Compares names without the "A-" prefix, so Winota and A-Winota match each other (NAME-4, NAME-7)."""

    DATABASE = _AlchemyPrefixIgnored


@mutant("token-printing-recorded")
class TokenPrintingRecorded(Writer):
    """Records the printing a token is shown with, as for a card (PRINT-3)."""

    def bind(self, entry: Entry, identity: Identity, index: int) -> Entry:
        bound = super().bind(entry, identity, index)
        if bound is entry or entry.kind != "token" or bound.printing is not None:
            return bound
        return replace(bound, printing=identity.printing)


@mutant("token-skips-card-database")
class TokenSkipsCardDatabase(Writer):
    """Names a token as its description shows it, never looking it up in the card section (NAME-1, NAME-7)."""

    def create(self, obs: Observation, *, kind: Kind, zone: str, inherited: str | None = None) -> str:
        if kind != "token":
            return super().create(obs, kind=kind, zone=zone, inherited=inherited)
        database, self.database = self.database, CardDatabase(())  # a section listing no card
        try:
            return super().create(obs, kind=kind, zone=zone, inherited=inherited)
        finally:
            self.database = database


class _UnmatchedNameKeepsCurlyApostrophe(CardDatabase):
    def resolve(self, description: Description) -> Identity:
        identity = super().resolve(description)
        if self.identify(description)[0] is None and description.name is not None:
            return replace(identity, name=unicodedata.normalize("NFC", description.name))
        return identity


@mutant("unmatched-name-keeps-curly-apostrophe")
class UnmatchedNameKeepsCurlyApostrophe(Writer):
    """Reads U+2019 as U+0027 only to look a name up, so a name matching no card keeps it (NAME-6)."""

    DATABASE = _UnmatchedNameKeepsCurlyApostrophe


class _NfkcNames(CardDatabase):
    def shown_name(self, name: str) -> str:
        return unicodedata.normalize("NFKC", name.replace("\u2019", "'"))


@mutant("nfkc-names")
class NfkcNames(Writer):
    """Normalizes shown names with NFKC rather than NFC, folding full-width signs (NAME-6)."""

    DATABASE = _NfkcNames


class _NamesInNfd(CardDatabase):
    def oracle_name(self, card: CardFacts) -> str:
        return unicodedata.normalize("NFD", super().oracle_name(card))


@mutant("names-in-nfd")
class NamesInNfd(Writer):
    """Records names decomposed (NFD), as a parser that decomposes names to look them up (NAME-6)."""

    DATABASE = _NamesInNfd


class _SourceIdValueOnly(CardDatabase):
    def __init__(self, cards: Iterable[CardFacts]) -> None:
        super().__init__(cards)
        self.by_value: dict[str, tuple[CardFacts, Printing | None]] = {}
        for source_id, found in self.by_source_id.items():
            self.by_value.setdefault(source_id.split(":", 1)[-1], found)

    def identify(self, description: Description) -> tuple[CardFacts | None, Printing | None]:
        if description.source_id is not None:
            found = self.by_value.get(description.source_id.split(":", 1)[-1])
            if found is not None:
                return found
        return super().identify(description)


@mutant("source-id-value-only")
class SourceIdValueOnly(Writer):
    """Looks source IDs up by their value alone, so mtgo:70321 finds the card listed with arena:70321 (NAME-7, SRC-1)."""

    DATABASE = _SourceIdValueOnly


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


# --------------------------------------------------------------------------- the reader


@mutant("reader-lenient")
class ReaderLenient(CardTableReader):
    """Accepts unquoted names and repeated instance IDs (TXT-2)."""

    def claim_id(self, iid: str, seen: set[str], lineno: int) -> None:
        return None

    def name(self, cur: Cursor) -> str | None:
        if cur.peek() in ('"', "?"):
            return super().name(cur)
        start = cur.pos
        while not cur.at_end and cur.peek() != " ":
            cur.take()
        return cur.text[start : cur.pos] or None


@mutant("reader-strip")
class ReaderStrip(CardTableReader):
    """Strips whitespace around lines instead of rejecting it (TXT-2)."""

    @staticmethod
    def lines(text: str) -> Iterator[tuple[int, str]]:
        for lineno, line in CardTableReader.lines(text):
            yield lineno, line.strip()


@mutant("reader-needs-printing")
class ReaderNeedsPrinting(CardTableReader):
    """Rejects an entry without a printing, as a reader written for one client's output (TXT-1)."""

    def entry(self, cur: Cursor) -> dict[str, Any]:
        entry = super().entry(cur)
        if entry["printing"] is None:
            cur.fail("expected a printing")
        return entry


@mutant("reader-short-set-codes")
class ReaderShortSetCodes(CardTableReader):
    """Accepts set codes of 3 or 4 characters only, as classic paper sets have (TXT-1)."""

    def printing(self, cur: Cursor) -> dict[str, str]:
        printing = super().printing(cur)
        if len(printing["set"]) > 4:
            cur.fail(f"set code {printing['set']!r} is longer than 4 characters")
        return printing


@mutant("reader-splitlines")
class ReaderSplitlines(CardTableReader):
    """Splits the text with universal newlines, so a lone CR or U+2028 ends a line (TXT-2)."""

    @staticmethod
    def lines(text: str) -> Iterator[tuple[int, str]]:
        yield from enumerate(text.splitlines(), start=1)


@mutant("reader-zero-strip")
class ReaderZeroStrip(CardTableReader):
    """Strips leading zeros from digit runs of collector numbers: "2024-01" -> "2024-1" (TXT-1)."""

    def collector_number(self, raw: str) -> str:
        return re.sub(r"(?<![0-9])0+(?=[0-9])", "", raw)


@mutant("reader-alnum-number")
class ReaderAlnumNumber(CardTableReader):
    """Rejects collector numbers with anything but ASCII letters, digits and dashes (TXT-1)."""

    def collector_number(self, raw: str) -> str:
        if not re.fullmatch(r"[A-Za-z0-9-]+", raw):
            raise RequestError(f"collector number {raw!r} is not alphanumeric")
        return raw


@mutant("reader-drop-unknown-src")
class ReaderDropUnknownSrc(CardTableReader):
    """Drops source IDs whose prefix is not registered (TXT-3)."""

    def keeps_source_id(self, source_id: str) -> bool:
        return source_id.split(":", 1)[0] in ("mtgo", "arena")


@mutant("reader-no-unescape")
class ReaderNoUnescape(CardTableReader):
    """Returns quoted names with their escapes left in (TXT-1)."""

    def quoted(self, cur: Cursor) -> str:
        return super().quoted(cur).replace("\\", "\\\\").replace('"', '\\"')


@mutant("reader-lf-only")
class ReaderLfOnly(CardTableReader):
    """Ends lines at LF only, so the CR of a CR LF line end stays in the line (TXT-1)."""

    @staticmethod
    def lines(text: str) -> Iterator[tuple[int, str]]:
        return enumerate(text.split("\n"), start=1)


@mutant("reader-strips-bom")
class ReaderStripsBom(CardTableReader):
    """Drops a U+FEFF at the start of the text, as decoding a file with utf-8-sig does (TXT-2)."""

    def read(self, text: str) -> dict[str, Any]:
        return super().read(text.removeprefix("\ufeff"))


@mutant("reader-ids-ignore-case")
class ReaderIdsIgnoreCase(CardTableReader):
    """Compares instance IDs without case, so it rejects #C1 after #c1 as a repeated ID (TXT-1)."""

    def claim_id(self, iid: str, seen: set[str], lineno: int) -> None:
        super().claim_id(iid.casefold(), seen, lineno)


@mutant("reader-ascii-names")
class ReaderAsciiNames(CardTableReader):
    """Allows only printable ASCII in quoted names, rejecting "Lim-Dûl's Vault" (TXT-1)."""

    def quoted(self, cur: Cursor) -> str:
        start = cur.pos
        text = super().quoted(cur)
        if not text.isascii():
            cur.pos = start
            cur.fail("a quoted string holds a character beyond ASCII")
        return text


@mutant("reader-owner-optional")
class ReaderOwnerOptional(CardTableReader):
    """Reads a line without an owner field as an entry with an empty owner (TXT-2)."""

    def entry(self, cur: Cursor) -> dict[str, Any]:
        if " owner=" in cur.text:
            return super().entry(cur)
        entry = super().entry(Cursor(cur.text + " owner=nobody", cur.lineno))
        return {**entry, "owner": ""}


class _LooseSpaceCursor(Cursor):
    """A cursor that takes a run of spaces wherever the grammar wants exactly one."""

    def __init__(self, text: str, lineno: int, pos: int = 0) -> None:
        super().__init__(text, lineno)
        self.pos = pos

    def expect(self, literal: str, what: str) -> None:
        super().expect(literal, what)
        if literal == " ":
            while self.peek() == " ":
                self.pos += 1


@mutant("reader-loose-spaces")
class ReaderLooseSpaces(CardTableReader):
    """Accepts several spaces between fields, as a split on whitespace would (TXT-2)."""

    def entry(self, cur: Cursor) -> dict[str, Any]:
        return super().entry(_LooseSpaceCursor(cur.text, cur.lineno))


@mutant("reader-any-escape")
class ReaderAnyEscape(CardTableReader):
    """Reads any backslash escape as the character after the backslash (TXT-2)."""

    def qchar(self, char: str) -> bool:
        return True

    def escape(self, cur: Cursor) -> str:
        return cur.take()


@mutant("reader-no-kind")
class ReaderNoKind(CardTableReader):
    """Parses the token and copy markers but reads every entry as a card (TXT-1)."""

    def entry(self, cur: Cursor) -> dict[str, Any]:
        return {**super().entry(cur), "kind": "card"}


@mutant("reader-question-literal")
class ReaderQuestionLiteral(CardTableReader):
    """Reads the unknown-name marker ? as the literal name "?" (TXT-1)."""

    def name(self, cur: Cursor) -> str | None:
        if cur.peek() == "?":
            cur.take()
            return "?"
        return super().name(cur)


def _patterned(name: str, doc: str, **patterns: str) -> None:
    """Register a reader that differs from the reference in a field's pattern only."""
    compiled = {field: re.compile(pattern) for field, pattern in patterns.items()}
    mutant(name)(type(name, (CardTableReader,), {"__doc__": doc, **compiled}))


_patterned(
    "reader-card-kind-written",
    "Accepts `card` written as the kind, since an absent kind means card (TXT-2).",
    KIND=r"token|copy|card",
)
_patterned(
    "reader-unicode-players",
    "Matches an unquoted player with Python's Unicode \\w, so owner=Jürgen needs no quotes (TXT-2).",
    PLAYER=r"[\w.-]+",
)
_patterned(
    "reader-unicode-ids",
    "Matches instance IDs with Python's Unicode \\w, so #ç1 is an ID (TXT-2).",
    INSTANCE_ID=r"[\w.-]+",
)
_patterned(
    "reader-empty-ids",
    "Allows an empty instance ID, a * for the + of the grammar (TXT-2).",
    INSTANCE_ID=r"[A-Za-z0-9._-]*",
)
_patterned(
    "reader-source-id-to-space",
    "Takes a source ID's value as everything up to the next space, so mtgo:1,2 is one (TXT-2).",
    SOURCE_ID=r"[a-z][a-z0-9-]*:[^ ]+",
)
_patterned(
    "reader-empty-source-id-values",
    "Allows an empty source-ID value, a * for the + of the grammar, so mtgo: is one (TXT-2).",
    SOURCE_ID=r"[a-z][a-z0-9-]*:[A-Za-z0-9_./-]*",
)


@mutant("reader-kind-by-prefix")
class ReaderKindByPrefix(CardTableReader):
    """Reads the kind by its start, so `tokens` is a token (TXT-2)."""

    KIND = re.compile(r"(?:token|copy)\S*")

    def entry(self, cur: Cursor) -> dict[str, Any]:
        entry = super().entry(cur)
        return {**entry, "kind": "token" if entry["kind"].startswith("token") else entry["kind"][:4]}


@mutant("reader-source-ids-by-prefix")
class ReaderSourceIdsByPrefix(CardTableReader):
    """Keeps source IDs in a map by prefix, so a second mtgo: ID replaces the first (TXT-1)."""

    def entry(self, cur: Cursor) -> dict[str, Any]:
        entry = super().entry(cur)
        by_prefix = dict(source_id.split(":", 1) for source_id in entry["source_ids"])
        return {**entry, "source_ids": [f"{prefix}:{value}" for prefix, value in by_prefix.items()]}


@mutant("reader-fields-by-shape")
class ReaderFieldsByShape(CardTableReader):
    """Tells the printing from source IDs by its shape wherever it comes, so it may follow them (TXT-2)."""

    def entry(self, cur: Cursor) -> dict[str, Any]:
        head, owner, tail = cur.text.partition(" owner=")
        after = re.fullmatch(r'(#\S+ (?:"(?:[^"\\]|\\.)*"|\?))((?: [a-z][a-z0-9-]*:\S+)+)( \[[^\]]*\])(.*)', head)
        if after is None:
            return super().entry(cur)
        line = after[1] + after[3] + after[2] + after[4] + owner + tail
        return super().entry(Cursor(line, cur.lineno))


@mutant("reader-number-to-bracket")
class ReaderNumberToBracket(CardTableReader):
    """Takes the collector number as everything up to "]", spaces included (TXT-2)."""

    def printing(self, cur: Cursor) -> dict[str, str]:
        end = cur.text.find("]", cur.pos)
        if end > 0:
            inside = cur.text[cur.pos : end]
            set_code, space, number = inside.partition(" ")
            if space and " " in number:
                cur.pos = end + 1
                return {"set": set_code.removeprefix("["), "number": number}
        return super().printing(cur)


@mutant("reader-printing-loose-space")
class ReaderPrintingLooseSpace(CardTableReader):
    """Takes any run of spaces between the set code and the collector number (TXT-2)."""

    def printing(self, cur: Cursor) -> dict[str, str]:
        loose = _LooseSpaceCursor(cur.text, cur.lineno, cur.pos)
        printing = super().printing(loose)
        cur.pos = loose.pos
        return printing


@mutant("reader-backslash-before-quote")
class ReaderBackslashBeforeQuote(CardTableReader):
    """Ends a quoted string at the first quote without a backslash before it, so "P1\\\\" is unclosed (TXT-1)."""

    def quoted(self, cur: Cursor) -> str:
        end = cur.pos + 1
        while (end := cur.text.find('"', end)) > 0 and cur.text[end - 1] == "\\":
            end += 1
        if end < 0:
            cur.pos = len(cur.text)
            cur.fail("the quoted string is not closed")
        return super().quoted(cur)


@mutant("reader-rejects-empty-text")
class ReaderRejectsEmptyText(CardTableReader):
    """Rejects a text with no entry, as a reader that takes an empty table for a failed export (TXT-1)."""

    def read(self, text: str) -> dict[str, Any]:
        result = super().read(text)
        if not result["card_table"]:
            raise RequestError("the card table has no entry")
        return result


@mutant("reader-rejection-exit-only")
class ReaderRejectionExitOnly(CardTableReader):
    """Rejects invalid card table text with exit status 1 but no rejection object (C-2)."""

    def read(self, text: str) -> dict[str, Any]:
        try:
            return super().read(text)
        except RequestError:
            raise ExitWithoutRejection from None


# The mutants of spec 1.2.0, a module per rule family; they register themselves on import.
from . import (  # noqa: E402, F401
    library_more,
    names_more,
    reader_more,
    tokens_more,
    visibility_more,
    vocabulary_more,
)
