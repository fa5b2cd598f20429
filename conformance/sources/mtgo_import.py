"""Reading MTGO game-log text as a writer request for one player (observations.md, "MTGO game
logs").

The lines are read one by one: each card reference marked and the line matched against the shapes
MTGO writes (`mtgo_log`), and a line of a known shape handed to its handler here, which writes what
the line shows through `mtgo_inference.Inference`; that writes, too, what the lines imply but do
not print, and says so in the observation's note. `mtgo_handles.Handles` is the model of the
handles held that the importer and the renderer share.

Lines of a shape the importer does not know are skipped and counted, never an error; the
shapes it knows but that show no card object (die rolls, who plays first, concessions, turns)
write nothing. Only text that is no MTGO log of the perspective player at all is a LogError.
"""

from __future__ import annotations

import copy
import re
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from cardid_conformance.sources.common import Imported, LogError
from cardid_conformance.sources.mtgo_inference import Inference
from cardid_conformance.sources.mtgo_log import (
    COPY_TOKEN,
    CREATED,
    ENTERS,
    LINE_SHAPES,
    MARK,
    MARKED,
    NAMING_LINE,
    PLAYER,
    REFERENCE_LIST,
    Reference,
    count_word,
    mark,
)


def import_log(text: str, perspective: str, sidecar: Mapping[str, Any] | None = None) -> Imported:
    """Read MTGO game-log text as a writer request for `perspective`; the lines passed over as
    not understood are its `skipped` places.

    The players are the sidecar's, else those the text names (rolls, joins, turns) in order of
    first appearance. With a sidecar, `cards` is its card section and a catalogue number it
    lists stands for its exact description; else a card is described as shown, `{name,
    source_id: "mtgo:CATALOG"}` (the name alone for catalogue 0). LogError when the perspective
    is no player of the log, or when no line of non-empty text is an MTGO game-log line."""
    lines = text.splitlines()
    players = _players(lines, sidecar)
    if perspective not in players:
        raise LogError(
            "line 1",
            f"{perspective!r} is not a player of this log (its players: "
            f"{', '.join(players) or 'none named'})",
        )
    reader = _Reader(players=players, perspective=perspective, sidecar=sidecar)
    for number, line in enumerate(lines, start=1):
        if line.strip():
            reader.read(line, number)
    if lines and len(reader.skipped) == sum(1 for line in lines if line.strip()):
        raise LogError("line 1", "no line of this text is an MTGO game-log line")
    request = {
        "role": "writer",
        "perspective": perspective,
        "players": list(players),
        "source": {"name": "mtgo", "hidden_tracking": True},
        "cards": copy.deepcopy(list(sidecar.get("cards", ()))) if sidecar else [],
        "observations": reader.observations,
    }
    return Imported(
        request=request, places=tuple(reader.places), notes=tuple(reader.notes),
        skipped=tuple(f"line {number}" for number in reader.skipped),
    )


def _players(lines: Sequence[str], sidecar: Mapping[str, Any] | None) -> tuple[str, ...]:
    """The sidecar's players, else those the log names as it seats them."""
    if sidecar is not None:
        if sidecar.get("format") != "mtgo" or not isinstance(sidecar.get("players"), list):
            raise LogError("sidecar", "not an MTGO sidecar (format `mtgo`, with `players`)")
        return tuple(str(player) for player in sidecar["players"])
    found: dict[str, None] = {}
    for number, line in enumerate(lines, start=1):
        match = NAMING_LINE.fullmatch(line.strip())
        if match:
            name = match.group("p") or match.group("t")
            if not PLAYER.fullmatch(name):
                raise LogError(f"line {number}", f"player name {name!r} cannot be written")
            found.setdefault(name, None)
    return tuple(found)


