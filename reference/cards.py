"""Card lookup: cards as a request describes them, and the card database section that names
them (observations.md, "Card descriptions" and "The card database section").

A description as the source gave it is resolved through the database section by the steps of
NAME-7 (`CardDatabase.identify`) into what it tells about a card (an Identity): the Oracle name
(NAME-1 to NAME-4) or, matching no card, the name as shown, every name in one form (NAME-6), and
the printing shown (PRINT-1, PRINT-3). Which card-table entry it binds to is the writer's.
"""

from __future__ import annotations

import unicodedata
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from .errors import RequestError


def normalize_name(name: str) -> str:
    """NFC with U+0027 apostrophes (NAME-6): how every name is compared and recorded."""
    return unicodedata.normalize("NFC", name.replace("\u2019", "'"))


@dataclass(frozen=True, slots=True, kw_only=True)
class Printing:
    """A set code and a collector number, both as the source or the card database wrote them."""

    set: str
    number: str

    def key(self) -> tuple[str, str]:
        """Two printings are the same when their keys are: set codes compare without case,
        collector numbers are opaque strings (PRINT-2, R10)."""
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
                source_ids=_strings(p, "source_ids", f"{where}.printings[{i}]"),
            )
            for i, p in enumerate(_list(data, "printings", where))
        )
        return cls(
            name=data["name"],
            faces=_strings(data, "faces", where),
            aliases=_strings(data, "aliases", where),
            printings=printings,
        )


def _list(data: Mapping[str, Any], key: str, where: str) -> list[Any]:
    """The list under `key` (none: empty); anything else is an invalid request."""
    value = data.get(key, [])
    if not isinstance(value, list):
        raise RequestError(f"{where}: `{key}` must be a list")
    return value


def _strings(data: Mapping[str, Any], key: str, where: str) -> tuple[str, ...]:
    """The list of strings under `key` (none: empty); anything else is an invalid request."""
    value = _list(data, key, where)
    if not all(isinstance(item, str) for item in value):
        raise RequestError(f"{where}: `{key}` must be a list of strings")
    return tuple(value)


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


def read_cards(data: list[Any]) -> tuple[CardFacts, ...]:
    """The request's card database section, each entry checked."""
    return tuple(CardFacts.from_json(card, f"cards[{i}]") for i, card in enumerate(data))


class CardDatabase:
    """The request's card database section, indexed the way `identify` looks it up: one dict
    per step of NAME-7. Within a step the first card listed wins a key (two cards sharing one is
    a broken case, which `cardid lint` reports)."""

    def __init__(self, cards: Iterable[CardFacts]) -> None:
        self.cards = tuple(cards)
        #: source ID -> the card and its printing (a source ID under two printings is a broken
        #: case, NAME-7: the first listed wins, as for every key)
        self.by_source_id: dict[str, tuple[CardFacts, Printing | None]] = {}
        self.by_printing: dict[tuple[str, str], CardFacts] = {}
        by_oracle: dict[str, CardFacts] = {}
        by_face: dict[str, CardFacts] = {}
        by_alias: dict[str, CardFacts] = {}
        for card in self.cards:
            for known in card.printings:
                for source_id in known.source_ids:
                    self.by_source_id.setdefault(source_id, (card, known.printing))
                self.by_printing.setdefault(self.printing_key(known.printing), card)
            by_oracle.setdefault(normalize_name(card.name), card)
            for face in card.faces:
                by_face.setdefault(normalize_name(face), card)
            for alias in card.aliases:
                by_alias.setdefault(normalize_name(alias), card)
        #: The name steps of NAME-7 in order: Oracle names, then faces, then aliases.
        self.by_name: tuple[dict[str, CardFacts], ...] = (by_oracle, by_face, by_alias)

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
        """The card a description names, by the first step of NAME-7 that matches, and the
        printing its source ID maps to, if any."""
        if description.source_id is not None and description.source_id in self.by_source_id:
            return self.by_source_id[description.source_id]
        if description.printing is not None:
            card = self.by_printing.get(self.printing_key(description.printing))
            if card is not None:
                return card, None
        if description.name is not None:
            shown = self.shown_name(description.name)
            for step in self.by_name:
                card = step.get(shown)
                if card is not None:
                    return card, None
        return None, None

    def printing_key(self, printing: Printing) -> tuple[str, str]:
        """How the database section's printings are looked up: set codes without case (R10)."""
        return printing.key()

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
