"""Generated games whose truth is known: the suite's own inputs, with a ground truth no
implementation's code decides (issue "Generated games"; docs/generated-games.md).

A game is played knowing every physical object (`world.py`): two or three players' libraries,
hands and the public zones, real cards of the corpus (`cards.py`), and every kind of event the
observation vocabulary has (`events.py`). The request holds only what the perspective player's
source showed, from a source that relinks handles on every zone change (as MTG Arena does) or
keeps them (as MTGO does), with hidden-object tracking or without. Each observation's truth
names the object it refers to and its instance, which `oracle.py` compares an answer with.
The same seed always gives the same game.
"""

from __future__ import annotations

import random
from collections import Counter
from dataclasses import dataclass, field
from typing import Any

from .events import ALWAYS, EVENTS, Schedule
from .inconsistent import spoil
from .oracle import Break, check
from .play import Play
from .world import Truth, World

__all__ = ["Break", "Config", "Generated", "Truth", "check", "game_of", "play"]


@dataclass(frozen=True, slots=True, kw_only=True)
class Config:
    """What a game is played with: its players and perspective, the source's kind, the size
    of each library at the start, and the number of events."""

    players: int = 2
    perspective: int = 0
    relink: bool = False
    tracking: bool = False
    library: int = 5
    events: int = 20
    #: End with an observation no game could produce, which a writer must reject (REQ).
    inconsistent: bool = False
    #: The kinds of event the game may have (events.EVENTS), besides those it always has: a
    #: game of a few kinds reaches deeper into each (swarm testing, Groce et al. 2012).
    enabled: frozenset[str] = frozenset(name for name, _, _ in EVENTS)

    def describe(self) -> str:
        source = "relinks handles" if self.relink else "keeps handles"
        tracking = "hidden tracking" if self.tracking else "no hidden tracking"
        ending = ", then an inconsistent observation" if self.inconsistent else ""
        left_out = sorted(name for name, _, _ in EVENTS if name not in self.enabled and name not in ALWAYS)
        kinds = f" (none of: {', '.join(left_out)})" if left_out else ""
        return (f"{self.players} players, perspective P{self.perspective + 1}, a source that {source}, "
                f"{tracking}, libraries of {self.library}, {self.events} events{kinds}{ending}")


@dataclass(frozen=True, slots=True, kw_only=True)
class Generated:
    """One generated game: its seed and configuration, the writer request, each observation's
    truth (None where it refers to no object), and what it exercised."""

    seed: int
    config: Config
    request: dict[str, Any]
    truth: tuple[Truth | None, ...]
    #: The REQ rule the last observation breaks, when the game ends inconsistent.
    inconsistent: str | None
    ended_by: dict[int, str] = field(compare=False)
    events: Counter[str] = field(compare=False)
    endings: Counter[str] = field(compare=False)

    def check(self, assignments: list[str | None]) -> list[Break]:
        """The ways an answer's assignments break this game's partition into instances."""
        return check(self.truth, assignments, self.ended_by)


def config_of(seed: int) -> Config:
    """Seed N's configuration: mostly two players, sometimes three; either perspective; the
    four kinds of source; libraries of 0 to 8 cards, and now and then of 20 to 40."""
    rng = random.Random(f"config {seed}")
    players = 3 if rng.random() < 0.15 else 2
    return Config(
        players=players, perspective=rng.randrange(players), relink=seed % 2 == 1,
        tracking=rng.random() < 0.5,
        library=rng.randint(20, 40) if rng.random() < 0.15 else rng.randint(0, 8),
        events=rng.randint(5, 60),
        inconsistent=rng.random() < 0.15,
        enabled=frozenset(name for name, _, _ in EVENTS if rng.random() < 0.6),
    )


def play(seed: int, config: Config) -> Generated:
    """The game `seed` and `config` give."""
    rng = random.Random(seed)
    players = [f"P{n + 1}" for n in range(config.players)]
    world = World(rng, players, players[config.perspective], relink=config.relink, tracking=config.tracking)
    game = Play(world)
    for player in players:
        for _ in range(config.library):
            world.libraries[player].cards.append(game.card_object(player))
    world.blind({"type": "game_start", "game": 1})
    events: Counter[str] = Counter()
    schedule = Schedule(config.enabled)
    for _ in range(config.events):
        events[schedule.step(game)] += 1
    broken = spoil(game) if config.inconsistent else None
    return Generated(seed=seed, config=config, request=world.request(), truth=tuple(world.truth),
                     inconsistent=broken, ended_by=dict(world.ended_by), events=events, endings=Counter(world.ended))


def game_of(seed: int) -> Generated:
    """Seed N's game, in the configuration `config_of(N)` gives."""
    return play(seed, config_of(seed))
