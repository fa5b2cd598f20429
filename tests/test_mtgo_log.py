"""MTGO game-log text: the renderer, the importer, the round trip over the whole corpus, and the
two real logs under ../shared/data (read at test time, never copied)."""

from __future__ import annotations

import copy
from collections import Counter
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import pytest
from cardid_conformance import schemas
from cardid_conformance.cases import Case, WriterExpectation, case_files, load_corpus
from cardid_conformance.compare import compare_writer
from cardid_conformance.sources.common import Imported, Inexpressible, LogError, carried
from cardid_conformance.sources.mtgo_import import import_log
from cardid_conformance.sources.mtgo_render import render
from cardid_conformance.spec import Spec
from cardid_reference.writer import write

from tests.conftest import DATA, ROOT

LOGS = DATA / "logs" / "mtgo"
FIRST, SECOND = LOGS / "Match_GameLog_TEST01.log", LOGS / "Match_GameLog_TEST02.log"
needs_logs = pytest.mark.skipif(
    not (FIRST.exists() and SECOND.exists()),
    reason=f"the real MTGO logs are not in {LOGS} (set CARDID_DATA to the shared data)",
)


@pytest.fixture(scope="module")
def writer_cases(spec: Spec) -> list[Case]:
    """The corpus's writer cases that expect an answer (not a rejection)."""
    corpus = load_corpus(case_files(ROOT / "cases" / "writer"), spec)
    return [case for case in corpus.cases if isinstance(case.expectation, WriterExpectation)]


def test_every_expressible_case_survives_the_round_trip(writer_cases: list[Case]) -> None:
    """Rendered as MTGO text and imported back with the sidecar, every case the text can
    express poses a request whose correct answer is the case's own expectation (observations
    matched by line)."""
    expressible, reasons, broken = 0, Counter[str](), []
    for case in writer_cases:
        try:
            rendering = render(case.request)
        except Inexpressible as error:
            reasons[error.why.split(":")[0]] += 1
            continue
        expressible += 1
        reading = import_log(rendering.log, case.request["perspective"], rendering.sidecar)
        assert reading.skipped == (), case.id  # the importer understands every line written
        moved = carried(case, rendering, reading)
        differences = compare_writer(moved, write(moved.request))
        if differences:
            broken.append(f"{case.id}: {differences[0].message}")
    print(f"MTGO text expresses {expressible} of {len(writer_cases)} writer cases; not:")
    for why, count in reasons.most_common():
        print(f"  {count:3} {why}")
    assert broken == []
    # A renderer refusing nearly everything would pass the loop above: 13 of 237 render (most
    # cases draw cards by handle, link handles, or read without hidden tracking).
    assert expressible >= 13, reasons


def test_rendering_is_deterministic(writer_cases: list[Case]) -> None:
    case = next(c for c in writer_cases if c.id == "mention-of-attacker-and-blocker-keeps-ids")
    first, second = render(case.request), render(copy.deepcopy(case.request))
    assert (first.log, first.places) == (second.log, second.places)
    assert first.sidecar == second.sidecar


# -- a request using every line shape the renderer writes -------------------------------------

BOLT = {"name": "Lightning Bolt", "printings": [{"set": "M10", "number": "146", "source_ids": ["mtgo:33333"]}]}


def _request(*observations: dict[str, Any], tracking: bool = True) -> dict[str, Any]:
    return {
        "role": "writer", "perspective": "P1", "players": ["P1", "P2"],
        "source": {"name": "mtgo", "hidden_tracking": tracking}, "cards": [BOLT],
        "observations": [{"type": "game_start", "game": 1}, *observations],
    }


def _move(handle: str | None, source: str, destination: str, **fields: Any) -> dict[str, Any]:
    move = {"type": "move", "from": source, "to": destination, **fields}
    return move if handle is None else {"object": handle, **move}


