"""What every source format's renderer and importer share.

A renderer turns a writer request into the log a real client writes for the perspective player,
and says where in that log each observation shows (a *place*: `gameStateId 21` in an Arena log,
`line 7` in an MTGO log). An importer reads such a log back into a writer request, and says the
place each observation it wrote came from. Places are what tie the two together: the round trip
(a case rendered, then imported) is judged by matching observations at one place.

A log does not carry everything a case's request does (Arena shows no names, only catalogue
numbers), so a renderer also writes a *sidecar*: a JSON object that stands for what a client's own
card database knows, and that the importer reads beside the log.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

from cardid_conformance.cases import Case, WriterExpectation


class Inexpressible(Exception):
    """The request holds something this source's log cannot show, so a case built on it is not
    applicable to readers of that source. `observation` is the index of the first observation
    the log cannot show (None: the request as a whole, such as three players)."""

    def __init__(self, why: str, observation: int | None = None) -> None:
        super().__init__(why)
        self.why = why
        self.observation = observation

    def __str__(self) -> str:
        if self.observation is None:
            return self.why
        return f"observation {self.observation}: {self.why}"


class LogError(Exception):
    """A log an importer cannot read: `place` says where (`line 12`, `message 40`), `why` what is
    wrong there."""

    def __init__(self, place: str, why: str) -> None:
        super().__init__(f"{place}: {why}")
        self.place = place
        self.why = why


@dataclass(frozen=True, slots=True, kw_only=True)
class Rendering:
    """A request rendered as a source's log.

    `log` is the log's text, as the client writes it. `sidecar` is the JSON object written beside
    it (`players`, `cards`: the request's card section, `descriptions`: what the log's catalogue
    numbers stand for). `places[i]` is where the log shows observation i, None when the log shows
    it nowhere of its own (a library size, which every Arena state shows anyway)."""

    log: str
    sidecar: Mapping[str, Any]
    places: tuple[str | None, ...]


@dataclass(frozen=True, slots=True, kw_only=True)
class Imported:
    """A log read as a writer request for one player.

    `places[j]` is where the log shows observation j of `request`; `notes[j]` says what the
    importer inferred for it and why (None: the log shows it as written). `skipped` holds the
    places the importer passed over, not understanding them."""

    request: Mapping[str, Any]
    places: tuple[str, ...]
    notes: tuple[str | None, ...] = field(default=())
    #: The places of what the importer did not understand and passed over.
    skipped: tuple[str, ...] = ()

    def __post_init__(self) -> None:
        count = len(self.request["observations"])
        if len(self.places) != count or (self.notes and len(self.notes) != count):
            raise ValueError("an imported request has one place (and one note) per observation")


def same_place(places: Sequence[str | None], imported: Imported, index: int) -> list[int]:
    """The imported observations shown at the place where a rendering showed observation
    `index`, among those carrying an object (the ones a writer gives an ID)."""
    place = places[index]
    if place is None:
        return []
    return [
        j for j, observation in enumerate(imported.request["observations"])
        if imported.places[j] == place and "object" in observation
    ]


class Unmatched(Exception):
    """A rendered case's observation has no single counterpart in the log imported back."""


def carried(case: Case, rendering: Rendering, imported: Imported) -> Case:
    """The case as the imported log poses it: the imported request, and the case's expectation
    moved onto the imported observations shown at the same places. The round trip holds when the
    correct answer to this case is the original's; Unmatched when an observation that carries an
    object has no single counterpart carrying one."""
    expectation = case.expectation
    if not isinstance(expectation, WriterExpectation):
        raise TypeError("only a writer case with an expected answer has a round trip")
    observations = imported.request["observations"]
    labels: list[str | None] = [None] * len(observations)
    counterpart: dict[int, int] = {}
    for index, label in enumerate(expectation.labels):
        if label is None:
            continue
        found = same_place(rendering.places, imported, index)
        if len(found) != 1:
            raise Unmatched(
                f"observation {index} (at {rendering.places[index]}) has {len(found)} "
                "counterparts carrying an object in the imported request, not 1"
            )
        labels[found[0]] = label
        counterpart[index] = found[0]
    extra = [j for j, obs in enumerate(observations) if "object" in obs and labels[j] is None]
    if extra:
        raise Unmatched(
            f"imported observation {extra[0]} (at {imported.places[extra[0]]}) carries an object "
            "that no observation of the case does"
        )
    instances = {
        label: entry if entry.revealed_at is None
        else replace(entry, revealed_at=counterpart[entry.revealed_at])
        for label, entry in expectation.instances.items()
    }
    moved = WriterExpectation(
        labels=tuple(labels), rule_hints=(None,) * len(labels), instances=instances
    )
    return replace(case, request=imported.request, expectation=moved)
