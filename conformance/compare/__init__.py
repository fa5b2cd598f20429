"""Comparing an implementation's answer with a case's expectation, up to renaming of instance IDs.

What a comparison finds is a list of `Difference`s, each citing the rule it breaks and its
cause (`difference.py`, with `describe`, an observation in one line). A writer's answer is
matched ID by ID up to renaming, to the first divergence (`writer.py`), then instance by
instance; a reader's, entry by entry; each card-table entry field by field (`entries.py`).
"""

from __future__ import annotations

from cardid_conformance.compare.difference import Difference, describe
from cardid_conformance.compare.entries import compare_reader
from cardid_conformance.compare.writer import answered_inconsistent, compare_writer

__all__ = ["Difference", "answered_inconsistent", "compare_reader", "compare_writer", "describe"]
