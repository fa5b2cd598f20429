"""Mutants of spec 1.2.0's library rules (LIB-7, LIB-8, REQ-5 at a join): each reads one rule the
way a careful implementer of 1.1.0, or a hurried one of 1.2.0, plausibly would."""

from __future__ import annotations

from cardid_reference.library import End, Library, Position
from cardid_reference.request import Observation
from cardid_reference.writer import Writer

from . import mutant


class _EndsNeverMeet(Library):
    __slots__ = ()

    def reaches_past_run(self, position: int, *, putting: bool = False) -> bool:
        return False


@mutant("ends-never-meet-without-size")
class EndsNeverMeetWithoutSize(Writer):
    """Keeps the two ends of a library of unknown size apart whatever reaches past a known run, as 1.1.0 read (LIB-7)."""

    LIBRARY = _EndsNeverMeet


@mutant("put-past-run-keeps-its-id")
class PutPastRunKeepsItsId(Writer):
    """Ends the other end's IDs at a put past the known run, but keeps the put card tracked at N (LIB-7)."""

    def put_card(self, dst: str, position: Position, iid: str | None) -> None:
        library = self.library(dst)
        if iid is not None and position is not None and library.reaches_past_run(position, putting=True):
            self.end_ids(library.drop_other_end(position))
            library.put(iid, position)
            self.move_to(iid, dst)
            return
        super().put_card(dst, position, iid)


class _TakesNeverReach(Library):
    __slots__ = ()

    def reaches_past_run(self, position: int, *, putting: bool = False) -> bool:
        return putting and super().reaches_past_run(position, putting=True)


@mutant("takes-never-reach-other-end")
class TakesNeverReachOtherEnd(Writer):
    """Applies LIB-7 to puts only: a draw from an untracked top keeps the IDs tracked at the bottom (LIB-7)."""

    LIBRARY = _TakesNeverReach


class _RunIsSegment(Library):
    __slots__ = ()

    def run(self, end: int) -> int:
        return len(self.top if end > 0 else self.bottom)


@mutant("run-is-segment-length")
class RunIsSegmentLength(Writer):
    """Counts an end's known run as its whole segment, unknown positions included (LIB-7)."""

    LIBRARY = _RunIsSegment


@mutant("reach-ends-whole-library")
class ReachEndsWholeLibrary(Writer):
    """Ends every ID of the library, both ends, when an event reaches past a known run (LIB-7)."""

    def leave_library(self, obs: Observation, src: str) -> str | None:
        position = obs.position("from_position")
        library = self.library(src)
        if position is not None and library.reaches_past_run(position):
            taken = library.look(position)
            near = library.top if position > 0 else library.bottom
            lost = [iid for iid in near if iid is not None and iid != taken]
            for iid in lost:
                library.forget(iid)
            self.end_ids(lost)
        return super().leave_library(obs, src)


class _AlwaysReaches(Library):
    __slots__ = ()

    def reaches_past_run(self, position: int, *, putting: bool = False) -> bool:
        return self.size is None


@mutant("every-event-reaches-other-end")
class EveryEventReachesOtherEnd(Writer):
    """Without a known size, ends the other end's IDs at every take, look, put and reorder, even within the known run (LIB-7)."""

    LIBRARY = _AlwaysReaches


@mutant("size-contradiction-ends-ids")
class SizeContradictionEndsIds(Writer):
    """Ends the IDs a shown library size contradicts instead of rejecting the request, as 1.1.0's E12 did (REQ-5)."""

    def on_library_size(self, obs: Observation) -> None:
        zone = obs.library_zone()
        library, size = self.library(zone), obs.integer("size", 0)
        if library.size is not None and library.size != size:
            self.size_conflict(
                obs, f"{zone} holds {library.size} cards by the observations so far, not {size}"
            )
        self.end_ids(library.know_size(size))


class _ShuffleKeepsBottom(Library):
    __slots__ = ()

    def clear(self) -> None:
        self.top.clear()


@mutant("shuffle-keeps-bottom")
class ShuffleKeepsBottom(Writer):
    """A shuffle forgets the known top but keeps the cards tracked at the bottom (LIB-2)."""

    LIBRARY = _ShuffleKeepsBottom

    def on_shuffle(self, obs: Observation) -> None:
        zone = obs.library_zone()
        library = self.library(zone)
        kept = {iid for iid in library.bottom if iid is not None}
        library.clear()
        self.end_ids([iid for iid in self.in_zone.get(zone, ()) if iid not in kept])


class _PaddingLibrary(Library):
    """Puts Nth from the top of fewer cards at N, padding, and grows the size to fit."""

    __slots__ = ()

    def put(self, iid: str | None, position: Position) -> None:
        if self.size is not None and position is not None and position > self.size + 1:
            size, self.size = self.size, None
            super().put(iid, position)
            self.size = max(size + 1, position)
            return
        super().put(iid, position)


@mutant("put-beyond-size-pads")
class PutBeyondSizePads(Writer):
    """Puts a card Nth from the top of a smaller known library at N, padding and growing the size, not at the bottom (LIB-5)."""

    LIBRARY = _PaddingLibrary


class _OffByOneFromBottom(Observation):
    __slots__ = ()

    def position(self, key: str) -> int | None:
        position = super().position(key)
        return position - 1 if position is not None and position < -1 else position


@mutant("bottom-count-off-by-one")
class BottomCountOffByOne(Writer):
    """Reads -N (N >= 2) as the (N+1)th card from the bottom, counting the bottom card as 0 (LIB-1)."""

    OBSERVATION = _OffByOneFromBottom


class _OrderFromTop(Library):
    __slots__ = ()

    def permute(self, end: End, order: list[int]) -> None:
        if end == "bottom":
            order = [len(order) + 1 - k for k in reversed(order)]
        super().permute(end, order)


@mutant("bottom-order-from-top")
class BottomOrderFromTop(Writer):
    """Reads a bottom reorder's `order` counted from the top of the reordered cards, not from the bottom (LIB-6)."""

    LIBRARY = _OrderFromTop
