"""What a campaign of generated games found, as every report shows it: the games played and
each disagreement, named by the seed that replays it (`cardid fuzz --seed S --games 1`)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True, slots=True, kw_only=True)
class Disagreement:
    """One generated game an implementation got wrong: how (UNSOUND, KEPT, ENDED, MISSING,
    ACCEPTED, DIFFERS, ERRORED), the rule it names, and what the game was played with."""

    seed: int
    kind: str
    rule: str
    what: str
    config: str

    def line(self) -> str:
        return f"seed {self.seed}: {self.kind} [{self.rule}] {self.what} ({self.config})"


@dataclass(frozen=True, slots=True, kw_only=True)
class Campaign:
    """The games played (`seeds`, in order) and the disagreements found."""

    seeds: tuple[int, ...]
    disagreements: tuple[Disagreement, ...]

    def span(self) -> str:
        return f"seeds {self.seeds[0]}-{self.seeds[-1]}" if self.seeds else "no seed"

    def headline(self) -> str:
        return f"{len(self.seeds)} generated games ({self.span()}), {len(self.disagreements)} disagreement(s)"

    def to_json(self) -> dict[str, Any]:
        return {
            "games": len(self.seeds),
            "seeds": [self.seeds[0], self.seeds[-1]] if self.seeds else [],
            "disagreements": [
                {"seed": d.seed, "kind": d.kind, "rule": d.rule, "what": d.what, "config": d.config}
                for d in self.disagreements
            ],
        }
