"""The writer role: an instance ID per observation, and the card table (card-identity.md)."""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field, replace
from typing import Any, Literal

from .errors import RequestError

Kind = Literal["card", "token", "copy"]
#: A library position: N (1 is the top card), "bottom", or None for unknown.
Position = int | Literal["bottom"] | None

SHARED_ZONES = frozenset({"battlefield", "stack", "exile", "command"})
_PLAYER_ZONE = re.compile(r"(library|hand|graveyard):([A-Za-z0-9_.-]+)")


def normalize_name(name: str) -> str:
    """NFC with U+0027 apostrophes (NAME-6): how every name is compared and recorded."""
    return unicodedata.normalize("NFC", name.replace("\u2019", "'"))


def zone_kind(zone: str) -> str:
    """`library`, `hand`, `graveyard`, or the shared zone's own name."""
    return zone.split(":", 1)[0]


def zone_player(zone: str) -> str | None:
    """The player of a library, hand or graveyard; None for a shared zone."""
    match = _PLAYER_ZONE.fullmatch(zone)
    return match.group(2) if match else None


def is_library(zone: str) -> bool:
    """Whether the zone is a library, where positions decide and handles are not used."""
    return zone_kind(zone) == "library"


# --------------------------------------------------------------------------- values


@dataclass(frozen=True, slots=True, kw_only=True)
class Printing:
    """A set code and a collector number, both as the source or the card database wrote them."""

    set: str
    number: str

    def key(self) -> tuple[str, str]:
        """Two printings are the same when their keys are: set codes compare without case,
        collector numbers are opaque strings (PRINT-2)."""
        return self.set.upper(), self.number

    def to_json(self) -> dict[str, str]:
        return {"set": self.set, "number": self.number}

    @classmethod
    def from_json(cls, data: Any, where: str) -> Printing:
        if (
            not isinstance(data, Mapping)
            or not isinstance(data.get("set"), str)
            or not isinstance(data.get("number"), str)
        ):
            raise RequestError(f"{where}: a printing needs string `set` and `number`")
        return cls(set=data["set"], number=data["number"])


@dataclass(frozen=True, slots=True, kw_only=True)
class CardPrinting:
    """One printing in the card database section, with the source IDs that denote it."""

    printing: Printing
    source_ids: tuple[str, ...]


@dataclass(frozen=True, slots=True, kw_only=True)
class CardFacts:
    """One entry of the request's card database section."""

    name: str
    faces: tuple[str, ...]
    aliases: tuple[str, ...]
    printings: tuple[CardPrinting, ...]

    @classmethod
    def from_json(cls, data: Any, where: str) -> CardFacts:
        if not isinstance(data, Mapping) or not isinstance(data.get("name"), str):
            raise RequestError(f"{where}: a card needs a string `name`")
        printings = tuple(
            CardPrinting(
                printing=Printing.from_json(p, f"{where}.printings[{i}]"),
                source_ids=tuple(p.get("source_ids", ())),
            )
            for i, p in enumerate(data.get("printings", ()))
        )
        return cls(
            name=data["name"],
            faces=tuple(data.get("faces", ())),
            aliases=tuple(data.get("aliases", ())),
            printings=printings,
        )


@dataclass(frozen=True, slots=True, kw_only=True)
class Description:
    """A card description as the source gave it (observations.md, "Card descriptions")."""

    name: str | None
    source_id: str | None
    printing: Printing | None

    @classmethod
    def from_json(cls, data: Any, where: str) -> Description:
        if not isinstance(data, Mapping) or not data:
            raise RequestError(f"{where}: a card description needs at least one field")
        name, source_id = data.get("name"), data.get("source_id")
        if name is not None and (not isinstance(name, str) or not name):
            raise RequestError(f"{where}: `name` must be a non-empty string")
        if source_id is not None and not isinstance(source_id, str):
            raise RequestError(f"{where}: `source_id` must be a string")
        printing = data.get("printing")
        return cls(
            name=name,
            source_id=source_id,
            printing=None if printing is None else Printing.from_json(printing, where),
        )


