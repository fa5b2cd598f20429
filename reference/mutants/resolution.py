"""Mutants of spec 1.1.0's name and printing readings (NAME-7, PRINT-2, PRINT-4, NAME-5, SRC-1,
VIS-2): how a description resolves to a card, and what it binds, and when."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import replace

from cardid_reference.cards import (
    CardDatabase,
    CardFacts,
    Description,
    Identity,
    Printing,
    normalize_name,
)
from cardid_reference.instances import Entry
from cardid_reference.writer import Writer

from . import mutant


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
