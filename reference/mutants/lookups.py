"""Mutants of card lookups and the names and printings recorded (NAME-1, NAME-4, NAME-6, NAME-7,
PRINT-3, SRC-1): which lookup step a description takes, Alchemy names, Unicode forms, a token's
printing and name, source IDs by their value."""

from __future__ import annotations

import unicodedata
from collections.abc import Iterable
from dataclasses import replace

from cardid_reference.cards import (
    CardDatabase,
    CardFacts,
    Description,
    Identity,
    Printing,
)
from cardid_reference.instances import Entry, Kind
from cardid_reference.request import Observation
from cardid_reference.writer import Writer

from . import mutant


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