EVERY_SHAPE = _request(
    {"type": "mulligan", "player": "P2"},
    {"type": "mulligan", "player": "P2"},
    _move(None, "hand:P2", "library:P2", position="bottom"),
    _move(None, "hand:P2", "library:P2", position=-1),
    _move(None, "library:P1", "hand:P1", from_position="top"),
    _move("a", "hand:P1", "battlefield", card={"name": "Misty Rainforest"}),
    {"type": "mention", "object": "a", "zone": "battlefield"},
    {"type": "shuffle", "zone": "library:P1"},
    _move("b", "hand:P1", "stack", card={"source_id": "mtgo:33333"}),
    {"type": "mention", "object": "b", "zone": "stack"},
    _move("b", "stack", "graveyard:P1"),
    _move("c", "hand:P2", "stack", card={"name": "Tarmogoyf"}),
    _move("c", "stack", "battlefield"),
    {"type": "control_change", "object": "c", "controller": "P1"},
    _move("c", "battlefield", "hand:P2"),
    {"type": "reveal", "object": "c", "zone": "hand:P2", "card": {"name": "Tarmogoyf"}},
    {"type": "reveal", "object": "d", "zone": "hand:P2", "card": {"name": "Thoughtseize"}},
    _move("d", "hand:P2", "graveyard:P2"),
    _move("d", "graveyard:P2", "exile"),
    _move("e", "graveyard:P2", "stack", card={"name": "Kroxa, Titan of Death's Hunger"}),
    _move("e", "stack", "battlefield"),
    _move("e", "battlefield", "graveyard:P2"),
    {"type": "create_token", "owner": "P2", "card": {"name": "Elemental"}},
    {"type": "mention", "object": "t", "zone": "battlefield", "owner": "P2", "kind": "token",
     "card": {"name": "Elemental"}},
    _move("t", "battlefield", "graveyard:P2"),
    _move(None, "library:P1", "library:P1", from_position=1, position="bottom"),
    _move(None, "hand:P1", "library:P1", position="top"),
    {"type": "game_start", "game": 2},
    _move("b", "hand:P2", "battlefield", card={"name": "Plains", "source_id": "mtgo:33333"}),
)


def _same_answer(first: Mapping[str, Any], second: Mapping[str, Any]) -> bool:
    """Whether two writer results agree up to a renaming of instance IDs."""
    renamed: dict[str, str] = {}
    for ours, theirs in zip(first["assignments"], second["assignments"], strict=True):
        if (ours is None) != (theirs is None):
            return False
        if ours is not None and renamed.setdefault(ours, theirs) != theirs:
            return False
    if len(set(renamed.values())) != len(renamed):
        return False
    theirs_by_id = {entry["id"]: entry for entry in second["card_table"]}
    return all(
        {**entry, "id": None} == {**theirs_by_id[renamed[entry["id"]]], "id": None}
        for entry in first["card_table"]
    )


def test_every_line_shape_reads_back_as_written() -> None:
    """Every shape the renderer writes, together: the imported request is answered as the
    original is, and the London bottoming shares one line, as MTGO writes it."""
    rendering = render(EVERY_SHAPE)
    reading = import_log(rendering.log, "P1", rendering.sidecar)
    assert reading.skipped == ()
    imported = reading.request
    assert schemas.first_problem("writer-input", imported) is None
    assert _same_answer(write(EVERY_SHAPE), write(imported))
    assert rendering.places[3] == rendering.places[4]  # two cards, one bottoming line
    assert rendering.places[8] == rendering.places[7]  # the shuffle rides on the ability line
    assert rendering.log.count(" joined the game.") == 4


def test_catalogue_numbers_stand_for_exact_descriptions() -> None:
    """`mtgo:N` keeps N; any other description gets a number of its own, never one a
    description's `mtgo:` ID uses; the sidecar maps each back to the exact description."""
    rendering = render(EVERY_SHAPE)
    descriptions = rendering.sidecar["descriptions"]
    assert descriptions["33333"] == {"source_id": "mtgo:33333"}
    assert {"name": "Plains", "source_id": "mtgo:33333"} in descriptions.values()
    assert all(number == "33333" or int(number) >= 900001 for number in descriptions)
    assert "@[Lightning Bolt@:33333," in rendering.log  # named through the card section


def test_a_card_without_description_re_shows_the_last_one() -> None:
    """An observation without `card` names its object as the text last showed it, which binds
    nothing new; an object nothing has described yet cannot be written."""
    rendering = render(_request(_move("x", "hand:P2", "stack", card={"name": "Ponder"}),
                                _move("x", "stack", "graveyard:P2")))
    assert rendering.log.count("@[Ponder@:") == 2
    with pytest.raises(Inexpressible, match="nothing before this observation described") as raised:
        render(_request(_move("x", "hand:P2", "stack")))
    assert raised.value.observation == 1


# -- what MTGO text cannot show -----------------------------------------------------------------


