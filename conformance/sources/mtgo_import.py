"""Reading MTGO game-log text as a writer request for one player (observations.md, "MTGO game
logs").

MTGO writes one event a line, and a card as `@[Name@:CATALOG,HANDLE:@]`. The text shows far
less than the game: no resolutions, deaths or searched cards arriving, no handle for a drawn card,
no owner for a card in a shared zone. The importer writes what each line shows, and what the
lines imply but do not print, as a writer needs it (REQ-1): a handle is used only in the zone the
importer last put it in, and an object a line names somewhere else is first moved there (a spell
whose ability is activated has resolved). Each such inference, and each owner guessed from the
player a line names, is said in the observation's note.

`Handles` is the model both directions share: the handles a writer holds and where, kept the way
card-identity.md ends them, so the renderer knows what its text will read back as.

Lines of a shape the importer does not know are skipped and counted, never an error; the
shapes it knows but that show no card object (die rolls, who plays first, concessions, turns)
write nothing. Only text that is no MTGO log of the perspective player at all is a LogError.
"""

from __future__ import annotations

import copy
import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any

from cardid_conformance.sources.common import Imported, LogError

#: A card reference: the name shown, the catalogue number (printing and finish; 0 or empty for
#: some tokens) and the object handle.
REFERENCE = re.compile(r"@\[(?P<name>.*?)@:(?P<catalog>\d*),(?P<handle>\d+):@\]")
#: The shapes below match a line with each card reference replaced by this marker around its
#: index (a character no MTGO text holds), and with the " token" that follows a token dropped.
_MARK = "\x00"
_TOKEN_SUFFIX = re.compile(r"\x00(\d+)\x00 token\b")
_MARKED = re.compile(r"\x00(\d+)\x00")
#: A player's name as a request may hold it (the writer-input schema).
_PLAYER = re.compile(r"[A-Za-z0-9_.-]+")
_NUMBERS = {
    "a": 1, "an": 1, "one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6,
    "seven": 7, "eight": 8, "nine": 9, "ten": 10,
}


def count_word(word: str) -> int | None:
    """`a`, `two`, `7`: how many cards or tokens a line says, None when it is no number."""
    if word.isdigit():
        return int(word)
    return _NUMBERS.get(word.lower())


def zone_player(zone: str) -> str | None:
    """The player of a library, hand or graveyard; None for a shared zone."""
    kind, _, player = zone.partition(":")
    return player if kind in ("library", "hand", "graveyard") and player else None


def is_library(zone: str) -> bool:
    """Whether the zone is a library, where positions decide and no handle is held."""
    return zone.startswith("library:")


def introduced_owner(observation: Mapping[str, Any]) -> str | None:
    """The owner OWN-1 gives an object the observation introduces: its `owner`; else, for a
    move, the player of the hand, library or graveyard it goes to, else of the one it leaves;
    for a reveal, mention or vanish, the player of its zone."""
    if observation.get("owner"):
        return str(observation["owner"])
    if observation["type"] == "move":
        return zone_player(observation["to"]) or zone_player(observation["from"])
    return zone_player(observation.get("zone", ""))


@dataclass(frozen=True, slots=True, kw_only=True)
class Held:
    """An object a writer holds under a handle: its zone, owner and kind, and the description
    last shown for it (None: nothing has named it yet)."""

    zone: str
    owner: str | None
    kind: str
    card: Mapping[str, Any] | None


