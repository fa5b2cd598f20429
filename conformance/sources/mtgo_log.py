"""MTGO's game-log text, both ways (observations.md, "MTGO game logs"): the card references a
line holds, the line shapes the importer reads, and the words and lines the renderer writes.

MTGO writes one event a line, and a card as `@[Name@:CATALOG,HANDLE:@]`. A line is matched with
each card reference marked (`mark`) against `LINE_SHAPES`, the first whole match deciding what
the line says; `move_line` is the line the renderer writes for a card's move.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, replace
from typing import Any

from cardid_conformance.sources.mtgo_handles import zone_player

#: A card reference: the name shown, the catalogue number (printing and finish; 0 or empty for
#: some tokens) and the object handle.
REFERENCE = re.compile(r"@\[(?P<name>.*?)@:(?P<catalog>\d*),(?P<handle>\d+):@\]")
#: The shapes below match a line with each card reference replaced by this marker around its
#: index (a character no MTGO text holds), and with the " token" that follows a token dropped.
MARK = "\x00"
_TOKEN_SUFFIX = re.compile(r"\x00(\d+)\x00 token\b")
MARKED = re.compile(r"\x00(\d+)\x00")
#: A player's name as a request may hold it (the writer-input schema).
PLAYER = re.compile(r"[A-Za-z0-9_.-]+")
_NUMBERS = {
    "a": 1, "an": 1, "one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6,
    "seven": 7, "eight": 8, "nine": 9, "ten": 10,
}


def count_word(word: str) -> int | None:
    """`a`, `two`, `7`: how many cards or tokens a line says, None when it is no number."""
    if word.isdigit():
        return int(word)
    return _NUMBERS.get(word.lower())


@dataclass(frozen=True, slots=True, kw_only=True)
class Reference:
    """One card reference of a line: the name and catalogue number shown, the handle, and
    whether MTGO marked it a token (`@[Zombie@:...]` followed by ` token`)."""

    name: str
    catalog: str
    handle: str
    token: bool


#: A line that names a player as the log seats them: a roll, a join, a turn.
NAMING_LINE = re.compile(
    r"(?P<p>[^\s\x00']+) (?:rolled a \d+|joined the game)\.|Turn \d+: (?P<t>[^\s\x00']+)"
)

#: Line shapes, matched against a line whose card references are marked (`{c}` one reference,
#: `{p}` the player the line is about). The first that matches the whole line decides it.
_SHAPES: tuple[tuple[str, str], ...] = (
    ("nothing", r"{p} rolled a \d+\."),
    ("joined", r"{p} joined the game\."),
    ("nothing", r"{p} chooses to (?:play|draw) first\."),
    ("nothing", r"{p} begins the game with \w+ cards? in hand\."),
    ("mulligan", r"{p} mulligans to \w+ cards?\."),
    ("bottom", r"{p} puts (?P<n>\w+) cards? on the bottom of their library"
               r"(?: and begins the game with \w+ cards? in hand)?\."),
    ("nothing", r"Turn \d+: {p}"),
    ("nothing", r"{p} skips their draw step\."),
    ("draws", r"{p} draws (?P<n>\w+) cards?(?: with {s}(?:'s ability)?)?\."),
    ("draws", r"{p} draws their next card\."),
    ("plays", r"{p} plays {c}\."),
    ("casts", r"{p} casts {c}(?P<rest>.*)"),
    ("activates", r"{p} activates an ability of {c}(?P<rest>.*)"),
    ("triggers", r"{p} puts triggered ability from {c} onto the stack(?P<rest>.*)"),
    ("discards", r"{p} discards {c}\."),
    ("sacrifices", r"{p} sacrifices {c}\."),
    ("reveals_hand", r"{p} reveals their hand to {s}, containing (?P<list>.*)\."),
    ("reveals", r"{p} reveals {c}\."),
    ("attacks", r"{p} ?'s {c} is being attacked by (?P<list>.*)\."),
    ("attacks", r"{p} is being attacked by (?P<list>.*)\."),
    ("blocks", r"{c} blocks {s}\."),
    ("creates", r"{p}'s {s} creates (?P<what>.*)\."),
    ("creates", r"{p} creates (?P<what>.*)\."),
    ("gains_control", r"{p} gains control of {c}\."),
    ("returns", r"{p} returns {c} to its owner's hand(?: with {s}'s ability)?\."),
    ("exiles", r"{p} exiles (?P<list>.*?)(?: with(?: with)? {s}'s ability)?\."),
    ("removed", r"{p}'s {c} is removed from the stack because it has no legal targets\."),
    ("nothing", r"{p} chooses a card from their hand\."),
    ("chooses", r"{p} chooses .+ for {c}\."),
    ("nothing", r"{p} has conceded from the game\."),
    ("scrys", r"{p} scrys (?P<n>\d+) \((?P<top>\d+) top, (?P<bottom>\d+) bottom\)\.?"),
    ("on_top", r"{p} puts (?P<n>\w+) cards? on top of their library\."),
    ("to_hand", r"{p} puts [^\x00]+ in their hand\."),
)
LINE_SHAPES = tuple(
    (
        handler,
        re.compile(
            shape.format(
                p=r"(?P<p>[^\s\x00']+)",
                c=r"\x00(?P<c>\d+)\x00",
                s=r"\x00(?P<s>\d+)\x00",
            )
        ),
    )
    for handler, shape in _SHAPES
)
#: A list of references: `A`, `A and B`, `A, B, and C`.
REFERENCE_LIST = re.compile(r"\x00\d+\x00(?:(?:,| and|, and) \x00\d+\x00)*")
CREATED = re.compile(r"(?P<n>\w+) (?P<name>.+?) [Tt]okens?")
COPY_TOKEN = re.compile(r"a token that's a copy of \x00(?P<c>\d+)\x00")
#: Ability text that says the permanent is on the battlefield, so a spell it names resolved.
ENTERS = re.compile(r"\benters\b", re.IGNORECASE)
SHUFFLES = re.compile(r"\bthen shuffle", re.IGNORECASE)


def mark(line: str) -> tuple[str, list[Reference]]:
    """The line with each card reference replaced by its index between markers, and the
    references."""
    references: list[Reference] = []

    def marker(match: re.Match[str]) -> str:
        references.append(
            Reference(
                name=match.group("name"), catalog=match.group("catalog"),
                handle=match.group("handle"), token=False,
            )
        )
        return f"{MARK}{len(references) - 1}{MARK}"

    marked = REFERENCE.sub(marker, line.strip())
    for index in _TOKEN_SUFFIX.findall(marked):
        references[int(index)] = replace(references[int(index)], token=True)
    return _TOKEN_SUFFIX.sub(lambda m: f"{MARK}{m.group(1)}{MARK}", marked), references


_WORDS = ("zero", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten")


def card_count(number: int) -> str:
    """How many cards a line moves: `a card`, `two cards`, `12 cards`."""
    if number == 1:
        return "a card"
    return f"{_WORDS[number] if number < len(_WORDS) else number} cards"


def hand_size(size: int) -> str:
    """A hand's size: `six cards`, `one card`, `zero cards`."""
    return "one card" if size == 1 else f"{_WORDS[size]} cards"