@dataclass(frozen=True, slots=True, kw_only=True)
class Identity:
    """What a description tells about a card: any of these may be unknown."""

    name: str | None
    printing: Printing | None
    source_ids: tuple[str, ...]


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


@dataclass(frozen=True, slots=True, kw_only=True)
class Observation:
    """One observation and its number, with field access that rejects malformed requests."""

    index: int
    data: Mapping[str, Any]

    @property
    def type(self) -> str:
        return self.data["type"]

    def get(self, key: str, default: Any = None) -> Any:
        return self.data.get(key, default)

    def need(self, key: str) -> Any:
        if key not in self.data:
            raise RequestError(f"observation {self.index} ({self.type}) lacks `{key}`")
        return self.data[key]

    def zone(self, key: str, default: str | None = None) -> str:
        zone = self.data.get(key, default) if default is not None else self.need(key)
        if not isinstance(zone, str) or not (zone in SHARED_ZONES or _PLAYER_ZONE.fullmatch(zone)):
            raise RequestError(f"observation {self.index}: `{key}` is not a zone: {zone!r}")
        return zone

    def position(self, key: str) -> Position:
        value = self.data.get(key, "unknown")
        if value == "top":
            return 1
        if value == "bottom":
            return "bottom"
        if value == "unknown":
            return None
        if isinstance(value, int) and not isinstance(value, bool) and value >= 1:
            return value
        raise RequestError(f"observation {self.index}: `{key}` is not a position: {value!r}")

    def description(self, key: str) -> Description | None:
        data = self.data.get(key)
        return (
            None if data is None else Description.from_json(data, f"observation {self.index}.{key}")
        )


# --------------------------------------------------------------------------- libraries


@dataclass(slots=True)
class Library:
    """The known top and bottom segments of one library (card-identity.md section 3)."""

    top: list[str | None] = field(default_factory=list)  # index 0 is the top card
    bottom: list[str | None] = field(default_factory=list)  # index 0 is the bottom card

    def take(self, position: int | Literal["bottom"]) -> str | None:
        """Remove the card at a known position; return the instance it held, if any."""
        if position == "bottom":
            return self.bottom.pop(0) if self.bottom else None
        # A position below the known top segment holds no tracked card, and removing it
        # leaves every known position above it where it was.
        return self.top.pop(position - 1) if position <= len(self.top) else None

    def put(self, iid: str, position: int | Literal["bottom"]) -> None:
        """Insert a card at a known position, pushing the cards below it down."""
        if position == "bottom":
            self.bottom.insert(0, iid)
            return
        self._pad(position - 1)
        self.top.insert(position - 1, iid)

    def look(self, position: int | Literal["bottom"]) -> str | None:
        """The instance held at a known position, if any."""
        if position == "bottom":
            return self.bottom[0] if self.bottom else None
        return self.top[position - 1] if position <= len(self.top) else None

    def hold(self, iid: str, position: int | Literal["bottom"]) -> None:
        """Record that a known position (already in the library) holds this instance."""
        if position == "bottom":
            if self.bottom:
                self.bottom[0] = iid
            else:
                self.bottom.append(iid)
            return
        self._pad(position)
        self.top[position - 1] = iid

    def scramble(self, end: Literal["top", "bottom"], count: int) -> list[str]:
        """Make the `count` positions at one end unknown; return the instances they held."""
        segment = self.top if end == "top" else self.bottom
        lost = [iid for iid in segment[:count] if iid is not None]
        segment[:count] = [None] * min(count, len(segment))
        return lost

    def forget(self, iid: str) -> None:
        """The instance no longer holds any position."""
        for segment in (self.top, self.bottom):
            for i, held in enumerate(segment):
                if held == iid:
                    segment[i] = None

    def clear(self) -> None:
        """No position is known any more."""
        self.top.clear()
        self.bottom.clear()

    def _pad(self, length: int) -> None:
        self.top.extend([None] * (length - len(self.top)))


# --------------------------------------------------------------------------- the writer


