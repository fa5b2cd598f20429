"""Mutants of spec 1.1.0's library rules (LIB-1, LIB-5, LIB-6, TOK-4, REQ-5): known sizes,
positions counted from the bottom, orders the source shows, and tokens put into a library."""

from __future__ import annotations

from dataclasses import replace
from typing import Any, Self

from cardid_reference.errors import RequestError
from cardid_reference.library import Library, Position
from cardid_reference.request import Observation, is_library
from cardid_reference.writer import Writer

from . import mutant


@mutant("token-into-library-takes-position")
class TokenIntoLibraryTakesPosition(Writer):
    """Inserts a token put into a library, then blanks it: the cards below shift (TOK-4)."""

    def arrive(self, iid: str, obs: Observation, dst: str) -> None:
        if is_library(dst) and self.entries[iid].kind != "card":
            position = obs.position("position")
            if position is not None:
                self.library(dst).put(iid, position)
                self.move_to(iid, dst)
                return
        super().arrive(iid, obs, dst)


@mutant("token-unknown-position-ends-library")
class TokenUnknownPositionEndsLibrary(Writer):
    """Ends every ID of a library a token is put into at an unknown position (TOK-4, E4)."""

    def arrive(self, iid: str, obs: Observation, dst: str) -> None:
        if (
            is_library(dst)
            and self.entries[iid].kind != "card"
            and obs.position("position") is None
        ):
            self.end_library(dst)
        super().arrive(iid, obs, dst)


@mutant("size-ignored")
class SizeIgnored(Writer):
    """Ignores `library_size`: a library's two ends never meet, no size is checked (LIB-5)."""

    def on_library_size(self, obs: Observation) -> None:
        obs.library_zone()
        obs.integer("size", 0)


class _SeparateEnds(Library):
    """A library whose top and bottom segments never meet, whatever its known size."""

    __slots__ = ()

    def _locate(self, position: int) -> tuple[list[str | None], int] | None:
        near = self.top if position > 0 else self.bottom
        return (near, abs(position) - 1) if abs(position) <= len(near) else None

    def put(self, iid: str | None, position: Position) -> None:
        size, self.size = self.size, None
        super().put(iid, position)
        self.size = None if size is None else size + 1

    def know_size(self, size: int) -> list[str]:
        self.size = size
        return []


@mutant("bottom-card-never-drawn-from-top")
class BottomCardNeverDrawnFromTop(Writer):
    """Never counts a position from the other end, so the last card is never the bottom one (LIB-5)."""

    LIBRARY = _SeparateEnds


class _ClampingLibrary(Library):
    """A library that, when its size becomes known, guesses where out-of-range cards went."""

    __slots__ = ()

    def know_size(self, size: int) -> list[str]:
        beyond = [iid for iid in self.top[size:] if iid is not None]
        lost = super().know_size(size)
        if beyond and size > 0 and self.look(size) is None:
            self.hold(beyond[-1], size)
            lost.remove(beyond[-1])
        return lost


@mutant("size-clamps-positions")
class SizeClampsPositions(Writer):
    """Moves a card tracked beyond a newly shown library size to its last position instead of rejecting the size (REQ-5)."""

    LIBRARY = _ClampingLibrary


@mutant("known-reorder-ends-ids")
class KnownReorderEndsIds(Writer):
    """Ends the reordered cards' IDs even when the source shows the new order (LIB-6)."""

    def on_reorder(self, obs: Observation) -> None:
        super().on_reorder(replace(obs, data={k: v for k, v in obs.data.items() if k != "order"}))
        if "order" in obs.data:
            obs.order(obs.integer("count", 1))  # still read, and rejected unless a permutation


class _BottomOnly(Observation):
    """An observation whose negative positions all read as -1."""

    __slots__ = ()

    def position(self, key: str) -> int | None:
        position = super().position(key)
        return -1 if position is not None and position < 0 else position


@mutant("negative-position-is-bottom")
class NegativePositionIsBottom(Writer):
    """Reads every position counted from the bottom (-2, -3, ...) as the bottom card (LIB-1)."""

    OBSERVATION = _BottomOnly


class _StrictIntegers(Observation):
    __slots__ = ()

    @classmethod
    def read(cls, index: int, data: Any) -> Self:
        for key in ("position", "from_position", "count", "size"):
            if isinstance(data, dict) and isinstance(data.get(key), float):
                raise RequestError(f"observation {index}: `{key}` is not an integer")
        return super().read(index, data)


@mutant("integral-float-rejected")
class IntegralFloatRejected(Writer):
    """Rejects a position or count written 1.0, as a strict integer type would (LIB-1)."""

    OBSERVATION = _StrictIntegers
