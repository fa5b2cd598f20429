"""A library as the writer knows it (card-identity.md section 3, LIB-1 to LIB-8).

Its known top and bottom segments, its size when known, and what each event does to the
positions: a card taken, put, looked at or shown at a position, the cards at one end scrambled or
put in a known order, the size shown. Instances are strings here; which IDs end is the writer's
to decide (writer.py), from what these methods return.

Work is bounded by the known segments, never by the library's size.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Literal

End = Literal["top", "bottom"]
#: A library position: N >= 1 is the Nth card from the top (1 is the top card), -N the Nth
#: from the bottom (-1 is the bottom card), None is unknown.
Position = int | None


@dataclass(slots=True)
class Library:
    """The known top and bottom segments of one library, and its size when known (section 3).

    Each segment lists positions from its end, each holding a tracked instance or None
    (unknown). Without a known size the segments never meet. With a known size S they are one
    library: position N from the top is position S-N+1 from the bottom, and the segments never
    overlap (len(top) + len(bottom) <= S); the positions between them are unknown.
    """

    top: list[str | None] = field(default_factory=list)  # index 0 is the top card
    bottom: list[str | None] = field(default_factory=list)  # index 0 is the bottom card
    size: int | None = None

    def _locate(self, position: int) -> tuple[list[str | None], int] | None:
        """The segment and index a known position is tracked at; None in the unknown middle."""
        near, far = (self.top, self.bottom) if position > 0 else (self.bottom, self.top)
        n = abs(position)
        if n <= len(near):
            return near, n - 1
        if self.size is not None and 0 <= self.size - n < len(far):
            return far, self.size - n  # counted from the other end (LIB-5)
        return None

    def fits(self, position: Position, *, putting: bool) -> bool:
        """Whether a known size allows this position (REQ-5): N <= S to take or look, nothing
        to take from an empty library; any N from the top to put (CR 401.7: beyond the last
        card is the bottom), -N <= S+1 from the bottom."""
        if self.size is None:
            return True
        if putting:
            return position is None or position > 0 or -position <= self.size + 1
        return self.size > 0 and (position is None or abs(position) <= self.size)

    def take(self, position: Position) -> str | None:
        """Remove the card at a position; return the instance it held, if any.

        At an unknown position (None) only the size changes: the caller ends the library (E5).
        A position in neither segment holds no tracked card, and removing it leaves every
        known position where it was: the segments count from their own ends.
        """
        place = None if position is None else self._locate(position)
        if self.size is not None:
            self.size -= 1
        if place is None:
            return None
        segment, index = place
        return segment.pop(index)

    def put(self, iid: str | None, position: Position) -> None:
        """Insert a card at a position, pushing the cards below (or above) it away from its end;
        None is a card whose identity P does not know.

        At an unknown position (None) only the size changes: the caller ends the library (E4).
        """
        if position is None:
            if self.size is not None:
                self.size += 1
            return
        if self.size is not None and position > self.size + 1:
            position = self.size + 1  # CR 401.7: Nth from the top of fewer cards is the bottom
        near, far = (self.top, self.bottom) if position > 0 else (self.bottom, self.top)
        n = abs(position)
        if self.size is not None and n > len(near) + 1:
            # Counted from the other end of the library it now is (size S+1): S+2-n.
            m = self.size + 2 - n
            if m <= len(far) + 1:
                far.insert(m - 1, iid)
                self.size += 1
                return
        near.extend([None] * (n - 1 - len(near)))
        near.insert(n - 1, iid)
        if self.size is not None:
            self.size += 1

    def look(self, position: Position) -> str | None:
        """The instance held at a position, if any."""
        place = None if position is None else self._locate(position)
        return None if place is None else place[0][place[1]]

    def hold(self, iid: str | None, position: int) -> None:
        """Record what a known position (already in the library) holds."""
        place = self._locate(position)
        if place is None:
            if iid is None:
                return
            near = self.top if position > 0 else self.bottom
            near.extend([None] * (abs(position) - len(near)))
            place = near, abs(position) - 1
        place[0][place[1]] = iid

    def scramble(self, end: End, count: int) -> list[str]:
        """Make the `count` positions at one end unknown; return the instances they held."""
        near, far = (self.top, self.bottom) if end == "top" else (self.bottom, self.top)
        lost = [iid for iid in near[:count] if iid is not None]
        near[:count] = [None] * min(count, len(near))
        if self.size is not None and self.size - count < len(far):  # reaching the other segment
            first = max(self.size - count, 0)
            lost += [iid for iid in far[first:] if iid is not None]
            far[first:] = [None] * (len(far) - first)
        return lost

    def permute(self, end: End, order: list[int]) -> None:
        """The cards at one end in a known new order: `order[i]` is the old position of the card
        now at position i+1, counted from `end` (LIB-6)."""
        sign = 1 if end == "top" else -1
        old = [self.look(sign * k) for k in range(1, len(order) + 1)]
        for i, k in enumerate(order):
            self.hold(old[k - 1], sign * (i + 1))

    def know_size(self, size: int) -> list[str]:
        """The size is known from now on: the segments are joined (LIB-5), an unknown position
        overlapping a tracked one taking the tracked one. Returns the instances whose position
        the size contradicts: tracked beyond the size from one end, or at a position the two
        ends disagree on. Tracking that follows LIB-7 keeps every tracked position true, so a
        size that contradicts one is an inconsistent request (REQ-5)."""
        lost: list[str] = []
        for segment in (self.top, self.bottom):
            lost += [iid for iid in segment[size:] if iid is not None]
            del segment[size:]
        top, bottom = self.top, self.bottom
        # Top index i is position i+1 from the top, which is bottom index size-1-i.
        for i in range(max(size - len(bottom), 0), len(top)):
            at_top, at_bottom = top[i], bottom[size - 1 - i]
            if at_top is None:
                top[i] = at_bottom
            elif at_bottom is not None and at_bottom != at_top:
                lost += [at_top, at_bottom]
                top[i] = None
        del bottom[max(size - len(top), 0) :]
        self.size = size
        return lost

    def run(self, end: int) -> int:
        """How many positions from one end (1: the top, -1: the bottom) are tracked without a
        gap: the known run of that end."""
        count = 0
        for held in self.top if end > 0 else self.bottom:
            if held is None:
                break
            count += 1
        return count

    def reaches_past_run(self, position: int, *, putting: bool = False) -> bool:
        """Without a known size, whether an event at this position may concern the cards the
        other end tracks (LIB-7): past the known run of its end, where the two segments may
        meet in a small library (a put: more than one past it, CR 401.7)."""
        if self.size is not None:
            return False
        return abs(position) > self.run(position) + (1 if putting else 0)

    def lost_past_run(self, position: int, *, putting: bool = False) -> list[str]:
        """What the other end tracked, when an event at this position reaches past its end's
        known run without a known size (LIB-7, E13): those positions are no longer known."""
        return self.drop_other_end(position) if self.reaches_past_run(position, putting=putting) else []

    def drop_other_end(self, position: int) -> list[str]:
        """No position counted from the other end of this one is known any more; return the
        instances it tracked (LIB-7)."""
        far = self.bottom if position > 0 else self.top
        lost = [iid for iid in far if iid is not None]
        far.clear()
        return lost

    def forget(self, iid: str) -> None:
        """The instance no longer holds any position."""
        for segment in (self.top, self.bottom):
            for i, held in enumerate(segment):
                if held == iid:
                    segment[i] = None

    def clear(self) -> None:
        """No position is known any more; a known size stays known (a shuffle keeps it)."""
        self.top.clear()
        self.bottom.clear()
