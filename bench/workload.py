"""Generated workloads for the benchmarks: long games as observation streams, and whole case files."""

from __future__ import annotations

import json
import random
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml
from cardid_conformance import suite
from cardid_conformance.cardtable import CardEntry
from cardid_conformance.cases import Case, Role, WriterExpectation
from cardid_conformance.spec import Level
from cardid_reference.adapter import answer

#: Token names arrive as shown: no card in the database section matches them.
TOKEN_NAMES = ("Soldier", "Goblin", "Treasure", "Zombie", "Spirit", "Elemental")
PLAYERS = ("P1", "P2")
PERSPECTIVE = "P1"


def card_pool(cases_dir: Path = suite.CASES_DIR) -> list[dict[str, Any]]:
    """The real card facts the corpus' writer cases already list, one entry per card name."""
    pool: dict[str, dict[str, Any]] = {}
    for path in sorted((cases_dir / "writer").glob("*.yaml")):
        data = yaml.load(path.read_text(encoding="utf-8"), Loader=yaml.CSafeLoader)
        for card in data["input"]["cards"]:
            pool.setdefault(card["name"], card)
    return list(pool.values())


@dataclass(slots=True)
class _Card:
    """A physical card in the simulated game: its facts and its current source handle."""

    facts: dict[str, Any]
    owner: str
    handle: str = ""
    token: bool = False


