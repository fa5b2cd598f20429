"""What a campaign of generated games exercised: how often each observation type, each ending
event of the spec's table (E1 onward), each inconsistency (REQ) and each rule that decided an
observation's instance appeared. `cardid fuzz --coverage` prints it; docs/generated-games.md
gives the reason for every count that stays at zero.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass, field

from . import Generated
from .world import ENDING_RULE

#: Every observation type of spec/observations.md.
TYPES = ("game_start", "restart", "mulligan", "shuffle", "library_size", "reorder", "move", "reveal",
         "mention", "control_change", "turn_face_up", "transform", "become_copy", "meld",
         "create_token", "create_copy", "vanish")
#: Every ending event of the table in spec/card-identity.md (ID-6); E12 is retired.
ENDINGS = tuple(f"E{n}" for n in range(1, 17))
#: Counts that stay at zero, and why (docs/generated-games.md says the same).
ZERO = {"E12": "retired in spec 1.2.0 (a contradicting size is REQ-5 now)"}
REQS = ("REQ-1", "REQ-2", "REQ-3", "REQ-4", "REQ-5")


@dataclass
class Exercised:
    games: int = 0
    observations: int = 0
    types: Counter[str] = field(default_factory=Counter)
    endings: Counter[str] = field(default_factory=Counter)
    inconsistent: Counter[str] = field(default_factory=Counter)
    rules: Counter[str] = field(default_factory=Counter)

    def add(self, game: Generated) -> None:
        self.games += 1
        observations = game.request["observations"]
        self.observations += len(observations)
        self.types.update(o["type"] for o in observations)
        self.endings.update(game.endings)
        if game.inconsistent:
            self.inconsistent[game.inconsistent] += 1
        self.rules.update(fact.rule for fact in game.truth if fact is not None)

    def unexplained_zeros(self) -> list[str]:
        """Every type, ending event and REQ rule that never appeared, with no reason in ZERO."""
        counts = {**{t: self.types[t] for t in TYPES}, **{e: self.endings[e] for e in ENDINGS},
                  **{r: self.inconsistent[r] for r in REQS}}
        return [name for name, count in counts.items() if count == 0 and name not in ZERO]

    def lines(self) -> list[str]:
        def table(title: str, names: Iterable[str], counts: Counter[str], labels: dict[str, str] | None = None) -> list[str]:
            rows = [f"{title}:"]
            for name in names:
                label = (labels or {}).get(name, "")
                why = ZERO.get(name, "") if not counts[name] else ""
                rows.append(f"  {name:<14} {label:<7} {counts[name]:>8}" + (f"  {why}" if why else ""))
            return rows

        return [
            f"coverage: {self.games} games, {self.observations} observations",
            *table("observation types", TYPES, self.types),
            *table("ending events (spec/card-identity.md, ID-6)", ENDINGS, self.endings, ENDING_RULE),
            *table("inconsistent endings, which a writer must reject", REQS, self.inconsistent),
            *table("rules that decided an observation's instance", sorted(self.rules), self.rules),
        ]


def of(games: Iterable[Generated]) -> Exercised:
    exercised = Exercised()
    for game in games:
        exercised.add(game)
    return exercised
