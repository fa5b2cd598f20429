"""Mutants of the name, printing and source-ID rules (NAME-*, PRINT-*, SRC-*): each resolves,
records or keeps one card fact the way a hurried parser author plausibly would."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import replace
from typing import Any

from cardid_reference.cards import CardDatabase, CardFacts, Description, Identity, Printing
from cardid_reference.instances import Entry
from cardid_reference.request import Observation, is_library
from cardid_reference.writer import Writer

from . import mutant

# --------------------------------------------------------------------------- NAME-7's order


class _NameBeforeSourceId(CardDatabase):
    def identify(self, description: Description) -> tuple[CardFacts | None, Printing | None]:
        if description.name is not None and description.printing is None:
            card, _ = super().identify(replace(description, source_id=None, printing=None))
            if card is not None:
                found, mapped = self.by_source_id.get(description.source_id or "", (None, None))
                return card, mapped if found is card else None
        return super().identify(description)


@mutant("name-before-source-id")
class NameBeforeSourceId(Writer):
    """Resolves a description showing a name and a source ID by its name first (NAME-7)."""

    DATABASE = _NameBeforeSourceId


class _PrintingBeforeSourceId(CardDatabase):
    def identify(self, description: Description) -> tuple[CardFacts | None, Printing | None]:
        if description.printing is not None:
            card = self.by_printing.get(self.printing_key(description.printing))
            if card is not None:
                found, mapped = self.by_source_id.get(description.source_id or "", (None, None))
                return card, mapped if found is card else None
        return super().identify(description)


@mutant("printing-before-source-id")
class PrintingBeforeSourceId(Writer):
    """Resolves a description's printing before its source ID (NAME-7)."""

    DATABASE = _PrintingBeforeSourceId


class _FaceBeforeOracleName(CardDatabase):
    def __init__(self, cards: Iterable[CardFacts]) -> None:
        super().__init__(cards)
        by_oracle, by_face, by_alias = self.by_name
        self.by_name = (by_face, by_oracle, by_alias)


@mutant("face-before-oracle-name")
class FaceBeforeOracleName(Writer):
    """Looks a name up among the cards' face names before their Oracle names (NAME-7)."""

    DATABASE = _FaceBeforeOracleName


# --------------------------------------------------------------------------- names shown


class _AliasesIgnored(CardDatabase):
    def __init__(self, cards: Iterable[CardFacts]) -> None:
        super().__init__(cards)
        self.by_name = self.by_name[:2]


@mutant("aliases-ignored")
class AliasesIgnored(Writer):
    """Never looks a name up among the cards' aliases, so a localized or flavor name is kept as shown (NAME-1)."""

    DATABASE = _AliasesIgnored


class _AsciiNameTakenAsEnglish(CardDatabase):
    def identify(self, description: Description) -> tuple[CardFacts | None, Printing | None]:
        if description.name is None or not description.name.isascii():
            return super().identify(description)
        steps = self.by_name
        self.by_name = steps[:2]
        try:
            return super().identify(description)
        finally:
            self.by_name = steps


@mutant("ascii-name-taken-as-english")
class AsciiNameTakenAsEnglish(Writer):
    """Looks a name up among aliases only when it has a character beyond ASCII, keeping an ASCII flavor or localized name (NAME-1)."""

    DATABASE = _AsciiNameTakenAsEnglish


@mutant("transform-names-face-up")
class TransformNamesFaceUp(Writer):
    """Renames a card that transforms to the face now up, as the client's card title shows it (NAME-2, NAME-5)."""

    def on_transform(self, obs: Observation) -> str:
        iid = super().on_transform(obs)
        description = obs.description("card")
        if description is not None and description.name is not None:
            self.entries[iid] = replace(self.entries[iid], name=self.database.shown_name(description.name))
        return iid


@mutant("meld-named-as-double-faced")
class MeldNamedAsDoubleFaced(Writer):
    """Names a meld card "front // melded permanent" once it melds, as if it were a double-faced card (NAME-3, NAME-5)."""

    def on_meld(self, obs: Observation) -> str:
        iid = super().on_meld(obs)
        melded = obs.description("melded")
        entry = self.entries[iid]
        back = None if melded is None else self.database.resolve(melded).name
        if back is not None and entry.name is not None:
            self.entries[iid] = replace(entry, name=f"{entry.name} // {back}")
        return iid