@dataclass(slots=True)
class Game:
    """A simulated game between two players, written as the observations a source would show.

    The perspective player sees their own draws; the opponent's cards are shown when they reach
    a public zone or are revealed. The mix (draws, lands, casts, combat deaths, tokens, bounces,
    exile, cards put back on top, scry, searches with shuffles, graveyard recycling, mulligans)
    follows a long, busy game; graveyards and exile keep growing, as in a real one.
    """

    rng: random.Random
    cards: Sequence[dict[str, Any]]
    arena: bool = True
    observations: list[dict[str, Any]] = field(default_factory=list)
    used: dict[str, dict[str, Any]] = field(default_factory=dict)
    _next: int = 100
    _turn: int = 0
    _hand: dict[str, list[_Card]] = field(default_factory=dict)
    _top: dict[str, list[_Card]] = field(default_factory=dict)
    _battlefield: list[_Card] = field(default_factory=list)
    _graveyard: dict[str, list[_Card]] = field(default_factory=dict)
    _exile: list[_Card] = field(default_factory=list)

    def __post_init__(self) -> None:
        for player in PLAYERS:
            self._hand[player], self._top[player], self._graveyard[player] = [], [], []

    # ------------------------------------------------------------------ the stream

    def play(self, length: int, *, opening: bool = True) -> list[dict[str, Any]]:
        """`length` observations of one game; without `opening`, it starts at the first turn."""
        self._emit({"type": "game_start", "game": 1})
        if opening:
            self._opening_hands()
        while len(self.observations) < length:
            self._take_turn(PLAYERS[self._turn % 2])
            self._turn += 1
        del self.observations[length:]
        return self.observations

    def _opening_hands(self) -> None:
        for player in PLAYERS:
            for _ in range(7):
                self._draw(player)
        self._emit({"type": "mulligan", "player": PERSPECTIVE})
        self._hand[PERSPECTIVE].clear()
        self._top[PERSPECTIVE].clear()
        for _ in range(6):
            self._draw(PERSPECTIVE)

    def _take_turn(self, player: str) -> None:
        rng = self.rng
        self._draw(player)
        if rng.random() < 0.8:
            self._play_land_or_spell(player, land=True)
        for _ in range(rng.choice((0, 1, 1, 2))):
            self._play_land_or_spell(player, land=False)
        if rng.random() < 0.25:
            self._token(player)
        if rng.random() < 0.5:
            self._dies()
        if rng.random() < 0.06:
            self._bounce()
        if rng.random() < 0.08:
            self._exile_from_graveyard(player)
        if rng.random() < 0.05:
            self._put_back_on_top(player)
        if rng.random() < 0.06:
            self._emit({"type": "reorder", "zone": f"library:{player}", "end": "top", "count": 2})
            self.rng.shuffle(self._top[player])
        if rng.random() < 0.06:
            self._search_and_shuffle(player)
        if rng.random() < 0.03 and self._hand["P2"]:
            card = rng.choice(self._hand["P2"])
            self._emit(
                {
                    "type": "reveal",
                    "object": card.handle,
                    "zone": "hand:P2",
                    "card": self._shown(card),
                }
            )
        if rng.random() < 0.005:
            self._recycle_graveyard(player)
        if rng.random() < 0.01:
            self._wrath()

    # ------------------------------------------------------------------ actions

    def _draw(self, player: str) -> None:
        card = self._top[player].pop(0) if self._top[player] else self._new_card(player)
        self._to_hand(card, player, "top", shown=player == PERSPECTIVE)

    def _to_hand(self, card: _Card, player: str, from_position: str, *, shown: bool) -> None:
        """A card leaves the library for its owner's hand, under a handle of its own."""
        card.handle = self._handle()
        obs: dict[str, Any] = {
            "type": "move",
            "object": card.handle,
            "from": f"library:{player}",
            "to": f"hand:{player}",
            "from_position": from_position,
        }
        if shown:
            obs["card"] = self._shown(card)
        self._emit(obs)
        self._hand[player].append(card)

    def _play_land_or_spell(self, player: str, *, land: bool) -> None:
        hand = self._hand[player]
        if not hand:
            return
        card = hand.pop(self.rng.randrange(len(hand)))
        if land:
            self._move(card, f"hand:{player}", "battlefield", shown=True)
            self._battlefield.append(card)
            return
        self._move(card, f"hand:{player}", "stack", shown=True)
        if self.rng.random() < 0.6:
            self._move(card, "stack", "battlefield")
            self._battlefield.append(card)
        else:
            self._move(card, "stack", f"graveyard:{card.owner}")
            self._graveyard[card.owner].append(card)

    def _token(self, player: str) -> None:
        facts = {"name": self.rng.choice(TOKEN_NAMES)}
        card = _Card(facts=facts, owner=player, handle=self._handle(), token=True)
        self._emit(
            {
                "type": "create_token",
                "object": card.handle,
                "owner": player,
                "card": {"name": facts["name"]},
            }
        )
        self._battlefield.append(card)

    def _dies(self) -> None:
        if not self._battlefield:
            return
        card = self._battlefield.pop(self.rng.randrange(len(self._battlefield)))
        self._move(card, "battlefield", f"graveyard:{card.owner}")
        if not card.token:  # a token ceases to exist there (TOK-2)
            self._graveyard[card.owner].append(card)

    def _bounce(self) -> None:
        cards = [c for c in self._battlefield if not c.token]
        if not cards:
            return
        card = self.rng.choice(cards)
        self._battlefield.remove(card)
        self._move(card, "battlefield", f"hand:{card.owner}")
        self._hand[card.owner].append(card)

    def _exile_from_graveyard(self, player: str) -> None:
        graveyard = self._graveyard[player]
        if graveyard:
            card = graveyard.pop(self.rng.randrange(len(graveyard)))
            self._move(card, f"graveyard:{player}", "exile")
            self._exile.append(card)

    def _put_back_on_top(self, player: str) -> None:
        hand = self._hand[player]
        for _ in range(min(2, len(hand))):
            card = hand.pop(self.rng.randrange(len(hand)))
            self._move(card, f"hand:{player}", f"library:{player}", position="top")
            self._top[player].insert(0, card)

    def _search_and_shuffle(self, player: str) -> None:
        self._to_hand(self._new_card(player), player, "unknown", shown=True)
        self._emit({"type": "shuffle", "zone": f"library:{player}"})
        self._top[player].clear()

    def _recycle_graveyard(self, player: str) -> None:
        graveyard = self._graveyard[player]
        for card in graveyard:
            self._move(card, f"graveyard:{player}", f"library:{player}", position="unknown")
        graveyard.clear()
        self._emit({"type": "shuffle", "zone": f"library:{player}"})
        self._top[player].clear()

    def _wrath(self) -> None:
        for card in list(self._battlefield):
            self._move(card, "battlefield", f"graveyard:{card.owner}")
            if not card.token:
                self._graveyard[card.owner].append(card)
        self._battlefield.clear()

    # ------------------------------------------------------------------ helpers

    def _move(
        self, card: _Card, src: str, dst: str, *, shown: bool = False, position: str | None = None
    ) -> None:
        obs: dict[str, Any] = {"type": "move", "object": card.handle, "from": src, "to": dst}
        if self.arena and not dst.startswith("library:"):
            # Arena renews the handle on every zone change and links the two.
            card.handle = obs["new_object"] = self._handle()
        if position is not None:
            obs["position"] = position
        if shown and not card.token:
            obs["card"] = self._shown(card)
        self._emit(obs)

    def _new_card(self, player: str) -> _Card:
        facts = self.rng.choice(self.cards)
        self.used[facts["name"]] = facts
        return _Card(facts=facts, owner=player)

    def _shown(self, card: _Card) -> dict[str, Any]:
        """How the source describes the card: by its own ID when it has one, else by name."""
        if card.token:
            return {"name": card.facts["name"]}
        printing = card.facts["printings"][0]
        prefix = "arena:" if self.arena else "mtgo:"
        for source_id in printing.get("source_ids", ()):
            if source_id.startswith(prefix):
                return {"source_id": source_id}
        return {"name": card.facts["name"]}

    def _handle(self) -> str:
        self._next += 1
        return str(self._next)

    def _emit(self, obs: dict[str, Any]) -> None:
        self.observations.append(obs)


