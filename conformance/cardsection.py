"""The card database section of a writer case: no step of NAME-7 may match two cards."""

from __future__ import annotations

import unicodedata
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True, slots=True, kw_only=True)
class Ambiguity:
    """One key that a resolution step (NAME-7) finds under two cards of the section."""

    step: str
    key: str
    cards: tuple[int, int]  # the indices of the first two cards listing it

    def __str__(self) -> str:
        first, second = self.cards
        return (
            f"input.cards: {self.step} {self.key!r} is listed for cards[{first}] and "
            f"cards[{second}], so a description would match two cards at the same step (NAME-7)"
        )


def _name(text: str) -> str:
    """Names compare after NFC, with U+2019 read as U+0027 (NAME-6)."""
    return unicodedata.normalize("NFC", text.replace("\u2019", "'"))


def _keys(card: Mapping[str, Any]) -> Iterator[tuple[str, str]]:
    """Every (step, key) under which a description can find this card, once each."""
    seen: set[tuple[str, str]] = set()
    printings = card.get("printings", ())
    found = [("source ID", source_id) for p in printings for source_id in p.get("source_ids", ())]
    found += [("printing", f"{p['set'].upper()} {p['number']}") for p in printings]
    found.append(("Oracle name", _name(card["name"])))
    found += [("face name", _name(face)) for face in card.get("faces", ())]
    found += [("alias", _name(alias)) for alias in card.get("aliases", ())]
    for key in found:
        if key not in seen:  # a source ID under two printings of one card is allowed
            seen.add(key)
            yield key


def ambiguities(cards: Sequence[Mapping[str, Any]]) -> list[Ambiguity]:
    """The keys that one step of NAME-7 finds under two different cards, in listed order."""
    first_card: dict[tuple[str, str], int] = {}
    found = []
    for index, card in enumerate(cards):
        for key in _keys(card):
            owner = first_card.setdefault(key, index)
            if owner != index:
                found.append(Ambiguity(step=key[0], key=key[1], cards=(owner, index)))
    return found
