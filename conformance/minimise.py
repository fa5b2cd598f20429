"""Delta debugging: a smallest subsequence that still shows a failure (ddmin, Zeller and
Hildebrandt 2002). A pure function: what "fails" means is the caller's (`cardid shrink` runs
candidate cases against an implementation, runner/shrink.py)."""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence


def ddmin(items: Sequence[int], fails: Callable[[tuple[int, ...]], bool]) -> tuple[int, ...]:
    """A 1-minimal subsequence of `items` for which `fails` holds (it must hold for `items`):
    removing any one more item makes it pass. `fails` is asked each subsequence once at most."""
    seen: dict[tuple[int, ...], bool] = {}

    def test(subset: tuple[int, ...]) -> bool:
        if subset not in seen:
            seen[subset] = fails(subset)
        return seen[subset]

    current = tuple(items)
    granularity = 2
    while len(current) >= 2:
        size = math.ceil(len(current) / granularity)
        chunks = [current[start : start + size] for start in range(0, len(current), size)]
        reduced: tuple[int, ...] | None = None
        for chunk in chunks:
            if test(chunk):
                reduced, granularity = chunk, 2
                break
        if reduced is None and len(chunks) > 2:
            for index in range(len(chunks)):
                complement = tuple(item for other, chunk in enumerate(chunks) if other != index for item in chunk)
                if test(complement):
                    reduced, granularity = complement, max(granularity - 1, 2)
                    break
        if reduced is not None:
            current = reduced
            continue
        if granularity >= len(current):
            break
        granularity = min(len(current), granularity * 2)
    return current
