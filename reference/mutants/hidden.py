"""Mutants of the hidden-zone and visibility rules (HID-1, HID-2, VIS-2): whose hand loses track
of its cards, and from when an identity is revealed (spec 1.0.0)."""

from __future__ import annotations

from dataclasses import replace

from cardid_reference.cards import (
    Identity,
)
from cardid_reference.instances import Entry
from cardid_reference.request import zone_kind
from cardid_reference.writer import Writer

from . import mutant


@mutant("ignore-tracking")
class IgnoreTracking(Writer):
    """Trusts handles in other players' hands without hidden tracking (HID-1, HID-2, E6, E7)."""

    def loses_track_in(self, zone: str) -> bool:
        return False


@mutant("never-track-hidden")
class NeverTrackHidden(Writer):
    """Ends IDs in other players' hands even with hidden tracking (HID-1)."""

    def loses_track_in(self, zone: str) -> bool:
        return zone_kind(zone) == "hand" and zone != f"hand:{self.perspective}"


@mutant("early-reveal")
class EarlyReveal(Writer):
    """Dates the identity to the instance's first observation, naming it retroactively (VIS-2)."""

    def bind(self, entry: Entry, identity: Identity, index: int) -> Entry:
        bound = super().bind(entry, identity, index)
        if entry.revealed_at is None and bound.revealed_at is not None:
            return replace(bound, revealed_at=entry.first_seen)
        return bound