class Writer:
    """The game state of one writer request, advanced one observation at a time."""

    def __init__(self, request: Mapping[str, Any]) -> None:
        if not isinstance(request, Mapping):
            raise RequestError("a writer request is a JSON object")
        for key in ("perspective", "players", "source", "cards", "observations"):
            if key not in request:
                raise RequestError(f"the writer request lacks `{key}`")
        source = request["source"]
        if not isinstance(source, Mapping) or not isinstance(source.get("hidden_tracking"), bool):
            raise RequestError("`source.hidden_tracking` must be true or false")
        if not isinstance(request["cards"], list) or not isinstance(request["observations"], list):
            raise RequestError("`cards` and `observations` must be arrays")
        self.perspective: str = request["perspective"]
        self.hidden_tracking: bool = source["hidden_tracking"]
        self.cards = tuple(
            CardFacts.from_json(c, f"cards[{i}]") for i, c in enumerate(request["cards"])
        )
        # The database section, indexed the way `identify` looks it up: the first card listed
        # wins each key, as a search in listed order would find it.
        self.by_source_id: dict[str, tuple[CardFacts, Printing]] = {}
        self.by_printing: dict[tuple[str, str], CardFacts] = {}
        self.by_name: dict[str, CardFacts] = {}
        for card in self.cards:
            for known in card.printings:
                for source_id in known.source_ids:
                    self.by_source_id.setdefault(source_id, (card, known.printing))
                self.by_printing.setdefault(known.printing.key(), card)
            for name in (card.name, *card.faces, *card.aliases):
                self.by_name.setdefault(normalize_name(name), card)
        self.observations = tuple(
            self._observation(i, o) for i, o in enumerate(request["observations"])
        )
        self.entries: dict[str, Entry] = {}
        self.zone_of: dict[str, str] = {}  # live instance -> zone; ended IDs are absent
        # zone -> its live instances (a dict as an ordered set): ending a whole library or hand
        # must not scan every live instance of a long game, whose graveyards keep growing.
        self.in_zone: dict[str, dict[str, None]] = {}
        self.by_handle: dict[str, str] = {}  # source handle -> live instance, outside libraries
        self.handle_of: dict[str, str] = {}
        self.libraries: dict[str, Library] = {}
        self.next_number = 1

    @staticmethod
    def _observation(index: int, data: Any) -> Observation:
        # `dict` first: the ABC check costs more than the rest of this, once per observation.
        if not isinstance(data, dict | Mapping) or not isinstance(data.get("type"), str):
            raise RequestError(f"observation {index} is not an object with a `type`")
        return Observation(index=index, data=data)

    def run(self) -> dict[str, Any]:
        """Assign one instance ID (or null) per observation and return the writer result."""
        assignments: list[str | None] = []
        for obs in self.observations:
            handler = getattr(self, f"on_{obs.type}", None)
            if handler is None:
                raise RequestError(f"observation {obs.index}: unknown type {obs.type!r}")
            iid = handler(obs)
            if iid is None and "object" in obs.data:  # ID-1: an object always gets an ID
                raise RequestError(f"observation {obs.index}: a {obs.type} carries no `object`")
            assignments.append(iid)
        used = set(assignments)
        table = [entry.to_json() for entry in self.entries.values() if entry.id in used]
        return {"card_table": table, "assignments": assignments}

    # ----------------------------------------------------------------- observation types

    def on_game_start(self, obs: Observation) -> None:
        """E10: a new game ends every ID (ID-9)."""
        self.end_all(keep=())

    def on_restart(self, obs: Observation) -> None:
        """E11: a restart ends every ID but the carried cards' (ID-9)."""
        carried = obs.need("carried")
        self.end_all(keep={self.by_handle[h] for h in carried if h in self.by_handle})

    def on_mulligan(self, obs: Observation) -> None:
        """E2: the player's hand and library lose their IDs (ID-8)."""
        player = obs.need("player")
        self.end_library(f"library:{player}")
        self.end_ids(self.in_zone.get(f"hand:{player}", ()))

    def on_shuffle(self, obs: Observation) -> None:
        """E1: every ID in the library ends (LIB-2)."""
        self.end_library(self.library_zone(obs))

    def on_reorder(self, obs: Observation) -> None:
        """E3: the IDs at the reordered positions end (LIB-3)."""
        end, count = obs.need("end"), obs.need("count")
        if end not in ("top", "bottom") or not isinstance(count, int) or count < 1:
            raise RequestError(f"observation {obs.index}: bad reorder end or count")
        self.end_ids(self.library(self.library_zone(obs)).scramble(end, count))

    def on_move(self, obs: Observation) -> str:
        """A zone change keeps the ID unless an ending event applies (ID-3, ID-5, ID-6)."""
        src, dst = obs.zone("from"), obs.zone("to")
        iid = self.moving_instance(obs, src, dst)
        self.describe(iid, obs.description("card"), obs.index)
        self.arrive(iid, obs, dst)
        if self.ends_after_move(self.entries[iid], src, dst):
            self.end(iid)
        return iid

    def on_reveal(self, obs: Observation) -> str:
        """A card shown in place: the same instance where P can follow it, else a fresh one."""
        zone = obs.zone("zone")
        if is_library(zone):
            iid = self.library_card_shown(obs, zone)
        else:
            iid = self.by_handle.get(obs.need("object"))
            if iid is None:
                iid = self.new_card(obs, seen_in=zone, goes_to=None)
                self.place(iid, zone, obs.need("object"))
        self.describe(iid, obs.description("card"), obs.index)
        if self.loses_track_in(zone):  # E7
            self.end(iid)
        return iid

    def on_turn_face_up(self, obs: Observation) -> str:
        """Turning face up keeps the ID and binds the name there (ID-4, VIS-2)."""
        iid = self.tracked(obs)
        self.describe(iid, obs.description("card"), obs.index)
        return iid

    def on_transform(self, obs: Observation) -> str:
        """Transforming keeps the ID; the face now up resolves to the whole card (ID-4, NAME-2)."""
        iid = self.tracked(obs)
        self.describe(iid, obs.description("card"), obs.index)
        return iid

    def on_become_copy(self, obs: Observation) -> str:
        """Becoming a copy keeps the ID, the name and the kind (ID-4, NAME-5)."""
        obs.description("copy_of")  # validated, but it describes another card
        return self.tracked(obs)

    def on_meld(self, obs: Observation) -> str:
        """Melding keeps the card's ID; the melded permanent gets nothing of its own (NAME-3)."""
        obs.need("permanent")
        obs.description("melded")  # validated, but it describes the melded permanent
        return self.tracked(obs)

    def on_create_token(self, obs: Observation) -> str:
        """A token is a fresh instance owned by its creator (TOK-1, OWN-1)."""
        return self.create(
            obs, kind=self.creation_kind("token"), zone=obs.zone("zone", "battlefield")
        )

    def on_create_copy(self, obs: Observation) -> str:
        """A copy is a fresh instance owned by its creator (TOK-1, OWN-1)."""
        return self.create(obs, kind=self.creation_kind("copy"), zone=obs.zone("zone", "stack"))

    # ----------------------------------------------------------------- finding instances

    def moving_instance(self, obs: Observation, src: str, dst: str) -> str:
        """The instance a move refers to: followed from where it was, or fresh (ID-7)."""
        iid = self.leave(obs, src)
        return iid if iid is not None else self.new_card(obs, seen_in=src, goes_to=dst)

    def leave(self, obs: Observation, src: str) -> str | None:
        """Take the moving card out of its zone; return its instance if P followed it there."""
        if is_library(src):
            return self.leave_library(obs, src)
        iid = self.by_handle.get(obs.need("object"))
        if iid is not None:
            self.unhandle(iid)
        return iid

    def leave_library(self, obs: Observation, src: str) -> str | None:
        """Positions decide in a library (LIB-1, LIB-4); an unknown one ends them all (E5)."""
        position = obs.position("from_position")
        if position is None:
            self.end_library(src)
            return None
        return self.library(src).take(position)

    def library_card_shown(self, obs: Observation, zone: str) -> str:
        """A reveal in a library: the instance at that position, or a fresh one now held there."""
        position = obs.position("position")
        iid = None if position is None else self.library(zone).look(position)
        if iid is None:
            iid = self.new_card(obs, seen_in=zone, goes_to=None)
            self.move_to(iid, zone)
            if position is not None:
                self.library(zone).hold(iid, position)
        return iid

    def tracked(self, obs: Observation) -> str:
        """The live instance an in-place change refers to; such a change cannot introduce a card."""
        handle = obs.need("object")
        iid = self.by_handle.get(handle)
        if iid is None:
            raise RequestError(
                f"observation {obs.index} ({obs.type}): handle {handle!r} is not a card "
                "in view, and the observation gives no zone to introduce it in"
            )
        return iid

    # ----------------------------------------------------------------- placing instances

    def arrive(self, iid: str, obs: Observation, dst: str) -> None:
        """Put a moved card into its new zone: by position in a library, by handle elsewhere."""
        if not is_library(dst):
            self.place(iid, dst, obs.get("new_object") or obs.need("object"))
            return
        position = obs.position("position")
        if position is None:  # E4
            self.end(iid)
            self.end_library(dst)
            return
        self.library(dst).put(iid, position)
        self.move_to(iid, dst)

    def place(self, iid: str, zone: str, handle: str) -> None:
        """Record a live instance outside libraries under the source's current handle."""
        self.unhandle(iid)
        stale = self.by_handle.get(handle)
        if stale is not None:  # the source reused a handle: it now names this card only
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

    def create(self, obs: Observation, *, kind: Kind, zone: str) -> str:
        """A token or copy: always a fresh instance, owned by the creator (OWN-1)."""
        owner = obs.need("owner")
        iid = self.allocate(owner=owner, kind=kind, index=obs.index)
        self.place(iid, zone, obs.need("object"))
        self.describe(iid, obs.description("card"), obs.index)
        if self.loses_track_in(zone):
            self.end(iid)
        return iid

    def creation_kind(self, kind: Kind) -> Kind:
        """The kind a created object is marked with (TOK-1)."""
        return kind

    # ----------------------------------------------------------------- ending IDs

    def ends_after_move(self, entry: Entry, src: str, dst: str) -> bool:
        """Whether the ID ends right after this move (E6, E8, E9)."""
        return self.ceases_to_exist(entry, src, dst) or self.loses_track_in(dst)

    def ceases_to_exist(self, entry: Entry, src: str, dst: str) -> bool:
        """E8 and E9: tokens leaving the battlefield, copies leaving the stack but not to it."""
        if entry.kind == "card":
            return False
        if src == "battlefield" and dst != "battlefield":
            return True  # a token, or a resolved permanent-spell copy, which is a token (111.13)
        return entry.kind == "copy" and src == "stack" and dst != "battlefield"

    def loses_track_in(self, zone: str) -> bool:
        """E6 and E7: another player's hand, without hidden tracking (HID-1, HID-2)."""
        return (
            zone_kind(zone) == "hand"
            and zone_player(zone) != self.perspective
            and not self.hidden_tracking
        )

    def end(self, iid: str) -> None:
        """The ID ends: P can no longer follow the card, by handle or by position (ID-2)."""
        zone = self.zone_of.pop(iid, None)
        self.unhandle(iid)
        if zone is not None:
            del self.in_zone[zone][iid]
            if is_library(zone):
                self.library(zone).forget(iid)

    def end_ids(self, iids: Iterable[str]) -> None:
        for iid in list(iids):
            self.end(iid)

    def end_library(self, zone: str) -> None:
        """Every ID in the library ends, and no position in it is known any more."""
        self.end_ids(self.in_zone.get(zone, ()))
        self.library(zone).clear()

    def end_all(self, keep: Iterable[str]) -> None:
        """Every live ID ends, except those kept; no library position is known any more."""
        kept = set(keep)
        self.end_ids(iid for iid in self.zone_of if iid not in kept)
        for library in self.libraries.values():
            library.clear()

    # ----------------------------------------------------------------- entries

    def new_card(self, obs: Observation, *, seen_in: str, goes_to: str | None) -> str:
        """A fresh card instance (ID-7), with the owner OWN-1 derives."""
        return self.allocate(
            owner=self.owner_of_new(obs, seen_in, goes_to), kind="card", index=obs.index
        )

    def owner_of_new(self, obs: Observation, seen_in: str, goes_to: str | None) -> str:
        """OWN-1: the observation's owner, else the zone's player; never the controller."""
        owner = obs.get("owner") or zone_player(seen_in) or (goes_to and zone_player(goes_to))
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

    def library_zone(self, obs: Observation) -> str:
        zone = obs.zone("zone")
        if not is_library(zone):
            raise RequestError(f"observation {obs.index}: {zone} is not a library")
        return zone

    def library(self, zone: str) -> Library:
        return self.libraries.setdefault(zone, Library())

    # ----------------------------------------------------------------- names and printings

    def describe(self, iid: str, description: Description | None, index: int) -> None:
        """Bind what a description shows to the instance (VIS-1, VIS-2)."""
        if description is not None:
            self.entries[iid] = self.bind(self.entries[iid], self.resolve(description), index)

    def bind(self, entry: Entry, identity: Identity, index: int) -> Entry:
        """The name is bound once; a printing is added once; source IDs accumulate (NAME-5)."""
        if identity.name is not None and entry.name is not None and identity.name != entry.name:
            return entry  # it describes another card; nothing here is about this one
        name, revealed_at = entry.name, entry.revealed_at
        if name is None and identity.name is not None:
            name, revealed_at = identity.name, self.revealed_at(entry, index)
        printing = entry.printing
        if printing is None and entry.kind == "card":  # PRINT-3: no printing for tokens and copies
            printing = identity.printing
        new_ids = tuple(s for s in identity.source_ids if s not in entry.source_ids)
        return replace(
            entry,
            name=name,
            revealed_at=revealed_at,
            printing=printing,
            source_ids=entry.source_ids + new_ids,
        )

    def revealed_at(self, entry: Entry, index: int) -> int:
        """The observation that first showed the card's identity (VIS-2)."""
        return index

    def resolve(self, description: Description) -> Identity:
        """Map a description through the card database section (observations.md)."""
        card, mapped = self.identify(description)
        if card is not None:
            name: str | None = self.oracle_name(card)
        else:  # no card matched: the name as shown, which is how token names arrive
            name = None if description.name is None else self.shown_name(description.name)
        return Identity(
            name=name,
            printing=self.recorded_printing(description, card, mapped),
            source_ids=() if description.source_id is None else (description.source_id,),
        )

    def identify(self, description: Description) -> tuple[CardFacts | None, Printing | None]:
        """The card a description names, and the printing its source ID maps to, if any."""
        if description.source_id is not None and description.source_id in self.by_source_id:
            return self.by_source_id[description.source_id]
        if description.printing is not None and description.printing.key() in self.by_printing:
            return self.by_printing[description.printing.key()], None
        if description.name is not None:
            card = self.by_name.get(self.shown_name(description.name))
            if card is not None:
                return card, None
        return None, None

    def shown_name(self, name: str) -> str:
        """A name as the source showed it, in the form names are compared and recorded (NAME-6)."""
        return normalize_name(name)

    def oracle_name(self, card: CardFacts) -> str:
        """The card-table name of a database card (NAME-1, NAME-2, NAME-4)."""
        return normalize_name(card.name)

    def recorded_printing(
        self, description: Description, card: CardFacts | None, mapped: Printing | None
    ) -> Printing | None:
        """The printing the source showed, directly or through a source ID (PRINT-1, PRINT-3)."""
        return description.printing if description.printing is not None else mapped


def write(request: Mapping[str, Any]) -> dict[str, Any]:
    """Answer a writer request with its card table and assignments."""
    return Writer(request).run()