class _Reader(Inference):
    """One reading, line by line: the lines passed over, the game so far, and each known line
    shape's handler."""

    def __init__(
        self, *, players: tuple[str, ...], perspective: str, sidecar: Mapping[str, Any] | None
    ) -> None:
        super().__init__(players=players, perspective=perspective, sidecar=sidecar)
        self.skipped: list[int] = []
        self.joined: set[str] = set()
        self.games = 0
        self.attacked: str | None = None  # the player last attacked, whose creatures block
        self.handlers: dict[str, Callable[[re.Match[str], list[Reference], str], bool]] = {
            name[3:]: getattr(self, name) for name in dir(self) if name.startswith("on_")
        }

    # ------------------------------------------------------------------ lines

    def read(self, line: str, number: int) -> None:
        """Write the observations one line shows; skip it when no known shape matches."""
        marked, references = mark(line)
        self.line = f"line {number}"
        for handler, shape in LINE_SHAPES:
            match = shape.fullmatch(marked)
            if match is None:
                continue
            player = match.groupdict().get("p")
            if player is not None and player not in self.players:
                continue
            if self.handlers[handler](match, references, player or ""):
                return
            break
        self.skipped.append(number)

    def listed(self, text: str, references: list[Reference]) -> list[Reference] | None:
        """The references a list (`A`, `A and B`, `A, B, and C`) names; None when the text is
        not such a list."""
        if not REFERENCE_LIST.fullmatch(text):
            return None
        return [references[int(index)] for index in MARKED.findall(text)]

    def targets(self, text: str, references: list[Reference], player: str) -> None:
        """The cards after `targeting`, before the ability text (players are not objects)."""
        before, _, _ = text.partition("(")
        _, found, targets = before.partition("targeting ")
        if found:
            for index in MARKED.findall(targets):
                self.target(references[int(index)], player)

    # ------------------------------------------------------------------ line handlers
    # Each returns True when it understood the line (it wrote what the line shows).

    def on_nothing(self, match: re.Match[str], references: list[Reference], player: str) -> bool:
        return True

    def on_joined(self, match: re.Match[str], references: list[Reference], player: str) -> bool:
        """A game starts with the first join, and again when a seated player joins anew."""
        if self.games == 0 or player in self.joined:
            self.games += 1
            self.joined = set()
            self.attacked = None
            self.emit({"type": "game_start", "game": self.games})
        self.joined.add(player)
        return True

    def on_mulligan(self, match: re.Match[str], references: list[Reference], player: str) -> bool:
        self.emit({"type": "mulligan", "player": player})
        return True

    def on_bottom(self, match: re.Match[str], references: list[Reference], player: str) -> bool:
        count = count_word(match.group("n"))
        if count is None:
            return False
        self.unseen(count, f"hand:{player}", f"library:{player}", position="bottom")
        return True

    def on_draws(self, match: re.Match[str], references: list[Reference], player: str) -> bool:
        count = count_word(match.groupdict().get("n") or "a")
        if count is None:
            return False
        if match.groupdict().get("s") is not None:
            self.named_source(references[int(match.group("s"))])
        self.unseen(count, f"library:{player}", f"hand:{player}", from_position="top")
        return True

    def on_plays(self, match: re.Match[str], references: list[Reference], player: str) -> bool:
        self.move(
            references[int(match.group("c"))], source=f"hand:{player}",
            destination="battlefield", owner=player,
        )
        return True

    def on_casts(self, match: re.Match[str], references: list[Reference], player: str) -> bool:
        rest = match.group("rest")
        before_text = rest.partition("(")[0]
        source = f"hand:{player}"
        if "from the graveyard" in before_text:
            source = f"graveyard:{player}"
        elif "from exile" in before_text:
            source = "exile"
        self.move(
            references[int(match.group("c"))], source=source, destination="stack", owner=player
        )
        self.targets(rest, references, player)
        self.shuffle_if_said(rest, player)
        return True

    def on_activates(
        self, match: re.Match[str], references: list[Reference], player: str
    ) -> bool:
        rest = match.group("rest")
        self.source(
            references[int(match.group("c"))], player, resolved=True,
            what="an activated ability of it", whose="whose ability it is",
        )
        self.targets(rest, references, player)
        self.shuffle_if_said(rest, player)
        return True

    def on_triggers(self, match: re.Match[str], references: list[Reference], player: str) -> bool:
        rest = match.group("rest")
        text = rest.partition("(")[2]
        self.source(
            references[int(match.group("c"))], player, resolved=bool(ENTERS.search(text)),
            what="its triggered ability on entering", whose="whose ability it is",
        )
        self.targets(rest, references, player)
        self.shuffle_if_said(rest, player)
        return True

    def on_discards(self, match: re.Match[str], references: list[Reference], player: str) -> bool:
        self.move(
            references[int(match.group("c"))], source=f"hand:{player}",
            destination=f"graveyard:{player}", owner=player,
        )
        return True

    def on_sacrifices(
        self, match: re.Match[str], references: list[Reference], player: str
    ) -> bool:
        reference = references[int(match.group("c"))]
        self.bring(reference, "battlefield", "it is sacrificed")
        self.move(
            reference, source="battlefield", destination=lambda owner: f"graveyard:{owner}",
            owner=player,
        )
        return True

    def on_reveals_hand(
        self, match: re.Match[str], references: list[Reference], player: str
    ) -> bool:
        text = match.group("list")
        shown = [] if text == "no cards" else self.listed(text, references)
        if shown is None:
            return False
        for reference in shown:
            self.reveal(reference, player)
        return True

    def on_reveals(self, match: re.Match[str], references: list[Reference], player: str) -> bool:
        self.reveal(references[int(match.group("c"))], player)
        return True

    def on_attacks(self, match: re.Match[str], references: list[Reference], player: str) -> bool:
        attackers = self.listed(match.group("list"), references)
        if attackers is None:
            return False
        self.attacked = player
        if match.groupdict().get("c") is not None:
            self.combatant(references[int(match.group("c"))], player, "is attacked")
        for attacker in attackers:
            self.combatant(attacker, self.other_player(player), "attacks")
        return True

    def on_blocks(self, match: re.Match[str], references: list[Reference], player: str) -> bool:
        defender = self.attacked
        self.combatant(references[int(match.group("c"))], defender, "blocks")
        attacker_side = self.other_player(defender) if defender is not None else None
        self.combatant(references[int(match.group("s"))], attacker_side, "attacks")
        return True

    def on_creates(self, match: re.Match[str], references: list[Reference], player: str) -> bool:
        what = match.group("what")
        copied = COPY_TOKEN.fullmatch(what)
        if copied is not None:
            count, name = 1, references[int(copied.group("c"))].name
            note: str | None = (
                "the token is a copy of the card named; a token created with no handle cannot "
                "name its original (TOK-6), so it is described by the original's name"
            )
        else:
            created = CREATED.fullmatch(what)
            number = count_word(created.group("n")) if created is not None else None
            if created is None or number is None or MARK in created.group("name"):
                return False
            count, name, note = number, created.group("name"), None
        if match.groupdict().get("s") is not None:
            self.named_source(references[int(match.group("s"))])
        for _ in range(count):
            self.emit(
                {"type": "create_token", "owner": player, "card": {"name": name}}, note
            )
        return True

    def on_gains_control(
        self, match: re.Match[str], references: list[Reference], player: str
    ) -> bool:
        reference = references[int(match.group("c"))]
        held = self.handles.get(reference.handle)
        if held is None:
            owner = self.other_player(player) or player
            self.show(
                "mention", reference, "battlefield", owner,
                f"introduced: a permanent the log never showed arriving; taken as {owner}'s, "
                "since its control changes to another player",
            )
        elif held.zone not in ("battlefield", "stack"):
            self.bring(reference, "battlefield", "its control changes")
        self.emit({"type": "control_change", "object": reference.handle, "controller": player})
        return True

    def on_returns(self, match: re.Match[str], references: list[Reference], player: str) -> bool:
        self.move(
            references[int(match.group("c"))], source="battlefield",
            destination=lambda owner: f"hand:{owner}", owner=player,
        )
        if match.groupdict().get("s") is not None:
            self.named_source(references[int(match.group("s"))])
        return True

    def on_exiles(self, match: re.Match[str], references: list[Reference], player: str) -> bool:
        exiled = self.listed(match.group("list"), references)
        if exiled is None:
            return False
        for reference in exiled:
            note = None
            if self.handles.get(reference.handle) is None:
                note = (
                    f"inferred: exiled from {player}'s graveyard, the log never having shown "
                    "it (MTGO may name the wrong player here, as for escape costs)"
                )
            self.move(
                reference, source=f"graveyard:{player}", destination="exile", owner=player,
                note=note,
            )
        if match.groupdict().get("s") is not None:
            self.named_source(references[int(match.group("s"))])
        return True

    def on_removed(self, match: re.Match[str], references: list[Reference], player: str) -> bool:
        self.move(
            references[int(match.group("c"))], source="stack",
            destination=lambda owner: f"graveyard:{owner}", owner=player,
        )
        return True

    def on_chooses(self, match: re.Match[str], references: list[Reference], player: str) -> bool:
        self.source(
            references[int(match.group("c"))], player, resolved=False, what="a choice for it",
            whose="who makes a choice for it",
        )
        return True

    def on_scrys(self, match: re.Match[str], references: list[Reference], player: str) -> bool:
        library = f"library:{player}"
        top, bottom = int(match.group("top")), int(match.group("bottom"))
        self.unseen(bottom, library, library, from_position="top", position="bottom")
        for end, count in (("top", top), ("bottom", bottom)):
            if count >= 2:
                self.emit(
                    {"type": "reorder", "zone": library, "end": end, "count": count},
                    f"inferred: the {count} cards scried to the {end} are in an order the text "
                    "does not show",
                )
        return True

    def on_on_top(self, match: re.Match[str], references: list[Reference], player: str) -> bool:
        count = count_word(match.group("n"))
        if count is None:
            return False
        self.unseen(count, f"hand:{player}", f"library:{player}", position="top")
        return True

    def on_to_hand(self, match: re.Match[str], references: list[Reference], player: str) -> bool:
        self.emit(
            {
                "type": "move", "from": f"library:{player}", "to": f"hand:{player}",
                "from_position": "unknown",
            },
            "inferred: a card the player looked at in the library, from a position the text "
            "does not show",
        )
        return True

