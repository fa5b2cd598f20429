"""Arena's Player.log: the renderer, the importer, the round trip over the whole corpus, and the
real recording under ../shared/data (read at test time, never copied)."""

from __future__ import annotations

import gzip
import json
from collections import Counter
from typing import Any

import pytest
from cardid_conformance.cases import Case, Rejection, WriterExpectation
from cardid_conformance.compare import compare_writer
from cardid_conformance.sources import arena_log, arena_render
from cardid_conformance.sources.arena_import import import_log
from cardid_conformance.sources.common import Inexpressible, LogError, carried
from cardid_conformance.sources.profile import not_applicable
from cardid_reference.writer import write

from tests.conftest import RECORDING, needs_recording


def _writer_cases(corpus_cases: list[Case]) -> list[Case]:
    return [
        case for case in corpus_cases
        if case.role == "writer" and isinstance(case.expectation, WriterExpectation)
    ]


@pytest.fixture(scope="module")
def corpus_cases() -> list[Case]:
    from cardid_conformance import suite
    from cardid_conformance.cases import case_files, load_corpus
    from cardid_conformance.spec import load_spec

    return list(load_corpus(case_files(suite.CASES_DIR), load_spec()).cases)


def test_every_expressible_case_survives_the_round_trip(corpus_cases: list[Case]) -> None:
    """Rendered as Arena's log and imported back, every case Arena can express poses a request
    whose correct answer is the case's own expectation (observations matched by place)."""
    expressible, reasons, broken = 0, Counter[str](), []
    for case in _writer_cases(corpus_cases):
        try:
            rendering = arena_render.render(case.request)
        except Inexpressible as error:
            reasons[error.why.split(";")[0]] += 1
            continue
        expressible += 1
        imported = import_log(rendering.log, case.request["perspective"], rendering.sidecar)
        moved = carried(case, rendering, imported)
        differences = compare_writer(moved, write(moved.request))
        if differences:
            broken.append(f"{case.id}: {differences[0].message}")
    assert broken == []
    # A renderer that refused nearly everything would pass the loop above: 110 of 237 render.
    assert expressible >= 100, reasons


def test_the_profile_is_the_renderer(corpus_cases: list[Case]) -> None:
    """A writer case is applicable to Arena readers exactly when it renders; rejection cases
    never are, and reader cases always are."""
    for case in corpus_cases:
        reason = not_applicable(case, "arena")
        if case.role == "reader":
            assert reason is None
        elif isinstance(case.expectation, Rejection):
            assert reason is not None and "rejection case" in reason
        else:
            try:
                arena_render.render(case.request)
            except Inexpressible as error:
                assert reason is not None and str(error) in reason
            else:
                assert reason is None


def test_a_rendered_log_is_shaped_as_real_parsers_read_it(corpus_cases: list[Case]) -> None:
    """Each event is a marker line naming GreToClientEvent and the event's JSON alone on the next
    line; every card object carries overlayGrpId (the 17lands client drops a message without)."""
    case = next(c for c in _writer_cases(corpus_cases) if c.id == "alchemy-name-keeps-prefix")
    lines = arena_render.render(case.request).log.splitlines()
    assert lines[0].startswith("[UnityCrossThreadLogger]")
    assert "MatchGameRoomStateChangedEvent" in lines[0]
    events = lines[2:]
    assert all(marker.endswith(": GreToClientEvent") for marker in events[0::2])
    for line in events[1::2]:
        event = json.loads(line)
        for message in event["greToClientEvent"]["greToClientMessages"]:
            for obj in message.get("gameStateMessage", {}).get("gameObjects", ()):
                assert "overlayGrpId" in obj


def _request(*observations: dict[str, Any], players: int = 2, tracking: bool = True) -> dict[str, Any]:
    names = [f"P{n}" for n in range(1, players + 1)]
    return {
        "role": "writer", "perspective": "P1", "players": names,
        "source": {"name": "arena", "hidden_tracking": tracking}, "cards": [],
        "observations": [{"type": "game_start", "game": 1}, *observations],
    }


DRAW = {"type": "move", "object": "1", "from": "library:P1", "to": "hand:P1",
        "from_position": "top", "card": {"source_id": "arena:70228"}}


@pytest.mark.parametrize(("request_", "index", "words"), [
    (_request(players=3), None, "two seats"),
    (_request({**DRAW, "from_position": "bottom"}), 1, "whose size the request does not show"),
    (_request({**DRAW, "from_position": "unknown"}), 1, "never unknown"),
    (_request({k: v for k, v in DRAW.items() if k != "object"}), 1, "shows none"),
    (_request({k: v for k, v in DRAW.items() if k != "card"}), 1, "without saying what card"),
    (_request({**DRAW, "to": "hand:P2"}, tracking=False), 1, "no hidden tracking"),
    (_request({"type": "become_copy", "object": "1", "copy_of": {"name": "X"}}), 1, "become_copy"),
])
def test_what_arena_cannot_show_is_named(request_: dict[str, Any], index: int | None, words: str) -> None:
    with pytest.raises(Inexpressible) as raised:
        arena_render.render(request_)
    assert raised.value.observation == index
    assert words in raised.value.why


