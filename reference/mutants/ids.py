"""Mutants of the instance-ID rules (ID-2 to ID-9): when a card keeps its ID and when a new one
starts, through moves, turning face up, new games, restarts and mulligans (spec 1.0.0)."""

from __future__ import annotations

from cardid_reference.request import Observation, zone_kind
from cardid_reference.writer import Writer

from . import mutant


@mutant("renew-every-move")
class RenewEveryMove(Writer):
    """Gives a card a new ID on every zone change, as decision 0002 chose not to (ID-3, ID-5)."""

    def moving_instance(self, obs: Observation, src: str, dst: str) -> str:
        iid = super().moving_instance(obs, src, dst)
        old = self.entries[iid]
        if old.first_seen == obs.index:
            return iid
        self.end(iid)
        return self.allocate(owner=old.owner, kind=old.kind, index=obs.index)


@mutant("renew-face-up")
class RenewFaceUp(Writer):
    """Starts a new instance when a card turns face up or transforms (ID-4, VIS-2)."""

    def _renewed(self, obs: Observation) -> str:
        old = self.entries[self.tracked(obs)]
        zone = self.zone_of[old.id]
        self.end(old.id)
        iid = self.allocate(owner=old.owner, kind=old.kind, index=obs.index)
        self.place(iid, zone, obs.need("object"))
        self.describe(iid, obs.description("card"), obs.index)
        return iid

    def on_turn_face_up(self, obs: Observation) -> str:
        return self._renewed(obs)

    def on_transform(self, obs: Observation) -> str:
        return self._renewed(obs)


@mutant("game-start-keeps")
class GameStartKeeps(Writer):
    """Keeps live IDs across a new game of the match (ID-9, E10)."""

    def on_game_start(self, obs: Observation) -> None:
        return None


@mutant("restart-ends-all")
class RestartEndsAll(Writer):
    """Ends the carried cards' IDs at a restart too (ID-9, E11)."""

    def on_restart(self, obs: Observation) -> None:
        self.end_all(keep=())


@mutant("ids-per-game")
class IdsPerGame(Writer):
    """Numbers IDs afresh in each game, so an ended ID is assigned again in the next one (ID-2, ID-9)."""

    def on_game_start(self, obs: Observation) -> None:
        super().on_game_start(obs)
        self.next_number = 1


@mutant("keep-through-mulligan")
class KeepThroughMulligan(Writer):
    """Keeps hand and library IDs through a mulligan (ID-8, E2)."""

    def on_mulligan(self, obs: Observation) -> None:
        obs.need("player")


@mutant("own-hand-hidden")
class OwnHandHidden(Writer):
    """Ends IDs in the perspective player's own hand as if it were hidden (ID-5)."""

    def loses_track_in(self, zone: str) -> bool:
        return zone_kind(zone) == "hand"
