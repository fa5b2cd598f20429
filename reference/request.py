"""A writer request read field by field (observations.md): its zones, and each observation
with field access that rejects a malformed request (handles, zones, positions, counts, card
descriptions), so that the writer never reads a field unchecked.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Self

from .cards import Description
from .errors import RequestError
from .library import Position

SHARED_ZONES = frozenset({"battlefield", "stack", "exile", "command"})
_PLAYER_ZONE = re.compile(r"(library|hand|graveyard):([A-Za-z0-9_.-]+)")


def check_request(request: Any) -> None:
    """A writer request is an object with every section: `source.hidden_tracking` true or
    false, `cards` and `observations` arrays (each entry is checked as it is read)."""
    if not isinstance(request, Mapping):
        raise RequestError("a writer request is a JSON object")
    for key in ("perspective", "players", "source", "cards", "observations"):
        if key not in request:
            raise RequestError(f"the writer request lacks `{key}`")
    source = request["source"]
    if not isinstance(source, Mapping) or not isinstance(source.get("hidden_tracking"), bool):
        raise RequestError("`source.hidden_tracking` must be true or false")
    if not isinstance(request["cards"], list) or not isinstance(request["observations"], list):
        raise RequestError("`cards` and `observations` must be arrays")


def zone_kind(zone: str) -> str:
    """`library`, `hand`, `graveyard`, or the shared zone's own name."""
    return zone.split(":", 1)[0]


def zone_player(zone: str) -> str | None:
    """The player of a library, hand or graveyard; None for a shared zone."""
    match = _PLAYER_ZONE.fullmatch(zone)
    return match.group(2) if match else None


def is_library(zone: str) -> bool:
    """Whether the zone is a library, where positions decide and handles are not used."""
    return zone_kind(zone) == "library"


def as_integer(value: Any) -> int | None:
    """A JSON number that is an integer (`3`, and `3.0`, the same number), else None.

    A JSON number is its value, so `1.0` is the integer 1 (observations.md); `true` is never a
    number, though Python's bool is an int.
    """
    if isinstance(value, bool):
        return None
    if isinstance(value, int):
        return value
    if isinstance(value, float) and value.is_integer():
        return int(value)
    return None


@dataclass(frozen=True, slots=True, kw_only=True)
class Observation:
    """One observation and its number, with field access that rejects malformed requests."""

    index: int
    data: Mapping[str, Any]

    @classmethod
    def read(cls, index: int, data: Any) -> Self:
        """Observation `index` of the request, which must be an object with a string `type`."""
        # `dict` first: the ABC check costs more than the rest of this, once per observation.
        if not isinstance(data, dict | Mapping) or not isinstance(data.get("type"), str):
            raise RequestError(f"observation {index} is not an object with a `type`")
        return cls(index=index, data=data)

    @property
    def type(self) -> str:
        return str(self.data["type"])  # a string: the writer checks each observation's type first

    def get(self, key: str, default: Any = None) -> Any:
        return self.data.get(key, default)

    def label(self) -> str:
        """`observation 7 (move of handle '12' from hand:P1 to stack)`: for rejection messages."""
        words = [self.type]
        if "object" in self.data:
            words.append(f"of handle {self.data['object']!r}")
        for key, word in (("from", "from"), ("to", "to"), ("zone", "in")):
            if key in self.data:
                words.append(f"{word} {self.data[key]}")
        return f"observation {self.index} ({' '.join(words)})"

    def need(self, key: str) -> Any:
        if key not in self.data:
            raise RequestError(f"observation {self.index} ({self.type}) lacks `{key}`")
        return self.data[key]

    def zone(self, key: str, default: str | None = None) -> str:
        zone = self.data.get(key, default) if default is not None else self.need(key)
        if not isinstance(zone, str) or not (zone in SHARED_ZONES or _PLAYER_ZONE.fullmatch(zone)):
            raise RequestError(f"observation {self.index}: `{key}` is not a zone: {zone!r}")
        return zone

    def library_zone(self) -> str:
        """The `zone` of a shuffle, a reorder or a library size, which must be a library."""
        zone = self.zone("zone")
        if not is_library(zone):
            raise RequestError(f"observation {self.index}: {zone} is not a library")
        return zone

    def handle(self, key: str = "object") -> str:
        value = self.need(key)
        if not isinstance(value, str) or not value:
            raise RequestError(f"observation {self.index}: `{key}` is not a handle: {value!r}")
        return value

    def handles(self, key: str) -> list[str]:
        """An optional list of handles (`carried`, a mulligan's `objects`); empty when absent."""
        values = self.data.get(key, [])
        if not isinstance(values, list) or not all(isinstance(v, str) and v for v in values):
            raise RequestError(f"observation {self.index}: `{key}` is not a list of handles")
        return values

    def integer(self, key: str, minimum: int) -> int:
        value = as_integer(self.need(key))
        if value is None or value < minimum:
            raise RequestError(
                f"observation {self.index}: `{key}` is not an integer >= {minimum}: "
                f"{self.data[key]!r}"
            )
        return value

    def position(self, key: str) -> Position:
        value = self.data.get(key, "unknown")
        if value == "top":
            return 1
        if value == "bottom":
            return -1
        if value == "unknown":
            return None
        number = as_integer(value)
        if number is not None and number != 0:
            return number
        raise RequestError(f"observation {self.index}: `{key}` is not a position: {value!r}")

    def order(self, count: int) -> list[int]:
        """A reorder's `order`, which must be a permutation of 1..count (REQ-5)."""
        raw = self.need("order")
        order = [as_integer(k) or 0 for k in raw] if isinstance(raw, list) else []
        if sorted(order) != list(range(1, count + 1)):
            raise RequestError(
                f"{self.label()}: `order` {raw!r} is not a permutation of 1..{count} (REQ-5)"
            )
        return order

    def description(self, key: str) -> Description | None:
        data = self.data.get(key)
        return (
            None if data is None else Description.from_json(data, f"observation {self.index}.{key}")
        )