class Handles:
    """The handles a writer holds, outside libraries, after each observation: the REQ rules'
    "held" (card-identity.md). A handle is let go where its ID ends: a new game, a mulligan of
    its hand, a move into a library (positions decide there), a token or copy leaving the
    battlefield (E8), a copy leaving the stack and the battlefield (E9), a vanish (E16). This
    follows a source with hidden tracking, which is all an MTGO log is."""

    def __init__(self) -> None:
        self._held: dict[str, Held] = {}

    def get(self, handle: str) -> Held | None:
        """The object held under the handle, None when none is."""
        return self._held.get(handle)

    def introduces(self, observation: Mapping[str, Any]) -> bool:
        """Whether the observation shows an object no handle held so far names: its `owner` and
        `kind` are read (OWN-1, TOK-6)."""
        if observation["type"] not in ("move", "reveal", "mention", "vanish"):
            return False
        return "object" in observation and observation["object"] not in self._held

    def observe(self, observation: Mapping[str, Any]) -> None:
        """Advance past one observation."""
        kind = observation["type"]
        handle = observation.get("object")
        if kind in ("game_start", "restart"):
            carried = set(observation.get("carried", ()))
            self._held = {h: held for h, held in self._held.items() if h in carried}
        elif kind == "mulligan":
            hand = f"hand:{observation['player']}"
            self._held = {h: held for h, held in self._held.items() if held.zone != hand}
        elif kind == "move" and handle is not None:
            self._moved(observation, handle)
        elif kind in ("reveal", "mention") and handle is not None:
            zone = observation["zone"]
            held = self._held.get(handle) or Held(
                zone=zone, owner=introduced_owner(observation),
                kind=observation.get("kind", "card"), card=None,
            )
            if not is_library(zone):
                self._held[handle] = replace(held, card=observation.get("card", held.card))
        elif kind == "vanish" and handle is not None:
            self._held.pop(handle, None)
        elif kind in ("create_token", "create_copy") and handle is not None:
            default = "battlefield" if kind == "create_token" else "stack"
            zone = observation.get("zone", default)
            if not is_library(zone):
                self._held[handle] = Held(
                    zone=zone, owner=observation.get("owner"),
                    kind="token" if kind == "create_token" else "copy",
                    card=observation.get("card"),
                )
        elif handle is not None and handle in self._held and "card" in observation:
            self._held[handle] = replace(self._held[handle], card=observation["card"])

    def _moved(self, observation: Mapping[str, Any], handle: str) -> None:
        held = self._held.pop(handle, None)
        if held is None:
            held = Held(
                zone=observation["from"], owner=introduced_owner(observation),
                kind=observation.get("kind", "card"), card=None,
            )
        source, destination = observation["from"], observation["to"]
        if is_library(destination):
            return
        if held.kind != "card" and source == "battlefield" and destination != "battlefield":
            return
        if held.kind == "copy" and destination not in ("stack", "battlefield"):
            return
        arrival = observation.get("new_object", handle)
        self._held[arrival] = replace(
            held, zone=destination, card=observation.get("card", held.card)
        )


@dataclass(frozen=True, slots=True, kw_only=True)
class Reference:
    """One card reference of a line: the name and catalogue number shown, the handle, and
    whether MTGO marked it a token (`@[Zombie@:...]` followed by ` token`)."""

    name: str
    catalog: str
    handle: str
    token: bool


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


_NAMING_LINE = re.compile(
    r"(?P<p>[^\s\x00']+) (?:rolled a \d+|joined the game)\.|Turn \d+: (?P<t>[^\s\x00']+)"
)