def writer_request(
    length: int,
    seed: int,
    cards: Sequence[dict[str, Any]],
    *,
    arena: bool = True,
    opening: bool = True,
) -> dict[str, Any]:
    """A writer request holding one generated game of `length` observations."""
    game = Game(rng=random.Random(seed), cards=cards, arena=arena)
    observations = game.play(length, opening=opening)
    return {
        "role": "writer",
        "perspective": PERSPECTIVE,
        "players": list(PLAYERS),
        "source": {"name": "arena" if arena else "mtgo", "hidden_tracking": True},
        "cards": list(game.used.values()),
        "observations": observations,
    }


def expected_instances(
    request: Mapping[str, Any],
) -> tuple[list[str | None], dict[str, dict[str, Any]]]:
    """Labels and expected entries, from the reference's answer, with IDs renamed to labels.

    The reference conforms, so its answer is a right answer; renaming makes the comparison do
    its real work (a mapping between labels and the IDs an implementation gives).
    """
    result = answer(dict(request))
    label = {entry["id"]: f"i{entry['id']}" for entry in result["card_table"]}
    labels = [None if a is None else label[a] for a in result["assignments"]]
    instances = {}
    for entry in result["card_table"]:
        fields = {k: v for k, v in entry.items() if k != "id"}
        instances[label[entry["id"]]] = fields
    return labels, instances


def game_case(
    path: Path,
    request: Mapping[str, Any],
    labels: Sequence[str | None],
    instances: Mapping[str, Mapping[str, Any]],
) -> Case:
    """A loaded writer Case for a generated game, built in memory (no YAML, no size limit),
    from its request and `expected_instances`."""
    expectation = WriterExpectation(
        labels=tuple(labels),
        rule_hints=(None,) * len(labels),
        instances={label: CardEntry.from_dict(raw, id=label) for label, raw in instances.items()},
    )
    return Case(
        id="generated-game",
        description="A generated long game keeps every instance ID the reference keeps.",
        role=Role.WRITER,
        level=Level.MUST,
        rules=("ID-3",),
        cr=("400.7",),
        tags=("generated",),
        path=path,
        request=request,
        expectation=expectation,
    )


