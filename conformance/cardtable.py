"""Card-table entries as values, and the only normalization the spec allows when comparing them."""

from __future__ import annotations

import unicodedata
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Literal

Kind = Literal["card", "token", "copy"]


@dataclass(frozen=True, slots=True, kw_only=True)
class Printing:
    """A printing: set code and collector number (an opaque string)."""

    set: str
    number: str

    def normalized(self) -> Printing:
        """Set codes compare without case (PRINT-2); the collector number is kept verbatim."""
        return Printing(set=self.set.upper(), number=self.number)

    def __str__(self) -> str:
        return f"[{self.set} {self.number}]"

    @classmethod
    def from_dict(cls, data: Mapping[str, Any] | None) -> Printing | None:
        """Build from `{"set": ..., "number": ...}`, or None for null."""
        if data is None:
            return None
        return cls(set=data["set"], number=data["number"])

    def to_dict(self) -> dict[str, str]:
        """The JSON form."""
        return {"set": self.set, "number": self.number}


@dataclass(frozen=True, slots=True, kw_only=True)
class CardEntry:
    """One card-table entry. `revealed_at` is None for reader results, which do not carry it."""

    id: str
    name: str | None
    printing: Printing | None
    source_ids: tuple[str, ...]
    owner: str
    kind: Kind
    revealed_at: int | None = None

    @classmethod
    def from_dict(cls, data: Mapping[str, Any], *, id: str | None = None) -> CardEntry:
        """Build from the JSON form; fields a case may leave out take their defaults."""
        return cls(
            id=data["id"] if id is None else id,
            name=data.get("name"),
            printing=Printing.from_dict(data.get("printing")),
            source_ids=tuple(data.get("source_ids", ())),
            owner=data["owner"],
            kind=data.get("kind", "card"),
            revealed_at=data.get("revealed_at"),
        )

    def to_dict(self, *, with_revealed_at: bool = True) -> dict[str, Any]:
        """The JSON form (writer results carry revealed_at, reader results do not)."""
        out: dict[str, Any] = {
            "id": self.id,
            "name": self.name,
            "printing": self.printing.to_dict() if self.printing else None,
            "source_ids": list(self.source_ids),
            "owner": self.owner,
            "kind": self.kind,
        }
        if with_revealed_at:
            out["revealed_at"] = self.revealed_at
        return out


def normalize_name(name: str | None) -> str | None:
    """Names compare after Unicode NFC and nothing else (NAME-6)."""
    return None if name is None else unicodedata.normalize("NFC", name)


def normalize_printing(printing: Printing | None) -> Printing | None:
    """Printings compare with the set code's case ignored (PRINT-2)."""
    return None if printing is None else printing.normalized()
