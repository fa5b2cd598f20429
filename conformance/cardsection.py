"""The card database section of a writer case: no step of NAME-7 may match two cards, and no
source ID may denote two printings."""

from __future__ import annotations

import unicodedata
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True, slots=True, kw_only=True)
class Ambiguity:
    """One key that a resolution step (NAME-7) finds twice: under two cards of the section, or
    (a source ID) under two printings."""

    step: str
    key: str
    cards: tuple[int, int]  # the indices of the first two cards listing it

    def __str__(self) -> str:
        first, second = self.cards
        if first == second:
            return (
                f"input.cards[{first}]: {self.step} {self.key!r} is listed under two printings, "
                "so a description showing it would identify no one printing (NAME-7)"
            )
        return (
            f"input.cards: {self.step} {self.key!r} is listed for cards[{first}] and "
            f"cards[{second}], so a description would match two cards at the same step (NAME-7)"
        )


def _name(text: str) -> str:
    """Names compare after NFC, with U+2019 read as U+0027 (NAME-6)."""
    return unicodedata.normalize("NFC", text.replace("\u2019", "'"))


def _keys(card: Mapping[str, Any]) -> Iterator[tuple[str, str]]:
    """Every (step, key) under which a description can find this card, each time it is listed."""
    printings = card.get("printings", ())
    for printing in printings:
        for source_id in set(printing.get("source_ids", ())):
            yield "source ID", source_id
    for printing in {(p["set"].upper(), p["number"]) for p in printings}:
        yield "printing", " ".join(printing)
    # A card may list one name under several steps (an alias equal to a face name): each step
    # is looked at on its own, so one card never conflicts with itself over a name.
    names = {("Oracle name", _name(card["name"]))}
    names |= {("face name", _name(face)) for face in card.get("faces", ())}
    names |= {("alias", _name(alias)) for alias in card.get("aliases", ())}
    yield from sorted(names)


def ambiguities(cards: Sequence[Mapping[str, Any]]) -> list[Ambiguity]:
    """The keys that one step of NAME-7 finds twice, in listed order."""
    first_card: dict[tuple[str, str], int] = {}
    found = []
    for index, card in enumerate(cards):
        for key in _keys(card):
            if key in first_card:
                found.append(Ambiguity(step=key[0], key=key[1], cards=(first_card[key], index)))
            else:
                first_card[key] = index
    return found
