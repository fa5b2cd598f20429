"""The MTGO renderer's guarantee: its text reads back as exactly the request it renders
(observations.md, "MTGO game logs").

Strictness is checked, not hoped for: the text is imported back (`mtgo_import`), and the first
observation that does not come back as written, at its own line, makes the request Inexpressible
there. What is compared is what a writer reads from each observation (`_essence`), with the
handles numbered as the text shows them.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from cardid_conformance.compare import describe
from cardid_conformance.sources.common import Inexpressible, Rendering
from cardid_conformance.sources.mtgo_handles import Handles, introduced_owner, is_library
from cardid_conformance.sources.mtgo_import import import_log
from cardid_conformance.sources.mtgo_log import position_word

#: Fields `_essence` reads on its own terms, or not at all.
_READ_APART = frozenset(
    {"owner", "kind", "card", "controller", "from_position", "position", "face_down"}
)


def _essence(
    observation: Mapping[str, Any], handles: Handles, numbers: Mapping[str, str] | None
) -> dict[str, Any]:
    """What a writer reads from an observation, given the handles held before it: its handles
    (as the text numbers them), zones and positions, the description it shows, and the owner and
    kind only where it introduces an object (OWN-1, TOK-6). A move's `controller` is
    informational and left out; an observation without `card` has the description the text
    re-shows for its held object."""

    def number(handle: str) -> str:
        return handle if numbers is None else numbers[handle]

    kind = observation["type"]
    essence = {key: value for key, value in observation.items() if key not in _READ_APART}
    for key in ("object", "new_object", "original", "permanent"):
        if key in essence:
            essence[key] = number(essence[key])
    for key in ("objects", "carried"):
        if key in essence:
            essence[key] = [number(handle) for handle in essence[key]]
    if kind == "control_change":
        essence["controller"] = observation["controller"]
    elif kind == "move":
        essence["face_down"] = bool(observation.get("face_down"))
        if is_library(observation["from"]):
            essence["from_position"] = position_word(observation.get("from_position", "unknown"))
        if is_library(observation["to"]):
            essence["position"] = position_word(observation.get("position", "unknown"))
    elif kind in ("reveal", "mention") and is_library(observation["zone"]):
        essence["position"] = position_word(observation.get("position", "unknown"))
    elif kind in ("create_token", "create_copy"):
        essence["owner"] = observation["owner"]
        essence.setdefault("zone", "battlefield" if kind == "create_token" else "stack")
    card = observation.get("card")
    if card is None and "object" in observation:
        held = handles.get(observation["object"])
        card = held.card if held is not None else None
    essence["card"] = card
    if handles.introduces(observation):
        essence["owner"] = introduced_owner(observation)
        essence["kind"] = observation.get("kind", "card")
    return essence


def check_read_back(
    request: Mapping[str, Any], rendering: Rendering, numbers: Mapping[str, str]
) -> None:
    """Inexpressible at the first observation the text does not read back as written, at its
    own line: the renderer's guarantee that its text holds exactly the request."""
    imported = import_log(rendering.log, request["perspective"], rendering.sidecar)
    observations = imported.request["observations"]
    ours, theirs = Handles(), Handles()
    for index, observation in enumerate(request["observations"]):
        if index >= len(observations):
            raise Inexpressible("the text reads back as fewer observations", observation=index)
        back = observations[index]
        expected = _essence(observation, ours, numbers)
        found = _essence(back, theirs, None)
        if expected != found or imported.places[index] != rendering.places[index]:
            raise Inexpressible(
                f"the text reads back as `{describe(back)}` at {imported.places[index]}, not as "
                f"`{describe(observation)}` at {rendering.places[index]}",
                observation=index,
            )
        ours.observe(observation)
        theirs.observe(back)
    if len(observations) > len(request["observations"]):
        extra = len(request["observations"])
        raise Inexpressible(
            f"the text reads back as more observations: `{describe(observations[extra])}` at "
            f"{imported.places[extra]}",
        )