@mutant("become-copy-marks-copy")
class BecomeCopyMarksCopy(Writer):
    """Marks a card that becomes a copy of another as kind copy, keeping its name (NAME-5)."""

    def on_become_copy(self, obs: Observation) -> str:
        iid = super().on_become_copy(obs)
        self.entries[iid] = replace(self.entries[iid], kind="copy")
        return iid


# --------------------------------------------------------------------------- printings


class _UniquePrintingGuessed(CardDatabase):
    def recorded_printing(
        self, description: Description, card: CardFacts | None, mapped: Printing | None
    ) -> Printing | None:
        shown = super().recorded_printing(description, card, mapped)
        if shown is None and card is not None and len(card.printings) == 1:
            return card.printings[0].printing
        return shown


@mutant("unique-printing-guessed")
class UniquePrintingGuessed(Writer):
    """Records a card's printing from the card database when it lists only one and the source showed none (PRINT-3)."""

    DATABASE = _UniquePrintingGuessed


@mutant("copy-printing-recorded")
class CopyPrintingRecorded(Writer):
    """Records the printing a copy's description shows or its source ID maps to, as for a card (PRINT-3)."""

    def bind(self, entry: Entry, identity: Identity, index: int) -> Entry:
        bound = super().bind(entry, identity, index)
        if entry.kind != "copy" or bound.printing is not None or bound.name != (identity.name or bound.name):
            return bound
        return replace(bound, printing=identity.printing)


@mutant("source-id-printing-replaces-bound")
class SourceIdPrintingReplacesBound(Writer):
    """Takes the printing from every source ID shown, replacing a printing bound before (PRINT-4, which the suite reports under PRINT-2)."""

    def describe(self, iid: str, description: Description | None, index: int) -> None:
        super().describe(iid, description, index)
        if description is None or description.source_id is None:
            return
        card, mapped = self.database.by_source_id.get(description.source_id, (None, None))
        entry = self.entries[iid]
        if card is not None and mapped is not None and entry.kind == "card" and entry.name == self.database.oracle_name(card):
            self.entries[iid] = replace(entry, printing=mapped)


# --------------------------------------------------------------------------- source IDs


class _SourceIdPrefixStripped(CardDatabase):
    def resolve(self, description: Description) -> Identity:
        identity = super().resolve(description)
        return replace(identity, source_ids=tuple(s.split(":", 1)[-1] for s in identity.source_ids))


@mutant("source-id-prefix-stripped")
class SourceIdPrefixStripped(Writer):
    """Records a source ID's value without its prefix, 70216 for mtgo:70216 (SRC-1)."""

    DATABASE = _SourceIdPrefixStripped


@mutant("source-ids-per-card-name")
class SourceIdsPerCardName(Writer):
    """Keeps source IDs per card name, so every instance of a card lists the IDs shown for any of them (SRC-1)."""

    def run(self) -> dict[str, Any]:
        result = super().run()
        by_name: dict[str, list[str]] = {}
        for entry in result["card_table"]:
            if entry["name"] is not None:
                known = by_name.setdefault(entry["name"], [])
                known += [s for s in entry["source_ids"] if s not in known]
        for entry in result["card_table"]:
            if entry["name"] is not None:
                entry["source_ids"] = list(by_name[entry["name"]])
        return result


@mutant("handle-relinked-by-source-id")
class HandleRelinkedBySourceId(Writer):
    """Takes an unseen handle shown with the source ID of a card in view for that card, as if the source had renumbered it (SRC-2)."""

    def new_card(self, obs: Observation, *, seen_in: str, goes_to: str | None) -> str:
        card = obs.description("card")
        if card is not None and card.source_id is not None:
            for iid, zone in self.zone_of.items():
                if not is_library(zone) and card.source_id in self.entries[iid].source_ids:
                    return iid
        return super().new_card(obs, seen_in=seen_in, goes_to=goes_to)
