"""Rendering a writer request as the MTGO game-log text a client writes (observations.md, "MTGO
game logs").

Each observation becomes one line of a shape real MTGO logs hold, written so that the importer
(`mtgo_import`) reads it back as that observation, at that line; a game start is the players'
joins, a London mulligan's cards put on the bottom share its one line, and a shuffle rides on
the ability line just before it (`... then shuffle`). What MTGO text cannot show is
Inexpressible: library sizes, reorders and any handle in a library (MTGO prints draws, scries and
the bottoming without handles), linked handles (`new_object`), copies, token creations with a
handle, face-down cards, transforms and the other changes in place, vanishes, restarts, and a
request without hidden tracking (MTGO shows the opponent's revealed hand by handle, so its
importer declares hidden tracking).

The line chosen shows the zone change, not always the game's story. MTGO prints no resolution
and no death, so a spell resolving onto the battlefield is written as an ability of the
permanent (which the importer reads as the move it implies), a card put from the battlefield
into a graveyard as sacrificed, one from the stack as removed for want of targets, one put onto
the battlefield from anywhere but the stack as played; a return to the hand and an exile leave
out the `with @[...]'s ability` clause, the request naming no source. Strictness is checked, not
hoped for: the text is imported back, and the first observation that does not come back as
written, at its own line, makes the request Inexpressible there (`mtgo_readback`). The lines'
shapes and words are `mtgo_log`'s.

Card references: every reference shows a name and a catalogue number. Each distinct description
(canonical JSON) gets a catalogue number, N for the first description whose source ID is
`mtgo:N`, else one invented from 900001 up that no description's `mtgo:` ID uses, and prints its
name (or, without one, the name the card section lists for its source ID or printing); the
sidecar maps each number back to the exact description. An observation without `card` re-shows
the description last shown for the object it names, which binds nothing new (an instance binds
a description once, NAME-5, PRINT-4); an object nothing has described yet cannot be written.
Handles that are decimal numbers are kept; the others are numbered from the first free one.
"""

from __future__ import annotations

import copy
import json
import re
from collections.abc import Iterator, Mapping, Sequence
from typing import Any

from cardid_conformance.sources.common import Inexpressible, Rendering
from cardid_conformance.sources.mtgo_handles import (
    Handles,
    Held,
    introduced_owner,
    is_library,
    zone_player,
)
from cardid_conformance.sources.mtgo_log import card_count, hand_size, move_line, position_word
from cardid_conformance.sources.mtgo_readback import check_read_back

_MTGO_ID = re.compile(r"mtgo:([1-9][0-9]*)")
_NUMBER = re.compile(r"[1-9][0-9]*")
#: Invented catalogue numbers start here, above any real MTGO catalogue number so far.
FIRST_INVENTED = 900001
#: A hand holds seven cards before any mulligan (CR 103.4).
OPENING_HAND = 7
#: The text an ability line carries when a shuffle rides on it.
_SHUFFLE_TEXT = " ( Search your library for a card, then shuffle.)."

_WHY = {
    "restart": "MTGO text shows no restart (Karn Liberated) and no cards carried into the new game",
    "library_size": "MTGO text never shows a library's size",
    "reorder": "MTGO text shows no reorder of a library (a scry's order, cards put back in order)",
    "transform": "the renderer knows no MTGO line for a permanent transforming",
    "turn_face_up": "the renderer knows no MTGO line for a face-down card turned face up",
    "become_copy": "the renderer knows no MTGO line for a permanent becoming a copy",
    "meld": "the renderer knows no MTGO line for cards melding",
    "vanish": "MTGO text never shows an object disappearing with no destination",
    "create_copy": (
        "MTGO text prints no copy's creation: it names only the spell a copy effect targets"
    ),
}


def render(request: Mapping[str, Any]) -> Rendering:
    """The MTGO game log showing the request's observations to its perspective player, with its
    sidecar and the line of each observation; Inexpressible for what MTGO text cannot show."""
    if not request["source"]["hidden_tracking"]:
        raise Inexpressible(
            "MTGO text shows the handles of an opponent's revealed hand, so an MTGO log is "
            "read with hidden tracking; this request has none"
        )
    renderer = _Renderer(request)
    for index, observation in enumerate(request["observations"]):
        renderer.index = index
        renderer.write(observation)
        renderer.handles.observe(observation)
    rendering = Rendering(
        log="".join(f"{line}\n" for line in renderer.lines),
        sidecar=copy.deepcopy({
            "format": "mtgo",
            "players": list(request["players"]),
            "perspective": request["perspective"],
            "cards": request["cards"],
            "descriptions": renderer.descriptions,
        }),
        places=tuple(renderer.places),
    )
    check_read_back(request, rendering, renderer.numbers)
    return rendering