def test_a_shown_size_is_the_rendered_library_s_size() -> None:
    """A library whose size the request shows holds exactly that many cards in the log; one
    whose size it never shows holds more than the request uses."""
    shown = _request({"type": "library_size", "zone": "library:P1", "size": 5}, DRAW)
    rendering = arena_render.render(shown)
    imported = import_log(rendering.log, "P1", rendering.sidecar)
    sizes = {o["zone"]: o["size"] for o in imported.request["observations"] if o["type"] == "library_size"}
    assert sizes["library:P1"] == 5  # shown at the start of the game, before the draw
    unshown = arena_render.render(_request(DRAW))
    imported = import_log(unshown.log, "P1", unshown.sidecar)
    sizes = {o["zone"]: o["size"] for o in imported.request["observations"] if o["type"] == "library_size"}
    assert sizes["library:P1"] > arena_render.DEPTH


def test_an_importer_refuses_what_is_not_an_arena_log() -> None:
    with pytest.raises(LogError, match="no game-engine message"):
        import_log("hello\nworld\n", "1")
    log = arena_render.render(_request(DRAW)).log
    with pytest.raises(LogError, match="no seat is 'P9'"):
        import_log(log, "P9")


def test_without_a_sidecar_cards_are_their_grp_ids_and_seats_named_by_the_log() -> None:
    log = arena_render.render(_request(DRAW)).log
    imported = import_log(log, "P1")
    assert imported.request["players"] == ["P1", "P2"]  # the room state names the seats
    move = next(o for o in imported.request["observations"] if o["type"] == "move")
    assert move["card"] == {"source_id": "arena:70228"}
    assert move["from_position"] == "top"


# -- the real recording ----------------------------------------------------------------------


@pytest.fixture(scope="module")
def recording() -> str:
    return gzip.open(RECORDING, "rt", encoding="utf-8").read()


@needs_recording
@pytest.mark.parametrize("seat", ["1", "2"])
def test_the_real_recording_imports_for_each_seat_and_the_reference_accepts_it(recording: str, seat: str) -> None:
    imported = import_log(recording, seat)
    result = write(imported.request)
    assert len(result["assignments"]) == len(imported.request["observations"])


def _at(imported: Any, **fields: Any) -> list[dict[str, Any]]:
    return [o for o in imported.request["observations"] if all(o.get(k) == v for k, v in fields.items())]


@needs_recording
def test_the_real_draw_and_cast_are_one_card(recording: str) -> None:
    """Facts read in the recording: ObjectIdChanged 166 -> 280 with a Draw from seat 1's
    library (grpId 70228), then 280 -> 282 cast onto the stack; the reference gives the three
    handles one ID, which is what the 17lands client and inthearena do not do."""
    imported = import_log(recording, "1")
    draw, = _at(imported, type="move", object="166")
    assert draw["new_object"] == "280"
    assert (draw["from"], draw["to"], draw["from_position"]) == ("library:seat1", "hand:seat1", "top")
    assert draw["card"] == {"source_id": "arena:70228"}
    cast, = _at(imported, type="move", object="280")
    assert (cast["new_object"], cast["to"]) == ("282", "stack")
    observations = imported.request["observations"]
    ids = write(imported.request)["assignments"]
    assert ids[observations.index(draw)] == ids[observations.index(cast)]


@needs_recording
def test_the_real_shuffle_and_search(recording: str) -> None:
    """The recording's one Shuffle renumbers all 45 cards of seat 1's library; the search before
    it shows seat 1 the whole library, one reveal a position; seat 2 sees none of that."""
    mine = import_log(recording, "1")
    assert len(_at(mine, type="shuffle", zone="library:seat1")) == 1
    shown = [o for o in _at(mine, type="reveal", zone="library:seat1") if isinstance(o.get("position"), int)]
    assert len(shown) >= 40
    theirs = import_log(recording, "2")
    assert _at(theirs, type="reveal", zone="library:seat1") == []
    assert _at(theirs, type="reveal", zone="hand:seat1") == []
    assert len(_at(theirs, type="shuffle", zone="library:seat1")) == 1


@needs_recording
def test_abilities_are_not_card_objects(recording: str) -> None:
    """The recording's stack holds ability objects (GameObjectType_Ability): none is an
    observation, so none gets an instance ID (ID-1)."""
    abilities = set()
    for _, message in arena_log.read_log(recording)[0]:
        for obj in message.get("gameStateMessage", {}).get("gameObjects", ()):
            if obj.get("type") == "GameObjectType_Ability":
                abilities.add(str(obj["instanceId"]))
    assert abilities
    imported = import_log(recording, "1")
    assert not [o for o in imported.request["observations"] if o.get("object") in abilities]
