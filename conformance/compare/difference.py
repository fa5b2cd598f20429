"""A difference between an answer and the expectation, and an observation as a difference's
message shows it."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True, slots=True, kw_only=True)
class Difference:
    """One way an answer differs from the expectation, with the rule it breaks."""

    rule: str
    message: str
    observation: int | None = None
    context: tuple[str, ...] = ()
    #: What went wrong, in words shared by every difference of that kind, so that failures
    #: with one root cause group together ("split at a move hand -> stack").
    cause: str = ""


#: Fields `describe` renders in its own way, or that are the case's and not the request's.
_DESCRIBED = frozenset(
    {"type", "object", "new_object", "from", "to", "from_position", "position", "face_down", "card",
     "expect", "rule"}
)


def describe(observation: Mapping[str, Any]) -> str:
    """A one-line rendering of an observation, for failure messages: every field it holds, so
    that whatever a rule reads (a reorder's `order`, a size, a reveal's position, a restart's
    `carried`, a copy's `original`) is there to diagnose it."""
    kind = observation["type"]
    handle = observation.get("object")
    parts = [kind]
    if handle is not None:
        parts.append(f"object {handle}")
        if "new_object" in observation:
            parts.append(f"-> {observation['new_object']}")
    elif kind in ("move", "create_token"):
        parts.append("(no object shown)")
    if kind == "move":
        where = observation["from"]
        if "from_position" in observation:
            where += f" ({observation['from_position']})"
        to = observation["to"]
        if "position" in observation:
            to += f" ({observation['position']})"
        parts.append(f"{where} -> {to}")
    for key, value in observation.items():
        if key not in _DESCRIBED or (key == "position" and kind != "move"):
            parts.append(f"{key}={_value(value)}")
    if observation.get("face_down"):
        parts.append("face down")
    card = observation.get("card")
    if card:
        parts.append("card " + ", ".join(f"{k}={_value(v)}" for k, v in card.items()))
    return " ".join(str(part) for part in parts)


def _value(value: Any) -> str:
    """A field's value as a failure message shows it: lists as [a, b], printings as SET NUMBER."""
    if isinstance(value, list):
        return "[" + ", ".join(_value(item) for item in value) + "]"
    if isinstance(value, Mapping):
        if set(value) == {"set", "number"}:
            return f"{value['set']} {value['number']}"
        return "{" + ", ".join(f"{k}={_value(v)}" for k, v in value.items()) + "}"
    return str(value)
