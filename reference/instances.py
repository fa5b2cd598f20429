"""What the writer knows of the game so far: the instances, where each live one is, and the
card table (card-identity.md sections 2 to 5).

An instance is followed by the source's handle outside libraries (REQ-1 to REQ-4 say which
handles a request may use) and by its position inside one (section 3, the positions kept by
library.py). This module holds that record and the changes every rule is made of: an instance
introduced (ID-7, OWN-1), placed under a handle, put, taken or shown at a library position, its
ID ended (ID-2), a description bound to its entry (NAME-5, PRINT-4, VIS-2). Which observation
makes which change is the writer's (writer.py).

Instances are found through dicts (by handle, by zone), never by scanning the game so far.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, replace
from typing import Any, Literal

from .cards import CardDatabase, Description, Identity, Printing
from .errors import RequestError
from .library import Library, Position
from .request import Observation, is_library, zone_player

Kind = Literal["card", "token", "copy"]
KINDS: dict[str, Kind] = {"card": "card", "token": "token", "copy": "copy"}


@dataclass(frozen=True, slots=True, kw_only=True)
class Entry:
    """One card-table entry as it stands so far."""

    id: str
    owner: str
    kind: Kind
    first_seen: int
    name: str | None = None
    printing: Printing | None = None
    source_ids: tuple[str, ...] = ()
    revealed_at: int | None = None

    def to_json(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "name": self.name,
            "printing": None if self.printing is None else self.printing.to_json(),
            "source_ids": list(self.source_ids),
            "owner": self.owner,
            "kind": self.kind,
            "revealed_at": self.revealed_at,
        }


class Instances:
    """The instances of one writer request so far, and where each live one is."""

    #: The class of every library: a part of the writer (Writer.OBSERVATION, DATABASE).
    LIBRARY: type[Library] = Library

    def __init__(self, database: CardDatabase) -> None:
        self.database = database
        self.entries: dict[str, Entry] = {}
        self.zone_of: dict[str, str] = {}  # live instance -> zone; ended IDs are absent
        # zone -> its live instances (a dict as an ordered set): ending a whole library or hand
        # must not scan every live instance of a long game, whose graveyards keep growing.
        self.in_zone: dict[str, dict[str, None]] = {}
        self.by_handle: dict[str, str] = {}  # source handle -> live instance, outside libraries
        self.handle_of: dict[str, str] = {}
        self.libraries: dict[str, Library] = {}
        self.melded: set[str] = set()  # melded permanents' handles, unusable until a new game
        self.face_down: set[str] = set()  # live instances face down where they are
        self.next_number = 1

    # ----------------------------------------------------------------- handles

    def held(self, obs: Observation, handle: str, zone: str) -> str | None:
        """The instance held under a handle in this zone, or None when the handle is not held.

        A handle held in another zone is an inconsistent request (REQ-1).
        """
        iid = self.by_handle.get(handle)
        if iid is not None and self.zone_of[iid] != zone:
            raise RequestError(
                f"{obs.label()}: handle {handle!r} is held in {self.zone_of[iid]}, "
                f"not in {zone} (REQ-1)"
            )
        return iid

    def not_held_elsewhere(self, obs: Observation, handle: str, library: str) -> None:
        """Handles name nothing in a library, so one held live elsewhere is inconsistent (REQ-1)."""
        self.held(obs, handle, library)  # no handle is ever held in a library

    def tracked(self, obs: Observation) -> str:
        """The live instance an in-place change refers to; such a change cannot introduce a card
        (REQ-3)."""
        handle = obs.handle()
        iid = self.by_handle.get(handle)
        if iid is None:
            raise RequestError(
                f"{obs.label()}: handle {handle!r} is not a card in view, and the observation "
                "gives no zone to introduce it in (REQ-3)"
            )
        return iid

    def original_instance(self, obs: Observation) -> str | None:
        """The held instance a `create_copy` names as its `original`, if it names one (REQ-3)."""
        if "original" not in obs.data:
            return None
        handle = obs.handle("original")
        iid = self.by_handle.get(handle)
        if iid is None:
            raise RequestError(f"{obs.label()}: the original {handle!r} is not held (REQ-3)")
        return iid

    def check_not_melded(self, obs: Observation) -> None:
        """A melded permanent's handle names no object until the next game (REQ-4)."""
        data = obs.data
        named = [data[key] for key in ("object", "new_object", "original") if key in data]
        for key in ("objects", "carried"):
            if isinstance(data.get(key), list):
                named += data[key]
        for handle in named:
            if isinstance(handle, str) and handle in self.melded:
                raise RequestError(
                    f"{obs.label()}: handle {handle!r} is a melded permanent's, which names no "
                    "card; its cards move one by one (REQ-4)"
                )

    def check_handle_free(self, obs: Observation, handle: str, iid: str | None) -> None:
        """A handle given to an object must not be another live object's (REQ-2)."""
        other = self.by_handle.get(handle)
        if other is not None and other != iid:
            raise RequestError(
                f"{obs.label()}: handle {handle!r} is still held by a live object in "
                f"{self.zone_of[other]} (REQ-2)"
            )

    # ----------------------------------------------------------------- library positions

    def library(self, zone: str) -> Library:
        """The library of a zone: at first, no position and no size known."""
        return self.libraries.setdefault(zone, self.LIBRARY())

    def leave_library(self, obs: Observation, src: str) -> str | None:
        """Positions decide in a library (LIB-1, LIB-4); an unknown one ends them all (E5)."""
        position = obs.position("from_position")
        library = self.library(src)
        self.check_fits(obs, src, position, putting=False)
        if position is None:
            self.end_library(src)
        else:
            self.end_ids(library.lost_past_run(position))  # E13 (LIB-7)
        return library.take(position)

    def library_card_shown(self, obs: Observation, zone: str) -> str:
        """A reveal in a library: the instance at that position, or a fresh one now held there."""
        position = obs.position("position")
        self.check_fits(obs, zone, position, putting=False)
        library = self.library(zone)
        iid = library.look(position)
        if iid is None:
            if position is not None:
                self.end_ids(library.lost_past_run(position))  # E13 (LIB-7)
            iid = self.new_card(obs, seen_in=zone, goes_to=None)
            self.move_to(iid, zone)
            if position is not None:
                library.hold(iid, position)
        return iid

    def put_card(self, dst: str, position: Position, iid: str | None) -> None:
        """Put a card into a library (`iid` None: a card nobody can name, LIB-8). At an unknown
        position every ID there ends, the card's own too (E4); without a known size, past one
        more than the known run of its end, the other end's IDs end and so does the card's own
        (E13, E14: it may have gone to the other end, LIB-7); else it is tracked there (LIB-1)."""
        library = self.library(dst)
        if position is None:
            self.end_library(dst)
        elif library.reaches_past_run(position, putting=True):
            self.end_ids(library.drop_other_end(position))
        else:
            library.put(iid, position)
            if iid is not None:
                self.move_to(iid, dst)
            return
        library.put(None, position)
        if iid is not None:
            self.end(iid)

    def check_fits(self, obs: Observation, zone: str, position: Position, *, putting: bool) -> None:
        """A position the library's known size rules out is inconsistent (REQ-5)."""
        library = self.library(zone)
        if not library.fits(position, putting=putting):
            where = "an unknown position" if position is None else f"position {position}"
            self.size_conflict(obs, f"{where} does not fit {zone}, of known size {library.size}")

    def size_conflict(self, obs: Observation, what: str) -> None:
        """Positions or counts the known library size rules out: inconsistent (REQ-5)."""
        raise RequestError(f"{obs.label()}: {what} (REQ-5)")

    # ----------------------------------------------------------------- new instances

    def new_card(self, obs: Observation, *, seen_in: str, goes_to: str | None) -> str:
        """A fresh instance (ID-7), with the owner OWN-1 derives and the kind the observation
        gives, a card unless it says `kind` (TOK-6)."""
        return self.allocate(
            owner=self.owner_of_new(obs, seen_in, goes_to),
            kind=self.introduced_kind(obs, seen_in),
            index=obs.index,
        )

    def introduced_kind(self, obs: Observation, seen_in: str) -> Kind:
        """The kind of an object an observation introduces: its `kind`, else a card (TOK-6). A
        token or copy is never in a library (TOK-4), so one seen there is inconsistent."""
        shown = obs.get("kind", "card")
        kind = KINDS.get(shown) if isinstance(shown, str) else None
        if kind is None:
            raise RequestError(f"{obs.label()}: `kind` is not card, token or copy: {shown!r}")
        if kind != "card" and is_library(seen_in):
            raise RequestError(f"{obs.label()}: a {kind} is never in a library (TOK-4)")
        return kind

    def owner_of_new(self, obs: Observation, seen_in: str, goes_to: str | None) -> str:
        """OWN-1: the observation's owner; else the player of the hand, library or graveyard the
        card goes to (CR 400.3); else the player of the zone it is seen in or comes from; never
        the controller."""
        owner = (
            obs.get("owner")
            or (goes_to is not None and zone_player(goes_to))
            or zone_player(seen_in)
        )
        if not owner:
            raise RequestError(
                f"observation {obs.index}: a card first seen in {seen_in} needs an `owner`"
            )
        return owner

    def allocate(self, *, owner: str, kind: Kind, index: int) -> str:
        """A new ID, never used before in this request (ID-2)."""
        iid = f"c{self.next_number}"
        self.next_number += 1
        self.entries[iid] = Entry(id=iid, owner=owner, kind=kind, first_seen=index)
        return iid

    # ----------------------------------------------------------------- placing instances

    def place(self, iid: str, zone: str, handle: str) -> None:
        """Record a live instance outside libraries under the source's current handle."""
        self.unhandle(iid)
        stale = self.by_handle.get(handle)
        if stale is not None:  # only mutants get here: the request checks rule it out (REQ-2)
            self.handle_of.pop(stale, None)
        self.by_handle[handle] = iid
        self.handle_of[iid] = handle
        self.move_to(iid, zone)

    def move_to(self, iid: str, zone: str) -> None:
        """Record the zone a live instance is now in."""
        old = self.zone_of.get(iid)
        if old is not None:
            del self.in_zone[old][iid]
        self.zone_of[iid] = zone
        self.in_zone.setdefault(zone, {})[iid] = None

    def unhandle(self, iid: str) -> None:
        handle = self.handle_of.pop(iid, None)
        if handle is not None:
            self.by_handle.pop(handle, None)

    # ----------------------------------------------------------------- ending IDs

    def end(self, iid: str) -> None:
        """The ID ends: P can no longer follow the card, by handle or by position (ID-2)."""
        zone = self.zone_of.pop(iid, None)
        self.unhandle(iid)
        self.face_down.discard(iid)
        if zone is not None:
            del self.in_zone[zone][iid]
            if is_library(zone):
                self.library(zone).forget(iid)

    def end_ids(self, iids: Iterable[str]) -> None:
        for iid in list(iids):
            self.end(iid)

    def end_library(self, zone: str) -> None:
        """Every ID in the library ends, and no position in it is known any more."""
        self.library(zone).clear()  # first: then ending each ID finds no position to forget
        self.end_ids(self.in_zone.get(zone, ()))

    def end_all(self, keep: Iterable[str]) -> None:
        """Every live ID ends, except those kept; no library position or size is known any more."""
        kept = set(keep)
        self.libraries.clear()
        self.end_ids(iid for iid in self.zone_of if iid not in kept)

    # ----------------------------------------------------------------- the card table

    def describe(self, iid: str, description: Description | None, index: int) -> None:
        """Bind what a description shows to the instance (VIS-1, VIS-2)."""
        if description is not None:
            identity = self.database.resolve(description)
            self.entries[iid] = self.bind(self.entries[iid], identity, index)

    def bind(self, entry: Entry, identity: Identity, index: int) -> Entry:
        """The name is bound once; a printing is bound once, whenever it is first shown; source
        IDs accumulate; a description of another card binds nothing (NAME-5, PRINT-4). The first
        observation that binds anything is `revealed_at` (VIS-2)."""
        if identity.name is not None and entry.name is not None and identity.name != entry.name:
            return entry  # it describes another card; nothing here is about this one
        name = entry.name if entry.name is not None else identity.name
        printing = entry.printing
        if printing is None and entry.kind == "card":  # PRINT-3: no printing for tokens and copies
            printing = identity.printing
        new_ids = tuple(s for s in identity.source_ids if s not in entry.source_ids)
        revealed_at = entry.revealed_at
        if revealed_at is None and (name != entry.name or printing != entry.printing or new_ids):
            revealed_at = index
        return replace(
            entry,
            name=name,
            revealed_at=revealed_at,
            printing=printing,
            source_ids=entry.source_ids + new_ids,
        )

    def card_table(self, used: set[str | None]) -> list[dict[str, Any]]:
        """The card table: the entry of every instance assigned to an observation."""
        return [entry.to_json() for entry in self.entries.values() if entry.id in used]