@pytest.mark.parametrize(("request_", "index", "words"), [
    (_request({"type": "library_size", "zone": "library:P1", "size": 40}), 1,
     "never shows a library's size"),
    (_request({"type": "reorder", "zone": "library:P1", "end": "top", "count": 2, "order": [2, 1]}),
     1, "no reorder"),
    (_request(_move("1", "hand:P1", "stack", new_object="2", card={"name": "Opt"})), 1,
     "never links a handle"),
    (_request(_move("1", "library:P1", "hand:P1", from_position="top", card={"name": "Opt"})), 1,
     "library"),
    (_request(_move(None, "library:P1", "hand:P1")), 1, "draw from the top"),
    (_request({"type": "create_copy", "object": "9", "owner": "P1", "card": {"name": "Opt"}}), 1,
     "copy's creation"),
    (_request({"type": "restart", "carried": []}), 1, "restart"),
    (_request({"type": "shuffle", "zone": "library:P1"}), 1, "then shuffle"),
    (_request({"type": "mention", "object": "1", "zone": "battlefield", "owner": "P2",
               "kind": "copy", "card": {"name": "Opt"}}), 1, "not copies"),
    (_request({"type": "game_start", "game": 3}), 1, "numbers games by their order"),
    (_request(tracking=False), None, "hidden tracking"),
])
def test_what_mtgo_text_cannot_show_is_named(
    request_: dict[str, Any], index: int | None, words: str
) -> None:
    with pytest.raises(Inexpressible) as raised:
        render(request_)
    assert raised.value.observation == index
    assert words in raised.value.why


def test_text_that_would_read_back_otherwise_is_inexpressible() -> None:
    """MTGO puts a card into its owner's graveyard: P1's creature put into P2's graveyard would
    read back as going to P1's, so the renderer refuses it rather than write it."""
    request = _request(
        _move("1", "hand:P1", "battlefield", card={"name": "Forest"}),
        _move("1", "battlefield", "graveyard:P2"),
    )
    with pytest.raises(Inexpressible, match="reads back as") as raised:
        render(request)
    assert raised.value.observation == 2


# -- the importer on its own --------------------------------------------------------------------


def test_an_importer_refuses_what_is_not_an_mtgo_log() -> None:
    log = render(_request(_move("1", "hand:P2", "stack", card={"name": "Opt"}))).log
    with pytest.raises(LogError, match="'P9' is not a player"):
        import_log(log, "P9")
    with pytest.raises(LogError, match="no line of this text"):
        import_log("hello\nworld\n", "P1", {"format": "mtgo", "players": ["P1"]})
    with pytest.raises(LogError, match="not an MTGO sidecar"):
        import_log(log, "P1", {"format": "arena", "players": ["P1", "P2"]})


def test_without_a_sidecar_cards_are_shown_names_and_catalogue_numbers() -> None:
    log = "\n".join([
        "P1 joined the game.", "P2 joined the game.",
        "P2 plays @[Forest@:1234,501:@].",
        "P2 waves at P1.",
        "P2 activates an ability of @[Plant@:0,502:@] token.",
    ])
    reading = import_log(log, "P1")
    request = reading.request
    assert request["players"] == ["P1", "P2"] and request["cards"] == []
    play, plant = request["observations"][1:]
    assert play["card"] == {"name": "Forest", "source_id": "mtgo:1234"}
    assert (plant["card"], plant["kind"], plant["owner"]) == ({"name": "Plant"}, "token", "P2")
    assert reading.skipped == ("line 4",)
    assert reading.notes[2] is not None and "introduced" in reading.notes[2]


# -- the real logs --------------------------------------------------------------------------------


def _read(path: Path, perspective: str) -> Imported:
    return import_log(path.read_text(encoding="utf-8"), perspective)


def _of(imported: Imported, handle: str) -> list[int]:
    return [i for i, o in enumerate(imported.request["observations"]) if o.get("object") == handle]


