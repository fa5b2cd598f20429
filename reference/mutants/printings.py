"""Mutants of the printing and source-ID rules (PRINT-1 to PRINT-3, SRC-1, SRC-2): the printing
recorded and its collector number, and source IDs kept as shown, never an identity (spec 1.0.0)."""

from __future__ import annotations

import re
from dataclasses import replace

from cardid_reference.cards import (
    CardDatabase,
    CardFacts,
    Description,
    Identity,
    Printing,
)
from cardid_reference.request import Observation
from cardid_reference.writer import Writer

from . import mutant


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
