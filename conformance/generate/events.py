"""What happens in a generated game: the table of events (`EVENTS`), each with its weight, and
the schedule a game draws them by. Each event changes the world's truth and writes what the
perspective player's source shows of it, with the instance decision 0002 gives it; one that
cannot happen in the current state (an empty library, nothing on the stack) returns False and
another is drawn. The events are in `library_events.py`, `zone_events.py`, and here the two that
end a game.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable

from . import library_events, zone_events
from .play import Play


def new_game(play: Play) -> bool:
    play.w.game += 1
    play.reset("E10", carried=[])
    play.w.blind({"type": "game_start", "game": play.w.game})
    return True


def restart(play: Play) -> bool:
    """Karn Liberated restarts the game; the cards exiled with it are carried (CR 727.2)."""
    exiled = play.public("exile")
    carried = [o for o in exiled if play.w.objects[o].kind == "card" and play.rng.random() < 0.6]
    observation = {"type": "restart", "carried": [play.w.handle_of[o] for o in carried]}
    play.reset("E11", carried=carried)
    play.w.blind(observation)
    return True


#: The events and their weights.
EVENTS: tuple[tuple[str, int, Callable[[Play], bool]], ...] = (
    ("take", 12, library_events.take),
    ("search", 3, library_events.search),
    ("put", 8, library_events.put),
    ("look", 5, library_events.look),
    ("scry", 4, library_events.scry),
    ("reorder", 3, library_events.reorder),
    ("shuffle", 2, library_events.shuffle),
    ("size", 3, library_events.size),
    ("mulligan", 1, library_events.mulligan),
    ("cast", 8, zone_events.cast),
    ("resolve", 6, zone_events.resolve),
    ("leave", 6, zone_events.leave),
    ("flicker", 1, zone_events.flicker),
    ("mention", 5, zone_events.mention),
    ("reveal_hand", 1, zone_events.reveal_hand),
    ("change", 3, zone_events.change),
    ("token", 3, zone_events.token),
    ("copy", 3, zone_events.copy),
    ("unprinted", 1, zone_events.unprinted),
    ("vanish", 1, zone_events.vanish),
    ("foretell", 1, zone_events.foretell),
    ("meld", 1, zone_events.meld),
    ("new_game", 1, new_game),
    ("restart", 1, restart),
)


#: The events a game always has: the game goes on with these whatever else is left out.
ALWAYS = frozenset({"take", "put", "cast", "size"})


class Schedule:
    """The events one game draws from: the `enabled` ones and those it always has, by weight."""

    def __init__(self, enabled: frozenset[str]) -> None:
        table = [(name, weight, event) for name, weight, event in EVENTS if name in enabled or name in ALWAYS]
        self.names = [name for name, _, _ in table]
        self.cumulative = list(itertools.accumulate(weight for _, weight, _ in table))
        self.events = {name: event for name, _, event in table}

    def step(self, play: Play) -> str:
        """One event, drawn by weight among those that can happen now; its name."""
        while True:
            name = play.rng.choices(self.names, cum_weights=self.cumulative)[0]
            if self.events[name](play):
                return name