# ---------------------------------------------------------------------- case files


def _card_table_line(entry: Mapping[str, Any]) -> str:
    name = entry["name"]
    parts = [f"#{entry['id']}", "?" if name is None else json.dumps(name, ensure_ascii=False)]
    if entry["printing"]:
        parts.append(f"[{entry['printing']['set']} {entry['printing']['number']}]")
    parts += entry["source_ids"]
    parts.append(f"owner={entry['owner']}")
    if entry["kind"] != "card":
        parts.append(entry["kind"])
    return " ".join(parts)


@dataclass(frozen=True, slots=True, kw_only=True)
class CorpusShape:
    """What generated cases copy from the corpus: its observation counts and its reader share."""

    lengths: tuple[int, ...]
    reader_share: float


def corpus_shape(cases_dir: Path = suite.CASES_DIR) -> CorpusShape:
    lengths, readers, total = [], 0, 0
    for path in sorted(cases_dir.rglob("*.yaml")):
        data = yaml.load(path.read_text(encoding="utf-8"), Loader=yaml.CSafeLoader)
        total += 1
        if data["role"] == "reader":
            readers += 1
        else:
            lengths.append(len(data["input"]["observations"]))
    return CorpusShape(lengths=tuple(lengths), reader_share=readers / total)


def case_documents(
    count: int, seed: int, cards: Sequence[dict[str, Any]], shape: CorpusShape
) -> Iterator[dict[str, Any]]:
    """`count` valid case documents shaped like the corpus' own.

    Writer cases are short games whose lengths are drawn from the corpus' observation counts,
    listing only the cards they use; reader cases, in the corpus' share, are the card-table text
    of such a game. The expected answers are the reference's (renamed), so every case is valid.
    """
    rng = random.Random(seed)
    for index in range(count):
        request = writer_request(
            rng.choice(shape.lengths),
            rng.randrange(1 << 30),
            cards,
            arena=rng.random() < 0.5,
            opening=False,
        )
        case_id = f"gen-{index:05d}"
        if rng.random() < shape.reader_share:
            table = answer(dict(request))["card_table"]
            entries = [{k: v for k, v in e.items() if k != "revealed_at"} for e in table]
            yield {
                "id": case_id,
                "description": "A generated card table text is read entry by entry.",
                "role": "reader",
                "level": "MUST",
                "rules": ["TXT-1"],
                "cr": ["201.2"],
                "tags": ["generated"],
                "input": {"text": "\n".join(_card_table_line(e) for e in entries)},
                "expect": {"card_table": entries},
            }
            continue
        labels, instances = expected_instances(request)
        observations = [
            {**obs, "expect": label} if label is not None else obs
            for obs, label in zip(request["observations"], labels, strict=True)
        ]
        yield {
            "id": case_id,
            "description": "A generated short game keeps every instance ID the reference keeps.",
            "role": "writer",
            "level": "MUST",
            "rules": ["ID-3"],
            "cr": ["400.7"],
            "tags": ["generated"],
            "input": {k: v for k, v in request.items() if k != "role"}
            | {"observations": observations},
            "expect": {"instances": instances},
        }


def write_cases(folder: Path, count: int, seed: int) -> int:
    """Write generated case files into `folder`; return their total size in bytes."""
    folder.mkdir(parents=True, exist_ok=True)
    total = 0
    for document in case_documents(count, seed, card_pool(), corpus_shape()):
        text = yaml.dump(
            document,
            Dumper=yaml.CSafeDumper,
            allow_unicode=True,
            sort_keys=False,
            width=100,
            default_flow_style=None,
        )
        path = folder / f"{document['id']}.yaml"
        path.write_text(text, encoding="utf-8")
        total += len(text.encode())
    return total
