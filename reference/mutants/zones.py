"""Mutants of zones, mulligans and library sizes (ID-3, ID-8, ID-9, LIB-2 to LIB-5): the command
zone, whose hand a mulligan ends, and a library's known size through mulligans, new games,
shuffles, takes, puts and reorders."""

from __future__ import annotations

from collections.abc import Callable

from cardid_reference.library import End, Library, Position
from cardid_reference.request import Observation, zone_kind
from cardid_reference.writer import Writer

from . import mutant


@mutant("command-zone-hidden")
class CommandZoneHidden(Writer):
    """Treats the command zone as hidden, so a commander put there loses its ID (ID-3)."""

    def loses_track_in(self, zone: str) -> bool:
        return zone == "command" or super().loses_track_in(zone)


@mutant("mulligan-ends-every-hand")
class MulliganEndsEveryHand(Writer):
    """Ends the IDs in every player's hand at a mulligan, not only the mulliganing player's (ID-8)."""

    def on_mulligan(self, obs: Observation) -> None:
        super().on_mulligan(obs)
        for zone in list(self.in_zone):
            if zone_kind(zone) == "hand":
                self.end_ids(list(self.in_zone.get(zone, ())))


@mutant("mulligan-keeps-size")
class MulliganKeepsSize(Writer):
    """Keeps a library's known size through its player's mulligan (ID-8, LIB-5)."""

    def on_mulligan(self, obs: Observation) -> None:
        library = self.library(f"library:{obs.need('player')}")
        size = library.size
        super().on_mulligan(obs)
        library.size = size


@mutant("new-game-keeps-sizes")
class NewGameKeepsSizes(Writer):
    """Ends every ID at a new game or restart but keeps the libraries' known sizes (ID-9, LIB-5)."""

    def _sizes_kept(self, apply: Callable[[Observation], None], obs: Observation) -> None:
        sizes = {zone: library.size for zone, library in self.libraries.items()}
        apply(obs)
        for zone, size in sizes.items():
            self.library(zone).size = size

    def on_game_start(self, obs: Observation) -> None:
        self._sizes_kept(super().on_game_start, obs)

    def on_restart(self, obs: Observation) -> None:
        self._sizes_kept(super().on_restart, obs)


@mutant("shuffle-forgets-size")
class ShuffleForgetsSize(Writer):
    """Makes a library's known size unknown again at a shuffle (LIB-2, LIB-5)."""

    def on_shuffle(self, obs: Observation) -> None:
        super().on_shuffle(obs)
        self.library(obs.library_zone()).size = None


@mutant("unknown-take-keeps-size")
class UnknownTakeKeepsSize(Writer):
    """Does not count a card taken at an unknown library position out of the known size (LIB-4, LIB-5)."""

    def leave_library(self, obs: Observation, src: str) -> str | None:
        if obs.position("from_position") is not None:
            return super().leave_library(obs, src)
        self.check_fits(obs, src, None, putting=False)
        self.end_library(src)
        return None


class _UnknownPutUncountedLibrary(Library):
    __slots__ = ()

    def put(self, iid: str | None, position: Position) -> None:
        size = self.size
        super().put(iid, position)
        if position is None:
            self.size = size


@mutant("unknown-put-uncounted")
class UnknownPutUncounted(Writer):
    """Does not count a card put into a library at an unknown position in its known size (LIB-3, LIB-5)."""

    LIBRARY = _UnknownPutUncountedLibrary


class _NearEndLibrary(Library):
    __slots__ = ()

    def scramble(self, end: End, count: int) -> list[str]:
        size, self.size = self.size, None
        try:
            return super().scramble(end, count)
        finally:
            self.size = size


@mutant("reorder-near-end-only")
class ReorderNearEndOnly(Writer):
    """Ends only the IDs tracked from the reordered end, missing those the known size brings in reach from the other (LIB-3)."""

    LIBRARY = _NearEndLibrary
