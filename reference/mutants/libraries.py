"""Mutants of the library rules (LIB-1 to LIB-4): cards followed by their positions, not by the
source's handles, and the IDs a shuffle, a reorder or an unknown position ends (spec 1.0.0)."""

from __future__ import annotations

from typing import Any

from cardid_reference.request import Observation, is_library
from cardid_reference.writer import Writer

from . import mutant


@mutant("keep-through-shuffle")
class KeepThroughShuffle(Writer):
    """Keeps library IDs and positions through a shuffle (LIB-2, E1)."""

    def on_shuffle(self, obs: Observation) -> None:
        obs.library_zone()


@mutant("keep-through-reorder")
class KeepThroughReorder(Writer):
    """Keeps the IDs at positions a reorder made unknown (LIB-3, E3)."""

    def on_reorder(self, obs: Observation) -> None:
        obs.library_zone()


@mutant("unknown-position-local")
class UnknownPositionLocal(Writer):
    """Ends only the moving card's ID at an unknown library position (LIB-3, LIB-4, E4, E5)."""

    def leave_library(self, obs: Observation, src: str) -> str | None:
        return self.library(src).take(obs.position("from_position"))

    def arrive(self, iid: str, obs: Observation, dst: str) -> None:
        if is_library(dst) and obs.position("position") is None:
            self.end(iid)
            return
        super().arrive(iid, obs, dst)


@mutant("library-renew")
class LibraryRenew(Writer):
    """Ends a card's ID whenever it enters a library, even at a known position (LIB-1)."""

    def arrive(self, iid: str, obs: Observation, dst: str) -> None:
        if is_library(dst):
            self.end(iid)
            return
        super().arrive(iid, obs, dst)


@mutant("library-reveal-renews")
class LibraryRevealRenews(Writer):
    """Gives a card revealed at a known library position a fresh ID every time (LIB-1, VIS-2)."""

    def library_card_shown(self, obs: Observation, zone: str) -> str:
        position = obs.position("position")
        if position is not None:
            held = self.library(zone).look(position)
            if held is not None:
                self.end(held)
        return super().library_card_shown(obs, zone)


@mutant("handles-in-library")
class HandlesInLibrary(Writer):
    """Follows cards in libraries by the source's handles instead of positions (LIB-1, LIB-2)."""

    def __init__(self, request: dict[str, Any]) -> None:
        super().__init__(request)
        self.library_handles: dict[str, str] = {}

    def arrive(self, iid: str, obs: Observation, dst: str) -> None:
        if is_library(dst):
            self.library_handles[obs.get("new_object") or obs.need("object")] = iid
        super().arrive(iid, obs, dst)

    def leave_library(self, obs: Observation, src: str) -> str | None:
        iid = self.library_handles.pop(obs.need("object"), None)
        if iid is None:
            return super().leave_library(obs, src)
        self.library(src).forget(iid)
        return iid
