"""Mutants of the name rules (NAME-1 to NAME-6): the name a card is recorded under, the card
database's, across faces, Alchemy rebalancing, copies, melds and Unicode forms (spec 1.0.0)."""

from __future__ import annotations

import unicodedata
from dataclasses import replace

from cardid_reference.cards import (
    CardDatabase,
    CardFacts,
    Description,
    Identity,
)
from cardid_reference.instances import Entry
from cardid_reference.request import Observation
from cardid_reference.writer import Writer

from . import mutant


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