def _handles_of(request: Mapping[str, Any]) -> Iterator[str]:
    for observation in request["observations"]:
        for key in ("object", "new_object", "original", "permanent"):
            if key in observation:
                yield observation[key]
        for key in ("objects", "carried"):
            yield from observation.get(key, ())


def _numbers(request: Mapping[str, Any]) -> dict[str, str]:
    """The number MTGO text shows for each handle: its own when it is a decimal number, else the
    first number no handle uses, in order of appearance."""
    handles = list(dict.fromkeys(_handles_of(request)))
    used = {int(handle) for handle in handles if _NUMBER.fullmatch(handle)}
    numbers: dict[str, str] = {}
    free = 1
    for handle in handles:
        if _NUMBER.fullmatch(handle):
            numbers[handle] = handle
            continue
        while free in used:
            free += 1
        used.add(free)
        numbers[handle] = str(free)
    return numbers



class _Renderer:
    """The text written so far, and what it has shown."""

    def __init__(self, request: Mapping[str, Any]) -> None:
        self.request = request
        self.players: Sequence[str] = request["players"]
        self.cards: Sequence[Mapping[str, Any]] = request["cards"]
        self.lines: list[str] = []
        self.places: list[str | None] = []
        self.handles = Handles()
        self.numbers = _numbers(request)
        self.catalogs: dict[str, str] = {}  # a description's canonical JSON -> its number
        self.descriptions: dict[str, Any] = {}  # catalogue number -> description
        self.reserved = {
            int(match.group(1))
            for observation in request["observations"]
            for key in ("card", "copy_of", "melded")
            if isinstance(observation.get(key), Mapping)
            and (match := _MTGO_ID.fullmatch(str(observation[key].get("source_id", ""))))
        }
        self.next_invented = FIRST_INVENTED
        self.index = 0
        self.games = 0
        self.setup = False  # between a game's start and its first turn
        self.mulligans: dict[str, int] = {}
        self.bottom_line: tuple[str, int] | None = None  # a London bottoming line still open
        self.ability_line: tuple[str, int] | None = None  # a line a shuffle may ride on

    def fail(self, why: str) -> Inexpressible:
        return Inexpressible(why, observation=self.index)

    def line(self, text: str, *, setup: bool = False, ability_of: str | None = None) -> None:
        """Write the observation's line. The first line of a game that is not part of its
        setup (`setup`: a mulligan, the London bottoming) follows a `Turn 1` line; `ability_of`
        names the player whose ability text a shuffle right after may be written into."""
        if self.setup and not setup:
            self.setup = False
            self.lines.append(f"Turn 1: {self.players[0]}")
        self.lines.append(text)
        self.places.append(f"line {len(self.lines)}")
        self.bottom_line = None
        self.ability_line = None if ability_of is None else (ability_of, len(self.lines) - 1)

    # ------------------------------------------------------------------ card references

    def reference(self, observation: Mapping[str, Any]) -> str:
        """`@[Name@:CATALOG,HANDLE:@]` for the observation's object, ` token` after a token."""
        handle = observation["object"]
        held = self.handles.get(handle)
        card = observation.get("card") or (held.card if held is not None else None)
        if card is None:
            raise self.fail(
                "MTGO text names every card it refers to, and nothing before this observation "
                f"described the object {handle!r}"
            )
        kind = held.kind if held is not None else observation.get("kind", "card")
        if kind == "copy" and held is None:
            raise self.fail("MTGO text marks tokens (` token`) but not copies: no copy can be "
                            "introduced")
        catalog, name = self.catalog(card)
        suffix = " token" if kind == "token" else ""
        return f"@[{name}@:{catalog},{self.numbers[handle]}:@]{suffix}"

    def catalog(self, card: Mapping[str, Any]) -> tuple[str, str]:
        """The catalogue number and the name the text shows for a description."""
        key = json.dumps(card, sort_keys=True, ensure_ascii=False)
        name = self.printed_name(card)
        if key not in self.catalogs:
            match = _MTGO_ID.fullmatch(str(card.get("source_id", "")))
            if match and match.group(1) not in self.descriptions:
                number = match.group(1)
            else:
                while self.next_invented in self.reserved or str(self.next_invented) in (
                    self.descriptions
                ):
                    self.next_invented += 1
                number = str(self.next_invented)
                self.next_invented += 1
            self.catalogs[key] = number
            self.descriptions[number] = card
        return self.catalogs[key], name

    def printed_name(self, card: Mapping[str, Any]) -> str:
        """The description's name, else the name of the card its source ID or printing lists."""
        name = card.get("name") or self.listed_name(card)
        if name is None:
            raise self.fail(
                "MTGO text names every card, and this description shows no name and matches "
                "no card of the request's card section"
            )
        if "@" in name or any(char in name for char in "\r\n\x00"):
            raise self.fail(f"the name {name!r} cannot be written in an MTGO card reference")
        return str(name)

    def listed_name(self, card: Mapping[str, Any]) -> str | None:
        source_id, printing = card.get("source_id"), card.get("printing")
        for step in ("source_id", "printing"):
            for listed in self.cards:
                for known in listed.get("printings", ()):
                    if step == "source_id" and source_id in known.get("source_ids", ()):
                        return str(listed["name"])
                    if (
                        step == "printing" and printing is not None
                        and str(known["set"]).upper() == str(printing["set"]).upper()
                        and known["number"] == printing["number"]
                    ):
                        return str(listed["name"])
        return None

    def owner(self, observation: Mapping[str, Any], held: Held | None) -> str:
        """The owner of the object an observation names, as far as the request shows it."""
        owner = held.owner if held is not None else introduced_owner(observation)
        return owner or str(self.request["perspective"])

    # ------------------------------------------------------------------ observations

    def write(self, observation: Mapping[str, Any]) -> None:
        kind = observation["type"]
        if kind in _WHY:
            raise self.fail(_WHY[kind])
        getattr(self, f"write_{kind}")(observation)

    def write_game_start(self, observation: Mapping[str, Any]) -> None:
        self.games += 1
        if observation["game"] != self.games:
            raise self.fail(
                f"MTGO text numbers games by their order, so this game is game {self.games}, "
                f"not {observation['game']}"
            )
        self.setup = False
        self.line(f"{self.players[0]} joined the game.")
        self.lines.extend(f"{player} joined the game." for player in self.players[1:])
        self.setup = True
        self.mulligans = {}

    def write_mulligan(self, observation: Mapping[str, Any]) -> None:
        if observation.get("objects"):
            raise self.fail("MTGO text shows no handles for the hand cards a mulligan returns")
        player = observation["player"]
        count = self.mulligans.get(player, 0) + 1
        if count > OPENING_HAND:
            raise self.fail(f"MTGO text has no hand size to mulligan to after {count - 1}")
        self.mulligans[player] = count
        self.line(f"{player} mulligans to {hand_size(OPENING_HAND - count)}.", setup=True)

    def write_shuffle(self, observation: Mapping[str, Any]) -> None:
        player = zone_player(observation["zone"])
        if self.ability_line is None or self.ability_line[0] != player:
            raise self.fail(
                "MTGO prints a shuffle only as `then shuffle` in the text of the ability that "
                f"shuffles, and the line before it shows no ability of {player}'s"
            )
        at = self.ability_line[1]
        self.lines[at] = self.lines[at].removesuffix(".") + _SHUFFLE_TEXT
        self.places.append(f"line {at + 1}")
        self.ability_line = None

    def write_control_change(self, observation: Mapping[str, Any]) -> None:
        self.line(f"{observation['controller']} gains control of {self.reference(observation)}.")

    def write_create_token(self, observation: Mapping[str, Any]) -> None:
        if "object" in observation:
            raise self.fail("MTGO text prints a token's creation without the token's handle")
        if observation.get("zone", "battlefield") != "battlefield":
            raise self.fail("MTGO text shows tokens created on the battlefield only")
        card = observation.get("card")
        if card is None or set(card) != {"name"}:
            raise self.fail("MTGO text shows a created token by its name alone")
        name = str(card["name"])
        article = "an" if name[:1].lower() in "aeiou" else "a"
        self.line(f"{observation['owner']} creates {article} {name} token.")

    def write_reveal(self, observation: Mapping[str, Any]) -> None:
        zone = observation["zone"]
        if is_library(zone):
            raise self.fail("MTGO text shows no library card in place, nor any position")
        held = self.handles.get(observation["object"])
        if held is None and not zone.startswith("hand:"):
            raise self.fail(
                f"MTGO text shows a card it never placed as revealed from a hand, not in {zone}"
            )
        player = zone_player(zone) or self.owner(observation, held)
        self.line(f"{player} reveals {self.reference(observation)}.")

    def write_mention(self, observation: Mapping[str, Any]) -> None:
        zone = observation["zone"]
        held = self.handles.get(observation["object"])
        owner = self.owner(observation, held)
        if zone == "battlefield":
            self.line(
                f"{owner} activates an ability of {self.reference(observation)}.",
                ability_of=owner,
            )
            return
        if held is None:
            raise self.fail(
                "MTGO text names a card it never placed as a permanent on the battlefield, "
                f"not as a card in {zone}"
            )
        self.line(
            f"{owner} puts triggered ability from {self.reference(observation)} onto the stack.",
            ability_of=owner,
        )

    def write_move(self, observation: Mapping[str, Any]) -> None:
        if "object" not in observation:
            self.write_unseen_move(observation)
            return
        if "new_object" in observation:
            raise self.fail("MTGO text never links a handle to the new one a zone change gives")
        if observation.get("face_down"):
            raise self.fail("the renderer knows no MTGO line for a face-down card")
        source, destination = observation["from"], observation["to"]
        if is_library(source) or is_library(destination):
            raise self.fail(
                "MTGO text never shows the handle of a card leaving or entering a library"
            )
        held = self.handles.get(observation["object"])
        owner = self.owner(observation, held)
        player = zone_player(source) or owner
        shape = move_line(source, destination, player, held is not None)
        if shape is None:
            raise self.fail(
                f"MTGO text prints no line for a card moving from {source} to {destination}"
            )
        text, unseen_from = shape
        if held is None and source != unseen_from:
            if not unseen_from:
                raise self.fail(
                    "MTGO prints no resolution: the text implies one only by naming as a "
                    "permanent a spell it showed on the stack, and it never showed this one"
                )
            raise self.fail(
                f"MTGO text shows this move only for a card it showed in {source} before, or "
                f"for one coming from {unseen_from}"
            )
        line = text.format(
            player=player, owner=owner, target=zone_player(destination),
            card=self.reference(observation),
        )
        ability = " casts " in text or " activates " in text
        self.line(line, ability_of=player if ability else None)

    def write_unseen_move(self, observation: Mapping[str, Any]) -> None:
        """A move the source showed without a handle: a draw, a card put on top or on the
        bottom from the hand, a scry to the bottom (LIB-8)."""
        source, destination = observation["from"], observation["to"]
        player = zone_player(source)
        library, hand = f"library:{player}", f"hand:{player}"
        taken = position_word(observation.get("from_position", "unknown"))
        put = position_word(observation.get("position", "unknown"))
        if (source, destination, taken) == (library, hand, "top"):
            self.line(f"{player} draws a card.")
        elif (source, destination, put) == (hand, library, "bottom"):
            self.write_bottom(str(player))
        elif (source, destination, put) == (hand, library, "top"):
            self.line(f"{player} puts 1 card on top of their library.")
        elif (source, destination, taken, put) == (library, library, "top", "bottom"):
            self.line(f"{player} scrys 1 (0 top, 1 bottom).")
        else:
            raise self.fail(
                "MTGO text shows a card moved without its handle only as a draw from the top, "
                "a card put on the top or bottom of its owner's library from the hand, or a "
                "scry to the bottom"
            )

    def write_bottom(self, player: str) -> None:
        """A card put on the bottom from the hand: the London mulligan's line when it follows
        the player's mulligan before the first turn, one line for all the cards it puts there
        (no card is named, so they share it)."""
        mulligans = self.mulligans.get(player, 0)
        if not (self.setup and mulligans):
            self.line(f"{player} puts a card on the bottom of their library.")
            return
        count = 1
        if self.bottom_line is not None and self.bottom_line[0] == player:
            count = self.bottom_line[1] + 1
            self.lines.pop()
        self.line(
            f"{player} puts {card_count(count)} on the bottom of their library and begins the game "
            f"with {hand_size(OPENING_HAND - mulligans)} in hand.",
            setup=True,
        )
        self.bottom_line = (player, count)