def position_word(value: Any) -> str:
    """A position as `top`, `bottom` or `other`: 1 is the top and -1 the bottom (a JSON number
    is its value, 1.0 too)."""
    if value in ("top", "bottom"):
        return str(value)
    if isinstance(value, int | float) and not isinstance(value, bool):
        if value == 1:
            return "top"
        if value == -1:
            return "bottom"
    return "other"


def move_line(
    source: str, destination: str, player: str, held: bool
) -> tuple[str, str] | None:
    """The line showing a card's move (a format of `player`, the player of the zone it leaves,
    else its owner; `owner`; `target`, the player of the zone it enters; `card`), and where the
    importer takes a card the log never showed to come from; None when no line shows it."""
    if destination == "battlefield":
        if source == "stack":
            # MTGO prints no resolution: an ability of the permanent implies it, and the
            # importer writes the move implied (only for a spell it saw on the stack).
            return "{owner} activates an ability of {card}.", ""
        if source.startswith("hand:") or (held and source != "battlefield"):
            return "{player} plays {card}.", f"hand:{player}"
        return None
    if destination == "stack":
        if source.startswith("graveyard:"):
            return (
                "{player} casts {card} from the graveyard using an alternate cost.",
                f"graveyard:{player}",
            )
        if source.startswith("hand:") or source in ("exile", "command"):
            return "{player} casts {card}.", f"hand:{player}"
        return None
    if destination.startswith("graveyard:"):
        if source == f"hand:{zone_player(destination)}":
            return "{target} discards {card}.", source
        if source == "battlefield":
            return "{target} sacrifices {card}.", source
        if source == "stack":
            return (
                "{target}'s {card} is removed from the stack because it has no legal targets.",
                source,
            )
        return None
    if destination.startswith("hand:") and not source.startswith("hand:"):
        return "{target} returns {card} to its owner's hand.", "battlefield"
    if destination == "exile":
        return "{player} exiles {card}.", f"graveyard:{player}"
    return None