def _players(lines: Sequence[str], sidecar: Mapping[str, Any] | None) -> tuple[str, ...]:
    """The sidecar's players, else those the log names as it seats them."""
    if sidecar is not None:
        if sidecar.get("format") != "mtgo" or not isinstance(sidecar.get("players"), list):
            raise LogError("sidecar", "not an MTGO sidecar (format `mtgo`, with `players`)")
        return tuple(str(player) for player in sidecar["players"])
    found: dict[str, None] = {}
    for number, line in enumerate(lines, start=1):
        match = _NAMING_LINE.fullmatch(line.strip())
        if match:
            name = match.group("p") or match.group("t")
            if not _PLAYER.fullmatch(name):
                raise LogError(f"line {number}", f"player name {name!r} cannot be written")
            found.setdefault(name, None)
    return tuple(found)


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
_COMPILED = tuple(
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
_REFERENCE_LIST = re.compile(r"\x00\d+\x00(?:(?:,| and|, and) \x00\d+\x00)*")
_CREATED = re.compile(r"(?P<n>\w+) (?P<name>.+?) [Tt]okens?")
_COPY_TOKEN = re.compile(r"a token that's a copy of \x00(?P<c>\d+)\x00")
#: Ability text that says the permanent is on the battlefield, so a spell it names resolved.
_ENTERS = re.compile(r"\benters\b", re.IGNORECASE)
_SHUFFLES = re.compile(r"\bthen shuffle", re.IGNORECASE)


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
        return f"{_MARK}{len(references) - 1}{_MARK}"

    marked = REFERENCE.sub(marker, line.strip())
    for index in _TOKEN_SUFFIX.findall(marked):
        references[int(index)] = replace(references[int(index)], token=True)
    return _TOKEN_SUFFIX.sub(lambda m: f"{_MARK}{m.group(1)}{_MARK}", marked), references


class _Reader:
    """The state of one reading: what the observations so far hold, and the game."""

    def __init__(
        self, *, players: tuple[str, ...], perspective: str, sidecar: Mapping[str, Any] | None
    ) -> None:
        self.players = players
        self.perspective = perspective
        self.descriptions: Mapping[str, Any] = sidecar.get("descriptions", {}) if sidecar else {}
        self.observations: list[dict[str, Any]] = []
        self.places: list[str] = []
        self.notes: list[str | None] = []
        self.skipped: list[int] = []
        self.handles = Handles()
        self.joined: set[str] = set()
        self.games = 0
        self.attacked: str | None = None  # the player last attacked, whose creatures block
        self.line = "line 0"  # the place of the line being read
        self.handlers: dict[str, Callable[[re.Match[str], list[Reference], str], bool]] = {
            name[3:]: getattr(self, name) for name in dir(self) if name.startswith("on_")
        }

    # ------------------------------------------------------------------ lines

    def read(self, line: str, number: int) -> None:
        """Write the observations one line shows; skip it when no known shape matches."""
        marked, references = mark(line)
        self.line = f"line {number}"
        for handler, shape in _COMPILED:
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

    def emit(self, observation: dict[str, Any], note: str | None = None) -> None:
        self.handles.observe(observation)
        self.observations.append(observation)
        self.places.append(self.line)
        self.notes.append(note)

    def card(self, reference: Reference) -> dict[str, Any]:
        """The description a reference shows: the sidecar's for its catalogue number, else the
        name and catalogue number as shown."""
        described = self.descriptions.get(reference.catalog)
        if described is not None:
            return dict(copy.deepcopy(described))
        if reference.catalog.strip("0"):
            return {"name": reference.name, "source_id": f"mtgo:{reference.catalog}"}
        return {"name": reference.name}

    def other_player(self, player: str) -> str | None:
        """The one opponent of a player in a two-player game; None in any other."""
        others = [other for other in self.players if other != player]
        return others[0] if len(others) == 1 else None

    # ------------------------------------------------------------------ writing observations

    def show(
        self, kind: str, reference: Reference, zone: str, owner: str | None, note: str | None
    ) -> None:
        """A reveal or mention of a reference in place; introducing it gives its owner and
        kind, and says so."""
        observation: dict[str, Any] = {
            "type": kind, "object": reference.handle, "zone": zone, "card": self.card(reference),
        }
        if self.handles.get(reference.handle) is None:
            if owner is not None:
                observation["owner"] = owner
            if reference.token:
                observation["kind"] = "token"
        else:
            note = None
        self.emit(observation, note)

    def move(
        self,
        reference: Reference,
        *,
        source: str,
        destination: Callable[[str], str] | str,
        owner: str,
        note: str | None = None,
    ) -> None:
        """A card moving from where the writer holds it (else from `source`, introducing it
        owned by `owner`) to `destination` (a zone, or one given by its owner)."""
        held = self.handles.get(reference.handle)
        card_owner = held.owner if held is not None and held.owner else owner
        start = held.zone if held is not None else source
        end = destination(card_owner) if callable(destination) else destination
        observation: dict[str, Any] = {
            "type": "move", "object": reference.handle, "from": start, "to": end,
            "card": self.card(reference),
        }
        if held is None:
            observation["owner"] = card_owner
            if reference.token:
                observation["kind"] = "token"
        elif start != source:
            note = (
                f"inferred: moved from {start}, where it was last shown (the line implies "
                f"{source})"
            )
        self.emit(observation, note)

    def bring(self, reference: Reference, zone: str, why: str) -> bool:
        """Move a held object a line names in `zone` there from where it was last shown (a
        move the log implies but does not print); True when it wrote one."""
        held = self.handles.get(reference.handle)
        if held is None or held.zone == zone:
            return False
        if held.zone == "stack" and zone == "battlefield":
            note = f"inferred: the spell resolved, since {why} (the log prints no resolution)"
        else:
            note = f"inferred: put from {held.zone} into {zone}, since {why}"
        self.emit(
            {
                "type": "move", "object": reference.handle, "from": held.zone, "to": zone,
                "card": self.card(reference),
            },
            note,
        )
        return True

    def source(
        self, reference: Reference, player: str, *, resolved: bool, what: str, whose: str
    ) -> None:
        """The card whose ability a line puts on the stack, or that a choice is made for: a
        mention where it is held; a permanent the log never showed arriving is introduced on
        the battlefield as the player's (`whose` says why); a spell on the stack that `what`
        shows as a permanent (`resolved`) has resolved."""
        held = self.handles.get(reference.handle)
        if held is not None and held.zone == "stack" and resolved:
            self.bring(reference, "battlefield", f"{what} shows it as a permanent")
            return
        zone = held.zone if held is not None else "battlefield"
        self.show(
            "mention", reference, zone, player,
            f"introduced: a permanent the log never showed arriving; owner taken as {player}, "
            f"{whose} (MTGO states no owners)",
        )

    def named_source(self, reference: Reference) -> None:
        """A card named as the source of an effect (`with @[...]'s ability`): a mention where
        it is held; nothing when the log never placed it."""
        held = self.handles.get(reference.handle)
        if held is not None:
            self.show("mention", reference, held.zone, None, None)

    def target(self, reference: Reference, player: str) -> None:
        """A card a spell or ability targets: a mention where it is held, else introduced on
        the battlefield as the other player's."""
        held = self.handles.get(reference.handle)
        if held is not None:
            self.show("mention", reference, held.zone, None, None)
            return
        owner = self.other_player(player) or player
        self.show(
            "mention", reference, "battlefield", owner,
            f"introduced: a target the log never showed; taken as a permanent of {owner}",
        )

    def combatant(self, reference: Reference, owner: str | None, what: str) -> None:
        """An attacker, blocker or attacked planeswalker: on the battlefield. One held
        elsewhere is first moved there (a creature spell that resolved); one never shown is
        introduced as `owner`'s, and skipped when the line does not tell whose it is."""
        if self.bring(reference, "battlefield", f"it {what}"):
            return
        if self.handles.get(reference.handle) is None and owner is None:
            return
        self.show(
            "mention", reference, "battlefield", owner,
            f"introduced: a permanent the log never showed arriving; owner taken as {owner}, "
            f"whose side it {what} on (MTGO states no owners)",
        )

    def unseen(self, count: int, source: str, destination: str, **positions: str) -> None:
        """Moves of cards the line shows without a handle (LIB-8)."""
        for _ in range(count):
            self.emit({"type": "move", "from": source, "to": destination, **positions})

    def shuffle_if_said(self, text: str, player: str) -> None:
        """A shuffle, when the ability text the line quotes says one (`then shuffle`)."""
        if _SHUFFLES.search(text):
            self.emit(
                {"type": "shuffle", "zone": f"library:{player}"},
                "inferred: the ability text says `then shuffle` (MTGO prints no shuffle)",
            )

    def listed(self, text: str, references: list[Reference]) -> list[Reference] | None:
        """The references a list (`A`, `A and B`, `A, B, and C`) names; None when the text is
        not such a list."""
        if not _REFERENCE_LIST.fullmatch(text):
            return None
        return [references[int(index)] for index in _MARKED.findall(text)]

    def targets(self, text: str, references: list[Reference], player: str) -> None:
        """The cards after `targeting`, before the ability text (players are not objects)."""
        before, _, _ = text.partition("(")
        _, found, targets = before.partition("targeting ")
        if found:
            for index in _MARKED.findall(targets):
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
            references[int(match.group("c"))], player, resolved=bool(_ENTERS.search(text)),
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

    def reveal(self, reference: Reference, player: str) -> None:
        """A card revealed: where the writer holds it, else in the player's hand (a revealed
        hand, or a card a search reveals on its way there)."""
        held = self.handles.get(reference.handle)
        zone = held.zone if held is not None else f"hand:{player}"
        self.show("reveal", reference, zone, None, None)

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
        copied = _COPY_TOKEN.fullmatch(what)
        if copied is not None:
            count, name = 1, references[int(copied.group("c"))].name
            note: str | None = (
                "the token is a copy of the card named; a token created with no handle cannot "
                "name its original (TOK-6), so it is described by the original's name"
            )
        else:
            created = _CREATED.fullmatch(what)
            number = count_word(created.group("n")) if created is not None else None
            if created is None or number is None or _MARK in created.group("name"):
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