@needs_logs
@pytest.mark.parametrize(("path", "players"), [
    (FIRST, ["MyPlayerName42", "RandomOpp13"]), (SECOND, ["Player01", "Opponent89"]),
])
def test_the_real_logs_import_for_each_player_and_the_reference_accepts_them(
    path: Path, players: list[str]
) -> None:
    """Every line of the two real logs is understood; the request is valid and consistent for
    either player, and the same observations whoever reads them."""
    text = path.read_text(encoding="utf-8")
    requests = []
    for perspective in players:
        reading = import_log(text, perspective)
        request = reading.request
        assert reading.skipped == ()
        assert request["players"] == players  # in the order the rolls name them
        assert schemas.first_problem("writer-input", request) is None
        result = write(request)
        assert len(result["assignments"]) == len(request["observations"])
        requests.append(request)
    assert requests[0]["observations"] == requests[1]["observations"]


@needs_logs
def test_facts_read_in_the_first_real_log() -> None:
    """Read in TEST01: three games; MyPlayerName42 mulligans in the first two; ten abilities
    say `then shuffle`; thirteen tokens are created with no handle."""
    imported = _read(FIRST, "MyPlayerName42")
    observations = imported.request["observations"]
    kinds = Counter(o["type"] for o in observations)
    assert (kinds["game_start"], kinds["shuffle"], kinds["create_token"]) == (3, 10, 13)
    assert [o["player"] for o in observations if o["type"] == "mulligan"] == ["MyPlayerName42"] * 2
    ids = write(imported.request)["assignments"]
    # Handle 536, game 1: a Dryad of the Ilysian Grove (catalogue 158924), discarded from the hand.
    discard = observations[_of(imported, "536")[0]]
    assert (discard["type"], discard["from"], discard["to"]) == (
        "move", "hand:RandomOpp13", "graveyard:RandomOpp13",
    )
    assert discard["card"] == {"name": "Dryad of the Ilysian Grove", "source_id": "mtgo:158924"}
    # Handle 541 is revealed in the opponent's hand (line 16), then discarded (line 23): the
    # hidden tracking MTGO declares makes that one card.
    reveal, discarded = _of(imported, "541")
    assert (imported.places[reveal], imported.places[discarded]) == ("line 16", "line 23")
    assert ids[reveal] == ids[discarded]
    # Handle 558 is Valakut in game 1 and a Bloodstained Mire in game 2: two cards.
    first_game, second_game = _of(imported, "558")[0], _of(imported, "558")[-1]
    assert observations[first_game]["card"]["name"] != observations[second_game]["card"]["name"]
    assert ids[first_game] != ids[second_game]
    # Bloodbraid Elf (599) is cast, and attacks at line 59: the resolution is inferred there.
    resolved = next(i for i in _of(imported, "599") if imported.places[i] == "line 59")
    assert (observations[resolved]["from"], observations[resolved]["to"]) == ("stack", "battlefield")
    assert "resolved" in (imported.notes[resolved] or "")


@needs_logs
def test_facts_read_in_the_second_real_log() -> None:
    """Read in TEST02: each player's Lightning Bolt shows its own catalogue number; a Fiery
    Islet (handle 536) revealed twice in the opponent's hand in game 3 is one card; a token
    blocker never shown arriving is a token of the defending player."""
    imported = _read(SECOND, "Player01")
    observations = imported.request["observations"]
    bolts = {
        (o["card"]["source_id"], o.get("owner"))
        for o in observations if o.get("card", {}).get("name") == "Lightning Bolt"
    }
    assert bolts == {("mtgo:74480", "Player01"), ("mtgo:65718", "Opponent89")}
    third_game = [i for i, o in enumerate(observations) if o["type"] == "game_start"][2]
    islets = [i for i in _of(imported, "536") if i > third_game]
    assert [observations[i]["type"] for i in islets] == ["reveal", "reveal"]
    assert {observations[i]["card"]["name"] for i in islets} == {"Fiery Islet"}
    ids = write(imported.request)["assignments"]
    assert ids[islets[0]] == ids[islets[1]]
    kinds = Counter(o["type"] for o in observations)
    assert (kinds["game_start"], kinds["mulligan"], kinds["shuffle"]) == (3, 1, 3)


@needs_logs
def test_a_real_token_blocker_is_introduced_as_a_token() -> None:
    """TEST01, game 3: a Zombie token (handle 614) blocks, never shown arriving; it enters the
    card table as RandomOpp13's token, the player being attacked."""
    imported = _read(FIRST, "RandomOpp13")
    result = write(imported.request)
    index, = _of(imported, "614")
    entry = next(e for e in result["card_table"] if e["id"] == result["assignments"][index])
    assert (entry["name"], entry["kind"], entry["owner"]) == ("Zombie", "token", "RandomOpp13")
