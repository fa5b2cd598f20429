"""Cards as a request describes them (observations.md, "Card descriptions" and "The card
database section"): printings, the database section's entries, a description as the source gave
it, and what a description tells about a card (an Identity). Names are compared in one form
(NAME-6, `normalize_name`).
"""

from __future__ import annotations

import unicodedata
from collections.abc import Mapping
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
